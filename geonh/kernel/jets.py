"""Forward-mode automatic differentiation at a point: geonh's one numerical differentiator.

A :class:`Jet` holds a point {symbol: number} and a *seed* for some of its symbols, a sparse
tangent vector {index: number}.  Evaluating a sympy expression e with the jet gives its value
at the point and its tangent, the sparse vector

    ė = Σ_s (∂e/∂s)(point) · seed(s),

by one post-order pass over the distinct subexpressions of e, each node combining the values
and tangents of its arguments by the chain rule for that node (sum, product, power, and the
first derivatives of the elementary functions in :data:`DERIVATIVES`): forward-mode automatic
differentiation with dual numbers (Griewank & Walther, *Evaluating Derivatives*, 2nd ed.,
SIAM 2008, ch. 3).  Subexpressions are computed once for every expression evaluated with the
same jet, so equations with huge expression trees are differentiated in one pass (the
traversal is :func:`~geonh.kernel.evaluation.postorder`, the one :func:`~geonh.kernel.evaluation.tree_eval` uses).  Two
seedings serve geonh:

* :meth:`Jet.gradient` — variable x_i gets the unit vector e_i, so the tangent is the sparse
  gradient {i: ∂e/∂x_i}: :func:`jacobian_at`, the linearization (:mod:`geonh.analysis.linearize`:
  ∂M/∂y, ∂F/∂y, ∂K/∂y at the operating point);
* :meth:`Jet.along` — every symbol s gets {0: v_s}, so the tangent is the directional derivative
  d/dε e(point + ε·v) at ε = 0 = Σ_s ∂e/∂s · v_s: :func:`directional_derivative` (Lie brackets
  at sample points for the generic-point decisions, :meth:`Equations.accelerations`).

Numbers are mpmath numbers at :data:`~geonh.kernel.evaluation.PRECISION` digits.  A symbol
without a value raises :class:`~geonh.errors.MissingValueError`; a node that has no value or
no derivative at the point (a negative power of 0, ``Abs`` or a non-integer power at 0 along a
moving argument, a function singular there) raises :class:`~geonh.errors.SingularMapError`.
"""
from __future__ import annotations

from typing import Any, Iterable, Mapping, Sequence

import mpmath
import sympy as sp

from ..errors import GeonhError, MissingValueError, SingularMapError
from .elementary import ELEMENTARY
from .evaluation import postorder, precision, to_mp
from .parsing import as_exprs, as_symbols, as_values, sympy_of

#: the public entry takes user input and converts it at the boundary (geonh.kernel.parsing);
#: Jet, directional_derivative and DERIVATIVES are the kernel's machinery, called by geonh itself
#: with values it has already converted (the hot paths of the generic-point decisions)
__all__ = ["jacobian_at"]

#: the elementary functions of one argument: sympy function → (value, first derivative), mpmath;
#: read off the one table of elementary functions (:mod:`geonh.kernel.elementary`)
DERIVATIVES = {f: (e.value, e.derivative) for f, e in ELEMENTARY.items()
               if e.value is not None and e.derivative is not None}


def _mpf(x):
    """A number at PRECISION digits (:func:`~geonh.kernel.evaluation.to_mp`: MissingValueError
    naming the symbols without a value, SingularMapError where it is singular)."""
    return mpmath.mpmathify(to_mp(x))


def _scaled(tangent: Mapping, factor) -> dict:
    return {i: factor * d for i, d in tangent.items()}


