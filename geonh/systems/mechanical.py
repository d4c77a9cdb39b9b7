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
from dataclasses import dataclass
from functools import cached_property
from typing import Iterable, Mapping, Sequence

import mpmath
import sympy as sp

from ..errors import (DimensionError, InconsistentStateError, NotLinearError, NotPositiveDefiniteError,
                      ParseError, RankError, SpaceMismatchError)
from ..moved import renamed
from ..kernel.algebra import Algebra, SympyAlgebra, algebra_for, per_backend_property
from ..kernel.distributions import Codistribution
from ..kernel.budget import count_nodes, gc_paused
from ..kernel.evaluation import precision, to_mp, to_sympy, value_at
from ..kernel.forms import OneForm
from ..kernel.generic_point import generic_rank, not_positive_definite_at
from ..kernel.parsing import (as_expr, as_exprs, as_matrix, as_sequence, as_symbols, check_lookalikes, expr_of,
                             parse_condition, sympy_of)
from ..kernel.sampling import condition_holds, random_values
from ..kernel.space import ConfigurationSpace, as_expression, known_symbols
from ..transposition.adapted import solve_constraints

__all__ = ["MechanicalSystem", "Primitives", "random_state", "body_quadratic_parts", "velocity_quadratic_parts",
           "quadratic_form"]


def _momenta(algebra: Algebra, M: Sequence, b: Sequence, v: Sequence) -> list:
    """p_i = M_ik v^k + b_i in ``algebra`` (M a list of rows, b and the velocities v: its
    expressions): the one formula of the momenta, for :attr:`MechanicalSystem.momenta` (sympy,
    v = q̇) and :meth:`MechanicalSystem.primitives_at` (any algebra, any v)."""
    n, zero = len(v), algebra.zero
    return [algebra.add([M[i][k] * v[k] for k in range(n) if M[i][k] != zero and v[k] != zero] + [b[i]])
            for i in range(n)]


