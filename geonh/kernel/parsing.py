"""Safe conversion of user input to sympy expressions: no string ever reaches ``eval``.

sympy's ``sympify`` and ``parse_expr`` evaluate strings as Python code.  geonh never calls them
on a string.  A string is parsed by Python's ``ast`` module (which only *reads* the text) and
the tree is rebuilt as a sympy expression node by node from an allow-list:

* numbers (integers become ``Integer``; decimals become ``Rational`` of the decimal text, so
  ``"0.1"`` is exactly 1/10);
* names — the symbols of the given space (coordinates, velocities, accelerations, time) or of
  ``symbols``, otherwise a new real ``Symbol`` with that name (a parameter); names with a
  leading underscore are refused;
* ``+ - * / **`` and unary ``+ -``;
* calls of the functions in :data:`FUNCTIONS` (sin, cos, exp, sqrt, …) with positional
  arguments; the constants ``pi`` and ``E``.

Anything else — attribute access, subscripts, lambdas, comprehensions, keyword arguments,
comparisons, calls of other names — is refused with :class:`~geonh.errors.ParseError`.
Python booleans and ``None`` are refused too (``True`` is the integer 1 to sympy, a classic
silent error).

sympy input passes through :func:`as_expr` after three checks: it is an expression (or an
``Eq``; inequalities, logic and matrices are refused), it is finite (no ``oo``, ``zoo``,
``nan``), and none of its symbols *looks like* one of ``symbols`` without being it — a plain
``Symbol("x")`` where the space's coordinate is the real ``x``, or a user's ``Symbol("x_dot")``
next to the space's velocity, would otherwise be a silent extra parameter; such input raises
:class:`~geonh.errors.SpaceMismatchError` naming the symbol.

:func:`parse_condition` reads a parameter condition such as ``"J > J0"`` (one comparison
``<``, ``<=``, ``>``, ``>=`` of two formulas) into a sympy relational.

**One boundary.**  Every public callable of geonh that takes an expression, a value or a
mapping of values converts it here: :func:`as_expr` (checked, for the inputs of geonh's
objects), :func:`sympy_of` (the cheap conversion that replaces ``sympy.sympify`` everywhere in
geonh: sympy objects pass unchanged, numbers become sympy numbers, a string is *parsed*, and
anything else is refused), :func:`as_exprs`, :func:`as_symbols`, :func:`as_values` and
:func:`as_matrix` for sequences, symbols, {symbol: value} mappings and matrices.  Nothing in
geonh calls ``sympify`` (or ``Matrix``/``subs``/``sin`` …, which call it) on a string;
``tests/test_boundary.py`` feeds code to every public callable and proves nothing runs.

**Limits.**  The work one input can cause is bounded (:class:`Limits`): the length of a string,
the nesting depth and the number of nodes of a formula or of a sympy expression, the digits of
every number — a literal (``10**...`` written out, a decimal such as ``1e999999``) and the
result of every operation, estimated *before* it is computed (``(9**999)**999`` is refused
without being computed) — and the size of an integer exponent.  Beyond a limit geonh raises
:class:`~geonh.errors.LimitError` (a ``ParseError``) naming the limit; raise it for a block of
code with ``with geonh.limits(digits=5000): ...``.  A ``RecursionError`` or ``MemoryError``
while parsing becomes a ``LimitError`` too.
"""
from __future__ import annotations

import ast
import contextvars
import io
import keyword
import math
import numbers
import re
import sys
import tokenize
from contextlib import contextmanager
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any, Callable, Iterable, Iterator, Mapping, TypeVar, cast, overload

import sympy as sp

from ..errors import GeonhError, LimitError, ParseError, SpaceMismatchError, UnknownCoordinateError
from . import roles
from .elementary import PARSE_FUNCTIONS

__all__ = ["FUNCTIONS", "Limits", "as_expr", "as_exprs", "as_float", "as_floats", "as_mapping", "as_matrix",
           "as_names", "as_sequence", "as_substitution", "as_symbols", "as_values", "brief", "check_lookalikes",
           "check_size", "current_limits", "expr_of", "limits", "parse", "parse_condition", "sympy_of"]

#: the functions a string may call (name → sympy function), read off the one table of
#: elementary functions (:mod:`geonh.kernel.elementary`)
FUNCTIONS: dict[str, Callable[..., Any]] = dict(PARSE_FUNCTIONS)
_CONSTANTS = {"pi": sp.pi, "E": sp.E}


# -- limits --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Limits:
    """The bounds on the work one input may cause (see the module docstring).

    ``length``: characters of a formula string.  ``depth``: nesting of a formula (parentheses,
    calls, powers; a sum or product of many terms counts once) and of a sympy expression's tree.
    ``nodes``: nodes of a formula, and distinct subexpressions of a sympy expression.
    ``digits``: decimal digits of any integer, numerator or denominator — of a literal, of the
    result of each operation while parsing, and of the numbers in a sympy expression (also the
    argument of a combinatorial function such as ``factorial``, and the precision of a Float).
    ``exponent``: the size of a numeric exponent."""

    length: int = 20_000
    depth: int = 100
    nodes: int = 20_000
    digits: int = 1_000
    exponent: int = 1_000


_LIMITS: contextvars.ContextVar[Limits] = contextvars.ContextVar("geonh_limits", default=Limits())


