"""Derivatives along the equations (geonh.analysis.integrals), the primitive of the conserved
quantities in geonh.analysis: against finite differences of the compiled flow, and known
integrals."""
import numpy as np
import pytest
import sympy as sp

from geonh import models
from geonh.analysis.integrals import is_integral, rates, time_derivative
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
