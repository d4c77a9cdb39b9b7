"""Equations of motion: one engine, every classical form a short declaration on it.

The engine is Lagrange's central equation in the form of Neimark–Fufaev 1960, eq. (2.1),
written for an arbitrary extension V of the motion (the d field) and virtual fields W (the δ
fields):

    E(W) = d/dt (p·W) − W(T(q, V)) + p·[W, V] − Q·W  =  (d/dt p − ∂T/∂q − Q)·W,     (*)

an identity for any fields; p·[W, V] = −p_i (dδq^i − δdq^i) is the transpositional term
(CONVENTIONS.md: dδq^i − δdq^i = [V, W]^i).  Each form is a choice of (V, W):

========================  ===============================================================
form                      declaration
========================  ===============================================================
Boltzmann–Hamel           frame X_a, V = u^r X_r (+ X_t), W = X_r (Hamel's extension:
                          quasi-velocities constant; p·[X_r, V] = c^d_rb ω^b ∂T*/∂ω^d,
                          Hamel 1924 eq. (19'), CONVENTIONS.md)
Volterra                  Boltzmann–Hamel without constraints (Hamel 1924, eq. (III))
Voronets                  Voronets frame X_s = ∂_s + a_js ∂_j, extension of seed 004 with k=0
Neimark–Fufaev (k)        the d and δ fields of seed 004 eq. (1.1) for the chosen k
Chaplygin                 Voronets on a Chaplygin system (cyclic dependent coordinates)
========================  ===============================================================

Forms that do not use (*) are independent routes used as cross-checks: Lagrange with
multipliers, Maggi (Hamel's raw form (8) is Maggi in the Voronets frame), Gibbs–Appell
(Appell's S from Christoffel symbols), Kane (partial velocities = frame fields) and Tzénoff's
forms I and II.  Every function returns an :class:`Equations`.
"""
from __future__ import annotations

from functools import cached_property
from typing import Sequence

import sympy as sp

from .errors import NotAdaptedError
from .fields import VectorField
from .frames import Frame
from .generic import generic_rank, is_zero, lu_solve
from .system import MechanicalSystem
from .transposition import ConstrainedSetting


