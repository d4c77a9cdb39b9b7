"""The expression backend (geonh.kernel.backend): the switch, the conversions, the symengine
hot paths against the sympy route, and one test per fallback to sympy."""
import os
import subprocess
import sys

import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from geonh.errors import GeonhError
from geonh.kernel import backend as be
from geonh.kernel.fields import VectorField
from geonh.kernel.forms import OneForm
from geonh.kernel.frames import Frame
from geonh.kernel.generic_point import is_zero
from geonh.kernel.space import ConfigurationSpace
from geonh.testing import strategies as gst

needs_symengine = pytest.mark.skipif(not be.SYMENGINE_AVAILABLE, reason="symengine not installed")


def _same(xs, ys) -> bool:
    xs, ys = sp.flatten(list(xs)), sp.flatten(list(ys))
    return len(xs) == len(ys) and all(is_zero(sp.sympify(x) - y) for x, y in zip(xs, ys))


def _coefficients(fields, coframe, backend, inverse):
    with be.using_backend(backend):
        F = Frame(fields, coframe=coframe) if inverse == "exact" else Frame(fields)
        return F.B, F.structure_coefficients()


# -- the switch -------------------------------------------------------------------------------
def test_set_backend_rejects_unknown_names():
    before = be.get_backend()
    for bad in ("maple", "", None, 3):
        with pytest.raises(be.BackendError) as err:
            be.set_backend(bad)
        assert isinstance(err.value, GeonhError) and isinstance(err.value, ValueError)
    assert be.get_backend() == before


def test_using_backend_restores_even_on_error():
    before = be.get_backend()
    with be.using_backend("sympy"):
        assert be.get_backend() == "sympy" and not be.use_symengine()
    assert be.get_backend() == before
    with pytest.raises(RuntimeError):
        with be.using_backend("sympy"):
            raise RuntimeError
    assert be.get_backend() == before
    assert be.set_backend(" SymPy ") == before and be.get_backend() == "sympy"
    be.set_backend(before)


def test_environment_variable_is_read_at_import():
    code = "from geonh.kernel import backend as b; print(b.get_backend())"
    env = dict(os.environ, GEONH_BACKEND="sympy")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert out.stdout.strip() == "sympy"
    env["GEONH_BACKEND"] = "nonsense"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode != 0 and "BackendError" in out.stderr


@pytest.mark.skipif(os.environ.get("GEONH_BACKEND", "").strip() != "", reason="GEONH_BACKEND set")
def test_default_is_symengine_when_available():
    assert be.get_backend() == ("symengine" if be.SYMENGINE_AVAILABLE else "sympy")


# -- conversion ---------------------------------------------------------------------------------
@needs_symengine
def test_round_trip_keeps_symbols_with_assumptions_and_sharing():
    x = sp.Symbol("x", positive=True)
    y = sp.Symbol("y", real=True)
    d = sp.Dummy("z")
    M = sp.Matrix([[sp.sin(x - y) * x, sp.sqrt(x) + d], [sp.exp(y) / x, sp.Rational(3, 7) + sp.pi]])
    T = be.Translation()
    Ms = T.to_symengine(M)
    back = T.to_sympy(Ms)
    assert back == M
    assert back.free_symbols == {x, y, d}
    # sympy re-evaluates on the original symbols: sqrt(x**2) is x for positive x
    assert T.to_sympy(be.se.sqrt(T.to_symengine(x) ** 2)) == x
    # the canonical assembly equals sympy's own construction
    e = be.se.expand((Ms[0, 0] + Ms[1, 0]) ** 2 - 3 * Ms[0, 1])
    assert T.to_sympy(e) == e._sympy_().xreplace({sp.Symbol("x"): x, sp.Symbol("y"): y})


@needs_symengine
def test_primitives_bracket_jacobian_inverse():
    x, y = sp.symbols("x y", real=True)
    T = be.Translation()
    X, Y, syms = T.to_symengine([1, 0]), T.to_symengine([0, x]), T.to_symengine([x, y])
    assert T.to_sympy(be.lie_bracket(X, Y, syms)) == [0, 1]      # [∂_x, x ∂_y] = +∂_y
    assert be.lie_bracket([1, 0], [0, x], [x, y]) == [0, 1]       # sympy objects: sympy route
    J = T.to_sympy(be.jacobian(T.to_symengine([x * y, sp.sin(x)]), syms))
    assert J == sp.Matrix([[y, x], [sp.cos(x), 0]])
    for n in (2, 5):
        M = sp.Matrix(n, n, lambda i, j: (sp.cos(x) if i == j else 0) + (y if j > i else 0))
        M[0, 0] = 0  # forces a row exchange in the generic-point pivot order
        M[n - 1, 0] = 1
        Ms = T.to_symengine(M)
        Minv = T.to_sympy(be.inverse(Ms))
        assert all(is_zero(e) for e in Minv * M - sp.eye(n))
        sol = T.to_sympy(be.lu_solve(Ms, T.to_symengine(sp.ones(n, 1))))
        assert all(is_zero(e) for e in M * sol - sp.ones(n, 1))
    with pytest.raises(GeonhError):
        be.inverse(T.to_symengine(sp.Matrix(5, 5, lambda i, j: x ** i * y ** j * 0 + i + j)))


