"""Command line: ``geonh list`` and ``geonh show MODEL``.

``geonh show rolling-disk`` prints the adapted frame, the non-zero structure coefficients
c^d_ab (CONVENTIONS.md), the growth vector of the admissible distribution and the
integrability verdict of the constraints.
"""
from __future__ import annotations

import argparse
import sys

import sympy as sp

from . import catalog


def show(name: str, out=None) -> None:
    """Print the frame, structure coefficients, growth vector and verdict of a built-in model."""
    out = out or sys.stdout
    model = catalog.get(name)
    F = model.frame
    S = model.space
    w = out.write
    w(f"{model.name}: {model.description}\n")
    w(f"coordinates: {', '.join(s.name for s in S.coords)}\n")
    w("quasi-velocities (free first, then constraints = 0):\n")
    for nm, om in zip(F.names, F.quasi_velocities()):
        w(f"  {nm} = {om}\n")
    w("frame (X_a dual to the quasi-velocities):\n")
    for nm, X in zip(F.names, F.fields):
        w(f"  X_{nm} = {X.applyfunc(sp.trigsimp)}\n")  # display only
    c = F.structure_coefficients()
    w("structure coefficients c^d_ab, [X_a, X_b] = c^d_ab X_d (non-zero, a < b):\n")
    n = F.dim
    any_ = False
    for a in range(n):
        for b in range(a + 1, n):
            for d in range(n):
                v = sp.simplify(c[d, a, b])
                if v != 0:
                    any_ = True
                    w(f"  c^{F.names[d]}_({F.names[a]},{F.names[b]}) = {v}\n")
    if not any_:
        w("  (all zero)\n")
    D = model.distribution
    w(f"growth vector of the admissible distribution: {D.growth_vector()}\n")
    if model.m < n:
        w(f"constraints: {model.constraints.verdict()}\n")
    else:
        w("constraints: none (holonomic system in quasi-velocities)\n")


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``geonh`` command; returns the exit code (2 for an unknown model)."""
    p = argparse.ArgumentParser(prog="geonh", description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    sub.add_parser("list", help="list the built-in models")
    ps = sub.add_parser("show", help="frame, structure coefficients, growth vector, verdict")
    ps.add_argument("model", help="a built-in model (see `geonh list`)")
    args = p.parse_args(argv)
    if args.cmd == "list":
        for nm in catalog.names():
            print(nm)
        return 0
    try:
        show(args.model)
    except LookupError as e:
        print(f"geonh: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
