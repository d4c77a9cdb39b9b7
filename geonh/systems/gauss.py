"""Gauss's principle of least constraint in Aumann's formulation (seed 001).

A free M-system (f, T) (§ 2): ẍ = f(x, ẋ, t) (1) with a positive definite quadratic form
T = ½ a^{ik}(x, t) ẋ_i ẋ_k (2), the "kinetic energy"; f need not come from T.  The bound
system adds kinematic conditions b(x, ẋ, t) = 0 (4), holonomic ones replaced by their
derivative, with ∂b/∂ẋ of full rank m (checked; see :mod:`geonh.systems.constraint_analysis`).

Lagrange's liberation principle (1'): ẍ = f + r.  Differentiating (4) along (1'):

    c_μ + b_{μ2} r = 0,   c_μ = b_{μ1} ẋ + b_{μ2} f + b_{μ3}                          (5)

(b_{μ1} = ∂b/∂x, b_{μ2} = ∂b/∂ẋ, b_{μ3} = ∂b/∂t).  Gauss: r minimizes the constraint
Z(r) = T(x, r, t) = ½ rᵀ a r on the affine set (5), (6); the conditions are

    a^{ik} r_k + λ_μ b^i_{μ2} = 0                                                      (7)

with (5); the Gram-type determinant det(b_2 a⁻¹ b_2ᵀ) ≠ 0 makes the solution unique.
Closed form (Udwadia–Kalaba): with any factor a = L Lᵀ,

    r = L⁻ᵀ (b_2 L⁻ᵀ)⁺ (−c)        (Moore–Penrose ⁺; with a^{1/2} for L this is UK's form),

which for full rank equals a⁻¹ b_2ᵀ (b_2 a⁻¹ b_2ᵀ)⁻¹ (−c).  Sign: the reaction force is
a r = −λ^{Aumann}_μ b_{μ2}, so Aumann's multipliers are minus the Chetaev multipliers of
CONVENTIONS.md (λ^{Aumann} = −λ).

Invariance (§ 5): under a time-independent change x = X(x̃), ẍ and f transform alike, r = J r̃
and T(x, r) = T̃(x̃, r̃), so Gauss's r̃ is the transform of r (tests/equations/test_gauss.py).
"""
from __future__ import annotations

import random
from typing import Mapping, Sequence

import mpmath
import sympy as sp

from ..errors import DimensionError, NotLinearError, ParseError, RankError, SingularMapError
from ..kernel.evaluation import precision, to_mp, value_at
from ..kernel.generic_point import generic_rank, lu_solve
from ..kernel.parsing import as_expr, as_exprs, as_float, as_mapping, as_sequence, as_symbols, as_values, expr_of
from ..kernel.space import ConfigurationSpace, as_expression, known_symbols
from .constraint_analysis import analyze_constraints
from .mechanical import MechanicalSystem
from .nonlinear import NonlinearSystem, sample_consistent_state, solve_dependent_velocities

__all__ = ["FreeSystem", "GaussSystem", "constrained_acceleration", "moore_penrose"]


