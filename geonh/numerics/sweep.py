"""Parameter sweeps: many simulations (or any per-point task) over a grid or a sampler,
in this process or on a Dask cluster, with the same numbers either way.

:func:`sweep` expands the points — the cartesian product of a grid {parameter: values}
(or ``n_samples`` draws of a sampler ``rng -> {parameter: value}``) with one or several
initial states — and runs one task per point:

* ``task="simulate"``: :func:`geonh.simulate` from the point's initial state over ``t_span``
  with the point's parameters; the row holds the final state (columns named by the state
  symbols), ``t_final``, ``nfev``, the largest constraint residual and the energy change;
* ``task=callable``: ``task(params, y0)`` returning a dict of numbers (e.g. eigenvalues of a
  linearization at that parameter point) — your function, run where the point runs.

Every row also has the point's index (``point``), ``y0_index``, its parameters, ``status`` and
``error`` (:data:`ENGINE_COLUMNS`).  ``status`` is ``"ok"``, ``"error"`` (the task raised, or
returned something that is not a dict of new columns), ``"timeout"`` (it ran past ``timeout``)
or ``"killed"`` (it killed its Dask worker every time it ran); ``error`` holds the error's
text (None for ``"ok"``).  A failing point is recorded, never raised for the whole sweep
unless ``raise_errors=True``, and every finished row is returned.  A task's result may not
use the sweep's own column names (the engine columns and the parameters): such a result is
refused (status ``"error"``, naming the columns) rather than renamed, so a column always
means what the sweep says it means.  Bad input — a grid value that is not a finite number or
lies outside its parameter's declared domain, an initial state of the wrong length, an
unknown ``method`` — is refused before the first point runs.

:class:`SweepResult` gives the rows, a pandas ``DataFrame`` (:meth:`~SweepResult.to_dataframe`)
and, for grids, an xarray ``Dataset`` over the grid axes (:meth:`~SweepResult.to_xarray`).

**Dask.**  ``client=None`` runs in this process.  ``client="local"`` starts a
``dask.distributed.LocalCluster`` (processes, one thread each) for the call; a
``distributed.Client`` or a scheduler address uses that cluster.  The equations are pickled
and sent to every worker **once** (``Client.scatter(..., broadcast=True)``); each worker
compiles the right-hand side on first use and keeps it (a per-process cache keyed by a token
of the sweep), so no task ships or compiles code.  Results are gathered as they finish
(``as_completed``); tasks of a worker that dies are rerun by Dask (up to the scheduler's
``allowed-failures``), a task that kills every worker it runs on becomes a ``"killed"`` row,
and every finished row is kept.  ``timeout`` is enforced where the task runs (a simulation
stops through ``simulate``'s ``time_limit``; a callable is interrupted, see
``_call_with_timeout``); the compilation on a worker's first point does not count.

Dask is imported only here, lazily: ``import geonh`` never loads it, and without it
(``pip install geonh[distributed]`` adds it) ``client=None`` works unchanged.
"""
from __future__ import annotations

import ctypes
import itertools
import math
import random
import signal
import threading
import time
import uuid
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Mapping, Sequence, cast

import numpy as np
import sympy as sp

from ..errors import (DimensionError, GeonhError, IntegrationError, MissingDependencyError, MissingValueError,
                      UnknownCoordinateError)
from ..kernel.display import html_table, short_number, short_text
from ..kernel.evaluation import check_assumptions, short_repr
from ..kernel.progress import report

__all__ = ["sweep", "SweepResult", "ENGINE_COLUMNS", "STATUSES"]

#: compiled right-hand sides of this process, by sweep token (workers keep theirs between tasks)
_CACHE: dict[str, Any] = {}

#: the notebook display of a SweepResult shows this many rows
HTML_ROWS = 10

#: the columns the sweep writes in every row (with the parameters'): a task's result may not
#: use these names (nor a parameter's), so it can never overwrite them
ENGINE_COLUMNS = ("point", "y0_index", "status", "error")
#: the values of a row's ``status``: the task finished, raised, ran out of time, or killed its worker
STATUSES = ("ok", "error", "timeout", "killed")


