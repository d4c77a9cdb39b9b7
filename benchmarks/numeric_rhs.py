#!/usr/bin/env python
"""Benchmark: compiled right-hand sides of the dynamic N-trailer (geonh vs sympy lambdify vs pydy).

One set of equations per N: the model of ``n_trailer_dynamics.py`` (sympy.physics.mechanics
bodies, loads and no-slip constraints) → ``MechanicalSystem.from_mechanics`` → the adapted
frame in closed form (v, w, then the constraint quasi-velocities) → ``boltzmann_hamel``.
Every route gets exactly these equations, M(q) u̇ = F(q, u) (2 × 2) and q̇ = K(q, u)
(N + 3 rows), with the N·3 + 4 parameters (masses, inertias, hitch lengths, F, τ) as
arguments, and evaluates ẏ = (K, M⁻¹F) at one state:

* ``geonh llvm``   ``eq.ode_function(backend="llvm")`` — symengine Lambdify through LLVM: one
                   compiled function for K, M, F and the 2 × 2 solve (fraction-free elimination
                   generated into the code, with a check that falls back to a pivoting solve),
                   common factors taken out of the sums before compiling;
* ``geonh lambda`` ``eq.ode_function(backend="lambda")`` — symengine's lambda backend;
* ``geonh numpy``  ``eq.ode_function(backend="numpy")`` — sympy lambdify (cse) on numpy;
* ``lambdify``     plain sympy: ``lambdify`` (cse) of M, F and K separately, ``numpy.linalg.solve``,
                   ``concatenate`` — what geonh.numerics.first_order_function did before;
* ``pydy cython``  ``pydy.codegen.ode_function_generators.generate_ode_function(F, q, u, constants,
                   mass_matrix=M, coordinate_derivatives=K, generator="cython")`` (C code from sympy,
                   compiled with the system's C compiler; skipped if pydy/Cython are missing).

Per call: ``timeit`` of f(t, y, p) (pydy: f(y, t, p)) at one random state, ``--number`` calls
per repeat (fewer for slow routes: a repeat takes at most about 0.3 s), ``--repeats`` repeats, the MEDIAN per-call time of the repeats, in µs; ratio =
route / pydy (wall).  Every time has its CPU time beside it, from the same repeats
(``time.process_time`` in the worker; build CPU adds ``RUSAGE_CHILDREN``, pydy's C compiler).  Build: seconds from the equations to a callable (compilation), and "model →
RHS" = from_mechanics + frame + boltzmann_hamel + the route's build (the mechanics model
itself, built in well under 2 s, is not counted).  Agreement: max |f_route − f_llvm| at the
state.  Each N runs in a fresh process (cold sympy cache).  Also printed: whether the route
hands back the same array object at every call (pydy does: a caller that keeps results, e.g.
a list of f(t, y) values, sees them all overwritten).

Usage:  python benchmarks/numeric_rhs.py [--N 4 8 16] [--repeats 7] [--number 20000] [--no-pydy]
Progress to stderr, the table to stdout.  See benchmarks/README.md.
"""
from __future__ import annotations

import os as _os  # noqa: E402
_os.environ.setdefault("GEONH_CACHE", "off")  # time compiling, not loading (geonh.numerics.cache)
import argparse
import gc
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import time
import timeit

HERE = os.path.dirname(os.path.abspath(__file__))
ROUTES = ("llvm", "lambda", "numpy", "lambdify", "pydy")
LABEL = {"llvm": "geonh llvm", "lambda": "geonh lambda", "numpy": "geonh numpy", "lambdify": "sympy lambdify",
         "pydy": "pydy cython"}


def _import_geonh():
    try:
        import geonh  # noqa: F401
    except ImportError:
        sys.path.insert(0, os.path.dirname(HERE))
        import geonh  # noqa: F401
    return sys.modules["geonh"]


def _cpu() -> float:
    """CPU seconds of this process and of its finished children (pydy's C compiler runs in
    child processes: ``resource.getrusage(RUSAGE_CHILDREN)``)."""
    ch = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + ch.ru_utime + ch.ru_stime