@dataclass(frozen=True)
class Primitives:
    """The small building blocks of Lagrange's expressions (Hamel 1924, eq. (9)), at velocities
    v (q̇ itself, or the kinematics K(t, q, u) on a motion), with ẋ = (v, 1) on a space with time:

        p_i = M_ik v^k + b_i,                       (momenta)
        ṗ⁰_i = (∂_j M_ik ẋ^j) v^k + ∂_j b_i ẋ^j,     (ṗ without the M q̈ part)
        ∂T/∂q^j = ½ ∂_j M_ik v^i v^k + ∂_j b_i v^i + ∂_j T0,

    for T = ½ q̇ᵀ M q̇ + bᵀ q̇ + T0; so L_i = M_ij q̈^j + ṗ⁰_i − ∂T/∂q^i.

    Attributes
    ----------
    M : the mass matrix, a tuple of rows.
    p, pdot0, dTdq : one entry per true coordinate.
    algebra : the name of the algebra that computed them ("sympy" or "symengine").  From
        :attr:`MechanicalSystem.primitives` the entries are sympy expressions (M the given mass
        matrix and p the :attr:`~MechanicalSystem.momenta`: no derivative is in them); from
        :meth:`MechanicalSystem.primitives_at` they are that algebra's own expressions.
    """

    M: tuple[tuple[sp.Expr, ...], ...]
    p: tuple[sp.Expr, ...]
    pdot0: tuple[sp.Expr, ...]
    dTdq: tuple[sp.Expr, ...]
    algebra: str


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
    conditions : the parameter domain beyond the symbols' sympy assumptions: relationals such
        as ``J > J0`` (or strings ``"J > J0"``).  The positive-definiteness check and the random
        states (:meth:`sample_state`) draw only parameter values that satisfy them.

    Inputs are checked at the boundary: strings are parsed safely over the space's symbols and
    the parameters of the other inputs (:mod:`geonh.kernel.parsing`, never evaluated); a
    symbol that looks like the space's (or like another input's parameter) but is another
    symbol, a function of time, or ``t`` on a space without time raise
    :class:`SpaceMismatchError`; constraints that no velocity satisfies raise
    :class:`InconsistentStateError`; a mass matrix that is not positive definite at a point of
    the parameter domain raises :class:`NotPositiveDefiniteError` stating the leading principal
    minors that must be positive (their values at a point where one is not; the minors
    themselves when they are small).
    """

    @gc_paused()   # graph passes over the whole model (kernel.budget.gc_paused)
    def __init__(self, space: ConfigurationSpace, T, V=0, forces=None, constraints=(),
                 holonomic=(), name: str = "", conditions=()):
        if not isinstance(space, ConfigurationSpace):
            raise ParseError("first argument must be a ConfigurationSpace")
        self.space = space
        self.name = name
        self._known = known_symbols(space, T, V, forces, constraints, holonomic)
        self.T = self._expr(T, "kinetic energy T")
        self.V = self._expr(V, "potential V")
        self.conditions: tuple = self._conditions(conditions)
        self._check_symbols(self.T, "kinetic energy T", allow_qd=True)
        self._check_symbols(self.V, "potential V", allow_qd=False)
        if self.T.has(*space.qdd):
            raise NotLinearError("the kinetic energy must not contain accelerations")
        if self.V.has(*space.qd) or self.V.has(*space.qdd):
            raise NotLinearError("the potential V(t, q) must not depend on velocities")
        self._check_quadratic()
        self.Q: tuple[sp.Expr, ...] = self._forces(forces)
        self.holonomic: tuple[sp.Expr, ...] = tuple(
            space.check_expression(as_expression(f, self._known, what="holonomic constraint"),
                                   "holonomic constraint") for f in as_sequence(holonomic, "holonomic"))
        for f in self.holonomic:
            if f.has(*space.qd) or f.has(*space.qdd):
                raise NotLinearError(f"holonomic constraint {f} = 0 contains velocities")
        self.constraints: Codistribution = self._constraints(constraints)

    # -- validation -------------------------------------------------------------------------
    def _expr(self, value, what):
        e = as_expr(value, self._known, what=what)
        if not isinstance(e, sp.Expr):
            raise ParseError(f"{what} must be an expression, not the equation {e}")
        return self.space.check_expression(e, what)

    def _conditions(self, conditions) -> tuple:
        S = self.space
        out = []
        for c in as_sequence(conditions, "conditions"):
            if isinstance(c, str):
                text, c = c, parse_condition(c, self._known)
                if c is sp.true:     # implied by the symbols' assumptions ("m > 0", m positive)
                    continue
                if c is sp.false:
                    raise InconsistentStateError(
                        f"condition {text!r:.120} is false for every value the symbols' assumptions allow")
            if isinstance(c, (bool, sp.logic.boolalg.BooleanAtom)):
                raise ParseError(f"condition {c!r} is a truth value, not a condition on parameters "
                                 "(write it with sympy symbols, e.g. J > J0)")
            if not isinstance(c, sp.core.relational.Relational) or isinstance(c, (sp.Eq, sp.Ne)):
                raise ParseError(f"a condition must be an inequality such as J > J0, not {c!r}")
            S.check_expression(c.lhs - c.rhs, f"condition {c}")
            check_lookalikes(c.lhs - c.rhs, self._known, what=f"condition {c}")  # T's own parameters
            if c.has(*S.qd) or c.has(*S.qdd):
                raise ParseError(f"condition {c} involves velocities; conditions restrict parameters "
                                 "(and coordinates)")
            out.append(c)
        return tuple(out)

    def _check_symbols(self, expr, what, allow_qd=True):
        self.space.check_expression(expr, what)

    def _check_quadratic(self) -> None:
        M = self.mass_matrix
        for e in M:
            if e.has(*self.space.qd):
                raise NotLinearError("the kinetic energy is not quadratic in the velocities "
                                     "(its velocity Hessian depends on the velocities)")
        # positive definiteness on the parameter domain (the sympy assumptions and
        # self.conditions): the one definiteness verdict, generic_point.not_positive_definite_at
        bad = not_positive_definite_at(M, self.conditions)
        if bad is not None:
            point, values = bad
            raise NotPositiveDefiniteError(_not_pd_message(M, point, self.conditions, values))

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
                Q[i] += self._expr(v, f"generalized force along {k}")
        else:
            Q = [self._expr(v, "generalized force") for v in as_sequence(forces, "forces")]
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
        if isinstance(constraints, Codistribution):
            if constraints.space != S:
                raise SpaceMismatchError("the constraint codistribution lives on another space")
            given = constraints
        else:
            given = Codistribution.from_constraints(
                S, [S.check_expression(as_expression(c, self._known, what="constraint"), "constraint")
                    for c in as_sequence(constraints, "constraints")])
        forms: list[OneForm] = list(given.forms)
        for f in self.holonomic:
            forms.append(OneForm(S, [sp.diff(f, s) for s in S.coords]))
        # validate once: without holonomic forms the codistribution is the one just built (or
        # given), whose independent rows were decided when it was built; not decided again
        cod = given if len(forms) == len(given.forms) else Codistribution(forms, S)
        if cod.rank < len(forms):
            raise RankError(
                f"the {len(forms)} velocity constraints have rank {cod.rank} at the generic point: "
                "they are dependent or hide holonomic constraints (see geonh.constraint_analysis)")
        if S.t is not None and cod.rank:
            rA = generic_rank(cod.matrix()[:, :S.n])
            if rA < cod.rank:
                raise InconsistentStateError(
                    f"the {cod.rank} velocity constraints admit no velocity: their velocity parts have rank "
                    f"{rA} < {cod.rank}, so the affine parts contradict each other (e.g. ẋ = 1 and ẋ = 2)")
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
        """p_i = ∂T/∂q̇^i = M_ij q̇^j + b_i (``_momenta`` on sympy: products and sums only,
        no derivative, so the same on every algebra)."""
        S = self.space
        M, b, _ = self.quadratic_parts
        rows = [[M[i, k] for k in range(S.n)] for i in range(S.n)]
        return tuple(_momenta(SympyAlgebra(S.coords), rows, list(b), list(S.qd)))

    def primitives_at(self, algebra: Algebra, velocities: Sequence | None = None) -> Primitives:
        """The primitives of Lagrange's expressions (:class:`Primitives`) computed in ``algebra``
        (over this space's coordinates), with the velocities q̇ taken as ``velocities`` (default
        q̇ itself; the engine passes the kinematics K(t, q, u), so the motion is never
        substituted into a derivative).  Written once for every algebra: each derivative is of
        an entry of (M, b, T0) (upper triangle of M), never of the whole T; nothing is expanded
        or simplified.  The entries are ``algebra``'s expressions."""
        S = self.space
        n = S.n
        if not hasattr(algebra, "sympy_coords"):   # duck-typed: Algebra is a Protocol with data members
            raise ParseError(f"primitives_at takes a geonh Algebra, not {type(algebra).__name__}")
        if algebra.sympy_coords != S.coords:
            raise SpaceMismatchError(f"the algebra works over {list(algebra.coords)}, not over the coordinates "
                                     f"{list(S.coords)} of {S!r}")
        v = [algebra.native(x) for x in as_sequence(velocities if velocities is not None else S.qd, "velocities")]
        if len(v) != n:
            raise DimensionError(f"{n} velocities needed, got {len(v)}")
        zero, add, along, grad = algebra.zero, algebra.add, algebra.along, algebra.gradient
        xd = v + ([algebra.one] if S.t is not None else [])       # ẋ, with ṫ = 1
        Mq, bq, T0 = self.quadratic_parts
        Ml = Mq.tolist()
        M = [[zero] * n for _ in range(n)]
        for i in range(n):
            for j in range(i, n):
                if Ml[i][j] != 0:
                    M[i][j] = M[j][i] = algebra.native(Ml[i][j])
        b = [algebra.native(e) if e != 0 else zero for e in bq]
        dM = {(i, k): grad(M[i][k]) for i in range(n) for k in range(i, n)}   # None: free of (q, t)
        db = [grad(e) for e in b]
        dT0 = grad(algebra.native(T0)) if T0 != 0 else None
        p = _momenta(algebra, M, b, v)
        # ṗ⁰_i = (∂_j M_ik ẋ^j) v^k + ∂_j b_i ẋ^j
        Mdot = {key: along(g, xd) for key, g in dM.items()}
        pdot0 = []
        for i in range(n):
            ts = [Mdot[(min(i, k), max(i, k))] * v[k] for k in range(n)
                  if v[k] != zero and Mdot[(min(i, k), max(i, k))] != zero]
            pdot0.append(add(ts + [along(db[i], xd)]))
        # ∂T/∂q^j = ½ ∂_j M_ik v^i v^k + ∂_j b_i v^i + ∂_j T0
        dTdq = []
        for j in range(n):
            ts = []
            for i in range(n):
                if v[i] == zero:
                    continue
                for k in range(i, n):
                    g = dM[(i, k)]
                    if g is not None and g[j] != zero and v[k] != zero:
                        ts.append(g[j] * v[i] * v[k] if i != k else g[j] * v[i] * v[k] / 2)
                gb = db[i]
                if gb is not None and gb[j] != zero:
                    ts.append(gb[j] * v[i])
            if dT0 is not None and dT0[j] != zero:
                ts.append(dT0[j])
            dTdq.append(add(ts))
        return Primitives(tuple(tuple(r) for r in M), tuple(p), tuple(pdot0), tuple(dTdq), algebra.name)

    @per_backend_property
    def primitives(self) -> Primitives:
        """Small building blocks of Lagrange's expressions, in (t, q, q̇) (Hamel 1924, eq. (9)):
        M, p_i = M_ik q̇^k + b_i, ṗ⁰_i = ∂_j p_i ẋ^j (ṗ without the M q̈ part; ẋ includes
        ṫ = 1) and ∂T/∂q^j; then L_i = M_ij q̈^j + ṗ⁰_i − ∂T/∂q^i.

        :meth:`primitives_at` in the algebra of the current backend
        (:func:`~geonh.kernel.algebra.algebra_for`: symengine when active and (M, b, T0)
        convert, else sympy), converted to sympy once; cached per backend (a result computed
        under one backend is never served under the other)."""
        S = self.space
        Mq, bq, T0 = self.quadratic_parts
        Ml = Mq.tolist()
        inputs = [Ml[i][j] for i in range(S.n) for j in range(i, S.n)] + list(bq) + [T0] + list(S.qd)
        alg = algebra_for(S.coords, inputs)
        P = self.primitives_at(alg)
        out = alg.sympy
        # M is given data and p (:attr:`momenta`) has no derivative in it: neither is converted back
        M = tuple(tuple(row) for row in Ml)
        return Primitives(M, self.momenta, tuple(out(e) for e in P.pdot0), tuple(out(e) for e in P.dTdq),
                          P.algebra)

    @per_backend_property
    def lagrange_operator(self) -> tuple[sp.Expr, ...]:
        """L_i = d/dt ∂T/∂q̇^i − ∂T/∂q^i = M_ij q̈^j + ṗ⁰_i − ∂T/∂q^i (in t, q, q̇, q̈): Lagrange's
        acceleration components (Hamel 1924, eq. (9)), from :attr:`primitives` (cached per
        backend, as they are)."""
        S = self.space
        P = self.primitives
        M = self.mass_matrix
        return tuple(sum((M[i, j] * S.qdd[j] for j in range(S.n) if M[i, j] != 0), sp.S.Zero)
                     + P.pdot0[i] - P.dTdq[i] for i in range(S.n))

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
    @gc_paused()
    def from_mechanics(cls, coordinates: Sequence, bodies: Sequence, frame, loads: Sequence = (),
                       constraints: Sequence = (), holonomic: Sequence = (), potential=0,
                       time: bool = False, name: str = "", conditions: Sequence = ()) -> "MechanicalSystem":
        """Build from sympy.physics.mechanics: dynamicsymbol coordinates q(t), bodies/particles,
        loads (Force(point, vector) or Torque(frame, vector), turned into generalized forces
        Q_i = Σ F·∂v_P/∂q̇^i + M·∂ω/∂q̇^i), constraints in dynamicsymbols.  Names of the
        coordinates are kept; ``conditions`` as for the constructor.

        The kinetic energy T = Σ_body ½ m |v|² + ½ ωᵀ I ω is assembled from the bodies'
        velocities (:func:`body_quadratic_parts`): with v = J_v q̇ + v₀ and ω = J_ω q̇ + ω₀,

            M = Σ m J_vᵀ J_v + J_ωᵀ I J_ω,   b = Σ m J_vᵀ v₀ + J_ωᵀ I ω₀,   T0 = ½ Σ (m |v₀|² + ω₀ᵀ I ω₀),

        and T is stored as ½ q̇ᵀ M q̇ + bᵀ q̇ + T0 (monomials in q̇), so M is read off, never
        differentiated out of T.  Bodies that are not Particle/RigidBody-like (no ``mass`` and
        ``masscenter``) fall back to T = Σ ``body.kinetic_energy(frame)``.
        """
        from sympy.physics.mechanics import dynamicsymbols
        t = dynamicsymbols._t
        names = []
        coordinates = as_sequence(coordinates, "coordinates")
        bodies = _bodies(bodies)
        for q in coordinates:
            if not (isinstance(q, sp.core.function.AppliedUndef) and q.args == (t,)):
                raise SpaceMismatchError(f"{q} is not a dynamicsymbol q(t)")
            names.append(q.func.__name__)
        S = ConfigurationSpace(names, time=t if time else False)
        conv = _from_dynamic(S)
        parts = body_quadratic_parts(S, bodies, frame)
        if parts is None:
            T = conv(sum((b.kinetic_energy(frame) for b in bodies), sp.S.Zero))
        else:
            T = quadratic_form(S.qd, *parts)
        qdots = [q.diff(t) for q in coordinates]
        Q = [sp.S.Zero] * len(coordinates)
        for load in loads:
            loc, vec = load[0], load[1]
            if hasattr(loc, "vel"):  # a Point
                v = loc.vel(frame)
            else:  # a ReferenceFrame (torque)
                v = loc.ang_vel_in(frame)
            # ∂v/∂q̇^i is the zero vector when q̇^i is in no measure number of v (the direction
            # cosines hold no q̇): that term adds nothing to Q_i and is skipped
            present: set = set()
            for m, _ in v.args:
                present |= m.atoms(sp.Derivative)
            for i, qd in enumerate(qdots):
                if qd in present:
                    Q[i] += vec.dot(v.diff(qd, frame))
        return cls(S, T, V=conv(potential), forces=[conv(x) for x in Q],
                   constraints=[conv(c) for c in constraints], holonomic=[conv(h) for h in holonomic],
                   name=name, conditions=conditions)

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
        params: set = set(as_symbols(extra_symbols, what="extra symbols"))
        for e in (self.T, self.V, *self.Q, *list(self.constraints.matrix())):
            params |= sympy_of(e).free_symbols
        for _ in range(200):
            vals = random_state(S, rng, params | _condition_symbols(self.conditions),
                                [S.qd[s] for s in free])
            if all(condition_holds(c, vals) for c in self.conditions):
                break
        else:
            raise InconsistentStateError(f"no random state satisfies the conditions {list(self.conditions)}")
        for k, j in enumerate(dep):
            e = sum((a[k, c] * vals[S.qd[s]] for c, s in enumerate(free)), a0[k])
            vals[S.qd[j]] = to_sympy(value_at(e, vals, tree=True))   # big solved speeds: fixed-precision tree evaluation (adaptive evalf ran for ever on the bicycle)
        return vals

    def _repr_latex_(self) -> str:
        from ..kernel.display import repr_latex  # duck-typed renderer: imports none of these classes
        return repr_latex(self)

    def __repr__(self) -> str:
        nm = f"{self.name}: " if self.name else ""
        return f"MechanicalSystem({nm}{self.space!r}, {self.n_constraints} constraint(s))"


