"""The elementary functions geonh knows: one table, read everywhere.

Each row of :data:`TABLE` says, for one sympy function, everything a part of geonh asks about it:

* ``names`` — the names a formula string may call it by (:data:`geonh.kernel.parsing.FUNCTIONS`);
* ``value`` / ``derivative`` — its mpmath value and first derivative f'(x) (one argument), for
  the fixed-precision evaluation of large trees (:func:`geonh.kernel.evaluation.tree_eval`) and
  the forward-mode derivatives (dual numbers: f(x + ε dx) = f(x) + ε f'(x) dx);
  ``None`` where geonh leaves the value to sympy's ``evalf`` (or the function has no derivative
  in the ordinary sense, such as Abs and sign);
* ``symengine`` — symengine takes it and differentiates it as sympy does
  (:data:`geonh.kernel.backend.SUPPORTED_FUNCTIONS`);
* ``trig`` — a trigonometric function of one angle, rational in sin x and cos x
  (:data:`TRIG_FUNCTIONS`: what the reductions modulo sin² + cos² = 1 and the display's size
  bounds count as angles).

The derivatives are the textbook ones (Abramowitz & Stegun, *Handbook of Mathematical
Functions*, 4.3.105–4.3.110, 4.4.52–4.4.54, 4.5.77–4.5.79); tests/test_elementary.py checks
each against sympy's ``diff`` at a point.  This module imports only sympy and mpmath, so every
kernel module (the parser included) may read it.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import mpmath
import sympy as sp

__all__ = ["Elementary", "TABLE", "ELEMENTARY", "TRIG_FUNCTIONS", "SYMENGINE_FUNCTIONS", "PARSE_FUNCTIONS",
           "MP_VALUES", "MP_DERIVATIVES"]


@dataclass(frozen=True)
class Elementary:
    """One row of the table (see the module docstring)."""

    function: object
    names: tuple[str, ...] = ()
    value: Callable | None = None
    derivative: Callable | None = None
    symengine: bool = False
    trig: bool = False


_sec2 = lambda x: mpmath.sec(x) ** 2  # noqa: E731
#: the elementary functions both backends know, one Elementary entry each
TABLE: tuple[Elementary, ...] = (
    Elementary(sp.sin, ("sin",), mpmath.sin, mpmath.cos, True, True),
    Elementary(sp.cos, ("cos",), mpmath.cos, lambda x: -mpmath.sin(x), True, True),
    Elementary(sp.tan, ("tan",), mpmath.tan, _sec2, True, True),
    Elementary(sp.cot, ("cot",), mpmath.cot, lambda x: -mpmath.csc(x) ** 2, True, True),
    Elementary(sp.sec, ("sec",), mpmath.sec, lambda x: mpmath.sec(x) * mpmath.tan(x), True),
    Elementary(sp.csc, ("csc",), mpmath.csc, lambda x: -mpmath.csc(x) * mpmath.cot(x), True),
    Elementary(sp.asin, ("asin",), mpmath.asin, lambda x: 1 / mpmath.sqrt(1 - x ** 2), True),
    Elementary(sp.acos, ("acos",), mpmath.acos, lambda x: -1 / mpmath.sqrt(1 - x ** 2), True),
    Elementary(sp.atan, ("atan",), mpmath.atan, lambda x: 1 / (1 + x ** 2), True),
    Elementary(sp.acot, symengine=True),
    Elementary(sp.asec, symengine=True),
    Elementary(sp.acsc, symengine=True),
    Elementary(sp.atan2, ("atan2",), symengine=True),
    Elementary(sp.sinh, ("sinh",), mpmath.sinh, mpmath.cosh, True),
    Elementary(sp.cosh, ("cosh",), mpmath.cosh, mpmath.sinh, True),
    Elementary(sp.tanh, ("tanh",), mpmath.tanh, lambda x: mpmath.sech(x) ** 2, True),
    Elementary(sp.coth, symengine=True),
    Elementary(sp.exp, ("exp",), mpmath.exp, mpmath.exp, True),
    Elementary(sp.log, ("log",), mpmath.log, lambda x: 1 / x, True),
    Elementary(sp.sqrt, ("sqrt",)),            # a power x^(1/2) once built: no function node
    Elementary(sp.Abs, ("Abs", "abs"), abs),
    Elementary(sp.sign, ("sign",)),
)

#: the table by sympy function
ELEMENTARY: dict = {e.function: e for e in TABLE}
#: the trigonometric functions of one angle (rational in its sin and cos)
TRIG_FUNCTIONS: tuple = tuple(e.function for e in TABLE if e.trig)
#: the functions symengine takes with sympy's derivatives
SYMENGINE_FUNCTIONS: frozenset = frozenset(e.function for e in TABLE if e.symengine)
#: name → function: the functions a formula string may call
PARSE_FUNCTIONS: dict = {name: e.function for e in TABLE for name in e.names}
#: function → its mpmath value (one argument)
MP_VALUES: dict = {e.function: e.value for e in TABLE if e.value is not None}
#: function → its mpmath derivative f'(x)
MP_DERIVATIVES: dict = {e.function: e.derivative for e in TABLE if e.derivative is not None}
