"""Variations on `geonh.analysis.steady` (issue 26) that a newcomer tries: another coordinate
order, another generator order, a redundant generator, time in the space, symbol keys."""
import numpy as np
import pytest
import sympy as sp

import geonh as g
from geonh import lagrange, models
from geonh.analysis.steady import stability_boundary, steady_motions
from geonh.errors import DimensionError, UnsupportedSetupError

VALS = {"m": 1, "a": sp.Rational(1, 2), "I": sp.Rational(1, 5)}


def _sleigh(order="x y theta", time=False, force=None, drift=0):
    """The Chaplygin sleigh on a space with the coordinates in ``order`` (and time)."""
    S = g.ConfigurationSpace(order, time=time)
    byname = {q.name: q for q in S.q}
    x, y, th = byname["x"], byname["y"], byname["theta"]
    d = dict(zip(S.q, S.qd))
    xd, yd, thd = d[x], d[y], d[th]
    m, a, I = sp.symbols("m a I", positive=True)
    T = m / 2 * ((xd - a * sp.sin(th) * thd)**2 + (yd + a * sp.cos(th) * thd)**2) + I / 2 * thd**2
    forces = None if force is None else {x: sp.cos(th) * force, y: sp.sin(th) * force}
    system = g.MechanicalSystem(S, T, forces=forces, constraints=[sp.sin(th) * xd - sp.cos(th) * yd - drift])
    gens = {"x": {x: 1}, "y": {y: 1}, "rot": {x: -y, y: x, th: 1}}
    return system, {k: [v.get(q, 0) for q in S.q] for k, v in gens.items()}


def test_another_coordinate_order_gives_the_same_family_and_eigenvalues():
    """(θ, x, y) instead of (x, y, θ): the straight motion, −m a v/(I + m a²) and 0, the
    Routh–Hurwitz boundary a m ξ1/(I + m a²) > 0 (Bloch 2003, § 1.7)."""
    system, gens = _sleigh("theta x y")
    fam, = steady_motions(lagrange(system), [gens["x"], gens["y"], gens["rot"]])
    assert fam.xi[1:] == (0, 0)
    ev = fam.stability({**VALS, "xi1": 1}).eigenvalues
    assert np.allclose(sorted(ev.real), [-1 / 0.45 / 2, 0])
    m, a, I = sp.symbols("m a I", positive=True)
    cond, = stability_boundary(fam).conditions
    assert sp.simplify(cond - a * m * sp.Symbol("xi1", real=True) / (I + a**2 * m)) == 0


def test_generators_in_another_order_name_the_same_motion():
    system, gens = _sleigh()
    fam, = steady_motions(lagrange(system), [gens["rot"], gens["y"], gens["x"]])
    assert fam.xi[:2] == (0, 0) and [p.name for p in fam.parameters] == ["xi3"]
    assert fam.stability({**VALS, "xi3": 1}).verdict == "asymptotically stable"
    assert fam.stability({**VALS, "xi3": -1}).verdict == "unstable"


def test_a_redundant_generator_is_refused_where_it_is_given():
    """x-translation + y-translation as a fourth generator: before, steady_motions returned
    a two-parameter family (ξ not unique) and only `stability` failed later."""
    system, gens = _sleigh()
    with pytest.raises(DimensionError, match="linearly dependent"):
        steady_motions(lagrange(system), [gens["x"], gens["y"], gens["rot"],
                                          [a + b for a, b in zip(gens["x"], gens["y"])]])


def test_time_in_the_space_without_time_in_the_equations_is_fine():
    system, gens = _sleigh(time=True)
    fam, = steady_motions(lagrange(system), [gens["x"], gens["y"], gens["rot"]])
    assert fam.stability({**VALS, "xi1": 1}).verdict == "asymptotically stable"


@pytest.mark.parametrize("what", ["force", "constraint"])
def test_equations_that_depend_on_time_are_refused(what):
    """A push sin(t) along the blade: at t = 0 it vanishes, and before the fix the straight
    motion came out as a family of relative equilibria, 'asymptotically stable', though the
    push accelerates the sleigh (the conditions were solved at t = 0 only)."""
    t = sp.Symbol("t", real=True)
    kw = {"force": sp.sin(t)} if what == "force" else {"drift": sp.sin(t)}
    system, gens = _sleigh(time=True, **kw)
    with pytest.raises(UnsupportedSetupError, match="time"):
        steady_motions(lagrange(system), [gens["x"], gens["y"], gens["rot"]])


def test_values_keyed_by_a_symbol_of_the_same_name_are_taken():
    """`stability({sp.Symbol("xi1"): 1, ...})`: the family's ξ1 is real, the user's symbol
    is not; before, it was ignored and the call asked for a value of xi1."""
    sleigh = models.get("chaplygin-sleigh")
    x, y, _ = sleigh.space.q
    fam, = steady_motions(lagrange(sleigh.system), [[1, 0, 0], [0, 1, 0], [-y, x, 1]])
    m, a, I = sp.symbols("m a I")          # no assumptions: other symbols than the model's
    st = fam.stability({m: 1, a: sp.Rational(1, 2), I: sp.Rational(1, 5), sp.Symbol("xi1"): 1})
    assert st.verdict == "asymptotically stable"
    with pytest.raises(g.errors.NotFoundError, match="zeta"):
        fam.stability({**VALS, "xi1": 1, sp.Symbol("zeta"): 1})


