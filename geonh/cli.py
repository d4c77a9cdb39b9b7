"""Command line: ``geonh list``, ``geonh show MODEL`` (every model of :mod:`geonh.models`) and ``geonh forms``.

``geonh show rolling-disk`` prints the adapted frame, the non-zero structure coefficients
c^d_ab (CONVENTIONS.md), the growth vector of the admissible distribution and the
integrability verdict of the constraints.
"""
from __future__ import annotations

import argparse
import os
import sys
from importlib import metadata

import sympy as sp

from . import models
from .equations.registry import FORMS
from .systems import analyze_constraints


def show(name: str, out=None) -> None:
    """Print what geonh knows of a built-in model: for a model with a frame, the frame, the
    non-zero structure coefficients, the growth vector and the integrability verdict; for a
    seed example, its constraints and their analysis."""
    out = out or sys.stdout
    model = models.get(name)
    w = out.write
    S = model.space
    w(f"{model.name}: {model.description}\n")
    w(f"coordinates: {', '.join(s.name for s in S.coords)}\n")
    if isinstance(model, models.SeedModel):
        _show_constraints(model, w)
        return
    if isinstance(model, models.MechanicalModel):
        w(f"system: {model.system!r}\n")
    _show_frame(model, model.frame, w)


def _show_constraints(model, w) -> None:
    if model.system is not None:
        w(f"system: {model.system!r}\n")
    w("constraints (= 0):\n")
    for c in model.constraints:
        w(f"  {c}\n")
    system = model.system
    if system is None:
        report = analyze_constraints(model.space, list(model.constraints))
        w(report.explain() + "\n")
    else:
        w(f"degrees of freedom: {system.dof}; virtual displacements: {system.virtual}\n")


def _show_frame(model, F, w) -> None:
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
    w(f"growth vector of the admissible distribution: {model.distribution.growth_vector()}\n")
    if model.m < model.space.n:
        w(f"constraints: {model.constraints.verdict()}\n")
    else:
        w("constraints: none (holonomic system in quasi-velocities)\n")


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``geonh`` command; returns the exit code (2 for an unknown model).
    A closed output pipe (``geonh list | head``) ends the command quietly."""
    try:
        return _main(argv)
    except BrokenPipeError:
        # the reader went away: silence the interpreter's flush at exit, exit like `head` expects
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 141


def _main(argv: list[str] | None) -> int:
    p = argparse.ArgumentParser(prog="geonh", description=__doc__.splitlines()[0])
    p.add_argument("--version", action="version", version=f"geonh {metadata.version('geonh')}")
    sub = p.add_subparsers(dest="cmd", required=True)
    sub.add_parser("list", help="list the built-in models")
    ps = sub.add_parser("show", help="frame, structure coefficients, growth vector, verdict")
    ps.add_argument("model", help="a built-in model (see `geonh list`)")
    sub.add_parser("forms", help="the registered equation forms, their route and source")
    args = p.parse_args(argv)
    if args.cmd == "forms":
        for name, entry in FORMS.items():
            print(f"{name:16s} {entry.route:12s} {entry.source}")
        return 0
    if args.cmd == "list":
        for nm in models.names():
            print(f"{nm:28s} {models.kind(nm):10s} {models.describe(nm)}")
        return 0
    try:
        show(args.model)
    except LookupError as e:
        print(f"geonh: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