# ----------------------------------------------------------------------------------------------
# the Equations object
# ----------------------------------------------------------------------------------------------
class Equations:
    """Equations of motion  M(t, q, u) · x = F(t, q, u)  with kinematics q̇ = K(t, q, u).

    ``x`` (:attr:`unknowns`) are the speed derivatives u̇ (and, for Lagrange's form, the
    multipliers λ).  Vocabulary follows sympy.physics.mechanics where it fits: :attr:`q`,
    :attr:`u`, :attr:`kdes`, :attr:`mass_matrix`, :attr:`forcing`, :attr:`mass_matrix_full`,
    :attr:`forcing_full`, :meth:`rhs`, :attr:`lam_vec`.  The mass matrix is never inverted
    symbolically unless :meth:`rhs` is asked for ``symbolic=True``.
    """

    def __init__(self, form: str, system: MechanicalSystem, u: Sequence[sp.Symbol],
                 ud: Sequence[sp.Symbol], kinematics: Sequence[sp.Expr], speeds: Sequence[sp.Expr],
                 residuals: Sequence[sp.Expr], *, multipliers: Sequence[sp.Symbol] = (),
                 frame: Frame | None = None, reactions: Sequence[sp.Expr] = (), notes: str = "",
                 linear: tuple[sp.Matrix, sp.Matrix] | None = None):
        self.form = form
        self.system = system
        self.space = system.space
        self.u: tuple[sp.Symbol, ...] = tuple(u)
        self.ud: tuple[sp.Symbol, ...] = tuple(ud)
        self.kinematics: tuple[sp.Expr, ...] = tuple(kinematics)
        self.speeds: tuple[sp.Expr, ...] = tuple(speeds)
        if linear is not None:
            self._linear_given = (sp.Matrix(linear[0]), sp.Matrix(linear[1]))
            x = sp.Matrix(list(ud) + list(multipliers))
            residuals = list(self._linear_given[0] * x - self._linear_given[1])
        self.residuals: tuple[sp.Expr, ...] = tuple(residuals)
        self.lam_vec: tuple[sp.Symbol, ...] = tuple(multipliers)
        self.frame = frame
        self.reactions: tuple[sp.Expr, ...] = tuple(reactions)
        self.notes = notes

    # -- sympy vocabulary -------------------------------------------------------------------
    @property
    def q(self) -> tuple[sp.Symbol, ...]:
        return self.space.q

    @property
    def unknowns(self) -> tuple[sp.Symbol, ...]:
        return self.ud + self.lam_vec

    @property
    def kdes(self) -> list[sp.Expr]:
        """Kinematic differential equations q̇_i − K_i(t, q, u) = 0."""
        return [v - k for v, k in zip(self.space.qd, self.kinematics)]

    @cached_property
    def _linear(self) -> tuple[sp.Matrix, sp.Matrix]:
        if hasattr(self, "_linear_given"):
            return self._linear_given
        x = self.unknowns
        R = sp.Matrix(self.residuals)
        M = R.jacobian(x)
        zero = {s: 0 for s in x}
        F = -R.xreplace(zero)
        return M, F

    @property
    def mass_matrix(self) -> sp.Matrix:
        """M in M x = F (x = :attr:`unknowns`)."""
        return self._linear[0]

    @property
    def forcing(self) -> sp.Matrix:
        """F in M x = F."""
        return self._linear[1]

    @property
    def mass_matrix_full(self) -> sp.Matrix:
        """Block diag(I, M) acting on (q̇, x)."""
        n = self.space.n
        M = self.mass_matrix
        out = sp.zeros(n + M.rows, n + M.cols)
        out[:n, :n] = sp.eye(n)
        out[n:, n:] = M
        return out

    @property
    def forcing_full(self) -> sp.Matrix:
        """(K, F): kinematics stacked on the forcing."""
        return sp.Matrix(list(self.kinematics)).col_join(self.forcing)

    def rhs(self, symbolic: bool = False):
        """The explicit first-order system ẏ = f(t, y), y = (q, u).

        Default: a numerical function ``f(t, y, params)`` (numpy; the mass matrix is solved
        with ``numpy.linalg.solve`` at each call).  ``symbolic=True`` returns the symbolic
        (K, M⁻¹F) with M⁻¹F from an LU solve (may be large).
        """
        if symbolic:
            sol = lu_solve(self.mass_matrix, self.forcing, what=f"{self.form} mass matrix")
            return sp.Matrix(list(self.kinematics)).col_join(sol[:len(self.ud), :])
        from .numerics import first_order_function
        return first_order_function(self)

    # -- evaluation -------------------------------------------------------------------------
    def solve_point(self, values: dict) -> list:
        """Unknowns x (u̇, λ) at a state given by ``values`` {symbol: number} for t, q, u and
        parameters (exact when all values are rational)."""
        from .numerics import solve_linear_at
        return solve_linear_at(self.mass_matrix, self.forcing, values, what=f"{self.form} mass matrix")

    def accelerations(self, values: dict) -> list:
        """q̈ at a state given in coordinates {t, q, q̇, parameters}: computes u from q̇ by
        :attr:`speeds`, u̇ from M u̇ = F, and q̈ = d/dt K(t, q, u)."""
        from .numerics import accelerations
        return accelerations(self, values)

    def latex(self) -> str:
        """LaTeX of M x = F and the kinematics."""
        lines = [sp.latex(sp.Eq(sp.MatMul(self.mass_matrix, sp.Matrix(self.unknowns)), self.forcing,
                                evaluate=False))]
        lines += [sp.latex(sp.Eq(v, k)) for v, k in zip(self.space.qd, self.kinematics)]
        return " \\\\\n".join(lines)

    def __repr__(self) -> str:
        return (f"Equations({self.form}: {len(self.residuals)} equations in "
                f"{[s.name for s in self.unknowns]}, {self.system!r})")


# ----------------------------------------------------------------------------------------------
# shared pieces
# ----------------------------------------------------------------------------------------------
def _speed_symbols(names: Sequence[str]) -> tuple[tuple[sp.Symbol, ...], tuple[sp.Symbol, ...]]:
    u = tuple(sp.Symbol(nm, real=True) for nm in names)
    ud = tuple(sp.Symbol(f"{nm}_dot", real=True) for nm in names)
    return u, ud


def _time_derivative(system: MechanicalSystem, expr: sp.Expr, K: Sequence[sp.Expr],
                     u: Sequence[sp.Symbol], ud: Sequence[sp.Symbol]) -> sp.Expr:
    """d/dt of expr(t, q, u) along q̇ = K, u̇ = ud."""
    S = system.space
    free = expr.free_symbols
    out = sp.S.Zero
    if S.t is not None and S.t in free:
        out += sp.diff(expr, S.t)
    for qi, ki in zip(S.q, K):
        if qi in free and ki != 0:
            out += ki * sp.diff(expr, qi)
    for ui, udi in zip(u, ud):
        if ui in free:
            out += udi * sp.diff(expr, ui)
    return out