def current_limits() -> Limits:
    """The limits in force (``geonh.limits`` changes them for a block)."""
    return _LIMITS.get()


@contextmanager
def limits(**bounds: int) -> Iterator[Limits]:
    """Raise (or lower) geonh's input limits for the block: ``with geonh.limits(digits=5000,
    nodes=100_000): ...``.  Keywords are the fields of :class:`Limits` (positive integers);
    the previous limits return when the block ends (per thread and task: a context variable)."""
    for k, v in bounds.items():
        if k not in Limits.__dataclass_fields__:
            raise ParseError(f"geonh.limits: unknown limit {k!r}; limits: {', '.join(Limits.__dataclass_fields__)}")
        if isinstance(v, bool) or not isinstance(v, int) or v < 1:
            raise ParseError(f"geonh.limits: {k} must be a positive integer, not {v!r}")
    token = _LIMITS.set(replace(_LIMITS.get(), **bounds))
    try:
        yield _LIMITS.get()
    finally:
        _LIMITS.reset(token)


#: the longest formula whose parse is retried with a raised recursion limit (the default
#: length limit: a sum of 10,000 terms)
_RETRY_LENGTH = 20_000


def _ast_parse(text: str) -> ast.Expression:
    """``ast.parse`` of a formula.  Python's parser builds a chain of n binary operations
    (a sum of n terms) n levels deep and, past the interpreter's recursion limit (about 2,900
    terms), raises RecursionError; the string's length limit bounds n, so a retry with the
    limit raised to cover that length is bounded too (the limit is process-wide: it is
    restored at once, and a parse in another thread that meets the restored limit fails with
    a clear LimitError, never a crash)."""
    try:
        return ast.parse(text, mode="eval")
    except RecursionError:
        if len(text) > _RETRY_LENGTH:    # deeper recursion would risk the C stack: refuse
            raise
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old, 2 * len(text) + 1_000))
    try:
        return ast.parse(text, mode="eval")
    finally:
        sys.setrecursionlimit(old)


def _joined(text: str) -> str | None:
    """A formula spread over lines, in parentheses: inside brackets Python reads line breaks
    and indentation as whitespace (implicit line joining, The Python Language Reference §2.1.6),
    and a ``#`` comment ends at its line.  ``None`` if the added parentheses do not enclose the
    whole formula (``a) + (b`` would pair them with its own), which is then no formula."""
    joined = "(" + text + "\n)"
    depth, closed = 0, 0
    try:
        for tok in tokenize.generate_tokens(io.StringIO(joined).readline):
            if tok.type == tokenize.OP and tok.string in "([{":
                depth += 1
            elif tok.type == tokenize.OP and tok.string in ")]}":
                depth -= 1
                closed += depth == 0
    except (tokenize.TokenError, SyntaxError):  # unbalanced: the parse reports it
        return joined
    return joined if closed <= 1 else None


def _limit_error(what: str, problem: str, name: str) -> LimitError:
    value = getattr(_LIMITS.get(), name)
    kind = "too deep" if name == "depth" else "too large"
    return LimitError(f"{what}: input {kind}: {problem} (limit {name}={value}); if the input is meant, raise the limit "
                      f"for the computation with `with geonh.limits({name}=...):`")


_LOG10_2 = math.log10(2)


def _int_digits(n: int) -> float:
    """log10 |n| (its number of digits, less one), without converting n to a string."""
    return math.log10(abs(n)) if n else 0.0


def _rational_digits(r) -> float:
    return max(_int_digits(int(r.p)), _int_digits(int(r.q)))


def _show_number(r) -> str:
    """A number for a message: itself if short, else its size (str() of a huge integer is slow,
    and refused beyond 4300 digits)."""
    d = _rational_digits(r) if isinstance(r, sp.Rational) else 0.0
    return str(r) if d < 40 else f"a number of about {int(d) + 1} digits"


# -- formulas ------------------------------------------------------------------------------------
_COMPARE = {ast.Lt: sp.StrictLessThan, ast.LtE: sp.LessThan, ast.Gt: sp.StrictGreaterThan,
            ast.GtE: sp.GreaterThan}
_NON_FINITE = (sp.S.Infinity, sp.S.NegativeInfinity, sp.S.ComplexInfinity, sp.S.NaN)
_DECIMAL = re.compile(r"(\d*)\.?(\d*)(?:[eE]([+-]?\d+))?")


def parse(text: str, symbols: Iterable[sp.Symbol] = (), *, what: str = "expression") -> sp.Expr:
    """Parse ``text`` into a sympy expression over ``symbols`` (module docstring for what is
    allowed).  Raises :class:`ParseError` naming ``what`` and the offending construct, and
    :class:`~geonh.errors.LimitError` beyond a limit (:class:`Limits`)."""
    return _parse(text, symbols, what, compare=False)


def parse_condition(text: str, symbols: Iterable[sp.Symbol] = (), *, what: str = "condition") -> sp.Basic:
    """Parse a condition ``"lhs OP rhs"`` with OP one of ``< <= > >=`` (e.g. ``"J > J0"``)
    into a sympy relational over ``symbols``; formulas on both sides as in :func:`parse`."""
    if not isinstance(text, str):
        raise ParseError(f"{what}: {text!r} is not a string")
    return _parse(text, symbols, what, compare=True)


