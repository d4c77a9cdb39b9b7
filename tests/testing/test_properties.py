"""The public properties (geonh.testing.properties): each passes on geonh's own objects and fails,
with a message that shows the counterexample term by term, on a deliberately wrong input."""
from __future__ import annotations

import sympy as sp
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import geonh
from geonh import models
from geonh.equations.base import Equations
from geonh.equations.declaration import solve
from geonh.errors import DimensionError, InconsistentStateError, ParseError, SpaceMismatchError
from geonh.kernel.fields import VectorField
from geonh.systems.mechanical import MechanicalSystem
from geonh.testing import properties as gp
from geonh.testing import strategies as gst
from geonh.transposition import ConstrainedSetting


def _fails(match_all, call, *args, **kw) -> str:
    """``call`` raises AssertionError; every string of ``match_all`` is in its message."""
    with pytest.raises(AssertionError) as info:
        call(*args, **kw)
    msg = str(info.value)
    for s in match_all:
        assert s in msg, f"{s!r} not in the message:\n{msg}"
    return msg


@pytest.fixture(scope="module")
def disk():
    return models.get("rolling-disk").frame


@pytest.fixture(scope="module")
def sleigh():
    return models.get("chaplygin-sleigh").system


@pytest.fixture(scope="module")
def skate():
    """A rheonomic system with an affine constraint (the skate on a moving belt)."""
    return models.get("skate-on-belt").system


def _claimed(system: MechanicalSystem, form: str, source: MechanicalSystem) -> Equations:
    """``source``'s equations in ``form``, claimed for ``system`` (a wrong set of equations)."""
    e = geonh.derive(form, source)
    return Equations(f"wrong-{form}", system, e.u, e.ud, e.kinematics, e.speeds, e.residuals,
                     multipliers=e.multipliers)


def _with_force(system: MechanicalSystem, coordinate, force) -> MechanicalSystem:
    """The same system with one more generalized force (Q holds −∂V/∂q already: keep V out)."""
    S = system.space
    Q = [q + sp.diff(system.V, c) for q, c in zip(system.Q, S.q)]
    Q[S.index(S.coordinate(coordinate))] += force
    return MechanicalSystem(S, system.T, system.V, forces=Q, constraints=system.constraints)


# -- Jacobi --------------------------------------------------------------------------------------
def _symmetric_product(X, Y):
    """Not a Lie bracket: X^i ∂_i Y^k + Y^i ∂_i X^k (a sign flipped)."""
    S = X.space
    return VectorField(S, [sum(X[i] * sp.diff(Y[k], q) + Y[i] * sp.diff(X[k], q) for i, q in enumerate(S.coords))
                           for k in range(S.dim)])


@settings(deadline=None)
@given(gst.configuration_spaces(2, 3).flatmap(
    lambda S: st.tuples(gst.vector_fields(S), gst.vector_fields(S), gst.vector_fields(S))))
def test_jacobi_identity_holds_for_random_fields(fields):
    gp.jacobi_identity(*fields)


def test_jacobi_identity_fails_for_a_bracket_with_a_flipped_sign(disk):
    X, Y, Z = disk[0], disk[1], disk[2]
    gp.jacobi_identity(X, Y, Z)
    S = geonh.ConfigurationSpace("x y")
    x, y = S.q
    A, B, C = VectorField(S, [1, 0]), VectorField(S, [0, x]), VectorField(S, [y, x * y])
    gp.jacobi_identity(A, B, C)
    msg = _fails(["Jacobi identity", "component ∂_", "[X, [Y, Z]]", "[Y, [Z, X]]", "[Z, [X, Y]]",
                  "difference:", "at x = "], gp.jacobi_identity, A, B, C, bracket=_symmetric_product)
    assert "of 2 terms fail" in msg


def test_jacobi_identity_bad_input(disk):
    with pytest.raises(ParseError):
        gp.jacobi_identity(disk[0], disk[1], "x")
    with pytest.raises(SpaceMismatchError):
        gp.jacobi_identity(disk[0], disk[1], VectorField(geonh.ConfigurationSpace("u"), [1]))
    with pytest.raises(ParseError):
        gp.jacobi_identity(disk[0], disk[1], disk[2], bracket=lambda X, Y: 0)


