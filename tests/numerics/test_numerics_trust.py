"""Numerics that lose nothing and stop (issue 20, helper C).

* simulate refuses an unknown ``method`` (listing the valid ones), stops a stiff system under
  an explicit method at once with a hint to Radau/BDF/LSODA, honours ``step_limit`` and
  ``time_limit``, and turns every integration that stops early (including scipy's collapsed
  step at a blow-up) into an IntegrationError that carries the partial trajectory; the guard
  changes no number;
* parameter values outside their declared domain are refused by simulate, ode_function,
  bind and linearize (kernel.evaluation.check_assumptions);
* compiled functions refuse to pickle with a geonh error saying what to ship; trajectories
  pickle as plain data (recompiled lazily, also in another process);
* model constructors refuse bad arguments (n_trailer(1.5), torques="no").
"""
from __future__ import annotations

import copy
import math
import pickle
import subprocess
import sys
import time
import warnings

import numpy as np
import pytest
import scipy.integrate as si
import sympy as sp

import geonh as g
from geonh import models
from geonh.kernel.evaluation import check_assumptions
from geonh.models import bicycle, kinematic, mechanical, seeds
from geonh.numerics.ode import METHODS, STEP_LIMIT

SLEIGH_P = {"m": 1.0, "a": 0.3, "I": 0.2}
SLEIGH_Y0 = [0.0, 0.0, 0.0, 1.0, 0.5]


@pytest.fixture(scope="module")
def sleigh():
    return models.get("chaplygin-sleigh").equations("boltzmann-hamel")


@pytest.fixture(scope="module")
def damped():
    """x'' = -k x - c x': eigenvalues ≈ -c and -k/c, stiff for large c."""
    S = g.ConfigurationSpace("x")
    c, k = sp.symbols("c k", positive=True)
    x, xd = S.q[0], S.qd[0]
    return g.derive("lagrange", g.MechanicalSystem(S, xd**2 / 2, k * x**2 / 2, forces={x: -c * xd}))


@pytest.fixture(scope="module")
def stiff(damped):
    return damped.ode_function({"c": 1e4, "k": 1.0})


# ----------------------------------------------------------------------------------------------
# method
# ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("method, match", [
    ("Bogus", "unknown method 'Bogus'.*'RK45'.*'Radau'.*'LSODA'"),
    ("radau", "did you mean 'Radau'"),
    (" bdf ", "did you mean 'BDF'"),
    ("", "unknown method"),
    (None, "name of a solver"),
    (3, "name of a solver"),
    (int, "OdeSolver subclass"),
    (si.solve_ivp, "OdeSolver subclass"),
])
def test_unknown_method_is_refused_before_compiling(sleigh, method, match):
    with pytest.raises(g.NotFoundError, match=match):
        g.simulate(sleigh, SLEIGH_Y0, (0, 1), SLEIGH_P, method=method)


def test_every_listed_method_and_a_solver_class_run(sleigh):
    assert set(METHODS) == {"RK23", "RK45", "DOP853", "Radau", "BDF", "LSODA"}
    f = sleigh.ode_function(SLEIGH_P)
    ends = {m: g.simulate(f, SLEIGH_Y0, (0, 1), method=m, rtol=1e-9, atol=1e-11).states[-1] for m in METHODS}
    for m, y in ends.items():
        assert np.allclose(y, ends["DOP853"], atol=1e-6), m
    by_class = g.simulate(f, SLEIGH_Y0, (0, 1), method=si.RK45)
    assert np.array_equal(by_class.y, g.simulate(f, SLEIGH_Y0, (0, 1), method="RK45").y)


def test_the_guard_changes_no_number(sleigh):
    """simulate = solve_ivp on the same function, bit for bit (the guard only watches)."""
    f = sleigh.ode_function(SLEIGH_P)
    for method in ("DOP853", "Radau"):
        kw = {"jac": f.jacobian} if method == "Radau" else {}
        raw = si.solve_ivp(f, (0, 5), SLEIGH_Y0, method=method, rtol=1e-10, atol=1e-10, **kw)
        tr = g.simulate(f, SLEIGH_Y0, (0, 5), method=method)
        assert np.array_equal(tr.t, raw.t) and np.array_equal(tr.y, raw.y)


