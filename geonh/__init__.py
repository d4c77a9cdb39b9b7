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
from . import moved as _moved
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
from .numerics.compiled import ODEFunction
from .analysis.linearize import Linearization, eigenvalues, linearize
from .numerics import DLATrajectory, SweepResult, Trajectory, dla_integrate, simulate, sweep
from .analysis.certificate import Certificate, same_motion
from .analysis import (advise_frame, hamiltonize, invariant_measure,
                       Integral, IntegralSearch, MomentumMap, NonholonomicMomentum, SymmetryError, check_symmetry,
                       conserved_momenta, energy_integral, jacobi_integral, momentum_map, polynomial_first_integrals,
                       verify_along)
from . import models

__version__ = "0.2.0"

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
    "ODEFunction", "simulate", "Trajectory", "dla_integrate", "DLATrajectory", "sweep", "SweepResult", "Certificate", "same_motion", "models",
    # analysis
    "Integral", "IntegralSearch", "MomentumMap", "NonholonomicMomentum", "SymmetryError", "check_symmetry",
    "audit", "conserved_momenta", "energy_integral", "jacobi_integral", "momentum_map", "polynomial_first_integrals",
    "verify_along",
    # errors
    "GeonhError", "DimensionError", "SpaceMismatchError", "UnknownCoordinateError",
    "DependentFieldsError", "SingularMapError", "RankError", "NotLinearError",
    "NotPositiveDefiniteError", "NotAdaptedError", "NotFoundError", "InconsistentStateError", "MissingValueError", "ParseError",
    "IntegrationError", "NotPicklableError", "MovedError",
    "LimitError", "BudgetExceededError", "DeclarationError",
    # input limits
    "limits",
]

# modules and names that moved (geonh.moved.MOVED): their old paths say where they live now
_moved.install()
__getattr__ = _moved.package_getattr(__name__)
