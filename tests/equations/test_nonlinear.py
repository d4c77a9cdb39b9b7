"""Nonlinear constraints: Chetaev's rule, Appell (seed 002 eq. (4)), Maggi (seed 003 eqs. (24)–(30))."""
import random

import mpmath
import pytest
import sympy as sp
from hypothesis import given, settings, strategies as st

from geonh.analysis.certificate import same_motion
from geonh.kernel.distributions import Codistribution
from geonh.equations import Equations, lagrange
from geonh.errors import (InconsistentStateError, NotFoundError, NotLinearError, NotPositiveDefiniteError,
                          RankError, SingularMapError)
from geonh.kernel.generic_point import generic_rank, is_zero
from geonh.systems import NonlinearSystem
from geonh.equations.nonlinear import appell, chetaev_lagrange, maggi_nonlinear, reactions_at
from geonh.models.seeds import appell_hamel, isokinetic_particle, linear_examples, speed_constraint_particle
from geonh.numerics import simulate
from geonh.kernel.space import ConfigurationSpace

a = sp.Symbol("a", positive=True)


@pytest.fixture(scope="module")
def ah():
    return appell_hamel()


def test_chetaev_codistribution_is_velocity_dependent(ah):
    cod = ah.chetaev_codistribution()
    assert isinstance(cod, Codistribution) and cod.rank == 1
    xd, yd, zd = ah.space.qd
    assert cod.forms[0].covector == (-2 * a ** 2 * xd, -2 * a ** 2 * yd, 2 * zd)
    assert ah.virtual == "chetaev" and not ah.is_linear


def test_chetaev_codistribution_of_linear_constraints_matches_system():
    ms, _ = linear_examples()["skate on belt"]
    ns = NonlinearSystem.from_mechanical(ms)
    assert ns.is_linear
    mine = ns.chetaev_codistribution().matrix()
    theirs = ms.constraints.matrix()
    assert all(is_zero(x - y) for x, y in zip(mine, theirs))


def quasi_choices(s):
    xd, yd, zd = s.space.qd
    return {
        "xy-phi": [xd, yd, zd ** 2 - a ** 2 * (xd ** 2 + yd ** 2)],
        "ratio-root": [xd, yd / xd, zd - a * sp.sqrt(xd ** 2 + yd ** 2)],
        "sum-diff-phi": [xd + yd, xd - yd, zd ** 2 - a ** 2 * (xd ** 2 + yd ** 2)],
    }


def test_appell_hamel_all_forms_agree(ah):
    ref = appell(ah)
    assert same_motion(ref, chetaev_lagrange(ah)).same
    for name, q in quasi_choices(ah).items():
        eq = maggi_nonlinear(ah, q)
        cert = same_motion(ref, eq)
        assert cert.same, (name, cert)


def test_maggi_reactions_equal_appell_multiplier(ah):
    """Λ of (30) equals Appell's λ for v*^{l+κ} = φ^κ; for φ' = ż − a√(ẋ²+ẏ²) it is 2ż λ."""
    ap = appell(ah)
    qs = quasi_choices(ah)
    m1 = maggi_nonlinear(ah, qs["xy-phi"])
    m2 = maggi_nonlinear(ah, qs["ratio-root"])
    rng = random.Random(4)
    zd = ah.space.qd[2]
    for _ in range(3):
        state = ah.sample_state(rng)
        lam = ap.solve_point(state)[-1]
        L1 = reactions_at(m1, state)[0]
        L2 = reactions_at(m2, state)[0]
        with mpmath.workdps(50):
            assert abs(mpmath.mpf(L1) - mpmath.mpf(lam)) < 1e-40
            assert abs(mpmath.mpf(L2) - 2 * mpmath.mpf(state[zd]) * mpmath.mpf(lam)) < 1e-40


def test_appell_printed_derivative_is_wrong(ah):
    """Seed 002 prints ∂S/∂q'_ν in (4); with the velocity derivative the equations are singular."""
    S = ah.space
    Sacc = ah.acceleration_energy()
    lam = sp.Symbol("lambda1")
    res = [sp.diff(Sacc, S.qd[i]) - ah.Q[i] - lam * ah.constraint_jacobian[0, i] for i in range(3)]
    res.append(S.total_derivative(ah.phi[0]))
    bad = Equations("printed", ah, S.qd, S.qdd, list(S.qd), list(S.qd), res, multipliers=(lam,))
    assert generic_rank(bad.mass_matrix) < bad.mass_matrix.rows
    assert generic_rank(appell(ah).mass_matrix) == 4


@pytest.mark.slow
def test_speed_constraint_keeps_speed_and_forms_agree():
    s = speed_constraint_particle()
    xd, yd = s.space.qd
    t = s.space.t
    v0, v1 = sp.symbols("v0 v1", positive=True)
    ap = appell(s)
    assert same_motion(ap, chetaev_lagrange(s)).same
    mg = maggi_nonlinear(s, [yd, xd ** 2 + yd ** 2 - (v0 + v1 * t) ** 2])
    assert same_motion(ap, mg).same
    params = {sp.Symbol(n, positive=True): v for n, v in dict(m=1.0, k=0.7, F=0.3, v0=1.0, v1=0.5).items()}
    sol = simulate(ap, [0.2, 0.1, 0.6, 0.8], (0.0, 2.0), params)
    for ti, y in zip(sol.t, sol.y.T):
        assert abs(y[2] ** 2 + y[3] ** 2 - (1.0 + 0.5 * ti) ** 2) < 1e-7


