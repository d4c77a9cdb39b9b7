"""The independent routes: forms that do not go through the central equation, on purpose.

Each one reaches the motion another way, so agreement with the frame forms is evidence, not a
tautology: Lagrange's equations with multipliers, Maggi's equations with reactions (Hamel's
raw form (8) is Maggi in the Voronets frame), Gibbs–Appell (Appell's S from Christoffel
symbols), Kane (partial velocities = frame fields) and Tzénoff's forms I and II.  They share
the engine's helpers (the frame set-up, Lagrange's split, the one time derivative) instead of
copying them.
"""
from __future__ import annotations

from typing import Sequence

import sympy as sp

from ..errors import DimensionError, ParseError
from ..kernel.algebra import algebra_for
from ..kernel.budget import check
from ..kernel.evaluation import symbols_in
from ..kernel.frames import Frame
from ..kernel.generic_point import all_zero
from ..kernel.progress import report
from ..kernel.parsing import as_exprs, as_matrix, as_symbols
from ..systems.mechanical import MechanicalSystem
from ..transposition.adapted import solve_constraints, voronets_frame
from .base import Equations, linear_parts, record_positive_definite
from .declaration import contract, framed, free_fields_gram_definite
from .engine import frame_split

__all__ = ["lagrange", "maggi", "hamel_raw", "gibbs_appell", "kane", "tzenoff", "multiplier_equations",
           "motion_substitution"]


def maggi(system: MechanicalSystem, frame: Frame | None = None, *, form: str = "maggi") -> Equations:
    """Maggi's equations (seed 003 eqs. (28), (30)) for linear constraints:

        Σ_i (L_i − Q_i) C^i_λ = 0   (free λ),     Λ_κ = Σ_i (L_i − Q_i) C^i_κ   (reactions),

    with L_i = d/dt ∂T/∂q̇^i − ∂T/∂q^i and C^i_a = ∂q̇^i/∂v^a from the frame.  The reactions
    are the multipliers of the frame's constraint forms: R_i = Λ_κ θ^κ_i.
    """
    fm = framed(system, frame)
    frame, m, u, ud, K, speeds = fm.frame, fm.m, fm.u, fm.ud, fm.kinematics, fm.speeds
    fs = frame_split(system, frame, K, u)
    n = system.space.n
    Mm = sp.Matrix([list(fs.rows[a]) for a in range(m)])
    Fm = sp.Matrix([-fs.rests[a] for a in range(m)])
    reac = [sp.Add(*[r * v for r, v in zip(fs.rows[a], ud) if r != 0], fs.rests[a]) for a in range(m, n)]
    # Mm[a][s] = C_a·M_T·∂K/∂u_s with K = C ω (framed): the Gram matrix of the free fields
    eqs = Equations(form, system, u, ud, K, speeds, frame=frame, reactions=reac, linear=(Mm, Fm))
    return record_positive_definite(eqs) if free_fields_gram_definite(frame, m) else eqs


def hamel_raw(system: MechanicalSystem, dependent: Sequence | None = None) -> Equations:
    """Hamel's raw form (Hamel 1924, eq. (8)): Q_i + a_{m,i} Q_{n+m} = K_i + a_{m,i} K_{n+m}
    — Maggi's equations in the Voronets frame."""
    return maggi(system, voronets_frame(system, dependent), form="hamel-raw")


def motion_substitution(system, K, u, ud) -> dict:
    """{q̇ → K, q̈ → d/dt K} for expressions in (t, q, q̇, q̈)."""
    S = system.space
    u, ud = as_symbols(u, what="speeds u"), as_symbols(ud, what="speed rates u̇")
    K = as_exprs(K, S.state_symbols + u, what="kinematics K")
    if len(K) != S.n:
        raise DimensionError(f"{S.n} kinematic expressions K needed, got {len(K)}")
    acc = [S.total_derivative(k, along=K, speeds=u, rates=ud) for k in K]
    sub = dict(zip(S.qdd, acc))
    sub.update(zip(S.qd, K))
    return sub


