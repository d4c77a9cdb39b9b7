"""Variations on `geonh.analysis.vakonomic` (issue 26) that a newcomer tries: a system without
constraints, an empty time span, the disk with its coordinates in another order."""
import math

import numpy as np
import pytest
import sympy as sp

import geonh as g
from geonh.analysis import compare_vakonomic, vakonomic_multiplier


def test_a_system_without_constraints_is_vakonomic_with_no_multiplier():
    """Before, `vakonomic_multiplier` on a free particle failed with numpy's bare ValueError
    ("cannot reshape array of size 0 into shape (101,2)")."""
    S = g.ConfigurationSpace("x y")
    free = g.MechanicalSystem(S, (S.qd[0]**2 + S.qd[1]**2) / 2)
    r = vakonomic_multiplier(free, [0, 0, 1, 1], (0, 1))
    assert r.vakonomic and r.mu0.shape == (0,) and r.residual == 0 and r.deviation < 1e-12


@pytest.mark.parametrize("call", [vakonomic_multiplier, compare_vakonomic])
def test_an_empty_time_span_is_a_clear_error(call):
    """Before: DimensionError "states of shape (0,); expected (k, 10)" from deep inside."""
    S = g.ConfigurationSpace("x y")
    x, y = S.q
    xd, yd = S.qd
    line = g.MechanicalSystem(S, (xd**2 + yd**2) / 2, constraints=[yd - x * xd])
    args = ([0, 0, 1, 0], (1.0, 1.0)) if call is vakonomic_multiplier else ([0, 0, 1, 0], [0.0], (1.0, 1.0))
    with pytest.raises(g.errors.ParseError, match="t_span"):
        call(line, *args)


def test_the_disk_in_another_coordinate_order_finds_the_same_multiplier():
    """(φ, θ, y, x) instead of (x, y, θ, φ), and the first constraint multiplied by 2 + sin θ:
    μ(0) = −m(ẋ, ẏ) (docs/vakonomic.md), the first divided by the factor."""
    S = g.ConfigurationSpace("phi theta y x")
    ph, th, y, x = S.q
    phd, thd, yd, xd = S.qd
    m, I, J, R = sp.symbols("m I J R", positive=True)
    T = m / 2 * (xd**2 + yd**2) + J / 2 * phd**2 + I / 2 * thd**2
    P = dict(m=2.0, I=0.5, J=0.25, R=0.7)
    th0, th_dot, ph_dot = 0.3, 0.8, 1.5
    vx, vy = P["R"] * math.cos(th0) * ph_dot, P["R"] * math.sin(th0) * ph_dot
    y0 = [0.4, th0, 0.2, 0.1, ph_dot, th_dot, vy, vx]
    disk = g.MechanicalSystem(S, T, constraints=[(2 + sp.sin(th)) * (xd - R * sp.cos(th) * phd),
                                                 yd - R * sp.sin(th) * phd])
    r = vakonomic_multiplier(disk, y0, (0.0, 5.0), P)
    assert r.vakonomic and r.kernel.shape == (2, 0)
    assert np.allclose(r.mu0, [-P["m"] * vx / (2 + math.sin(th0)), -P["m"] * vy], atol=1e-8)
