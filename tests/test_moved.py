"""Public modules and names that moved give a clear error naming their new home (geonh.moved)."""
from __future__ import annotations

import importlib
import pickle

import pytest

import geonh
from geonh.errors import GeonhError, MovedError
from geonh.moved import MOVED


def _resolve(path: str):
    """The object at a dotted path: a module, or a name of a module."""
    try:
        return importlib.import_module(path)
    except ModuleNotFoundError:
        parent, _, leaf = path.rpartition(".")
        return getattr(importlib.import_module(parent), leaf)


@pytest.mark.parametrize("old, new", sorted(MOVED.items()))
def test_every_old_path_names_its_new_home(old, new):
    parent, _, leaf = old.rpartition(".")
    # `import geonh.x.y` (a name of a plain module cannot be imported as a module: Python refuses
    # it before any finder is asked, so that route exists only below a package)
    if hasattr(importlib.import_module(parent), "__path__"):
        with pytest.raises(MovedError, match=f"{old} has moved to {new}") as info:
            importlib.import_module(old)
        assert (info.value.old, info.value.new) == (old, new)
    # `from geonh.x import y`
    with pytest.raises(MovedError, match=f"{old} has moved to {new}"):
        exec(f"from {parent} import {leaf}", {})   # the statement itself (for a package and a module)
    # `geonh.x.y`
    with pytest.raises(MovedError, match=f"{old} has moved to {new}"):
        getattr(importlib.import_module(parent), leaf)
    # the new home exists, and the old one is really gone
    assert _resolve(new) is not None
    assert leaf not in vars(importlib.import_module(parent))


def test_the_statements_users_write():
    with pytest.raises(MovedError, match="geonh.app.workbench"):
        import geonh.workbench as workbench  # noqa: F401
    with pytest.raises(MovedError, match="geonh.analysis.linearize"):
        from geonh.equations import linearize  # noqa: F401
    with pytest.raises(MovedError, match="geonh.analysis.certificate"):
        from geonh import certificate  # noqa: F401
    with pytest.raises(MovedError, match="geonh.numerics.codegen"):
        from geonh.kernel.codegen import compile_function  # noqa: F401
    with pytest.raises(MovedError, match="geonh.analysis.advise_frame"):
        geonh.equations.advise_frame  # noqa: B018


def test_moved_error_is_an_import_error_of_the_hierarchy():
    assert issubclass(MovedError, GeonhError) and issubclass(MovedError, ModuleNotFoundError)
    assert geonh.MovedError is MovedError
    again = pickle.loads(pickle.dumps(MovedError("geonh.cli", "geonh.app.cli")))
    assert (again.old, again.new, str(again)) == ("geonh.cli", "geonh.app.cli", "geonh.cli has moved to geonh.app.cli "
                                                  "(import it from there)")


def test_other_missing_names_keep_their_usual_errors():
    with pytest.raises(ModuleNotFoundError) as info:
        importlib.import_module("geonh.no_such_module")
    assert not isinstance(info.value, MovedError)
    with pytest.raises(AttributeError):
        geonh.equations.no_such_name  # noqa: B018
    with pytest.raises(AttributeError):
        geonh.kernel.no_such_name  # noqa: B018
    with pytest.raises(AttributeError):
        geonh.no_such_name  # noqa: B018
    assert not hasattr(geonh, "no_such_name")
