"""The one table of elementary functions (geonh.kernel.elementary), and its readers."""
import mpmath
import pytest
import sympy as sp

from geonh.kernel import backend, evaluation, parsing
from geonh.kernel.elementary import (ELEMENTARY, MP_DERIVATIVES, MP_VALUES, PARSE_FUNCTIONS, SYMENGINE_FUNCTIONS,
                                     TABLE, TRIG_FUNCTIONS)


@pytest.mark.parametrize("row", [r for r in TABLE if r.value is not None and r.derivative is not None],
                         ids=lambda r: str(r.function))
def test_values_and_derivatives_agree_with_sympy(row):
    z = sp.Symbol("z")
    x0 = sp.Rational(3, 7)
    with mpmath.workdps(40):
        assert abs(row.value(mpmath.mpf(3) / 7) - sp.N(row.function(x0), 40)) < mpmath.mpf(10) ** -35
        d = sp.diff(row.function(z), z).xreplace({z: x0})
        assert abs(row.derivative(mpmath.mpf(3) / 7) - sp.N(d, 40)) < mpmath.mpf(10) ** -35


def test_the_readers_read_the_table():
    assert backend.SUPPORTED_FUNCTIONS is SYMENGINE_FUNCTIONS
    assert parsing.FUNCTIONS == PARSE_FUNCTIONS
    assert set(TRIG_FUNCTIONS) == {sp.sin, sp.cos, sp.tan, sp.cot}
    assert MP_VALUES[sp.Abs] is abs and sp.Abs not in MP_DERIVATIVES
    assert set(ELEMENTARY) == {r.function for r in TABLE}
    # what each reader had in its own list before
    assert SYMENGINE_FUNCTIONS == {sp.sin, sp.cos, sp.tan, sp.cot, sp.sec, sp.csc, sp.asin, sp.acos, sp.atan,
                                   sp.acot, sp.asec, sp.acsc, sp.sinh, sp.cosh, sp.tanh, sp.coth, sp.exp, sp.log,
                                   sp.atan2}
    assert set(PARSE_FUNCTIONS) == {"sin", "cos", "tan", "cot", "sec", "csc", "asin", "acos", "atan", "atan2", "sinh",
                                    "cosh", "tanh", "exp", "log", "sqrt", "Abs", "abs", "sign"}
    x = sp.Symbol("x")
    with mpmath.workdps(60):
        big = sum(sp.sinh(k * x) * sp.acos(x / (k + 1)) for k in range(1, 30))
        v = evaluation.tree_eval(big, {x: sp.Rational(1, 3)}, {})
        assert abs(v - sp.N(big.xreplace({x: sp.Rational(1, 3)}), 60)) < mpmath.mpf(10) ** -50