class _OnMotion:
    """One algebra's view of the motion q̇ = K(t, q, u), u̇ = the rates: :meth:`dt`, the time
    derivative of f(t, q, u), ∂_t f + K^i ∂_i f + u̇_s ∂f/∂u_s (as
    :meth:`~geonh.kernel.space.ConfigurationSpace.total_derivative` along K), ``on`` the
    substitution {q̇ → K, q̈ → d/dt K} (as :func:`motion_substitution`), and :meth:`linear`,
    M = ∂R/∂u̇ and F = −R|_{u̇=0} of residuals R linear in the rates, converted to sympy once."""

    def __init__(self, system: MechanicalSystem, K: Sequence, u: Sequence, ud: Sequence, inputs: Sequence = ()):
        S = system.space
        self.alg = alg = algebra_for(S.coords, [*K, *u, *ud, *S.qd, *S.qdd, *inputs])
        self.K = [alg.native(k) for k in K]
        self.u, self.ud = [alg.native(x) for x in u], [alg.native(x) for x in ud]
        self.qd, self.qdd = [alg.native(v) for v in S.qd], [alg.native(v) for v in S.qdd]
        self._xd = self.K + ([alg.one] if S.t is not None else [])
        self.on = dict(zip(self.qd, self.K))
        self.on.update(zip(self.qdd, [self.dt(k) for k in self.K]))

    def dt(self, f):
        """d/dt f(t, q, u) on the motion."""
        alg, fs, zero = self.alg, f.free_symbols, self.alg.zero   # free symbols once: sympy recounts them
        return alg.add([k * alg.diff(f, x) for x, k in zip(alg.coords, self._xd) if k != zero and x in fs]
                       + [r * alg.diff(f, x) for x, r in zip(self.u, self.ud) if x in fs])

    def linear(self, res: Sequence) -> tuple[sp.ImmutableMatrix, sp.ImmutableMatrix]:
        """(M, F) of the residuals ``res`` (natives), M x − F = res, x = the rates
        (:func:`~geonh.equations.base.linear_parts`)."""
        return linear_parts(self.alg, res, self.ud)


def gibbs_appell(system: MechanicalSystem, frame: Frame | None = None) -> Equations:
    """Gibbs–Appell: ∂S*/∂u̇_r = K_r, with Appell's acceleration energy S (from Christoffel
    symbols, :meth:`MechanicalSystem.acceleration_energy`) written in the quasi-accelerations,
    q̈ = d/dt(C ω) on the motion (Hamel 1924, § 2: dJ/dt − XE = K next to Appell's ∂W/∂q̈ = K).
    Computed in one algebra (symengine when it is the backend), M and F read off there."""
    fm = framed(system, frame)
    frame, m, u, ud, K, speeds = fm.frame, fm.m, fm.u, fm.ud, fm.kinematics, fm.speeds
    S = system.space
    Wacc = system.acceleration_energy()
    mo = _OnMotion(system, K, u, ud, [Wacc, *system.Q, *frame.C])
    alg = mo.alg
    Sacc = alg.subs(alg.native(Wacc), mo.on)
    Q_on = [Qi.xreplace(dict(zip(S.qd, K))) for Qi in system.Q]
    res = [alg.diff(Sacc, mo.ud[r]) - alg.native(contract(Q_on, frame, r)) for r in range(m)]
    return Equations("gibbs-appell", system, u, ud, K, speeds, frame=frame, linear=mo.linear(res))


def kane(system: MechanicalSystem, frame: Frame | None = None) -> Equations:
    """Kane's equations F_r + F*_r = 0 with partial velocities = the free frame fields X_r:
    F_r = X_r^i Q_i and F*_r = −X_r^k (M_kj q̈^j + Γ_{k,ab} ẋ^a ẋ^b), the generalized inertia
    force from the metric connection, q̈ = d/dt(C u) on the motion.

    Kane's vocabulary (sympy's names: :attr:`~geonh.equations.Equations.fr`,
    :attr:`~geonh.equations.Equations.frstar`, :attr:`~geonh.equations.Equations.auxiliary_eqs`):
    F_r and F*_r for the free fields r < m, and for each
    constraint field X_κ (κ ≥ m) the auxiliary equation F_κ + F*_κ on the motion — Kane's
    equation for an auxiliary speed along X_κ (Kane & Levinson 1985, §4.4 / sympy's
    ``u_auxiliary``).  The constraint force brings it to zero: F_κ + F*_κ = −R_κ with R_κ the
    reaction's component along X_κ (the multiplier of the frame's κ-th constraint form), and a
    non-contributing force given as a load with an unknown magnitude appears in it only: a
    symbol of the loads alone (in Q, not in T) on which a free F_r does not depend
    (∂F_r/∂s ≡ 0, decided once at the generic point, :func:`~geonh.kernel.generic_point.all_zero`)
    is set to 0 in the F_r, so it leaves the equations of motion and stays in the auxiliary
    equations (the same functions: F_r does not depend on it).

    Computed in one algebra (:func:`~geonh.kernel.algebra.algebra_for`: symengine when that is
    the backend) from small primitives (``_kane_parts``): no composite expression is
    differentiated, nothing is expanded or simplified."""
    fm = framed(system, frame)
    frame, m, u, ud, K, speeds = fm.frame, fm.m, fm.u, fm.ud, fm.kinematics, fm.speeds
    fr, frstar, aux, Mk, Fk = _kane_parts(system, frame, m, K, u, ud)
    details = {"fr": tuple(fr), "frstar": tuple(frstar), "auxiliary_eqs": tuple(aux)}
    return Equations("kane", system, u, ud, K, speeds, frame=frame, linear=(Mk, Fk), details=details)


