"""One rule for the keys of every value mapping (geonh.kernel.evaluation.resolve_keys): a name,
the symbol itself, or a symbol that differs only in its assumptions (matched by name) — and a
key that names nothing is refused by name with the closest names, never dropped.  On main,
``Equations.linearize`` ignored a plain ``Symbol("m")`` for geonh's positive m and then asked
for the very value it had been given."""
import numpy as np
import pytest
import sympy as sp

import geonh as g
from geonh import models
from geonh.errors import UnknownCoordinateError
from geonh.kernel.evaluation import resolve_keys


@pytest.fixture(scope="module")
def sleigh():
    return models.get("chaplygin-sleigh")


PLAIN = {"m": sp.Symbol("m"), "a": sp.Symbol("a"), "I": sp.Symbol("I")}   # no assumptions


def _values(sleigh, how: str, vals: dict) -> dict:
    """The same values keyed by symbols, names or assumption-mismatched symbols."""
    S = sleigh.system.space
    exact = {s.name: s for s in list(S.q) + list(S.qd)} | {
        s.name: s for s in sleigh.system.T.free_symbols if s.name in PLAIN}
    if how == "symbol":
        return {exact[k]: v for k, v in vals.items()}
    if how == "name":
        return dict(vals)
    return {PLAIN.get(k, exact[k]): v for k, v in vals.items()}


STATE = {"x": 0, "y": 0, "theta": sp.Rational(1, 3), "x_dot": 1, "y_dot": sp.tan(sp.Rational(1, 3)),
         "theta_dot": sp.Rational(1, 2), "m": 2, "a": sp.Rational(1, 2), "I": sp.Rational(1, 3)}


@pytest.mark.parametrize("how", ["symbol", "name", "assumptions"])
def test_solve_point_and_accelerations_take_every_key_kind(sleigh, how):
    lag = g.lagrange(sleigh.system)
    ref = lag.accelerations(_values(sleigh, "symbol", STATE))
    assert lag.accelerations(_values(sleigh, how, STATE)) == ref
    vals = _values(sleigh, how, STATE)
    assert len(lag.solve_point(vals)) == 4


def test_linearize_accepts_assumption_mismatched_symbols(sleigh):
    lag = g.lagrange(sleigh.system)
    op = {"x": 0, "y": 0, "theta": 0, "x_dot": 1, "y_dot": 0, "theta_dot": 0,
          "m": 1, "a": sp.Rational(1, 2), "I": 1}
    ref = lag.linearize(op, ignorable="auto").A
    plain = {PLAIN.get(k, k): v for k, v in op.items()}
    assert lag.linearize(plain, ignorable="auto").A == ref


def test_unknown_keys_are_refused_by_name(sleigh):
    lag = g.lagrange(sleigh.system)
    op = {"x": 0, "y": 0, "theta": 0, "x_dot": 1, "y_dot": 0, "theta_dot": 0, "m": 1, "a": 1, "I": 1}
    with pytest.raises(UnknownCoordinateError, match=r"'mm' names nothing here.*did you mean 'm'"):
        lag.linearize(op | {"mm": 1})
    with pytest.raises(UnknownCoordinateError, match="names nothing here"):
        lag.linearize(op | {sp.Symbol("k"): 1})          # a symbol of nothing here is not dropped
    with pytest.raises(UnknownCoordinateError, match=r"did you mean 'theta_dot'"):
        lag.solve_point({**_values(sleigh, "name", STATE), "theta_dt": 1})


@pytest.mark.slow
def test_ode_function_and_simulate_params_and_initial_state(sleigh):
    bh = sleigh.equations()
    par = {"m": 1.0, "a": 0.5, "I": 0.2}
    f = bh.ode_function({PLAIN[k]: v for k, v in par.items()})
    assert {s.name for s in f.bound} == {"m", "a", "I"} and not f.parameters
    y0 = [0.0, 0.0, 0.1, 0.5, 2.0]
    ref = g.simulate(bh, y0, (0, 1), params=par, t_eval=[0, 0.5, 1])
    by_map = g.simulate(bh, dict(zip(["x", "y", "theta", "v", "w"], y0)), (0, 1),
                        params={PLAIN[k]: v for k, v in par.items()}, t_eval=[0, 0.5, 1])
    assert np.allclose(np.asarray(ref.y), np.asarray(by_map.y), atol=1e-12)
    with pytest.raises(UnknownCoordinateError, match="did you mean 'a'"):
        g.simulate(bh, y0, (0, 1), params=par | {"aa": 1.0})
    with pytest.raises(UnknownCoordinateError, match="did you mean 'theta'"):
        g.simulate(bh, {"x": 0, "y": 0, "thetaa": 0.1, "v": 0.5, "w": 2}, (0, 1), params=par)
    with pytest.raises(g.DimensionError, match="no value for w"):
        g.simulate(bh, {"x": 0, "y": 0, "theta": 0.1, "v": 0.5}, (0, 1), params=par)


def test_ambiguous_name_and_conflicting_duplicates():
    m1, m2 = sp.Symbol("m", positive=True), sp.Symbol("m")
    assert resolve_keys({m1: 1}, [m1, m2]) == {m1: 1}
    with pytest.raises(UnknownCoordinateError, match="ambiguous"):
        resolve_keys({"m": 1}, [m1, m2])
    assert resolve_keys({"m": 2, sp.Symbol("m"): 2}, [m1]) == {m1: 2}
    with pytest.raises(UnknownCoordinateError, match="given twice"):
        resolve_keys({"m": 2, sp.Symbol("m"): 3}, [m1])
    with pytest.raises(UnknownCoordinateError, match="not a name or a sympy Symbol"):
        resolve_keys({1: 2}, [m1])


def test_linearization_eigenvalue_values_by_name(sleigh):
    lag = g.lagrange(sleigh.system)
    op = {"x": 0, "y": 0, "theta": 0, "x_dot": 1, "y_dot": 0, "theta_dot": 0}
    lin = lag.linearize(op, ignorable="auto", symbolic=True)
    ev = lin.eigenvalues({"m": 1, PLAIN["a"]: sp.Rational(1, 2), "I": 1})
    assert all(abs(complex(z).imag) < 1e-12 for z in ev)
    with pytest.raises(UnknownCoordinateError, match="did you mean 'I'"):
        lin.eigenvalues({"II": 1})


@pytest.mark.parametrize("value", [np.float64(0.1), np.float32(0.5), 0.1])
def test_linearize_takes_numpy_floats_as_values(value):
    """A numpy float in the operating point is a number like a Python float (its repr,
    'np.float64(0.1)', was handed to Rational: a raw TypeError)."""
    sleigh = models.get("chaplygin-sleigh")
    eq = g.lagrange(sleigh.system)
    S = sleigh.system.space
    point = {s: value for s in S.q} | {s: 0 * value for s in S.qd}    # at rest: on the constraint
    lin = eq.linearize(point, parameters={"m": 1, "a": 0.5, "I": 0.2})
    assert lin.A.shape[0] == lin.A.shape[1]


@pytest.mark.parametrize("value", [float("nan"), np.float64("inf")])
def test_linearize_refuses_non_finite_values(value):
    sleigh = models.get("chaplygin-sleigh")
    eq = g.lagrange(sleigh.system)
    S = sleigh.system.space
    point = {s: 0.1 for s in S.q} | {s: 0.0 for s in S.qd}
    point[S.q[0]] = value
    with pytest.raises(g.GeonhError, match="finite"):
        eq.linearize(point, parameters={"m": 1, "a": 0.5, "I": 0.2})