def check_adapted(system: MechanicalSystem, frame: Frame) -> int:
    """Check that ``frame`` is adapted: free fields first, then the constraint directions, then
    (rheonomic) the time field with θ^t = dt; the last coframe forms must span the system's
    constraints.  Returns m, the number of free fields."""
    S = system.space
    if frame.space != S:
        raise NotAdaptedError(f"the frame lives on {frame.space!r}, the system on {S!r}")
    n, r = S.n, system.n_constraints
    m = n - r
    if S.t is not None:
        row = list(frame.B[n, :])
        if not all(is_zero(e) for e in row[:n]) or not is_zero(row[n] - 1):
            raise NotAdaptedError("on a space with time the last coframe form must be dt "
                                  "(Hamel 1924, eq. (20): ω_n = 1, δϑ_n = 0)")
    if r:
        cons = system.constraints.matrix()
        mine = frame.B[m:n, :]
        if generic_rank(cons.col_join(mine)) != r or generic_rank(mine) != r:
            raise NotAdaptedError(
                f"the coframe forms {m + 1}..{n} do not span the constraint codistribution: the "
                f"frame is not adapted (free fields first, then the {r} constraint directions)")
    return m


def _frame_kinematics(system: MechanicalSystem, frame: Frame, m: int, u: Sequence[sp.Symbol]):
    S = system.space
    n = S.n
    omega = list(u) + [sp.S.Zero] * (n - m) + ([sp.S.One] if S.t is not None else [])
    K = [sum((frame.C[i, a] * omega[a] for a in range(len(omega)) if omega[a] != 0), sp.S.Zero)
         for i in range(n)]
    speeds = [sum((frame.B[r, i] * S.velocities[i] for i in range(S.dim)), sp.S.Zero) for r in range(m)]
    return omega, K, speeds


def _lagrange_split(system: MechanicalSystem, K: Sequence[sp.Expr], u: Sequence[sp.Symbol]):
    """Lagrange's expressions on the motion q̇ = K(t, q, u), split by linearity in u̇:
    L_i − Q_i = Σ_s MdK[i][s] u̇_s + LQ0[i], with MdK = M ∂K/∂u (from the primitives of
    :attr:`MechanicalSystem.primitives`; no composite expression is differentiated).
    Also returns p, ∂T/∂q and Q on the motion."""
    S = system.space
    n = S.n
    prim = system.primitives
    Mq = system.mass_matrix
    qd_on = dict(zip(S.qd, K))
    zero_ud = [sp.S.Zero] * len(u)
    acc0 = [_time_derivative(system, k, K, u, zero_ud) for k in K]
    dKdu = [[sp.diff(k, us) if us in k.free_symbols else sp.S.Zero for us in u] for k in K]
    M_on = Mq.xreplace(qd_on)
    p_on = [e.xreplace(qd_on) for e in prim["p"]]
    dTdq = [e.xreplace(qd_on) for e in prim["dTdq"]]
    Q_on = [e.xreplace(qd_on) for e in system.Q]
    LQ0 = []
    for i in range(n):
        e = sum((M_on[i, j] * acc0[j] for j in range(n) if M_on[i, j] != 0 and acc0[j] != 0), sp.S.Zero)
        LQ0.append(e + prim["pdot0"][i].xreplace(qd_on) - dTdq[i] - Q_on[i])
    MdK = [[sum((M_on[i, j] * dKdu[j][s] for j in range(n) if dKdu[j][s] != 0 and M_on[i, j] != 0), sp.S.Zero)
            for s in range(len(u))] for i in range(n)]
    return MdK, LQ0, p_on, dTdq, Q_on


