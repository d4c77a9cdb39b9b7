"""The affine connection form of a simple mechanical control system with constraints, its
symmetric products, and the verdicts read off them.

A :class:`~geonh.systems.MechanicalSystem` with kinetic energy T = ½ G(q̇, q̇), ideal
constraints q̇ ∈ D and actuator forces Fᵃ (covectors) moves by

    ∇^D_{q̇} q̇ = Σₐ uₐ Yₐ,      Yₐ = P(G⁻¹ Fᵃ)

(Lewis & Murray 1997 for D = TQ; Lewis 2000 and Bullo & Lewis 2005, §4.5, with constraints),
where ∇ is the Levi-Civita connection of G (Γᵏᵢⱼ = Gᵏˡ Γ_{l,ij}), P the G-orthogonal projector
onto D, P⊥ = I − P = G⁻¹Aᵀ(AG⁻¹Aᵀ)⁻¹A for the constraints A q̇ = 0, and ∇^D the constrained
connection

    ∇^D_X Y = ∇_X Y + (∇_X P⊥)(Y) = P(∇_X Y) + ∇_X(P⊥ Y).

The symmetric product is ⟨X : Y⟩ = ∇^D_X Y + ∇^D_Y X.  With it (degree = number of factors Yₐ,
*bad* = every Yₐ an even number of times, *good* otherwise):

* :func:`configuration_accessibility` — locally configuration accessible at q₀ iff the
  involutive closure of the symmetric closure, Lie(Sym(Y))(q₀), is T_{q₀}Q (Lewis & Murray 1997);
* :func:`configuration_controllability` — small-time locally configuration controllable
  (STLCC) at q₀ if it is configuration accessible and every bad symmetric product, symmetrized
  over the inputs, is at q₀ a combination of good ones of lower degree (Lewis & Murray 1997's
  sufficient condition; sufficient only);
* :func:`decoupling_fields` and :func:`kinematic_controllability` — X is decoupling iff
  X ∈ span Y and ⟨X : X⟩ ∈ span Y; the system is locally kinematically controllable at q₀ if
  the involutive closure of its decoupling fields spans T_{q₀}Q (Bullo & Lynch 2001).

Values at q₀, ranks and the meaning of ``final`` are those of :mod:`geonh.control.accessibility`.
"""
from __future__ import annotations

import itertools
import time
from functools import cached_property
from typing import Mapping, Sequence

import sympy as sp

from ..errors import DimensionError, NotAdaptedError, ParseError
from ..kernel.distributions import Distribution
from ..kernel.fields import VectorField, check_same_space
from ..kernel.generic_point import inverse, is_zero
from ..kernel.parsing import as_names
from ..systems.mechanical import MechanicalSystem
from .accessibility import (SpanAtPoint, Tree, Verdict, finite_at, generic_lie_rank, lyndon_bracket, lyndon_words, neutralize,
                            not_neutralized_reason,
                            tree_degrees)
from .systems import actuator_forces, point_values, shorten_component, shorten_field

__all__ = ["AffineConnectionSystem", "symmetric_trees", "configuration_accessibility",
           "configuration_controllability", "decoupling_fields", "kinematic_controllability"]


