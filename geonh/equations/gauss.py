"""Gauss's principle of least constraint as equations (Aumann 1971, seed 001, eqs. (5), (7)).

The bound system and its pieces (the free M-system (f, T), b_2 = ∂b/∂ẋ, c of (5), the numeric
closed form) are :class:`~geonh.systems.GaussSystem`; here they become :class:`Equations`.
An independent route to the motion: no frame, no central equation.
"""
from __future__ import annotations

import sympy as sp

from ..systems.gauss import GaussSystem
from .base import Equations

__all__ = ["gauss", "udwadia_kalaba"]


def _gauss_system(system) -> GaussSystem:
    return system if isinstance(system, GaussSystem) else GaussSystem.from_system(system)


def gauss(system) -> Equations:
    """Gauss's principle (seed 001, eqs. (5), (7)) for a MechanicalSystem, NonlinearSystem or
    GaussSystem: u = ẋ, unknowns (ẍ, λ^{Aumann}),

        a (ẍ − f) + b_2ᵀ λ = 0,      c + b_2 (ẍ − f) = 0.

    Aumann's multipliers are minus the Chetaev multipliers of CONVENTIONS.md."""
    gs = _gauss_system(system)
    gs.refuse_deficient()
    S = gs.space
    m = len(gs.b)
    lam = tuple(sp.Symbol(f"mu{k + 1}", real=True) for k in range(m))
    a = gs.free.metric
    r = sp.Matrix([x - f for x, f in zip(S.qdd, gs.free.f)])
    B, c = gs.B, gs.c
    res = list(a * r + B.T * sp.Matrix(m, 1, lam)) + list(c + B * r)
    return Equations("gauss", gs, S.qd, S.qdd, list(S.qd), list(S.qd), res, multipliers=lam,
                     reactions=list(a * r), notes="multipliers are Aumann's λ of eq. (7) = −λ(Chetaev)")


def udwadia_kalaba(system) -> Equations:
    """The Udwadia–Kalaba closed form ẍ = f + a⁻¹ b_2ᵀ (b_2 a⁻¹ b_2ᵀ)⁻¹(−c) (seed 001 (5), (7)
    solved; :meth:`GaussSystem.constraint_acceleration`) as Equations with u = ẋ, unknowns ẍ."""
    gs = _gauss_system(system)
    S = gs.space
    r = gs.constraint_acceleration()
    res = [x - f - rr for x, f, rr in zip(S.qdd, gs.free.f, r)]
    return Equations("udwadia-kalaba", gs, S.qd, S.qdd, list(S.qd), list(S.qd), res)