# -- Maurer–Cartan and Hamel's β ------------------------------------------------------------------
@pytest.mark.slow
@settings(deadline=None, max_examples=8)
@given(gst.hamel_frames(2, 3))
def test_maurer_cartan_and_hamel_hold_on_random_frames(frame):
    gp.maurer_cartan(frame)
    gp.hamel_coefficients(frame)


@settings(deadline=None)
@given(gst.configuration_spaces(2, 3).flatmap(gst.frames))
def test_maurer_cartan_holds_on_random_triangular_frames(frame):
    gp.maurer_cartan(frame)


@pytest.mark.parametrize("name", ["rolling-disk", "rigid-body", "unicycle", "chaplygin-sleigh"])
def test_model_frames_pass(name):
    frame = models.get(name).frame
    gp.maurer_cartan(frame)
    gp.hamel_coefficients(frame)
    gp.transpositional_relations(frame)


def test_maurer_cartan_fails_on_a_wrong_sign_and_a_wrong_index_order(disk):
    c = disk.structure_coefficients()
    n = disk.dim
    gp.maurer_cartan(disk, coefficients=c)
    _fails(["Maurer–Cartan", "dθ^2 (c_x) on dq^theta ∧ dq^phi", "expected −½ c^k_ij θ^i∧θ^j: -R*sin(theta)",
            "got dθ^k (directly): R*sin(theta)", "difference: 2*R*sin(theta)", "at R = "],
           gp.maurer_cartan, disk, coefficients=-c)
    swapped = sp.Array([[[c[k, j, i] for j in range(n)] for i in range(n)] for k in range(n)])
    _fails(["Maurer–Cartan", "dθ^3 (c_y)"], gp.maurer_cartan, disk, coefficients=lambda F: swapped)
    with pytest.raises(DimensionError):
        gp.maurer_cartan(disk, coefficients=sp.Array([1, 2]))
    with pytest.raises(ParseError):
        gp.maurer_cartan("frame")


def test_hamel_coefficients_fail_with_beta_read_in_the_order_of_13(disk):
    B, C, q, n = disk.B, disk.C, disk.space.coords, disk.dim

    def hamel17(b):  # Hamel (17) typed in with b in the index order of (13): the documented misreading
        return [[[sum((sp.diff(b[m, l], q[h]) - sp.diff(b[m, h], q[l])) * C[l, i] * C[h, s]
                      for h in range(n) for l in range(n)) for m in range(n)] for s in range(n)] for i in range(n)]

    gp.hamel_coefficients(disk, beta=hamel17(B))
    msg = _fails(["Hamel's β", "[X_", "expected Σ_d β_{a,b,d} X_d", "got the bracket", "expected Hamel (17)",
                  "difference:"], gp.hamel_coefficients, disk, beta=lambda F: hamel17(F.B.T))
    assert "terms fail" in msg
    c = disk.structure_coefficients()
    mirrored = sp.Array([[[c[d, b, a] for d in range(n)] for b in range(n)] for a in range(n)])
    _fails(["against c^"], gp.hamel_coefficients, disk, beta=mirrored)


# -- transpositional relations ---------------------------------------------------------------------
@settings(deadline=None)
@given(gst.transposition_cases(2, 3, rheonomic=None))
def test_transpositional_relations_hold_for_random_settings(case):
    setting, k, quasi = case
    gp.transpositional_relations(setting.transposition(k, quasi))


@settings(deadline=None, max_examples=5)
@given(gst.constrained_settings(2, 3, rheonomic=None))
def test_transpositional_relations_hold_for_every_k(setting):
    gp.transpositional_relations(setting)


def test_transpositional_relations_of_the_models_every_k():
    sleigh = models.get("chaplygin-sleigh")
    gp.transpositional_relations(ConstrainedSetting.from_frame(sleigh.frame, 2))
    table = models.get("ball-on-turntable").system
    gp.transpositional_relations(ConstrainedSetting.from_codistribution(table.constraints, dependent=["x", "y"]))


