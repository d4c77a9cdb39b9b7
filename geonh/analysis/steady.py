"""Steady motions (relative equilibria) defined by a symmetry, their stability and its
boundaries in closed form (docs/linearization.md, "Relative equilibria").

A symmetry group G acts on Q with infinitesimal generators X_1 … X_k (checked by
:func:`~geonh.analysis.conserved.check_symmetry`).  A *relative equilibrium* is a motion
q(t) = exp(tξ)·q0 for a constant ξ in the Lie algebra: the velocity is the generator of ξ at
the point, q̇ = ξ_Q(q) = ξ^a X_a(q), the shape (the coordinates no generator moves) is
constant (Marsden & Ratiu 1999; for nonholonomic systems Bloch 2003 and Zenkov,
Bloch & Marsden 1998, *Dynam. Stability Systems* 13, 123–165).  It is not "constant speeds of
the chosen form": in Lagrange's form the contact velocities ẋ, ẏ of a disk on a circle rotate.

Conditions (algebraic in the shape, ξ and the multipliers λ; :func:`steady_motions`):

* the constraints hold on the velocity, A(q0) ξ_Q(q0) + b = 0;
* seen from the group motion, the point is an equilibrium: with u0 = s(q0, ξ_Q(q0)) (the
  speeds of the form) the accelerations are those of the group motion, u̇ = ξ_u(q0, u0)
  (:func:`~geonh.analysis.linearize.state_generator`), i.e. M(q0, u0) (ξ_u, λ) = F(q0, u0).

Stability (:meth:`SteadyMotion.stability`) is read from the linearization reduced by the
symmetry (:func:`~geonh.analysis.linearize.linearize` with ``generators=``).  Its zero
eigenvalues that come from the family of steady motions (each family parameter gives a
direction tangent to the family, a null vector of A — the reduced system's equilibria are
not isolated; they come with the conserved quantities that label them) are identified as
such and not counted as instability.  :func:`stability_boundary` gives the conditions in
closed form: the characteristic polynomial of the symbolic reduced A with the family's
zeros divided out, then, for a polynomial even in λ (reversible, conservative systems such
as the rolling disk: spectral stability needs every root on the imaginary axis), the
conditions that the polynomial in μ = λ² has real negative roots, and otherwise the
Routh–Hurwitz conditions (Gantmacher 1959, vol. II, ch. XV) for roots in the left half-plane.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

import sympy as sp

from ..equations.base import Equations
from ..errors import (DimensionError, InconsistentStateError, MissingValueError, NotFoundError, ParseError,
                      UnsupportedSetupError)
from ..kernel.generic_point import generic_rank, is_zero
from ..systems.mechanical import MechanicalSystem
from ..kernel.parsing import as_expr, as_floats, as_mapping, as_sequence, sympy_of
from ..kernel.space import known_symbols
from .linearize import Linearization, linearize, state_generator
from .conserved import check_symmetry

__all__ = ["SteadyMotion", "Stability", "StabilityBoundary", "steady_motions", "stability_boundary",
           "eigenvalue_diagram"]


@dataclass(frozen=True, eq=False)
class SteadyMotion:
    """A family of relative equilibria q(t) = exp(tξ)·q0.

    Attributes
    ----------
    equations : the :class:`~geonh.Equations` the family solves.
    generators : the generators X_a (component tuples over q).
    xi : ξ, one expression per generator, in the family's parameters.
    point : {coordinate or speed: expression} — q0 (group coordinates at their reference
        values) and every speed of the form u0 = s(q0, ξ_Q(q0)).
    multipliers : {λ: expression} (forms with multipliers).
    parameters : the free symbols that parameterise the family (shape coordinates and the
        components of ξ not solved for).
    condition : the conditions solved (expressions = 0) before solving.
    """

    equations: Equations
    generators: tuple
    xi: tuple
    point: dict
    multipliers: dict
    parameters: tuple
    condition: tuple = field(default=(), repr=False)
    #: (unknowns w = (shape, ξ, λ), the conditions E(w) = 0 with the shape free, {state symbol:
    #: its value as a function of w}): the set of all relative equilibria near the family
    variety: tuple = field(default=((), (), {}), repr=False)

    def __repr__(self) -> str:
        xi = ", ".join(str(x) for x in self.xi)
        return f"SteadyMotion({self.equations.form}: xi=({xi}), parameters={[str(p) for p in self.parameters]})"

    def values(self, values: Mapping | None = None) -> dict:
        """The point with ``values`` ({name or symbol: value} for the family's parameters and
        the system's parameters) substituted: {symbol: value}, the parameters included.  A value
        may be a formula (a string is parsed over the equations' symbols, never evaluated) in
        other given values, e.g. ``{"I_d": "m*r**2/4", "r": 1}``."""
        known = {s.name: s for s in self.equations.value_symbols}
        known.update({p.name: p for p in self.parameters})
        given: dict = {}
        for k, v in (as_mapping(values, "values") if values is not None else {}).items():
            s = k if isinstance(k, sp.Symbol) and k in known.values() else known.get(str(k))   # a symbol by its name too
            if s is None:
                raise NotFoundError(f"{k!r} is neither a parameter of the family {[p.name for p in self.parameters]} "
                                    "nor a symbol of the equations")
            given[s] = as_expr(v, tuple(known.values()), what=f"value of {k}")
            if isinstance(v, float):      # the decimal it prints as (0.3 is 3/10), as linearize reads it
                given[s] = sp.Rational(repr(v))
        for _ in range(len(given)):          # a value may be a formula in other given values
            resolved = {s: sympy_of(e).xreplace(given) for s, e in given.items()}
            if resolved == given:
                break
            given = resolved
        if given and any(sympy_of(e).has(*given) for e in given.values()):
            raise ParseError(f"the values {{{', '.join(f'{s}: {e}' for s, e in given.items())}}} refer to each "
                             "other in a circle")
        out = {s: sympy_of(e).xreplace(given) for s, e in self.point.items()}
        out.update(given)
        return out

    def linearize(self, values: Mapping | None = None, *, symbolic: bool = False, **kw: Any) -> Linearization:
        """The linearization reduced by the symmetry at the member of the family given by
        ``values`` (:func:`~geonh.analysis.linearize.linearize` with ``generators`` and ``xi``)."""
        pt = self.values(values)
        xi = [sympy_of(x).xreplace(pt) for x in self.xi]
        fam = set(self.parameters)
        left = sorted(p.name for p in fam if p not in pt)
        if left and not symbolic:
            raise MissingValueError(f"give values for the family's parameters {left}")
        op = {s: v for s, v in pt.items() if s not in fam or s in self.point}
        return linearize(self.equations, op, generators=self.generators, xi=xi, symbolic=symbolic, **kw)

    def tangents(self, lin: Linearization, values: Mapping | None = None):
        """Directions tangent to the set of relative equilibria at the point, in the state of
        the reduced linearization ``lin`` (a float array, one column per direction): the null
        space of the Jacobian of the conditions E(shape, ξ, λ) = 0 (the shape free, the
        constraints among them) mapped by the derivative of the state's values.  Each is a
        null vector of A (the reduced flow has a family of equilibria there); their number
        is the count of zero eigenvalues the family explains."""
        import numpy as np
        w, E, state_of = self.variety
        pt = self.values(values)
        w0: dict = {}
        for x in w:
            if x in self.point:
                w0[x] = sympy_of(self.point[x]).xreplace(pt)
        for x, e in zip(sp.symbols(f"xi1:{len(self.xi) + 1}", real=True), self.xi):
            w0[x] = sympy_of(e).xreplace(pt)
        for lm, e in self.multipliers.items():
            w0[lm] = sympy_of(e).xreplace(pt)
        sub = {**{k: v for k, v in pt.items() if k not in w0}, **w0}

        def num(e) -> float:
            v = sympy_of(e).xreplace(sub)
            for _ in range(3):          # values given as expressions in other values (I_d = m r²/4)
                if not v.free_symbols & set(sub):
                    break
                v = v.xreplace(sub)
            if v.free_symbols:
                raise MissingValueError(f"give values for {sorted(map(str, v.free_symbols))}")
            return float(v.evalf(30))
        if not w or not E:
            return np.zeros((len(lin.state), 0))
        J = np.array([[num(sp.diff(e, x)) for x in w] for e in E])
        _, sv, vt = np.linalg.svd(J)
        tol = 1e-9 * (1 + (sv[0] if sv.size else 0))
        rank = int(np.sum(sv > tol))
        N = vt[rank:].T
        Dz = np.array([[num(sp.diff(state_of.get(st, sp.S.Zero), x)) for x in w] for st in lin.state])
        return Dz @ N

    def stability(self, values: Mapping | None = None, *, tol: float = 1e-9) -> Stability:
        """The verdict at one member of the family (numbers for every parameter): eigenvalues of
        the reduced linearization, its zero eigenvalues split into those of the family (their
        eigenvectors tangent to the family) and the others."""
        import numpy as np
        lin = self.linearize(values, exact=True)
        ev = lin.eigenvalues()
        A = np.array(lin.A.evalf(17), dtype=float).reshape(lin.A.shape) if lin.A.rows else np.zeros((0, 0))
        scale = 1.0 + (float(np.max(np.abs(A))) if A.size else 0.0)
        fam = _family_rank(A, self.tangents(lin, values), tol, scale)
        zeros = int(sum(1 for z in ev if abs(z) <= tol * scale))
        real = max((z.real for z in ev if abs(z) > tol * scale), default=None)
        if real is not None and real > tol * scale:
            verdict = "unstable"
        elif zeros > fam:
            verdict = "degenerate"
        elif real is not None and real < -tol * scale:
            verdict = "asymptotically stable"
        else:
            verdict = "spectrally stable"
        return Stability(verdict, ev, zeros, fam, lin)


@dataclass(frozen=True, eq=False)
class Stability:
    """The stability verdict of a steady motion from its reduced linearization.

    ``verdict``: "unstable" (an eigenvalue with positive real part), "degenerate" (more zero
    eigenvalues than the family explains: the linearization does not decide),
    "asymptotically stable" (every other eigenvalue in the open left half-plane: stable
    modulo the family), "spectrally stable" (the others on the imaginary axis, or none: linearly
    neutral, the classical verdict of the rolling disk).  ``zeros`` counts the zero
    eigenvalues, ``family_zeros`` those explained by directions tangent to the family."""

    verdict: str
    eigenvalues: Any
    zeros: int
    family_zeros: int
    linearization: Linearization = field(repr=False)


@dataclass(frozen=True, eq=False)
class StabilityBoundary:
    """Closed-form stability conditions of a family: ``polynomial`` the characteristic
    polynomial in ``lam`` with the family's zeros divided out, ``conditions`` expressions that
    must all be > 0, ``kind`` "spectral" (even polynomial: roots on the imaginary axis) or
    "Routh-Hurwitz" (roots in the open left half-plane), ``zeros`` the power of λ divided out
    (the roots that vanish for every value of the symbols left), ``family_zeros`` how many of
    them the family explains (directions tangent to it in the kernel of A; the others come
    from conserved quantities whose level sets the family does not sweep)."""

    polynomial: sp.Expr
    lam: sp.Symbol
    conditions: tuple
    kind: str
    zeros: int
    family_zeros: int = 0

    def holds(self, values: Mapping) -> bool:
        """Whether every condition is > 0 at ``values`` ({symbol or name: number})."""
        by = {s.name: s for c in self.conditions for s in sympy_of(c).free_symbols}
        sub = {(k if isinstance(k, sp.Symbol) else by.get(str(k), sp.Symbol(str(k)))): as_expr(v)
               for k, v in as_mapping(values, "values").items()}
        out = []
        for c in self.conditions:
            v = sympy_of(c).xreplace(sub)
            if v.free_symbols:
                raise MissingValueError(f"give values for {sorted(map(str, v.free_symbols))}")
            out.append(bool(v.evalf(30) > 0))
        return all(out)


def _family_rank(A, T, tol: float, scale: float) -> int:
    """The rank of the tangent directions ``T`` (columns) that are null vectors of ``A``."""
    import numpy as np
    if not T.size:
        return 0
    null = np.abs(A @ T).max(axis=0) <= tol * scale * (1 + np.abs(T).max(axis=0))
    if not np.any(null):
        return 0
    return int(np.linalg.matrix_rank(T[:, null], tol=tol * (1 + np.abs(T).max())))


def _degree(e, x) -> int:
    """The degree of ``e`` in ``x`` as a polynomial (the other symbols and functions as
    coefficients); a large number where it is not polynomial in x."""
    try:
        return sp.Poly(e, x).degree()
    except sp.PolynomialError:
        return 99


def _group_and_shape(n: int, gens: Sequence) -> tuple[list[int], list[int]]:
    moved = [i for i in range(n) if any(sympy_of(g[i]) != 0 for g in gens)]
    return moved, [i for i in range(n) if i not in moved]


def generators_over(system: MechanicalSystem, generators: Sequence) -> list:
    """``generators`` with each string component parsed over the system's own symbols (its
    coordinates and the parameters of T, V, the forces and the constraints; by name, never
    evaluated), so that ``"a*x"`` means the system's ``a`` with its assumptions, not a new
    symbol.  Component sequences and {coordinate: component} mappings are parsed; vector
    fields pass unchanged."""
    S = system.space
    known = known_symbols(S, system.T, system.V, list(system.Q), system.constraints.matrix())
    moving = set(S.qd) | set(S.qdd) | ({S.t} if S.t is not None else set())

    def one(c):
        e = as_expr(c, known, what="a generator's component") if isinstance(c, str) else c
        hit = sorted(str(v) for v in getattr(sympy_of(e), "free_symbols", set()) & moving) \
            if isinstance(e, (sp.Basic, str)) else []
        if hit:
            raise ParseError(f"a generator's component {e} depends on {', '.join(hit)}: a generator is a vector "
                             "field on Q, a function of the coordinates and parameters only")
        return e
    out: list = []
    for g in as_sequence(generators, "generators"):
        if isinstance(g, Mapping):
            out.append({k: one(v) for k, v in g.items()})
        elif isinstance(g, (list, tuple)):
            out.append([one(c) for c in g])
        else:
            out.append(g)
    return out


def _refuse_time(equations: Equations) -> None:
    """A relative equilibrium is a motion of autonomous equations: refuse equations that
    depend on time explicitly (a time-dependent force or constraint), whose conditions would
    otherwise be solved at t = 0 only."""
    t = equations.space.t
    if t is None:
        return
    exprs = [*equations.residuals, *equations.kinematics, *equations.speeds]
    if isinstance(equations.system, MechanicalSystem):
        exprs += list(equations.system.constraints.matrix())
    if any(sympy_of(e).has(t) for e in exprs):
        raise UnsupportedSetupError(f"the {equations.form} equations depend on the time {t} explicitly: a relative "
                                    "equilibrium (steady motion) needs autonomous equations")


def steady_motions(equations: Equations, generators: Sequence, *, at: Mapping | None = None,
                   solve_for: Sequence | None = None) -> list[SteadyMotion]:
    """The relative equilibria of ``equations`` (any form) for the symmetry ``generators``,
    as families solved in closed form (module docstring).

    Parameters
    ----------
    generators : X_1 … X_k (component sequences over q, {coordinate: component} mappings or
        :class:`~geonh.VectorField`); checked by :func:`~geonh.analysis.conserved.check_symmetry`.
        ξ gets the symbols ``xi1`` … ``xik``.
    at : values for coordinates (the group coordinates' reference point, default 0; a shape
        coordinate given here is fixed, e.g. the upright disk θ = 0) and for parameters.
    solve_for : the unknowns (names of ξ components or shape coordinates) the dynamic
        conditions are solved for besides the multipliers; default the last ξ component that
        the conditions still contain.

    Returns one :class:`SteadyMotion` per solution branch (each verified by substitution);
    none raises :class:`~geonh.errors.InconsistentStateError` naming the conditions.
    """
    if not isinstance(equations, Equations):
        raise ParseError(f"steady_motions takes Equations, not {type(equations).__name__}")
    system = equations.system
    if not isinstance(system, MechanicalSystem):
        raise ParseError(f"a symmetry acts on a MechanicalSystem; these {equations.form} equations are of a "
                         f"{type(system).__name__}")
    fields = check_symmetry(system, generators_over(system, generators))
    S = equations.space
    q, qd, n = list(S.q), list(S.qd), len(S.q)
    gens = tuple(tuple(X.components[:n]) for X in fields)
    k = len(gens)
    _refuse_time(equations)
    if generic_rank(sp.Matrix(n, k, lambda i, a: sympy_of(gens[a][i]))) < k:
        raise DimensionError(f"the {k} generators are linearly dependent (a redundant generator): ξ would not be "
                             "unique and the action not free; give independent generators")
    xi = sp.symbols(f"xi1:{k + 1}", real=True)
    moved, shape = _group_and_shape(n, gens)
    given = {s: as_expr(v, what=f"value of {s} in at")
             for s, v in equations.resolve_values((as_mapping(at, "at") if at is not None else {}),
                                                  "steady_motions at").items()}
    q0 = {q[i]: (given.get(q[i], sp.S.Zero) if i in moved else given.get(q[i], q[i])) for i in range(n)}
    params = {s: v for s, v in given.items() if s not in q}
    qdot = [sum((xi[a] * sympy_of(gens[a][i]) for a in range(k)), sp.S.Zero).xreplace(q0) for i in range(n)]
    at_q = {**q0, **params}
    # 1. the constraints on the velocity ξ_Q(q0): linear in ξ
    Cm = system.constraints.matrix()
    cons = [sp.expand(sum((Cm[r, i].xreplace(at_q) * qdot[i] for i in range(n)), sp.S.Zero)
                      + (Cm[r, n].xreplace(at_q) if S.t is not None else 0)) for r in range(Cm.rows)]
    cons = [c for c in cons if c != 0]
    sol_c: dict = {}
    if cons:
        lin_xi = [x for x in reversed(xi) if any(c.has(x) for c in cons)]
        sols = sp.solve(cons, lin_xi, dict=True)
        if not sols:
            raise InconsistentStateError(f"no velocity ξ_Q(q0) satisfies the constraints {cons}")
        sol_c = sols[0]
    xi_c = [sympy_of(x).xreplace(sol_c) for x in xi]
    qdot = [sp.expand(sympy_of(e).xreplace(sol_c)) for e in qdot]
    # 2. the speeds of the form, and the accelerations of the group motion
    sub_qd = dict(zip(qd, qdot))
    u0 = {s: sympy_of(e).xreplace(at_q).xreplace(sub_qd) for s, e in zip(equations.u, equations.speeds)}
    xi_u = [sp.S.Zero] * len(equations.u)
    for a in range(k):
        _, lift = state_generator(equations, gens[a])
        for j, e in enumerate(lift):
            xi_u[j] += xi_c[a] * sympy_of(e)
    state = {**at_q, **u0}
    if S.t is not None:
        state[S.t] = sp.S.Zero
    acc = {ud: sympy_of(e).xreplace(state) for ud, e in zip(equations.ud, xi_u)}
    conds = [sp.expand(sympy_of(r).xreplace(state).xreplace(acc)) for r in equations.residuals]
    conds = [c for c in conds if not is_zero(c)]
    lams = list(equations.multipliers)
    names = {x.name: x for x in list(xi) + [q[i] for i in shape]}
    if solve_for is None:
        cand = [x for x in reversed(xi_c) if isinstance(x, sp.Symbol) and any(c.has(x) for c in conds)]
        linear = [x for x in cand if all(_degree(c, x) <= 1 for c in conds)]
        tries = [[x] for x in linear + [x for x in cand if x not in linear]] or [[]]
    else:
        unknowns = []
        for name in as_sequence(solve_for, "solve_for"):
            s = name if isinstance(name, sp.Symbol) else names.get(str(name))
            if s is None:
                raise NotFoundError(f"solve_for {name!r} is not one of {sorted(names)}")
            unknowns.append(s)
        tries = [unknowns]
    variety = _variety(equations, gens, xi, {q[i]: (given.get(q[i], sp.S.Zero) if i in moved else q[i])
                                              for i in range(n)}, params, shape)
    out: list[SteadyMotion] = []
    for unknowns in tries:
        out = _families(equations, gens, xi, q, xi_c, q0, u0, conds, lams, unknowns, variety)
        if out:
            return out
    raise InconsistentStateError("no relative equilibrium of this symmetry solves the conditions "
                                 f"{[str(c) for c in conds]} for {[str(x) for x in lams + tries[-1]]}")


def _variety(equations: Equations, gens: tuple, xi: tuple, q0: dict, params: dict, shape: list) -> tuple:
    """(w, E, state values) of :attr:`SteadyMotion.variety`: every condition of a relative
    equilibrium — the constraints on ξ_Q(q0) and M (ξ_u, λ) = F at u0 = s(q0, ξ_Q(q0)) — with
    the shape coordinates free and ξ unsolved."""
    S = equations.space
    q, qd, n, k = list(S.q), list(S.qd), len(S.q), len(gens)
    at_q = {**q0, **params}
    qdot = [sum((xi[a] * sympy_of(gens[a][i]) for a in range(k)), sp.S.Zero).xreplace(at_q) for i in range(n)]
    Cm = cast(MechanicalSystem, equations.system).constraints.matrix()
    E = [sum((Cm[r, i].xreplace(at_q) * qdot[i] for i in range(n)), sp.S.Zero)
         + (Cm[r, n].xreplace(at_q) if S.t is not None else 0) for r in range(Cm.rows)]
    sub_qd = dict(zip(qd, qdot))
    u0 = {s: sympy_of(e).xreplace(at_q).xreplace(sub_qd) for s, e in zip(equations.u, equations.speeds)}
    xi_u = [sp.S.Zero] * len(equations.u)
    for a in range(k):
        for j, e in enumerate(state_generator(equations, gens[a])[1]):
            xi_u[j] += xi[a] * sympy_of(e)
    state = {**at_q, **u0}
    if S.t is not None:
        state[S.t] = sp.S.Zero
    acc = {ud: sympy_of(e).xreplace(state) for ud, e in zip(equations.ud, xi_u)}
    E += [sympy_of(r).xreplace(state).xreplace(acc) for r in equations.residuals]
    w = tuple(q[i] for i in shape) + tuple(xi) + tuple(equations.multipliers)
    state_of = {**{q[i]: q[i] for i in shape}, **u0}
    return w, tuple(e for e in E if e != 0), state_of


def _families(equations, gens, xi, q, xi_c, q0, u0, conds, lams, unknowns, variety) -> list[SteadyMotion]:
    """The solution branches of the dynamic conditions for the multipliers and ``unknowns``,
    each verified by substitution."""
    sols = sp.solve(conds, lams + unknowns, dict=True) if conds else [{}]
    out = []
    for sol in sols:
        sol = {s: sp.factor(sp.cancel(sp.together(v))) for s, v in sol.items()}
        if any(sympy_of(v).has(sp.zoo, sp.nan) for v in sol.values()):
            continue
        left = [sympy_of(c).xreplace(sol) for c in conds]
        if not all(is_zero(sp.together(c)) for c in left):
            continue
        fam_xi = tuple(sympy_of(x).xreplace(sol) for x in xi_c)
        point = {s: sympy_of(v).xreplace(sol) for s, v in {**q0, **u0}.items()}
        free = set().union(*(sympy_of(e).free_symbols for e in list(fam_xi) + list(point.values())))
        fam = tuple(sorted((s for s in free if s in set(xi) or s in set(q)), key=lambda s: s.name))
        out.append(SteadyMotion(equations, gens, fam_xi, point, {lm: sol.get(lm, sp.S.Zero) for lm in lams},
                                fam, tuple(conds), variety))
    return out


def _family_zeros_at_sample(motion: SteadyMotion, lin: Linearization, values: Mapping | None) -> int:
    """The number of zero eigenvalues the family explains (:meth:`SteadyMotion.tangents`) at
    a random member (reproducible positive rationals for the symbols left in A)."""
    import numpy as np
    from ..kernel.sampling import sample_points
    given = motion.values(values)
    w, E, _ = motion.variety
    exprs = list(lin.A) + [sympy_of(e).xreplace(given) for e in E] + list(given.values())
    fixed = {k for k, v in given.items() if sympy_of(v) != k}     # a free shape coordinate maps to itself
    free = (set().union(*(sympy_of(e).free_symbols for e in exprs)) - set(w) - fixed) \
        | (set(motion.parameters) - fixed)
    pt = sample_points(free, 1)[0] if free else {}
    A = np.array(lin.A.xreplace(pt).evalf(30), dtype=float).reshape(lin.A.shape)
    T = motion.tangents(lin, {**{k: sympy_of(v).xreplace(pt) for k, v in given.items()
                                 if k not in set(motion.point)}, **pt})
    return _family_rank(A, T, 1e-9, 1.0 + (float(np.max(np.abs(A))) if A.size else 0.0))


def stability_boundary(motion: SteadyMotion, values: Mapping | None = None) -> StabilityBoundary:
    """The stability conditions of a family in closed form (module docstring): the symbolic
    reduced linearization at the family member ``values`` leaves symbolic, its characteristic
    polynomial det(λI − A) with the family's zero roots divided out (as many as the family has
    tangent directions in the kernel of A), then spectral conditions for an even polynomial
    (μ = λ²: a·μ + b needs b/a > 0; μ² + b1 μ + b0 needs b1 > 0, b0 > 0, b1² − 4 b0 ≥ 0, taken
    > 0 here) or the Routh–Hurwitz determinants Δ_1 … Δ_n > 0 otherwise."""
    lin = motion.linearize(values, symbolic=True)
    lam = sp.Symbol("lambda")
    A = lin.A
    try:
        cp = A.charpoly(lam).as_expr()
    except TypeError:
        # sympy's charpoly sorts the factors of triangular blocks by the sign of their roots and
        # fails on a symbolic one (sin(a) with the shape fixed at θ = a): Berkowitz's
        # division-free det(λI − A) instead
        cp = (lam * sp.eye(A.rows) - A).det(method="berkowitz")
    p = sp.Poly(sp.expand(cp), lam)
    fam = _family_zeros_at_sample(motion, lin, values)
    zeros = 0
    while p.degree() > 0 and is_zero(p.nth(0)):
        p = sp.Poly(sp.cancel(p.as_expr() / lam), lam)
        zeros += 1
    coeffs = [sp.factor(sp.cancel(c)) for c in p.all_coeffs()]
    lead = coeffs[0]
    deg = len(coeffs) - 1
    odd = [coeffs[i] for i in range(deg + 1) if (deg - i) % 2 == 1]
    if deg == 0:
        return StabilityBoundary(p.as_expr(), lam, (), "spectral", zeros, fam)
    if all(is_zero(c) for c in odd) and deg in (2, 4):
        b = [sp.factor(sp.cancel(coeffs[i] / lead)) for i in range(0, deg + 1, 2)]
        if deg == 2:
            conds: tuple = (b[1],)
        else:
            conds = (b[1], b[2], sp.factor(sp.expand(b[1]**2 - 4 * b[2])))
        return StabilityBoundary(p.as_expr(), lam, conds, "spectral", zeros, fam)
    a = [sp.cancel(c / lead) for c in coeffs]
    H = sp.zeros(deg, deg)
    for i in range(deg):
        for j in range(deg):
            idx = 2 * (j + 1) - (i + 1)
            H[i, j] = a[idx] if 0 <= idx <= deg else 0
    conds = tuple(sp.factor(sp.cancel(H[:r, :r].det())) for r in range(1, deg + 1))
    return StabilityBoundary(p.as_expr(), lam, conds, "Routh-Hurwitz", zeros, fam)


def eigenvalue_diagram(motion: SteadyMotion, parameter, grid: Sequence, values: Mapping | None = None):
    """The eigenvalues of the reduced linearization along ``grid`` values of ``parameter`` (a
    family parameter or a parameter of the system, by name or symbol), the others from
    ``values``: (the grid as a numpy array, the eigenvalues as an array len(grid) × n, the
    verdicts of :meth:`SteadyMotion.stability`).  Plot it with
    :func:`geonh.app.plotting.eigenvalues_figure` (the ``plot`` extra)."""
    import numpy as np
    pts = np.asarray(as_floats(grid, "grid"), dtype=float)
    if not pts.size:
        raise DimensionError("an empty grid")
    vals = dict(as_mapping(values, "values")) if values is not None else {}
    if not isinstance(parameter, (str, sp.Symbol)):
        raise ParseError(f"parameter must be a name or a symbol, not {type(parameter).__name__}")
    evs, verdicts = [], []
    for x in pts:
        st = motion.stability({**vals, parameter: sp.Rational(repr(float(x)))})
        evs.append(np.asarray(st.eigenvalues, dtype=complex))
        verdicts.append(st.verdict)
    return pts, np.array(evs), verdicts