class FreeSystem:
    """Aumann's free M-system (f, T): ẍ = f(x, ẋ, t) with the quadratic form T (seed 001, § 2).

    The metric a = ∂²T/∂ẋ² is checked positive definite (a singular or indefinite one raises
    :class:`NotPositiveDefiniteError`).  :meth:`from_system` builds f from a mechanical system
    (f = M⁻¹(Q − h), h = Lagrange's expressions at q̈ = 0).
    """

    def __init__(self, space: ConfigurationSpace, f: Sequence, T, *, conditions=()):
        if not isinstance(space, ConfigurationSpace):
            raise ParseError("first argument must be a ConfigurationSpace")
        self.space = space
        known = known_symbols(space, f, T)
        self.f: tuple[sp.Expr, ...] = tuple(
            space.check_expression(as_expr(e, known, what="free acceleration f"), "free acceleration f")
            for e in as_sequence(f, "f"))
        if len(self.f) != space.n:
            raise DimensionError(f"f needs {space.n} components, got {len(self.f)}")
        for e in self.f:
            if e.has(*space.qdd):
                raise NotLinearError(f"the free accelerations f must not contain accelerations: {e}")
        self._check = MechanicalSystem(space, T, conditions=conditions)  # validates T (quadratic, positive definite)
        self.conditions = self._check.conditions
        self.T = self._check.T
        self.metric: sp.Matrix = self._check.mass_matrix

    @classmethod
    def from_system(cls, system) -> "FreeSystem":
        """The free motion of a mechanical (or nonlinear-constraint) system: M f = Q − h."""
        S = system.space
        M = system.mass_matrix
        zero = {a: 0 for a in S.qdd}
        h = sp.Matrix([L.xreplace(zero) for L in system.lagrange_operator])
        rhs = sp.Matrix(list(system.Q)) - h
        f = lu_solve(M, rhs, what="mass matrix")
        return cls(S, list(f), system.T, conditions=getattr(system, "conditions", ()))

    def transform(self, new_space: ConfigurationSpace, X: Mapping) -> "FreeSystem":
        """The equivalent system in coordinates x̃ for a time-independent change x = X(x̃) (3).

        ``X`` maps each old coordinate to an expression in ``new_space.q``.  Then ẋ = J x̃̇,
        ẍ = J x̃̈ + J̇ x̃̇, so f̃ = J⁻¹(f(X, J x̃̇, t) − J̇ x̃̇) and T̃(x̃, x̃̇) = T(X, J x̃̇)."""
        sub, J = _change(self.space, new_space, X)
        n = self.space.n
        Jd = sp.Matrix(n, 1, lambda i, _: sum(new_space.total_derivative(sp.diff(X[self.space.q[i]], y)) *
                                               yd for y, yd in zip(new_space.q, new_space.qd)))
        fX = sp.Matrix([e.xreplace(sub) for e in self.f])
        ft = lu_solve(J, fX - Jd, what="Jacobian of the coordinate change")
        return FreeSystem(new_space, list(ft), self.T.xreplace(sub), conditions=self.conditions)


def _change(old: ConfigurationSpace, new: ConfigurationSpace, X: Mapping):
    """Substitution {x: X(x̃), ẋ: J x̃̇, (t: t)} and the Jacobian J for x = X(x̃)."""
    if new.n != old.n:
        raise DimensionError("a change of coordinates keeps the dimension")
    X = {old.coordinate(k): as_expr(v, new.state_symbols, what="coordinate change X")
         for k, v in as_mapping(X, "coordinate change X").items()}
    if set(X) != set(old.q):
        raise DimensionError(f"X must give every old coordinate {[s.name for s in old.q]}")
    for v in X.values():
        if old.t is not None and v.has(old.t) or new.t is not None and v.has(new.t):
            raise NotLinearError("Aumann's equivalence (3) uses time-independent transformations only")
    J = sp.Matrix(old.n, new.n, lambda i, j: sp.diff(X[old.q[i]], new.q[j]))
    if generic_rank(J) < old.n:
        raise SingularMapError("the coordinate change x = X(x̃) has a singular Jacobian")
    sub = dict(X)
    for i, v in enumerate(old.qd):
        sub[v] = sum((J[i, j] * new.qd[j] for j in range(new.n)), sp.S.Zero)
    if old.t is not None:
        sub[old.t] = new.t if new.t is not None else old.t
    return sub, J


