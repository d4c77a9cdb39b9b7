"""The discrete Lagrange–d'Alembert integrator (geonh.numerics.dla): order, energy,
constraints, agreement with the continuous motion, the multiplier sign, errors."""

import numpy as np
import pytest
import sympy as sp

import geonh
from geonh import models
from geonh.errors import (DimensionError, InconsistentStateError, MissingValueError, NotFoundError,
                          NotLinearError, ParseError, SingularMapError, UnknownCoordinateError)
from geonh.numerics.dla import DLAScheme, DLATrajectory, dla_integrate, dla_scheme

SLEIGH_P = {"m": 2.0, "a": 0.3, "I": 0.5}
Q0, QD0 = [0.0, 0.0, 0.0], [1.0, 0.0, 0.5]


@pytest.fixture(scope="module")
def sleigh():
    return models.get("chaplygin-sleigh")


@pytest.fixture(scope="module")
def sleigh_reference(sleigh):
    """Lagrange's equations with multipliers, DOP853 at 1e-13, dense output on [0, 2]."""
    eqs = sleigh.equations("lagrange")
    return geonh.simulate(eqs, Q0 + QD0, (0.0, 2.0), SLEIGH_P, rtol=1e-13, atol=1e-13, dense_output=True)


# -- accuracy ------------------------------------------------------------------------------------
@pytest.mark.parametrize("rule", ["midpoint", "trapezoidal"])
def test_second_order_against_dop853(sleigh, sleigh_reference, rule):
    """Errors in q and the node velocities at t = 1 for h, h/2, h/4: observed order 2."""
    yT = sleigh_reference.sol(1.0)
    errs = []
    for h in (0.1, 0.05, 0.025):
        tr = dla_integrate(sleigh, Q0, QD0, h, int(round(1.0 / h)), SLEIGH_P, rule=rule)
        assert tr.t[-1] == pytest.approx(1.0)
        errs.append(max(np.max(np.abs(tr.q[-1] - yT[:3])), np.max(np.abs(tr.qd[-1] - yT[3:]))))
    orders = np.log2(np.array(errs[:-1]) / np.array(errs[1:]))
    assert np.all(np.abs(orders - 2.0) < 0.1), (errs, orders)
    assert errs[0] < 1e-3


def test_agrees_with_continuous_solution_at_short_times(sleigh, sleigh_reference):
    h = 1e-3
    tr = dla_integrate(sleigh, Q0, QD0, h, 2000, SLEIGH_P)
    ref = sleigh_reference.sol(tr.t).T
    assert np.max(np.abs(tr.q - ref[:, :3])) < 1e-7
    assert np.max(np.abs(tr.qd - ref[:, 3:])) < 1e-7
    # midpoint velocities at t_k + h/2
    refm = sleigh_reference.sol(tr.t_mid).T
    assert np.max(np.abs(tr.v_mid - refm[:, 3:])) < 1e-6
    # multipliers: the sign of CONVENTIONS.md (R = +λ A), λ_k ≈ λ(t_k) for k ≥ 1, λ_0 ≈ λ(0)/2
    eqs = sleigh.equations("lagrange")
    sim = geonh.simulate(eqs, Q0 + QD0, (0.0, 2.0), SLEIGH_P, rtol=1e-12, atol=1e-12, t_eval=tr.t[:-1])
    lam = sim.multipliers[:, 0]
    assert np.max(np.abs(lam)) > 0.1
    assert np.max(np.abs(tr.multipliers[1:, 0] - lam[1:])) < 1e-5
    assert tr.multipliers[0, 0] == pytest.approx(lam[0] / 2, rel=1e-2)


def test_energy_bounded_and_constraints_at_roundoff_over_1e4_steps(sleigh):
    tr = dla_integrate(sleigh, Q0, QD0, 0.01, 10_000, SLEIGH_P)
    assert tr.n_steps == 10_000 and len(tr) == 10_001
    dE = np.abs(tr.energy_error)
    assert dE.max() < 1e-6                                     # O(h²)
    half = len(dE) // 2
    assert dE[half:].max() <= 1.01 * dE[:half].max() + 1e-12   # no drift
    assert np.abs(tr.energy_mid - tr.energy0).max() < 1e-4
    assert tr.max_constraint_residual <= 1e-12
    assert np.max(np.abs(tr.node_constraint_residuals)) <= 1e-12
    assert np.max(np.abs(tr.newton_residuals)) <= 1e-12
    assert tr.iterations.max() <= 4 and tr.iterations.min() >= 1


def test_energy_bounded_on_a_periodic_motion_with_potential():
    """The knife edge on an inclined plane (V = −m g sin α x) moves periodically: the energy
    error oscillates with amplitude O(h²) and does not grow over 10^4 steps."""
    skate = models.get("inclined-knife-edge")
    p = {"m": 1.0, "I": 0.3, "g": 9.81, "alpha": 0.2}
    tr = dla_integrate(skate, [0, 0, 0], [1.0, 0, 1.5], 0.01, 10_000, p)
    dE = np.abs(tr.energy_error)
    assert 1e-6 < dE.max() < 1e-3
    assert dE[5000:].max() <= 1.01 * dE[:5000].max()
    assert tr.max_constraint_residual <= 1e-12


