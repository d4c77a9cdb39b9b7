"""Times of the N-trailer's chained form (Sørdalen 1993), its check by substitution, and a
sinusoidal steering plan (Murray & Sastry 1993) verified on the trailer's own fields.

    python benchmarks/trailer_chained_steering.py [--max-trailers 3]

Prints, per N, CPU and wall seconds of chained_form, failures() and steer_chained, and the
final-state error of the verifying simulation."""
from __future__ import annotations

import argparse
import time

import sympy as sp

from geonh import models
from geonh.control import chained_form, steer_chained


def timed(fn):
    c, w = time.process_time(), time.perf_counter()
    out = fn()
    return out, time.process_time() - c, time.perf_counter() - w


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--max-trailers", type=int, default=3)
    args = ap.parse_args()
    print("| N | chained_form CPU / wall s | check CPU s | steer CPU / wall s | final error |")
    print("|---|---|---|---|---|")
    for N in range(1, args.max_trailers + 1):
        m = models.get(f"{N}-trailer")
        x, y, *th = m.space.q
        d = [sp.Symbol(f"d{i}", positive=True) for i in range(1, N + 1)]
        h1 = x - sum(di * sp.cos(t) for di, t in zip(d, th[1:]))
        h2 = y - sum(di * sp.sin(t) for di, t in zip(d, th[1:]))
        form, fc, fw = timed(lambda: chained_form(m.frame.fields[:2], h1, h2))
        bad, cc, _ = timed(form.failures)
        assert bad == []
        qf = [1.0, 0.3] + [0.2 - 0.1 * i for i in range(N + 1)]
        res, sc, sw = timed(lambda: steer_chained(form, [0.0] * (N + 3), qf, {f"d{i}": 1.0 for i in range(1, N + 1)},
                                                  a=None))
        print(f"| {N} | {fc:.2f} / {fw:.2f} | {cc:.2f} | {sc:.2f} / {sw:.2f} | {res.error:.1e} |")


if __name__ == "__main__":
    main()
