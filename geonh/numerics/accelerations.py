"""Accelerations q̈ at numeric states on compiled code (:meth:`geonh.Equations.accelerations`).

q̈ = d/dt K(q, u) = ∂K/∂q · K + ∂K/∂u · u̇ at (q, u), u̇ from M x = F: the values K, u̇ and the
exact Jacobian ∂K/∂(q, u) of one :class:`~geonh.numerics.ODEFunction` of the equations with
every parameter open, compiled once per equations object and kept in memory while the
equations live (and on disk by :mod:`geonh.numerics.cache`), evaluated in double precision.
Equations whose kinematics depend on time explicitly, values that are not numbers, and
equations that cannot be compiled take the PRECISION-digit route (``exact=True``), which
:func:`compiled_accelerations` signals by returning None.
"""
from __future__ import annotations

import weakref
from typing import Any, Mapping

import numpy as np
import sympy as sp

from ..equations.base import Equations, register_numeric_accelerations
from ..errors import GeonhError
from ..kernel.parsing import as_mapping, sympy_of
from .compiled import ODEFunction

__all__ = ["compiled_accelerations"]

#: {id(equations): (weak reference, ODEFunction or None when it cannot be compiled)}
_FUNCTIONS: dict[int, tuple[Any, ODEFunction | None]] = {}


def _function(eqs: Equations) -> ODEFunction | None:
    key = id(eqs)
    hit = _FUNCTIONS.get(key)
    if hit is not None and hit[0]() is eqs:
        return hit[1]
    S = eqs.space
    f: ODEFunction | None
    if S.t is not None and any(S.t in sympy_of(k).free_symbols for k in eqs.kinematics):
        f = None                                   # ∂K/∂t is not compiled: the exact route
    else:
        try:
            f = ODEFunction(eqs, jacobian=True)
        except GeonhError:
            f = None
    def drop(_ref: Any, key: int = key, table: dict = _FUNCTIONS) -> None:
        table.pop(key, None)   # the table bound here: at interpreter exit the global may be gone

    _FUNCTIONS[key] = (weakref.ref(eqs, drop), f)
    return f


def compiled_accelerations(eqs: Equations, values: Mapping) -> list | None:
    """q̈ (sympy Floats of 15 digits) at ``values`` {symbol: sympy number} holding t, q, u and
    every parameter; None when the compiled route does not apply (module doc)."""
    values = as_mapping(values, "accelerations values")
    f = _function(eqs)
    if f is None:
        return None
    try:
        t = float(values.get(f.time, 0))
        y = np.array([float(values[s]) for s in f.state])
        p = np.array([float(values[s]) for s in f.parameters])
    except (KeyError, TypeError, ValueError):
        return None                                # a value missing or not a number
    ud = f.unknowns(t, y, p)[:f.n_u]
    J = f.jacobian(t, y, p)
    n = f.n_q
    K = f(t, y, p)[:n]
    qdd = J[:n, :n] @ K + J[:n, n:] @ ud
    if not np.isfinite(qdd).all():
        return None
    return [sp.S.Zero if x == 0 else sp.Float(float(x)) for x in qdd]


register_numeric_accelerations(compiled_accelerations)
