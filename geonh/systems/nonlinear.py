"""Systems with constraints nonlinear in the velocities: φ^κ(t, q, q̇) = 0.

The virtual-displacement rule is a named, visible choice (:attr:`NonlinearSystem.virtual`).
The default is **Chetaev's** rule

    Σ_i ∂φ^κ/∂q̇^i δq^i = 0,        reaction R_i = λ_κ ∂φ^κ/∂q̇^i,                    (C)

so that  d/dt ∂T/∂q̇^i − ∂T/∂q^i = Q_i + λ_κ ∂φ^κ/∂q̇^i  (CONVENTIONS.md; for constraints
linear in q̇ this is the usual rule, and the sign is the one of :func:`geonh.lagrange`).
The Chetaev codistribution is an ordinary :class:`~geonh.Codistribution` whose one-forms
depend on the velocities (:meth:`NonlinearSystem.chetaev_codistribution`).  A different rule
can be given as ``virtual=`` rows Θ^κ_i(t, q, q̇); the reaction is then λ_κ Θ^κ_i.

The equation forms for these systems (Chetaev–Lagrange, Appell, Maggi for nonlinear
quasi-velocities) are in :mod:`geonh.equations.nonlinear`.  A :class:`NonlinearSystem` draws
random states on the constraint manifold (:meth:`NonlinearSystem.sample_state`), which
:func:`geonh.same_motion` uses to compare equations of nonlinear systems.
"""
from __future__ import annotations

import random
from typing import Mapping, Sequence

import sympy as sp

from ..errors import (DimensionError, InconsistentStateError, NotFoundError, NotLinearError,
                      ParseError, RankError)
from ..kernel.distributions import Codistribution
from ..kernel.evaluation import real_value, state_tolerance
from ..kernel.forms import OneForm
from ..kernel.generic_point import generic_rank
from ..kernel.sampling import condition_holds
from ..kernel.parsing import as_expr, as_exprs, as_float, as_sequence, as_symbols, as_values, sympy_of
from ..kernel.space import ConfigurationSpace, as_expression, known_symbols
from .mechanical import MechanicalSystem, random_state

__all__ = ["NonlinearSystem", "as_nonlinear", "solve_dependent_velocities", "sample_consistent_state"]


def sample_consistent_state(space: ConfigurationSpace, phi: Sequence[sp.Expr], solved: Mapping,
                            rng: random.Random, params: Sequence[sp.Symbol] = (),
                            attempts: int = 60, conditions: Sequence = ()) -> dict:
    """A random state {t, q, q̇, parameters} with φ(t, q, q̇) = 0.

    Coordinates, parameters and the free velocities get random rationals (velocities of either
    sign); the dependent velocities come from ``solved`` {q̇_j: expression in the others}.
    Draws whose dependent velocities are complex or singular, or whose parameters violate
    ``conditions`` (sympy relationals), are rejected and redrawn.
    """
    phi = as_exprs(phi, space.state_symbols, what="constraints φ")
    solved = as_values(solved, space.state_symbols, what="solved dependent velocities")
    params = as_symbols(params, what="parameters")
    conditions = [c for c in as_sequence(conditions, "conditions")]
    for c in conditions:
        if not isinstance(c, sp.Basic) or not (c.is_Relational or isinstance(c, sp.logic.boolalg.Boolean)):
            raise ParseError(f"conditions are sympy relationals (e.g. J > J0), not {str(c)[:60]}")
    dep = set(solved)
    for _ in range(attempts):
        vals = random_state(space, rng, params, [v for v in space.qd if v not in dep])
        if conditions and not all(condition_holds(c, vals) for c in conditions):
            continue
        ok = True
        for v, e in solved.items():
            x = real_value(e, vals)
            if x is None:
                ok = False
                break
            vals[v] = x
        if not ok:
            continue
        # guard against a wrong branch
        for f in phi:
            r = real_value(f, vals)
            if r is None or abs(r) > state_tolerance():
                ok = False
                break
        if ok:
            return vals
    raise NotFoundError("could not draw a real state on the constraint manifold "
                        f"(dependent velocities {sorted(map(str, dep))}); pass solved= with a real branch")


