"""Testing helpers for geonh users: hypothesis strategies, ready properties, a pytest plugin.

``from geonh.testing import strategies as gst`` gives random configuration spaces, functions,
vector fields, forms, frames (guaranteed independent), distributions and codistributions, and
whole systems with their adapted frames and consistent states (:mod:`geonh.testing.systems`);
see :mod:`geonh.testing.strategies`.  :func:`geonh.testing.source.source` writes any drawn
object as Python that rebuilds it, the form in which hypothesis prints counterexamples.
``from geonh.testing import properties as gp`` gives the relations of the subject as functions
that raise an ``AssertionError`` showing the counterexample term by term
(:mod:`geonh.testing.properties`).  :mod:`geonh.testing.plugin` documents the hypothesis profiles ``geonh-fast`` and
``geonh-thorough`` and the pytest plugin (installed with geonh) that selects them; the plugin's
hooks live outside the package (``_geonh_pytest``), so that starting pytest imports no geonh.

The submodules load on first use, so that importing one of them does not bring hypothesis or
the strategies with it.
"""
import sys as _sys
from typing import TYPE_CHECKING

from ..errors import AttributeAccessError as _AttributeAccessError

__all__ = ["strategies", "properties"]

if TYPE_CHECKING:  # pragma: no cover
    from . import properties, strategies


def __getattr__(name: str):
    if name in __all__:
        full = f"{__name__}.{name}"
        __import__(full)   # the interpreter's own import (what ``python -X importtime`` reports)
        return _sys.modules[full]
    raise _AttributeAccessError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
