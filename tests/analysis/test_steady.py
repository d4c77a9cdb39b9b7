"""Steady motions defined by a symmetry (relative equilibria), their reduced linearization in
every form and their stability (geonh.analysis.steady; docs/linearization.md, "Relative
equilibria").

Known results, each with its source:

* the upright steady rolling of a thin uniform disk (I = m R²/2 about the axle, m R²/4 about a
  diameter) is stable exactly for Ω² > g/(3R), Ω the rolling angular speed (Neimark & Fufaev
  1972, ch. III; O'Reilly 1996, Nonlinear Dynamics 10, 287–305; Routh, *Advanced Rigid
  Dynamics*, art. 244); for a general disk, inertia A about a diameter and C about the axle,
  C (C + m R²) Ω² > A m g R (the same sources); a thin hoop (C = m R², A = m R²/2) gives
  Ω² > g/(4R);
* the tilted disk's circular steady motions: the contact point runs on a circle of radius
  |v/ψ̇| at constant tilt (checked by simulation here), and the reduced linearization in
  Lagrange's form has the eigenvalues of the frame forms (issue 26, part 2);
* the Chaplygin sleigh's straight motion is asymptotically stable (modulo the family) for
  v > 0 and unstable for v < 0 (Neimark & Fufaev 1972; Bloch 2003, the Chaplygin sleigh).
"""
import numpy as np
import pytest
import sympy as sp

import geonh
from geonh.analysis.steady import eigenvalue_diagram, stability_boundary, steady_motions
from geonh.errors import InconsistentStateError, ParseError
from geonh.models.mechanical import chaplygin_sleigh, tilted_rolling_disk, vertical_rolling_disk

M, R, G, ID, IA = sp.symbols("m r g I_d I_a", positive=True)
OMEGA = sp.Symbol("Omega", positive=True)
UNIFORM = {"m": 1, "r": 1, "g": sp.Rational(981, 100), "I_d": sp.Rational(1, 4), "I_a": sp.Rational(1, 2)}


@pytest.fixture(scope="module")
def disk():
    model = tilted_rolling_disk()
    system = model.system
    ps, th, ph, x, y = system.space.q
    # SE(2) × S¹: translations, rotation about the vertical through the origin, the spin
    gens = [[0, 0, 0, 1, 0], [0, 0, 0, 0, 1], [1, 0, 0, -y, x], [0, 0, 1, 0, 0]]
    return {"lagrange": geonh.lagrange(system), "boltzmann-hamel": geonh.boltzmann_hamel(system, model.frame),
            "voronets": geonh.voronets(system), "maggi": geonh.maggi(system, model.frame), "gens": gens}


def _upright(eqs, gens):
    fams = steady_motions(eqs, gens, at={"theta": 0})
    assert len(fams) == 1
    fam = fams[0]
    # the upright straight rolling: contact speed xi1 = r Ω along x, no turning, spin Ω
    assert [sp.simplify(e) for e in fam.xi] == [sp.Symbol("xi1", real=True), 0, 0,
                                              sp.Symbol("xi1", real=True) / R]
    return fam


def _single_condition(boundary):
    assert boundary.kind == "spectral" and len(boundary.conditions) == 1
    assert boundary.zeros == 2 and boundary.family_zeros == 2
    xi1 = sp.Symbol("xi1", real=True)
    return sp.sympify(boundary.conditions[0]).subs(xi1, R * OMEGA)


@pytest.mark.slow
@pytest.mark.parametrize("form", ["lagrange", "boltzmann-hamel"])
def test_thin_uniform_disk_upright_rolling_is_stable_exactly_above_g_over_3R(disk, form):
    fam = _upright(disk[form], disk["gens"])
    b = stability_boundary(fam, {"I_d": M * R**2 / 4, "I_a": M * R**2 / 2})
    cond = _single_condition(b)
    ratio = sp.simplify(cond / (OMEGA**2 - G / (3 * R)))
    assert ratio.free_symbols <= {M, R, G} and ratio.is_positive, ratio


@pytest.mark.slow
@pytest.mark.parametrize("form", ["lagrange", "boltzmann-hamel"])
def test_general_disk_boundary_in_closed_form(disk, form):
    fam = _upright(disk[form], disk["gens"])
    cond = _single_condition(stability_boundary(fam))
    classical = IA * (IA + M * R**2) * OMEGA**2 - ID * M * G * R
    ratio = sp.simplify(cond / classical)
    assert ratio.free_symbols <= {M, R, G, ID, IA} and ratio.is_positive, ratio
    # the thin hoop: C = m R², A = m R²/2 -> Ω² > g/(4R)
    hoop = sp.simplify(classical.subs({IA: M * R**2, ID: M * R**2 / 2}) / (OMEGA**2 - G / (4 * R)))
    assert hoop.is_positive