def test_vertical_disk_energy_and_constant_rates():
    disk = models.get("vertical-disk")
    p = {"m": 1.0, "I": 0.25, "J": 0.5, "R": 0.5}
    tr = dla_integrate(disk, [0, 0, 0, 0], [0.5, 0, 0.7, 1.0], 0.01, 2000, p)
    assert tr.max_energy_error < 1e-12
    assert tr.max_constraint_residual < 1e-14
    assert np.allclose(tr["theta"], 0.7 * tr.t, atol=1e-11)     # I θ̈ = 0 exactly
    # ẋ = R cos θ φ̇ at the nodes
    assert np.allclose(tr["x_dot"], 0.5 * np.cos(tr["theta"]) * tr["phi_dot"], atol=1e-13)


def test_forces_and_potential_agree_with_simulate():
    """Non-conservative forces (the disk's torques, midpoint discrete forces) and a potential
    (the inclined knife edge): second-order agreement with DOP853."""
    from geonh.models.mechanical import inclined_knife_edge, vertical_rolling_disk
    cases = [(vertical_rolling_disk(torques=True), {"m": 1.0, "I": 0.25, "J": 0.5, "R": 0.5, "tau_theta": 0.3,
                                                     "tau_phi": -0.2}, [0, 0, 0, 0], [0.5, 0, 0.7, 1.0]),
             (inclined_knife_edge(), {"m": 1.0, "I": 0.3, "g": 9.81, "alpha": 0.2}, [0, 0, 0.1],
              [np.cos(0.1), np.sin(0.1), 0.8])]
    for model, p, q0, qd0 in cases:
        ref = geonh.simulate(model.equations("lagrange"), list(q0) + list(qd0), (0.0, 1.0), p, rtol=1e-13,
                             atol=1e-13, t_eval=[1.0]).y[:, -1]
        errs = []
        for h in (0.02, 0.01):
            tr = dla_integrate(model, q0, qd0, h, int(round(1 / h)), p)
            errs.append(np.max(np.abs(np.concatenate([tr.q[-1], tr.qd[-1]]) - ref)))
            assert tr.max_constraint_residual < 1e-13
        assert errs[1] < 1e-3 and 3.5 < errs[0] / errs[1] < 4.5, (model.name, errs)


# -- the result object ---------------------------------------------------------------------------
def test_trajectory_object(sleigh):
    tr = dla_integrate(sleigh, Q0, QD0, 0.05, 20, SLEIGH_P)
    assert isinstance(tr, DLATrajectory)
    assert tr.q.shape == (21, 3) and tr.qd.shape == (21, 3) and tr.p.shape == (21, 3)
    assert tr.v_mid.shape == (20, 3) and tr.multipliers.shape == (20, 1)
    assert tr.constraint_residuals.shape == (20, 1) and tr.node_constraint_residuals.shape == (21, 1)
    assert tr.q.dtype == np.float64 and tr.iterations.dtype == np.int64
    assert isinstance(tr.energy0, float) and isinstance(tr.max_energy_error, float)
    with pytest.raises(ValueError):
        tr.q[0, 0] = 1.0                                        # read-only
    with pytest.raises(AttributeError):
        tr.h = 1.0                                              # frozen
    assert np.array_equal(tr["theta"], tr.q[:, 2]) and np.array_equal(tr["y_dot"], tr.qd[:, 1])
    assert set(tr.as_dict()) == {"t", "x", "y", "theta", "x_dot", "y_dot", "theta_dot", "energy"}
    with pytest.raises(UnknownCoordinateError):
        tr["z"]
    assert np.allclose(tr.qd[0], QD0) and tr.energy[0] == pytest.approx(tr.energy0)
    assert np.allclose(tr.q[1:], tr.q[:-1] + tr.h * tr.v_mid, atol=1e-15)
    assert "DLATrajectory(midpoint: 20 steps" in repr(tr)
    assert tr.params == SLEIGH_P and tr.q_names == ("x", "y", "theta")
    assert "sin(theta)" in tr.constraint_names[0]
    empty = dla_integrate(sleigh, Q0, QD0, 0.05, 0, SLEIGH_P)
    assert empty.q.shape == (1, 3) and empty.v_mid.shape == (0, 3)