class AffineConnectionSystem:
    """∇^D_{q̇} q̇ = Σₐ uₐ Yₐ: a mechanical system with kinetic energy only (no potential, no
    other forces: give every force as an actuator) and constraints linear in q̇, driven by the
    actuator covectors ``actuators`` (one per input; :func:`~geonh.control.actuator_forces`).

    Attributes: ``metric`` G (the mass matrix), ``projector`` P (G-orthogonal onto D),
    ``input_fields`` Yₐ = P(G⁻¹Fᵃ), ``distribution`` D.

    Examples
    --------
        >>> import sympy as sp
        >>> from geonh import ConfigurationSpace, MechanicalSystem
        >>> from geonh.control import AffineConnectionSystem
        >>> S = ConfigurationSpace("x y theta")
        >>> x, y, th = S.q
        >>> m, J, h = sp.symbols("m J h", positive=True)
        >>> body = MechanicalSystem(S, m*(S.qd[0]**2 + S.qd[1]**2)/2 + J*S.qd[2]**2/2)
        >>> acs = AffineConnectionSystem(body, [[-sp.sin(th), sp.cos(th), h]])   # thruster at offset h
        >>> acs.input_fields[0]
        VectorField((-sin(theta)/m)*d_x + (cos(theta)/m)*d_y + (h/J)*d_theta)
        >>> acs.symmetric_product(acs.input_fields[0], acs.input_fields[0])
        VectorField((-2*h*cos(theta)/(J*m))*d_x + (-2*h*sin(theta)/(J*m))*d_y)
    """

    def __init__(self, system: MechanicalSystem, actuators: Sequence, inputs: Sequence[str] | None = None):
        if not isinstance(system, MechanicalSystem):
            raise ParseError(f"expected a MechanicalSystem, got {type(system).__name__}")
        S = system.space
        if S.t is not None:
            raise NotAdaptedError("the affine connection form needs a scleronomic system (no time in the space)")
        M, b, T0 = system.quadratic_parts
        if not all(is_zero(e) for e in list(b) + [T0]):
            raise NotAdaptedError("the affine connection form needs T = ½ G(q̇, q̇): T has linear or constant parts")
        if not all(is_zero(Q) for Q in system.Q):
            raise NotAdaptedError("the affine connection form here takes no potential and no unactuated forces: "
                                  f"the system has Q = {list(system.Q)}")
        F = actuator_forces(system, actuators)
        self.system = system
        self.space = S
        self.inputs: tuple[str, ...] = _names(inputs, len(F))
        self.metric: sp.Matrix = sp.Matrix(M)
        self.forces = tuple(tuple(row) for row in F)
        Ginv = inverse(self.metric, "kinetic metric G").applyfunc(shorten_component)
        self._Ginv = Ginv
        A = system.constraint_matrix[0].applyfunc(shorten_component)
        n = S.n
        if A.rows:
            W = (Ginv * A.T).applyfunc(shorten_component)
            perp = (W * inverse((A * W).applyfunc(shorten_component), "A G⁻¹ Aᵀ").applyfunc(shorten_component) * A).applyfunc(shorten_component)
        else:
            perp = sp.zeros(n, n)
        self.complement: sp.Matrix = perp
        self.projector: sp.Matrix = sp.eye(n) - perp
        self.input_fields: tuple[VectorField, ...] = tuple(
            VectorField(S, [shorten_component(e) for e in self.projector * (Ginv * sp.Matrix(Fa))]) for Fa in F)

    @property
    def distribution(self) -> Distribution:
        """D, the admissible velocities (the annihilator of the constraints)."""
        return self.system.constraints.annihilator()

    @cached_property
    def christoffel(self) -> list[list[list[sp.Expr]]]:
        """Γᵏᵢⱼ = Gᵏˡ Γ_{l,ij} of the Levi-Civita connection of G, indexed [k][i][j]."""
        first = self.system.christoffel
        n = self.space.n
        return [[[shorten_component(sp.Add(*[self._Ginv[k, l] * first[l][i][j] for l in range(n) if first[l][i][j] != 0]))
                  for j in range(n)] for i in range(n)] for k in range(n)]

    def _levi_civita(self, X: Sequence, Y: Sequence) -> list:
        S = self.space
        G = self.christoffel
        n = S.n
        out = []
        for k in range(n):
            d = sp.Add(*[X[i] * sp.diff(Y[k], S.q[i]) for i in range(n) if X[i] != 0])
            c = sp.Add(*[G[k][i][j] * X[i] * Y[j] for i in range(n) for j in range(n)
                         if X[i] != 0 and Y[j] != 0 and G[k][i][j] != 0])
            out.append(d + c)
        return out

    def covariant_derivative(self, X: VectorField, Y: VectorField, *, constrained: bool = True) -> VectorField:
        """∇^D_X Y = ∇_X Y + ∇_X(P⊥Y) − P⊥(∇_X Y) (``constrained=False``: the Levi-Civita ∇_X Y)."""
        self._check(X)
        self._check(Y)
        nab = self._levi_civita(X.components, Y.components)
        if constrained and self.system.constraints.rank:
            PY = list(self.complement * sp.Matrix(Y.components))
            nPY = self._levi_civita(X.components, PY)
            Pn = list(self.complement * sp.Matrix(nab))
            nab = [a + b - c for a, b, c in zip(nab, nPY, Pn)]
        return VectorField(self.space, [shorten_component(e) for e in nab])

    def symmetric_product(self, X: VectorField, Y: VectorField) -> VectorField:
        """⟨X : Y⟩ = ∇^D_X Y + ∇^D_Y X."""
        return shorten_field(self.covariant_derivative(X, Y) + self.covariant_derivative(Y, X))

    def connection_coefficients(self) -> list[list[list[sp.Expr]]]:
        """Γ^D[k][i][j] = the k-th component of ∇^D_{∂ᵢ} ∂ⱼ; on a motion with q̇ ∈ D,
        q̈ᵏ = −Γ^D[k][i][j] q̇ⁱ q̇ʲ + Σₐ uₐ Yₐᵏ."""
        S = self.space
        n = S.n
        cols = [VectorField.coordinate(S, s) for s in S.q]
        out = [[self.covariant_derivative(cols[i], cols[j]).components for j in range(n)] for i in range(n)]
        return [[[out[i][j][k] for j in range(n)] for i in range(n)] for k in range(n)]

    def _check(self, X) -> None:
        if not isinstance(X, VectorField):
            raise ParseError(f"expected a VectorField, got {type(X).__name__}")
        check_same_space(self.input_fields[0], X, "differentiate")

    def __repr__(self) -> str:
        return (f"AffineConnectionSystem({len(self.input_fields)} input(s) {list(self.inputs)} on {self.space!r}, "
                f"{self.system.constraints.rank} constraint(s))")


