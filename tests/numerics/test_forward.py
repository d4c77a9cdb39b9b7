"""Forward mode on the shared expression graph (geonh.numerics.forward) and compile_function's
``jet``: values and the Jacobian in one compiled function, equal to symbolic differentiation."""
from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

from geonh.errors import DimensionError, ParseError
from geonh.numerics.codegen import compile_function, llvm_available, symengine_available

pytestmark = pytest.mark.skipif(not symengine_available(), reason="needs symengine")

x, y, z, p = sp.symbols("x y z p")
#: shared subexpressions, sums of sums (tangents that are sums), functions of every kind
EXPRS = [sp.sin(x * y) ** 2 + p * sp.cos(x * y) * z,
         sp.exp(x - z) / (1 + y**2) + sp.sqrt(2 + sp.sin(x * y)),
         sp.atan2(y, 1 + x**2) + sp.log(3 + z**2) * (x + y + z) * (x + y),
         p * (x + y + z) ** 3 - sp.tan(z / 3),
         sp.Integer(7), p]


def _reference(a):
    vals = dict(zip((x, y, z, p), a))
    J = sp.Matrix(EXPRS).jacobian([x, y, z])
    return (np.array([float(e.evalf(30, subs=vals)) for e in EXPRS]),
            np.array([[float(J[i, j].evalf(30, subs=vals)) for j in range(3)] for i in range(len(EXPRS))]))


def test_jet_program_gives_values_then_the_jacobian_row_major():
    import symengine as se
    from geonh.numerics.forward import jet_program
    sx, sy, sz, sq = (se.Symbol(n) for n in "xyzp")
    exprs = [se.sympify(e) for e in EXPRS]
    out = jet_program(exprs, [sx, sy, sz])
    assert len(out) == len(EXPRS) * 4
    a = (0.3, -0.7, 1.1, 2.5)
    f = se.Lambdify([sx, sy, sz, sq], out, backend="lambda", cse=True, real=True)
    got = np.asarray(f(np.array(a)), dtype=float).ravel()
    val, J = _reference(a)
    assert np.allclose(got[:len(EXPRS)], val, rtol=1e-13, atol=1e-13)
    assert np.allclose(got[len(EXPRS):].reshape(len(EXPRS), 3), J, rtol=1e-13, atol=1e-13)
    # a constant and a parameter have zero rows
    assert list(out[len(EXPRS) + 4 * 3:]) == [0] * 6


@pytest.mark.parametrize("backend", ["numpy", "lambda"] + (["llvm"] if llvm_available() else []))
def test_compile_function_jet_is_one_function_of_values_and_jacobian(backend):
    f = compile_function(EXPRS, [x, y, z, p], wrt=[x, y, z], jet=True, backend=backend)
    assert f.shape == (len(EXPRS) * 4,) and f.backend == backend
    rng = np.random.default_rng(5)
    for _ in range(5):
        a = rng.uniform(-1, 1, 4)
        out = f(a)
        val, J = _reference(a)
        assert np.allclose(out[:len(EXPRS)], val, rtol=1e-12, atol=1e-12)
        assert np.allclose(out[len(EXPRS):].reshape(len(EXPRS), 3), J, rtol=1e-12, atol=1e-12)
        # the same numbers as the separately compiled values and Jacobian
        assert np.allclose(out[len(EXPRS):].reshape(len(EXPRS), 3),
                           compile_function(EXPRS, [x, y, z, p], wrt=[x, y, z], backend=backend)(a),
                           rtol=1e-12, atol=1e-12)


def test_jet_needs_wrt_and_symengine_objects():
    with pytest.raises(ParseError, match="wrt"):
        compile_function(EXPRS, [x, y, z, p], jet=True)
    import symengine as se
    from geonh.numerics.forward import jet_program
    with pytest.raises(ParseError):
        jet_program(["x + 1"], [se.Symbol("x")])
    with pytest.raises(ParseError):
        jet_program([se.Symbol("x")], "x")
    with pytest.raises(DimensionError):
        jet_program([se.Symbol("x")], [se.Symbol("x"), se.Symbol("x")])