def test_transpositional_relations_fail_with_a_wrong_gamma():
    disk = models.get("rolling-disk")
    setting = ConstrainedSetting.from_frame(disk.frame, disk.m)
    n, m = setting.n, setting.m
    for k in range(n - m + 1):
        gp.transpositional_relations(setting, k, formula=lambda T: T.gamma)
    _fails(["Neimark–Fufaev family fail for k = 1", "dδπ3 − δdπ3", "expected γ_νλμ dπ_μ δπ_ν",
            "got V(θ(W)) − W(θ(V))", "difference:", "at "],
           gp.transpositional_relations, setting, 1, formula=lambda T: -T.gamma)

    def transposed(T):  # the d and δ slots exchanged
        g = T.gamma
        return sp.Array([[[g[mu, lam, nu] for mu in range(T.p)] for lam in range(T.p)] for nu in range(T.p)])

    _fails(["for k = 2"], gp.transpositional_relations, setting, 2, formula=transposed)
    with pytest.raises(DimensionError):
        gp.transpositional_relations(setting, 3)
    with pytest.raises(DimensionError):
        gp.transpositional_relations(setting.transposition(1), 2)
    with pytest.raises(ParseError):
        gp.transpositional_relations(setting, formula="gamma")


def test_transpositional_relations_hamel_view_fails_with_the_wrong_sign(disk):
    _fails(["Hamel's point of view", "dδθ^2 − δdθ^2", "expected β_{a,b,d} δπ_a dπ_b"],
           gp.transpositional_relations, disk, formula=lambda F: -F.hamel_beta())
    with pytest.raises(DimensionError):
        gp.transpositional_relations(disk, 1)


def test_transpositional_relations_on_TQ(sleigh):
    xd, yd, thd = sleigh.space.qd
    th = sleigh.space.q[2]
    linear = geonh.velocity_frame(sleigh, [xd, thd, sp.sin(th) * xd - sp.cos(th) * yd])
    gp.transpositional_relations(linear)
    nonlinear = geonh.velocity_frame(sleigh, [xd + thd ** 2, thd, sp.sin(th) * xd - sp.cos(th) * yd])
    gp.transpositional_relations(nonlinear)
    msg = _fails(["on TQ", "d(δπ^", "expected Γ^ρ_τ δπ^τ", "got d/dt(θ^ρ(δq)) − δv*^ρ"],
                 gp.transpositional_relations, nonlinear, formula=lambda vf: -vf.transposition())
    assert "difference:" in msg
    _fails(["on TQ"], gp.transpositional_relations, nonlinear, formula=lambda vf: vf.transposition().T)


# -- along the motion --------------------------------------------------------------------------------
def test_same_motion_passes_for_the_forms_and_a_user_callable(sleigh):
    gp.same_motion(sleigh, "boltzmann-hamel")
    gp.same_motion(sleigh, lambda S: geonh.voronets(S), "lagrange")
    gp.same_motion(sleigh, geonh.kane(sleigh), "gibbs-appell", states=2)


def test_same_motion_fails_term_by_term(sleigh):
    x = sleigh.space.q[0]
    wrong = _claimed(sleigh, "boltzmann-hamel", _with_force(sleigh, x, 1))
    msg = _fails(["wrong-boltzmann-hamel and lagrange give different motions", "x_ddot:",
                  "expected (lagrange):", "got (wrong-boltzmann-hamel):", "difference:", "at the state "],
                 gp.same_motion, sleigh, lambda S: wrong)
    assert "theta_ddot" not in msg.split("at the state")[0] or "theta_ddot:" in msg
    state = sleigh.sample_state(__import__("random").Random(5))
    gp.same_motion(sleigh, "voronets", state=state)
    _fails(["at the state "], gp.same_motion, sleigh, wrong, "lagrange", state=[state])
    with pytest.raises(ParseError):
        gp.same_motion(sleigh, 3)
    with pytest.raises(ParseError):
        gp.same_motion("sleigh", "lagrange")
    with pytest.raises(DimensionError):
        gp.same_motion(sleigh, "voronets", states=0)


@pytest.mark.parametrize("form", ["lagrange", "boltzmann-hamel", "voronets"])
def test_constraints_preserved_by_the_forms(sleigh, skate, form):
    gp.constraints_preserved(geonh.derive(form, sleigh))
    gp.constraints_preserved(geonh.derive(form, skate))


