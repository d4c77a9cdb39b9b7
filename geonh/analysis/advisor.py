"""The frame advisor: which frame gives the smallest equations?

Every frame form is a frame choice on one engine (:mod:`geonh.equations.engine`); the motion
is the same in every adapted frame, the size of the equations is not.  :func:`advise_frame`
derives the equations of a system in each candidate frame and ranks the candidates by

* **ops** — the operation count of the equations a numerical code evaluates, the kinematics
  q̇ = K(t, q, u), the mass matrix M and the forcing F of M u̇ = F, after common
  subexpression elimination: ``sympy.cse`` of all of them together, then Σ ``count_ops``
  over the replacements and the reduced expressions (every +, −, ×, ÷, power and function
  call counts 1; the measure of ``benchmarks/n_trailer_dynamics.py``);
* **seconds** — the wall time of the derivation (ties in ops are broken by it).

Candidates: the frames you pass (e.g. a model's recommended frame, a body frame, a frame
with constant structure coefficients), and the Voronets frames (Hamel 1924, eqs. (22)–(24))
for every choice of dependent coordinates whose block of the constraint matrix is invertible
at the generic point — the adapted frames the constraint forms give directly.  A candidate
whose derivation fails is kept in the table with its error, never silently dropped.
Nothing is simplified: the counts are those of the expressions geonh hands to code
generation.
"""
from __future__ import annotations

import itertools
import time
from dataclasses import dataclass
from typing import Mapping

import sympy as sp

from ..errors import GeonhError, NotFoundError, ParseError
from ..kernel.frames import Frame
from ..kernel.parsing import as_mapping
from ..systems.mechanical import MechanicalSystem
from ..transposition.adapted import voronets_frame
from ..equations.base import Equations
from ..equations.declaration import Inputs
from ..equations.registry import FORMS, derive

__all__ = ["FrameCandidate", "FrameAdvice", "advise_frame", "equation_size"]


def equation_size(eqs: Equations) -> int:
    """Operation count of (K, M, F) after common subexpression elimination (module doc)."""
    exprs = list(eqs.kinematics) + list(eqs.mass_matrix) + list(eqs.forcing)
    reps, reduced = sp.cse(exprs, order="none")
    return int(sum(sp.count_ops(e) for _, e in reps) + sum(sp.count_ops(e) for e in reduced))


@dataclass(frozen=True)
class FrameCandidate:
    """One row of the advisor's table: the candidate's name, its frame (None if it could not
    be built), the equations' size after cse and the derivation time, or the error."""

    name: str
    frame: Frame | None
    ops: int | None
    seconds: float
    error: str = ""

    @property
    def ok(self) -> bool:
        return self.ops is not None


@dataclass(frozen=True)
class FrameAdvice:
    """The advisor's answer: ``best`` (the smallest equations; ``best.frame`` is the frame),
    ``table`` (every candidate, best first, failures last) and the ``form`` used."""

    best: FrameCandidate
    table: tuple[FrameCandidate, ...]
    form: str

    def __str__(self) -> str:
        w = max(len(c.name) for c in self.table)
        lines = [f"{'frame':<{w}}  {'ops':>8}  {'time [s]':>8}", "-" * (w + 20)]
        for c in self.table:
            ops = f"{c.ops:>8d}" if c.ok else f"{'—':>8}"
            extra = f"  ({c.error})" if c.error else ""
            lines.append(f"{c.name:<{w}}  {ops}  {c.seconds:>8.2f}{extra}")
        lines.append(f"best ({self.form}): {self.best.name}")
        return "\n".join(lines)


def _voronets_candidates(system: MechanicalSystem, limit: int) -> list[tuple[str, object]]:
    """(name, frame or error) for each choice of dependent coordinates, up to ``limit``."""
    S = system.space
    r = system.constraints.rank
    out: list[tuple[str, object]] = []
    if r == 0:
        return out
    for dep in itertools.combinations(S.q, r):
        if len(out) >= limit:
            break
        name = "voronets(" + ", ".join(q.name for q in dep) + ")"
        try:
            out.append((name, voronets_frame(system, dependent=list(dep))))
        except GeonhError:
            continue  # this block of the constraint matrix is singular: not a candidate
    return out


def advise_frame(system: MechanicalSystem, frames: Mapping[str, Frame] | None = None, *,
                 form: str = "boltzmann-hamel", voronets: bool = True, limit: int = 64) -> FrameAdvice:
    """Rank candidate frames of ``system`` by the size of the equations of ``form`` in them.

    Parameters
    ----------
    system : a :class:`~geonh.systems.MechanicalSystem` (constraints linear in the velocities).
    frames : {name: Frame} candidates of your own (a model's ``frame``, body frames, …); each
        must be adapted to the constraints (free fields first) or it is reported with the error.
    form : a frame form of :data:`geonh.equations.FORMS` (one that takes a frame).
    voronets : add the Voronets frame of every admissible choice of dependent coordinates
        (at most ``limit`` of them).

    Returns a :class:`FrameAdvice`; raises :class:`~geonh.errors.NotFoundError` if no
    candidate gives equations.
    """
    entry = FORMS.get(form)
    if entry is None or entry.inputs is not Inputs.FRAME:
        frame_forms = [k for k, v in FORMS.items() if v.inputs is Inputs.FRAME]
        raise NotFoundError(f"{form!r} is not a frame form; frame forms: {', '.join(frame_forms)}")
    if not isinstance(system, MechanicalSystem):
        raise ParseError(f"advise_frame takes a MechanicalSystem, not {type(system).__name__}")
    cands: list[tuple[str, object]] = list(as_mapping(frames, "frames").items()) if frames is not None else []
    if voronets:
        cands += _voronets_candidates(system, limit)
    rows = []
    for name, frame in cands:
        if not isinstance(frame, Frame):
            rows.append(FrameCandidate(name, None, None, 0.0, f"not a Frame: {type(frame).__name__}"))
            continue
        t0 = time.perf_counter()
        try:
            eqs = derive(form, system, frame)
            ops = equation_size(eqs)
        except GeonhError as exc:
            rows.append(FrameCandidate(name, frame, None, time.perf_counter() - t0, f"{type(exc).__name__}: {exc}"))
            continue
        rows.append(FrameCandidate(name, frame, ops, time.perf_counter() - t0))
    good = sorted((c for c in rows if c.ok), key=lambda c: (c.ops, c.seconds))
    if not good:
        raise NotFoundError(f"no candidate frame gives {form} equations for this system: "
                            + "; ".join(f"{c.name}: {c.error}" for c in rows))
    return FrameAdvice(good[0], tuple(good) + tuple(c for c in rows if not c.ok), form)