def solve_dependent_velocities(space: ConfigurationSpace, phi: Sequence[sp.Expr], params=()) -> dict:
    """Solve φ(t, q, q̇) = 0 for the last velocities whose Jacobian block is invertible:
    {q̇_j: expression} on the first branch sympy returns that is real at random states.
    Raises :class:`NotFoundError` (pass ``solved=``) when sympy cannot solve."""
    from itertools import combinations
    phi = as_exprs(phi, space.state_symbols, what="constraints φ")
    params = as_symbols(params, what="parameters")
    r = len(phi)
    if r == 0:
        return {}
    J = sp.Matrix([[sp.diff(f, v) for v in space.qd] for f in phi])
    for cols in reversed(list(combinations(range(space.n), r))):
        if generic_rank(J.extract(list(range(r)), list(cols))) < r:
            continue
        dep = [space.qd[c] for c in cols]
        try:
            sols = sp.solve(phi, dep, dict=True)
        except NotImplementedError:  # pragma: no cover - sympy limitation
            continue
        sols = [s for s in sols if all(v in s for v in dep)]
        for s in sols:
            cand = {v: s[v] for v in dep}
            try:
                sample_consistent_state(space, phi, cand, random.Random(7),
                                        sorted(set(params), key=sp.default_sort_key), attempts=20)
                return cand
            except NotFoundError:
                continue
    raise NotFoundError("sympy cannot solve the constraints for dependent velocities on a real branch; "
                        "pass solved={q̇_j: expression}")