# ----------------------------------------------------------------------------------------------
# stiffness and limits
# ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("method", ["DOP853", "RK45"])
@pytest.mark.parametrize("c, span", [(1e4, (0, 100)), (1e6, (0, 1)), (1e5, (-5, 95))])
def test_a_stiff_system_under_an_explicit_method_stops_at_once(damped, method, c, span):
    f = damped.ode_function({"c": c, "k": 1.0})
    start = time.monotonic()
    with pytest.raises(g.IntegrationError, match="stiff.*method='Radau', 'BDF' or 'LSODA'") as info:
        g.simulate(f, [1.0, 0.0], span, method=method)
    assert time.monotonic() - start < 5
    err = info.value
    assert err.reason == "stiff" and isinstance(err, RuntimeError)
    tr = err.trajectory
    assert isinstance(tr, g.Trajectory) and not tr.success and 1 < len(tr)
    assert min(span) <= tr.t[-1] <= max(span) and tr.t[-1] != span[1]
    for implicit in ("Radau", "BDF", "LSODA"):
        assert g.simulate(f, [1.0, 0.0], span, method=implicit).success


def test_a_mildly_stiff_run_finishes_with_a_warning(stiff):
    with pytest.warns(RuntimeWarning, match="stiff.*Radau"):
        tr = g.simulate(stiff, [1.0, 0.0], (0, 1), step_limit=10_000)
    assert tr.success and tr.t[-1] == 1
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        g.simulate(stiff, [1.0, 0.0], (0, 1), method="Radau")


def test_rk23_has_no_stiffness_test_but_stops_at_the_step_limit(stiff):
    with pytest.raises(g.IntegrationError, match="step_limit = 2000.*if the system is stiff.*Radau") as info:
        g.simulate(stiff, [1.0, 0.0], (0, 100), method="RK23", step_limit=2000)
    assert info.value.reason == "step_limit" and len(info.value.trajectory) == 2000


def test_step_and_time_limits(sleigh, damped):
    f = damped.ode_function({"c": 0.01, "k": 1.0})
    with pytest.raises(g.IntegrationError, match="step_limit = 7") as info:
        g.simulate(f, [1.0, 0.0], (0, 1000), step_limit=7)
    assert info.value.reason == "step_limit" and len(info.value.trajectory) == 7
    with pytest.raises(g.IntegrationError, match="raise the limit, loosen rtol/atol"):
        g.simulate(f, [1.0, 0.0], (0, 1000), step_limit=7, method="BDF")
    start = time.monotonic()
    with pytest.raises(g.IntegrationError, match="time_limit = 0.2 s") as info:
        g.simulate(f, [1.0, 0.0], (0, 1e9), time_limit=0.2)
    assert info.value.reason == "time_limit" and time.monotonic() - start < 3
    assert g.simulate(f, [1.0, 0.0], (0, 10), step_limit=None).success
    # a run that ends exactly on its last allowed step is not an error
    n = len(g.simulate(f, [1.0, 0.0], (0, 10)).t) - 1
    assert g.simulate(f, [1.0, 0.0], (0, 10), step_limit=n).success
    # t_eval and the projected loop stop the same way
    te = np.linspace(0, 1000, 11)
    with pytest.raises(g.IntegrationError) as info:
        g.simulate(f, [1.0, 0.0], (0, 1000), t_eval=te, step_limit=7)
    assert set(info.value.trajectory.t) <= set(te)
    disk = models.get("vertical-disk")
    lag = disk.equations("lagrange")
    th, phd = 0.3, 2.0
    y0 = [0, 0, th, 0, 0.4 * math.cos(th) * phd, 0.4 * math.sin(th) * phd, 0.7, phd]
    par = {"m": 1.0, "I": 0.3, "J": 0.5, "R": 0.4}
    with pytest.raises(g.IntegrationError, match="step_limit = 3") as info:
        g.simulate(lag, y0, (0, 100), par, project=True, step_limit=3)
    assert info.value.trajectory.projected
    assert STEP_LIMIT == 100_000


