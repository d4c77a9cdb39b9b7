"""Sinusoidal steering of chained systems (Murray & Sastry 1993), verified by simulating the
system's own kinematic equations (rtol = atol = 1e-12)."""
from __future__ import annotations

import math

import numpy as np
import pytest
import sympy as sp

from geonh import models
from geonh.control.chained import chained_form
from geonh.control.steering import (Segment, simulate_chained, sinusoid_gain, sinusoidal_plan, steer,
                                    steer_chained)
from geonh.errors import MissingValueError, ParseError


def test_gain_integrals_are_exact():
    assert sinusoid_gain(1) == pytest.approx(math.pi, rel=1e-15)
    assert sinusoid_gain(2) == pytest.approx(math.pi / 2, rel=1e-15)
    # each gain against the simulated chained system: one period moves only z_{k+2} among z1..z_{k+2}
    for k in (1, 2, 3):
        seg = Segment(2 * math.pi, 1.0, 1.0, 1.0, k)
        z = simulate_chained([seg], np.zeros(k + 2))
        assert np.allclose(z[:k + 1], 0, atol=1e-10)
        assert z[k + 1] == pytest.approx(sinusoid_gain(k) / k, rel=1e-9)


def test_plan_reaches_the_target_of_the_chained_system():
    z0, zf = np.zeros(5), np.array([1.0, -0.5, 0.3, 0.2, -0.1])
    plan = sinusoidal_plan(z0, zf)
    assert len(plan) == 4
    assert np.max(np.abs(simulate_chained(plan, z0) - zf)) < 1e-9


def trailer_form(N):
    m = models.get(f"{N}-trailer")
    x, y, *th = m.space.q
    d = [sp.Symbol(f"d{i}", positive=True) for i in range(1, N + 1)]
    h1 = x - sum(di * sp.cos(t) for di, t in zip(d, th[1:]))
    h2 = y - sum(di * sp.sin(t) for di, t in zip(d, th[1:]))
    return chained_form(m.frame.fields[:2], h1, h2)


@pytest.mark.slow
@pytest.mark.parametrize("name, q0, qf, params", [
    ("unicycle", [0, 0, 0], [1.0, 0.5, 0.3], {}),
    ("kinematic-car", [0, 0, 0, 0], [1.0, 0.3, 0.2, 0.1], {"L": 1.0}),
    ("1-trailer", [0, 0, 0, 0], [1.0, 0.3, 0.2, 0.1], {"d1": 1.0}),
])
def test_sinusoidal_plan_reaches_the_target_on_the_simulated_equations(name, q0, qf, params):
    form = trailer_form(1) if name == "1-trailer" else chained_form(models.get(name).frame.fields[:2])
    result = steer_chained(form, q0, qf, params)
    assert result.error < 1e-8, result
    assert set(result.seconds) == {"compile", "plan", "simulate"}


@pytest.mark.slow
@pytest.mark.parametrize("N, qf", [
    (2, [1.0, 0.3, 0.2, 0.1, -0.1]),
    (3, [1.0, 0.3, 0.2, 0.1, -0.1, 0.05]),
])
def test_trailers_reach_the_target_on_the_simulated_equations(N, qf):
    # Murray & Sastry 1993 sinusoids in Sørdalen's chained coordinates, with balanced
    # amplitudes; the check integrates the trailer's own fields with u = β(q)⁻¹ v(t)
    form = trailer_form(N)
    result = steer_chained(form, [0.0] * (N + 3), qf, {f"d{i}": 1.0 for i in range(1, N + 1)}, a=None)
    assert result.error < 1e-8, result
    assert len(result.plan) == N + 2


def test_balanced_amplitudes_keep_the_inputs_small():
    z0, zf = np.zeros(5), np.array([1.0, 0.0, 0.0, 0.0, 0.1])
    fixed = sinusoidal_plan(z0, zf)
    balanced = sinusoidal_plan(z0, zf, a=None)
    assert max(abs(s.b) for s in fixed) > 1000             # b ≈ 3 Δ ω⁴ / I_3 at a = 1
    assert max(max(abs(s.a), abs(s.b)) for s in balanced) < 10
    assert all(abs(s.a) == pytest.approx(abs(s.b)) for s in balanced[1:] if s.a)
    assert np.max(np.abs(simulate_chained(balanced, z0) - zf)) < 1e-9


def test_steer_along_fields_closes_a_loop_only_where_fields_commute():
    m = models.get("unicycle")
    X1, X2 = m.frame.fields[:2]
    loop = [(X1, 0.5), (X2, 0.5), (X1, -0.5), (X2, -0.5)]
    r = steer(loop, [0, 0, 0])
    assert r.error > 1e-3                      # the net motion of the bracket [X1, X2]
    back = steer([(X1, 0.5), (X1, -0.5)], [0, 0, 0])
    assert back.error < 1e-10


def test_bad_inputs():
    m = models.get("kinematic-car")
    form = chained_form(m.frame.fields[:2])
    with pytest.raises(MissingValueError, match="L"):
        steer_chained(form, [0, 0, 0, 0], [1, 0, 0, 0])
    with pytest.raises(ParseError):
        steer_chained(form, [0, 0, 0, 0], [1, 0, 0, 0], {"L": 1.0}, omega=-1)
    with pytest.raises(ParseError):
        steer([("X", 1.0)], [0, 0, 0, 0])
