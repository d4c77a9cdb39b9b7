"""Bounded symbolic work (geonh.budget): time budgets with progress, and the examples that ran
for ever before (issue 20): a huge sum or factorial(10**8) in a frame or a system (refused by
the input limits, geonh.limits), a dense 9×9 trigonometric quasi-velocity map, and the
NotPositiveDefiniteError message of a dense mass matrix with symbolic inertia products."""
from __future__ import annotations

import pickle
import re
import signal
import time
from contextlib import contextmanager

import pytest
import sympy as sp

import geonh as g
from geonh.kernel.budget import check, count_nodes, current_budget


@contextmanager
def within(seconds: float):
    """Fail (instead of hanging) if the block runs longer than ``seconds`` (SIGALRM; the
    handler fires between Python bytecodes, so a runaway sympy walk is interrupted)."""
    def handler(signum, frame):
        raise AssertionError(f"took longer than {seconds} s")
    old = signal.signal(signal.SIGALRM, handler)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def expired(**kw):
    """A budget whose time is already up (the next check() raises)."""
    @contextmanager
    def cm():
        with g.budget(seconds=0.001, **kw) as b:
            time.sleep(0.01)
            yield b
    return cm()


def trig_frame(n: int) -> g.Frame:
    """The dense n×n trigonometric quasi-velocity map of issue 20 (every ω depends on every q̇)."""
    S = g.ConfigurationSpace(" ".join(f"q{i}" for i in range(1, n + 1)))
    q, qd = S.q, S.qd
    rows = [sum(((2 if i == j else 0) + sp.sin(q[(i + j) % n]) * sp.cos(q[(2 * i + j + 1) % n]) / (j + 1)) * qd[j]
                for j in range(n)) for i in range(n)]
    return g.Frame.from_quasi_velocities(S, rows)


# -- the budget itself ----------------------------------------------------------------------------
def test_default_has_no_time_limit_and_no_progress():
    b = current_budget()
    assert b.seconds is None and b.deadline is None and b.progress is None and b.remaining() is None
    check("anything", 0, 1)  # a no-op


def test_check_raises_when_the_time_is_up_naming_step_and_progress():
    with expired():
        with pytest.raises(g.BudgetExceededError) as info:
            check("structure coefficients", 12, 36, "brackets")
    e = info.value
    assert isinstance(e, TimeoutError) and isinstance(e, g.GeonhError)
    assert str(e).startswith("structure coefficients: stopped after 12 of 36 brackets")
    assert "0.001 s" in str(e) and "geonh.budget(seconds=" in str(e)
    assert (e.step, e.done, e.total, e.unit, e.seconds) == ("structure coefficients", 12, 36, "brackets", 0.001)
    e2 = pickle.loads(pickle.dumps(e))
    assert str(e2) == str(e) and e2.done == 12


def test_budget_is_scoped_and_nested_budgets_cannot_extend_the_outer_deadline():
    seen = []
    with g.budget(seconds=100, progress=lambda *a: seen.append(a)) as outer:
        assert current_budget() is outer
        with g.budget(seconds=10_000) as inner:
            assert inner.deadline == outer.deadline and inner.seconds == 100
            assert inner.progress is outer.progress
            check("inner", 1, 2)
        with g.budget(seconds=1) as shorter:
            assert shorter.deadline < outer.deadline and shorter.seconds == 1
        assert current_budget() is outer
    assert current_budget().seconds is None and current_budget().progress is None
    assert seen == [("inner", 1, 2)]


def test_progress_may_cancel_by_raising():
    class Stop(Exception):
        pass

    def stop(step, done, total):
        raise Stop(step)

    S = g.ConfigurationSpace("x y z")
    x, y, z = S.q
    F = g.Frame([g.VectorField(S, [1, 0, 0]), g.VectorField(S, [0, 1, x]), g.VectorField(S, [0, 0, 1])])
    with g.budget(progress=stop), pytest.raises(Stop):
        F.structure_coefficients()


@pytest.mark.parametrize("kw", [dict(seconds=0), dict(seconds=-1), dict(seconds=float("nan")),
                                dict(seconds=float("inf")), dict(seconds="10"), dict(seconds=True),
                                dict(progress="print")])
def test_bad_budget_arguments(kw):
    with pytest.raises(g.ParseError, match="budget"):
        with g.budget(**kw):
            pass


