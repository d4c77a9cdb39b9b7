"""geonh.kernel.jets: the one forward-mode differentiator (gradients for the linearization,
directional derivatives for the generic-point decisions and the accelerations)."""
from __future__ import annotations

import sys

import mpmath
import pytest
import sympy as sp

import geonh
import geonh.kernel.generic_point as generic_point
from geonh.errors import MissingValueError, SingularMapError
from geonh.kernel import jets
from geonh.kernel.evaluation import PRECISION, tree_eval
from geonh.kernel.jets import DERIVATIVES, Jet, directional_derivative, jacobian_at

linearize_module = sys.modules[geonh.linearize.__module__]   # wherever linearize lives
x, y, z = sp.symbols("x y z", real=True)
POINT = {x: sp.Rational(3, 7), y: sp.Rational(-5, 11), z: sp.Rational(9, 13)}
DIRECTION = {x: mpmath.mpf(2), y: mpmath.mpf("-0.75"), z: mpmath.mpf(3) / 7}

EXPRESSIONS = [
    x + 2 * y - z,                               # sum
    x * y * z ** 2 * 5,                          # product
    (x * y + 1) ** -3,                           # integer power (negative)
    sp.sqrt(x + 2),                              # non-integer power
    (x + 2) ** (y + 3),                          # power with a moving exponent
    sp.atan2(y, x + z),                          # atan2
    sp.Abs(y * x),                               # Abs away from 0
    sp.erf(x * y) + sp.besselj(1, z),            # no rule of their own: sympy derivatives at the point
    sp.sin(x * y) * sp.cos(z) + sp.log(x + 1) / sp.exp(y),
] + [f(x / 3 + z / 5) for f in DERIVATIVES]      # every elementary function of the table


def _exact(e, point):
    with mpmath.workdps(PRECISION):
        return mpmath.mpmathify(sp.N(e.xreplace(point), PRECISION + 10))


def _close(a, b, digits=PRECISION - 10):
    return abs(a - b) <= mpmath.mpf(10) ** -digits * (1 + abs(b))


def test_one_differentiator():
    """The generic-point decisions and the linearization differentiate with the same code."""
    assert generic_point.directional_derivative is jets.directional_derivative
    assert linearize_module.jacobian_at is jets.jacobian_at
    assert not hasattr(linearize_module, "_Jet") and not hasattr(generic_point, "_MP_DERIVS")


@pytest.mark.parametrize("e", EXPRESSIONS, ids=[str(i) for i in range(len(EXPRESSIONS))])
def test_gradient_is_the_derivative_at_the_point(e):
    variables = [x, y, z]
    (value,), (row,) = jacobian_at([e], variables, POINT)
    assert _close(value, _exact(e, POINT))
    for v, d in zip(variables, row):
        assert _close(d, _exact(sp.diff(e, v), POINT)), (e, v)


@pytest.mark.parametrize("e", EXPRESSIONS, ids=[str(i) for i in range(len(EXPRESSIONS))])
def test_along_is_the_gradient_times_the_direction(e):
    """d/dε e(p + εv) = Σ ∂e/∂s v_s: the directional derivative (shared values with tree_eval
    or not) agrees with the gradient."""
    (_,), (row,) = jacobian_at([e], [x, y, z], POINT)
    with mpmath.workdps(PRECISION):
        want = mpmath.fsum(d * DIRECTION[s] for s, d in zip([x, y, z], row))
        values: dict = {}
        tree_eval(e, POINT, values)            # the generic-point code shares these
        shared = directional_derivative(e, POINT, DIRECTION, values, {})
        fresh = Jet.along(POINT, DIRECTION).derivative(e)
    assert _close(shared, want) and _close(fresh, want)


def test_subexpressions_are_shared():
    jet = Jet.gradient(POINT, [x])
    e = sp.sin(x * y) ** 2
    jet(e)
    assert sp.sin(x * y) in jet.cache and x * y in jet.cache
    v, g = jet(sp.sin(x * y))                   # from the cache
    assert _close(g[0], _exact(y * sp.cos(x * y), POINT))


def test_errors_at_the_point():
    with pytest.raises(SingularMapError):
        Jet.gradient({x: 0}, [x])(1 / x)
    with pytest.raises(SingularMapError):
        Jet.gradient({x: 0}, [x])(sp.Abs(x))
    with pytest.raises(SingularMapError):
        Jet.gradient({x: 0}, [x])(sp.sqrt(x))
    assert Jet.gradient({x: 0}, [])(sp.sqrt(x))[0] == 0    # not moving: only its value
    with pytest.raises(MissingValueError, match="y"):
        Jet.gradient({x: 1}, [x])(x * y)