@pytest.mark.slow
def test_upright_verdicts_either_side_of_the_boundary(disk):
    fam = _upright(disk["lagrange"], disk["gens"])
    crit = float(sp.sqrt(UNIFORM["g"] / 3))
    above = fam.stability({**UNIFORM, "xi1": sp.Rational(repr(1.05 * crit))})
    below = fam.stability({**UNIFORM, "xi1": sp.Rational(repr(0.95 * crit))})
    assert above.verdict == "spectrally stable" and below.verdict == "unstable"
    for st in (above, below):
        assert st.zeros == 2 and st.family_zeros == 2      # the 2-parameter family (tilt, turning rate)
    assert max(abs(z.real) for z in above.eigenvalues) < 1e-12
    # the eigenvalue diagram crosses at the boundary
    pts, ev, verdicts = eigenvalue_diagram(fam, "xi1", [0.9 * crit, 1.1 * crit], UNIFORM)
    assert verdicts == ["unstable", "spectrally stable"] and ev.shape == (2, 4)


@pytest.mark.slow
def test_tilted_disk_circles_lagrange_agrees_with_frame_form(disk):
    lag = steady_motions(disk["lagrange"], disk["gens"])
    others = [steady_motions(disk[f], disk["gens"]) for f in ("boltzmann-hamel", "voronets", "maggi")]
    assert len(lag) == 1 and all(len(o) == 1 for o in others)
    # the family: tilt θ and turning rate xi3 = ψ̇ free, the contact speed xi1 solved
    assert {p.name for p in lag[0].parameters} == {"theta", "xi3"}
    for member in ({"theta": sp.Rational(1, 5), "xi3": 5}, {"theta": sp.Rational(-3, 10), "xi3": 2},
                   {"theta": sp.Rational(1, 2), "xi3": -1}):
        pt = {**UNIFORM, **member}
        a = lag[0].stability(pt)
        assert a.linearization.xi and a.linearization.equations.form == "lagrange"
        assert a.zeros == 2 and a.family_zeros == 2
        for o in others:
            b = o[0].stability(pt)
            assert np.allclose(a.eigenvalues, b.eigenvalues, atol=1e-10), (a.eigenvalues, b.eigenvalues)
            assert a.verdict == b.verdict and b.zeros == 2 and b.family_zeros == 2


@pytest.mark.slow
def test_tilted_disk_circle_is_a_steady_motion_of_the_simulation(disk):
    """Start on the circular steady motion at tilt 0.2 and ψ̇ = 5: θ stays, the contact point
    stays on the circle of radius |xi1/xi3| about (0, xi1/xi3)."""
    fam = steady_motions(disk["boltzmann-hamel"], disk["gens"])[0]
    member = {**UNIFORM, "theta": sp.Rational(1, 5), "xi3": 5}
    pt = fam.values(member)
    eqs = disk["boltzmann-hamel"]
    y0 = {s: float(pt[s]) for s in list(eqs.q) + list(eqs.u)}
    xi1, xi3 = (float(sp.sympify(e).xreplace(pt)) for e in (fam.xi[0], fam.xi[2]))
    rho = xi1 / xi3
    traj = geonh.simulate(eqs, y0, (0.0, 2.0), {k: float(v) for k, v in UNIFORM.items()},
                          t_eval=np.linspace(0, 2, 41))
    names = list(traj.q_names)
    th = traj.q[:, names.index("theta")]
    x, y = traj.q[:, names.index("x")], traj.q[:, names.index("y")]
    assert np.max(np.abs(th - 0.2)) < 1e-7
    assert np.max(np.abs(np.hypot(x, y - rho) - abs(rho))) < 1e-7


