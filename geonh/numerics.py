"""Numerics: evaluate equations at states, solve mass matrices at run time, integrate.

The mass matrix is solved numerically at each state (never inverted symbolically unless asked).
Exact rational states are solved exactly; anything with functions is evaluated with mpmath
at :data:`geonh.generic.PRECISION` digits.
"""
from __future__ import annotations

from typing import Sequence

import mpmath
import numpy as np
import sympy as sp

from .errors import SingularMapError
from .generic import PRECISION


def _num(e: sp.Expr, values: dict):
    v = sp.sympify(e).xreplace(values)
    if v.is_Rational:
        return v
    if v.free_symbols:
        raise ValueError(f"no value given for {sorted(map(str, v.free_symbols))}")
    f = v.evalf(PRECISION)
    if f.has(sp.zoo, sp.nan) or not f.is_number:
        raise SingularMapError(f"expression singular at the given state: {e}")
    with mpmath.workdps(PRECISION):
        return f._to_mpmath(int(PRECISION * 3.33) + 8)


def to_mp(x):
    """A number (sympy Rational/Float or mpmath) as an mpmath number at PRECISION digits."""
    if isinstance(x, sp.Basic):
        if x.is_Rational:
            with mpmath.workdps(PRECISION):
                return mpmath.mpf(x.p) / x.q
        with mpmath.workdps(PRECISION):
            return sp.sympify(x).evalf(PRECISION)._to_mpmath(int(PRECISION * 3.33) + 8)
    return x


def to_sympy(x) -> sp.Expr:
    """A number as a sympy value (Rational stays exact, mpmath becomes a PRECISION-digit Float)."""
    if isinstance(x, sp.Basic):
        return x
    if isinstance(x, mpmath.mpc):
        return sp.Float(x.real, PRECISION) + sp.I * sp.Float(x.imag, PRECISION)
    return sp.Float(x, PRECISION)


def solve_linear_at(M: sp.Matrix, F: sp.Matrix, values: dict, what: str = "matrix") -> list:
    """Solve M x = F at a state: exactly if every entry is rational there, else with mpmath."""
    Mv = [_num(e, values) for e in M]
    Fv = [_num(e, values) for e in F]
    n = M.rows
    if all(isinstance(x, sp.Basic) for x in Mv + Fv):
        Ms = sp.Matrix(n, M.cols, Mv)
        if Ms.det() == 0:
            raise SingularMapError(f"{what} is singular at this state")
        return list(Ms.LUsolve(sp.Matrix(Fv)))
    with mpmath.workdps(PRECISION):
        conv = [to_mp(x) for x in Mv + Fv]
        Mm = mpmath.matrix(n, M.cols)
        for k in range(n * M.cols):
            Mm[k // M.cols, k % M.cols] = conv[k]
        Fm = mpmath.matrix(conv[n * M.cols:])
        try:
            x = mpmath.lu_solve(Mm, Fm)
        except (ZeroDivisionError, TypeError, ValueError):
            raise SingularMapError(f"{what} is singular at this state") from None
        return [x[i] for i in range(n)]


def accelerations(eqs, values: dict) -> list:
    """q̈ at the state {t, q, q̇, parameters} for any :class:`~geonh.equations.Equations`."""
    S = eqs.space
    vals = dict(values)
    for u, sexpr in zip(eqs.u, eqs.speeds):
        if u not in vals:
            vals[u] = to_sympy(_num(sexpr, vals))
    x = solve_linear_at(eqs.mass_matrix, eqs.forcing, vals, what=f"{eqs.form} mass matrix")
    ud_vals = dict(zip(eqs.ud, x[:len(eqs.ud)]))
    out = []
    for k in eqs.kinematics:
        # d/dt K = ∂_t K + Σ K_i ∂_{q_i} K + Σ u̇ ∂_u K
        dk = sp.S.Zero
        free = k.free_symbols
        if S.t is not None and S.t in free:
            dk += sp.diff(k, S.t)
        for qi, ki in zip(S.q, eqs.kinematics):
            if qi in free:
                dk += ki * sp.diff(k, qi)
        val = _num(dk, vals)
        for u in eqs.u:
            if u in free:
                g = _num(sp.diff(k, u), vals)
                udv = ud_vals[eqs.ud[eqs.u.index(u)]]
                if all(isinstance(z, sp.Basic) for z in (val, g, udv)):
                    val = val + g * udv
                else:
                    with mpmath.workdps(PRECISION):
                        val = to_mp(val) + to_mp(g) * to_mp(udv)
        out.append(val)
    return out


def first_order_function(eqs, params: dict | None = None):
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


def simulate(eqs, y0: Sequence[float], t_span: tuple[float, float], params: dict | None = None,
             **kw):
    """Integrate the equations with scipy's solve_ivp (rtol/atol default 1e-10)."""
    from scipy.integrate import solve_ivp
    f = first_order_function(eqs, params)
    kw.setdefault("rtol", 1e-10)
    kw.setdefault("atol", 1e-10)
    return solve_ivp(f, t_span, list(y0), **kw)