def _parse(text: str, symbols: Iterable[sp.Symbol], what: str, compare: bool):
    if not isinstance(text, str):
        raise ParseError(f"{what}: {type(text).__name__} {text!r:.80} is not a string")
    lim = _LIMITS.get()
    if len(text) > lim.length:
        raise _limit_error(what, f"the string has {len(text)} characters", "length")
    text = text.strip()
    too_deep = (f"{what}: the formula is nested more deeply than Python's parser allows (e.g. a sum of "
                "thousands of terms, or hundreds of nested parentheses); build so large an expression "
                "in sympy and pass the sympy object")
    if "\n" in text or "\r" in text:   # a formula over several lines (a TOML """...""" string)
        joined = _joined(text)
        if joined is None:
            raise ParseError(f"{what}: {text!r:.200} is not a formula (unmatched ')')")
    else:
        joined = text
    try:
        tree = _ast_parse(joined)
    except SyntaxError as e:
        if "too many nested" in str(e.msg):
            raise LimitError(too_deep) from None
        if "Exceeds the limit" in str(e.msg):  # Python's own cap on the digits of an integer literal
            raise _limit_error(what, f"an integer literal is too long ({e.msg})", "digits") from None
        raise ParseError(f"{what}: {text!r:.200} is not a formula ({e.msg})") from None
    except (RecursionError, MemoryError):
        raise LimitError(too_deep) from None
    count = 0
    for _ in ast.walk(tree):
        count += 1
        if count > lim.nodes:
            raise _limit_error(what, f"the formula has more than {lim.nodes} nodes", "nodes")
    builder = _Builder(text, _name_map(symbols), what, lim, source=joined)
    try:
        body = tree.body
        if compare:
            if not isinstance(body, ast.Compare):
                raise ParseError(f"{what}: {text!r:.200} is not a comparison (e.g. 'J > J0')")
            if len(body.ops) != 1 or type(body.ops[0]) not in _COMPARE:
                raise ParseError(f"{what}: use one comparison <, <=, > or >= (e.g. 'J > J0')")
            left, right = builder.build(body.left, 1)[0], builder.build(body.comparators[0], 1)[0]
            return builder.apply(lambda: _COMPARE[type(body.ops[0])](left, right))
        return builder.build(body, 1)[0]
    except GeonhError:
        raise
    except (RecursionError, MemoryError):
        raise _limit_error(what, "the formula is nested too deeply", "depth") from None