def _kane_parts(system: MechanicalSystem, frame: Frame, m: int, K: Sequence[sp.Expr], u: Sequence[sp.Symbol],
                ud: Sequence[sp.Symbol]):
    """Kane's F_a = X_a^i Q_i and F*_a = −X_a^k (M_kj q̈^j + Γ_{k,bc} ẋ^b ẋ^c) along every frame
    field X_a, in one algebra, on the motion q̇ = K(t, q, u), ẋ = (K, 1):

        q̈ = ∂K/∂u u̇ + a0,   a0 = ∂_t K + ∂_q K · K,
        Γ_{k,bc} = ½(∂_b G_kc + ∂_c G_kb − ∂_k G_bc)   (first kind, of the extended metric G
                   on (q, t): T = ½ G_bc ẋ^b ẋ^c; the sum over b ≤ c taken once, doubled off
                   the diagonal),

    every derivative of an entry of (M, b, T0) or of a component of K (Kane & Levinson 1985,
    §4.11 with the inertia force from the connection; the route independent of Lagrange's
    split on purpose).  F*_a = −Σ_s rows[a][s] u̇_s − rests[a]; the free F_r lose the load
    symbols they do not depend on (``_generic_zeros``).  Returns, in sympy: (F_r, F*_r, the
    auxiliary F_κ + F*_κ, M, F) with F_r + F*_r = M u̇ − F, M = −rows, F = rests − F_r (read
    off, never a Jacobian of the residuals); every combination is formed in the algebra and
    converted once."""
    S = system.space
    n, N = S.n, S.dim
    Mq, bq, T0 = system.quadratic_parts
    Gs = [[Mq[i, j] for j in range(n)] for i in range(n)]
    if S.t is not None:
        for i in range(n):
            Gs[i].append(bq[i])
        Gs.append(list(bq) + [2 * T0])
    upper = [Gs[a][b] for a in range(N) for b in range(a, N)]
    inputs = upper + list(system.Q) + list(K) + list(frame.C) + list(S.qd) + list(u) + list(ud)
    alg = algebra_for(S.coords, inputs)
    zero, one, add, native = alg.zero, alg.one, alg.add, alg.native
    Kn = [native(k) for k in K]
    us = [native(x) for x in u]
    uds = [native(x) for x in ud]
    xd = Kn + ([one] if S.t is not None else [])
    G = [[zero] * N for _ in range(N)]
    for a in range(N):
        for b in range(a, N):
            if Gs[a][b] != 0:
                G[a][b] = G[b][a] = native(Gs[a][b])
    dG = {(a, b): alg.gradient(G[a][b]) for a in range(N) for b in range(a, N)}

    def d(a: int, b: int, c: int):
        """∂_c G_ab."""
        g = dG[(min(a, b), max(a, b))]
        return zero if g is None else g[c]
    dKdu = [[alg.diff(k, x) if x in k.free_symbols else zero for x in us] for k in Kn]
    acc0 = [alg.along(alg.gradient(k), xd) for k in Kn]
    live = [b for b in range(N) if xd[b] != zero]
    rows_k, rest_k = [], []
    for k in range(n):
        check("Kane's inertia forces", k, n, "coordinates")
        Mk = [(j, G[k][j]) for j in range(n) if G[k][j] != zero]
        rows_k.append([add([g * dKdu[j][s] for j, g in Mk if dKdu[j][s] != zero]) for s in range(len(us))])
        gam = []
        for i, b in enumerate(live):
            for c in live[i:]:
                w = (d(k, c, b) + d(k, b, c) - d(b, c, k)) * xd[b] * xd[c]
                gam.append(w / 2 if b == c else w)
        rest_k.append(add([g * acc0[j] for j, g in Mk if acc0[j] != zero] + gam))
    report("Kane's inertia forces", n, n)   # the step is over (progress display)
    qd_on = {native(v): k for v, k in zip(S.qd, Kn)}
    Q = [alg.subs(native(e), qd_on) if e != 0 else zero for e in system.Q]
    F, rows, rests = [], [], []
    for a in range(n):
        C = [(i, native(frame.C[i, a])) for i in range(n) if frame.C[i, a] != 0]
        F.append(add([c * Q[i] for i, c in C if Q[i] != zero]))
        rows.append([add([c * rows_k[i][s] for i, c in C]) for s in range(len(us))])
        rests.append(add([c * rest_k[i] for i, c in C]))
    drop = _generic_zeros(system, alg, F[:m])
    if drop:
        F[:m] = [alg.subs(e, drop) for e in F[:m]]
    frstar = [-add([r * x for r, x in zip(rows[a], uds) if r != zero]) - rests[a] for a in range(n)]
    out = alg.sympy
    Mk_out = sp.Matrix(m, m, lambda r, s: out(-rows[r][s]))
    Fk_out = sp.Matrix([out(rests[r] - F[r]) for r in range(m)])
    return ([out(e) for e in F[:m]], [out(e) for e in frstar[:m]], [out(F[a] + frstar[a]) for a in range(m, n)],
            Mk_out, Fk_out)


