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

from ..errors import ParseError
from .parsing import as_expr, as_exprs, expr_of

__all__ = ["trig_reduce", "trig_tidy"]


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


def trig_tidy(expr: sp.Expr) -> sp.Expr | None:
    """:func:`trig_reduce` of ``expr`` when ``expr`` is trigonometric in single-symbol angles and
    the result is no larger (by ``count_ops``); None otherwise (nothing to reduce, arguments that
    are not symbols, or a reduction sympy's polynomial machinery refuses)."""
    expr = expr_of(expr, what="trig_tidy")
    trig = expr.atoms(sp.sin, sp.cos, sp.tan, sp.cot)
    if not trig or not all(isinstance(f.args[0], sp.Symbol) for f in trig):
        return None
    try:
        r = trig_reduce(expr)
    except (sp.PolynomialError, sp.polys.polyerrors.PolificationFailed, ValueError, TypeError,
            NotImplementedError):
        return None
    return r if sp.count_ops(r) <= sp.count_ops(expr) else None
