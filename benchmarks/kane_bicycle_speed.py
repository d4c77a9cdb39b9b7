#!/usr/bin/env python
"""Benchmark: Kane's form of sympy's Whipple bicycle (test_kane3 set-up, 27 parameters
symbolic) brought in with ``from_kanes_method`` — the time of ``geonh.kane(ms, kane_frame(km, ms))``
and of ``geonh.lagrange(ms)`` beside it, in fresh processes, CPU (``time.process_time``) and wall.

Before/after in one run: ``--before DIR`` times a read-only checkout of main beside this one
(``git worktree add --detach DIR main``), put first on ``PYTHONPATH``; a run killed after
``--timeout`` seconds prints "timeout".  The set-up is that of tests/models/test_interop_bicycle.py.

    python benchmarks/kane_bicycle_speed.py [--before /work/wt/base-kaneperf] [--repeats 3] [--timeout 900]
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

CHILD = r"""
import sys, time
sys.path.insert(0, {tests!r})
from test_interop_bicycle import whipple_bicycle
import geonh as g
from geonh.models.interop import from_kanes_method, kane_frame
km, P, speed, coord = whipple_bicycle()
conds = [P["Iframe11"] * P["Iframe33"] - P["Iframe31"]**2 > 0, P["Ifork11"] * P["Ifork33"] - P["Ifork31"]**2 > 0]
ms = from_kanes_method(km, conditions=conds)
frame = kane_frame(km, ms) if {form!r} == "kane" else None
c0, w0 = time.process_time(), time.perf_counter()
eqs = g.kane(ms, frame) if frame is not None else g.lagrange(ms)
eqs.mass_matrix, eqs.forcing
print("TIME", time.process_time() - c0, time.perf_counter() - w0)
"""


def one(src: str | None, form: str, timeout: float) -> tuple[float, float] | None:
    env = dict(os.environ)
    if src:
        env["PYTHONPATH"] = src + os.pathsep + env.get("PYTHONPATH", "")
    code = CHILD.format(tests=str(ROOT / "tests" / "models"), form=form)
    try:
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=timeout,
                             cwd="/")
    except subprocess.TimeoutExpired:
        return None
    line = [x for x in out.stdout.splitlines() if x.startswith("TIME")]
    if not line:
        raise RuntimeError(out.stderr[-2000:])
    cpu, wall = map(float, line[0].split()[1:])
    return cpu, wall


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--before", default=None, help="a checkout of main to time beside this one")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--timeout", type=float, default=900.0)
    a = ap.parse_args()
    runs = ([("before", a.before)] if a.before else []) + [("after", str(ROOT))]
    for label, src in runs:
        for form in ("kane", "lagrange"):
            times = [one(src, form, a.timeout) for _ in range(a.repeats)]
            done = [t for t in times if t is not None]
            if not done:
                print(f"{label:6s} {form:8s} timeout (> {a.timeout:.0f} s)", flush=True)
                continue
            print(f"{label:6s} {form:8s} cpu {statistics.median(t[0] for t in done):7.2f} s  "
                  f"wall {statistics.median(t[1] for t in done):7.2f} s  ({len(done)}/{a.repeats} runs)", flush=True)


if __name__ == "__main__":
    main()
