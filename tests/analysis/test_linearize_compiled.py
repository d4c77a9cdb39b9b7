"""The compiled linearization route (geonh.analysis.linearize, default for numeric points).

The exact Jacobian of the equations compiled once per (equations, inputs) and evaluated in
double precision gives the same Linearization as the 60-digit route (``exact=True``): the same
state, dependent and ignorable variables, and A, B and the eigenvalues to 1e-10 relative — on
the rolling disk (frame form and Lagrange with multipliers, upright and a general drifting
state) and on the Whipple bicycle at several speeds (slow).  A sweep compiles once; equations
that symengine cannot compile fall back to the exact route.
"""
from __future__ import annotations

import importlib

import numpy as np
import pytest
import sympy as sp

from geonh import models
from geonh.equations import lagrange
from geonh.errors import InconsistentStateError, MissingValueError

REL = 1e-10
L = importlib.import_module("geonh.analysis.linearize")   # the module (geonh.analysis.linearize is the function)


def _floats(X) -> np.ndarray:
    return np.array([[float(X[i, j]) for j in range(X.cols)] for i in range(X.rows)]).reshape(X.shape)


def _is_compiled(lin) -> bool:
    """A, B of the compiled route carry double-precision Floats (53 bits), the exact route's
    PRECISION digits."""
    floats = [x for x in list(lin.A) + list(lin.B) if isinstance(x, sp.Float)]
    return bool(floats) and all(x._prec <= 53 for x in floats)


def assert_same(fast, exact) -> None:
    """The same record: state, dependent, ignorable, drift keys; A, B and the spectrum to REL
    relative to the matrix's largest entry."""
    assert _is_compiled(fast) and not _is_compiled(exact)
    assert fast.state == exact.state and fast.inputs == exact.inputs
    assert fast.dependent == exact.dependent and fast.ignorable == exact.ignorable
    assert set(fast.drift) == set(exact.drift)
    assert fast.A.shape == exact.A.shape and fast.B.shape == exact.B.shape
    Af, Ae = _floats(fast.A), _floats(exact.A)
    scale = max(1.0, np.max(np.abs(Ae)))
    assert np.max(np.abs(Af - Ae)) <= REL * scale, np.max(np.abs(Af - Ae))
    if exact.B.cols:
        Bf, Be = _floats(fast.B), _floats(exact.B)
        assert np.max(np.abs(Bf - Be)) <= REL * max(1.0, np.max(np.abs(Be)))
    ef, ee = fast.eigenvalues(), exact.eigenvalues()
    assert len(ef) == len(ee)
    escale = max(1.0, np.max(np.abs(ee)))
    for z in ee:   # every exact eigenvalue has a compiled one within REL (sort order may swap ties)
        assert np.min(np.abs(ef - z)) <= REL * escale, (z, ef)


DISK_PAR = {"m": 2, "r": sp.Rational(1, 2), "g": 9.81, "I_d": sp.Rational(1, 8), "I_a": sp.Rational(1, 4)}


def _disk_par(M):
    return {s: DISK_PAR[s.name] for s in M.parameters}


@pytest.mark.parametrize("w2", [0.5, 2.5, 3.0, 7.0])
def test_rolling_disk_upright_frame_form(w2):
    M = models.get("tilted-disk")
    eq = M.equations("boltzmann-hamel")
    op = {"psi": 0, "theta": 0, "phi": 0, "x": 0, "y": 0, "w1": 0, "w2": w2, "w3": 0, **_disk_par(M)}
    assert_same(eq.linearize(op, ignorable="auto"), eq.linearize(op, ignorable="auto", exact=True))


def test_rolling_disk_general_state_every_coordinate_kept():
    """Heading, spin and contact point drifting; the full state."""
    M = models.get("tilted-disk")
    eq = M.equations("boltzmann-hamel")
    op = {"psi": sp.Rational(3, 10), "theta": 0, "phi": 1, "x": 2, "y": -1, "w1": 0, "w2": 3, "w3": 0,
          **_disk_par(M)}
    fast, exact = eq.linearize(op), eq.linearize(op, exact=True)
    assert_same(fast, exact)
    for q in exact.drift:
        assert abs(float(fast.drift[q]) - float(exact.drift[q])) <= REL * (1 + abs(float(exact.drift[q])))


