#!/usr/bin/env python
"""Benchmark: what compiling the bicycle sweep's jet program costs on each route, CPU counted
with the compiler's child processes.

The compiled linearization (``geonh.analysis.linearize``) compiles ONE function: the values and
the exact Jacobian of the Whipple bicycle's equations (``compile_function(..., wrt=...,
jet=True)``, forward mode on the shared graph).  This script captures exactly that call in a
cold sweep's first ``Equations.linearize`` (the model and the Boltzmann–Hamel equations of
``benchmarks/bicycle_linearize.py --sweep``), then compiles the same expressions again on

* ``llvm-O<k>``  symengine's LLVM ``Lambdify`` (the current route: opt_level 0), and
* ``c-O<k>``     geonh's C backend (:mod:`geonh.numerics.cbackend`: the program printed as C,
  built by the system C compiler as a CPython extension),

each in a fresh process with ``GEONH_CACHE=off``.  Timed: the compile call, as CPU seconds of
this process (``time.process_time``), CPU of its children (the C compiler; ``os.times``), their
sum, and wall seconds — the sum is the honest figure: a route that moves work into a
subprocess is not cheaper for it.  Reported: medians over repeats, the per-call time, and the
largest relative difference of the C route's values and Jacobian from the LLVM route's at a
random point.

Usage:  python benchmarks/sweep_compile_routes.py [--repeats 3] [--c-levels 0 1] [--llvm-levels 0]
Progress goes to stderr, the table to stdout.  See benchmarks/README.md.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time


def worker(backend: str, level: int) -> dict:
    """Capture the jet compile of a cold sweep's first point, then compile it on ``backend``."""
    os.environ["GEONH_CACHE"] = "off"
    import numpy as np

    import geonh.numerics.codegen as codegen
    from geonh.models.bicycle import benchmark_operating_point, whipple_bicycle
    captured: dict = {}
    original = codegen.compile_function

    def spy(exprs, args, **kw):
        if kw.get("jet"):
            captured.update(exprs=exprs, args=args, kw=kw)
        return original(exprs, args, **kw)

    codegen.compile_function = spy
    model = whipple_bicycle()
    eq = model.equations("boltzmann-hamel")
    names = {str(s) for s in model.parameters}
    kw = {"ignorable": "auto", "inputs": [x for x in ("T_phi", "T_delta") if x in names], "dependent": ("theta",)}
    eq.linearize(benchmark_operating_point(model, 1.0), **kw)
    codegen.compile_function = original
    exprs, args, ckw = captured["exprs"], captured["args"], captured["kw"]
    ckw = {**ckw, "backend": backend, "opt_level": level}
    before, c0, w0 = os.times(), time.process_time(), time.perf_counter()
    fn = original(exprs, args, **ckw)
    c1, w1, after = time.process_time(), time.perf_counter(), os.times()
    children = (after.children_user + after.children_system) - (before.children_user + before.children_system)
    x = np.random.default_rng(1).uniform(0.2, 1.2, len(fn.args))
    ref = original(exprs, args, **{**ckw, "backend": "llvm", "opt_level": 0})(x) if backend != "llvm" else fn(x)
    val = fn(x)
    scale = np.maximum(np.abs(ref), 1.0)
    t = time.perf_counter()
    for _ in range(2000):
        fn(x)
    call = (time.perf_counter() - t) / 2000
    return {"cpu": c1 - c0, "children": children, "wall": w1 - w0, "call_us": call * 1e6,
            "rel": float(np.max(np.abs(val - ref) / scale)), "size": int(fn.size)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--c-levels", type=int, nargs="*", default=[0, 1])
    ap.add_argument("--llvm-levels", type=int, nargs="*", default=[0])
    ap.add_argument("--timeout", type=float, default=300)
    ap.add_argument("--worker", nargs=2, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        print("RESULT " + json.dumps(worker(args.worker[0], int(args.worker[1]))), flush=True)
        return
    cases = [("llvm", k) for k in args.llvm_levels] + [("c", k) for k in args.c_levels]
    rows: dict = {case: [] for case in cases}
    for r in range(args.repeats):
        for case in cases:               # interleaved: the machine's load hits every route alike
            print(f"repeat {r + 1}: {case[0]}-O{case[1]}", file=sys.stderr, flush=True)
            try:
                out = subprocess.run([sys.executable, __file__, "--worker", case[0], str(case[1])],
                                     capture_output=True, text=True, timeout=args.timeout, check=False)
            except subprocess.TimeoutExpired:
                print(f"  timed out after {args.timeout} s", file=sys.stderr)
                continue
            line = [ln for ln in out.stdout.splitlines() if ln.startswith("RESULT ")]
            if not line:
                print(out.stderr[-2000:], file=sys.stderr)
                continue
            rows[case].append(json.loads(line[0][7:]))
    print(f"{'route':10s} {'runs':>4s} {'CPU self':>9s} {'CPU cc':>7s} {'CPU sum':>8s} {'wall':>6s} "
          f"{'call [us]':>9s} {'max rel vs llvm-O0':>19s}")
    for (backend, level), rs in rows.items():
        if not rs:
            print(f"{backend}-O{level:<6d} {0:4d}  (no result)")
            continue
        med = {k: statistics.median(x[k] for x in rs) for k in ("cpu", "children", "wall", "call_us")}
        rel = max(x["rel"] for x in rs)
        print(f"{backend + '-O' + str(level):10s} {len(rs):4d} {med['cpu']:9.3f} {med['children']:7.3f} "
              f"{med['cpu'] + med['children']:8.3f} {med['wall']:6.3f} {med['call_us']:9.1f} {rel:19.2e}")


if __name__ == "__main__":
    main()
