"""``energy_integral`` on the Chaplygin ball (issue 22, part 5: ≤ 1 s): median wall and CPU time.

    python benchmarks/energy_integral.py [--repeats 3] [--dump FILE]

Each repeat clears sympy's cache first and times ``energy_integral(eqs)`` for the ball's
Boltzmann–Hamel equations (derived once, outside the timing).  ``--dump`` writes the result
(expression, verdict, rate, terms) as ``srepr`` text, to compare two checkouts' results.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.append(str(Path(__file__).resolve().parents[1]))  # an installed geonh or PYTHONPATH comes first

import sympy as sp  # noqa: E402
from sympy.core.cache import clear_cache  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--dump", default=None)
    args = ap.parse_args()
    import geonh
    eqs = geonh.models.get("chaplygin-ball").equations("boltzmann-hamel")
    walls, cpus = [], []
    for _ in range(args.repeats):
        clear_cache()
        w, c = time.perf_counter(), time.process_time()
        E = geonh.energy_integral(eqs)
        walls.append(time.perf_counter() - w)
        cpus.append(time.process_time() - c)
    print(f"geonh {Path(geonh.__file__).parent}: energy_integral(chaplygin-ball)  wall {statistics.median(walls):.3f} s"
          f"  cpu {statistics.median(cpus):.3f} s  (median of {args.repeats}; target ≤ 1 s)  conserved={E.conserved}")
    if args.dump:
        text = "\n".join([sp.srepr(E.expression), str(E.conserved), sp.srepr(E.rate),
                          *(f"{k}: {sp.srepr(v)} {E.vanishing[k]}" for k, v in E.terms.items())])
        Path(args.dump).write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
