"""Form declarations: the choice (V, W) of a frame form, stated once, checked when built, solved
by the engine — and the record of every form's route, inputs and sources.

A :class:`FormDeclaration` holds everything Lagrange's central equation
(:func:`geonh.equations.engine.central_equations`) consumes for one form, and checks its
mathematics when it is built, at one generic point (:func:`verify`):

(a) kinematics — the d field on the motion is the motion: V^i|_motion = K^i (and V^t = 1 on a
    space with time), and K satisfies the constraints, θ^α(K) = 0;
(b) speeds — the speed definitions give back the speeds: u_r(t, q, q̇ = K(t, q, u)) = u_r;
(c) admissibility — every δ field is a virtual displacement: θ^α(W_r)|_motion = 0 for each
    constraint form θ^α, and δt = W_r^t = 0;
(d) independence — the W are independent and as many as the degrees of freedom, so they span
    the admissible distribution.

A failure raises :class:`~geonh.errors.DeclarationError` naming the form, the check and the
component, speed or δ field.  (The d and δ fields of Neimark–Fufaev 1960, eq. (1.1), and
Hamel's choice in an adapted frame, Hamel 1924, eqs. (13), (19'), satisfy them by
construction; the checks refuse a declaration that does not.)

:func:`solve` turns a declaration into :class:`~geonh.equations.base.Equations`;
:func:`in_frame` declares Hamel's choice in an adapted frame, :func:`framed` is the shared
set-up of the forms that take a frame (a :class:`FramedMotion`), and :func:`contract`
contracts a covector with a frame field.

:class:`FormInfo` is what the registry, the command line and the docs say of a form: its name,
its :class:`Route`, its :class:`Inputs` and its sources (:class:`Citation` records, keyed by
the labels of docs/bibliography.md).  A declaration carries the :class:`FormInfo` of its form.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from enum import Enum, EnumMeta
from functools import lru_cache
from types import MappingProxyType
from typing import Any, Callable, Mapping, Sequence, cast

import mpmath
import sympy as sp

from ..errors import DeclarationError, DimensionError, MissingValueError, ParseError, SingularMapError, \
    SpaceMismatchError
from ..kernel import evaluation
from ..kernel.budget import gc_paused
from ..kernel.evaluation import symbols_in, to_sympy, tree_eval
from ..kernel.fields import VectorField
from ..kernel.frames import Frame
from ..kernel.generic_point import independent_rows, sample_points
from ..kernel.parsing import as_exprs, as_mapping, as_sequence, as_symbols
from ..systems.mechanical import MechanicalSystem
from ..transposition.adapted import check_adapted, frame_kinematics, speed_symbols, voronets_frame
from .base import Equations, record_positive_definite
from .engine import central_equations

__all__ = ["Route", "Inputs", "Citation", "FormInfo", "FormDeclaration", "FramedMotion", "CHECKS", "verify", "solve",
           "in_frame", "framed", "contract", "free_fields_gram_definite"]


# -- what a form is: route, inputs, sources ------------------------------------------------------
class _Choice(EnumMeta):
    """An enum whose lookup by value refuses an unknown value with a ParseError naming the
    members (``Route("sideways")``), whatever the value is."""

    def __call__(cls, value: object) -> Any:  # type: ignore[override]  # members: no functional API to keep
        members: list[Enum] = list(cls.__members__.values())
        for member in members:
            if value is member or (isinstance(value, str) and str.__eq__(value, member.value)):
                return member
        raise ParseError(f"{cls.__name__} must be one of {[m.value for m in members]}, not {value!r:.80}")


class Route(str, Enum, metaclass=_Choice):
    """How a form reaches the motion: ``ENGINE`` — a :class:`FormDeclaration` solved by
    Lagrange's central equation; ``INDEPENDENT`` — on purpose another way (multipliers, Maggi's
    projection, Appell's S, Kane's partial velocities, Tzénoff), so that agreement between the
    routes is evidence."""

    ENGINE = "engine"
    INDEPENDENT = "independent"

    def __str__(self) -> str:
        return self.value


class Inputs(str, Enum, metaclass=_Choice):
    """What a form's builder uses of a model besides its system: ``FRAME`` (an adapted frame;
    default the Voronets frame), ``DEPENDENT`` (the dependent coordinates) or ``NONE``."""

    FRAME = "frame"
    DEPENDENT = "dependent"
    NONE = "none"

    def __str__(self) -> str:
        return self.value


def _text(value, what: str) -> str:
    if not isinstance(value, str):
        raise ParseError(f"{what} must be a string, not {type(value).__name__}")
    return value


def _texts(value, what: str) -> tuple[str, ...]:
    if isinstance(value, str):
        raise ParseError(f"{what} must be a sequence of strings, not one string")
    return tuple(_text(v, what) for v in as_sequence(value, what))


@dataclass(frozen=True)
class Citation:
    """Where a formula is printed: the work (``key``, its label in docs/bibliography.md, the
    authors' surnames, the year — None for an undated work — and the title) and the equation
    labels in it (``"(19')"``, ``"§ 2"``), with an optional ``note``.  ``str`` gives the short
    form, e.g. ``Hamel 1924, eq. (19')``; :meth:`at` cites other equations of the same work."""

    key: str
    authors: tuple[str, ...]
    year: int | None
    work: str
    equations: tuple[str, ...] = ()
    note: str = ""

    def __post_init__(self):
        put = object.__setattr__
        _text(self.key, "citation key")
        _text(self.work, "cited work")
        _text(self.note, "citation note")
        put(self, "authors", _texts(self.authors, "authors"))
        put(self, "equations", _texts(self.equations, "equation labels"))
        if not self.key or not self.work or not self.authors:
            raise ParseError("a citation needs a key, a work and at least one author")
        if self.year is not None and (isinstance(self.year, bool) or not isinstance(self.year, int)):
            raise ParseError(f"a citation's year is an integer or None, not {self.year!r}")

    def at(self, *equations: str, note: str = "") -> "Citation":
        """The same work, citing ``equations`` (labels such as ``"(2.7)"`` or ``"§ 2"``)."""
        return replace(self, equations=equations, note=note)

    @property
    def label(self) -> str:
        """Authors and year, e.g. ``Neimark & Fufaev 1960``."""
        who = " & ".join(self.authors)
        return f"{who} {self.year}" if self.year is not None else who

    def __str__(self) -> str:
        eqs = [e for e in self.equations if e.startswith("(")]
        other = [e for e in self.equations if not e.startswith("(")]
        out = self.label + "".join(f", {o}" for o in other)
        if eqs:
            out += (", eq. " if len(eqs) == 1 else ", eqs. ") + ", ".join(eqs)
        return out + (f" ({self.note})" if self.note else "")

    def as_dict(self) -> dict:
        """The record as plain data (for JSON)."""
        return {"key": self.key, "authors": list(self.authors), "year": self.year, "work": self.work,
                "equations": list(self.equations), "note": self.note}


# the works the forms cite (docs/bibliography.md has the full references)
HAMEL_1924 = Citation("hamel1924", ("Hamel",), 1924, "Über nichtholonome Systeme")
NEIMARK_FUFAEV_1960 = Citation("neimark-fufaev1960", ("Neimark", "Fufaev"), 1960,
                               "Transpositional relations in the analytical mechanics of nonholonomic systems")
JUSCHKOV = Citation("juschkov", ("Juschkov",), None,
                    "Ableitung der Gleichungen von Maggi für nichtholonome Systeme aus dem zweiten Newtonschen Gesetz")
APPELL_1899 = Citation("appell1899", ("Appell",), 1899, "Sur une forme générale des équations de la dynamique")
KANE_1985 = Citation("kane1985", ("Kane", "Levinson"), 1985, "Dynamics: Theory and Applications")
TZENOFF_1924 = Citation("tzenoff1924", ("Tzénoff",), 1924,
                        "Sur les équations générales du mouvement des systèmes matériels non holonomes")
VOLTERRA_1898 = Citation("volterra1898", ("Volterra",), 1898, "Sopra una classe di equazioni dinamiche")
CHAPLYGIN_1897 = Citation("chaplygin1897", ("Chaplygin",), 1897,
                          "On the motion of a heavy body of revolution on a horizontal plane")


@dataclass(frozen=True)
class FormInfo:
    """A form's entry in the books: its registry ``name``, its :class:`Route`, its
    :class:`Inputs` and its ``sources`` (:class:`Citation` records).  The registry, ``geonh
    forms`` and the docs read these; an engine form's declaration carries the same record."""

    name: str
    route: Route
    inputs: Inputs
    sources: tuple[Citation, ...] = ()

    def __post_init__(self):
        _text(self.name, "form name")
        object.__setattr__(self, "route", Route(self.route))
        object.__setattr__(self, "inputs", Inputs(self.inputs))
        sources = tuple(as_sequence(self.sources, "sources"))
        if not all(isinstance(c, Citation) for c in sources):
            raise ParseError(f"{self.name}: the sources must be Citation records")
        object.__setattr__(self, "sources", sources)

    @property
    def source(self) -> str:
        """The sources on one line: ``Neimark & Fufaev 1960, eq. (2.7); Hamel 1924, eq. (V)``."""
        return "; ".join(str(c) for c in self.sources)


@dataclass(frozen=True)
class FormDeclaration:
    """A frame form's choice, everything the engine (*) consumes, checked when it is built: the
    shapes, then the mathematics at the generic point (:func:`verify`: V on the motion is the
    kinematics, the speeds give back u, every W is an admissible virtual displacement, the W are
    independent) — a wrong declaration is refused with :class:`~geonh.errors.DeclarationError`.

    Attributes
    ----------
    form : the registry name of the form.
    system : the :class:`~geonh.systems.MechanicalSystem`.
    V : the d field, an extension of the motion (components may hold constant symbols).
    W : the δ fields, one per equation.
    on_motion : one dict per W: the constant symbols of V and W → their values on the motion.
    u, ud : the speeds and their rates.
    kinematics : K, q̇ = K(t, q, u) on the motion.
    speeds : u as expressions in (t, q, q̇).
    frame : the frame, for the frame forms that have one.
    notes, reduced_coordinates : passed on to the :class:`Equations`.
    info : the form's :class:`FormInfo` (route, inputs, sources); default: a form of its own
        (``Route.ENGINE``, ``Inputs.NONE``, no sources).  ``route``, ``inputs`` and ``sources``
        read it.
    """

    form: str
    system: MechanicalSystem
    V: VectorField
    W: tuple[VectorField, ...]
    on_motion: tuple[Mapping, ...]
    u: tuple[sp.Symbol, ...]
    ud: tuple[sp.Symbol, ...]
    kinematics: tuple[sp.Expr, ...]
    speeds: tuple[sp.Expr, ...]
    frame: Frame | None = None
    notes: str = ""
    reduced_coordinates: tuple[sp.Symbol, ...] = field(default=())
    info: FormInfo | None = None

    def __post_init__(self):
        put = object.__setattr__
        _text(self.form, "form name")
        if not isinstance(self.system, MechanicalSystem):
            raise ParseError(f"{self.form}: a declaration is for a MechanicalSystem, not {type(self.system).__name__}")
        S = self.system.space
        if self.info is None:
            put(self, "info", FormInfo(self.form, Route.ENGINE, Inputs.NONE))
        elif not isinstance(self.info, FormInfo):
            raise ParseError(f"{self.form}: info must be a FormInfo, not {type(self.info).__name__}")
        if self.record.route is not Route.ENGINE:
            raise DeclarationError(self.form, "route", "info", f"a declaration is solved by the engine, but its "
                                   f"form {self.record.name!r} has route {self.record.route.value!r}")
        put(self, "W", tuple(as_sequence(self.W, "δ fields W")))
        put(self, "on_motion", tuple(as_mapping(o, "on_motion") for o in as_sequence(self.on_motion, "on_motion")))
        u = as_symbols(self.u, what="speeds u")
        put(self, "u", u)
        put(self, "ud", as_symbols(self.ud, what="speed rates u̇"))
        put(self, "kinematics", tuple(as_exprs(self.kinematics, S.state_symbols + u, what="kinematics")))
        put(self, "speeds", tuple(as_exprs(self.speeds, S.state_symbols, what="speeds")))
        put(self, "reduced_coordinates", as_symbols(self.reduced_coordinates, what="reduced coordinates"))
        for X in (self.V, *self.W):
            if not isinstance(X, VectorField) or X.space != S:
                raise SpaceMismatchError(f"{self.form}: the d and δ fields must be VectorFields on {S!r}")
        if len(self.on_motion) != len(self.W):
            raise DimensionError(f"{self.form}: one on-motion substitution per δ field "
                                 f"({len(self.W)}), got {len(self.on_motion)}")
        if len(self.kinematics) != S.n:
            raise DimensionError(f"{self.form}: {S.n} kinematic expressions needed, got {len(self.kinematics)}")
        if not (len(self.u) == len(self.ud) == len(self.speeds) == len(self.W)):
            raise DimensionError(f"{self.form}: speeds, rates, speed definitions and δ fields differ in number "
                                 f"({len(self.u)}, {len(self.ud)}, {len(self.speeds)}, {len(self.W)})")
        verify(self)

    @property
    def record(self) -> FormInfo:
        """:attr:`info`, set when the declaration is built (never None then)."""
        return cast(FormInfo, self.info)

    @property
    def route(self) -> Route:
        """Always ``Route.ENGINE`` (from :attr:`info`)."""
        return self.record.route

    @property
    def inputs(self) -> Inputs:
        """What the form's builder takes besides the system (from :attr:`info`)."""
        return self.record.inputs

    @property
    def sources(self) -> tuple[Citation, ...]:
        """Where the form is printed (from :attr:`info`)."""
        return self.record.sources


@gc_paused()   # graph passes over the whole model (kernel.budget.gc_paused)
def solve(decl: FormDeclaration) -> Equations:
    """The equations of a declared form: (*) for each of its δ fields.  The verdict of
    ``_gram_of_frame`` (M positive definite) is carried into the :class:`Equations`."""
    MF = central_equations(decl.system, decl.V, decl.W, list(decl.on_motion), decl.u, decl.kinematics)
    eqs = Equations(decl.form, decl.system, decl.u, decl.ud, decl.kinematics, decl.speeds, frame=decl.frame,
                    linear=MF, notes=decl.notes, reduced_coordinates=decl.reduced_coordinates)
    return record_positive_definite(eqs) if _gram_of_frame(decl) else eqs


def _gram_of_frame(decl: FormDeclaration) -> bool:
    """Whether the engine's mass matrix of ``decl`` is positive definite at the generic point,
    proven from what the declaration is: True when the δ fields are the first m fields X_r of
    its frame (the very objects), nothing is substituted on the motion and the kinematics are
    the frame's, K = C ω with ω = (u, 0, …[, 1]) (:func:`~geonh.transposition.frame_kinematics`,
    Hamel 1924, eq. (13)), so that ∂K/∂u_s = X_s and M_rs = X_r·M_T·X_s
    (:func:`central_equations`): the Gram matrix of :func:`free_fields_gram_definite`.
    False otherwise (no verdict: the solve decides regularity itself)."""
    fr = decl.frame
    m = len(decl.W)
    if fr is None or any(decl.on_motion) or m > len(fr.fields):
        return False
    if any(w is not f for w, f in zip(decl.W, fr.fields)) or not free_fields_gram_definite(fr, m):
        return False
    _, K, _ = frame_kinematics(fr, m, decl.u)
    return tuple(K) == tuple(decl.kinematics)


def free_fields_gram_definite(frame: Frame, m: int) -> bool:
    """Whether the Gram matrix G_rs = X_r·M_T·X_s (r, s < m) of the first m fields of
    ``frame`` in the kinetic metric M_T of any :class:`~geonh.systems.MechanicalSystem` on
    its space is positive definite at the generic point — the mass matrix of the frame forms
    (Boltzmann–Hamel, Maggi: M_rs = C^i_r M_ij C^j_s).  M_T is positive definite (decided
    when the system was built) and the X_r are independent (the frame's duality B C = 1,
    decided when the :class:`~geonh.kernel.frames.Frame` was built); their q-parts, which G
    uses, stay independent when no X_r has a time component (always, without time).  Then
    at a point where M_T is positive definite and the X_r independent every leading principal
    minor of G is positive, so none is identically zero.  False when a time component is
    not structurally zero (no verdict)."""
    S = frame.space
    if not isinstance(m, int) or not 0 <= m <= len(frame.fields):
        raise DimensionError(f"free_fields_gram_definite needs 0 ≤ m ≤ {len(frame.fields)}, got {m!r}")
    return S.t is None or all(frame.C[S.n, a] == 0 for a in range(m))


@dataclass(frozen=True)
class FramedMotion:
    """The motion in an adapted frame (:func:`framed`): the ``frame``, its number ``m`` of free
    fields, the free quasi-velocities ``u`` and their rates ``ud``, ``omega`` = (u, 0, …[, 1])
    the quasi-velocities on the motion, the ``kinematics`` q̇ = K = C ω (Hamel 1924, eq. (13))
    and the ``speeds`` u_r = θ^r(q̇)."""

    frame: Frame
    m: int
    u: tuple[sp.Symbol, ...]
    ud: tuple[sp.Symbol, ...]
    omega: tuple[sp.Expr, ...]
    kinematics: tuple[sp.Expr, ...]
    speeds: tuple[sp.Expr, ...]


def framed(system: MechanicalSystem, frame: Frame | None) -> FramedMotion:
    """Shared set-up of the forms that take an adapted frame (default: the Voronets frame): the
    motion in it, with u the free quasi-velocities (:class:`FramedMotion`)."""
    frame = frame if frame is not None else voronets_frame(system)
    m = check_adapted(system, frame)
    u, ud = speed_symbols(frame.names[:m])
    omega, K, speeds = frame_kinematics(frame, m, u)
    return FramedMotion(frame, m, u, ud, tuple(omega), tuple(K), tuple(speeds))


@gc_paused()
def in_frame(form: str, system: MechanicalSystem, frame: Frame | None, **kw) -> FormDeclaration:
    """Hamel's declaration in an adapted frame (Hamel 1924, eq. (19')): V = ω^b X_b with the
    quasi-velocities ω held constant off the motion (ω = (u, 0, …[, 1]) on it) and W = X_r for
    the free r; nothing to substitute.  ``kw``: notes, reduced_coordinates, info."""
    fm = framed(system, frame)
    S = system.space
    V = VectorField(S, [sp.S.Zero] * S.dim)
    for a, w in enumerate(fm.omega):
        if w != 0:
            V = V + w * fm.frame.fields[a]
    return FormDeclaration(form, system, V, tuple(fm.frame.fields[:fm.m]), ({},) * fm.m, fm.u, fm.ud,
                           fm.kinematics, fm.speeds, frame=fm.frame, **kw)


def contract(vec: Sequence[sp.Expr], frame: Frame, a: int) -> sp.Expr:
    """Σ_i vec_i C^i_a: a covector (force, Lagrange expression) along the frame field X_a."""
    vec = as_exprs(vec, what="covector")
    if len(vec) > frame.C.rows or isinstance(a, bool) or not isinstance(a, int) or not 0 <= a < frame.C.cols:
        raise DimensionError(f"contract needs at most {frame.C.rows} covector entries and 0 ≤ a < {frame.C.cols}")
    return sum((vec[i] * frame.C[i, a] for i in range(len(vec)) if frame.C[i, a] != 0 and vec[i] != 0),
               sp.S.Zero)


# -- the checks at the generic point -------------------------------------------------------------
#: random points tried before a declaration singular at each of them is refused
_POINTS = 4


class _Singular(Exception):
    """An expression of the declaration has no finite value at the point tried."""


class _Values:
    """Values at one point, each distinct subexpression evaluated once (:func:`tree_eval` with a
    shared cache); :meth:`extended` adds values for more symbols (the constant symbols of V and
    W, or the velocities) and keeps the cache, whose entries do not depend on them (a fresh
    cache where a symbol's value changes: the Voronets speeds u_s are the velocities q̇_s)."""

    def __init__(self, point: dict, cache: dict | None = None):
        self.point = point
        self.cache = {} if cache is None else cache

    def __call__(self, e: sp.Expr):
        try:
            with mpmath.workdps(evaluation.PRECISION):
                v = tree_eval(e, self.point, self.cache)
        except MissingValueError:
            raise
        except (ZeroDivisionError, ValueError, OverflowError, TypeError) as exc:
            raise _Singular(str(exc)) from None
        if not mpmath.isfinite(v):
            raise _Singular(f"{e} is not finite")
        return v

    def extended(self, values: Mapping) -> "_Values":
        moved = any(s in self.point and self.point[s] != v for s, v in values.items())
        return _Values({**self.point, **values}, {} if moved else dict(self.cache))


@lru_cache(maxsize=4)
def _tol(precision: int):
    """Relative tolerance of a zero at the generic point, 10^-(precision/2) (as
    :func:`geonh.kernel.generic_point.is_zero`)."""
    return mpmath.mpf(10) ** (-(precision // 2))


def _close(a, b) -> bool:
    """a = b at the point (relative to their size; called at PRECISION digits)."""
    return abs(a - b) <= _tol(evaluation.PRECISION) * max(1, abs(a), abs(b))


def _vanishes(terms: list) -> bool:
    """Σ terms = 0 at the point (relative to the size of the terms; called at PRECISION digits)."""
    return abs(mpmath.fsum(terms)) <= _tol(evaluation.PRECISION) * max(1, mpmath.fsum(abs(x) for x in terms))


def _independent(rows: list) -> bool:
    """Are the rows (values at the point) independent?  Their Gram determinant det(W Wᵀ) =
    Π |w_r|² · Π sin²(angles) is not zero relative to Π |w_r|² (the scale of
    :func:`_close`); a failure is then confirmed, and its W named, by
    :func:`~geonh.kernel.generic_point.independent_rows`."""
    G = mpmath.matrix([[mpmath.fsum(a * mpmath.conj(b) for a, b in zip(w, v)) for v in rows] for w in rows])
    scale = mpmath.fprod(G[r, r] for r in range(len(rows)))
    return scale != 0 and abs(mpmath.det(G)) > _tol(evaluation.PRECISION) * abs(scale)


def _show(v) -> str:
    return mpmath.nstr(v, 8)


class _Motion:
    """The declaration's expressions at one point, each evaluated once: the constraint forms
    θ^α, the kinematics K (ẋ = (K, 1) with time), one point per δ field with its constant
    symbols at their values on the motion, and the δ fields there."""

    def __init__(self, decl: FormDeclaration, at: _Values, theta: sp.Matrix):
        self.decl, self.at = decl, at
        S = decl.system.space
        self.names = [str(c) for c in S.coords]
        self.theta = [[at(theta[a, i]) if theta[a, i] != 0 else 0 for i in range(S.dim)] for a in range(theta.rows)]
        self._K: list | None = None
        self._on: list[_Values] | None = None
        self._W: list[list] | None = None

    def value(self, ev: _Values, e: sp.Expr, check: str, item: str):
        try:
            return ev(e)
        except MissingValueError as exc:
            raise DeclarationError(self.decl.form, check, item, f"it has no value on the motion ({exc})") from None

    @property
    def K(self) -> list:
        if self._K is None:
            self._K = [self.value(self.at, k, "kinematics", f"K^{self.names[i]}")
                       for i, k in enumerate(self.decl.kinematics)]
        return self._K

    @property
    def xd(self) -> list:
        return self.K + ([1] if self.decl.system.space.t is not None else [])

    @property
    def on(self) -> list:
        """One point per δ field: the base point with its constant symbols on the motion."""
        if self._on is None:
            self._on = [self.at.extended({s: self.value(self.at, v, "kinematics", f"on_motion[{r}][{s}]")
                                          for s, v in on.items()}) for r, on in enumerate(self.decl.on_motion)]
        return self._on

    @property
    def W(self) -> list:
        """The δ fields' components on the motion."""
        if self._W is None:
            self._W = [[self.value(ev, c, "admissibility", f"W[{r}]") for c in X.components]
                       for r, (X, ev) in enumerate(zip(self.decl.W, self.on))]
        return self._W

    def annihilates(self, a: int, vec: list) -> bool:
        """θ^α(vec) = 0 at the point."""
        return _vanishes([t * x for t, x in zip(self.theta[a], vec) if t != 0])


def _check_kinematics(decl: FormDeclaration, p: _Motion) -> None:
    """(a) V on the motion is the motion: V^i = K^i (V^t = 1 with time), with the on-motion
    values of each δ field; and θ^α(K) = 0 for every constraint form."""
    xd = p.xd
    own = symbols_in(decl.V.components, {})
    seen = set()
    for r, ev in enumerate(p.on or [p.at]):
        on = {k: v for k, v in decl.on_motion[r].items() if k in own} if p.on else {}
        if frozenset(on.items()) in seen:   # V's constant symbols have these values already checked
            continue
        seen.add(frozenset(on.items()))
        for i, c in enumerate(decl.V.components):
            v = p.value(ev, c, "kinematics", f"V^{p.names[i]}")
            if not _close(v, xd[i]):
                where = f" (with the on-motion values of W[{r}])" if on else ""
                raise DeclarationError(decl.form, "kinematics", f"V^{p.names[i]}",
                                       f"V on the motion{where} is {_show(v)} but the kinematics give "
                                       f"{_show(xd[i])} at the generic point")
    for a in range(len(p.theta)):
        if not p.annihilates(a, xd):
            raise DeclarationError(decl.form, "kinematics", f"constraint {a + 1}",
                                   "the kinematics K violate it: θ(K) ≠ 0 at the generic point")


def _check_speeds(decl: FormDeclaration, p: _Motion) -> None:
    """(b) the speed definitions on q̇ = K give back the speeds: u_r(t, q, K(t, q, u)) = u_r."""
    on_K = p.at.extended(dict(zip(decl.system.space.qd, p.K)))
    for r, (s, u) in enumerate(zip(decl.speeds, decl.u)):
        v, want = p.value(on_K, s, "speeds", f"u[{r}] = {u}"), p.at(u)
        if not _close(v, want):
            raise DeclarationError(decl.form, "speeds", f"u[{r}] = {u}",
                                   f"the speed definition evaluated on q̇ = K gives {_show(v)}, not "
                                   f"{u} = {_show(want)}, at the generic point")


def _check_admissibility(decl: FormDeclaration, p: _Motion) -> None:
    """(c) every δ field is a virtual displacement on the motion: θ^α(W_r) = 0 for every
    constraint form, and δt = W_r^t = 0."""
    S = decl.system.space
    for r, w in enumerate(p.W):
        for a in range(len(p.theta)):
            if not p.annihilates(a, w):
                raise DeclarationError(decl.form, "admissibility", f"W[{r}]",
                                       f"constraint {a + 1} does not annihilate it on the motion: it is not a "
                                       "virtual displacement")
        if S.t is not None and not _close(w[S.n], 0):
            raise DeclarationError(decl.form, "admissibility", f"W[{r}]",
                                   f"its time component δt is {_show(w[S.n])}, not 0")


def _check_independence(decl: FormDeclaration, p: _Motion) -> None:
    """(d) as many δ fields as degrees of freedom, independent on the motion (so, admissible,
    they span the admissible distribution)."""
    m = decl.system.dof
    if len(decl.W) != m:
        raise DeclarationError(decl.form, "independence", "W", f"{len(decl.W)} δ fields for {m} degrees of "
                                                              "freedom: the W must span the admissible distribution")
    rows = [w[:decl.system.space.n] for w in p.W]
    if rows and not _independent(rows):
        keep = independent_rows(sp.Matrix([[to_sympy(x) for x in w] for w in rows]))  # which W: the slow path
        if len(keep) < len(rows):
            r = next(k for k in range(len(rows)) if k not in keep)
            before = [f"W[{k}]" for k in keep if k < r]
            raise DeclarationError(decl.form, "independence", f"W[{r}]",
                                   f"it depends on {', '.join(before)} on the motion" if before
                                   else "it vanishes on the motion")


#: the checks :func:`verify` runs, in this order: check name → check(declaration, values at the
#: point); read-only, so that no caller can drop a check (or reorder them) for everyone
CHECKS: Mapping[str, Callable[[FormDeclaration, _Motion], None]] = MappingProxyType({
    "kinematics": _check_kinematics,
    "speeds": _check_speeds,
    "admissibility": _check_admissibility,
    "independence": _check_independence,
})


def verify(decl: FormDeclaration) -> None:
    """The mathematical checks of a declaration (module docstring, (a)–(d); :data:`CHECKS`),
    decided at one random rational point of (t, q, u) and the parameters
    (:func:`~geonh.kernel.generic_point.sample_points`), every distinct subexpression evaluated
    once at :data:`~geonh.kernel.evaluation.PRECISION` digits (a zero is a value below
    10^-(PRECISION/2) of the size of its terms, as in :func:`~geonh.kernel.generic_point.is_zero`).
    Never simplifies.  :class:`~geonh.errors.DeclarationError` names the failed check; a
    declaration singular at several points is refused with
    :class:`~geonh.errors.SingularMapError`.  :class:`FormDeclaration` calls it when built."""
    if not isinstance(decl, FormDeclaration):
        raise ParseError(f"verify checks a FormDeclaration, not {type(decl).__name__}")
    S = decl.system.space
    theta = decl.system.constraints.matrix()
    exprs = [*decl.V.components, *(c for X in decl.W for c in X.components), *decl.kinematics, *decl.speeds,
             *(v for on in decl.on_motion for v in on.values()), *theta]
    off = {k for on in decl.on_motion for k in on} | set(S.qd) | set(S.qdd)
    syms = (symbols_in(exprs, {}) - off) | set(decl.u)
    why = ""
    for point in sample_points(syms, _POINTS):
        try:
            with mpmath.workdps(evaluation.PRECISION):  # every product and sum of values at this precision
                p = _Motion(decl, _Values(dict(point)), theta)
                for check in CHECKS.values():
                    check(decl, p)
            return
        except _Singular as exc:
            why = str(exc)
    raise SingularMapError(f"{decl.form}: the declaration cannot be checked: it is singular at {_POINTS} random "
                           f"points ({why})")