@pytest.mark.slow
def test_lagrange_linearizes_a_circle_only_with_the_symmetry(disk):
    lag = disk["lagrange"]
    fam = steady_motions(lag, disk["gens"])[0]
    pt = fam.values({**UNIFORM, "theta": sp.Rational(1, 5), "xi3": 5})
    op = {s: v for s, v in pt.items() if s in set(lag.q) | set(lag.u) or s.name in UNIFORM}
    with pytest.raises(InconsistentStateError):        # constant speeds: ẋ, ẏ rotate
        lag.linearize(op, exact=True, ignorable="auto")
    lin = lag.linearize(op, generators=disk["gens"])
    assert [s.name for s in lin.state] == ["theta", "psi_dot", "theta_dot", "phi_dot"]
    assert {s.name for s in lin.ignorable} == {"psi", "phi", "x", "y"} and len(lin.xi) == 4


def test_not_steady_names_the_moving_shape(disk):
    lag = disk["lagrange"]
    op = {"psi": 0, "theta": sp.Rational(1, 5), "phi": 0, "x": 0, "y": 0, "psi_dot": 1, "theta_dot": sp.Rational(1, 10),
          "phi_dot": 1, **UNIFORM}
    with pytest.raises(InconsistentStateError, match="theta' = 0.1"):
        lag.linearize(op, generators=disk["gens"])
    # a velocity that is the generator of some ξ, but not balanced by the dynamics
    op.update(theta_dot=0)
    with pytest.raises(InconsistentStateError, match="not a relative equilibrium"):
        lag.linearize(op, generators=disk["gens"])


def test_chaplygin_sleigh_straight_motion():
    model = chaplygin_sleigh()
    eqs = geonh.voronets(model.system)
    x, y, th = model.system.space.q
    fam = steady_motions(eqs, [[1, 0, 0], [0, 1, 0], [-y, x, 1]])[0]
    vals = {"m": 1, "a": 1, "I": 1}
    assert fam.stability({**vals, "xi1": 1}).verdict == "asymptotically stable"
    assert fam.stability({**vals, "xi1": -1}).verdict == "unstable"
    b = stability_boundary(fam, vals)
    assert b.kind == "Routh-Hurwitz" and b.holds({"xi1": 1}) and not b.holds({"xi1": -1})


def test_vertical_disk_circle_in_lagrange_form():
    """The vertical rolling disk on a circle (θ̇ = xi3, contact speed xi1): refused as a
    constant-speed steady motion in Lagrange's form (ẏ changes), linearized with the symmetry;
    every eigenvalue is 0 and the 2-parameter family explains both (I θ̈ = 0,
    (J + m R²) φ̈ = 0 reduced: every nearby motion is again a circle)."""
    model = vertical_rolling_disk()
    x, y, th, ph = model.system.space.q
    gens = [[1, 0, 0, 0], [0, 1, 0, 0], [-y, x, 1, 0], [0, 0, 0, 1]]
    lag = geonh.lagrange(model.system)
    fam = steady_motions(lag, gens)[0]
    assert {p.name for p in fam.parameters} == {"xi1", "xi3"}
    vals = {"m": 1, "I": 1, "J": 1, "R": 1, "xi1": 2, "xi3": 1}
    st = fam.stability(vals)
    assert st.verdict == "spectrally stable" and st.zeros == 2 and st.family_zeros == 2
    assert len(st.linearization.state) == 2 and st.linearization.A.is_zero_matrix
    with pytest.raises(InconsistentStateError, match="not constant"):
        lag.linearize({"x": 0, "y": 0, "theta": 0, "phi": 0, "theta_dot": 1, "phi_dot": 2, "m": 1, "I": 1, "J": 1,
                       "R": 1}, exact=True, ignorable="auto")


@pytest.mark.slow
def test_values_may_be_formulas_in_other_values_and_strings(disk):
    """``values`` may hold formulas (strings parsed over the equations' symbols, never evaluated)
    in other given values: {"I_d": "m*r**2/4", "I_a": "m*r**2/2", "r": 1} is the thin disk of
    radius 1 (before: a TypeError in the family count, and a SpaceMismatchError for the string);
    values that refer to each other in a circle are refused."""
    fam = _upright(disk["boltzmann-hamel"], disk["gens"])
    b = stability_boundary(fam, {"I_d": "m*r**2/4", "I_a": "m*r**2/2", "r": 1})
    xi1 = sp.Symbol("xi1", real=True)
    assert len(b.conditions) == 1
    cond = sp.sympify(b.conditions[0])
    assert sp.simplify(cond / (3 * xi1**2 - G)).is_positive      # Ω² > g/(3R) with R = 1, Ω = ξ₁
    with pytest.raises(ParseError, match="circle"):
        fam.values({"I_d": "I_a", "I_a": "I_d"})
