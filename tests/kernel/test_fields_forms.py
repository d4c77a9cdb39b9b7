"""Vector fields, brackets, forms, d, wedge, interior products and Lie derivatives.

Property tests draw random spaces, fields and forms from :mod:`geonh.testing.strategies` and
compare with :func:`geonh.kernel.generic_point.is_zero` on differences.
"""
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from kernel_helpers import same_field, same_form

from geonh.errors import DimensionError, SpaceMismatchError
from geonh.kernel.fields import VectorField, bracket, coordinate_fields, fields_matrix
from geonh.kernel.forms import (
    Form,
    OneForm,
    d,
    differential,
    exterior_derivative,
    interior,
    lie_derivative,
    wedge,
)
from geonh.kernel.generic_point import is_zero
from geonh.kernel.space import ConfigurationSpace
from geonh.testing import strategies as gst


def space_and(n_min, n_max, *builders, time=None):
    """A space with dim in [n_min, n_max] and one draw from each builder(space)."""
    return gst.configuration_spaces(n_min, n_max, time=time).flatmap(
        lambda S: st.tuples(st.just(S), *[b(S) for b in builders]))


# -- known values -----------------------------------------------------------------------------
def test_bracket_sign_convention():
    S = ConfigurationSpace("x y")
    x, y = S.q
    dx, dy = coordinate_fields(S)
    # CONVENTIONS.md check: [∂_x, x ∂_y] = +∂_y
    assert bracket(dx, x * dy).components == (0, 1)
    assert bracket(x * dy, dx).components == (0, -1)


def test_field_action_and_algebra():
    S = ConfigurationSpace("x y")
    x, y = S.q
    X = VectorField(S, [y, x**2])
    assert sp.expand(X(x * y) - (y**2 + x**3)) == 0
    assert X(sp.Symbol("k")) == 0  # parameters are constants
    assert (X + X).components == (2 * y, 2 * x**2)
    assert (X - X).is_zero()
    assert (-X).components == (-y, -x**2)
    assert (x * X).components == (x * y, x**3) == (X * x).components
    assert VectorField.from_dict(S, {"y": 3}).components == (0, 3)
    assert VectorField.zero(S).is_zero() and not X.is_zero()
    assert X.equals(VectorField(S, [y, x * x]))
    assert fields_matrix([X, VectorField.coordinate(S, y)]) == sp.Matrix([[y, 0], [x**2, 1]])
    assert len(X) == 2 and list(X) == [y, x**2] and X[1] == x**2
    assert "d_x" in repr(X) and repr(VectorField.zero(S)) == "VectorField(0)"
    assert r"\partial_{y}" in sp.latex(X)


def test_wedge_has_no_half():
    S = ConfigurationSpace("x y")
    dx, dy = (differential(S, s) for s in S.q)
    w = wedge(dx, dy)
    X, Y = coordinate_fields(S)
    assert w(X, Y) == 1 and w(Y, X) == -1
    assert (dx ^ dy).components == {(0, 1): 1}
    assert wedge(dx, dx).is_zero()


def test_exterior_derivative_known():
    S = ConfigurationSpace("x y z")
    x, y, z = S.q
    theta = OneForm(S, [-y, 0, 1])  # dz − y dx
    dth = d(theta)
    assert dth.degree == 2
    assert dth.components == {(0, 1): 1}  # d(−y dx) = −dy ∧ dx = dx ∧ dy
    assert d(x * y * z, S).covector == (y * z, x * z, x * y)
    with pytest.raises(TypeError):
        d(x)
    with pytest.raises(TypeError):
        exterior_derivative(x)


