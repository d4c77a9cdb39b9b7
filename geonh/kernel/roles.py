"""The role of the velocity and acceleration symbols a configuration space makes.

A :class:`~geonh.kernel.space.ConfigurationSpace` with the coordinate ``z`` makes the symbols
``z_dot`` (its velocity) and ``z_ddot`` (its acceleration) and records them here.  sympy caches
symbols by name and assumptions, so the record identifies such a symbol wherever it turns up:
an input of one space that contains the velocity of another space's coordinate would
otherwise silently be a constant parameter (the check is
:meth:`ConfigurationSpace.check_expression <geonh.kernel.space.ConfigurationSpace.check_expression>`
and :func:`geonh.kernel.parsing.as_expr`).  Display code asks the record, never the name's
suffix, what a symbol is.
"""
from __future__ import annotations

import sympy as sp

from ..errors import ParseError

__all__ = ["record", "symbol_role"]

_ROLES: dict[sp.Symbol, tuple[str, sp.Symbol]] = {}


def record(symbol: sp.Symbol, role: str, coordinate: sp.Symbol) -> None:
    """Record ``symbol`` as the ``role`` ("velocity" or "acceleration") of ``coordinate``; a
    symbol keeps the role it was first given."""
    if role not in ("velocity", "acceleration"):
        raise ParseError(f"unknown role {role!r}")
    if not isinstance(symbol, sp.Symbol) or not isinstance(coordinate, sp.Symbol):
        raise ParseError("roles are recorded for sympy Symbols (a rate symbol and its coordinate)")
    _ROLES.setdefault(symbol, (role, coordinate))


def symbol_role(s: sp.Basic) -> tuple[str, sp.Symbol] | None:
    """``("velocity", q)`` or ``("acceleration", q)`` if a configuration space made ``s`` as the
    velocity or acceleration of its coordinate ``q``; otherwise ``None``."""
    return _ROLES.get(s) if isinstance(s, sp.Symbol) else None


def foreign_rates(expr: sp.Basic, own) -> list[sp.Symbol]:
    """The free symbols of ``expr`` outside ``own`` that are some space's velocity or
    acceleration (sorted)."""
    own = set(own)
    return sorted((s for s in expr.free_symbols if s not in own and symbol_role(s) is not None),
                  key=sp.default_sort_key)
