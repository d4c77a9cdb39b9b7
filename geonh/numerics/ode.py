"""Simulation: integrate equations of motion with scipy and return a :class:`Trajectory`.

The right-hand side is :meth:`geonh.Equations.ode_function` (compiled once; M x = F solved
numerically at every call).  :func:`simulate` checks the data first — parameters and the
initial state, tolerances and output times finite (NaN and ±inf are refused before anything is
compiled), every parameter given, the initial velocities on the constraints
(:class:`~geonh.InconsistentStateError` naming the violated constraint and its residual) —
and stops with a geonh error where the right-hand side stops being finite or the mass
matrix is singular (:class:`~geonh.SingularMapError`).

Projection (``project=True``).  The initial velocities are projected onto the constraints
(least squares in the kinetic-energy metric, :mod:`geonh.numerics.constraints`).  For forms
whose state keeps all the velocities (u = q̇: Lagrange with multipliers, Gauss,
Udwadia–Kalaba) the constraints hold only through the initial data and drift with the
integration error; with ``project=True`` the integration then runs step by step (scipy's
explicit Runge–Kutta solver objects, RK23/RK45/DOP853), projecting the velocities after every
accepted step (and re-evaluating the right-hand side there, so the next step starts from the
projected state) and projecting every output point.  ``project="initial"`` projects only the
initial state.  Frame forms (u quasi-velocities) satisfy the constraints by construction and
need no projection during integration.  Measured over 100 s at rtol = atol = 1e-10 (DOP853,
2001 output points), Lagrange's form: vertical rolling disk max |φ| 5.2e-11 without
projection, 2.9e-15 with it; Chaplygin sleigh 4.9e-11 and 2.1e-15 (the projected run costs
about 7 % more right-hand-side evaluations; tests/numerics/test_numerics.py checks ≤ 1e-12).
"""
from __future__ import annotations

import math
import time
import warnings
from typing import Any, Mapping, Sequence

import numpy as np

from ..equations.base import Equations
from .compiled import ODEFunction
from ..errors import (DimensionError, GeonhError, InconsistentStateError, IntegrationError, NotFoundError,
                      SingularMapError, UnknownCoordinateError)
from ..kernel.evaluation import resolve_keys, short_repr
from ..kernel.parsing import as_floats
from .constraints import ConstraintSet
from .trajectory import Trajectory

__all__ = ["first_order_function", "simulate", "solver_class", "check_limits", "METHODS", "STEP_LIMIT"]

_IMPLICIT = ("Radau", "BDF", "LSODA")
_EXPLICIT_RK = ("RK23", "RK45", "DOP853")
#: the integration methods :func:`simulate` accepts (scipy's names): explicit Runge–Kutta,
#: then the implicit ones for stiff problems
METHODS = _EXPLICIT_RK + _IMPLICIT
#: default ``step_limit`` of :func:`simulate`: accepted steps before the run stops
STEP_LIMIT = 100_000
#: h·|λ| at the edge of the stability region on the negative real axis, for the explicit
#: methods whose last stage is evaluated at the end of the step (the thresholds of Hairer's
#: stiffness test for DOPRI5 and DOP853); RK23 has no such stage, so only its limits apply
_STABILITY = {"RK45": 3.25, "DOP853": 6.1}
#: accepted steps in a row (up to 5 calm ones between) at the stability edge before a run
#: counts as stiff
_STIFF_STEPS = 15
_STIFF_HINT = "use an implicit method: method='Radau', 'BDF' or 'LSODA'"
#: accepted steps of length 0 in a row (LSODA's way of failing at an overflowing state) that stop a run
_STALLED_STEPS = 50


def first_order_function(eqs: Equations, params: dict | None = None, *, backend: str = "auto") -> ODEFunction:
    """``eqs.ode_function(params)`` with every parameter given (kept for older code; use
    :meth:`Equations.ode_function`, which also leaves parameters open for ``f(t, y, p)``)."""
    f = eqs.ode_function(params, backend=backend)
    _require_bound(f, params)
    return f


def _require_bound(f: ODEFunction, params) -> None:
    if not f.parameters:
        return
    msg = f"give numerical values for {', '.join(s.name for s in f.parameters)} in params"
    if params:
        unused = [str(k) for k in params if not any(str(k) == s.name for s in f.bound)]
        if unused:
            msg += f" (given but not parameters of the equations: {', '.join(unused)})"
    raise UnknownCoordinateError(msg)


