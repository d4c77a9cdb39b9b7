"""Where each public module and name that moved lives now, and the error that says so.

One table, :data:`MOVED` (old dotted path → new dotted path), serves every way of reaching an
old path: ``import geonh.workbench`` and ``from geonh.kernel.codegen import …`` (a finder on
``sys.meta_path``, installed by ``import geonh``), ``from geonh.equations import linearize`` and
``geonh.equations.advise_frame`` (the module ``__getattr__`` of each package that lost a name,
:func:`package_getattr`).  Each raises :class:`~geonh.errors.MovedError` naming the new home.
A second table, :data:`RENAMED` (old call → new call), serves the calls whose form changed:
the function that took the old form raises :class:`~geonh.errors.RenamedError` through
:func:`renamed`.  This module lies on the lowest floor with :mod:`geonh.errors` and imports
nothing else of geonh.
"""
from __future__ import annotations

import sys
from typing import Any, Callable

from .errors import AttributeAccessError, MovedError, RenamedError

__all__ = ["MOVED", "RENAMED", "MovedFinder", "install", "package_getattr", "renamed"]

#: old dotted path -> new dotted path, for every public module and name that moved
MOVED: dict[str, str] = {
    # the application floor: everything that turns a model name into output for a person
    "geonh.cli": "geonh.app.cli",
    "geonh.workbench": "geonh.app.workbench",
    "geonh.report": "geonh.app.report",
    "geonh.plotting": "geonh.app.plotting",
    # analysis of derived equations
    "geonh.certificate": "geonh.analysis.certificate",
    "geonh.equations.linearize": "geonh.analysis.linearize",
    "geonh.equations.advisor": "geonh.analysis.advisor",
    "geonh.equations.hamiltonization": "geonh.analysis.hamiltonization",
    "geonh.equations.integrals": "geonh.analysis.integrals",
    # code generation
    "geonh.equations.compiled": "geonh.numerics.compiled",
    "geonh.kernel.codegen": "geonh.numerics.codegen",
    # display on the kernel floor, interop with the models
    "geonh.display": "geonh.kernel.display",
    "geonh.interop": "geonh.models.interop",
    # names geonh.equations exported (geonh.equations.linearize, the function, is above)
    **{f"geonh.equations.{name}": f"geonh.analysis.{name}" for name in (
        "Linearization", "SecondOrder", "eigenvalues", "FrameAdvice", "FrameCandidate", "advise_frame",
        "equation_size", "Hamiltonization", "InvariantMeasure", "hamiltonize", "invariant_measure",
        "is_integral", "rates", "time_derivative")},
    # one home per job in the kernel: linear algebra on numbers, the sampler, the display's names
    **{f"geonh.kernel.generic_point.{name}": f"geonh.kernel.linalg.{name}" for name in (
        "det_small", "pivot_order_at", "FLOAT_CLEAR")},
    "geonh.kernel.generic_point.condition_holds": "geonh.kernel.sampling.condition_holds",
    "geonh.kernel.evaluation.random_rational": "geonh.kernel.sampling.random_rational",
    "geonh.kernel.evaluation.solve_linear_at": "geonh.kernel.linalg.solve_linear_at",
    "geonh.kernel.display.tidy": "geonh.kernel.display.shorten_for_display",
    "geonh.kernel.display.tidy_all": "geonh.kernel.display.shorten_all_for_display",
    "geonh.kernel.trig.trig_tidy": "geonh.kernel.trig.shorten_trig",
    # the declarations of the frame forms, beside the engine
    **{f"geonh.equations.engine.{name}": f"geonh.equations.declaration.{name}" for name in (
        "FormDeclaration", "solve", "in_frame", "framed", "contract")},
}


#: old call -> new call, for every public call whose form changed (not its home): the function
#: or method that took it checks for the old form first and raises :func:`renamed`
RENAMED: dict[str, str] = {
    "Equations.rhs(symbolic=True)": "eqs.rhs() (always symbolic: (K, M⁻¹F))",
    "Equations.rhs(symbolic=False)": "eqs.ode_function() (geonh.numerics.ode_function: the compiled f(t, y))",
    "random_state(system, rng)": "system.sample_state(rng) (random_state now draws on a ConfigurationSpace: "
                                 "random_state(system.space, rng, params, velocities))",
}


def renamed(old: str) -> RenamedError:
    """The :class:`~geonh.errors.RenamedError` for the old call ``old`` (a key of
    :data:`RENAMED`), naming the new call: ``raise renamed("random_state(system, rng)")``."""
    return RenamedError(old, RENAMED[old])


class MovedFinder:
    """A finder that answers an import of a path in :data:`MOVED` with a
    :class:`~geonh.errors.MovedError` (every other import passes on to the next finder).

    A meta path finder by protocol (``find_spec``, ``invalidate_caches``), not by deriving from
    ``importlib.abc.MetaPathFinder``: that module is not otherwise imported by ``import geonh``
    (issue 22, fixed costs)."""

    def invalidate_caches(self) -> None:
        """Nothing is cached (``importlib.invalidate_caches`` calls this on every finder)."""

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> None:
        new = MOVED.get(fullname)
        if new is not None:
            raise MovedError(fullname, new)
        return None


def install() -> None:
    """Put one :class:`MovedFinder` last on ``sys.meta_path`` (again: nothing happens): it is
    asked only for what no other finder found, so no other import pays for it."""
    if not any(isinstance(f, MovedFinder) for f in sys.meta_path):
        sys.meta_path.append(MovedFinder())


def package_getattr(package: str) -> Callable[[str], Any]:
    """The module ``__getattr__`` of ``package``: a name that moved raises
    :class:`~geonh.errors.MovedError` naming its new home (an ImportError, so that
    ``from package import name`` shows it), any other missing name the usual AttributeError."""

    def __getattr__(name: str) -> Any:
        new = MOVED.get(f"{package}.{name}")
        if new is not None:
            raise MovedError(f"{package}.{name}", new)
        raise AttributeAccessError(f"module {package!r} has no attribute {name!r}")

    return __getattr__
