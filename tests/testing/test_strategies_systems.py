"""Strategies for whole systems (geonh.testing.systems): T positive definite, constraint rank
exact, states on the constraints, small draws that shrink toward small systems."""
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from geonh import MechanicalSystem, NonlinearSystem
from geonh.kernel.generic_point import generic_rank
from geonh.testing import strategies as gst


def _residuals(system, state):
    pt = {k: sp.Float(v, 30) for k, v in state.items()}
    if isinstance(system, NonlinearSystem):
        exprs = list(system.phi)
    else:
        A, b = system.constraint_matrix
        exprs = list(A * sp.Matrix(system.space.qd) + b)
    return [abs(float(sp.sympify(e).xreplace(pt).evalf(30))) for e in exprs]


@settings(deadline=None, max_examples=15)
@given(st.data())
def test_mechanical_systems_positive_definite_and_rank(data):
    kind = data.draw(st.sampled_from(gst.CONSTRAINT_KINDS))
    S = data.draw(gst.mechanical_systems(kind=kind))
    assert isinstance(S, NonlinearSystem if kind == "nonlinear" else MechanicalSystem)
    assert 2 <= S.n <= 4 and 0 <= S.n_constraints <= S.n - 1
    assert S.space.is_rheonomic == (kind in ("affine", "rheonomic"))
    # the leading principal minors of M at a random state are positive (T positive definite)
    x = data.draw(gst.states(S))
    M = S.mass_matrix.xreplace({k: sp.Float(v, 30) for k, v in x.items()})
    for k in range(1, S.n + 1):
        assert M[:k, :k].det() > 0
    # the constraint rank is the number of constraints
    J = S.constraint_jacobian if kind == "nonlinear" else S.constraint_matrix[0]
    assert generic_rank(J) == S.n_constraints == J.rows
    # the state satisfies the constraints and gives every parameter (all positive) a value
    assert max(_residuals(S, x), default=0.0) <= 1e-12
    params = (S.T.free_symbols | S.V.free_symbols) - set(S.space.state_symbols)
    assert params and all(p.is_positive and x[p] > 0 for p in params)


@settings(deadline=None, max_examples=15)
@given(st.data())
def test_mechanical_systems_options(data):
    n = data.draw(st.integers(1, 3))
    k = data.draw(st.integers(0, n - 1))
    S = data.draw(gst.mechanical_systems(min_n=n, max_n=n, min_constraints=k, max_constraints=k, kind="linear",
                                         forces=False, potential=False, parameters=False))
    assert S.n == n and S.n_constraints == k
    assert S.V == 0 and all(q == 0 for q in S.Q)
    assert not (S.T.free_symbols - set(S.space.state_symbols))


def test_mechanical_systems_bad_arguments():
    with pytest.raises(ValueError):
        gst.mechanical_systems(kind="quadratic")
    with pytest.raises(ValueError):
        gst.mechanical_systems(min_n=3, max_n=2)
    with pytest.raises(ValueError):
        gst.mechanical_systems(min_n=2, max_n=2, min_constraints=2)
    with pytest.raises(ValueError):
        gst.mechanical_systems(kind="nonlinear", max_constraints=0)
    with pytest.raises(ValueError):
        gst.states("a system")
    with pytest.raises(ValueError):
        gst.states(None)


@settings(deadline=None, max_examples=10)
@given(gst.mechanical_systems(max_n=3).flatmap(lambda s: st.tuples(st.just(s), gst.adapted_frames(s))))
def test_adapted_frames_are_adapted(pair):
    import geonh
    system, frame = pair
    assert geonh.check_adapted(system, frame) == system.dof
    assert frame.names[:system.dof] == tuple(f"u{a + 1}" for a in range(system.dof))


@settings(deadline=None, max_examples=8)
@given(gst.mechanical_systems(max_n=3, kind="nonlinear").flatmap(
    lambda s: st.tuples(st.just(s), gst.adapted_frames(s), gst.states(s))))
def test_adapted_frames_on_TQ_for_nonlinear_systems(triple):
    """The last quasi-velocities are the constraints: they vanish on a consistent state, and
    the inverse gives back the state's velocities."""
    system, frame, x = triple
    pt = {k: sp.Float(v, 30) for k, v in x.items()}
    l = system.dof
    vals = [float(w.xreplace(pt)) for w in frame.quasi]
    assert all(abs(v) < 1e-12 for v in vals[l:])
    back = {**pt, **{s: sp.Float(v, 30) for s, v in zip(frame.v, vals)}}
    for qd, e in zip(system.space.qd, frame.inverse):
        assert abs(float(e.xreplace(back)) - x[qd]) < 1e-9


@settings(deadline=None, max_examples=10)
@given(gst.configuration_spaces(1, 4, time=None).flatmap(gst.velocity_frames))
def test_velocity_frames_invert(V):
    S = V.space
    assert V.coframe.det() == 1                       # unit triangular ∂v/∂q̇
    sub = dict(zip(V.v, V.quasi))
    for qd, e in zip(S.qd, V.inverse):
        assert sp.expand(e.xreplace(sub) - qd) == 0    # q̇(v(q̇)) = q̇ exactly


def test_frames_and_states_bad_arguments():
    with pytest.raises(ValueError):
        gst.adapted_frames("system")
    with pytest.raises(ValueError):
        gst.velocity_frames(None)
    with pytest.raises(ValueError):
        gst.mechanical_systems(kind=1)
    from geonh import ConfigurationSpace
    Q = ConfigurationSpace("x y")
    S = MechanicalSystem(Q, (Q.qd[0] ** 2 + Q.qd[1] ** 2) / 2)
    for bad in (0.1, float("nan"), True, "2"):
        with pytest.raises(ValueError):
            gst.states(S, magnitude=bad)