def central_equations(system: MechanicalSystem, V: VectorField, W: Sequence[VectorField],
                      on_motion: dict, u: Sequence[sp.Symbol], ud: Sequence[sp.Symbol],
                      K: Sequence[sp.Expr]) -> tuple[sp.Matrix, sp.Matrix]:
    """The engine: E(W) = d/dt(p·W) − W(T(q, V)) + p·[W, V] − Q·W for each W (module doc).

    ``V`` and the ``W`` may contain constant symbols (their components off the motion) that
    ``on_motion`` (one dict, or one per W) maps to their values on the motion (in t, q, u);
    ``K`` is the velocity on the motion.
    Derivatives are taken first and the motion substituted after (never before: substituting
    constraints into T first is the classic error).  Every derivative is taken of a small
    primitive (entries of M, b, T0 of T, the field components, the kinematics) and combined by
    the chain rule, so no large composite expression is ever differentiated:

        d/dt(p·W) = ṗ·W + p·Ẇ,  ṗ = M q̈ + ṗ⁰,  q̈ = ∂K/∂u u̇ + (∂_t K + ∂_q K K),
        W(T(q, V)) = W·∂_q T + p·W(V).

    E is linear in u̇; returns (M, F) with E = M u̇ − F, M_rs = W_r·M·∂K/∂u_s.
    """
    S = system.space
    n = S.n
    MdK, LQ0, p_on, dTdq, Q_on = _lagrange_split(system, K, u)
    pdot0 = [LQ0[i] + dTdq[i] + Q_on[i] for i in range(n)]  # ṗ with u̇ = 0
    coords = S.coords
    xd = list(K) + ([sp.S.One] if S.t is not None else [])
    rows, minusF = [], []
    ons = on_motion if isinstance(on_motion, (list, tuple)) else [on_motion] * len(W)
    for Wf, on_motion in zip(W, ons):
        Wc = [c.xreplace(on_motion) for c in Wf.components[:n]]
        nz = [i for i in range(n) if Wc[i] != 0]
        # p·Ẇ with Ẇ = ∂_t W + K^j ∂_j W along the motion
        pWdot = sp.S.Zero
        for i in nz:
            c = Wf.components[i]
            fs = c.free_symbols
            d = sum((xd[j] * sp.diff(c, coords[j]) for j in range(len(coords)) if coords[j] in fs), sp.S.Zero)
            if d != 0:
                pWdot += p_on[i] * d.xreplace(on_motion)
        # W(T(q, V)) = W·∂_q T + p·W(V)
        WV = [Wf(V.components[j]).xreplace(on_motion) for j in range(n)]
        WT = sum((dTdq[i] * Wc[i] for i in nz), sp.S.Zero) + sum(
            (p_on[j] * WV[j] for j in range(n) if WV[j] != 0), sp.S.Zero)
        br = Wf.bracket(V)
        trans = sum((p_on[i] * br.components[i].xreplace(on_motion) for i in range(n)
                     if br.components[i] != 0), sp.S.Zero)
        QW = sum((Q_on[i] * Wc[i] for i in nz), sp.S.Zero)
        minusF.append(sum((pdot0[i] * Wc[i] for i in nz), sp.S.Zero) + pWdot - WT + trans - QW)
        rows.append([sum((Wc[i] * MdK[i][s] for i in nz), sp.S.Zero) for s in range(len(u))])
    return sp.Matrix(rows), -sp.Matrix(minusF)


# ----------------------------------------------------------------------------------------------
# frames derived from the constraints
# ----------------------------------------------------------------------------------------------
def solve_constraints(system: MechanicalSystem, dependent: Sequence | None = None):
    """Solve A q̇ + b = 0 for the dependent velocities: q̇_j = a_js q̇_s + a_j (Hamel 1924, eq. (2)).

    Returns (free indices, dependent indices, a (r×m Matrix), a0 (r-vector)), from
    :meth:`geonh.transposition.ConstrainedSetting.from_codistribution` (``dependent``
    defaults to the last coordinates whose block of A is invertible).
    """
    S = system.space
    st = constrained_setting(system, dependent)
    free = [S.index(q) for q in st.free]
    dep = [S.index(q) for q in st.dependent]
    return free, dep, st.a, st.affine


def constrained_setting(system: MechanicalSystem, dependent: Sequence | None = None, quasi=None):
    """The system's constraints as a :class:`~geonh.transposition.ConstrainedSetting`."""
    return ConstrainedSetting.from_codistribution(system.constraints, dependent, quasi=quasi)


def voronets_frame(system: MechanicalSystem, dependent: Sequence | None = None) -> Frame:
    """The frame of Hamel 1924, eqs. (22)–(24): ω_s = q̇_s (free), ω_j = q̇_j − a_js q̇_s − a_j
    (constraints), ω_t = 1.  Fields X_s = ∂_s + a_js ∂_j, X_j = ∂_j, X_t = ∂_t + a_j ∂_j."""
    S = system.space
    free, dep, a, a0 = solve_constraints(system, dependent)
    n, N = S.n, S.dim
    rows = []
    names = []
    for s in free:
        row = [0] * N
        row[s] = 1
        rows.append(row)
        names.append(f"{S.q[s].name}_dot")
    for k, j in enumerate(dep):
        row = [sp.S.Zero] * N
        row[j] = sp.S.One
        for c, s in enumerate(free):
            row[s] = -a[k, c]
        if S.t is not None:
            row[n] = -a0[k]
        rows.append(row)
        names.append(f"c_{S.q[j].name}")
    if S.t is not None:
        rows.append([0] * n + [1])
        names.append("t_dot")
    B = sp.Matrix(rows)
    # C = B^{-1} in closed form
    C = sp.zeros(N, N)
    for c, s in enumerate(free):
        C[s, c] = 1
        for k, j in enumerate(dep):
            C[j, c] = a[k, c]
    for k, j in enumerate(dep):
        C[j, len(free) + k] = 1
    if S.t is not None:
        C[n, N - 1] = 1
        for k, j in enumerate(dep):
            C[j, N - 1] = a0[k]
    fields = [VectorField(S, list(C[:, c])) for c in range(N)]
    return Frame(fields, names=names, _B=B)


