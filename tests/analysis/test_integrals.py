"""Derivatives along the equations (geonh.analysis.integrals), the primitive of the conserved
quantities in geonh.analysis: against finite differences of the compiled flow, and known
integrals."""
import numpy as np
import pytest
import sympy as sp

from geonh import models
from geonh.analysis.integrals import is_integral, rate_vanishes, rates, time_derivative
from geonh.errors import DimensionError, NotLinearError


@pytest.fixture(scope="module")
def sleigh():
    return models.get("chaplygin-sleigh").equations("boltzmann-hamel")


def test_time_derivative_matches_finite_differences(sleigh):
    x, y, th = sleigh.space.q
    v, w = sleigh.u
    I = v * sp.cos(th) + w**2 * x
    Id = time_derivative(sleigh, I)
    params = {"m": 2.0, "I": 0.5, "a": 0.3}
    f = sleigh.ode_function(params)
    y0 = np.array([0.1, 0.2, 0.3, 1.1, 0.7])
    h = 1e-6
    val = lambda yy: float(I.xreplace({x: yy[0], th: yy[2], v: yy[3], w: yy[4]}))  # noqa: E731
    fd = (val(y0 + h * f(0, y0)) - val(y0 - h * f(0, y0))) / (2 * h)
    by_name = {s.name: s for s in Id.free_symbols}
    exact = float(Id.xreplace({x: 0.1, th: 0.3, v: 1.1, w: 0.7, **{by_name[k]: val_ for k, val_ in params.items()
                                                                  if k in by_name}}))
    assert abs(fd - exact) < 1e-6


def test_known_integrals_and_non_integrals():
    disk = models.get("vertical-disk").equations("boltzmann-hamel")
    assert all(is_integral(disk, u) for u in disk.u)
    top = models.get("heavy-top").equations("boltzmann-hamel")
    assert not is_integral(top, top.u[0])


def test_rates_refuse_multiplier_forms_and_non_equations():
    with pytest.raises(NotLinearError, match="multipliers"):
        rates(models.get("chaplygin-sleigh").equations("lagrange"))
    with pytest.raises(DimensionError):
        rates("not equations")


def test_string_inputs_are_parsed_never_evaluated(sleigh):
    from geonh.errors import ParseError
    v = sleigh.u[0]
    assert sp.simplify(time_derivative(sleigh, "v*cos(theta)") - time_derivative(sleigh, v * sp.cos(sleigh.space.q[2]))) == 0
    with pytest.raises(ParseError):
        time_derivative(sleigh, "__import__('os').system('true')")


def _energy_on_motion(eqs):
    S = eqs.space
    return (eqs.system.T + eqs.system.V).xreplace(dict(zip(S.qd, eqs.kinematics)))


@pytest.mark.parametrize("name, conserved", [("chaplygin-sleigh", True), ("vertical-disk", True),
                                              ("skate-on-belt", False), ("rotating-knife-edge", False)])
def test_rate_vanishes_is_the_verdict_on_the_full_derivative(name, conserved):
    """rate_vanishes decides İ ≡ 0 on ∂_t I + ∂_q I·K + u·F when ∂I/∂u = Mᵀu: the same verdict
    as on İ with the rates u̇ = M⁻¹F; for a function without that property (u₁·cos q₁) it
    decides on İ itself."""
    from geonh.kernel.generic_point import is_zero
    eqs = models.get(name).equations("boltzmann-hamel")
    E = _energy_on_motion(eqs)
    assert rate_vanishes(eqs, E) is conserved
    assert is_zero(time_derivative(eqs, E)) is conserved
    other = eqs.u[0] * sp.cos(eqs.space.q[0])
    assert rate_vanishes(eqs, other) is is_zero(time_derivative(eqs, other))


def test_energy_verdict_is_not_decided_on_the_derivative_with_the_rates(monkeypatch):
    """Jacobi's integral (and the energy) of a Boltzmann–Hamel form: dh/dt, which holds the
    rates u̇ = M⁻¹F, is returned but never given to a 60-digit zero decision (issue 22: on the
    Chaplygin ball it has ~37 000 operations, ~1 s per decision, and was decided twice); the
    verdict is taken on ∂_q h·K + u·F (rate_vanishes), the same function."""
    from geonh.analysis import conserved, integrals
    eqs = models.get("chaplygin-sleigh").equations("boltzmann-hamel")
    seen = []

    def spy(real):
        def is_zero(e, **kw):
            seen.append(e)
            return real(e, **kw)
        return is_zero

    monkeypatch.setattr(integrals, "is_zero", spy(integrals.is_zero))
    monkeypatch.setattr(conserved, "is_zero", spy(conserved.is_zero))
    h = conserved.jacobi_integral(eqs)
    assert h.conserved and seen
    assert not any(e == h.rate for e in seen)
    assert sp.count_ops(h.rate) > 0 and any(e.has(*eqs.u) for e in seen)


def test_energy_is_simplified_for_display_once(monkeypatch):
    """energy_integral of a scleronomic system shows E = T + V, equal to Jacobi's h there: the
    display simplification (trigsimp, the costly part on the Chaplygin ball) runs once, on E,
    and the verdicts are Jacobi's; jacobi_integral itself still simplifies its h."""
    from geonh.analysis import conserved
    eqs = models.get("chaplygin-sleigh").equations("boltzmann-hamel")
    shown = []
    real = conserved._trigsimp_if_shorter
    monkeypatch.setattr(conserved, "_trigsimp_if_shorter", lambda e: shown.append(e) or real(e))
    E = conserved.energy_integral(eqs)
    assert len(shown) == 1
    h = conserved.jacobi_integral(eqs)
    assert len(shown) == 2
    assert E.conserved == h.conserved and E.terms == h.terms
    assert sp.expand(sp.sympify(E.expression) - h.expression).equals(0)