def _generic_zeros(system: MechanicalSystem, alg, fr: list) -> dict:
    """{s: 0} for each symbol s of the loads alone (free in Q, not in T, the constraints or the
    coordinates) on which none of the free F_r (``fr``, natives of ``alg``) depends:
    ∂F_r/∂s ≡ 0 decided once at the generic point (:func:`~geonh.kernel.generic_point.all_zero`;
    the derivative of F_r = X_r^i Q_i is X_r^i ∂Q_i/∂s, a small expression).  Setting s to 0
    in the F_r leaves the same functions (they do not depend on s); the F_κ (κ ≥ m) keep it."""
    S = system.space
    kept = set(S.coords) | set(S.qd) | symbols_in([system.T] + list(system.constraints.matrix())
                                                   + list(system.holonomic))
    loads = sorted(symbols_in(list(system.Q)) - kept, key=lambda s: s.name)
    drop = {}
    for s in loads:
        x = alg.native(s)
        ders = [alg.diff(e, x) for e in fr if x in e.free_symbols]
        natives = ders if alg.name == "symengine" else None   # all_zero's natives are symengine's
        if ders and all_zero([alg.sympy(e) for e in ders], natives=natives):
            drop[x] = alg.zero
    return drop


def tzenoff(system: MechanicalSystem, kind: int = 2, dependent: Sequence | None = None) -> Equations:
    """Tzénoff's equations as derived by Hamel 1924, § 1, in true coordinates q_i (free):

    kind 2 (Hamel's (I)):   d/dt ∂E/∂q̇_i − ∂E/∂q_i + ∂W'/∂q̈_i = K'_i,
    kind 1 (Hamel's (II)):  d/dt ∂E''/∂q̇_i − ∂E''/∂q_i + ∂E'/∂q_i − d/dt ∂E'/∂q̇_i + ∂W'/∂q̈_i = K'_i,

    with W Appell's acceleration energy, W' differentiated only through the q̈_{n+m} (i.e.
    Σ_m a_{m,i} ∂W/∂q̈_{n+m}), E'' = E with the constraints substituted, and
    ∂E'/∂q̇_i = Σ_m p_{n+m} a_{m,i}, ∂E'/∂q_i = Σ_m p_{n+m} ∂q̇_{n+m}/∂q_i.  K'_i = K_i +
    a_{m,i} K_{n+m}.  (Printed (5), (10) and (II) write q̇ or q where q̈ is meant; see docs.)
    Computed in one algebra (:func:`~geonh.kernel.algebra.algebra_for`: symengine when it is
    the backend), M = ∂res/∂u̇ and F = −res|_{u̇=0} read off there and converted once.
    """
    if kind not in (1, 2):
        raise ParseError("Tzénoff's form is kind=1 or kind=2")
    S = system.space
    free, dep, a, a0 = solve_constraints(system, dependent)
    # the Voronets kinematics q̇_s = u_s, q̇_j = a_js u_s + a_j
    fm = framed(system, voronets_frame(system, dependent))
    m, u, ud, K, speeds = fm.m, fm.u, fm.ud, fm.kinematics, fm.speeds
    Wacc = system.acceleration_energy()
    parts = list(system.lagrange_operator) if kind == 2 else [system.T, *system.momenta]
    mo = _OnMotion(system, K, u, ud, [Wacc, *system.Q, *a, *a0, *parts])
    alg, dt, on, qd, qdd, us = mo.alg, mo.dt, mo.on, mo.qd, mo.qdd, mo.u
    nat, add, diff, subs, zero = alg.native, alg.add, alg.diff, alg.subs, alg.zero
    an = [[nat(a[k, c]) for c in range(m)] for k in range(len(dep))]
    Wn = nat(Wacc)
    dW = {j: subs(diff(Wn, qdd[j]), on) for j in dep}
    Qon = [subs(nat(Qi), on) if Qi != 0 else zero for Qi in system.Q]
    if kind == 1:
        # E'' = E with q̇_j = a_js q̇_s + a_j, as a function of (t, q, q̇_s)
        Kq = list(qd)
        for k, j in enumerate(dep):
            Kq[j] = add([an[k][f] * qd[s] for f, s in enumerate(free)] + [nat(a0[k])])
        on_constraint = dict(zip(qd, Kq))
        to_u = {qd[s]: us[f] for f, s in enumerate(free)}
        Epp = subs(nat(parts[0]), on_constraint)
        p = [subs(nat(pj), on_constraint) for pj in parts[1:]]   # p on the constraint
    res = []
    for c, i in enumerate(free):
        corr = add([an[k][c] * dW[j] for k, j in enumerate(dep)])
        Kp = add([Qon[i]] + [an[k][c] * Qon[j] for k, j in enumerate(dep)])
        if kind == 2:
            res.append(subs(nat(parts[i]), on) + corr - Kp)
            continue
        dEpp_dqd = subs(diff(Epp, qd[i]), to_u)
        dEpp_dq = subs(diff(Epp, nat(S.q[i])), to_u)
        dEp_dqd = subs(add([p[j] * an[k][c] for k, j in enumerate(dep)]), to_u)
        dEp_dq = subs(add([p[j] * diff(Kq[j], nat(S.q[i])) for j in dep]), to_u)
        res.append(dt(dEpp_dqd) - dEpp_dq + dEp_dq - dt(dEp_dqd) + corr - Kp)
    return Equations(f"tzenoff-{'I' if kind == 1 else 'II'}", system, u, ud, K, speeds, linear=mo.linear(res))


