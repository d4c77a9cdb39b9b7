"""Values at a point: geonh's one way to evaluate an expression at given numbers.

A value is exact (a sympy ``Rational``) when every number involved is rational and no
function needs evaluating; otherwise it is an mpmath number with PRECISION decimal digits
(BITS bits): the working precision, one setting (:func:`precision`, :func:`bits`;
:func:`set_precision` and :func:`working_precision` change it; ``evaluation.PRECISION`` reads
it) that every module reads when it computes.  :func:`value_at` is the one entry point:

* ``value_at(expr, values)`` raises where the expression has no value (``MissingValueError`` naming
  the symbols without a number, :class:`SingularMapError` where it is singular or infinite);
* ``strict=False`` returns ``None`` there instead (the generic-point decisions skip such points);
* ``tree=True`` evaluates large expressions with functions at fixed precision: by symengine's
  MPFR evaluation (:func:`native_values`) where symengine takes the expression, else by
  :func:`tree_eval` (one pass over the distinct subexpressions); both are far faster than
  sympy's adaptive ``evalf``.  The generic-point decisions use it, the values geonh reports
  do not.

:func:`real_value` is the variant for states: a real sympy number or ``None``;
:func:`values_at` evaluates many expressions at one point in one call (a matrix at a sample
point: symengine's MPFR where it takes them), :func:`term_scale` gives the size of an
expression's terms there (the scale of its round-off).
:func:`to_mp` and :func:`to_sympy` convert between the two number worlds (a sympy ``Float``
made here has PRECISION digits, never 15).  Random points are drawn by
:mod:`geonh.kernel.sampling`, linear algebra on the values is :mod:`geonh.kernel.linalg`.
:func:`check_assumptions` refuses a number outside the domain its symbol declares (a
parameter declared positive given −2): :func:`geonh.simulate`, :meth:`geonh.Equations.ode_function`,
:func:`geonh.numerics.sweep` and :meth:`geonh.Equations.linearize` call it on every value;
:func:`short_repr` shows a value in an error message.

This module sits at the bottom of the kernel: it imports nothing else from geonh but the
errors and the input boundary (:mod:`geonh.kernel.parsing`), and
:mod:`geonh.kernel.generic_point` builds its decisions on it.  It only evaluates: every
verdict (zero, rank, regularity, definiteness) is taken in :mod:`~geonh.kernel.generic_point`.
"""
from __future__ import annotations

from contextlib import contextmanager
from typing import Callable, Iterable, Mapping, Sequence

import mpmath
import sympy as sp

from ..moved import package_getattr
from ..errors import InconsistentStateError, MissingValueError, ParseError, SingularMapError, UnknownCoordinateError
from .elementary import MP_VALUES
from .parsing import as_mapping, as_sequence, as_values, expr_of

__all__ = ["PRECISION", "BITS", "precision", "bits", "state_tolerance", "set_precision", "working_precision", "value_at", "values_at",
           "term_scale", "native_values", "is_big", "real_value", "to_mp", "to_sympy", "tree_eval", "postorder",
           "resolve_keys", "symbols_in", "check_assumptions", "short_repr"]

#: the working precision's default: decimal digits of every non-exact value (and of the
#: generic-point decisions)
DEFAULT_PRECISION = 60
#: the bounds :func:`set_precision` accepts: below 30 digits the round-off tolerance
#: 10^-(digits/2) of the zero and rank verdicts comes within reach of double-precision data
PRECISION_RANGE = (30, 2000)
_digits = DEFAULT_PRECISION


def precision() -> int:
    """The working precision: decimal digits of every non-exact value and of the generic-point
    decisions (round-off below 10^-(digits/2) is zero).  One setting, read where it is used:
    every geonh module asks this function (or reads ``evaluation.PRECISION``) at the moment
    it computes, so :func:`set_precision` reaches all of them."""
    return _digits


