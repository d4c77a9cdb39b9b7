"""A newcomer's variations on geonh.sweep (session 18): parameters missing, fixed or named twice."""
from __future__ import annotations

import pytest
import sympy as sp

import geonh
from geonh.errors import DimensionError, MissingValueError

Y0 = [0, 0, 0, 1.0, 0.5]


@pytest.fixture(scope="module")
def sleigh():
    return geonh.models.get("chaplygin-sleigh").equations("boltzmann-hamel")


def test_a_parameter_missing_from_the_grid_fails_before_the_first_point(sleigh):
    # before: every row was an error "KeyError: 'I'"
    with pytest.raises(MissingValueError, match="no value for the parameter.*I"):
        geonh.sweep(sleigh, {"a": [0.1], "m": [1.0]}, Y0, (0, 1))
    with pytest.raises(MissingValueError, match="a, I, m|I, a, m"):
        geonh.sweep(sleigh, {}, Y0, (0, 1))


def test_a_sampler_that_misses_a_parameter_fails_before_the_first_point(sleigh):
    with pytest.raises(MissingValueError, match="m"):
        geonh.sweep(sleigh, lambda rng: {"a": rng.random(), "I": 1.0}, Y0, (0, 1), n_samples=2)


def test_params_keyword_is_refused_with_the_way_to_fix_a_parameter(sleigh):
    # before: params= was ignored and every row failed with a KeyError
    with pytest.raises(DimensionError, match="one-value grid entry"):
        geonh.sweep(sleigh, {"a": [0.1, 0.2]}, Y0, (0, 1), params={"m": 1.0, "I": 1.0})


def test_a_parameter_named_twice_is_refused(sleigh):
    # before: {"a": [0.1], Symbol a: [0.3]} silently ran one of the two values
    a = sp.Symbol("a", positive=True)
    with pytest.raises(DimensionError, match="names a twice"):
        geonh.sweep(sleigh, {"a": [0.1], a: [0.3], "m": [1.0], "I": [1.0]}, Y0, (0, 1))


def test_a_callable_task_may_still_leave_parameters_to_itself(sleigh):
    res = geonh.sweep(sleigh, {"a": [0.1, 0.2]}, task=lambda p, y: {"twice": 2 * p["a"]})
    assert [r["twice"] for r in res.rows] == [0.2, 0.4] and not res.failed
