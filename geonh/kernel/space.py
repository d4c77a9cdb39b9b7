"""Configuration space: coordinates, the optional time coordinate, velocities, accelerations.

Expressions in geonh are written in plain sympy Symbols: coordinates ``q``, velocities ``qd``
(named ``<q>_dot``, printed as a dot in LaTeX) and accelerations ``qdd`` (``<q>_ddot``).
For rheonomic systems time is adjoined as the **last** coordinate (Hamel 1924, eq. (20):
q_n = t, with velocity 1 on the motion and δt = 0 for every virtual displacement).
"""
from __future__ import annotations

import keyword
from typing import Iterable, Sequence, cast

import sympy as sp

from .display import register_rate
from ..errors import DimensionError, NotLinearError, ParseError, SpaceMismatchError, UnknownCoordinateError
from . import roles
from .parsing import as_expr, as_exprs, brief, check_lookalikes, expr_of


def as_expression(value, symbols: Iterable[sp.Symbol] = (), *, what: str = "expression") -> sp.Expr:
    """An equation or an expression as the expression that vanishes: ``Eq(lhs, rhs)`` gives
    lhs − rhs, anything else is taken as is (``= 0``).  The input is converted safely by
    :func:`geonh.kernel.parsing.as_expr` (a string is parsed over ``symbols``, never
    evaluated; a non-expression raises :class:`~geonh.errors.ParseError` naming ``what``)."""
    e = as_expr(value, symbols, what=what)
    return e.lhs - e.rhs if isinstance(e, sp.Equality) else e


def known_symbols(space: "ConfigurationSpace", *inputs) -> tuple:
    """The space's state symbols followed by the parameters (free symbols by name, first seen
    first) of those ``inputs`` that are sympy objects, or sequences, mappings or
    codistributions of them: the names a string input of the same system refers to, so that
    ``V="m*g*y"`` next to a sympy ``T`` with a positive ``m`` means that same ``m``."""
    out = list(space.state_symbols)
    seen = {s.name for s in out}

    def visit(v):
        if isinstance(v, sp.Basic):
            for s in sorted(v.free_symbols, key=sp.default_sort_key):
                if isinstance(s, sp.Symbol) and s.name not in seen:
                    seen.add(s.name)
                    out.append(s)
        elif isinstance(v, dict):
            for x in v.values():
                visit(x)
        elif isinstance(v, sp.MatrixBase):   # a mutable Matrix is no sp.Basic
            visit(list(v))
        elif isinstance(v, (list, tuple)):
            for x in v:
                visit(x)
        elif hasattr(v, "forms"):  # a Codistribution
            for f in v.forms:
                visit(list(getattr(f, "covector", ())))

    for v in inputs:
        visit(v)
    return tuple(out)


def _as_symbols(coords: str | Iterable, what: str = "coordinate") -> tuple[sp.Symbol, ...]:
    if isinstance(coords, str):
        coords = coords.replace(",", " ").split()
    elif isinstance(coords, sp.Symbol):
        coords = [coords]
    elif not hasattr(coords, "__iter__"):
        raise ParseError(f"coordinates must be names (a string or a list), not {brief(coords)}")
    out = []
    for c in coords:
        if isinstance(c, str):
            if not c.isidentifier() or keyword.iskeyword(c) or c.startswith("_"):
                raise ParseError(f"{what} name {c!r} is not usable: a name is letters, digits and "
                                 "underscores, not starting with a digit or an underscore")
            out.append(sp.Symbol(c, real=True))
        elif isinstance(c, sp.Symbol):
            if c.is_real is False:
                raise ParseError(f"{what} {c} is not real (assumptions {c.assumptions0})")
            out.append(c)
        else:
            raise ParseError(f"a {what} must be a name or a sympy Symbol, not {type(c).__name__} {c!r}")
    return tuple(out)


