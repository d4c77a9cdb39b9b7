"""Random points: geonh's one sampler.

Every random value geonh draws — the points of the generic-point verdicts
(:mod:`geonh.kernel.generic_point`), the random states of the systems (``sample_state``), the
parameter points of the searches for conserved quantities — is a random rational drawn here,
from a ``random.Random`` the caller seeds, so a fixed seed gives a fixed point:

* :func:`random_rational` — one positive rational num/den, away from 0 and mostly away from
  small integers (which are often special); its range is a :class:`Span`;
* :func:`random_values` — {symbol: value} for symbols in a given order, positive, of either
  sign, or signed by each symbol's sympy assumptions;
* :func:`sample_points` — the reproducible points of the generic point (fixed seeds, cached):
  positive by default, signed by the assumptions with ``signs=True``, restricted to a
  parameter domain with ``conditions`` (:func:`condition_holds`).

This module evaluates nothing but the conditions' truth values; it imports only the errors
and the working precision.
"""
from __future__ import annotations

import random
from dataclasses import dataclass
from functools import lru_cache
from typing import Iterable, Mapping, Sequence

import sympy as sp

from ..errors import InconsistentStateError, ParseError
from . import evaluation
from .parsing import as_sequence, as_symbols, as_values, brief

__all__ = ["Span", "STATE_SPAN", "GENERIC_SPAN", "OFFSET_SPAN", "random_rational", "random_values", "sample_points",
           "condition_holds", "TRIALS"]

#: the number of points a generic-point verdict needs to agree on
TRIALS = 3
_SEED = 20240601


@dataclass(frozen=True)
class Span:
    """The range of :func:`random_rational`: denominators in [low_den, high_den], numerators in
    [den // divisor + 1, top · den], so values in (1/divisor, top]."""

    low_den: int
    high_den: int
    divisor: int
    top: int


#: the states' draws (``sample_state``, parameter points): denominators 7 … 41, values in (1/4, 2]
STATE_SPAN = Span(7, 41, 4, 2)
#: the generic point's draws: denominators 11 … 97, values in (1/5, 3] (wider than the states')
GENERIC_SPAN = Span(11, 97, 5, 3)
#: small offsets from a given point (a random point near an operating point): values in (1/10, 1]
OFFSET_SPAN = Span(11, 97, 10, 1)


