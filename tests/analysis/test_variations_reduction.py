"""Variations on the reduction API (issue 26) that a newcomer tries: routes beyond the
shipped examples, each checked against an independent derivation."""
import numpy as np
import pytest
import sympy as sp
from scipy.integrate import solve_ivp

from geonh import models
from geonh.analysis import nonholonomic_connection, reduced_equations


def _sleigh_se2():
    sleigh = models.get("chaplygin-sleigh")
    x, y, _ = sleigh.space.q
    return sleigh, [[1, 0, 0], [0, 1, 0], [-y, x, 1]]


def test_sleigh_reduced_by_se2_has_no_shape_and_gives_the_euler_poincare_suslov_equations():
    """The sleigh's own symmetry SE(2) moves every coordinate: the shape space is a point and
    the reduced equations are the momentum equations alone.  Before the fix ξ = −𝒜ṙ + Γp
    failed with sympy's bare ShapeError ((3, 0) + (3, 1)).  Check: p1 = m v, p2 = (I + m a²) w
    with v̇ = a w², ẇ = −m a v w/(I + m a²) (Neimark & Fufaev 1972; Bloch 2003, § 1.7)."""
    sleigh, gens = _sleigh_se2()
    red = reduced_equations(sleigh.system, gens)
    c = red.connection
    assert c.shape == () and red.shape_rates == ()
    m, a, I = sleigh.parameters
    p1, p2 = c.momenta
    v, w = p1 / m, p2 / (I + m * a**2)
    assert sp.simplify(red.momentum_rates[0] - m * a * w**2) == 0
    assert sp.simplify(red.momentum_rates[1] - (I + m * a**2) * (-m * a * v * w / (I + m * a**2))) == 0
    assert [sp.simplify(e - f) for e, f in zip(red.reconstruction, (v, 0, w))] == [0, 0, 0]
    assert c.xi().shape == (3, 1)
    assert nonholonomic_connection(sleigh.system, gens).velocity()  # no ShapeError on the way


def test_sleigh_reconstruction_without_a_gait_matches_a_direct_simulation():
    """`reconstruct({}, ...)` with no shape: the group motion from the momentum and
    reconstruction equations equals the sleigh integrated in (x, y, θ, v, w) directly."""
    sleigh, gens = _sleigh_se2()
    red = reduced_equations(sleigh.system, gens)
    vals = {"m": 1.0, "a": 0.5, "I": 0.2}
    m, a, I = 1.0, 0.5, 0.2
    v0, w0 = 1.0, 0.8
    rec = red.reconstruct({}, (0, 2), momenta0=[m * v0, (I + m * a**2) * w0], values=vals)

    def rhs(t, s):
        x, y, th, v, w = s
        return [v * np.cos(th), v * np.sin(th), w, a * w**2, -m * a * v * w / (I + m * a**2)]

    ref = solve_ivp(rhs, (0, 2), [0, 0, 0, v0, w0], method="DOP853", rtol=1e-12, atol=1e-12)
    assert np.allclose(rec.phase, ref.y[:3, -1], atol=1e-9)
