"""Trigonometric rational functions reduced modulo sin² + cos² = 1.

The equations of motion of rolling bodies come out of the frame machinery as large rational
functions of sines and cosines that are often small modulo the Pythagorean identity; sympy's
``trigsimp``/``simplify`` are slow on them and often stop short.  :func:`trig_reduce` reduces
numerator and denominator by polynomial division modulo sᵢ² + cᵢ² − 1 (a Gröbner basis of that
ideal, since the generators are in distinct variables), in two variable orders, and keeps the
smaller result.
"""
from __future__ import annotations

from typing import Sequence, cast

import sympy as sp

from ..moved import package_getattr
from ..errors import ParseError
from .elementary import TRIG_FUNCTIONS
from .parsing import as_expr, as_exprs, expr_of

__all__ = ["trig_reduce", "shorten_trig"]


def trig_reduce(expr, angles: Sequence | None = None) -> sp.Expr:
    """Simplify a rational function of sin and cos of ``angles`` (default: every argument of a
    sin/cos/tan in ``expr``) modulo sin² + cos² = 1, by polynomial reduction of numerator and
    denominator (sympy's ``simplify``/``trigsimp`` are much slower on the equations of motion
    of these systems and often stop short).  Arguments must be single symbols."""
    expr = as_expr(expr, what="trig_reduce")
    expr = expr.replace(sp.tan, lambda x: sp.sin(x) / sp.cos(x)).replace(sp.cot, lambda x: sp.cos(x) / sp.sin(x))
    if angles is None:
        angles = sorted({f.args[0] for f in expr.atoms(sp.sin, sp.cos)}, key=sp.default_sort_key)
    angles = as_exprs(angles, what="trig_reduce angles")
    if len(set(angles)) != len(angles):
        raise ParseError(f"trig_reduce: repeated angles {angles}")
    if not angles:
        return sp.factor(sp.cancel(expr))
    s = {a: sp.Dummy(f"s_{a}") for a in angles}
    c = {a: sp.Dummy(f"c_{a}") for a in angles}
    rep = {f(a): v[a] for a in angles for f, v in ((sp.sin, s), (sp.cos, c))}
    num, den = sp.fraction(sp.cancel(sp.together(expr.xreplace(rep))))
    ideal = [s[a]**2 + c[a]**2 - 1 for a in angles]
    best = None
    for gens in ([c[a] for a in angles] + [s[a] for a in angles],
                 [s[a] for a in angles] + [c[a] for a in angles]):
        nr = sp.reduced(sp.expand(num), ideal, *gens)[1]
        dr = sp.reduced(sp.expand(den), ideal, *gens)[1]
        cand = sp.factor(sp.cancel(nr / dr))
        if best is None or sp.count_ops(cand) < sp.count_ops(best):
            best = cand
    return cast(sp.Expr, best).xreplace({v: k for k, v in rep.items()})  # two candidates, never None


def shorten_trig(expr: sp.Expr, max_ops: int | None = None) -> tuple[sp.Expr, bool]:
    """``(trig_reduce(expr), True)`` when ``expr`` is trigonometric in single-symbol angles, has
    at most ``max_ops`` operations (``count_ops``; no bound when None) and the reduction is no
    larger; ``(expr, False)`` otherwise (nothing to reduce, arguments that are not symbols, too
    large, or a reduction sympy's polynomial machinery refuses).  The frame machinery's output
    is often far larger than the function it represents (the Chaplygin ball's forcing: 2650
    operations → 3)."""
    expr = expr_of(expr, what="shorten_trig")
    trig = expr.atoms(*TRIG_FUNCTIONS)
    if not trig or not all(isinstance(f.args[0], sp.Symbol) for f in trig):
        return expr, False
    if max_ops is not None and sp.count_ops(expr) > max_ops:
        return expr, False
    try:
        r = trig_reduce(expr)
    except (sp.PolynomialError, sp.polys.polyerrors.PolificationFailed, ValueError, TypeError,
            NotImplementedError):
        return expr, False
    return (r, True) if sp.count_ops(r) <= sp.count_ops(expr) else (expr, False)


#: a name that moved from here names its new home (geonh.moved)
__getattr__ = package_getattr(__name__)
