"""The geometric kernel: configuration space, vector fields, differential forms, frames and
(co)distributions, and the decisions taken at the generic point.

Everything above builds on these objects.  A :class:`ConfigurationSpace` names the
coordinates (time last, for rheonomic systems) and their velocity and acceleration symbols;
:class:`VectorField` and :class:`OneForm`/:class:`Form` carry the bracket, d, ∧, interior
product and Lie derivative with the signs of CONVENTIONS.md; a :class:`Frame` is n fields with
their dual coframe and structure coefficients c^d_ab; :class:`Distribution` and
:class:`Codistribution` decide rank, involutivity, growth vectors and integrability.  Whether
an expression is zero and what rank a matrix has are decided by evaluation at random points
(:mod:`geonh.kernel.generic_point`, see docs/generic-point.md).  The symbolic hot paths run on
symengine or sympy (:mod:`geonh.kernel.backend`: ``set_backend``), with sympy objects at the
boundary either way.  Nothing here imports from a higher layer.
"""
from .backend import get_backend, set_backend, using_backend
from .space import ConfigurationSpace
from .fields import VectorField, bracket, coordinate_fields
from .forms import Form, OneForm, d, differential, exterior_derivative, interior, lie_derivative, wedge
from .frames import Frame, transform_structure_coefficients
from .distributions import Codistribution, Distribution, IntegrabilityReport
from .generic_point import generic_rank, is_zero

from ..moved import package_getattr

__all__ = [
    "get_backend", "set_backend", "using_backend",
    "ConfigurationSpace", "VectorField", "bracket", "coordinate_fields",
    "Form", "OneForm", "d", "differential", "exterior_derivative", "interior", "lie_derivative", "wedge",
    "Frame", "transform_structure_coefficients",
    "Distribution", "Codistribution", "IntegrabilityReport",
    "generic_rank", "is_zero",
]

#: names that moved give a MovedError naming their new home (geonh.moved.MOVED)
__getattr__ = package_getattr(__name__)