def state_tolerance() -> sp.Float:
    """10^-(precision/3): the size below which a value computed at a state (at the working
    precision, possibly after cancellation) counts as zero."""
    return sp.Float(10) ** (-(_digits // 3))


def bits() -> int:
    """The binary precision matching :func:`precision` decimal digits (with guard bits)."""
    return int(_digits * 3.33) + 8


def set_precision(digits: int) -> int:
    """Make ``digits`` the working precision of the process (every value, every verdict
    computed from now on); returns the previous one.  An integer within
    :data:`PRECISION_RANGE`, else :class:`~geonh.errors.ParseError`.  Scoped use:
    :func:`working_precision`."""
    global _digits
    if isinstance(digits, bool) or not isinstance(digits, int) or \
            not PRECISION_RANGE[0] <= digits <= PRECISION_RANGE[1]:
        raise ParseError(f"the working precision is a whole number of decimal digits in "
                         f"{PRECISION_RANGE[0]} … {PRECISION_RANGE[1]}, not {short_repr(digits)}")
    old, _digits = _digits, digits
    return old


@contextmanager
def working_precision(digits: int):
    """``with working_precision(100): ...`` computes the block at ``digits`` decimal digits
    and restores the previous precision afterwards (also on error)."""
    old = set_precision(digits)
    try:
        yield digits
    finally:
        set_precision(old)


def __getattr__(name: str):
    """``PRECISION`` and ``BITS`` as module attributes that follow :func:`set_precision`
    (a module attribute read at use; ``from … import PRECISION`` would freeze a copy)."""
    if name == "PRECISION":
        return _digits
    if name == "BITS":
        return bits()
    return package_getattr(__name__)(name)   # a name that moved names its new home

_SINGULAR = (sp.zoo, sp.nan, sp.oo, -sp.oo)


def to_mp(x):
    """A number (sympy Rational/Float/number expression, or mpmath) as an mpmath number at
    PRECISION digits (a sympy number through :func:`value_at`)."""
    if isinstance(x, sp.Basic):
        if x.is_Rational:
            with mpmath.workdps(precision()):
                return mpmath.mpf(x.p) / x.q
        return value_at(x)
    return x


def to_sympy(x) -> sp.Expr:
    """A number as a sympy value (Rational stays exact, mpmath becomes a PRECISION-digit Float)."""
    if isinstance(x, sp.Basic):
        return x
    if isinstance(x, mpmath.mpc):
        return sp.Float(x.real, precision()) + sp.I * sp.Float(x.imag, precision())
    if isinstance(x, (mpmath.mpf, float, int)) and not isinstance(x, bool):
        return sp.Float(x, precision())
    return expr_of(x, what="to_sympy")


# -- fixed-precision evaluation of large trees --------------------------------------------------


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
        if e.func in MP_VALUES and len(args) == 1:
            return MP_VALUES[e.func](args[0])
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
    return _native_values(as_sequence(natives, "native_values natives"), as_values(values, what="native_values values"))


def _native_values(natives: Sequence, values: dict) -> list:
    """:func:`native_values` at checked ``values`` (sympy objects, as :func:`as_values` gives)."""
    import symengine as se
    sub = {}
    for k, v in values.items():
        if not v.is_Rational:
            raise ParseError("symengine route: rational point values only")
        sub[se.sympify(k)] = se.Rational(int(v.p), int(v.q))
    out: list = []
    with mpmath.workdps(precision()):
        for n in natives:
            try:
                v = n.xreplace(sub) if n.free_symbols else n
                if v.is_Rational:
                    out.append(sp.Integer(int(v)) if v.is_Integer else sp.Rational(int(v.p), int(v.q)))
                    continue
                mv = mpmath.mpf(str(v.n(bits(), real=True)))
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
    return _is_big(expr_of(expr, what="is_big"), limit)


def _is_big(expr: sp.Expr, limit: int = 150) -> bool:
    for k, _ in enumerate(sp.preorder_traversal(expr)):
        if k > limit:
            return True
    return False


def _tree_value(expr: sp.Expr, point: Mapping):
    """:func:`tree_eval` at PRECISION digits; None where it is singular or not finite."""
    with mpmath.workdps(precision()):
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
    return _value_at(expr, values, strict, tree)


def _value_at(expr: sp.Expr, values: dict, strict: bool, tree: bool):
    """:func:`value_at` of a sympy expression at checked ``values`` (the callers have checked both)."""
    if expr.is_Rational:
        return expr
    if tree and expr.has(sp.Function) and _is_big(expr) and all(s in values for s in expr.free_symbols):
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
        f = None if v.has(*_SINGULAR) else v.evalf(precision())
    except (ZeroDivisionError, ValueError) as exc:
        if strict:
            raise SingularMapError(f"expression cannot be evaluated at the given state: {expr}") from exc
        return None
    if f is None or f.has(*_SINGULAR) or not f.is_number:
        if strict:
            raise SingularMapError(f"expression singular at the given state: {expr}")
        return None
    with mpmath.workdps(precision()):
        return f._to_mpmath(bits())


def real_value(expr: sp.Expr, values: Mapping | None = None) -> sp.Expr | None:
    """:func:`value_at` for states: the real value as a sympy number (an exact ``Rational``
    or a PRECISION-digit ``Float``, ready to go back into a state), ``None`` where the
    expression is singular, lacks a value or is not real (an imaginary part above
    10^-(PRECISION/2) relative to the real part)."""
    v = value_at(expr, values, strict=False)
    if v is None or isinstance(v, sp.Basic):
        return v
    if isinstance(v, mpmath.mpc):
        with mpmath.workdps(precision()):
            if abs(v.imag) > mpmath.mpf(10) ** (-(precision() // 2)) * max(1, abs(v.real)):
                return None
        v = v.real
    return sp.Float(v, precision())


def values_at(exprs, point: Mapping, natives: Sequence | None = None) -> list:
    """Values of many expressions at one point, in one call: a list with an exact ``Rational``
    or an mpmath number (working precision) per expression, ``None`` where it has no finite
    value there (singular, missing a value) — :func:`value_at` with ``strict=False,
    tree=True`` for each, the point checked once.

    ``natives``, the symengine images of the expressions (same order), are evaluated first by
    :func:`native_values` (MPFR, several times faster on large trees); an entry symengine
    cannot evaluate, and every entry when the point is not rational, goes through
    :func:`value_at`.  ``exprs`` is a sequence of sympy expressions or a function k → the
    k-th one (asked only for the entries symengine leaves: a caller holding symengine
    expressions converts only those)."""
    values = as_values(point, what="values_at point")
    if natives is not None:
        natives = as_sequence(natives, "values_at natives")
        if not all((type(e).__module__ or "").startswith("symengine") for e in natives):
            raise ParseError("values_at: natives are symengine expressions (the images of exprs)")
    if callable(exprs) and not isinstance(exprs, sp.Basic):
        if natives is None:
            raise ParseError("values_at: a function k → expression needs natives (it gives their sympy images)")
        get = exprs
    else:
        seq = as_sequence(exprs, "values_at expressions")
        if natives is not None and len(natives) != len(seq):
            raise ParseError(f"values_at: {len(natives)} natives for {len(seq)} expressions")
        get = seq.__getitem__
        if natives is None:
            return [_value_at(expr_of(e, what="expression"), values, False, True) for e in seq]
    if natives is not None:
        try:
            vals = _native_values(natives, values)
        except Exception:  # noqa: BLE001 - a point value symengine cannot take: the sympy route
            vals = None
        if vals is not None:
            return [v if v is not None else _value_at(expr_of(get(k), what="expression"), values, False, True)
                    for k, v in enumerate(vals)]
    return [_value_at(expr_of(get(k), what="expression"), values, False, True) for k in range(len(natives))]


def term_scale(expr: sp.Expr, point: Mapping) -> float:
    """The size of ``expr``'s terms at ``point``: Σ |t| over its first 64 terms t (those with a
    value there), at least 1; 1 for a single term.  The scale against which a value is
    round-off (a sum of large terms that cancel leaves residues of their size times
    10^-precision)."""
    return _term_scale(expr_of(expr, what="term_scale"), as_values(point, what="term_scale point"))


def _term_scale(expr: sp.Expr, values: dict) -> float:
    """:func:`term_scale` of a sympy expression at checked ``values``."""
    terms = sp.Add.make_args(expr)
    if len(terms) == 1:
        return 1.0
    tot = 0.0
    for t in terms[:64]:
        v = _value_at(t, values, False, True)
        if v is None:
            continue
        tot += float(abs(v))
    return max(1.0, tot)


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
