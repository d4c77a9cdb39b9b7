"""Growth vector at a point, privileged coordinates and the nilpotent approximation
(Bellaïche 1996): the car at a generic point has weights (1, 1, 2, 3)."""
from __future__ import annotations

import pytest
import sympy as sp

from geonh import models
from geonh.control.nilpotent import (degree_of_nonholonomy, growth_vector_at, is_homogeneous,
                                     nilpotent_approximation, nonholonomic_order, privileged_coordinates)
from geonh.errors import RankError
from geonh.kernel import ConfigurationSpace, VectorField

a, b = sp.symbols("a b")
CAR_POINT = [0, 0, a, b]          # generic heading and steering angle


def car():
    return list(models.get("kinematic-car").frame.fields[:2])


def test_growth_and_degree_at_a_point():
    assert growth_vector_at(car(), CAR_POINT) == (2, 3, 4)
    assert degree_of_nonholonomy(car(), CAR_POINT) == 3
    assert degree_of_nonholonomy(list(models.get("unicycle").frame.fields[:2]), [0, 0, 0]) == 2


@pytest.mark.slow
def test_privileged_coordinates_have_their_weights_as_orders():
    pc = privileged_coordinates(car(), CAR_POINT)
    assert pc.weights == (1, 1, 2, 3)
    assert [nonholonomic_order(car(), CAR_POINT, z, up_to=5) for z in pc.z] == [1, 1, 2, 3]


@pytest.mark.slow
def test_linear_coordinates_alone_are_not_privileged():
    # the correction matters: some linearly adapted coordinate has order below its weight
    pc = privileged_coordinates(car(), [0, 0, sp.Rational(1, 3), sp.Rational(1, 5)])
    orders = [nonholonomic_order(car(), [0, 0, sp.Rational(1, 3), sp.Rational(1, 5)], y, up_to=5) for y in pc.y]
    assert orders != list(pc.weights)


@pytest.mark.slow
def test_car_nilpotent_approximation_has_the_published_weights_and_is_homogeneous():
    na = nilpotent_approximation(car(), CAR_POINT)
    assert na.weights == (1, 1, 2, 3)
    assert all(is_homogeneous(X, na.weights, -1) for X in na.fields)
    assert growth_vector_at(na.fields, [0, 0, 0, 0]) == (2, 3, 4)
    z1, z2, z3, z4 = na.space.coords
    assert list(na.fields[0].components) == [1, 0, -z2, -z3]
    assert list(na.fields[1].components) == [0, 1, 0, 0]


def test_homogeneity_check_can_fail():
    S = ConfigurationSpace("z1 z2 z3")
    z1, z2, z3 = S.q
    assert is_homogeneous(VectorField(S, [1, 0, z1]), (1, 1, 2))
    assert not is_homogeneous(VectorField(S, [1, 0, z1 ** 2]), (1, 1, 2))


def test_not_bracket_generating_at_the_point():
    S = ConfigurationSpace("x y z")
    f = [VectorField.coordinate(S, "x"), VectorField.coordinate(S, "y")]
    with pytest.raises(RankError, match="not bracket-generating"):
        growth_vector_at(f, [0, 0, 0])


@pytest.mark.slow
def test_two_trailer_nilpotent_approximation_has_the_published_weights_in_bounded_time():
    """The 2-trailer at a generic point (0, 0, θ0, θ1, θ2): weights (1, 1, 2, 3, 4) — the N-trailer's
    growth vector (2, 3, …, N + 3) (Sørdalen 1993; Bellaïche 1996) — and fields homogeneous of
    degree −1 with the same growth vector at 0.  It took over 250 s while every value at the
    point went through ``simplify``; now well under 30 s of CPU."""
    import time
    c = sp.Symbol("c")
    start = time.process_time()
    na = nilpotent_approximation(list(models.get("2-trailer").frame.fields[:2]), [0, 0, a, b, c])
    assert time.process_time() - start < 30
    assert na.weights == (1, 1, 2, 3, 4)
    assert all(is_homogeneous(X, na.weights, -1) for X in na.fields)
    assert growth_vector_at(na.fields, [0] * 5) == (2, 3, 4, 5)
    z1, z2, z3, z4, z5 = na.space.coords
    assert list(na.fields[1].components) == [0, 1, 0, 0, 0]
    assert list(na.fields[0].components)[:3] == [1, 0, -z2]
