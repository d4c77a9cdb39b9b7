"""Constraints nonlinear in the velocities: φ^κ(t, q, q̇) = 0.

The virtual-displacement rule is a named, visible choice (:attr:`NonlinearSystem.virtual`).
The default is **Chetaev's** rule

    Σ_i ∂φ^κ/∂q̇^i δq^i = 0,        reaction R_i = λ_κ ∂φ^κ/∂q̇^i,                    (C)

so that  d/dt ∂T/∂q̇^i − ∂T/∂q^i = Q_i + λ_κ ∂φ^κ/∂q̇^i  (CONVENTIONS.md; for constraints
linear in q̇ this is the usual rule, and the sign is the one of :func:`geonh.equations.lagrange`).
The Chetaev codistribution is an ordinary :class:`~geonh.Codistribution` whose one-forms
depend on the velocities (:meth:`NonlinearSystem.chetaev_codistribution`).  A different rule
can be given as ``virtual=`` rows Θ^κ_i(t, q, q̇); the reaction is then λ_κ Θ^κ_i.

Equation forms (each returns an :class:`~geonh.equations.Equations`):

* :func:`chetaev_lagrange` — Lagrange's equations with Chetaev multipliers, unknowns (q̈, λ);
* :func:`appell` — Appell's equations with a multiplier (seed 002, eq. (4)):
  ∂S/∂q̈_ν − Q_ν − λ ∂f/∂q̇_ν = 0 together with the differentiated constraint (3), S
  Appell's acceleration energy (:meth:`MechanicalSystem.acceleration_energy`, built from
  Christoffel symbols, so the route is independent of Lagrange's).  The printed (4) writes
  ∂S/∂q'_ν (a velocity); only ∂S/∂q''_ν makes the equations right (docs/nonlinear.md);
* :func:`maggi_nonlinear` — Maggi's equations for nonlinear constraints (seed 003, eqs.
  (24)–(30)): user-chosen quasi-velocities v*^ρ(t, q, q̇) whose last k are the constraints
  (27), the inverse q̇(t, q, v*) (25), the velocity-dependent basis ε_τ = ∂q̇/∂v*^τ (26),
  the motion equations (28) and the reactions Λ_κ (30).

A :class:`NonlinearSystem` can draw random states on the constraint manifold
(:meth:`NonlinearSystem.sample_state`), which :func:`geonh.certificate.same_motion` uses to
compare equations of nonlinear systems.
"""
from __future__ import annotations

import random
from typing import Mapping, Sequence

import sympy as sp

from .distributions import Codistribution
from .equations import Equations, _speed_symbols, _time_derivative, multiplier_equations
from .errors import (DimensionError, InconsistentStateError, NotFoundError, NotLinearError,
                     RankError, SingularMapError)
from .forms import OneForm
from .generic import PRECISION, generic_rank
from .space import ConfigurationSpace
from .system import MechanicalSystem

__all__ = ["NonlinearSystem", "chetaev_lagrange", "appell", "maggi_nonlinear", "invert_quasi_velocities",
           "reactions_at", "solve_dependent_velocities", "linear_examples",
           "appell_hamel", "speed_constraint_particle", "isokinetic_particle", "sample_consistent_state"]


def _eq(e) -> sp.Expr:
    e = sp.sympify(e)
    return e.lhs - e.rhs if isinstance(e, sp.Equality) else e


