"""Repeated operating points of the same kind (geonh.analysis.linearize: _Plan, _repeat_point).

The compiled stages record their structural decisions (the retained coordinates, the dependence
sets, the pivot columns of the constraint Jacobians, the state) per kind of request — the keys
given, the inputs, ignorable, dependent, tol — and a further point of that kind is linearized in
numpy with that structure, checked at the point.  It must give the record the stages give: the
same state, A, B and eigenvalues to 1e-12, the same drift and operating point, the same
second-order form; a different kind decides anew; a point where a check fails (an ill-conditioned
or changed pivot, an inconsistent point, a value outside a symbol's domain) takes the stages.
"""
from __future__ import annotations

import importlib

import numpy as np
import pytest
import sympy as sp

from geonh import models
from geonh.equations import lagrange
from geonh.errors import InconsistentStateError, MissingValueError

REL = 1e-12
L = importlib.import_module("geonh.analysis.linearize")


def _floats(X) -> np.ndarray:
    return np.array([[float(X[i, j]) for j in range(X.cols)] for i in range(X.rows)]).reshape(X.shape)


def _replayed(lin) -> bool:
    return isinstance(lin._parts, L._NumericParts)


def full(eq, op, **kw):
    """The record of the stages (the recorded structure forgotten first; they record it again)."""
    L._read_cached(eq).derived.pop("plans", None)
    lin = eq.linearize(op, **kw)
    assert not _replayed(lin)
    return lin


def assert_same(fast, ref, second_order=None) -> None:
    assert _replayed(fast) and not _replayed(ref)
    assert fast.state == ref.state and fast.inputs == ref.inputs
    assert fast.dependent == ref.dependent and fast.ignorable == ref.ignorable
    assert fast.operating_point == ref.operating_point
    assert set(fast.drift) == set(ref.drift)
    for x in ref.drift:
        assert abs(float(fast.drift[x]) - float(ref.drift[x])) <= REL * (1 + abs(float(ref.drift[x])))
    assert fast.A.shape == ref.A.shape and fast.B.shape == ref.B.shape
    assert all(isinstance(x, (sp.Float, sp.Integer)) for x in list(fast.A) + list(fast.B))
    for X, Y in ((fast.A, ref.A), (fast.B, ref.B)):
        if Y.cols:
            Xf, Yf = _floats(X), _floats(Y)
            assert np.max(np.abs(Xf - Yf)) <= REL * max(1.0, np.max(np.abs(Yf)))
    ef, er = fast.eigenvalues(), ref.eigenvalues()
    assert len(ef) == len(er)
    scale = max(1.0, np.max(np.abs(er)))
    for z in er:
        assert np.min(np.abs(ef - z)) <= REL * scale, (z, ef)
    # eigenvalues of the sympy A (the route a record built by the stages takes) agree too
    assert np.max(np.abs(L._double_eigenvalues(fast.A) - ef), initial=0) <= REL * scale
    if second_order is not None:
        coords = None if second_order == "all" else second_order
        sf, sr = fast.second_order(coords), ref.second_order(coords)
        assert sf.coordinates == sr.coordinates and sf.speeds == sr.speeds
        for X, Y in ((sf.M, sr.M), (sf.C, sr.C), (sf.K, sr.K), (sf.F, sr.F)):
            Xf, Yf = _floats(X), _floats(Y)
            assert np.max(np.abs(Xf - Yf), initial=0) <= REL * max(1.0, np.max(np.abs(Yf), initial=0))


DISK_PAR = {"m": 2, "r": sp.Rational(1, 2), "g": 9.81, "I_d": sp.Rational(1, 8), "I_a": sp.Rational(1, 4)}


def _disk():
    M = models.get("tilted-disk")
    return M, {s.name: DISK_PAR[s.name] for s in M.parameters}


def test_rolling_disk_frame_form_repeated_speeds():
    M, par = _disk()
    eq = M.equations("boltzmann-hamel")
    op = {"psi": 0, "theta": 0, "phi": 0, "x": 0, "y": 0, "w1": 0, "w3": 0, **par}
    full(eq, {**op, "w2": 1.0}, ignorable="auto")
    for w2 in (0.5, 2.5, 3.0, 7.0):
        fast = eq.linearize({**op, "w2": w2}, ignorable="auto")
        assert_same(fast, full(eq, {**op, "w2": w2}, ignorable="auto"))


def test_rolling_disk_general_drifting_state():
    M, par = _disk()
    eq = M.equations("boltzmann-hamel")
    op = {"psi": 0.3, "theta": 0, "phi": 1, "x": 2, "y": -1, "w1": 0, "w2": 3, "w3": 0, **par}
    full(eq, op)
    for psi, w2 in ((0.7, 2.0), (-1.2, 5.5)):
        pt = {**op, "psi": psi, "w2": w2}
        fast = eq.linearize(pt)
        assert fast.drift
        assert_same(fast, full(eq, pt))


