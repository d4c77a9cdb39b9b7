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

Every row also has the point's parameters, its index and ``status`` (``"ok"`` or the error
message: a failing point is recorded, never raised for the whole sweep unless
``raise_errors=True``).  :class:`SweepResult` gives the rows, a pandas ``DataFrame``
(:meth:`~SweepResult.to_dataframe`) and, for grids, an xarray ``Dataset`` over the grid axes
(:meth:`~SweepResult.to_xarray`).

**Dask.**  ``client=None`` runs in this process.  ``client="local"`` starts a
``dask.distributed.LocalCluster`` (processes, one thread each) for the call; a
``distributed.Client`` or a scheduler address uses that cluster.  The equations are pickled
and sent to every worker **once** (``Client.scatter(..., broadcast=True)``); each worker
compiles the right-hand side on first use and keeps it (a per-process cache keyed by a token
of the sweep), so no task ships or compiles code.  Results are gathered as they finish
(``as_completed``); tasks of a worker that dies are rerun by Dask (``retries``) and every
finished row is kept.  Dask is imported only here, lazily: ``import geonh`` never loads it,
and without it (``pip install geonh[distributed]`` adds it) ``client=None`` works unchanged.
"""
from __future__ import annotations

import itertools
import math
import random
import uuid
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from ..errors import DimensionError, GeonhError, UnknownCoordinateError
from ..kernel.parsing import as_floats

__all__ = ["sweep", "SweepResult"]

#: compiled right-hand sides of this process, by sweep token (workers keep theirs between tasks)
_CACHE: dict[str, Any] = {}


@dataclass(frozen=True)
class SweepResult:
    """Rows of a sweep (one dict per point, in point order) and the grid's axes."""

    rows: tuple[dict, ...]
    parameters: tuple[str, ...]
    axes: dict = field(default_factory=dict)
    trajectories: dict = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.rows)

    @property
    def failed(self) -> tuple[dict, ...]:
        return tuple(r for r in self.rows if r["status"] != "ok")

    def to_dataframe(self):
        """The rows as a pandas ``DataFrame`` (pandas needed)."""
        try:
            import pandas as pd
        except ImportError as exc:
            raise ImportError("SweepResult.to_dataframe needs pandas: pip install 'geonh[distributed]'") from exc
        return pd.DataFrame(list(self.rows)).set_index("point")

    def to_xarray(self):
        """For a grid sweep with one initial state: an xarray ``Dataset`` with one dimension
        per grid parameter and one variable per numeric result column (xarray needed)."""
        if not self.axes:
            raise DimensionError("to_xarray needs a grid sweep (a sampler has no axes)")
        try:
            import xarray as xr
        except ImportError as exc:
            raise ImportError("SweepResult.to_xarray needs xarray: pip install 'geonh[distributed]'") from exc
        df = self.to_dataframe()
        names = list(self.axes)
        if "y0_index" in df and df["y0_index"].nunique() > 1:
            names.append("y0_index")
        cols = [c for c in df.columns if c not in names and c != "status"
                and np.issubdtype(df[c].dtype, np.number)]
        return xr.Dataset.from_dataframe(df.set_index(names)[cols])


def _points(eq_params: Sequence[str], grid, n_samples, seed) -> tuple[list[dict], dict]:
    if callable(grid):
        if not n_samples or n_samples < 1:
            raise DimensionError("a sampler needs n_samples ≥ 1")
        rng = random.Random(seed)
        pts = [dict(grid(rng)) for _ in range(n_samples)]
        axes: dict = {}
    elif isinstance(grid, Mapping):
        axes = {}
        for k, v in grid.items():
            vals = list(np.atleast_1d(as_floats(v, f"the grid of {k}")))
            if not vals:
                raise DimensionError(f"the grid of {k} is empty")
            axes[str(k)] = vals
        pts = [dict(zip(axes, combo)) for combo in itertools.product(*axes.values())] if axes else [{}]
    else:
        raise DimensionError(f"grid must be a mapping {{parameter: values}} or a sampler, not {type(grid).__name__}")
    for pt in pts:
        for k, v in pt.items():
            if str(k) not in eq_params:
                raise UnknownCoordinateError(f"{k!r} is not a parameter of the equations "
                                             f"(parameters: {', '.join(eq_params)})")
            if not math.isfinite(float(v)):
                raise DimensionError(f"parameter {k} = {v} is not finite")
    return [{str(k): float(v) for k, v in pt.items()} for pt in pts], axes


def _compiled(token: str, eqs, backend: str):
    f = _CACHE.get(token)
    if f is None:
        f = eqs.ode_function(backend=backend)
        _CACHE[token] = f
    return f


