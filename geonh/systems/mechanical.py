"""Mechanical systems: kinetic energy, forces and constraints on a configuration space.

A :class:`MechanicalSystem` carries T(t, q, q̇) (checked quadratic in q̇ with a positive
definite mass matrix), a potential V(t, q), generalized forces Q(t, q, q̇), holonomic
constraints f(t, q) = 0 (entered through their time derivative) and constraints linear in
the velocities A(t, q) q̇ + b(t, q) = 0, stored as a :class:`~geonh.Codistribution` (on a
space with time the affine part b is the dt component).

Constraints are ideal in Chetaev's sense (CONVENTIONS.md): the reaction is
R_i = λ_κ ∂φ^κ/∂q̇^i = λ_κ A_κi, so  d/dt ∂T/∂q̇^i − ∂T/∂q^i = Q_i + λ_κ A_κi.
(sympy's LagrangesMethod stores the opposite sign of λ.)
"""
from __future__ import annotations

import random
from functools import cached_property
from typing import Iterable, Mapping, Sequence

import mpmath
import sympy as sp

from ..errors import (DimensionError, NotLinearError, NotPositiveDefiniteError,
                      RankError, SpaceMismatchError)
from ..kernel.distributions import Codistribution
from ..kernel.evaluation import PRECISION, random_rational, to_mp, to_sympy, value_at
from ..kernel.forms import OneForm
from ..kernel.generic_point import sample_points
from ..kernel.space import ConfigurationSpace, as_expression
from ..transposition.adapted import solve_constraints

__all__ = ["MechanicalSystem", "random_state"]


