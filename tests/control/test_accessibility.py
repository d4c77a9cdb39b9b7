"""Accessibility (LARC) and Sussmann's condition, with witnesses (issue 25.2).

Each verdict's source is in its test's docstring; each verdict has a negative case."""
from __future__ import annotations

import pytest
import sympy as sp

from geonh import ConfigurationSpace, MechanicalSystem, VectorField, models
from geonh.control import (ControlAffineSystem, DriftlessSystem, Verdict, accessibility, lyndon_bracket,
                           lyndon_words, sussmann, tree_degrees, tree_name)
from geonh.errors import (DimensionError, MissingValueError, NotEquilibriumError, ParseError, SingularMapError)

m, J, h = sp.symbols("m J h", positive=True)


def knife_edge() -> MechanicalSystem:
    """The knife edge (Bloch 2003, §1.6)."""
    S = ConfigurationSpace("x y theta")
    xd, yd, thd = S.qd
    th = S.q[2]
    return MechanicalSystem(S, m * (xd**2 + yd**2) / 2 + J * thd**2 / 2,
                            constraints=[sp.sin(th) * xd - sp.cos(th) * yd])


def rest(system) -> dict:
    return {s.name: 0 for s in system.space.coords}


def planar_body() -> MechanicalSystem:
    S = ConfigurationSpace("x y theta")
    xd, yd, thd = S.qd
    return MechanicalSystem(S, m * (xd**2 + yd**2) / 2 + J * thd**2 / 2)


def thruster(th):
    """A body-fixed force perpendicular to the body axis at distance h from the centre of mass:
    the generalized force (−sin θ, cos θ, h) (Lewis & Murray 1997, the planar rigid body)."""
    return [-sp.sin(th), sp.cos(th), h]


def test_lyndon_words_and_brackets():
    """Witt's formula: 3, 3, 8, 18, 48 Lyndon words of length 1 … 5 over 3 letters (Reutenauer
    1993, Cor. 4.14); the standard bracketing of 0 0 1 is [0, [0, 1]] and of 0 1 1 is [[0, 1], 1]."""
    assert [len(lyndon_words(3, k)) for k in range(1, 6)] == [3, 3, 8, 18, 48]
    assert lyndon_words(2, 3) == [(0, 0, 1), (0, 1, 1)]
    assert lyndon_bracket((0, 0, 1)) == (0, (0, 1)) and lyndon_bracket((0, 1, 1)) == ((0, 1), 1)
    assert tree_degrees(((0, 1), 1), 2) == (1, 2)
    assert tree_name(((0, 1), 1), ["f0", "f1"]) == "[[f0, f1], f1]"
    with pytest.raises(ParseError):
        lyndon_bracket((1, 0))
    with pytest.raises(ParseError):
        tree_name((0, 5), ["f0", "f1"])
    with pytest.raises(DimensionError):
        lyndon_words(0, 2)


def test_knife_edge_with_force_and_torque_is_stlc_at_rest():
    """The knife edge driven by a force along the blade and a torque, at rest: the LARC holds and
    Sussmann's condition is satisfied, so it is STLC at every equilibrium (Bloch, Reyhanoglu &
    McClamroch 1992, IEEE TAC 37(11): nonholonomic control systems with all degrees of freedom
    actuated and a bracket-generating constraint distribution are STLC at equilibria).  By hand:
    f1, f2, [f0, f1] = −∂x/m, [f0, f2] = −∂θ/J, and [[f0, f1], [f0, f2]] = −∂y/(Jm) span; the bad
    brackets of degree 3, [[f0, fi], fi], vanish."""
    knife = knife_edge()
    th = knife.space.q[2]
    cas = ControlAffineSystem.from_mechanical(knife, [[sp.cos(th), sp.sin(th), 0], [0, 0, 1]])
    larc = accessibility(cas, rest(cas))
    assert larc.holds and larc.final and larc.rank == 5
    assert larc.witness == ("f1", "f2", "[f0, f1]", "[f0, f2]", "[[f0, f1], [f0, f2]]")
    assert larc.values[4] == (0, -1 / (J * m), 0, 0, 0)
    stlc = sussmann(cas, rest(cas))
    assert stlc.holds and stlc.final and stlc.rank == 5
    assert "[[f0, f1], [f0, f2]]" in stlc.witness
    text = str(stlc)
    assert text.startswith("holds: small-time local controllability") and "[f0, f2] = (0, 0, -1/J, 0, 0)" in text
    assert "sufficient only" in text and "generic values of the parameters J, m" in text


