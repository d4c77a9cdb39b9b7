"""Progress of long work: one hook that every floor reports to, and that a display listens to.

Long loops of geonh report where they are: the budget's :func:`~geonh.kernel.budget.check`
(structure coefficients, the rows of the equations, the states and the forms of a
certificate, …), the formulas of an audit and the points of a sweep all call :func:`report`
with the step, the count and, where there is one, the name of the unit in hand::

    report("certify forms", 3, 10, "maggi")     # 3 of 10 done, now maggi

A **listener** is any callable taking a :class:`ProgressEvent`.  :func:`listening` registers
one for the duration of a ``with`` block (the command line's terminal display,
:mod:`geonh.app.terminal_progress`, is one; a notebook or a log can be another)::

    with geonh.listening_progress(lambda e: print(e.step, e.done, e.total, e.label)):
        geonh.certify_forms(system, frame=frame)

Nobody listening (the default) costs one test of an empty list per :func:`report`, and
:func:`steps` hands back the iterable itself.  The listeners are process-wide (a display is
one per terminal) and are called in the thread that reports.  This module imports nothing but
the standard library and :mod:`geonh.errors`, so every floor may report.
"""
from __future__ import annotations

from contextlib import contextmanager
from typing import Callable, Iterable, Iterator, Optional, TypeVar

from ..errors import ImmutableError, ParseError

__all__ = ["ProgressEvent", "listening", "report", "steps", "phase", "has_listeners"]

T = TypeVar("T")


class ProgressEvent:
    """One report: ``step`` (what is being done, e.g. ``"certify forms"``), ``done`` (units
    finished so far), ``total`` (None if unknown) and ``label`` (the unit in hand, e.g. the
    form ``"maggi"``; empty if none).  ``done == total`` ends the step.  Immutable; a plain
    class with slots rather than a dataclass, so that importing the hook costs nothing."""

    __slots__ = ("step", "done", "total", "label")
    step: str
    done: int
    total: Optional[int]
    label: str

    def __init__(self, step: str, done: int, total: Optional[int] = None, label: str = ""):
        for name, value in (("step", step), ("done", done), ("total", total), ("label", label)):
            object.__setattr__(self, name, value)

    def __setattr__(self, name: str, value) -> None:
        raise ImmutableError(f"a ProgressEvent is immutable (cannot set {name})")

    def __delattr__(self, name: str) -> None:
        raise ImmutableError(f"a ProgressEvent is immutable (cannot delete {name})")

    def __eq__(self, other) -> bool:
        return isinstance(other, ProgressEvent) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def _key(self) -> tuple:
        return (self.step, self.done, self.total, self.label)

    def __repr__(self) -> str:
        return f"ProgressEvent(step={self.step!r}, done={self.done}, total={self.total}, label={self.label!r})"

    @property
    def finished(self) -> bool:
        """True when every unit is done (``done >= total``, with a total)."""
        return self.total is not None and self.done >= self.total


Listener = Callable[[ProgressEvent], None]

#: the registered listeners (process-wide; :func:`listening` adds and removes them)
_LISTENERS: list[Listener] = []


def has_listeners() -> bool:
    """True when somebody listens (a caller may skip building an expensive label otherwise)."""
    return bool(_LISTENERS)


def report(step: str, done: int, total: Optional[int] = None, label: str = "") -> None:
    """Tell every listener that ``step`` has ``done`` of ``total`` units finished and is at the
    unit ``label``.  Without a listener this returns at once."""
    if not _LISTENERS:
        return
    if not isinstance(step, str) or not isinstance(label, str):
        raise ParseError(f"progress: step and label are strings, not {step!r} and {label!r}")
    if isinstance(done, bool) or not isinstance(done, int) or (
            total is not None and (isinstance(total, bool) or not isinstance(total, int))):
        raise ParseError(f"progress: done and total are integers (total may be None), not {done!r} and {total!r}")
    event = ProgressEvent(step, done, total, label)
    for listener in tuple(_LISTENERS):
        listener(event)


def steps(step: str, items: Iterable[T], total: Optional[int] = None,
          label: Optional[Callable[[T], str]] = None) -> Iterable[T]:
    """``items`` as they are, reporting each one to the listeners: ``(step, k, total,
    label(item))`` before the k-th item (from 0) and ``(step, total, total)`` after the last.
    ``total`` defaults to ``len(items)``.  Without a listener, ``items`` itself is returned."""
    if not isinstance(step, str):
        raise ParseError(f"progress: step is a string, not {step!r}")
    if label is not None and not callable(label):
        raise ParseError(f"progress: label is a callable item -> str, not {label!r}")
    if not _LISTENERS:
        return items
    if total is None and hasattr(items, "__len__"):
        total = len(items)  # type: ignore[arg-type]
    return _reported(step, items, total, label)


def _reported(step: str, items: Iterable[T], total: Optional[int],
              label: Optional[Callable[[T], str]]) -> Iterator[T]:
    count = 0
    for item in items:
        report(step, count, total, "" if label is None else str(label(item)))
        yield item
        count += 1
    report(step, count, count)


@contextmanager
def phase(step: str) -> Iterator[None]:
    """A step without a count around the ``with`` block ("deriving the maggi equations of …"):
    ``(step, 0, None)`` on entry, ``(step, 1, 1)`` on exit (the steps reported inside are its
    inner steps)."""
    report(step, 0, None)
    try:
        yield
    finally:
        report(step, 1, 1)


@contextmanager
def listening(listener: Listener) -> Iterator[Listener]:
    """Call ``listener(event)`` for every :class:`ProgressEvent` reported inside the ``with``
    block (in any thread), then stop.  Yields the listener."""
    if not callable(listener):
        raise ParseError(f"progress: a listener is a callable listener(event), not {listener!r}")
    _LISTENERS.append(listener)
    try:
        yield listener
    finally:
        _LISTENERS.remove(listener)