def _names(inputs, m: int) -> tuple[str, ...]:
    if inputs is None:
        return tuple(f"u{i + 1}" for i in range(m))
    names = as_names(inputs, "input names")
    if len(names) != m or len(set(names)) != m:
        raise DimensionError(f"{m} distinct input name(s) needed (one per actuator), got {list(names)}")
    return names


# -- symmetric products ---------------------------------------------------------------------
def symmetric_trees(inputs: int, degree: int) -> list[Tree]:
    """Every formal symmetric product of ``degree`` factors from Y₀ … Y_{inputs−1}, each once
    up to the symmetry ⟨A : B⟩ = ⟨B : A⟩ (commutative binary trees; a leaf is an input index)."""
    if isinstance(inputs, bool) or isinstance(degree, bool) or not isinstance(inputs, int) \
            or not isinstance(degree, int) or inputs < 1 or degree < 1:
        raise DimensionError(f"symmetric_trees needs positive integers, got {inputs!r} and {degree!r}")
    table: dict[int, list[Tree]] = {1: list(range(inputs))}
    for k in range(2, degree + 1):
        out: list[Tree] = []
        for i in range(1, k // 2 + 1):
            left, right = table[i], table[k - i]
            for a_i, a in enumerate(left):
                for b_i, b in enumerate(right):
                    if i == k - i and b_i < a_i:
                        continue
                    out.append((a, b))
        table[k] = out
    return table[degree]


class _Products:
    """Fields of mixed trees: int leaves (inputs), ('s', a, b) symmetric products, ('b', a, b)
    Lie brackets; memoized, with values at a point."""

    def __init__(self, acs: AffineConnectionSystem, leaves: Sequence[VectorField], point: Mapping):
        self.acs, self.leaves, self.point = acs, list(leaves), point
        self.memo: dict = {}

    def field(self, t) -> VectorField:
        if t not in self.memo:
            if isinstance(t, tuple):
                kind, a, b = t
                A, B = self.field(a), self.field(b)
                if A.is_zero() or B.is_zero():
                    out = VectorField.zero(self.acs.space)
                elif kind == "s":
                    out = self.acs.symmetric_product(A, B)
                else:
                    out = shorten_field(A.bracket(B))
                self.memo[t] = out
            else:
                self.memo[t] = self.leaves[t]
        return self.memo[t]

    def at(self, t) -> tuple:
        return finite_at(self.field(t), self.point)


def _sym(tree: Tree):
    """A symmetric tree (pairs) as a mixed tree (('s', a, b))."""
    if isinstance(tree, tuple):
        return ("s", _sym(tree[0]), _sym(tree[1]))
    return tree


def _name(t, names: Sequence[str]) -> str:
    if isinstance(t, tuple):
        kind, a, b = t
        if kind == "s":
            return f"⟨{_name(a, names)} : {_name(b, names)}⟩"
        return f"[{_name(a, names)}, {_name(b, names)}]"
    return names[t]


def _limit(value, default: int) -> int:
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int) or value < 1 or value > 8:
        raise DimensionError(f"max_degree must be an integer from 1 to 8, got {value!r}")
    return value


