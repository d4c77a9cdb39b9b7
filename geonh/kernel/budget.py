"""Bounded symbolic work: a time budget with progress reports, and limits on the size of input.

Symbolic steps can take very long on inputs that look harmless: a frame of nine dense
trigonometric rows, a sum of 10⁵ terms, an unevaluated ``factorial(10**8)``.  Two tools keep
such work bounded and visible.

**A budget** (:func:`budget`) is scoped with a context manager and applies to everything geonh
computes inside it, in the current thread or asyncio task (a :mod:`contextvars` variable)::

    def show(step, done, total):
        print(f"{step}: {done}/{total}")

    with geonh.budget(seconds=60, progress=show):
        eqs = geonh.derive(system, "boltzmann-hamel", frame=frame)

The long loops of geonh (frame inversion, structure coefficients, brackets of a flag, the
rows of the equations, the states of a certificate, …) call :func:`check` once per unit of
work.  :func:`check` reports ``(step, done, total)`` to the progress callback and, when the
time is up, raises :class:`~geonh.errors.BudgetExceededError` naming the step and how far it
got ("structure coefficients: stopped after 12 of 36 brackets").  The budget is
*cooperative*: it is checked between units, so one sympy call that never returns is not
interrupted (the size limits below keep single calls small).  A progress callback may itself
raise an exception to cancel the work.

Default: **no time limit** and no progress callback.  A library that stops at a wall-clock
deadline would give results that depend on the machine's speed and load, so only a caller
that decides so (a script, the command line) sets one.  Nested budgets: the inner one cannot
outlive the outer one (the earlier deadline wins); a progress callback or a size limit given
to the inner one replaces the outer one's for its duration.

**Size limits** (:func:`check_size`) refuse, before any work starts, an input expression
(a frame's components, a system's T, V, forces and constraints) that

* has more than ``max_nodes`` distinct subexpressions (default :data:`MAX_NODES`; counted by
  a walk that stops at the limit, so the check itself is cheap);
* contains an integer (or a numerator, denominator, float precision) of more than
  ``max_digits`` decimal digits (default :data:`MAX_DIGITS`);
* raises something to an integer power beyond ``max_digits`` (its exact value at a rational
  point, which the generic-point decisions compute, would have more digits than that), or
  applies a fast-growing function (factorial, binomial, gamma, fibonacci, …) to a number
  beyond ``max_digits`` — sympy evaluates ``factorial(10**8)`` the moment it rebuilds it.

The error (:class:`~geonh.errors.ExpressionTooLargeError`) names the entry and the limit;
raise a limit for one block with ``geonh.budget(max_nodes=...)`` or ``max_digits=...``.
"""
from __future__ import annotations

import math
import time
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from numbers import Real
from typing import Callable, Iterator, Optional

import sympy as sp

from ..errors import BudgetExceededError, ExpressionTooLargeError, ParseError

__all__ = ["Budget", "budget", "check", "check_size", "count_nodes", "current_budget", "MAX_NODES", "MAX_DIGITS"]

#: default limit of distinct subexpressions in one input entry (the Whipple bicycle's T has
#: about 500; a sum of 10⁵ terms has more than 10⁵)
MAX_NODES = 20_000
#: default limit of decimal digits of one integer in an input, of an integer exponent and of
#: the number a fast-growing function (factorial, …) is applied to
MAX_DIGITS = 10_000

#: a progress callback: ``progress(step, done, total)``, e.g. ("structure coefficients", 12, 36)
Progress = Callable[[str, int, Optional[int]], None]


@dataclass(frozen=True)
class Budget:
    """The limits in force (see :func:`budget`): ``seconds`` and ``deadline`` (a
    :func:`time.monotonic` value) of the time budget, or None without one; the ``progress``
    callback or None; the size limits ``max_nodes`` and ``max_digits``."""

    seconds: Optional[float] = None
    deadline: Optional[float] = None
    progress: Optional[Progress] = None
    max_nodes: int = MAX_NODES
    max_digits: int = MAX_DIGITS

    def remaining(self) -> Optional[float]:
        """Seconds left before the deadline (None without a time budget)."""
        return None if self.deadline is None else self.deadline - time.monotonic()


