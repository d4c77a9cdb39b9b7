"""Growth vector at a point, privileged coordinates and the nilpotent approximation
(Bellaïche 1996; Jean 2014, ch. 2).

For input fields X_1 … X_m and a point p, D^k(p) is the span of the values at p of the
brackets of length ≤ k (right-normed, [X_i, [X_j, …]]).  The growth vector at p is
(dim D^1(p), dim D^2(p), …) up to dim D^r(p) = n; r is the *degree of nonholonomy* at p, and
the *weights* are w_j = s for n_{s−1} < j ≤ n_s.

* **Adapted frame** Y_1 … Y_n: brackets whose values at p are independent, Y_j of length w_j.
* **Linearly adapted coordinates** y = A⁻¹(q − p), A = [Y_1(p) … Y_n(p)].
* **Privileged coordinates** (Bellaïche 1996, § 5.3, the algebraic correction; Jean 2014,
  Lemma 2.12): z_j = y_j − Σ_{k=2}^{w_j−1} h_k(y_1 … y_{j−1}) with

      h_k = Σ_{|α| = k, w(α) < w_j} [Y_1^{α_1} ⋯ Y_{j−1}^{α_{j−1}} (y_j − Σ_{q<k} h_q)](p) · y^α / α!,

  |α| = Σ α_i, w(α) = Σ w_i α_i.  Then z_j has nonholonomic order exactly w_j at p.
* **Nilpotent approximation**: with the dilation δ_t(z) = (t^{w_1} z_1, …, t^{w_n} z_n),
  X̂_i is the part of X_i (written in z) of weighted degree −1: the component along ∂_{z_j}
  keeps the terms of weighted degree w_j − 1.  X̂_i is homogeneous of degree −1,
  X̂_i^j(δ_t z) = t^{w_j − 1} X̂_i^j(z), and the X̂_i generate a nilpotent Lie algebra with the
  same growth vector at 0.

**Values at the point** (the entries of A, the correction coefficients, the derivatives of the
Taylor expansion, each coefficient of X̂_i) are decided without ``simplify``: zero or not by
:func:`~geonh.kernel.generic_point.is_zero` (once per value), a value identically equal to a
rational number replaced by it (so a numeric point and the constants of a symbolic point come
out exact), every other survivor shortened cheaply (:func:`~geonh.kernel.trig.shorten_trig`
modulo sin² + cos² = 1, or ``cancel``).  The 2-trailer at a symbolic point took over 250 s
with ``simplify`` (benchmarks/nilpotent_speed.py).
"""
from __future__ import annotations

import itertools
import math
from fractions import Fraction
from dataclasses import dataclass
from typing import Mapping, Sequence

import mpmath
import sympy as sp

from ..errors import DimensionError, ParseError, RankError
from ..kernel.elementary import TRIG_FUNCTIONS
from ..kernel.fields import VectorField
from ..kernel.evaluation import precision, value_at
from ..kernel.generic_point import generic_rank, is_zero, lu_inverse
from ..kernel.parsing import as_expr
from ..kernel.sampling import sample_points
from ..kernel.space import ConfigurationSpace
from ..kernel.trig import shorten_trig
from .accessibility import finite_at
from .chained import field_function, input_fields

__all__ = ["growth_vector_at", "degree_of_nonholonomy", "adapted_frame", "PrivilegedCoordinates",
           "privileged_coordinates", "NilpotentApproximation", "nilpotent_approximation",
           "nonholonomic_order", "is_homogeneous"]