def test_rolling_disk_lagrange_multipliers_and_dependent_speeds():
    """Multipliers (x0 ≠ 0: the Jacobian again at x0) and the velocity constraints' pivots.
    Every speed given (a point whose speeds the stages solve for is not replayed)."""
    M, par = _disk()
    eq = lagrange(M.system)
    op = {"psi": 0, "theta": 0, "phi": 0, "x": 0, "y": 0, "psi_dot": 0, "theta_dot": 0, **par}
    kw = {"ignorable": "auto", "dependent": ["x_dot", "y_dot"]}
    solved = eq.linearize({**op, "phi_dot": 1}, **kw)
    assert not _replayed(eq.linearize({**op, "phi_dot": 2}, **kw))       # x_dot, y_dot solved for

    def point(phi_dot):
        done = full(eq, {**op, "phi_dot": phi_dot}, **kw).operating_point
        return {**op, "phi_dot": phi_dot, **{s.name: done[s] for s in done if s.name in ("x_dot", "y_dot")}}

    assert solved.state
    points = [point(phi_dot) for phi_dot in (1, 2, 3.5, 6)]
    full(eq, points[0], **kw)
    for pt in points[1:]:
        fast = eq.linearize(pt, **kw)
        assert_same(fast, full(eq, pt, **kw), second_order="all")


def test_another_kind_of_request_decides_anew():
    M, par = _disk()
    eq = M.equations("boltzmann-hamel")
    op = {"psi": 0, "theta": 0, "phi": 0, "x": 0, "y": 0, "w1": 0, "w3": 0, **par}
    eq.linearize({**op, "w2": 1.0}, ignorable="auto")
    assert _replayed(eq.linearize({**op, "w2": 2.0}, ignorable="auto"))
    # other options, other keys: the stages (which record that kind too)
    a = eq.linearize({**op, "w2": 2.0})
    assert not _replayed(a) and a.ignorable == ()
    assert _replayed(eq.linearize({**op, "w2": 2.5}))
    split = {k: v for k, v in op.items() if k not in par}
    b = eq.linearize({**split, "w2": 2.0}, parameters=par, ignorable="auto")
    assert not _replayed(b)
    fewer = {k: v for k, v in op.items() if k not in ("x", "y")}         # ignorable ones default to 0
    c = eq.linearize({**fewer, "w2": 2.0}, ignorable="auto")
    assert not _replayed(c) and c.operating_point == b.operating_point
    assert _replayed(eq.linearize({**fewer, "w2": 3.0}, ignorable="auto"))
    assert_same(eq.linearize({**fewer, "w2": 3.0}, ignorable="auto"), full(eq, {**fewer, "w2": 3.0},
                                                                                 ignorable="auto"))
    # a symbolic or exact request never replays
    assert not _replayed(eq.linearize({**op, "w2": 2.0}, ignorable="auto", exact=True))


def test_inputs_are_part_of_the_kind():
    import geonh as g
    S = g.ConfigurationSpace("x")
    m, k = sp.symbols("m k", positive=True)
    F, G = sp.symbols("F G")
    eq = g.lagrange(g.MechanicalSystem(S, m * S.qd[0] ** 2 / 2, V=k * S.q[0] ** 2 / 2, forces=[F + G]))
    op = {"x": 0, "x_dot": 0, "m": 2, "k": 3, "F": 0, "G": 0}
    eq.linearize(op, inputs=["F"])
    one = eq.linearize({**op, "m": 4}, inputs=["F"])
    assert _replayed(one) and one.B.shape == (2, 1)
    two = eq.linearize({**op, "m": 4}, inputs=["F", "G"])
    assert not _replayed(two) and two.B.shape == (2, 2)
    assert _replayed(eq.linearize({**op, "m": 5}, inputs=["F", "G"]))
    assert float(one.B[1, 0]) == pytest.approx(0.25) and float(one.A[1, 0]) == pytest.approx(-0.75)


def test_an_ill_conditioned_pivot_takes_the_stages(monkeypatch):
    M, par = _disk()
    eq = lagrange(M.system)
    op = {"psi": 0, "theta": 0, "phi": 0, "x": 0, "y": 0, "psi_dot": 0, "theta_dot": 0, **par}
    kw = {"ignorable": "auto", "dependent": ["x_dot", "y_dot"]}
    done = eq.linearize({**op, "phi_dot": 2}, **kw).operating_point           # x_dot, y_dot solved for
    op.update({s.name: done[s] for s in done if s.name in ("x_dot", "y_dot")})
    eq.linearize({**op, "phi_dot": 2}, **kw)
    assert _replayed(eq.linearize({**op, "phi_dot": 2}, **kw))
    monkeypatch.setattr(L, "ILL_CONDITIONED", 0.5)          # every pivot block counts as ill-conditioned
    lin = eq.linearize({**op, "phi_dot": 2}, **kw)
    assert not _replayed(lin)
    monkeypatch.undo()
    assert_same(eq.linearize({**op, "phi_dot": 2}, **kw), lin)


