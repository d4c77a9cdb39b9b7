"""ConfigurationSpace: coordinates, time, velocities, total derivative, dynamicsymbols bridge."""
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from sympy.physics.mechanics import dynamicsymbols

from geonh.errors import UnknownCoordinateError
from geonh.kernel.space import ConfigurationSpace
from geonh.testing import strategies as gst


def test_coordinates_and_time():
    S = ConfigurationSpace("x, y theta")
    assert [s.name for s in S.q] == ["x", "y", "theta"]
    assert all(s.is_real for s in S.q)
    assert S.t is None and S.coords == S.q and S.dim == S.n == 3 and not S.is_rheonomic
    assert [v.name for v in S.qd] == ["x_dot", "y_dot", "theta_dot"]
    assert [a.name for a in S.qdd] == ["x_ddot", "y_ddot", "theta_ddot"]
    St = ConfigurationSpace(["x", "y"], time=True)
    assert St.t == sp.Symbol("t", real=True) and St.coords[-1] == St.t
    assert St.dim == 3 and St.n == 2 and St.is_rheonomic
    assert St.velocities == (*St.qd, 1) and S.velocities == S.qd
    assert St.velocity("t") == 1 and St.velocity("x") == St.qd[0]
    assert set(St.state_symbols) == set(St.coords + St.qd + St.qdd)
    tau = sp.Symbol("tau")
    assert ConfigurationSpace("x", time=tau).t == tau
    assert ConfigurationSpace("x", time="s").t.name == "s"


def test_symbols_are_kept_and_lookup():
    a, b = sp.symbols("a b", positive=True)
    S = ConfigurationSpace([a, b])
    assert S.q == (a, b) and S.qd[0].is_real and S.qd[0].is_positive is None
    assert S.index("b") == 1 and S.index(b) == 1 and S.coordinate("a") == a
    with pytest.raises(UnknownCoordinateError) as exc:
        S.index("c")
    assert "c is not a coordinate" in str(exc.value) and "['a', 'b']" in str(exc.value)
    with pytest.raises(UnknownCoordinateError):
        S.velocity(sp.Symbol("a"))  # same name, different assumptions: a different symbol
    with pytest.raises(KeyError):  # UnknownCoordinateError is a KeyError too
        S.index("z")


def test_invalid_spaces():
    with pytest.raises(ValueError):
        ConfigurationSpace("")
    with pytest.raises(ValueError):
        ConfigurationSpace("x x")
    with pytest.raises(ValueError):
        ConfigurationSpace("x t", time=True)
    with pytest.raises(TypeError):
        ConfigurationSpace([1, 2])


def test_equality_hash_repr():
    assert ConfigurationSpace("x y") == ConfigurationSpace(["x", "y"])
    assert hash(ConfigurationSpace("x y")) == hash(ConfigurationSpace("x y"))
    assert ConfigurationSpace("x y") != ConfigurationSpace("y x")
    assert ConfigurationSpace("x y") != ConfigurationSpace("x y", time=True)
    assert ConfigurationSpace("x y") != "x y"
    assert repr(ConfigurationSpace("x y", time=True)) == "ConfigurationSpace([x, y], time=t)"


def test_total_derivative_known():
    S = ConfigurationSpace("x y", time=True)
    x, y = S.q
    xd, yd = S.qd
    xdd, ydd = S.qdd
    t = S.t
    assert sp.expand(S.total_derivative(x * y * t) - (xd * y * t + x * yd * t + x * y)) == 0
    assert sp.expand(S.total_derivative(xd**2 * sp.sin(y)) - (2 * xd * xdd * sp.sin(y) + xd**2 * sp.cos(y) * yd)) == 0
    assert S.total_derivative(sp.Symbol("m")) == 0
    with pytest.raises(ValueError):
        S.total_derivative(xdd)


def test_dynamicsymbols_bridge_known():
    S = ConfigurationSpace("x theta")
    x, th = S.q
    xd, thd = S.qd
    X, TH = dynamicsymbols("x theta")
    t = dynamicsymbols._t
    assert S.dynamicsymbols() == (X, TH)
    assert S.to_dynamic(x * thd + S.qdd[0]) == X * TH.diff(t) + X.diff(t, 2)
    assert S.from_dynamic(X * TH.diff(t) + X.diff(t, 2)) == x * thd + S.qdd[0]
    with pytest.raises(UnknownCoordinateError):
        S.from_dynamic(dynamicsymbols("z"))
    with pytest.raises(UnknownCoordinateError):
        S.from_dynamic(dynamicsymbols("z").diff(t))
    with pytest.raises(ValueError):
        S.from_dynamic(X.diff(t, 3))


def _state_functions(S):
    """Random functions of (q, q̇[, t]): a function of the coordinates times a velocity or
    plus a product of velocities."""
    coords = list(S.coords) + list(S.qd)
    return gst.functions(coords)


@settings(deadline=None)
@given(gst.configuration_spaces(1, 4, time=None).flatmap(
    lambda S: st.tuples(st.just(S), _state_functions(S))))
def test_dynamic_round_trip(data):
    S, f = data
    g = S.to_dynamic(f)
    assert not g.free_symbols & set(S.q + S.qd)
    assert sp.expand(S.from_dynamic(g) - f) == 0


@settings(deadline=None)
@given(gst.configuration_spaces(1, 4, time=None).flatmap(
    lambda S: st.tuples(st.just(S), _state_functions(S))))
def test_total_derivative_matches_time_derivative(data):
    S, f = data
    t = S.t if S.t is not None else dynamicsymbols._t
    via_sympy = S.from_dynamic(sp.diff(S.to_dynamic(f), t))
    assert sp.expand(S.total_derivative(f) - via_sympy) == 0


def test_rates_of_a_positive_coordinate_have_either_sign():
    """A coordinate declared positive (a radius r > 0) moves both ways: its velocity and
    acceleration are real, not positive (sqrt(r_dot**2) would silently be r_dot)."""
    r = sp.Symbol("r", positive=True)
    S = ConfigurationSpace([r, "th"])
    rd, rdd = S.qd[0], S.qdd[0]
    assert rd.is_real and rd.is_positive is None and rdd.is_positive is None
    assert sp.sqrt(rd ** 2) == sp.Abs(rd)