def _framed(system: MechanicalSystem, frame: Frame | None):
    """Shared set-up of the frame forms: the (default Voronets) adapted frame, m, the speed
    symbols u = the free quasi-velocities, ω on the motion, the kinematics K and u(q̇)."""
    frame = _frame_or_default(system, frame)
    m = check_adapted(system, frame)
    u, ud = _speed_symbols(frame.names[:m])
    omega, K, speeds = _frame_kinematics(system, frame, m, u)
    return frame, m, u, ud, omega, K, speeds


def _contract(vec: Sequence[sp.Expr], frame: Frame, a: int) -> sp.Expr:
    """Σ_i vec_i C^i_a: a covector (force, Lagrange expression) along the frame field X_a."""
    return sum((vec[i] * frame.C[i, a] for i in range(len(vec)) if frame.C[i, a] != 0 and vec[i] != 0),
               sp.S.Zero)


def _frame_or_default(system, frame):
    return frame if frame is not None else voronets_frame(system)


# ----------------------------------------------------------------------------------------------
# the forms
# ----------------------------------------------------------------------------------------------
def boltzmann_hamel(system: MechanicalSystem, frame: Frame | None = None) -> Equations:
    """Boltzmann–Hamel (Hamel's Lagrange–Euler) equations in an adapted frame.

        d/dt ∂T*/∂ω^r + c^d_rb ω^b ∂T*/∂ω^d − X_r(T*) = K_r     (Hamel 1924, eq. (19'))

    for the free r, with the constraints ω^α = 0 substituted only after differentiation
    (J_α = ∂T*/∂ω^α stays in the c term).  Engine: (*) with V = ω^b X_b (quasi-velocities
    held constant off the motion) and W = X_r.  Default frame: :func:`voronets_frame`.
    """
    frame, m, u, ud, omega, K, speeds = _framed(system, frame)
    S = system.space
    V = VectorField(S, [sp.S.Zero] * S.dim)
    for a, w in enumerate(omega):
        if w != 0:
            V = V + w * frame.fields[a]
    MF = central_equations(system, V, frame.fields[:m], {}, u, ud, K)
    form = "boltzmann-hamel" if system.n_constraints else "volterra"
    return Equations(form, system, u, ud, K, speeds, (), frame=frame, linear=MF)


def volterra(system: MechanicalSystem, frame: Frame) -> Equations:
    """Volterra's equations (Hamel 1924, eq. (III)): a holonomic system in quasi-velocities."""
    if system.n_constraints:
        raise NotAdaptedError("Volterra's equations are for systems without constraints; use boltzmann_hamel")
    return boltzmann_hamel(system, frame)


def voronets(system: MechanicalSystem, dependent: Sequence | None = None) -> Equations:
    """Voronets's equations (seed 004 eq. (2.7); Hamel 1924 eq. (V)): the engine in true
    coordinates with the extension of seed 004 for k = 0 — V^s = q̇_s constant, V^j = a_js q̇_s
    + a_j; W_l = ∂_l + a_jl ∂_j.  The transpositional term p·[W_l, V] = −(∂T/∂q̇_j) B^j_rl q̇_r.
    """
    frame = voronets_frame(system, dependent)
    eq = boltzmann_hamel(system, frame)
    eq.form = "voronets"
    return eq