def _rat(rng: random.Random) -> sp.Rational:
    den = rng.randint(7, 41)
    return sp.Rational(rng.randint(den // 4 + 1, 2 * den), den)


def _numeric(e: sp.Expr):
    """A number as an exact Rational or a PRECISION-digit Float (None if not real/finite)."""
    e = sp.sympify(e)
    if e.is_Rational:
        return e
    v = e.evalf(PRECISION)
    if not v.is_number or v.has(sp.zoo, sp.nan, sp.oo, -sp.oo):
        return None
    re, im = v.as_real_imag()
    if abs(im) > sp.Float(10) ** (-(PRECISION // 2)) * max(1, abs(re)):
        return None
    return sp.Float(re, PRECISION)


def sample_consistent_state(space: ConfigurationSpace, phi: Sequence[sp.Expr], solved: Mapping,
                            rng: random.Random, params: Sequence[sp.Symbol] = (),
                            attempts: int = 60) -> dict:
    """A random state {t, q, q̇, parameters} with φ(t, q, q̇) = 0.

    Coordinates, parameters and the free velocities get random rationals (velocities of either
    sign); the dependent velocities come from ``solved`` {q̇_j: expression in the others}.
    Draws whose dependent velocities are complex or singular are rejected and redrawn.
    """
    dep = set(solved)
    for _ in range(attempts):
        vals: dict = {s: _rat(rng) for s in space.coords}
        for p in sorted(set(params) - set(space.state_symbols), key=sp.default_sort_key):
            vals[p] = _rat(rng)
        for v in space.qd:
            if v not in dep:
                vals[v] = _rat(rng) * rng.choice([-1, 1])
        ok = True
        for v, e in solved.items():
            x = _numeric(sp.sympify(e).xreplace(vals))
            if x is None:
                ok = False
                break
            vals[v] = x
        if not ok:
            continue
        # guard against a wrong branch
        for f in phi:
            r = _numeric(f.xreplace(vals))
            if r is None or abs(r) > sp.Float(10) ** (-(PRECISION // 3)):
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
    phi = list(phi)
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
    T, V, forces : as for :class:`~geonh.system.MechanicalSystem` (T quadratic in q̇ with a
        positive definite mass matrix; a singular one raises NotPositiveDefiniteError).
    constraints : expressions φ^κ (= 0) or Equalities, each depending on the velocities.
    holonomic : f(t, q) = 0; they enter through ḟ = 0 (Appell's rule, seed 001 § 3 item 2).
    virtual : ``"chetaev"`` (default, rule (C) of the module docstring) or a sequence of rows
        Θ^κ_i(t, q, q̇) (one per constraint, n entries): δq must satisfy Θ^κ_i δq^i = 0.
    solved : optional {q̇_j: expression} giving the dependent velocities on one real branch
        of the constraint manifold (used to draw consistent states).  Default: sympy's solve
        for the last velocities whose Jacobian block is invertible, first real branch.
    """

    def __init__(self, space: ConfigurationSpace, T, V=0, forces=None, constraints=(), holonomic=(),
                 *, virtual="chetaev", solved: Mapping | None = None, name: str = ""):
        self.base = MechanicalSystem(space, T, V, forces, name=name)
        self.space = space
        self.name = name
        self.T = self.base.T
        self.V = self.base.V
        self.Q = self.base.Q
        self.holonomic: tuple[sp.Expr, ...] = tuple(_eq(f) for f in holonomic)
        phis = []
        for c in constraints:
            c = _eq(c)
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
                raise ValueError(f"virtual must be 'chetaev' or a sequence of rows, not {virtual!r}")
            self.virtual = "chetaev"
            self.virtual_matrix: sp.Matrix = J
        else:
            Th = sp.Matrix([list(row) for row in virtual]) if r else sp.zeros(0, space.n)
            if Th.shape != (r, space.n):
                raise DimensionError(f"virtual rule needs {r} rows of {space.n} entries, got {Th.shape}")
            if r and generic_rank(Th) < r:
                raise RankError("the rows of the virtual-displacement rule are dependent")
            self.virtual = "user"
            self.virtual_matrix = Th
        self._solved = dict(solved) if solved is not None else None

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
            out |= sp.sympify(e).free_symbols
        return out - set(self.space.state_symbols)

    # -- consistent states ------------------------------------------------------------------
    def solved(self) -> dict:
        """{q̇_j: expression}: the dependent velocities on one real branch (see class doc)."""
        if self._solved is None:
            self._solved = solve_dependent_velocities(self.space, self.phi, self.parameters())
        return self._solved

    def sample_state(self, rng: random.Random, extra_symbols=()) -> dict:
        """A random state on the constraint manifold (hook for :func:`geonh.certificate.same_motion`)."""
        params = self.parameters() | set(extra_symbols)
        return sample_consistent_state(self.space, self.phi, self.solved(), rng,
                                       sorted(params, key=sp.default_sort_key))

    def check_state(self, state: Mapping, tol: float = 1e-9) -> None:
        """Raise :class:`InconsistentStateError` if the state violates a constraint
        (holonomic ones at position level too)."""
        bad = []
        state = {k: sp.sympify(v) for k, v in dict(state).items()}
        for f in self.holonomic:
            v = _numeric(sp.sympify(f).xreplace(state))
            if v is None or abs(v) > tol:
                bad.append(f"{f} = {v}")
        for f in self.phi:
            v = _numeric(sp.sympify(f).xreplace(state))
            if v is None or abs(v) > tol:
                bad.append(f"{f} = {v}")
        if bad:
            raise InconsistentStateError("the state violates the constraints: " + "; ".join(bad))

    def __repr__(self) -> str:
        nm = f"{self.name}: " if self.name else ""
        kind = "linear" if self.is_linear else "nonlinear"
        return f"NonlinearSystem({nm}{self.space!r}, {len(self.phi)} {kind} constraint(s), {self.virtual})"


def _as_nonlinear(system) -> NonlinearSystem:
    if isinstance(system, NonlinearSystem):
        return system
    if isinstance(system, MechanicalSystem):
        return NonlinearSystem.from_mechanical(system)
    raise TypeError(f"expected a NonlinearSystem or MechanicalSystem, got {type(system).__name__}")


# ----------------------------------------------------------------------------------------------
# multiplier forms
# ----------------------------------------------------------------------------------------------
def chetaev_lagrange(system) -> Equations:
    """Lagrange's equations with Chetaev multipliers for φ^κ(t, q, q̇) = 0:

        d/dt ∂T/∂q̇^i − ∂T/∂q^i − Q_i − λ_κ Θ^κ_i = 0,      φ̇^κ = 0,

    Θ = ∂φ/∂q̇ for Chetaev's rule (the system's virtual rule otherwise).  Unknowns (q̈, λ);
    speeds are the velocities.  Reactions R_i = λ_κ Θ^κ_i.
    """
    system = _as_nonlinear(system)
    return multiplier_equations("chetaev-lagrange", system, system.lagrange_operator,
                                system.virtual_matrix, system.phi,
                                notes=f"virtual displacements: {system.virtual}")


def appell(system) -> Equations:
    """Appell's equations with multipliers (seed 002, eqs. (3), (4)):

        ∂S/∂q̈_ν − Q_ν − λ_κ ∂φ^κ/∂q̇_ν = 0,                                        (4)
        ∂φ/∂q̇_ν q̈_ν + ∂φ/∂q_ν q̇_ν + ∂φ/∂t = 0,                                    (3)

    S = Appell's acceleration energy (from Christoffel symbols).  Printed (4) reads ∂S/∂q'_ν;
    the derivative is with respect to the accelerations q''_ν (checked in the tests: with
    ∂S/∂q̇ the equations differ from every other form).  Sign: R_ν = +λ ∂φ/∂q̇_ν, the
    convention of CONVENTIONS.md and of seed 002 (its (4) has −λ ∂f/∂q'_ν on the left).
    """
    system = _as_nonlinear(system)
    S = system.space
    Sacc = system.acceleration_energy()
    accel = [sp.diff(Sacc, a) for a in S.qdd]
    return multiplier_equations("appell", system, accel, system.virtual_matrix, system.phi)


# ----------------------------------------------------------------------------------------------
# Maggi's equations for nonlinear constraints
# ----------------------------------------------------------------------------------------------
def _symbols_for(names: Sequence[str], tag: str) -> tuple[sp.Symbol, ...]:
    return tuple(sp.Symbol(f"{nm}{tag}", real=True) for nm in names)


def invert_quasi_velocities(system, quasi: Sequence, vstar: Sequence[sp.Symbol], *,
                            inverse: Sequence | None = None, branch: int | None = None) -> list[sp.Expr]:
    """The inverse q̇^σ = q̇^σ(t, q, v*) of seed 003 eq. (25) for v*^ρ = quasi[ρ](t, q, q̇).

    * The Jacobian ∂v*/∂q̇ must be nonsingular at the generic point of the constraint manifold;
      otherwise no inverse exists and :class:`SingularMapError` is raised.
    * ``inverse`` given: it is checked (v*(q̇(v*)) = v* at random consistent states).
    * otherwise sympy's ``solve``; no solution raises :class:`NotFoundError` asking for
      ``inverse=``.  Several branches: ``branch`` picks one; without it the branch that
      reproduces the velocities of random consistent states is taken (exactly one must).
    """
    system = _as_nonlinear(system)
    S = system.space
    quasi = [sp.sympify(q) for q in quasi]
    if len(quasi) != S.n or len(vstar) != S.n:
        raise DimensionError(f"{S.n} quasi-velocities needed, got {len(quasi)}")
    Jv = sp.Matrix([[sp.diff(w, v) for v in S.qd] for w in quasi])
    rng = random.Random(11)
    states = [system.sample_state(rng) for _ in range(2)]
    for st in states:
        vals = [_numeric(e.xreplace(st)) for e in Jv]
        if any(v is None for v in vals) or sp.Matrix(S.n, S.n, vals).rank(
                iszerofunc=lambda x: abs(x) < sp.Float(10) ** (-(PRECISION // 3))) < S.n:
            raise SingularMapError(
                "the Jacobian ∂v*/∂q̇ of the chosen quasi-velocities is singular on the constraint "
                "manifold: the inverse q̇(t, q, v*) (seed 003, eq. (25)) does not exist")

    def check(cand: Sequence[sp.Expr]) -> bool:
        for st in states:
            vs = {w: _numeric(q.xreplace(st)) for w, q in zip(vstar, quasi)}
            if any(v is None for v in vs.values()):
                return False
            pt = {**{k: v for k, v in st.items() if k not in S.qd}, **vs}
            for qd, e in zip(S.qd, cand):
                x = _numeric(sp.sympify(e).xreplace(pt))
                if x is None or abs(x - st[qd]) > sp.Float(10) ** (-(PRECISION // 3)) * max(1, abs(st[qd])):
                    return False
        return True

    if inverse is not None:
        inv = [sp.sympify(e) for e in inverse]
        if len(inv) != S.n:
            raise DimensionError(f"the inverse needs {S.n} expressions q̇(t, q, v*), got {len(inv)}")
        if not check(inv):
            raise SingularMapError("the given inverse q̇(t, q, v*) does not invert the quasi-velocities "
                                   "(v*(q̇(v*)) ≠ v* at a consistent state)")
        return inv
    try:
        sols = sp.solve([q - w for q, w in zip(quasi, vstar)], list(S.qd), dict=True)
    except NotImplementedError:
        sols = []
    sols = [s for s in sols if all(v in s for v in S.qd)]
    if not sols:
        raise NotFoundError("sympy cannot invert the quasi-velocities v*(t, q, q̇) (seed 003, eq. (25)); "
                            "pass inverse=[q̇^1(t, q, v*), ...]")
    cands = [[s[v] for v in S.qd] for s in sols]
    if branch is not None:
        if not 0 <= branch < len(cands):
            raise NotFoundError(f"branch {branch} requested, sympy found {len(cands)} branch(es)")
        return cands[branch]
    good = [c for c in cands if check(c)]
    if len(good) != 1:
        raise NotFoundError(
            f"sympy found {len(cands)} branch(es) of the inverse, {len(good)} of which reproduce the "
            f"system's consistent states: pass branch= or inverse= ({cands})")
    return good[0]


def maggi_nonlinear(system, quasi: Sequence, *, names: Sequence[str] | None = None,
                    inverse: Sequence | None = None, branch: int | None = None) -> Equations:
    """Maggi's equations for (possibly nonlinear) constraints, seed 003 eqs. (24)–(30).

    ``quasi`` = (v*^1 … v*^n), expressions in (t, q, q̇): the first l = n − k are the free
    quasi-velocities (the speeds u of the result), the last k the constraints, v*^{l+κ} = φ^κ
    (27) — any functions vanishing exactly on the constraint manifold with the same Chetaev
    forms there are accepted; the reactions Λ are then the multipliers of *these* functions.
    With ε_τ^σ = ∂q̇^σ/∂v*^τ (26) at v*^{l+κ} = 0 and MW_σ − Q_σ = d/dt ∂T/∂q̇^σ − ∂T/∂q^σ − Q_σ:

        (MW_σ − Q_σ) ∂q̇^σ/∂v*^λ = 0,        λ = 1 … l                             (28)
        (MW_σ − Q_σ) ∂q̇^σ/∂v*^{l+κ} = Λ_κ,   κ = 1 … k                             (30)

    (the printed (30) says κ = l … k; the range is 1 … k).  Λ_κ = λ_κ of :func:`appell` /
    :func:`chetaev_lagrange` when v*^{l+κ} = φ^κ, since ∂φ^μ/∂q̇^σ ∂q̇^σ/∂v*^{l+κ} = δ^μ_κ.
    The reactions are stored in :attr:`Equations.reactions` as expressions in (t, q, u, u̇).
    """
    system = _as_nonlinear(system)
    S = system.space
    n, k = S.n, system.n_constraints
    l = n - k
    quasi = [sp.sympify(q) for q in quasi]
    if len(quasi) != n:
        raise DimensionError(f"{n} quasi-velocities needed (l = {l} free, then the {k} constraints), "
                             f"got {len(quasi)}")
    # the last k must vanish on the constraint manifold, with the same Chetaev forms
    if k:
        rng = random.Random(5)
        Jphi = system.constraint_jacobian
        Jc = sp.Matrix([[sp.diff(w, v) for v in S.qd] for w in quasi[l:]])
        for _ in range(2):
            st = system.sample_state(rng)
            for w in quasi[l:]:
                x = _numeric(w.xreplace(st))
                if x is None or abs(x) > sp.Float(10) ** (-(PRECISION // 3)):
                    raise RankError(f"the constraint quasi-velocity {w} does not vanish on the constraint "
                                    "manifold: the last k quasi-velocities must be the constraints (27)")
            M = Jphi.col_join(Jc).xreplace(st)
            vals = [_numeric(e) for e in M]
            if any(v is None for v in vals) or sp.Matrix(2 * k, n, vals).rank(
                    iszerofunc=lambda x: abs(x) < sp.Float(10) ** (-(PRECISION // 3))) != k:
                raise RankError("the last k quasi-velocities do not have the constraints' Chetaev forms "
                                "on the constraint manifold")
    if names is None:
        names = [f"v{i + 1}" for i in range(l)]
    names = list(names)
    if len(names) != l:
        raise DimensionError(f"{l} names for the free quasi-velocities needed, got {len(names)}")
    vstar = _symbols_for(names, "") + tuple(sp.Symbol(f"v_c{j + 1}", real=True) for j in range(k))
    inv = invert_quasi_velocities(system, quasi, vstar, inverse=inverse, branch=branch)
    u, ud = _speed_symbols(names)
    on = {vstar[l + j]: sp.S.Zero for j in range(k)}
    K = [e.xreplace(on) for e in inv]
    eps = [[sp.diff(e, w).xreplace(on) for e in inv] for w in vstar]  # eps[tau][sigma]
    acc = [_time_derivative(system, kk, K, u, ud) for kk in K]
    sub = dict(zip(S.qdd, acc))
    sub.update(zip(S.qd, K))
    LQ = [(L - Q).xreplace(sub) for L, Q in zip(system.lagrange_operator, system.Q)]
    res = [sum((LQ[s] * eps[lam][s] for s in range(n) if eps[lam][s] != 0), sp.S.Zero) for lam in range(l)]
    reac = [sum((LQ[s] * eps[l + j][s] for s in range(n) if eps[l + j][s] != 0), sp.S.Zero) for j in range(k)]
    eq = Equations("maggi-nonlinear", system, u, ud, K, quasi[:l], res, reactions=reac,
                   notes="reactions = Λ_κ of seed 003 eq. (30)")
    eq.basis = eps
    eq.inverse = inv
    eq.quasi = quasi
    return eq


def reactions_at(eq: Equations, state: Mapping) -> list:
    """Evaluate :attr:`Equations.reactions` of a Maggi result at a state {t, q, q̇, parameters}:
    u from the speeds, u̇ from the equations (exact or PRECISION digits)."""
    from .numerics import _num, to_sympy
    vals = dict(state)
    for u, s in zip(eq.u, eq.speeds):
        vals.setdefault(u, to_sympy(_num(s, vals)))
    x = eq.solve_point(vals)
    vals.update({a: to_sympy(b) for a, b in zip(eq.unknowns, x)})
    return [_num(r, vals) for r in eq.reactions]


# ----------------------------------------------------------------------------------------------
# examples
# ----------------------------------------------------------------------------------------------
def appell_hamel(squared: bool = True) -> NonlinearSystem:
    """Appell–Hamel's example: a particle (mass m, gravity g along −z) with
    ż² = a²(ẋ² + ẏ²) (``squared=True``) or ż = a √(ẋ² + ẏ²); branch ż > 0 for sampling."""
    S = ConfigurationSpace("x y z")
    x, y, z = S.q
    xd, yd, zd = S.qd
    m, g, a = sp.symbols("m g a", positive=True)
    T = m * (xd ** 2 + yd ** 2 + zd ** 2) / 2
    if squared:
        phi = zd ** 2 - a ** 2 * (xd ** 2 + yd ** 2)
    else:
        phi = zd - a * sp.sqrt(xd ** 2 + yd ** 2)
    return NonlinearSystem(S, T, V=m * g * z, constraints=[phi],
                           solved={zd: a * sp.sqrt(xd ** 2 + yd ** 2)}, name="Appell-Hamel")


def speed_constraint_particle() -> NonlinearSystem:
    """Rheonomic speed constraint ẋ² + ẏ² = v(t)², v(t) = v0 + v1 t, for a particle of mass m
    in the field of a spring k (V = k(x² + y²)/2) and a constant force F along x."""
    S = ConfigurationSpace("x y", time=True)
    x, y = S.q
    xd, yd = S.qd
    t = S.t
    m, k, F, v0, v1 = sp.symbols("m k F v0 v1", positive=True)
    v = v0 + v1 * t
    return NonlinearSystem(S, m * (xd ** 2 + yd ** 2) / 2, V=k * (x ** 2 + y ** 2) / 2, forces=[F, 0],
                           constraints=[xd ** 2 + yd ** 2 - v ** 2],
                           solved={xd: sp.sqrt(v ** 2 - yd ** 2)}, name="speed constraint")


def isokinetic_particle() -> NonlinearSystem:
    """Constant-speed (isokinetic, Gaussian thermostat) particle in 3-space: ẋ² + ẏ² + ż² = c²
    in the potential V = k (x² + 2y² + 3z²)/2 + e x y.  Known answer (Chetaev): m q̈ = F − (F·v/|v|²) v."""
    S = ConfigurationSpace("x y z")
    x, y, z = S.q
    xd, yd, zd = S.qd
    m, k, e, c = sp.symbols("m k e c", positive=True)
    V = k * (x ** 2 + 2 * y ** 2 + 3 * z ** 2) / 2 + e * x * y
    return NonlinearSystem(S, m * (xd ** 2 + yd ** 2 + zd ** 2) / 2, V=V,
                           constraints=[xd ** 2 + yd ** 2 + zd ** 2 - c ** 2],
                           solved={zd: sp.sqrt(c ** 2 - xd ** 2 - yd ** 2)}, name="isokinetic particle")


# -- linear-constraint examples (for the cross-form checks of Gauss, Appell, Maggi, Lagrange) --------
def linear_examples() -> dict:
    """name -> (MechanicalSystem, Maggi quasi-velocities: the free ones, then the constraints),
    from the built-in models of :mod:`geonh.systems` and their adapted frames."""
    from . import systems
    out = {}
    for label, name in (("sleigh", "chaplygin-sleigh"), ("rolling disk", "vertical-disk"),
                        ("knife edge", "inclined-knife-edge"), ("skate on belt", "skate-on-belt")):
        model = systems.get(name)
        quasi = model.frame.quasi_velocities()[:model.space.n]
        out[label] = (model.system, quasi)
    return out
