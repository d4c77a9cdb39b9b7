"""Juschkov, *Ableitung der Gleichungen von Maggi für nichtholonome Systeme aus dem zweiten
Newtonschen Gesetz* (seed 003), §§ 1–3: eqs. (1)–(19) — Newton's law for a constrained point,
Poljachov's vector ∇'φ and Chetaev's reaction N = Λ∇'φ, Hertz's representation space (one point
of mass M in 3n dimensions), holonomic constraints in adapted coordinates and Lagrange's
equations with the reactions (18), (19).  Eqs. (20)–(38) are in :mod:`.juschkov_maggi`.

Each check types in the printed formula literally and compares it with what geonh computes
(:class:`~geonh.systems.NonlinearSystem`, :class:`~geonh.systems.hertz.HertzSpace`,
:func:`~geonh.equations.hertz`, :func:`~geonh.equations.nonlinear.chetaev_lagrange`), see
:mod:`geonh.sources.ledger`.

The representation space.  A vector of the representation space is handled by geonh through its
covariant components c_σ = c·e_σ in the coordinates q (e_σ = ∂y/∂q^σ); its components along the
orthonormal axes j_μ of (12) are c^(j)_μ = ∂y_μ/∂q^σ g^{στ} c_τ with geonh's metric
g = M_στ/M (:attr:`HertzSpace.metric`).  ``_axes`` does this conversion (a private helper).
"""
from __future__ import annotations

from functools import cache

import sympy as sp

from ..equations.hertz import hertz
from ..equations.nonlinear import chetaev_lagrange
from ..kernel.generic_point import lu_solve
from ..kernel.space import ConfigurationSpace
from ..systems.hertz import HertzSpace
from ..systems.nonlinear import NonlinearSystem
from .ledger import Finding, compare, definition, formula, solve_linear
from ..kernel.parsing import sympy_of

_SRC = "juschkov"


# ----------------------------------------------------------------------------------------------
# helpers (private)
# ----------------------------------------------------------------------------------------------
def _dt(S: ConfigurationSpace, e) -> sp.Expr:
    """d/dt of an expression in (t, q, q̇), typed out by the chain rule (for the printed sides)."""
    e = sympy_of(e)
    out = sp.diff(e, S.t) if S.t is not None else sp.S.Zero
    out += sum((sp.diff(e, q) * v for q, v in zip(S.q, S.qd)), sp.S.Zero)
    out += sum((sp.diff(e, v) * a for v, a in zip(S.qd, S.qdd)), sp.S.Zero)
    return out


def _dot(a, b) -> sp.Expr:
    return sum((x * y for x, y in zip(a, b)), sp.S.Zero)


def _chetaev(s: NonlinearSystem) -> dict:
    """{q̈, λ}: Lagrange's equations with Chetaev multipliers solved symbolically (geonh)."""
    eq = chetaev_lagrange(s)
    x = lu_solve(eq.mass_matrix, eq.forcing, what="Chetaev–Lagrange matrix")
    return dict(zip(eq.unknowns, list(x)))


def _axes(hs: HertzSpace, cov, jac: sp.Matrix) -> list:
    """Components along the axes j_μ of a vector given by geonh's covariant components
    (module docstring): ∂y_μ/∂q^σ g^{στ} c_τ, g⁻¹ = M · M_στ⁻¹ from the Hertz space."""
    con = hs.mass_inverse * hs.M * sp.Matrix(list(cov))
    return list(jac * con)


# ----------------------------------------------------------------------------------------------
# § 1: one particle, one nonlinear constraint (1)–(5), holonomic (6), two constraints (7)
# ----------------------------------------------------------------------------------------------
@cache
def _particle():
    """A particle (mass m, Cartesian x, y, z, with time) under F = (y, −x, −1) and the nonlinear
    rheonomic constraint φ = ż − c t x ẋ − ẏ² (the example of tests/systems/test_hertz.py)."""
    S = ConfigurationSpace("x y z", time=True)
    x, y, z = S.q
    xd, yd, zd = S.qd
    m, c = sp.symbols("m c", positive=True)
    F = [y, -x, sp.Integer(-1)]
    phi = zd - c * S.t * x * xd - yd ** 2
    s = NonlinearSystem(S, m * (xd ** 2 + yd ** 2 + zd ** 2) / 2, forces=F, constraints=[phi])
    return S, s, m, F, phi


_P1 = "particle, φ = ż − c t x ẋ − ẏ² = 0, F = (y, −x, −1)"


@formula(_SRC, "(1)", topic="nonholonomic constraint of a point",
         printed="φ(t, x, ẋ) = 0",
         computed="NonlinearSystem(constraints=[φ]).phi = (φ,), a function of (t, x, ẋ), nonlinear in ẋ",
         api="systems.NonlinearSystem.phi", expected="agrees")
def _j1() -> Finding:
    S, s, m, F, phi = _particle()
    printed = {"φ": phi, "nonlinear in ẋ (1 = yes)": sp.Integer(1)}
    computed = {"φ": s.phi[0], "nonlinear in ẋ (1 = yes)": sp.Integer(0 if s.is_linear else 1)}
    return definition(printed, computed, _P1)


