"""A newcomer's variations on the compiled right-hand side (session 18): batch shapes."""
from __future__ import annotations

import numpy as np
import pytest

from geonh import models
from geonh.errors import DimensionError


@pytest.fixture(scope="module")
def f():
    return models.get("chaplygin-sleigh").equations("boltzmann-hamel").ode_function()


@pytest.mark.parametrize("t, P, match", [
    (0.0, np.ones((2, 3)), "P of shape \\(2, 3\\) for 3 states"),       # before: numpy's broadcast ValueError
    (0.0, np.ones((3, 3, 3)), "P of shape"),
    (np.zeros(2), np.ones(3), "t of shape \\(2,\\) for 3 states"),
    (np.zeros((3, 1)), np.ones(3), "t of shape"),
])
def test_batch_arguments_of_the_wrong_shape_are_named(f, t, P, match):
    with pytest.raises(DimensionError, match=match):
        f.batch(t, np.zeros((3, 5)), P)


def test_batch_with_one_parameter_row_per_state_matches_single_calls(f):
    rng = np.random.default_rng(3)
    Y, P, t = rng.uniform(-1, 1, (4, 5)), rng.uniform(0.5, 2, (4, 3)), rng.uniform(0, 1, 4)
    assert np.allclose(f.batch(t, Y, P), [f(t[i], Y[i], P[i]) for i in range(4)], rtol=1e-13)