def _state_vector(f: ODEFunction, y0: Mapping) -> list:
    """y0 given as {state symbol or name: value}: the values in the order of ``f.state`` (keys by
    :func:`~geonh.kernel.evaluation.resolve_keys`; every state variable needs a value)."""
    vals = resolve_keys(y0, f.state, what="y0")
    missing = [s.name for s in f.state if s not in vals]
    if missing:
        raise DimensionError(f"y0 gives no value for {', '.join(missing)} (the state (q, u) is "
                             f"{list(f.state_names)})")
    return [vals[s] for s in f.state]


def _function(eqs, params, backend) -> ODEFunction:
    if isinstance(eqs, ODEFunction):
        return eqs.bind(params) if params else eqs
    if not isinstance(eqs, Equations):
        raise DimensionError(f"simulate takes Equations (or an ODEFunction), not {type(eqs).__name__}")
    return eqs.ode_function(params, backend=backend)


def _finite_number(v) -> bool | None:
    """True/False for a finite/non-finite number, None for an expression (a forcing F(t, q, u))."""
    import sympy as sp
    if isinstance(v, bool):
        return False
    if isinstance(v, (int, float, np.integer, np.floating)):
        try:
            return math.isfinite(float(v))
        except OverflowError:  # an int too large for a float
            return False
    if isinstance(v, sp.Basic):
        if v.has(sp.oo, -sp.oo, sp.zoo, sp.nan):
            return False
        if v.is_number:
            try:
                return bool(v.is_finite is not False and math.isfinite(complex(v).real))
            except (TypeError, ValueError, OverflowError):
                return False
        return None
    if isinstance(v, complex):
        return False
    return None


def _check_numbers(params, rtol, atol, t_eval) -> None:
    """Refuse NaN and infinite numbers before anything is compiled or integrated."""
    if params is not None:
        if not hasattr(params, "items"):
            raise DimensionError(f"params must be a mapping {{symbol or name: value}}, not {type(params).__name__}")
        for k, v in params.items():
            if isinstance(v, bool) or v is None or isinstance(v, str) and not v.strip():
                raise InconsistentStateError(f"parameter {k} = {short_repr(v)} is not a number or an expression")
            ok = _finite_number(v)
            if ok is False:
                raise InconsistentStateError(f"parameter {k} = {short_repr(v)} is not a finite number (a float "
                                             "is at most about 1.8e308)")
    for nm, v in (("rtol", rtol), ("atol", atol)):
        if isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)) \
                or not _finite_number(v) or float(v) <= 0:
            raise InconsistentStateError(f"{nm} must be a finite positive number, not {short_repr(v)}")
    if t_eval is not None:
        te = as_floats(t_eval, "t_eval")
        if not np.all(np.isfinite(te)):
            raise InconsistentStateError("t_eval contains values that are not finite")


def solver_class(method) -> type:
    """scipy's solver class for ``method``: one of :data:`METHODS` (case as scipy spells it) or
    an ``OdeSolver`` subclass; anything else is refused naming the valid methods."""
    import scipy.integrate as si
    if isinstance(method, str):
        if method in METHODS:
            return getattr(si, method)
        close = [m for m in METHODS if m.lower() == method.strip().lower()]
        hint = f"; did you mean {close[0]!r}?" if close else ""
        raise NotFoundError(f"unknown method {method!r}{hint} Methods: 'RK45', 'RK23', 'DOP853' (explicit), "
                            "'Radau', 'BDF', 'LSODA' (for stiff systems), or a scipy.integrate.OdeSolver subclass")
    if isinstance(method, type) and issubclass(method, si.OdeSolver):
        return method
    raise NotFoundError(f"method must be the name of a solver ({', '.join(METHODS)}) or a "
                        f"scipy.integrate.OdeSolver subclass, not {method!r}")


def check_limits(step_limit, time_limit) -> None:
    """Refuse a ``step_limit`` that is not a whole number ≥ 1 and a ``time_limit`` that is not a
    positive number of seconds (None lifts either)."""
    if step_limit is not None and (isinstance(step_limit, bool) or not isinstance(step_limit, (int, np.integer))
                                   or step_limit < 1):
        raise DimensionError(f"step_limit must be a whole number ≥ 1 (or None for no limit), not {step_limit!r}")
    if time_limit is not None and (isinstance(time_limit, bool) or not isinstance(time_limit, (int, float, np.number))
                                   or not math.isfinite(float(time_limit)) or time_limit <= 0):
        raise DimensionError(f"time_limit must be a positive number of seconds (or None for no limit), "
                             f"not {time_limit!r}")