@formula(_SRC, "(2)", topic="Newton's law of the constrained point",
         printed="m w = F + R",
         computed="hertz(system, 'coulomb', k): residual_k = m ẍ_k − X_k − R_k with R = N + T0 (eq.reactions)",
         api="equations.hertz", expected="agrees")
def _j2() -> Finding:
    S, s, m, F, phi = _particle()
    k = sp.Symbol("k", positive=True)
    eq = hertz(s, "coulomb", k)
    R = eq.reactions
    printed = {f"(m w − F − R)_{i + 1}": m * S.qdd[i] - F[i] - R[i] for i in range(3)}
    computed = {f"(m w − F − R)_{i + 1}": eq.residuals[i] for i in range(3)}
    return definition(printed, computed, _P1 + ", Coulomb friction k")


@formula(_SRC, "(3)", topic="differentiated constraint φ̇ = 0",
         printed="φ̇ = ∂φ/∂t + ∂φ/∂x_k ẋ_k + ∂φ/∂ẋ_k ẍ_k = 0",
         computed="the constraint row d/dt φ = 0 of chetaev_lagrange (geonh's total derivative)",
         api="equations.chetaev_lagrange", expected="agrees")
def _j3() -> Finding:
    S, s, m, F, phi = _particle()
    printed = (sp.diff(phi, S.t) + sum(sp.diff(phi, q) * v for q, v in zip(S.q, S.qd))
               + sum(sp.diff(phi, v) * a for v, a in zip(S.qd, S.qdd)))
    computed = chetaev_lagrange(s).residuals[-1]
    return compare(printed, computed, _P1)


@formula(_SRC, "(4)", topic="φ̇ = 0 with Poljachov's vector ∇'φ",
         printed="∂φ/∂t + ∇φ·v + ∇'φ·w = 0, ∇φ = (∂φ/∂x_k) i_k, ∇'φ = (∂φ/∂ẋ_k) i_k",
         computed="the constraint row of chetaev_lagrange; ∇'φ = the Chetaev row ∂φ/∂ẋ (NonlinearSystem.virtual_matrix)",
         api="equations.chetaev_lagrange, NonlinearSystem.virtual_matrix", expected="agrees")
def _j4() -> Finding:
    S, s, m, F, phi = _particle()
    grad = [sp.diff(phi, q) for q in S.q]
    gradp = [sp.diff(phi, v) for v in S.qd]
    v, w = list(S.qd), list(S.qdd)
    printed = {"φ̇": sp.diff(phi, S.t) + _dot(grad, v) + _dot(gradp, w)}
    computed = {"φ̇": chetaev_lagrange(s).residuals[-1]}
    for i in range(3):
        printed[f"∇'φ_{i + 1}"] = gradp[i]
        computed[f"∇'φ_{i + 1}"] = s.virtual_matrix[0, i]
    return compare(printed, computed, _P1)


@formula(_SRC, "(5)", topic="reaction of one nonholonomic constraint: N = Λ∇'φ",
         printed="R = N + T0, N = Λ∇'φ, T0 ⊥ N, Λ = −(m ∂φ/∂t + m ∇φ·v + F·∇'φ)/|∇'φ|²",
         computed="Λ = HertzSpace.multipliers() (K-projection of (2)) = Chetaev's λ of chetaev_lagrange; "
                  "T0 of HertzSpace.reactions('coulomb') is ⊥ N",
         api="HertzSpace.multipliers, HertzSpace.reactions, equations.chetaev_lagrange", expected="agrees")
def _j5() -> Finding:
    S, s, m, F, phi = _particle()
    grad = [sp.diff(phi, q) for q in S.q]
    gradp = [sp.diff(phi, v) for v in S.qd]
    Lam = -(m * sp.diff(phi, S.t) + m * _dot(grad, S.qd) + _dot(F, gradp)) / _dot(gradp, gradp)
    hs = HertzSpace(s)
    k = sp.Symbol("k", positive=True)
    N, T0 = hs.reactions("coulomb", k)
    lam = _chetaev(s)[chetaev_lagrange(s).lam_vec[0]]
    printed = {"Λ (Hertz)": Lam, "Λ (Chetaev λ)": Lam, "T0·N": sp.S.Zero}
    computed = {"Λ (Hertz)": hs.multipliers()[0], "Λ (Chetaev λ)": lam, "T0·N": hs.dot(T0, N)}
    return compare(printed, computed, _P1 + ", Coulomb friction k for T0")


@formula(_SRC, "(6)", topic="holonomic constraint; φ ≡ ḟ and ∇'φ = ∇f",
         printed="f(t, x) = 0; φ ≡ ḟ = ∂f/∂t + ∂f/∂x_k ẋ_k, ∂φ/∂ẋ_k = ∂f/∂x_k",
         computed="NonlinearSystem(holonomic=[f]): .holonomic = (f,), .phi = (ḟ,) (geonh's total derivative), "
                  "Chetaev row ∂ḟ/∂ẋ",
         api="systems.NonlinearSystem(holonomic=…)", expected="agrees")