class _Builder:
    """Rebuilds an ``ast`` tree as a sympy expression, node by node from the allow-list, with
    an upper bound of log10 of the largest number in each subexpression (``size``) carried
    along: an operation whose result could exceed ``digits`` is refused before sympy computes
    it.  Chains of ``+ -`` and of ``* /`` are built in one step (``Add``/``Mul`` of all the
    terms: no recursion, no quadratic rebuilding), chains of unary signs too."""

    def __init__(self, text: str, known: dict, what: str, lim: Limits, source: str | None = None):
        # text: the formula as given (for messages); source: the text parsed (the node offsets')
        self.text, self.known, self.what, self.lim = text, known, what, lim
        self.source = text if source is None else source

    def apply(self, op):
        """Run one sympy operation; its arithmetic errors become ParseError."""
        try:
            return op()
        except GeonhError:
            raise
        except (ArithmeticError, ValueError, TypeError) as e:
            raise ParseError(f"{self.what}: {self.text!r:.200} cannot be evaluated ({type(e).__name__}: {e})") from None

    def sized(self, size: float) -> float:
        if size > self.lim.digits:
            raise _limit_error(self.what, f"a number in {self.text!r:.80} would have about {int(size) + 1} digits",
                               "digits")
        return size

    def exponents(self, e) -> sp.Expr:
        """``e`` (a product) unless a factor's exponent grew beyond the limit: x*x*…*x is x**n."""
        for a in sp.Mul.make_args(e):
            if a.is_Pow and a.exp.is_Rational and abs(a.exp.p) > self.lim.exponent:
                raise _limit_error(self.what, f"the product {self.text!r:.60} has the exponent {_show_number(a.exp)}",
                                   "exponent")
        return e

    def checked(self, e) -> sp.Expr:
        if isinstance(e, sp.Rational):
            self.sized(_rational_digits(e))
        return e

    def build(self, node: ast.AST, depth: int) -> tuple[sp.Expr, float]:
        what = self.what
        if depth > self.lim.depth:
            raise _limit_error(what, f"{self.text!r:.80} is nested more than {self.lim.depth} deep", "depth")
        if isinstance(node, ast.Constant):
            return self.constant(node)
        if isinstance(node, ast.Name):
            return self.name(node.id), 0.0
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub)):
            parts = self.chain(node, (ast.Add, ast.Sub), depth)
            terms = [v if isinstance(op, ast.Add) else -v for op, (v, _) in parts]
            size = self.sized(max(s for _, (_, s) in parts) + math.log10(len(parts)))
            return self.checked(self.apply(lambda: sp.Add(*terms))), size
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Mult, ast.Div)):
            parts = self.chain(node, (ast.Mult, ast.Div), depth)
            size = self.sized(sum(s for _, (_, s) in parts))
            factors = [v if isinstance(op, ast.Mult) else sp.Pow(v, -1) for op, (v, _) in parts]
            return self.exponents(self.checked(self.apply(lambda: sp.Mul(*factors)))), size
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow):
            return self.power(node, depth)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.UAdd, ast.USub)):
            negative = False
            while isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.UAdd, ast.USub)):
                negative ^= isinstance(node.op, ast.USub)
                node = node.operand
            v, size = self.build(node, depth + 1)
            return (self.apply(lambda: -v) if negative else v), size
        if isinstance(node, ast.Call):
            if not isinstance(node.func, ast.Name) or node.func.id not in FUNCTIONS:
                fn = (node.func.id if isinstance(node.func, ast.Name)
                      else (ast.get_source_segment(self.source, node.func) or type(node.func).__name__)[:60])
                raise ParseError(f"{what}: calling {fn!r} is not allowed; allowed functions: "
                                 f"{', '.join(sorted(FUNCTIONS))}")
            if node.keywords:
                raise ParseError(f"{what}: keyword arguments are not allowed in {node.func.id}(...)")
            args = [self.build(a, depth + 1) for a in node.args]
            size = self.sized(max((s for _, s in args), default=0.0) + 1)
            f = FUNCTIONS[node.func.id]
            return self.checked(self.apply(lambda: f(*[a for a, _ in args]))), size
        raise ParseError(f"{what}: {type(node).__name__} is not allowed in a formula "
                         f"(only numbers, names, + - * / ** and {', '.join(sorted(FUNCTIONS))})")

    def chain(self, node: ast.AST, ops: tuple, depth: int) -> list:
        """[(op, (value, size))] of a left-nested chain a op b op c ...: the first with ``ops[0]``."""
        rights: list[tuple[ast.operator, ast.AST]] = []
        while isinstance(node, ast.BinOp) and isinstance(node.op, ops):
            rights.append((node.op, node.right))
            node = node.left
        rights.append((ops[0](), node))
        return [(op, self.build(n, depth + 1)) for op, n in reversed(rights)]

    def power(self, node: ast.BinOp, depth: int) -> tuple[sp.Expr, float]:
        base, sb = self.build(node.left, depth + 1)
        exp, sx = self.build(node.right, depth + 1)
        if exp.is_Rational and abs(exp.p) > self.lim.exponent:
            raise _limit_error(self.what, f"the exponent {_show_number(exp)} is too large", "exponent")
        if exp.is_Rational:
            size = sb * abs(int(exp.p)) + (0.0 if exp.is_Integer else sx)
        else:
            size = sb + sx
        self.sized(size)
        return self.checked(self.apply(lambda: sp.Pow(base, exp))), size

    def constant(self, node: ast.Constant) -> tuple[sp.Expr, float]:
        v, what = node.value, self.what
        if isinstance(v, bool) or v is None:
            raise ParseError(f"{what}: {v!r} is not a number")
        if isinstance(v, int):
            size = self.sized(_int_digits(v))
            return sp.Integer(v), size
        if isinstance(v, float):
            seg = (ast.get_source_segment(self.source, node) or repr(v)).replace("_", "")
            m = _DECIMAL.fullmatch(seg)
            if m is None:
                raise ParseError(f"{what}: {seg!r} is not a decimal number")
            mantissa = (m.group(1) + m.group(2)).lstrip("0")
            shift = int(m.group(3) or 0) - len(m.group(2))
            size = self.sized(len(mantissa) + abs(shift) if mantissa else 0.0)
            return self.apply(lambda: sp.Rational(seg)), size
        raise ParseError(f"{what}: constant {v!r:.40} is not a number")

    def name(self, name: str) -> sp.Expr:
        what = self.what
        if name.startswith("_"):
            raise ParseError(f"{what}: the name {name!r} is not allowed (leading underscore)")
        if name in self.known:
            return self.known[name]
        if name in _CONSTANTS:
            return _CONSTANTS[name]
        if name in FUNCTIONS:
            raise ParseError(f"{what}: the function {name!r} is used without arguments")
        return sp.Symbol(name, real=True)


def _name_map(symbols) -> dict:
    """{name: symbol} of ``symbols`` (an iterable of sympy Symbols; anything else is refused
    with ParseError), cached for the tuples geonh passes over and over."""
    if type(symbols) is tuple:
        ids = tuple(map(id, symbols))
        hit = _NAME_MAPS_BY_ID.get(ids)
        if hit is not None:
            return hit[1]
    if isinstance(symbols, (str, bytes, Mapping)) or not hasattr(symbols, "__iter__"):
        raise ParseError(f"symbols must be a sequence of sympy Symbols, not {brief(symbols)}")
    symbols = tuple(symbols)
    try:
        out = _cached_name_map(symbols)
    except TypeError:
        raise ParseError("symbols must be sympy Symbols (hashable)") from None
    if len(_NAME_MAPS_BY_ID) >= 256:
        _NAME_MAPS_BY_ID.clear()
    _NAME_MAPS_BY_ID[tuple(map(id, symbols))] = (symbols, out)
    return out