class NonlinearSystem:
    """A mechanical system with constraints φ^κ(t, q, q̇) = 0, nonlinear in q̇ in general.

    Parameters
    ----------
    space : the configuration space (with time when T, V, Q or φ depend on t).
    T, V, forces : as for :class:`~geonh.systems.MechanicalSystem` (T quadratic in q̇ with a
        positive definite mass matrix; a singular one raises NotPositiveDefiniteError).
    constraints : expressions φ^κ (= 0) or Equalities, each depending on the velocities.
    holonomic : f(t, q) = 0; they enter through ḟ = 0 (Appell's rule, seed 001 § 3 item 2).
    virtual : ``"chetaev"`` (default, rule (C) of the module docstring) or a sequence of rows
        Θ^κ_i(t, q, q̇) (one per constraint, n entries): δq must satisfy Θ^κ_i δq^i = 0.
    solved : optional {q̇_j: expression} giving the dependent velocities on one real branch
        of the constraint manifold (used to draw consistent states).  Default: sympy's solve
        for the last velocities whose Jacobian block is invertible, first real branch.
    conditions : the parameter domain, as for :class:`MechanicalSystem` (e.g. ``[J > J0]``).

    Inputs are checked as for :class:`MechanicalSystem` (safe parsing, look-alike symbols,
    time without a time coordinate); constraints that admit no velocity (rank of ∂φ/∂q̇ lower
    than the number of constraints) raise :class:`RankError`.
    """

    mechanical: MechanicalSystem  # the system it was made from, set by from_mechanical only

    def __init__(self, space: ConfigurationSpace, T, V=0, forces=None, constraints=(), holonomic=(),
                 *, virtual="chetaev", solved: Mapping | None = None, name: str = "", conditions=()):
        self.base = MechanicalSystem(space, T, V, forces, name=name, conditions=conditions)
        self.conditions = self.base.conditions
        known = known_symbols(space, T, V, forces, constraints, holonomic)
        self.space = space
        self.name = name
        self.T = self.base.T
        self.V = self.base.V
        self.Q = self.base.Q
        self.holonomic: tuple[sp.Expr, ...] = tuple(
            space.check_expression(as_expression(f, known, what="holonomic constraint"), "holonomic constraint")
            for f in as_sequence(holonomic, "holonomic"))
        phis = []
        for c in as_sequence(constraints, "constraints"):
            c = space.check_expression(as_expression(c, known, what="constraint"), "constraint")
            if c.has(*space.qdd):
                raise NotLinearError(f"constraint {c} = 0 contains accelerations")
            if not c.has(*space.qd):
                raise NotLinearError(
                    f"constraint {c} = 0 contains no velocity: pass it as holonomic=[...] (it then "
                    "enters through its time derivative)")
            phis.append(c)
        for f in self.holonomic:
            if f.has(*space.qd) or f.has(*space.qdd):
                raise NotLinearError(f"holonomic constraint {f} = 0 contains velocities")
            phis.append(space.total_derivative(f))
        self.phi: tuple[sp.Expr, ...] = tuple(phis)
        r = len(phis)
        if r >= space.n and r:
            raise RankError(f"{r} constraints on {space.n} coordinates leave no motion")
        J = self.constraint_jacobian
        if r and generic_rank(J) < r:
            raise RankError(
                f"∂φ/∂q̇ has rank {generic_rank(J)} < {r} at the generic point: the constraints are "
                "dependent or hide holonomic constraints; run geonh.constraint_analysis."
                "analyze_constraints to find them")
        if isinstance(virtual, str):
            if virtual != "chetaev":
                raise ParseError(f"virtual must be 'chetaev' or a sequence of rows, not {virtual!r}")
            #: the virtual-displacement rule: "chetaev" (the rows ∂φ/∂q̇) or "user" (rows given)
            self.virtual = "chetaev"
            self.virtual_matrix: sp.Matrix = J
        else:
            Th = sp.Matrix([[space.check_expression(as_expr(e, known, what="virtual rule entry"), "virtual rule")
                             for e in as_sequence(row, "a row of the virtual rule")]
                            for row in as_sequence(virtual, "virtual")]) if r else sp.zeros(0, space.n)
            if Th.shape != (r, space.n):
                raise DimensionError(f"virtual rule needs {r} rows of {space.n} entries, got {Th.shape}")
            if r and generic_rank(Th) < r:
                raise RankError("the rows of the virtual-displacement rule are dependent")
            self.virtual = "user"
            self.virtual_matrix = Th
        self._solved = as_values(solved, space.state_symbols, what="solved") if solved is not None else None

    # -- construction -----------------------------------------------------------------------
    @classmethod
    def from_mechanical(cls, system: MechanicalSystem) -> "NonlinearSystem":
        """The same system with its linear constraints A q̇ + b = 0 as φ = A q̇ + b (the
        holonomic ones already enter through their derivatives)."""
        A, b = system.constraint_matrix
        S = system.space
        phis = [sum((A[k, i] * S.qd[i] for i in range(S.n)), b[k]) for k in range(A.rows)]
        # forces: system.Q already contains −∂V/∂q; pass V = 0 to avoid counting it twice
        out = cls(S, system.T, 0, list(system.Q), phis, name=system.name)
        out.V = system.V
        out.mechanical = system
        return out

    # -- data -------------------------------------------------------------------------------
    @property
    def n(self) -> int:
        return self.space.n

    @property
    def n_constraints(self) -> int:
        return len(self.phi)

    @property
    def dof(self) -> int:
        return self.space.n - len(self.phi)

    @property
    def constraint_jacobian(self) -> sp.Matrix:
        """∂φ^κ/∂q̇^i (k × n): the rows of Chetaev's rule, velocity-dependent in general."""
        S = self.space
        if not self.phi:
            return sp.zeros(0, S.n)
        return sp.Matrix([[sp.diff(f, v) for v in S.qd] for f in self.phi])

    @property
    def is_linear(self) -> bool:
        """Are all constraints linear (affine) in the velocities?"""
        return all(not e.has(*self.space.qd) for e in self.constraint_jacobian)

    @property
    def mass_matrix(self) -> sp.Matrix:
        return self.base.mass_matrix

    @property
    def momenta(self):
        return self.base.momenta

    @property
    def lagrange_operator(self):
        return self.base.lagrange_operator

    def acceleration_energy(self) -> sp.Expr:
        return self.base.acceleration_energy()

    def chetaev_codistribution(self) -> Codistribution:
        """The one-forms θ^κ = ∂φ^κ/∂q̇^i dq^i (+ (φ^κ − q̇^i ∂φ^κ/∂q̇^i) dt on a space with
        time, so that θ^κ(q̇ + ∂_t) = φ^κ; for linear constraints these are the usual forms).
        Their components depend on the velocities."""
        S = self.space
        forms = []
        for f, row in zip(self.phi, self.constraint_jacobian.tolist()):
            comps = list(row)
            if S.t is not None:
                comps.append(sp.expand(f - sum(c * v for c, v in zip(row, S.qd))))
            forms.append(OneForm(S, comps))
        return Codistribution(forms, S)

    def to_mechanical(self) -> MechanicalSystem:
        """A :class:`MechanicalSystem` with the same (linear, Chetaev) constraints."""
        if not self.is_linear:
            raise NotLinearError("the constraints are not linear in the velocities")
        if self.virtual != "chetaev":
            raise NotLinearError("MechanicalSystem only knows Chetaev's rule")
        if hasattr(self, "mechanical"):
            return self.mechanical
        return MechanicalSystem(self.space, self.T, 0, list(self.Q), self.phi, name=self.name)

    def parameters(self) -> set:
        """Symbols other than t, q, q̇, q̈ in T, V, Q, φ and the virtual rule."""
        out: set = set()
        for e in (self.T, self.V, *self.Q, *self.phi, *list(self.virtual_matrix)):
            out |= sympy_of(e).free_symbols
        return out - set(self.space.state_symbols)

    # -- consistent states ------------------------------------------------------------------
    def solved(self) -> dict:
        """{q̇_j: expression}: the dependent velocities on one real branch (see class doc)."""
        if self._solved is None:
            self._solved = solve_dependent_velocities(self.space, self.phi, self.parameters())
        return self._solved

    def sample_state(self, rng: random.Random, extra_symbols=()) -> dict:
        """A random state on the constraint manifold (hook for :func:`geonh.analysis.certificate.same_motion`)."""
        params = self.parameters() | set(as_symbols(extra_symbols, what="extra symbols"))
        for c in self.conditions:
            params |= c.free_symbols
        return sample_consistent_state(self.space, self.phi, self.solved(), rng,
                                       sorted(params, key=sp.default_sort_key), conditions=self.conditions)

    def check_state(self, state: Mapping, tol: float = 1e-9) -> None:
        """Raise :class:`InconsistentStateError` if the state violates a constraint
        (holonomic ones at position level too)."""
        bad = []
        tol = as_float(tol, "tol", minimum=0)
        state = as_values(state, self.space.state_symbols, what="state")
        for f in self.holonomic + self.phi:
            v = real_value(f, state)
            if v is None or abs(v) > tol:
                bad.append(f"{f} = {v}")
        if bad:
            raise InconsistentStateError("the state violates the constraints: " + "; ".join(bad))

    def __repr__(self) -> str:
        nm = f"{self.name}: " if self.name else ""
        kind = "linear" if self.is_linear else "nonlinear"
        return f"NonlinearSystem({nm}{self.space!r}, {len(self.phi)} {kind} constraint(s), {self.virtual})"


def as_nonlinear(system) -> NonlinearSystem:
    """The system as a :class:`NonlinearSystem` (a MechanicalSystem's linear constraints become φ = A q̇ + b)."""
    if isinstance(system, NonlinearSystem):
        return system
    if isinstance(system, MechanicalSystem):
        return NonlinearSystem.from_mechanical(system)
    raise ParseError(f"expected a NonlinearSystem or MechanicalSystem, got {type(system).__name__}")


