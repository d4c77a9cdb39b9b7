"""Hertz's representation space and non-ideal constraints (seed 003, §§ 1–4).

A system of particles x_μ with masses m_μ (μ = 1 … 3n) becomes one point of mass
M = Σ_ν m_ν = ⅓ Σ_μ m_μ (10) in a Euclidean space with y_μ = √(m̃_μ) x_μ, m̃ = m/M, and
M W = Y + R' (12).  In generalized coordinates q the basis e_σ = ∂y/∂q^σ has the metric

    g_στ = e_σ·e_τ = M_στ / M      (M_στ = ∂²T/∂q̇^σ∂q̇^τ, the mass matrix),

and covariant components are the familiar ones: M W·e_σ = d/dt ∂T/∂q̇^σ − ∂T/∂q^σ (Lagrange's
expressions), Y·e_σ = Q_σ, R'·e_σ = R_σ.  Everything below works with covariant component
rows and the metric g, so it applies to any T (particles in Cartesian coordinates give a
constant g, the case where galgebra is used, see :func:`split_galgebra`).

Nonholonomic bases (26): for quasi-velocities v*^ρ(t, q, q̇) with v*^{l+κ} = φ^κ (27)

    ε_τ = ∂q̇^σ/∂v*^τ e_σ,      ε^ρ = ∂v*^ρ/∂q̇^τ e^τ,      ε^ρ·ε_τ = δ^ρ_τ,

so ε^{l+κ} = ∇'φ^κ (covariant components ∂φ^κ/∂q̇^σ) and ∂q̇/∂v* = (∂v*/∂q̇)⁻¹.  L = span(ε_λ)
and K = span(ε^{l+κ}) are orthogonal complements: W = W_L + W^K, W_L·W^K = 0.

Reactions (14): R' = N + T0 with N = Λ_κ ∇'φ^κ ∈ K (the Chetaev reaction, covariant
components Λ_κ ∂φ^κ/∂q̇^σ) and T0 ∈ L.  Ideal constraints: T0 = 0.  Taking the K part of (12)
determines Λ without knowing T0 (it generalizes (5)):

    Λ = G⁻¹ [ ∂φ/∂q̇ · (q̈ + Γ q̇ q̇)|_{φ̇=0} − ∂φ/∂q̇ M⁻¹ Q ],   G = ∂φ/∂q̇ M⁻¹ ∂φ/∂q̇ᵀ,

with ∂φ/∂q̇ · q̈ = −(∂φ/∂t + ∂φ/∂q q̇) from (3); for one particle in Cartesian coordinates
this is exactly (5): Λ = −(m ∂φ/∂t + m ∇φ·v + F·∇'φ)/|∇'φ|².

Coulomb friction (§ 1): T0 = −k |N| v/|v|.  The seed requires T0 ⊥ N, which v satisfies when
v ⊥ ∇'φ (holonomic constraints; scleronomic constraints homogeneous in q̇, by Euler's
theorem).  In general we use the component v_L of v in L (equal to v in those cases):
T0 = −k |N| v_L/|v_L|.
"""
from __future__ import annotations

import time
from typing import Sequence

import sympy as sp

from ..errors import DimensionError, NotAdaptedError, ParseError, RankError
from ..kernel.generic_point import generic_rank, lu_solve
from ..kernel.parsing import as_expr, as_exprs, as_sequence
from .nonlinear import as_nonlinear

__all__ = ["HertzSpace", "split_galgebra", "benchmark_split"]