def random_rational(rng: random.Random, low_den: int = STATE_SPAN.low_den, high_den: int = STATE_SPAN.high_den, *,
                    divisor: int = STATE_SPAN.divisor, top: int = STATE_SPAN.top) -> sp.Rational:
    """A random positive rational num/den with den in [low_den, high_den] and num in
    [den // divisor + 1, top · den], so the value lies in (1/divisor, top]: away from 0 and
    mostly away from small integers, which are often special.  Two draws from ``rng``
    (den, then num), so a fixed seed gives a fixed sequence."""
    _check_rng(rng)
    if not all(isinstance(k, int) and not isinstance(k, bool) and k >= 1 for k in (low_den, high_den, divisor, top)) \
            or low_den > high_den:
        raise ParseError(f"random_rational: a range of positive whole numbers with low_den ≤ high_den, not "
                         f"{[brief(k) for k in (low_den, high_den, divisor, top)]}")
    den = rng.randint(low_den, high_den)
    return sp.Rational(rng.randint(den // divisor + 1, top * den), den)


def _symbols(value, what: str) -> tuple:
    """A sequence of sympy symbols, checked (a tuple or list of symbols, as geonh's own callers
    pass, without conversion)."""
    if type(value) in (tuple, list) and all(isinstance(s, sp.Symbol) for s in value):
        return tuple(value)
    return as_symbols(value, what=what)


def _check_rng(rng) -> None:
    if not isinstance(rng, random.Random):
        raise ParseError(f"rng must be a random.Random (seeded by the caller), not {brief(rng)}")


def _assumed_sign(s: sp.Symbol, rng: random.Random, negative: bool) -> int:
    """+1 (−1) for a symbol whose assumptions make it non-negative (non-positive); otherwise
    −1 when ``negative``, else a random sign."""
    if s.is_positive or s.is_nonnegative:
        return 1
    if s.is_negative or s.is_nonpositive:
        return -1
    return -1 if negative else rng.choice([-1, 1])


def random_values(rng: random.Random, symbols: Iterable[sp.Symbol], *, span: Span = STATE_SPAN,
                  either_sign: Iterable[sp.Symbol] = (), assumed_signs: bool = False,
                  negative: bool = False) -> dict:
    """{symbol: random rational} for ``symbols`` in the given order (one :func:`random_rational`
    of ``span`` each), then for ``either_sign`` with a random sign each.

    * default: every value of ``symbols`` positive;
    * ``either_sign``: the magnitude is drawn, then the sign (``rng.choice``);
    * ``assumed_signs=True``: the sign of each value of ``symbols`` follows its sympy
      assumptions (positive or non-negative: +, negative or non-positive: −) and is random
      otherwise (−1 for every such symbol when ``negative``), drawn before the magnitude.

    Each order is the one its callers have always drawn, so a fixed seed keeps giving the
    same point."""
    _check_rng(rng)
    if not isinstance(span, Span):
        raise ParseError(f"span must be a geonh.kernel.sampling.Span, not {brief(span)}")
    symbols, either_sign = _symbols(symbols, "symbols"), _symbols(either_sign, "either_sign")
    out: dict = {}
    for s in symbols:
        sign = _assumed_sign(s, rng, negative) if assumed_signs else 1
        out[s] = sign * random_rational(rng, span.low_den, span.high_den, divisor=span.divisor, top=span.top)
    for s in either_sign:
        out[s] = random_rational(rng, span.low_den, span.high_den, divisor=span.divisor, top=span.top) \
            * rng.choice([-1, 1])
    return out


@lru_cache(maxsize=64)
def _points(symbols: tuple, trials: int) -> tuple:
    rng = random.Random(_SEED + len(symbols))
    return tuple(random_values(rng, symbols, span=GENERIC_SPAN) for _ in range(trials))


@lru_cache(maxsize=64)
def _signed_points(symbols: tuple, trials: int, conditions: tuple) -> tuple:
    rng = random.Random(_SEED + 7919 + len(symbols))
    signs = _fixed_signs(conditions)
    out: list[dict] = []
    attempts = 0
    while len(out) < trials:
        attempts += 1
        if attempts > 200 * max(trials, 1):
            raise InconsistentStateError(
                f"the conditions {list(conditions)} hold at none of {attempts - 1} random values of "
                f"{[s.name for s in symbols]}: they may be inconsistent")
        # the first draw is negative in every unsigned symbol, the others have random signs;
        # a sign a condition fixes on its own (p > 0, p < 0, …) is given to the symbol outright
        pt = random_values(rng, symbols, span=GENERIC_SPAN, assumed_signs=True, negative=attempts == 1)
        pt = {s: (abs(v) * signs[s] if s in signs else v) for s, v in pt.items()}
        if all(condition_holds(c, pt) for c in conditions):
            out.append(pt)
    return tuple(out)


def _fixed_signs(conditions: tuple) -> dict:
    """{symbol: ±1} for the conditions that fix a symbol's sign by themselves: p > c or p ≥ c
    with c ≥ 0 (+1), p < c or p ≤ c with c ≤ 0 (−1), either way round.  Without it, k such
    conditions on unsigned symbols would hold at only one draw in 2ᵏ."""
    out: dict = {}
    for c in conditions:
        if not isinstance(c, (sp.StrictGreaterThan, sp.GreaterThan, sp.StrictLessThan, sp.LessThan)):
            continue
        big, small = (c.lhs, c.rhs) if isinstance(c, (sp.StrictGreaterThan, sp.GreaterThan)) else (c.rhs, c.lhs)
        if isinstance(big, sp.Symbol) and small.is_number and small.is_nonnegative:
            out.setdefault(big, 1)
        elif isinstance(small, sp.Symbol) and big.is_number and big.is_nonpositive:
            out.setdefault(small, -1)
    return out


def sample_points(symbols: Iterable[sp.Symbol], trials: int = TRIALS, *, signs: bool = False,
                  conditions: Sequence = ()) -> tuple[dict, ...]:
    """Reproducible random rational points for ``symbols`` (sorted by name).

    By default every value is positive (the draws the decisions have always used).  With
    ``signs=True`` or ``conditions`` the points come from another stream: a symbol whose
    sympy assumptions make it positive (negative) gets a positive (negative) value, every
    other symbol a value of either sign (negative in the first draw, random signs after
    it), and only points where every condition (a sympy
    relational such as ``J > J0``) holds are kept.  :class:`InconsistentStateError` if the
    conditions hold at none of many draws."""
    conds = tuple(as_sequence(conditions, "conditions"))
    for c in conds:
        _check_condition(c)
    syms = set(as_symbols(as_sequence(symbols, "symbols"), what="symbols"))
    for c in conds:
        syms |= c.free_symbols
    ordered = tuple(sorted(syms, key=sp.default_sort_key))
    if not signs and not conds:
        return _points(ordered, trials)
    return _signed_points(ordered, trials, conds)


def _check_condition(c) -> None:
    if not isinstance(c, sp.Basic) or not (c.is_Relational or isinstance(c, sp.logic.boolalg.Boolean)):
        raise ParseError(f"a condition is a sympy relational such as J > J0, not {brief(c)}")


def condition_holds(condition, point: Mapping) -> bool:
    """Does the sympy relational ``condition`` hold at ``point`` ({symbol: number})?"""
    _check_condition(condition)
    v = condition.xreplace(as_values(point, what="point"))
    if v is sp.true or v is sp.false:
        return bool(v)
    try:
        v = v.evalf(evaluation.precision())  # functions of numbers: decide numerically
        if isinstance(v, sp.logic.boolalg.BooleanAtom):
            return bool(v)
    except (TypeError, ValueError):  # pragma: no cover - defensive
        pass
    raise ParseError(f"the condition {condition} is not decided at {point}: it must compare "
                     "real expressions in the parameters (and coordinates)")
