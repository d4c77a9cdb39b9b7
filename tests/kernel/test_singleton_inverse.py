"""Frames inverted with their rows of one entry as pivots first (issue 27 follow-up: the LU
with generic pivots on sympy's bicycle pivoted on an entry 1e-3 where another was 1, and
Kane's forcing lost ten digits in double precision)."""
import numpy as np
import pytest
import sympy as sp

from geonh.errors import SingularMapError
from geonh.kernel import ConfigurationSpace, Frame
from geonh.kernel.generic_point import inverse, singleton_pivots, singleton_reduced_inverse

x, y, z = sp.symbols("x y z")


def _M():
    return sp.Matrix([[sp.sin(x), 2, sp.cos(y), 1],
                      [0, 1, 0, 0],
                      [sp.cos(x), 3, 1 + sp.sin(y) ** 2, 0],
                      [0, sp.cos(z), 0, 3]])


def test_singleton_pivots_are_found_in_turn():
    """Row 1 is a singleton (column 1); then row 3 is one among the columns left (column 3)."""
    assert singleton_pivots(_M()) == [(1, 1), (3, 3)]
    assert singleton_pivots(sp.Matrix([[x, 1], [1, x]])) == []


def test_singleton_reduced_inverse_is_the_inverse():
    M = _M()
    C = singleton_reduced_inverse(M, singleton_pivots(M), lambda F: inverse(F))
    f = sp.lambdify([x, y, z], C * M)
    for pt in [(0.3, 0.7, 1.1), (-1.2, 2.0, 0.4)]:
        assert np.allclose(np.asarray(f(*pt), float), np.eye(4), atol=1e-13)


def test_a_singleton_that_vanishes_generically_is_singular():
    zero = sp.sin(x) ** 2 + sp.cos(x) ** 2 - 1
    M = sp.Matrix([[zero, 0], [x, 1]])
    with pytest.raises(SingularMapError):
        singleton_reduced_inverse(M, singleton_pivots(M), lambda F: inverse(F))


def test_a_coframe_is_inverted_accurately_where_a_generic_pivot_is_small():
    """B = [[1, 0, 0], [0, 10 sin q2, 1], [q1, cos q2, 1]]: at a sample point 10 sin q2 is the
    larger candidate of column 2, at q2 = 1e-9 it is tiny.  The rest after the singleton row is
    2 x 2, inverted by adj/det (no pivot): C agrees in double precision with the exact inverse."""
    S = ConfigurationSpace(["q1", "q2", "q3"])
    q1, q2, q3 = S.q
    omegas = [S.qd[0], 10 * sp.sin(q2) * S.qd[1] + S.qd[2], q1 * S.qd[0] + sp.cos(q2) * S.qd[1] + S.qd[2]]
    frame = Frame.from_quasi_velocities(S, omegas)
    pt = {q1: sp.Rational(1, 3), q2: sp.Rational(1, 10**9), q3: 0}
    exact = frame.B.xreplace(pt).evalf(50).inv()
    C = np.asarray(sp.lambdify([S.q], frame.C)(np.array([1 / 3, 1e-9, 0.0])), float)
    err = np.max(abs(C - np.asarray(exact.evalf(20).tolist(), float)))
    assert err < 1e-14 * float(max(abs(e) for e in exact))


@pytest.mark.parametrize("backend", ["symengine", "sympy"])
def test_a_singular_rest_is_refused_with_the_whole_matrix_rank(backend):
    """B with a singleton row whose rest F is singular: the refusal states B's generic rank
    (2 of 3), never the rest's (0 of 1 or 1 of 2) — on both backends, as ``generic_rank`` says."""
    from geonh.kernel import backend as be
    from geonh.kernel.forms import OneForm
    from geonh.kernel.generic_point import generic_rank

    S = ConfigurationSpace(["q1", "q2", "q3"])
    q1, q2, q3 = S.q
    rows = [[1, 0, 0], [0, sp.sin(q2), sp.cos(q2)], [0, 2 * sp.sin(q2), 2 * sp.cos(q2)]]
    assert singleton_pivots(sp.Matrix(rows)) == [(0, 0)]
    assert generic_rank(sp.Matrix(rows)) == 2
    with be.using_backend(backend):
        with pytest.raises(SingularMapError, match=r"rank 2\b") as err:
            Frame.from_coframe([OneForm(S, r) for r in rows])
    assert "rank 0" not in str(err.value) and "rank 1 " not in str(err.value)