@dataclass(frozen=True)
class SweepResult:
    """Rows of a sweep (one dict per point, in point order) and the grid's axes."""

    rows: tuple[dict, ...]
    parameters: tuple[str, ...]
    axes: dict = field(default_factory=dict)
    trajectories: dict = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.rows)

    def __repr__(self) -> str:
        """The size, the parameters, the columns and the failures; never the rows."""
        columns = list(self.rows[0]) if self.rows else []
        return short_text(f"SweepResult({len(self.rows)} rows, parameters={list(self.parameters)}, "
                          f"columns={columns}, failed={len(self.failed)}, trajectories={len(self.trajectories)})", 999)

    def _repr_html_(self) -> str:
        """Jupyter: the first rows as a table, numbers with 6 significant digits."""
        rows: list = [("rows", len(self.rows)), ("parameters", ", ".join(self.parameters)),
                      ("failed", len(self.failed))]
        for r in self.rows[:HTML_ROWS]:
            rows.append((r.get("point", ""), ", ".join(
                f"{k}={short_number(v) if isinstance(v, (int, float, complex, np.number)) else short_text(str(v), 60)}"
                for k, v in r.items() if k != "point")))
        if len(self.rows) > HTML_ROWS:
            rows.append(("…", f"{len(self.rows) - HTML_ROWS} more rows"))
        return html_table(rows, caption="SweepResult")

    @property
    def failed(self) -> tuple[dict, ...]:
        """The rows whose ``status`` is not ``"ok"`` (their ``error`` says why)."""
        return tuple(r for r in self.rows if r["status"] != "ok")

    def to_dataframe(self):
        """The rows as a pandas ``DataFrame`` (pandas needed)."""
        try:
            import pandas as pd
        except ImportError as exc:
            raise MissingDependencyError("SweepResult.to_dataframe needs pandas: pip install 'geonh[distributed]'") from exc
        return pd.DataFrame(list(self.rows)).set_index("point")

    def to_xarray(self):
        """For a grid sweep with one initial state: an xarray ``Dataset`` with one dimension
        per grid parameter and one variable per numeric result column (xarray needed)."""
        if not self.axes:
            raise DimensionError("to_xarray needs a grid sweep (a sampler has no axes)")
        try:
            import xarray as xr
        except ImportError as exc:
            raise MissingDependencyError("SweepResult.to_xarray needs xarray: pip install 'geonh[distributed]'") from exc
        df = self.to_dataframe()
        names = list(self.axes)
        if "y0_index" in df and df["y0_index"].nunique() > 1:
            names.append("y0_index")
        cols = [c for c in df.columns if c not in names and c not in ENGINE_COLUMNS
                and np.issubdtype(df[c].dtype, np.number)]
        return xr.Dataset.from_dataframe(df.set_index(names)[cols])


# -- checking the input before anything runs ---------------------------------------------------------
def _number(v, what: str) -> float:
    """``v`` as a finite float, or DimensionError naming it: ints, floats, numpy and sympy real
    numbers only (a string is not read as a number here: nothing in a sweep is parsed)."""
    if isinstance(v, (bool, np.bool_)):
        raise DimensionError(f"{what} = {v!r} is a bool, not a number")
    try:
        if isinstance(v, (int, float, np.integer, np.floating)):
            x = float(v)
        elif isinstance(v, sp.Basic) and v.is_number and not v.free_symbols:
            z = complex(v)
            if z.imag != 0:
                raise DimensionError(f"{what} = {short_repr(v)} is not real")
            x = z.real
        else:
            raise DimensionError(f"{what} = {short_repr(v)} is not a number (a {type(v).__name__}); give ints "
                                 "or floats")
    except OverflowError:  # an int too large for a float
        x = math.inf
    if not math.isfinite(x):
        raise DimensionError(f"{what} = {short_repr(v)} is not finite (a float is at most about 1.8e308)")
    return x


def _is_sequence(v) -> bool:
    return isinstance(v, (list, tuple, range)) or (isinstance(v, np.ndarray) and v.ndim >= 1)


def _grid_values(k: str, v) -> list[float]:
    if isinstance(v, np.ndarray) and v.ndim > 1:
        raise DimensionError(f"the grid of {k} has shape {v.shape}: give a 1-d sequence of values")
    if isinstance(v, (str, bytes, Mapping)) or v is None or isinstance(v, (set, frozenset)):
        raise DimensionError(f"the grid of {k} is {short_repr(v)}: give a number or a list (or array) of numbers")
    items = list(v) if isinstance(v, Iterable) and not isinstance(v, sp.Basic) else [v]
    if not items:
        raise DimensionError(f"the grid of {k} is empty")
    return [_number(x, f"grid value {k}") for x in items]


