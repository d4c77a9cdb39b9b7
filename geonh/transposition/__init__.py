"""The transposition layer: d and δ as vector fields, and the constrained setting they act in.

A :class:`ConstrainedSetting` splits the coordinates into free and dependent ones and solves
the constraints for the dependent velocities (Hamel 1924, eq. (2)); for each k of the
Neimark–Fufaev family it builds the d field V and the δ field W, and
:class:`TranspositionalRelations` computes dδ − δd on coordinates and quasi-coordinates from
their bracket — Hamel's β, Neimark–Fufaev's γ and B (CONVENTIONS.md).  The printed closed
forms of the seeds are in :mod:`geonh.transposition.printed`, for comparison only.
:mod:`geonh.transposition.adapted` holds the facts every frame form of the equations starts
from: the default (Voronets) frame, the adaptedness check and the motion in a frame.
"""
from .relations import ConstrainedSetting, DeltaFields, TranspositionalRelations, bilinear_matrix
from .adapted import check_adapted, frame_kinematics, solve_constraints, speed_symbols, voronets_frame
from .printed import corrected_nf_gamma, hamel_matrices, printed_hamel_beta, printed_nf_B, printed_nf_gamma

__all__ = [
    "ConstrainedSetting", "DeltaFields", "TranspositionalRelations", "bilinear_matrix",
    "check_adapted", "frame_kinematics", "solve_constraints", "speed_symbols", "voronets_frame",
    "corrected_nf_gamma", "hamel_matrices", "printed_hamel_beta", "printed_nf_B", "printed_nf_gamma",
]