class MechanicalSystem:
    """A mechanical system with ideal (Chetaev) constraints linear in the velocities.

    Parameters
    ----------
    space : the configuration space (with time for rheonomic systems).
    T : kinetic energy, an expression in (t, q, q̇), quadratic in q̇.
    V : potential energy V(t, q) (default 0); enters as the force −∂V/∂q.
    forces : generalized forces Q_i(t, q, q̇): a sequence over ``space.q`` or a mapping
        {coordinate: Q_i}.  Accelerations are refused.
    constraints : constraints linear in the velocities, as expressions (= 0) or Equalities,
        or a :class:`Codistribution` on ``space``.
    holonomic : holonomic constraints f(t, q) = 0; they enter through ḟ = 0.
    """

    def __init__(self, space: ConfigurationSpace, T, V=0, forces=None, constraints=(),
                 holonomic=(), name: str = ""):
        if not isinstance(space, ConfigurationSpace):
            raise TypeError("first argument must be a ConfigurationSpace")
        self.space = space
        self.name = name
        self.T = sp.sympify(T)
        self.V = sp.sympify(V)
        self._check_symbols(self.T, "kinetic energy T", allow_qd=True)
        self._check_symbols(self.V, "potential V", allow_qd=False)
        if self.T.has(*space.qdd):
            raise NotLinearError("the kinetic energy must not contain accelerations")
        if self.V.has(*space.qd) or self.V.has(*space.qdd):
            raise NotLinearError("the potential V(t, q) must not depend on velocities")
        self._check_quadratic()
        self.Q: tuple[sp.Expr, ...] = self._forces(forces)
        self.holonomic: tuple[sp.Expr, ...] = tuple(
            as_expression(f, space.state_symbols, what="holonomic constraint") for f in holonomic)
        for f in self.holonomic:
            if f.has(*space.qd) or f.has(*space.qdd):
                raise NotLinearError(f"holonomic constraint {f} = 0 contains velocities")
        self.constraints: Codistribution = self._constraints(constraints)

    # -- validation -------------------------------------------------------------------------
    def _check_symbols(self, expr, what, allow_qd=True):
        for f in expr.atoms(sp.core.function.AppliedUndef):
            raise SpaceMismatchError(
                f"{what} contains the function {f}; use plain symbols (ConfigurationSpace.from_dynamic "
                "converts dynamicsymbols)")

    def _check_quadratic(self) -> None:
        M = self.mass_matrix
        for e in M:
            if e.has(*self.space.qd):
                raise NotLinearError("the kinetic energy is not quadratic in the velocities "
                                     "(its velocity Hessian depends on the velocities)")
        # positive definiteness at the generic point: Cholesky at random points
        free = set().union(*[e.free_symbols for e in M]) if M else set()
        n = M.rows
        for pt in sample_points(free, 3):
            vals = [value_at(e, pt, strict=False, tree=True) for e in M]
            if any(v is None for v in vals):
                continue
            with mpmath.workdps(PRECISION):
                A = mpmath.matrix(n, n)
                for k, v in enumerate(vals):
                    A[k // n, k % n] = to_mp(v)
                try:
                    L = mpmath.cholesky(A)
                    ok = all(L[i, i] > mpmath.mpf(10) ** (-PRECISION // 3) for i in range(n))
                except (ValueError, ZeroDivisionError):
                    ok = False
            if not ok:
                raise NotPositiveDefiniteError(
                    f"the mass matrix ∂²T/∂q̇² is not positive definite at {pt} "
                    "(parameters were given random positive values)")

    def _forces(self, forces) -> tuple[sp.Expr, ...]:
        S = self.space
        if forces is None:
            Q = [sp.S.Zero] * S.n
        elif isinstance(forces, Mapping):
            Q = [sp.S.Zero] * S.n
            for k, v in forces.items():
                i = S.index(k)
                if i >= S.n:
                    raise DimensionError("no generalized force acts along the time coordinate")
                Q[i] += sp.sympify(v)
        else:
            Q = [sp.sympify(v) for v in forces]
            if len(Q) != S.n:
                raise DimensionError(f"{S.n} generalized forces needed (one per coordinate), got {len(Q)}")
        for v in Q:
            if v.has(*S.qdd):
                raise NotLinearError(f"generalized force {v} depends on accelerations; "
                                     "move such terms into the kinetic energy")
            self._check_symbols(v, "a generalized force")
        gradV = [-sp.diff(self.V, s) for s in S.q]
        return tuple(a + b for a, b in zip(Q, gradV))

    def _constraints(self, constraints) -> Codistribution:
        S = self.space
        forms: list[OneForm] = []
        if isinstance(constraints, Codistribution):
            if constraints.space != S:
                raise SpaceMismatchError("the constraint codistribution lives on another space")
            forms.extend(constraints.forms)
        else:
            forms.extend(Codistribution.from_constraints(
                S, [as_expression(c, S.state_symbols, what="constraint") for c in constraints]).forms)
        for f in self.holonomic:
            forms.append(OneForm(S, [sp.diff(f, s) for s in S.coords]))
        cod = Codistribution(forms, S)
        if cod.rank < len(forms):
            raise RankError(
                f"the {len(forms)} velocity constraints have rank {cod.rank} at the generic point: "
                "they are dependent or hide holonomic constraints (see geonh.constraint_analysis)")
        return cod

    # -- derived data -----------------------------------------------------------------------
    @property
    def n(self) -> int:
        return self.space.n

    @property
    def n_constraints(self) -> int:
        return self.constraints.rank

    @property
    def dof(self) -> int:
        """Number of independent velocities m = n − (number of constraints)."""
        return self.space.n - self.constraints.rank

    @cached_property
    def constraint_matrix(self) -> tuple[sp.Matrix, sp.Matrix]:
        """(A, b) with the constraints A q̇ + b = 0 (b = 0 unless rheonomic)."""
        M = self.constraints.matrix()
        n = self.space.n
        A = M[:, :n]
        b = M[:, n] if self.space.t is not None else sp.zeros(M.rows, 1)
        return A, b

    @cached_property
    def quadratic_parts(self) -> tuple[sp.Matrix, sp.Matrix, sp.Expr]:
        """(M, b, T0) with T = ½ q̇ᵀ M q̇ + bᵀ q̇ + T0 (b, T0 vanish for scleronomic T).

        Read off the monomials of T in the velocities when T is written as such a sum (fast);
        otherwise (e.g. T = Σ ½ m |v|² with unexpanded squares) by differentiation, which keeps
        the entries as compact as T itself."""
        qd = self.space.qd
        parts = _quadratic_coefficients(self.T, qd)
        if parts is None:
            n = len(qd)
            p = [sp.diff(self.T, v) for v in qd]
            M = sp.Matrix(n, n, lambda i, j: sp.diff(p[i], qd[j]))
            zero = {v: 0 for v in qd}
            parts = (M, sp.Matrix([e.xreplace(zero) for e in p]), self.T.xreplace(zero))
        return parts

    @property
    def mass_matrix(self) -> sp.Matrix:
        """M_ij = ∂²T/∂q̇^i∂q̇^j."""
        return self.quadratic_parts[0]

    @cached_property
    def momenta(self) -> tuple[sp.Expr, ...]:
        """p_i = ∂T/∂q̇^i = M_ij q̇^j + b_i."""
        M, b, _ = self.quadratic_parts
        qd = self.space.qd
        return tuple(sum((M[i, k] * qd[k] for k in range(len(qd)) if M[i, k] != 0), b[i])
                     for i in range(len(qd)))

    @cached_property
    def primitives(self) -> dict:
        """Small building blocks of Lagrange's expressions, each a derivative of an entry of
        (M, b, T0) — never of the whole T:  p_i = M_ik q̇^k + b_i,
        ṗ⁰_i = ∂_j p_i ẋ^j (ṗ without the M q̈ part; ẋ includes ṫ = 1) and ∂T/∂q^j.
        Then L_i = M_ij q̈^j + ṗ⁰_i − ∂T/∂q^i."""
        S = self.space
        n = S.n
        M, b, T0 = self.quadratic_parts
        qd = S.qd
        X = list(S.q) + ([S.t] if S.t is not None else [])
        xd = list(qd) + ([sp.S.One] if S.t is not None else [])

        def grad(e):
            fs = e.free_symbols
            return [sp.diff(e, x) if x in fs else sp.S.Zero for x in X]

        dM = {(i, k): grad(M[i, k]) for i in range(n) for k in range(i, n)}

        def dMf(i, k):
            return dM[(i, k)] if k >= i else dM[(k, i)]

        db = [grad(b[i]) for i in range(n)]
        dT0 = grad(T0)
        p = list(self.momenta)
        pdot0 = []
        for i in range(n):
            e = sp.S.Zero
            for k in range(n):
                g = sum((dMf(i, k)[j] * xd[j] for j in range(len(X)) if dMf(i, k)[j] != 0), sp.S.Zero)
                if g != 0:
                    e += g * qd[k]
            e += sum((db[i][j] * xd[j] for j in range(len(X)) if db[i][j] != 0), sp.S.Zero)
            pdot0.append(e)
        dTdq = []
        for j in range(n):
            e = sum((dMf(i, k)[j] * qd[i] * qd[k] * (1 if i == k else 2) for i in range(n)
                     for k in range(i, n) if dMf(i, k)[j] != 0), sp.S.Zero) / 2
            e += sum((db[i][j] * qd[i] for i in range(n) if db[i][j] != 0), sp.S.Zero) + dT0[j]
            dTdq.append(e)
        return {"p": p, "pdot0": pdot0, "dTdq": dTdq}

    @cached_property
    def lagrange_operator(self) -> tuple[sp.Expr, ...]:
        """L_i = d/dt ∂T/∂q̇^i − ∂T/∂q^i = M_ij q̈^j + ṗ⁰_i − ∂T/∂q^i (in t, q, q̇, q̈): Lagrange's
        acceleration components (Hamel 1924, eq. (9)), from :attr:`primitives`."""
        S = self.space
        P = self.primitives
        M = self.mass_matrix
        return tuple(sum((M[i, j] * S.qdd[j] for j in range(S.n) if M[i, j] != 0), sp.S.Zero)
                     + P["pdot0"][i] - P["dTdq"][i] for i in range(S.n))

    @cached_property
    def extended_metric(self) -> sp.Matrix:
        """G on (q, t): T = ½ G_ab ẋ^a ẋ^b with ẋ^t = 1 (equals M when scleronomic)."""
        S = self.space
        n = S.n
        M = self.mass_matrix
        if S.t is None:
            return M
        zero = {v: 0 for v in S.qd}
        T1 = [sp.diff(self.T, v).xreplace(zero) for v in S.qd]
        T0 = self.T.xreplace(zero)
        G = sp.zeros(n + 1, n + 1)
        G[:n, :n] = M
        for i in range(n):
            G[i, n] = G[n, i] = T1[i]
        G[n, n] = 2 * T0
        return G

    @cached_property
    def christoffel(self) -> list[list[list[sp.Expr]]]:
        """Γ_{k,ab} = ½(∂_a G_kb + ∂_b G_ka − ∂_k G_ab) of the extended metric (first kind,
        k over the true coordinates, a, b over all coordinates including time)."""
        S = self.space
        G = self.extended_metric
        X = S.coords
        N = len(X)
        dG = [[[sp.diff(G[i, j], X[a]) for a in range(N)] for j in range(N)] for i in range(N)]
        return [[[(dG[k][b][a] + dG[k][a][b] - dG[a][b][k]) / 2 for b in range(N)] for a in range(N)]
                for k in range(S.n)]

    def acceleration_energy(self) -> sp.Expr:
        """Appell's S = ½ M_ij q̈^i q̈^j + q̈^k Γ_{k,ab} ẋ^a ẋ^b, up to terms free of q̈.

        Built from the Christoffel symbols (not from d/dt ∂T/∂q̇), so ∂S/∂q̈ = L is an
        independent route to Lagrange's expressions (Hamel 1924, eq. (10)).
        """
        S = self.space
        xd = S.velocities
        qdd = S.qdd
        M = self.mass_matrix
        Gam = self.christoffel
        quad = sum(M[i, j] * qdd[i] * qdd[j] for i in range(S.n) for j in range(S.n)) / 2
        lin = sum(qdd[k] * sum(Gam[k][a][b] * xd[a] * xd[b] for a in range(len(xd)) for b in range(len(xd))
                               if Gam[k][a][b] != 0) for k in range(S.n))
        return quad + lin

    # -- construction from sympy.physics.mechanics ---------------------------------------------
    @classmethod
    def from_mechanics(cls, coordinates: Sequence, bodies: Sequence, frame, loads: Sequence = (),
                       constraints: Sequence = (), holonomic: Sequence = (), potential=0,
                       time: bool = False, name: str = "") -> "MechanicalSystem":
        """Build from sympy.physics.mechanics: dynamicsymbol coordinates q(t), bodies/particles
        (T = Σ body.kinetic_energy(frame)), loads (Force(point, vector) or Torque(frame, vector),
        turned into generalized forces Q_i = Σ F·∂v_P/∂q̇^i + M·∂ω/∂q̇^i), constraints in
        dynamicsymbols.  Names of the coordinates are kept.
        """
        from sympy.physics.mechanics import dynamicsymbols
        t = dynamicsymbols._t
        names = []
        for q in coordinates:
            if not (isinstance(q, sp.core.function.AppliedUndef) and q.args == (t,)):
                raise SpaceMismatchError(f"{q} is not a dynamicsymbol q(t)")
            names.append(q.func.__name__)
        S = ConfigurationSpace(names, time=t if time else False)
        T = sum((b.kinetic_energy(frame) for b in bodies), sp.S.Zero)
        qdots = [q.diff(t) for q in coordinates]
        Q = [sp.S.Zero] * len(coordinates)
        for load in loads:
            loc, vec = load[0], load[1]
            if hasattr(loc, "vel"):  # a Point
                v = loc.vel(frame)
            else:  # a ReferenceFrame (torque)
                v = loc.ang_vel_in(frame)
            for i, qd in enumerate(qdots):
                Q[i] += vec.dot(v.diff(qd, frame))
        conv = S.from_dynamic
        return cls(S, conv(T), V=conv(potential), forces=[conv(x) for x in Q],
                   constraints=[conv(c) for c in constraints], holonomic=[conv(h) for h in holonomic],
                   name=name)

    # -- states -------------------------------------------------------------------------------
    def sample_state(self, rng: random.Random, extra_symbols: Iterable = ()) -> dict:
        """A random rational state {t, q, q̇, parameters} satisfying the velocity constraints:
        coordinates, parameters (every other free symbol of T, V, Q, the constraints and
        ``extra_symbols``) and free velocities random rationals, the dependent velocities
        solved from the constraints (:func:`~geonh.transposition.solve_constraints`)."""
        S = self.space
        if self.n_constraints:
            free, dep, a, a0 = solve_constraints(self)
        else:
            free, dep, a, a0 = list(range(S.n)), [], None, None
        params: set = set(extra_symbols)
        for e in (self.T, self.V, *self.Q, *list(self.constraints.matrix())):
            params |= sp.sympify(e).free_symbols
        vals = random_state(S, rng, params, [S.qd[s] for s in free])
        for k, j in enumerate(dep):
            e = sum((a[k, c] * vals[S.qd[s]] for c, s in enumerate(free)), a0[k])
            vals[S.qd[j]] = to_sympy(value_at(e, vals))
        return vals

    def __repr__(self) -> str:
        nm = f"{self.name}: " if self.name else ""
        return f"MechanicalSystem({nm}{self.space!r}, {self.n_constraints} constraint(s))"


def random_state(space: ConfigurationSpace, rng: random.Random, params: Iterable = (),
                 velocities: Sequence[sp.Symbol] = ()) -> dict:
    """The drawn part of a random state: :func:`~geonh.kernel.evaluation.random_rational` values
    for the coordinates (time included), then for ``params`` (sorted by name; state symbols
    are skipped), then values of either sign for ``velocities`` in the given order.  Every
    ``sample_state`` draws in this order, so a fixed seed gives a fixed state."""
    vals: dict = {s: random_rational(rng) for s in space.coords}
    for p in sorted(set(params) - set(space.state_symbols), key=sp.default_sort_key):
        vals[p] = random_rational(rng)
    for v in velocities:
        vals[v] = random_rational(rng) * rng.choice([-1, 1])
    return vals


def _quadratic_coefficients(T: sp.Expr, qd: Sequence[sp.Symbol]):
    """(M, b, T0) read off T = Σ monomials of degree ≤ 2 in ``qd``; None if T is not in
    that shape (e.g. unexpanded squares, or not polynomial in the velocities)."""
    n = len(qd)
    index = {v: i for i, v in enumerate(qd)}
    M = [[sp.S.Zero] * n for _ in range(n)]
    b = [sp.S.Zero] * n
    T0 = sp.S.Zero
    for term in sp.Add.make_args(T):
        c, mon = term.as_independent(*qd, as_Add=False)
        if mon == 1:
            T0 += c
            continue
        pw = mon.as_powers_dict()
        idx = []
        for base, e in pw.items():
            if base not in index or not (e.is_Integer and e > 0):
                return None
            idx += [index[base]] * int(e)
        if len(idx) == 1:
            b[idx[0]] += c
        elif len(idx) == 2:
            i, j = idx
            if i == j:
                M[i][i] += 2 * c
            else:
                M[i][j] += c
                M[j][i] += c
        else:
            return None
    return sp.Matrix(M), sp.Matrix(b), T0
