"""``import geonh`` against ``import sympy``: fresh processes, medians of wall and CPU time.

    python benchmarks/import_time.py [--runs 9] [--no-bytecode-cache]

Each run starts a new interpreter that imports one module and prints its own wall time
(perf_counter) and CPU time (process_time, so the interpreter's start-up is left out of both),
from a neutral directory (the geonh imported is the installed one, or the one on PYTHONPATH);
the runs of the two imports alternate so that a noisy neighbour hits both alike.  Target
(issue 22, part 5): geonh ≤ 1.3× sympy.
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile

_PROBE = ("import time; w = time.perf_counter(); c = time.process_time(); import {mod}; "
          "print(time.perf_counter() - w, time.process_time() - c)")


def child_env(cache: bool) -> dict[str, str]:
    """The environment of the probes: with ``cache``, bytecode is written and read (as after a
    normal install) under a private PYTHONPYCACHEPREFIX, so no checkout is written to; without,
    every module is compiled from source on every import (PYTHONDONTWRITEBYTECODE=1, no prefix)."""
    env = dict(os.environ)
    if cache:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = os.path.join(tempfile.gettempdir(), "geonh_import_time_pycache")
    else:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
        env.pop("PYTHONPYCACHEPREFIX", None)
    return env


def one(mod: str, env: dict[str, str]) -> tuple[float, float]:
    """Wall and CPU seconds of ``import mod`` in a fresh interpreter."""
    out = subprocess.run([sys.executable, "-c", _PROBE.format(mod=mod)], capture_output=True, text=True,
                         timeout=120, check=True, cwd=tempfile.gettempdir(), env=env).stdout.split()
    return float(out[0]), float(out[1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=9)
    ap.add_argument("--no-bytecode-cache", action="store_true",
                    help="compile every module from source on every import (PYTHONDONTWRITEBYTECODE=1)")
    args = ap.parse_args()
    env = child_env(cache=not args.no_bytecode_cache)
    mods = ("sympy", "geonh")
    for m in mods:  # warm-up: writes the bytecode cache when there is one
        one(m, env)
    times: dict[str, list[tuple[float, float]]] = {m: [] for m in mods}
    for _ in range(args.runs):
        for m in mods:
            times[m].append(one(m, env))
    med = {m: (statistics.median(w for w, _ in t), statistics.median(c for _, c in t)) for m, t in times.items()}
    for m in mods:
        print(f"import {m:6s}  wall {med[m][0]:.3f} s  cpu {med[m][1]:.3f} s  (median of {args.runs})")
    print("bytecode cache:", "off (every import compiles)" if args.no_bytecode_cache else "on")
    print(f"ratio geonh/sympy  wall {med['geonh'][0] / med['sympy'][0]:.2f}  cpu {med['geonh'][1] / med['sympy'][1]:.2f}"
          "  (target ≤ 1.3)")


if __name__ == "__main__":
    main()
