"""Frame-form declarations: the choice (V, W) of a form, stated once and solved by the engine.

A :class:`FormDeclaration` holds everything Lagrange's central equation
(:func:`geonh.equations.engine.central_equations`) consumes for one form; :func:`solve` turns it
into :class:`~geonh.equations.base.Equations`.  :func:`in_frame` declares Hamel's choice in an
adapted frame, :func:`framed` is the shared set-up of the forms that take a frame, and
:func:`contract` contracts a covector with a frame field.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping, Sequence

import sympy as sp

from ..errors import DimensionError, SpaceMismatchError
from ..kernel.fields import VectorField
from ..kernel.frames import Frame
from ..kernel.parsing import as_exprs, as_mapping, as_sequence, as_symbols
from ..systems.mechanical import MechanicalSystem
from ..transposition.adapted import check_adapted, frame_kinematics, speed_symbols, voronets_frame
from .base import Equations
from .engine import central_equations

__all__ = ["FormDeclaration", "solve", "in_frame", "framed", "contract"]


@dataclass(frozen=True)
class FormDeclaration:
    """A frame form's choice, everything the engine (*) consumes, checked once on creation.

    Attributes
    ----------
    form : the registry name of the form.
    system : the :class:`~geonh.systems.MechanicalSystem`.
    V : the d field, an extension of the motion (components may hold constant symbols).
    W : the δ fields, one per equation.
    on_motion : one dict per W: the constant symbols of V and W → their values on the motion.
    u, ud : the speeds and their rates.
    kinematics : K, q̇ = K(t, q, u) on the motion.
    speeds : u as expressions in (t, q, q̇).
    frame : the frame, for the frame forms that have one.
    notes, reduced_coordinates : passed on to the :class:`Equations`.
    """

    form: str
    system: MechanicalSystem
    V: VectorField
    W: tuple[VectorField, ...]
    on_motion: tuple[Mapping, ...]
    u: tuple[sp.Symbol, ...]
    ud: tuple[sp.Symbol, ...]
    kinematics: tuple[sp.Expr, ...]
    speeds: tuple[sp.Expr, ...]
    frame: Frame | None = None
    notes: str = ""
    reduced_coordinates: tuple[sp.Symbol, ...] = field(default=())

    def __post_init__(self):
        S = self.system.space
        put = object.__setattr__
        put(self, "W", tuple(as_sequence(self.W, "δ fields W")))
        put(self, "on_motion", tuple(as_mapping(o, "on_motion") for o in as_sequence(self.on_motion, "on_motion")))
        u = as_symbols(self.u, what="speeds u")
        put(self, "u", u)
        put(self, "ud", as_symbols(self.ud, what="speed rates u̇"))
        put(self, "kinematics", tuple(as_exprs(self.kinematics, S.state_symbols + u, what="kinematics")))
        put(self, "speeds", tuple(as_exprs(self.speeds, S.state_symbols, what="speeds")))
        put(self, "reduced_coordinates", as_symbols(self.reduced_coordinates, what="reduced coordinates"))
        for X in (self.V, *self.W):
            if not isinstance(X, VectorField) or X.space != S:
                raise SpaceMismatchError(f"{self.form}: the d and δ fields must be VectorFields on {S!r}")
        if len(self.on_motion) != len(self.W):
            raise DimensionError(f"{self.form}: one on-motion substitution per δ field "
                                 f"({len(self.W)}), got {len(self.on_motion)}")
        if len(self.kinematics) != S.n:
            raise DimensionError(f"{self.form}: {S.n} kinematic expressions needed, got {len(self.kinematics)}")
        if not (len(self.u) == len(self.ud) == len(self.speeds) == len(self.W)):
            raise DimensionError(f"{self.form}: speeds, rates, speed definitions and δ fields differ in number "
                                 f"({len(self.u)}, {len(self.ud)}, {len(self.speeds)}, {len(self.W)})")


def solve(decl: FormDeclaration) -> Equations:
    """The equations of a declared form: (*) for each of its δ fields."""
    MF = central_equations(decl.system, decl.V, decl.W, list(decl.on_motion), decl.u, decl.ud, decl.kinematics)
    return Equations(decl.form, decl.system, decl.u, decl.ud, decl.kinematics, decl.speeds, frame=decl.frame,
                     linear=MF, notes=decl.notes, reduced_coordinates=decl.reduced_coordinates)


def framed(system: MechanicalSystem, frame: Frame | None):
    """Shared set-up of the forms that take an adapted frame (default: the Voronets frame):
    returns (frame, m, u, ud, ω on the motion, K, speeds), u = the free quasi-velocities."""
    frame = frame if frame is not None else voronets_frame(system)
    m = check_adapted(system, frame)
    u, ud = speed_symbols(frame.names[:m])
    omega, K, speeds = frame_kinematics(frame, m, u)
    return frame, m, u, ud, omega, K, speeds


def in_frame(form: str, system: MechanicalSystem, frame: Frame | None, **kw) -> FormDeclaration:
    """Hamel's declaration in an adapted frame (Hamel 1924, eq. (19')): V = ω^b X_b with the
    quasi-velocities ω held constant off the motion (ω = (u, 0, …[, 1]) on it) and W = X_r for
    the free r; nothing to substitute.  ``kw``: notes, reduced_coordinates."""
    frame, m, u, ud, omega, K, speeds = framed(system, frame)
    S = system.space
    V = VectorField(S, [sp.S.Zero] * S.dim)
    for a, w in enumerate(omega):
        if w != 0:
            V = V + w * frame.fields[a]
    return FormDeclaration(form, system, V, tuple(frame.fields[:m]), ({},) * m, u, ud, tuple(K),
                           tuple(speeds), frame=frame, **kw)


def contract(vec: Sequence[sp.Expr], frame: Frame, a: int) -> sp.Expr:
    """Σ_i vec_i C^i_a: a covector (force, Lagrange expression) along the frame field X_a."""
    vec = as_exprs(vec, what="covector")
    if len(vec) > frame.C.rows or isinstance(a, bool) or not isinstance(a, int) or not 0 <= a < frame.C.cols:
        raise DimensionError(f"contract needs at most {frame.C.rows} covector entries and 0 ≤ a < {frame.C.cols}")
    return sum((vec[i] * frame.C[i, a] for i in range(len(vec)) if frame.C[i, a] != 0 and vec[i] != 0),
               sp.S.Zero)