def _check_acs(acs) -> None:
    if not isinstance(acs, AffineConnectionSystem):
        raise ParseError(f"expected an AffineConnectionSystem, got {type(acs).__name__}")


def _lie_closure_at(ev: _Products, seeds: list, span: SpanAtPoint, witness: list, dim: int, depth: int) -> None:
    """Brackets [s, L] of the seeds with the previous level, ``depth`` levels, added to ``span``."""
    level = list(seeds)
    for _ in range(depth):
        if span.rank == dim:
            return
        nxt = []
        for s in seeds:
            for t in level:
                if s == t:
                    continue
                b = ("b", s, t)
                if ev.field(b).is_zero():
                    continue
                nxt.append(b)
                if span.add(ev.at(b)):
                    witness.append(b)
                    if span.rank == dim:
                        return
        level = nxt


def _symmetric_closure(acs: AffineConnectionSystem, K: int, ev: _Products, span: SpanAtPoint, witness: list):
    """Symmetric products of degree ≤ K added to ``span``; returns (the nonzero ones, whether the
    generic rank of their span stopped growing before degree K — then Sym(Y) is spanned by them)."""
    S = acs.space
    m = len(acs.input_fields)
    found: list = []
    ranks = []
    for k in range(1, K + 1):
        for tree in symmetric_trees(m, k):
            t = _sym(tree)
            if ev.field(t).is_zero():
                continue
            found.append(t)
            if span.add(ev.at(t)):
                witness.append(t)
        fields = [ev.field(t) for t in found]
        ranks.append(Distribution(fields, S).rank if fields else 0)
        if len(ranks) > 1 and ranks[-1] == ranks[-2]:
            return found, True
    return found, False


def configuration_accessibility(acs: AffineConnectionSystem, point: Mapping, *,
                                max_degree: int | None = None) -> Verdict:
    """Local configuration accessibility at q₀ (``point``: {coordinate: value}): the rank of
    Lie(Sym(Y)) at q₀ is n (Lewis & Murray 1997), from the symmetric products of degree ≤
    ``max_degree`` (default n) and their brackets to the same depth.  The witness lists the
    products and brackets that span.  A failure is final when the generic rank of the symmetric
    closure stopped growing and its involutive closure has generic rank below n."""
    start = time.perf_counter()
    _check_acs(acs)
    pt = point_values(acs.space, point)
    K = _limit(max_degree, acs.space.n)
    return _accessibility(acs, _Products(acs, acs.input_fields, pt), K, start)


