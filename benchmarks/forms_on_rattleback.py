"""Every applicable form of ``geonh.FORMS`` on the built-in rattleback, on each backend: median
CPU and wall seconds of ``Mo.equations(form)`` with its M and F, optionally beside another checkout.

    python benchmarks/forms_on_rattleback.py [--repeats 3] [--before PATH] [--limit 600] [--only FORM ...]
                                             [--compare]

Each measurement runs in a fresh child process (cold sympy cache; ``run_child`` of
benchmarks/momentum_map_on_equations.py: no compile cache, 6 GB of memory, ``--limit``
seconds); the model is built first, outside the timing.  ``--before PATH``: also measure the
geonh of the checkout at PATH (e.g. ``git worktree add --detach /tmp/base main``), the two
alternating, so both columns come from one run of this script, with the ratio before/after of
the CPU medians.  ``--compare``: one more row, the cost of what
tests/equations/test_engine_backends.py does besides deriving — the exact comparison of the
two backends' entries (``assert_identical`` of that tree's test module) — on every form.
"""
from __future__ import annotations

import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from momentum_map_on_equations import (before_after_arguments, measured_trees, repeated_runs,  # noqa: E402
                                       run_child)

HERE = Path(__file__).resolve().parents[1]
BACKENDS = ("symengine", "sympy")

CHILD = r'''
import json, sys, time
import geonh as g
from geonh import models
from geonh.kernel import backend as bk
form, backend = sys.argv[1], sys.argv[2]
Mo = models.get("rattleback")
with bk.using_backend(backend):
    t, w = time.process_time(), time.perf_counter()
    eqs = Mo.equations(form)
    eqs.mass_matrix, eqs.forcing          # M and F of M x = F (read off the residuals when not given)
    cpu, wall = time.process_time() - t, time.perf_counter() - w
print(json.dumps({"cpu": cpu, "wall": wall, "geonh": g.__file__}))
'''

#: the test's own work besides the derivations: both backends' results, then (timed) the exact
#: comparison of every entry by ``assert_identical`` of that tree's
#: tests/equations/test_engine_backends.py (sympify of each entry included)
COMPARE = r'''
import importlib.util, json, sys, time
import geonh as g
from geonh import models
from geonh.kernel import backend as bk
spec = importlib.util.spec_from_file_location("teb", "tests/equations/test_engine_backends.py")
teb = importlib.util.module_from_spec(spec)
spec.loader.exec_module(teb)
Mo = models.get("rattleback")
forms = [f for f, e in g.FORMS.items() if e.applies(Mo.system, Mo.dependent)]
pairs = []
for form in forms:
    with bk.using_backend("symengine"):
        a = Mo.equations(form)
    with bk.using_backend("sympy"):
        b = Mo.equations(form)
    pairs.append((form, a, b, teb.equation_entries(a), teb.equation_entries(b)))   # M, F computed here
t, w = time.process_time(), time.perf_counter()
for form, a, b, _, _ in pairs:
    teb.assert_identical(a, b, form)
print(json.dumps({"cpu": time.process_time() - t, "wall": time.perf_counter() - w, "geonh": g.__file__}))
'''


def forms(path: str) -> list[str]:
    """The forms that apply to the rattleback, as the checkout at ``path`` says."""
    r = run_child("import json, geonh as g\nfrom geonh import models\nMo = models.get('rattleback')\n"
                  "print(json.dumps({'forms': [f for f, e in g.FORMS.items() if e.applies(Mo.system, Mo.dependent)]}))",
                  [], path, 120.0)
    if "error" in r:
        sys.exit(f"cannot list the forms at {path}: {r['error']}")
    return r["forms"]


def main() -> None:
    ap = before_after_arguments(__doc__.splitlines()[0], 600.0, "forms to measure (all applicable by default)")
    ap.add_argument("--compare", action="store_true", help="also time the test's to_sympy + exact comparison")
    args = ap.parse_args()
    trees = measured_trees(args, HERE)
    cases: list[tuple[str, str, str]] = [(f, b, CHILD) for f in forms(str(HERE)) for b in BACKENDS
                                         if not args.only or f in args.only]
    if args.compare:
        cases.append(("(test's comparison)", "both", COMPARE))
    head = " | ".join(f"{t} CPU s | {t} wall s" for t, _ in trees)
    print(f"| form | backend | {head} |" + (" before/after CPU |" if args.before else ""))
    print("|---|---|" + "---|---|" * len(trees) + ("---|" if args.before else ""))
    totals = {t: 0.0 for t, _ in trees}
    for form, backend, child in cases:
        runs = repeated_runs(child, [form, backend], trees, args.repeats, args.limit)
        cells, cpu = [], {}
        for t, _ in trees:
            ok = [r for r in runs[t] if "error" not in r]
            if ok:
                cpu[t] = statistics.median(r["cpu"] for r in ok)
                totals[t] += cpu[t]
                cells += [f"{cpu[t]:.2f}", f"{statistics.median(r['wall'] for r in ok):.2f}"]
            else:
                cells += [runs[t][0]["error"], ""]
        ratio = ([f"{cpu['before'] / cpu['after']:.1f}" if len(cpu) == 2 and cpu["after"] > 0 else ""]
                 if args.before else [])
        print(f"| {form} | {backend} | " + " | ".join(cells + ratio) + " |", flush=True)
    ratio = ([f"{totals['before'] / totals['after']:.1f}"] if args.before and totals["after"] > 0 else [])
    print("| **total** | | " + " | ".join([c for t, _ in trees for c in (f"{totals[t]:.2f}", "")] + ratio) + " |")


if __name__ == "__main__":
    main()
