"""Numbers from equations: first-order right-hand sides and integration.

The mass matrix is solved numerically at each state (never inverted symbolically).
Values at single states (exact or 60 digits) are :meth:`geonh.Equations.accelerations` and
:mod:`geonh.kernel.evaluation`.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np
import sympy as sp

from ..equations.base import Equations

__all__ = ["first_order_function", "simulate"]


def first_order_function(eqs: Equations, params: dict | None = None):
    """A numpy function f(t, y) for y = (q, u), solving M u̇ = F with numpy at each call.

    ``params`` gives numerical values of every other symbol (masses, lengths, forcing
    functions of t must be written as expressions in t).
    """
    S = eqs.space
    params = dict(params or {})
    args = [S.t if S.t is not None else sp.Symbol("t_")] + list(S.q) + list(eqs.u)
    M = eqs.mass_matrix.xreplace(params)
    F = eqs.forcing.xreplace(params)
    K = sp.Matrix(list(eqs.kinematics)).xreplace(params)
    left = (M.free_symbols | F.free_symbols | K.free_symbols) - set(args) - set(eqs.lam_vec)
    if left:
        raise ValueError(f"give numerical values for {sorted(map(str, left))} in params")
    fM = sp.lambdify(args, M, modules="numpy", cse=True)
    fF = sp.lambdify(args, F, modules="numpy", cse=True)
    fK = sp.lambdify(args, K, modules="numpy", cse=True)
    nu = len(eqs.ud)

    def f(t, y):
        a = (t, *y)
        Mv = np.asarray(fM(*a), dtype=float)
        Fv = np.asarray(fF(*a), dtype=float).reshape(-1)
        x = np.linalg.solve(Mv, Fv)
        qd = np.asarray(fK(*a), dtype=float).reshape(-1)
        return np.concatenate([qd, x[:nu]])

    return f


def simulate(eqs: Equations, y0: Sequence[float], t_span: tuple[float, float], params: dict | None = None,
             **kw):
    """Integrate the equations with scipy's solve_ivp (rtol/atol default 1e-10)."""
    from scipy.integrate import solve_ivp
    f = first_order_function(eqs, params)
    kw.setdefault("rtol", 1e-10)
    kw.setdefault("atol", 1e-10)
    return solve_ivp(f, t_span, list(y0), **kw)