def test_form_component_access_and_sorting():
    S = ConfigurationSpace("x y z")
    w = Form(S, 2, {("y", "x"): 5})
    assert w.components == {(0, 1): -5}
    assert w.component(1, 0) == 5 and w.component("x", "y") == -5 and w.component(0, 0) == 0
    assert Form(S, 2, {(0, 0): 1}).is_zero()
    assert Form(S, 4, {}).is_zero()  # degree above dim: necessarily zero
    assert Form(S, 0, {(): 7})() == 7
    with pytest.raises(DimensionError):
        Form(S, 2, {(0,): 1})
    with pytest.raises(DimensionError):
        Form(S, -1, {})
    with pytest.raises(DimensionError):
        w(VectorField.coordinate(S, "x"))
    with pytest.raises(DimensionError):
        OneForm(S, [1, 2]) + w


# -- properties -------------------------------------------------------------------------------
@settings(deadline=None)
@given(space_and(1, 4, gst.vector_fields, gst.vector_fields))
def test_bracket_antisymmetric(data):
    S, X, Y = data
    assert same_field(X.bracket(Y), -Y.bracket(X))
    assert X.bracket(X).is_zero()


@pytest.mark.slow
@settings(deadline=None)
@given(space_and(1, 3, gst.vector_fields, gst.vector_fields, gst.vector_fields))
def test_jacobi_identity(data):
    S, X, Y, Z = data
    J = bracket(X, bracket(Y, Z)) + bracket(Y, bracket(Z, X)) + bracket(Z, bracket(X, Y))
    assert J.is_zero()


@settings(deadline=None)
@given(space_and(1, 4, gst.vector_fields, gst.vector_fields, gst.functions))
def test_bracket_leibniz(data):
    S, X, Y, f = data
    assert same_field(bracket(X, f * Y), X(f) * Y + f * bracket(X, Y))


@pytest.mark.slow
@settings(deadline=None)
@given(space_and(1, 4, gst.vector_fields, gst.vector_fields, gst.functions))
def test_bracket_is_commutator_on_functions(data):
    S, X, Y, f = data
    assert is_zero(bracket(X, Y)(f) - (X(Y(f)) - Y(X(f))))


def _diffgeom_bracket(S, X, Y):
    """[X, Y] computed by sympy.diffgeom's Commutator (an independent implementation)."""
    from sympy.diffgeom import Commutator, CoordSystem, Manifold, Patch
    M = Manifold("M", S.dim)
    P = Patch("P", M)
    cs = CoordSystem("c", P, list(S.coords))
    fs, es = cs.coord_functions(), cs.base_vectors()
    to_dg = dict(zip(S.coords, fs))
    back = dict(zip(fs, S.coords))

    def field(V):
        return sp.Add(*[c.xreplace(to_dg) * e for c, e in zip(V.components, es)])

    if X.is_zero() or Y.is_zero():  # diffgeom rejects the zero field
        return [sp.S.Zero] * S.dim
    C = Commutator(field(X), field(Y))
    return [sp.sympify(C.rcall(f)).xreplace(back) if C != 0 else sp.S.Zero for f in fs]


@pytest.mark.slow
@settings(deadline=None)
@given(space_and(1, 3, gst.vector_fields, gst.vector_fields))
def test_bracket_agrees_with_sympy_diffgeom(data):
    S, X, Y = data
    ref = _diffgeom_bracket(S, X, Y)
    mine = bracket(X, Y).components
    assert all(is_zero(a - b) for a, b in zip(mine, ref))


@settings(deadline=None)
@given(space_and(1, 4, gst.functions))
def test_dd_function_is_zero(data):
    S, f = data
    assert d(d(f, S)).is_zero()


@settings(deadline=None)
@given(space_and(2, 4, gst.one_forms))
def test_dd_one_form_is_zero(data):
    S, th = data
    dd = d(d(th))
    assert dd.degree == 3 and dd.is_zero()


@settings(deadline=None)
@given(space_and(3, 4, lambda S: gst.forms(S, 2)))
def test_dd_two_form_is_zero(data):
    S, w = data
    dd = d(d(w))
    assert dd.degree == 4 and dd.is_zero()


@pytest.mark.slow
@settings(deadline=None)
@given(space_and(1, 4, gst.one_forms, gst.vector_fields, gst.vector_fields))
def test_invariant_formula_for_d(data):
    S, th, X, Y = data
    lhs = d(th)(X, Y)
    rhs = X(th(Y)) - Y(th(X)) - th(bracket(X, Y))
    assert is_zero(lhs - rhs)