def test_constraints_not_preserved_by_the_free_motion(sleigh, skate):
    free = MechanicalSystem(sleigh.space, sleigh.T, sleigh.V)
    msg = _fails(["the constraints are not preserved along the wrong-lagrange equations", "constraint 0",
                  "φ = x_dot*sin(theta) - y_dot*cos(theta)", "expected dφ/dt = 0", "got dφ/dt = ",
                  "∂φ/∂x_dot·x_ddot", "at the state"], gp.constraints_preserved, _claimed(sleigh, "lagrange", free))
    assert "3 of 3 checks at the states fail" in msg
    free_skate = MechanicalSystem(skate.space, skate.T, skate.V)
    _fails(["∂φ/∂t"], gp.constraints_preserved, _claimed(skate, "lagrange", free_skate))
    xd = sleigh.space.qd[0]
    with pytest.raises(InconsistentStateError):   # a "constraint" the states do not satisfy
        gp.constraints_preserved(geonh.lagrange(sleigh), [xd])
    th, thd = sleigh.space.q[2], sleigh.space.qd[2]
    gp.constraints_preserved(geonh.lagrange(sleigh), ["x_dot*sin(theta) - y_dot*cos(theta)"])
    with pytest.raises(ParseError):
        gp.constraints_preserved(geonh.lagrange(sleigh), 3)
    assert th is not None and thd is not None


def test_energy_balance_scleronomic_and_rheonomic(sleigh, skate):
    gp.energy_balance(geonh.lagrange(sleigh))
    gp.energy_balance(geonh.boltzmann_hamel(sleigh))
    gp.energy_balance(geonh.lagrange(skate))            # λ from the equations
    gp.energy_balance(geonh.boltzmann_hamel(skate))     # λ by least squares
    # the affine constraint of the belt does work: a zero reaction power is refuted
    _fails(["the energy balance fails", "power of the reactions P_R = 0", "got dh/dt = "],
           gp.energy_balance, geonh.boltzmann_hamel(skate), reaction_power=lambda point: 0)


def test_energy_balance_fails_with_an_unmodelled_force(sleigh):
    x = sleigh.space.q[0]
    wrong = _claimed(sleigh, "boltzmann-hamel", _with_force(sleigh, x, 1))
    _fails(["the energy balance fails along the wrong-boltzmann-hamel equations", "of 3 states fail",
            "power of the applied forces Q·q̇ = 0", "got dh/dt = ", "difference: "], gp.energy_balance, wrong)
    with pytest.raises(ParseError):
        gp.energy_balance(geonh.lagrange(sleigh), reaction_power=0)


def test_first_integral(sleigh):
    bh, lag = geonh.boltzmann_hamel(sleigh), geonh.lagrange(sleigh)
    gp.first_integral(bh, sleigh.T)
    gp.first_integral(lag, sleigh.T)
    gp.first_integral(bh, lambda eqs: eqs.system.T)
    _fails(["the claimed first integral is not one along the boltzmann-hamel equations", "F = x",
            "expected dF/dt = 0", "∂F/∂x·K_x", "at the state"], gp.first_integral, bh, sleigh.space.q[0])
    m = next(s for s in sleigh.T.free_symbols if s.name == "m")
    xd = sleigh.space.qd[0]
    _fails(["F = m*x_dot", "got dF/dt = "], gp.first_integral, lag, m * xd)   # the momentum is not conserved
    with pytest.raises(ParseError):
        gp.first_integral(bh, sleigh.space.qdd[0])


# -- the projection onto the constraints -----------------------------------------------------------
def _euclidean_projection(system):
    """A wrong projection (the mutation ``projection-euclidean``): orthogonal in the identity metric."""
    import numpy as np
    S = system.space
    A = system.constraints.matrix()[:, :S.n]

    def project(state):
        An = np.array(A.xreplace(state).evalf(), dtype=float)
        v = np.array([float(state[s]) for s in S.qd])
        return v - An.T @ np.linalg.solve(An @ An.T, An @ v)
    return project


def test_kinetic_projection_passes_for_geonh(sleigh, skate):
    gp.kinetic_projection(geonh.lagrange(sleigh))
    gp.kinetic_projection(geonh.lagrange(skate), states=2, seed=3)