def neimark_fufaev(system: MechanicalSystem, k: int, dependent: Sequence | None = None,
                   quasi=None) -> Equations:
    """Neimark–Fufaev's intermediate equations (seed 004 eq. (2.5)) for 0 ≤ k ≤ n − m:

        d/dt ∂T*/∂π̇_l − ∂T*/∂π_l + γ_lλμ ∂T*/∂π̇_λ π̇_μ − B^σ_rs ∂T*/∂q̇_σ q̇_r b_sl = Π_l,

    the engine (*) with the d and δ fields of eq. (1.1) for this k taken from
    :class:`~geonh.transposition.TranspositionalRelations`: V, W have constant components on
    the free coordinates and the ρ's; on the motion dq_α = b_αν π̇_ν (π̇_ρ = 0, ṫ = 1) and,
    for the l-th equation, δq_α = b_αl.  k = n − m gives Boltzmann–Hamel, k = 0 Voronets
    (with π = q).  ``quasi``: the free quasi-velocities π̇_r = a_rs q̇_s (default π_r = q_r).
    """
    S = system.space
    st = constrained_setting(system, dependent, quasi)
    tr = st.transposition(k)
    m = st.m
    names = [f"pi{r + 1}" for r in range(m)] if quasi is not None else [f"{q.name}_dot" for q in st.free]
    u, ud = _speed_symbols(names)
    pidot = list(u) + [sp.S.Zero] * k + ([sp.S.One] if S.t is not None else [])
    dq = tr.b * sp.Matrix(pidot)
    d_on = {tr.d_symbols[q]: dq[i] for i, q in enumerate(tr.q_lambda)}
    K = [tr.V.components[i].xreplace(d_on) for i in range(S.n)]
    ons = []
    for l in range(m):
        on = dict(d_on)
        on.update({tr.delta_symbols[q]: tr.b[i, l] for i, q in enumerate(tr.q_lambda) if q != S.t})
        ons.append(on)
    speeds = [e for e in (tr.a[:m, :] * sp.Matrix([S.velocity(q) for q in tr.q_lambda]))]
    MF = central_equations(system, tr.V, [tr.W] * m, ons, u, ud, K)
    return Equations(f"neimark-fufaev(k={k})", system, u, ud, K, speeds, (), linear=MF,
                     notes=f"ρ = {[q.name for q in tr.rho]}, σ = {[q.name for q in tr.sigma]}")


def chaplygin(system: MechanicalSystem, dependent: Sequence | None = None) -> Equations:
    """Chaplygin's equations: Voronets's equations for a Chaplygin system, in which T, the
    forces and the a_js do not depend on the dependent coordinates q_j, and a_j = 0.  The
    equations then close in (q_s, q̇_s); q_j follow by quadrature.  Raises NotAdaptedError
    with the reason if the system is not of Chaplygin type."""
    reason = chaplygin_obstruction(system, dependent)
    if reason:
        raise NotAdaptedError(f"not a Chaplygin system: {reason}")
    eq = voronets(system, dependent)
    eq.form = "chaplygin"
    free, dep, _, _ = solve_constraints(system, dependent)
    qj = [system.space.q[j] for j in dep]
    eq.reduced_coordinates = tuple(system.space.q[s] for s in free)
    eq.notes = (f"closed in {[q.name for q in eq.reduced_coordinates]}; "
                f"{[q.name for q in qj]} follow by quadrature")
    return eq


def chaplygin_obstruction(system: MechanicalSystem, dependent: Sequence | None = None) -> str:
    """Empty string if the system is of Chaplygin type for these dependent coordinates, else why not."""
    S = system.space
    free, dep, a, a0 = solve_constraints(system, dependent)
    qj = [S.q[j] for j in dep]
    if any(not is_zero(e) for e in a0):
        return "the constraints have affine terms a_j"
    for name, exprs in (("the kinetic energy", [system.T]), ("the forces", list(system.Q)),
                        ("the constraint coefficients a_js", list(a))):
        for e in exprs:
            for x in qj:
                if x in e.free_symbols and not is_zero(sp.diff(e, x)):
                    return f"{name} depend(s) on the dependent coordinate {x}"
    return ""


def is_chaplygin(system: MechanicalSystem, dependent: Sequence | None = None) -> bool:
    """Is the system of Chaplygin type for these dependent coordinates (see
    :func:`chaplygin_obstruction` for the reason when it is not)?"""
    return chaplygin_obstruction(system, dependent) == ""


def maggi(system: MechanicalSystem, frame: Frame | None = None) -> Equations:
    """Maggi's equations (seed 003 eqs. (28), (30)) for linear constraints:

        Σ_i (L_i − Q_i) C^i_λ = 0   (free λ),     Λ_κ = Σ_i (L_i − Q_i) C^i_κ   (reactions),

    with L_i = d/dt ∂T/∂q̇^i − ∂T/∂q^i and C^i_a = ∂q̇^i/∂v^a from the frame.  The reactions
    are the multipliers of the frame's constraint forms: R_i = Λ_κ θ^κ_i.
    """
    frame, m, u, ud, omega, K, speeds = _framed(system, frame)
    S = system.space
    n = S.n
    MdK, LQ0, *_ = _lagrange_split(system, K, u)

    def contract(a):
        col = [frame.C[i, a] for i in range(n)]
        row = [sum((col[i] * MdK[i][s] for i in range(n) if col[i] != 0), sp.S.Zero) for s in range(m)]
        rest = sum((col[i] * LQ0[i] for i in range(n) if col[i] != 0), sp.S.Zero)
        return row, rest

    parts = [contract(a) for a in range(n)]
    Mm = sp.Matrix([parts[a][0] for a in range(m)])
    Fm = -sp.Matrix([parts[a][1] for a in range(m)])
    reac = [sum((r * v for r, v in zip(parts[a][0], ud)), parts[a][1]) for a in range(m, n)]
    return Equations("maggi", system, u, ud, K, speeds, (), frame=frame, reactions=reac, linear=(Mm, Fm))


