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
import mpmath

from ..kernel import evaluation
from ..kernel.generic_point import all_zero, generic_symbols, is_nonanalytic, is_zero, lu_solve
from ..kernel.sampling import TRIALS, sample_points
from ..kernel.parsing import as_exprs, as_known_expr, as_sequence, sympy_of
from ..kernel.space import known_symbols
from ..equations.base import Equations

__all__ = ["rates", "expression_in", "time_derivative", "is_integral", "rate_vanishes", "rate_from_forces"]


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
    never evaluated as code).  A string may name only what the equations or their system know
    (a misspelt parameter would otherwise be a new, generic one, and a verdict on it silently
    another question): :class:`UnknownCoordinateError` names the rest.  A sympy expression may
    bring symbols of its own (a constant the user means as arbitrary)."""
    if not isinstance(eqs, Equations):
        raise DimensionError(f"expected Equations, got {type(eqs).__name__}")
    # the system's T, V, Q and constraints where it has them (any SystemLike may carry equations)
    own = [getattr(eqs.system, a, None) for a in ("T", "V", "Q", "constraints")]
    known = known_symbols(eqs.space, list(eqs.u), list(eqs.kinematics), eqs.mass_matrix, eqs.forcing, *own)
    expr = as_known_expr(value, known, what=what, whose="these equations")
    return eqs.space.check_expression(expr, what)


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
    fast = rate_from_forces(eqs, I, [eqs.u])
    if fast is not None:
        return is_zero(fast)
    verdict = _rate_vanishes_at_points(eqs, I)
    if verdict is not None:
        return verdict
    return is_zero(time_derivative(eqs, I) if Idot is None else Idot)


def rate_from_forces(eqs: Equations, I: sp.Expr, weights: Sequence) -> sp.Expr | None:
    """İ along ``eqs`` (M u̇ = F, q̇ = K) without the rates u̇ = M⁻¹F, or None: for the first
    ρ of ``weights`` (each a list of len(u) expressions in t, q, u and the parameters) with
    ∂I/∂u = Mᵀρ — checked entry by entry at the generic point
    (:func:`~geonh.kernel.generic_point.all_zero`) —

        ∂I/∂u · M⁻¹F = ρᵀ M M⁻¹ F = ρ·F,   so   İ = ∂_t I + ∂_q I · K + ρ·F,

    the same function of the state as :func:`time_derivative` gives.  ρ = u for the energy and
    Jacobi's integral of a form whose mass matrix is the Hessian of T in the speeds (the power
    of the forces, Neimark & Fufaev 1972, ch. III § 1); ρ = ±y for the momentum p·ξ of a
    section ξ = K_u y of the constraint distribution (:mod:`geonh.analysis.conserved`).  None
    when no ρ passes the check, or ``eqs`` has multipliers or a non-square mass matrix."""
    I = expression_in(eqs, I, "the function I")
    S = eqs.space
    u = list(eqs.u)
    M = eqs.mass_matrix
    m = len(u)
    rhos = [as_exprs(w, S.state_symbols + tuple(u), what="a weight ρ") for w in as_sequence(weights, "weights")]
    for rho in rhos:
        if len(rho) != m:
            raise DimensionError(f"a weight ρ has {m} entries (one per speed), not {len(rho)}")
    if eqs.lam_vec or not m or M.shape != (m, m):
        return None
    dI = [sp.diff(I, v) for v in u]
    for rho in rhos:
        if all_zero([dI[i] - sum((M[k, i] * rho[k] for k in range(m) if rho[k] != 0), sp.S.Zero) for i in range(m)]):
            free = I.free_symbols
            out = sp.diff(I, S.t) if S.t is not None and S.t in free else sp.S.Zero
            out += sum((k * sp.diff(I, q) for q, k in zip(S.q, eqs.kinematics) if q in free), sp.S.Zero)
            out += sum((r * f for r, f in zip(rho, eqs.forcing) if r != 0), sp.S.Zero)
            return out
    return None


def _rate_vanishes_at_points(eqs: Equations, I: sp.Expr) -> bool | None:
    """İ ≡ 0 decided at the generic points with u̇ solved there, not written out: at each
    sample point of :func:`~geonh.kernel.generic_point.is_zero` the pieces ∂_t I, ∂_q I, K,
    ∂_u I, M and F are evaluated (PRECISION digits, exactly where rational), M u̇ = F is solved
    at the point, and İ = ∂_t I + ∂_q I·K + ∂_u I·u̇ there is zero when
    |İ| ≤ 10^-(PRECISION/2)·max(1, Σ|terms|) — the term-size rule of ``is_zero`` on the terms
    of the sum (an exact value: when it is 0).  Points of either sign as well when a piece is
    not analytic, as ``is_zero`` does.  The symbolic u̇ = M⁻¹F (an LU solve of F: 3·10⁵
    operations for the rattleback's Jellett integral, 6·10⁶ on the spherical robot) is never
    formed.  None (the caller decides on İ itself) without a square mass matrix, with
    functions of time in the pieces, or with too few points where every piece has a value."""
    S = eqs.space
    u = list(eqs.u)
    m = len(u)
    M = eqs.mass_matrix
    if eqs.lam_vec or not m or M.shape != (m, m):
        return None
    free = I.free_symbols
    head = [sp.diff(I, S.t) if S.t is not None and S.t in free else sp.S.Zero]
    pairs = [(sp.diff(I, q), k) for q, k in zip(S.q, eqs.kinematics) if q in free]
    pieces = [sympy_of(e) for e in [*head, *(g for g, _ in pairs), *(k for _, k in pairs),
                                    *(sp.diff(I, v) for v in u), *M, *eqs.forcing]]
    if any(generic_symbols(e) != e for e in pieces):
        return None
    nq = len(pairs)
    syms = set().union(*[e.free_symbols for e in pieces])
    tol = mpmath.mpf(10) ** (-(evaluation.precision() // 2))

    def nonzero_at(pt) -> bool | None:
        vals = evaluation.values_at(pieces, pt)
        if any(v is None for v in vals):
            return None
        a, gq, kq = vals[0], vals[1:1 + nq], vals[1 + nq:1 + 2 * nq]
        gu = vals[1 + 2 * nq:1 + 2 * nq + m]
        Mv, Fv = vals[1 + 2 * nq + m:1 + 2 * nq + m + m * m], vals[1 + 2 * nq + m + m * m:]
        if all(isinstance(v, sp.Basic) for v in vals):          # rational data: exactly
            Mx = sp.Matrix(m, m, Mv)
            if Mx.det() == 0:
                return None
            x = Mx.LUsolve(sp.Matrix(Fv))
            return sp.Add(a, *[g * k for g, k in zip(gq, kq)], *[g * xi for g, xi in zip(gu, x)]) != 0
        with mpmath.workdps(evaluation.precision()):
            mp = [evaluation.to_mp(v) for v in vals]
            a, gq, kq = mp[0], mp[1:1 + nq], mp[1 + nq:1 + 2 * nq]
            gu = mp[1 + 2 * nq:1 + 2 * nq + m]
            Mm = mpmath.matrix(m, m)
            for i in range(m):
                for j in range(m):
                    Mm[i, j] = mp[1 + 2 * nq + m + i * m + j]
            try:
                x = mpmath.lu_solve(Mm, mpmath.matrix(mp[1 + 2 * nq + m + m * m:]))
            except ZeroDivisionError:
                return None
            terms = [a, *[g * k for g, k in zip(gq, kq)], *[g * x[i] for i, g in enumerate(gu)]]
            return bool(abs(mpmath.fsum(terms)) > tol * max(1, mpmath.fsum(abs(t) for t in terms)))

    seen = 0
    for pt in sample_points(syms, TRIALS + 3):
        v = nonzero_at(pt)
        if v is None:
            continue
        if v:
            return False
        seen += 1
        if seen >= TRIALS:
            break
    if seen < TRIALS:
        return None
    if any(is_nonanalytic(e) for e in pieces):
        for pt in sample_points(syms, TRIALS, signs=True):
            if nonzero_at(pt):
                return False
    return True
