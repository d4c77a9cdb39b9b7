"""Constraint analysis (seed 001, § 3 and example 3.1): hidden holonomic constraints, full rank."""
import numpy as np
import pytest
import sympy as sp
from hypothesis import given, settings, strategies as st

from geonh.systems.constraint_analysis import analyze_constraints

from geonh.models.seeds import aumann_example_31
from geonh.errors import InconsistentStateError, RankError
from geonh.systems.gauss import FreeSystem, GaussSystem
from geonh.equations import gauss, udwadia_kalaba
from geonh.numerics import simulate
from geonh.kernel.space import ConfigurationSpace


def test_example_31_hidden_constraint():
    S, cons = aumann_example_31()
    x1, x2, x3 = S.q
    v1, v2, v3 = S.qd
    rep = analyze_constraints(S, cons)
    assert not rep.full_rank and rep.raw_rank == 1
    assert rep.hidden == [x3]
    assert set(rep.velocity_constraints) == {v1 + v2, v3}
    assert set(rep.configuration_constraints) == {x1 + x2, x3}
    assert "hidden holonomic" in rep.explain()


def test_example_31_initial_data():
    S, cons = aumann_example_31()
    x1, x2, x3 = S.q
    v1, v2, v3 = S.qd
    rep = analyze_constraints(S, cons)
    good = {x1: 1, x2: -1, x3: 0, v1: 2, v2: -2, v3: 0}
    rep.check_state(good)
    # satisfies both given constraints but not the hidden one's derivative (ẋ3 ≠ 0 is fine for
    # (4*) at t0, yet x3 = 0 cannot persist): refused
    bad = {x1: 1, x2: -1, x3: 0, v1: 2, v2: -2, v3: 1}
    with pytest.raises(InconsistentStateError, match="x3_dot"):
        rep.check_state(bad)
    with pytest.raises(InconsistentStateError):
        rep.check_state({**good, x3: 1})


def _free31():
    S, cons = aumann_example_31()
    x1, x2, x3 = S.q
    v1, v2, v3 = S.qd
    f = [-x1 + v2, 1 - x2, sp.Rational(1, 2) - x3 * x1]  # forces with f1 + f2 ≠ 0 and f3 ≠ 0
    T = (2 * v1 ** 2 + v2 ** 2 + 3 * v3 ** 2) / 2
    return S, cons, FreeSystem(S, f, T)


@pytest.mark.slow
def test_example_31_motion_keeps_both_original_constraints():
    S, cons, free = _free31()
    gs = GaussSystem.regularized(free, cons)
    eq = udwadia_kalaba(gs)
    sol = simulate(eq, [0.3, -0.3, 0.0, 0.5, -0.5, 0.0], (0.0, 3.0), {})
    x1, x2, x3, v1, v2, v3 = sol.y
    assert np.max(np.abs(x1 + x2)) < 1e-8
    assert np.max(np.abs(v1 + v2 + x3)) < 1e-8
    assert np.max(np.abs(x1)) > 0.1  # it does move


def test_example_31_pseudo_inverse_refused_and_wrong():
    S, cons, free = _free31()
    with pytest.raises(RankError, match="hidden holonomic"):
        GaussSystem(free, cons)
    raw = GaussSystem(free, cons, allow_rank_deficient=True)
    assert raw.rank_deficient
    with pytest.raises(RankError):
        gauss(raw)
    x1, x2, x3 = S.q
    v1, v2, v3 = S.qd
    state = {x1: sp.Rational(3, 10), x2: -sp.Rational(3, 10), x3: 0, v1: sp.Rational(1, 2), v2: -sp.Rational(1, 2), v3: 0}
    with pytest.raises(RankError, match="pseudo-inverse"):
        raw.accelerations_at(state)
    acc = raw.accelerations_at(state, allow_rank_deficient=True)
    # the pseudo-inverse leaves ẍ3 = f3 = 1/2: x3 leaves 0, constraint ẋ1 + ẋ2 + x3 = 0 breaks
    assert abs(acc[2] - 0.5) < 1e-30
    good = GaussSystem.regularized(free, cons).accelerations_at(state)
    assert abs(good[2]) < 1e-30


def test_inconsistent_constraints():
    S = ConfigurationSpace("x1 x2 x3")
    x1, x2, x3 = S.q
    v1, v2, v3 = S.qd
    with pytest.raises(InconsistentStateError, match="1 = 0"):
        analyze_constraints(S, [x1 + x2, v1 + v2 - 1])


def test_redundant_constraint_dropped():
    S = ConfigurationSpace("x1 x2 x3")
    v1, v2, v3 = S.qd
    rep = analyze_constraints(S, [v1 + v2, 2 * v1 + 2 * v2, v3])
    assert rep.redundant == [2 * v1 + 2 * v2] and rep.hidden == []
    assert rep.rank == 2


def test_nonlinear_dependency_reported():
    S = ConfigurationSpace("x1 x2 x3")
    x3 = S.q[2]
    v1, v2, v3 = S.qd
    with pytest.raises(RankError, match="still contains"):
        analyze_constraints(S, [v1 + v2, (v1 + v2) ** 2 + x3])


def test_full_rank_set_untouched():
    S = ConfigurationSpace("x y th")
    x, y, th = S.q
    xd, yd, thd = S.qd
    c = [-xd * sp.sin(th) + yd * sp.cos(th)]
    rep = analyze_constraints(S, c)
    assert rep.full_rank and rep.velocity_constraints == c and not rep.hidden


@settings(deadline=None, max_examples=8)
@given(st.integers(1, 4), st.integers(-4, -1), st.integers(1, 3), st.integers(1, 3))
def test_random_hidden_constraint(a1, a2, c, p):
    """g = a1 x1 + a2 x2 = 0 and a1 ẋ1 + a2 ẋ2 + c x3^p = 0 hide x3^p = 0, i.e. x3 = 0 (the
    square-free part: the derivative of x3^p would vanish on x3 = 0 and lose the rank there)."""
    S = ConfigurationSpace("x1 x2 x3")
    x1, x2, x3 = S.q
    v1, v2, v3 = S.qd
    rep = analyze_constraints(S, [a1 * v1 + a2 * v2 + c * x3 ** p], holonomic=[a1 * x1 + a2 * x2])
    assert rep.hidden == [x3]
    assert rep.rank == 2
    B = rep.jacobian().xreplace({x3: 0})
    assert B.rank() == 2