@pytest.mark.parametrize("kw", [dict(step_limit=0), dict(step_limit=-5), dict(step_limit=1.5),
                                dict(step_limit=True), dict(step_limit="100"), dict(time_limit=0),
                                dict(time_limit=-1.0), dict(time_limit=float("nan")),
                                dict(time_limit=math.inf), dict(time_limit="1"), dict(time_limit=False)])
def test_bad_limits_are_refused(sleigh, kw):
    with pytest.raises(g.DimensionError, match="step_limit|time_limit"):
        g.simulate(sleigh, SLEIGH_Y0, (0, 1), SLEIGH_P, **kw)


def test_a_breakdown_inside_scipy_is_a_geonh_error(damped):
    """An exception inside the solver's step (numpy's ValueError when its linear algebra meets
    an overflowed state) is an IntegrationError naming the last state; one before the first
    step is scipy refusing its input, a DimensionError."""
    class Breaks(si.RK45):
        def _step_impl(self):
            if self.t > 0.5:
                raise ValueError("array must not contain infs or NaNs")
            return super()._step_impl()

    class Refuses(si.RK45):
        def __init__(self, *args, **kw):
            raise ValueError("`first_step` exceeds bounds.")

    f = damped.ode_function({"c": 1.0, "k": 1.0})
    pat = r"Breaks broke down after t = 0\.[5-9].*state \{'x'.*ValueError: array"
    with pytest.raises(g.IntegrationError, match=pat) as info:
        g.simulate(f, [1.0, 0.0], (0, 10), method=Breaks)
    assert info.value.reason == "step_size"
    with pytest.raises(g.DimensionError, match="Refuses refused the input: `first_step`"):
        g.simulate(f, [1.0, 0.0], (0, 10), method=Refuses)
    for kw, match in [(dict(t_eval=[0, 50]), "t_eval"), (dict(first_step=-1), "first_step"),
                      (dict(max_step=0), "max_step")]:
        with pytest.raises(g.DimensionError, match=f"refused the input.*{match}"):
            g.simulate(f, [1.0, 0.0], (0, 10), **kw)
    # backwards in time the damping is a growth e^{c|t|}: the state overflows
    f = damped.ode_function({"c": 10.0, "k": 1.0})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        for method in ("DOP853", "LSODA"):
            with pytest.raises(g.SingularMapError, match="not finite at t = -6"):
                g.simulate(f, [1.0, 0.0], (10, -100), method=method)
        # LSODA at an overflowing state takes steps of length 0: stopped, not run to the step limit
        start = time.monotonic()
        with pytest.raises(g.IntegrationError, match="LSODA makes no progress") as info:
            g.simulate(damped.ode_function({"c": 1e5, "k": 1.0}), [1e300, 0.0], (10, -100), method="LSODA")
        assert info.value.reason == "step_size" and time.monotonic() - start < 5


def test_a_blow_up_raises_with_the_last_state():
    """V = -x⁴: x reaches infinity in finite time; scipy's collapsed step used to come back as
    a trajectory with success False that a caller could take for the whole motion."""
    S = g.ConfigurationSpace("x")
    eq = g.derive("lagrange", g.MechanicalSystem(S, S.qd[0] ** 2 / 2, -S.q[0] ** 4))
    for method, match in [("DOP853", r"DOP853 failed after t = 0\.75.*state \{'x'.*singularity"),
                          ("LSODA", r"LSODA makes no progress.*at t = 0\.75.*singularity")]:
        with pytest.raises(g.IntegrationError, match=match) as info:
            g.simulate(eq, [1.0, 1.0], (0, 10), method=method)
        assert info.value.reason == "step_size" and info.value.trajectory.t[-1] < 0.76


# ----------------------------------------------------------------------------------------------
# declared domains of the parameters
# ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("bad", [{"m": -2.0}, {"m": 0}, {"a": 0.0}, {"I": -1e-9}, {"m": sp.Rational(-1, 2)},
                                 {"m": np.float64(-3)}, {"I": -sp.pi}])