def _run_one(token, eqs, backend, task, index, params, y0_index, y0, t_span, sim_kw, keep):
    """One point: the row (and the trajectory's (t, y) when ``keep``)."""
    row: dict = {"point": index, "y0_index": y0_index, **params}
    traj = None
    try:
        if callable(task):
            out = task(dict(params), None if y0 is None else np.array(y0, dtype=float))
            row.update({str(k): (float(v) if np.isscalar(v) else v) for k, v in dict(out).items()})
        else:
            from .ode import simulate
            f = _compiled(token, eqs, backend)
            p = [params[s.name] for s in f.parameters]
            res = simulate(f.bind(dict(zip(f.parameters, p))), y0, t_span, **sim_kw)
            row.update(dict(zip(f.state_names, map(float, res.states[-1]))))
            row["t_final"] = float(res.t[-1])
            row["nfev"] = int(res.nfev)
            cr = res.constraint_residuals
            row["max_constraint_residual"] = float(np.max(np.abs(cr))) if np.size(cr) else 0.0
            try:
                e = res.energy
                row["energy_change"] = float(np.max(np.abs(e - e[0])))
            except GeonhError:
                pass
            if not res.success:
                raise GeonhError(f"integration failed: {res.message}")
            if keep:
                traj = (np.asarray(res.t), np.asarray(res.states))
        row["status"] = "ok"
    except Exception as exc:  # noqa: BLE001 - recorded in the row; the sweep goes on
        row["status"] = f"{type(exc).__name__}: {exc}"
    return row, traj


def _client(client):
    try:
        from distributed import Client, LocalCluster
    except ImportError as exc:
        raise ImportError("a Dask sweep needs dask.distributed: pip install 'geonh[distributed]' "
                          "(or run with client=None, in this process)") from exc
    if client == "local":
        cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None)
        return Client(cluster), cluster
    if isinstance(client, str):
        return Client(client), None
    return client, None


def sweep(eqs, grid, y0s=None, t_span=None, *, task: str | Callable = "simulate", client=None,
          n_samples: int | None = None, seed: int = 0, backend: str = "auto", retries: int = 2,
          progress: Callable[[int, int], None] | None = None, keep_trajectories: bool = False,
          raise_errors: bool = False, **simulate_kw) -> SweepResult:
    """Run ``task`` at every point of ``grid`` × ``y0s`` (module doc) and collect the rows.

    Parameters
    ----------
    eqs : the :class:`~geonh.Equations` (for ``task="simulate"``; for a callable task it only
        names the parameters).
    grid : {parameter name: values} (cartesian product), or a sampler ``rng -> {name: value}``
        with ``n_samples`` draws from ``random.Random(seed)``.  Parameters not in the grid
        must be bound by the task (simulations need every parameter).
    y0s : one state (q, u) or a sequence of states; every point runs from every state.
    t_span : (t0, t1) of the simulations.
    task : ``"simulate"`` or a callable ``task(params, y0) -> dict``.
    client : None (this process), ``"local"`` (a LocalCluster with two worker processes for
        this call), a scheduler address, or a ``distributed.Client``.
    retries : Dask retries of a task whose worker died.
    progress : ``progress(done, total)`` after every finished point.
    keep_trajectories : keep each simulation's (t, states) in ``result.trajectories``.
    raise_errors : raise the first failing point's error instead of recording it.
    simulate_kw : passed to :func:`geonh.simulate` (rtol, atol, method, t_eval, project, …).
    """
    names = tuple(s.name for s in getattr(eqs, "parameters", ()) or _parameter_symbols(eqs))
    pts, axes = _points(names, grid, n_samples, seed)
    if task == "simulate":
        if y0s is None or t_span is None:
            raise DimensionError("task='simulate' needs y0s and t_span")
    elif not callable(task):
        raise DimensionError(f"task must be 'simulate' or a callable, not {task!r}")
    if y0s is None:
        states = [None]
    else:
        arr = as_floats(y0s, "y0s")
        if arr.ndim not in (1, 2) or arr.size == 0:
            raise DimensionError(f"y0s must be one state or a sequence of states, got shape {arr.shape}")
        states = [arr] if arr.ndim == 1 else list(arr)
    work = [(i, params, j, y0) for i, (params, (j, y0)) in
            enumerate(itertools.product(pts, list(enumerate(states))))]
    token = uuid.uuid4().hex
    total = len(work)
    rows: dict[int, dict] = {}
    trajs: dict[int, tuple] = {}

    def record(row, traj):
        if raise_errors and row["status"] != "ok":
            raise GeonhError(f"point {row['point']} failed: {row['status']}")
        rows[row["point"]] = row
        if traj is not None:
            trajs[row["point"]] = traj
        if progress is not None:
            progress(len(rows), total)

    if client is None:
        try:
            for i, params, j, y0 in work:
                record(*_run_one(token, eqs, backend, task, i, params, j, y0, t_span, simulate_kw, keep_trajectories))
        finally:
            _CACHE.pop(token, None)
    else:
        from distributed import as_completed
        cl, cluster = _client(client)
        try:
            shipped = cl.scatter(eqs, broadcast=True) if task == "simulate" else None
            futures = [cl.submit(_run_one, token, shipped, backend, task, i, params, j, y0, t_span, simulate_kw,
                                 keep_trajectories, key=f"geonh-sweep-{token}-{i}", retries=retries, pure=False)
                       for i, params, j, y0 in work]
            for fut in as_completed(futures):
                record(*fut.result())
        finally:
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