def _j6() -> Finding:
    S = ConfigurationSpace("x y z", time=True)
    x, y, z = S.q
    m, a, c = sp.symbols("m a c", positive=True)
    f = x ** 2 + y ** 2 + z ** 2 - (a + c * S.t) ** 2
    s = NonlinearSystem(S, m * sum(v ** 2 for v in S.qd) / 2, holonomic=[f])
    printed = {"f": f, "φ = ḟ": sp.diff(f, S.t) + sum(sp.diff(f, q) * v for q, v in zip(S.q, S.qd))}
    computed = {"f": s.holonomic[0], "φ = ḟ": s.phi[0]}
    for i in range(3):
        printed[f"∂φ/∂ẋ_{i + 1}"] = sp.diff(f, S.q[i])
        computed[f"∂φ/∂ẋ_{i + 1}"] = s.virtual_matrix[0, i]
    return definition(printed, computed, "particle on the pulsating sphere x² + y² + z² = (a + c t)²")


@cache
def _particle2():
    """The particle of :func:`_particle` under two constraints φ¹ = ż − c t x ẋ − ẏ², φ² = ẋ − y ż."""
    S, s1, m, F, phi = _particle()
    x, y, z = S.q
    xd, yd, zd = S.qd
    phi2 = xd - y * zd
    s = NonlinearSystem(S, s1.T, forces=F, constraints=[phi, phi2])
    return S, s, m, F, (phi, phi2)


@formula(_SRC, "(7)", topic="reaction of two nonholonomic constraints",
         printed="R = N + T0, N = Λ_κ ∇'φ^κ (κ = 1, 2)",
         computed="N of HertzSpace.reactions (K-projection of (2)) with Λ_κ = Chetaev's λ_κ (chetaev_lagrange); "
                  "Coulomb T0 ⊥ ∇'φ^κ; R = eq.reactions of hertz(…, 'coulomb') = N + T0",
         api="HertzSpace.reactions, equations.chetaev_lagrange, equations.hertz", expected="agrees")
def _j7() -> Finding:
    S, s, m, F, phis = _particle2()
    hs = HertzSpace(s)
    k = sp.Symbol("k", positive=True)
    N, T0 = hs.reactions("coulomb", k)
    sol = _chetaev(s)
    lam = [sol[v] for v in chetaev_lagrange(s).lam_vec]
    grads = [[sp.diff(p, v) for v in S.qd] for p in phis]
    R = hertz(hs, "coulomb", k).reactions
    printed, computed = {}, {}
    for i in range(3):
        printed[f"N_{i + 1}"] = lam[0] * grads[0][i] + lam[1] * grads[1][i]
        computed[f"N_{i + 1}"] = N[i]
        printed[f"R_{i + 1} − N_{i + 1} − T0_{i + 1}"] = sp.S.Zero
        computed[f"R_{i + 1} − N_{i + 1} − T0_{i + 1}"] = R[i] - N[i] - T0[i]
    for kk in range(2):
        printed[f"T0·∇'φ^{kk + 1}"] = sp.S.Zero
        computed[f"T0·∇'φ^{kk + 1}"] = hs.dot(T0, grads[kk])
    return compare(printed, computed, "particle, φ¹ = ż − c t x ẋ − ẏ², φ² = ẋ − y ż, F = (y, −x, −1), "
                   "Coulomb friction k")


# ----------------------------------------------------------------------------------------------
# § 2: n particles and the representing point (8)–(14)
# ----------------------------------------------------------------------------------------------
@cache
def _pair(nonlinear: bool = False, rod: bool = True):
    """Two particles (masses m1, m2, Cartesian x1 … z2, with time) under the forces
    X = (−κ x1, 0, −m1 g, 0, 0, −m2 g); ``rod``: joined by a rod of length a + c t (holonomic
    f = |r1 − r2|² − (a + c t)²); ``nonlinear``: the constraint φ = ż1 − b (ẋ2² + ẏ2²)."""
    S = ConfigurationSpace("x1 y1 z1 x2 y2 z2", time=True)
    x1, y1, z1, x2, y2, z2 = S.q
    m1, m2, g, kap, a, c, b = sp.symbols("m1 m2 g kappa a c b", positive=True)
    X = [-kap * x1, sp.S.Zero, -m1 * g, sp.S.Zero, sp.S.Zero, -m2 * g]
    masses = [m1, m1, m1, m2, m2, m2]
    T = sum(mm * v ** 2 for mm, v in zip(masses, S.qd)) / 2
    f = (x1 - x2) ** 2 + (y1 - y2) ** 2 + (z1 - z2) ** 2 - (a + c * S.t) ** 2
    phi = S.qd[2] - b * (S.qd[3] ** 2 + S.qd[4] ** 2)
    s = NonlinearSystem(S, T, forces=X, constraints=[phi] if nonlinear else [], holonomic=[f] if rod else [])
    return S, s, (m1, m2), X, f, (phi if nonlinear else None)