#: the name maps of the symbol tuples asked for last, keyed by the identities of the symbols
#: (the symbols are kept with the map, so no id is reused while its entry is here): the
#: lru_cache below finds a tuple of equal but not identical symbols (a space built again after
#: sympy's cache was cleared) only after comparing every symbol with sympy's ``__eq__``, once
#: per expression checked — the bulk of a frame's input checks (issue 22, fixed costs)
_NAME_MAPS_BY_ID: dict[tuple, tuple[tuple, dict]] = {}


@lru_cache(maxsize=256)
def _cached_name_map(symbols: tuple) -> dict:
    for s in symbols:
        if not isinstance(s, sp.Symbol):
            raise ParseError(f"symbols must be sympy Symbols; {brief(s)} is not one")
    return {s.name: s for s in symbols}


def _symbols(symbols) -> tuple:
    """``symbols`` as a tuple, checked (sympy Symbols only; :class:`ParseError` otherwise)."""
    if isinstance(symbols, tuple) and not symbols:
        return symbols
    _name_map(symbols)
    return tuple(symbols)


def check_lookalikes(expr: sp.Basic, symbols: Iterable[sp.Symbol], *, what: str = "expression") -> None:
    """Raise :class:`SpaceMismatchError` if a free symbol of ``expr`` has the name of one of
    ``symbols`` but is another symbol (other assumptions, e.g. a plain ``Symbol("x")`` where
    the space's ``x`` is real): it would silently be an independent parameter."""
    if not isinstance(expr, sp.Basic):
        raise ParseError(f"{what}: {brief(expr)} is not a sympy expression")
    known = _name_map(symbols)
    if not known:
        return
    for s in expr.free_symbols:
        k = known.get(getattr(s, "name", None))
        if k is not None and k != s:
            raise SpaceMismatchError(
                f"{what}: the symbol {s.name!r} ({_describe(s)}) is not the space's {k.name!r} "
                f"({_describe(k)}): use the space's own symbols (space.q, space.qd, space.t) or a "
                "formula string")


def _check_foreign_rates(expr: sp.Basic, symbols: tuple, what: str) -> None:
    """Refuse the velocity or acceleration of another space's coordinate (kernel.roles) among
    ``expr``'s symbols when ``symbols`` are a space's: it would silently be a parameter."""
    foreign = roles.foreign_rates(expr, symbols)
    if foreign:
        s = foreign[0]
        role, q = cast("tuple[str, sp.Symbol]", roles.symbol_role(s))  # foreign_rates keeps only rates
        raise SpaceMismatchError(
            f"{what}: {s} is the {role} of the coordinate {q} of another configuration space, not a "
            "symbol of this one; it would silently be a constant parameter (use this space's symbols)")


def _describe(s: sp.Symbol) -> str:
    a = {k: v for k, v in s.assumptions0.items() if k in ("real", "positive", "negative", "integer",
                                                            "nonnegative", "complex", "commutative")}
    keys = [k for k in ("positive", "nonnegative", "negative", "integer", "real") if a.get(k)]
    return "assumptions " + ", ".join(keys) if keys else "no assumptions"


def brief(value) -> str:
    """A short description of a user's value for an error message: never the str of a huge
    expression (which can take longer than the work refused) nor of a huge integer (Python
    refuses to print one of more than 4300 digits)."""
    if isinstance(value, numbers.Integral) and not isinstance(value, bool) and abs(int(value)) > 10**40:
        return f"{type(value).__name__} of about {int(_int_digits(int(value))) + 1} digits"
    if isinstance(value, sp.Basic):
        return f"{type(value).__name__} expression"
    if isinstance(value, sp.MatrixBase):
        return f"{type(value).__name__} of shape {value.shape}"
    try:
        text = object.__repr__(value) if not isinstance(value, (str, bytes, numbers.Number, list, tuple, dict, set)) \
            else repr(value)
    except Exception:  # noqa: BLE001 - e.g. a list holding an integer too long to print
        text = f"<{type(value).__name__} that cannot be printed>"
    return f"{type(value).__name__} {text[:80]}{'…' if len(text) > 80 else ''}"


_COMBINATORIAL = ("sympy.functions.combinatorial", "sympy.ntheory")