def _accessibility(acs: AffineConnectionSystem, ev: _Products, K: int, start: float) -> Verdict:
    """:func:`configuration_accessibility` with the products of ``ev`` (shared with the caller)."""
    S = acs.space
    pt = ev.point
    names = [f"Y{i + 1}" for i in range(len(acs.input_fields))]
    span = SpanAtPoint()
    witness: list = []
    found, stable = _symmetric_closure(acs, K, ev, span, witness)
    if span.rank < S.n and found:
        keep = Distribution([ev.field(t) for t in found], S).basis
        seeds = [t for t in found if any(ev.field(t) is X for X in keep)]
        _lie_closure_at(ev, seeds, span, witness, S.n, K)
    src = "Lie(Sym(Y))(q0) = T_q0 Q (Lewis & Murray 1997; with constraints Bullo & Lewis 2005)"
    legend = ", ".join(f"Y{i + 1} = input {n}" for i, n in enumerate(acs.inputs))
    if span.rank == S.n:
        holds, final, reason = True, True, "the symmetric products and brackets below span the tangent space"
    else:
        holds = False
        r = generic_lie_rank([ev.field(t) for t in found], S) if stable else S.n
        final = stable and r < S.n
        if final:
            reason = (f"the symmetric closure Sym(Y) stabilizes and Lie(Sym(Y)) has generic rank {r} < {S.n}: "
                      "the rank is below n at every point")
        elif stable:
            reason = (f"rank {span.rank} < {S.n} here, though Lie(Sym(Y)) has full rank at generic points: this "
                      f"point is singular for the products and brackets searched (brackets of depth ≤ {K})")
        else:
            reason = f"rank {span.rank} < {S.n} here from products of degree ≤ {K}: raise max_degree"
    return Verdict("local configuration accessibility", holds, final, {str(k): v for k, v in pt.items()}, span.rank,
                   S.n, tuple(_name(t, names) for t in witness), tuple(ev.at(t) for t in witness), reason, src,
                   legend, time.perf_counter() - start)


def configuration_controllability(acs: AffineConnectionSystem, point: Mapping, *,
                                  max_degree: int | None = None) -> Verdict:
    """Small-time local configuration controllability at q₀ by Lewis & Murray's sufficient
    condition: locally configuration accessible at q₀, and every bad symmetric product P (each
    Yₐ an even number of times), symmetrized β(P) = Σ_{π ∈ S_m} π(P), is at q₀ a combination
    of good symmetric products of lower degree.  Degrees up to ``max_degree`` (default n); the
    answer is final once the good products span D(q₀) (the products lie in D).  "Not
    satisfied" does not mean "not STLCC": the condition is sufficient only."""
    start = time.perf_counter()
    _check_acs(acs)
    S = acs.space
    pt = point_values(S, point)
    K = _limit(max_degree, S.n)
    ev = _Products(acs, acs.input_fields, pt)
    lca = _accessibility(acs, ev, K, start)
    q = "small-time local configuration controllability (Lewis & Murray's condition)"
    src = "Lewis & Murray 1997 (sufficient condition for STLCC; bad = every Y_a an even number of times); sufficient only"
    legend = lca.legend
    if not lca.holds:
        return Verdict(q, False, lca.final, lca.point, lca.rank, S.n, lca.witness, lca.values,
                       "not configuration accessible: " + lca.reason, src, legend, time.perf_counter() - start)
    m = len(acs.input_fields)
    names = [f"Y{i + 1}" for i in range(m)]
    target = SpanAtPoint()
    for j in range(S.n):     # D(q0) = the range of the projector P at q0
        target.add(finite_at(VectorField(S, list(acs.projector[:, j])), pt))
    perms = [dict(enumerate(p)) for p in itertools.permutations(range(m))]
    found = neutralize(lambda k: symmetric_trees(m, k), lambda t: all(d % 2 == 0 for d in tree_degrees(t, m)),
                       lambda t: [_sym(_perm(t, p)) for p in perms], _sym, ev.at, lambda t: _name(t, names),
                       target.rank, K)
    good, witness, k = found.good, found.witness, found.degree
    if found.holds is False:
        reason = not_neutralized_reason(f"bad symmetric product (degree {k})", k, m, "good ones", "STLCC")
        return Verdict(q, False, True, lca.point, good.rank, S.n, found.bad, found.bad_value, reason, src,
                       legend, time.perf_counter() - start)
    if found.holds:
        reason = (f"configuration accessible; every bad product of degree ≤ {k} is neutralized and the good "
                  f"products below span D(q0) (rank {target.rank}), which holds every product: STLCC")
        return Verdict(q, True, True, lca.point, good.rank, S.n, tuple(_name(t, names) for t in witness),
                       tuple(ev.at(t) for t in witness), reason, src, legend, time.perf_counter() - start)
    return Verdict(q, False, False, lca.point, good.rank, S.n, tuple(_name(t, names) for t in witness),
                   tuple(ev.at(t) for t in witness),
                   f"bad products of degree ≤ {K} are neutralized, but the good ones do not span D(q0): raise max_degree",
                   src, legend, time.perf_counter() - start)


