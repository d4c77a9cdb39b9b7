"""The :class:`Equations` type: a frozen dataclass on the equations floor, with the analysis and
numerics methods users know registered from above (geonh.equations.base.register_method)."""
from __future__ import annotations

import dataclasses
import inspect

import pytest

import geonh as g
from geonh import models
from geonh.analysis import linearize
from geonh.equations import Equations
from geonh.equations.base import register_method
from geonh.numerics import ODEFunction, ode_function

#: what users read off an Equations (attributes and properties), before and after the dataclass
READ = ("form", "system", "space", "u", "ud", "kinematics", "speeds", "residuals", "lam_vec", "frame",
        "reactions", "notes", "reduced_coordinates", "details", "q", "unknowns", "kdes", "mass_matrix",
        "forcing", "mass_matrix_full", "forcing_full", "value_symbols")


@pytest.fixture(scope="module")
def sleigh():
    return models.get("chaplygin-sleigh")


def test_equations_are_a_frozen_dataclass_with_every_attribute(sleigh):
    eq = sleigh.equations("lagrange")
    assert dataclasses.is_dataclass(Equations) and Equations.__dataclass_params__.frozen
    for name in READ:
        getattr(eq, name)
    assert eq.lam_vec == eq.multipliers and len(eq.lam_vec) == 1
    assert {f.name for f in dataclasses.fields(Equations)} >= {"form", "system", "space", "u", "ud", "kinematics",
                                                                "speeds", "residuals", "multipliers", "frame"}
    with pytest.raises(dataclasses.FrozenInstanceError, match="immutable"):
        eq.kinematics = ()
    with pytest.raises(dataclasses.FrozenInstanceError, match="immutable"):
        del eq.form


def test_the_constructor_signature_is_kept():
    params = inspect.signature(Equations).parameters
    assert list(params)[:7] == ["form", "system", "u", "ud", "kinematics", "speeds", "residuals"]
    assert {p.name for p in params.values() if p.kind is p.KEYWORD_ONLY} == {
        "multipliers", "frame", "reactions", "notes", "linear", "reduced_coordinates", "details"}


def test_replace_makes_a_checked_copy(sleigh):
    eq = sleigh.equations("lagrange")
    other = dataclasses.replace(eq, notes="changed")
    assert other is not eq and other.notes == "changed" and eq.notes != "changed"
    assert other.lam_vec == eq.lam_vec and other.mass_matrix == eq.mass_matrix and other.forcing == eq.forcing
    assert other.space is eq.space and other.frame is eq.frame
    with pytest.raises(g.ParseError):
        dataclasses.replace(eq, kinematics=["1 +* x"] * sleigh.space.n)
    with pytest.raises(ValueError, match="space"):
        dataclasses.replace(eq, space=eq.space)  # derived from the system, not a constructor argument


def test_methods_forward_to_the_functions_above(sleigh):
    eq = sleigh.equations("boltzmann-hamel")
    op = {"x": 0, "y": 0, "theta": 0, "v": 1, "w": 0, "m": 1, "a": 1, "I": 1}
    assert eq.linearize(op, ignorable="auto").A == linearize(eq, op, ignorable="auto").A
    f = eq.ode_function({"m": 1, "a": 1, "I": 1})
    assert isinstance(f, ODEFunction) and f.state == ode_function(eq, {"m": 1, "a": 1, "I": 1}).state
    assert Equations.linearize.__wrapped__ is linearize and Equations.ode_function.__wrapped__ is ode_function
    assert inspect.getdoc(eq.linearize) == inspect.getdoc(linearize)
    forwarded = inspect.signature(eq.ode_function).parameters
    assert list(forwarded) == list(inspect.signature(ode_function).parameters)[1:]


def test_register_method_refuses_what_is_not_free():
    register_method("linearize", linearize)  # the same function again: nothing happens
    assert Equations.linearize.__wrapped__ is linearize
    for name in ("mass_matrix", "form", "multipliers", "latex", "_private", "not a name"):
        with pytest.raises(g.InconsistentStateError, match="cannot register"):
            register_method(name, linearize)
    with pytest.raises(g.InconsistentStateError, match="already forwards to geonh.analysis.linearize"):
        register_method("linearize", ode_function)
    assert Equations.linearize.__wrapped__ is linearize