def test_values_outside_the_declared_domain_are_refused(sleigh, bad):
    name, value = next(iter(bad.items()))
    par = {**SLEIGH_P, **bad}
    pat = f"{name} = .* is outside the domain of {name} \\(declared [^)]*positive.*> 0"
    with pytest.raises(g.InconsistentStateError, match=pat):
        g.simulate(sleigh, SLEIGH_Y0, (0, 1), par)
    with pytest.raises(g.InconsistentStateError, match=pat):
        sleigh.ode_function(par)
    with pytest.raises(g.InconsistentStateError, match=pat):
        sleigh.ode_function().bind(par)
    with pytest.raises(g.InconsistentStateError, match=pat):
        g.simulate(sleigh.ode_function(), SLEIGH_Y0, (0, 1), par)
    if not isinstance(value, np.floating):  # linearize takes numpy floats badly (left to its owner)
        op = {**par, "x": 0, "y": 0, "theta": 0, "v": 1, "w": 0}
        with pytest.raises(g.InconsistentStateError, match=pat):
            sleigh.linearize(op)


def test_keys_by_symbol_and_values_inside_the_domain(sleigh):
    m = next(s for s in models.get("chaplygin-sleigh").parameters if s.name == "m")
    with pytest.raises(g.InconsistentStateError, match="m = -1"):
        g.simulate(sleigh, SLEIGH_Y0, (0, 1), {"a": 0.3, "I": 0.2, m: -1})
    assert g.simulate(sleigh, SLEIGH_Y0, (0, 1), {"a": 0.3, "I": 0.2, m: sp.Rational(1, 3)}).success


def test_every_kind_of_assumption():
    cases = [  # (assumptions, good values, bad values, the rule in the message)
        (dict(positive=True), [1e-300, 2, sp.pi], [0, -1, -0.0], "> 0"),
        (dict(nonnegative=True), [0, 0.0, 3], [-1e-12, -sp.Rational(1, 7)], ">= 0"),
        (dict(negative=True), [-1], [0, 2], "< 0"),
        (dict(nonpositive=True), [0, -4], [1e-9], "<= 0"),
        (dict(nonzero=True), [-1, 2.5], [0, 0.0], "!= 0"),
        (dict(integer=True), [3, -2, 4.0, np.int64(7)], [1.5, 0.1], "an integer"),
        (dict(integer=True, positive=True), [1, 2], [1.5], "an integer"),
        (dict(even=True), [2, -4, 0], [3, -1.0], "an even integer"),
        (dict(odd=True), [1, -3], [2, 0], "an odd integer"),
        (dict(real=True), [-1, 0, 2.5], [1 + 2j, sp.I], "a real number"),
        (dict(positive=True), [], [2 + 1j], "a real number"),
    ]
    for assumptions, good, bad, rule in cases:
        s = sp.Symbol("p", **assumptions)
        for v in good:
            check_assumptions(s, v)
        for v in bad:
            pat = f"p = .*{'|'.join(assumptions)}.*{rule}"
            with pytest.raises(g.InconsistentStateError, match=pat):
                check_assumptions(s, v)
    # no assumption, expressions, non-symbols, NaN (refused elsewhere with its own message): no check here
    for s, v in [(sp.Symbol("p"), -5), (sp.Symbol("p"), 1j), (sp.Symbol("p", positive=True), sp.sin(sp.Symbol("t"))),
                 (sp.Symbol("p", positive=True), float("nan")), ("p", -1)]:
        check_assumptions(s, v)


def test_an_expression_value_and_unsigned_parameters_are_not_refused():
    S = g.ConfigurationSpace("x")
    gr, F = sp.symbols("g F", real=True)
    x, xd = S.q[0], S.qd[0]
    eq = g.derive("lagrange", g.MechanicalSystem(S, xd**2 / 2, gr * x, forces={x: F}))
    t = sp.Symbol("t", real=True)
    tr = g.simulate(eq, [0.0, 0.0], (0, 1), {"g": -9.81, "F": sp.sin(t)})
    assert tr.success
    n = sp.Symbol("n", integer=True, positive=True)
    eqn = g.derive("lagrange", g.MechanicalSystem(S, xd**2 / 2, n * x**2 / 2))
    with pytest.raises(g.InconsistentStateError, match="n = 1.5.*integer"):
        g.simulate(eqn, [1.0, 0.0], (0, 1), {"n": 1.5})
    assert g.simulate(eqn, [1.0, 0.0], (0, 1), {"n": 2}).success
    with pytest.raises(g.InconsistentStateError, match="n = 0"):
        eqn.linearize({"x": 0, "x_dot": 0, "n": 0})


