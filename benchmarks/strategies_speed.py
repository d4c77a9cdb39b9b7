"""How fast geonh.testing's system strategies draw, and how long deriving the equations of a
draw takes (issue 24: "every draw small enough that a symbolic check takes well under a second").

For each constraint kind of ``mechanical_systems()`` at the default sizes (2..4 coordinates,
0..n−1 constraints, forces and potential on, positive parameters):

* draws/s — examples per second of a hypothesis test whose body only draws the system, an
  adapted frame and a state (generate phase only, no database), wall and CPU;
* derivation — per draw, CPU seconds of Lagrange's equations (``geonh.lagrange``) plus the
  Boltzmann–Hamel equations in the drawn adapted frame (``geonh.boltzmann_hamel``), or for
  nonlinear draws the Chetaev–Lagrange equations (``geonh.chetaev_lagrange``) plus Maggi's in
  the adapted frame on TQ (``geonh.maggi_nonlinear``): median, 90th percentile and maximum.

    python benchmarks/strategies_speed.py [--examples 60]
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

import geonh
from geonh.testing import strategies as gst


def run(kind: str, examples: int) -> dict:
    derive: list[float] = []
    count = [0]

    @settings(max_examples=examples, deadline=None, database=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(st.data())
    def body(data):
        system = data.draw(gst.mechanical_systems(kind=kind))
        frame = data.draw(gst.adapted_frames(system))
        data.draw(gst.states(system))
        count[0] += 1
        t0 = time.process_time()
        if kind == "nonlinear":
            geonh.chetaev_lagrange(system)
            geonh.maggi_nonlinear(system, frame).rhs()
        else:
            geonh.lagrange(system)
            geonh.boltzmann_hamel(system, frame).rhs()
        derive.append(time.process_time() - t0)

    w0, c0 = time.perf_counter(), time.process_time()
    body()
    wall, cpu = time.perf_counter() - w0, time.process_time() - c0
    draw_cpu = cpu - sum(derive)
    derive.sort()
    return {"kind": kind, "n": count[0], "draws/s (wall)": count[0] / max(wall - sum(derive), 1e-9),
            "draws/s (CPU)": count[0] / max(draw_cpu, 1e-9), "median": statistics.median(derive),
            "p90": derive[int(0.9 * (len(derive) - 1))], "max": derive[-1]}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--examples", type=int, default=60)
    args = ap.parse_args(argv)
    print("| kind | draws | draws/s (wall) | draws/s (CPU) | derivation CPU s: median | p90 | max |")
    print("|---|---|---|---|---|---|---|")
    for kind in gst.CONSTRAINT_KINDS:
        r = run(kind, args.examples)
        print(f"| {r['kind']} | {r['n']} | {r['draws/s (wall)']:.1f} | {r['draws/s (CPU)']:.1f} | "
              f"{r['median']:.3f} | {r['p90']:.3f} | {r['max']:.3f} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
