"""The frame-change law of the structure coefficients, with its derivative term, against closed
forms (fast; the slow property tests of tests/kernel/test_frames.py cover random frames):

    c'^d_ab = (A⁻¹)^d_e [ c^e_fg A^f_a A^g_b + X'_a(A^e_b) − X'_b(A^e_a) ],   X'_a = X_b A^b_a.

Mutation guards (benchmarks/mutation_score.py): ``frame-change-no-derivative`` (the law without
X'_a(A^e_b) − X'_b(A^e_a)), ``frame-change-range-short``, ``frame-change-transpose``.
"""
import sympy as sp

from geonh.kernel.fields import VectorField
from geonh.kernel.frames import Frame, transform_structure_coefficients
from geonh.kernel.space import ConfigurationSpace

S = ConfigurationSpace("x y")
x, y = S.q


def _coordinate_frame():
    return Frame([VectorField(S, [1, 0]), VectorField(S, [0, 1])])


def _zero(arr):
    # cancel decides the rational entries at once; simplify only what it leaves (trig)
    return all(sp.cancel(e) == 0 or sp.simplify(e) == 0 for e in arr)


def test_rescaled_coordinate_frame():
    # X'_1 = ∂x, X'_2 = x ∂y: [X'_1, X'_2] = ∂y = (1/x) X'_2, all of it from the derivative term
    A = sp.Matrix([[1, 0], [0, x]])
    c = transform_structure_coefficients(_coordinate_frame(), A)
    assert sp.simplify(c[1, 0, 1] - 1 / x) == 0
    assert sp.simplify(c[1, 1, 0] + 1 / x) == 0
    assert c[0, 0, 1] == 0


def test_rotated_coordinate_frame():
    # X'_1 = cos y ∂x + sin y ∂y, X'_2 = −sin y ∂x + cos y ∂y: [X'_1, X'_2] = −∂y
    # = −sin y X'_1 − cos y X'_2, so c'^1_12 = −sin y, c'^2_12 = −cos y (c = 0 before the change)
    A = sp.Matrix([[sp.cos(y), -sp.sin(y)], [sp.sin(y), sp.cos(y)]])
    c = transform_structure_coefficients(_coordinate_frame(), A)
    assert _zero([c[0, 0, 1] + sp.sin(y), c[1, 0, 1] + sp.cos(y), c[0, 1, 0] - sp.sin(y), c[1, 1, 0] - sp.cos(y)])
    assert _zero([c[d, a, a] for d in range(2) for a in range(2)])


def test_law_from_a_non_holonomic_frame():
    # old frame X_1 = ∂x, X_2 = (1 + x²) ∂y, with c^2_12 = 2x/(1 + x²); new frame
    # A = [[1, 0], [y, 1]]: X'_1 = X_1 + y X_2 = ∂x + y(1 + x²) ∂y, X'_2 = X_2
    F = Frame([VectorField(S, [1, 0]), VectorField(S, [0, 1 + x ** 2])])
    A = sp.Matrix([[1, 0], [y, 1]])
    law = transform_structure_coefficients(F, A)
    new = F.change(A).structure_coefficients()
    assert _zero([law[d, a, b] - new[d, a, b] for d in range(2) for a in range(2) for b in range(2)])
    # closed form: [X'_1, X'_2] = (2x − (1 + x²)²) ∂y = (2x/(1 + x²) − (1 + x²)) X'_2
    X1p = VectorField(S, [1, y * (1 + x ** 2)])
    X2p = VectorField(S, [0, 1 + x ** 2])
    br = sp.Matrix(X1p.bracket(X2p).components)
    Cp = sp.Matrix([[1, 0], [y * (1 + x ** 2), 1 + x ** 2]])
    closed = Cp.inv() * br
    assert _zero([law[d, 0, 1] - closed[d] for d in range(2)])
    assert sp.simplify(closed[1] - (2 * x / (1 + x ** 2) - (1 + x ** 2))) == 0
    assert closed[0] == 0


def test_law_with_every_entry_of_A_and_c():
    # old frame X_1 = ∂x, X_2 = x ∂x + (1 + x²) ∂y (c ≠ 0), A with no zero entry: every term counts
    F = Frame([VectorField(S, [1, 0]), VectorField(S, [x, 1 + x ** 2])])
    A = sp.Matrix([[1, y], [x, 2]])
    law = transform_structure_coefficients(F, A)
    # closed form: the new fields X'_a = C A (columns), their bracket typed in, read in the new frame
    Cp = F.C * A
    def d(X, f):
        return X[0] * sp.diff(f, x) + X[1] * sp.diff(f, y)
    X1, X2 = list(Cp[:, 0]), list(Cp[:, 1])
    br = sp.Matrix([d(X1, X2[k]) - d(X2, X1[k]) for k in range(2)])
    closed = Cp.inv() * br
    assert _zero([law[dd, 0, 1] - closed[dd] for dd in range(2)])
    assert _zero([law[dd, 1, 0] + closed[dd] for dd in range(2)])
    new = F.change(A).structure_coefficients()
    assert _zero([new[dd, 0, 1] - closed[dd] for dd in range(2)])
