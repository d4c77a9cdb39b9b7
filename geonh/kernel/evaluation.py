"""Values at a point: geonh's one way to evaluate an expression at given numbers.

A value is exact (a sympy ``Rational``) when every number involved is rational and no
function needs evaluating; otherwise it is an mpmath number with
:data:`~geonh.kernel.generic_point.PRECISION` decimal digits.  :func:`to_sympy` turns it into
a sympy number for further sympy arithmetic (a 60-digit ``Float``, never a 15-digit one).
"""
from __future__ import annotations

import random
from typing import Mapping

import mpmath
import sympy as sp

from ..errors import SingularMapError
from .generic_point import PRECISION

__all__ = ["BITS", "value_at", "to_mp", "to_sympy", "solve_linear_at", "random_rational"]

#: binary precision that matches PRECISION decimal digits (with guard bits)
BITS = int(PRECISION * 3.33) + 8


def random_rational(rng: random.Random, low_den: int = 7, high_den: int = 41) -> sp.Rational:
    """A random positive rational num/den with den in [low_den, high_den] and num in
    (den/4, 2 den]: away from 0 and mostly away from small integers, which are often special."""
    den = rng.randint(low_den, high_den)
    return sp.Rational(rng.randint(den // 4 + 1, 2 * den), den)


def value_at(expr: sp.Expr, values: Mapping):
    """The value of ``expr`` with ``values`` {symbol: number} substituted: an exact
    ``Rational`` when possible, else an mpmath number at PRECISION digits.  Raises
    ``ValueError`` naming the symbols without a value and :class:`SingularMapError` where
    the expression is singular."""
    v = sp.sympify(expr).xreplace(dict(values))
    if v.is_Rational:
        return v
    if v.free_symbols:
        raise ValueError(f"no value given for {sorted(map(str, v.free_symbols))}")
    f = v.evalf(PRECISION)
    if f.has(sp.zoo, sp.nan) or not f.is_number:
        raise SingularMapError(f"expression singular at the given state: {expr}")
    with mpmath.workdps(PRECISION):
        return f._to_mpmath(BITS)


def to_mp(x):
    """A number (sympy Rational/Float or mpmath) as an mpmath number at PRECISION digits."""
    if isinstance(x, sp.Basic):
        with mpmath.workdps(PRECISION):
            if x.is_Rational:
                return mpmath.mpf(x.p) / x.q
            return sp.sympify(x).evalf(PRECISION)._to_mpmath(BITS)
    return x


def to_sympy(x) -> sp.Expr:
    """A number as a sympy value (Rational stays exact, mpmath becomes a PRECISION-digit Float)."""
    if isinstance(x, sp.Basic):
        return x
    if isinstance(x, mpmath.mpc):
        return sp.Float(x.real, PRECISION) + sp.I * sp.Float(x.imag, PRECISION)
    return sp.Float(x, PRECISION)


def solve_linear_at(M: sp.Matrix, F: sp.Matrix, values: Mapping, what: str = "matrix") -> list:
    """Solve M x = F at a state: exactly if every entry is rational there, else with mpmath."""
    Mv = [value_at(e, values) for e in M]
    Fv = [value_at(e, values) for e in F]
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
