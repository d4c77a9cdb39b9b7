"""Gauss's principle in Aumann's formulation (seed 001, eqs. (5)–(7)) and Udwadia–Kalaba."""
import random

import mpmath
import pytest
import sympy as sp
from hypothesis import given, settings, strategies as st

from geonh.analysis.certificate import same_motion
from geonh.equations import lagrange
from geonh.errors import NotLinearError, NotPositiveDefiniteError, RankError
from geonh.systems.gauss import FreeSystem, GaussSystem, constrained_acceleration
from geonh.equations import gauss, udwadia_kalaba
from geonh.equations.nonlinear import appell, maggi_nonlinear
from geonh.models.seeds import appell_hamel, linear_examples
from geonh.kernel.evaluation import to_mp
from geonh.kernel.space import ConfigurationSpace


@pytest.mark.parametrize("name", [pytest.param("sleigh", marks=pytest.mark.slow), "rolling disk", "knife edge",
                                  pytest.param("skate on belt", marks=pytest.mark.slow)])
def test_linear_examples_gauss_appell_maggi_lagrange_agree(name):
    ms, quasi = linear_examples()[name]
    ref = lagrange(ms)
    for eq in (gauss(ms), udwadia_kalaba(ms), appell(ms), maggi_nonlinear(ms, quasi)):
        cert = same_motion(ref, eq)
        assert cert.same, (name, eq.form, cert)


def test_appell_hamel_gauss_agrees():
    s = appell_hamel()
    ref = appell(s)
    assert same_motion(ref, gauss(s)).same
    assert same_motion(ref, udwadia_kalaba(s)).same


def test_numeric_closed_form_minimizes_Z_and_signs():
    """r of Moore–Penrose = r of (5)+(7); Z is minimal on the affine set (5); λ^Aumann = −λ."""
    ms, _ = linear_examples()["sleigh"]
    gs = GaussSystem.from_system(ms)
    g_eq = gauss(gs)
    l_eq = lagrange(ms)
    rng = random.Random(3)
    for _ in range(2):
        state = gs.sample_state(rng)
        mp = gs.accelerations_at(state)
        kkt = gs.accelerations_at(state, method="kkt")
        sym = g_eq.accelerations(state)
        with mpmath.workdps(60):
            for x, y, z in zip(mp, kkt, sym):
                assert abs(x - y) < 1e-40 and abs(x - to_mp(z)) < 1e-40
            f = [to_mp(sp.N(e.xreplace(state), 60)) for e in gs.free.f]
            r = [x - y for x, y in zip(mp, f)]
            a = [[to_mp(sp.N(e.xreplace(state), 60)) for e in row] for row in gs.free.metric.tolist()]
            B = [to_mp(sp.N(e.xreplace(state), 60)) for e in gs.B.row(0)]
            c = to_mp(sp.N(gs.c[0].xreplace(state), 60))
            assert abs(sum(b * x for b, x in zip(B, r)) + c) < 1e-40        # (5)
            Z = lambda v: sum(a[i][j] * v[i] * v[j] for i in range(3) for j in range(3)) / 2
            # a direction in the null space of B keeps (5); Z grows along it
            d = [B[1], -B[0], 0]
            for eps in (mpmath.mpf("1e-3"), mpmath.mpf("-1e-3")):
                assert Z([x + eps * y for x, y in zip(r, d)]) > Z(r)
        mu = g_eq.solve_point(state)[-1]
        lam = l_eq.solve_point(state)[-1]
        assert abs(to_mp(mu) + to_mp(lam)) < 1e-40


def polar():
    C = ConfigurationSpace("x y")
    P = ConfigurationSpace("r th")
    return C, P, {C.q[0]: P.q[0] * sp.cos(P.q[1]), C.q[1]: P.q[0] * sp.sin(P.q[1])}


