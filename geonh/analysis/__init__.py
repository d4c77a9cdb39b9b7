"""Analysis of derived equations, each module named for its question:

* :mod:`~geonh.analysis.linearize` — linear equations and stability about an equilibrium or a
  steady motion (``linearize``, ``eigenvalues``; also ``eqs.linearize``);
* :mod:`~geonh.analysis.steady` — steady motions (relative equilibria) of a symmetry, their
  stability and its boundaries in closed form;
* :mod:`~geonh.analysis.conserved` — conserved quantities and the nonholonomic momentum;
* :mod:`~geonh.analysis.reduction` — reduction by a symmetry: the nonholonomic connection, the
  reduced equations with the momentum equation, reconstruction and geometric phase;
* :mod:`~geonh.analysis.integrals` — derivatives along the motion (``time_derivative``,
  ``is_integral``, ``rates``);
* :mod:`~geonh.analysis.hamiltonization` — invariant measures and Chaplygin's reducing
  multiplier;
* :mod:`~geonh.analysis.advisor` — which frame gives the smallest equations;
* :mod:`~geonh.analysis.certificate` — do two sets of equations give the same motion
  (``same_motion``, ``certify_forms``)?
* :mod:`~geonh.analysis.vakonomic` — vakonomic against nonholonomic motions
  (``vakonomic_coincides``, ``vakonomic_multiplier``, ``compare_vakonomic``).

This floor lies above the equations and the numerics (it imports from the kernel,
transposition, systems, equations and numerics only) and below the models, the sources and
the application.
"""
from .linearize import Linearization, SecondOrder, eigenvalues, linearize
from .advisor import FrameAdvice, FrameCandidate, advise_frame, equation_size
from .hamiltonization import Hamiltonization, InvariantMeasure, hamiltonize, invariant_measure
from .integrals import is_integral, rates, time_derivative
from .certificate import Certificate, certify_forms, same_motion
from .vakonomic import (Coincidence, MotionComparison, MultiplierSearch, compare_vakonomic, vakonomic_coincides,
                        vakonomic_multiplier)
from .steady import (SteadyMotion, Stability, StabilityBoundary, eigenvalue_diagram, stability_boundary,
                     steady_motions)
from .reduction import (NonholonomicConnection, Reconstruction, ReducedEquations, curvature, driven_system,
                        nonholonomic_connection, phase_integral, reduced_equations)
from .conserved import (
                        Integral,
                        IntegralSearch,
                        MomentumMap,
                        NonholonomicMomentum,
                        SymmetryError,
                        check_symmetry,
                        conserved_momenta,
                        energy_integral,
                        integrating_factor_integrals,
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
           "integrating_factor_integrals", "polynomial_first_integrals", "verify_along", "Coincidence",
           "MultiplierSearch", "MotionComparison", "vakonomic_coincides", "vakonomic_multiplier", "compare_vakonomic",
           "SteadyMotion", "Stability", "StabilityBoundary", "eigenvalue_diagram", "stability_boundary",
           "steady_motions", "NonholonomicConnection", "Reconstruction", "ReducedEquations", "curvature",
           "driven_system", "nonholonomic_connection", "phase_integral", "reduced_equations"]
