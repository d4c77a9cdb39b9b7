"""First integrals (geonh.equations.integrals): energy and Jacobi's integral checked, not
assumed; the polynomial search finds the known integrals and nothing false; integrals stay
constant along simulate."""
import numpy as np
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from geonh import models, simulate
from geonh.equations.integrals import (deviation_along, energy, is_integral, jacobi_integral,
                                       polynomial_integrals, time_derivative)
from geonh.errors import NotLinearError


@pytest.fixture(scope="module")
def disk():
    return models.get("vertical-disk").equations("boltzmann-hamel")


@pytest.fixture(scope="module")
def sleigh():
    return models.get("chaplygin-sleigh").equations("boltzmann-hamel")


def test_energy_is_conserved_where_no_force_does_work(sleigh, disk):
    for eq in (sleigh, disk):
        E, ok = energy(eq)
        assert ok and E.free_symbols & set(eq.u)
        h, ok_h = jacobi_integral(eq)
        assert ok_h and sp.simplify(h - E) == 0  # scleronomic: h = E
    # the car's driving force does work; the rotating knife edge is rheonomic
    for name in ("car", "rotating-knife-edge"):
        eq = models.get(name).equations("boltzmann-hamel")
        assert not energy(eq)[1]


def test_vertical_disk_rolling_and_turning_rates(disk):
    """Known: the vertical rolling disk rolls and turns at constant rates."""
    assert set(polynomial_integrals(disk, 1)) == set(disk.u)
    quad = polynomial_integrals(disk, 2)
    assert all(is_integral(disk, I) for I in quad) and len(quad) == 5  # rates, and their products


def test_sleigh_has_no_parameter_free_polynomial_integral(sleigh):
    """The sleigh's motion tends to straight-line motion; its only integral is the energy,
    whose coefficients are parameters (outside the ansatz): nothing false is found."""
    assert polynomial_integrals(sleigh, 2) == []


def test_symmetric_top_spin():
    from geonh.models import mechanical
    top = mechanical.heavy_top(symmetric=True).equations("boltzmann-hamel")
    assert polynomial_integrals(top, 1) == [top.u[2]]
    assert not is_integral(top, top.u[0])


def test_multiplier_forms_refused():
    eq = models.get("chaplygin-sleigh").equations("lagrange")
    with pytest.raises(NotLinearError, match="multipliers"):
        polynomial_integrals(eq)


def test_time_derivative_matches_finite_differences(sleigh):
    E, _ = energy(sleigh)
    x, y, th = sleigh.space.q
    v, w = sleigh.u
    I = sleigh.u[0] * sp.cos(th)
    Id = time_derivative(sleigh, I)
    f = sleigh.ode_function({"m": 2.0, "I": 0.5, "a": 0.3})
    y0 = np.array([0.1, 0.2, 0.3, 1.1, 0.7])
    h = 1e-6
    val = lambda yy: float(I.xreplace({th: yy[2], v: yy[3]}))  # noqa: E731
    fd = (val(y0 + h * f(0, y0)) - val(y0 - h * f(0, y0))) / (2 * h)
    exact = float(Id.xreplace({th: 0.3, v: 1.1, w: 0.7, sp.Symbol("m", positive=True): 2,
                               sp.Symbol("I", positive=True): 0.5, sp.Symbol("a", positive=True): 0.3}))
    assert abs(fd - exact) < 1e-6


@settings(deadline=None, max_examples=5)
@given(st.floats(0.2, 2.0), st.floats(-2.0, 2.0), st.floats(0.0, 6.0))
def test_integrals_constant_along_simulate(disk, wth, wph, angle):
    """The energy and the detected integrals stay constant along simulate to 1e-10."""
    params = {s.name: 1.0 + 0.1 * k for k, s in enumerate(sorted(
        set().union(*[e.free_symbols for e in list(disk.mass_matrix) + list(disk.forcing)]) - set(disk.u)
        - set(disk.space.q), key=lambda s: s.name))}
    n = len(disk.space.q)
    y0 = [0.0] * n + [wth, wph]
    y0[-3] = angle
    tr = simulate(disk, y0, (0, 5), params, rtol=1e-12, atol=1e-12)
    for I in [energy(disk)[0]] + polynomial_integrals(disk, 1):
        assert deviation_along(tr, I, params) < 1e-10


def test_momentum_equation_rolling_disk_and_sleigh():
    """BKMM (1996): for the vertical rolling disk under SE(2) × S¹ the two nonholonomic
    momenta — the spin about the vertical I θ̇ and the rolling momentum (J + mR²) φ̇ — are
    conserved; the sleigh's momenta under SE(2) are not (its motion tends to a line).  The
    momentum equation itself is verified inside momentum_equations."""
    from geonh import VectorField
    from geonh.equations.integrals import momentum_equations
    d = models.get("vertical-disk")
    eq = d.equations("boltzmann-hamel")
    S = d.space
    x, y, th, ph = S.q
    gens = [VectorField.coordinate(S, x), VectorField.coordinate(S, y), VectorField(S, [-y, x, 1, 0]),
            VectorField.coordinate(S, ph)]
    eqs = momentum_equations(eq, gens)
    assert len(eqs) == 2 and all(m.conserved for m in eqs)
    assert all(is_integral(eq, m.momentum) for m in eqs)
    # each momentum is a constant multiple of one speed: no coordinate in the ratio
    for m, w in zip(eqs, eq.u):
        assert not (sp.simplify(m.momentum / w).free_symbols & set(S.q))
    s = models.get("chaplygin-sleigh")
    eq = s.equations("boltzmann-hamel")
    S = s.space
    x, y, th = S.q
    eqs = momentum_equations(eq, [VectorField.coordinate(S, x), VectorField.coordinate(S, y), VectorField(S, [-y, x, 1])])
    assert len(eqs) == 2 and not any(m.conserved for m in eqs)


def test_momentum_equation_refuses_a_non_symmetry():
    from geonh import VectorField
    from geonh.equations.integrals import momentum_equations
    from geonh.errors import NotAdaptedError
    d = models.get("vertical-disk")
    S = d.space
    with pytest.raises(NotAdaptedError, match="constraints are not invariant"):
        momentum_equations(d.equations("boltzmann-hamel"), [VectorField.coordinate(S, S.q[2])])
    top = models.get("heavy-top")
    with pytest.raises(NotAdaptedError, match="Lagrangian is not invariant"):
        momentum_equations(top.equations("boltzmann-hamel"), [VectorField.coordinate(top.space, top.space.q[1])])
