"""The batched zero verdicts of issue 22 ("validate once"): all_zero and product_is_zero give
is_zero's verdict on every entry, in one evaluation per sample point; is_zero skips the
term-size scale for every value below the tolerance (a true zero never needs it)."""
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from geonh.errors import DimensionError
from geonh.kernel import generic_point
from geonh.kernel.generic_point import all_zero, is_zero, product_is_zero
from geonh.kernel.space import ConfigurationSpace
from geonh.testing import strategies as gst

S3 = ConfigurationSpace("x y z")
x, y, z = S3.q


@st.composite
def zero_or_not(draw, space):
    """f − g with g either f rewritten (expanded, trig-expanded: an unexpanded zero) or another
    random function (almost always not zero)."""
    f = draw(gst.functions(space))
    if draw(st.booleans()):
        g = sp.expand(sp.expand_trig(f))
    else:
        g = draw(gst.functions(space))
    return sp.Add(f, -g, evaluate=False) if draw(st.booleans()) else f - g


@pytest.mark.slow
@settings(deadline=None, max_examples=15)
@given(st.lists(zero_or_not(S3), min_size=1, max_size=4))
def test_all_zero_is_the_verdict_of_is_zero_on_every_entry(exprs):
    assert all_zero(exprs) == all(is_zero(e) for e in exprs)


def test_all_zero_on_trigonometric_identities():
    zero = sp.sin(x) ** 2 + sp.cos(x) ** 2 - 1
    assert all_zero([zero, sp.sin(2 * x) - 2 * sp.sin(x) * sp.cos(x), sp.S.Zero])
    assert not all_zero([zero, zero + sp.Rational(1, 10**12)])    # a tiny non-zero rest is seen
    assert not all_zero([zero, sp.S(3)])
    assert all_zero([])
    with pytest.raises(DimensionError):
        all_zero([zero], natives=[])


def test_all_zero_non_analytic_entries_are_decided_with_signed_points():
    # |x| − x vanishes on the positive orthant only: the signed points of is_zero must see it
    assert not all_zero([sp.Abs(x) - x])
    assert all_zero([sp.Abs(x) ** 2 - x ** 2])


@pytest.mark.slow
@settings(deadline=None, max_examples=10)
@given(st.data())
def test_product_is_zero_agrees_with_duality(data):
    """B·C = I for a random frame: the block B[R, :]·C[:, K] vanishes exactly when R and K are
    disjoint — inputs the function was not written for (random trig/polynomial frames)."""
    S = data.draw(gst.configuration_spaces(2, 4))
    F = data.draw(gst.frames(S))
    n = S.dim
    R = data.draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=n, unique=True))
    K = data.draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=n, unique=True))
    A, X = F.B.extract(R, list(range(n))), F.C.extract(list(range(n)), K)
    verdict = product_is_zero(A, X)
    assert verdict == (not set(R) & set(K))
    assert verdict == all(is_zero(e) for e in A * X)


def test_product_is_zero_shapes_and_exact_data():
    A = sp.Matrix([[1, 2], [2, 4]])
    assert product_is_zero(A, sp.Matrix([[2], [-1]]))
    assert not product_is_zero(A, sp.Matrix([[1], [0]]))
    assert product_is_zero(sp.zeros(0, 2), sp.Matrix([[1], [0]]))
    with pytest.raises(DimensionError):
        product_is_zero(A, sp.Matrix([[1, 2, 3]]))
    # functions, a zero product whose terms cancel: (sin, cos)·(cos, −sin)ᵀ
    assert product_is_zero(sp.Matrix([[sp.sin(x), sp.cos(x)]]), sp.Matrix([[sp.cos(x)], [-sp.sin(x)]]))
    assert not product_is_zero(sp.Matrix([[sp.sin(x), sp.cos(x)]]), sp.Matrix([[sp.cos(x)], [sp.sin(x)]]))
    # non-analytic: the symbolic product goes to all_zero (signed points)
    assert not product_is_zero(sp.Matrix([[sp.Abs(y), -1]]), sp.Matrix([[1], [y]]))


def test_is_zero_skips_the_term_scale_of_a_true_zero(monkeypatch):
    """The cheap path: a value below 10^-(PRECISION/2) is zero whatever the terms' size (the
    scale is at least 1), so term_scale is evaluated only for values above it."""
    calls = []
    real = generic_point.term_scale
    monkeypatch.setattr(generic_point, "term_scale", lambda e, pt: calls.append(e) or real(e, pt))
    zero = sp.sin(x + y) - sp.sin(x) * sp.cos(y) - sp.cos(x) * sp.sin(y)
    assert is_zero(zero)
    assert calls == []
    assert not is_zero(zero + sp.Rational(1, 10**20) * sp.cos(z))   # above the tolerance: scaled
    assert calls


def test_symbols_of_one_name_are_not_one_symbol():
    """symengine's symbols are names: a positive x and a plain x must not get one value (their
    difference would look identically zero).  The batched verdicts, and the generic rank,
    take the sympy route then."""
    xp, xr = sp.Symbol("x", positive=True), sp.Symbol("x")
    assert not all_zero([sp.sin(xp) - sp.sin(xr)])
    assert not product_is_zero(sp.Matrix([[sp.sin(xp), -1]]), sp.Matrix([[1], [sp.sin(xr)]]))
    assert generic_point.generic_rank(sp.Matrix([[sp.sin(xp), sp.sin(xr)], [1, 1]])) == 2
    assert all_zero([sp.sin(xp) ** 2 + sp.cos(xp) ** 2 - 1, sp.sin(xr) - sp.sin(xr)])


@pytest.mark.slow
@settings(deadline=None, max_examples=15)
@given(st.lists(gst.functions(S3), min_size=1, max_size=3), st.data())
def test_the_float_screen_bound_built_in_symengine_is_the_sympy_bound(exprs, data):
    """The rounding-error bound A(e) of the float screen, built node for node in symengine
    (_magnitude_native), has the value of the sympy-built one (_magnitude) at random points;
    the screen's values and bounds are those of the sympy route."""
    import numpy as np
    import symengine as se
    exprs = [e + sp.sqrt(1 + x ** 2) * y ** -2 if data.draw(st.booleans()) else e for e in exprs]
    exprs = [e if e.free_symbols else e + z for e in exprs]   # constants alone: no screen (None)
    pt = {s: sp.Rational(data.draw(st.integers(1, 50)), 7) for s in S3.q}
    for e in exprs:
        A_sympy = generic_point._magnitude(e, {})
        A_native = generic_point._magnitude_native(se.sympify(e), {}, se)
        a = float(A_sympy.xreplace(pt))
        b = float(sp.sympify(A_native).xreplace({sp.Symbol(str(k)): v for k, v in pt.items()}))
        assert b == pytest.approx(a, rel=1e-12, abs=1e-300)
    syms = sorted(S3.q, key=lambda s: s.name)
    native = generic_point.float_values(exprs, [pt])[0]
    reference = generic_point._compiled(tuple(exprs + [generic_point._magnitude(e, {}) for e in exprs]),
                                        tuple(syms))(np.array([float(pt[s]) for s in syms]))
    k = len(exprs)
    ref = np.asarray(reference, dtype=float).reshape(-1)
    assert np.allclose(native[0], ref[:k], rtol=1e-12)
    assert np.allclose(native[1], generic_point.FLOAT_SAFETY * np.finfo(float).eps * np.abs(ref[k:]), rtol=1e-12)
