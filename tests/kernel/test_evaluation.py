"""Values at a point (geonh.kernel.evaluation): value_at, real_value, random_rational, and
as_expression (kernel.space), the one "equation or expression → expression" conversion."""
import random

import mpmath
import pytest
import sympy as sp

from geonh.errors import ParseError, SingularMapError
from geonh.kernel.evaluation import BITS, PRECISION, real_value, to_mp, to_sympy, tree_eval, value_at
from geonh.kernel.sampling import random_rational, sample_points
from geonh.kernel.space import ConfigurationSpace, as_expression

x, y = sp.symbols("x y", real=True)


def test_value_at_is_exact_on_rational_data():
    v = value_at(x ** 2 / y + sp.Rational(1, 3), {x: sp.Rational(2, 3), y: 5})
    assert v == sp.Rational(4, 45) + sp.Rational(1, 3)
    assert isinstance(v, sp.Rational)


def test_value_at_gives_precision_digits_otherwise():
    assert PRECISION == 60 and BITS == int(PRECISION * 3.33) + 8
    v = value_at(sp.sin(x) + sp.sqrt(y), {x: sp.Rational(1, 7), y: 2})
    assert isinstance(v, mpmath.mpf)
    ref = (sp.sin(sp.Rational(1, 7)) + sp.sqrt(2)).evalf(80)
    with mpmath.workdps(80):
        assert abs(v - mpmath.mpf(str(ref))) < mpmath.mpf(10) ** -58
    # 60 digits, not 15: the value tells sin(1/7) + sqrt(2) from its 15-digit rounding
    assert abs(v - mpmath.mpf(float(ref))) > mpmath.mpf(10) ** -40
    f = to_sympy(v)
    assert isinstance(f, sp.Float) and f._prec == sp.Float(1, PRECISION)._prec
    with mpmath.workdps(PRECISION):
        assert to_mp(sp.Rational(1, 3)) == mpmath.mpf(1) / 3
    assert to_mp(f) == v


def test_value_at_names_missing_symbols():
    with pytest.raises(ValueError, match=r"no value given for \['y'\]"):
        value_at(x + y, {x: 1})
    assert value_at(x + y, {x: 1}, strict=False) is None


@pytest.mark.parametrize("expr", [1 / x, sp.log(x) / x, sp.tan(x - x + sp.pi / 2) + x])
def test_value_at_refuses_singular_points(expr):
    with pytest.raises(SingularMapError):
        value_at(expr, {x: 0})
    assert value_at(expr, {x: 0}, strict=False) is None


def test_tree_evaluation_agrees_with_evalf():
    big = sum(sp.sin(k * x + y) * sp.cos(y ** k) for k in range(1, 25))
    pt = {x: sp.Rational(3, 7), y: sp.Rational(5, 11)}
    a = value_at(big, pt)
    b = value_at(big, pt, tree=True)
    with mpmath.workdps(PRECISION):
        assert abs(a - b) < mpmath.mpf(10) ** -(PRECISION - 5)
        assert abs(tree_eval(big, pt, {}) - a) < mpmath.mpf(10) ** -(PRECISION - 5)
    assert value_at(big / (x - pt[x]), pt, strict=False, tree=True) is None


def test_real_value_is_a_sympy_number_or_none():
    assert real_value(x / 3, {x: 2}) == sp.Rational(2, 3)
    r = real_value(sp.sqrt(x), {x: 2})
    assert isinstance(r, sp.Float) and abs(r - sp.sqrt(2)) < sp.Float(10) ** -55
    assert real_value(sp.sqrt(x), {x: -2}) is None  # not real
    assert real_value(1 / x, {x: 0}) is None  # singular
    assert real_value(x + y, {x: 0}) is None  # no value for y


