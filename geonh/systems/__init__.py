"""The system kinds: what the equations of motion are derived for.

:class:`MechanicalSystem` — kinetic energy, potential, forces, holonomic constraints and
constraints linear (affine, for rheonomic systems) in the velocities;
:class:`NonlinearSystem` — constraints φ(t, q, q̇) = 0 nonlinear in the velocities, with a
named virtual-displacement rule (Chetaev's by default); :class:`FreeSystem` and
:class:`GaussSystem` — Aumann's free M-system and bound system for Gauss's principle;
:class:`HertzSpace` — Hertz's representation space of a system, with ideal and Coulomb
reactions; :func:`analyze_constraints` — rank conditions and hidden holonomic constraints.
Each kind offers a ``space`` and ``sample_state`` (:class:`SystemLike`), which is all an
:class:`~geonh.equations.Equations` needs to hold.
"""
from .protocol import SystemLike
from .mechanical import MechanicalSystem
from .nonlinear import NonlinearSystem, as_nonlinear
from .constraint_analysis import ConstraintReport, analyze_constraints
from .gauss import FreeSystem, GaussSystem
from .hertz import HertzSpace

__all__ = ["SystemLike", "MechanicalSystem", "NonlinearSystem", "as_nonlinear", "ConstraintReport",
           "analyze_constraints", "FreeSystem", "GaussSystem", "HertzSpace"]
