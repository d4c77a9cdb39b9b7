"""Geometric control of nonholonomic systems (issue 25): nilpotent approximation, chained forms
and steering checked by simulation (:mod:`geonh.control.nilpotent`, :mod:`geonh.control.chained`,
:mod:`geonh.control.steering`)."""
from .chained import ChainedForm, chained_fields, chained_form, input_fields
from .nilpotent import (NilpotentApproximation, PrivilegedCoordinates, adapted_frame, degree_of_nonholonomy,
                        growth_vector_at, is_homogeneous, nilpotent_approximation, nonholonomic_order,
                        privileged_coordinates)
from .steering import Segment, SteeringResult, simulate_chained, sinusoid_gain, sinusoidal_plan, steer, steer_chained

__all__ = ["ChainedForm", "chained_fields", "chained_form", "input_fields",
           "NilpotentApproximation", "PrivilegedCoordinates", "adapted_frame", "degree_of_nonholonomy",
           "growth_vector_at", "is_homogeneous", "nilpotent_approximation", "nonholonomic_order",
           "privileged_coordinates",
           "Segment", "SteeringResult", "simulate_chained", "sinusoid_gain", "sinusoidal_plan", "steer", "steer_chained"]