@pytest.mark.parametrize("backend", ["symengine", "sympy"])
def test_structure_coefficients_report_progress_and_stop(backend):
    S = g.ConfigurationSpace("x y z w")
    x, y, z, w = S.q
    F = g.Frame([g.VectorField(S, [1, 0, 0, 0]), g.VectorField(S, [0, 1, x, 0]),
                 g.VectorField(S, [0, 0, 1, y]), g.VectorField(S, [0, 0, 0, 1])])
    seen = []
    with g.using_backend(backend):
        with g.budget(seconds=600, progress=lambda *a: seen.append(a)):
            c = F.structure_coefficients()
        assert c[2, 0, 1] == 1
        steps = [s for s in seen if s[0] == "structure coefficients"]
        assert [s[1] for s in steps] == list(range(6)) and {s[2] for s in steps} == {6}
        F._c = None
        first = "6 brackets" if backend == "symengine" else "4 fields"  # sympy differentiates the fields first
        with expired(), pytest.raises(g.BudgetExceededError, match=f"structure coefficients.*: stopped after 0 of {first}"):
            F.structure_coefficients()
        with expired(), pytest.raises(g.BudgetExceededError, match=r"structure coefficients \(exterior\)"):
            F.structure_coefficients("exterior")


def test_equations_flag_and_certificate_report_progress():
    model = g.models.get("chaplygin-sleigh")
    seen = []
    with g.budget(progress=lambda *a: seen.append(a)):
        eqs = g.derive("boltzmann-hamel", model.system, model.frame)
        g.same_motion(eqs, g.derive("lagrange", model.system), states=2)
        g.Distribution(list(g.models.get("unicycle").frame.fields[:2])).growth_vector()
    steps = {s[0] for s in seen}
    assert {"equations of motion", "certificate", "derived flag, level 2"} <= steps
    assert ("certificate", 1, 2) in seen
    with expired(), pytest.raises(g.BudgetExceededError, match="certificate: stopped after 0 of 2 states"):
        g.same_motion(eqs, g.derive("lagrange", model.system), states=2)


# -- size: the inputs are refused at the boundary (geonh.limits) ---------------------------
S3 = g.ConfigurationSpace("x y z")
X, Y, Z = S3.q


def test_factorial_of_a_huge_number_in_a_frame_or_system_is_refused_at_once():
    big = sp.factorial(10**8, evaluate=False)
    xd, yd, zd = S3.qd
    with within(10):
        with pytest.raises(g.LimitError, match="factorial"):
            g.Frame([g.VectorField(S3, [1, 0, 0]), g.VectorField(S3, [0, 1, big * X]), g.VectorField(S3, [0, 0, 1])])
        with pytest.raises(g.LimitError, match="quasi-velocity"):
            g.Frame.from_quasi_velocities(S3, [xd + big * yd, yd, zd])
        with pytest.raises(g.LimitError, match="kinetic energy T"):
            g.MechanicalSystem(S3, (xd**2 + yd**2 + zd**2) / 2 + big * xd**2)
        fields = [g.VectorField(S3, [1, 0, 0]), g.VectorField(S3, [0, 1, 0]), g.VectorField(S3, [0, 0, 1])]
        # the new fields of a change of frame are built from C·A without a second check: A is checked
        with pytest.raises(g.LimitError, match="change-of-frame matrix"):
            g.Frame(fields).change(sp.Matrix([[1, 0, 0], [0, 1, big], [0, 0, 1]]))


def test_a_sum_of_too_many_terms_in_a_frame_is_refused():
    xd, yd, zd = S3.qd
    huge = sp.Add(*[sp.Mul(k, sp.cos(X), X, evaluate=False) for k in range(1, 25_001)], evaluate=False)
    with within(30):
        with pytest.raises(g.LimitError, match="quasi-velocity.*distinct subexpressions"):
            g.Frame.from_quasi_velocities(S3, [xd + huge * yd, yd, zd])


def test_count_nodes_is_bounded_on_shared_subexpressions():
    e = X
    for _ in range(60):  # a few distinct nodes, 2**60 nodes as a tree
        e = sp.sin(e) + sp.cos(e)
    with within(5):
        assert count_nodes(e, 10) == 11
        assert count_nodes(e, 1000) == 181
        assert count_nodes([X, Y, X + Y], 100) == 3


# -- the examples of issue 20 ------------------------------------------------------------------------
@pytest.mark.slow
def test_dense_nine_by_nine_trigonometric_frame_is_built_at_once_and_bounded_after():
    with within(60):  # main took ~200 s of CPU for n = 8 and far longer for 9 (a tree walk of C = B⁻¹)
        F = trig_frame(9)
        seen = []
        with g.budget(seconds=600, progress=lambda *a: seen.append(a)):
            c = F.structure_coefficients()
        assert [s[1] for s in seen if s[0] == "structure coefficients"] == list(range(36))
    assert c.shape == (9, 9, 9)
    F._c = None
    with expired(), pytest.raises(g.BudgetExceededError, match="structure coefficients: stopped after 0 of 36"):
        F.structure_coefficients()


