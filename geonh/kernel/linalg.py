"""Linear algebra on numbers: geonh's one pivot rule, one row echelon, one rank of a sample.

Every generic-point verdict on a matrix (:mod:`geonh.kernel.generic_point`) and both
expression backends (:mod:`geonh.kernel.backend`) evaluate the matrix at sample points and
then do linear algebra on the numbers; that linear algebra lives here, once:

* :func:`eliminate` — Gaussian elimination with row exchanges on the rows of a matrix of
  numbers (exact ``Rational`` or mpmath), stopping at the first column without a usable pivot:
  the row order and the rank reached.  Two pivot choices: the first usable row in the current
  order (sympy's own order, which keeps symbolic pivots simple) or the largest (partial
  pivoting);
* :func:`pivot_order_at` — the one pivot rule of both backends on one evaluated square
  matrix (the one pivot search, :func:`geonh.kernel.generic_point.pivot_rows`, applies it at
  the sample points);
* :class:`Echelon` — a row echelon grown one vector at a time (greedy independence: a vector
  is kept when it is not in the span of those kept), exact or at a tolerance;
* :func:`sample_rank` / :func:`numeric_rank` — the rank of one evaluated matrix (exact, or by
  singular values at the working precision); :func:`float_rank` and
  :func:`float_positive_definite` — what double precision proves about a float matrix;
* :func:`det_small` and :func:`cramer_solve` — cofactor determinants and Cramer's rule on
  small matrices of expressions (sympy or symengine), structural zeros folded;
* :func:`solve_linear_at` — M x = F at a state (numbers), :func:`drop_roundoff` — entries at
  round-off level of a numeric matrix set to 0.

Nothing here samples or decides "at the generic point": the callers bring the numbers.
Tolerances are relative to the working precision :func:`~geonh.kernel.evaluation.precision`
(read when called).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Sequence

import mpmath
import sympy as sp

from ..errors import ParseError, SingularMapError
from .evaluation import precision, to_mp, value_at
from .parsing import as_floats, as_matrix, as_sequence, as_values, brief, expr_of

__all__ = ["Elimination", "eliminate", "pivot_order_at", "Echelon", "as_sample",
           "sample_rank", "numeric_rank", "float_rank", "float_positive_definite", "FLOAT_CLEAR", "det_small",
           "cramer_solve", "solve_linear_at", "solve_in_field", "drop_roundoff"]

#: a float singular value (eigenvalue) must exceed this fraction of the largest, besides the
#: error bound of the evaluation, for double precision to prove it non-zero (positive).
FLOAT_CLEAR = 1e-9
#: in the "first usable row" pivot choice, a numeric entry is usable when it exceeds this
#: fraction of its column's largest remaining entry
_USABLE = 10 ** -8


def _roundoff() -> mpmath.mpf:
    """10^-(precision/2): the relative size below which a value at the working precision is
    round-off."""
    return mpmath.mpf(10) ** (-(precision() // 2))


@dataclass(frozen=True)
class Elimination:
    """The outcome of :func:`eliminate`: ``order`` (row i of the eliminated matrix is row
    ``order[i]`` of the input) and ``rank``, the number of columns eliminated before the
    first without a usable pivot (the full number of columns when none is missing)."""

    order: list[int]
    rank: int


_NUMBER_TYPES = (int, float, complex, mpmath.mpf, mpmath.mpc)


def _number(v, exact: bool, what: str):
    """``v`` checked to be a number: a sympy ``Rational`` when ``exact``, else any sympy number
    or Python/mpmath number (:class:`~geonh.errors.ParseError` otherwise)."""
    if isinstance(v, bool):
        raise ParseError(f"{what}: {brief(v)} is not a number")
    if isinstance(v, sp.Basic):
        if v.is_Rational if exact else v.is_number:
            return v
    elif not exact and isinstance(v, _NUMBER_TYPES):
        return v
    elif exact and isinstance(v, int):
        return sp.Integer(v)
    raise ParseError(f"{what}: {brief(v)} is not {'a rational number' if exact else 'a number'}")


def _rows(rows, exact: bool, what: str = "rows") -> list[list]:
    """A matrix of numbers given by its rows (a sequence of equally long sequences), checked
    (a list of lists, as geonh's own callers pass, is read without conversion)."""
    if type(rows) is list and all(type(r) is list for r in rows):
        raw = rows
    else:
        raw = [as_sequence(r, what) for r in as_sequence(rows, what)]
    out = [[_number(v, exact, what) for v in r] for r in raw]
    if len({len(r) for r in out}) > 1:
        raise ParseError(f"{what}: the rows have different lengths")
    return out


def _flag(value, what: str) -> bool:
    if not isinstance(value, bool):
        raise ParseError(f"{what} must be True or False, not {brief(value)}")
    return value


def eliminate(rows: Sequence[Sequence], *, exact: bool, tol=0, largest: bool = False) -> Elimination:
    """Gaussian elimination with row exchanges on ``rows`` (numbers: ``Rational`` when
    ``exact``, else mpmath numbers at the working precision), column by column, stopping at
    the first column whose remaining entries are all zero (exactly) or at most ``tol`` in
    absolute value.

    The pivot of a column is its largest remaining entry when ``largest`` (partial pivoting),
    else the first usable row in the current order: non-zero (exact) or above 10⁻⁸ of the
    column's largest remaining entry (numeric).  Row operations R_i ← R_i − (a_ij / a_jj) R_j
    (Golub & Van Loan, *Matrix Computations*, §3.4).  The input is not modified."""
    exact, largest = _flag(exact, "exact"), _flag(largest, "largest")
    A = _rows(rows, exact)
    tol = _number(tol, False, "tol")
    n = len(A)
    m = len(A[0]) if A else 0
    order = list(range(n))
    for j in range(min(n, m)):
        col = max(abs(A[i][j]) for i in range(j, n))
        if (exact and col == 0) or (not exact and col <= tol):
            return Elimination(order, j)
        if largest:
            k = max(range(j, n), key=lambda i: abs(A[i][j]))
        else:
            k = next(i for i in range(j, n) if (A[i][j] != 0 if exact else abs(A[i][j]) > col * _USABLE))
        A[j], A[k] = A[k], A[j]
        order[j], order[k] = order[k], order[j]
        piv = A[j][j]
        for i in range(j + 1, n):
            f = A[i][j] / piv
            if f != 0:
                A[i] = [x - f * y for x, y in zip(A[i], A[j])]
    return Elimination(order, min(n, m))


def pivot_order_at(exact: bool, rows: list) -> list[int] | None:
    """The row order of Gaussian elimination with partial pivoting on one evaluated square
    matrix (``rows``: Rationals when ``exact``, else numbers at the working precision), or
    None if it is singular there (exactly, or to 10^-(precision/2) of its largest entry).

    The one pivot rule of both backends (:func:`eliminate` with the first usable row: sympy's
    own order, which keeps pivots simple).  A symbolic pivot taken in this order equals this
    numeric pivot, which is non-zero, so it is not identically zero."""
    exact = _flag(exact, "exact")
    rows = _rows(rows, exact)
    n = len(rows)
    if any(len(r) != n for r in rows):
        raise ParseError(f"pivot_order_at takes a square matrix, not {n} rows of {len(rows[0])}")
    with mpmath.workdps(precision()):
        tol = 0
        if not exact:
            rows = [[_mp(v) for v in r] for r in rows]
            big = max((abs(v) for r in rows for v in r), default=mpmath.mpf(0))
            tol = big * _roundoff()
        done = eliminate(rows, exact=exact, tol=tol)
    return done.order if done.rank == n else None


class Echelon:
    """A row echelon form grown one vector at a time: :meth:`add` reduces a vector against
    the kept ones and keeps it when a non-zero entry remains, so the kept vectors are a
    maximal independent subset of those added, in order (greedy).

    ``exact=True``: entries are made ``Rational``, the pivot of a kept vector is its first
    non-zero entry.  ``exact=False``: mpmath numbers, the pivot is the largest entry and a
    residual at most ``tol`` (absolute) counts as zero."""

    def __init__(self, *, exact: bool = True, tol=0):
        self.exact = _flag(exact, "exact")
        self.tol = _number(tol, False, "tol")
        self.rows: list[tuple[int, list]] = []      # (pivot position, reduced vector)

    @property
    def rank(self) -> int:
        return len(self.rows)

    def add(self, vector: Sequence) -> bool:
        """Keep ``vector`` if it is independent of the kept vectors; returns whether it was kept."""
        v = [_number(x, self.exact, "vector") for x in (vector if type(vector) is list else as_sequence(vector, "vector"))]
        if self.rows and len(v) != len(self.rows[0][1]):
            raise ParseError(f"vector: {len(v)} entries, the kept vectors have {len(self.rows[0][1])}")
        for p, b in self.rows:
            f = v[p] / b[p]
            if f != 0:
                v = [x - f * y for x, y in zip(v, b)]
        if self.exact:
            k = next((j for j, x in enumerate(v) if x != 0), None)
            if k is None:
                return False
        else:
            if not v:
                return False
            k = max(range(len(v)), key=lambda i: abs(v[i]))
            if not abs(v[k]) > self.tol:
                return False
        self.rows.append((k, v))
        return True


def as_sample(rows: list) -> tuple[bool, list]:
    """``(exact, rows)``: the evaluated rows of a matrix as the rank and pivot functions take
    them — all ``Rational`` (exact), or every entry an mpmath number at the working precision."""
    rows = _rows(rows, False)
    exact = all(isinstance(v, sp.Basic) and v.is_Rational for r in rows for v in r)
    if not exact:
        with mpmath.workdps(precision()):
            rows = [[_mp(v) for v in r] for r in rows]
    return exact, rows


def _mp(v):
    """An exact Rational or an mpmath value as an mpmath number at the working precision."""
    if isinstance(v, sp.Rational):
        return mpmath.mpf(v.p) / v.q
    return to_mp(v) if isinstance(v, sp.Basic) else v


def numeric_rank(rows: list[list]) -> int:
    """Rank of a matrix of mpmath numbers: its singular values above 10^-(precision/2) of the
    largest, and never below that absolute floor (a matrix whose entries are all round-off,
    ~1e-190 from cancelling terms, has rank 0)."""
    rows = [[_mp(v) for v in r] for r in _rows(rows, False)]
    if not rows or not rows[0]:
        return 0
    with mpmath.workdps(precision()):
        m = mpmath.matrix(rows)
        if all(isinstance(x, mpmath.mpf) for row in rows for x in row):
            sv = mpmath.svd_r(m, compute_uv=False)
        else:
            sv = mpmath.svd_c(m, compute_uv=False)
        svals = [abs(sv[i]) for i in range(len(sv))]
    if not svals:
        return 0
    top = max(svals)
    if top == 0:
        return 0
    tol = max(top, 1) * _roundoff()
    return sum(1 for s in svals if s > tol)


def sample_rank(exact: bool, rows: list) -> int:
    """Rank of one evaluated matrix (an :func:`as_sample` pair): exact over ℚ, else
    :func:`numeric_rank`."""
    exact = _flag(exact, "exact")
    rows = _rows(rows, exact)
    if not rows:
        return 0
    if exact:
        return sp.Matrix(rows).rank()
    return numeric_rank(rows)


def float_rank(A, E) -> int:
    """Rank of the float matrix A that double precision proves, given the entrywise error
    bound E: the number of singular values above both ‖E‖_F (Weyl: a perturbation of norm
    ≤ ‖E‖ moves no singular value further) and FLOAT_CLEAR · σ_max — a lower bound of the
    rank of the exact matrix at that point."""
    import numpy as np
    A, E = _float_pair(A, E)
    if A.size == 0:
        return 0
    s = np.linalg.svd(A, compute_uv=False)
    if not s.size or s[0] == 0:
        return 0
    tol = max(FLOAT_CLEAR * s[0], float(np.linalg.norm(E)))
    return int(np.sum(s > tol))


def float_positive_definite(A, E) -> bool:
    """Does double precision prove the symmetric float matrix A (entrywise error bound E)
    positive definite?  Its least eigenvalue above ‖E‖_F (Weyl) and FLOAT_CLEAR · the
    largest; False means "not proven" (the caller decides at the working precision), not
    "indefinite"."""
    import numpy as np
    A, E = _float_pair(A, E)
    if A.size == 0:
        return True
    if A.ndim != 2 or A.shape[0] != A.shape[1]:
        raise ParseError(f"float_positive_definite takes a square matrix, not shape {A.shape}")
    w = np.linalg.eigvalsh(A)
    return bool(w[-1] > 0 and w[0] > max(FLOAT_CLEAR * w[-1], float(np.linalg.norm(E))))


def _float_pair(A, E):
    """A float matrix and its entrywise error bound, of the same shape (ParseError otherwise)."""
    A, E = as_floats(A, "A"), as_floats(E, "E")
    if A.shape != E.shape:
        raise ParseError(f"the error bound E has shape {E.shape}, the matrix A {A.shape}")
    return A, E


# -- small matrices of expressions ---------------------------------------------------------------
def _times(a, b):
    """a·b with structural 0 and 1 folded (also under ``sympy.evaluate(False)``)."""
    if a == 0 or b == 0:
        return 0
    return b if a == 1 else a if b == 1 else a * b


def _minus(a, b):
    """a − b with structural zeros folded."""
    return a if b == 0 else -b if a == 0 else a - b


def det_small(A: list):
    """Determinant of a small square matrix given as a list of rows, by cofactor expansion
    along the first row; entries of any ring (sympy or symengine expressions), structural
    zeros and ones folded, nothing expanded."""
    rows = [[v if _is_native(v) else expr_of(v, what="matrix entry") for v in as_sequence(r, "matrix row")]
            for r in as_sequence(A, "matrix")]
    if any(len(r) != len(rows) for r in rows):
        raise ParseError(f"det_small takes a square matrix, not {len(rows)} rows of lengths {[len(r) for r in rows]}")
    return _det(rows)


def _is_native(v) -> bool:
    return (type(v).__module__ or "").startswith("symengine")


def _det(A: list):
    """:func:`det_small` of checked rows."""
    n = len(A)
    if n == 0:
        return 1
    if n == 1:
        return A[0][0]
    if n == 2:
        return _minus(_times(A[0][0], A[1][1]), _times(A[0][1], A[1][0]))
    out = 0
    for j in range(n):
        term = _times(A[0][j], _det([row[:j] + row[j + 1:] for row in A[1:]]) if A[0][j] != 0 else 0)
        out = (term if out == 0 else out + term if term != 0 else out) if j % 2 == 0 else _minus(out, term)
    return out


def cramer_solve(M: sp.MatrixBase, rhs: sp.MatrixBase) -> sp.Matrix:
    """x = M⁻¹ rhs by Cramer's rule, x_c = det(M with column c replaced by rhs) / det M, with
    cofactor determinants (:func:`det_small`): flat expressions built without arithmetic on the
    (large) entries, unevaluated (sympy's Mul of large sums would query assumptions of every
    term).  For small M (n ≤ 3) already known regular at the generic point."""
    M, rhs = as_matrix(M, what="matrix"), as_matrix(rhs, what="right-hand side")
    n = M.rows
    if M.cols != n or rhs.rows != n:
        raise ParseError(f"cramer_solve takes a square M and a right-hand side of {n} rows, not {M.shape}, {rhs.shape}")
    A = [[M[i, j] for j in range(n)] for i in range(n)]
    with sp.evaluate(False):
        inv_det = 1 / _det(A)
        nums = [[_det([[rhs[i, k] if j == c else A[i][j] for j in range(n)] for i in range(n)])
                 for k in range(rhs.cols)] for c in range(n)]
        x = [[sp.S.Zero if v == 0 else _times(v, inv_det) for v in row] for row in nums]
    return sp.Matrix(x)


# -- numbers at one state ------------------------------------------------------------------------
def solve_linear_at(M: sp.Matrix, F: sp.Matrix, values: Mapping, what: str = "matrix") -> list:
    """Solve M x = F at a state (``values``, every symbol of M and F): exactly if every entry
    is rational there, else with mpmath at the working precision (large entries with
    functions evaluated at fixed precision, ``tree=True``); :class:`SingularMapError` naming
    ``what`` when M is singular at that state."""
    M, F = as_matrix(M, what=what), as_matrix(F, what=f"right-hand side of {what}")
    values = as_values(values, what="solve_linear_at values")
    Mv = [value_at(e, values, tree=True) for e in M]
    Fv = [value_at(e, values, tree=True) for e in F]
    n = M.rows
    if all(isinstance(x, sp.Basic) for x in Mv + Fv):
        Ms = sp.Matrix(n, M.cols, Mv)
        if Ms.det() == 0:
            raise SingularMapError(f"{what} is singular at this state")
        return list(Ms.LUsolve(sp.Matrix(Fv)))
    with mpmath.workdps(precision()):
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


def drop_roundoff(X: sp.MatrixBase) -> sp.Matrix:
    """The numeric matrix X with its round-off set to 0: entries at most
    10^-(2·precision/3) · (1 + max |X_ij|) become exact zeros (differences of results computed
    at the working precision, whose last third of digits is noise)."""
    X = as_matrix(X, what="matrix")
    if not X:
        return X
    with mpmath.workdps(precision()):
        vals = [to_mp(x) for x in X]
        big = max(abs(v) for v in vals)
        tol = mpmath.mpf(10) ** (-(2 * precision() // 3)) * (1 + big)
        keep = [abs(v) > tol for v in vals]
    return sp.Matrix(X.rows, X.cols, [x if k else sp.S.Zero for x, k in zip(X, keep)])


def _field_size(e) -> int:
    """The size of a field element for the pivot choice of :func:`solve_in_field`: the number
    of terms of numerator and denominator of an element of a rational function field, 0 for a
    number (every non-zero number is as good a pivot as another in exact arithmetic)."""
    num, den = getattr(e, "numer", None), getattr(e, "denom", None)
    if num is None or den is None or not hasattr(num, "terms"):
        return 0
    return len(num) + len(den)


def solve_in_field(M, F) -> list:
    """x with M x = F by Gaussian elimination and back substitution, over any field whose
    elements support ``+ − × ÷`` and ``!= 0`` (sympy numbers, or elements of sympy's rational
    function fields: the integral search solves the rates at a sample point in
    ℚ(speeds, parameters), and the coefficients of an integral on its support in
    ℚ(parameters)).  ``M`` is square (a sympy Matrix or a list of rows), ``F`` has one entry
    per row; :class:`SingularMapError` when M is singular.

    Sparse and swell-aware: the pivot of a column is its non-zero entry with the fewest terms
    (numerator and denominator; the first non-zero among equals), a row update
    R_i ← R_i − (a_ic / a_cc) R_c touches only the columns where R_c is non-zero, and each
    unknown is solved once, x_c = (f_c − Σ_{j>c} a_cj x_j) / a_cc (Golub & Van Loan,
    *Matrix Computations*, §3.1–3.2): over ℚ(parameters) every operation cancels a gcd, so
    the work is the number of non-zero products."""
    rows = M.tolist() if isinstance(M, sp.MatrixBase) else [list(as_sequence(r, "matrix row")) for r in
                                                             as_sequence(M, "matrix")]
    rhs = list(F) if isinstance(F, sp.MatrixBase) else list(as_sequence(F, "right-hand side"))
    n = len(rows)
    if n == 0 or any(len(r) != n for r in rows) or len(rhs) != n:
        raise ParseError(f"solve_in_field needs a square matrix and one right-hand side entry per row, "
                         f"got {n} rows of lengths {sorted({len(r) for r in rows})} and {len(rhs)} entries")
    A = [list(rows[i]) + [rhs[i]] for i in range(n)]
    for c in range(n):
        cands = [r for r in range(c, n) if A[r][c] != 0]
        if not cands:
            raise SingularMapError("the matrix is singular: no pivot in column %d" % c)
        piv = min(cands, key=lambda r: _field_size(A[r][c]))
        A[c], A[piv] = A[piv], A[c]
        try:
            inv = 1 / A[c][c]
        except TypeError:
            raise ParseError(f"solve_in_field: the entry {brief(A[c][c])} is not a field element") from None
        nz = [j for j in range(c + 1, n + 1) if A[c][j] != 0]
        for r in range(c + 1, n):
            if A[r][c] != 0:
                f = A[r][c] * inv
                new = [A[r][j] - f * p for j, p in zip(nz, [A[c][j] for j in nz])]
                for j, v in zip(nz, new):
                    A[r][j] = v
    x: list = [None] * n
    for c in range(n - 1, -1, -1):
        acc = A[c][n]
        for j in range(c + 1, n):
            if A[c][j] != 0 and x[j] != 0:
                acc = acc - A[c][j] * x[j]
        x[c] = acc / A[c][c]
    return x
