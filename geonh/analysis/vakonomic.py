"""Vakonomic against nonholonomic motions: which nonholonomic motions are vakonomic (and for which
initial multipliers), which vakonomic motions are not nonholonomic, and when the two coincide —
each answer with its witness.

The equations are :func:`geonh.equations.vakonomic.vakonomic` (V) and Lagrange's with
multipliers (NH); the conditions are those of Cortés, de León, Martín de Diego & Martínez 2002
and Lewis & Murray 1995, stated in :mod:`geonh.equations.vakonomic`:

* :func:`vakonomic_coincides` — symbolically, for every motion: the defect
  Δ_rκ = dθ^κ(ẋ, X_r) (:func:`~geonh.equations.vakonomic.vakonomic_defect`) vanishes
  identically, the witness is its nonzero entry otherwise, and the relation between the
  multipliers is λ = −μ̇ − (A Aᵀ)⁻¹ A Eᵀ μ (Aᵀ(λ + μ̇) + Eᵀ μ = 0 multiplied by A);
* :func:`vakonomic_multiplier` — numerically, for one nonholonomic motion from (q0, q̇0): μ
  solves the transport (T) along the motion (:func:`~geonh.equations.vakonomic.multiplier_transport`),
  so μ(t) = Φ(t) μ0 + ψ(t) is affine in μ0 = μ(0); the motion is vakonomic with multiplier μ0
  exactly when the leftover vakonomic force r(t) = (I − Aᵀ(AAᵀ)⁻¹A) Eᵀ μ(t) — the component of
  μ_κ dθ^κ(ẋ, ·) the constraint forces cannot absorb — vanishes for all t.  r is affine in μ0:
  μ0 is the least-squares solution over the sample times, the witness is the re-simulation of
  (V) from (q0, q̇0, μ0) against the nonholonomic motion;
* :func:`compare_vakonomic` — the vakonomic motion from (q0, q̇0, μ0) simulated beside the
  nonholonomic one from (q0, q̇0): their divergence shows a vakonomic motion that is not
  nonholonomic (the nonholonomic motion from a state is unique).

Vertical rolling disk (coordinates (x, y, θ, φ), ẋ = R cos θ φ̇, ẏ = R sin θ φ̇; derived here
from (V), checked by the tests): (V) gives m ẍ = −μ̇₁, m ÿ = −μ̇₂, so μ = −m(ẋ, ẏ) + c with
c constant, and then, with w = c₁ sin θ − c₂ cos θ,

    I θ̈ = R φ̇ w,        (J + m R²) φ̈ = −R θ̇ w.

The nonholonomic motions have θ̇, φ̇ constant; one with θ̇ φ̇ ≠ 0 is vakonomic exactly for
c = 0, μ(0) = −m (ẋ(0), ẏ(0)) (for θ̇ = 0 every c ∥ (cos θ, sin θ) will do); any other c gives
θ̈ ≠ 0: a vakonomic motion that is not nonholonomic.  On an inclined plane no turning
nonholonomic motion of the disk is vakonomic for any μ(0) (Lemos 2021).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Mapping, Sequence

import numpy as np
import sympy as sp

from ..equations.independent import lagrange
from ..equations.vakonomic import constraint_exterior, multiplier_transport, vakonomic, vakonomic_defect
from ..errors import DimensionError, NotLinearError, ParseError
from ..kernel.evaluation import resolve_keys
from ..kernel.frames import Frame
from ..kernel.generic_point import is_zero
from ..kernel.parsing import as_floats
from ..numerics.ode import simulate
from ..numerics.trajectory import Trajectory
from ..systems.mechanical import MechanicalSystem

__all__ = ["Coincidence", "MultiplierSearch", "MotionComparison", "vakonomic_coincides", "vakonomic_multiplier",
           "compare_vakonomic"]


@dataclass(frozen=True)
class Coincidence:
    """Do the vakonomic and the nonholonomic equations of a system have the same motions?

    ``coincide``: the defect Δ (``defect``, m × k, in the frame's speeds; ``frame`` the adapted
    frame) vanishes identically; ``witness``: which entry does not (or why they coincide);
    ``relation``: λ_κ = −μ̇_κ − ((AAᵀ)⁻¹ A Eᵀ μ)_κ in (t, q, q̇, μ, μ̇) when they coincide
    (empty otherwise), with ``mu``, ``mu_dot`` the symbols it uses."""

    coincide: bool
    defect: sp.Matrix
    frame: Frame
    witness: str
    relation: tuple[sp.Expr, ...] = ()
    mu: tuple[sp.Symbol, ...] = ()
    mu_dot: tuple[sp.Symbol, ...] = ()


@dataclass(frozen=True)
class MultiplierSearch:
    """The answer of :func:`vakonomic_multiplier` for one nonholonomic motion.

    ``mu0``: the initial multipliers (least squares); ``residual``: max over the sample times
    of |r(t)|, the vakonomic force left over with μ0 (module doc); ``scale``: the size it is
    judged against; ``vakonomic``: residual ≤ tol · scale; ``kernel``: a basis (columns) of the
    initial multipliers that may be added to ``mu0`` (empty when μ0 is unique); ``deviation``:
    max |q_V(t) − q_NH(t)| of the vakonomic motion from (q0, q̇0, μ0) against the nonholonomic
    one (the witness), and ``mu_deviation`` max |μ_V(t) − μ_T(t)| of its multipliers against
    those the transport carries along the nonholonomic motion from μ0; ``t``: the sample times; ``nonholonomic`` and ``vakonomic_motion``: the
    two trajectories."""

    mu0: np.ndarray
    residual: float
    scale: float
    vakonomic: bool
    kernel: np.ndarray
    deviation: float
    mu_deviation: float
    t: np.ndarray = field(repr=False)
    nonholonomic: Trajectory = field(repr=False)
    vakonomic_motion: Trajectory = field(repr=False)


@dataclass(frozen=True)
class MotionComparison:
    """The vakonomic and the nonholonomic motions from the same (q0, q̇0) (:func:`compare_vakonomic`):
    ``divergence`` = max over ``t`` of max_i |q_V,i − q_NH,i|; ``differs`` = divergence > tol;
    ``nonholonomic``, ``vakonomic`` the trajectories (Lagrange's form, the vakonomic form)."""

    divergence: float
    differs: bool
    t: np.ndarray = field(repr=False)
    nonholonomic: Trajectory = field(repr=False)
    vakonomic: Trajectory = field(repr=False)


def _system(system, what: str) -> MechanicalSystem:
    if isinstance(system, MechanicalSystem):
        return system
    if hasattr(system, "phi"):   # NonlinearSystem: constraints nonlinear in the velocities
        raise NotLinearError(f"{what} needs constraints linear in the velocities (a MechanicalSystem); "
                             "constraints nonlinear in the velocities are not supported")
    raise ParseError(f"{what} takes a MechanicalSystem, not {type(system).__name__}")


def _numbers(value, count: int, what: str) -> list[float]:
    vals = as_floats(value, what=what)
    if len(vals) != count or not all(math.isfinite(v) for v in vals):
        raise DimensionError(f"{what} must be {count} finite numbers, got {len(vals)}")
    return list(vals)


def _state(system: MechanicalSystem, y0, what: str = "y0") -> list[float]:
    """(q0, q̇0) from a sequence of 2n numbers or a mapping {coordinate or velocity: value}."""
    S = system.space
    n = S.n
    if isinstance(y0, Mapping):
        vals = resolve_keys(y0, tuple(S.q) + tuple(S.qd), what=what)
        missing = [s.name for s in (*S.q, *S.qd) if s not in vals]
        if missing:
            raise DimensionError(f"{what} gives no value for {', '.join(missing)}")
        y0 = [vals[s] for s in (*S.q, *S.qd)]
    return _numbers(y0, 2 * n, f"{what} (q, q̇)")


def _times(t_span, samples) -> np.ndarray:
    t0, t1 = _numbers(t_span, 2, "t_span")
    if t0 == t1:
        raise ParseError(f"t_span must be an interval (t0, t1) with t0 ≠ t1, not ({t0}, {t1})")
    if isinstance(samples, bool) or not isinstance(samples, int) or samples < 2:
        raise ParseError(f"samples must be an integer ≥ 2, not {samples!r:.40}")
    return np.linspace(t0, t1, samples)


def _tolerance(value, what: str) -> float:
    v = _numbers([value], 1, what)[0]
    if v <= 0:
        raise ParseError(f"{what} must be positive, not {v}")
    return v


def vakonomic_coincides(system: MechanicalSystem, frame: Frame | None = None) -> Coincidence:
    """Do the vakonomic and the nonholonomic motions of ``system`` coincide, for every initial
    state and multiplier?  Yes exactly when the defect Δ_rκ = dθ^κ(ẋ, X_r)
    (:func:`~geonh.equations.vakonomic.vakonomic_defect`, in ``frame``, default the Voronets
    frame) vanishes identically on the constraints (decided at the generic point,
    :func:`~geonh.kernel.generic_point.is_zero`): the constraints are integrable (Frobenius;
    for affine ones the drift too) — Cortés et al. 2002; Lewis & Murray 1995.  Then
    λ = −μ̇ − (AAᵀ)⁻¹ A Eᵀ μ (``relation``; λ = −μ̇ when the constraint forms are closed,
    holonomic constraints); otherwise the witness names a nonzero entry of Δ."""
    system = _system(system, "vakonomic_coincides")
    D, frame = vakonomic_defect(system, frame)
    for r in range(D.rows):
        for c in range(D.cols):
            if not is_zero(D[r, c]):
                return Coincidence(False, D, frame, f"Δ[{r}, {c}] = dθ^{c + 1}(ẋ, X_{r + 1}) = {D[r, c]} is not "
                                                    "zero: the vakonomic force has a component along a free "
                                                    "direction")
    eqs = vakonomic(system)
    mu, mud = eqs.details["mu"], eqs.details["mu_dot"]
    A, _ = system.constraint_matrix
    E = constraint_exterior(system)
    k = A.rows
    if k:
        rhs = (A * E.T) * sp.Matrix(mu)
        corr = (A * A.T).LUsolve(rhs)
        relation = tuple(-mud[c] - corr[c] for c in range(k))
    else:
        relation = ()
    why = ("the constraint forms are closed (holonomic): λ = −μ̇" if all(is_zero(e) for e in E)
           else "the defect Δ vanishes identically: the constraints are integrable")
    return Coincidence(True, D, frame, why, relation, mu, mud)


def vakonomic_multiplier(system: MechanicalSystem, y0, t_span, params: dict | None = None, *,
                         samples: int = 101, rtol: float = 1e-11, atol: float = 1e-12,
                         tol: float = 1e-7) -> MultiplierSearch:
    """Is the nonholonomic motion of ``system`` from y0 = (q0, q̇0) over ``t_span`` vakonomic,
    and for which initial multiplier μ0?  (Cortés et al. 2002; module doc.)

    The transport system (:func:`~geonh.equations.vakonomic.multiplier_transport`) is
    simulated from μ(0) = 0 and from each unit vector (μ is affine in μ(0), the motion in q does
    not depend on it); the leftover force r(t) = (I − Aᵀ(AAᵀ)⁻¹A) Eᵀ μ(t) at ``samples``
    equally spaced times is affine in μ0, which is found by least squares.  The motion is
    vakonomic when max |r| ≤ ``tol`` · scale (scale: the largest |r| of the runs, at least 1);
    the witness (``deviation``) is the vakonomic motion from (q0, q̇0, μ0) simulated against the
    nonholonomic one.  ``params``: values of every parameter; ``rtol``, ``atol``: of the
    simulations (:func:`geonh.simulate`)."""
    system = _system(system, "vakonomic_multiplier")
    S = system.space
    n, k = S.n, system.n_constraints
    state = _state(system, y0)
    t = _times(t_span, samples)
    tol = _tolerance(tol, "tol")
    transport = multiplier_transport(system)
    f = transport.ode_function(params)
    A, _ = system.constraint_matrix
    E = constraint_exterior(system)
    mu = transport.details["mu"]
    a_of = f.observable(A, what="the constraint rows")
    force = f.observable(E.T * sp.Matrix(mu), what="the vakonomic force")
    runs = []
    for j in range(k + 1):
        start = [1.0 if c == j - 1 else 0.0 for c in range(k)]
        traj = simulate(f, state + start, (t[0], t[-1]), t_eval=t, rtol=rtol, atol=atol)
        if not k:                  # no constraints: no multiplier and no force left over
            runs.append((traj, np.zeros(0)))
            continue
        Av = a_of.batch(traj.t, traj.states)
        Fv = force.batch(traj.t, traj.states).reshape(len(t), n)
        left = [F - Ai.T @ np.linalg.solve(Ai @ Ai.T, Ai @ F) for Ai, F in zip(Av, Fv)]
        runs.append((traj, np.concatenate(left)))
    base = runs[0][1]
    G = np.column_stack([r[1] - base for r in runs[1:]]) if k else np.zeros((base.size, 0))
    if k:
        mu0 = np.linalg.lstsq(G, -base, rcond=None)[0]
        _, sv, Vt = np.linalg.svd(G, full_matrices=False)
        small = sv <= tol * max(1.0, float(sv[0]))
        kernel = Vt[small].T if small.any() else np.zeros((k, 0))
    else:
        mu0, kernel = np.zeros(0), np.zeros((0, 0))
    leftover = base + G @ mu0
    residual = float(np.max(np.abs(leftover))) if leftover.size else 0.0
    scale = max(1.0, max(float(np.max(np.abs(r[1]))) if r[1].size else 0.0 for r in runs))
    nonholonomic = runs[0][0]
    vak = simulate(vakonomic(system), state + list(mu0), (t[0], t[-1]), params, t_eval=t, rtol=rtol, atol=atol)
    deviation = float(np.max(np.abs(vak.q - nonholonomic.q)))
    carried = runs[0][0].u[:, n:] + sum((mu0[c] * (runs[c + 1][0].u[:, n:] - runs[0][0].u[:, n:])
                                         for c in range(k)), np.zeros((len(t), k)))
    mu_deviation = float(np.max(np.abs(vak.u[:, n:] - carried))) if k else 0.0
    return MultiplierSearch(np.asarray(mu0, dtype=float), residual, scale, bool(residual <= tol * scale), kernel,
                            deviation, mu_deviation, t, nonholonomic, vak)


def compare_vakonomic(system: MechanicalSystem, y0, mu0: Sequence, t_span, params: dict | None = None, *,
                      samples: int = 101, rtol: float = 1e-11, atol: float = 1e-12,
                      tol: float = 1e-7) -> MotionComparison:
    """The vakonomic motion of ``system`` from (q0, q̇0, μ0) beside the nonholonomic motion from
    (q0, q̇0) (Lagrange's form), at ``samples`` equally spaced times of ``t_span``: their
    divergence max |q_V − q_NH| over the times; ``differs`` when it exceeds ``tol`` — then the
    vakonomic motion is not nonholonomic (the nonholonomic motion from (q0, q̇0) is unique).
    (Lewis & Murray 1995; Cortés et al. 2002.)"""
    system = _system(system, "compare_vakonomic")
    state = _state(system, y0)
    mu = _numbers(mu0, system.n_constraints, "mu0")
    t = _times(t_span, samples)
    tol = _tolerance(tol, "tol")
    nh = simulate(lagrange(system), state, (t[0], t[-1]), params, t_eval=t, rtol=rtol, atol=atol)
    vak = simulate(vakonomic(system), state + mu, (t[0], t[-1]), params, t_eval=t, rtol=rtol, atol=atol)
    divergence = float(np.max(np.abs(vak.q - nh.q)))
    return MotionComparison(divergence, bool(divergence > tol), t, nh, vak)