class _Guard:
    """Watches the accepted steps of one integration and stops it (the step reports failure
    with a message, so scipy returns what it has) when

    * an explicit Runge–Kutta method is held at the edge of its stability region (Hairer's
      test: h·|λ| ≥ the method's bound for :data:`_STIFF_STEPS` steps, |λ| estimated from the
      last two stages, which are evaluated at the same time) and finishing the interval at
      that step size would take more than ``step_limit`` steps: the system is stiff and an
      implicit method is the cure, so the run stops at once instead of crawling to the limit
      (a ``RuntimeWarning`` when it would take more than a tenth of the limit);
    * ``step_limit`` accepted steps or ``time_limit`` wall-clock seconds are used up;
    * :data:`_STALLED_STEPS` accepted steps in a row make no progress (length 0).

    ``reason`` names what stopped the run (None while it runs)."""

    def __init__(self, base: type, t1: float, step_limit, time_limit):
        import scipy.integrate as si
        self.name = base.__name__
        self.bound = next((b for n, b in _STABILITY.items() if issubclass(base, getattr(si, n))), None)
        self.explicit = issubclass(base, (si.RK23, si.RK45, si.DOP853))
        self.t1, self.step_limit, self.time_limit = t1, step_limit, time_limit
        self.start = time.monotonic()
        self.steps = self.stiff = self.calm = self.stalled = 0
        self.ever_stiff = self.warned = False
        self.hlam = 0.0
        self.reason: str | None = None
        self.stepping = False  # a step was begun (an exception after that is a breakdown, not bad input)
        self.last: tuple | None = None  # (t, y) after the last accepted step

    def _stiffness(self, solver, bound: float) -> None:
        s = solver.n_stages - 1
        h = solver.h_previous
        ys = solver.y_old + h * (solver.A[s, :s] @ solver.K[:s])
        with np.errstate(all="ignore"):
            den = float(np.linalg.norm(solver.y - ys))
            hlam = abs(h) * float(np.linalg.norm(solver.K[-1] - solver.K[s])) / den if den > 0 else math.nan
        if not math.isfinite(hlam):  # no estimate (or an overflowing state, which the rhs check reports)
            return
        self.hlam = hlam
        if self.hlam >= bound:
            self.stiff += 1
            self.calm = 0
            if self.stiff >= _STIFF_STEPS:
                self.ever_stiff = True
        else:
            self.calm += 1
            if self.calm >= 6:
                self.stiff = 0

    def after_step(self, solver, h: float) -> str | None:
        """None to go on, or the message that stops the run."""
        self.steps += 1
        self.last = (solver.t, solver.y)
        left = abs(self.t1 - solver.t)
        if left == 0.0:
            return None
        self.stalled = self.stalled + 1 if h == 0.0 else 0
        if self.stalled >= _STALLED_STEPS:
            self.reason = "step_size"
            return (f"{self.name} makes no progress: its last {self.stalled} steps had length 0 at t = {solver.t:g} "
                    "(the step size collapsed: the motion runs into a singularity of the equations or blows up)")
        if self.bound is not None:
            self._stiffness(solver, self.bound)
            if self.stiff >= _STIFF_STEPS and h > 0:
                need = self.steps + left / h
                if self.step_limit is not None and need > self.step_limit:
                    self.reason = "stiff"
                    return (f"the system is stiff for {self.name}: stability holds its step at h = {h:.3g} "
                            f"(h·|λ| ≈ {self.hlam:.3g}) at t = {solver.t:g}, so t_span would take about "
                            f"{need:.2g} steps, more than step_limit = {self.step_limit}; {_STIFF_HINT}")
                if not self.warned and need > (self.step_limit or 10 * STEP_LIMIT) / 10:
                    self.warned = True
                    warnings.warn(f"the system is stiff for {self.name} (step h = {h:.3g} at t = {solver.t:g}, "
                                  f"about {need:.2g} steps for t_span); {_STIFF_HINT}", RuntimeWarning, stacklevel=2)
        if self.step_limit is not None and self.steps >= self.step_limit:
            self.reason = "step_limit"
            return (f"{self.name} used up step_limit = {self.step_limit} steps at t = {solver.t:g} "
                    f"(last step h = {h:.3g}); {self.hint()}")
        if self.time_limit is not None and time.monotonic() - self.start > self.time_limit:
            self.reason = "time_limit"
            return (f"{self.name} used up time_limit = {self.time_limit:g} s at t = {solver.t:g} after {self.steps} "
                    f"steps (last step h = {h:.3g}); {self.hint()}")
        return None

    def hint(self) -> str:
        if self.ever_stiff:
            return f"the system is stiff: {_STIFF_HINT}"
        if self.explicit:
            return f"if the system is stiff, {_STIFF_HINT}; otherwise raise the limit or shorten t_span"
        return "raise the limit, loosen rtol/atol or shorten t_span"


