#!/usr/bin/env python
"""Benchmark: how code generation (``Equations.ode_function``) scales on the dynamic N-trailer.

The model is the one of ``n_trailer_dynamics.py`` with the masses OFF the axles (its
``--offaxle`` variant: G_i = P_i + e_i b_i^x, set here through ``NTRAILER_OFFAXLE=1``):
sympy.physics.mechanics bodies, loads and no-slip constraints → ``MechanicalSystem.from_mechanics``
→ the closed-form adapted frame → ``boltzmann_hamel``.  Per N, in a fresh process (cold sympy
cache), the stages are timed one after the other, wall time and CPU time
(``time.process_time``) beside it:

* ``mech``      the sympy.physics.mechanics model itself (bodies, loads, constraints; not
                counted in the total, as in numeric_rhs.py);
* ``model``     from_mechanics + the closed-form frame;
* ``derive``    ``boltzmann_hamel`` and its M, F, K;
* ``codegen``   ``eq.ode_function()`` (symengine LLVM): model of the equations → machine code;
* ``first``     the first call f(t, y, p);
* ``µs/call``   median over repeats of the per-call time at one random state;
* ``ops``       operations of the program handed to the compiler: the expressions given to
                ``symengine.Lambdify`` are captured (whatever geonh's version does before),
                put through ``symengine.cse`` when Lambdify is asked for cse, and counted with
                ``symengine.count_ops`` (replacements + outputs);
* ``total``     model + derive + codegen: model → runnable RHS.

Then the fitted exponents d log t / d log N per stage between consecutive N and over the
whole range (least squares on log-log), and µs/call against ops.  Compare two versions in one
run by giving ``--compare PATH``: each N runs once with ``PYTHONPATH=PATH`` (e.g. a checkout
of main) and once with this checkout, interleaved.

Usage:  python benchmarks/codegen_scaling.py [--N 4 8 16 32] [--big] [--compare /path/to/main]
        [--profile N]   (cProfile of the codegen stage at N, top functions by cumulative time)
"""
from __future__ import annotations

import os as _os  # noqa: E402
_os.environ.setdefault("GEONH_CACHE", "off")  # time compiling, not loading (geonh.numerics.cache)
import argparse
import contextlib
import gc
import json
import math
import os
import platform
import statistics
import subprocess
import sys
import time
import timeit

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
STAGES = ("model", "derive", "codegen", "first")


def _count_program(captured: list) -> int:
    """Operations of the programs handed to symengine.Lambdify (cse'd as Lambdify does)."""
    import symengine as se
    total = 0
    for exprs, cse in captured:
        if cse:
            reps, red = se.cse(list(exprs))
            total += int(se.count_ops(*[e for _, e in reps], *red)) if reps or red else 0
        else:
            total += int(se.count_ops(*exprs))
    return total


def worker(N: int, repeats: int, number: int, profile: bool, threshold: int | None = None) -> None:
    os.environ["NTRAILER_OFFAXLE"] = "1"
    sys.path.insert(0, HERE)
    import numpy as np
    import symengine as se
    import geonh  # noqa: F401  (imported before timing: import time is not a stage)
    import geonh.numerics.codegen as codegen
    if threshold is not None and hasattr(codegen, "BLOCK_THRESHOLD"):
        codegen.BLOCK_THRESHOLD = threshold
    import n_trailer_dynamics as base
    from geonh.equations import boltzmann_hamel
    assert base.OFFAXLE

    captured: list = []
    real_lambdify = se.Lambdify

    def spy(args, *exprs, **kw):
        flat = exprs[0] if len(exprs) == 1 else exprs
        captured.append((list(flat), kw.get("cse", False)))
        return real_lambdify(args, *exprs, **kw)

    se.Lambdify = spy

    def emit(**kw):
        print(json.dumps(kw), flush=True)

    out: dict = {"N": N, "geonh": os.path.dirname(geonh.__file__)}

    def clock():
        return time.perf_counter(), time.process_time()

    # geonh's input limits (geonh.limits) are sized for interactive input: raise them for the
    # large models (at N = 64 the kinetic energy has more than 20,000 distinct subexpressions)
    lim = geonh.limits(nodes=10 ** 8, length=10 ** 9) if hasattr(geonh, "limits") else contextlib.nullcontext()
    with lim:
        _stages(N, base, boltzmann_hamel, clock, out, profile, repeats, number, np)
    out["ops"] = _count_program(captured)
    emit(**out)