_P3 = "two particles m1, m2 on a rod |r1 − r2| = a + c t, X = (−κ x1, 0, −m1 g, 0, 0, −m2 g)"
_P3N = _P3 + ", and φ = ż1 − b (ẋ2² + ẏ2²) = 0"


def _hertz_map(S, m1, m2):
    """Printed (10): M, m̃_μ and y_μ = √m̃_μ x_μ with its Jacobian ∂y_μ/∂x_σ (diagonal)."""
    M = m1 + m2
    mt = [m1 / M] * 3 + [m2 / M] * 3
    y = [sp.sqrt(w) * q for w, q in zip(mt, S.q)]
    jac = sp.Matrix(6, 6, lambda i, j: sp.diff(y[i], S.q[j]))
    return M, mt, y, jac


@formula(_SRC, "(8)", topic="Newton's law for n particles",
         printed="m_ν r̈_ν = F_ν + R_ν, ν = 1 … n",
         computed="chetaev_lagrange(system): residual = d/dt ∂T/∂ẋ − ∂T/∂x − X − R with R = eq.reactions "
                  "(Chetaev reaction λ ∂φ/∂ẋ)",
         api="equations.chetaev_lagrange", expected="agrees")
def _j8() -> Finding:
    S, s, (m1, m2), X, f, _ = _pair()
    eq = chetaev_lagrange(s)
    R = eq.reactions
    printed, computed = {}, {}
    for nu, mnu in enumerate((m1, m2)):
        r_dd = sp.Matrix(S.qdd[3 * nu:3 * nu + 3])
        F = sp.Matrix(X[3 * nu:3 * nu + 3])
        Rn = sp.Matrix(R[3 * nu:3 * nu + 3])
        vec = mnu * r_dd - F - Rn
        for j in range(3):
            printed[f"(m_{nu + 1} r̈_{nu + 1} − F_{nu + 1} − R_{nu + 1})_{j + 1}"] = vec[j]
            computed[f"(m_{nu + 1} r̈_{nu + 1} − F_{nu + 1} − R_{nu + 1})_{j + 1}"] = eq.residuals[3 * nu + j]
    return definition(printed, computed, _P3)


@formula(_SRC, "(9)", topic="scalar form with continuous numbering",
         printed="m_μ ẍ_μ = X_μ + R_μ, μ = 1 … 3n; x_μ, μ = 3(ν − 1) + j; m_μ = m_ν for μ = 3ν − 2, 3ν − 1, 3ν",
         computed="chetaev_lagrange residuals over the coordinates x1 … z2; mass matrix ∂²T/∂ẋ_μ∂ẋ_μ",
         api="equations.chetaev_lagrange, NonlinearSystem.mass_matrix", expected="agrees")
def _j9() -> Finding:
    S, s, masses, X, f, _ = _pair()
    eq = chetaev_lagrange(s)
    R = eq.reactions
    printed, computed = {}, {}
    for nu in (1, 2):
        for mu in (3 * nu - 2, 3 * nu - 1, 3 * nu):
            j = mu - 3 * (nu - 1)
            i = mu - 1
            m_mu = masses[nu - 1]
            printed[f"m_{mu}"] = m_mu
            computed[f"m_{mu}"] = s.mass_matrix[i, i]
            printed[f"m_{mu} ẍ_{mu} − X_{mu} − R_{mu} (ν={nu}, j={j})"] = m_mu * S.qdd[i] - X[i] - R[i]
            computed[f"m_{mu} ẍ_{mu} − X_{mu} − R_{mu} (ν={nu}, j={j})"] = eq.residuals[i]
    return definition(printed, computed, _P3)


@formula(_SRC, "(10)", topic="total mass and the coordinates of the representing point",
         printed="M = Σ_ν m_ν = ⅓ Σ_μ m_μ, m̃_μ = m_μ/M; y_μ = √m̃_μ x_μ, Y_μ = X_μ/√m̃_μ, R'_μ = R_μ/√m̃_μ",
         computed="HertzSpace: M (⅓ trace of a constant diagonal mass matrix), metric g = M_στ/M = e_σ·e_τ, "
                  "Y·e_σ = Q_σ, R'·e_σ = R_σ (Chetaev reaction)",
         api="HertzSpace.M, HertzSpace.metric", expected="agrees")
def _j10() -> Finding:
    S, s, (m1, m2), X, f, _ = _pair()
    M, mt, y, jac = _hertz_map(S, m1, m2)
    masses = [m1] * 3 + [m2] * 3
    hs = HertzSpace(s)
    R = chetaev_lagrange(s).reactions
    Y = [Xm / sp.sqrt(w) for Xm, w in zip(X, mt)]
    Rp = [Rm / sp.sqrt(w) for Rm, w in zip(R, mt)]
    printed = {"M = Σ m_ν": M, "M = ⅓ Σ m_μ": sum(masses) / 3}
    computed = {"M = Σ m_ν": hs.M, "M = ⅓ Σ m_μ": hs.M}
    g_printed = jac.T * jac  # e_σ·e_τ with e_σ = ∂y/∂x_σ
    for i in range(6):
        printed[f"m̃_{i + 1} = g_{i + 1}{i + 1}"] = masses[i] / M
        computed[f"m̃_{i + 1} = g_{i + 1}{i + 1}"] = hs.metric[i, i]
        printed[f"e_{i + 1}·e_{i + 1}"] = g_printed[i, i]
        computed[f"e_{i + 1}·e_{i + 1}"] = hs.metric[i, i]
        printed[f"Y·e_{i + 1}"] = _dot(Y, jac[:, i])
        computed[f"Y·e_{i + 1}"] = s.Q[i]
        printed[f"R'·e_{i + 1}"] = _dot(Rp, jac[:, i])
        computed[f"R'·e_{i + 1}"] = R[i]
    return definition(printed, computed, _P3)