def check_size(expr: sp.Basic, *, what: str = "expression") -> sp.Basic:
    """Refuse a sympy object that is beyond the limits (:class:`Limits`) or not finite, in one
    bounded walk over its distinct subexpressions (it stops at ``nodes``; nothing as costly as
    ``count_ops``): more than ``nodes`` of them, a tree deeper than ``depth``, a number with
    more than ``digits`` digits, a Float with more than ``digits`` digits of precision, an
    unevaluated power of numbers or combinatorial function (``factorial(10**8)``) whose value
    would be that large, an exponent above ``exponent``
    (:class:`~geonh.errors.LimitError`); ``oo``, ``zoo`` or ``nan`` (:class:`ParseError`).
    Returns ``expr``."""
    if not isinstance(expr, sp.Basic):
        raise ParseError(f"{what}: {brief(expr)} is not a sympy expression")
    lim = _LIMITS.get()
    seen: set = set()
    stack = [(expr, 1)]
    while stack:
        e, depth = stack.pop()
        if e in seen:
            continue
        seen.add(e)
        if len(seen) > lim.nodes:
            raise _limit_error(what, f"the expression has more than {lim.nodes} distinct subexpressions", "nodes")
        if depth > lim.depth:
            raise _limit_error(what, f"the expression is nested more than {lim.depth} deep", "depth")
        if e.is_Atom:
            if e in _NON_FINITE:
                raise ParseError(f"{what}: the expression is not finite (contains oo, zoo or nan)")
            if e.is_Rational:
                if _rational_digits(e) > lim.digits:
                    raise _limit_error(what, f"a number has about {int(_rational_digits(e)) + 1} digits", "digits")
            elif e.is_Float and e._prec * _LOG10_2 > lim.digits:
                raise _limit_error(what, f"a Float has {int(e._prec * _LOG10_2)} digits of precision", "digits")
            continue
        if e.is_Pow and e.exp.is_Rational:
            if abs(e.exp.p) > lim.exponent:
                raise _limit_error(what, f"the exponent {_show_number(e.exp)} is too large", "exponent")
            if e.base.is_Rational and _rational_digits(e.base) * abs(int(e.exp.p)) > lim.digits:
                raise _limit_error(what, "an unevaluated power of numbers would have more digits than allowed",
                                   "digits")
        elif isinstance(e, sp.Function) and (type(e).__module__ or "").startswith(_COMBINATORIAL):
            for a in e.args:
                if a.is_Integer and abs(a) > lim.digits:
                    raise _limit_error(what, f"{type(e).__name__} of an integer above {lim.digits} would have "
                                       "more digits than allowed", "digits")
        stack.extend((a, depth + 1) for a in e.args)
    return expr


def _number(value, what: str) -> sp.Expr:
    """A Python, numpy or mpmath number (or a symengine / ``_sympy_`` object) as a sympy
    object; anything else is refused with ParseError."""
    if isinstance(value, bool) or value is None:
        raise ParseError(f"{what}: {value!r} is not an expression")
    if isinstance(value, numbers.Integral):
        v = int(value)
        if _int_digits(v) > _LIMITS.get().digits:
            raise _limit_error(what, f"the integer has about {int(_int_digits(v)) + 1} digits", "digits")
        return sp.Integer(v)
    if isinstance(value, numbers.Rational):
        return check_size(sp.Rational(int(value.numerator), int(value.denominator)), what=what)
    conv = getattr(value, "_sympy_", None)
    if conv is not None and not isinstance(value, type):
        out = conv()
        if not isinstance(out, sp.Basic):
            raise ParseError(f"{what}: {brief(value)} did not convert to a sympy object")
        return out
    if isinstance(value, numbers.Number) or (type(value).__module__ or "") in ("numpy", "mpmath.ctx_mp_python"):
        try:
            return sp.sympify(value, strict=True)  # a number, never a string: strict refuses strings
        except (sp.SympifyError, TypeError, ValueError):
            pass
    if isinstance(value, Mapping):
        raise ParseError(f"{what}: a mapping is not an expression")
    raise ParseError(f"{what}: {brief(value)} is not an expression (give a sympy expression, a number or a "
                     "formula string)")


def sympy_of(value, symbols: Iterable[sp.Symbol] = (), *, what: str = "expression"):
    """geonh's replacement of ``sympy.sympify``, for its own conversions and for the kernel
    functions that take expressions: a sympy object (or matrix) is returned unchanged and
    unchecked (cheap: hot paths call this), a number becomes a sympy number, a string is parsed
    by :func:`parse` over ``symbols`` — never evaluated —, a list or tuple is converted entry by
    entry (as ``sympify`` does), and anything else (bytes, mappings, sets, other objects) is
    refused with :class:`ParseError` naming ``what``."""
    if isinstance(value, (sp.Basic, sp.MatrixBase)):
        return value
    if isinstance(value, str):
        return parse(value, symbols, what=what)
    if isinstance(value, (list, tuple)):
        return type(value)(sympy_of(v, symbols, what=what) for v in value)
    return _number(value, what)


def expr_of(value, symbols: Iterable[sp.Symbol] = (), *, what: str = "expression"):
    """:func:`sympy_of` for one expression: lists, tuples, matrices and everything that is not
    a sympy object after conversion are refused with :class:`ParseError`.  Cheap (no checks on
    sympy input): for the kernel functions that hot paths call."""
    if isinstance(value, sp.MatrixBase) or isinstance(value, (list, tuple)):
        raise ParseError(f"{what}: {brief(value)} is not a single expression")
    if isinstance(value, sp.Basic):
        return value
    return sympy_of(value, symbols, what=what)


def as_substitution(args: tuple, symbols: Iterable[sp.Symbol] = (), *, what: str = "substitution") -> list:
    """The arguments of a sympy-style ``subs`` call — ``(old, new)``, ``({old: new})`` or
    ``([(old, new), ...])`` — as a list of (old, new) pairs of sympy objects, each converted by
    :func:`sympy_of` (names and formulas parsed over ``symbols``); sympy's own ``subs`` would
    ``sympify`` (evaluate) strings.  Anything else is refused with :class:`ParseError`."""
    symbols = _symbols(symbols)
    if not isinstance(args, (tuple, list)):
        raise ParseError(f"{what}: the arguments must be a tuple, not {brief(args)}")
    if len(args) == 2:
        pairs = [tuple(args)]
    elif len(args) == 1 and isinstance(args[0], Mapping):
        pairs = list(args[0].items())
    elif len(args) == 1 and isinstance(args[0], (list, tuple)):
        pairs = list(args[0])
    else:
        raise ParseError(f"{what}: give (old, new), {{old: new}} or [(old, new), ...], not {len(args)} argument(s)")
    out = []
    for pair in pairs:
        if not isinstance(pair, (list, tuple)) or len(pair) != 2:
            raise ParseError(f"{what}: {brief(pair)} is not an (old, new) pair")
        old, new = (expr_of(x, symbols, what=what) for x in pair)
        out.append((old, new))
    return out


