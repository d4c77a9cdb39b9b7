"""A newcomer's variations on geonh.control (session 18): singular points, misspelt names."""
from __future__ import annotations

import math

import pytest
import sympy as sp

from geonh import models
from geonh.control import chained_form, steer_chained
from geonh.control import steering
from geonh.errors import IntegrationError, SingularMapError


@pytest.fixture(scope="module")
def car_form():
    return chained_form(models.get("kinematic-car").frame.fields[:2])


@pytest.mark.parametrize("q0, qf", [([0, 0, 0, 0], [1, 0.3, math.pi / 2, 0.1]),     # target on cos θ = 0
                                    ([0, 0, math.pi / 2, 0], [1, 0.3, 0.2, 0.1])])   # start there
def test_steer_chained_refuses_a_singular_end_instead_of_hanging(car_form, q0, qf):
    # before: the plan's inputs were ~1e16 and the verifying simulation ran for hours
    with pytest.raises(SingularMapError, match="singular at q"):
        steer_chained(car_form, q0, qf, {"L": 1.0})


def test_steer_chained_refuses_a_parameter_that_makes_the_form_singular(car_form):
    # L = 0: φ and β are nan at every point; the error named an internal z0 of sinusoidal_plan
    with pytest.raises(SingularMapError, match="steer_chained: the chained form is singular at q0"):
        steer_chained(car_form, [0, 0, 0, 0], [1, 0.3, 0.2, 0.1], {"L": 0})


def test_a_verifying_simulation_has_a_bounded_number_of_evaluations(monkeypatch):
    monkeypatch.setattr(steering, "MAX_EVALUATIONS", 50)
    with pytest.raises(IntegrationError, match="stopped after 50 evaluations"):
        steering._integrate(lambda t, y: -1e6 * y, [1.0], 1.0, 1e-12, 1e-12)


@pytest.mark.parametrize("call", ["growth_vector_at", "degree_of_nonholonomy", "nilpotent_approximation"])
def test_a_point_where_the_fields_are_infinite_is_singular_not_a_growth_vector(call):
    # the car's f1 has tan(φ)/L: at φ = π/2 it is infinite; before, the growth vector there was (2, 4)
    import geonh.control as control
    f = models.get("kinematic-car").frame.fields[:2]
    with pytest.raises(SingularMapError, match="no finite value"):
        getattr(control, call)(f, [0, 0, 0, sp.pi / 2])
    with pytest.raises(SingularMapError, match="no finite value"):
        getattr(control, call)(f, {"x": 0, "y": 0, "theta": 0, "phi": "pi/2"})


@pytest.mark.parametrize("build", ["from_mechanical", "AffineConnectionSystem"])
def test_an_actuator_string_with_a_misspelt_parameter_is_refused(build):
    # before: 'aa' became a new generic parameter and the verdicts were about another system
    from geonh.control import AffineConnectionSystem, ControlAffineSystem
    from geonh.errors import UnknownCoordinateError
    sleigh = models.get("chaplygin-sleigh")
    make = {"from_mechanical": lambda F: ControlAffineSystem.from_mechanical(sleigh.system, F, frame=sleigh.frame),
            "AffineConnectionSystem": lambda F: AffineConnectionSystem(sleigh.system, F)}[build]
    with pytest.raises(UnknownCoordinateError, match="'aa' is no coordinate or parameter"):
        make([["0", "0", "aa"]])
    with pytest.raises(UnknownCoordinateError, match="'aa'"):
        make([{"theta": "aa*m"}])
    make([["0", "0", "a*m"]])                                          # the system's own parameters
    make([[0, 0, sp.Symbol("h", positive=True)]])                      # a sympy symbol of the user's own


def test_chained_form_refuses_a_misspelt_h1_or_h2_string():
    # before: 'xx' was a new symbol and the error said "h1 = xx: constant along both inputs"
    from geonh.errors import UnknownCoordinateError
    f = models.get("kinematic-car").frame.fields[:2]
    with pytest.raises(UnknownCoordinateError, match="'xx'"):
        chained_form(f, "xx", "y")
    with pytest.raises(UnknownCoordinateError, match="'yy'"):
        chained_form(f, "x", "yy")
    assert chained_form(f, "x", "y").is_verified()


def test_the_planning_functions_take_a_driftless_system_as_accessibility_does():
    # before: accessibility took a DriftlessSystem, nilpotent_approximation and chained_form refused it
    from geonh.control import DriftlessSystem, growth_vector_at, nilpotent_approximation
    f = models.get("kinematic-car").frame.fields[:2]
    car = DriftlessSystem(list(f))
    assert growth_vector_at(car, [0, 0, 0, 0]) == growth_vector_at(f, [0, 0, 0, 0]) == (2, 3, 4)
    assert nilpotent_approximation(car, [0, 0, 0, 0]).weights == (1, 1, 2, 3)
    assert [sp.simplify(a - b) for a, b in zip(chained_form(car).z, chained_form(f).z)] == [0] * 4


def test_nonholonomic_order_refuses_a_misspelt_function_string():
    # before: 'yy' was a new symbol, a nonzero constant: order 0 (y has order 2 at the origin)
    from geonh.control import nonholonomic_order
    from geonh.errors import UnknownCoordinateError
    f = models.get("unicycle").frame.fields[:2]
    assert nonholonomic_order(f, [0, 0, 0], "y", up_to=3) == 2
    with pytest.raises(UnknownCoordinateError, match="'yy'"):
        nonholonomic_order(f, [0, 0, 0], "yy", up_to=3)