class GaussSystem:
    """A bound system (f, T, b) (seed 001, § 3) ready for Gauss's principle.

    ``constraints`` may contain velocity-free conditions; they are replaced by their
    derivative (§ 3 item 2).  The rank of ∂b/∂ẋ must be m: otherwise :class:`RankError`
    explains the hidden holonomic constraints found by
    :func:`~geonh.systems.constraint_analysis.analyze_constraints` and asks for the full-rank set
    (:meth:`regularized`) — a pseudo-inverse would give the wrong motion (example 3.1).
    """

    system: NonlinearSystem  # the system it was made from (from_system only)

    def __init__(self, free: FreeSystem, constraints: Sequence, holonomic: Sequence = (), *,
                 solved: Mapping | None = None, allow_rank_deficient: bool = False):
        if not isinstance(free, FreeSystem):
            raise ParseError(f"GaussSystem takes a FreeSystem, not {type(free).__name__}")
        self.free = free
        self.space = S = free.space
        known = known_symbols(S, free.T, list(free.f), constraints, holonomic)
        constraints = [S.check_expression(as_expression(c, known, what="constraint"), "constraint")
                       for c in as_sequence(constraints, "constraints")]
        holonomic = [S.check_expression(as_expression(c, known, what="holonomic constraint"),
                                        "holonomic constraint") for c in as_sequence(holonomic, "holonomic")]
        report = analyze_constraints(S, constraints, holonomic) if not allow_rank_deficient else None
        raw = []
        self.configuration_constraints = []
        for c in list(constraints) + list(holonomic):
            c = as_expression(c, S.state_symbols, what="constraint")
            if c.has(*S.qd):
                raw.append(c)
            else:
                self.configuration_constraints.append(c)
                raw.append(S.total_derivative(c))
        self.b: tuple[sp.Expr, ...] = tuple(raw)
        self.report = report
        self.rank_deficient = False
        if report is not None and not report.full_rank:
            raise RankError(
                "Gauss's principle needs ∂b/∂ẋ of full rank (seed 001, § 3): " + report.explain()
                + ". A Moore–Penrose inverse of the raw set would not keep these constraints (it leaves "
                "the hidden ones unenforced); build GaussSystem.regularized(free, constraints) instead")
        if allow_rank_deficient:
            self.rank_deficient = generic_rank(self.B) < len(self.b)
        self._solved = as_values(solved, S.state_symbols, what="solved") if solved is not None else None

    @classmethod
    def regularized(cls, free: FreeSystem, constraints: Sequence, holonomic: Sequence = ()) -> "GaussSystem":
        """The bound system with the full-rank replacement set of the constraint analysis
        (hidden holonomic constraints made explicit, seed 001 example 3.1)."""
        rep = analyze_constraints(free.space, constraints, holonomic)
        out = cls(free, rep.velocity_constraints)
        out.report = rep
        out.configuration_constraints = list(rep.configuration_constraints)
        return out

    @classmethod
    def from_system(cls, system) -> "GaussSystem":
        """From a :class:`MechanicalSystem` or :class:`NonlinearSystem` (its constraints φ)."""
        if isinstance(system, MechanicalSystem):
            system = NonlinearSystem.from_mechanical(system)
        if not isinstance(system, NonlinearSystem):
            raise ParseError(f"expected a MechanicalSystem or NonlinearSystem, got {type(system).__name__}")
        if system.virtual != "chetaev":
            raise NotLinearError("Gauss's principle gives Chetaev's reactions; the system uses another rule")
        out = cls(FreeSystem.from_system(system), list(system.phi), solved=system._solved)
        out.system = system
        return out

    # -- the pieces of (5) and (7) ----------------------------------------------------------------
    @property
    def B(self) -> sp.Matrix:
        """b_{μ2} = ∂b_μ/∂ẋ (m × n)."""
        S = self.space
        return sp.Matrix([[sp.diff(b, v) for v in S.qd] for b in self.b]) if self.b else sp.zeros(0, S.n)

    @property
    def c(self) -> sp.Matrix:
        """c_μ = b_{μ1} ẋ + b_{μ2} f + b_{μ3} of eq. (5)."""
        S = self.space
        sub = dict(zip(S.qdd, self.free.f))
        return sp.Matrix([S.total_derivative(b).xreplace(sub) for b in self.b]) if self.b else sp.zeros(0, 1)

    def Z(self, r: Sequence) -> sp.Expr:
        """Gauss's constraint Z(r) = T(x, r, t) (the quadratic form a, seed 001 § 4)."""
        rv = sp.Matrix(as_exprs(r, self.space.state_symbols, what="r"))
        if rv.rows != self.space.n:
            raise DimensionError(f"r needs {self.space.n} components, got {rv.rows}")
        return (rv.T * self.free.metric * rv)[0, 0] / 2

    def constraint_acceleration(self) -> sp.Matrix:
        """r = a⁻¹ b_2ᵀ (b_2 a⁻¹ b_2ᵀ)⁻¹ (−c), symbolic (LU solves, no simplify)."""
        self.refuse_deficient()
        a, B, c = self.free.metric, self.B, self.c
        aiBt = lu_solve(a, B.T, what="the metric a of T")
        G = B * aiBt
        lam = lu_solve(G, -c, what="Gram matrix b_2 a⁻¹ b_2ᵀ")
        return aiBt * lam

    def refuse_deficient(self) -> None:
        """Raise RankError if ∂b/∂ẋ is rank deficient (the equations are not determined)."""
        if self.rank_deficient:
            raise RankError("∂b/∂ẋ is rank deficient: the equations of Gauss's principle are not determined; "
                            "use GaussSystem.regularized (only the numerical pseudo-inverse is available, "
                            "for demonstration)")

    # -- numerics -------------------------------------------------------------------------------
    def accelerations_at(self, state: Mapping, *, method: str = "moore-penrose",
                         allow_rank_deficient: bool = False) -> list:
        """ẍ = f + r at a state {t, x, ẋ, parameters}, r from the closed form evaluated
        numerically (mpmath, PRECISION digits): ``method="moore-penrose"`` (r = L⁻ᵀ(b_2 L⁻ᵀ)⁺(−c),
        Cholesky factor L) or ``"kkt"`` (solve (5), (7)).  A rank-deficient b_2 at the state
        raises :class:`RankError` unless ``allow_rank_deficient`` (then the pseudo-inverse
        result is returned as is — wrong in general, see example 3.1)."""
        vals = as_values(state, self.space.state_symbols, what="state")
        a = [[to_mp(value_at(e, vals)) for e in row] for row in self.free.metric.tolist()]
        B = [[to_mp(value_at(e, vals)) for e in row] for row in self.B.tolist()]
        c = [to_mp(value_at(e, vals)) for e in self.c]
        f = [to_mp(value_at(e, vals)) for e in self.free.f]
        r = constrained_acceleration(a, B, c, method=method, allow_rank_deficient=allow_rank_deficient)
        with mpmath.workdps(precision()):
            return [fi + ri for fi, ri in zip(f, r)]

    # -- states ---------------------------------------------------------------------------------
    def parameters(self) -> set:
        out: set = set()
        for e in (self.free.T, *self.free.f, *self.b):
            out |= e.free_symbols
        return out - set(self.space.state_symbols)

    def sample_state(self, rng: random.Random, extra_symbols=()) -> dict:
        """Random state satisfying the velocity constraints b = 0 (hook for same_motion)."""
        if self._solved is None:
            self._solved = solve_dependent_velocities(self.space, self.b, self.parameters())
        conds = self.free.conditions
        extra = set().union(*[c.free_symbols for c in conds]) if conds else set()
        params = sorted(self.parameters() | set(as_symbols(extra_symbols, what="extra symbols")) | extra,
                        key=sp.default_sort_key)
        return sample_consistent_state(self.space, self.b, self._solved, rng, params, conditions=conds)

    def __repr__(self) -> str:
        return f"GaussSystem({self.space!r}, {len(self.b)} constraint(s))"


