"""geonh: geometric analytical mechanics of nonholonomic systems.

Floors, each importing only from the ones before it (data flows one way):
:mod:`geonh.kernel` (space, fields, forms, frames, distributions, generic-point decisions) →
:mod:`geonh.transposition` (d and δ as fields, β/γ/B, adapted frames) →
:mod:`geonh.systems` (the system kinds) → :mod:`geonh.equations` (one engine, every form, the
:class:`Equations` type) → :mod:`geonh.numerics` (code generation, simulation) →
:mod:`geonh.analysis` (linearization, conserved quantities, the certificate, ...) →
:mod:`geonh.models` (the model library) → :mod:`geonh.sources` (the audit) → this facade;
:mod:`geonh.app` (the ``geonh`` command, report, plots) is on top and nothing here imports it.
Signs and index orders follow ``CONVENTIONS.md`` (see docs/conventions.md).
Hypothesis strategies for your own tests: ``import geonh.testing`` (not imported here).
"""
import importlib as _importlib
from typing import TYPE_CHECKING

from . import moved as _moved
from .errors import AttributeAccessError as _AttributeAccessError
from .errors import (
    BudgetExceededError,
    DeclarationError,
    DependentFieldsError,
    DimensionError,
    GeonhError,
    InconsistentStateError,
    IntegrationError,
    LimitError,
    MissingValueError,
    MovedError,
    NotAdaptedError,
    NotFoundError,
    NotLinearError,
    NotPicklableError,
    NotPositiveDefiniteError,
    ParseError,
    RankError,
    RenamedError,
    SingularMapError,
    SpaceMismatchError,
    UnknownCoordinateError,
)
from .kernel.parsing import limits
from .kernel import (
    Codistribution,
    ConfigurationSpace,
    Distribution,
    Form,
    Frame,
    IntegrabilityReport,
    OneForm,
    VectorField,
    bracket,
    coordinate_fields,
    d,
    differential,
    exterior_derivative,
    generic_rank,
    get_backend,
    interior,
    is_zero,
    lie_derivative,
    set_backend,
    transform_structure_coefficients,
    using_backend,
    wedge,
)
from .kernel.budget import budget
from .transposition import (
    ConstrainedSetting,
    TranspositionalRelations,
    check_adapted,
    solve_constraints,
    voronets_frame,
)
from .systems import (
    ConstraintReport,
    FreeSystem,
    GaussSystem,
    HertzSpace,
    MechanicalSystem,
    NonlinearSystem,
    SystemLike,
    analyze_constraints,
)
from .equations import (
    FORMS,
    Equations,
    FormDeclaration,
    Inputs,
    Route,
    appell,
    boltzmann_hamel,
    central_equations,
    chaplygin,
    chetaev_lagrange,
    declare_boltzmann_hamel,
    declare_chaplygin,
    declare_neimark_fufaev,
    declare_volterra,
    declare_voronets,
    derive,
    gauss,
    gibbs_appell,
    hamel_raw,
    hamilton_equations,
    hertz,
    is_chaplygin,
    kane,
    lagrange,
    maggi,
    maggi_nonlinear,
    boltzmann_hamel_nonlinear,
    gibbs_appell_nonlinear,
    velocity_frame,
    neimark_fufaev,
    tzenoff,
    udwadia_kalaba,
    volterra,
    voronets,
)
__version__ = "0.2.0"

# The floors above the equations (numerics, analysis, models, sources) load on first use: they
# bring numpy, scipy and the compiler, which ``import geonh`` does not pay for (issue 22, fixed
# costs).  Each name below is the object ``from .<module> import <name>`` gives; the module
# ``__getattr__`` at the end imports it on first access and keeps it, so ``geonh.simulate``,
# ``from geonh import simulate``, ``__all__`` and ``dir(geonh)`` are as if imported eagerly.
_LAZY: dict[str, str] = {
    "ODEFunction": "geonh.numerics.compiled",
    **dict.fromkeys(("Linearization", "eigenvalues", "linearize"), "geonh.analysis.linearize"),
    **dict.fromkeys(("DLATrajectory", "SweepResult", "Trajectory", "dla_integrate", "simulate", "sweep"),
                    "geonh.numerics"),
    **dict.fromkeys(("Certificate", "certify_forms", "same_motion"), "geonh.analysis.certificate"),
    **dict.fromkeys(("advise_frame", "hamiltonize", "invariant_measure", "Integral", "IntegralSearch", "MomentumMap",
                     "NonholonomicMomentum", "SymmetryError", "check_symmetry", "conserved_momenta",
                     "energy_integral", "jacobi_integral", "momentum_map", "polynomial_first_integrals",
                     "verify_along"), "geonh.analysis"),
    "audit": "geonh.sources",
}
#: subpackages ``import geonh`` used to bind as attributes (the floors above the equations)
_LAZY_MODULES = ("numerics", "analysis", "models", "sources")

if TYPE_CHECKING:  # what the lazy names are, for type checkers
    from . import analysis, models, numerics, sources
    from .analysis import (advise_frame, hamiltonize, invariant_measure,
                           Integral, IntegralSearch, MomentumMap, NonholonomicMomentum, SymmetryError, check_symmetry,
                           conserved_momenta, energy_integral, jacobi_integral, momentum_map,
                           polynomial_first_integrals, verify_along)
    from .analysis.certificate import Certificate, certify_forms, same_motion
    from .analysis.linearize import Linearization, eigenvalues, linearize
    from .numerics import DLATrajectory, SweepResult, Trajectory, dla_integrate, simulate, sweep
    from .numerics.compiled import ODEFunction
    from .sources import audit