# -- the two backends agree (property test) -------------------------------------------------------
@needs_symengine
@settings(deadline=None, max_examples=8)
@given(gst.configuration_spaces(2, 4).flatmap(
    lambda S: st.tuples(gst.frames(S), st.sampled_from(["exact", "lu"]), gst.vector_fields(S), gst.vector_fields(S))))
def test_backends_give_identical_structure_coefficients_and_brackets(data):
    F, inverse, X, Y = data
    fields, coframe = list(F.fields), list(F.coframe)
    B1, c1 = _coefficients(fields, coframe, "symengine", inverse)
    B2, c2 = _coefficients(fields, coframe, "sympy", inverse)
    assert _same(B1, B2)
    assert _same(c1, c2)
    with be.using_backend("symengine"):
        b1, v1 = X.bracket(Y), X(Y[0])
    with be.using_backend("sympy"):
        b2, v2 = X.bracket(Y), X(Y[0])
    assert _same(b1.components, b2.components) and is_zero(v1 - v2)


@needs_symengine
def test_trailer_frame_agrees_exactly_at_random_points():
    from geonh.models import kinematic
    m = kinematic.n_trailer(2)
    fields = list(m.frame.fields)
    B1, c1 = _coefficients(fields, None, "symengine", "lu")
    B2, c2 = _coefficients(fields, None, "sympy", "lu")
    assert _same(B1, B2) and _same(c1, c2)


# -- one test per fallback path ---------------------------------------------------------------------
def _both(fn):
    with be.using_backend("symengine"):
        a = fn()
    with be.using_backend("sympy"):
        b = fn()
    return a, b


@needs_symengine
def test_fallback_unsupported_function_abs_keeps_sympys_derivative():
    S = ConfigurationSpace("x y")
    x, y = S.q
    X, Y = VectorField(S, [1, 0]), VectorField(S, [0, sp.Abs(x)])
    assert not be.supports(Y.components)
    assert "Abs" in be.unsupported_reason(sp.Abs(x))
    with pytest.raises(be.UnsupportedExpressionError):
        be.to_symengine(sp.Abs(x))
    a, b = _both(lambda: X.bracket(Y).components)
    assert a == b == (0, sp.sign(x))   # symengine would leave Derivative(abs(x), x)


@needs_symengine
def test_fallback_undefined_function():
    S = ConfigurationSpace("x y")
    x, y = S.q
    f = sp.Function("f")
    X, Y = VectorField(S, [1, 0]), VectorField(S, [0, f(x) * y])
    assert "undefined function" in be.unsupported_reason(f(x))
    with pytest.raises(be.UnsupportedExpressionError):
        be.to_symengine(f(x))
    a, b = _both(lambda: X.bracket(Y).components)
    assert a == b == (0, y * sp.Derivative(f(x), x))


@needs_symengine
def test_fallback_two_symbols_with_one_name():
    x_real, x_plain, y = sp.Symbol("x", real=True), sp.Symbol("x"), sp.Symbol("y")
    exprs = [x_plain * x_real, y]
    assert "both named 'x'" in be.unsupported_reason(exprs)
    with pytest.raises(be.UnsupportedExpressionError):
        be.to_symengine(exprs)
    T = be.Translation()
    T.to_symengine(x_real)
    with pytest.raises(be.UnsupportedExpressionError):   # also across calls of one translation
        T.to_symengine(x_plain)
    # the sympy primitives keep them apart: ∂_x(x·x') with x' another symbol is x'
    assert be.lie_bracket([1, 0], [0, x_plain * x_real], [x_real, y]) == [0, x_plain]


@needs_symengine
def test_fallback_constants_and_non_expressions():
    S = ConfigurationSpace("x y")
    x, y = S.q
    X, Y = VectorField(S, [1, 0]), VectorField(S, [0, sp.GoldenRatio * x ** 2])
    assert not be.supports(sp.GoldenRatio) and not be.supports(sp.Eq(x, y))
    a, b = _both(lambda: X.bracket(Y).components)
    assert a == b == (0, 2 * sp.GoldenRatio * x)


@needs_symengine
def test_fallback_frame_with_unsupported_entries_uses_sympy_route():
    S = ConfigurationSpace("x y")
    x, y = S.q
    fields = [VectorField(S, [1, 0]), VectorField(S, [sp.Abs(x), 1])]
    B1, c1 = _coefficients(fields, None, "symengine", "lu")
    B2, c2 = _coefficients(fields, None, "sympy", "lu")
    assert B1 == B2 and c1 == c2 and c1[0, 0, 1] == sp.sign(x)


