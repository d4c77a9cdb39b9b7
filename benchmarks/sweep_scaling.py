#!/usr/bin/env python
"""Benchmark: a parameter sweep in this process and on a 2-worker Dask LocalCluster.

The dynamic N-trailer of ``geonh.models`` (``dynamic-<N>-trailer``, Boltzmann–Hamel in its
adapted frame) is simulated over t ∈ [0, T] from one state for ``--n`` parameter points (a
grid over the masses), by ``geonh.sweep``:

* ``in-process`` — ``client=None``: one compiled right-hand side, the points one after another;
* ``dask 2 workers`` — ``client=Client(LocalCluster(n_workers=2, threads_per_worker=1))``,
  the cluster started before the clock (its start-up is printed separately): the equations
  shipped once per worker, compiled there on first use, results gathered as they finish.

Printed: wall seconds (median of ``--repeats``), CPU seconds beside them (user + system of this
process and of the Dask worker processes, psutil, median of the same repeats), throughput (points per second), throughput
per worker, and the Dask overhead per task, (t_dask · workers − t_in-process) / n, i.e. what a
task costs beyond its own work; plus a trivial task (returns its parameter) that measures
the overhead alone.  Both routes' rows are compared (identical numbers expected).

Usage:  python benchmarks/sweep_scaling.py [--n 1000] [--N 2] [--T 5] [--repeats 3] [--quick]
"""
from __future__ import annotations

import os as _os  # noqa: E402
_os.environ.setdefault("GEONH_CACHE", "off")  # time compiling, not loading (geonh.numerics.cache)
import argparse
import statistics
import sys
import time


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=1000, help="parameter points (simulations)")
    ap.add_argument("--N", type=int, default=2, help="trailers")
    ap.add_argument("--T", type=float, default=5.0, help="simulated time")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--quick", action="store_true", help="n = 100, 1 repeat")
    a = ap.parse_args(argv)
    if a.quick:
        a.n, a.repeats = 100, 1
    import numpy as np
    from distributed import Client, LocalCluster

    import geonh
    model = geonh.models.get(f"dynamic-{a.N}-trailer")
    eq = model.equations("boltzmann-hamel")
    names = sorted(s.name for s in model.parameters)
    side = int(np.ceil(a.n ** 0.5))
    masses = [n for n in names if n.startswith("m")][:2]
    grid = {masses[0]: np.linspace(1, 2, side), masses[1]: np.linspace(1, 2, side)}
    grid.update({n: [1.0] for n in names if n not in grid})
    n_points = side * side
    y0 = np.zeros(len(eq.space.q) + len(eq.u))
    y0[len(eq.space.q)] = 1.0  # forward speed
    print(f"sweep of {n_points} simulations of dynamic-{a.N}-trailer over t in [0, {a.T}]; "
          f"geonh {geonh.__version__}, Python {sys.version.split()[0]}", file=sys.stderr)

    def trivial(params, y0):
        return {"x": params[masses[0]]}

    def cpu_tree() -> float:
        """CPU seconds (user + system) of this process and of all its live descendants (the
        Dask nanny and worker processes), from psutil (a dependency of distributed)."""
        import psutil
        me = psutil.Process()
        total = 0.0
        for proc in [me, *me.children(recursive=True)]:
            try:
                c = proc.cpu_times()
            except psutil.NoSuchProcess:
                continue
            total += c.user + c.system
        return total

    def timed(**kw):
        """(median wall seconds, median CPU seconds of the process tree, the last result)."""
        ts, cs, res = [], [], None
        for _ in range(a.repeats):
            c0, t0 = cpu_tree(), time.perf_counter()
            res = geonh.sweep(eq, grid, y0, (0, a.T), **kw)
            ts.append(time.perf_counter() - t0)
            cs.append(cpu_tree() - c0)
        return statistics.median(ts), statistics.median(cs), res

    t_in, c_in, r_in = timed()
    t_triv_in, _, _ = timed(task=trivial)
    c0 = time.perf_counter()
    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None)
    client = Client(cluster)
    t_start = time.perf_counter() - c0
    try:
        t_dk, c_dk, r_dk = timed(client=client)
        t_triv_dk, _, _ = timed(client=client, task=trivial)
    finally:
        client.close()
        cluster.close()
    a_in, a_dk = r_in.to_dataframe(), r_dk.to_dataframe()
    num = a_in.select_dtypes("number").columns
    same = bool(np.array_equal(a_in[num].to_numpy(), a_dk[num].to_numpy()))
    w = 2
    print(f"{'route':<22}{'wall [s]':>10}{'CPU [s]':>10}{'points/s':>12}{'per worker':>12}")
    print("-" * 66)
    for label, t, c in (("in-process", t_in, c_in), ("dask 2 workers", t_dk, c_dk)):
        workers = 1 if label == "in-process" else w
        print(f"{label:<22}{t:>10.2f}{c:>10.2f}{n_points / t:>12.1f}{n_points / t / workers:>12.1f}")
    print("(CPU: user + system seconds of this process and its worker processes, median; points/s from wall)")
    print(f"\nspeed-up dask/in-process: {t_in / t_dk:.2f} on {w} workers (LocalCluster start-up {t_start:.1f} s, "
          "not counted)")
    print(f"overhead per task: {(t_dk * w - t_in) / n_points * 1e3:.2f} ms (simulations), trivial task: "
          f"in-process {t_triv_in / n_points * 1e3:.3f} ms, dask {t_triv_dk / n_points * 1e3:.2f} ms wall per task")
    print(f"rows identical between the routes: {same}; failed points: {len(r_in.failed)} / {len(r_dk.failed)}")


if __name__ == "__main__":
    main()
