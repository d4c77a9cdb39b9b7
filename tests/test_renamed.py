"""Calls whose form changed fail at once with an error naming the new call (issue 23)."""
from __future__ import annotations

import pickle
import random

import pytest

from geonh import models
from geonh.errors import GeonhError, RenamedError
from geonh.moved import RENAMED, renamed
from geonh.systems.mechanical import random_state


@pytest.fixture(scope="module")
def sleigh():
    return models.get("chaplygin-sleigh")


def test_rhs_symbolic_names_the_new_calls(sleigh):
    eq = sleigh.equations("boltzmann-hamel")
    with pytest.raises(RenamedError, match=r"use eqs\.rhs\(\)"):
        eq.rhs(symbolic=True)
    with pytest.raises(RenamedError, match=r"eqs\.ode_function\(\)"):
        eq.rhs(symbolic=False)
    with pytest.raises(TypeError):      # still a TypeError for those who catch that
        eq.rhs(True)
    assert eq.rhs().shape == (5, 1)


def test_random_state_of_a_system_names_sample_state(sleigh):
    with pytest.raises(RenamedError, match=r"system\.sample_state\(rng\)"):
        random_state(sleigh.system, random.Random(1))
    with pytest.raises(GeonhError):
        random_state("x y", random.Random(1))
    assert set(random_state(sleigh.space, random.Random(1))) == set(sleigh.space.coords)


def test_every_renamed_call_has_its_error():
    for old, new in RENAMED.items():
        e = renamed(old)
        assert isinstance(e, GeonhError) and e.old == old and new in str(e)
        assert str(pickle.loads(pickle.dumps(e))) == str(e)