@needs_symengine
def test_fallback_rational_inverse_is_sympys_exact_inverse():
    S = ConfigurationSpace("x y z")
    x, y, z = S.q
    C = sp.Matrix([[1, 0, 0], [x * y, 1, 0], [z ** 2, x, 1]]) * sp.Matrix([[1, 2, 0], [0, 1, 1], [0, 0, 1]])
    fields = [VectorField(S, list(C[:, a])) for a in range(3)]
    B1, c1 = _coefficients(fields, None, "symengine", "lu")
    B2, c2 = _coefficients(fields, None, "sympy", "lu")
    assert B1 == B2                      # the same cancelled fraction-field LU inverse
    assert _same(c1, c2)


@needs_symengine
def test_fallback_non_real_sample_values_go_to_mpmath():
    x, y = sp.symbols("x y", positive=True)
    # log(x - 5) is not real at the sample points (values ≤ 3): symengine's real evaluation
    # refuses, the pivot search evaluates that entry with sympy/mpmath instead of failing
    M = sp.Matrix([[0, sp.log(x - 5)], [y, 1]])
    T = be.Translation()
    assert be.generic_pivot_order(T.to_symengine(M), T.symbols) == [1, 0]


@needs_symengine
def test_assumptions_survive_the_fast_route():
    S = ConfigurationSpace("x y theta phi")
    x, y, th, ph = S.q
    xd, yd, thd, phd = S.qd
    R = sp.Symbol("R", positive=True)
    with be.using_backend("symengine"):
        F = Frame.from_quasi_velocities(S, [thd, phd, xd - R * sp.cos(th) * phd, yd - R * sp.sin(th) * phd])
        c = F.structure_coefficients()
    assert sp.simplify(c[2, 0, 1]) == -R * sp.sin(th) and sp.simplify(c[3, 0, 1]) == R * sp.cos(th)
    assert R in c[2, 0, 1].free_symbols and th in c[2, 0, 1].free_symbols


# -- results that stay in symengine until read --------------------------------------------------
@needs_symengine
def test_lazy_structure_coefficients_equal_the_eager_conversion():
    from geonh.models import kinematic
    F = kinematic.n_trailer(2).frame
    fields = list(F.fields)
    with be.using_backend("symengine"):
        c = Frame(fields).structure_coefficients()
    assert isinstance(c, be.LazyArray) and isinstance(c, sp.ImmutableDenseNDimArray)
    n = F.dim
    assert c.converted() < n ** 3            # nothing read yet: non-zero entries wait
    v = c[3, 0, 1]
    assert c[3, 0, 1] is v and c[sp.Integer(3), 0, 1] is v
    # the eager conversion of the same symengine results, entry by entry
    eager = sp.Array(c.tolist())
    assert c.converted() == n ** 3
    assert c == eager and eager == c and hash(c) == hash(eager) and c.args == eager.args
    assert c.tolist() == eager.tolist() and list(c) == list(eager) and c.shape == eager.shape
    assert str(c) == str(eager) and c.applyfunc(sp.expand) == eager.applyfunc(sp.expand)
    assert type(c.applyfunc(sp.expand)) is sp.ImmutableDenseNDimArray
    import pickle
    assert pickle.loads(pickle.dumps(c)) == eager
    assert all(c[d, a, b] == -c[d, b, a] for d in range(n) for a in range(n) for b in range(n))
    assert c[:, 0, 1] == eager[:, 0, 1] and c[-1, 0, 1] == eager[n - 1, 0, 1]


@needs_symengine
def test_frame_inverse_is_converted_on_first_access():
    S = ConfigurationSpace("x y z")
    x, y, z = S.q
    fields = [VectorField(S, [1, 0, 0]), VectorField(S, [sp.cos(x), 1, 0]), VectorField(S, [0, x * y, 1])]
    with be.using_backend("symengine"):
        F = Frame(fields)
        assert F._B is None
        B = F.B
    with be.using_backend("sympy"):
        G = Frame(fields)
    assert F.B is B and _same(B, G.B)
    assert all(is_zero(e) for e in B * F.C - sp.eye(3))


@needs_symengine
def test_fraction_field_inverse_is_the_sympy_routes_inverse_in_symengine():
    from geonh.kernel.generic_point import lu_inverse
    x, y = sp.symbols("x y", real=True)
    k = sp.Symbol("k", positive=True)
    cases = [sp.Matrix([[1, x], [y, 2]]), sp.Matrix([[2 * x, 4], [k, sp.Rational(1, 3)]]),
             sp.Matrix([[1, 2], [3, 4]]), sp.Matrix([[x * y + 1, x, 0], [y, 1, k], [0, 2, 3 * x]])]
    for M in cases:
        Minv, to_sympy = be.fraction_field_inverse(M)
        ref = lu_inverse(M)
        assert to_sympy() == ref                                    # the same sympy matrix
        assert all(a == be.se.sympify(b) for a, b in zip(Minv, ref))  # its symengine image
    assert be.fraction_field_inverse(sp.Matrix([[x, x], [1, 1]])) is False
    assert be.fraction_field_inverse(sp.Matrix([[sp.sqrt(2), x], [1, 1]])) is None  # another domain
