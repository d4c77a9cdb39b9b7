"""Rates of first integrals along the equations (issue 26): ``energy_integral``, ``is_integral``
of the energy and of Jellett's integral, and ``polynomial_first_integrals`` at degree 1 and 2
(constant coefficients) on the rolling bodies, Boltzmann–Hamel form: median CPU and wall
seconds, optionally beside another checkout.

    python benchmarks/integral_rates.py [--repeats 1] [--before PATH] [--limit 120] [--only NAME ...] [--ops OP ...]

Each measurement runs in a fresh child process (cold sympy cache) with a time limit
(``--limit`` seconds) and an address-space limit of 6 GB; the model and its equations are
built first, outside the timing.  ``--before PATH``: also measure the geonh of the checkout at
PATH (e.g. ``git worktree add --detach /tmp/base main``), the two alternating, so both columns
come from one run of this script.  Jellett's integral is ⟨I Ω, r⟩, r the vector from the mass
centre to the contact point in body axes (Ω = the first three speeds; the rotor momenta J α̇
added on the spherical robot): r = a e₃ − R γ on Routh's sphere, the rattleback's ρ, −R γ on
the balanced balls, γ = (sin θ sin φ, sin θ cos φ, cos θ).  Conserved except on the rattleback.
"""
from __future__ import annotations

import json
from pathlib import Path

from momentum_map_on_equations import before_after_arguments, measured_trees, median_cells, repeated_runs  # one child runner: fresh process, 6 GB, time limit

HERE = Path(__file__).resolve().parents[1]

MODELS = ["routh-sphere", "rattleback", "chaplygin-ball", "spherical-robot"]
OPS = ["energy_integral", "is_integral(E)", "is_integral(Jellett)", "search deg 1", "search deg 2"]

CHILD = r'''
import json, sys, time
import sympy as sp
from geonh import models
from geonh.analysis import energy_integral, is_integral, polynomial_first_integrals
name, op = sys.argv[1], sys.argv[2]
model = models.get(name)
eqs = model.equations("boltzmann-hamel")
S = eqs.space
P = {p.name: p for p in model.parameters}
th, ph = S.q[1], S.q[2]
gam = [sp.sin(th) * sp.sin(ph), sp.sin(th) * sp.cos(ph), sp.cos(th)]
W = list(eqs.u[:3])
if name == "routh-sphere":
    I = sp.diag(P["A"], P["A"], P["C"])
    r = [-P["R"] * gam[0], -P["R"] * gam[1], P["a"] - P["R"] * gam[2]]
elif name == "rattleback":
    I = sp.Matrix([[P["A"], P["D"], 0], [P["D"], P["B"], 0], [0, 0, P["C"]]])
    Lam = [P["a1"]**2, P["a2"]**2, P["a3"]**2]
    s = sp.sqrt(sum(L * c**2 for L, c in zip(Lam, gam)))
    r = [-Lam[0] * gam[0] / s, -Lam[1] * gam[1] / s, P["h"] - Lam[2] * gam[2] / s]
else:
    I = sp.diag(P["I1"], P["I2"], P["I3"])
    R = P["R"] if "R" in P else P["r"]
    r = [-R * c for c in gam]
K = I * sp.Matrix(W)
if name == "spherical-robot":
    K += sp.Matrix([P[f"J{k}"] * a for k, a in zip((1, 2, 3), eqs.u[3:6])])
jellett = sum(K[i] * r[i] for i in range(3))
E = energy_integral(eqs).expression if op == "is_integral(E)" else None
t, w = time.process_time(), time.perf_counter()
if op == "energy_integral":
    verdict = energy_integral(eqs).conserved
elif op == "is_integral(E)":
    verdict = is_integral(eqs, E)
elif op == "is_integral(Jellett)":
    verdict = is_integral(eqs, jellett)
else:
    verdict = len(polynomial_first_integrals(eqs, int(op[-1])).integrals)
import geonh
print(json.dumps({"cpu": time.process_time() - t, "wall": time.perf_counter() - w, "verdict": verdict,
                  "geonh": geonh.__file__}))
'''


def main() -> None:
    ap = before_after_arguments(__doc__.splitlines()[0], 120.0, "model names to measure (all by default)")
    ap.set_defaults(repeats=1)
    ap.add_argument("--ops", nargs="*", default=None, help=f"operations to measure, of {OPS}")
    args = ap.parse_args()
    trees = measured_trees(args, HERE)
    print("| model | operation | " + " | ".join(f"{t} CPU s | {t} wall s" for t, _ in trees) + " | verdict |")
    print("|---|---|" + "---|---|" * len(trees) + "---|")
    for name in MODELS:
        if args.only and name not in args.only:
            continue
        for op in OPS:
            if args.ops and op not in args.ops:
                continue
            runs = repeated_runs(CHILD, [name, op], trees, args.repeats, args.limit)
            cells, ok = median_cells(runs, trees)
            verdicts = {json.dumps(r["verdict"]) for rs in ok.values() for r in rs}
            print(f"| {name} | {op} | " + " | ".join(cells) + f" | {' / '.join(sorted(verdicts))} |", flush=True)


if __name__ == "__main__":
    main()