# ----------------------------------------------------------------------------------------------
# pickling
# ----------------------------------------------------------------------------------------------
def test_compiled_functions_refuse_to_pickle_saying_what_to_ship(sleigh):
    f = sleigh.ode_function(SLEIGH_P)
    for obj in (f, sleigh.ode_function(), f.observable([sp.Symbol("m", positive=True)])):
        with pytest.raises(g.NotPicklableError, match="ship the Equations.*ode_function") as info:
            pickle.dumps(obj)
        assert isinstance(info.value, TypeError)
    pickle.loads(pickle.dumps(sleigh))  # what to ship instead does pickle
    for c in (copy.copy(f), copy.deepcopy(f)):
        assert c is not f and np.array_equal(c(0.0, SLEIGH_Y0), f(0.0, SLEIGH_Y0))


def test_a_trajectory_pickles_as_plain_data(sleigh):
    disk = models.get("vertical-disk")
    lag = disk.equations("lagrange")
    th, phd = 0.3, 2.0
    y0 = [0, 0, th, 0, 0.4 * math.cos(th) * phd, 0.4 * math.sin(th) * phd, 0.7, phd]
    t = sp.Symbol("t", real=True)
    tr = g.simulate(lag, y0, (0, 2), {"m": 1.0, "I": 0.3, "J": 0.5, "R": 0.4}, dense_output=True, project=True)
    energy = tr.energy
    back = pickle.loads(pickle.dumps(tr))
    assert "function" not in back.__dict__  # nothing recompiled yet
    assert np.array_equal(back.y, tr.y) and back.q_names == tr.q_names and back.projected
    assert np.array_equal(back.energy, energy) and "function" not in back.__dict__  # computed before: kept
    assert np.allclose(back.multipliers, tr.multipliers, rtol=0, atol=1e-12)  # recompiled on demand
    assert np.allclose(back.constraint_residuals, tr.constraint_residuals, rtol=0, atol=1e-15)
    assert np.array_equal(back.sol(1.0), tr.sol(1.0)) and back.success and back.nfev == tr.nfev
    assert pickle.loads(pickle.dumps(back))["theta"].tolist() == tr["theta"].tolist()
    assert copy.deepcopy(tr) is tr and copy.copy(tr) is tr
    # an expression-valued parameter travels in the recipe
    F = models.get("rotating-knife-edge")
    eq = F.equations("boltzmann-hamel")
    pars = {s.name: 1.0 for s in F.parameters}
    pars["F"] = sp.cos(t)
    tk = g.simulate(eq, [0.0] * (len(eq.space.q) + len(eq.u)), (0, 1), pars)
    assert np.allclose(pickle.loads(pickle.dumps(tk)).qdot, tk.qdot, rtol=0, atol=1e-14)
    # an IntegrationError keeps its reason and partial trajectory across processes
    with pytest.raises(g.IntegrationError) as info:
        g.simulate(sleigh, SLEIGH_Y0, (0, 100), SLEIGH_P, step_limit=3)
    err = pickle.loads(pickle.dumps(info.value))
    assert err.reason == "step_limit" and len(err.trajectory) == 3 and str(err) == str(info.value)


@pytest.mark.slow
def test_a_trajectory_unpickles_in_another_process(sleigh, tmp_path):
    tr = g.simulate(sleigh, SLEIGH_Y0, (0, 2), SLEIGH_P)
    path = tmp_path / "traj.pkl"
    path.write_bytes(pickle.dumps(tr))
    code = ("import pickle, sys; tr = pickle.load(open(sys.argv[1], 'rb')); "
            "print(repr(float(tr.energy[-1])), repr(float(tr.y[-1, -1])))")
    out = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    e, w = map(float, out.stdout.split())
    assert w == tr.y[-1, -1] and e == pytest.approx(tr.energy[-1], rel=0, abs=1e-13)


# ----------------------------------------------------------------------------------------------
# model constructors
# ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("N", [1.5, 0, -1, True, False, "3", None, 2.0, [2]])
def test_bad_trailer_counts_are_refused(N):
    for build in (kinematic.n_trailer, mechanical.dynamic_n_trailer):
        with pytest.raises(g.DimensionError, match="number of trailers"):
            build(N)


