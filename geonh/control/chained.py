"""Chained form of two-input driftless systems (Murray & Sastry 1993).

A driftless system q̇ = f1(q) u1 + f2(q) u2 on an n-dimensional space is in *chained form* in
coordinates z = φ(q) with inputs v = β(q) u when

    ż1 = v1,   ż2 = v2,   ż_{i+1} = z_i v1   (i = 2, …, n − 1).

Construction (Murray & Sastry 1993, § 3; Murray 1994): pick a function h1 and normalize the
inputs so that g1(h1) = 1, g2(h1) = 0 (g1 = f_a / f_a(h1), g2 = f_b − f_b(h1) g1).  With
Δ1 = span{g2, ad_{g1} g2, …, ad_{g1}^{n−2} g2} and Δ2 = span{g2, …, ad_{g1}^{n−3} g2}: if
dh1 ⊥ Δ1, Δ1 has rank n − 1, Δ2 is involutive and dh2 ⊥ Δ2 with dh1, dh2 independent, then

    z1 = h1,   z_n = h2,   z_k = L_{g1}^{n−k} h2  (k = 2, …, n − 1),

and v = β u with β = [[f1(z1), f2(z1)], [f1(z2), f2(z2)]] (the rows are ż1, ż2 along each
input).  A necessary condition is the growth vector (2, 3, …, n) of span{f1, f2}; the N-trailer
reaches chained form with h1, h2 the position of the last trailer (Sørdalen 1993).

Every form returned is verified: ``f_a(z_k) = z_{k−1} β_{1a}`` for k ≥ 3 and both inputs, i.e.
the fields pushed forward by φ are combinations of the chained fields (decided at the generic
point; :meth:`ChainedForm.residuals` gives the expressions for a symbolic check).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

import sympy as sp

import mpmath

from ..errors import DimensionError, NoChainedFormError, NotFoundError, ParseError, RankError
from ..kernel import backend as _be
from ..kernel.distributions import Codistribution, Distribution
from ..kernel.evaluation import is_big, precision, values_at
from ..kernel.fields import VectorField
from ..kernel.generic_point import generic_rank, is_zero
from ..kernel.parsing import as_exprs, as_known_expr, as_sequence
from ..kernel.sampling import TRIALS, sample_points
from .systems import DriftlessSystem

__all__ = ["ChainedForm", "chained_form", "chained_fields", "input_fields"]


def input_fields(fields) -> tuple[VectorField, ...]:
    """The input fields of a driftless system given as a :class:`~geonh.kernel.Distribution`
    (its spanning fields, in order), a :class:`~geonh.control.DriftlessSystem` or a sequence of :class:`~geonh.kernel.VectorField`."""
    if isinstance(fields, Distribution):
        out = tuple(fields.fields)
    elif isinstance(fields, DriftlessSystem):       # the route accessibility takes: the same fields
        out = tuple(fields.fields)
    else:
        out = tuple(as_sequence(fields, "input fields"))
    if not out:
        raise DimensionError("a driftless system needs at least one input field")
    for X in out:
        if not isinstance(X, VectorField):
            raise ParseError(f"input fields must be VectorFields, got {type(X).__name__}")
    for X in out[1:]:
        if X.space != out[0].space:
            raise DimensionError("the input fields live on different configuration spaces")
    return out


def chained_fields(z: Sequence[sp.Symbol]) -> tuple[sp.Matrix, sp.Matrix]:
    """The chained-form fields in coordinates z: G1 = ∂1 + Σ_{i≥2} z_i ∂_{i+1}, G2 = ∂2."""
    z = as_exprs(z, what="chained_fields: z")
    n = len(z)
    if n < 3:
        raise DimensionError(f"a chained form has at least 3 coordinates, got {n}")
    G1 = sp.Matrix([1, 0] + [z[i - 1] for i in range(2, n)])
    G2 = sp.Matrix([0, 1] + [0] * (n - 2))
    return G1, G2


@dataclass(frozen=True)
class ChainedForm:
    """z = φ(q) and v = β(q) u putting q̇ = f1 u1 + f2 u2 into chained form.

    ``z[k]`` is z_{k+1} as a function of the coordinates, ``beta`` the 2×2 input map
    (v = β u), ``fields`` the original input fields (f1, f2), ``g1, g2`` the normalized fields
    (g1(z1) = 1, g2(z1) = 0) used in the construction.  ``natives``: the symengine images of
    (z, β, residuals) when the form was built on symengine (:mod:`geonh.kernel.backend`): the
    Lie derivatives of the N-trailer's z are large trees with much sharing, and the check and
    the numerics work on that graph, never on the sympy tree."""

    fields: tuple[VectorField, VectorField]
    z: tuple[sp.Expr, ...]
    beta: sp.Matrix
    g1: VectorField
    g2: VectorField
    natives: "_Natives | None" = field(default=None, repr=False, compare=False)

    @property
    def space(self):
        return self.fields[0].space

    def residuals(self) -> list[sp.Expr]:
        """(φ_* f_a)^k − (β_{1a} G1 + β_{2a} G2)^k at z = φ(q), for every input a and coordinate k:
        all zero exactly when the chained form is right (the check by substitution)."""
        if self.natives is not None:
            T = self.natives.translation
            return [T.to_sympy(lhs - rhs) for lhs, rhs in self.natives.sides]
        G1, G2 = chained_fields(list(self.z))
        out = []
        for a, f in enumerate(self.fields):
            for k, zk in enumerate(self.z):
                out.append(f(zk) - self.beta[0, a] * G1[k] - self.beta[1, a] * G2[k])
        return out

    def failures(self) -> list[tuple[int, int]]:
        """(input a, coordinate k), 1-based, of every residual that is not zero (generic point)."""
        n = len(self.z)
        if self.natives is not None:
            bad = _native_failures(self.natives, self._symbols())
        else:
            bad = [i for i, r in enumerate(self.residuals()) if not is_zero(r)]
        return [(i // n + 1, i % n + 1) for i in bad]

    def _symbols(self) -> set:
        out = set(self.space.coords)
        for f in self.fields:
            for c in f.components:
                out |= c.free_symbols
        for zk in (self.z[0], self.z[-1]):
            out |= zk.free_symbols
        return out

    def is_verified(self) -> bool:
        """Every residual is zero (at the generic point)."""
        return not self.failures()

    def __repr__(self) -> str:
        if any(is_big(zk, 60) for zk in self.z):
            return f"ChainedForm(z1 = {self.z[0]}, z{len(self.z)} = {self.z[-1]}, … (large))"
        return f"ChainedForm(z = {list(self.z)})"


@dataclass(frozen=True)
class _Natives:
    """symengine images of a chained form: z, β (row-major), the residual sides (lhs, rhs) —
    lhs = f_a(z_k), rhs = (β_{1a} G1 + β_{2a} G2)^k — and the translation back to sympy."""

    translation: _be.Translation
    syms: tuple
    z: tuple
    beta: tuple
    sides: tuple


#: mpmath's image of each symengine function the chained forms' graphs may hold
_MP_FUNCTIONS = {"sin": mpmath.sin, "cos": mpmath.cos, "tan": mpmath.tan, "cot": mpmath.cot,
                 "sec": mpmath.sec, "csc": mpmath.csc, "asin": mpmath.asin, "acos": mpmath.acos,
                 "atan": mpmath.atan, "sinh": mpmath.sinh, "cosh": mpmath.cosh, "tanh": mpmath.tanh,
                 "exp": mpmath.exp, "log": mpmath.log, "atan2": mpmath.atan2}


class _NotOnGraph(Exception):
    """Internal signal: a node the graph evaluator does not take (the caller falls back)."""


class _NoValueHere(Exception):
    """Internal signal: a root is singular or not real at the point (its value is None)."""


def _graph_values(roots: Sequence, point: dict) -> list:
    """Values of symengine expressions at ``point`` ({name: Rational}) at the working precision
    (mpmath), each distinct node of the expression graph evaluated once — symengine's own
    evaluation walks the tree, which for the N-trailer's z2 is millions of nodes over a few
    thousand distinct ones.  None for a root that is singular or not real there."""
    memo: dict = {}

    def leaf(e):
        name = type(e).__name__
        if e.is_Integer:
            return mpmath.mpf(int(e))
        if e.is_Rational:
            return mpmath.mpf(int(e.p)) / int(e.q)
        if name == "Symbol":
            v = point.get(str(e))
            if v is None:
                raise _NotOnGraph(f"no value for {e}")
            return mpmath.mpf(int(v.p)) / int(v.q)
        if name == "Pi":
            return +mpmath.pi
        if name == "Exp1":
            return +mpmath.e
        if name == "RealDouble":
            return mpmath.mpf(float(e))
        raise _NotOnGraph(name)

    def node(e, ch):
        name = type(e).__name__
        if name == "Add":
            return mpmath.fsum(ch)
        if name == "Mul":
            return mpmath.fprod(ch)
        if name == "Pow":
            b, x = ch
            if b == 0 and x < 0:
                raise _NoValueHere("division by zero")
            if b < 0 and x != int(x):
                raise _NoValueHere("not real")
            return b ** x
        fn = _MP_FUNCTIONS.get(name)
        if fn is None:
            raise _NotOnGraph(name)
        return fn(*ch)

    out = []
    with mpmath.workdps(precision()):
        for root in roots:
            try:
                stack = [(root, False)]
                while stack:
                    e, ready = stack.pop()
                    if e in memo:
                        continue
                    args = e.args
                    if not args:
                        memo[e] = leaf(e)
                    elif ready:
                        memo[e] = node(e, [memo[a] for a in args])
                    else:
                        stack.append((e, True))
                        stack.extend((a, False) for a in args if a not in memo)
                v = memo[root]
                out.append(v if mpmath.isfinite(v) else None)
            except (_NoValueHere, ZeroDivisionError, ValueError):   # mpmath's log(0), asin(2), …
                out.append(None)
    return out


def _values(exprs: Sequence, T, point: dict) -> list:
    """:func:`_graph_values`, or the kernel's :func:`~geonh.kernel.evaluation.values_at` for a
    graph holding a node it does not take."""
    try:
        return _graph_values(exprs, {str(k): v for k, v in point.items()})
    except _NotOnGraph:
        return [None if v is None else mpmath.mpf(v) for v in
                values_at(lambda k: T.to_sympy(exprs[k]), point, list(exprs))]


def _native_failures(nat: _Natives, symbols: set, trials: int = TRIALS) -> list[int]:
    """Indices of the residuals lhs − rhs that are not identically zero, decided at random
    rational points at the working precision (symengine's MPFR on the expression graph): a
    residual is zero at a point when |lhs − rhs| ≤ 10^-(precision/2) · max(1, |lhs| + |rhs|)
    (the rule of :func:`~geonh.kernel.generic_point.is_zero`, the scale being the two sides)."""
    exprs = [e for pair in nat.sides for e in pair]
    T = nat.translation
    tol = mpmath.mpf(10) ** (-(precision() // 2))
    bad: set[int] = set()
    seen = 0
    for pt in sample_points(symbols, trials + 3):
        vals = _values(exprs, T, pt)
        if any(v is None for v in vals):
            continue
        seen += 1
        for i in range(len(nat.sides)):
            lhs, rhs = mpmath.mpf(vals[2 * i]), mpmath.mpf(vals[2 * i + 1])
            if abs(lhs - rhs) > tol * max(1, abs(lhs) + abs(rhs)):
                bad.add(i)
        if seen >= trials:
            break
    if seen == 0:
        raise RankError("the chained form's residuals have no value at any sample point")
    return sorted(bad)


def _ad_chain(g1: VectorField, g2: VectorField, length: int) -> list[VectorField]:
    out = [g2]
    for _ in range(length - 1):
        out.append(g1.bracket(out[-1]))
    return out


def _normalized(f: tuple[VectorField, VectorField], h: sp.Expr):
    """(g1, g2) with g1(h) = 1, g2(h) = 0, or None if h is constant along both fields."""
    d = [fa(h) for fa in f]
    for a in (0, 1):
        if not is_zero(d[a]):
            b = 1 - a
            g1 = f[a] * (1 / d[a])
            g2 = f[b] - g1 * d[b]
            return g1, g2
    return None


def _annihilates(h: sp.Expr, fields: Sequence[VectorField]) -> bool:
    return all(is_zero(X(h)) for X in fields)


def _independent(space, h1: sp.Expr, h2: sp.Expr) -> bool:
    rows = [[sp.diff(h, q) for q in space.coords] for h in (h1, h2)]
    return generic_rank(sp.Matrix(rows)) == 2


def _find_h2(space, h1: sp.Expr, delta2: list[VectorField]):
    for q in space.coords:  # the coordinates first: cheap, and often enough
        if _annihilates(q, delta2) and _independent(space, h1, q):
            return q
    ann = Distribution(delta2, space).annihilator()
    try:
        ints = Codistribution(list(ann.basis), space).first_integrals()
    except (NotFoundError, RankError):
        return None
    for f in ints:
        if _independent(space, h1, f):
            return f
    return None


def _build(pair: tuple[VectorField, VectorField], h1: sp.Expr, h2: sp.Expr, g1: VectorField,
           g2: VectorField) -> ChainedForm:
    """The form of z1 = h1, z_n = h2, z_k = L_{g1}^{n−k} h2, β = [[f_a(z1)], [f_a(z2)]].

    On symengine (when active and the expressions allow it) the n − 2 Lie derivatives, β and
    the residual sides are computed on one expression graph, converted to sympy once (the
    N-trailer's z2 has millions of tree nodes but few distinct ones); otherwise by sympy."""
    space = pair[0].space
    n = space.dim
    exprs = [h1, h2] + [c for X in (*pair, g1) for c in X.components]
    if not (_be.use_symengine() and _be.supports(exprs + list(space.coords))):
        z = [h2]
        for _ in range(n - 2):
            z.append(g1(z[-1]))
        zs = tuple([h1] + z[::-1])
        beta = sp.Matrix([[fa(zs[0]) for fa in pair], [fa(zs[1]) for fa in pair]])
        return ChainedForm(pair, zs, beta, g1, g2)
    T = _be.Translation()
    syms = T.to_symengine(list(space.coords))
    F = [T.to_symengine(list(X.components)) for X in pair]
    G1 = T.to_symengine(list(g1.components))
    zn = [T.to_symengine(h2)]
    for _ in range(n - 2):
        zn.append(_be.directional_derivative(G1, zn[-1], syms))
    znat = [T.to_symengine(h1)] + zn[::-1]
    bnat = [_be.directional_derivative(Fa, znat[r], syms) for r in (0, 1) for Fa in F]
    sides = []
    for a, Fa in enumerate(F):
        for k, zk in enumerate(znat):
            lhs = _be.directional_derivative(Fa, zk, syms)
            rhs = bnat[a] if k == 0 else bnat[2 + a] if k == 1 else bnat[a] * znat[k - 1]
            sides.append((lhs, rhs))
    zs = tuple(T.to_sympy(znat))
    beta = sp.Matrix(2, 2, T.to_sympy(bnat))
    return ChainedForm(pair, zs, beta, g1, g2, _Natives(T, tuple(syms), tuple(znat), tuple(bnat), tuple(sides)))


def _regular(form: ChainedForm) -> bool:
    """Is β invertible at the generic point?  On the native graph: a determinant above
    round-off at one sample point proves it; else the generic rank of the sympy β."""
    nat = form.natives
    if nat is not None:
        tol = mpmath.mpf(10) ** (-(precision() // 2))
        T = nat.translation
        for pt in sample_points(form._symbols(), 3):
            v = _values(list(nat.beta), T, pt)
            if any(x is None for x in v):
                continue
            b = [mpmath.mpf(x) for x in v]
            if abs(b[0] * b[3] - b[1] * b[2]) > tol * max(1, abs(b[0] * b[3]) + abs(b[1] * b[2])):
                return True
    return generic_rank(form.beta) == 2


def field_function(fields: Sequence[VectorField], h, what: str) -> sp.Expr:
    """A function on the space of ``fields`` (a sympy expression, or a string parsed by name,
    never evaluated).  A string may name only the coordinates and the fields' own parameters
    (:class:`~geonh.errors.UnknownCoordinateError` otherwise): a misspelt name would be a new
    symbol, a nonzero constant, and the answer silently about another function."""
    space = fields[0].space
    state = tuple(space.state_symbols)
    params = set().union(*[c.free_symbols for X in fields for c in X.components]) - set(state)
    known = state + tuple(sorted(params, key=str))
    return as_known_expr(h, known, what=what, whose="the fields")


def chained_form(fields, h1=None, h2=None) -> ChainedForm:
    """Coordinates z = φ(q) and inputs v = β(q) u putting a two-input driftless system in
    chained form ż1 = v1, ż2 = v2, ż_{i+1} = z_i v1 (Murray & Sastry 1993; module docstring).

    ``fields``: the two input fields (a sequence or a Distribution).  ``h1``, ``h2``: the
    functions z1 and z_n (expressions in the coordinates); given both, the form they define is
    built and checked by substitution (for the N-trailer: the position of the last trailer,
    Sørdalen 1993); without them geonh tries each coordinate as h1 under Murray's conditions
    and finds h2 among the coordinates or as a first integral of Δ2^⊥.
    Raises :class:`~geonh.errors.NoChainedFormError` naming why there is none (not two
    inputs, growth vector not (2, 3, …, n), the given h1 or h2 failing Murray's conditions,
    no h1 among the coordinates)."""
    f = input_fields(fields)
    space = f[0].space
    n = space.dim
    if len(f) != 2:
        raise NoChainedFormError(f"a chained form has exactly 2 inputs; this system has {len(f)} "
                                 "(Murray & Sastry 1993 treat two-input systems)")
    if n < 3:
        raise NoChainedFormError(f"a chained form needs at least 3 coordinates, the space has {n}")
    pair = (f[0], f[1])
    growth = Distribution(list(f), space).growth_vector()
    want = tuple(range(2, n + 1))
    if growth != want:
        raise NoChainedFormError(f"no chained form: the growth vector of span{{f1, f2}} is {growth}, "
                                 f"a chained form on {n} coordinates has {want}")
    if h2 is not None and h1 is None:
        raise ParseError("chained_form: h2 needs h1")
    candidates = [field_function(f, h1, "chained_form: h1")] if h1 is not None else list(space.coords)
    given_h2 = field_function(f, h2, "chained_form: h2") if h2 is not None else None
    reasons = []
    for h in candidates:
        norm = _normalized(pair, h)
        if norm is None:
            reasons.append(f"h1 = {h}: constant along both inputs")
            continue
        g1, g2 = norm
        if given_h2 is None:
            # Murray's sufficient conditions select h1 and give h2 (module docstring)
            chain = _ad_chain(g1, g2, n - 1)
            if not _annihilates(h, chain):
                reasons.append(f"h1 = {h}: dh1 does not annihilate Δ1 = span{{g2, ad_g1 g2, …}}")
                continue
            delta2 = chain[:-1]
            if n > 3 and not Distribution(delta2, space).is_involutive():
                reasons.append(f"h1 = {h}: Δ2 is not involutive")
                continue
            k2 = _find_h2(space, h, delta2)
            if k2 is None:
                reasons.append(f"h1 = {h}: no h2 found with dh2 ⊥ Δ2 (pass h2=)")
                continue
        else:
            if not _independent(space, h, given_h2):
                reasons.append(f"h2 = {given_h2}: dh1 and dh2 are dependent")
                continue
            k2 = given_h2
        form = _build(pair, h, k2, g1, g2)
        bad = form.failures()
        if bad:  # with given h1, h2 the substitution check is the test of Murray's conditions
            reasons.append(f"h1 = {h}, h2 = {k2}: the pushed-forward fields are not chained "
                           f"(nonzero residuals {bad[:4]}: dh1 ⊥ Δ1 or dh2 ⊥ Δ2 fails)")
            continue
        if not _regular(form):
            reasons.append(f"h1 = {h}, h2 = {k2}: the input map β is singular")
            continue
        return form
    raise NoChainedFormError("no chained form found: " + "; ".join(reasons))
