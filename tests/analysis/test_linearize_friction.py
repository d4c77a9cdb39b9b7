"""The friction a new user met in linearize (issue 23): a dependent coordinate omitted in the
symbolic mode, and drifting coordinates under the default ignorable=()."""
from __future__ import annotations

import pytest
import sympy as sp

import geonh as g
from geonh import models
from geonh.equations import FORMS
from geonh.errors import MissingValueError, NotAdaptedError

m, grav = sp.symbols("m g", positive=True)


def _bead(holonomic):
    S = g.ConfigurationSpace("x y")
    (x, y), (xd, yd) = S.q, S.qd
    return S, g.MechanicalSystem(S, m * (xd**2 + yd**2) / 2, V=m * grav * y, holonomic=[holonomic(x, y)])


@pytest.mark.parametrize("form", ["lagrange", "boltzmann-hamel"])
@pytest.mark.parametrize("dependent", [["y"], []])
def test_symbolic_linearization_solves_an_omitted_dependent_coordinate(form, dependent):
    """docs/linearization.md: the value of a dependent coordinate may be omitted; in the
    symbolic mode it is solved exactly from the holonomic constraint (y = 1 + x² at x = 0)."""
    S, bead = _bead(lambda x, y: y - 1 - x**2)
    lin = FORMS[form](bead).linearize({"x": 0, "x_dot": 0}, dependent=dependent, symbolic=True)
    assert lin.operating_point[S.q[1]] == 1
    assert sp.simplify(lin.A - sp.Matrix([[0, 1], [-2 * grav, 0]])) == sp.zeros(2, 2)


def test_symbolic_linearization_refuses_a_choice_it_cannot_make():
    """On the circle x² + y² = 1 at x = 0, y = ±1: the operating point must say which."""
    _, ring = _bead(lambda x, y: x**2 + y**2 - 1)
    with pytest.raises(MissingValueError, match=r"2 solutions \(y = -1; y = 1\)"):
        FORMS["lagrange"](ring).linearize({"x": 0, "x_dot": 0}, dependent=["y"], symbolic=True)


def test_drifting_coordinates_name_ignorable_auto():
    """The sleigh's straight motion: x, y drift; under the default ignorable=() they stay in the
    state and the second-order form cannot close — the error names the remedy."""
    M = models.get("chaplygin-sleigh")
    eq = M.equations("boltzmann-hamel")
    ms, a, I = M.parameters
    op = {"x": 0, "y": 0, "theta": 0.3, "v": 2, "w": 0, ms: 1, a: 0.5, I: 0.25}
    lin = eq.linearize(op)
    assert {x.name for x in lin.drift} == {"x", "y"}
    with pytest.raises(NotAdaptedError, match=r"\['x', 'y'\] drift .* ignorable=\"auto\""):
        lin.second_order()
    assert eq.linearize(op, ignorable="auto").second_order().M.shape == (0, 0)