def test_trailer_counts_and_lengths():
    assert kinematic.n_trailer(np.int64(2)).space.dim == 5
    with pytest.raises(g.DimensionError, match="unicycle"):
        kinematic.n_trailer(0)
    for N in (kinematic.MAX_TRAILERS + 1, 10**6):
        with pytest.raises(g.DimensionError, match=f"N = {N} trailers is too large: at most 100"):
            kinematic.n_trailer(N)
        with pytest.raises(g.DimensionError, match="too large"):
            mechanical.dynamic_n_trailer(N)
    for lengths, err, match in [([0], g.DimensionError, "d1 = 0 must be positive"),
                                ([-1.5], g.DimensionError, "d1 = -1.5"),
                                ([1, 2], g.DimensionError, "1 hitch lengths needed"),
                                ("d", g.DimensionError, "sequence"),
                                (["__import__('os').system('true')"], g.ParseError, "not allowed"),
                                ([True], g.ParseError, "d1")]:
        with pytest.raises(err, match=match):
            kinematic.n_trailer(1, lengths=lengths)
    m = kinematic.n_trailer(1, lengths=["2*L"])
    assert "L" in str(list(m.frame.fields[0].components))


@pytest.mark.parametrize("build, arg", [(mechanical.vertical_rolling_disk, "torques"),
                                        (mechanical.free_rigid_body, "torques"),
                                        (mechanical.heavy_top, "symmetric"),
                                        (mechanical.rotating_knife_edge, "force"),
                                        (bicycle.whipple_bicycle, "torques"),
                                        (seeds.appell_hamel, "squared")])
@pytest.mark.parametrize("value", ["no", "False", 1, 0, None])
def test_boolean_model_options_take_only_booleans(build, arg, value):
    with pytest.raises(g.ParseError, match=f"{arg} must be True or False"):
        build(**{arg: value})


def test_the_command_line_shows_a_motion_that_stopped_and_fails(tmp_path, capsys):
    """``geonh simulate`` prints the motion up to where the integration stopped, says why in a
    note, and ends with status 1 (a failed computation, not bad input)."""
    from geonh.app import cli
    path = tmp_path / "blow_up.toml"
    path.write_text('name = "blow-up"\ncoordinates = ["x"]\n[dynamics]\nkinetic_energy = "x_dot**2/2"\n'
                    'potential = "-x**4"\n[initial]\nx = 1.0\nx_dot = 1.0\n', encoding="utf-8")
    assert cli.main(["simulate", str(path), "--t", "10", "--points", "5"]) == 1
    out = capsys.readouterr()
    assert "note: the integrator stopped: the lagrange integration by DOP853 failed" in out.out
    assert "Traceback" not in out.err


def test_numbers_too_large_for_a_float_and_overflow_noise(sleigh, capsys):
    """An int of 5000 digits cannot even be printed (Python refuses int → str beyond 4300
    digits): the messages describe it instead; an overflowing motion prints one error line, not
    numpy's warnings."""
    for huge in (10**5000, sp.Rational("1e999999"), 10**400):
        with pytest.raises(g.InconsistentStateError, match="parameter m = .* is not a finite number"):
            g.simulate(sleigh, SLEIGH_Y0, (0, 0.1), {**SLEIGH_P, "m": huge})
        with pytest.raises(g.DimensionError, match="grid value m = .* is not finite"):
            g.sweep(sleigh, {"m": [huge]}, SLEIGH_Y0, (0, 0.1))
    with pytest.raises(g.InconsistentStateError, match="rtol"):
        g.simulate(sleigh, SLEIGH_Y0, (0, 0.1), SLEIGH_P, rtol=10**5000)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(g.SingularMapError, match="not finite"):
            g.simulate(sleigh, [0, 0, 0, 1e308, 0.5], (0, 0.1), SLEIGH_P)
    assert not [w for w in caught if issubclass(w.category, RuntimeWarning)]
    from geonh.app import cli
    assert cli.main(["simulate", "chaplygin-sleigh", "--t", "0.1", "--points", "3", "--init", "v=1e308"]) != 0
    err = capsys.readouterr().err
    assert "not finite" in err and len(err.strip().splitlines()) == 1
