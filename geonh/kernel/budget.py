"""Bounded symbolic work: a time budget with progress reports.

Symbolic steps can take very long on inputs that look harmless: a frame of nine dense
trigonometric rows, a dense mass matrix of symbolic inertia products.

**A budget** (:func:`budget`) is scoped with a context manager and applies to everything geonh
computes inside it, in the current thread or asyncio task (a :mod:`contextvars` variable)::

    def show(step, done, total):
        print(f"{step}: {done}/{total}")

    with geonh.budget(seconds=60, progress=show):
        eqs = geonh.derive("boltzmann-hamel", system, frame)

The long loops of geonh (frame inversion, structure coefficients, brackets of a flag, the
rows of the equations, the states of a certificate, …) call :func:`check` once per unit of
work.  :func:`check` reports ``(step, done, total)`` to the progress callback and, when the
time is up, raises :class:`~geonh.errors.BudgetExceededError` naming the step and how far it
got ("structure coefficients: stopped after 12 of 36 brackets").  The budget is
*cooperative*: it is checked between units, so one sympy call that never returns is not
interrupted (the input limits, below, keep single calls small).  A progress callback may itself
raise an exception to cancel the work.

Default: **no time limit** and no progress callback.  A library that stops at a wall-clock
deadline would give results that depend on the machine's speed and load, so only a caller
that decides so (a script, the command line) sets one.  Nested budgets: the inner one cannot
outlive the outer one (the earlier deadline wins); a progress callback given to the inner one
replaces the outer one's for its duration.

The *size* of each input is bounded separately, before any work starts, by the input limits
(``geonh.limits``, :mod:`geonh.kernel.parsing`): too many distinct subexpressions, numbers
with too many digits, ``factorial(10**8)``.  The budget bounds the *time* of the work those
inputs then cause.
"""
from __future__ import annotations

import gc
import math
import time
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from numbers import Real
from typing import Callable, Iterator, Optional

import sympy as sp

from ..errors import BudgetExceededError, ParseError
from .progress import report

__all__ = ["Budget", "budget", "check", "count_nodes", "current_budget"]

#: a progress callback: ``progress(step, done, total)``, e.g. ("structure coefficients", 12, 36)
Progress = Callable[[str, int, Optional[int]], None]


@dataclass(frozen=True)
class Budget:
    """The budget in force (see :func:`budget`): ``seconds`` and ``deadline`` (a
    :func:`time.monotonic` value) of the time budget, or None without one; the ``progress``
    callback or None."""

    seconds: Optional[float] = None
    deadline: Optional[float] = None
    progress: Optional[Progress] = None

    def remaining(self) -> Optional[float]:
        """Seconds left before the deadline (None without a time budget)."""
        return None if self.deadline is None else self.deadline - time.monotonic()


_CURRENT: ContextVar[Budget] = ContextVar("geonh_budget", default=Budget())


def current_budget() -> Budget:
    """The :class:`Budget` in force here (the defaults outside any :func:`budget` block)."""
    return _CURRENT.get()


def _seconds(value) -> float:
    if isinstance(value, bool) or not isinstance(value, Real) or not math.isfinite(value) or value <= 0:
        raise ParseError(f"budget: seconds must be a positive number of seconds or None, not {value!r}")
    return float(value)


@contextmanager
def budget(seconds: Optional[float] = None, *, progress: Optional[Progress] = None) -> Iterator[Budget]:
    """Bound the symbolic work done inside the ``with`` block.

    ``seconds``: wall-clock time after which the next :func:`check` raises
    :class:`~geonh.errors.BudgetExceededError` (None: no limit of its own; an enclosing
    budget's deadline still applies, the earlier one wins).  ``progress``: called as
    ``progress(step, done, total)`` by every :func:`check` (``total`` may be None; None keeps
    the enclosing one).  Yields the :class:`Budget` in force.  The input size limits are
    ``geonh.limits`` (:mod:`geonh.kernel.parsing`)."""
    outer = _CURRENT.get()
    if progress is not None and not callable(progress):
        raise ParseError(f"budget: progress must be a callable progress(step, done, total), not {progress!r}")
    deadline, secs = outer.deadline, outer.seconds
    if seconds is not None:
        secs_in = _seconds(seconds)
        mine = time.monotonic() + secs_in
        if deadline is None or mine < deadline:
            deadline, secs = mine, secs_in
    b = Budget(seconds=secs, deadline=deadline, progress=progress if progress is not None else outer.progress)
    token = _CURRENT.set(b)
    try:
        yield b
    finally:
        _CURRENT.reset(token)


def check(step: str, done: int, total: Optional[int] = None, unit: str = "steps", label: str = "") -> None:
    """One unit of a long step: report ``(step, done, total)`` to the progress callback and
    to the progress listeners (:func:`geonh.kernel.progress.report`, with ``label``, the unit
    in hand), and raise :class:`~geonh.errors.BudgetExceededError` if the time budget is used up.

    Call it before each unit of work with ``done`` = units finished so far (and once more
    with ``done == total`` at the end, if you like a final report).  ``unit`` names the units
    in the error message ("structure coefficients: stopped after 12 of 36 brackets").  Without
    a budget and without a listener this costs a context-variable lookup and a function call."""
    report(step, done, total, label)
    b = _CURRENT.get()
    if b.progress is not None:
        b.progress(step, done, total)
    if b.deadline is not None and time.monotonic() > b.deadline:
        raise BudgetExceededError(step, done, total, unit, b.seconds)


# -- the cyclic garbage collector during graph passes ----------------------------------------
@contextmanager
def gc_paused() -> Iterator[None]:
    """Python's cyclic garbage collector paused for a pass over a large expression graph, and
    restored as it was (enabled or disabled), also when the pass raises.

    The passes over large models (building a system from sympy.physics.mechanics, deriving its
    equations, code generation's conversion, factoring and blocking) allocate hundreds of
    thousands of tuples, dicts and sympy nodes that form no reference cycles, and every 700
    net allocations the collector would scan the young ones again, and every few of those
    scans the older ones too, for nothing to collect: on the dynamic 32-trailer ~1 s of code
    generation's ~6 s and ~0.3 s of the model and derivation stages' ~3 s (CPU, measured).
    Reference counting still frees everything as usual; cycles made inside are collected at
    the collector's next run after the pause.  Nested pauses leave the collector off until
    the outermost one ends."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


# -- bounded measures -------------------------------------------------------------------------
def count_nodes(exprs, limit: int) -> int:
    """The number of distinct subexpressions of ``exprs`` (one sympy object, or a list or tuple
    of them), counted up to ``limit + 1``: a walk over distinct nodes that stops there, so it
    costs at most ``limit + 1`` steps however large (or however shared) the expressions are."""
    if isinstance(exprs, sp.Basic):
        stack = [exprs]
    elif isinstance(exprs, (list, tuple)) and all(isinstance(e, sp.Basic) for e in exprs):
        stack = list(exprs)
    else:
        raise ParseError(f"count_nodes takes a sympy expression or a list of them, not {type(exprs).__name__}")
    seen: set = set()
    while stack:
        e = stack.pop()
        if e in seen:
            continue
        seen.add(e)
        if len(seen) > limit:
            break
        stack.extend(e.args)
    return len(seen)