def _points(symbols: Mapping[str, Any], grid, n_samples, seed) -> tuple[list[dict], dict]:
    """The parameter points (each {name: float}) and, for a grid, its axes; every value a
    finite number inside the parameter's declared domain (:func:`check_assumptions`)."""
    if callable(grid):
        if isinstance(n_samples, bool) or not isinstance(n_samples, (int, np.integer)) or n_samples < 1:
            raise DimensionError(f"a sampler needs n_samples ≥ 1 (a whole number), not {n_samples!r}")
        rng = random.Random(seed)
        pts = []
        for i in range(n_samples):
            pt = grid(rng)
            if not isinstance(pt, Mapping):
                raise DimensionError(f"the sampler returned {short_repr(pt)} (draw {i}); it must return {{parameter: value}}")
            pts.append({str(k): _number(v, f"sampled value {k}") for k, v in pt.items()})
        axes: dict = {}
        what = "sampled value"
    elif isinstance(grid, Mapping):
        names = [str(k) for k in grid]
        twice = sorted({k for k in names if names.count(k) > 1})
        if twice:
            raise DimensionError(f"the grid names {', '.join(twice)} twice (as a string and as a symbol): "
                                 "give each parameter once")
        axes = {str(k): _grid_values(str(k), v) for k, v in grid.items()}
        pts = [dict(zip(axes, combo)) for combo in itertools.product(*axes.values())] if axes else [{}]
        what = "grid value"
    else:
        raise DimensionError(f"grid must be a mapping {{parameter: values}} or a sampler, not {type(grid).__name__}")
    checked: set = set()
    for pt in pts:
        for k, v in pt.items():
            if k not in symbols:
                raise UnknownCoordinateError(f"{k!r} is not a parameter of the equations "
                                             f"(parameters: {', '.join(symbols)})")
            if (k, v) not in checked:
                check_assumptions(symbols[k], v, what)
                checked.add((k, v))
    return pts, axes


def _states(y0s, names: Sequence[str] | None) -> list:
    """The initial states as float arrays ([None] without y0s); each entry a finite number and,
    when the state's names are known, each state of their length."""
    if y0s is None:
        return [None]
    if not _is_sequence(y0s):
        raise DimensionError(f"y0s must be one state (a sequence of numbers) or a sequence of states, not {short_repr(y0s)}")
    seq = list(y0s)
    if not seq:
        raise DimensionError("y0s is empty: give one state (q, u) or a sequence of states")
    single = not any(_is_sequence(e) for e in seq)
    out = []
    for j, st in enumerate([seq] if single else seq):
        label = "y0s" if single else f"y0s[{j}]"
        if not _is_sequence(st):
            raise DimensionError(f"{label} = {short_repr(st)} is not a state: give every state as a sequence of numbers")
        vals = [_number(x, f"{label}[{i}]") for i, x in enumerate(st)]
        if names is not None and len(vals) != len(names):
            raise DimensionError(f"{label} has {len(vals)} entries; the state (q, u) = {list(names)} has {len(names)}")
        out.append(np.array(vals))
    return out


def _check_simulate_kw(t_span, simulate_kw: Mapping) -> None:
    """The options of ``simulate`` that every point shares, checked once before the sweep."""
    from .ode import check_limits, solver_class
    if not _is_sequence(t_span) or len(t_span) != 2:
        raise DimensionError(f"t_span must be two numbers (t0, t1), not {short_repr(t_span)}")
    for i, x in enumerate(t_span):
        _number(x, f"t_span[{i}]")
    if "method" in simulate_kw:
        solver_class(simulate_kw["method"])
    check_limits(simulate_kw.get("step_limit"), simulate_kw.get("time_limit"))


def _check_timeout(timeout) -> None:
    if timeout is not None and (isinstance(timeout, bool) or not isinstance(timeout, (int, float, np.number))
                                or not math.isfinite(float(timeout)) or timeout <= 0):
        raise DimensionError(f"timeout must be a positive number of seconds (or None), not {timeout!r}")


# -- one point ---------------------------------------------------------------------------------------
class _TaskTimeout(BaseException):
    """Raised into a task that ran past its timeout (a BaseException, so that a task's own
    ``except Exception`` does not swallow it)."""


