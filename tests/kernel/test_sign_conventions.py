"""Sign and index conventions of CONVENTIONS.md against closed forms typed in (fast):
[X, Y]^k = X^i ∂_i Y^k − Y^i ∂_i X^k; c^d_ab from [X_a, X_b] = c^d_ab X_d; Hamel's
β[a, b, d] = c^d_ab; d(f dy) = ∂_x f dx∧dy with (dx∧dy)(∂x, ∂y) = 1.

Mutation guards: ``bracket-sign``, ``structure-coefficients-sign``, ``beta-index-order``,
``exterior-derivative-sign`` of benchmarks/mutation_score.py.
"""
import sympy as sp

from geonh.kernel.fields import VectorField
from geonh.kernel.forms import OneForm, exterior_derivative
from geonh.kernel.frames import Frame
from geonh.kernel.space import ConfigurationSpace

S = ConfigurationSpace("x y")
x, y = S.q


def test_bracket_of_dx_and_x_dy():
    # [∂x, x ∂y] = +∂y (CONVENTIONS.md's check)
    assert list(VectorField(S, [1, 0]).bracket(VectorField(S, [0, x])).components) == [0, 1]
    assert list(VectorField(S, [0, x]).bracket(VectorField(S, [1, 0])).components) == [0, -1]


def test_structure_coefficients_and_beta():
    # X_1 = ∂x + y ∂y, X_2 = x ∂y: [X_1, X_2]^y = X_1(x) − X_2(y) = 1 − x, [X_1, X_2]^x = 0,
    # so [X_1, X_2] = ((1 − x)/x) X_2: c^2_12 = (1 − x)/x, c^1_12 = 0 (both fields non-constant)
    F = Frame([VectorField(S, [1, y]), VectorField(S, [0, x])])
    br = 1 - x
    c = F.structure_coefficients()
    assert sp.simplify(c[1, 0, 1] - br / x) == 0 and c[0, 0, 1] == 0
    beta = F.hamel_beta()
    assert sp.simplify(beta[0, 1, 1] - br / x) == 0
    assert sp.simplify(beta[1, 0, 1] + br / x) == 0


def test_exterior_derivative_of_f_dy():
    dth = exterior_derivative(OneForm(S, [0, x ** 2 * y]))
    dx, dy = VectorField(S, [1, 0]), VectorField(S, [0, 1])
    assert sp.expand(dth(dx, dy) - 2 * x * y) == 0
    assert sp.expand(dth(dy, dx) + 2 * x * y) == 0
