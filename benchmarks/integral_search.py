"""Polynomial first-integral search on a 5-coordinate rolling body (Routh's sphere), before and
after, in ONE run (issue 26.3).

    python benchmarks/integral_search.py BEFORE_ROOT AFTER_ROOT [repeats]

Each case runs in a fresh subprocess with PYTHONPATH=ROOT (so the two trees are timed under the
same load, interleaved); wall and CPU (time.process_time) of the search alone, medians and the
ratio before/after.  Routh's sphere as in tests/analysis/test_integrals_beyond.py.
"""
from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys

CASE = r'''
import json, sys, time
import sympy as sp
from geonh import ConfigurationSpace, Frame, MechanicalSystem
from geonh.equations import derive
from geonh.analysis import polynomial_first_integrals
S = ConfigurationSpace("psi theta phi x y")
ps, th, ph, x, y = S.q
psd, thd, phd, xd, yd = S.qd
m, R, a, A, C, g = sp.symbols("m R a A C g", positive=True)
e3 = [sp.sin(ps) * sp.sin(th), -sp.cos(ps) * sp.sin(th), sp.cos(th)]
G = [x + a * e3[0], y + a * e3[1], R + a * e3[2]]
vG = [S.total_derivative(c) for c in G]
w = [thd, psd * sp.sin(th), psd * sp.cos(th) + phd]
T = m * sum(v**2 for v in vG) / 2 + (A * w[0]**2 + A * w[1]**2 + C * w[2]**2) / 2
cons = [xd - R * (thd * sp.sin(ps) - phd * sp.cos(ps) * sp.sin(th)),
        yd + R * (thd * sp.cos(ps) + phd * sp.sin(ps) * sp.sin(th))]
system = MechanicalSystem(S, sp.expand(T), V=m * g * G[2], constraints=cons, name="routh sphere")
frame = Frame.from_quasi_velocities(S, [*w, *cons], names=["w1", "w2", "w3", "c_x", "c_y"])
eqs = derive("boltzmann-hamel", system, frame)
degree, coords = int(sys.argv[1]), ([th] if sys.argv[2] == "theta" else [])
w0, c0 = time.perf_counter(), time.process_time()
r = polynomial_first_integrals(eqs, degree, coordinates=coords)
print(json.dumps({"wall": time.perf_counter() - w0, "cpu": time.process_time() - c0, "found": len(r.integrals)}))
'''

CASES = [(1, "theta"), (2, "none")]


def run(root: str, degree: int, coords: str, timeout: float = 900) -> dict:
    env = dict(os.environ, PYTHONPATH=root, GEONH_CACHE="off")
    # cwd=root: ``python -c`` puts the working directory first on sys.path
    out = subprocess.run([sys.executable, "-c", CASE, str(degree), coords], env=env, capture_output=True,
                         text=True, timeout=timeout, check=True, cwd=root)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    before, after = sys.argv[1], sys.argv[2]
    repeats = int(sys.argv[3]) if len(sys.argv) > 3 else 3
    rows = []
    for degree, coords in CASES:
        res: dict = {"before": [], "after": []}
        for _ in range(repeats):
            res["before"].append(run(before, degree, coords))
            res["after"].append(run(after, degree, coords))
        med = {k: {f: statistics.median(r[f] for r in v) for f in ("wall", "cpu")} for k, v in res.items()}
        found = {k: v[0]["found"] for k, v in res.items()}
        rows.append((degree, coords, med, found))
        print(f"degree {degree}, coordinates {coords:5}: before wall {med['before']['wall']:7.2f} s cpu "
              f"{med['before']['cpu']:7.2f} s | after wall {med['after']['wall']:7.2f} s cpu {med['after']['cpu']:7.2f} s"
              f" | ratio (cpu) {med['before']['cpu'] / med['after']['cpu']:5.1f}x | integrals {found}", flush=True)


if __name__ == "__main__":
    main()