def _condition_symbols(conditions) -> set:
    out: set = set()
    for c in conditions:
        out |= c.free_symbols
    return out


#: the symbolic leading principal minors are shown only for n ≤ 4 and entries of at most this
#: many distinct nodes in all (their determinants stay small; larger ones are only evaluated)
_PD_SHOWN_NODES = 200


def _not_pd_message(M: sp.Matrix, point: dict, conditions, values: Sequence | None = None) -> str:
    """Why M is not positive definite at ``point``: the values there of the leading principal
    minors Δ1 … Δk up to the first that is not positive (numerically, from the values of M at
    the point: nothing symbolic is expanded), and for a small M (n ≤ 4, entries of at most
    :data:`_PD_SHOWN_NODES` nodes) the minors themselves — T is positive definite exactly
    where all of them are positive (Sylvester's criterion).

    The message is built within a fixed bound of work: a symbolic determinant of a large or
    dense mass matrix (Berkowitz on 9×9 symbolic inertia products) and its evaluation took
    minutes and gigabytes before."""
    n = M.rows
    at = ", ".join(f"{k} = {v}" for k, v in sorted(point.items(), key=lambda kv: sp.default_sort_key(kv[0])))
    if values is None:
        values = [value_at(e, point, strict=False, tree=True) for e in M]
    tol = mpmath.mpf(10) ** (-precision() // 3)
    shown_values: list[str] = []
    bad: tuple | None = None
    with mpmath.workdps(precision()):
        if any(v is None for v in values):
            bad = (None, None)
        else:
            A = mpmath.matrix(n, n)
            for k, v in enumerate(values):
                A[k // n, k % n] = to_mp(v)
            for k in range(1, n + 1):
                dk = mpmath.det(A[:k, :k]) if k > 1 else A[0, 0]
                shown_values.append(f"Δ{k} = {mpmath.nstr(dk, 6)}")
                if not dk > tol:
                    bad = (k, dk)
                    break
    minors = []
    if n <= 4 and count_nodes(list(M), _PD_SHOWN_NODES) <= _PD_SHOWN_NODES:
        for k in range(1, n + 1):
            dk = M[:k, :k].det(method="berkowitz")
            if not dk.has(sp.Function) and count_nodes(dk, _PD_SHOWN_NODES) <= _PD_SHOWN_NODES:
                dk = sp.factor(dk)
            minors.append(f"Δ{k} = {dk}")
    msg = "the mass matrix ∂²T/∂q̇² is not positive definite " + (f"at {at}" if at else "(it has no parameters)")
    if bad == (None, None):
        msg += ": it is undefined there"
    elif bad is not None:
        msg += f": its leading principal minor Δ{bad[0]} is {mpmath.nstr(bad[1], 6)} there"
        if bad[0] > 1:
            msg += f" ({', '.join(shown_values)})"
    if minors:
        msg += ". T is positive definite exactly where " + ", ".join(minors) + " are all > 0"
    else:
        msg += (". T is positive definite exactly where its leading principal minors (the determinants of "
                "the upper-left k×k blocks of ∂²T/∂q̇²) are all > 0")
    if conditions:
        msg += f"; the conditions {list(conditions)} do not ensure that"
    else:
        msg += ("; if the parameters satisfy such a condition, pass conditions=[...] (e.g. conditions=[J > J0]) "
                "or declare them positive (sp.Symbol(name, positive=True))")
    return msg


def random_state(space: ConfigurationSpace, rng: random.Random, params: Iterable = (),
                 velocities: Sequence[sp.Symbol] = ()) -> dict:
    """The drawn part of a random state, by the one sampler
    (:func:`~geonh.kernel.sampling.random_values`, the states' span): values for the
    coordinates (time included), then for ``params`` (sorted by name; state symbols are
    skipped), then values of either sign for ``velocities`` in the given order.  Every
    ``sample_state`` draws in this order, so a fixed seed gives a fixed state.  A system in place
    of the space (the old call) is refused at once naming ``system.sample_state(rng)``."""
    if not isinstance(space, ConfigurationSpace):
        if hasattr(space, "sample_state"):
            raise renamed("random_state(system, rng)")
        raise ParseError(f"random_state draws on a ConfigurationSpace, not {type(space).__name__}")
    params, velocities = as_symbols(params, what="parameters"), as_symbols(velocities, what="velocities")
    drawn = sorted(set(params) - set(space.state_symbols), key=sp.default_sort_key)
    return random_values(rng, [*space.coords, *drawn], either_sign=velocities)


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


def quadratic_form(qd: Sequence[sp.Symbol], M, b=None, T0=sp.S.Zero) -> sp.Expr:
    """T = ½ Σ_i M_ii q̇_i² + Σ_{i<j} M_ij q̇_i q̇_j + Σ b_i q̇_i + T0 as a sum of monomials in
    the velocities (each coefficient kept as given, not expanded), so that
    :attr:`MechanicalSystem.quadratic_parts` reads (M, b, T0) back off it without
    differentiating.  Only the upper triangle of M is used."""
    qd = as_symbols(qd, what="velocities")
    n = len(qd)
    M = as_matrix(M, qd, what="mass matrix M")
    if M.shape != (n, n):
        raise DimensionError(f"M must be {n}x{n} for {n} velocities, got {M.shape}")
    if b is not None:
        b = as_exprs(b, qd, what="b")
        if len(b) != n:
            raise DimensionError(f"b needs {n} entries, got {len(b)}")
    T0 = expr_of(T0, qd, what="T0")
    terms = []
    for i in range(n):
        if M[i, i] != 0:
            terms.append(M[i, i] * qd[i] ** 2 / 2)
        for j in range(i + 1, n):
            if M[i, j] != 0:
                terms.append(M[i, j] * qd[i] * qd[j])
        if b is not None and b[i] != 0:
            terms.append(b[i] * qd[i])
    if T0 != 0:
        terms.append(T0)
    return sp.Add(*terms)


def body_quadratic_parts(space: ConfigurationSpace, bodies: Sequence, frame):
    """(M, b, T0) of T = Σ_body ½ m |v|² + ½ ωᵀ I ω from the bodies' velocities, or None when
    a body is not Particle/RigidBody-like.

    Each body contributes weighted velocity blocks c = J q̇ + c₀ with weight W: the mass-centre
    velocity in ``frame``'s components (W = m·1) and, for a rigid body, its angular velocity in
    its own frame's components (W = the central inertia matrix in that frame).  With
    J = ∂c/∂q̇ (a Jacobian of expressions linear in q̇) and c₀ = c at q̇ = 0,

        M_ij = Σ J_·iᵀ W J_·j  (upper triangle only),  b_i = Σ J_·iᵀ W c₀,  T0 = ½ Σ c₀ᵀ W c₀

    — the mass matrix as a sum of products of partial velocities (Kane's form of the
    generalized inertia, Kane & Levinson 1985, ch. 6), with no second derivatives of T.
    Parameters stay symbols; nothing is expanded or simplified.  The arithmetic runs on
    symengine when geonh's backend is symengine and the expressions convert
    (:mod:`geonh.kernel.backend`), else on sympy; the result is sympy."""
    conv = _from_dynamic(space)
    bodies = _bodies(bodies)
    blocks = []   # (weight: scalar or 3x3 list, components: list of sympy exprs in plain symbols)
    for body in bodies:
        mass, point = getattr(body, "mass", None), getattr(body, "masscenter", None)
        if mass is None or point is None:
            return None
        blocks.append((conv(sympy_of(mass)), vector_components(point.vel(frame), frame, conv)))
        bf, inertia = getattr(body, "frame", None), getattr(body, "central_inertia", None)
        if bf is not None and inertia is not None:
            Im = dyadic_components(inertia, bf)
            W = [[conv(Im[r][c]) for c in range(3)] for r in range(3)]
            blocks.append((W, vector_components(bf.ang_vel_in(frame), bf, conv)))
    return velocity_quadratic_parts(space.qd, blocks)


def _from_dynamic(space: ConfigurationSpace):
    """``space.from_dynamic`` for many expressions: the map q(t) → q, q̇(t) → q̇, q̈(t) → q̈ is
    built once, and an expression whose functions of time and derivatives are all in it is
    rewritten by one walk (``xreplace``; a derivative node is replaced whole before its
    q(t)); numbers and plain symbols pass untouched; anything else (an unknown function of
    time, a third derivative, not a sympy expression) goes to ``from_dynamic`` itself, which
    converts or refuses it."""
    conv = space.from_dynamic
    t = space.t if space.t is not None else None
    if t is None:
        from sympy.physics.mechanics import dynamicsymbols
        t = dynamicsymbols._t
    rep: dict = {}
    for f, s, v, a in zip(space.dynamicsymbols(), space.q, space.qd, space.qdd):
        f = f.func(t)
        rep[f] = s
        rep[sp.Derivative(f, t)] = v
        rep[sp.Derivative(f, (t, 2))] = a
    kinds = (sp.Derivative, sp.core.function.AppliedUndef)

    def go(e):
        if not isinstance(e, sp.Basic):
            return conv(e)
        if e.is_Number or e.is_Symbol:
            return e
        if all(x in rep for x in e.atoms(*kinds)):
            return e.xreplace(rep)
        return conv(e)
    return go


def vector_components(vec, frame, conv=None) -> list:
    """The components of a sympy.physics.vector ``Vector`` in ``frame``, equal (``srepr``) to
    ``vec.to_matrix(frame)``: for each of the vector's terms (m, F) — m its components in
    frame F — the i-th component gains Σ_k D_ik m_k with D = ``frame.dcm(F)`` (sympy's
    ``Vector.dot`` with the unit vectors of ``frame``), the same sums of the same products,
    built by plain sympy arithmetic instead of 3×3 ``Matrix`` products (whose construction
    cost dominated ``from_mechanics``).  With ``Vector.simp`` set (sympy then trigsimps each
    component) this is ``to_matrix`` itself.

    ``conv`` (e.g. dynamicsymbols → plain symbols): applied to the small pieces D_ik and m_k
    (each distinct piece once) before the arithmetic, which gives ``[conv(c) for c in
    vec.to_matrix(frame)]`` without walking the assembled components again."""
    if getattr(type(vec), "simp", False):
        out = list(vec.to_matrix(frame))
        return [conv(c) for c in out] if conv is not None else out
    memo: dict = {}

    def piece(e):
        if conv is None:
            return e
        r = memo.get(e)
        if r is None:
            r = memo[e] = conv(e)
        return r
    out = [sp.S.Zero] * 3
    for m, f in vec.args:
        D = frame.dcm(f)
        for i in range(3):
            terms = [piece(D[i, k]) * piece(m[k]) for k in range(3) if D[i, k] != 0 and m[k] != 0]
            if terms:
                out[i] += sp.Add(*terms)
    return out


def dyadic_components(dyadic, frame) -> list:
    """The 3×3 components (list of rows) of a sympy.physics.vector ``Dyadic`` in ``frame``,
    equal (``srepr``) to ``dyadic.to_matrix(frame)``.  A dyadic whose every term c (a ⊗ b) has
    unit vectors a = f_i, b = f_j of ``frame`` itself (an inertia given in its body's frame)
    is read off its terms, entry (i, j) = Σ c; any other falls back on ``to_matrix``."""
    units = (frame.x, frame.y, frame.z)

    def index(v):   # identity, else the same single (column, frame) term (Vector.__eq__ is costly)
        for k, e in enumerate(units):
            if v is e:
                return k
        if len(v.args) == 1 and v.args[0][1] is frame:
            col = list(v.args[0][0])
            for k, e in enumerate(units):
                if col == list(e.args[0][0]):
                    return k
        return None
    out = [[sp.S.Zero] * 3 for _ in range(3)]
    for c, a, b in dyadic.args:
        i, j = index(a), index(b)
        if i is None or j is None or getattr(type(a), "simp", False):
            Im = dyadic.to_matrix(frame)
            return [[Im[r, s] for s in range(3)] for r in range(3)]
        out[i][j] += c
    return out


def _bodies(bodies) -> list:
    """sympy.physics.mechanics bodies (particles, rigid bodies: objects with a kinetic energy)."""
    out = as_sequence(bodies, "bodies")
    for b in out:
        if not hasattr(b, "kinetic_energy"):
            raise ParseError(f"bodies are sympy.physics.mechanics Particles or RigidBodies, not {type(b).__name__}")
    return out


def _block(block) -> tuple:
    """One (weight, components) velocity block of :func:`velocity_quadratic_parts`, converted."""
    if not isinstance(block, (list, tuple)) or len(block) != 2:
        raise ParseError(f"a velocity block is a (weight, components) pair, not {str(block)[:60]}")
    w, comps = block
    if isinstance(w, (list, tuple)):
        w = [as_exprs(row, what="block weight") for row in w]
        if any(len(row) != len(w) for row in w):
            raise DimensionError("a matrix weight must be square")
    else:
        w = expr_of(w, what="block weight")
    comps = as_exprs(comps, what="block components")
    if isinstance(w, list) and len(w) != len(comps):
        raise DimensionError(f"a {len(w)}x{len(w)} weight needs {len(w)} components, got {len(comps)}")
    return w, comps


def velocity_quadratic_parts(qd, blocks):
    """(M, b, T0) of T = ½ Σ_blocks cᵀ W c for velocity blocks c = J q̇ + c₀ (sympy expressions
    affine in the velocity symbols ``qd``) with weights W: ``blocks`` is a list of (W, c), W a
    scalar (e.g. a mass) or a square list of lists (e.g. an inertia matrix in the frame of c's
    components).  M_ij = Σ J_·iᵀ W J_·j (upper triangle computed), b_i = Σ J_·iᵀ W c₀,
    T0 = ½ Σ c₀ᵀ W c₀; see :func:`body_quadratic_parts`.  Scalar-weighted products of equal
    partial velocities are collected, Σ_b m_b P → (Σ_b m_b) P (exact; nothing expanded or
    simplified)."""
    from ..kernel import backend as bk
    qd = as_symbols(qd, what="velocities")
    blocks = [_block(b) for b in as_sequence(blocks, "velocity blocks")]
    n = len(qd)
    flat = [w for w, _ in blocks if not isinstance(w, list)]
    flat += [x for w, _ in blocks if isinstance(w, list) for row in w for x in row]
    flat += [c for _, comps in blocks for c in comps]
    tr = None
    if bk.use_symengine() and bk.supports(flat + list(qd)):
        import symengine as se
        tr = bk.Translation()
        conv_in = lambda e: tr.to_symengine(e)  # noqa: E731
        add, zero = se.Add, se.Integer(0)
        syms = [tr.to_symengine(v) for v in qd]
    else:
        conv_in = lambda e: e  # noqa: E731
        add, zero = sp.Add, sp.S.Zero
        syms = list(qd)
    index = {s: i for i, s in enumerate(syms)}
    one = conv_in(sp.S.One)
    # M_ij, b_i, T0 as {shape: [weights]}: a contribution w·P (w a mass, P a product of partial
    # velocities) is filed under P, so bodies sharing a partial velocity (every body behind a
    # joint shares its column) give one term (Σ w)·P instead of one per body.
    Mt: dict = {}
    bt: dict = {}
    T0t: dict = {}
    dots: dict = {}

    def file(table, key, shape, w):
        table.setdefault(key, {}).setdefault(shape, []).append(w)

    def dot(x, y):          # x·y of two component tuples, memoised (columns repeat across bodies)
        k = (x, y)
        r = dots.get(k)
        if r is None:
            r = dots[k] = add(*[p * q for p, q in zip(x, y) if p != 0 and q != 0])
        return r

    for w, comps in blocks:
        comps = [conv_in(c) for c in comps]
        # columns J[i] = ∂c/∂q̇_i (tuples over the components), c0 = c at q̇ = 0
        cols: dict = {}
        c0_items = []
        for k, c in enumerate(comps):
            hit = []
            for s_ in c.free_symbols:
                i = index.get(s_)
                if i is not None:
                    d = c.diff(s_)
                    if d != 0:
                        cols.setdefault(i, [zero] * len(comps))[k] = d
                        hit.append(s_)
            c0_items.append(c.subs({s_: 0 for s_ in hit}) if hit else c)
        J = {i: tuple(v) for i, v in cols.items()}
        c0 = tuple(c0_items)
        has0 = any(x != 0 for x in c0)
        if isinstance(w, list):        # matrix weight: Jᵀ W J, filed with weight 1
            W = [[conv_in(x) for x in row] for row in w]
            R = len(comps)
            WJ = {i: tuple(add(*[W[r][k] * col[k] for k in range(R) if W[r][k] != 0 and col[k] != 0])
                           for r in range(R)) for i, col in J.items()}
            Wc0 = tuple(add(*[W[r][k] * c0[k] for k in range(R) if W[r][k] != 0 and c0[k] != 0])
                        for r in range(R))
            for i in J:
                for j in J:
                    if i <= j:
                        P = dot(J[i], WJ[j])
                        if P != 0:
                            file(Mt, (i, j), P, one)
                if has0:
                    P = dot(J[i], Wc0)
                    if P != 0:
                        file(bt, i, P, one)
            if has0:
                P = dot(c0, Wc0)
                if P != 0:
                    file(T0t, 0, P, one)
        else:                          # scalar weight (a mass): w·(Jᵀ J)
            ws = conv_in(w)
            for i in J:
                for j in J:
                    if i <= j:
                        P = dot(J[i], J[j])
                        if P != 0:
                            file(Mt, (i, j), P, ws)
                if has0:
                    P = dot(J[i], c0)
                    if P != 0:
                        file(bt, i, P, ws)
            if has0:
                P = dot(c0, c0)
                if P != 0:
                    file(T0t, 0, P, ws)

    def total(groups):
        return add(*[P * add(*ws) for P, ws in groups.items()])

    out = lambda e: tr.to_sympy(e) if tr is not None else e  # noqa: E731
    M = sp.zeros(n, n)
    for (i, j), groups in Mt.items():
        M[i, j] = M[j, i] = out(total(groups))
    b = sp.Matrix([out(total(bt[i])) if i in bt else sp.S.Zero for i in range(n)])
    T0 = out(total(T0t[0])) / 2 if T0t else sp.S.Zero
    return M, b, T0