def _guarded(base: Any, guard: _Guard) -> type:  # base: a scipy OdeSolver class
    """``base`` with :meth:`_Guard.after_step` after every accepted step (scipy's solvers take
    steps in ``_step_impl``; a step that reports failure ends ``solve_ivp`` with status −1
    and keeps every output up to the previous step)."""

    def _step_impl(self):
        t = self.t
        guard.stepping = True
        ok, message = base._step_impl(self)
        if ok:
            message = guard.after_step(self, abs(self.t - t))
            ok = message is None
        return ok, message

    return type(base.__name__, (base,), {"_step_impl": _step_impl, "__module__": __name__})


def _broke_down(exc: Exception, guard: _Guard, f: ODEFunction) -> Exception:
    """The geonh error for an exception raised inside scipy: bad input before the first step
    (a DimensionError with scipy's words), else the solver's breakdown in a step — overflow to
    NaN inside its linear algebra, typically where the motion blows up."""
    if not guard.stepping:
        return DimensionError(f"scipy's {guard.name} refused the input: {exc}")
    where = ""
    if guard.last is not None:
        t, y = guard.last
        where = f" after t = {t:g} (state {dict(zip(f.state_names, np.round(y, 6).tolist()))})"
    hint = "the motion blows up or runs into a singularity of the equations there"
    if guard.explicit:
        hint += f"; if the system is stiff, {_STIFF_HINT}"
    return IntegrationError(f"the {f.equations.form} integration by {guard.name} broke down{where}: "
                            f"{type(exc).__name__}: {exc} ({hint})", "step_size", None)


def _failure(raw, guard: _Guard, f: ODEFunction, t0: float, t1: float) -> str:
    """The message of an integration that stopped early (status −1)."""
    form = f.equations.form
    if guard.reason is not None:
        return f"the {form} integration stopped: {raw.message}"
    where = ""
    if len(raw.t):
        last = dict(zip(f.state_names, np.round(raw.y[:, -1], 6).tolist()))
        where = f" after t = {raw.t[-1]:g} (state {last})"
    hint = "the step size collapsed: the motion runs into a singularity of the equations or blows up there"
    if guard.explicit:
        hint += f"; if the system is stiff, {_STIFF_HINT}"
    return (f"the {form} integration by {guard.name} failed{where}, within t_span = ({t0:g}, {t1:g}): "
            f"{raw.message} {hint}")


def _checked(f: ODEFunction):
    """f(t, y) that stops with SingularMapError where the right-hand side is not finite."""
    isfinite = math.isfinite

    def fun(t, y):
        out = f(t, y)
        if not isfinite(out.sum()):
            bad = [f.state_names[i] for i in np.flatnonzero(~np.isfinite(out))] or ["(overflow)"]
            raise SingularMapError(
                f"the right-hand side of the {f.equations.form} equations is not finite at t = {t:g} "
                f"(rates of {', '.join(bad)}; state {dict(zip(f.state_names, np.round(y, 6).tolist()))}): "
                "the equations are singular there or the motion blew up")
        return out

    return fun


