"""geonh: geometric analytical mechanics of nonholonomic systems.

Data flows one way: fields → frames → transposition → equations → numerics.
Signs and index orders follow ``CONVENTIONS.md`` (see docs/conventions.md).
"""
from .errors import (
    DependentFieldsError,
    DimensionError,
    GeonhError,
    InconsistentStateError,
    NotAdaptedError,
    NotFoundError,
    NotLinearError,
    NotPositiveDefiniteError,
    RankError,
    SingularMapError,
    SpaceMismatchError,
    UnknownCoordinateError,
)
from .space import ConfigurationSpace
from .fields import VectorField, bracket, coordinate_fields
from .forms import Form, OneForm, d, differential, exterior_derivative, interior, lie_derivative, wedge
from .frames import Frame, transform_structure_coefficients
from .distributions import Codistribution, Distribution, IntegrabilityReport
from .generic import generic_rank, is_zero
from .system import MechanicalSystem
from .equations import (
    Equations,
    boltzmann_hamel,
    central_equations,
    chaplygin,
    gibbs_appell,
    hamel_raw,
    is_chaplygin,
    kane,
    lagrange,
    maggi,
    solve_constraints,
    tzenoff,
    volterra,
    voronets,
    voronets_frame,
)
from .transposition import ConstrainedSetting, TranspositionalRelations
from .equations import neimark_fufaev
from .certificate import Certificate, same_motion
from .numerics import simulate
from .nonlinear import NonlinearSystem, appell, chetaev_lagrange, maggi_nonlinear
from .gauss import FreeSystem, GaussSystem, gauss, udwadia_kalaba
from .constraint_analysis import ConstraintReport, analyze_constraints
from .hertz import HertzSpace
from .hamilton import hamilton_equations
from . import catalog, systems, testing  # noqa: E402  (built-in models; hypothesis strategies)

__version__ = "0.1.0"

__all__ = [
    "ConfigurationSpace", "VectorField", "bracket", "coordinate_fields",
    "Form", "OneForm", "d", "differential", "exterior_derivative", "interior", "lie_derivative", "wedge",
    "Frame", "transform_structure_coefficients",
    "Distribution", "Codistribution", "IntegrabilityReport",
    "generic_rank", "is_zero",
    "MechanicalSystem", "Equations", "central_equations", "lagrange", "boltzmann_hamel", "volterra",
    "voronets", "voronets_frame", "chaplygin", "is_chaplygin", "maggi", "hamel_raw", "gibbs_appell",
    "kane", "tzenoff", "solve_constraints", "neimark_fufaev", "Certificate", "same_motion", "simulate",
    "ConstrainedSetting", "TranspositionalRelations",
    "NonlinearSystem", "appell", "chetaev_lagrange", "maggi_nonlinear",
    "FreeSystem", "GaussSystem", "gauss", "udwadia_kalaba", "ConstraintReport", "analyze_constraints",
    "HertzSpace", "hamilton_equations", "InconsistentStateError",
    "catalog", "systems", "testing",
    "GeonhError", "DimensionError", "SpaceMismatchError", "UnknownCoordinateError",
    "DependentFieldsError", "SingularMapError", "RankError", "NotLinearError",
    "NotPositiveDefiniteError", "NotAdaptedError", "NotFoundError",
]