def test_scheme_is_cached_and_takes_symbols(sleigh):
    s1 = dla_scheme(sleigh)
    assert s1 is dla_scheme(sleigh.system) and isinstance(s1, DLAScheme)
    assert dla_scheme(sleigh, "trapezoidal") is not s1
    assert [s.name for s in s1.parameters] == ["I", "a", "m"]
    m, a, I = sleigh.parameters
    tr1 = dla_integrate(sleigh, Q0, QD0, 0.1, 5, {m: 2.0, a: 0.3, I: 0.5})
    tr2 = dla_integrate(sleigh, Q0, QD0, 0.1, 5, SLEIGH_P)
    assert np.array_equal(tr1.q, tr2.q)


def test_project_initial_velocities(sleigh):
    tr = dla_integrate(sleigh, [0, 0, 0.3], [1.0, 1.0, 0.5], 0.01, 10, SLEIGH_P, project=True)
    A = np.array([np.sin(0.3), -np.cos(0.3), 0.0])
    assert abs(A @ tr.qd[0]) < 1e-14
    assert tr.max_constraint_residual < 1e-14


# -- errors --------------------------------------------------------------------------------------
def test_inconsistent_initial_velocities(sleigh):
    with pytest.raises(InconsistentStateError, match=r"constraint 1: .*residual -1, beyond constraint_tol = 1e-09.*project=True"):
        dla_integrate(sleigh, Q0, [1.0, 1.0, 0.5], 0.01, 10, SLEIGH_P)


@pytest.mark.parametrize("bad, err, match", [
    (dict(h=0.0), InconsistentStateError, "positive"),
    (dict(h=-0.1), InconsistentStateError, "positive"),
    (dict(h=float("nan")), InconsistentStateError, "finite"),
    (dict(h="0.1"), InconsistentStateError, "finite number"),
    (dict(n_steps=-1), DimensionError, "n_steps"),
    (dict(n_steps=2.5), DimensionError, "n_steps"),
    (dict(params={"m": float("nan"), "a": 0.3, "I": 0.5}), InconsistentStateError, "m = nan"),
    (dict(params={"m": 2.0, "a": float("inf"), "I": 0.5}), InconsistentStateError, "not a finite"),
    (dict(params={"m": 2.0, "a": 0.3}), MissingValueError, "I"),
    (dict(params={"m": 2.0, "a": 0.3, "I": 0.5, "g": 9.81}), UnknownCoordinateError, "g"),
    (dict(params=[2.0, 0.3, 0.5]), DimensionError, "mapping"),
    (dict(q0=[0.0, 0.0]), DimensionError, "3"),
    (dict(qd0=[1.0, float("nan"), 0.5]), InconsistentStateError, "y"),
    (dict(rule="leapfrog"), NotFoundError, "midpoint"),
    (dict(tol=0.0), InconsistentStateError, "positive"),
    (dict(max_iter=0), DimensionError, "max_iter"),
])
def test_bad_input(sleigh, bad, err, match):
    kw = dict(q0=Q0, qd0=QD0, h=0.01, n_steps=3, params=SLEIGH_P)
    kw.update(bad)
    with pytest.raises(err, match=match):
        dla_integrate(sleigh, kw.pop("q0"), kw.pop("qd0"), kw.pop("h"), kw.pop("n_steps"), kw.pop("params"), **kw)


def test_newton_failure_names_step_and_residual(sleigh):
    with pytest.raises(SingularMapError, match=r"DLA step 0 \(t = 0 → 0\.5\).*residual max \|R\| = "):
        dla_integrate(sleigh, Q0, QD0, 0.5, 3, SLEIGH_P, max_iter=1, tol=1e-300)


def test_affine_and_rheonomic_constraints_refused():
    with pytest.raises(NotLinearError, match="affine"):
        dla_scheme(models.get("ball-on-turntable"))
    with pytest.raises(NotLinearError, match="rheonomic"):
        dla_scheme(models.get("rotating-knife-edge"))
    with pytest.raises(ParseError, match="MechanicalSystem"):
        dla_integrate(models.get("unicycle"), [0, 0, 0], [0, 0, 0], 0.1, 1)


def test_unconstrained_system_is_the_midpoint_variational_integrator():
    """Without constraints the scheme is the midpoint variational integrator: on a pendulum
    the energy error is O(h²) and bounded (no drift over 5000 steps, some 80 periods)."""
    S = geonh.ConfigurationSpace("x")
    k = sp.Symbol("k", positive=True)
    pend = geonh.MechanicalSystem(S, S.qd[0] ** 2 / 2, V=-k * sp.cos(S.q[0]))
    errs = []
    for h in (0.1, 0.05):
        tr = dla_integrate(pend, [1.5], [0.0], h, int(round(500 / h)), {"k": 1.0})
        assert tr.multipliers.shape == (tr.n_steps, 0) and tr.constraint_residuals.shape == (tr.n_steps, 0)
        dE = np.abs(tr.energy_error)
        half = len(dE) // 2
        assert dE[half:].max() <= 1.05 * dE[:half].max()
        errs.append(dE.max())
    assert errs[0] < 5e-3 and 3.5 < errs[0] / errs[1] < 4.5, errs