def _check_invariance(C, P, X, free, cons):
    gC = GaussSystem(free, cons)
    freeP = free.transform(P, X)
    sub = {}
    for q, e in X.items():
        sub[q] = e
    J = sp.Matrix(2, 2, lambda i, j: sp.diff(X[C.q[i]], P.q[j]))
    consP = [sp.sympify(c).xreplace({**X, **{C.qd[i]: sum(J[i, j] * P.qd[j] for j in range(2)) for i in range(2)}})
             for c in cons]
    gP = GaussSystem(freeP, consP)
    eqC, eqP = udwadia_kalaba(gC), udwadia_kalaba(gP)
    rng = random.Random(5)
    for _ in range(2):
        stP = gP.sample_state(rng)
        accP = eqP.accelerations(stP)
        stC = {k: v for k, v in stP.items() if k not in set(P.state_symbols)}
        for i in range(2):
            stC[C.q[i]] = X[C.q[i]].xreplace(stP)
            stC[C.qd[i]] = sum(J[i, j].xreplace(stP) * stP[P.qd[j]] for j in range(2))
        accC = eqC.accelerations(stC)
        # ẍ = J p̈ + J̇ ṗ
        for i in range(2):
            Jd = sum(sp.diff(J[i, j], P.q[h]) * P.qd[h] * P.qd[j] for j in range(2) for h in range(2))
            expect = sum(J[i, j] * P.qdd[j] for j in range(2)) + Jd
            val = expect.xreplace({**stP, **dict(zip(P.qdd, [sp.Float(mpmath.nstr(v, 70), 70) for v in accP]))})
            with mpmath.workdps(60):
                assert abs(to_mp(sp.N(val, 60)) - to_mp(accC[i])) < 1e-35


@pytest.mark.slow
def test_invariance_under_time_independent_change_nonlinear_constraint():
    C, P, X = polar()
    x, y = C.q
    xd, yd = C.qd
    free = FreeSystem(C, [-x + yd, -2 * y + x * xd], (xd ** 2 + 3 * yd ** 2) / 2)  # f not from T
    _check_invariance(C, P, X, free, [xd ** 2 + yd ** 2 - 1])


@pytest.mark.slow
@settings(deadline=None, max_examples=4)
@given(st.integers(-3, 3), st.integers(1, 4), st.integers(-2, 2))
def test_invariance_random_linear_constraint(p, q, w):
    C, P, X = polar()
    x, y = C.q
    xd, yd = C.qd
    free = FreeSystem(C, [p * y + w * xd, -x], (q * xd ** 2 + xd * yd + 2 * yd ** 2) / 2)
    _check_invariance(C, P, X, free, [xd + q * y * yd + w])


def test_singular_metric_refused():
    C = ConfigurationSpace("x y")
    xd, yd = C.qd
    with pytest.raises(NotPositiveDefiniteError):
        FreeSystem(C, [0, 0], (xd + yd) ** 2 / 2)


def test_time_dependent_change_refused():
    C = ConfigurationSpace("x y", time=True)
    P = ConfigurationSpace("r th", time=True)
    free = FreeSystem(C, [0, 0], (C.qd[0] ** 2 + C.qd[1] ** 2) / 2)
    with pytest.raises(NotLinearError):
        free.transform(P, {C.q[0]: P.q[0] + P.t, C.q[1]: P.q[1]})


def test_rank_deficient_raw_set_refused_with_explanation():
    S = ConfigurationSpace("x1 x2 x3")
    x1, x2, x3 = S.q
    free = FreeSystem(S, [0, 0, 1], sum(v ** 2 for v in S.qd) / 2)
    with pytest.raises(RankError, match="x3 = 0"):
        GaussSystem(free, [x1 + x2, S.qd[0] + S.qd[1] + x3])


def test_numeric_rank_deficiency_refused():
    with pytest.raises(RankError, match="pseudo-inverse"):
        constrained_acceleration([[1, 0], [0, 1]], [[1, 1], [2, 2]], [0, 1])


def test_gauss_without_constraints_is_the_free_motion():
    """No constraints: Gauss's principle and Udwadia–Kalaba give the free system's equations
    (found by the audit of Aumann 1971: they used to fail on shapes or return no equations)."""
    import sympy as sp
    from geonh import ConfigurationSpace, MechanicalSystem, lagrange
    from geonh.analysis.certificate import same_motion
    from geonh.equations.gauss import gauss, udwadia_kalaba
    from geonh.systems.gauss import GaussSystem
    S = ConfigurationSpace("x y")
    x, y = S.q
    xd, yd = S.qd
    system = MechanicalSystem(S, (xd**2 + (1 + x**2) * yd**2) / 2, V=x**2 + y**2)
    gs = GaussSystem.from_system(system)
    assert gs.c.shape == (0, 1) and gs.constraint_acceleration() == sp.zeros(2, 1)
    for eq in (gauss(gs), udwadia_kalaba(gs)):
        assert len(eq.residuals) == 2
        assert same_motion(lagrange(system), eq, states=2).same
