"""The zero and rank verdicts keep their round-off tolerance 10^-(PRECISION/2) (10^-30 at the
default 60 digits): a quantity of size 1e-8, or a rank drop at the 1e-4 scale, is not round-off.

Mutation guards (benchmarks/mutation_score.py, ``is-zero-tolerance`` and ``rank-tolerance``):
a zero test loosened to 1e-6 or a rank tolerance loosened to 1e-3 passes every other fast test.
"""
import mpmath
import sympy as sp

from geonh.kernel import evaluation
from geonh.kernel.generic_point import generic_rank, is_zero
from geonh.kernel.linalg import numeric_rank

x, y, z = sp.symbols("x y z", real=True)
SMALL = sp.Rational(1, 10**8)


def test_roundoff_is_half_the_working_precision():
    assert evaluation.precision() == 60


def test_a_polynomial_of_size_1e8_is_not_zero():
    # exact coefficients are decided exactly; a float coefficient goes through the tolerance
    assert not is_zero(SMALL * x)
    assert not is_zero(SMALL * (x * y + 1))
    assert not is_zero(sp.Float("1e-8", 30) * x)
    assert not is_zero(x * y * (1 + sp.Float("1e-8", 30)) - x * y)


def test_a_transcendental_remainder_of_size_1e8_is_not_zero():
    # the identity sin² + cos² = 1 cancels to round-off; the 1e-8 term is what remains
    e = sp.sin(x) ** 2 + sp.cos(x) ** 2 - 1 + SMALL * sp.exp(-y ** 2)
    assert not is_zero(e)
    assert is_zero(e - SMALL * sp.exp(-y ** 2))


def test_numeric_rank_sees_a_drop_at_1e4():
    with mpmath.workdps(60):
        rows = [[mpmath.mpf(1), mpmath.mpf(1)], [mpmath.mpf(1), 1 + mpmath.mpf("1e-4")]]
    assert numeric_rank(rows) == 2
    assert numeric_rank([[mpmath.mpf(1), mpmath.mpf(1)], [mpmath.mpf(1), mpmath.mpf(1)]]) == 1


def test_generic_rank_sees_a_drop_at_1e4():
    # rank 2 of 3 (no float screen proves full rank), non-rational entries (no exact sample):
    # the decision is the PRECISION-digit numeric rank, whose second singular value is ~1e-4
    eps = sp.Rational(1, 10**4)
    M = sp.Matrix([[sp.sin(x), sp.cos(x), 0], [sp.sin(x), sp.cos(x) + eps * sp.exp(y), 0], [0, 0, 0]])
    assert generic_rank(M) == 2
    assert generic_rank(M - sp.Matrix([[0, 0, 0], [0, eps * sp.exp(y), 0], [0, 0, 0]])) == 1
