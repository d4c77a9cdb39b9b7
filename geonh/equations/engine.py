"""The engine: Lagrange's central equation, and frame forms as declarations on it.

The engine is Lagrange's central equation in the form of Neimark–Fufaev 1960, eq. (2.1),
written for an arbitrary extension V of the motion (the d field) and virtual fields W (the δ
fields):

    E(W) = d/dt (p·W) − W(T(q, V)) + p·[W, V] − Q·W  =  (d/dt p − ∂T/∂q − Q)·W,     (*)

an identity for any fields; p·[W, V] = −p_i (dδq^i − δdq^i) is the transpositional term
(CONVENTIONS.md: dδq^i − δdq^i = [V, W]^i).  A frame form is a choice of (V, W), stated once
as a :class:`FormDeclaration` and solved by :func:`solve`; the declarations of
Boltzmann–Hamel, Volterra, Voronets, Chaplygin and Neimark–Fufaev (every k) are in
:mod:`geonh.equations.frame_forms`, a few lines each.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping, Sequence

import sympy as sp

from ..errors import DimensionError, SpaceMismatchError
from ..kernel.fields import VectorField
from ..kernel.frames import Frame
from ..systems.mechanical import MechanicalSystem
from ..transposition.adapted import check_adapted, frame_kinematics, speed_symbols, voronets_frame
from .base import Equations

__all__ = ["lagrange_split", "central_equations", "FormDeclaration", "solve", "in_frame", "contract"]


def lagrange_split(system: MechanicalSystem, K: Sequence[sp.Expr], u: Sequence[sp.Symbol]):
    """Lagrange's expressions on the motion q̇ = K(t, q, u), split by linearity in u̇:
    L_i − Q_i = Σ_s MdK[i][s] u̇_s + LQ0[i], with MdK = M ∂K/∂u (from the primitives of
    :attr:`~geonh.systems.MechanicalSystem.primitives`; no composite expression is differentiated).
    Also returns p, ∂T/∂q and Q on the motion."""
    S = system.space
    n = S.n
    prim = system.primitives
    Mq = system.mass_matrix
    qd_on = dict(zip(S.qd, K))
    zero_ud = [sp.S.Zero] * len(u)
    acc0 = [S.total_derivative(k, along=K, speeds=u, rates=zero_ud) for k in K]
    dKdu = [[sp.diff(k, us) if us in k.free_symbols else sp.S.Zero for us in u] for k in K]
    M_on = Mq.xreplace(qd_on)
    p_on = [e.xreplace(qd_on) for e in prim["p"]]
    dTdq = [e.xreplace(qd_on) for e in prim["dTdq"]]
    Q_on = [e.xreplace(qd_on) for e in system.Q]
    LQ0 = []
    for i in range(n):
        e = sum((M_on[i, j] * acc0[j] for j in range(n) if M_on[i, j] != 0 and acc0[j] != 0), sp.S.Zero)
        LQ0.append(e + prim["pdot0"][i].xreplace(qd_on) - dTdq[i] - Q_on[i])
    MdK = [[sum((M_on[i, j] * dKdu[j][s] for j in range(n) if dKdu[j][s] != 0 and M_on[i, j] != 0), sp.S.Zero)
            for s in range(len(u))] for i in range(n)]
    return MdK, LQ0, p_on, dTdq, Q_on


def central_equations(system: MechanicalSystem, V: VectorField, W: Sequence[VectorField],
                      on_motion: dict, u: Sequence[sp.Symbol], ud: Sequence[sp.Symbol],
                      K: Sequence[sp.Expr]) -> tuple[sp.Matrix, sp.Matrix]:
    """The engine: E(W) = d/dt(p·W) − W(T(q, V)) + p·[W, V] − Q·W for each W (module doc).

    ``V`` and the ``W`` may contain constant symbols (their components off the motion) that
    ``on_motion`` (one dict, or one per W) maps to their values on the motion (in t, q, u);
    ``K`` is the velocity on the motion.
    Derivatives are taken first and the motion substituted after (never before: substituting
    constraints into T first is the classic error).  Every derivative is taken of a small
    primitive (entries of M, b, T0 of T, the field components, the kinematics) and combined by
    the chain rule, so no large composite expression is ever differentiated:

        d/dt(p·W) = ṗ·W + p·Ẇ,  ṗ = M q̈ + ṗ⁰,  q̈ = ∂K/∂u u̇ + (∂_t K + ∂_q K K),
        W(T(q, V)) = W·∂_q T + p·W(V).

    E is linear in u̇; returns (M, F) with E = M u̇ − F, M_rs = W_r·M·∂K/∂u_s.
    """
    S = system.space
    n = S.n
    MdK, LQ0, p_on, dTdq, Q_on = lagrange_split(system, K, u)
    pdot0 = [LQ0[i] + dTdq[i] + Q_on[i] for i in range(n)]  # ṗ with u̇ = 0
    coords = S.coords
    xd = list(K) + ([sp.S.One] if S.t is not None else [])
    rows, minusF = [], []
    ons = on_motion if isinstance(on_motion, (list, tuple)) else [on_motion] * len(W)
    for Wf, on_motion in zip(W, ons):
        Wc = [c.xreplace(on_motion) for c in Wf.components[:n]]
        nz = [i for i in range(n) if Wc[i] != 0]
        # p·Ẇ with Ẇ = ∂_t W + K^j ∂_j W along the motion
        pWdot = sp.S.Zero
        for i in nz:
            c = Wf.components[i]
            fs = c.free_symbols
            d = sum((xd[j] * sp.diff(c, coords[j]) for j in range(len(coords)) if coords[j] in fs), sp.S.Zero)
            if d != 0:
                pWdot += p_on[i] * d.xreplace(on_motion)
        # W(T(q, V)) = W·∂_q T + p·W(V)
        WV = [Wf(V.components[j]).xreplace(on_motion) for j in range(n)]
        WT = sum((dTdq[i] * Wc[i] for i in nz), sp.S.Zero) + sum(
            (p_on[j] * WV[j] for j in range(n) if WV[j] != 0), sp.S.Zero)
        br = Wf.bracket(V)
        trans = sum((p_on[i] * br.components[i].xreplace(on_motion) for i in range(n)
                     if br.components[i] != 0), sp.S.Zero)
        QW = sum((Q_on[i] * Wc[i] for i in nz), sp.S.Zero)
        minusF.append(sum((pdot0[i] * Wc[i] for i in nz), sp.S.Zero) + pWdot - WT + trans - QW)
        rows.append([sum((Wc[i] * MdK[i][s] for i in nz), sp.S.Zero) for s in range(len(u))])
    return sp.Matrix(rows), -sp.Matrix(minusF)


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
    return sum((vec[i] * frame.C[i, a] for i in range(len(vec)) if frame.C[i, a] != 0 and vec[i] != 0),
               sp.S.Zero)