_CURRENT: ContextVar[Budget] = ContextVar("geonh_budget", default=Budget())


def current_budget() -> Budget:
    """The :class:`Budget` in force here (the defaults outside any :func:`budget` block)."""
    return _CURRENT.get()


def _positive(value, name: str, *, integer: bool) -> None:
    ok = isinstance(value, Real) and not isinstance(value, bool) and math.isfinite(value) and value > 0
    if ok and integer:
        ok = float(value).is_integer()
    if not ok:
        kind = "a positive integer" if integer else "a positive number of seconds"
        raise ParseError(f"budget: {name} must be {kind} or None, not {value!r}")


@contextmanager
def budget(seconds: Optional[float] = None, *, progress: Optional[Progress] = None,
           max_nodes: Optional[int] = None, max_digits: Optional[int] = None) -> Iterator[Budget]:
    """Bound the symbolic work done inside the ``with`` block.

    ``seconds``: wall-clock time after which the next :func:`check` raises
    :class:`~geonh.errors.BudgetExceededError` (None: no limit of its own; an enclosing
    budget's deadline still applies, the earlier one wins).  ``progress``: called as
    ``progress(step, done, total)`` by every :func:`check` (``total`` may be None).
    ``max_nodes`` / ``max_digits``: the size limits of :func:`check_size` for this block
    (None keeps the enclosing ones).  Yields the :class:`Budget` in force."""
    outer = _CURRENT.get()
    if seconds is not None:
        _positive(seconds, "seconds", integer=False)
    if progress is not None and not callable(progress):
        raise ParseError(f"budget: progress must be a callable progress(step, done, total), not {progress!r}")
    for name, value in (("max_nodes", max_nodes), ("max_digits", max_digits)):
        if value is not None:
            _positive(value, name, integer=True)
    deadline, secs = outer.deadline, outer.seconds
    if seconds is not None:
        mine = time.monotonic() + float(seconds)
        if deadline is None or mine < deadline:
            deadline, secs = mine, float(seconds)
    b = Budget(seconds=secs, deadline=deadline,
               progress=progress if progress is not None else outer.progress,
               max_nodes=int(max_nodes) if max_nodes is not None else outer.max_nodes,
               max_digits=int(max_digits) if max_digits is not None else outer.max_digits)
    token = _CURRENT.set(b)
    try:
        yield b
    finally:
        _CURRENT.reset(token)


def check(step: str, done: int, total: Optional[int] = None, unit: str = "steps") -> None:
    """One unit of a long step: report ``(step, done, total)`` to the progress callback and
    raise :class:`~geonh.errors.BudgetExceededError` if the time budget is used up.

    Call it before each unit of work with ``done`` = units finished so far (and once more
    with ``done == total`` at the end, if you like a final report).  ``unit`` names the units
    in the error message ("structure coefficients: stopped after 12 of 36 brackets").  Without
    a budget this costs a context-variable lookup."""
    b = _CURRENT.get()
    if b.progress is not None:
        b.progress(step, done, total)
    if b.deadline is not None and time.monotonic() > b.deadline:
        raise BudgetExceededError(step, done, total, unit, b.seconds)


# -- size limits -------------------------------------------------------------------------------
_LOG2_10 = math.log2(10)


def _fast_growing() -> tuple:
    names = ("factorial", "factorial2", "subfactorial", "binomial", "RisingFactorial", "FallingFactorial",
             "gamma", "polygamma", "fibonacci", "lucas", "tribonacci", "bell", "bernoulli", "euler",
             "catalan", "harmonic", "genocchi", "partition", "motzkin", "multifactorial")
    return tuple(c for c in (getattr(sp, n, None) for n in names) if isinstance(c, type))


_FAST_GROWING = _fast_growing()


