"""Derivatives along the equations of motion, the primitive behind first integrals.

For equations M(t, q, u) u̇ = F, q̇ = K(t, q, u) (any form of :mod:`geonh.equations` without
multipliers), the derivative of a function I(t, q, u) along the motion is

    İ = ∂_t I + ∂_q I · K + ∂_u I · M⁻¹F,

and I is a first integral when İ vanishes identically (decided at the generic point,
:func:`~geonh.kernel.generic_point.is_zero`).  Energy, Jacobi's integral, the nonholonomic
momentum map and the search for polynomial integrals build on this in
:mod:`geonh.analysis.conserved`.
"""
from __future__ import annotations

from typing import Sequence

import sympy as sp

from ..errors import DimensionError, NotLinearError
from ..kernel.generic_point import is_zero, lu_solve
from ..kernel.parsing import as_expr, as_exprs, sympy_of
from ..kernel.space import known_symbols
from ..equations.base import Equations

__all__ = ["rates", "expression_in", "time_derivative", "is_integral"]


def rates(eqs: Equations) -> list[sp.Expr]:
    """u̇ = M⁻¹F of equations without multipliers (LU with generic pivots; Cramer for small
    M), the rates every derivative along the motion uses."""
    if not isinstance(eqs, Equations):
        raise DimensionError(f"expected Equations, got {type(eqs).__name__}")
    if eqs.lam_vec:
        raise NotLinearError(f"{eqs.form}: first integrals need equations without multipliers (u̇ = M⁻¹F); "
                             "use a reduced form such as boltzmann-hamel or voronets")
    return [sympy_of(v) for v in lu_solve(eqs.mass_matrix, eqs.forcing, what=f"{eqs.form} mass matrix")]


def expression_in(eqs: Equations, value, what: str = "expression") -> sp.Expr:
    """A user's expression in the variables of ``eqs`` (t, q, q̇, u and the parameters):
    sympy objects are checked, strings parsed safely by name (:func:`geonh.kernel.parsing.as_expr`,
    never evaluated as code)."""
    if not isinstance(eqs, Equations):
        raise DimensionError(f"expected Equations, got {type(eqs).__name__}")
    known = known_symbols(eqs.space, list(eqs.u), list(eqs.kinematics), eqs.mass_matrix, eqs.forcing)
    return eqs.space.check_expression(as_expr(value, known, what=what), what)


def time_derivative(eqs: Equations, I: sp.Expr, u_rates: Sequence[sp.Expr] | None = None) -> sp.Expr:
    """İ = ∂_t I + ∂_q I · K + ∂_u I · u̇ along the equations (u̇ = M⁻¹F, computed once if
    ``u_rates`` is not given, :func:`rates`)."""
    I = expression_in(eqs, I, "the function I")
    S = eqs.space
    if u_rates is not None:
        x = as_exprs(u_rates, S.state_symbols + tuple(eqs.u), what="u_rates")
        if len(x) != len(eqs.u):
            raise DimensionError(f"{len(eqs.u)} rates u̇ needed, got {len(x)}")
    else:
        x = rates(eqs)
    free = I.free_symbols
    out = sp.diff(I, S.t) if S.t is not None and S.t in free else sp.S.Zero
    out += sum((k * sp.diff(I, q) for q, k in zip(S.q, eqs.kinematics) if q in free), sp.S.Zero)
    out += sum((r * sp.diff(I, u) for u, r in zip(eqs.u, x) if u in free), sp.S.Zero)
    return out


def is_integral(eqs: Equations, I: sp.Expr) -> bool:
    """Is I(t, q, u) constant along the equations (İ ≡ 0 at the generic point)?"""
    return is_zero(time_derivative(eqs, I))