def test_isokinetic_closed_form():
    s = isokinetic_particle()
    ap = appell(s)
    m = sp.Symbol("m", positive=True)
    rng = random.Random(8)
    for _ in range(3):
        st_ = s.sample_state(rng)
        acc = ap.accelerations(st_)
        v = [st_[q] for q in s.space.qd]
        F = [Q.xreplace(st_) for Q in s.Q]
        Fv = sum(f * x for f, x in zip(F, v))
        vv = sum(x * x for x in v)
        expect = [(f - Fv / vv * x) / st_[m] for f, x in zip(F, v)]
        for x, y in zip(acc, expect):
            assert abs(mpmath.mpf(x) - mpmath.mpf(sp.N(y, 60))) < 1e-40
    # a Maggi form with polar-type free quasi-velocities agrees
    xd, yd, zd = s.space.qd
    c = sp.Symbol("c", positive=True)
    mg = maggi_nonlinear(s, [xd, yd, xd ** 2 + yd ** 2 + zd ** 2 - c ** 2])
    assert same_motion(ap, mg).same


@pytest.mark.slow
@settings(deadline=None, max_examples=5)
@given(st.integers(1, 5), st.integers(1, 5), st.integers(0, 3))
def test_random_quadratic_cone_maggi_equals_appell(p, r, w):
    """ż² = α ẋ² + β ẏ² with random α, β and a random force: Maggi (two choices) = Appell."""
    S = ConfigurationSpace("x y z")
    x, y, z = S.q
    xd, yd, zd = S.qd
    al, be = sp.Rational(p, 3), sp.Rational(r, 2)
    s = NonlinearSystem(S, (xd ** 2 + 2 * yd ** 2 + zd ** 2) / 2, V=z + w * x * y,
                        constraints=[zd ** 2 - al * xd ** 2 - be * yd ** 2],
                        solved={zd: sp.sqrt(al * xd ** 2 + be * yd ** 2)})
    ap = appell(s)
    assert same_motion(ap, maggi_nonlinear(s, [xd, yd, zd ** 2 - al * xd ** 2 - be * yd ** 2]), states=2).same
    assert same_motion(ap, maggi_nonlinear(s, [xd + yd, yd, zd ** 2 - al * xd ** 2 - be * yd ** 2]), states=2).same


def test_wrong_form_is_detected(ah):
    """Negative control: dropping the multiplier term gives a different motion."""
    S = ah.space
    ap = appell(ah)
    res = list(ap.residuals)
    res[0] = res[0] + ap.lam_vec[0] * ah.constraint_jacobian[0, 0] / 2
    bad = Equations("bad", ah, S.qd, S.qdd, list(S.qd), list(S.qd), res, multipliers=ap.lam_vec)
    assert not same_motion(ap, bad).same


# -- bad input -----------------------------------------------------------------------------------
def test_inverse_that_does_not_exist(ah):
    xd, yd, zd = ah.space.qd
    with pytest.raises(SingularMapError):
        maggi_nonlinear(ah, [xd + yd, 2 * xd + 2 * yd, zd ** 2 - a ** 2 * (xd ** 2 + yd ** 2)])


@pytest.mark.slow
def test_inverse_sympy_cannot_find_asks_for_it(ah):
    xd, yd, zd = ah.space.qd
    q = [xd + sp.atan(xd), yd, zd ** 2 - a ** 2 * (xd ** 2 + yd ** 2)]
    with pytest.raises(NotFoundError, match="inverse="):
        maggi_nonlinear(ah, q)


def test_wrong_user_inverse_refused(ah):
    xd, yd, zd = ah.space.qd
    v1, v2, v3 = sp.symbols("v1 v2 v_c1", real=True)
    with pytest.raises(SingularMapError):
        maggi_nonlinear(ah, [xd, yd, zd ** 2 - a ** 2 * (xd ** 2 + yd ** 2)],
                        inverse=[v1, v2, sp.sqrt(v3 + a ** 2 * v1 ** 2)])
    ok = maggi_nonlinear(ah, [xd, yd, zd ** 2 - a ** 2 * (xd ** 2 + yd ** 2)],
                         inverse=[v1, v2, sp.sqrt(v3 + a ** 2 * (v1 ** 2 + v2 ** 2))])
    assert same_motion(appell(ah), ok).same


def test_constraint_quasi_velocity_must_be_the_constraint(ah):
    xd, yd, zd = ah.space.qd
    with pytest.raises(RankError):
        maggi_nonlinear(ah, [xd, yd, zd])


def test_bad_systems():
    S = ConfigurationSpace("x y z")
    xd, yd, zd = S.qd
    x = S.q[0]
    with pytest.raises(NotPositiveDefiniteError):
        NonlinearSystem(S, (xd + yd) ** 2 / 2 + zd ** 2 / 2, constraints=[zd ** 2 - xd ** 2])
    with pytest.raises(NotLinearError):
        NonlinearSystem(S, (xd ** 2 + yd ** 2 + zd ** 2) / 2, constraints=[x - 1])
    with pytest.raises(RankError):
        NonlinearSystem(S, (xd ** 2 + yd ** 2 + zd ** 2) / 2, constraints=[zd ** 2 - xd ** 2, 2 * zd ** 2 - 2 * xd ** 2])


def test_inconsistent_state(ah):
    st_ = ah.sample_state(random.Random(3))
    ah.check_state(st_)
    st_[ah.space.qd[2]] = -st_[ah.space.qd[2]] + 1
    with pytest.raises(InconsistentStateError):
        ah.check_state(st_)


@pytest.mark.slow
def test_linear_examples_maggi_appell_lagrange():
    for name, (ms, quasi) in linear_examples().items():
        ref = lagrange(ms)
        assert same_motion(ref, appell(ms)).same, name
        assert same_motion(ref, maggi_nonlinear(ms, quasi)).same, name
