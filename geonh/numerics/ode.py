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
about 7 % more right-hand-side evaluations; tests/test_numerics.py checks ≤ 1e-12).
"""
from __future__ import annotations

import math
from typing import Mapping, Sequence

import numpy as np

from ..equations.base import Equations
from ..equations.compiled import ODEFunction
from ..errors import (DimensionError, InconsistentStateError, NotFoundError, SingularMapError,
                      UnknownCoordinateError)
from ..kernel.evaluation import resolve_keys
from ..kernel.parsing import as_floats
from .constraints import ConstraintSet
from .trajectory import Trajectory

__all__ = ["first_order_function", "simulate"]

_IMPLICIT = ("Radau", "BDF", "LSODA")
_EXPLICIT_RK = ("RK23", "RK45", "DOP853")


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
        return math.isfinite(float(v))
    if isinstance(v, sp.Basic):
        if v.has(sp.oo, -sp.oo, sp.zoo, sp.nan):
            return False
        if v.is_number:
            try:
                return bool(v.is_finite is not False and math.isfinite(complex(v).real))
            except (TypeError, ValueError):
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
                raise InconsistentStateError(f"parameter {k} = {v!r} is not a number or an expression")
            ok = _finite_number(v)
            if ok is False:
                raise InconsistentStateError(f"parameter {k} = {v!r} is not a finite number")
    for nm, v in (("rtol", rtol), ("atol", atol)):
        if isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)) \
                or not math.isfinite(float(v)) or float(v) <= 0:
            raise InconsistentStateError(f"{nm} must be a finite positive number, not {v!r}")
    if t_eval is not None:
        te = as_floats(t_eval, "t_eval")
        if not np.all(np.isfinite(te)):
            raise InconsistentStateError("t_eval contains values that are not finite")


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


def simulate(eqs: Equations | ODEFunction, y0: Sequence[float], t_span: tuple[float, float],
             params: dict | None = None, *, t_eval: Sequence[float] | None = None, project: bool | str = False,
             rtol: float = 1e-10, atol: float = 1e-10, method: str = "DOP853", backend: str = "auto",
             constraint_tol: float = 1e-9, dense_output: bool = False, **solve_ivp_kw) -> Trajectory:
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
    rtol, atol, method : as scipy's ``solve_ivp`` (default DOP853 at 1e-10); implicit methods
        get the compiled Jacobian.
    backend : code generation backend of the right-hand side (:mod:`geonh.kernel.codegen`).
    dense_output, **solve_ivp_kw : passed to ``solve_ivp`` (``events`` only without projection
        during integration).
    """
    _check_numbers(params, rtol, atol, t_eval)
    f = _function(eqs, params, backend)
    _require_bound(f, params)
    if isinstance(y0, Mapping):
        y0 = _state_vector(f, y0)
    try:
        y0 = np.array(y0, dtype=float).reshape(-1) if np.ndim(y0) else np.array([y0], dtype=float)
    except (TypeError, ValueError):
        raise DimensionError(f"y0 must be a sequence of {f.n_q + f.n_u} numbers (q, u), not {y0!r}") from None
    n = f.n_q + f.n_u
    if y0.shape != (n,):
        raise DimensionError(f"y0 has {y0.size} entries; the state (q, u) = {list(f.state_names)} has {n}")
    bad = [nm for nm, v in zip(f.state_names, y0) if not math.isfinite(v)]
    if bad:
        raise InconsistentStateError(f"initial state not finite in {', '.join(bad)}")
    try:
        t0, t1 = (float(s) for s in t_span)
    except (TypeError, ValueError):
        raise DimensionError(f"t_span must be two numbers (t0, t1), not {t_span!r}") from None
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
    step_project = project is True and cons.r > 0 and cons.keeps_velocities
    if step_project:
        raw = _integrate_projected(fun, f, cons, t0, t1, y0, t_eval, rtol, atol, method, dense_output, solve_ivp_kw)
    else:
        from scipy.integrate import solve_ivp
        kw = dict(solve_ivp_kw)
        if isinstance(method, str) and method in _IMPLICIT and "jac" not in kw:
            kw["jac"] = lambda t, y: f.jacobian(t, y)
        raw = solve_ivp(fun, (t0, t1), y0, method=method, t_eval=t_eval, rtol=rtol, atol=atol,
                        dense_output=dense_output, **kw)
    return Trajectory(raw.t, raw.y, f, raw, projected=step_project, constraints=cons)


def _integrate_projected(fun, f, cons, t0, t1, y0, t_eval, rtol, atol, method, dense_output, kw):
    """solve_ivp's loop with the velocities projected after every accepted step."""
    import scipy.integrate as si
    from scipy.optimize import OptimizeResult
    name = method if isinstance(method, str) else getattr(method, "__name__", "")
    if name not in _EXPLICIT_RK:
        raise NotFoundError(f"projection during integration runs scipy's explicit Runge–Kutta solvers "
                            f"({', '.join(_EXPLICIT_RK)}), not {name!r}; use project='initial'")
    if kw.get("events") is not None:
        raise NotFoundError("events are not available with projection during integration; "
                            "use project='initial'")
    kw = {k: v for k, v in kw.items() if k not in ("events", "vectorized", "args")}
    solver = getattr(si, name)(fun, t0, y0, t1, rtol=rtol, atol=atol, **kw)
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