def _call_with_timeout(fn: Callable[[], Any], timeout: float | None):
    """``fn()``, stopped after ``timeout`` seconds with :class:`_TaskTimeout`.

    In the main thread (a sweep in this process) a SIGALRM timer raises it in the task, which
    also interrupts ``time.sleep`` and blocking calls; it fires again every half second should
    the task catch it.  A SIGALRM handler and timer of the caller's are put back afterwards,
    the timer with the time it had left.  Elsewhere (a Dask worker's thread) the task runs in a daemon thread:
    after the timeout the caller gets :class:`_TaskTimeout` at once and the exception is also
    raised asynchronously in the task's thread, which stops it at its next Python instruction
    (a task stuck inside one C call runs on in the background until that call returns)."""
    if timeout is None:
        return fn()
    if threading.current_thread() is threading.main_thread() and hasattr(signal, "setitimer"):
        def alarm(signum, frame):
            raise _TaskTimeout()
        old = signal.signal(signal.SIGALRM, alarm)
        start = time.monotonic()
        outer = signal.setitimer(signal.ITIMER_REAL, float(timeout), 0.5)
        try:
            return fn()
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, old)
            if outer[0] > 0:  # a timer of the caller's: it goes on with the time it had left
                signal.setitimer(signal.ITIMER_REAL, max(outer[0] - (time.monotonic() - start), 1e-6), outer[1])
    box: dict = {}

    def run():
        try:
            box["value"] = fn()
        except BaseException as exc:  # noqa: BLE001 - handed to the caller
            box["error"] = exc

    th = threading.Thread(target=run, name="geonh-sweep-task", daemon=True)
    th.start()
    th.join(float(timeout))
    if th.is_alive():
        ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(cast(int, th.ident)), ctypes.py_object(_TaskTimeout))
        raise _TaskTimeout()
    if "error" in box:
        raise box["error"]
    return box["value"]


def _compiled(token: str, eqs, backend: str):
    f = _CACHE.get(token)
    if f is None:
        f = eqs.ode_function(backend=backend)
        _CACHE[token] = f
    return f


def _merge(row: dict, out, reserved: frozenset) -> None:
    """Add a task's result to its row; a result that is not a mapping, or that would
    overwrite a column of the sweep (:data:`ENGINE_COLUMNS`, the parameters), is refused."""
    if not isinstance(out, Mapping):
        raise DimensionError(f"the task returned {type(out).__name__} {short_repr(out)}; it must return a dict "
                             "{column: value}")
    out = {str(k): v for k, v in out.items()}
    clash = sorted(set(out) & reserved)
    if clash:
        raise DimensionError(f"the task's result has the columns {clash}, which the sweep writes itself "
                             f"({', '.join(ENGINE_COLUMNS)} and the parameters): rename them")
    row.update({k: (float(v) if isinstance(v, (int, float, np.integer, np.floating))
                    and not isinstance(v, (bool, np.bool_)) else v) for k, v in out.items()})


def _failed(row: dict, status: str, error: str) -> dict:
    row["status"], row["error"] = status, error
    return row


def _run_one(token, eqs, backend, task, index, params, y0_index, y0, t_span, sim_kw, keep, timeout=None):
    """One point: the row (and the trajectory's (t, y) when ``keep``).  Every failure of the
    task — an exception, a result that does not fit, the timeout — is recorded in the row."""
    row: dict = {"point": index, "y0_index": y0_index, **params}
    reserved = frozenset(ENGINE_COLUMNS) | frozenset(params)
    traj = None
    try:
        if callable(task):
            y = None if y0 is None else np.array(y0, dtype=float)
            out = _call_with_timeout(lambda: task(dict(params), y), timeout)
            _merge(row, out, reserved)
        else:
            from .ode import simulate
            f = _compiled(token, eqs, backend)  # compiled once per process, not counted in the timeout
            kw = dict(sim_kw)
            if timeout is not None:
                kw["time_limit"] = min(timeout, kw.get("time_limit") or timeout)
            p = [params[s.name] for s in f.parameters]
            res = simulate(f.bind(dict(zip(f.parameters, p))), y0, t_span, **kw)
            out = dict(zip(f.state_names, map(float, res.states[-1])))
            out["t_final"] = float(res.t[-1])
            out["nfev"] = int(res.nfev)
            cr = res.constraint_residuals
            out["max_constraint_residual"] = float(np.max(np.abs(cr))) if np.size(cr) else 0.0
            try:
                e = res.energy
                out["energy_change"] = float(np.max(np.abs(e - e[0])))
            except GeonhError:
                pass
            _merge(row, out, reserved)
            if keep:
                traj = (np.asarray(res.t), np.asarray(res.states))
        row["status"], row["error"] = "ok", None
    except _TaskTimeout:
        _failed(row, "timeout", f"timeout: the task ran longer than timeout = {timeout:g} s and was stopped")
    except IntegrationError as exc:
        _failed(row, "timeout" if exc.reason == "time_limit" else "error", f"IntegrationError: {exc}")
    except Exception as exc:  # noqa: BLE001 - recorded in the row; the sweep goes on
        _failed(row, "error", f"{type(exc).__name__}: {exc}")
    return row, traj


