"""First-integral searches on a 5-coordinate rolling body (Routh's sphere), before and after, in
ONE run (issue 26.3).

    python benchmarks/integral_search.py BEFORE_ROOT AFTER_ROOT [repeats] [cap_seconds]

Cases: the polynomial search (``polynomial_first_integrals``) at degree 1 with coefficients
trigonometric in θ (Jellett's integral), at degree 2 with constant coefficients, at degree 2
with coefficients trigonometric in θ of order 2 (Jellett, Jellett², Routh², energy), and
Routh's algebraic integral by its integrating factor (``integrating_factor_integrals``).
The body: ``geonh.models.literature.routh_sphere`` (its system), equations in the Résal frame
ω = (θ̇, ψ̇ sin θ, ψ̇ cos θ + φ̇), where the integrals depend on θ alone.

Each case runs in a fresh subprocess with PYTHONPATH=ROOT (the two trees timed under the same
load, interleaved); wall and CPU (time.process_time) of the search alone, medians and the ratio
before/after of CPU.  A run that exceeds ``cap_seconds`` of wall time (default 900) is killed and
shown as "> cap" with the CPU it had used (resource.getrusage of the reaped child); it is not
repeated.
"""
from __future__ import annotations

import json
import os
import resource
import statistics
import subprocess
import sys

CASE = r'''
import json, sys, time
import sympy as sp
from geonh import Frame
from geonh.equations import derive
from geonh.models.literature import routh_sphere
from geonh.analysis import integrating_factor_integrals, polynomial_first_integrals
model = routh_sphere()
S = model.system.space
ps, th, ph, x, y = S.q
psd, thd, phd, xd, yd = S.qd
R = next(p for p in model.parameters if p.name == "R")
w = [thd, psd * sp.sin(th), psd * sp.cos(th) + phd]
cons = [xd - R * (thd * sp.sin(ps) - phd * sp.cos(ps) * sp.sin(th)),
        yd + R * (thd * sp.cos(ps) + phd * sp.sin(ps) * sp.sin(th))]
frame = Frame.from_quasi_velocities(S, [*w, *cons], names=["w1", "w2", "w3", "c_x", "c_y"])
eqs = derive("boltzmann-hamel", model.system, frame)
what = sys.argv[1]
w0, c0 = time.perf_counter(), time.process_time()
if what == "routh":
    r = integrating_factor_integrals(eqs)
else:
    degree, order = int(what), int(sys.argv[3])
    r = polynomial_first_integrals(eqs, degree, coordinates=[th] if sys.argv[2] == "theta" else [], order=order)
print(json.dumps({"wall": time.perf_counter() - w0, "cpu": time.process_time() - c0, "found": len(r.integrals)}))
'''

#: (label, argv): degree (or "routh"), coordinates, order of the trigonometric coefficients
CASES = [("degree 1, theta order 1", ("1", "theta", "1")),
         ("degree 2, no coordinates", ("2", "none", "1")),
         ("degree 2, theta order 2", ("2", "theta", "2")),
         ("Routh's integral (integrating factor)", ("routh", "theta", "0"))]


def _children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def run(root: str, args: tuple, cap: float) -> dict:
    env = dict(os.environ, PYTHONPATH=root, GEONH_CACHE="off")
    before = _children_cpu()
    try:
        # cwd=root: ``python -c`` puts the working directory first on sys.path
        out = subprocess.run([sys.executable, "-c", CASE, *args], env=env, capture_output=True,
                             text=True, timeout=cap, check=True, cwd=root)
    except subprocess.TimeoutExpired:
        return {"wall": cap, "cpu": _children_cpu() - before, "found": None, "capped": True}
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    before, after = sys.argv[1], sys.argv[2]
    repeats = int(sys.argv[3]) if len(sys.argv) > 3 else 3
    cap = float(sys.argv[4]) if len(sys.argv) > 4 else 900.0
    for label, args in CASES:
        res: dict = {"before": [], "after": []}
        for _ in range(repeats):
            for k, root in (("before", before), ("after", after)):
                if res[k] and res[k][-1].get("capped"):
                    continue
                res[k].append(run(root, args, cap))
        med = {k: {f: statistics.median(r[f] for r in v) for f in ("wall", "cpu")} for k, v in res.items()}
        found = {k: v[0]["found"] for k, v in res.items()}

        def cell(k: str) -> str:
            capped = any(r.get("capped") for r in res[k])
            wall = f"> {cap:.0f}" if capped else f"{med[k]['wall']:.2f}"
            cpu = f"{'≥ ' if capped else ''}{med[k]['cpu']:.2f}"
            return f"wall {wall:>7} s cpu {cpu:>9} s"
        print(f"{label:38}: before {cell('before')} | after {cell('after')} | ratio (cpu) "
              f"{'≥ ' if any(r.get('capped') for r in res['before']) else ''}"
              f"{med['before']['cpu'] / med['after']['cpu']:.1f}x | integrals {found}", flush=True)


if __name__ == "__main__":
    main()