@pytest.mark.slow
def test_sleigh_with_force_and_torque_and_with_a_torque_alone():
    """The Chaplygin sleigh at rest.  With a force along its axis and a torque: LARC and
    Sussmann's condition hold (Bloch, Reyhanoglu & McClamroch 1992, as for the knife edge).
    Driven by a torque alone: accessible (the LARC holds, with brackets up to degree 6), but
    Sussmann's condition is not satisfied — the bad bracket [[f0, f1], f1] = 2a/(I + ma²)² ∂v
    (the centripetal push of the contact point, ⟨Y:Y⟩ lifted) is not a combination of f1 and
    [f0, f1]; the condition is sufficient only, so this does not decide STLC."""
    sl = models.get("chaplygin-sleigh")
    th = sl.system.space.q[2]
    full = ControlAffineSystem.from_mechanical(sl.system, [[sp.cos(th), sp.sin(th), 0], [0, 0, 1]], frame=sl.frame)
    assert accessibility(full, rest(full)).holds and sussmann(full, rest(full)).holds
    torque = ControlAffineSystem.from_mechanical(sl.system, [[0, 0, 1]], frame=sl.frame)
    larc = accessibility(torque, rest(torque))
    assert larc.holds and larc.rank == 5 and len(larc.witness[-1].split("f0")) - 1 == 3
    no = sussmann(torque, rest(torque))
    assert not no.holds and no.final
    assert no.witness == ("[[f0, f1], f1]",)
    syms = {s.name: s for s in sl.system.T.free_symbols}
    a, I, mm = syms["a"], syms["I"], syms["m"]
    assert sp.simplify(no.values[0][3] - 2 * a / (I + a**2 * mm)**2) == 0
    assert "does not show that the system is not STLC" in no.reason
    undecided = accessibility(torque, rest(torque), max_degree=5)
    assert not undecided.holds and not undecided.final and str(undecided).startswith("not decided")


@pytest.mark.slow
def test_larc_negative_knife_edge_with_a_force_only():
    """The knife edge pushed along its blade with no torque: θ̇ is conserved, so the accessibility
    algebra never reaches ∂θ̇ — generic rank 4 < 5, the LARC fails at every point (final)."""
    knife = knife_edge()
    th = knife.space.q[2]
    cas = ControlAffineSystem.from_mechanical(knife, [[sp.cos(th), sp.sin(th), 0]])
    v = accessibility(cas, rest(cas))
    assert not v.holds and v.final and "generic rank 4 < 5" in v.reason
    assert v.witness == ("f1", "[f0, f1]")
    s = sussmann(cas, rest(cas))
    assert not s.holds and s.final and "LARC fails" in s.reason


def test_sussmann_negative_classical_example():
    """ẋ = y², ẏ = u at the origin: accessible (f1, [[f0, f1], f1] = 2∂x span) but not STLC, as
    ẋ ≥ 0 (Sussmann 1987, the standard example of a bad bracket); Sussmann's condition is not
    satisfied, with the bad bracket [[f0, f1], f1] as its witness."""
    S = ConfigurationSpace("x y")
    x, y = S.q
    sys_ = ControlAffineSystem(VectorField(S, [y**2, 0]), [VectorField(S, [0, 1])])
    assert accessibility(sys_, {"x": 0, "y": 0}).holds
    v = sussmann(sys_, {"x": 0, "y": 0})
    assert not v.holds and v.final and v.witness == ("[[f0, f1], f1]",) and v.values == ((2, 0),)
    assert "does not hold" in str(v)