def _perm(tree: Tree, p: Mapping[int, int]) -> Tree:
    if isinstance(tree, tuple):
        return (_perm(tree[0], p), _perm(tree[1], p))
    return p[tree]


# -- kinematic controllability ----------------------------------------------------------------
def decoupling_fields(acs: AffineConnectionSystem) -> tuple[VectorField, ...]:
    """The decoupling vector fields X = Σ hᵃ Yₐ, ⟨X : X⟩ ∈ span Y (Bullo & Lynch 2001).

    ⟨X : X⟩ = Σ hᵃhᵇ⟨Yₐ : Y_b⟩ + 2 Σ X(hᵃ) Yₐ, so X is decoupling iff hᵀ Qᵏ h = 0 for the
    quadratic forms Qᵏ_ab = ωᵏ(⟨Yₐ : Y_b⟩), ωᵏ a basis of the annihilator of span Y.  Solved
    chart by chart (h_j = 1, h_i = 0 for i < j) by sympy, a free unknown set to 0 and to 1;
    every candidate is verified (⟨X : X⟩ ∈ span Y at the generic point).  When span Y is the
    whole tangent space, or every Qᵏ vanishes (span Y geodesically invariant), every field of
    span Y is decoupling and the basis Yₐ is returned."""
    _check_acs(acs)
    S = acs.space
    Dy = Distribution(acs.input_fields, S)
    Y = list(Dy.basis)
    if Dy.rank == S.n:
        return tuple(Y)
    omegas = Dy.annihilator().basis
    m = len(Y)
    sym = {(a, b): acs.symmetric_product(Y[a], Y[b]) for a in range(m) for b in range(a, m)}
    Q = [[[sp.simplify(w(sym[min(a, b), max(a, b)])) for b in range(m)] for a in range(m)] for w in omegas]
    if all(is_zero(e) for Qk in Q for row in Qk for e in row):
        return tuple(Y)      # span Y is geodesically invariant: every X ∈ span Y is decoupling
    out: list[VectorField] = []
    for j in range(m):
        h_syms = [sp.Dummy(f"h{i}") for i in range(m)]
        h: list = [sp.S.Zero] * j + [sp.S.One] + h_syms[j + 1:]
        unknowns = h_syms[j + 1:]
        eqs = [sp.expand(sum(h[a] * h[b] * Qk[a][b] for a in range(m) for b in range(m))) for Qk in Q]
        eqs = [e for e in eqs if not is_zero(e)]
        if not eqs:
            sols: list = [{}]
        elif not unknowns:
            sols = []
        else:
            try:
                sols = sp.solve(eqs, unknowns, dict=True)
            except (NotImplementedError, ValueError):
                sols = []
        for sol in sols:
            free = [u for u in unknowns if u not in sol]
            for fill in ((sp.S.Zero,) * len(free),) + tuple(tuple(sp.Integer(int(i == f)) for i in range(len(free)))
                                                            for f in range(len(free))):
                vals = {**{u: e for u, e in sol.items()}, **dict(zip(free, fill))}
                coeffs = [c.xreplace(vals).xreplace(vals) for c in h]
                if any(c.has(*h_syms) for c in coeffs):
                    continue
                X = VectorField(S, [sp.Add(*[c * Ya[i] for c, Ya in zip(coeffs, Y)]) for i in range(S.n)])
                if X.is_zero() or any(X.equals(Z) for Z in out):
                    continue
                if Dy.contains(acs.symmetric_product(X, X)):
                    out.append(X)
    return tuple(out)


