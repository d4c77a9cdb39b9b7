"""The kernel's linear algebra on numbers (geonh.kernel.linalg): one pivot rule and search, one
row echelon, sample ranks, round-off; and that both backends search pivots with it."""
import mpmath
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from geonh.errors import SingularMapError
from geonh.kernel import backend as be
from geonh.kernel import generic_point as gp
from geonh.kernel import linalg
from geonh.kernel.evaluation import working_precision
from geonh.kernel.linalg import (Echelon, cramer_solve, det_small, drop_roundoff, eliminate, pivot_order_at,
                                 sample_rank, solve_linear_at)

needs_symengine = pytest.mark.skipif(not be.SYMENGINE_AVAILABLE, reason="symengine not installed")

rational_matrices = st.integers(1, 4).flatmap(
    lambda n: st.lists(st.lists(st.integers(-3, 3), min_size=n, max_size=n), min_size=n, max_size=n))


def _leading_minors_nonzero(rows, order) -> bool:
    M = sp.Matrix([rows[i] for i in order])
    return all(M[:k, :k].det() != 0 for k in range(1, M.rows + 1))


@settings(deadline=None, max_examples=60)
@given(rational_matrices)
def test_pivot_order_gives_nonzero_leading_minors_or_none_when_singular(rows):
    rows = [[sp.Integer(v) for v in r] for r in rows]
    order = pivot_order_at(True, rows)
    if sp.Matrix(rows).det() == 0:
        assert order is None
    else:
        assert sorted(order) == list(range(len(rows))) and _leading_minors_nonzero(rows, order)


def test_pivot_rule_takes_the_first_usable_row_and_partial_pivoting_the_largest():
    rows = [[0, 1, 0], [1, 5, 0], [7, 0, 1]]
    # the first usable row of column 0 is row 1 (sympy's order keeps pivots simple)
    assert pivot_order_at(True, [[sp.Integer(v) for v in r] for r in rows]) == [1, 0, 2]
    done = eliminate([[mpmath.mpf(v) for v in r] for r in rows], exact=False, largest=True)
    assert done.order[0] == 2 and done.rank == 3


def test_eliminate_reports_the_rank_reached_at_the_first_missing_pivot():
    rows = [[mpmath.mpf(v) for v in r] for r in ([1, 2, 3], [2, 4, 6], [1, 0, 1])]
    with mpmath.workdps(60):
        done = eliminate(rows, exact=False, tol=mpmath.mpf(10) ** -30, largest=True)
    # column 0 eliminates, column 1 has a pivot, then column 2 is all round-off: rank 2
    assert done.rank == 2
    exact = eliminate([[sp.Integer(v) for v in r] for r in ([0, 0], [0, 1])], exact=True)
    assert exact.rank == 0


@settings(deadline=None, max_examples=40)
@given(st.lists(st.lists(st.integers(-2, 2), min_size=3, max_size=3), min_size=1, max_size=6))
def test_echelon_keeps_a_greedy_maximal_independent_subset(vectors):
    ech = Echelon(exact=True)
    flags = [ech.add(v) for v in vectors]
    kept = [v for v, f in zip(vectors, flags) if f]
    assert ech.rank == len(kept) == sp.Matrix(vectors).rank()
    for k, v in enumerate(vectors):   # greedy: v is kept exactly when it raises the rank of those before it
        before = [w for w, f in zip(vectors[:k], flags[:k]) if f]
        assert flags[k] == (sp.Matrix(before + [v]).rank() > len(before))
    # numeric, at a tolerance (the largest entry as pivot): the same verdicts
    num = Echelon(exact=False, tol=mpmath.mpf(10) ** -30)
    with mpmath.workdps(60):
        assert [num.add([mpmath.mpf(x) for x in v]) for v in vectors] == flags


def test_sample_rank_exact_and_numeric():
    assert sample_rank(True, [[sp.Integer(1), sp.Integer(2)], [sp.Integer(2), sp.Integer(4)]]) == 1
    with mpmath.workdps(60):
        tiny = mpmath.mpf(10) ** -50
        assert sample_rank(False, [[mpmath.mpf(1), mpmath.mpf(2)], [mpmath.mpf(2), 4 + tiny]]) == 1
        assert sample_rank(False, [[tiny, 0], [0, tiny]]) == 0     # round-off only: rank 0


