"""Analysis of the motion beyond the equations: conserved quantities and the nonholonomic
momentum (:mod:`geonh.analysis.conserved`).

This package sits in the layer of :mod:`geonh.certificate`: it imports from the kernel,
transposition, systems, equations and numerics layers only (never from the models or the
command line).
"""
from .linearize import Linearization, SecondOrder, eigenvalues, linearize
from .advisor import FrameAdvice, FrameCandidate, advise_frame, equation_size
from .hamiltonization import Hamiltonization, InvariantMeasure, hamiltonize, invariant_measure
from .integrals import is_integral, rates, time_derivative
from .certificate import Certificate, certify_forms, same_motion
from .conserved import (
                        Integral,
                        IntegralSearch,
                        MomentumMap,
                        NonholonomicMomentum,
                        SymmetryError,
                        check_symmetry,
                        conserved_momenta,
                        energy_integral,
                        jacobi_integral,
                        momentum_map,
                        polynomial_first_integrals,
                        verify_along,
)

__all__ = ["Linearization", "SecondOrder", "linearize", "eigenvalues",
           "FrameAdvice", "FrameCandidate", "advise_frame", "equation_size",
           "Hamiltonization", "InvariantMeasure", "hamiltonize", "invariant_measure",
           "is_integral", "rates", "time_derivative", "Certificate", "certify_forms", "same_motion",
           "Integral", "IntegralSearch", "MomentumMap", "NonholonomicMomentum", "SymmetryError",
           "check_symmetry", "conserved_momenta", "energy_integral", "jacobi_integral", "momentum_map",
           "polynomial_first_integrals", "verify_along"]