def _stages(N, base, boltzmann_hamel, clock, out, profile, repeats, number, np):
    m0, d0 = clock()
    model = base.build_model(N)
    w0, c0 = clock()
    out.update(mech=w0 - m0, mech_cpu=c0 - d0)
    system, frame = base._geonh_system_and_frame(model, closed_form=True)
    w1, c1 = clock()
    eq = boltzmann_hamel(system, frame)
    _ = (eq.mass_matrix, eq.forcing, eq.kinematics)
    w2, c2 = clock()
    if profile:
        import cProfile
        import pstats
        pr = cProfile.Profile()
        pr.enable()
    f = eq.ode_function()
    if profile:
        pr.disable()
    w3, c3 = clock()
    rng = np.random.default_rng(1000 + N)
    y = rng.uniform(-1, 1, len(f.state))
    p = rng.uniform(0.5, 2.0, len(f.parameters))
    f(0.0, y, p)
    w4, c4 = clock()
    out.update(model=w1 - w0, model_cpu=c1 - c0, derive=w2 - w1, derive_cpu=c2 - c1,
               codegen=w3 - w2, codegen_cpu=c3 - c2, first=w4 - w3, first_cpu=c4 - c3)
    call = (lambda: f(0.0, y, p))
    t = min(timeit.repeat(call, number=10, repeat=3)) / 10
    n = max(20, min(number, int(0.2 / max(t, 1e-9))))
    walls, cpus = [], []
    gc.disable()
    for _ in range(repeats):
        a, b = clock()
        for _ in range(n):
            call()
        a2, b2 = clock()
        walls.append(a2 - a)
        cpus.append(b2 - b)
    gc.enable()
    out.update(call=statistics.median(walls) / n * 1e6, call_cpu=statistics.median(cpus) / n * 1e6,
               backend=f.backend, n_state=len(y), rhs=[float(v) for v in f(0.0, y, p)])
    if profile:
        st = pstats.Stats(pr, stream=sys.stderr)
        st.sort_stats("cumulative").print_stats(40)
        st.sort_stats("tottime").print_stats(25)


def run(N: int, args, pythonpath: str | None) -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = pythonpath if pythonpath else ROOT
    cmd = [sys.executable, os.path.abspath(__file__), "--worker", str(N), "--repeats", str(args.repeats),
           "--number", str(args.number)] + (["--profile", str(N)] if args.profile == N else []) + (
               ["--block-threshold", str(args.block_threshold)] if args.block_threshold is not None else [])
    label = pythonpath or "this checkout"
    print(f"N = {N} ({label}) ...", file=sys.stderr, flush=True)
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=args.timeout, env=env)
    except subprocess.TimeoutExpired:
        return {"N": N, "failed": "timeout"}
    sys.stderr.write(proc.stderr[-20000:] if args.profile == N else proc.stderr[-2000:])
    for line in proc.stdout.splitlines():
        try:
            return json.loads(line)
        except json.JSONDecodeError:
            continue
    return {"N": N, "failed": proc.returncode}


def slope(Ns, ys) -> float:
    """Least-squares d log y / d log N."""
    pts = [(math.log(n), math.log(y)) for n, y in zip(Ns, ys) if y and y > 0]
    if len(pts) < 2:
        return float("nan")
    mx = sum(a for a, _ in pts) / len(pts)
    my = sum(b for _, b in pts) / len(pts)
    num = sum((a - mx) * (b - my) for a, b in pts)
    den = sum((a - mx) ** 2 for a, _ in pts)
    return num / den