def simulate(eqs: Equations | ODEFunction, y0: Sequence[float] | np.ndarray | Mapping, t_span: tuple[float, float],
             params: dict | None = None, *, t_eval: Sequence[float] | np.ndarray | None = None, project: bool | str = False,
             rtol: float = 1e-10, atol: float = 1e-10, method: str = "DOP853", backend: str = "auto",
             constraint_tol: float = 1e-9, dense_output: bool = False, step_limit: int | None = STEP_LIMIT,
             time_limit: float | None = None, **solve_ivp_kw) -> Trajectory:
    """Integrate ``eqs`` from y0 = (q, u) over ``t_span`` and return a :class:`Trajectory`.

    Parameters
    ----------
    eqs : Equations (or an ODEFunction from :meth:`Equations.ode_function`, reused without
        recompiling).
    y0 : initial state (q, u), in the order of ``eqs.q`` then ``eqs.u``, or a mapping {symbol or
        name: value} over the whole state (keys matched as for ``params``).
    t_span : (t0, t1).
    params : {symbol or name: value} for every parameter of the equations (values may be
        expressions in t, q, u, e.g. a forcing F = sin(t)).  A symbol differing from the
        equations' only in its assumptions is matched by name; a key that names nothing of the
        equations or the system is refused (:meth:`Equations.resolve_values`).
    t_eval : output times (default: the solver's steps).
    project : False — refuse initial velocities off the constraints by more than
        ``constraint_tol`` (InconsistentStateError naming the constraint and its residual);
        True — project them onto the constraints and, for forms whose state keeps all velocities
        (Lagrange with multipliers), project after every step (module doc); "initial" — only
        the initial state.
    rtol, atol, method : as scipy's :func:`~scipy.integrate.solve_ivp` (default DOP853 at 1e-10): ``method`` is one of
        :data:`METHODS` — 'RK45', 'RK23', 'DOP853' (explicit), 'Radau', 'BDF', 'LSODA' (for stiff
        systems; they get the compiled Jacobian) — or an ``OdeSolver`` subclass; another value
        is refused (:class:`~geonh.NotFoundError` listing them).
    step_limit, time_limit : the run stops with :class:`~geonh.IntegrationError` after
        ``step_limit`` accepted steps (default :data:`STEP_LIMIT`) or ``time_limit`` seconds of
        wall-clock time (default none); None lifts a limit.  An explicit method held at its
        stability edge (a stiff system) stops as soon as the interval is seen to need more than
        ``step_limit`` steps, and the error says to use 'Radau', 'BDF' or 'LSODA'.
    backend : code generation backend of the right-hand side (:mod:`geonh.numerics.codegen`).
    dense_output, **solve_ivp_kw : passed to ``solve_ivp`` (``events`` only without projection
        during integration).

    An integration that does not reach t1 (a limit above, or the solver's own failure: a step
    size that collapsed at a singularity or a blow-up) raises :class:`~geonh.IntegrationError`
    with the reason (``err.reason``) and the motion computed so far (``err.trajectory``).
    """
    _check_numbers(params, rtol, atol, t_eval)
    base = solver_class(method)
    check_limits(step_limit, time_limit)
    f = _function(eqs, params, backend)
    _require_bound(f, params)
    if isinstance(y0, Mapping):
        y0 = _state_vector(f, y0)
    try:
        y0 = np.array(y0, dtype=float).reshape(-1) if np.ndim(y0) else np.array([y0], dtype=float)
    except (TypeError, ValueError):
        raise DimensionError(f"y0 must be a sequence of {f.n_q + f.n_u} numbers (q, u), not {short_repr(y0)}") from None
    n = f.n_q + f.n_u
    if y0.shape != (n,):
        raise DimensionError(f"y0 has {y0.size} entries; the state (q, u) = {list(f.state_names)} has {n}")
    bad = [nm for nm, v in zip(f.state_names, y0) if not math.isfinite(v)]
    if bad:
        raise InconsistentStateError(f"initial state not finite in {', '.join(bad)}")
    try:
        t0, t1 = (float(s) for s in t_span)
    except (TypeError, ValueError):
        raise DimensionError(f"t_span must be two numbers (t0, t1), not {short_repr(t_span)}") from None
    if not (math.isfinite(t0) and math.isfinite(t1)):
        raise InconsistentStateError(f"t_span {t_span} is not finite")
    if project not in (False, True, "initial"):
        raise DimensionError(f"project must be False, True or 'initial', not {project!r}")
    cons = ConstraintSet(f)
    if cons.r:
        res = cons.residuals(t0, y0)
        if not np.all(np.isfinite(res)):
            raise SingularMapError(f"the constraints are not finite at the initial state: {res}")
        if project:
            y0 = cons.project(t0, y0)
        else:
            worst = int(np.argmax(np.abs(res)))
            if abs(res[worst]) > constraint_tol:
                raise InconsistentStateError(
                    f"the initial state violates {cons.names[worst]} (residual {res[worst]:.3g} > "
                    f"{constraint_tol:g}); give consistent velocities or pass project=True")
    fun = _checked(f)
    guard = _Guard(base, t1, step_limit, time_limit)
    solver = _guarded(base, guard)
    step_project = project is True and cons.r > 0 and cons.keeps_velocities
    import scipy.integrate as si
    kw = dict(solve_ivp_kw)
    if not step_project and issubclass(base, (si.Radau, si.BDF, si.LSODA)) and "jac" not in kw:
        kw["jac"] = lambda t, y: f.jacobian(t, y)
    try:
        # numpy's overflow warnings are noise here: a state or a rate that stops being finite is an error
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            if step_project:
                raw = _integrate_projected(fun, f, cons, t0, t1, y0, t_eval, rtol, atol, solver, dense_output, kw)
            else:
                raw = si.solve_ivp(fun, (t0, t1), y0, method=solver, t_eval=t_eval, rtol=rtol, atol=atol,
                                   dense_output=dense_output, **kw)
    except GeonhError:
        raise
    except (ValueError, TypeError, ArithmeticError, np.linalg.LinAlgError) as exc:
        raise _broke_down(exc, guard, f) from None
    traj = Trajectory(raw.t, raw.y, f, raw, projected=step_project, constraints=cons)
    if raw.status < 0:
        raise IntegrationError(_failure(raw, guard, f, t0, t1), guard.reason or "step_size", traj)
    return traj


