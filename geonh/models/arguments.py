"""Checks of the arguments of the model constructors (``n_trailer(N)``, ``torques=...``).

A model constructor builds symbolic objects from its arguments, so a wrong argument either
breaks deep inside (a raw ``TypeError`` from ``range(1.5)``) or, worse, builds a different
model without a word (``torques="no"`` is truthy; ``n_trailer(True)`` would be one trailer).
These checks refuse such arguments at the boundary with a geonh error naming the argument.
"""
from __future__ import annotations

import numpy as np

from ..errors import DimensionError, ParseError

__all__ = ["count", "flag"]


def count(value, name: str, minimum: int = 1, hint: str = "") -> int:
    """``value`` as an int ≥ ``minimum``: an ``int`` (or numpy integer), not a bool, a float
    (even 2.0: a count given as a float is usually a mistake) or a string.  ``hint`` is added
    to the message of a value below ``minimum``."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise DimensionError(f"{name} must be a whole number ≥ {minimum} (an int), not {value!r}")
    if value < minimum:
        raise DimensionError(f"{name} must be ≥ {minimum}, not {value}{hint}")
    return int(value)


def flag(value, name: str) -> bool:
    """``value`` as a bool: only True or False (a string such as "no" would be truthy)."""
    if not isinstance(value, (bool, np.bool_)):
        raise ParseError(f"{name} must be True or False, not {value!r}")
    return bool(value)