@formula(_SRC, "(11)", topic="equations of the representing point, components",
         printed="M ÿ_μ = Y_μ + R'_μ, μ = 1 … 3n (with y, Y, R' of (10))",
         computed="the Chetaev–Lagrange residuals (covariant, x-coordinates) on the axes j_μ: "
                  "∂y_μ/∂x_σ g^{στ} res_τ with geonh's metric g",
         api="equations.chetaev_lagrange, HertzSpace.mass_inverse", expected="agrees")
def _j11() -> Finding:
    S, s, (m1, m2), X, f, _ = _pair()
    M, mt, y, jac = _hertz_map(S, m1, m2)
    hs = HertzSpace(s)
    eq = chetaev_lagrange(s)
    R = eq.reactions
    ydd = [sp.sqrt(w) * a for w, a in zip(mt, S.qdd)]
    printed = {f"M ÿ_{i + 1} − Y_{i + 1} − R'_{i + 1}": M * ydd[i] - X[i] / sp.sqrt(mt[i]) - R[i] / sp.sqrt(mt[i])
               for i in range(6)}
    axes = _axes(hs, eq.residuals[:6], jac)
    computed = {f"M ÿ_{i + 1} − Y_{i + 1} − R'_{i + 1}": axes[i] for i in range(6)}
    return compare(printed, computed, _P3)


@formula(_SRC, "(12)", topic="Newton's law of the representing point",
         printed="M W = Y + R', W = ÿ_μ j_μ, Y = Y_μ j_μ, R' = R'_μ j_μ",
         computed="hertz(HertzSpace(system, M)): residual_σ = M W·e_σ − Y·e_σ − R'·e_σ with "
                  "M W·e_σ = d/dt ∂T/∂q̇^σ − ∂T/∂q^σ (HertzSpace.acceleration), Y·e_σ = Q_σ, R'·e_σ = N_σ",
         api="equations.hertz, HertzSpace.acceleration", expected="agrees")
def _j12() -> Finding:
    # particle 1 Cartesian, particle 2 cylindrical (r, θ, z2): e_σ = ∂y/∂q^σ is position-dependent
    S = ConfigurationSpace("x1 y1 z1 r th z2", time=True)
    x1, y1, z1, r, th, z2 = S.q
    m1, m2, g, kap, a, c = sp.symbols("m1 m2 g kappa a c", positive=True)
    cart = [x1, y1, z1, r * sp.cos(th), r * sp.sin(th), z2]  # x_μ(q)
    X1, Y1, Z1, X2, Y2, Z2 = xs = sp.symbols("X1:7", real=True)  # Cartesian coordinates, for X_μ
    Vc = kap * (X1 - X2) ** 2 / 2 + kap * Y2 ** 2 / 2 + g * (m1 * Z1 + m2 * Z2)
    back = dict(zip(xs, cart))
    Xf = [(-sp.diff(Vc, v)).xreplace(back) for v in xs]  # printed forces X_μ, at x(q)
    M = m1 + m2
    mt = [m1 / M] * 3 + [m2 / M] * 3
    y = [sp.sqrt(w) * e for w, e in zip(mt, cart)]
    # T and V in q, f = rod of length a + c t
    T = (m1 * (S.qd[0] ** 2 + S.qd[1] ** 2 + S.qd[2] ** 2)
         + m2 * (S.qd[3] ** 2 + r ** 2 * S.qd[4] ** 2 + S.qd[5] ** 2)) / 2
    f = sum(((u - v) ** 2 for u, v in zip(cart[:3], cart[3:])), sp.S.Zero) - (a + c * S.t) ** 2
    s = NonlinearSystem(S, T, V=Vc.xreplace(back), holonomic=[f])
    hs = HertzSpace(s, total_mass=M)
    eq = hertz(hs)
    N = eq.reactions
    W = [_dt(S, _dt(S, e)) for e in y]  # ÿ_μ, twice the total derivative of y_μ(q)
    Yv = [Xm / sp.sqrt(w) for Xm, w in zip(Xf, mt)]
    printed, computed = {}, {}
    for sg in range(6):
        e_s = [sp.diff(e, S.q[sg]) for e in y]
        printed[f"(M W − Y − R')·e_{sg + 1}"] = M * _dot(W, e_s) - _dot(Yv, e_s) - N[sg]
        computed[f"(M W − Y − R')·e_{sg + 1}"] = eq.residuals[sg]
    return compare(printed, computed, "two particles, the second in cylindrical coordinates (r, θ, z2), rod "
                   "|r1 − r2| = a + c t, spring and gravity")


