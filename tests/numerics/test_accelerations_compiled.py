"""Equations.accelerations on compiled code (geonh.numerics.accelerations).

Floats in: the compiled route (q̈ = ∂K/∂q K + ∂K/∂u u̇, the exact Jacobian compiled once per
equations), agreeing with the exact route (``exact=True``) to 1e-10 relative; exact values in:
the exact route as before (Rationals stay Rationals); kinematics that depend on time: exact.
"""
from __future__ import annotations

import time

import pytest
import sympy as sp

import geonh as g
from geonh import models
from geonh.equations import lagrange

REL = 1e-10


def _agree(fast, exact):
    scale = max(1.0, max(abs(float(x)) for x in exact))
    assert len(fast) == len(exact)
    assert all(abs(float(a) - float(b)) <= REL * scale for a, b in zip(fast, exact)), (fast, exact)


def _compiled(values) -> bool:
    return all(x == 0 or (isinstance(x, sp.Float) and x._prec <= 53) for x in values)


@pytest.mark.parametrize("form", ["boltzmann-hamel", "lagrange"])
def test_rolling_disk_floats_take_the_compiled_route(form):
    M = models.get("tilted-disk")
    eq = M.equations(form) if form != "lagrange" else lagrange(M.system)
    st = {"psi": 0.3, "theta": 0.2, "phi": 1.0, "x": 2.0, "y": -1.0, "psi_dot": 0.4, "theta_dot": -0.3,
          "phi_dot": 3.0, "x_dot": 0.0, "y_dot": 0.0, "m": 2.0, "r": 0.5, "g": 9.81, "I_d": 0.125, "I_a": 0.25}
    S = eq.space
    r = 0.5      # rolling: x' = r cos ψ φ', y' = r sin ψ φ'
    import math
    st["x_dot"], st["y_dot"] = r * math.cos(0.3) * 3.0, r * math.sin(0.3) * 3.0
    names = {s.name for s in eq.value_symbols} | {s.name for s in S.qd}
    st = {k: v for k, v in st.items() if k in names}
    fast, exact = eq.accelerations(st), eq.accelerations(st, exact=True)
    assert _compiled(fast) and not _compiled([x for x in exact if x != 0])
    _agree(fast, exact)
    assert eq.accelerations(st, exact=False) == fast


def test_exact_values_stay_exact():
    S = g.ConfigurationSpace("th")
    m, l = sp.symbols("m l", positive=True)
    eq = g.lagrange(g.MechanicalSystem(S, m * l**2 * S.qd[0] ** 2 / 2, V=m * l * S.q[0] ** 2))
    acc = eq.accelerations({"th": sp.Rational(1, 3), "th_dot": 0, m: 1, l: 2})
    assert acc == [sp.Rational(-1, 3)]        # m l² θ̈ = −2 m l θ
    fast = eq.accelerations({"th": 1 / 3, "th_dot": 0.0, m: 1.0, l: 2.0})
    assert _compiled(fast) and abs(float(fast[0]) + 1 / 3) < 1e-15


def test_time_dependent_kinematics_take_the_exact_route():
    S = g.ConfigurationSpace("x", time=True)
    (x,), (xd,), t = S.q, S.qd, S.t
    eq = g.lagrange(g.MechanicalSystem(S, xd**2 / 2, V=x**2 / 2 - x * sp.sin(t)))
    a = eq.accelerations({"t": 0.5, "x": 0.25, "x_dot": 0.0})
    assert abs(float(a[0]) - (-0.25 + float(sp.sin(sp.Rational(1, 2))))) < 1e-12


@pytest.mark.slow
def test_whipple_bicycle_compiled_accelerations_agree_and_are_fast():
    """At Basu-Mandal et al.'s state (their Table 1): the compiled route agrees with the
    60-digit one to 1e-10; a second state costs milliseconds."""
    from geonh.models.bicycle import basu_mandal_state, whipple_bicycle
    model = whipple_bicycle()
    eq = model.equations("boltzmann-hamel")
    state = basu_mandal_state(model)
    floats = {k: float(v) for k, v in state.items()}
    fast = eq.accelerations(floats)
    assert _compiled(fast)
    _agree(fast, eq.accelerations(state, exact=True))
    t0 = time.perf_counter()
    eq.accelerations(floats)
    assert time.perf_counter() - t0 < 0.5