def test_det_small_and_cramer_solve_agree_with_sympy():
    x, y = sp.symbols("x y")
    M = sp.Matrix([[sp.sin(x), y, 0], [1, sp.cos(x), x], [0, 1, 2]])
    assert sp.expand(det_small(M.tolist()) - M.det()) == 0
    b = sp.Matrix([1, x, y])
    sol = cramer_solve(M, b)
    pt = {x: sp.Rational(1, 3), y: sp.Rational(2, 7)}
    assert all(abs(sp.N((M * sol - b)[i].xreplace(pt), 30)) < 1e-25 for i in range(3))


def test_solve_linear_at_is_exact_and_refuses_a_singular_state():
    x = sp.Symbol("x")
    M, F = sp.Matrix([[x, 1], [1, 1]]), sp.Matrix([1, 2])
    assert solve_linear_at(M, F, {x: 3}) == [sp.Rational(-1, 2), sp.Rational(5, 2)]
    with pytest.raises(SingularMapError, match="mass matrix is singular at this state"):
        solve_linear_at(M, F, {x: 1}, what="mass matrix")


def test_drop_roundoff_follows_the_working_precision():
    X = sp.Matrix([[1, sp.Float("1e-45", 60)], [sp.Float("1e-35", 60), 2]])
    assert drop_roundoff(X) == sp.Matrix([[1, 0], [sp.Float("1e-35", 60), 2]])   # 10^-40 at 60 digits
    with working_precision(90):                                                    # 10^-60 at 90 digits
        assert drop_roundoff(X)[0, 1] != 0


# -- one pivot search for both backends ---------------------------------------------------------------
@needs_symengine
def test_both_backends_search_pivots_with_the_one_search(monkeypatch):
    x, y = sp.symbols("x y", real=True)
    M = sp.Matrix([[0, sp.sin(x), 1], [y, 1, 0], [sp.cos(x), 0, x]])
    T = be.Translation()
    native = be.generic_pivot_order(T.to_symengine(M), T.symbols)
    assert native == gp.pivot_rows(M) == be.generic_pivot_order(M)
    # the rule both call is linalg's: replaced there, neither route finds pivots
    monkeypatch.setattr(linalg, "pivot_order_at", lambda exact, rows: None)
    assert be.generic_pivot_order(T.to_symengine(M), T.symbols) is None
    assert gp.pivot_rows(M) is None


@needs_symengine
def test_the_symengine_search_evaluates_in_symengine_only_as_far_as_needed(monkeypatch):
    """The search is lazy: a regular matrix is evaluated at its first sample point only."""
    x, y = sp.symbols("x y", positive=True)
    M = sp.Matrix([[x, y], [1, x + y]])
    calls = []
    real = gp._native_matrix_values
    monkeypatch.setattr(gp, "_native_matrix_values", lambda e, pt: calls.append(pt) or real(e, pt))
    T = be.Translation()
    assert be.generic_pivot_order(T.to_symengine(M), T.symbols) == [0, 1]
    assert len(calls) == 1


def test_solve_in_field_over_a_rational_function_field():
    """solve_in_field over ℚ(x, y) (sympy's field elements, as the integral search uses it):
    the solution satisfies M x = F exactly, whichever pivots it takes (the smallest non-zero
    entry of the column, here the 1 in the second row), and a singular M is refused."""
    from geonh.kernel.linalg import solve_in_field
    K, x, y = sp.field("x, y", sp.QQ)
    M = [[(x + y)**3 + x * y, 0, x], [1, y, 0], [0, x - y, 2]]
    F = [x, y**2, 1 / (x + 1)]
    sol = solve_in_field(M, F)
    for row, f in zip(M, F):
        assert sum((a * s for a, s in zip(row, sol)), K.zero) == f
    assert solve_in_field(sp.Matrix([[2, 1], [1, 1]]), [3, 2]) == [1, 1]
    with pytest.raises(SingularMapError):
        solve_in_field([[x, y], [2 * x, 2 * y]], [1, 2])