def as_expr(value, symbols: Iterable[sp.Symbol] = (), *, what: str = "expression") -> sp.Expr:
    """``value`` as a sympy expression, safely: sympy objects pass through (checked: an
    expression or an ``Eq``, finite, within the limits (:func:`check_size`), no look-alikes of
    ``symbols``, module docstring), Python numbers become sympy numbers (a float becomes a
    ``Float``, as with sympify), strings are parsed by :func:`parse`; bools, None and everything
    else are refused with :class:`ParseError`."""
    if isinstance(value, bool) or value is None:
        raise ParseError(f"{what}: {value!r} is not an expression")
    symbols = tuple(_name_map(symbols).values()) if not isinstance(symbols, tuple) else symbols
    if isinstance(value, str):
        value = parse(value, symbols, what=what)
    if isinstance(value, sp.Basic):
        if not isinstance(value, (sp.Expr, sp.Equality)) or isinstance(value, sp.MatrixBase):
            raise ParseError(f"{what}: {type(value).__name__} {str(value)[:80]} is not an expression")
        check_size(value, what=what)
        if symbols:
            check_lookalikes(value, symbols, what=what)
            _check_foreign_rates(value, symbols, what)
        return value
    if isinstance(value, numbers.Real) and not isinstance(value, numbers.Rational):
        f = float(value)
        if f != f or f in (float("inf"), float("-inf")):
            raise ParseError(f"{what}: {value!r} is not a finite number")
        return sp.Float(f)
    v = _number(value, what)
    if v.is_Number is not True and v.is_number and v.is_real is False:
        raise ParseError(f"{what}: the complex number {value!r} is not a real expression")
    return as_expr(v, symbols, what=what)


def as_known_expr(value, known: tuple, *, what: str, whose: str) -> sp.Expr:
    """:func:`as_expr` over ``known``, where a string may name only the ``known`` symbols:
    :class:`~geonh.errors.UnknownCoordinateError` names the others.  A misspelt name in a
    string would otherwise be a new, generic symbol, and every verdict on the expression
    silently about another one.  A sympy expression may bring symbols of its own (a constant
    the user means as arbitrary).  ``whose``: what the known names belong to, for the message."""
    e = as_expr(value, known, what=what)
    if isinstance(value, str):
        names = {s.name for s in known}
        unknown = sorted(s.name for s in e.free_symbols if s.name not in names)
        if unknown:
            raise UnknownCoordinateError(
                f"{what}: {', '.join(map(repr, unknown))} is no coordinate or parameter of {whose} (known: "
                f"{', '.join(sorted(names))}); a sympy expression may bring a symbol of its own")
    return e


def as_exprs(value, symbols: Iterable[sp.Symbol] = (), *, what: str = "expressions") -> list:
    """A sequence of expressions (a list, tuple, 1-column matrix or other iterable; not a
    string, a mapping or a set) as a list of sympy expressions, each by :func:`sympy_of`:
    strings parsed over ``symbols``, anything else refused with :class:`ParseError`."""
    if isinstance(value, (Mapping, set, frozenset)):
        raise ParseError(f"{what} must be a sequence (a list or tuple), not {brief(value)}")
    symbols = _symbols(symbols)
    return [sympy_of(v, symbols, what=what) for v in as_sequence(value, what)]


def as_symbols(value, *, what: str = "symbols") -> tuple:
    """A sequence of sympy symbols (a list or tuple; a string is *not* split) as a tuple;
    anything that is not a ``Symbol`` is refused with :class:`ParseError`."""
    if isinstance(value, Mapping):
        raise ParseError(f"{what} must be a sequence of sympy Symbols, not {brief(value)}")
    out = tuple(as_sequence(value, what))
    for s in out:
        if not isinstance(s, sp.Symbol):
            raise ParseError(f"{what} must be sympy Symbols; {brief(s)} is not one")
    return out


def as_values(value, symbols: Iterable[sp.Symbol] = (), *, what: str = "values") -> dict:
    """A mapping {symbol: value} as a dict of sympy objects.  A key is a sympy object (a symbol),
    or a name: one of ``symbols`` by name, else a new real symbol — a key that is not an
    identifier is refused; a value is one expression or number, through :func:`expr_of` (a string
    is parsed over ``symbols``).  Anything that is not a mapping is refused with :class:`ParseError`."""
    if not isinstance(value, Mapping):
        raise ParseError(f"{what} must be a mapping {{symbol: value}}, not {brief(value)}")
    symbols = _symbols(symbols)
    names = _name_map(symbols) if symbols else {}
    out: dict = {}
    for k, v in value.items():
        if isinstance(k, str):
            if not k.isidentifier() or keyword.iskeyword(k) or k.startswith("_"):
                raise ParseError(f"{what}: the key {k!r:.80} is not a name")
            key = names.get(k) or sp.Symbol(k, real=True)
        elif isinstance(k, sp.Basic) or (type(k).__module__ or "").startswith("symengine"):
            key = k
        else:
            raise ParseError(f"{what}: the key {brief(k)} is not a symbol or a name")
        out[key] = expr_of(v, symbols, what=f"{what}: value of {key}")
    return out


