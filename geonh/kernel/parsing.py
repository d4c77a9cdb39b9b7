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
"""
from __future__ import annotations

import ast
import numbers
from typing import Iterable, Mapping

import sympy as sp

from ..errors import ParseError

__all__ = ["FUNCTIONS", "as_expr", "parse"]

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


def parse(text: str, symbols: Iterable[sp.Symbol] = (), *, what: str = "expression") -> sp.Expr:
    """Parse ``text`` into a sympy expression over ``symbols`` (module docstring for what is
    allowed).  Raises :class:`ParseError` naming ``what`` and the offending construct."""
    if len(text) > _MAX_LENGTH:
        raise ParseError(f"{what}: the string has {len(text)} characters (at most {_MAX_LENGTH})")
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError as e:
        raise ParseError(f"{what}: {text!r} is not a formula ({e.msg})") from None
    known = _names(symbols)

    def build(node: ast.AST) -> sp.Expr:
        if isinstance(node, ast.Expression):
            return build(node.body)
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


def as_expr(value, symbols: Iterable[sp.Symbol] = (), *, what: str = "expression") -> sp.Expr:
    """``value`` as a sympy expression, safely: sympy objects pass through, Python numbers
    become sympy numbers (a float becomes a ``Float``, as with sympify), strings are parsed by
    :func:`parse`; bools, None and everything else are refused with :class:`ParseError`."""
    if isinstance(value, bool) or value is None:
        raise ParseError(f"{what}: {value!r} is not an expression")
    if isinstance(value, sp.Basic):
        if isinstance(value, sp.logic.boolalg.BooleanAtom):
            raise ParseError(f"{what}: {value!r} is not an expression")
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