def test_kinetic_projection_fails_for_the_euclidean_metric(sleigh):
    msg = _fails(["not the kinetic-metric one", "not T-orthogonal", "expected q̇' = q̇ − G⁻¹Aᵀ(AG⁻¹Aᵀ)⁻¹(Aq̇ + b)",
                  "got q̇' =", "difference:", "at the state"],
                 gp.kinetic_projection, geonh.lagrange(sleigh), project=_euclidean_projection(sleigh))
    assert "the constraints A q̇' + b = 0" not in msg      # it does land on the constraints


def test_kinetic_projection_fails_off_the_constraints(sleigh):
    def keep(state):   # no projection at all: the kicked velocities stay off the constraints
        return [state[v] for v in sleigh.space.qd]
    _fails(["the constraints A q̇' + b = 0: got"], gp.kinetic_projection, geonh.lagrange(sleigh), project=keep)


def test_kinetic_projection_refuses_bad_input(sleigh):
    with pytest.raises(ParseError, match="keep every velocity"):
        gp.kinetic_projection(geonh.boltzmann_hamel(sleigh))
    with pytest.raises(ParseError, match="Equations"):
        gp.kinetic_projection(sleigh)
    with pytest.raises(ParseError, match="callable"):
        gp.kinetic_projection(geonh.lagrange(sleigh), project=3)
    with pytest.raises(DimensionError, match="velocities"):
        gp.kinetic_projection(geonh.lagrange(sleigh), project=lambda st: [0.0])
    with pytest.raises(DimensionError, match="tol"):
        gp.kinetic_projection(geonh.lagrange(sleigh), tol=0)


# -- Neimark–Fufaev's intermediate forms -----------------------------------------------------------
def _two_constraints():
    S = geonh.ConfigurationSpace(["x", "y", "z", "w"])
    x, y, z, w = S.q
    xd, yd, zd, wd = S.qd
    T = (xd ** 2 + yd ** 2 + zd ** 2 + wd ** 2) / 2 + zd * wd / 3
    return MechanicalSystem(S, T, constraints=[zd - y * xd, wd - x * yd - sp.cos(z) * xd])


@pytest.mark.parametrize("k", [0, 1, 2])
def test_neimark_fufaev_declaration_passes_for_every_k(k):
    gp.neimark_fufaev_declaration(_two_constraints(), k)


def test_neimark_fufaev_declaration_passes_on_a_rheonomic_model(skate, sleigh):
    for system in (sleigh, skate):
        for k in range(system.n_constraints + 1):
            gp.neimark_fufaev_declaration(system, k)


def test_neimark_fufaev_declaration_fails_for_the_mirrored_k():
    """The mutation ``nf-k-mirrored``: the form declared for k built from the fields of
    n − m − k gives the same motion, but not the declared fields of k."""
    system = _two_constraints()
    msg = _fails(["is not Neimark–Fufaev's form for k = 0", "V (d)", "expected: they span a space of dimension k = 0",
                  "got dimension 2", "θ^0(V) = -dx*y + dz", "W_1 (δ)"],
                 gp.neimark_fufaev_declaration, system, 0,
                 declaration=lambda s, k: geonh.declare_neimark_fufaev(s, s.n_constraints - k))
    assert "on the motion (equation" not in msg      # on the motion the mirrored fields are right
    gp.same_motion(system, lambda s: solve(geonh.declare_neimark_fufaev(s, 2)), "lagrange")


def test_neimark_fufaev_declaration_fails_for_a_field_off_the_motion(sleigh):
    """Voronets's declaration (k = 0) offered for k = 1 (Boltzmann–Hamel's)."""
    _fails(["for k = 1", "got dimension 0"], gp.neimark_fufaev_declaration, sleigh, 1,
           declaration=lambda s, k: geonh.declare_neimark_fufaev(s, 0))


def test_neimark_fufaev_declaration_refuses_bad_input(sleigh):
    with pytest.raises(ParseError, match="MechanicalSystem"):
        gp.neimark_fufaev_declaration(geonh.lagrange(sleigh), 0)
    with pytest.raises(DimensionError, match="integer"):
        gp.neimark_fufaev_declaration(sleigh, 0.5)
    with pytest.raises(ParseError, match="callable"):
        gp.neimark_fufaev_declaration(sleigh, 0, declaration="voronets")
    with pytest.raises(ParseError, match="FormDeclaration"):
        gp.neimark_fufaev_declaration(sleigh, 0, declaration=lambda s, k: geonh.lagrange(s))