def _point(space: ConfigurationSpace, point) -> dict:
    """{coordinate: value} from a mapping (by coordinate or name) or a sequence of n values."""
    if isinstance(point, Mapping):
        out = {}
        for k, v in point.items():
            q = space.coords[space.index(k)]
            out[q] = as_expr(v, what=f"point: value of {k}")
        missing = [q.name for q in space.coords if q not in out]
        if missing:
            raise DimensionError(f"point: no value for {missing}")
    else:
        if isinstance(point, (str, bytes)) or not hasattr(point, "__iter__"):
            raise ParseError(f"point: expected {space.dim} values or a mapping, got {point!r}")
        vals = list(point)
        if len(vals) != space.dim:
            raise DimensionError(f"point: expected {space.dim} values, got {len(vals)}")
        out = {q: as_expr(v, what=f"point: value of {q.name}") for q, v in zip(space.coords, vals)}
    for q, v in out.items():
        if v.free_symbols & set(space.coords):
            raise ParseError(f"point: the value of {q.name} ({v}) contains a coordinate")
    return out


def _brackets(fields: Sequence[VectorField], length: int, previous: list) -> list:
    """(word, field) of the right-normed brackets of ``length`` from those of length − 1."""
    if length == 1:
        return [((i,), X) for i, X in enumerate(fields)]
    return [((i,) + w, X.bracket(B)) for i, X in enumerate(fields) for w, B in previous]


def adapted_frame(fields, point, *, max_length: int | None = None) -> list[tuple[tuple[int, ...], VectorField, int]]:
    """(word, bracket field, weight) of an adapted frame at ``point`` (module docstring): the
    brackets of length 1, 2, … whose values at p are independent, kept greedily in order.
    A field or bracket without a finite value at p raises :class:`~geonh.errors.SingularMapError`.
    A word (i, j, k) is [X_i, [X_j, X_k]] (0-based).  Raises :class:`~geonh.errors.RankError` if
    the brackets up to length n (or ``max_length``) do not span the tangent space at p."""
    X = input_fields(fields)
    space = X[0].space
    p = _point(space, point)
    n = space.dim
    limit = n if max_length is None else max_length
    frame: list = []
    values: list = []
    level: list = []
    for length in range(1, limit + 1):
        level = _brackets(X, length, level)
        for word, B in level:
            v = list(finite_at(B, p))          # a field or bracket infinite at p: SingularMapError
            if generic_rank(sp.Matrix(values + [v])) > len(values):
                values.append(v)
                frame.append((word, B, length))
            if len(frame) == n:
                return frame
    ranks = _ranks(frame)
    raise RankError(f"the brackets of length ≤ {limit} span only {len(frame)} of {n} directions at the "
                    f"point (growth {ranks}): the system is not bracket-generating there")


def _ranks(frame) -> tuple[int, ...]:
    if not frame:
        return ()
    top = frame[-1][2]
    return tuple(sum(1 for _, _, w in frame if w <= s) for s in range(1, top + 1))


def growth_vector_at(fields, point) -> tuple[int, ...]:
    """(dim D^1(p), …, dim D^r(p) = n): the growth vector at ``point`` (module docstring)."""
    return _ranks(adapted_frame(fields, point))


def degree_of_nonholonomy(fields, point) -> int:
    """r, the least bracket length whose brackets span the tangent space at ``point``."""
    return len(growth_vector_at(fields, point))


def _apply(word_fields: Sequence[VectorField], f: sp.Expr) -> sp.Expr:
    """(Y_a Y_b ⋯ Y_c) f: the rightmost operator acts first."""
    for Y in reversed(word_fields):
        f = Y(f)
    return f


def nonholonomic_order(fields, point, f, *, up_to: int) -> int | None:
    """The nonholonomic order of the function ``f`` at ``point``: the least s such that some
    (X_{i1} ⋯ X_{is} f)(p) ≠ 0 (s = 0: f(p) ≠ 0), or None if there is none up to ``up_to``."""
    X = input_fields(fields)
    space = X[0].space
    p = _point(space, point)
    f = field_function(X, f, "nonholonomic_order: f")
    if isinstance(up_to, bool) or not isinstance(up_to, int) or not 0 <= up_to <= 20:
        raise ParseError(f"nonholonomic_order: up_to must be an int from 0 to 20, got {up_to!r}")
    level = [f]
    for s in range(up_to + 1):
        if any(not is_zero(g.xreplace(p)) for g in level):
            return s
        level = [Xi(g) for Xi in X for g in level]
    return None