def _lost_row(index, params, y0_index, exc: BaseException) -> dict:
    """The row of a point whose task never returned (its worker died, or it was cancelled)."""
    row = {"point": index, "y0_index": y0_index, **params}
    name = type(exc).__name__
    if name == "KilledWorker":
        return _failed(row, "killed", f"KilledWorker: the worker running this point died every time it "
                                      f"ran (the task crashed its process: os._exit, a segfault, out of "
                                      f"memory): {exc}")
    return _failed(row, "error", f"{name}: {exc}")


def _client(client):
    try:
        from distributed import Client, LocalCluster
    except ImportError as exc:
        raise MissingDependencyError("a Dask sweep needs dask.distributed: pip install 'geonh[distributed]' "
                          "(or run with client=None, in this process)") from exc
    if client == "local":
        cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None)
        return Client(cluster), cluster
    if isinstance(client, str):
        return Client(client), None
    return client, None


def sweep(eqs, grid, y0s=None, t_span=None, *, task: str | Callable = "simulate", client=None,
          n_samples: int | None = None, seed: int = 0, backend: str = "auto", retries: int = 2,
          timeout: float | None = None, progress: Callable[[int, int], None] | None = None,
          keep_trajectories: bool = False, raise_errors: bool = False, **simulate_kw) -> SweepResult:
    """Run ``task`` at every point of ``grid`` × ``y0s`` (module doc) and collect the rows.

    Parameters
    ----------
    eqs : the :class:`~geonh.Equations` (for ``task="simulate"``; for a callable task it only
        names the parameters).
    grid : {parameter name: values} (cartesian product), or a sampler ``rng -> {name: value}``
        with ``n_samples`` draws from ``random.Random(seed)``.  Parameters not in the grid
        must be bound by the task; a simulation needs every parameter from the grid (a fixed one
        as a one-value entry; a missing one is a :class:`~geonh.errors.MissingValueError`
        before the first point, ``params=`` is refused).  Values are ints,
        floats or sympy numbers, finite and inside the parameter's declared domain.
    y0s : one state (q, u) or a sequence of states; every point runs from every state.
    t_span : (t0, t1) of the simulations.
    task : ``"simulate"`` or a callable ``task(params, y0) -> dict``.
    client : None (this process), ``"local"`` (a LocalCluster with two worker processes for
        this call), a scheduler address, or a ``distributed.Client``.
    retries : Dask retries of a task that raised outside the row (the task's own errors are
        recorded in its row, not retried).
    timeout : seconds one point may take (None: no limit); a point that takes longer is
        stopped and recorded with status ``"timeout"``.
    progress : ``progress(done, total)`` after every finished point.  Each finished point is
        also reported to the progress listeners (:mod:`geonh.kernel.progress`, step
        ``"sweep points"``), so the terminal display of the command line shows it.
    keep_trajectories : keep each simulation's (t, states) in ``result.trajectories``.
    raise_errors : raise the first failing point's error instead of recording it.
    simulate_kw : passed to :func:`geonh.simulate` (rtol, atol, method, t_eval, project,
        step_limit, …).

    Every input is checked before the first point runs: grid and sampled values, initial
    states (numbers, and for simulations of the state's length), ``t_span``, ``method``,
    ``timeout``.  Every failure of a point after that becomes its row (module doc).
    """
    is_equations = all(hasattr(eqs, a) for a in ("space", "u", "mass_matrix", "ode_function"))
    if not is_equations and not getattr(eqs, "parameters", None):
        raise DimensionError(f"sweep takes Equations (e.g. model.equations('boltzmann-hamel')), not "
                             f"{type(eqs).__name__}")
    symbols = {s.name: s for s in (getattr(eqs, "parameters", ()) or _parameter_symbols(eqs))}
    names = tuple(symbols)
    pts, axes = _points(symbols, grid, n_samples, seed)
    if task == "simulate":
        if not is_equations:
            raise DimensionError(f"task='simulate' needs Equations (e.g. model.equations('boltzmann-hamel')), "
                                 f"not {type(eqs).__name__}")
        if y0s is None or t_span is None:
            raise DimensionError("task='simulate' needs y0s and t_span")
        _check_simulate_kw(t_span, simulate_kw)
        if "params" in simulate_kw:
            raise DimensionError("sweep takes no params=: a simulation's parameters come from the grid; give a "
                                 "fixed parameter as a one-value grid entry, e.g. {'m': [1.0]}")
        state_names = [s.name for s in eqs.space.q] + [s.name for s in eqs.u]
    elif not callable(task):
        raise DimensionError(f"task must be 'simulate' or a callable, not {task!r}")
    else:
        state_names = None
    states = _states(y0s, state_names)
    _check_timeout(timeout)
    if task == "simulate":
        for pt in pts:
            missing = [k for k in names if k not in pt]
            if missing:
                raise MissingValueError(f"the grid gives no value for the parameter(s) {', '.join(missing)} of the "
                                        "equations: every simulation needs them; give a fixed one as a one-value "
                                        f"grid entry, e.g. {{{missing[0]!r}: [1.0]}}")
    work = [(i, params, j, y0) for i, (params, (j, y0)) in
            enumerate(itertools.product(pts, list(enumerate(states))))]
    token = uuid.uuid4().hex
    total = len(work)
    rows: dict[int, dict] = {}
    trajs: dict[int, tuple] = {}

    def record(row, traj):
        if raise_errors and row["status"] != "ok":
            raise GeonhError(f"point {row['point']} failed ({row['status']}): {row['error']}")
        rows[row["point"]] = row
        if traj is not None:
            trajs[row["point"]] = traj
        report("sweep points", len(rows), total, f"point {row['point']}")
        if progress is not None:
            progress(len(rows), total)

    if client is None:
        try:
            if task == "simulate":
                _compiled(token, eqs, backend)
            for i, params, j, y0 in work:
                record(*_run_one(token, eqs, backend, task, i, params, j, y0, t_span, simulate_kw,
                                 keep_trajectories, timeout))
        finally:
            _CACHE.pop(token, None)
    else:
        from distributed import as_completed
        cl, cluster = _client(client)
        futures: dict = {}
        try:
            shipped = cl.scatter(eqs, broadcast=True) if task == "simulate" else None
            for i, params, j, y0 in work:
                fut = cl.submit(_run_one, token, shipped, backend, task, i, params, j, y0, t_span, simulate_kw,
                                keep_trajectories, timeout, key=f"geonh-sweep-{token}-{i}", retries=retries,
                                pure=False)
                futures[fut] = (i, params, j)
            for fut in as_completed(list(futures)):
                try:
                    row, traj = fut.result()
                except (KeyboardInterrupt, SystemExit):
                    raise
                except BaseException as exc:  # noqa: BLE001 - a killed worker, a cancelled task: its row
                    i, params, j = futures[fut]
                    row, traj = _lost_row(i, params, j, exc), None
                record(row, traj)
        finally:
            pending = [f for f in futures if not f.done()]
            if pending and cluster is None:
                cl.cancel(pending)
            if cluster is not None:
                cl.close()
                cluster.close()
    ordered = tuple(rows[k] for k in sorted(rows))
    return SweepResult(ordered, names, axes, trajs)


def _parameter_symbols(eqs) -> tuple:
    """The parameters of equations without a ``parameters`` attribute: the free symbols of
    M, F and K that are neither state nor time nor unknowns."""
    S = eqs.space
    state = set(S.q) | set(eqs.u) | set(eqs.unknowns) | ({S.t} if S.t is not None else set())
    syms: set = set()
    for e in list(eqs.mass_matrix) + list(eqs.forcing) + list(eqs.kinematics):
        syms |= e.free_symbols
    return tuple(sorted(syms - state, key=lambda s: s.name))
