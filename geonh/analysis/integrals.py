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

from ..errors import DimensionError, NotLinearError, ParseError
from ..kernel.generic_point import is_zero, lu_solve
from ..kernel.parsing import as_expr, as_exprs, sympy_of
from ..kernel.space import known_symbols
from ..equations.base import Equations

__all__ = ["rates", "expression_in", "time_derivative", "is_integral", "rate_vanishes"]


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
    return rate_vanishes(eqs, I)


def rate_vanishes(eqs: Equations, I: sp.Expr, Idot: sp.Expr | None = None) -> bool:
    """Is İ ≡ 0 along the equations (the verdict of :func:`~geonh.kernel.generic_point.is_zero`
    on İ, :func:`time_derivative`, passed as ``Idot`` when the caller has it)?

    İ holds the rates u̇ = M⁻¹F, large expressions (an LU solve): on the Chaplygin ball İ of
    the energy has ~37 000 operations, one 60-digit decision on it about 1 s.  When
    ∂I/∂u = Mᵀu — the energy or Jacobi's integral of a form whose mass matrix is the Hessian
    of the kinetic energy in the speeds (Boltzmann–Hamel, Lagrange, Kane, ...), checked here
    entry by entry at the generic point on small expressions — the rates cancel exactly:

        ∂I/∂u · M⁻¹F = uᵀ M M⁻¹ F = u·F,   so   İ = ∂_t I + ∂_q I · K + u·F

    (Neimark & Fufaev 1972, ch. III § 1: the power of the forces), and the verdict is taken on
    that expression, equal to İ as a function, without the rates.  Otherwise on İ itself.
    ``I`` is read as by :func:`time_derivative` (a string is parsed, never run); ``Idot`` must
    be the sympy expression :func:`time_derivative` returned for it."""
    I = expression_in(eqs, I, "the function I")
    if Idot is not None and not isinstance(Idot, sp.Expr):
        raise ParseError(f"Idot must be the sympy expression time_derivative gives, not {type(Idot).__name__}")
    S = eqs.space
    u = list(eqs.u)
    M = eqs.mass_matrix
    n = len(u)
    if not eqs.lam_vec and n and M.shape == (n, n):
        p = [sp.diff(I, v) for v in u]
        if all(is_zero(p[i] - sum((M[k, i] * u[k] for k in range(n)), sp.S.Zero)) for i in range(n)):
            free = I.free_symbols
            out = sp.diff(I, S.t) if S.t is not None and S.t in free else sp.S.Zero
            out += sum((k * sp.diff(I, q) for q, k in zip(S.q, eqs.kinematics) if q in free), sp.S.Zero)
            out += sum((v * f for v, f in zip(u, eqs.forcing)), sp.S.Zero)
            return is_zero(out)
    return is_zero(time_derivative(eqs, I) if Idot is None else Idot)