def _in_y(S, mt, expr):
    """Printed: an expression of (t, x, ẋ) written in the representing point's (t, y, ẏ), x = y/√m̃.
    Returns (expression in y, ẏ; the y and ẏ symbols; the substitution y = √m̃ x, ẏ = √m̃ ẋ back)."""
    ys = sp.symbols("y_1:7", real=True)
    yds = sp.symbols("ydot_1:7", real=True)
    to_y = {q: yy / sp.sqrt(w) for q, yy, w in zip(S.q, ys, mt)}
    to_y.update({v: yy / sp.sqrt(w) for v, yy, w in zip(S.qd, yds, mt)})
    back = {yy: sp.sqrt(w) * q for yy, q, w in zip(ys, S.q, mt)}
    back.update({yy: sp.sqrt(w) * v for yy, v, w in zip(yds, S.qd, mt)})
    return sympy_of(expr).xreplace(to_y), ys, yds, back


@formula(_SRC, "(13)", topic="constraints of the representing point",
         printed="φ^κ(t, y, ẏ) = 0, κ = 1 … k (Poljachov's ∇'φ^κ = ∂φ^κ/∂ẏ_μ j_μ)",
         computed="the system's constraints (NonlinearSystem.phi; a holonomic f through ḟ) and their Chetaev rows "
                  "HertzSpace.dual_basis() (covariant), on the axes j_μ",
         api="NonlinearSystem.phi, HertzSpace.dual_basis", expected="agrees")
def _j13() -> Finding:
    S, s, (m1, m2), X, f, phi = _pair(True)
    M, mt, y, jac = _hertz_map(S, m1, m2)
    hs = HertzSpace(s)
    fdot = sp.diff(f, S.t) + sum(sp.diff(f, q) * v for q, v in zip(S.q, S.qd))
    printed, computed = {}, {}
    for kk, (ph, label) in enumerate(((phi, "φ^1"), (fdot, "φ^2 = ḟ"))):
        ph_y, ys, yds, back = _in_y(S, mt, ph)
        printed[f"{label}(t, y, ẏ)"] = ph_y.xreplace(back)
        computed[f"{label}(t, y, ẏ)"] = s.phi[kk]
        grad_cov = hs.dual_basis()[hs.l + kk, :]
        axes = _axes(hs, list(grad_cov), jac)
        for mu in range(6):
            printed[f"∇'{label}_{mu + 1}"] = sp.diff(ph_y, yds[mu]).xreplace(back)
            computed[f"∇'{label}_{mu + 1}"] = axes[mu]
    return definition(printed, computed, _P3N)


@formula(_SRC, "(14)", topic="reaction at the representing point",
         printed="R' = N + T0, N = Λ_κ ∇'φ^κ, T0 ⊥ N",
         computed="HertzSpace.reactions('coulomb', k): N (K-projection of (12)) on the axes j_μ, with Λ_κ = "
                  "Chetaev's λ_κ (chetaev_lagrange); T0 ∝ v_L, so T0·N = 0",
         api="HertzSpace.reactions, equations.chetaev_lagrange", expected="agrees")
def _j14() -> Finding:
    S, s, (m1, m2), X, f, phi = _pair(True, False)
    M, mt, y, jac = _hertz_map(S, m1, m2)
    hs = HertzSpace(s)
    k = sp.Symbol("k", positive=True)
    N, T0 = hs.reactions("coulomb", k)
    sol = _chetaev(s)
    lam = [sol[v] for v in chetaev_lagrange(s).lam_vec]
    ph_y, ys, yds, back = _in_y(S, mt, phi)
    grad = [sp.diff(ph_y, w).xreplace(back) for w in yds]
    Naxes = _axes(hs, N, jac)
    printed = {f"N_{mu + 1}": lam[0] * grad[mu] for mu in range(6)}
    computed = {f"N_{mu + 1}": Naxes[mu] for mu in range(6)}
    printed["T0·N"] = sp.S.Zero
    computed["T0·N"] = hs.dot(T0, N)
    return compare(printed, computed, "two particles m1, m2, X = (−κ x1, 0, −m1 g, 0, 0, −m2 g), "
                   "φ = ż1 − b (ẋ2² + ẏ2²) = 0, Coulomb friction k")


# ----------------------------------------------------------------------------------------------
# § 3: holonomic constraints (15), (16); adapted coordinates (17); Lagrange's equations (18), (19)
# ----------------------------------------------------------------------------------------------
@formula(_SRC, "(15)", topic="holonomic constraints of the representing point",
         printed="f^κ(t, y) = 0, κ = 1 … k",
         computed="NonlinearSystem(holonomic=[f]): .holonomic, .phi = ḟ, Chetaev row of ḟ (HertzSpace.dual_basis) "
                  "on the axes j_μ = ∇f",
         api="systems.NonlinearSystem(holonomic=…), HertzSpace.dual_basis", expected="agrees")