class Jet:
    """Values and tangents (sparse vectors {index: number}) of sympy expressions at one point,
    by forward-mode automatic differentiation over their distinct subexpressions (module
    docstring).

    ``point`` {symbol: number} gives the value of every symbol met; ``seeds`` {symbol:
    {index: number}} the tangent of a symbol (none: a constant).  ``cache`` {subexpression:
    (value, tangent)} may be shared by calls with the same seeds; ``values`` {subexpression:
    value} may be a cache of values at the same point shared with other jets or with
    :func:`~geonh.kernel.evaluation.tree_eval` (values found there are used, values computed
    here are added).  Calling the jet on an expression returns (value, tangent)."""

    __slots__ = ("point", "seeds", "cache", "values")

    def __init__(self, point: Mapping, seeds: Mapping[sp.Symbol, Mapping[int, Any]], *,
                 cache: dict | None = None, values: dict | None = None):
        self.point = point
        self.seeds = seeds
        self.cache = {} if cache is None else cache
        self.values = values

    @classmethod
    def gradient(cls, point: Mapping, variables: Sequence[sp.Symbol]) -> Jet:
        """The jet whose tangents are gradients: variable i seeded with the unit vector e_i,
        so the tangent of e is {i: ∂e/∂x_i} (zero entries left out).  Every value of ``point``
        is converted at once (a value that is not a number is refused here)."""
        with mpmath.workdps(precision()):
            point = {k: _mpf(v) for k, v in point.items()}
        one = mpmath.mpf(1)
        return cls(point, {v: {i: one} for i, v in enumerate(variables)})

    @classmethod
    def along(cls, point: Mapping, direction: Mapping, *, cache: dict | None = None,
              values: dict | None = None) -> Jet:
        """The jet whose tangent (index 0) is the derivative along ``direction`` {symbol:
        number}: d/dε e(point + ε·direction) at ε = 0."""
        with mpmath.workdps(precision()):
            seeds = {s: {0: _mpf(d)} for s, d in direction.items() if d != 0}
        return cls(point, seeds, cache=cache, values=values)

    def __call__(self, expr) -> tuple[Any, dict]:
        expr = sympy_of(expr)
        if expr in self.cache:
            return self.cache[expr]
        with mpmath.workdps(precision()):
            return postorder(expr, self.cache, self._leaf, self._node)

    def derivative(self, expr):
        """The first component of the tangent of ``expr`` (the derivative of a jet made by
        :meth:`along`)."""
        return self(expr)[1].get(0, mpmath.mpf(0))

    def _leaf(self, e) -> tuple[Any, dict] | None:
        """Value and tangent of a symbol or a number (None for an inner node)."""
        if e.args and not (e.is_Number or e.is_NumberSymbol):
            return None
        known = self.values
        val = known.get(e) if known is not None else None
        if e.is_Symbol:
            if val is None:
                if e not in self.point:
                    raise MissingValueError(f"no value for {e}")
                val = _mpf(self.point[e])
            seed = self.seeds.get(e)
            return val, (dict(seed) if seed else {})
        return (_mpf(e) if val is None else val), {}

    def _node(self, e, args: list) -> tuple[Any, dict]:
        """Value and tangent of ``e`` from those of its arguments (``args``): the chain rule of
        the node."""
        vals = [a[0] for a in args]
        known = self.values
        val = known.get(e) if known is not None else None
        if e.is_Add:
            g: dict = {}
            for _, ga in args:
                for i, d in ga.items():
                    g[i] = g.get(i, 0) + d
            if val is None:
                val = mpmath.fsum(vals)
        elif e.is_Mul:
            # d(∏ a_k) = Σ_k (∏_{j<k} a_j)(∏_{j>k} a_j) da_k, by prefix and suffix products
            n = len(vals)
            pre = [mpmath.mpf(1)] * (n + 1)
            for i in range(n):
                pre[i + 1] = pre[i] * vals[i]
            suf = mpmath.mpf(1)
            g = {}
            for i in range(n - 1, -1, -1):
                ga = args[i][1]
                if ga:
                    other = pre[i] * suf
                    for j, d in ga.items():
                        g[j] = g.get(j, 0) + other * d
                suf *= vals[i]
            if val is None:
                val = pre[n]
        elif e.is_Pow:
            val, g = self._power(e, args, val)
        elif e.func in DERIVATIVES and len(args) == 1:
            # d f(a) = f'(a) da
            f, df = DERIVATIVES[e.func]
            (a, ga), = args
            g = _scaled(ga, df(a)) if ga else {}
            if val is None:
                val = f(a)
        elif isinstance(e, sp.atan2):
            # d atan2(y, x) = (x dy − y dx) / (x² + y²)
            (y, gy), (x, gx) = args
            r2 = x * x + y * y
            g = {}
            for i, d in gy.items():
                g[i] = g.get(i, 0) + x / r2 * d
            for i, d in gx.items():
                g[i] = g.get(i, 0) - y / r2 * d
            if val is None:
                val = mpmath.atan2(y, x)
        elif isinstance(e, sp.Abs):
            # d|a| = sign(a) da, a ≠ 0
            (a, ga), = args
            if a == 0 and ga:
                raise SingularMapError(f"{e} is not differentiable at the operating point")
            g = _scaled(ga, mpmath.sign(a))
            if val is None:
                val = abs(a)
        else:
            val, g = self._other(e, val)
        if known is not None:
            known.setdefault(e, val)
        return val, g

    @staticmethod
    def _power(e, args, val):
        """d(b^k) = k b^(k−1) db for an integer k; d(b^x) = x b^(x−1) db + b^x log(b) dx."""
        (b, gb), (x, gx) = args
        if e.exp.is_Integer:
            k = int(e.exp)
            if b == 0 and k < 0:
                raise SingularMapError(f"{e} is singular at the operating point")
            fac = k * b ** (k - 1) if gb else 0
            return (b ** k if val is None else val), {i: fac * d for i, d in gb.items()}
        if b == 0:
            if not gb and not gx:
                return mpmath.mpf(0), {}
            raise SingularMapError(f"{e} is not differentiable at the operating point (base 0)")
        if val is None:
            val = b ** x
        g = {}
        if gb:
            fac = x * b ** (x - 1)
            for i, d in gb.items():
                g[i] = fac * d
        if gx:
            fac = val * mpmath.log(b)
            for i, d in gx.items():
                g[i] = g.get(i, 0) + fac * d
        return val, g

    def _other(self, e, val):
        """Any other node: its value by sympy at the point, de = Σ_s ∂e/∂s ds with each ∂e/∂s a
        sympy derivative evaluated at the point (its value only: a jet of the derivative could
        recurse for ever, sign → DiracDelta → DiracDelta(x, 1) → …)."""
        cache, seeds = self.cache, self.seeds
        sub = {s: sp.Float(cache[s][0], precision()) for s in e.free_symbols if s in cache}
        try:
            if val is None:
                val = _mpf(e.xreplace(sub))
            g: dict = {}
            for s in e.free_symbols:
                seed = seeds.get(s)
                if seed:
                    ds = _mpf(sp.diff(e, s).xreplace(sub))
                    for i, d in seed.items():
                        g[i] = g.get(i, 0) + ds * d
        except (ValueError, TypeError) as exc:
            if isinstance(exc, GeonhError):
                raise
            raise SingularMapError(f"{e} has no finite value or derivative at the operating point "
                                   "(e.g. sign or Abs where its argument is 0)") from None
        return val, g