def _per_call(fn, number: int, repeats: int) -> tuple[float, float, int]:
    """Medians over repeats of the per-call wall time and CPU time (µs), both from the same
    repeats, and the calls per repeat: ``number``, fewer for slow routes (each repeat at most
    about 0.3 s).  The garbage collector is off while timing, as in ``timeit``."""
    fn()
    t = min(timeit.repeat(fn, number=10, repeat=3)) / 10
    number = max(20, min(number, int(0.3 / max(t, 1e-9))))
    walls, cpus = [], []
    was_on = gc.isenabled()
    gc.disable()
    try:
        for _ in range(repeats):
            c0, w0 = time.process_time(), time.perf_counter()
            for _ in range(number):
                fn()
            walls.append(time.perf_counter() - w0)
            cpus.append(time.process_time() - c0)
    finally:
        if was_on:
            gc.enable()
    return statistics.median(walls) / number * 1e6, statistics.median(cpus) / number * 1e6, number


def worker(N: int, number: int, repeats: int, pydy: bool) -> None:
    import numpy as np
    import sympy as sp
    _import_geonh()
    sys.path.insert(0, HERE)
    import n_trailer_dynamics as base  # the shared mechanics model and frame
    from geonh.equations import boltzmann_hamel

    def emit(**kw):
        print(json.dumps(kw), flush=True)

    model = base.build_model(N)
    t0, c0 = time.perf_counter(), time.process_time()
    system, frame = base._geonh_system_and_frame(model, closed_form=True)
    t1, c1 = time.perf_counter(), time.process_time()
    eq = boltzmann_hamel(system, frame)
    M, F, K = eq.mass_matrix, eq.forcing, sp.Matrix(list(eq.kinematics))
    t2, c2 = time.perf_counter(), time.process_time()
    emit(stage="equations", system=t1 - t0, equations=t2 - t1, system_cpu=c1 - c0, equations_cpu=c2 - c1)
    S = eq.space
    q, u = list(S.q), list(eq.u)
    rng = np.random.default_rng(1000 + N)
    y = np.concatenate([rng.uniform(-1, 1, len(q)), rng.uniform(-1, 1, len(u))])
    fns, builds, cbuilds = {}, {}, {}
    for be in ("llvm", "lambda", "numpy"):
        b0, d0 = time.perf_counter(), _cpu()
        f = eq.ode_function(backend=be)
        builds[be], cbuilds[be] = time.perf_counter() - b0, _cpu() - d0
        fns[be] = f
    consts = list(fns["llvm"].parameters)
    p = rng.uniform(0.5, 2.0, len(consts))
    # plain sympy lambdify, as geonh.numerics.first_order_function did before ode_function
    b0, d0 = time.perf_counter(), _cpu()
    args = [sp.Symbol("t_")] + q + u + consts
    fM = sp.lambdify(args, M, modules="numpy", cse=True)
    fF = sp.lambdify(args, F, modules="numpy", cse=True)
    fK = sp.lambdify(args, K, modules="numpy", cse=True)
    nu = len(u)

    def lamb(t, yy, pp):
        a = (t, *yy, *pp)
        x = np.linalg.solve(np.asarray(fM(*a), dtype=float), np.asarray(fF(*a), dtype=float).reshape(-1))
        return np.concatenate([np.asarray(fK(*a), dtype=float).reshape(-1), x[:nu]])

    builds["lambdify"], cbuilds["lambdify"] = time.perf_counter() - b0, _cpu() - d0
    calls = {be: (lambda f=f: f(0.0, y, p)) for be, f in fns.items()}
    calls["lambdify"] = lambda: lamb(0.0, y, p)
    if pydy:
        b0, d0 = time.perf_counter(), _cpu()
        try:  # pydy raises ImportError from inside when Cython is missing
            from pydy.codegen.ode_function_generators import generate_ode_function
            fp = generate_ode_function(F, q, u, consts, mass_matrix=M, coordinate_derivatives=K,
                                       generator="cython")
        except ImportError as exc:
            emit(stage="note", note=f"pydy not available: {exc}")
            print(f"  pydy skipped: {exc}", file=sys.stderr, flush=True)
        else:
            builds["pydy"], cbuilds["pydy"] = time.perf_counter() - b0, _cpu() - d0
            calls["pydy"] = lambda: fp(y, 0.0, p)
    ref = calls["llvm"]()
    res = {}
    for route, call in calls.items():
        a, b = call(), call()
        per, per_cpu, used = _per_call(call, number, repeats)
        res[route] = dict(build=builds[route], build_cpu=cbuilds[route], call=per, call_cpu=per_cpu, number=used,
                          err=float(np.max(np.abs(np.asarray(a) - ref))), same_array=a is b)
        print(f"  N={N} {LABEL[route]}: {res[route]['call']:.2f} µs", file=sys.stderr, flush=True)
    emit(stage="routes", routes=res, n_state=len(y), n_params=len(consts), backend_llvm=fns["llvm"].backend)