def test_rolling_disk_lagrange_with_multipliers_and_dependent_speeds():
    M = models.get("tilted-disk")
    eq = lagrange(M.system)
    op = {"psi": 0, "theta": 0, "phi": 0, "x": 0, "y": 0, "psi_dot": 0, "theta_dot": 0, "phi_dot": 3,
          **_disk_par(M)}
    kw = {"ignorable": "auto", "dependent": ["x_dot", "y_dot"]}
    assert_same(eq.linearize(op, **kw), eq.linearize(op, exact=True, **kw))


def test_a_sweep_compiles_once_and_the_equations_are_read_once():
    M = models.get("tilted-disk")
    eq = M.equations("boltzmann-hamel")
    base = {"psi": 0, "theta": 0, "phi": 0, "x": 0, "y": 0, "w1": 0, "w3": 0, **_disk_par(M)}
    eq.linearize({**base, "w2": 1.0}, ignorable="auto")
    entry = L._COMPILED[id(eq)]
    jets = dict(entry[2])
    assert len(jets) == 1
    for w2 in (1.5, 2.0, 4.0):
        eq.linearize({**base, "w2": w2}, ignorable="auto")
    assert L._COMPILED[id(eq)] is entry and entry[2] == jets          # nothing compiled again


def test_errors_are_the_same_on_the_compiled_route():
    M = models.get("tilted-disk")
    eq = M.equations("boltzmann-hamel")
    op = {"psi": 0, "theta": 0, "phi": 0, "x": 0, "y": 0, "w1": 1, "w2": 3, "w3": 1, **_disk_par(M)}
    for exact in (False, True):
        with pytest.raises(InconsistentStateError, match="not a steady motion"):
            eq.linearize(op, ignorable="auto", exact=exact)
        missing = {k: v for k, v in op.items() if getattr(k, "name", k) != "g"}
        with pytest.raises(MissingValueError, match="'g'"):
            eq.linearize({**missing, "w1": 0, "w3": 0}, ignorable="auto", exact=exact)


def test_equations_symengine_cannot_compile_take_the_exact_route():
    """V = |x| − x (sign(x) in the force; the numpy fallback has no DiracDelta): the 60-digit
    route, as before."""
    import geonh as g
    S = g.ConfigurationSpace("x")
    m = sp.Symbol("m", positive=True)
    eq = g.lagrange(g.MechanicalSystem(S, m * S.qd[0] ** 2 / 2, V=sp.Abs(S.q[0]) - S.q[0]))
    A = eq.linearize({"x": 0.5, "x_dot": 0, "m": 1}).A
    assert float((A - sp.Matrix([[0, 1], [0, 0]])).norm()) < 1e-30


# ----------------------------------------------------------------------------------------------
# the Whipple bicycle
# ----------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def bicycle():
    from geonh.models.bicycle import whipple_bicycle
    return whipple_bicycle()


def _bicycle_kw(model, eq):
    """The choices of geonh.models.bicycle.benchmark_matrices."""
    names = {str(s) for s in model.parameters}
    speeds = [u.name for u in eq.u]
    dependent = () if len(speeds) == 3 else tuple(n for n in ("x_dot", "y_dot", "psi_dot", "theta_dot",
                                                              "theta_F_dot") if n in speeds)
    return {"ignorable": "auto", "inputs": [x for x in ("T_phi", "T_delta") if x in names],
            "dependent": ("theta",) + dependent}


@pytest.mark.slow
@pytest.mark.parametrize("form", ["boltzmann-hamel", "lagrange"])
def test_whipple_bicycle_compiled_agrees_with_60_digits(bicycle, form):
    """Below, in and above the self-stable speed range (weave ≈ 4.29, capsize ≈ 6.02 m/s)."""
    from geonh.models.bicycle import benchmark_operating_point
    eq = bicycle.equations(form)
    kw = _bicycle_kw(bicycle, eq)
    for v in ((0.5, 3, 5, 8) if form == "boltzmann-hamel" else (2, 5)):
        op = benchmark_operating_point(bicycle, v)
        fast, exact = eq.linearize(op, **kw), eq.linearize(op, exact=True, **kw)
        assert_same(fast, exact)
        assert fast.B.shape == (len(fast.state), 2)
        # the second-order form in (phi, delta): MPRS's M, C, K and the input matrix
        sf, se = fast.second_order(["phi", "delta"]), exact.second_order(["phi", "delta"])
        assert sf.coordinates == se.coordinates and sf.speeds == se.speeds
        for X, Y in ((sf.M, se.M), (sf.C, se.C), (sf.K, se.K), (sf.F, se.F)):
            Xf, Yf = _floats(X), _floats(Y)
            assert np.max(np.abs(Xf - Yf)) <= REL * max(1.0, np.max(np.abs(Yf)))
