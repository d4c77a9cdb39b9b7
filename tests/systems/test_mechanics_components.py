"""from_mechanics's component readers: vector_components / dyadic_components equal sympy's
``to_matrix`` node for node (srepr), on single- and multi-frame vectors and dyadics."""
import sympy as sp
from sympy.physics.mechanics import Point, ReferenceFrame, dynamicsymbols, inertia
from sympy.physics.vector import Vector

from geonh.systems.mechanical import dyadic_components, vector_components


def _frames():
    q1, q2, q3 = dynamicsymbols("q1 q2 q3")
    N = ReferenceFrame("N")
    A = N.orientnew("A", "Axis", [q1, N.z])
    B = A.orientnew("B", "Axis", [q2, A.x])
    C = B.orientnew("C", "Body", [q1, q2, q3], "123")
    return (q1, q2, q3), N, A, B, C


def _vectors():
    (q1, q2, q3), N, A, B, C = _frames()
    a, b, c = sp.symbols("a b c", positive=True)
    O = Point("O")
    O.set_vel(N, 0)
    P = O.locatenew("P", q3 * N.x + a * A.y - b * B.z)
    G = P.locatenew("G", c * C.x + a * b * A.z)
    return (N, A, B, C), [P.vel(N), G.vel(N), C.ang_vel_in(N), B.ang_vel_in(N), a * A.x + q1 * B.y + 2 * N.z,
                          Vector(0), q2.diff() * C.z]


def test_vector_components_equal_to_matrix():
    frames, vectors = _vectors()
    for v in vectors:
        for F in frames:
            assert sp.srepr(vector_components(v, F)) == sp.srepr(list(v.to_matrix(F)))


def test_vector_components_follow_vector_simp():
    (N, A, B, C), vectors = _vectors()
    old = Vector.simp
    try:
        Vector.simp = True
        v = vectors[1]
        assert sp.srepr(vector_components(v, B)) == sp.srepr(list(v.to_matrix(B)))
    finally:
        Vector.simp = old


def test_dyadic_components_equal_to_matrix():
    (q1, q2, q3), N, A, B, C = _frames()
    I1, I2, I3, I12, I23, I13 = sp.symbols("I1 I2 I3 I12 I23 I13")
    dyadics = [inertia(A, I1, I2, I3), inertia(C, I1, I2, I3, I12, I23, I13), inertia(B, I1, I1, I3, I12),
               (I1 * A.x) | (I2 * C.y), inertia(A, I1, I2, I3) + inertia(C, I1, I2, I3)]
    for D in dyadics:
        for F in (N, A, B, C):
            want = [[D.to_matrix(F)[r, s] for s in range(3)] for r in range(3)]
            assert sp.srepr(dyadic_components(D, F)) == sp.srepr(want)


def test_vector_components_with_conversion_equal_converted_to_matrix():
    from geonh.kernel.space import ConfigurationSpace
    frames, vectors = _vectors()
    S = ConfigurationSpace(["q1", "q2", "q3"])
    for v in vectors:
        for F in frames:
            want = [S.from_dynamic(c) for c in v.to_matrix(F)]
            assert sp.srepr(vector_components(v, F, S.from_dynamic)) == sp.srepr(want)


def test_dyadic_components_read_unit_vectors_without_vector_equality(monkeypatch):
    """An inertia in its own frame is read off its terms: no Vector comparison (sympy's
    ``Vector.__eq__`` expresses and dots both sides) and no ``to_matrix``."""
    (q1, q2, q3), N, A, B, C = _frames()
    D = inertia(C, *sp.symbols("I1 I2 I3 I12 I23 I13"))
    want = [[D.to_matrix(C)[r, s] for s in range(3)] for r in range(3)]

    def refuse(*a, **k):
        raise AssertionError("costly path taken")
    monkeypatch.setattr(Vector, "__eq__", refuse)
    monkeypatch.setattr(type(D), "to_matrix", refuse)
    assert sp.srepr(dyadic_components(D, C)) == sp.srepr(want)