def test_planar_body_full_state_one_thruster_and_two():
    """The planar rigid body on its state space (q, q̇).  One thruster offset from the centre
    of mass: accessible at rest (LARC, degree 6), Sussmann's condition not satisfied with the
    bad bracket [[f0, f1], f1], the vertical lift of ⟨Y:Y⟩ = −2h/(Jm)(cos θ, sin θ, 0) (Lewis &
    Murray 1997 relate the brackets at zero velocity to symmetric products this way).  The
    published statement is stronger: with one input and ⟨Y:Y⟩ ∉ span Y the system is not
    small-time locally configuration controllable (Lewis's single-input analysis, 1997, as
    extended by Cortés, Martínez & Bullo 2002, SIAM J. Control Optim. 41(6)); Sussmann's test,
    sufficient only, shows just the obstruction.  A second, axial force makes Sussmann's
    condition hold."""
    body = planar_body()
    th = body.space.q[2]
    one = ControlAffineSystem.from_mechanical(body, [thruster(th)])
    assert accessibility(one, rest(one)).holds
    v = sussmann(one, rest(one))
    assert not v.holds and v.final and v.witness == ("[[f0, f1], f1]",)
    assert v.values == ((0, 0, 0, 2 * h / (J * m), 0, 0),)
    two = ControlAffineSystem.from_mechanical(body, [[sp.cos(th), sp.sin(th), 0], thruster(th)])
    assert sussmann(two, rest(two)).holds


def test_driftless_unicycle_and_car():
    """Driftless systems: the LARC is Chow's condition.  Unicycle: f1, f2, [f1, f2] span;
    kinematic car (x, y, θ, φ) with ẋ = v cos θ, ẏ = v sin θ, θ̇ = v tan φ / L, φ̇ = w:
    growth (2, 3, 4), so brackets of degree 3 are needed (Murray & Sastry 1993, §2)."""
    S = ConfigurationSpace("x y theta")
    th = S.q[2]
    uni = DriftlessSystem([VectorField(S, [sp.cos(th), sp.sin(th), 0]), VectorField(S, [0, 0, 1])])
    v = accessibility(uni, {"x": 0, "y": 0, "theta": 0})
    assert v.holds and v.witness == ("f1", "f2", "[f1, f2]") and "Chow" in v.source
    assert sussmann(uni, {"x": 0, "y": 0, "theta": 0}).holds     # no bad brackets without drift
    C = ConfigurationSpace("x y theta phi")
    L = sp.Symbol("L", positive=True)
    th, ph = C.q[2], C.q[3]
    car = DriftlessSystem([VectorField(C, [sp.cos(th), sp.sin(th), sp.tan(ph) / L, 0]), VectorField(C, [0, 0, 0, 1])])
    v = accessibility(car, {"x": 0, "y": 0, "theta": 0, "phi": 0})
    assert v.holds and v.witness == ("f1", "f2", "[f1, f2]", "[f1, [f1, f2]]")


def test_driftless_negative_involutive_fields():
    """∂x and ∂y on ℝ³ span an involutive distribution: the LARC fails everywhere (final)."""
    S = ConfigurationSpace("x y z")
    v = accessibility(DriftlessSystem([VectorField(S, [1, 0, 0]), VectorField(S, [0, 1, 0])]),
                      {"x": 0, "y": 0, "z": 0})
    assert not v.holds and v.final and v.rank == 2 and isinstance(v, Verdict) and not bool(v)


