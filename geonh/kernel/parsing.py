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
"""
from __future__ import annotations

import ast
import numbers
from functools import lru_cache
from typing import Iterable, Mapping

import sympy as sp

from ..errors import ParseError, SpaceMismatchError
from . import roles

__all__ = ["FUNCTIONS", "as_expr", "as_sequence", "check_lookalikes", "parse", "parse_condition"]

#: the functions a string may call
FUNCTIONS: dict[str, object] = {
    "sin": sp.sin, "cos": sp.cos, "tan": sp.tan, "cot": sp.cot, "sec": sp.sec, "csc": sp.csc,
    "asin": sp.asin, "acos": sp.acos, "atan": sp.atan, "atan2": sp.atan2,
    "sinh": sp.sinh, "cosh": sp.cosh, "tanh": sp.tanh, "exp": sp.exp, "log": sp.log,
    "sqrt": sp.sqrt, "Abs": sp.Abs, "abs": sp.Abs, "sign": sp.sign,
}
_CONSTANTS = {"pi": sp.pi, "E": sp.E}
_BINOPS = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b, ast.Mult: lambda a, b: a * b,
           ast.Div: lambda a, b: a / b, ast.Pow: lambda a, b: a ** b}
_MAX_LENGTH = 20_000
_MAX_EXPONENT = 1_000


def _names(symbols: Iterable[sp.Symbol]) -> dict[str, sp.Symbol]:
    return {s.name: s for s in symbols}


_COMPARE = {ast.Lt: sp.StrictLessThan, ast.LtE: sp.LessThan, ast.Gt: sp.StrictGreaterThan,
            ast.GtE: sp.GreaterThan}
_NON_FINITE = (sp.S.Infinity, sp.S.NegativeInfinity, sp.S.ComplexInfinity, sp.S.NaN)


def parse(text: str, symbols: Iterable[sp.Symbol] = (), *, what: str = "expression") -> sp.Expr:
    """Parse ``text`` into a sympy expression over ``symbols`` (module docstring for what is
    allowed).  Raises :class:`ParseError` naming ``what`` and the offending construct."""
    return _parse(text, symbols, what, compare=False)


def parse_condition(text: str, symbols: Iterable[sp.Symbol] = (), *, what: str = "condition") -> sp.Basic:
    """Parse a condition ``"lhs OP rhs"`` with OP one of ``< <= > >=`` (e.g. ``"J > J0"``)
    into a sympy relational over ``symbols``; formulas on both sides as in :func:`parse`."""
    if not isinstance(text, str):
        raise ParseError(f"{what}: {text!r} is not a string")
    return _parse(text, symbols, what, compare=True)


def _parse(text: str, symbols: Iterable[sp.Symbol], what: str, compare: bool):
    if not isinstance(text, str):
        raise ParseError(f"{what}: {type(text).__name__} {text!r} is not a string")
    if len(text) > _MAX_LENGTH:
        raise ParseError(f"{what}: the string has {len(text)} characters (at most {_MAX_LENGTH})")
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError as e:
        raise ParseError(f"{what}: {text!r} is not a formula ({e.msg})") from None
    known = _names(symbols)

    def build(node: ast.AST) -> sp.Expr:
        if isinstance(node, ast.Expression):
            body = node.body
            if compare and isinstance(body, ast.Compare):
                if len(body.ops) != 1 or type(body.ops[0]) not in _COMPARE:
                    raise ParseError(f"{what}: use one comparison <, <=, > or >= (e.g. 'J > J0')")
                return _COMPARE[type(body.ops[0])](build(body.left), build(body.comparators[0]))
            if compare:
                raise ParseError(f"{what}: {text!r} is not a comparison (e.g. 'J > J0')")
            return build(body)
        if isinstance(node, ast.Constant):
            v = node.value
            if isinstance(v, bool) or v is None:
                raise ParseError(f"{what}: {v!r} is not a number")
            if isinstance(v, int):
                return sp.Integer(v)
            if isinstance(v, float):
                seg = ast.get_source_segment(text.strip(), node) or repr(v)
                return sp.Rational(seg)
            raise ParseError(f"{what}: constant {v!r} is not a number")
        if isinstance(node, ast.Name):
            name = node.id
            if name.startswith("_"):
                raise ParseError(f"{what}: the name {name!r} is not allowed (leading underscore)")
            if name in known:
                return known[name]
            if name in _CONSTANTS:
                return _CONSTANTS[name]
            if name in FUNCTIONS:
                raise ParseError(f"{what}: the function {name!r} is used without arguments")
            return sp.Symbol(name, real=True)
        if isinstance(node, ast.BinOp) and type(node.op) in _BINOPS:
            left, right = build(node.left), build(node.right)
            if isinstance(node.op, ast.Pow) and right.is_Integer and abs(right) > _MAX_EXPONENT:
                raise ParseError(f"{what}: the exponent {right} is too large (at most {_MAX_EXPONENT})")
            return _BINOPS[type(node.op)](left, right)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.UAdd, ast.USub)):
            v = build(node.operand)
            return v if isinstance(node.op, ast.UAdd) else -v
        if isinstance(node, ast.Call):
            if not isinstance(node.func, ast.Name) or node.func.id not in FUNCTIONS:
                fn = node.func.id if isinstance(node.func, ast.Name) else ast.dump(node.func)[:40]
                raise ParseError(f"{what}: calling {fn!r} is not allowed; allowed functions: "
                                 f"{', '.join(sorted(FUNCTIONS))}")
            if node.keywords:
                raise ParseError(f"{what}: keyword arguments are not allowed in {node.func.id}(...)")
            return FUNCTIONS[node.func.id](*[build(a) for a in node.args])
        raise ParseError(f"{what}: {type(node).__name__} is not allowed in a formula "
                         f"(only numbers, names, + - * / ** and {', '.join(sorted(FUNCTIONS))})")

    return build(tree)


@lru_cache(maxsize=256)
def _name_map(symbols: tuple) -> dict:
    return {s.name: s for s in symbols if isinstance(s, sp.Symbol)}


def check_lookalikes(expr: sp.Basic, symbols: Iterable[sp.Symbol], *, what: str = "expression") -> None:
    """Raise :class:`SpaceMismatchError` if a free symbol of ``expr`` has the name of one of
    ``symbols`` but is another symbol (other assumptions, e.g. a plain ``Symbol("x")`` where
    the space's ``x`` is real): it would silently be an independent parameter."""
    known = _name_map(symbols if isinstance(symbols, tuple) else tuple(symbols))
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
        role, q = roles.symbol_role(s)
        raise SpaceMismatchError(
            f"{what}: {s} is the {role} of the coordinate {q} of another configuration space, not a "
            "symbol of this one; it would silently be a constant parameter (use this space's symbols)")


def _describe(s: sp.Symbol) -> str:
    a = {k: v for k, v in s.assumptions0.items() if k in ("real", "positive", "negative", "integer",
                                                            "nonnegative", "complex", "commutative")}
    keys = [k for k in ("positive", "nonnegative", "negative", "integer", "real") if a.get(k)]
    return "assumptions " + ", ".join(keys) if keys else "no assumptions"


def as_expr(value, symbols: Iterable[sp.Symbol] = (), *, what: str = "expression") -> sp.Expr:
    """``value`` as a sympy expression, safely: sympy objects pass through (checked: an
    expression or an ``Eq``, finite, no look-alikes of ``symbols``, module docstring), Python
    numbers become sympy numbers (a float becomes a ``Float``, as with sympify), strings are
    parsed by :func:`parse`; bools, None and everything else are refused with
    :class:`ParseError`."""
    if isinstance(value, bool) or value is None:
        raise ParseError(f"{what}: {value!r} is not an expression")
    symbols = tuple(symbols)
    if isinstance(value, sp.Basic):
        if not isinstance(value, (sp.Expr, sp.Equality)) or isinstance(value, sp.MatrixBase):
            raise ParseError(f"{what}: {type(value).__name__} {value} is not an expression")
        if value.has(*_NON_FINITE):
            raise ParseError(f"{what}: {value} is not finite (contains oo, zoo or nan)")
        if symbols:
            check_lookalikes(value, symbols, what=what)
            _check_foreign_rates(value, symbols, what)
        return value
    if isinstance(value, str):
        return parse(value, symbols, what=what)
    if isinstance(value, numbers.Integral):
        return sp.Integer(int(value))
    if isinstance(value, numbers.Rational):
        return sp.Rational(value.numerator, value.denominator)
    if isinstance(value, numbers.Real):
        f = float(value)
        if f != f or f in (float("inf"), float("-inf")):
            raise ParseError(f"{what}: {value!r} is not a finite number")
        return sp.Float(f)
    if isinstance(value, Mapping):
        raise ParseError(f"{what}: a mapping is not an expression")
    raise ParseError(f"{what}: {type(value).__name__} {value!r} is not an expression (give a sympy "
                     "expression, a number or a formula string)")


def as_sequence(value, what: str) -> list:
    """A user's sequence input (a list, tuple or other iterable of entries) as a list; a string,
    a number or a single sympy object where a sequence is expected is refused with
    :class:`ParseError` (``constraints="x_dot"`` would otherwise be read letter by letter)."""
    if isinstance(value, (str, bytes, sp.Basic, numbers.Number)) or not hasattr(value, "__iter__"):
        raise ParseError(f"{what} must be a sequence (a list or tuple), not {type(value).__name__} {value!r}")
    return list(value)
