"""Transpositional relations: d and δ as vector fields (ISSUE 3).

Bracket-derived coefficients are compared with the printed closed forms of Hamel 1924 (17)
and Neimark–Fufaev 1960 (1.5), (1.6), and with the corrected general form of (1.5).
"""
import itertools

import mpmath
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from geonh.models import kinematic as catalog
from geonh.errors import (DimensionError, GeonhError, NotLinearError, RankError,
                          SingularMapError)
from geonh.kernel.forms import exterior_derivative
from geonh.kernel.evaluation import PRECISION
from geonh.kernel.generic_point import is_zero
from geonh.kernel.sampling import sample_points
from geonh.kernel.space import ConfigurationSpace
from geonh.testing.constrained import (constrained_settings, hamel_frames,
                                                   holonomic_settings, transposition_cases)
from geonh.transposition import (ConstrainedSetting, corrected_nf_gamma, hamel_matrices,
                                 printed_hamel_beta, printed_nf_B, printed_nf_gamma)


def all_equal(left, right=None, trials=2):
    """Entrywise equality of two lists of expressions (or vanishing of one list) at random
    rational points, evaluated once with mpmath at PRECISION digits (CONVENTIONS.md)."""
    left = [sp.sympify(e) for e in left]
    right = [sp.S.Zero] * len(left) if right is None else [sp.sympify(e) for e in right]
    assert len(left) == len(right)
    pairs = [(a, b) for a, b in zip(left, right) if a != b]
    if not pairs:
        return True
    syms = sorted(set().union(*[a.free_symbols | b.free_symbols for a, b in pairs]), key=sp.default_sort_key)
    flat = [e for ab in pairs for e in ab]
    if not syms:
        return all(sp.simplify(a - b) == 0 for a, b in pairs)
    f = sp.lambdify(syms, flat, modules="mpmath", cse=True)
    tol = mpmath.mpf(10) ** (-(PRECISION // 2))
    seen = 0
    for pt in sample_points(syms, trials + 4):
        with mpmath.workdps(PRECISION):
            try:
                vals = f(*[mpmath.mpf(pt[s].p) / pt[s].q for s in syms])
            except (ZeroDivisionError, ValueError, OverflowError):
                continue
            vals = [mpmath.mpmathify(v) for v in vals]
            if not all(mpmath.isfinite(v) for v in vals):
                continue
            seen += 1
            for i in range(0, len(vals), 2):
                a, b = vals[i], vals[i + 1]
                if abs(a - b) > tol * (1 + abs(a) + abs(b)):
                    return False
        if seen >= trials:
            return True
    raise AssertionError("no regular sample point")


def arrays_equal(A, B):
    A, B = sp.Array(A), sp.Array(B)
    assert A.shape == B.shape, (A.shape, B.shape)
    return all_equal(sp.flatten(A), sp.flatten(B))


def gamma_sum(T, lam, delta_t=False):
    """Σ γ_νλμ dπ_μ δπ_ν (δπ_t = 0 unless delta_t)."""
    g = T.gamma
    dpi = T.dpi
    xpi = list(T.deltapi)
    if T.space.t is not None and not delta_t:
        xpi[-1] = 0
    return sum((g[nu, lam, mu] * dpi[mu] * xpi[nu] for nu in range(T.p) for mu in range(T.p)), sp.S.Zero)


def B_sum(T, i):
    """Σ B^σ_rs dq_r δq_s over free (+ t) for the i-th σ (δt = 0)."""
    rs = list(T.free) + ([T.space.t] if T.space.t is not None else [])
    dv = [T.d_symbols[q] for q in rs]
    xv = [T.delta_symbols[q] for q in rs]
    if T.space.t is not None:
        xv[-1] = 0
    return sum((T.B[i, r, s] * dv[r] * xv[s] for r in range(len(rs)) for s in range(len(rs))), sp.S.Zero)


def nf_augmented_B_input(T):
    """(a, q_free, q_dep) for printed_nf_B with time as one more free coordinate (a_jt = a_j)."""
    s = T.setting
    a, q_free = s.a, list(s.free)
    if T.space.t is not None:
        a = a.row_join(s.affine)
        q_free.append(T.space.t)
    return a, q_free, list(s.dependent)


# -- Hamel (17) ------------------------------------------------------------------------------
@pytest.mark.slow
@settings(deadline=None)
@given(hamel_frames())
def test_printed_hamel_beta_equals_bracket_beta(F):
    b13, c13 = hamel_matrices(F)
    # (17) with b read as (quasi, coordinate), i.e. the transpose of (13)'s b
    assert arrays_equal(printed_hamel_beta(b13.T, c13, F.space.coords), F.hamel_beta())


def test_hamel_17_literal_reading_of_13_is_wrong():
    F = catalog.rigid_body().frame
    b13, c13 = hamel_matrices(F)
    wrong = printed_hamel_beta(b13, c13, F.space.coords)
    assert not arrays_equal(wrong, F.hamel_beta())


# -- the k-family on random settings ----------------------------------------------------------
@pytest.mark.slow
@settings(deadline=None)
@given(transposition_cases(max_n=4, rheonomic=None), st.data())
def test_hamel_point_of_view_k_full(case, data):
    setting, _, quasi = case
    T = setting.transposition(setting.n - setting.m, quasi=quasi)
    # d and δ commute on every coordinate
    assert all_equal(T.coordinates())
    # the π relations carry Hamel's β of the full frame (π's then t: the frame has no η's)
    beta = T.beta
    dpi, xpi = T.dpi, list(T.deltapi)
    if T.space.t is not None:
        xpi[-1] = 0
    hamel = [sum((beta[a, b, d] * xpi[a] * dpi[b] for a in range(T.p) for b in range(T.p)), sp.S.Zero)
             for d in range(T.p)]
    assert all_equal(T.quasi(), hamel)
    # with no σ's the printed (1.5) is complete
    assert arrays_equal(printed_nf_gamma(T.a, T.q_lambda), T.gamma)


@pytest.mark.slow
@settings(deadline=None)
@given(transposition_cases(max_n=4, rheonomic=None))
def test_suslov_point_of_view_k0(case):
    setting, _, quasi = case
    T = setting.transposition(0, quasi=quasi)
    comps = T.coordinates()
    assert all_equal([comps[T.space.index(q)] for q in setting.free])
    on = T.coordinates(on_motion=True)  # k = 0: nothing to substitute
    assert all_equal([on[T.space.index(q)] for q in setting.dependent],
                     [B_sum(T, i) for i in range(len(setting.dependent))])
    a, qf, qd = nf_augmented_B_input(T)
    assert arrays_equal(printed_nf_B(a, qf, qd, 0), T.B)


@pytest.mark.slow
@settings(deadline=None)
@given(transposition_cases(max_n=4, rheonomic=None))
def test_general_k_bracket_equals_closed_forms(case):
    setting, k, quasi = case
    T = setting.transposition(k, quasi=quasi)
    comps = T.coordinates()
    assert all_equal([comps[T.space.index(q)] for q in T.q_lambda])
    # (1.6) (with the rheonomic extension) equals the bracket on the motion
    a, qf, qd = nf_augmented_B_input(T)
    assert arrays_equal(printed_nf_B(a, qf, qd, k), T.B)
    on = T.coordinates(on_motion=True)
    assert all_equal([on[T.space.index(q)] for q in T.sigma], [B_sum(T, i) for i in range(len(T.sigma))])
    # corrected (1.5) equals the bracket-derived γ, which gives the π relations
    assert arrays_equal(corrected_nf_gamma(T.a, T.q_lambda, T.a_sigma, T.q_sigma), T.gamma)
    assert all_equal(T.quasi(), [gamma_sum(T, lam) for lam in range(T.p)])


@pytest.mark.slow
@settings(deadline=None)
@given(transposition_cases(max_n=3, rheonomic=None))
def test_quasi_relations_match_cartan_identity_and_frame(case):
    """V(θ(W)) − W(θ(V)) = dθ(V, W) + θ([V, W]); off the motion [V, W]^σ = c^σ_μν dπ_μ δπ_ν."""
    setting, k, quasi = case
    T = setting.transposition(k, quasi=quasi)
    br = T.bracket()
    F = T.frame
    direct, cartan = [], []
    for lam in range(T.p):
        th = F.coframe[lam]
        direct.append(T.V(th(T.W)) - T.W(th(T.V)))
        cartan.append(exterior_derivative(th)(T.V, T.W) + th(br))
    assert all_equal(direct, cartan)
    c = F.structure_coefficients()
    to_pi = T._to_pi
    dpi, xpi = T.dpi, list(T.deltapi)
    if T.space.t is not None:
        xpi[-1] = 0
    rels, expects = [], []
    for i, q in enumerate(T.sigma):
        rel = br[T.space.index(q)].xreplace(to_pi)
        if T.delta_t is not None:
            rel = rel.xreplace({T.delta_t: 0})
        rels.append(rel)
        expects.append(sum((c[T.p + i, mu, nu] * dpi[mu] * xpi[nu] for mu in range(T.p) for nu in range(T.p)),
                           sp.S.Zero))
    assert all_equal(rels, expects)


@pytest.mark.slow
@settings(deadline=None)
@given(transposition_cases(max_n=4, rheonomic=False))
def test_bilinear_and_antisymmetric(case):
    setting, k, quasi = case
    T = setting.transposition(k, quasi=quasi)
    lam_, mu_ = sp.Rational(3, 7), sp.Rational(-5, 2)
    dsyms = list(T.d_symbols.values())
    xsyms = list(T.delta_symbols.values())
    scale = {**{s: lam_ * s for s in dsyms}, **{s: mu_ * s for s in xsyms}}
    swap = {**dict(zip(dsyms, xsyms)), **dict(zip(xsyms, dsyms))}
    for on in (False, True):
        rel = T.coordinates(on_motion=on)
        assert all_equal([e.xreplace(scale) for e in rel], [lam_ * mu_ * e for e in rel])  # bilinear
        assert all_equal([e.xreplace(swap) for e in rel], [-e for e in rel])  # [W, V] = −[V, W]
    pswap = {**dict(zip(T.dpi, T.deltapi)), **dict(zip(T.deltapi, T.dpi))}
    qrel = T.quasi()
    assert all_equal([e.xreplace(pswap) for e in qrel], [-e for e in qrel])
    g = T.gamma
    idx = list(itertools.product(range(T.p), repeat=3))
    assert all_equal([g[nu, lam, mu] for nu, lam, mu in idx], [-g[mu, lam, nu] for nu, lam, mu in idx])
    Bs = T.B
    idx = list(itertools.product(range(Bs.shape[0]), range(T.m), range(T.m)))
    assert all_equal([Bs[i, r, s] for i, r, s in idx], [-Bs[i, s, r] for i, r, s in idx])


def test_rheonomic_antisymmetric_with_delta_t():
    """With time, antisymmetry holds for δ carrying a δt symbol; the virtual δ has δt = 0."""
    S = ConfigurationSpace("x y theta", time=True)
    x, y, th = S.q
    Om = sp.Symbol("Omega", positive=True)
    st_ = ConstrainedSetting(S, [y], [[sp.tan(th), 0]], [Om * (x + y * sp.tan(th))])
    for k in (0, 1):
        T = st_.transposition(k)
        dsyms = list(T.d_symbols.values())
        xsyms = list(T.delta_symbols.values())
        swap = {**dict(zip(dsyms, xsyms)), **dict(zip(xsyms, dsyms))}
        for e in T.coordinates(delta_t=True, on_motion=True):
            assert is_zero(e.xreplace(swap) + e)
        assert T.W[S.index(S.t)] == 0


@settings(deadline=None)
@given(holonomic_settings(max_n=4), st.data())
def test_holonomic_constraints_have_vanishing_B(setting, data):
    assert setting.is_holonomic()
    k = data.draw(st.integers(0, setting.n - setting.m))
    T = setting.transposition(k)
    assert all_equal(sp.flatten(T.B))
    assert all_equal(T.coordinates(on_motion=True))


# -- worked examples --------------------------------------------------------------------------
def test_rigid_body_beta_is_epsilon():
    model = catalog.rigid_body()
    setting = ConstrainedSetting.from_frame(model.frame, 3)
    T = setting.transposition(0)
    eps = sp.Array([[[sp.LeviCivita(i, s, m) for m in range(3)] for s in range(3)] for i in range(3)])
    assert arrays_equal(T.beta, eps)
    assert arrays_equal(T.gamma, [[[sp.LeviCivita(nu, mu, lam) for mu in range(3)] for lam in range(3)]
                                  for nu in range(3)])
    d1, d2, d3 = T.dpi
    x1, x2, x3 = T.deltapi
    q = T.quasi()
    assert is_zero(q[2] - (x1 * d2 - x2 * d1))       # β_123 δπ1 dπ2 + β_213 δπ2 dπ1
    assert is_zero(q[0] - (x2 * d3 - x3 * d2))
    assert all(is_zero(c) for c in T.coordinates())
    with pytest.raises(DimensionError):
        setting.transposition(1)


def test_rolling_disk_k_family():
    model = catalog.rolling_disk()
    S = model.space
    x, y, th, ph = S.q
    R = sp.Symbol("R", positive=True)
    setting = ConstrainedSetting.from_frame(model.frame, 2, dependent=[x, y])
    assert setting.dependent == (x, y)
    T0 = setting.transposition(0)
    # dδx − δdx = B^x_rs dq_r δq_s with B^x_{θφ} = −R sin θ
    bx = T0.coordinate(x, on_motion=True)
    dth, dph = T0.d_symbols[th], T0.d_symbols[ph]
    xth, xph = T0.delta_symbols[th], T0.delta_symbols[ph]
    assert is_zero(bx - (-R * sp.sin(th)) * (dth * xph - dph * xth))
    by = T0.coordinate(y, on_motion=True)
    assert is_zero(by - (R * sp.cos(th)) * (dth * xph - dph * xth))
    T2 = setting.transposition(2)
    assert all(is_zero(c) for c in T2.coordinates())


def test_sleigh_from_equations_matches_catalog_frame():
    S = ConfigurationSpace("x y theta")
    x, y, th = S.q
    xd, yd, thd = S.qd
    s1 = ConstrainedSetting.from_equations(S, [sp.sin(th) * xd - sp.cos(th) * yd], dependent=[y])
    s2 = ConstrainedSetting.from_frame(catalog.unicycle().frame, 2, dependent=[y])
    assert is_zero(s1.a[0, 0] - sp.tan(th)) and is_zero(s1.a[0, 1])
    assert arrays_equal(s1.a, s2.a)
    s3 = ConstrainedSetting.from_equations(S, [sp.sin(th) * xd - sp.cos(th) * yd])
    assert s3.dependent == (th,) or s3.dependent == (y,)  # auto: last admissible coordinate
    T = s1.transposition(0)
    # B^y_{x θ} = −sec²θ
    assert is_zero(T.B[0, 0, 1] + 1 / sp.cos(th) ** 2)


def test_ball_on_rotating_table_affine_terms_visible():
    S = ConfigurationSpace("x y psi theta phi", time=True)
    x, y, ps, th, ph = S.q
    xd, yd, psd, thd, phd = S.qd
    r, Om = sp.symbols("r Omega", positive=True)
    wx = thd * sp.cos(ps) + phd * sp.sin(th) * sp.sin(ps)
    wy = thd * sp.sin(ps) - phd * sp.sin(th) * sp.cos(ps)
    eqs = [sp.Eq(xd, r * wy - Om * y), sp.Eq(yd, -r * wx + Om * x)]
    setting = ConstrainedSetting.from_equations(S, eqs, dependent=[x, y])
    assert not setting.is_holonomic()
    T = setting.transposition(0)
    dt = T.dt
    # B^σ_{t s} = −D_s a_σ: B^x_{ts} = Ω a_ys, B^y_{ts} = −Ω a_xs
    it = T.B.shape[1] - 1
    for s in range(3):
        assert is_zero(T.B[0, it, s] - Om * setting.a[1, s])
        assert is_zero(T.B[1, it, s] + Om * setting.a[0, s])
    rel_x = T.coordinate(x, on_motion=True)
    assert rel_x.has(Om) and rel_x.has(dt)
    # the dt δq terms are exactly the affine contribution
    affine_part = sp.diff(rel_x, dt) * dt
    assert not is_zero(affine_part)
    assert is_zero(affine_part.subs(Om, 0))
    a, qf, qd = nf_augmented_B_input(T)
    assert arrays_equal(printed_nf_B(a, qf, qd, 0), T.B)
    # k = 1 (ρ = x, σ = y): δx = a_xs δq_s on the motion, no δt may come back with a_x
    T1 = setting.transposition(1)
    rel_y = T1.coordinate(y, on_motion=True)
    assert not rel_y.has(T1.delta_t) and rel_y.has(T1.dt)
    assert all_equal([rel_y], [B_sum(T1, 0)])
    assert not any(e.has(T1.delta_t) for e in T1.quasi())
    # Hamel's point of view: the affine terms go into the π relations instead
    T2 = setting.transposition(2)
    assert all(is_zero(c) for c in T2.coordinates())
    g = T2.gamma
    assert any(not is_zero(g[nu, lam, T2.p - 1]) and g[nu, lam, T2.p - 1].has(Om)
               for nu in range(T2.p) for lam in range(T2.p))


def test_nf_15_incomplete_when_a_depends_on_q_sigma():
    """ż = x ẏ, π̇1 = ẋ, π̇2 = ẏ + z ẋ, k = 0:  dδπ2 − δdπ2 = x (dπ2 δπ1 − dπ1 δπ2), but the
    printed (1.5) gives 0 because it misses the a_σβ ∂/∂q_σ terms."""
    S = ConfigurationSpace("x y z")
    x, y, z = S.q
    xd, yd, zd = S.qd
    setting = ConstrainedSetting.from_equations(S, [sp.Eq(zd, x * yd)], dependent=[z])
    T = setting.transposition(0, quasi=[xd, yd + z * xd])
    d1, d2 = T.dpi
    x1, x2 = T.deltapi
    assert is_zero(T.quasi()[1] - x * (d2 * x1 - d1 * x2))
    printed = printed_nf_gamma(T.a, T.q_lambda)
    assert all(e == 0 for e in sp.flatten(printed))
    assert arrays_equal(T.gamma, [[[0, 0], [0, x]], [[0, 0], [-x, 0]]])
    assert arrays_equal(corrected_nf_gamma(T.a, T.q_lambda, T.a_sigma, T.q_sigma), T.gamma)


def test_fields_components():
    S = ConfigurationSpace("x y z")
    x, y, z = S.q
    xd, yd, zd = S.qd
    setting = ConstrainedSetting.from_equations(S, [sp.Eq(zd, x * yd)])
    f = setting.fields(0)
    dx, dy = f.d_symbols[x], f.d_symbols[y]
    ex, ey = f.delta_symbols[x], f.delta_symbols[y]
    assert f.d.components == (dx, dy, x * dy)
    assert f.delta.components == (ex, ey, x * ey)
    f1 = setting.fields(1)
    assert f1.d.components == (dx, dy, f1.d_symbols[z])


# -- bad input --------------------------------------------------------------------------------
def test_errors():
    S = ConfigurationSpace("x y z")
    x, y, z = S.q
    xd, yd, zd = S.qd
    setting = ConstrainedSetting.from_equations(S, [sp.Eq(zd, x * yd)])
    for k in (-1, 2):
        with pytest.raises(DimensionError, match="0 ≤ k ≤ n − m = 1"):
            setting.transposition(k)
    with pytest.raises(TypeError):
        setting.transposition(0.5)
    # constraint not solvable for the chosen dependent velocity
    with pytest.raises(SingularMapError, match="cannot be solved"):
        ConstrainedSetting.from_equations(S, [sp.Eq(zd, x * yd)], dependent=[x])
    with pytest.raises(RankError):
        ConstrainedSetting.from_equations(S, [sp.Eq(zd, x * yd)], dependent=[y, z])
    with pytest.raises(RankError):  # dependent equations
        ConstrainedSetting.from_equations(S, [zd - x * yd, 2 * zd - 2 * x * yd], dependent=[y, z])
    # singular quasi-velocity map
    with pytest.raises(SingularMapError, match="quasi-velocity"):
        setting.transposition(0, quasi=[xd + yd, 2 * xd + 2 * yd])
    with pytest.raises(SingularMapError):
        setting.transposition(0, quasi=sp.Matrix([[x, y], [x, y]]))
    with pytest.raises(NotLinearError):
        setting.transposition(0, quasi=[xd ** 2, yd])
    with pytest.raises(NotLinearError):  # affine constraint without time
        ConstrainedSetting.from_equations(S, [sp.Eq(zd, x * yd + 1)])
    with pytest.raises(DimensionError):
        ConstrainedSetting(S, [z], [[1, 2, 3]])
    with pytest.raises(NotLinearError):
        ConstrainedSetting(S, [z], [[xd, 1]])
    with pytest.raises(RankError):
        ConstrainedSetting(S, [x, y, z], sp.zeros(3, 0))
    for err in (DimensionError, SingularMapError, RankError, NotLinearError):
        assert issubclass(err, GeonhError) and issubclass(err, ValueError)


@settings(deadline=None, max_examples=5)
@given(constrained_settings(max_n=3, rheonomic=True))
def test_from_codistribution_roundtrip(setting):
    again = ConstrainedSetting.from_codistribution(setting.constraints, setting.dependent)
    assert arrays_equal(again.a, setting.a)
    assert arrays_equal(again.affine, setting.affine)