def test_a_pivot_that_vanishes_at_the_point_takes_the_stages():
    """A free particle on the circle x² + y² = 1 (every point an equilibrium), y the recorded
    dependent coordinate (pivot ∂f/∂y = 2y): at y = 0 that pivot vanishes and the stages
    choose x; the replay must not use the recorded pivot there."""
    import geonh as g
    S = g.ConfigurationSpace("x y")
    x, y = S.q
    xd, yd = S.qd
    m = sp.Symbol("m", positive=True)
    eq = lagrange(g.MechanicalSystem(S, m * (xd ** 2 + yd ** 2) / 2, holonomic=[x ** 2 + y ** 2 - 1]))
    base = {"x_dot": 0, "y_dot": 0, "m": 1}
    first = eq.linearize({**base, "x": 0.6, "y": 0.8})
    assert first.dependent[:1] == (y,)
    assert _replayed(eq.linearize({**base, "x": 0.8, "y": 0.6}))
    at = eq.linearize({**base, "x": 1.0, "y": 0.0})
    assert not _replayed(at) and at.dependent[:1] == (x,)
    assert_same(eq.linearize({**base, "x": 1.0, "y": 0.0}), full(eq, {**base, "x": 1.0, "y": 0.0}))


def test_errors_at_a_replayed_kind_are_those_of_the_stages():
    M, par = _disk()
    eq = M.equations("boltzmann-hamel")
    op = {"psi": 0, "theta": 0, "phi": 0, "x": 0, "y": 0, "w1": 0, "w2": 3, "w3": 0, **par}
    eq.linearize(op, ignorable="auto")
    with pytest.raises(InconsistentStateError, match="not a steady motion"):
        eq.linearize({**op, "w1": 1, "w3": 1}, ignorable="auto")
    with pytest.raises(InconsistentStateError, match="outside the domain"):
        eq.linearize({**op, "m": -2}, ignorable="auto")
    assert _replayed(eq.linearize(op, ignorable="auto"))


@pytest.mark.slow
def test_whipple_bicycle_replayed_speeds():
    from geonh.models.bicycle import benchmark_operating_point, whipple_bicycle
    model = whipple_bicycle()
    eq = model.equations("boltzmann-hamel")
    kw = {"ignorable": "auto", "inputs": ["T_phi", "T_delta"], "dependent": ("theta",)}
    full(eq, benchmark_operating_point(model, 4.0), **kw)
    for v in (0.0, 0.5, 3.0, 5.0, 8.0):
        fast = eq.linearize(benchmark_operating_point(model, v), **kw)
        assert_same(fast, full(eq, benchmark_operating_point(model, v), **kw), second_order=["phi", "delta"])


def test_a_changed_dependence_takes_the_stages():
    """V = k y²/2 + c x²/2: with c = 0 no row depends on x, which "auto" leaves out of the
    state; the kind recorded at c = 1 (x retained) must not be replayed at c = 0."""
    import geonh as g
    S = g.ConfigurationSpace("x y")
    x, y = S.q
    m, k = sp.symbols("m k", positive=True)
    c = sp.Symbol("c")
    eq = lagrange(g.MechanicalSystem(S, m * (S.qd[0] ** 2 + S.qd[1] ** 2) / 2, V=k * y ** 2 / 2 + c * x ** 2 / 2))
    op = {"x": 0, "y": 0, "x_dot": 0, "y_dot": 0, "m": 1, "k": 2}
    assert eq.linearize({**op, "c": 1}, ignorable="auto").ignorable == ()
    assert _replayed(eq.linearize({**op, "c": 3}, ignorable="auto"))
    free = eq.linearize({**op, "c": 0}, ignorable="auto")
    assert not _replayed(free) and free.ignorable == (x,) and free.A.shape == (3, 3)
    assert _replayed(eq.linearize({**op, "c": 0.0}, ignorable="auto"))


def test_values_the_replay_does_not_read_take_the_stages():
    """A symbol given twice (in parameters and operating point), a value with a symbol left, an
    int too large for a double: the stages, with their answer or error."""
    M, par = _disk()
    eq = M.equations("boltzmann-hamel")
    op = {"psi": 0, "theta": 0, "phi": 0, "x": 0, "y": 0, "w1": 0, "w2": 3, "w3": 0, **par}
    eq.linearize(op, ignorable="auto", parameters={"m": 5})
    twice = eq.linearize(op, ignorable="auto", parameters={"m": 5})
    assert not _replayed(twice) and twice.operating_point[sp.Symbol("m", positive=True)] == 2
    eq.linearize(op, ignorable="auto")
    assert _replayed(eq.linearize({**op, "w2": 4}, ignorable="auto"))
    for bad in (10 ** 400, sp.Symbol("v")):          # the stages' error (no double for w2)
        with pytest.raises(MissingValueError, match="give values for \\['w2'\\]"):
            eq.linearize({**op, "w2": bad}, ignorable="auto")