__all__ = [
    # kernel
    "ConfigurationSpace", "VectorField", "bracket", "coordinate_fields",
    "Form", "OneForm", "d", "differential", "exterior_derivative", "interior", "lie_derivative", "wedge",
    "Frame", "transform_structure_coefficients", "Distribution", "Codistribution", "IntegrabilityReport",
    "generic_rank", "is_zero", "get_backend", "set_backend", "using_backend", "budget",
    # transposition
    "ConstrainedSetting", "TranspositionalRelations", "check_adapted", "solve_constraints", "voronets_frame",
    # systems
    "SystemLike", "MechanicalSystem", "NonlinearSystem", "FreeSystem", "GaussSystem", "HertzSpace",
    "ConstraintReport", "analyze_constraints",
    # equations
    "Equations", "FormDeclaration", "FORMS", "derive", "central_equations", "Route", "Inputs",
    "declare_boltzmann_hamel", "declare_volterra", "declare_voronets", "declare_chaplygin", "declare_neimark_fufaev",
    "lagrange", "boltzmann_hamel",
    "volterra", "voronets", "chaplygin", "is_chaplygin", "neimark_fufaev", "maggi", "hamel_raw",
    "gibbs_appell", "kane", "tzenoff", "chetaev_lagrange", "appell", "maggi_nonlinear", "velocity_frame",
    "gibbs_appell_nonlinear", "boltzmann_hamel_nonlinear", "gauss",
    "udwadia_kalaba", "hertz", "hamilton_equations", "Linearization", "linearize", "eigenvalues", "advise_frame",
    "invariant_measure", "hamiltonize",
    # numerics, certificate, models
    "ODEFunction", "simulate", "Trajectory", "dla_integrate", "DLATrajectory", "sweep", "SweepResult", "Certificate", "same_motion",
    "certify_forms", "models",
    # analysis
    "Integral", "IntegralSearch", "MomentumMap", "NonholonomicMomentum", "SymmetryError", "check_symmetry",
    "audit", "conserved_momenta", "energy_integral", "jacobi_integral", "momentum_map", "polynomial_first_integrals",
    "verify_along",
    # errors
    "GeonhError", "DimensionError", "SpaceMismatchError", "UnknownCoordinateError",
    "DependentFieldsError", "SingularMapError", "RankError", "NotLinearError",
    "NotPositiveDefiniteError", "NotAdaptedError", "NotFoundError", "InconsistentStateError", "MissingValueError", "ParseError",
    "IntegrationError", "NotPicklableError", "MovedError", "RenamedError",
    "LimitError", "BudgetExceededError", "DeclarationError",
    # input limits
    "limits",
]

# modules and names that moved (geonh.moved.MOVED): their old paths say where they live now
_moved.install()
_moved_getattr = _moved.package_getattr(__name__)

# ``eqs.linearize``, ``eqs.ode_function`` and the exports (``eqs.to_casadi`` …) are registered by their modules when imported
# (geonh.equations.base.register_method); until then, the first access imports the module
# (in the order eager imports registered them: the order of vars(Equations) and of the API reference)
_FORWARD_HOMES = {"ode_function": "geonh.numerics.compiled", "linearize": "geonh.analysis.linearize",
                  "to_casadi": "geonh.numerics.export", "to_jax": "geonh.numerics.export",
                  "to_c": "geonh.numerics.export"}


class _ForwardOnFirstUse:
    """A placeholder for a method of :class:`Equations` that a higher floor registers: on first
    access it imports that floor (which replaces the placeholder by the registered method)."""

    def __init__(self, name: str):
        self.name = name

    def __get__(self, obj, owner=None):
        _importlib.import_module(_FORWARD_HOMES[self.name])
        registered = owner.__dict__.get(self.name) if owner is not None else None
        if registered is None or registered is self:  # pragma: no cover - the module did not register it
            raise _AttributeAccessError(f"Equations has no method {self.name!r}")
        return registered.__get__(obj, owner)


for _name in _FORWARD_HOMES:
    if _name not in Equations.__dict__:
        setattr(Equations, _name, _ForwardOnFirstUse(_name))
del _name


def __getattr__(name: str):
    """A name of a floor above the equations: imported on first access (and kept); a name that
    moved: :class:`MovedError` naming its new home (:func:`geonh.moved.package_getattr`)."""
    home = _LAZY.get(name)
    if home is not None:
        value = getattr(_importlib.import_module(home), name)
    elif name in _LAZY_MODULES:
        value = _importlib.import_module(f"{__name__}.{name}")
    else:
        return _moved_getattr(name)
    globals()[name] = value
    return value


#: the machinery of the lazy loading, left out of dir(geonh) (which lists what eager imports gave)
_MACHINERY = frozenset({"TYPE_CHECKING", "_importlib", "_moved_getattr", "_LAZY", "_LAZY_MODULES", "_FORWARD_HOMES",
                        "_ForwardOnFirstUse", "_MACHINERY", "_AttributeAccessError", "__annotations__", "__dir__"})


def __dir__() -> list[str]:
    """The names of the package, the ones loaded on first use included (as if imported)."""
    return sorted((set(globals()) - _MACHINERY) | set(_LAZY) | set(_LAZY_MODULES))