class HertzSpace:
    """The representation space of a :class:`NonlinearSystem` (seed 003, §§ 2–4).

    ``total_mass`` is M of (10); default: ⅓ trace(M_στ) for a constant diagonal mass matrix of
    size 3n (particles in Cartesian coordinates), else trace(M_στ)/n.  ``quasi`` (optional):
    the quasi-velocities v*^ρ (last k = the constraints); default (q̇^1 … q̇^l, φ^1 … φ^k) —
    any independent completion, the split W = W_L + W^K does not depend on it.
    """

    def __init__(self, system, total_mass=None, quasi: Sequence | None = None):
        system = as_nonlinear(system)
        self.system = system
        S = self.space = system.space
        n, k = S.n, system.n_constraints
        self.l = n - k
        Mass = system.mass_matrix
        if total_mass is None:
            const_diag = Mass.is_diagonal() and not any(e.has(*S.coords) for e in Mass)
            total_mass = sp.trace(Mass) / 3 if (const_diag and n % 3 == 0) else sp.trace(Mass) / n
        self.M = as_expr(total_mass, S.state_symbols, what="total mass")
        self.mass = Mass
        #: Hertz's metric g = M_στ/M: the mass matrix divided by the total mass
        self.metric = Mass / self.M
        if quasi is None:
            J = system.constraint_jacobian
            free = self._complement(J)
            quasi = [S.qd[i] for i in free] + list(system.phi)
        quasi = [as_expr(e, S.state_symbols, what="quasi-velocity") for e in as_sequence(quasi, "quasi")]
        if len(quasi) != n:
            raise DimensionError(f"{n} quasi-velocities needed, got {len(quasi)}")
        self.quasi = quasi
        self.Jv = sp.Matrix([[sp.diff(w, v) for v in S.qd] for w in quasi])  # rows: ε^ρ (covariant)
        if generic_rank(self.Jv) < n:
            raise RankError("the quasi-velocities are dependent: ∂v*/∂q̇ is singular")
        self._Mi = None

    def _complement(self, J: sp.Matrix) -> list[int]:
        n = self.space.n
        free: list[int] = []
        for i in range(n):
            if len(free) == self.l:
                break
            row = sp.zeros(1, n)
            row[i] = 1
            trial = J.col_join(sp.Matrix([[1 if j == c else 0 for j in range(n)] for c in free + [i]]))
            if generic_rank(trial) == J.rows + len(free) + 1:
                free.append(i)
        return free

    # -- linear algebra in the metric -----------------------------------------------------------
    @property
    def mass_inverse(self) -> sp.Matrix:
        """M_στ⁻¹ by an explicit LU solve with generic pivots (cached; every split and multiplier
        of this space is built on it)."""
        if self._Mi is None:
            self._Mi = lu_solve(self.mass, sp.eye(self.space.n), what="mass matrix")
        return self._Mi

    def dot(self, a: Sequence, b: Sequence) -> sp.Expr:
        """a·b of two vectors given by covariant component rows: a_σ g^{στ} b_τ."""
        va, vb = self._vector(a, "a"), self._vector(b, "b")
        return (va.T * self.mass_inverse * vb)[0, 0] * self.M

    def _vector(self, w, what: str) -> sp.Matrix:
        """Covariant components (n of them) as a column, converted at the boundary."""
        v = as_exprs(w, self.space.state_symbols, what=f"vector {what}")
        if len(v) != self.space.n:
            raise DimensionError(f"vector {what} needs {self.space.n} components, got {len(v)}")
        return sp.Matrix(v)

    def dual_basis(self) -> sp.Matrix:
        """Rows: covariant components of ε^ρ (= ∂v*^ρ/∂q̇)."""
        return self.Jv

    def basis(self) -> sp.Matrix:
        """Columns: contravariant components of ε_τ, (∂v*/∂q̇)⁻¹ = ∂q̇/∂v* (26)."""
        return lu_solve(self.Jv, sp.eye(self.space.n), what="∂v*/∂q̇")

    def split(self, w: Sequence) -> tuple[sp.Matrix, sp.Matrix]:
        """(w_L, w^K): covariant components of the orthogonal parts of a vector w (covariant
        components) in L = span(ε_λ) and K = span(ε^{l+κ}).  Plain sympy:
        w^K = Nᵀ (N g⁻¹ Nᵀ)⁻¹ N g⁻¹ w with N the rows ∂φ/∂q̇."""
        wv = self._vector(w, "w")
        N = self.Jv[self.l:, :]
        if N.rows == 0:
            return wv, sp.zeros(wv.rows, 1)
        gi = self.mass_inverse * self.M
        G = N * gi * N.T
        coef = lu_solve(G, N * gi * wv, what="Gram matrix of ∇'φ")
        wK = N.T * coef
        return wv - wK, wK

    # -- acceleration, multipliers, reactions ------------------------------------------------------
    def acceleration(self) -> sp.Matrix:
        """M W·e_σ = d/dt ∂T/∂q̇^σ − ∂T/∂q^σ (covariant, times the total mass), in (t, q, q̇, q̈)."""
        return sp.Matrix(list(self.system.lagrange_operator))

    def _W_dot_grad(self) -> sp.Matrix:
        """W·ε^{l+κ} on the constraint manifold, times 1/M: ∂φ/∂q̇ (q̈ + Γ q̇ q̇) with φ̇ = 0."""
        S = self.space
        zero = {a: 0 for a in S.qdd}
        h = sp.Matrix([L.xreplace(zero) for L in self.system.lagrange_operator])  # Γ_{σ,αβ} ẋ ẋ
        N = self.system.constraint_jacobian
        out = []
        for kk, f in enumerate(self.system.phi):
            rest = S.total_derivative(f).xreplace(zero)  # ∂φ/∂t + ∂φ/∂q q̇
            out.append(-rest + (N[kk, :] * self.mass_inverse * h)[0, 0])
        return sp.Matrix(out)

    def multipliers(self) -> sp.Matrix:
        """Λ_κ(t, q, q̇) of the ideal reaction N = Λ_κ ∇'φ^κ (module docstring; seed 003 (5))."""
        N = self.system.constraint_jacobian
        Mi = self.mass_inverse
        G = N * Mi * N.T
        Q = sp.Matrix(list(self.system.Q))
        return lu_solve(G, self._W_dot_grad() - N * Mi * Q, what="Gram matrix of ∇'φ")

    def velocity(self) -> sp.Matrix:
        """V·e_σ = (1/M) ∂T/∂q̇^σ (covariant components of the velocity of the representing point)."""
        return sp.Matrix(list(self.system.momenta)) / self.M

    def reactions(self, friction: str | None = None, k=None) -> tuple[sp.Matrix, sp.Matrix]:
        """(N, T0) as covariant component columns in (t, q, q̇).  ``friction="coulomb"`` with
        coefficient ``k``: T0 = −k |N| v_L/|v_L| (module docstring); None: ideal, T0 = 0 (and
        no ``k``: a coefficient without friction would be silently ignored)."""
        if friction is not None and friction != "coulomb":
            raise ParseError(f"friction must be None or 'coulomb', not {friction!r}")
        if friction is None and k is not None:
            raise ParseError("a friction coefficient k goes with friction='coulomb'; the ideal reactions take none")
        if friction is not None and k is None:
            raise ParseError("Coulomb friction needs its coefficient k")
        if k is not None:  # checked before the multipliers are computed
            k = as_expr(k, self.space.state_symbols, what="friction coefficient k")
        Lam = self.multipliers()
        N = self.system.constraint_jacobian.T * Lam
        n = self.space.n
        if friction is None:
            return N, sp.zeros(n, 1)
        vL, _ = self.split(self.velocity())
        normN = sp.sqrt(self.dot(N, N))
        normv = sp.sqrt(self.dot(vL, vL))
        return N, -k * normN * vL / normv


