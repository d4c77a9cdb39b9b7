"""Values at a point: geonh's one way to evaluate an expression at given numbers.

A value is exact (a sympy ``Rational``) when every number involved is rational and no
function needs evaluating; otherwise it is an mpmath number with :data:`PRECISION` decimal
digits (:data:`BITS` bits).  :func:`value_at` is the one entry point:

* ``value_at(expr, values)`` raises where the expression has no value (``MissingValueError`` naming
  the symbols without a number, :class:`SingularMapError` where it is singular or infinite);
* ``strict=False`` returns ``None`` there instead (the generic-point decisions skip such points);
* ``tree=True`` evaluates large expressions with functions at fixed precision: by symengine's
  MPFR evaluation (:func:`native_values`) where symengine takes the expression, else by
  :func:`tree_eval` (one pass over the distinct subexpressions); both are far faster than
  sympy's adaptive ``evalf``.  The generic-point decisions use it, the values geonh reports
  do not.

:func:`real_value` is the variant for states: a real sympy number or ``None``.
:func:`to_mp` and :func:`to_sympy` convert between the two number worlds (a sympy ``Float``
made here has PRECISION digits, never 15), and :func:`random_rational` draws the random
rationals of every reproducible random point or state.
:func:`check_assumptions` refuses a number outside the domain its symbol declares (a
parameter declared positive given −2): :func:`geonh.simulate`, :meth:`geonh.Equations.ode_function`,
:func:`geonh.numerics.sweep` and :meth:`geonh.Equations.linearize` call it on every value;
:func:`short_repr` shows a value in an error message.

This module sits at the bottom of the kernel: it imports nothing else from geonh but the
errors and the input boundary (:mod:`geonh.kernel.parsing`), and :mod:`geonh.kernel.generic_point` builds its decisions on it.
"""
from __future__ import annotations

import random
from typing import Callable, Iterable, Mapping

import mpmath
import sympy as sp

from ..errors import InconsistentStateError, MissingValueError, ParseError, SingularMapError, UnknownCoordinateError
from .parsing import as_mapping, as_matrix, as_sequence, as_values, expr_of, sympy_of

__all__ = ["PRECISION", "BITS", "value_at", "native_values", "is_big", "real_value", "to_mp", "to_sympy", "tree_eval", "postorder",
           "solve_linear_at", "random_rational", "resolve_keys", "symbols_in", "check_assumptions", "short_repr"]

#: decimal digits of every non-exact value (and of the generic-point decisions)
PRECISION = 60
#: binary precision that matches PRECISION decimal digits (with guard bits)
BITS = int(PRECISION * 3.33) + 8

_SINGULAR = (sp.zoo, sp.nan, sp.oo, -sp.oo)


