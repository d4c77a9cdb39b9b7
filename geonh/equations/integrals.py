"""First integrals of equations of motion: the energy, and a search for integrals polynomial
in the speeds.

For equations M(t, q, u) u̇ = F, q̇ = K(t, q, u) (any form of :mod:`geonh.equations` without
multipliers), a function I(t, q, u) is a first integral when its derivative along the motion,

    İ = ∂_t I + ∂_q I · K + ∂_u I · M⁻¹F,

vanishes identically (decided at the generic point, :func:`~geonh.kernel.generic_point.is_zero`).

* :func:`energy` — T + V on the motion (q̇ = K); :func:`jacobi_integral` — h = q̇·∂L/∂q̇ − L,
  the energy integral of rheonomic systems (Painlevé–Jacobi).  Each reports whether it is
  conserved, checked, never assumed: forces that do work, explicit time, or rheonomic
  constraints that do work make it fail.
* :func:`polynomial_integrals` — every integral of the form I = Σ c_k φ_k(q) μ_k(u) with μ_k
  the monomials of the speeds of degree 1 … ``degree``, φ_k from ``functions`` (default the
  constant 1) and **constant, parameter-free** coefficients c_k: İ is linear in c, so the
  integrals are the null space of the matrix of the İ_k at random states (PRECISION digits,
  parameters at random values too), made rational (reduced row echelon form, rational
  identification) and then verified exactly at the generic point with the parameters
  symbolic; a candidate that fails the verification is dropped, never returned.  Integrals
  whose coefficients depend on the parameters (as the energy's do) are outside this ansatz —
  use :func:`energy`.
* :func:`deviation_along` — max |I − I(0)| along a :class:`~geonh.numerics.Trajectory`
  (the numerical check of an integral along :func:`~geonh.simulate`).
"""
from __future__ import annotations

import itertools
import random
from typing import Sequence

import mpmath
import sympy as sp

from ..errors import NotFoundError, NotLinearError
from ..kernel.evaluation import PRECISION, native_values, random_rational, to_mp, value_at
from ..kernel.generic_point import is_zero, lu_solve
from .base import Equations

__all__ = ["energy", "jacobi_integral", "time_derivative", "is_integral", "polynomial_integrals",
           "deviation_along"]


def _rates(eqs: Equations) -> list[sp.Expr]:
    if eqs.lam_vec:
        raise NotLinearError(f"{eqs.form}: first integrals need equations without multipliers (u̇ = M⁻¹F); "
                             "use a reduced form such as boltzmann-hamel or voronets")
    return [sp.sympify(v) for v in lu_solve(eqs.mass_matrix, eqs.forcing, what=f"{eqs.form} mass matrix")]


def time_derivative(eqs: Equations, I: sp.Expr, rates: Sequence[sp.Expr] | None = None) -> sp.Expr:
    """İ = ∂_t I + ∂_q I · K + ∂_u I · u̇ along the equations (u̇ = M⁻¹F, computed once if
    ``rates`` is not given)."""
    S = eqs.space
    x = list(rates) if rates is not None else _rates(eqs)
    I = sp.sympify(I)
    free = I.free_symbols
    out = sp.diff(I, S.t) if S.t is not None and S.t in free else sp.S.Zero
    out += sum((k * sp.diff(I, q) for q, k in zip(S.q, eqs.kinematics) if q in free), sp.S.Zero)
    out += sum((r * sp.diff(I, u) for u, r in zip(eqs.u, x) if u in free), sp.S.Zero)
    return out


def is_integral(eqs: Equations, I: sp.Expr) -> bool:
    """Is I(t, q, u) constant along the equations (İ ≡ 0 at the generic point)?"""
    return is_zero(time_derivative(eqs, I))


def _on_motion(eqs: Equations, expr: sp.Expr) -> sp.Expr:
    S = eqs.space
    return sp.sympify(expr).xreplace(dict(zip(S.qd, eqs.kinematics)))


def energy(eqs: Equations) -> tuple[sp.Expr, bool]:
    """(E, conserved): E = T + V in (t, q, u) on the motion, and whether İ ≡ 0."""
    system = eqs.system
    E = _on_motion(eqs, system.T + getattr(system, "V", sp.S.Zero))
    return E, is_integral(eqs, E)


def jacobi_integral(eqs: Equations) -> tuple[sp.Expr, bool]:
    """(h, conserved): h = Σ q̇ ∂L/∂q̇ − L = T2 − T0 + V (L = T − V, T = T2 + T1 + T0 by degree in
    q̇) on the motion, and whether ḣ ≡ 0 (for a scleronomic system h = E)."""
    system = eqs.system
    S = eqs.space
    L = system.T - getattr(system, "V", sp.S.Zero)
    h = sum((qd * sp.diff(L, qd) for qd in S.qd), sp.S.Zero) - L
    h = _on_motion(eqs, h)
    return h, is_integral(eqs, h)