def _integrate_projected(fun, f, cons, t0, t1, y0, t_eval, rtol, atol, method, dense_output, kw):
    """solve_ivp's loop with the velocities projected after every accepted step."""
    import scipy.integrate as si
    from scipy.optimize import OptimizeResult
    name = method.__name__
    if not issubclass(method, (si.RK23, si.RK45, si.DOP853)):
        raise NotFoundError(f"projection during integration runs scipy's explicit Runge–Kutta solvers "
                            f"({', '.join(_EXPLICIT_RK)}), not {name!r}; use project='initial'")
    if kw.get("events") is not None:
        raise NotFoundError("events are not available with projection during integration; "
                            "use project='initial'")
    kw = {k: v for k, v in kw.items() if k not in ("events", "vectorized", "args")}
    solver = method(fun, t0, y0, t1, rtol=rtol, atol=atol, **kw)
    direction = 1.0 if t1 >= t0 else -1.0
    ts, ys = [], []
    if t_eval is None:
        ts.append(t0)
        ys.append(y0.copy())
        te = None
    else:
        te = np.asarray(t_eval, dtype=float)
        if te.ndim != 1 or np.any(direction * (te - t0) < 0) or np.any(direction * (te - t1) > 0):
            raise DimensionError("t_eval must be a 1-d sequence within t_span")
        if np.any(direction * np.diff(te) < 0):
            raise DimensionError("t_eval must be sorted in the direction of integration")
        k0 = 0
        while k0 < len(te) and te[k0] == t0:
            ts.append(t0)
            ys.append(y0.copy())
            k0 += 1
    interps, t_nodes = [], [t0]
    status = None
    message = ""
    while status is None:
        msg = solver.step()
        if solver.status == "failed":
            status, message = -1, msg or "the solver failed"
            break
        t = solver.t
        yp = cons.project(t, solver.y)
        solver.y = yp
        solver.f = solver.fun(t, yp)
        if te is None:
            ts.append(t)
            ys.append(yp.copy())
        else:
            k1 = k0
            while k1 < len(te) and direction * (te[k1] - t) <= 0:
                k1 += 1
            if k1 > k0:
                d = solver.dense_output()
                for tp in te[k0:k1]:
                    ts.append(float(tp))
                    ys.append(cons.project(tp, d(tp)) if tp != t else yp.copy())
                k0 = k1
        if dense_output:
            interps.append(solver.dense_output())
            t_nodes.append(t)
        if solver.status == "finished":
            status, message = 0, "The solver successfully reached the end of the integration interval."
    sol = None
    if dense_output and interps:
        sol = si.OdeSolution(np.array(t_nodes), interps)
    y = np.array(ys).T if ys else np.zeros((len(y0), 0))
    return OptimizeResult(t=np.array(ts), y=y, sol=sol, t_events=None, y_events=None, nfev=solver.nfev,
                          njev=solver.njev, nlu=solver.nlu, status=status, message=message, success=status >= 0)