class ConfigurationSpace:
    """Configuration space with named real coordinates q^1 … q^n and optional time.

    Parameters
    ----------
    coordinates:
        Names (``"x y theta"`` or a list) or sympy Symbols.  Names become real Symbols.
    time:
        ``False`` (scleronomic, default), ``True`` (a Symbol ``t``), or a name / Symbol.
        When given, time is adjoined as the last coordinate of :attr:`coords`.

    Attributes
    ----------
    q : tuple of the true coordinates.
    t : the time symbol or ``None``.
    coords : all coordinates the fields and forms act on (``q`` then ``t``).
    qd, qdd : velocity and acceleration symbols of ``q``; they are real whatever ``q`` is
        declared (a positive coordinate has velocities of either sign).

    Examples
    --------
        >>> from geonh.kernel import ConfigurationSpace
        >>> S = ConfigurationSpace("x y theta")
        >>> S.q, S.qd
        ((x, y, theta), (x_dot, y_dot, theta_dot))
        >>> x, y, theta = S.q
        >>> S.total_derivative(x * y)          # d/dt along q̇
        x*y_dot + x_dot*y
        >>> R = ConfigurationSpace("x", time=True)
        >>> R.coords, R.n, R.dim               # time is adjoined as the last coordinate
        ((x, t), 1, 2)
    """

    def __init__(self, coordinates: str | Iterable, time: bool | str | sp.Symbol = False):
        q = _as_symbols(coordinates)
        if not q:
            raise DimensionError("a configuration space needs at least one coordinate")
        names = [s.name for s in q]
        if len(set(names)) != len(names):
            raise DimensionError(f"repeated coordinate name in {names}")
        if time is True:
            t = sp.Symbol("t", real=True)
        elif time is False or time is None:
            t = None
        elif isinstance(time, (str, sp.Symbol)):
            (t,) = _as_symbols([time], "time")
        else:
            raise ParseError(f"time must be True, False, a name or a Symbol, not {brief(time)}")
        if t is not None and t.name in names:
            raise DimensionError(f"time symbol {t} is also a coordinate")
        derived = {f"{n}_dot" for n in names} | {f"{n}_ddot" for n in names}
        clash = [n for n in names + ([t.name] if t is not None else []) if n in derived]
        if clash:
            raise DimensionError(f"coordinate name {clash[0]!r} clashes with a velocity or acceleration "
                                 f"name (<q>_dot, <q>_ddot) of the coordinates {names}")
        self.q: tuple[sp.Symbol, ...] = q
        self.t: sp.Symbol | None = t
        #: the coordinates: q, then time when the space has it
        self.coords: tuple[sp.Symbol, ...] = q + ((t,) if t is not None else ())
        self.qd: tuple[sp.Symbol, ...] = tuple(
            sp.Symbol(f"{s.name}_dot", real=True) for s in q)
        self.qdd: tuple[sp.Symbol, ...] = tuple(
            sp.Symbol(f"{s.name}_ddot", real=True) for s in q)
        for c, v, a in zip(q, self.qd, self.qdd):
            roles.record(v, "velocity", c)
            roles.record(a, "acceleration", c)
            register_rate(v, c)          # and for display: a rate prints as a dot over what it is the rate of
            register_rate(a, v)
        self._index = {s: i for i, s in enumerate(self.coords)}
        self._vel = dict(zip(q, self.qd))
        self._acc = dict(zip(self.qd, self.qdd))

    # -- identity ---------------------------------------------------------------------------
    def _key(self):
        return (self.coords, self.t)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ConfigurationSpace) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        names = ", ".join(s.name for s in self.q)
        tt = f", time={self.t.name}" if self.t is not None else ""
        return f"ConfigurationSpace([{names}]{tt})"

    # -- lookup -----------------------------------------------------------------------------
    @property
    def dim(self) -> int:
        """Number of coordinates fields and forms act on (n, or n + 1 with time)."""
        return len(self.coords)

    @property
    def n(self) -> int:
        """Number of true coordinates (without time)."""
        return len(self.q)

    @property
    def is_rheonomic(self) -> bool:
        return self.t is not None

    def index(self, coord: str | sp.Symbol) -> int:
        """Position of ``coord`` in :attr:`coords`; :class:`UnknownCoordinateError` if absent."""
        if isinstance(coord, str):
            for s in self.coords:
                if s.name == coord:
                    return self._index[s]
        elif isinstance(coord, sp.Basic) and coord in self._index:
            return self._index[coord]
        raise UnknownCoordinateError(
            f"{str(coord)[:80]} is not a coordinate of {self!r}; its coordinates are "
            f"{[s.name for s in self.coords]}")

    def coordinate(self, coord: str | sp.Symbol) -> sp.Symbol:
        return self.coords[self.index(coord)]

    def velocity(self, coord: str | sp.Symbol) -> sp.Expr:
        """The velocity symbol of ``coord`` (``1`` for the time coordinate)."""
        s = self.coordinate(coord)
        return sp.S.One if s == self.t else self._vel[s]

    @property
    def velocities(self) -> tuple[sp.Expr, ...]:
        """Velocities of all :attr:`coords` (``qd`` followed by ``1`` for time)."""
        return self.qd + ((sp.S.One,) if self.t is not None else ())

    @property
    def state_symbols(self) -> tuple[sp.Symbol, ...]:
        """Symbols an expression in (t, q, q̇, q̈) may contain."""
        return self.coords + self.qd + self.qdd

    def check_expression(self, expr: sp.Basic, what: str = "expression") -> sp.Basic:
        """Refuse what would silently be a wrong answer in an expression meant to live on this
        space: a symbol that looks like one of the space's (same name, another symbol:
        :class:`SpaceMismatchError`), a function of time such as a dynamicsymbol ``x(t)``
        (:class:`SpaceMismatchError`: convert with :meth:`from_dynamic`), and, on a space
        without time, a symbol named like time (``t``): it would be a constant parameter, not
        time (:class:`SpaceMismatchError`; use ``ConfigurationSpace(..., time=True)``), and
        the velocity or acceleration symbol of a coordinate of another space (``z_dot`` where
        this space has no ``z``): it would be a constant parameter, not a velocity
        (:class:`SpaceMismatchError`).  Returns ``expr``."""
        expr = expr_of(expr, what=what)
        check_lookalikes(expr, self.state_symbols, what=what)
        for s in roles.foreign_rates(expr, self.state_symbols):
            role = cast("tuple[str, sp.Symbol]", roles.symbol_role(s))  # foreign_rates keeps only rates
            raise SpaceMismatchError(
                f"{what} contains {s}, the {role[0]} of the coordinate {role[1]} of another "
                f"configuration space; {self!r} has no such coordinate, so {s} would silently be "
                "a constant parameter: use this space's symbols (space.qd, space.qdd) or add the "
                "coordinate")
        for f in expr.atoms(sp.core.function.AppliedUndef):
            raise SpaceMismatchError(
                f"{what} contains the function {f}; use plain symbols (ConfigurationSpace.from_dynamic "
                "converts dynamicsymbols)")
        if self.t is None:
            for s in expr.free_symbols:
                if getattr(s, "name", None) == "t":
                    raise SpaceMismatchError(
                        f"{what} depends on t, but {self!r} has no time coordinate: t would be a constant "
                        "parameter, not time; build the space with time=True (or rename the parameter)")
        return expr

    # -- calculus ---------------------------------------------------------------------------
    def total_derivative(self, expr: sp.Expr, along: Sequence[sp.Expr] | None = None,
                         speeds: Sequence[sp.Symbol] = (), rates: Sequence[sp.Expr] = ()) -> sp.Expr:
        """Total time derivative d/dt — geonh's one time-derivative routine.

        Without ``along``: d/dt f = ∂f/∂t + Σ q̇^i ∂f/∂q^i + Σ q̈^i ∂f/∂q̇^i for f in (t, q, q̇)
        (the result is in t, q, q̇, q̈; an ``expr`` with accelerations is refused, it would need
        third derivatives).  With ``along`` = K (the velocities on a motion, q̇ = K(t, q, u)):
        d/dt f = ∂f/∂t + Σ K^i ∂f/∂q^i + Σ rates_k ∂f/∂speeds_k for f in (t, q, u), the speeds
        u having the derivatives ``rates`` (symbols u̇, or values).
        """
        expr = expr_of(expr, self.state_symbols, what="total_derivative")
        if along is not None:
            along = as_exprs(along, self.state_symbols, what="total_derivative along")
        speeds = as_exprs(speeds, what="total_derivative speeds")
        rates = as_exprs(rates, what="total_derivative rates")
        free = expr.free_symbols
        out = sp.S.Zero
        if self.t is not None and self.t in free:
            out += sp.diff(expr, self.t)
        if along is None:
            if expr.has(*self.qdd):
                raise NotLinearError("total_derivative takes expressions in (t, q, q̇); "
                                 f"{expr} contains accelerations")
            along, speeds, rates = self.qd, self.qd, self.qdd
        for qi, ki in zip(self.q, along):
            if qi in free and ki != 0:
                out += ki * sp.diff(expr, qi)
        for ui, ri in zip(speeds, rates):
            if ui in free:
                out += ri * sp.diff(expr, ui)
        return out

    # -- sympy.physics.mechanics bridge -------------------------------------------------------
    def _time_for_dynamic(self) -> sp.Symbol:
        from sympy.physics.mechanics import dynamicsymbols
        return self.t if self.t is not None else dynamicsymbols._t

    def dynamicsymbols(self) -> tuple[sp.Function, ...]:
        """The coordinates as sympy.physics.mechanics dynamicsymbols q(t)."""
        t = self._time_for_dynamic()
        return tuple(sp.Function(s.name)(t) for s in self.q)

    def to_dynamic(self, expr: sp.Expr) -> sp.Expr:
        """Rewrite an expression in plain symbols (q, q̇, q̈) with dynamicsymbols q(t)."""
        t = self._time_for_dynamic()
        rep = {}
        for s, f, v, a in zip(self.q, self.dynamicsymbols(), self.qd, self.qdd):
            rep[a] = f.diff(t, 2)
            rep[v] = f.diff(t)
            rep[s] = f
        return expr_of(expr, self.state_symbols, what="to_dynamic").xreplace(rep)

    def from_dynamic(self, expr: sp.Expr) -> sp.Expr:
        """Rewrite an expression in dynamicsymbols q(t), q'(t), q''(t) with plain symbols.

        Functions of time are matched by name to the coordinates; an unknown function of
        time raises :class:`UnknownCoordinateError`.
        """
        expr = expr_of(expr, what="from_dynamic")
        t = self._time_for_dynamic()
        by_name = {s.name: (s, v, a) for s, v, a in zip(self.q, self.qd, self.qdd)}
        rep = {}
        for d in expr.atoms(sp.Derivative):
            f = d.expr
            if not (isinstance(f, sp.core.function.AppliedUndef) and f.args == (t,)):
                continue
            if f.func.__name__ not in by_name:
                raise UnknownCoordinateError(f"{f} is not a coordinate of {self!r}")
            order = sum(c for v, c in d.variable_count if v == t)
            if order not in (1, 2):
                raise NotLinearError(f"{d}: only first and second time derivatives are supported")
            rep[d] = by_name[f.func.__name__][order]
        expr = expr.xreplace(rep)
        rep = {}
        for f in expr.atoms(sp.core.function.AppliedUndef):
            if f.args != (t,):
                continue
            if f.func.__name__ not in by_name:
                raise UnknownCoordinateError(f"{f} is not a coordinate of {self!r}")
            rep[f] = by_name[f.func.__name__][0]
        return expr.xreplace(rep)

