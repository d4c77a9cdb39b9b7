"""Geometric control of nonholonomic systems (issue 25): control systems as objects, and
verdicts on them that carry their witnesses.

* :mod:`geonh.control.systems` — :class:`DriftlessSystem`, :class:`ControlAffineSystem`
  (also from a :class:`~geonh.systems.MechanicalSystem` with chosen actuator forces);
* :mod:`geonh.control.accessibility` — the Lie algebra rank condition with drift
  (:func:`accessibility`) and Sussmann's sufficient condition for small-time local
  controllability (:func:`sussmann`), each a :class:`Verdict`;
* :mod:`geonh.control.connection` — the affine connection form of a simple mechanical control
  system with constraints (:class:`AffineConnectionSystem`), symmetric products,
  configuration accessibility and controllability, decoupling vector fields and kinematic
  controllability.

The control floor lies between analysis and models (tests/test_layers.py).
"""
from .systems import ControlAffineSystem, DriftlessSystem, actuator_forces, point_values, tidy, tidy_field
from .accessibility import (SpanAtPoint, Verdict, accessibility, finite_at, generic_lie_rank, lyndon_bracket, lyndon_words,
                            sussmann, tree_degrees, tree_name)
from .connection import (AffineConnectionSystem, configuration_accessibility, configuration_controllability,
                         decoupling_fields, kinematic_controllability, symmetric_trees)

__all__ = [
    "DriftlessSystem", "ControlAffineSystem", "actuator_forces", "point_values", "tidy", "tidy_field",
    "Verdict", "accessibility", "sussmann", "lyndon_words", "lyndon_bracket", "tree_degrees", "tree_name",
    "SpanAtPoint", "generic_lie_rank", "finite_at",
    "AffineConnectionSystem", "symmetric_trees", "configuration_accessibility", "configuration_controllability",
    "decoupling_fields", "kinematic_controllability",
]