def hamel_raw(system: MechanicalSystem, dependent: Sequence | None = None) -> Equations:
    """Hamel's raw form (Hamel 1924, eq. (8)): Q_i + a_{m,i} Q_{n+m} = K_i + a_{m,i} K_{n+m}
    — Maggi's equations in the Voronets frame."""
    eq = maggi(system, voronets_frame(system, dependent))
    eq.form = "hamel-raw"
    return eq


def _motion_substitution(system, K, u, ud) -> dict:
    """{q̇ → K, q̈ → d/dt K} for expressions in (t, q, q̇, q̈)."""
    S = system.space
    acc = [_time_derivative(system, k, K, u, ud) for k in K]
    sub = dict(zip(S.qdd, acc))
    sub.update(zip(S.qd, K))
    return sub


def gibbs_appell(system: MechanicalSystem, frame: Frame | None = None) -> Equations:
    """Gibbs–Appell: ∂S*/∂u̇_r = K_r, with Appell's acceleration energy S (from Christoffel
    symbols, :meth:`MechanicalSystem.acceleration_energy`) written in the quasi-accelerations,
    q̈ = d/dt(C ω) on the motion (Hamel 1924, § 2: dJ/dt − XE = K next to Appell's ∂W/∂q̈ = K)."""
    frame, m, u, ud, omega, K, speeds = _framed(system, frame)
    S = system.space
    Sacc = system.acceleration_energy().xreplace(_motion_substitution(system, K, u, ud))
    res = []
    Q_on = [Qi.xreplace(dict(zip(S.qd, K))) for Qi in system.Q]
    for r in range(m):
        res.append(sp.diff(Sacc, ud[r]) - _contract(Q_on, frame, r))
    return Equations("gibbs-appell", system, u, ud, K, speeds, res, frame=frame)


def kane(system: MechanicalSystem, frame: Frame | None = None) -> Equations:
    """Kane's equations F_r + F*_r = 0 with partial velocities = the free frame fields X_r:
    F_r = X_r^i Q_i and F*_r = −X_r^k (M_kj q̈^j + Γ_{k,ab} ẋ^a ẋ^b), the generalized inertia
    force from the metric connection, q̈ = d/dt(C u) on the motion."""
    frame, m, u, ud, omega, K, speeds = _framed(system, frame)
    S = system.space
    n = S.n
    sub = _motion_substitution(system, K, u, ud)
    xd = list(K) + ([sp.S.One] if S.t is not None else [])
    acc = [sub[a] for a in S.qdd]
    M = system.mass_matrix.xreplace(sub)
    Gam = system.christoffel
    N = len(xd)
    inertia = []
    for k in range(n):
        e = sum((M[k, j] * acc[j] for j in range(n)), sp.S.Zero)
        e += sum((Gam[k][a][b].xreplace(sub) * xd[a] * xd[b] for a in range(N) for b in range(N)
                  if Gam[k][a][b] != 0), sp.S.Zero)
        inertia.append(e)
    Q_on = [Qi.xreplace(sub) for Qi in system.Q]
    res = [_contract(Q_on, frame, r) - _contract(inertia, frame, r) for r in range(m)]
    return Equations("kane", system, u, ud, K, speeds, res, frame=frame)