# ----------------------------------------------------------------------------------------------
# galgebra route (constant metric only)
# ----------------------------------------------------------------------------------------------
def _ga_for(metric: sp.Matrix):
    from galgebra.ga import Ga
    n = metric.rows
    names = "e*" + "|".join(str(i + 1) for i in range(n))
    ga, *basis = Ga.build(names, g=metric)
    return ga, basis


def split_galgebra(hs: HertzSpace, w: Sequence) -> tuple[sp.Matrix, sp.Matrix]:
    """:meth:`HertzSpace.split` by geometric algebra: W^K = (W ⌋ B_K) B_K⁻¹ with the blade
    B_K = ε^{l+1} ∧ … ∧ ε^{3n}, in galgebra with the constant metric g.  Returns covariant
    components.  Refuses a position-dependent metric (galgebra's Ga takes a constant one here)."""
    S = hs.space
    w = list(hs._vector(w, "w"))
    if any(e.has(*S.coords) for e in hs.metric):
        raise NotAdaptedError("split_galgebra needs a constant metric (particles in Cartesian coordinates)")
    ga, e = _ga_for(hs.metric)
    gi = hs.mass_inverse * hs.M
    N = hs.Jv[hs.l:, :]
    n = S.n

    def vec(cov):
        con = gi * sp.Matrix(list(cov))
        out = ga.mv(0, "scalar")
        for i in range(n):
            out = out + con[i] * e[i]
        return out

    wv = vec(w)
    if N.rows == 0:
        return sp.Matrix(list(w)), sp.zeros(n, 1)
    blade = vec(N[0, :])
    for r in range(1, N.rows):
        blade = blade ^ vec(N[r, :])
    wK = wv.project_in_blade(blade)
    # covariant components: w^K · e_σ
    cov = sp.Matrix([sp.expand((wK | e[i]).scalar()) for i in range(n)])
    return sp.Matrix(list(w)) - cov, cov


def benchmark_split(hs: HertzSpace, w: Sequence, repeat: int = 3) -> dict:
    """Wall time (s) of the W_L/W^K split by plain sympy and by galgebra (best of ``repeat``)."""
    out = {}
    for name, fn in (("sympy", lambda: hs.split(w)), ("galgebra", lambda: split_galgebra(hs, w))):
        best = float("inf")
        for _ in range(repeat):
            t0 = time.perf_counter()
            fn()
            best = min(best, time.perf_counter() - t0)
        out[name] = best
    return out
