"""What geonh's hypothesis entry point adds to every ``import hypothesis``: fresh processes, medians.

    python benchmarks/hypothesis_import_cost.py [--runs 9] [--importtime]

Hypothesis calls every function registered under the ``hypothesis`` entry-point group at the
end of its own import, so with geonh installed each ``import hypothesis`` — in any project of
that environment — runs geonh's profile hook.  Three probes, each a fresh interpreter started
from a neutral directory, alternating so that a noisy neighbour hits all alike:

``no plugins``
    ``import hypothesis`` with ``HYPOTHESIS_NO_PLUGINS=1``: hypothesis alone, the floor.
``scan only``
    ``HYPOTHESIS_NO_PLUGINS=1``, then the search for the group's entry points that hypothesis
    does at import (reading every installed distribution's metadata) without loading any:
    what ``import hypothesis`` costs with hooks that cost nothing.
``entry points``
    ``import hypothesis`` as installed: every registered hook runs, geonh's among them.
``old geonh hook``
    ``HYPOTHESIS_NO_PLUGINS=1``, then what the hook did before issue 24's follow-up, by hand:
    ``import hypothesis; from geonh.testing.plugin import register_profiles; register_profiles()``
    (importing a submodule runs ``geonh/__init__.py`` first, which imports sympy).
``new geonh hook``
    the same with the hook of the entry point now, ``_geonh_hypothesis.register_profiles``.

``entry points`` includes every other distribution's hook too (trio registers one, for example);
``old geonh hook`` − ``no plugins`` and ``new geonh hook`` − ``no plugins`` isolate geonh's share.

Each probe prints its own wall time (perf_counter) and CPU time (process_time; the
interpreter's start-up is left out of both) and whether geonh and sympy were imported.
``--importtime`` also prints the largest cumulative entries of ``python -X importtime -c
"import hypothesis"`` (entry points on).
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile

from import_time import child_env  # same bytecode-cache policy as benchmarks/import_time.py

_TIMED = ("import json, sys, time; w = time.perf_counter(); c = time.process_time(); {body}; "
          "print(json.dumps([time.perf_counter() - w, time.process_time() - c, "
          "'geonh' in sys.modules, 'sympy' in sys.modules]))")

#: probe name -> (code timed, HYPOTHESIS_NO_PLUGINS set)
PROBES: dict[str, tuple[str, bool]] = {
    "no plugins": ("import hypothesis", True),
    "scan only": ("import hypothesis, importlib.metadata; "
                  "[e.name for e in importlib.metadata.entry_points(group='hypothesis')]", True),
    "entry points": ("import hypothesis", False),
    "old geonh hook": ("import hypothesis; from geonh.testing.plugin import register_profiles; "
                       "register_profiles()", True),
    "new geonh hook": ("import hypothesis; from _geonh_hypothesis import register_profiles; register_profiles()", True),
}


def one(body: str, no_plugins: bool, env: dict[str, str], cwd: str | None = None) -> tuple[float, float, bool, bool]:
    """(wall s, CPU s, geonh imported, sympy imported) of ``body`` in a fresh interpreter started
    in ``cwd`` (default: the temporary directory)."""
    import json

    env = dict(env)
    if no_plugins:
        env["HYPOTHESIS_NO_PLUGINS"] = "1"
    else:
        env.pop("HYPOTHESIS_NO_PLUGINS", None)
    out = subprocess.run([sys.executable, "-c", _TIMED.format(body=body)], capture_output=True, text=True,
                         timeout=120, check=True, cwd=cwd or tempfile.gettempdir(), env=env).stdout
    wall, cpu, geonh, sympy = json.loads(out.strip().splitlines()[-1])
    return wall, cpu, geonh, sympy


def measure(probes: dict[str, tuple[str, bool]], runs: int, env: dict[str, str],
            cwd: str | None = None) -> dict[str, list[tuple[float, float, bool, bool]]]:
    """Every probe ``runs`` times by :func:`one`, alternating (a noisy neighbour hits all alike),
    after one warm-up round that writes the bytecode cache."""
    for body, no_plugins in probes.values():
        one(body, no_plugins, env, cwd)
    out: dict[str, list[tuple[float, float, bool, bool]]] = {name: [] for name in probes}
    for _ in range(runs):
        for name, (body, no_plugins) in probes.items():
            out[name].append(one(body, no_plugins, env, cwd))
    return out


def print_table(runs: dict[str, list[tuple[float, float, bool, bool]]], floor: str) -> None:
    """Medians of wall and CPU per probe, and their excess over the probe ``floor``."""
    n = len(runs[floor])
    base = statistics.median(r[0] for r in runs[floor]), statistics.median(r[1] for r in runs[floor])
    print(f"{'probe':20s} {'wall s':>7s} {'cpu s':>7s} {'+wall':>7s} {'+cpu':>7s}  geonh  sympy"
          f"   (median of {n}; + is over {floor!r})")
    for name, rs in runs.items():
        wall, cpu = statistics.median(r[0] for r in rs), statistics.median(r[1] for r in rs)
        print(f"{name:20s} {wall:7.3f} {cpu:7.3f} {wall - base[0]:+7.3f} {cpu - base[1]:+7.3f}  "
              f"{str(rs[-1][2]):5s}  {str(rs[-1][3]):5s}")


def importtime_top(env: dict[str, str], n: int = 8) -> list[tuple[int, str]]:
    """The ``n`` largest cumulative entries (µs, module) of ``-X importtime -c "import hypothesis"``."""
    env = {k: v for k, v in env.items() if k != "HYPOTHESIS_NO_PLUGINS"}
    err = subprocess.run([sys.executable, "-X", "importtime", "-c", "import hypothesis"], capture_output=True,
                         text=True, timeout=120, check=True, cwd=tempfile.gettempdir(), env=env).stderr
    rows = []
    for line in err.splitlines():
        parts = line.split("|")
        if line.startswith("import time:") and len(parts) == 3 and parts[1].strip().isdigit():
            rows.append((int(parts[1]), parts[2].strip()))
    return sorted(rows, reverse=True)[:n]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=9)
    ap.add_argument("--importtime", action="store_true", help="also print the top of -X importtime")
    args = ap.parse_args()
    env = child_env(cache=True)
    print_table(measure(PROBES, args.runs, env), "no plugins")
    if args.importtime:
        print("\n-X importtime, import hypothesis (entry points on), largest cumulative entries:")
        for us, mod in importtime_top(env):
            print(f"  {us / 1e6:7.3f} s  {mod}")


if __name__ == "__main__":
    main()