def test_bad_points_and_arguments_raise_geonh_errors():
    knife = knife_edge()
    th = knife.space.q[2]
    cas = ControlAffineSystem.from_mechanical(knife, [[sp.cos(th), sp.sin(th), 0], [0, 0, 1]])
    moving = {**rest(cas), "v_x": 1}
    with pytest.raises(NotEquilibriumError):
        sussmann(cas, moving)
    assert accessibility(cas, moving).holds            # the LARC needs no equilibrium
    with pytest.raises(MissingValueError):
        accessibility(cas, {"x": 0})
    with pytest.raises(SingularMapError):                # the frame's speed ẋ is singular at θ = π/2
        accessibility(cas, {**rest(cas), "theta": sp.pi / 2})
    with pytest.raises(DimensionError):
        accessibility(cas, rest(cas), max_degree=0)
    with pytest.raises(ParseError):
        accessibility(knife, rest(cas))


@pytest.mark.slow
def test_every_reduced_form_gives_the_same_verdicts():
    """The control-affine system may come from the reduced equations of any registered form
    (their speeds differ, the motion is the same): on the sleigh driven by a force and a torque
    every form that applies gives LARC and Sussmann's condition at rest; Lagrange's form (n
    speeds, not reduced) and Volterra's (holonomic systems only) are refused."""
    import geonh as g
    from geonh.errors import NotAdaptedError
    sl = models.get("chaplygin-sleigh")
    th = sl.system.space.q[2]
    acts = [[sp.cos(th), sp.sin(th), 0], [0, 0, 1]]
    done, refused = [], []
    for form in g.FORMS:
        try:
            cas = ControlAffineSystem.from_mechanical(sl.system, acts, form=form, frame=sl.frame, dependent=sl.dependent)
        except NotAdaptedError:
            refused.append(form)
            continue
        assert accessibility(cas, rest(cas)).holds and sussmann(cas, rest(cas)).holds, form
        done.append(form)
    assert sorted(refused) == ["lagrange", "volterra"] and len(done) >= 9


def test_sussmann_symmetrizes_the_bad_brackets_over_the_inputs():
    """ẋ1 = u1, ẋ2 = u2, ẋ3 = x1² − x2² + x1 x2 at the origin: the bad brackets
    [[f0, f1], f1] = 2∂3 and [[f0, f2], f2] = −2∂3 are not neutralized one by one, but their
    symmetrization β = Σ_π π(B) = 0 is (Sussmann 1987, Thm. 7.3, the sum over the permutations
    of the inputs), and the good [[f0, f2], f1] = ∂3 completes f1, f2: the condition holds.
    With one input the same form x1² fails (ẋ3 ≥ 0, not STLC)."""
    S = ConfigurationSpace("x1 x2 x3")
    x1, x2, x3 = S.q
    e1, e2 = VectorField(S, [1, 0, 0]), VectorField(S, [0, 1, 0])
    sys_ = ControlAffineSystem(VectorField(S, [0, 0, x1**2 - x2**2 + x1 * x2]), [e1, e2])
    origin = {"x1": 0, "x2": 0, "x3": 0}
    v = sussmann(sys_, origin)
    assert v.holds and v.witness == ("f1", "f2", "[[f0, f2], f1]")
    one = ControlAffineSystem(VectorField(S, [0, 0, x1**2]), [e1, e2])
    no = sussmann(one, origin)
    assert not no.holds and no.final
    assert no.witness == ("β([[f0, f1], f1]) = [[f0, f1], f1] + [[f0, f2], f2]",) and no.values == ((0, 0, 2),)


@pytest.mark.parametrize("trailers", [0, 1, 2, 3])
def test_n_trailer_larc_needs_brackets_of_degree_n_plus_2(trailers):
    """The kinematic N-trailer (geonh's models ``unicycle``, ``1-trailer`` … ``3-trailer``) as a
    driftless system: the LARC holds at the origin, and the spanning brackets reach degree N + 2,
    the degree of nonholonomy of the N-trailer (Sørdalen 1993: growth vector (2, 3, …, N + 3))."""
    model = models.get("unicycle" if trailers == 0 else f"{trailers}-trailer")
    v = accessibility(DriftlessSystem.from_distribution(model.distribution), {s.name: 0 for s in model.space.coords})
    assert v.holds and v.final and v.rank == trailers + 3
    assert max(name.count("f") for name in v.witness) == trailers + 2