def random_rational(rng: random.Random, low_den: int = 7, high_den: int = 41, *,
                    divisor: int = 4, top: int = 2) -> sp.Rational:
    """A random positive rational num/den with den in [low_den, high_den] and num in
    [den // divisor + 1, top · den], so the value lies in (1/divisor, top]: away from 0 and
    mostly away from small integers, which are often special.  Two draws from ``rng``
    (den, then num), so a fixed seed gives a fixed sequence."""
    den = rng.randint(low_den, high_den)
    return sp.Rational(rng.randint(den // divisor + 1, top * den), den)


def to_mp(x):
    """A number (sympy Rational/Float/number expression, or mpmath) as an mpmath number at
    PRECISION digits (a sympy number through :func:`value_at`)."""
    if isinstance(x, sp.Basic):
        if x.is_Rational:
            with mpmath.workdps(PRECISION):
                return mpmath.mpf(x.p) / x.q
        return value_at(x)
    return x


def to_sympy(x) -> sp.Expr:
    """A number as a sympy value (Rational stays exact, mpmath becomes a PRECISION-digit Float)."""
    if isinstance(x, sp.Basic):
        return x
    if isinstance(x, mpmath.mpc):
        return sp.Float(x.real, PRECISION) + sp.I * sp.Float(x.imag, PRECISION)
    if isinstance(x, (mpmath.mpf, float, int)) and not isinstance(x, bool):
        return sp.Float(x, PRECISION)
    return expr_of(x, what="to_sympy")


# -- fixed-precision evaluation of large trees --------------------------------------------------
_MP_FUNCS = {
    sp.sin: mpmath.sin, sp.cos: mpmath.cos, sp.tan: mpmath.tan, sp.cot: mpmath.cot,
    sp.sec: mpmath.sec, sp.csc: mpmath.csc, sp.exp: mpmath.exp, sp.log: mpmath.log,
    sp.sinh: mpmath.sinh, sp.cosh: mpmath.cosh, sp.tanh: mpmath.tanh, sp.asin: mpmath.asin,
    sp.acos: mpmath.acos, sp.atan: mpmath.atan, sp.Abs: abs,
}


def postorder(expr: sp.Expr, cache: dict, leaf: Callable, node: Callable):
    """Value of ``expr`` by one post-order pass over its distinct subexpressions: ``leaf(e)``
    gives the value of a leaf (None for an inner node), ``node(e, child_values)`` combines.
    ``cache`` (subexpression → value) may be shared between calls.  Serves :func:`tree_eval`
    and the forward-mode derivatives of :class:`geonh.kernel.jets.Jet`."""
    expr = expr_of(expr, what="postorder")
    cache = as_mapping(cache, "postorder cache")
    stack = [(expr, False)]
    while stack:
        e, ready = stack.pop()
        if e in cache:
            continue
        v = leaf(e)
        if v is not None:
            cache[e] = v
        elif not ready:
            stack.append((e, True))
            stack.extend((a, False) for a in e.args if a not in cache)
        else:
            cache[e] = node(e, [cache[a] for a in e.args])
    return cache[expr]


def tree_eval(expr: sp.Expr, point: Mapping, cache: dict):
    """Fixed-precision mpmath value of ``expr`` at ``point`` (:func:`postorder`; ``cache``
    may be shared between calls at the same point, so rows of iterated brackets reuse each
    other's work).  Call it inside ``mpmath.workdps(PRECISION)``; a node that is singular or
    lacks a value raises ``ValueError``.  No compilation: sympy's adaptive evalf and
    lambdify's code generation are both far slower on big trees."""
    expr = expr_of(expr, what="tree_eval")
    point = as_mapping(point, "tree_eval point")

    def leaf(e):
        if e.is_Symbol:
            if e not in point:
                raise MissingValueError(f"tree_eval: no value given for {e}")
            return to_mp(point[e])
        if e.is_Rational:
            return mpmath.mpf(e.p) / e.q
        if e.is_Float:
            return mpmath.mpf(e)
        return None

    def node(e, args):
        if e.is_Add:
            return mpmath.fsum(args)
        if e.is_Mul:
            return mpmath.fprod(args)
        if e.is_Pow:
            b, x = args
            return b ** int(e.exp) if e.exp.is_Integer else b ** x
        if e.func in _MP_FUNCS and len(args) == 1:
            return _MP_FUNCS[e.func](args[0])
        return to_mp(value_at(e, point))  # any other function: sympy's evalf on this node

    return postorder(expr, cache, leaf, node)


def native_values(natives: list, values: Mapping) -> list:
    """Values of symengine expressions ``natives`` at ``values`` ({symbol: number}, every
    symbol they use): a sympy ``Rational`` where no function needs evaluating, else an
    mpmath number from symengine's MPFR evaluation at :data:`BITS` bits (the precision of
    :func:`tree_eval`, several times faster on large trees); ``None`` for an entry symengine
    cannot evaluate to a finite real number (singular or complex there, a symbol without a
    value, a function it lacks), which the caller then evaluates by sympy/mpmath.
    Raises :class:`~geonh.errors.ParseError` (a ``TypeError``) if a value is not a rational
    number (the caller's cue to use the sympy route for the whole point)."""
    import symengine as se
    natives = as_sequence(natives, "native_values natives")
    sub = {}
    for k, v in as_values(values, what="native_values values").items():
        v = sympy_of(v)
        if not v.is_Rational:
            raise ParseError("symengine route: rational point values only")
        sub[se.sympify(k)] = se.Rational(int(v.p), int(v.q))
    out: list = []
    with mpmath.workdps(PRECISION):
        for n in natives:
            try:
                v = n.xreplace(sub) if n.free_symbols else n
                if v.is_Rational:
                    out.append(sp.Integer(int(v)) if v.is_Integer else sp.Rational(int(v.p), int(v.q)))
                    continue
                mv = mpmath.mpf(str(v.n(BITS, real=True)))
                out.append(mv if mpmath.isfinite(mv) else None)
            except Exception:  # noqa: BLE001 - not real, singular or not evaluable by symengine
                out.append(None)
    return out


def _native_value(expr: sp.Expr, values: Mapping):
    """:func:`native_values` of one sympy expression (None: take the sympy route)."""
    try:
        import symengine as se
        return native_values([se.sympify(expr)], values)[0]
    except Exception:  # noqa: BLE001 - no symengine, or an expression/point it does not take
        return None


def is_big(expr: sp.Expr, limit: int = 150) -> bool:
    """Has ``expr`` more than ``limit`` nodes?  (Stops counting there.)"""
    expr = expr_of(expr, what="is_big")
    for k, _ in enumerate(sp.preorder_traversal(expr)):
        if k > limit:
            return True
    return False


def _tree_value(expr: sp.Expr, point: Mapping):
    """:func:`tree_eval` at PRECISION digits; None where it is singular or not finite."""
    with mpmath.workdps(PRECISION):
        try:
            v = tree_eval(expr, point, {})
        except (ZeroDivisionError, ValueError, OverflowError, TypeError):
            return None
        v = mpmath.mpmathify(v)
        if not mpmath.isfinite(v):
            return None
        return v


# -- the one value at a point -------------------------------------------------------------------
def value_at(expr: sp.Expr, values: Mapping | None = None, *, strict: bool = True, tree: bool = False):
    """The value of ``expr`` with ``values`` {symbol: number} substituted: an exact
    ``Rational`` when possible, else an mpmath number (``mpf``, or ``mpc`` for a complex
    value) at PRECISION digits.

    ``strict=True`` (default): raises :class:`~geonh.errors.MissingValueError` (a ``ValueError``) naming the symbols without a value and
    :class:`SingularMapError` where the expression is singular (zoo, nan, ±oo) or cannot be
    evaluated.  ``strict=False``: returns ``None`` in those cases.
    ``tree=True``: an expression with functions and more than 150 nodes whose symbols all
    have values is evaluated by :func:`tree_eval` at fixed precision (fast; the last digits
    may differ from sympy's adaptive ``evalf``, which is used otherwise)."""
    expr = expr_of(expr, what="value_at")
    if expr.is_Rational:
        return expr
    values = {} if values is None else as_values(values, what="value_at values")
    if tree and expr.has(sp.Function) and is_big(expr) and all(s in values for s in expr.free_symbols):
        v = _native_value(expr, values)
        if v is not None:
            return v
        v = _tree_value(expr, values)
        if v is None and strict:
            raise SingularMapError(f"expression singular at the given state: {expr}")
        return v
    v = expr.xreplace(values)
    if v.is_Rational:
        return v
    if v.free_symbols:
        if strict:
            raise MissingValueError(f"no value given for {sorted(map(str, v.free_symbols))}")
        return None
    try:
        f = None if v.has(*_SINGULAR) else v.evalf(PRECISION)
    except (ZeroDivisionError, ValueError) as exc:
        if strict:
            raise SingularMapError(f"expression cannot be evaluated at the given state: {expr}") from exc
        return None
    if f is None or f.has(*_SINGULAR) or not f.is_number:
        if strict:
            raise SingularMapError(f"expression singular at the given state: {expr}")
        return None
    with mpmath.workdps(PRECISION):
        return f._to_mpmath(BITS)


def real_value(expr: sp.Expr, values: Mapping | None = None) -> sp.Expr | None:
    """:func:`value_at` for states: the real value as a sympy number (an exact ``Rational``
    or a PRECISION-digit ``Float``, ready to go back into a state), ``None`` where the
    expression is singular, lacks a value or is not real (an imaginary part above
    10^-(PRECISION/2) relative to the real part)."""
    v = value_at(expr, values, strict=False)
    if v is None or isinstance(v, sp.Basic):
        return v
    if isinstance(v, mpmath.mpc):
        with mpmath.workdps(PRECISION):
            if abs(v.imag) > mpmath.mpf(10) ** (-(PRECISION // 2)) * max(1, abs(v.real)):
                return None
        v = v.real
    return sp.Float(v, PRECISION)


def solve_linear_at(M: sp.Matrix, F: sp.Matrix, values: Mapping, what: str = "matrix") -> list:
    """Solve M x = F at a state: exactly if every entry is rational there, else with mpmath
    (large entries with functions evaluated at fixed PRECISION digits, ``tree=True``)."""
    M, F = as_matrix(M, what=what), as_matrix(F, what=f"right-hand side of {what}")
    values = as_values(values, what="solve_linear_at values")
    Mv = [value_at(e, values, tree=True) for e in M]
    Fv = [value_at(e, values, tree=True) for e in F]
    n = M.rows
    if all(isinstance(x, sp.Basic) for x in Mv + Fv):
        Ms = sp.Matrix(n, M.cols, Mv)
        if Ms.det() == 0:
            raise SingularMapError(f"{what} is singular at this state")
        return list(Ms.LUsolve(sp.Matrix(Fv)))
    with mpmath.workdps(PRECISION):
        conv = [to_mp(x) for x in Mv + Fv]
        Mm = mpmath.matrix(n, M.cols)
        for k in range(n * M.cols):
            Mm[k // M.cols, k % M.cols] = conv[k]
        Fm = mpmath.matrix(conv[n * M.cols:])
        try:
            x = mpmath.lu_solve(Mm, Fm)
        except (ZeroDivisionError, TypeError, ValueError):
            raise SingularMapError(f"{what} is singular at this state") from None
        return [x[i] for i in range(n)]


# -- the keys of a value mapping ------------------------------------------------------------------
def resolve_keys(values: Mapping | None, known: Iterable[sp.Symbol], *, what: str = "values") -> dict:
    """``{symbol: value}`` from a user's value mapping keyed by names or symbols: geonh's one
    rule for the keys of every value mapping (parameters, states, operating points).  The
    values are returned untouched; ``known`` are the symbols the mapping may name.

    * a symbol of ``known`` stands for itself;
    * a name (``str``) stands for the known symbol of that name;
    * a ``Symbol`` that is not known but whose name is — it differs only in its assumptions,
      e.g. a plain ``Symbol("m")`` for geonh's ``m`` (positive) — stands for that symbol: a
      value must never be dropped because the user's symbol was declared differently;
    * a name shared by known symbols of different assumptions must be given as the exact
      symbol (the mapping would be ambiguous);
    * any other key is refused with :class:`UnknownCoordinateError` naming it and the closest
      known names; so is a symbol named twice with different values.
    """
    import difflib

    if values is None:
        return {}
    if not isinstance(values, Mapping):
        raise UnknownCoordinateError(f"{what} must be a mapping {{symbol or name: value}}, "
                                     f"not {type(values).__name__}")
    known = [s for s in as_sequence(known, "known symbols") if isinstance(s, sp.Symbol)]
    known_set = set(known)
    by_name: dict[str, list] = {}
    for s in known:
        if s not in by_name.setdefault(s.name, []):
            by_name[s.name].append(s)
    out: dict = {}
    given: dict = {}
    for key, val in values.items():
        if isinstance(key, sp.Symbol) and key in known_set:
            sym = key
        elif isinstance(key, (str, sp.Symbol)):
            name = key if isinstance(key, str) else key.name
            cands = by_name.get(name, [])
            if len(cands) > 1:
                raise UnknownCoordinateError(
                    f"{what}: the name {name!r} is ambiguous: it names {len(cands)} symbols that differ "
                    f"in their assumptions ({', '.join(str(c.assumptions0) for c in cands)}); key the "
                    "value by the exact symbol")
            if not cands:
                close = difflib.get_close_matches(name, sorted(by_name), n=3, cutoff=0.6)
                hint = f"; did you mean {' or '.join(repr(c) for c in close)}?" if close else ""
                raise UnknownCoordinateError(
                    f"{what}: {key!r} names nothing here (known names: "
                    f"{', '.join(sorted(by_name)) or 'none'}){hint}")
            sym = cands[0]
        else:
            raise UnknownCoordinateError(f"{what}: the key {key!r} ({type(key).__name__}) is not a name or "
                                         "a sympy Symbol")
        if sym in out and not _same_value(out[sym], val):
            raise UnknownCoordinateError(f"{what}: {sym} is given twice with different values "
                                         f"({given[sym]!r}: {out[sym]!r} and {key!r}: {val!r})")
        out[sym] = val
        given[sym] = key
    return out


def _same_value(a, b) -> bool:
    try:
        return bool(a == b)
    except Exception:  # e.g. numpy arrays: equal only if they are the same object
        return a is b


def symbols_in(exprs: Iterable, memo: dict | None = None) -> set:
    """The free symbols of ``exprs``, one visit per distinct subexpression (sympy's
    ``free_symbols`` walks the whole tree: 1.4 s on the Whipple bicycle's equations, against
    20 ms here); ``memo`` may be shared between calls."""
    memo = {} if memo is None else as_mapping(memo, "memo")
    out: set = set()
    for expr in as_sequence(exprs, "expressions"):
        expr = expr_of(expr, what="expression")
        if expr not in memo:
            stack = [(expr, False)]
            while stack:
                e, ready = stack.pop()
                if e in memo:
                    continue
                if e.is_Symbol:
                    memo[e] = frozenset((e,))
                elif not e.args:
                    memo[e] = frozenset()
                elif not ready:
                    stack.append((e, True))
                    stack.extend((a, False) for a in e.args if a not in memo)
                else:
                    memo[e] = frozenset().union(*(memo[a] for a in e.args))
        out |= memo[expr]
    return out


#: the sign and number-kind assumptions :func:`check_assumptions` enforces, in the order they are
#: checked ("real" first: the order comparisons below need a real number), with the rule shown
_DOMAIN_RULES: tuple = (
    ("real", "a real number", lambda z: z.imag == 0),
    ("integer", "an integer", lambda z: float(z.real).is_integer()),
    ("even", "an even integer", lambda z: float(z.real).is_integer() and z.real % 2 == 0),
    ("odd", "an odd integer", lambda z: float(z.real).is_integer() and z.real % 2 == 1),
    ("positive", "> 0", lambda z: z.real > 0),
    ("negative", "< 0", lambda z: z.real < 0),
    ("nonnegative", ">= 0", lambda z: z.real >= 0),
    ("nonpositive", "<= 0", lambda z: z.real <= 0),
    ("nonzero", "!= 0", lambda z: z.real != 0),
)


def check_assumptions(symbol, value, what: str = "parameter") -> None:
    """Refuse ``value`` for ``symbol`` if it violates an assumption the symbol carries (sympy's
    ``positive``, ``negative``, ``nonnegative``, ``nonpositive``, ``nonzero``, ``integer``,
    ``even``, ``odd``, ``real``, and what they imply): :class:`InconsistentStateError` naming
    the symbol, the value and the rule.

    Why: every decision geonh makes symbolically (a mass matrix positive definite, a square
    root taken as positive, a division by m) relies on these assumptions; a number outside
    the declared domain would give numbers for equations that do not hold there, a silent
    wrong answer.  Values that are not numbers (an expression in t, q, u such as a forcing
    sin(t)) and non-symbols are not checked here."""
    if not isinstance(symbol, sp.Symbol) or isinstance(value, bool):
        return
    if isinstance(value, sp.Basic) and (value.free_symbols or not value.is_number):
        return
    try:
        z = complex(value)
    except (TypeError, ValueError, OverflowError):
        return
    if z != z or abs(z) == float("inf"):  # not finite: the callers refuse it with their own message
        return
    for prop, rule, ok in _DOMAIN_RULES:
        if getattr(symbol, f"is_{prop}") is True and not ok(z):
            shown = z.real if z.imag == 0 else z
            declared = getattr(symbol, "_assumptions_orig", None) or {prop: True}
            decl = ", ".join(k if v else f"{k}=False" for k, v in declared.items())
            raise InconsistentStateError(
                f"{what} {symbol.name} = {shown:g} is outside the domain of {symbol.name} (declared {decl}): "
                f"the value must be {rule}; give another value, or declare {symbol.name} without that "
                "assumption")


def short_repr(value, limit: int = 60) -> str:
    """``repr(value)`` for an error message: cut to ``limit`` characters, and a described
    stand-in for a value whose repr fails (an int of more than 4300 digits, which Python
    refuses to convert to a string): a message must never fail to be built."""
    try:
        text = repr(value)
    except (ValueError, OverflowError, RecursionError):
        return f"<a {type(value).__name__} too large to print>"
    return text if len(text) <= limit else text[:limit - 3] + "..."