def jacobian_at(exprs: Iterable, variables: Sequence[sp.Symbol], point: Mapping):
    """Values and the Jacobian ∂e_a/∂x_i of ``exprs`` with respect to ``variables`` at ``point``
    {symbol: number} (every symbol of the expressions needs a value), by forward-mode automatic
    differentiation at PRECISION digits (:meth:`Jet.gradient`): returns (values, rows) as mpmath
    numbers."""
    variables = as_symbols(variables, what="variables")
    point = as_values(point, what="point")
    jet = Jet.gradient(point, variables)
    vals, rows = [], []
    for e in as_exprs(exprs, what="expressions"):
        v, g = jet(e)
        vals.append(v)
        rows.append([g.get(i, mpmath.mpf(0)) for i in range(len(variables))])
    return vals, rows


def directional_derivative(expr: sp.Expr, point: Mapping, direction: Mapping, values: dict, cache: dict):
    """(d/dε) expr(point + ε·direction) at ε = 0 = Σ_s ∂expr/∂s · direction_s, by forward-mode
    automatic differentiation (:meth:`Jet.along`).  ``values`` caches subexpression values at
    ``point`` (shared between directions, and with :func:`~geonh.kernel.evaluation.tree_eval`);
    ``cache`` holds the tangents for this direction.  Used to get Lie brackets *numerically*
    where only their rank matters (no symbolic differentiation), and time derivatives of large
    expressions along the motion."""
    return Jet.along(point, direction, cache=cache, values=values).derivative(expr)