def _j15() -> Finding:
    S, s, (m1, m2), X, f, _ = _pair()
    M, mt, y, jac = _hertz_map(S, m1, m2)
    hs = HertzSpace(s)
    f_y, ys, yds, back = _in_y(S, mt, f)
    printed = {"f(t, y)": f_y.xreplace(back),
               "ḟ": (sp.diff(f_y, S.t) + sum(sp.diff(f_y, w) * v for w, v in zip(ys, yds))).xreplace(back)}
    computed = {"f(t, y)": s.holonomic[0], "ḟ": s.phi[0]}
    axes = _axes(hs, list(hs.dual_basis()[hs.l, :]), jac)
    for mu in range(6):
        printed[f"∇f_{mu + 1}"] = sp.diff(f_y, ys[mu]).xreplace(back)
        computed[f"∇f_{mu + 1}"] = axes[mu]
    return definition(printed, computed, _P3)


@formula(_SRC, "(16)", topic="ideal holonomic constraints: M W = Y + Λ∇f",
         printed="M W = Y + Λ_κ ∇f^κ",
         computed="hertz(system) (M W = Y + N, N = Λ∇'ḟ) on the axes j_μ; Λ = Chetaev's λ (chetaev_lagrange) "
                  "= HertzSpace.multipliers()",
         api="equations.hertz, HertzSpace.multipliers, equations.chetaev_lagrange", expected="agrees")
def _j16() -> Finding:
    S, s, (m1, m2), X, f, _ = _pair()
    M, mt, y, jac = _hertz_map(S, m1, m2)
    hs = HertzSpace(s)
    eq = hertz(hs)
    sol = _chetaev(s)
    lam = sol[chetaev_lagrange(s).lam_vec[0]]
    f_y, ys, yds, back = _in_y(S, mt, f)
    axes = _axes(hs, eq.residuals, jac)
    printed = {"Λ": lam}
    computed = {"Λ": hs.multipliers()[0]}
    for mu in range(6):
        lab = f"M W_{mu + 1} − Y_{mu + 1} − Λ ∇f_{mu + 1}"
        printed[lab] = (M * sp.sqrt(mt[mu]) * S.qdd[mu] - X[mu] / sp.sqrt(mt[mu])
                        - lam * sp.diff(f_y, ys[mu]).xreplace(back))
        computed[lab] = axes[mu]
    return compare(printed, computed, _P3)


@cache
def _adapted():
    """A particle (mass m, gravity −m g along z) on the moving curved surface
    f = z − s x − κ x²/2 − b t = 0, in Cartesian coordinates and in the adapted (non-orthogonal)
    coordinates q = (u, w, ρ) of (17): x = u, y = w, z = ρ + s u + κ u²/2 + b t, so ρ = f.
    One particle: M = m, m̃ = 1, y_μ = x_μ."""
    Sx = ConfigurationSpace("x y z", time=True)
    Sq = ConfigurationSpace("u w rho", time=True)
    m, g, s_, kap, b = sp.symbols("m g s kappa b", positive=True)
    x, y, z = Sx.q
    u, w, rho = Sq.q
    t = Sq.t
    f = z - s_ * x - kap * x ** 2 / 2 - b * Sx.t
    xq = [u, w, rho + s_ * u + kap * u ** 2 / 2 + b * t]  # y_μ(t, q)
    sx = NonlinearSystem(Sx, m * sum(v ** 2 for v in Sx.qd) / 2, V=m * g * z, holonomic=[f])
    to_q = {x: xq[0], y: xq[1], z: xq[2], Sx.t: t}
    vq = [_dt(Sq, e) for e in xq]  # ẋ_μ(t, q, q̇)
    Tq = m * sum(v ** 2 for v in vq) / 2
    fq = f.xreplace(to_q)
    sq = NonlinearSystem(Sq, Tq, V=(m * g * z).xreplace(to_q), holonomic=[fq])
    to_q.update(dict(zip(Sx.qd, vq)))
    X = [sp.S.Zero, sp.S.Zero, -m * g]  # printed Cartesian force (= Y, m̃ = 1)
    return Sx, Sq, sx, sq, xq, f, to_q, X, m


_P5 = ("particle on the moving surface z = s x + κ x²/2 + b t under gravity, adapted coordinates "
       "x = u, y = w, z = ρ + s u + κ u²/2 + b t (ρ = f, e_u·e_ρ = s + κ u ≠ 0)")


@formula(_SRC, "(17)", topic="adapted coordinates q^{l+κ} = f^κ",
         printed="q^{l+κ} = f^κ(t, y); ∇f^κ·e_σ = ∂f^κ/∂y_μ ∂y_μ/∂q^σ = δ^{l+κ}_σ (so e^{l+κ} = ∇f^κ)",
         computed="HertzSpace of the system in q with holonomic f(t, y(t, q)): the Chetaev row ∂ḟ/∂q̇^σ "
                  "(dual_basis, = ∇'ḟ·e_σ)",
         api="HertzSpace.dual_basis, systems.NonlinearSystem(holonomic=…)", expected="agrees")
