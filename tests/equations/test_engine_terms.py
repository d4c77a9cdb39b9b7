"""Each term of the engine's central equation, tested close to its code
(geonh.equations.engine, Neimark–Fufaev 1960 eq. (2.1)):

    E(W) = d/dt(p·W) − W(T(q, V)) + p·[W, V] − Q·W  =  (d/dt ∂T/∂q̇ − ∂T/∂q − Q)·W   on the motion.

Two independent kinds of check, so that no single test is the engine's one point of failure:

* closed forms: Lagrange's expressions of a small system typed in by hand, contracted with W
  (coordinate fields; non-coordinate fields with non-constant V; kinematics with a velocity-
  dependent acceleration a0 = ∂_q K · K), and Lagrange's split of :func:`lagrange_split`;
* extension invariance: E(W) does not depend on how V and W are extended off the motion, so
  extensions whose terms differ (p·Ẇ, p·W(V) and p·[W, V] present or absent) must agree.

Mutation guards: ``engine-*`` of benchmarks/mutation_score.py.
"""
import itertools

import pytest
import sympy as sp

from geonh.equations.engine import central_equations, frame_split, lagrange_split
from geonh.kernel.fields import VectorField
from geonh.kernel.frames import Frame
from geonh.kernel.space import ConfigurationSpace
from geonh.systems.mechanical import MechanicalSystem

S = ConfigurationSpace("x y")
x, y = S.q
xd, yd = S.qd
kap, g = sp.symbols("kappa g", positive=True)
# T = ½(ẋ² + (1 + x²) ẏ²), potential κx²/2 + g y: Q = (−κx, −g)
SYSTEM = MechanicalSystem(S, (xd ** 2 + (1 + x ** 2) * yd ** 2) / 2, V=kap * x ** 2 / 2 + g * y)
u1, u2, v1, v2 = sp.symbols("u1 u2 v1 v2", real=True)      # speeds and their rates
a, b, c = sp.symbols("a b c", real=True)                  # constant symbols of the extensions


def lagrange_minus_Q(xdot, ydot, xddot, yddot):
    """(L − Q)_i typed in: L_x = ẍ − x ẏ², L_y = (1 + x²) ÿ + 2 x ẋ ẏ, Q = (−κx, −g)."""
    return (xddot - x * ydot ** 2 + kap * x,
            (1 + x ** 2) * yddot + 2 * x * xdot * ydot + g)


def E_of(M, F, rates):
    return [sp.expand(sum(M[r, s] * rates[s] for s in range(M.cols)) - F[r]) for r in range(M.rows)]


def same(left, right):
    return all(sp.simplify(p - q) == 0 for p, q in zip(left, right)) and len(left) == len(right)


def F(components):
    return VectorField(S, list(components))


def test_coordinate_fields_give_lagrange():
    M, Fv = central_equations(SYSTEM, F([a, b]), [F([1, 0]), F([0, 1])], {a: u1, b: u2}, [u1, u2], [u1, u2])
    assert same(E_of(M, Fv, [v1, v2]), lagrange_minus_Q(u1, u2, v1, v2))
    assert M == sp.Matrix([[1, 0], [0, 1 + x ** 2]])


def test_non_coordinate_fields_give_lagrange_contracted():
    # V = a ∂x + x b ∂y (b → u2/x on the motion: W(V) ≠ 0); W_1 = ∂x + y ∂y, W_2 = x ∂y
    V = F([a, x * b])
    W = [F([1, y]), F([0, x])]
    M, Fv = central_equations(SYSTEM, V, W, {a: u1, b: u2 / x}, [u1, u2], [u1, u2])
    Lx, Ly = lagrange_minus_Q(u1, u2, v1, v2)
    assert same(E_of(M, Fv, [v1, v2]), [Lx + y * Ly, x * Ly])


def test_velocity_dependent_acceleration():
    # motion q̇ = K = (u1, x u1): ẍ = u̇1, ÿ = u1² + x u̇1 (a0 = (0, u1²)); W = ∂x + x ∂y
    M, Fv = central_equations(SYSTEM, F([a, x * a]), [F([1, x])], {a: u1}, [u1], [u1, x * u1])
    Lx, Ly = lagrange_minus_Q(u1, x * u1, v1, u1 ** 2 + x * v1)
    assert same(E_of(M, Fv, [v1]), [Lx + x * Ly])
    assert sp.simplify(M[0, 0] - (1 + x ** 2 * (1 + x ** 2))) == 0


def test_lagrange_split_closed_form():
    # L − Q = MdK u̇ + LQ0 on q̇ = (u1, x u1): MdK = M ∂K/∂u, LQ0 = (L − Q) at u̇ = 0
    sl = lagrange_split(SYSTEM, [u1, x * u1], [u1])
    assert same([sl.MdK[0][0], sl.MdK[1][0]], [1, (1 + x ** 2) * x])
    assert same(list(sl.LQ0), list(lagrange_minus_Q(u1, x * u1, 0, u1 ** 2)))
    assert same(list(sl.Q), [-kap * x, -g])
    assert same(list(sl.dTdq), [x * (x * u1) ** 2, 0])


def test_frame_split_closed_form():
    # Maggi's expressions Σ_i C^i_a (L_i − Q_i) for X_1 = ∂x + x ∂y, X_2 = ∂y on q̇ = (u1, u2)
    frame = Frame([F([1, x]), F([0, 1])])
    fs = frame_split(SYSTEM, frame, [u1, u2], [u1, u2])
    Lx, Ly = lagrange_minus_Q(u1, u2, v1, v2)
    E = [sp.expand(sum(r * v for r, v in zip(row, [v1, v2])) + rest) for row, rest in zip(fs.rows, fs.rests)]
    assert same(E, [Lx + x * Ly, Ly])


# extensions of V = (u1, u2) and W = (1, x) off the motion: (field, its on-motion values)
V_EXTENSIONS = [
    (F([a, b]), {a: u1, b: u2}),                 # constant components: W(V) = 0
    (F([a, x * b]), {a: u1, b: u2 / x}),         # W(V) ≠ 0 through x
    (F([y * a, b]), {a: u1 / y, b: u2}),         # through y
]
W_EXTENSIONS = [
    (F([1, x]), {}),                             # no constants: Ẇ ≠ 0, [W, V] ≠ 0
    (F([1, c]), {c: x}),                         # constant components: Ẇ = 0
    (F([c, x * c]), {c: 1}),
]


@pytest.mark.parametrize("iv, iw", list(itertools.product(range(3), range(3)))[1:])
def test_equations_do_not_depend_on_the_extension(iv, iw):
    def E(V, onV, W, onW):
        M, Fv = central_equations(SYSTEM, V, [W], {**onV, **onW}, [u1, u2], [u1, u2])
        return E_of(M, Fv, [v1, v2])

    reference = E(*V_EXTENSIONS[0], *W_EXTENSIONS[0])
    assert same(E(*V_EXTENSIONS[iv], *W_EXTENSIONS[iw]), reference)