@pytest.mark.slow
@settings(deadline=None)
@given(space_and(1, 4, gst.one_forms, gst.one_forms, gst.vector_fields, gst.vector_fields))
def test_wedge_evaluation_no_half(data):
    S, a, b, X, Y = data
    assert is_zero(wedge(a, b)(X, Y) - (a(X) * b(Y) - a(Y) * b(X)))
    assert same_form(wedge(a, b), -wedge(b, a))


@settings(deadline=None)
@given(space_and(2, 4, gst.one_forms, lambda S: gst.forms(S, 2)))
def test_d_is_antiderivation(data):
    S, a, w = data
    assert same_form(d(wedge(a, w)), wedge(d(a), w) - wedge(a, d(w)))


@settings(deadline=None)
@given(space_and(1, 4, gst.vector_fields, gst.functions))
def test_cartan_on_functions(data):
    S, X, f = data
    # L_X f = i_X d f  (+ d i_X f, and i_X f = 0)
    assert is_zero(lie_derivative(X, f) - interior(X, d(f, S)))
    assert interior(X, Form(S, 0, {(): f})) == 0


@settings(deadline=None)
@given(space_and(1, 4, gst.vector_fields, gst.one_forms))
def test_cartan_on_one_forms(data):
    S, X, th = data
    cartan = d(interior(X, th), S) + interior(X, d(th))
    assert same_form(lie_derivative(X, th), cartan)


@settings(deadline=None)
@given(space_and(2, 4, gst.vector_fields, lambda S: gst.forms(S, 2)))
def test_cartan_on_two_forms(data):
    S, X, w = data
    cartan = d(interior(X, w)) + interior(X, d(w))
    assert same_form(lie_derivative(X, w), cartan)


@settings(deadline=None)
@given(space_and(2, 4, gst.vector_fields, gst.vector_fields, lambda S: gst.forms(S, 2)))
def test_interior_product_is_first_slot(data):
    S, X, Y, w = data
    assert is_zero(interior(X, w)(Y) - w(X, Y))


@pytest.mark.slow
@settings(deadline=None)
@given(space_and(1, 3, gst.vector_fields, gst.vector_fields, gst.one_forms))
def test_lie_derivative_of_one_form_evaluated(data):
    S, X, Y, th = data
    # (L_X θ)(Y) = X(θ(Y)) − θ([X, Y])
    assert is_zero(lie_derivative(X, th)(Y) - (X(th(Y)) - th(bracket(X, Y))))
    assert same_field(lie_derivative(X, Y), bracket(X, Y))


# -- errors at the boundary ---------------------------------------------------------------------
def test_mixing_spaces_raises():
    S1, S2 = ConfigurationSpace("x y"), ConfigurationSpace("u v")
    X1, X2 = VectorField(S1, [1, 0]), VectorField(S2, [1, 0])
    th2 = OneForm(S2, [1, 0])
    for bad in (lambda: X1 + X2, lambda: X1 - X2, lambda: bracket(X1, X2), lambda: th2(X1),
                lambda: interior(X1, th2), lambda: wedge(OneForm(S1, [1, 0]), th2),
                lambda: lie_derivative(X1, th2), lambda: fields_matrix([X1, X2]),
                lambda: X1.equals(X2)):
        with pytest.raises(SpaceMismatchError):
            bad()


def test_type_errors():
    S = ConfigurationSpace("x y")
    X = VectorField(S, [1, 0])
    th = OneForm(S, [1, 0])
    with pytest.raises(TypeError):
        X.bracket(th)
    with pytest.raises(TypeError):
        X(X)
    with pytest.raises(TypeError):
        th(th)
    with pytest.raises(TypeError):
        VectorField("x y", [1, 0])
    with pytest.raises(TypeError):
        wedge(th, S.q[0])
    with pytest.raises(ValueError):
        wedge()
