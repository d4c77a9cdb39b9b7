"""Forward-mode differentiation on the shared expression graph (symengine).

:func:`jet_program` turns expressions f(w, p) into one program of values and Jacobian
[f; ∂f/∂w] whose expression graph keeps the sharing of f's graph: f is reduced by common
subexpression elimination to definitions s_k = e_k(w, p, s_<k) (symengine's ``cse``), and
each definition carries its tangent by the chain rule (forward mode; Griewank & Walther,
*Evaluating Derivatives*, 2nd ed., SIAM 2008, §3.1),

    ∂s_k/∂w_j = Σ_x (∂e_k/∂x) · ∂x/∂w_j,   x running over the symbols of e_k,

with ∂w_i/∂w_j = δ_ij, ∂p/∂w_j = 0, and ∂e_k/∂x differentiated symbolically on the small
expression e_k alone.  Tangents are kept sparse (only the w_j a definition depends on).

Symbolic differentiation of each f_i by each w_j separately (``diff`` per entry) rebuilds the
trees below every entry; the common subexpression elimination the compiler runs next must
then find the sharing again, and on the Whipple bicycle that step alone takes ~0.8 s of the
Jacobian's ~1.0 s compile.  The program of this module has the same operation count and its
sharing is explicit (pointers into one graph), so the compiler's elimination is cheaper, and
values and Jacobian come out of one compiled function.
"""
from __future__ import annotations

from typing import Any, Sequence

from ..errors import DimensionError, ParseError

__all__ = ["jet_program"]


def jet_program(exprs: Sequence[Any], wrt: Sequence[Any]) -> list:
    """``[f_1, …, f_N, ∂f_1/∂w_1, …, ∂f_1/∂w_m, …, ∂f_N/∂w_m]`` (values, then the Jacobian
    row-major) for symengine expressions ``exprs`` and symengine Symbols ``wrt``, as symengine
    expressions that share one graph (module doc).  Anything else than symengine expressions
    and distinct symengine Symbols is refused (:class:`~geonh.errors.ParseError`,
    :class:`~geonh.errors.DimensionError`)."""
    import symengine as se
    exprs, wrt = _checked(exprs, "exprs", se.Basic), _checked(wrt, "wrt", se.Symbol)
    if len(set(wrt)) != len(wrt):
        raise DimensionError("jet_program: repeated symbols in wrt")
    zero, one = se.Integer(0), se.Integer(1)
    replacements, reduced = se.cse(list(exprs))
    value: dict = {}                                  # cse symbol -> its expression on the graph
    tangent: dict = {w: {j: one} for j, w in enumerate(wrt)}

    def on_graph(e):
        """``e`` with the cse symbols replaced by their expressions (shared, not copied)."""
        local = {x: value[x] for x in e.free_symbols if x in value}
        return e.xreplace(local) if local else e

    def tangent_of(e) -> dict:
        """{j: ∂e/∂w_j} (non-zero entries) of a definition or output ``e``."""
        terms: dict = {}
        for x in e.free_symbols:
            tx = tangent.get(x)
            if not tx:
                continue
            p = e.diff(x)
            if p == zero:
                continue
            p = on_graph(p)
            for j, t in tx.items():
                terms.setdefault(j, []).append(p if t is one else p * t)
        return {j: ts[0] if len(ts) == 1 else se.Add(*ts) for j, ts in terms.items()}

    for s, e in replacements:
        value[s] = on_graph(e)
        t = tangent_of(e)
        if t:
            tangent[s] = t
    out = [on_graph(r) for r in reduced]
    m = len(wrt)
    for r in reduced:
        t = tangent_of(r)
        out.extend(t.get(j, zero) for j in range(m))
    return out


def _checked(items, name: str, kind: type) -> list:
    """``items`` as a list of ``kind`` (symengine objects; no string is converted)."""
    if isinstance(items, (str, bytes)) or not isinstance(items, (list, tuple)):
        raise ParseError(f"jet_program: {name} must be a list of symengine objects, got {type(items).__name__}")
    bad = [x for x in items if not isinstance(x, kind)]
    if bad:
        raise ParseError(f"jet_program: {name} must hold symengine {kind.__name__} objects, "
                         f"got {type(bad[0]).__name__}")
    return list(items)
