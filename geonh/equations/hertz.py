"""Hertz's representation space as equations (seed 003, §§ 1–4): M W = Y + N + T0.

The geometry (metric, bases ε_τ/ε^ρ, the split W = W_L + W^K, the reactions N and Coulomb's
T0) is :class:`~geonh.systems.HertzSpace`; here it becomes an :class:`Equations`.  An
independent route to the motion.
"""
from __future__ import annotations

from ..systems.hertz import HertzSpace
from .base import Equations

__all__ = ["hertz"]


def hertz(system, friction: str | None = None, k=None) -> Equations:
    """M W = Y + N + T0 (seed 003, eqs. (12), (14)) for a HertzSpace or a system (its Hertz
    space is built): u = q̇, unknowns q̈, Λ explicit; ``friction="coulomb"`` with coefficient
    ``k`` adds T0 = −k |N| v_L/|v_L|."""
    hs = system if isinstance(system, HertzSpace) else HertzSpace(system)
    S = hs.space
    N, T0 = hs.reactions(friction, k)
    L = hs.acceleration()
    res = [L[i] - hs.system.Q[i] - N[i] - T0[i] for i in range(S.n)]
    form = "hertz" + ("-coulomb" if friction else "")
    return Equations(form, hs.system, S.qd, S.qdd, list(S.qd), list(S.qd), res, reactions=list(N + T0))
