"""Variations on the first-integral API (issue 26) that a newcomer tries: an integral given as
a string, as the docs allow, must mean the model's own parameters."""
import pytest
import sympy as sp

from geonh import models
from geonh.analysis import is_integral
from geonh.analysis.integrals import expression_in, time_derivative
from geonh.errors import UnknownCoordinateError
from geonh.kernel.space import known_symbols


def test_an_integral_given_as_a_string_uses_the_models_parameters():
    """The sleigh's energy as a string.  Before, the parameters of the mass matrix were not
    among the known names (a mutable Matrix is no sp.Basic), so "m", "a", "I" became fresh
    symbols without the model's assumptions and `is_integral` said False: a silent wrong
    verdict on a conserved energy."""
    eqs = models.get("chaplygin-sleigh").equations("boltzmann-hamel")
    energy = "I*w**2 + a**2*m*w**2 + m*v**2"
    assert is_integral(eqs, energy) is True
    assert is_integral(eqs, "v") is False
    e = expression_in(eqs, energy)
    m, a, I = models.get("chaplygin-sleigh").parameters
    assert {m, a, I} <= e.free_symbols


def test_known_symbols_reads_the_parameters_of_a_matrix():
    sleigh = models.get("chaplygin-sleigh")
    m, a, I = sleigh.parameters
    names = known_symbols(sleigh.space, sp.Matrix([[m * a, I]]))
    assert {m, a, I} <= set(names)


def test_a_string_naming_what_the_equations_do_not_know_is_refused():
    """A misspelt name in a string is refused, naming it (it was a new generic parameter: the
    sleigh's energy with ``Ii`` for ``I`` was "not an integral"); a sympy expression may bring
    an arbitrary constant of its own, and a parameter the system has is known by name."""
    eqs = models.get("chaplygin-sleigh").equations("boltzmann-hamel")
    with pytest.raises(UnknownCoordinateError, match="'Ii'"):
        is_integral(eqs, "Ii*w**2 + a**2*m*w**2 + m*v**2")
    with pytest.raises(UnknownCoordinateError, match="'zz'"):
        time_derivative(eqs, "zz*v")
    assert is_integral(eqs, "I*w**2 + a**2*m*w**2 + m*v**2")
    C = sp.Symbol("C", positive=True)
    v, w = eqs.u
    I, a, m = (next(s for s in eqs.mass_matrix.free_symbols if s.name == n) for n in ("I", "a", "m"))
    assert is_integral(eqs, C * ((I + a**2 * m) * w**2 + m * v**2))
