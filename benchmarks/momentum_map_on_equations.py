"""``momentum_map(system, gens).on(eqs)`` and ``.check(eqs)`` on the literature models (issue 26):
median CPU and wall seconds per (model, form), optionally beside another checkout.

    python benchmarks/momentum_map_on_equations.py [--repeats 3] [--before PATH] [--limit 300] [--only NAME ...]

Each measurement runs in a fresh child process (cold sympy cache) with a time limit
(``--limit`` seconds) and an address-space limit of 6 GB; the model, its equations and the
momentum map are built first, outside the timing.  ``--before PATH``: also measure the geonh
of the checkout at PATH (e.g. ``git worktree add --detach /tmp/base main``), the two
alternating, so both columns come from one run of this script.  Generators: SE(2) on (x, y,
heading) — the heading θ, or ψ with the contact point for the rolling bodies — plus the wheel
angles of the differential drive; the rotor angles α_k of the spherical robot.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]

CASES = [("snakeboard", "boltzmann-hamel"), ("roller-racer", "boltzmann-hamel"),
         ("differential-drive", "boltzmann-hamel"), ("routh-sphere", "boltzmann-hamel"),
         ("rattleback", "boltzmann-hamel"), ("snakeboard", "kane"), ("routh-sphere", "kane"),
         ("spherical-robot", "boltzmann-hamel"), ("spherical-robot", "kane")]

CHILD = r'''
import json, sys, time
from geonh import VectorField, models
from geonh.analysis import momentum_map
name, form = sys.argv[1], sys.argv[2]
model = models.get(name)
S = model.space
q = {s.name: s for s in S.q}
if name == "spherical-robot":
    gens = [VectorField.coordinate(S, q[a]) for a in ("alpha1", "alpha2", "alpha3")]
else:
    x, y = q["x"], q["y"]
    turn = q["psi"] if name in ("routh-sphere", "rattleback") else q["theta"]
    rot = {x: -y, y: x, turn: 1}
    gens = [VectorField.coordinate(S, x), VectorField.coordinate(S, y),
            VectorField(S, [rot.get(s, 0) for s in S.q])]
    if name == "differential-drive":
        gens += [VectorField.coordinate(S, q["phiR"]), VectorField.coordinate(S, q["phiL"])]
eqs = model.equations(form)
mm = momentum_map(model.system, gens)
t, w = time.process_time(), time.perf_counter()
on = mm.on(eqs)
ck = mm.check(eqs)
import geonh
print(json.dumps({"cpu": time.process_time() - t, "wall": time.perf_counter() - w,
                  "conserved": [I.conserved for I in on], "check": ck, "geonh": geonh.__file__}))
'''


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (6 * 10**9, 6 * 10**9))


def run_child(child: str, args: list[str], path: str, limit: float) -> dict:
    """Run the script ``child`` with ``args`` in a fresh interpreter importing geonh from
    ``path`` (no compile cache, 6 GB of memory, ``limit`` seconds); the JSON of its last line,
    or {"error": why}.  Also used by benchmarks/integral_rates.py."""
    env = dict(os.environ, PYTHONPATH=path, GEONH_CACHE="off")
    try:
        p = subprocess.run([sys.executable, "-c", child, *args], env=env, capture_output=True, text=True,
                           timeout=limit, preexec_fn=_limit_memory, cwd=path)   # '' on sys.path is that tree
    except subprocess.TimeoutExpired:
        return {"error": f"> {limit:g} s"}
    if p.returncode != 0:
        return {"error": (p.stderr.strip().splitlines() or ["failed"])[-1][:60]}
    return json.loads(p.stdout.strip().splitlines()[-1])


def repeated_runs(child: str, args: list[str], trees: list[tuple[str, str]], repeats: int, limit: float) -> dict:
    """{tree label: [results of :func:`run_child`]}: ``repeats`` runs of ``child`` per tree,
    interleaved; a time-out or memory error is not repeated; exits when a run imported geonh
    from another tree than its own.  Also used by benchmarks/integral_rates.py and
    benchmarks/forms_on_rattleback.py."""
    runs: dict = {t: [] for t, _ in trees}
    for k in range(repeats):
        for t, path in trees:
            if runs[t] and "error" in runs[t][-1]:
                continue
            print(f"{' '.join(args)} {t} {k + 1}/{repeats}", file=sys.stderr, flush=True)
            r = run_child(child, args, path, limit)
            if "geonh" in r and not r["geonh"].startswith(str(Path(path).resolve())):
                sys.exit(f"the {t} run imported geonh from {r['geonh']}, not from {path}")
            runs[t].append(r)
    return runs


def median_cells(runs: dict, trees: list[tuple[str, str]]) -> tuple[list[str], dict[str, list[dict]]]:
    """The table cells (median CPU s, median wall s) of each tree's runs (:func:`repeated_runs`),
    or its first error and an empty cell, and the successful runs by tree.  Also used by
    benchmarks/integral_rates.py."""
    cells, ok = [], {}
    for t, _ in trees:
        ok[t] = [r for r in runs[t] if "error" not in r]
        if ok[t]:
            cells += [f"{statistics.median(r['cpu'] for r in ok[t]):.2f}",
                      f"{statistics.median(r['wall'] for r in ok[t]):.2f}"]
        else:
            cells += [runs[t][0]["error"], ""]
    return cells, ok


def before_after_arguments(description: str, limit: float, only: str) -> argparse.ArgumentParser:
    """The options every before/after benchmark here takes: --repeats, --before, --limit, --only
    (``only`` its help); :func:`measured_trees` reads them.  Also used by benchmarks/integral_rates.py and
    benchmarks/forms_on_rattleback.py."""
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--before", default=None, help="a checkout of geonh to measure beside this one")
    ap.add_argument("--limit", type=float, default=limit, help="seconds per measurement")
    ap.add_argument("--only", nargs="*", default=None, help=only)
    return ap


def measured_trees(args: argparse.Namespace, here: Path) -> list[tuple[str, str]]:
    """[("before", the --before checkout) if given, ("after", this tree)]."""
    return ([("before", args.before)] if args.before else []) + [("after", str(here))]


def main() -> None:
    args = before_after_arguments(__doc__.splitlines()[0], 300.0, "model names to measure (all by default)").parse_args()
    trees = measured_trees(args, HERE)
    print("| model | form | " + " | ".join(f"{t} CPU s | {t} wall s" for t, _ in trees) + " | verdicts |")
    print("|---|---|" + "---|---|" * len(trees) + "---|")
    for name, form in CASES:
        if args.only and name not in args.only:
            continue
        runs = repeated_runs(CHILD, [name, form], trees, args.repeats, args.limit)
        cells, ok = median_cells(runs, trees)
        verdicts = {json.dumps([r["conserved"], r["check"]]) for rs in ok.values() for r in rs}
        print(f"| {name} | {form} | " + " | ".join(cells) + f" | {' / '.join(sorted(verdicts))} |", flush=True)


if __name__ == "__main__":
    main()