def as_float(value, what: str, *, minimum: float | None = None) -> float:
    """A real finite number (a Python, numpy, mpmath or sympy number; not a string, a bool or
    anything else) as a float, at least ``minimum`` when given; :class:`ParseError` otherwise."""
    if isinstance(value, bool) or isinstance(value, (str, bytes)):
        raise ParseError(f"{what} must be a number, not {brief(value)}")
    try:
        x = float(value)
    except (TypeError, ValueError, AttributeError):
        raise ParseError(f"{what} must be a real number, not {brief(value)}") from None
    if x != x or x in (float("inf"), float("-inf")):
        raise ParseError(f"{what} must be finite, not {value!r}")
    if minimum is not None and x < minimum:
        raise ParseError(f"{what} must be at least {minimum}, not {value!r}")
    return x


def as_floats(value, what: str):
    """Numbers (a number, a sequence or an array of them) as a float numpy array; strings and
    other non-numbers are refused with :class:`ParseError` (numpy would parse numeric strings,
    and its errors are not geonh's)."""
    import numpy as np
    if isinstance(value, (str, bytes, Mapping, set, frozenset)) or (
            isinstance(value, (list, tuple)) and any(isinstance(v, (str, bytes)) for v in value)):
        raise ParseError(f"{what} must be numbers, not {brief(value)}")
    try:
        out = np.asarray(value, dtype=float)
    except (TypeError, ValueError) as e:
        raise ParseError(f"{what} must be numbers: {e}") from None
    return out


def as_names(value, what: str = "names") -> tuple[str, ...]:
    """A sequence of names (identifiers such as ``"v1"``, ``"w_x"``) as a tuple of strings;
    anything else — a single string, a non-identifier, a keyword, a leading underscore — is
    refused with :class:`ParseError` (names become symbols, and a symbol's name is printed
    into generated code)."""
    out = tuple(as_sequence(value, what))
    for n in out:
        if not isinstance(n, str) or not n.isidentifier() or keyword.iskeyword(n) or n.startswith("_"):
            raise ParseError(f"{what}: {brief(n)} is not a name (an identifier without a leading underscore)")
    return out


_M = TypeVar("_M", bound=Mapping)


@overload
def as_mapping(value: _M, what: str) -> _M: ...
@overload
def as_mapping(value: object, what: str) -> Mapping: ...
def as_mapping(value, what: str) -> Mapping:
    """``value`` if it is a mapping, else :class:`ParseError` naming ``what``."""
    if not isinstance(value, Mapping):
        raise ParseError(f"{what} must be a mapping (a dict), not {brief(value)}")
    return value


def as_matrix(value, symbols: Iterable[sp.Symbol] = (), *, what: str = "matrix") -> sp.Matrix:
    """A matrix (a sympy or numpy matrix, a list of rows, or a list as one column) as a mutable
    sympy ``Matrix`` whose entries went through :func:`sympy_of` (strings parsed, never
    evaluated); anything else is refused with :class:`ParseError`."""
    if isinstance(value, sp.MatrixBase):
        return sp.Matrix(value)
    if isinstance(value, (Mapping, set, frozenset)):
        raise ParseError(f"{what} must be a matrix (a list of rows), not {brief(value)}")
    if (type(value).__module__ or "").startswith("symengine") and hasattr(value, "tolist"):
        value = value.tolist()
    if hasattr(value, "tolist") and not isinstance(value, sp.Basic):  # numpy or mpmath
        value = value.tolist()
    rows = as_sequence(value, what)
    symbols = _symbols(symbols)
    if rows and all(isinstance(r, (list, tuple)) for r in rows):
        entries = [[sympy_of(x, symbols, what=what) for x in as_sequence(r, what)] for r in rows]
        if len({len(r) for r in entries}) > 1:
            raise ParseError(f"{what}: rows of different lengths")
    else:
        entries = [[sympy_of(x, symbols, what=what)] for x in rows]
    for row in entries:
        for x in row:
            if not isinstance(x, sp.Expr):
                raise ParseError(f"{what}: the entry {brief(x)} is not an expression")
    return sp.Matrix(entries) if entries else sp.Matrix(0, 0, [])


def as_sequence(value, what: str) -> list:
    """A user's sequence input (a list, tuple or other iterable of entries) as a list; a string,
    a number, a mapping or a single sympy object where a sequence is expected is refused with
    :class:`ParseError` (``constraints="x_dot"`` would otherwise be read letter by letter, and a
    dict by its keys)."""
    if isinstance(value, sp.MatrixBase):
        return list(value)
    if isinstance(value, (str, bytes, sp.Basic, numbers.Number, Mapping)) or not hasattr(value, "__iter__"):
        raise ParseError(f"{what} must be a sequence (a list or tuple), not {brief(value)}")
    try:
        return list(value)
    except (TypeError, ValueError) as e:
        raise ParseError(f"{what}: {brief(value)} cannot be read as a sequence ({e})") from None