def table(title: str, rows: list) -> None:
    print(f"\n{title}")
    hdr = (f"{'N':>3} {'mech':>13} {'model':>13} {'derive':>13} {'codegen':>13} {'first':>11} {'total':>13} "
           f"{'µs/call':>15} {'ops':>8} {'ns/op':>6}")
    print(hdr)
    print("-" * len(hdr))
    ok = [r for r in rows if "failed" not in r]
    for r in rows:
        if "failed" in r:
            print(f"{r['N']:>3}  failed: {r['failed']}")
            continue
        tot = r["model"] + r["derive"] + r["codegen"]
        tot_c = r["model_cpu"] + r["derive_cpu"] + r["codegen_cpu"]
        cell = lambda k: f"{r[k]:6.2f} ({r[k + '_cpu']:5.2f})"  # noqa: E731
        print(f"{r['N']:>3} {cell('mech')} {cell('model')} {cell('derive')} {cell('codegen')} {r['first']:4.2f} ({r['first_cpu']:4.2f})"
              f" {tot:6.2f} ({tot_c:5.2f}) {r['call']:7.2f} ({r['call_cpu']:5.2f}) {r['ops']:>8} "
              f"{1e3 * r['call'] / max(r['ops'], 1):6.2f}")
    print("  wall s (CPU s); µs/call wall (CPU); ns/op = per-call time / ops")
    if len(ok) >= 2:
        Ns = [r["N"] for r in ok]
        keys = [("model", lambda r: r["model_cpu"]), ("derive", lambda r: r["derive_cpu"]),
                ("codegen", lambda r: r["codegen_cpu"]),
                ("total", lambda r: r["model_cpu"] + r["derive_cpu"] + r["codegen_cpu"]),
                ("µs/call", lambda r: r["call_cpu"]), ("ops", lambda r: r["ops"])]
        pairs = [f"{a}→{b}" for a, b in zip(Ns, Ns[1:])]
        print(f"  exponents d log t / d log N (CPU times): {'stage':<8} " + " ".join(f"{p:>7}" for p in pairs)
              + f" {'fit':>6}")
        for name, get in keys:
            ys = [get(r) for r in ok]
            loc = [slope([a, b], [ya, yb]) for a, b, ya, yb in zip(Ns, Ns[1:], ys, ys[1:])]
            print(f"  {'':<40} {name:<8} " + " ".join(f"{x:7.2f}" for x in loc) + f" {slope(Ns, ys):6.2f}")


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--N", type=int, nargs="+", default=None)
    ap.add_argument("--big", action="store_true", help="add N = 64")
    ap.add_argument("--compare", default=None, help="PYTHONPATH of a second geonh (e.g. main) run beside this one")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--number", type=int, default=20000)
    ap.add_argument("--timeout", type=float, default=3600)
    ap.add_argument("--profile", type=int, default=None, help="cProfile the codegen stage at this N")
    ap.add_argument("--block-threshold", type=int, default=None,
                    help="set geonh.numerics.codegen.BLOCK_THRESHOLD (0: every program in blocks)")
    ap.add_argument("--worker", type=int, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker is not None:
        worker(args.worker, args.repeats, args.number, args.profile is not None, args.block_threshold)
        return
    Ns = args.N or [4, 8, 16, 32]
    if args.big and 64 not in Ns:
        Ns = Ns + [64]
    import numpy
    import sympy
    import symengine
    print(f"Dynamic N-trailer, masses off the axles: model → equations → compiled RHS.  sympy {sympy.__version__}, "
          f"symengine {symengine.__version__}, numpy {numpy.__version__}, Python {platform.python_version()}, "
          f"{os.cpu_count()} CPUs; each N in a fresh process.")
    mine, theirs = [], []
    for N in Ns:
        if args.compare:
            theirs.append(run(N, args, args.compare))
        mine.append(run(N, args, None))
    if args.compare:
        table(f"BEFORE ({args.compare})", theirs)
    table(f"AFTER (this checkout, {ROOT})" if args.compare else f"this checkout ({ROOT})", mine)
    if args.compare:
        print("\nagreement of the RHS at the random state (max relative difference), codegen speed-up (CPU):")
        import numpy as np
        for a, b in zip(theirs, mine):
            if "rhs" in a and "rhs" in b:
                ra, rb = np.array(a["rhs"]), np.array(b["rhs"])
                rel = float(np.max(np.abs(ra - rb) / np.maximum(np.abs(ra), 1e-300)))
                print(f"  N = {a['N']:>3}: {rel:.1e}, codegen {a['codegen_cpu'] / b['codegen_cpu']:.1f}×, "
                      f"ops {a['ops']} → {b['ops']}")


if __name__ == "__main__":
    main()