def run(N: int, args) -> dict:
    cmd = [sys.executable, os.path.abspath(__file__), "--worker", str(N), "--number", str(args.number),
           "--repeats", str(args.repeats)] + (["--no-pydy"] if args.no_pydy else [])
    print(f"N = {N} ...", file=sys.stderr, flush=True)
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=args.timeout)
    out = {"N": N, "wall": time.perf_counter() - t0}
    for line in proc.stdout.splitlines():
        try:
            d = json.loads(line)
        except json.JSONDecodeError:
            continue
        out.update({k: v for k, v in d.items() if k != "stage"})
    sys.stderr.write(proc.stderr[-4000:])
    if proc.returncode != 0:
        out["failed"] = proc.returncode
    return out


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--N", type=int, nargs="+", default=[4, 8, 16])
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--number", type=int, default=20000)
    ap.add_argument("--timeout", type=float, default=1800)
    ap.add_argument("--no-pydy", action="store_true")
    ap.add_argument("--worker", type=int, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker is not None:
        worker(args.worker, args.number, args.repeats, not args.no_pydy)
        return
    g = _import_geonh()
    import numpy
    import sympy
    try:
        import symengine
        se_v = symengine.__version__
    except ImportError:
        se_v = "—"
    try:
        import pydy
        pd_v = pydy.__version__
    except ImportError:
        pd_v = "—"
    print(f"Dynamic N-trailer, compiled right-hand sides.  geonh {g.__version__} ({os.path.dirname(g.__file__)}), "
          f"sympy {sympy.__version__}, symengine {se_v}, numpy {numpy.__version__}, pydy {pd_v}, "
          f"Python {platform.python_version()}, {os.cpu_count()} CPUs.  Per call: median of {args.repeats} "
          f"repeats of up to {args.number} calls (fewer for slow routes, ≤ 0.3 s a repeat); wall time, the "
          f"worker's CPU time beside it (CPU columns; build CPU includes child processes); /pydy from wall.\n")
    rows = [run(N, args) for N in args.N]
    hdr = (f"{'N':>3}  {'route':<15} {'µs/call':>8} {'CPU µs':>8} {'/pydy':>6}  {'build [s]':>9} {'CPU [s]':>8}"
           f" {'model→RHS [s]':>13} {'CPU [s]':>8}  {'max|Δ|':>8}  same array")
    print(hdr)
    print("-" * len(hdr))
    for r in rows:
        if "routes" not in r:
            print(f"{r['N']:>3}  failed ({r.get('failed')}), see stderr")
            continue
        pre = r["system"] + r["equations"]
        pre_cpu = r["system_cpu"] + r["equations_cpu"]
        pyd = r["routes"].get("pydy")
        for route in ROUTES:
            x = r["routes"].get(route)
            if x is None:
                continue
            ratio = f"{x['call'] / pyd['call']:.2f}" if pyd else "—"
            print(f"{r['N']:>3}  {LABEL[route]:<15} {x['call']:>8.2f} {x['call_cpu']:>8.2f} {ratio:>6}  "
                  f"{x['build']:>9.2f} {x['build_cpu']:>8.2f} {pre + x['build']:>13.2f} {pre_cpu + x['build_cpu']:>8.2f}"
                  f"  {x['err']:>8.1e}  {x['same_array']}")
        print(f"{'':>3}  (from_mechanics + frame {r['system']:.2f} s (CPU {r['system_cpu']:.2f} s), "
              f"boltzmann_hamel {r['equations']:.2f} s (CPU {r['equations_cpu']:.2f} s); "
              f"state {r['n_state']}, parameters {r['n_params']})\n")


if __name__ == "__main__":
    main()
