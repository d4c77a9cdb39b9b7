"""Analysis of the motion beyond the equations: conserved quantities and the nonholonomic
momentum (:mod:`geonh.analysis.conserved`).

This package sits in the layer of :mod:`geonh.certificate`: it imports from the kernel,
transposition, systems, equations and numerics layers only (never from the models or the
command line).
"""
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

__all__ = ["Integral", "IntegralSearch", "MomentumMap", "NonholonomicMomentum", "SymmetryError",
           "check_symmetry", "conserved_momenta", "energy_integral", "jacobi_integral", "momentum_map",
           "polynomial_first_integrals", "verify_along"]
