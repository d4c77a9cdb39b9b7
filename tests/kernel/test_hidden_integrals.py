"""The integrable part of a non-integrable codistribution and its first integrals (issue 26.3).

Source: the derived flag D ⊂ D² ⊂ … of D = Θ^⊥ stops at its involutive closure D̄; D̄^⊥ is the
largest integrable subcodistribution of Θ (Bryant, Chern, Gardner, Goldschmidt & Griffiths,
*Exterior Differential Systems* 1991, ch. II; Bloch 2003, § 2.2).  The differential-drive
robot (wheels of radius r on an axle of half-length b, Siegwart & Nourbakhsh, *Introduction
to Autonomous Mobile Robots* 2004, § 3.2) has growth vector (2, 3, 4) on 5 coordinates and
the hidden integral θ − r(φ_R − φ_L)/(2b).
"""

import numpy as np
import pytest
import sympy as sp
from scipy.integrate import solve_ivp

from geonh.errors import RankError
from geonh.kernel.distributions import Codistribution
from geonh.kernel.space import ConfigurationSpace


def _robot():
    """Constraints of the differential-drive robot (docs/robot.md, with b the half-axle)."""
    S = ConfigurationSpace("x y theta phiR phiL")
    x, y, th, pR, pL = S.q
    xd, yd, thd, pRd, pLd = S.qd
    r, b = sp.symbols("r b", positive=True)
    v = sp.cos(th) * xd + sp.sin(th) * yd
    cons = [sp.sin(th) * xd - sp.cos(th) * yd, v + b * thd - r * pRd, v - b * thd - r * pLd]
    return S, Codistribution.from_constraints(S, cons), cons, (r, b)


def test_robot_hidden_integral_from_its_flag():
    S, C, cons, (r, b) = _robot()
    x, y, th, pR, pL = S.q
    assert not C.is_integrable()
    assert C.growth_vector() == (2, 3, 4)          # stops at rank 4 of 5
    part = C.integrable_part()
    assert part.rank == 1 and part.is_integrable()
    assert all(C.contains(f) for f in part.forms)
    with pytest.raises(RankError, match="hidden_integrals"):
        C.first_integrals()
    (f,) = C.hidden_integrals()
    expected = th - r * (pR - pL) / (2 * b)
    ratio = sp.cancel(f / expected)
    assert ratio.free_symbols <= {r, b} and ratio != 0
    # independent check 1: ḟ = 0 for every velocity satisfying the constraints (sympy's solve
    # for the dependent velocities, not geonh's generic point)
    xd, yd, thd, pRd, pLd = S.qd
    sol = sp.solve(cons, [xd, yd, thd], dict=True)[0]
    fdot = sum(sp.diff(f, q) * qd for q, qd in zip(S.q, S.qd)).subs(sol)
    assert sp.simplify(fdot) == 0


def test_robot_hidden_integral_along_a_simulated_motion():
    """Independent check 2: the wheels driven by arbitrary rates, the kinematics integrated by
    scipy; θ − r(φ_R − φ_L)/(2b) stays at its initial value."""
    S, C, _, (r, b) = _robot()
    (f,) = C.hidden_integrals()
    fn = sp.lambdify([list(S.q), r, b], f)
    rv, bv = 0.3, 0.45

    def rhs(t, q):
        wR, wL = 1.0 + np.sin(3 * t), 0.4 * np.cos(t)
        v, w = rv * (wR + wL) / 2, rv * (wR - wL) / (2 * bv)
        return [v * np.cos(q[2]), v * np.sin(q[2]), w, wR, wL]

    sol = solve_ivp(rhs, (0, 5), [0.1, -0.2, 0.7, 0.3, -1.1], rtol=1e-11, atol=1e-12)
    vals = np.array([fn(list(q), rv, bv) for q in sol.y.T])
    assert np.ptp(sol.y[2]) > 0.5                  # the robot does turn
    assert np.max(np.abs(vals - vals[0])) < 1e-8


def test_bracket_generating_has_no_hidden_integral():
    """The unicycle (knife edge): growth (2, 3) on 3 coordinates, bracket generating: no
    function of q is constant on every motion (Chow–Rashevskii)."""
    S = ConfigurationSpace("x y th")
    C = Codistribution.from_constraints(S, ["sin(th)*x_dot - cos(th)*y_dot"])
    assert C.integrable_part().rank == 0
    with pytest.raises(RankError, match="bracket generating"):
        C.hidden_integrals()
    with pytest.raises(RankError, match="bracket generating"):
        C.first_integrals()


def test_integrable_codistribution_is_its_own_integrable_part():
    S = ConfigurationSpace("x y z")
    C = Codistribution.from_constraints(S, ["x_dot + y_dot", "z_dot - 2*x_dot"])
    assert C.integrable_part() is C
    assert C.hidden_integrals() == C.first_integrals()


def test_partly_integrable_with_an_integrable_form_inside():
    """Θ = span{dz − y dx, dw}: the knife-edge-like form keeps it non-integrable; the
    integrable part is span{dw}, with the integral w."""
    S = ConfigurationSpace("x y z w")
    x, y, z, w = S.q
    C = Codistribution.from_constraints(S, ["z_dot - y*x_dot", "w_dot"])
    assert not C.is_integrable()
    (f,) = C.hidden_integrals()
    assert sp.diff(f, x) == sp.diff(f, y) == sp.diff(f, z) == 0 and sp.diff(f, w) != 0