def tzenoff(system: MechanicalSystem, kind: int = 2, dependent: Sequence | None = None) -> Equations:
    """Tzénoff's equations as derived by Hamel 1924, § 1, in true coordinates q_i (free):

    kind 2 (Hamel's (I)):   d/dt ∂E/∂q̇_i − ∂E/∂q_i + ∂W'/∂q̈_i = K'_i,
    kind 1 (Hamel's (II)):  d/dt ∂E''/∂q̇_i − ∂E''/∂q_i + ∂E'/∂q_i − d/dt ∂E'/∂q̇_i + ∂W'/∂q̈_i = K'_i,

    with W Appell's acceleration energy, W' differentiated only through the q̈_{n+m} (i.e.
    Σ_m a_{m,i} ∂W/∂q̈_{n+m}), E'' = E with the constraints substituted, and
    ∂E'/∂q̇_i = Σ_m p_{n+m} a_{m,i}, ∂E'/∂q_i = Σ_m p_{n+m} ∂q̇_{n+m}/∂q_i.  K'_i = K_i +
    a_{m,i} K_{n+m}.  (Printed (5), (10) and (II) write q̇ or q where q̈ is meant; see docs.)
    """
    if kind not in (1, 2):
        raise ValueError("Tzénoff's form is kind=1 or kind=2")
    S = system.space
    free, dep, a, a0 = solve_constraints(system, dependent)
    m = len(free)
    u, ud = _speed_symbols([f"{S.q[s].name}_dot" for s in free])
    # kinematics: q̇_s = u_s, q̇_j = a_js u_s + a_j
    K = [sp.S.Zero] * S.n
    for c, s in enumerate(free):
        K[s] = u[c]
    for k, j in enumerate(dep):
        K[j] = sum((a[k, c] * u[c] for c in range(m)), a0[k])
    speeds = [S.qd[s] for s in free]
    sub = _motion_substitution(system, K, u, ud)
    Wacc = system.acceleration_energy()
    dW = {j: sp.diff(Wacc, S.qdd[j]).xreplace(sub) for j in dep}
    Qon = [Qi.xreplace(sub) for Qi in system.Q]
    res = []
    if kind == 2:
        for c, i in enumerate(free):
            Li = system.lagrange_operator[i].xreplace(sub)
            corr = sum((a[k, c] * dW[j] for k, j in enumerate(dep)), sp.S.Zero)
            Kp = Qon[i] + sum((a[k, c] * Qon[j] for k, j in enumerate(dep)), sp.S.Zero)
            res.append(Li + corr - Kp)
    else:
        # E'' = E with q̇_j = a_js q̇_s + a_j, as a function of (t, q, q̇_s)
        qd_free = [S.qd[s] for s in free]
        Kq = [sp.S.Zero] * S.n
        for s in free:
            Kq[s] = S.qd[s]
        for k, j in enumerate(dep):
            Kq[j] = sum((a[k, c] * qd_free[c] for c in range(m)), a0[k])
        Epp = system.T.xreplace(dict(zip(S.qd, Kq)))
        to_u = dict(zip(qd_free, u))
        p = [pi.xreplace(dict(zip(S.qd, Kq))) for pi in system.momenta]  # p on the constraint
        for c, i in enumerate(free):
            dEpp_dqd = sp.diff(Epp, S.qd[i]).xreplace(to_u)
            dEpp_dq = sp.diff(Epp, S.q[i]).xreplace(to_u)
            dEp_dqd = sum((p[j] * a[k, c] for k, j in enumerate(dep)), sp.S.Zero).xreplace(to_u)
            dEp_dq = sum((p[j] * sp.diff(Kq[j], S.q[i]) for j in dep), sp.S.Zero).xreplace(to_u)
            corr = sum((a[k, c] * dW[j] for k, j in enumerate(dep)), sp.S.Zero)
            Kp = Qon[i] + sum((a[k, c] * Qon[j] for k, j in enumerate(dep)), sp.S.Zero)
            e = (_time_derivative(system, dEpp_dqd, K, u, ud) - dEpp_dq + dEp_dq
                 - _time_derivative(system, dEp_dqd, K, u, ud) + corr - Kp)
            res.append(e)
    return Equations(f"tzenoff-{'I' if kind == 1 else 'II'}", system, u, ud, K, speeds, res)


def multiplier_equations(form: str, system, accel: Sequence[sp.Expr], Theta: sp.Matrix,
                         phis: Sequence[sp.Expr], **kw) -> Equations:
    """The shared shape of every multiplier form, unknowns (q̈, λ), speeds = velocities:

        accel_i − Q_i − λ_κ Θ^κ_i = 0,      d/dt φ^κ = 0,      R_i = λ_κ Θ^κ_i,

    with accel Lagrange's d/dt ∂T/∂q̇ − ∂T/∂q or Appell's ∂S/∂q̈, Θ the virtual-displacement
    rows and φ the constraints (expressions in t, q, q̇)."""
    S = system.space
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


FORMS = {
    "lagrange": lagrange,
    "boltzmann-hamel": boltzmann_hamel,
    "voronets": voronets,
    "maggi": maggi,
    "hamel-raw": hamel_raw,
    "gibbs-appell": gibbs_appell,
    "kane": kane,
    "tzenoff-I": lambda s: tzenoff(s, 1),
    "tzenoff-II": lambda s: tzenoff(s, 2),
}
