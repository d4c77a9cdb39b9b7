"""Motion planning checked by simulation: sinusoidal steering of chained systems
(Murray & Sastry 1993, § 4) and plans made of segments along vector fields.

Sinusoidal steering of ż1 = v1, ż2 = v2, ż_{i+1} = z_i v1 on n coordinates:

* step 1: constant inputs v1 = (z1_f − z1)/T, v2 = (z2_f − z2)/T steer z1, z2 in time T;
* step k = 1, …, n − 2: v1 = a sin ωt, v2 = b cos kωt for t ∈ [0, 2π/ω].  Over one period
  z1, …, z_{k+1} return to their values (each is a polynomial in 1 − cos ωt integrated
  against sin ωt), and z_{k+2} moves by the closed-form integral (τ = ωt)

      Δz_{k+2} = b a^k / (k ω^{k+1}) · I_k,   I_k = ∫_0^{2π} sin τ₁ ∫_0^{τ₁} sin τ₂ … ∫_0^{τ_{k−1}} sin τ_k · sin kτ_k,

  (I_1 = π, I_2 = π/2; computed exactly, :func:`sinusoid_gain`), which is solved for b; the
  coordinates above z_{k+2} move too and are set by later steps.

A plan in chained coordinates is mapped back to the system's own inputs u = β(q)⁻¹ v and the
system q̇ = f1(q) u1 + f2(q) u2 is integrated (scipy's ``solve_ivp``, DOP853, rtol = atol =
1e-12 unless told): every :class:`SteeringResult` reports the final-state error of that
simulation, never of the plan alone.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache
from typing import Mapping, Sequence

import numpy as np
import sympy as sp
from scipy.integrate import solve_ivp

from ..errors import DimensionError, IntegrationError, MissingValueError, ParseError, SelfCheckError, SingularMapError
from ..kernel.fields import VectorField
from ..kernel.parsing import as_expr
from ..numerics.codegen import compile_function, expression_atoms
from .chained import ChainedForm

__all__ = ["Segment", "SteeringResult", "sinusoidal_plan", "simulate_chained", "steer_chained", "steer", "sinusoid_gain"]

#: the tolerances of every verifying simulation
RTOL = ATOL = 1e-12
#: right-hand-side evaluations allowed to one integration (a few seconds): a plan that crosses a
#: singularity of the chained coordinates makes the step size collapse, and would run for hours
MAX_EVALUATIONS = 1_000_000
#: the largest condition number of β(q) at the ends of a plan (beyond it φ is singular there)
MAX_CONDITION = 1e12


@dataclass(frozen=True)
class Segment:
    """Chained inputs over [0, duration]: v1 = a sin ωt, v2 = b cos kωt (k ≥ 1), or the
    constants v1 = a, v2 = b (k = 0)."""

    duration: float
    a: float
    b: float
    omega: float = 0.0
    k: int = 0

    def __post_init__(self) -> None:
        for name in ("duration", "a", "b", "omega"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
                raise ParseError(f"Segment: {name} must be a finite number, got {v!r}")
        if isinstance(self.k, bool) or not isinstance(self.k, int) or self.k < 0:
            raise ParseError(f"Segment: k must be an int ≥ 0, got {self.k!r}")
        if self.duration < 0:
            raise ParseError(f"Segment: the duration must be ≥ 0, got {self.duration!r}")

    def inputs(self, t: float) -> tuple[float, float]:
        """(v1, v2) at local time t."""
        if isinstance(t, bool) or not isinstance(t, (int, float, np.floating)):
            raise ParseError(f"Segment.inputs: t must be a number, got {t!r}")
        if self.k == 0:
            return self.a, self.b
        return self.a * math.sin(self.omega * t), self.b * math.cos(self.k * self.omega * t)


@dataclass
class SteeringResult:
    """A plan and its check: the simulated final state, the target, and their distance."""

    plan: list
    start: np.ndarray
    target: np.ndarray
    final: np.ndarray
    error: float                       #: max |q(T) − q_target| of the simulated system
    seconds: dict = field(default_factory=dict)   #: wall time of each stage

    def __repr__(self) -> str:
        return f"SteeringResult({len(self.plan)} segments, final-state error {self.error:.2e})"


def _vector(x, n: int, what: str) -> np.ndarray:
    try:
        out = np.array([float(v) for v in x], dtype=float)
    except (TypeError, ValueError) as exc:
        raise ParseError(f"{what}: expected {n} numbers, got {x!r}") from exc
    if out.shape != (n,):
        raise DimensionError(f"{what}: expected {n} numbers, got {out.size}")
    if not np.all(np.isfinite(out)):
        raise ParseError(f"{what}: values must be finite, got {x!r}")
    return out


def _positive(x, what: str) -> float:
    if isinstance(x, bool) or not isinstance(x, (int, float, np.floating, np.integer)):
        raise ParseError(f"{what} must be a positive number, got {x!r}")
    try:
        v = float(x)
    except (TypeError, ValueError) as exc:
        raise ParseError(f"{what} must be a positive number, got {x!r}") from exc
    if not (v > 0 and math.isfinite(v)):
        raise ParseError(f"{what} must be a positive finite number, got {x!r}")
    return v


def sinusoidal_plan(z0, zf, *, T: float = 1.0, omega: float = 2 * math.pi, a: float | None = 1.0) -> list[Segment]:
    """Segments steering the chained system from z0 to zf (module docstring; Murray & Sastry 1993).

    ``T``: duration of the first (constant-input) step; ``omega``: frequency of the
    sinusoids (each later step lasts 2π/ω); ``a``: amplitude of v1, or None for *balanced*
    amplitudes: step k takes |a| = |b| = |Δ k ω^{k+1} / I_k|^{1/(k+1)}, so that no input is
    large (with a fixed a, b grows like ω^{k+1}/a^k: for the 2-trailer's last step, b ≈ 1400
    at a = 1, ω = 2π, and the plan swings the trailers' angles towards the singularities of
    the chained coordinates).  The state entering each sinusoidal step is computed by
    integrating the chained system (rtol = atol = 1e-12)."""
    if isinstance(z0, (str, bytes)) or not hasattr(z0, "__len__"):
        raise ParseError(f"sinusoidal_plan: z0 must be a sequence of numbers, got {z0!r}")
    n = len(z0)
    if n < 3:
        raise DimensionError(f"a chained system has at least 3 coordinates, got {n}")
    z0 = _vector(z0, n, "sinusoidal_plan: z0")
    zf = _vector(zf, n, "sinusoidal_plan: zf")
    T, omega = _positive(T, "T"), _positive(omega, "omega")
    fixed = None if a is None else _positive(a, "a")
    plan = [Segment(T, (zf[0] - z0[0]) / T, (zf[1] - z0[1]) / T)]
    z = simulate_chained(plan[-1:], z0)
    for k in range(1, n - 1):
        delta = zf[k + 1] - z[k + 1]
        scale = k * omega ** (k + 1) / sinusoid_gain(k)       # Δ = b a^k / scale
        ak = fixed if fixed is not None else abs(delta * scale) ** (1.0 / (k + 1))
        b = delta * scale / ak ** k if ak > 0 else 0.0
        plan.append(Segment(2 * math.pi / omega, ak, b, omega, k))
        z = simulate_chained(plan[-1:], z)
    return plan


def _times_sin(f: dict) -> dict:
    """sin τ · f for f = {("c"|"s", m): coefficient} (cos mτ, sin mτ; ("c", 0) the constant)."""
    out: dict = {}

    def add(kind: str, m: int, c: Fraction) -> None:
        if m < 0:
            m, c = -m, (-c if kind == "s" else c)
        if kind == "s" and m == 0:
            return
        out[(kind, m)] = out.get((kind, m), Fraction(0)) + c

    for (kind, m), c in f.items():
        if kind == "c":   # sin τ cos mτ = (sin (m+1)τ − sin (m−1)τ) / 2
            add("s", m + 1, c / 2)
            add("s", m - 1, -c / 2)
        else:             # sin τ sin mτ = (cos (m−1)τ − cos (m+1)τ) / 2
            add("c", m - 1, c / 2)
            add("c", m + 1, -c / 2)
    return {key: c for key, c in out.items() if c != 0}


def _antiderivative(f: dict) -> dict:
    """∫_0^τ f for a trigonometric polynomial without constant term."""
    out: dict = {}
    for (kind, m), c in f.items():
        if m == 0:
            raise SelfCheckError("sinusoid_gain: a secular term (the lower chained coordinates must return)")
        if kind == "c":
            out[("s", m)] = out.get(("s", m), Fraction(0)) + c / m
        else:
            out[("c", m)] = out.get(("c", m), Fraction(0)) - c / m
            out[("c", 0)] = out.get(("c", 0), Fraction(0)) + c / m
    return {key: c for key, c in out.items() if c != 0}


@lru_cache(maxsize=None)
def sinusoid_gain(k: int) -> float:
    """I_k of the module docstring, exactly (I_1 = π, I_2 = π/2, …): the trigonometric
    polynomials are multiplied and integrated term by term in rational arithmetic, and the last
    integral over [0, 2π] keeps 2π times the constant term.  k is an int, 1 ≤ k ≤ 50."""
    if not isinstance(k, int) or isinstance(k, bool) or not 1 <= k <= 50:
        raise ParseError(f"sinusoid_gain: k must be an int from 1 to 50, got {k!r}")
    f: dict = {("s", k): Fraction(1)}
    for _ in range(k - 1):
        f = _antiderivative(_times_sin(f))
    return float(2 * math.pi * _times_sin(f).get(("c", 0), Fraction(0)))


class _TooManyEvaluations(Exception):
    """Internal signal: an integration used up ``MAX_EVALUATIONS``."""


def _integrate(rhs, y0: np.ndarray, duration: float, rtol: float, atol: float) -> np.ndarray:
    rtol, atol = _positive(rtol, "rtol"), _positive(atol, "atol")
    count = [0]

    def counted(t, y):
        count[0] += 1
        if count[0] > MAX_EVALUATIONS:
            raise _TooManyEvaluations
        return rhs(t, y)
    try:
        sol = solve_ivp(counted, (0.0, duration), y0, method="DOP853", rtol=rtol, atol=atol)
    except _TooManyEvaluations:
        raise IntegrationError(f"the verifying simulation stopped after {MAX_EVALUATIONS} evaluations of the right "
                               "side: the step size collapsed, as it does where the motion approaches a singularity "
                               "(of the chained coordinates, or of the fields)") from None
    if not sol.success:
        raise IntegrationError(f"the verifying simulation failed: {sol.message}")
    return sol.y[:, -1]


def simulate_chained(plan: Sequence[Segment], z0, *, rtol: float = RTOL, atol: float = ATOL) -> np.ndarray:
    """The state of ż1 = v1, ż2 = v2, ż_{i+1} = z_i v1 after the segments of ``plan`` from z0."""
    if isinstance(z0, (str, bytes)) or not hasattr(z0, "__len__"):
        raise ParseError(f"simulate_chained: z0 must be a sequence of numbers, got {z0!r}")
    z = _vector(z0, len(z0), "simulate_chained: z0")
    rtol, atol = _positive(rtol, "rtol"), _positive(atol, "atol")
    if isinstance(plan, (str, bytes)) or not hasattr(plan, "__iter__"):
        raise ParseError(f"simulate_chained: plan must be a list of Segments, got {plan!r}")
    for seg in plan:
        if not isinstance(seg, Segment):
            raise ParseError(f"a plan is a list of Segments, got {type(seg).__name__}")

        def rhs(t, y, seg=seg):
            v1, v2 = seg.inputs(t)
            return np.concatenate(([v1, v2], y[1:-1] * v1))
        z = _integrate(rhs, z, seg.duration, rtol, atol)
    return z


def _numeric(exprs, space, params: Mapping | None, what: str):
    """A numpy function of the coordinates for ``exprs`` with ``params`` substituted."""
    exprs = list(exprs)
    by_name = {str(s): s for e in exprs for s in e.free_symbols}
    sub = {}
    if params is not None and not isinstance(params, Mapping):
        raise ParseError(f"{what}: params must be a mapping of parameter to value, got {params!r}")
    for k, v in (params or {}).items():
        key = as_expr(k, what=f"{what}: parameter name")
        sub[by_name.get(str(key), key)] = as_expr(v, what=f"{what}: value of {k}")
    exprs = [e.xreplace(sub) for e in exprs]
    free = set().union(*[e.free_symbols for e in exprs]) - set(space.coords)
    if free:
        raise MissingValueError(f"{what}: no value for the parameter(s) {sorted(map(str, free))}: pass params=")
    return sp.lambdify([list(space.coords)], exprs, modules="numpy")


def _compiled(exprs, space, params: Mapping | None, what: str):
    """q ↦ the values of ``exprs`` (a float array), compiled once by geonh's compile path
    (:func:`~geonh.numerics.codegen.compile_function`: symengine/LLVM on the expression graph,
    each shared subexpression once — the 3-trailer's β is millions of tree nodes over a few
    thousand distinct ones, beyond ``lambdify``) with the parameters as extra arguments bound
    to the float values of ``params``."""
    exprs = list(exprs)
    if params is not None and not isinstance(params, Mapping):
        raise ParseError(f"{what}: params must be a mapping of parameter to value, got {params!r}")
    free = sorted(expression_atoms(exprs)[0] - set(space.coords), key=str)
    by_name = {str(s): s for s in free}
    values: dict = {}
    for k, v in (params or {}).items():
        key = as_expr(k, what=f"{what}: parameter name")
        value = as_expr(v, what=f"{what}: value of {k}")
        if not value.is_number or not value.is_real:
            raise ParseError(f"{what}: the value of {k} must be a real number, got {v!r}")
        if str(key) in by_name:
            values[by_name[str(key)]] = float(value)
    missing = [str(s) for s in free if s not in values]
    if missing:
        raise MissingValueError(f"{what}: no value for the parameter(s) {missing}: pass params=")
    fn = compile_function(exprs, list(space.coords) + free, what=what)
    bound = np.array([values[s] for s in free], dtype=float)
    return lambda q: fn(np.concatenate((np.asarray(q, dtype=float), bound)))


def _check_regular(z: np.ndarray, beta: np.ndarray, name: str, q: np.ndarray) -> None:
    """Refuse an end of a plan where the chained coordinates z = φ(q) or the input map β(q) are
    not finite or β is singular (condition number above ``MAX_CONDITION``)."""
    ok = bool(np.all(np.isfinite(z)) and np.all(np.isfinite(beta)))
    if ok:
        with np.errstate(all="ignore"):
            ok = bool(np.linalg.cond(beta) < MAX_CONDITION)
    if not ok:
        raise SingularMapError(f"steer_chained: the chained form is singular at {name} = {q.tolist()} (φ = {z.tolist()}, "
                               f"β = {beta.tolist()}): no sinusoidal plan can start or end there; choose another point "
                               "or another h1, h2")


def steer_chained(form: ChainedForm, q0, qf, params: Mapping | None = None, *, T: float = 1.0,
                  omega: float = 2 * math.pi, a: float | None = 1.0, rtol: float = RTOL,
                  atol: float = ATOL) -> SteeringResult:
    """Steer q̇ = f1 u1 + f2 u2 from q0 to qf by sinusoids in the chained coordinates of ``form``.

    z0 = φ(q0), zf = φ(qf) (the map compiled once); :func:`sinusoidal_plan` plans in z on the
    chained system, which is polynomial and cheap to integrate; the system's own fields are
    then integrated with u = β(q)⁻¹ v(t) (f_a and β compiled once, evaluated numerically at
    each step — nothing symbolic in the loop) and the final-state error max |q(T) − qf| is
    reported."""
    if not isinstance(form, ChainedForm):
        raise ParseError(f"steer_chained needs a ChainedForm (geonh.control.chained_form), got {type(form).__name__}")
    space = form.space
    n = space.dim
    rtol, atol = _positive(rtol, "rtol"), _positive(atol, "atol")
    q0 = _vector(q0, n, "steer_chained: q0")
    qf = _vector(qf, n, "steer_chained: qf")
    seconds = {}
    t = time.perf_counter()
    phi = _compiled(form.z, space, params, "steer_chained")
    FB = _compiled(list(form.fields[0].components) + list(form.fields[1].components) + list(form.beta),
                   space, params, "steer_chained")
    seconds["compile"] = time.perf_counter() - t
    for name, q in (("q0", q0), ("qf", qf)):
        _check_regular(phi(q), FB(q)[2 * n:].reshape(2, 2), name, q)
    t = time.perf_counter()
    plan = sinusoidal_plan(phi(q0), phi(qf), T=T, omega=omega, a=a)
    seconds["plan"] = time.perf_counter() - t
    t = time.perf_counter()
    q = q0
    for seg in plan:
        def rhs(t, y, seg=seg):
            v = FB(y)
            f = v[:2 * n].reshape(2, n)
            u = np.linalg.solve(v[2 * n:].reshape(2, 2), seg.inputs(t))
            return u[0] * f[0] + u[1] * f[1]
        q = _integrate(rhs, q, seg.duration, rtol, atol)
    seconds["simulate"] = time.perf_counter() - t
    return SteeringResult(plan, q0, qf, q, float(np.max(np.abs(q - qf))), seconds)


def steer(segments: Sequence, q0, target=None, params: Mapping | None = None, *, rtol: float = RTOL,
          atol: float = ATOL) -> SteeringResult:
    """Flow along vector fields in turn and check where the simulated motion ends.

    ``segments``: (field, duration) pairs — q̇ = X(q) for ``duration`` (negative: backwards
    along X).  ``target``: where the plan should end (default: the start, for a closed loop);
    the result reports max |q(T) − target|."""
    if isinstance(segments, (str, bytes)) or not hasattr(segments, "__iter__"):
        raise ParseError(f"steer: segments must be (VectorField, duration) pairs, got {segments!r}")
    segs = list(segments)
    if not segs:
        raise DimensionError("steer: no segments")
    checked = []
    for s in segs:
        if not (isinstance(s, (tuple, list)) and len(s) == 2 and isinstance(s[0], VectorField)):
            raise ParseError(f"steer: each segment is a (VectorField, duration) pair, got {s!r}")
        try:
            d = float(s[1])
        except (TypeError, ValueError) as exc:
            raise ParseError(f"steer: duration must be a number, got {s[1]!r}") from exc
        if not math.isfinite(d):
            raise ParseError(f"steer: duration must be finite, got {s[1]!r}")
        checked.append((s[0], d))
    space = checked[0][0].space
    for X, _ in checked:
        if X.space != space:
            raise DimensionError("steer: the fields live on different configuration spaces")
    n = space.dim
    rtol, atol = _positive(rtol, "rtol"), _positive(atol, "atol")
    q0 = _vector(q0, n, "steer: q0")
    target_ = q0 if target is None else _vector(target, n, "steer: target")
    t = time.perf_counter()
    q = q0
    for X, d in checked:
        f = _numeric(list(X.components), space, params, "steer")
        sign = 1.0 if d >= 0 else -1.0
        if d != 0:
            q = _integrate(lambda t, y, f=f, sign=sign: sign * np.array(f(y), dtype=float), q, abs(d), rtol, atol)
    seconds = {"simulate": time.perf_counter() - t}
    return SteeringResult(checked, q0, target_, q, float(np.max(np.abs(q - target_))), seconds)
