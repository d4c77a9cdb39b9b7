"""Hertz's representation space, nonholonomic bases and non-ideal constraints (seed 003, §§ 1–4)."""
import random

import mpmath
import pytest
import sympy as sp

from geonh.analysis.certificate import same_motion
from geonh.kernel.generic_point import is_zero
from geonh.systems.hertz import HertzSpace, benchmark_split, split_galgebra
from geonh.equations import hertz
from geonh.systems import NonlinearSystem
from geonh.equations.nonlinear import appell, maggi_nonlinear
from geonh.models.seeds import appell_hamel
from geonh.kernel.evaluation import to_mp
from geonh.kernel.space import ConfigurationSpace

a = sp.Symbol("a", positive=True)


@pytest.fixture(scope="module")
def hs():
    return HertzSpace(appell_hamel())


def test_total_mass_and_metric(hs):
    m = sp.Symbol("m", positive=True)
    assert hs.M == m and hs.metric == sp.eye(3)


def test_bases_are_dual_and_match_maggi(hs):
    s = hs.system
    E = hs.basis()
    assert all(is_zero(e) for e in (hs.dual_basis() * E - sp.eye(3)))
    mg = maggi_nonlinear(s, hs.quasi)
    st = s.sample_state(random.Random(2))
    u = {w: sp.N(sp.sympify(q).xreplace(st), 60) for w, q in zip(mg.u, mg.speeds)}
    for tau in range(3):
        for sig in range(3):
            x = sp.N(sp.sympify(mg.details["basis"][tau][sig]).xreplace({**st, **u}), 60)
            y = sp.N(E[sig, tau].xreplace(st), 60)
            assert abs(x - y) < 1e-40


def test_L_and_K_orthogonal_and_split(hs):
    E = hs.basis()
    Jv = hs.dual_basis()
    g = hs.metric
    for lam in range(hs.l):
        eps_cov = g * E[:, lam]  # covariant components of ε_λ
        for kap in range(hs.l, 3):
            assert is_zero(hs.dot(eps_cov, Jv[kap, :].T))
    W = hs.acceleration()
    WL, WK = hs.split(W)
    assert is_zero(hs.dot(WL, WK))
    assert all(is_zero(x + y - z) for x, y, z in zip(WL, WK, W))


def test_galgebra_split_equals_sympy_split(hs):
    W = hs.acceleration()
    WL, WK = hs.split(W)
    WL2, WK2 = split_galgebra(hs, W)
    assert all(is_zero(x - y) for x, y in zip(WK, WK2))
    t = benchmark_split(hs, W, repeat=1)
    assert set(t) == {"sympy", "galgebra"}


def test_ideal_equations_and_multiplier(hs):
    s = hs.system
    ap = appell(s)
    assert same_motion(ap, hertz(hs)).same
    Lam = hs.multipliers()[0]
    rng = random.Random(9)
    for _ in range(2):
        st = s.sample_state(rng)
        lam = ap.solve_point(st)[-1]
        assert abs(to_mp(sp.N(Lam.xreplace(st), 60)) - to_mp(lam)) < 1e-40


def test_seed_eq5_single_particle():
    """Λ = −(m ∂φ/∂t + m ∇φ·v + F·∇'φ)/|∇'φ|² (seed 003, eq. (5))."""
    S = ConfigurationSpace("x y z", time=True)
    x, y, z = S.q
    xd, yd, zd = S.qd
    t = S.t
    m, c = sp.symbols("m c", positive=True)
    F = [y, -x, -1]
    phi = zd - c * t * x * xd - yd ** 2
    s = NonlinearSystem(S, m * (xd ** 2 + yd ** 2 + zd ** 2) / 2, forces=F, constraints=[phi])
    Lam = HertzSpace(s).multipliers()[0]
    grad = [sp.diff(phi, q) for q in S.q]
    gradp = [sp.diff(phi, v) for v in S.qd]
    seed = -(m * sp.diff(phi, t) + m * sum(gq * v for gq, v in zip(grad, S.qd))
             + sum(f * g for f, g in zip(F, gradp))) / sum(g ** 2 for g in gradp)
    assert is_zero(Lam - seed)


def test_coulomb_friction_on_rough_incline():
    """Particle sliding down a rough incline z = −x tan α: acceleration g(sin α − k cos α)."""
    S = ConfigurationSpace("x z")
    x, z = S.q
    xd, zd = S.qd
    m, g, al, k = sp.symbols("m g alpha k", positive=True)
    s = NonlinearSystem(S, m * (xd ** 2 + zd ** 2) / 2, V=m * g * z, holonomic=[z + x * sp.tan(al)],
                        solved={zd: -xd * sp.tan(al)})
    hs = HertzSpace(s)
    assert hs.M == m
    eq = hertz(hs, "coulomb", k)
    vals = {m: sp.Integer(2), g: sp.Rational(98, 10), al: sp.Rational(1, 2), k: sp.Rational(1, 5), x: sp.Integer(1), z: -sp.tan(sp.Rational(1, 2)),
            xd: sp.Integer(3), zd: -3 * sp.tan(sp.Rational(1, 2))}
    acc = eq.accelerations(vals)
    along = (to_mp(acc[0]) * mpmath.cos(0.5) - to_mp(acc[1]) * mpmath.sin(0.5))  # down-slope component
    expect = 9.8 * (mpmath.sin(0.5) - 0.2 * mpmath.cos(0.5))
    assert abs(along - expect) < 1e-12
    # and the normal reaction is the ideal one: |N| = m g cos α
    N, T0 = hs.reactions("coulomb", k)
    nN = sp.sqrt(hs.dot(N, N)).xreplace(vals)
    assert abs(sp.N(nN - sp.Rational(98, 5) * sp.cos(sp.Rational(1, 2)), 30)) < 1e-20
    # ideal: no friction, g sin α
    acc0 = hertz(hs).accelerations({s_: v for s_, v in vals.items() if s_ != k})   # k names nothing there
    assert abs(to_mp(acc0[0]) * mpmath.cos(0.5) - to_mp(acc0[1]) * mpmath.sin(0.5) - 9.8 * mpmath.sin(0.5)) < 1e-12


def test_galgebra_refuses_position_dependent_metric():
    from geonh.errors import NotAdaptedError
    from geonh.models.mechanical import chaplygin_sleigh
    hs2 = HertzSpace(chaplygin_sleigh().system)
    with pytest.raises(NotAdaptedError):
        split_galgebra(hs2, hs2.acceleration())
