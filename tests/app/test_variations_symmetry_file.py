"""A model file's ``[symmetry]`` table with variations a newcomer writes (issue 26): formulas
that name the wrong kind of symbol are refused naming it, and a shape fixed at a parameter
works."""
from pathlib import Path

import pytest

from geonh.app.steadies import declared_arguments, steady_report
from geonh.app.workbench import TaskError
from geonh.models import files

SLEIGH = (Path(__file__).parents[2] / "examples" / "models" / "chaplygin_sleigh.toml").read_text()


def _report(replace, by):
    assert replace in SLEIGH
    model = files.loads(SLEIGH.replace(replace, by), source="variant.toml")
    return steady_report(model, **declared_arguments(model))


@pytest.mark.parametrize("replace, by, says", [
    # before: a bare TypeError "Cannot convert expression to float"
    ('parameter = "xi1"', 'params = { a = "x" }\nparameter = "xi1"', "parameter a = x uses x"),
    # before: "no value given for ['x_dot']"
    ('parameter = "xi1"', 'params = { a = "x_dot" }\nparameter = "xi1"', "uses x_dot"),
    ('parameter = "xi1"', 'at = { theta = "x_dot" }\nparameter = "xi1"', "theta = x_dot uses x_dot"),
    # before: "X3 … does not leave the kinetic energy invariant"
    ('["-y", "x", "1"]', '["-y", "x", "x_ddot"]', "depends on x_ddot"),
])
def test_a_formula_naming_the_wrong_kind_of_symbol_is_refused_naming_it(replace, by, says):
    with pytest.raises(TaskError) as err:
        _report(replace, by)
    assert says in str(err.value)


def test_a_shape_fixed_at_a_parameter():
    """θ = a (a declared parameter) under SE(2): before, sympy's charpoly failed
    with a bare TypeError (it sorts the factors of a triangular block by the sign of a
    symbolic root)."""
    rep = _report('parameter = "xi1"', 'at = { theta = "a" }\nparameter = "xi1"')
    fam, = rep.families
    assert fam.boundary is not None and fam.boundary_note == ""
    assert fam.verdicts[0] == "unstable" and fam.verdicts[-1] == "asymptotically stable"
