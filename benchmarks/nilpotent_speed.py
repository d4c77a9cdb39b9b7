"""Time of the nilpotent approximation at a point (geonh.control.nilpotent, issue 25) before and
after deciding each value at the point by ``is_zero`` instead of ``simplify``.

Each case runs in a fresh interpreter (import and the bracket caches are not shared) with
``PYTHONPATH`` set to one checkout, so "before" and "after" are timed in ONE run of this script:

    git worktree add --detach /work/wt/base-nilpotent main      # the "before" checkout, read-only
    python benchmarks/nilpotent_speed.py --before /work/wt/base-nilpotent --after . [--limit 300] [--repeat 3]

Cases: the kinematic car at a symbolic point (0, 0, a, b) and at a numeric point
(0, 0, 1/3, 1/5), the 1-trailer at (0, 0, a, b), the 2-trailer at (0, 0, a, b, c).  Printed per
case and checkout: median wall and CPU seconds (time.process_time of the child) over
``--repeat`` runs, the weights and whether every field is homogeneous of degree −1; a run past
``--limit`` wall seconds is stopped and printed as "> limit" wall, "> its CPU so far" (and not
repeated).
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys

CHILD = r"""
import json, sys, time
import sympy as sp
import geonh
from geonh import models
from geonh.control.nilpotent import is_homogeneous, nilpotent_approximation
a, b, c = sp.symbols("a b c")
model, point = {"car": ("kinematic-car", [0, 0, a, b]),
                "car-numeric": ("kinematic-car", [0, 0, sp.Rational(1, 3), sp.Rational(1, 5)]),
                "1-trailer": ("1-trailer", [0, 0, a, b]),
                "2-trailer": ("2-trailer", [0, 0, a, b, c])}[sys.argv[1]]
fields = list(models.get(model).frame.fields[:2])
w0, c0 = time.perf_counter(), time.process_time()
na = nilpotent_approximation(fields, point)
wall, cpu = time.perf_counter() - w0, time.process_time() - c0
print(json.dumps({"geonh": geonh.__file__, "wall": wall, "cpu": cpu, "weights": list(na.weights),
                  "homogeneous": all(is_homogeneous(X, na.weights, -1) for X in na.fields)}))
"""

CASES = ("car", "car-numeric", "1-trailer", "2-trailer")


def children_cpu() -> float:
    """CPU seconds (user + system) of the reaped child processes so far."""
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def once(checkout: str, case: str, limit: float) -> dict | float:
    """The child's report, or the CPU seconds it had used when it was stopped at ``limit``."""
    root = os.path.abspath(checkout)
    env = dict(os.environ, PYTHONPATH=root, GEONH_CACHE="off")
    cpu0 = children_cpu()
    try:   # cwd=root: ``python -c`` puts the working directory first on sys.path
        out = subprocess.run([sys.executable, "-c", CHILD, case], env=env, capture_output=True, text=True,
                             timeout=limit, check=True, cwd=root)
    except subprocess.TimeoutExpired:   # the child is killed and reaped
        return children_cpu() - cpu0
    result = json.loads(out.stdout.strip().splitlines()[-1])
    if not result["geonh"].startswith(root + os.sep):
        raise SystemExit(f"{checkout}: imported geonh from {result['geonh']}, not from the checkout")
    return result


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--before", required=True, help="checkout timed as 'before'")
    ap.add_argument("--after", default=".", help="checkout timed as 'after'")
    ap.add_argument("--limit", type=float, default=300.0, help="wall seconds before a run is stopped")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--cases", nargs="*", default=list(CASES), choices=CASES)
    args = ap.parse_args()
    print(f"{'case':12} {'checkout':7} {'wall s':>9} {'cpu s':>9}  weights          homogeneous")
    for case in args.cases:
        for label, checkout in (("before", args.before), ("after", args.after)):
            runs = []
            for _ in range(args.repeat):
                r = once(checkout, case, args.limit)
                if isinstance(r, float):
                    stopped = r
                    break
                runs.append(r)
            if not runs:
                print(f"{case:12} {label:7} {'> ' + str(int(args.limit)):>9} {'> ' + format(stopped, '.0f'):>9}  "
                      "(stopped, unfinished)", flush=True)
                continue
            wall = statistics.median(r["wall"] for r in runs)
            cpu = statistics.median(r["cpu"] for r in runs)
            print(f"{case:12} {label:7} {wall:9.2f} {cpu:9.2f}  {str(tuple(runs[0]['weights'])):16} "
                  f"{runs[0]['homogeneous']}", flush=True)


if __name__ == "__main__":
    main()
