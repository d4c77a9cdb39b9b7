"""The projection of velocities onto the constraints is orthogonal in the kinetic-energy
metric G = ∂²T/∂q̇² (geonh.numerics.constraints, module doc), not the Euclidean one:

    Δq̇ = −G⁻¹Aᵀ (A G⁻¹ Aᵀ)⁻¹ (A q̇ + b)      (linear constraints A q̇ + b = 0, q fixed).

Mutation guard (benchmarks/mutation_score.py, ``projection-euclidean``): with G = 1 the
projection still lands on the constraints, so only a non-identity mass matrix, checked
against this closed form, tells the two apart.
"""
import numpy as np
import pytest

import geonh as g
from geonh.equations import lagrange
from geonh.kernel.space import ConfigurationSpace
from geonh.numerics.constraints import ConstraintSet
from geonh.systems.mechanical import MechanicalSystem

S = ConfigurationSpace("x y")
x, y = S.q
xd, yd = S.qd
# T = ½(ẋ² + (4 + x²) ẏ²), one constraint ẋ + ẏ = 0: G = diag(1, 4 + x²), A = (1, 1)
SYSTEM = MechanicalSystem(S, (xd ** 2 + (4 + x ** 2) * yd ** 2) / 2, constraints=[xd + yd])


def closed_form(q, qd):
    G = np.diag([1.0, 4.0 + q[0] ** 2])
    A = np.array([[1.0, 1.0]])
    Gi = np.linalg.inv(G)
    psi = A @ qd
    return qd - Gi @ A.T @ np.linalg.solve(A @ Gi @ A.T, psi)


@pytest.fixture(scope="module")
def lagrange_function():
    return lagrange(SYSTEM).ode_function()


@pytest.mark.parametrize("state", [[1.0, 0.0, 1.0, 0.0], [0.5, -2.0, 0.3, 0.7], [-1.5, 0.2, -1.0, 2.0]])
def test_project_is_the_kinetic_metric_closed_form(lagrange_function, state):
    out = ConstraintSet(lagrange_function).project(0.0, state)
    expected = closed_form(np.array(state[:2]), np.array(state[2:]))
    assert np.allclose(out[:2], state[:2], rtol=0, atol=0)       # q held fixed
    assert np.allclose(out[2:], expected, rtol=1e-13, atol=1e-13)
    # not the Euclidean projection, which differs here (G ≠ 1)
    euclid = np.array(state[2:]) - np.array([1.0, 1.0]) * (sum(state[2:]) / 2)
    assert not np.allclose(out[2:], euclid, atol=1e-6)


def test_simulate_projects_initial_velocities_in_the_kinetic_metric():
    # x = 1: G = diag(1, 5); q̇ = (1, 0) → (1 − 1/1.2, −0.2/1.2) = (1/6, −1/6), not (½, −½)
    eq = lagrange(SYSTEM)
    tr = g.simulate(eq, [1.0, 0.0, 1.0, 0.0], (0.0, 0.01), {}, project="initial")
    assert np.allclose(tr.u[0], [1 / 6, -1 / 6], rtol=1e-13, atol=1e-13)
    # the kinetic energy of the correction is the least among admissible velocities
    G = np.diag([1.0, 5.0])
    d0 = tr.u[0] - np.array([1.0, 0.0])
    for v in np.linspace(-1.0, 1.0, 41):
        d = np.array([v, -v]) - np.array([1.0, 0.0])
        assert d0 @ G @ d0 <= d @ G @ d + 1e-12