def test_boundary_of_a_family_with_a_free_shape_coordinate():
    """The sleigh under the translations alone: θ is a shape coordinate and stays free in the
    family.  Before the fix, `stability_boundary` failed with a bare TypeError ("Cannot
    convert expression to float": the free θ was taken as given).  Closed form: the blade
    speed is v = ξ1/cos θ and the turning decays at the rate m a v/(I + m a²)."""
    sleigh = models.get("chaplygin-sleigh")
    fam, = steady_motions(lagrange(sleigh.system), [[1, 0, 0], [0, 1, 0]])
    assert {p.name for p in fam.parameters} == {"theta", "xi1"}
    m, a, I = sleigh.parameters
    theta = sleigh.space.q[2]
    xi1 = sp.Symbol("xi1", real=True)
    b = stability_boundary(fam)
    assert b.family_zeros == 2 and len(b.conditions) == 1
    assert sp.simplify(b.conditions[0] - a * m * xi1 / ((I + a**2 * m) * sp.cos(theta))) == 0


def test_a_float_for_a_shape_coordinate_is_read_as_its_decimal():
    """`stability({"theta": 0.3, ...})`: before, the float entered as a Float and the exact
    linearization refused the point ("violates velocity constraint 1: A q̇ + b = 2.7e-17");
    now 0.3 is 3/10 as in `linearize`, and the eigenvalue is −m a v/(I + m a²), v = ξ1/cos θ."""
    sleigh = models.get("chaplygin-sleigh")
    fam, = steady_motions(lagrange(sleigh.system), [[1, 0, 0], [0, 1, 0]])
    st = fam.stability({"m": 1.0, "a": 0.5, "I": 0.2, "xi1": 1.0, "theta": 0.3})
    assert st.verdict == "asymptotically stable"
    assert np.isclose(min(st.eigenvalues.real), -0.5 / np.cos(0.3) / 0.45, rtol=1e-12)


@pytest.mark.slow
def test_tilted_disk_circles_boundary_agrees_with_the_verdicts():
    """The docs' `circles` family of the rolling disk (tilt θ and turning rate ξ3 free):
    before, `stability_boundary(circles)` failed with a bare TypeError.  Its closed-form
    condition holds exactly where the numeric verdict is "spectrally stable", on a grid."""
    from geonh import boltzmann_hamel
    model = models.get("tilted-disk")
    psi, theta, phi, x, y = model.space.q
    gens = [[0, 0, 0, 1, 0], [0, 0, 0, 0, 1], [1, 0, 0, -y, x], [0, 0, 1, 0, 0]]
    circles = steady_motions(boltzmann_hamel(model.system, model.frame), gens)[0]
    b = stability_boundary(circles)
    assert b.kind == "spectral"
    disk = {"m": 1, "r": 1, "g": sp.Rational(981, 100), "I_d": sp.Rational(1, 4), "I_a": sp.Rational(1, 2)}
    seen = set()
    for th in (0.1, 0.5):
        for x3 in (0.3, 1, 5):
            member = {**disk, "theta": th, "xi3": x3}
            verdict = circles.stability(member).verdict
            assert b.holds(member) == (verdict == "spectrally stable"), (th, x3, verdict)
            seen.add(verdict)
    assert seen == {"spectrally stable", "unstable"}


def test_string_generators_with_a_parameter_mean_the_systems_parameter():
    """SE(2) scaled by the sleigh's a, as strings (as a model file gives them): before, "a"
    became a new symbol without the model's assumptions, and `stability_boundary` failed
    with "give values for ['a']" though a is the model's own parameter."""
    sleigh = models.get("chaplygin-sleigh")
    fam, = steady_motions(lagrange(sleigh.system), [["a", "0", "0"], ["0", "a", "0"], ["-a*y", "a*x", "a"]])
    m, a, I = sleigh.parameters
    b = stability_boundary(fam)
    assert b.conditions[0].free_symbols <= {m, a, I, sp.Symbol("xi1", real=True)}
    assert fam.stability({**VALS, "xi1": 1}).verdict == "asymptotically stable"


def test_a_model_file_whose_generators_carry_a_parameter():
    from pathlib import Path

    from geonh.app.steadies import declared_arguments, steady_report
    from geonh.models import files
    text = (Path(__file__).parents[2] / "examples" / "models" / "chaplygin_sleigh.toml").read_text()
    model = files.loads(text.replace('["-y", "x", "1"]', '["-a*y", "a*x", "a"]'), source="scaled.toml")
    rep = steady_report(model, **declared_arguments(model))
    fam, = rep.families
    assert fam.boundary is not None and fam.boundary_note == ""
    assert fam.verdicts[0] == "unstable" and fam.verdicts[-1] == "asymptotically stable"