def _mp(x, what: str):
    """A number (mpmath, Python, or a sympy number) at PRECISION digits; ParseError / MissingValueError
    for anything that is not a number."""
    if isinstance(x, (mpmath.mpf, mpmath.mpc, int, float)) and not isinstance(x, bool):
        return x if isinstance(x, (mpmath.mpf, mpmath.mpc)) else mpmath.mpf(x)
    return to_mp(value_at(expr_of(x, what=what)))


def _mp_matrix(rows, what: str = "matrix") -> mpmath.matrix:
    if isinstance(rows, mpmath.matrix):
        return rows
    rows = [as_sequence(row, what) for row in as_sequence(rows, what)]
    if rows and len({len(r) for r in rows}) > 1:
        raise DimensionError(f"{what}: rows of different lengths")
    with mpmath.workdps(precision()):
        return mpmath.matrix([[_mp(x, what) for x in row] for row in rows]) if rows else mpmath.matrix(0, 0)


def moore_penrose(A: mpmath.matrix, rtol=None) -> tuple[mpmath.matrix, int]:
    """Moore–Penrose inverse of a real mpmath matrix by SVD, and its numerical rank."""
    A = _mp_matrix(A, "A")
    rtol = as_float(rtol, "rtol", minimum=0) if rtol is not None else None
    with mpmath.workdps(precision()):
        m, n = A.rows, A.cols
        U, s, V = mpmath.svd_r(A)
        tol = (rtol if rtol is not None else mpmath.mpf(10) ** (-(precision() // 2))) * (max(s) if len(s) else 0)
        P = mpmath.zeros(n, m)
        rank = 0
        for k in range(len(s)):
            if s[k] > tol:
                rank += 1
                for i in range(n):
                    for j in range(m):
                        P[i, j] += V[k, i] * U[j, k] / s[k]
        return P, rank


def constrained_acceleration(a, B, c, *, method: str = "moore-penrose",
                             allow_rank_deficient: bool = False) -> list:
    """r minimizing ½ rᵀ a r subject to B r = −c (numbers; seed 001 eqs. (5)–(7)).

    ``method="moore-penrose"``: r = L⁻ᵀ (B L⁻ᵀ)⁺ (−c) with a = L Lᵀ (Udwadia–Kalaba);
    ``"kkt"``: the linear system [[a, Bᵀ], [B, 0]] (r, λ) = (0, −c) of (7) and (5).
    Rank-deficient B raises :class:`RankError` unless ``allow_rank_deficient``.
    """
    with mpmath.workdps(precision()):
        A = _mp_matrix(a, "the metric a")
        n = A.rows
        c = [_mp(x, "c") for x in as_sequence(c, "c")]
        m = len(c)
        if m == 0:
            return [mpmath.mpf(0)] * n
        Bm = _mp_matrix(B, "B")
        if A.rows != A.cols or Bm.rows != m or Bm.cols != n:
            raise DimensionError(f"a must be n x n, B m x n and c of length m; got {A.rows}x{A.cols}, "
                                 f"{Bm.rows}x{Bm.cols}, {m}")
        cm = mpmath.matrix(c)
        try:
            L = mpmath.cholesky(A)
        except (ValueError, ZeroDivisionError):
            raise SingularMapError("the metric a of T is not positive definite at this state") from None
        LiT = mpmath.inverse(L.T)
        P = Bm * LiT
        Pp, rank = moore_penrose(P)
        if rank < m and not allow_rank_deficient:
            raise RankError(f"∂b/∂ẋ has rank {rank} < {m} at this state: the constraint set is not of full "
                            "rank (hidden or dependent constraints); the pseudo-inverse would give a wrong "
                            "motion — analyse the constraints first (geonh.constraint_analysis)")
        if method == "moore-penrose":
            r = LiT * (Pp * (-cm))
            return [r[i] for i in range(n)]
        if method == "kkt":
            if rank < m:
                raise RankError("the KKT system (5), (7) is singular for rank-deficient ∂b/∂ẋ")
            K = mpmath.zeros(n + m, n + m)
            rhs = mpmath.zeros(n + m, 1)
            for i in range(n):
                for j in range(n):
                    K[i, j] = A[i, j]
            for k in range(m):
                for i in range(n):
                    K[n + k, i] = Bm[k, i]
                    K[i, n + k] = Bm[k, i]
                rhs[n + k] = -cm[k]
            x = mpmath.lu_solve(K, rhs)
            return [x[i] for i in range(n)]
        raise ParseError(f"method must be 'moore-penrose' or 'kkt', not {method!r}")