def kinematic_controllability(acs: AffineConnectionSystem, point: Mapping, *,
                              max_degree: int | None = None) -> Verdict:
    """Local kinematic controllability at q₀ (Bullo & Lynch 2001): the involutive closure of the
    decoupling vector fields (:func:`decoupling_fields`) has rank n at q₀, from their Lyndon
    brackets of degree ≤ ``max_degree`` (default n).  The witness lists the decoupling fields
    (V1, V2, … in the order of :func:`decoupling_fields`) and brackets that span; with no
    decoupling field, the symmetric products ⟨Yₐ : Y_b⟩ that leave span Y."""
    start = time.perf_counter()
    _check_acs(acs)
    S = acs.space
    pt = point_values(S, point)
    K = _limit(max_degree, S.n)
    q = "local kinematic controllability (decoupling vector fields)"
    src = "Bullo & Lynch 2001: X decoupling iff X, ⟨X : X⟩ ∈ span Y; KC iff Lie(decoupling fields)(q0) = T_q0 Q"
    V = decoupling_fields(acs)
    if not V:
        m = len(acs.input_fields)
        names = [f"Y{i + 1}" for i in range(m)]
        Dy = Distribution(acs.input_fields, S)
        ev = _Products(acs, acs.input_fields, pt)
        bad = [("s", a, b) for a in range(m) for b in range(a, m) if not Dy.contains(ev.field(("s", a, b)))]
        return Verdict(q, False, True, {str(k): v for k, v in pt.items()}, 0, S.n,
                       tuple(_name(t, names) for t in bad), tuple(ev.at(t) for t in bad),
                       "no decoupling vector field: Σ hᵃhᵇ⟨Ya : Yb⟩ ∉ span Y for every h ≠ 0 (the products below "
                       "leave span Y)", src, ", ".join(f"Y{i + 1} = input {n}" for i, n in enumerate(acs.inputs)),
                       time.perf_counter() - start)
    names = [f"V{i + 1}" for i in range(len(V))]
    ev = _Products(acs, V, pt)
    span = SpanAtPoint()
    witness: list = []
    for k in range(1, K + 1):
        for word in lyndon_words(len(V), k):
            t = _mixed(lyndon_bracket(word))
            if span.add(ev.at(t)):
                witness.append(t)
            if span.rank == S.n:
                break
        if span.rank == S.n:
            break
    legend = ", ".join(f"{n} = {v!r}" for n, v in zip(names, V))
    if span.rank == S.n:
        holds, final, reason = True, True, "the decoupling fields and brackets below span the tangent space"
    else:
        r = generic_lie_rank(list(V), S)
        holds, final = False, r < S.n
        reason = (f"the involutive closure of the decoupling fields has generic rank {r} < {S.n}" if final else
                  f"rank {span.rank} < {S.n} here from brackets of degree ≤ {K}: raise max_degree")
    return Verdict(q, holds, final, {str(k): v for k, v in pt.items()}, span.rank, S.n,
                   tuple(_name(t, names) for t in witness), tuple(ev.at(t) for t in witness), reason, src, legend,
                   time.perf_counter() - start)


def _mixed(tree: Tree):
    if isinstance(tree, tuple):
        return ("b", _mixed(tree[0]), _mixed(tree[1]))
    return tree
