"""Energy and constraint behaviour of the discrete Lagrange–d'Alembert integrator over long runs.

On the Chaplygin sleigh, the vertical rolling disk, the knife edge on an inclined plane (a
potential; periodic motion) and the dynamic 2-trailer (F = τ = 0), all conserving T + V, integrate ``--steps`` steps (default 10^5) of size ``--h``
(default 0.01, so t ∈ [0, 1000]) with :func:`geonh.numerics.dla.dla_integrate` (midpoint
rule), and the same motion with scipy's RK45 and DOP853 through :func:`geonh.simulate` on
Lagrange's equations with multipliers (state (q, q̇), the same variables as the DLA run;
no projection), at the tolerances (rtol = atol) given by ``--rk45-tol`` (default 1e-6 and 1e-8) and
``--dop853-tol`` (default 1e-10, geonh's default).

Printed (stdout): for each system and method, the wall time and beside it the CPU time of
this process (``time.process_time``) of the same run (compiling excluded: every
compiled function is built and called once before timing), the number of steps or
right-hand-side evaluations, max |E − E0| and the max constraint residual |A(q) q̇| — for DLA
at every midpoint (the discrete constraint) and at every node (the consistent node
velocities), for scipy at ``--samples`` equally spaced output times.  Progress goes to
stderr.  ``--plot FILE`` saves |E − E0| against t for every run (needs matplotlib).

    python benchmarks/dla_energy.py                 # the table in docs/integrators.md
    python benchmarks/dla_energy.py --steps 10000 --plot dla.png
"""
from __future__ import annotations

import argparse
import sys
import time

import numpy as np

import geonh
from geonh import models
from geonh.numerics.dla import dla_integrate, dla_scheme

CASES = {
    "chaplygin-sleigh": ({"m": 2.0, "a": 0.3, "I": 0.5}, [0.0, 0.0, 0.0], [1.0, 0.0, 0.5]),
    "vertical-disk": ({"m": 1.0, "I": 0.25, "J": 0.5, "R": 0.5}, [0.0, 0.0, 0.0, 0.0], [0.5, 0.0, 0.7, 1.0]),
    "inclined-knife-edge": ({"m": 1.0, "I": 0.3, "g": 9.81, "alpha": 0.2}, [0.0, 0.0, 0.0], [1.0, 0.0, 1.5]),
    "dynamic-2-trailer": ({"m0": 1.0, "m1": 0.8, "m2": 0.6, "J0": 0.2, "J1": 0.15, "J2": 0.1, "d1": 1.0,
                           "d2": 0.8, "F": 0.0, "tau": 0.0},
                          [0.0, 0.0, 0.0, 0.4, -0.3], [1.0, 0.2, 0.5, 0.0, 0.0]),
}


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def run_case(name, params, q0, qd0, h, steps, samples, rk45_tol, dop853_tol):
    model = models.get(name)
    # consistent initial velocities (projected in the kinetic-energy metric)
    qd0 = dla_integrate(model, q0, qd0, h, 0, params, project=True).qd[0]
    dla_scheme(model)  # compile before timing
    rows, curves = [], []
    t0, c0 = time.perf_counter(), time.process_time()
    tr = dla_integrate(model, q0, qd0, h, steps, params)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    rows.append((name, "DLA midpoint", f"h = {h:g}", wall, cpu, f"{steps} steps, {int(tr.iterations.sum())} Newton its",
                 tr.max_energy_error, tr.max_constraint_residual,
                 float(np.max(np.abs(tr.node_constraint_residuals)))))
    curves.append((f"DLA h = {h:g}", tr.t, np.abs(tr.energy_error)))
    log(f"{name}: DLA {wall:.2f} s (CPU {cpu:.2f} s), max |dE| {tr.max_energy_error:.2e}")
    T = h * steps
    eqs = model.equations("lagrange")
    f = eqs.ode_function(params)
    y0 = np.concatenate([q0, qd0])
    f(0.0, y0)  # compile before timing
    geonh.simulate(f, y0, (0.0, h), method="RK45")  # warm up scipy
    t_eval = np.linspace(0.0, T, samples)
    runs = [("RK45", tol) for tol in rk45_tol] + [("DOP853", tol) for tol in dop853_tol]
    for method, tol in runs:
        t0, c0 = time.perf_counter(), time.process_time()
        sim = geonh.simulate(f, np.concatenate([q0, qd0]), (0.0, T), rtol=tol, atol=tol, method=method,
                             t_eval=t_eval)
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        E = sim.energy
        dE = np.abs(E - E[0])
        res = float(np.max(np.abs(sim.constraint_residuals)))
        rows.append((name, method, f"tol = {tol:g}", wall, cpu, f"{sim.nfev} f-evals", float(dE.max()), res, None))
        curves.append((f"{method} {tol:g}", sim.t, dE))
        log(f"{name}: {method} {wall:.2f} s (CPU {cpu:.2f} s), max |dE| {dE.max():.2e}")
    return rows, curves


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--steps", type=int, default=100_000)
    ap.add_argument("--h", type=float, default=0.01)
    ap.add_argument("--samples", type=int, default=10_001, help="output times of the scipy runs")
    ap.add_argument("--rk45-tol", type=float, nargs="+", default=[1e-6, 1e-8])
    ap.add_argument("--dop853-tol", type=float, nargs="+", default=[1e-10])
    ap.add_argument("--systems", nargs="*", default=list(CASES), choices=list(CASES))
    ap.add_argument("--plot", metavar="FILE", help="save |E − E0| against t (matplotlib)")
    a = ap.parse_args(argv)
    rows, plots = [], {}
    for name in a.systems:
        params, q0, qd0 = CASES[name]
        r, c = run_case(name, params, np.array(q0), np.array(qd0), a.h, a.steps, a.samples, a.rk45_tol,
                        a.dop853_tol)
        rows += r
        plots[name] = c
    print(f"{a.steps} steps of h = {a.h:g} (t in [0, {a.steps * a.h:g}]); scipy on Lagrange's equations, "
          f"max over {a.samples} output times\n")
    print("| system | method | setting | wall [s] | CPU [s] | work | max abs(E − E0) | max abs(A q̇) midpoints / samples "
          "| max abs(A q̇) nodes |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name, method, setting, wall, cpu, work, dE, res, node in rows:
        node_s = f"{node:.1e}" if node is not None else "—"
        print(f"| `{name}` | {method} | {setting} | {wall:.2f} | {cpu:.2f} | {work} | {dE:.1e} | {res:.1e} | {node_s} |")
    if a.plot:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, axes = plt.subplots(1, len(plots), figsize=(4.5 * len(plots), 4), squeeze=False)
        for ax, (name, curves) in zip(axes[0], plots.items()):
            for label, t, dE in curves:
                ax.semilogy(t, np.maximum(dE, 1e-17), label=label, lw=0.8)
            ax.set_title(name)
            ax.set_xlabel("t")
            ax.set_ylabel("|E − E0|")
            ax.legend(fontsize=7)
        fig.tight_layout()
        fig.savefig(a.plot, dpi=120)
        log(f"saved {a.plot}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