def test_frame_inverse_of_a_dense_trig_map_is_right():
    import mpmath
    from geonh.kernel.evaluation import tree_eval  # evaluates shared subexpressions once
    F = trig_frame(5)
    pt = {s: sp.Rational(k + 2, 7) for k, s in enumerate(F.space.q)}
    n, memo = F.dim, {}
    with mpmath.workdps(40):
        B = mpmath.matrix([[tree_eval(F.B[i, j], pt, memo) for j in range(n)] for i in range(n)])
        C = mpmath.matrix([[tree_eval(F.C[i, j], pt, memo) for j in range(n)] for i in range(n)])
        assert mpmath.mnorm(B * C - mpmath.eye(n), 1) < 1e-30
    assert F.fields[0].components == tuple(F.C[:, 0])


def dense_inertia(n: int, trig: bool = False) -> tuple[g.ConfigurationSpace, sp.Expr]:
    """T = ½ Σ I_ii q̇_i² + Σ_{i<j} I_ij q̇_i q̇_j with unsigned products of inertia I_ij (indefinite
    for some of their values)."""
    S = g.ConfigurationSpace(" ".join(f"q{i}" for i in range(1, n + 1)))
    q, qd = S.q, S.qd
    T = 0
    for i in range(n):
        T += sp.Symbol(f"I{i}{i}", positive=True) * qd[i] ** 2 / 2
        for j in range(i + 1, n):
            T += sp.Symbol(f"I{i}{j}") * (sp.cos(q[(i + j) % n]) if trig else 1) * qd[i] * qd[j]
    return S, T


@pytest.mark.parametrize("n, trig", [(9, False), (10, False), (7, True)])
def test_not_positive_definite_message_is_cheap_and_says_where(n, trig):
    S, T = dense_inertia(n, trig)
    t0 = time.perf_counter()
    with within(30):  # main: 265 s (9×9) building Berkowitz minors for the message
        with pytest.raises(g.NotPositiveDefiniteError) as info:
            g.MechanicalSystem(S, T)
    assert time.perf_counter() - t0 < 5
    msg = str(info.value)
    assert "its leading principal minor Δ" in msg and " there (Δ1 = " in msg
    assert "upper-left k×k blocks" in msg and "conditions=[...]" in msg
    assert len(msg) < 3000  # values at a point, not giant symbolic minors
    assert re.search(r"its leading principal minor Δ(\d+) is -[0-9.]+ there", msg)
    assert all(f"I0{j} = " in msg for j in range(1, n))  # the point where it fails


def test_small_not_positive_definite_messages_keep_the_symbolic_minors():
    S = g.ConfigurationSpace("x y phi")
    xd, yd, pd = S.qd
    m, J, J0 = sp.symbols("m J J0", positive=True)
    with pytest.raises(g.NotPositiveDefiniteError, match=r"Δ3 is -[0-9.]+ there \(Δ1 = .*Δ3 = m\*\(J\*m - J0\*\*2\)"):
        g.MechanicalSystem(S, m * (xd**2 + yd**2) / 2 + J * pd**2 / 2 + J0 * xd * pd)
    with pytest.raises(g.NotPositiveDefiniteError, match=r"the conditions \[J0\*\*2 > J\*m\] do not ensure that"):
        g.MechanicalSystem(S, m * (xd**2 + yd**2) / 2 + J * pd**2 / 2 + J0 * xd * pd, conditions=[J0**2 > J * m])


def test_gc_paused_restores_the_collector_as_it_was():
    """kernel.budget.gc_paused: the cyclic collector is off inside, and afterwards exactly as
    before (enabled or disabled), also when the block raises and when pauses nest; as a
    decorator it pauses each call."""
    import gc
    from geonh.kernel.budget import gc_paused
    seen: list = []

    @gc_paused()
    def inside(fail: bool = False):
        seen.append(gc.isenabled())
        if fail:
            raise KeyError("x")
        return 7

    try:
        for state in (True, False):
            (gc.enable if state else gc.disable)()
            with gc_paused():
                assert not gc.isenabled()
                with gc_paused():
                    assert not gc.isenabled()
                assert not gc.isenabled()   # the inner pause does not end the outer one
            assert gc.isenabled() is state
            with pytest.raises(ValueError):
                with gc_paused():
                    raise ValueError("inside")
            assert gc.isenabled() is state
            assert inside() == 7 and gc.isenabled() is state
            with pytest.raises(KeyError):
                inside(fail=True)
            assert gc.isenabled() is state
    finally:
        gc.enable()
    assert seen == [False] * 4
