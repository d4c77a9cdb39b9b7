"""Examples from the seeds: the systems the source papers work through.

Appell–Hamel's particle (seed 002; Hamel 1924), a rheonomic speed constraint and the
isokinetic particle (constraints nonlinear in the velocities), Aumann's example 3.1 (seed 001,
a hidden holonomic constraint), and the linear-constraint systems used to compare Gauss,
Appell, Maggi and Lagrange.
"""
from __future__ import annotations

from typing import cast

import sympy as sp

from ..kernel.frames import Frame
from ..kernel.space import ConfigurationSpace
from ..systems.nonlinear import NonlinearSystem
from . import mechanical
from .arguments import flag

__all__ = ["appell_hamel", "speed_constraint_particle", "isokinetic_particle", "aumann_example_31",
           "linear_examples"]


def appell_hamel(squared: bool = True) -> NonlinearSystem:
    """Appell–Hamel's example: a particle (mass m, gravity g along −z) with
    ż² = a²(ẋ² + ẏ²) (``squared=True``) or ż = a √(ẋ² + ẏ²); branch ż > 0 for sampling."""
    squared = flag(squared, "appell_hamel: squared")
    S = ConfigurationSpace("x y z")
    x, y, z = S.q
    xd, yd, zd = S.qd
    m, g, a = sp.symbols("m g a", positive=True)
    T = m * (xd ** 2 + yd ** 2 + zd ** 2) / 2
    if squared:
        phi = zd ** 2 - a ** 2 * (xd ** 2 + yd ** 2)
    else:
        phi = zd - a * sp.sqrt(xd ** 2 + yd ** 2)
    return NonlinearSystem(S, T, V=m * g * z, constraints=[phi],
                           solved={zd: a * sp.sqrt(xd ** 2 + yd ** 2)}, name="Appell-Hamel")


def speed_constraint_particle() -> NonlinearSystem:
    """Rheonomic speed constraint ẋ² + ẏ² = v(t)², v(t) = v0 + v1 t, for a particle of mass m
    in the field of a spring k (V = k(x² + y²)/2) and a constant force F along x."""
    S = ConfigurationSpace("x y", time=True)
    x, y = S.q
    xd, yd = S.qd
    t = S.t
    m, k, F, v0, v1 = sp.symbols("m k F v0 v1", positive=True)
    v = v0 + v1 * t
    return NonlinearSystem(S, m * (xd ** 2 + yd ** 2) / 2, V=k * (x ** 2 + y ** 2) / 2, forces=[F, 0],
                           constraints=[xd ** 2 + yd ** 2 - v ** 2],
                           solved={xd: sp.sqrt(v ** 2 - yd ** 2)}, name="speed constraint")


def isokinetic_particle() -> NonlinearSystem:
    """Constant-speed (isokinetic, Gaussian thermostat) particle in 3-space: ẋ² + ẏ² + ż² = c²
    in the potential V = k (x² + 2y² + 3z²)/2 + e x y.  Known answer (Chetaev): m q̈ = F − (F·v/|v|²) v."""
    S = ConfigurationSpace("x y z")
    x, y, z = S.q
    xd, yd, zd = S.qd
    m, k, e, c = sp.symbols("m k e c", positive=True)
    V = k * (x ** 2 + 2 * y ** 2 + 3 * z ** 2) / 2 + e * x * y
    return NonlinearSystem(S, m * (xd ** 2 + yd ** 2 + zd ** 2) / 2, V=V,
                           constraints=[xd ** 2 + yd ** 2 + zd ** 2 - c ** 2],
                           solved={zd: sp.sqrt(c ** 2 - xd ** 2 - yd ** 2)}, name="isokinetic particle")


# -- linear-constraint examples (for the cross-form checks of Gauss, Appell, Maggi, Lagrange) --------
def linear_examples() -> dict:
    """name -> (MechanicalSystem, Maggi quasi-velocities: the free ones, then the constraints),
    from the built-in mechanical models and their adapted frames."""
    out = {}
    for label, build in (("sleigh", mechanical.chaplygin_sleigh), ("rolling disk", mechanical.vertical_rolling_disk),
                         ("knife edge", mechanical.inclined_knife_edge), ("skate on belt", mechanical.skate_on_belt)):
        model = build()
        quasi = cast(Frame, model.frame).quasi_velocities()[:model.space.n]  # these models carry a frame
        out[label] = (model.system, quasi)
    return out


def aumann_example_31():
    """Seed 001, example 3.1: n = 3, x1 + x2 = 0 and ẋ1 + ẋ2 + x3 = 0.
    Returns (space, constraints)."""
    S = ConfigurationSpace("x1 x2 x3")
    x1, x2, x3 = S.q
    v1, v2, v3 = S.qd
    return S, [x1 + x2, v1 + v2 + x3]
