"""Comparison helpers for the kernel tests (imported by the tests beside it in tests/kernel/)."""
import sympy as sp

from geonh.kernel.generic_point import is_zero


def _has_denominator(expr) -> bool:
    return any(p.exp.is_negative for p in expr.atoms(sp.Pow))


def same(x, y) -> bool:
    """x == y as functions of all their symbols.

    Decided by :func:`geonh.kernel.generic_point.is_zero` on the difference; a polynomial in sin/cos and
    the coordinates is first expanded (cheap, exact, and it spares the high-precision
    evaluation).  No ``simplify``.
    """
    diff = sp.sympify(x - y)
    if diff == 0:
        return True
    if diff.has(sp.Function) and not _has_denominator(diff) and sp.expand(diff) == 0:
        return True
    return is_zero(diff)


def same_seq(xs, ys) -> bool:
    xs, ys = list(xs), list(ys)
    assert len(xs) == len(ys)
    return all(same(x, y) for x, y in zip(xs, ys))


def arrays_equal(a, b) -> bool:
    """Equal sympy Arrays / Matrices, entry by entry (see :func:`same`)."""
    assert tuple(a.shape) == tuple(b.shape)
    return same_seq(sp.flatten(a.tolist()), sp.flatten(b.tolist()))


def same_field(X, Y) -> bool:
    assert X.space == Y.space
    return same_seq(X.components, Y.components)


def same_form(a, b) -> bool:
    assert a.space == b.space and a.degree == b.degree
    keys = set(a.components) | set(b.components)
    return all(same(a.components.get(k, 0), b.components.get(k, 0)) for k in keys)