def test_random_rational_is_reproducible_and_in_range():
    a = [random_rational(random.Random(4)) for _ in range(2)]
    assert a[0] == a[1]
    rng1, rng2 = random.Random(9), random.Random(9)
    seq1 = [random_rational(rng1) for _ in range(50)]
    seq2 = [random_rational(rng2) for _ in range(50)]
    assert seq1 == seq2
    assert all(sp.Rational(1, 4) < r <= 2 and r.q <= 41 for r in seq1)
    # the same two draws as written out by hand (the values certificates were computed with)
    rng, ref = random.Random(5), random.Random(5)
    for _ in range(20):
        den = ref.randint(7, 41)
        assert random_rational(rng) == sp.Rational(ref.randint(den // 4 + 1, 2 * den), den)
    rng, ref = random.Random(6), random.Random(6)
    for _ in range(20):
        den = ref.randint(11, 97)
        assert random_rational(rng, 11, 97, divisor=5, top=3) == sp.Rational(ref.randint(den // 5 + 1, 3 * den), den)


def test_sample_points_keep_their_values():
    """The generic-point sample points (fixed seed) are part of every verdict: pinned."""
    (pt,) = sample_points({x, y}, 1)
    assert pt == {x: sp.Rational(116, 57), y: sp.Rational(20, 7)}
    assert sample_points({x, y}, 1) == (pt,)


def test_as_expression_reads_equalities_as_lhs_minus_rhs():
    S = ConfigurationSpace("x y")
    xd, yd = S.qd
    assert as_expression(sp.Eq(yd, sp.tan(S.q[0]) * xd)) == yd - sp.tan(S.q[0]) * xd
    assert as_expression(xd - yd) == xd - yd
    assert as_expression(0) == 0
    assert as_expression("x_dot - y_dot", S.state_symbols) == xd - yd
    with pytest.raises(ParseError, match="constraint"):
        as_expression("__import__('os')", S.state_symbols, what="constraint")
    with pytest.raises(ParseError):
        as_expression(None)


# -- the working precision: one setting, read where it is used ---------------------------------------
def test_set_precision_reaches_modules_that_used_to_import_it_by_value():
    """certificate, equations.base, velocity_frames, equations.nonlinear imported PRECISION by
    value: a change of the working precision did not reach them."""
    import geonh
    from geonh import models
    from geonh.kernel import evaluation
    from geonh.kernel.evaluation import precision, set_precision, state_tolerance, working_precision
    m = models.get("chaplygin-sleigh")
    bh, lag = geonh.boltzmann_hamel(m.system, m.frame), geonh.lagrange(m.system)
    assert precision() == 60 and "60-digit" in geonh.same_motion(bh, lag).method
    old = set_precision(80)
    try:
        assert old == 60 and evaluation.PRECISION == 80 and evaluation.BITS == int(80 * 3.33) + 8
        assert "80-digit" in geonh.same_motion(bh, lag).method          # certificate
        assert state_tolerance() == sp.Float(10) ** -26                  # velocity_frames, nonlinear
        with working_precision(100):
            f = to_sympy(mpmath.mpf(1) / 3)                               # evaluation itself
            assert f._prec == sp.Float(1, 100)._prec
        assert precision() == 80
    finally:
        set_precision(old)
    assert precision() == 60


@pytest.mark.parametrize("bad", [10, 5000, 60.0, "80", True])
def test_set_precision_refuses_what_is_not_a_working_precision(bad):
    from geonh.kernel.evaluation import precision, set_precision
    with pytest.raises(ParseError, match="working precision"):
        set_precision(bad)
    assert precision() == 60


def test_values_at_evaluates_a_matrix_in_one_call():
    from geonh.kernel.evaluation import values_at
    pt = {x: sp.Rational(1, 3), y: sp.Rational(2, 5)}
    exprs = [x * y, sp.sin(x) + y, 1 / (x - sp.Rational(1, 3))]
    got = values_at(exprs, pt)
    assert got[0] == sp.Rational(2, 15) and got[2] is None
    with mpmath.workdps(PRECISION):
        assert abs(got[1] - value_at(exprs[1], pt)) < mpmath.mpf(10) ** -50
    # with symengine images: the sympy expressions are asked for only where symengine fails
    se = pytest.importorskip("symengine")
    asked = []
    natives = [se.sympify(e) for e in exprs]
    again = values_at(lambda k: asked.append(k) or exprs[k], pt, natives)
    assert asked == [2] and again[0] == got[0] and again[2] is None