def _j17() -> Finding:
    Sx, Sq, sx, sq, xq, f, to_q, X, m = _adapted()
    hs = HertzSpace(sq)
    row = hs.dual_basis()[hs.l, :]
    printed = {"q^3 − f(t, y(t, q))": Sq.q[2] - f.xreplace(to_q)}
    computed = {"q^3 − f(t, y(t, q))": sp.S.Zero}
    for sg in range(3):
        chain = sum(sp.diff(f, xx).xreplace(to_q) * sp.diff(xq[mu], Sq.q[sg]) for mu, xx in enumerate(Sx.q))
        printed[f"∇f·e_{sg + 1}"] = chain
        computed[f"∇f·e_{sg + 1}"] = row[sg]
        printed[f"δ^3_{sg + 1}"] = sp.Integer(1 if sg == 2 else 0)
        computed[f"δ^3_{sg + 1}"] = row[sg]
    return definition(printed, computed, _P5)


def _printed_lagrange(Sq, sq, xq, X, M):
    """Printed (18), (19): MW_σ ≡ d/dt ∂T/∂q̇^σ − ∂T/∂q^σ and Q_σ = Y·e_σ (Cartesian force along
    e_σ = ∂y/∂q^σ), typed out from T and y(t, q)."""
    T = sq.T
    Lg = [_dt(Sq, sp.diff(T, v)) - sp.diff(T, q) for q, v in zip(Sq.q, Sq.qd)]
    W = [_dt(Sq, _dt(Sq, e)) for e in xq]
    MW = [M * _dot(W, [sp.diff(e, q) for e in xq]) for q in Sq.q]
    Q = [_dot(X, [sp.diff(e, q) for e in xq]) for q in Sq.q]
    return Lg, MW, Q


@formula(_SRC, "(18)", topic="Lagrange's equations of the second kind (free coordinates)",
         printed="MW_λ ≡ d/dt ∂T/∂q̇^λ − ∂T/∂q^λ = Q_λ, λ = 1 … l",
         computed="hertz(HertzSpace(system in q)): components λ of M W − Y − N (N·e_λ = 0); "
                  "M W·e_λ = HertzSpace.acceleration",
         api="equations.hertz, HertzSpace.acceleration", expected="agrees")
def _j18() -> Finding:
    Sx, Sq, sx, sq, xq, f, to_q, X, m = _adapted()
    hs = HertzSpace(sq, total_mass=m)
    eq = hertz(hs)
    Lg, MW, Q = _printed_lagrange(Sq, sq, xq, X, m)
    acc = hs.acceleration()
    printed, computed = {}, {}
    for lam in range(hs.l):
        printed[f"MW_{lam + 1} (= M ÿ·e_{lam + 1})"] = MW[lam]
        computed[f"MW_{lam + 1} (= M ÿ·e_{lam + 1})"] = acc[lam]
        printed[f"d/dt ∂T/∂q̇^{lam + 1} − ∂T/∂q^{lam + 1} − Q_{lam + 1}"] = Lg[lam] - Q[lam]
        computed[f"d/dt ∂T/∂q̇^{lam + 1} − ∂T/∂q^{lam + 1} − Q_{lam + 1}"] = eq.residuals[lam]
    return compare(printed, computed, _P5)


@formula(_SRC, "(19)", topic="the reaction from the constrained coordinate's equation",
         printed="MW_{l+κ} ≡ d/dt ∂T/∂q̇^{l+κ} − ∂T/∂q^{l+κ} = Q_{l+κ} + Λ_κ, κ = 1 … k",
         computed="Λ of the Cartesian Hertz space (HertzSpace.multipliers, K-projection of M W = Y + Λ∇f) at "
                  "y(t, q), and Chetaev's λ of chetaev_lagrange in q, on q^{l+κ} = q̇^{l+κ} = 0",
         api="HertzSpace.multipliers, equations.chetaev_lagrange", expected="agrees")
def _j19() -> Finding:
    Sx, Sq, sx, sq, xq, f, to_q, X, m = _adapted()
    Lg, MW, Q = _printed_lagrange(Sq, sq, xq, X, m)
    rho, rhod, rhodd = Sq.q[2], Sq.qd[2], Sq.qdd[2]
    on = {rho: 0, rhod: 0, rhodd: 0}
    # q̈^λ from (18) on the constraint, then Λ from (19)
    free = solve_linear([(Lg[i] - Q[i]).xreplace(on) for i in range(2)], Sq.qdd[:2])
    Lam = (Lg[2] - Q[2]).xreplace(on).xreplace(free)
    lam_x = HertzSpace(sx).multipliers()[0].xreplace(to_q).xreplace(on)
    sol = _chetaev(sq)
    lam_q = sol[chetaev_lagrange(sq).lam_vec[0]].xreplace(on)
    printed = {"Λ (Cartesian Hertz space)": Lam, "Λ (Chetaev λ in q)": Lam}
    computed = {"Λ (Cartesian Hertz space)": lam_x, "Λ (Chetaev λ in q)": lam_q}
    return compare(printed, computed, _P5)
