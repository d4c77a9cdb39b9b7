#!/usr/bin/env python
"""The accuracy table of the exports (issue 27, part 1): for each system of
tests/numerics/test_export.py (the same states, drawn by the test's own functions), the max
relative difference of ẏ — normwise per state, ‖a − b‖∞ / max(1, ‖b‖∞), and per entry,
|a_i − b_i| / max(1, |b_i|) — of every export and of ``ode_function`` to the 30-digit truth
and to ``ode_function``, with κ(M) over the states.

Systems: the Whipple bicycle at the benchmark's parameters (~5 m/s), the dynamic 3-trailer
(Boltzmann–Hamel and Lagrange), the Chaplygin ball — 100 states each — and the bicycle at
``sample_state``'s random parameters ("bicycle (sampled)", the ill-conditioned states).

Usage:  python benchmarks/export_accuracy.py   (needs the test extra and a C compiler)
"""
from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "numerics"))
import test_export as T  # noqa: E402 - the test's states, truth and exports


def main() -> None:
    import geonh as g
    from geonh import models
    from geonh.models import mechanical
    from geonh.models.bicycle import whipple_bicycle
    bike, tr, ball = whipple_bicycle(), mechanical.dynamic_n_trailer(3), models.get("chaplygin-ball")
    cases = [("bicycle", bike, bike.equations("boltzmann-hamel"), T._bicycle_states, 1),
             ("3-trailer", tr, tr.equations("boltzmann-hamel"), T._states, 2),
             ("3-trailer lagrange", tr, g.lagrange(tr.system), T._states, 3),
             ("chaplygin-ball", ball, ball.equations("boltzmann-hamel"), T._states, 4),
             ("bicycle (sampled)", bike, bike.equations("boltzmann-hamel"), T._states, 1)]
    tmp = Path(tempfile.mkdtemp(prefix="geonh_export_accuracy_"))
    print("| system | κ(M) max | route | vs truth (norm) | vs truth (entry) | vs ode_function (norm) | vs ode_function (entry) |")
    print("|---|---|---|---|---|---|---|")

    def entry(A, B):
        return float(np.max(np.abs(A - B) / np.maximum(1.0, np.abs(B))))
    for label, model, eq, states, seed in cases:
        f = eq.ode_function()
        t, Y, p = states(model, eq, f, seed)
        prog = T.export_program(eq)
        truth = [T._truth(prog, t, y, p) for y in Y]
        TR = np.array([r[0] for r in truth])
        kappa = max(r[1] for r in truth)
        want = f.batch(t, Y, p)
        routes = {"ode_function": want, "ode_function(backend='c')": eq.ode_function(backend="c").batch(t, Y, p)}
        routes.update(T._every_export(label.split(" ")[0] + str(seed), eq, t, Y, p, tmp))
        for name, rows in routes.items():
            print(f"| {label} | {kappa:.3g} | {name} | {T._rel_rows(rows, TR).max():.2e} | {entry(rows, TR):.2e} | "
                  f"{T._rel_rows(rows, want).max():.2e} | {entry(rows, want):.2e} |", flush=True)


if __name__ == "__main__":
    os.environ.setdefault("GEONH_CACHE", "off")
    main()