@dataclass(frozen=True)
class PrivilegedCoordinates:
    """Privileged coordinates z = z(q) at ``point`` with their ``weights``; ``y`` the linearly
    adapted coordinates, ``frame`` the adapted frame (word, field, weight)."""

    point: dict
    weights: tuple[int, ...]
    frame: tuple
    y: tuple[sp.Expr, ...]
    z: tuple[sp.Expr, ...]
    A: sp.Matrix                 #: columns Y_j(p): q − p = A y


def privileged_coordinates(fields, point) -> PrivilegedCoordinates:
    """Privileged coordinates at ``point`` by Bellaïche's algebraic correction (module docstring)."""
    X = input_fields(fields)
    space = X[0].space
    p = _point(space, point)
    frame = adapted_frame(X, p)
    weights = tuple(w for _, _, w in frame)
    n = space.dim
    A = sp.Matrix([[_constant(frame[j][1].components[i].xreplace(p)) for j in range(n)] for i in range(n)])
    Ainv = lu_inverse(A, what="adapted frame at the point").applyfunc(_constant)   # constants
    dq = sp.Matrix([q - p[q] for q in space.coords])
    y = [sp.expand(e) for e in Ainv * dq]
    Y = [B for _, B, _ in frame]
    z: list[sp.Expr] = []
    for j in range(n):
        wj = weights[j]
        corrections = sp.S.Zero
        target = y[j]
        for k in range(2, wj):
            hk = sp.S.Zero
            for alpha in _multi_indices(j, k):
                if sum(a * weights[i] for i, a in enumerate(alpha)) >= wj:
                    continue
                ops = [Y[i] for i, a in enumerate(alpha) for _ in range(a)]
                coeff = _constant(_apply(ops, target).xreplace(p))   # a constant
                if coeff != 0:
                    mono = sp.Mul(*[y[i] ** a / math.factorial(a) for i, a in enumerate(alpha) if a])
                    hk += coeff * mono
            corrections += hk
            target = y[j] - corrections
        z.append(sp.expand(y[j] - corrections))
    return PrivilegedCoordinates(p, weights, tuple(frame), tuple(y), tuple(z), A)


def _multi_indices(j: int, k: int):
    """α ∈ ℕ^j with |α| = k."""
    for combo in itertools.combinations_with_replacement(range(j), k):
        alpha = [0] * j
        for i in combo:
            alpha[i] += 1
        yield tuple(alpha)


@dataclass(frozen=True)
class NilpotentApproximation:
    """The nilpotent approximation X̂_i on the space of privileged coordinates z1 … zn."""

    coordinates: PrivilegedCoordinates
    space: ConfigurationSpace
    fields: tuple[VectorField, ...]

    @property
    def weights(self) -> tuple[int, ...]:
        return self.coordinates.weights


def _inverse(pc: PrivilegedCoordinates, zsyms: Sequence[sp.Symbol], space: ConfigurationSpace) -> dict:
    """q as polynomials in z (the correction is triangular: y_j = z_j + h(y_1 … y_{j−1}))."""
    ysyms = [sp.Dummy(f"y{j}") for j in range(len(zsyms))]
    # y_j in terms of q is linear; z_j − y_j is a polynomial in y_1 … y_{j−1}
    qdiff = pc.A * sp.Matrix(ysyms)
    q_of_y = {q: pc.point[q] + qdiff[i] for i, q in enumerate(space.coords)}
    y_of_z: dict = {}
    for j, zj in enumerate(pc.z):
        h = sp.expand(pc.y[j] - zj).xreplace(q_of_y)   # a polynomial in y_1 … y_{j−1}
        y_of_z[ysyms[j]] = sp.expand(zsyms[j] + h.xreplace(y_of_z))
    return {q: sp.expand(e.xreplace(y_of_z)) for q, e in q_of_y.items()}


