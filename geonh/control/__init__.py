"""Geometric control of nonholonomic systems (issue 25): control systems as objects, verdicts on
them that carry their witnesses, and motion planning checked by simulation.

* :mod:`geonh.control.systems` — :class:`DriftlessSystem`, :class:`ControlAffineSystem`
  (also from a :class:`~geonh.systems.MechanicalSystem` with chosen actuator forces);
* :mod:`geonh.control.accessibility` — the Lie algebra rank condition with drift
  (:func:`accessibility`) and Sussmann's sufficient condition for small-time local
  controllability (:func:`sussmann`), each a :class:`Verdict`;
* :mod:`geonh.control.connection` — the affine connection form of a simple mechanical control
  system with constraints (:class:`AffineConnectionSystem`), symmetric products,
  configuration accessibility and controllability, decoupling vector fields and kinematic
  controllability;
* :mod:`geonh.control.nilpotent` — growth vector and degree of nonholonomy at a point,
  privileged coordinates and the nilpotent approximation (Bellaïche 1996);
* :mod:`geonh.control.chained` — chained forms (Murray & Sastry 1993) checked by substitution;
* :mod:`geonh.control.steering` — sinusoidal steering of chained systems and motion along given
  fields, each plan verified by simulating the system's own fields.

The control floor lies between analysis and models (tests/test_layers.py).
"""
from .systems import ControlAffineSystem, DriftlessSystem, actuator_forces, point_values, shorten_component, shorten_field
from .accessibility import (SpanAtPoint, Verdict, accessibility, finite_at, generic_lie_rank, lyndon_bracket, lyndon_words,
                            sussmann, tree_degrees, tree_name)
from .connection import (AffineConnectionSystem, configuration_accessibility, configuration_controllability,
                         decoupling_fields, kinematic_controllability, symmetric_trees)
from .chained import ChainedForm, chained_fields, chained_form, input_fields
from .nilpotent import (NilpotentApproximation, PrivilegedCoordinates, adapted_frame, degree_of_nonholonomy,
                        growth_vector_at, is_homogeneous, nilpotent_approximation, nonholonomic_order,
                        privileged_coordinates)
from .steering import Segment, SteeringResult, simulate_chained, sinusoid_gain, sinusoidal_plan, steer, steer_chained

__all__ = [
    "DriftlessSystem", "ControlAffineSystem", "actuator_forces", "point_values", "shorten_component", "shorten_field",
    "Verdict", "accessibility", "sussmann", "lyndon_words", "lyndon_bracket", "tree_degrees", "tree_name",
    "SpanAtPoint", "generic_lie_rank", "finite_at",
    "AffineConnectionSystem", "symmetric_trees", "configuration_accessibility", "configuration_controllability",
    "decoupling_fields", "kinematic_controllability",
    "ChainedForm", "chained_fields", "chained_form", "input_fields",
    "NilpotentApproximation", "PrivilegedCoordinates", "adapted_frame", "degree_of_nonholonomy",
    "growth_vector_at", "is_homogeneous", "nilpotent_approximation", "nonholonomic_order",
    "privileged_coordinates",
    "Segment", "SteeringResult", "simulate_chained", "sinusoid_gain", "sinusoidal_plan", "steer", "steer_chained",
]
