"""The public hypothesis strategies (geonh.testing.strategies) produce what they promise."""
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import geonh.testing
from geonh.kernel.distributions import Codistribution, Distribution
from geonh.kernel.fields import VectorField
from geonh.kernel.forms import Form, OneForm
from geonh.kernel.frames import Frame
from geonh.kernel.generic_point import generic_rank
from geonh.kernel.space import ConfigurationSpace
from geonh.testing import strategies as gst


def with_space(builder, lo=1, hi=4, time=False):
    return gst.configuration_spaces(lo, hi, time=time).flatmap(
        lambda S: st.tuples(st.just(S), builder(S)))


@settings(deadline=None)
@given(st.data())
def test_configuration_spaces(data):
    lo = data.draw(st.integers(1, 4))
    hi = data.draw(st.integers(max(lo, 2), 5))
    t = data.draw(st.sampled_from([False, True, None]))
    S = data.draw(gst.configuration_spaces(lo, hi, time=t))
    assert isinstance(S, ConfigurationSpace)
    assert max(lo, 2 if S.is_rheonomic else 1) <= S.dim <= hi
    if t is not None:
        assert S.is_rheonomic == t
    assert S.n == S.dim - (1 if S.is_rheonomic else 0)
    assert all(s.is_real for s in S.coords)


def test_configuration_spaces_bad_arguments():
    with pytest.raises(ValueError):
        gst.configuration_spaces(3, 2)
    with pytest.raises(ValueError):
        gst.configuration_spaces(0, 2)
    with pytest.raises(ValueError):
        gst.configuration_spaces(1, 1, time=True)


def _degree(expr, coords):
    return sp.Poly(expr, *coords).total_degree() if expr != 0 else 0


@settings(deadline=None)
@given(with_space(gst.polynomial_functions))
def test_polynomial_functions_are_small(data):
    S, f = data
    assert f.free_symbols <= set(S.coords)
    assert f.is_polynomial(*S.coords) and _degree(f, S.coords) <= 2
    assert len(sp.Add.make_args(f)) <= 3


@settings(deadline=None)
@given(with_space(gst.trigonometric_functions))
def test_trigonometric_functions(data):
    S, f = data
    assert f.free_symbols <= set(S.coords)
    funcs = {type(a) for a in f.atoms(sp.Function)}
    assert funcs <= {sp.sin, sp.cos}
    assert len(sp.Add.make_args(f)) <= 3


@settings(deadline=None)
@given(with_space(gst.functions, time=None))
def test_functions_live_on_the_space(data):
    S, f = data
    assert f.free_symbols <= set(S.coords)


@settings(deadline=None)
@given(with_space(lambda S: st.tuples(gst.vector_fields(S), gst.one_forms(S),
                                      gst.vector_fields(S, kind="polynomial"))))
def test_fields_and_one_forms(data):
    S, (X, th, P) = data
    assert isinstance(X, VectorField) and X.space == S and len(X.components) == S.dim
    assert isinstance(th, OneForm) and th.space == S
    assert all(c.is_polynomial(*S.coords) for c in P.components)


@settings(deadline=None)
@given(with_space(lambda S: st.integers(0, S.dim + 1).flatmap(
    lambda k: st.tuples(st.just(k), gst.forms(S, k)))))
def test_forms_have_the_degree(data):
    S, (k, w) = data
    assert isinstance(w, Form) and w.space == S and w.degree == k
    assert isinstance(w, OneForm) == (k == 1)
    assert all(len(I) == k for I in w.components)


@pytest.mark.slow
@settings(deadline=None)
@given(with_space(lambda S: gst.invertible_matrices(S, with_inverse=True), hi=4))
def test_invertible_matrices_have_constant_determinant(data):
    S, (M, Minv) = data
    det = sp.expand(M.det(method="berkowitz"))
    assert det in (1, -1)
    assert (M * Minv).applyfunc(sp.expand) == sp.eye(S.dim)


@pytest.mark.slow
@settings(deadline=None)
@given(with_space(lambda S: st.sampled_from(["exact", "lu"]).flatmap(
    lambda inv: gst.frames(S, inverse=inv)), hi=3))
def test_frames_are_independent_frames(data):
    S, F = data
    assert isinstance(F, Frame) and F.space == S
    assert sp.expand(F.C.det(method="berkowitz")) in (1, -1)
    assert generic_rank(F.B * F.C - sp.eye(S.dim)) == 0


@pytest.mark.slow
@settings(deadline=None)
@given(with_space(lambda S: st.integers(0, S.dim).flatmap(lambda r: st.tuples(
    st.just(r), gst.distributions(S, r, redundant=True), gst.codistributions(S, r))), hi=4))
def test_distributions_have_the_rank(data):
    S, (r, D, C) = data
    assert isinstance(D, Distribution) and D.rank == r
    assert len(D.fields) == r + (1 if r >= 1 else 0)
    assert isinstance(C, Codistribution) and C.rank == r


@pytest.mark.slow
@settings(deadline=None)
@given(with_space(lambda S: st.integers(0, S.dim).flatmap(lambda r: st.tuples(
    st.just(r), gst.integrable_codistributions(S, r))), hi=4))
def test_integrable_codistributions_come_with_integrals(data):
    S, (r, (C, ints)) = data
    assert C.rank == r and len(ints) == r
    if r:
        J = sp.Matrix([[sp.diff(f, s) for s in S.coords] for f in ints])
        assert generic_rank(J) == r


def test_rank_arguments_checked():
    S = ConfigurationSpace("x y")
    for strat in (gst.distributions, gst.codistributions, gst.integrable_codistributions):
        with pytest.raises(ValueError):
            strat(S, 3)
    with pytest.raises(ValueError):
        gst.functions(S, kind="rational")
    with pytest.raises(ValueError):
        gst.frames(S, inverse="magic")
    with pytest.raises(ValueError):
        gst.forms(S, -1)


def test_public_names():
    assert geonh.testing.strategies is gst
    for name in gst.__all__:
        obj = getattr(gst, name)
        assert callable(obj) and obj.__doc__, name
    for name in ["configuration_spaces", "polynomial_functions", "trigonometric_functions",
                 "functions", "vector_fields", "one_forms", "forms", "frames", "distributions"]:
        assert name in gst.__all__