def nilpotent_approximation(fields, point) -> NilpotentApproximation:
    """The nilpotent approximation of the input fields at ``point`` (module docstring), on a
    space with coordinates z1 … zn (privileged coordinates centred at the point)."""
    X = input_fields(fields)
    space = X[0].space
    pc = privileged_coordinates(X, point)
    n = space.dim
    Z = ConfigurationSpace([f"z{j}" for j in range(1, n + 1)])
    zs = list(Z.coords)
    q_of_z = _inverse(pc, zs, space)
    t = sp.Dummy("t")
    dil = {z: t ** w * z for z, w in zip(zs, pc.weights)}
    # each q − p has weighted degree ≥ 1 in z: a Taylor polynomial of order r − 1 suffices
    order = max(pc.weights) - 1
    dq = [_by_power(sp.expand((q_of_z[q] - pc.point[q]).xreplace(dil)), t, order) for q in space.coords]
    out = []
    for Xi in X:
        comps = []
        for j, zj in enumerate(pc.z):
            d = pc.weights[j] - 1
            series = _taylor(Xi(zj), space.coords, pc.point, order, dq)
            comps.append(_shorten_coefficients(sp.expand(series.get(d, sp.S.Zero)), zs))
        out.append(VectorField(Z, comps))
    return NilpotentApproximation(pc, Z, tuple(out))


def _by_power(e: sp.Expr, t: sp.Symbol, order: int) -> dict:
    """{k: coefficient of t^k} for k ≤ order of a polynomial in t."""
    out: dict = {}
    for term in sp.Add.make_args(e):
        k = sp.degree(term, t) if term.has(t) else 0
        if k <= order:
            out[k] = out.get(k, sp.S.Zero) + term.xreplace({t: 1})
    return out


def _times(a: dict, b: dict, order: int) -> dict:
    """The product of two truncated series in t (coefficients expanded)."""
    out: dict = {}
    for i, x in a.items():
        for j, y in b.items():
            if i + j <= order:
                out[i + j] = out.get(i + j, sp.S.Zero) + sp.expand(x * y)
    return out


def _taylor(g: sp.Expr, coords: Sequence[sp.Symbol], point: dict, order: int, dq: Sequence[dict]) -> dict:
    """Σ_{|α| ≤ order} ∂^α g(p) (q − p)^α / α! as a series in t truncated at t^order, with
    q − p replaced by the truncated series ``dq``."""
    total: dict = {}
    frontier: dict = {(): g}
    for level in range(order + 1):
        nxt: dict = {}
        for key, expr in frontier.items():
            if expr == 0:
                continue
            value = _constant(expr.xreplace(point), shorten=False)   # a constant
            if value != 0:
                term: dict = {0: value}
                for i in sorted(set(key)):
                    a = key.count(i)
                    for _ in range(a):
                        term = _times(term, dq[i], order)
                    term = {k: v / math.factorial(a) for k, v in term.items()}
                for k, v in term.items():
                    total[k] = total.get(k, sp.S.Zero) + v
            if level < order:
                start = key[-1] if key else 0
                for i in range(start, len(coords)):
                    nxt[key + (i,)] = sp.diff(expr, coords[i])
        frontier = nxt
    return total


def _shorten_coefficients(e: sp.Expr, zs: Sequence[sp.Symbol]) -> sp.Expr:
    """Each monomial's coefficient (an expression in the point's values) decided and shortened
    by :func:`_constant`; the monomials whose coefficient is zero dropped."""
    if e == 0:
        return e
    groups: dict = {}
    for term in sp.Add.make_args(e):
        coeff, mono = term.as_independent(*zs, as_Add=False)
        groups[mono] = groups.get(mono, sp.S.Zero) + coeff
    return sp.Add(*[_constant(c) * mono for mono, c in groups.items()])


#: the largest denominator of a rational value recognised by :func:`_constant`
_DENOMINATOR = 10 ** 6


