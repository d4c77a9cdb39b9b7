"""The error hierarchy: every deliberate error is a GeonhError raised at the boundary."""
import inspect

import pytest
import sympy as sp

from geonh import errors
from geonh.kernel.distributions import Codistribution, Distribution
from geonh.errors import (
    DependentFieldsError,
    DimensionError,
    GeonhError,
    SingularMapError,
    SpaceMismatchError,
    UnknownCoordinateError,
)
from geonh.kernel.fields import VectorField
from geonh.kernel.forms import Form, OneForm
from geonh.kernel.frames import Frame
from geonh.kernel.space import ConfigurationSpace


def test_all_errors_subclass_geonh_error_and_a_builtin():
    classes = [c for _, c in inspect.getmembers(errors, inspect.isclass)
               if c.__module__ == errors.__name__]
    assert len(classes) >= 11
    for c in classes:
        assert issubclass(c, GeonhError)
        if c is not GeonhError:
            # each also derives from the matching built-in exception
            # (RuntimeError: an integration that stopped; TypeError: compiled code pickled;
            # TimeoutError: a budget used up; ImportError: a module or name that moved, or an optional
            # dependency missing; AttributeError: an attribute of an immutable object set)
            assert any(issubclass(c, b) for b in (ValueError, KeyError, LookupError, RuntimeError, TypeError,
                                                  TimeoutError, ImportError, AttributeError)), c
        assert c.__doc__


S = ConfigurationSpace("x y")
x, y = S.q


@pytest.mark.parametrize("make, err", [
    (lambda: Frame([VectorField(S, [1, x]), VectorField(S, [y, x * y])]), DependentFieldsError),
    (lambda: VectorField(S, [1, 0]) + VectorField(ConfigurationSpace("u v"), [1, 0]), SpaceMismatchError),
    (lambda: Distribution([VectorField(S, [1, 0]), VectorField(ConfigurationSpace("u v"), [0, 1])]),
     SpaceMismatchError),
    (lambda: VectorField(S, [1, 0, 0]), DimensionError),
    (lambda: OneForm(S, [1]), DimensionError),
    (lambda: Form(S, 1, {(2,): 1}), DimensionError),
    (lambda: VectorField.coordinate(S, "z"), UnknownCoordinateError),
    (lambda: VectorField.from_dict(S, {"z": 1}), UnknownCoordinateError),
    (lambda: OneForm.from_dict(S, {sp.Symbol("x"): 1}), UnknownCoordinateError),  # not real: another symbol
    (lambda: Frame.from_quasi_velocities(S, [S.qd[0] + x * S.qd[1], y * S.qd[0] + x * y * S.qd[1]]),
     SingularMapError),
    (lambda: Frame.from_coframe([OneForm(S, [1, x]), OneForm(S, [x, x**2])]), SingularMapError),
    (lambda: Codistribution.from_constraints(S, [S.qd[0] * S.qd[1]]), errors.NotLinearError),
])
def test_boundary_errors(make, err):
    with pytest.raises(err) as exc:
        make()
    assert isinstance(exc.value, GeonhError)
    assert str(exc.value)  # a message naming what is wrong


def test_messages_name_the_problem():
    with pytest.raises(DimensionError, match="needs 2 components"):
        VectorField(S, [1])
    with pytest.raises(UnknownCoordinateError, match="z is not a coordinate"):
        S.index("z")
    with pytest.raises(DependentFieldsError, match="dependent"):
        Frame([VectorField(S, [1, x]), VectorField(S, [2, 2 * x])])
    with pytest.raises(SingularMapError, match="singular|dependent"):
        Frame.from_coframe([OneForm(S, [1, x]), OneForm(S, [2, 2 * x])])


def test_builtin_catch_still_works():
    with pytest.raises(ValueError):
        VectorField(S, [1])
    with pytest.raises(KeyError):
        S.index("z")