def multiplier_equations(form: str, system, accel: Sequence[sp.Expr], Theta: sp.Matrix,
                         phis: Sequence[sp.Expr], **kw) -> Equations:
    """The shared shape of every multiplier form, unknowns (q̈, λ), speeds = velocities:

        accel_i − Q_i − λ_κ Θ^κ_i = 0,      d/dt φ^κ = 0,      R_i = λ_κ Θ^κ_i,

    with accel Lagrange's d/dt ∂T/∂q̇ − ∂T/∂q or Appell's ∂S/∂q̈, Θ the virtual-displacement
    rows and φ the constraints (expressions in t, q, q̇)."""
    S = system.space
    accel = as_exprs(accel, S.state_symbols, what="accelerations")
    phis = as_exprs(phis, S.state_symbols, what="constraints φ")
    Theta = as_matrix(Theta, S.state_symbols, what="virtual-displacement rows Θ")
    if len(accel) != S.n or Theta.shape != (len(phis), S.n):
        raise DimensionError(f"multiplier_equations needs {S.n} accelerations and a {len(phis)} x {S.n} Θ, "
                             f"got {len(accel)} and {Theta.shape}")
    r = len(phis)
    lam = tuple(sp.Symbol(f"lambda{k + 1}", real=True) for k in range(r))
    reactions = [sum((lam[k] * Theta[k, i] for k in range(r)), sp.S.Zero) for i in range(S.n)]
    res = [accel[i] - system.Q[i] - reactions[i] for i in range(S.n)]
    res += [S.total_derivative(f) for f in phis]
    return Equations(form, system, S.qd, S.qdd, list(S.qd), list(S.qd), res, multipliers=lam,
                     reactions=reactions, **kw)


def lagrange(system: MechanicalSystem) -> Equations:
    """Lagrange's equations with multipliers (Chetaev-ideal constraints, CONVENTIONS.md):

        d/dt ∂T/∂q̇^i − ∂T/∂q^i = Q_i + λ_κ A_κi,     A q̈ + d/dt(A) q̇ + ḃ = 0,

    unknowns (q̈, λ); the reaction force is R_i = λ_κ A_κi (sympy's LagrangesMethod stores
    −λ).  Speeds are the velocities themselves.
    """
    S = system.space
    A, b = system.constraint_matrix
    phis = [sum((A[k, i] * S.qd[i] for i in range(S.n)), b[k]) for k in range(A.rows)]
    return multiplier_equations("lagrange", system, system.lagrange_operator, A, phis)