def _constant(e: sp.Expr, shorten: bool = True) -> sp.Expr:
    """A value at the point (an expression in the point's values and the parameters), without
    ``simplify`` (the project rule for hot paths): 0 when it is identically zero
    (:func:`~geonh.kernel.generic_point.is_zero`, decided once); the rational number r when
    e ≡ r (r read off one value, confirmed by ``is_zero(e − r)``), so that a numeric point and the
    constants of a symbolic point give exact numbers; otherwise ``e`` shortened cheaply
    (``_shorten``), or left as it is with ``shorten=False`` (the Taylor values: they only feed
    sums whose coefficients are shortened at the end)."""
    if e.is_Rational:
        return e
    if is_zero(e):
        return sp.S.Zero
    r = _rational_value(e)
    if r is not None and is_zero(e - r):
        return r
    return _shorten(e) if shorten else e


def _rational_value(e: sp.Expr) -> sp.Rational | None:
    """The rational number of small denominator (≤ ``_DENOMINATOR``) that the value of ``e`` at one
    sample point equals to half the working precision, or None."""
    free = sorted(e.free_symbols, key=sp.default_sort_key)
    pt = sample_points(free, 1)[0] if free else {}
    v = value_at(e, pt, strict=False, tree=True)
    if v is None:
        return None
    if isinstance(v, sp.Basic):
        return v if v.is_Rational else None
    if not isinstance(v, mpmath.mpf):
        return None
    f = Fraction(mpmath.nstr(v, precision())).limit_denominator(_DENOMINATOR)
    if abs(v - mpmath.mpf(f.numerator) / f.denominator) > mpmath.mpf(10) ** (-(precision() // 2)) * max(1, abs(v)):
        return None
    return sp.Rational(f.numerator, f.denominator)


def _shorten(e: sp.Expr) -> sp.Expr:
    """``e`` shortened without ``simplify``: a trigonometric expression reduced modulo
    sin² + cos² = 1 by :func:`~geonh.kernel.trig.shorten_trig` (each trigonometric argument that is
    not a symbol, such as θ0 − θ1, renamed to a symbol first), a rational function put over a
    common denominator by ``cancel``; the shorter of the result and ``e``."""
    args = {f.args[0] for f in e.atoms(*TRIG_FUNCTIONS)}
    if args:
        rename = {u: sp.Dummy("u") for u in args if not isinstance(u, sp.Symbol)}
        short, done = shorten_trig(e.xreplace(rename))
        return short.xreplace({d: u for u, d in rename.items()}) if done else e
    if e.atoms(sp.Function):
        return e
    c = sp.cancel(e)
    return c if sp.count_ops(c) <= sp.count_ops(e) else e


def is_homogeneous(field: VectorField, weights: Sequence[int], degree: int = -1) -> bool:
    """Is X homogeneous of ``degree`` for the dilation δ_t(z) = (t^{w_j} z_j)?  That is,
    X^j(δ_t z) = t^{w_j + degree} X^j(z) for every component j."""
    if not isinstance(field, VectorField):
        raise ParseError(f"is_homogeneous takes a VectorField, got {type(field).__name__}")
    if isinstance(weights, (str, bytes, Mapping, set, frozenset)) or not hasattr(weights, "__iter__"):
        raise ParseError(f"is_homogeneous: weights must be a sequence of ints, got {weights!r}")
    w = list(weights)
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in w):
        raise ParseError(f"is_homogeneous: weights must be ints, got {weights!r}")
    if isinstance(degree, bool) or not isinstance(degree, int):
        raise ParseError(f"is_homogeneous: degree must be an int, got {degree!r}")
    if len(w) != field.space.dim:
        raise DimensionError(f"{field.space.dim} weights needed, got {len(w)}")
    t = sp.Dummy("t", positive=True)
    dil = {z: t ** wi * z for z, wi in zip(field.space.coords, w)}
    return all(sp.expand(c.xreplace(dil) - t ** (wj + degree) * c) == 0 for c, wj in zip(field.components, w))