def _digits(n: int) -> int:
    """Decimal digits of the integer n (from its bit length: no conversion to text, which
    Python refuses beyond 4300 digits anyway)."""
    return max(1, int(abs(int(n)).bit_length() / _LOG2_10) + 1)


def _short(e: sp.Basic) -> str:
    """``e`` as text if it is small (a few nodes, no long numbers), else its head: an error
    message never prints a huge number or walks a large tree."""
    seen: set = set()
    stack = [e]
    while stack:
        a = stack.pop()
        if a.is_Rational and _digits(max(abs(int(a.p)), int(a.q))) > 40:
            return f"{type(e).__name__}(…)"
        if a not in seen:
            seen.add(a)
            if len(seen) > 24:
                return f"{type(e).__name__}(…)"
            stack.extend(a.args)
    return str(e)


def count_nodes(exprs, limit: int) -> int:
    """The number of distinct subexpressions of ``exprs`` (one sympy object or an iterable of
    them), counted up to ``limit + 1``: a walk over distinct nodes that stops there, so it
    costs at most ``limit + 1`` steps however large (or however shared) the expressions are."""
    stack = [exprs] if isinstance(exprs, sp.Basic) else [e for e in exprs if isinstance(e, sp.Basic)]
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


def check_size(expr, what: str = "expression") -> None:
    """Refuse an input expression that is too large to work with (module docstring): more
    than ``max_nodes`` distinct subexpressions, a number of more than ``max_digits`` digits,
    an integer exponent or a fast-growing function (factorial, …) of a number beyond
    ``max_digits``.  Raises :class:`~geonh.errors.ExpressionTooLargeError` naming ``what``
    and the limit.  The walk visits each distinct subexpression once and stops at the limit,
    so the check costs at most ``max_nodes`` steps (a tree walk, as sympy's ``count_ops``
    does, can be exponentially longer on shared subexpressions).  Non-sympy values pass."""
    if not isinstance(expr, sp.Basic):
        return
    b = _CURRENT.get()
    max_nodes, max_digits = b.max_nodes, b.max_digits
    max_bits = max_digits * _LOG2_10
    hint = "raise the limit for one block with geonh.budget({}=...) if you mean it"
    seen: set = set()
    stack = [expr]
    while stack:
        e = stack.pop()
        if e.is_Number:
            if e.is_Rational:
                bits = max(abs(int(e.p)).bit_length(), abs(int(e.q)).bit_length())
                if bits > max_bits:
                    raise ExpressionTooLargeError(
                        f"{what}: contains a number of about {_digits(max(abs(int(e.p)), int(e.q)))} digits; "
                        f"at most {max_digits} are allowed ({hint.format('max_digits')})")
            elif e.is_Float and e._prec > max_bits:
                raise ExpressionTooLargeError(
                    f"{what}: contains a float of {int(e._prec / _LOG2_10)} digits; at most {max_digits} are "
                    f"allowed ({hint.format('max_digits')})")
            continue
        if e in seen:
            continue
        seen.add(e)
        if len(seen) > max_nodes:
            raise ExpressionTooLargeError(
                f"{what}: has more than {max_nodes} distinct subexpressions (the limit max_nodes); "
                f"simplify or split it, or {hint.format('max_nodes')}")
        if e.is_Pow:
            x = e.exp
            if x.is_Integer and abs(int(x.p)) > max_digits and not (e.base.is_Number and abs(e.base) == 1):
                raise ExpressionTooLargeError(
                    f"{what}: the power {_short(e)} has an exponent beyond {max_digits} (its exact value "
                    f"at a rational point would have more digits than allowed; {hint.format('max_digits')})")
        elif isinstance(e, _FAST_GROWING):
            for a in e.args:
                if a.is_Number and abs(a) > max_digits:
                    raise ExpressionTooLargeError(
                        f"{what}: {type(e).__name__} of {_short(a)}, a number beyond {max_digits}: its value "
                        f"is astronomically large and sympy computes it when the expression is rebuilt "
                        f"({hint.format('max_digits')})")
        stack.extend(e.args)