def _monomials(u: Sequence[sp.Symbol], degree: int) -> list[sp.Expr]:
    out = []
    for d in range(1, degree + 1):
        for combo in itertools.combinations_with_replacement(u, d):
            out.append(sp.Mul(*combo))
    return out


def _independent(basis: list[sp.Expr], seed: int) -> list[sp.Expr]:
    """A maximal linearly independent subset of the ansatz functions (sin² + cos² = 1 makes
    products of trigonometric functions dependent): greedy, by their values at random points
    in double precision; a function dropped wrongly only loses candidates, and a dependent one
    kept gives a combination that is identically zero, which the caller discards."""
    import numpy as np
    syms = sorted(set().union(*[b.free_symbols for b in basis]), key=lambda s: s.name)
    rng = random.Random(seed + 1)
    pts = [[float(random_rational(rng)) for _ in syms] for _ in range(len(basis) + 5)]
    f = sp.lambdify(syms, basis, modules="numpy")
    V = np.array([np.broadcast_to(np.asarray(f(*p), dtype=float), (len(basis),)) for p in pts]).T
    keep: list[int] = []
    for k in range(len(basis)):
        trial = V[keep + [k]]
        sv = np.linalg.svd(trial, compute_uv=False)
        if sv.size and sv[-1] > 1e-9 * sv[0]:
            keep.append(k)
    return [basis[k] for k in keep]


def polynomial_integrals(eqs: Equations, degree: int = 1, functions: Sequence[sp.Expr] = (1,), *,
                         points: int | None = None, seed: int = 1) -> list[sp.Expr]:
    """A basis of the first integrals Σ c_k φ_k(q) μ_k(u) with constant, parameter-free c_k
    (module doc), each verified exactly; [] if that ansatz has none."""
    if degree < 1:
        raise NotFoundError("degree must be at least 1")
    S = eqs.space
    x = _rates(eqs)
    basis = [sp.sympify(f) * m for f in functions for m in _monomials(eqs.u, degree)]
    if any(b.free_symbols & set(S.qd) for b in basis):
        raise NotLinearError("the functions φ_k may depend on t and q only")
    basis = _independent(basis, seed)
    derivs = [time_derivative(eqs, b, x) for b in basis]
    syms = set().union(*[d.free_symbols for d in derivs]) if derivs else set()
    rng = random.Random(seed)
    n = len(basis)
    rows = []
    try:
        import symengine as se
        native = [se.sympify(d) for d in derivs]
    except Exception:  # noqa: BLE001 - no symengine or an expression it does not take
        native = None
    with mpmath.workdps(PRECISION):
        for _ in range(points or 2 * n + 4):
            pt = {s: random_rational(rng) for s in syms}
            vals = native_values(native, pt) if native is not None else [None] * n
            vals = [v if v is not None else value_at(d, pt, strict=False, tree=True) for v, d in zip(vals, derivs)]
            if any(v is None for v in vals):
                continue
            rows.append([to_mp(v) for v in vals])
        if not rows:
            raise NotFoundError("the equations are singular at every random state")
        A = mpmath.matrix(rows)
        U, s, V = mpmath.svd_r(A)
        tol = max(s) * mpmath.mpf(10) ** (-PRECISION // 2) if len(s) and max(s) else mpmath.mpf(10) ** (-PRECISION // 2)
        null = [k for k in range(n) if k >= len(s) or s[k] <= tol]
        vecs = [[V[k, j] for j in range(n)] for k in null]
    if not vecs:
        return []
    # rational basis: reduced row echelon form of the null vectors, entries identified as rationals
    N = sp.Matrix([[sp.Float(v, PRECISION) for v in row] for row in vecs]).rref(iszerofunc=lambda e: abs(e) < 1e-40)[0]
    out = []
    for r in range(N.rows):
        coeffs = [sp.nsimplify(c, rational=True, tolerance=1e-35) for c in N.row(r)]
        if all(c == 0 for c in coeffs):
            continue
        I = sp.Add(*[c * b for c, b in zip(coeffs, basis) if c != 0])
        if not is_zero(I) and is_zero(time_derivative(eqs, I, x)):
            out.append(I)
    return out


def deviation_along(trajectory, I: sp.Expr, params: dict | None = None) -> float:
    """max |I − I(t0)| along a :class:`~geonh.numerics.Trajectory` of the same equations
    (I in t, q, u; parameters from ``params`` or those bound in the trajectory's function)."""
    import numpy as np
    f = trajectory.function
    bound = dict(getattr(f, "bound", {}))
    bound.update({(s if isinstance(s, sp.Symbol) else sp.Symbol(str(s))): v for s, v in (params or {}).items()})
    byname = {s.name: v for s, v in bound.items()}
    I = sp.sympify(I)
    subs = {s: byname[s.name] for s in I.free_symbols if s.name in byname and s not in f.state}
    expr = I.xreplace(subs)
    args = [f.time] + list(f.state)
    fn = sp.lambdify(args, expr, modules="numpy")
    vals = np.array([float(fn(t, *y)) for t, y in zip(trajectory.t, trajectory.states)])
    return float(np.max(np.abs(vals - vals[0])))
