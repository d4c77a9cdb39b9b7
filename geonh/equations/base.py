"""The :class:`Equations` type: what every equation form returns.

Equations of motion  M(t, q, u) · x = F(t, q, u)  with kinematics q̇ = K(t, q, u); x are the
speed derivatives u̇ (and, for the multiplier forms, the multipliers λ).  The object is a
frozen dataclass: everything a form knows goes in through the constructor
(``dataclasses.replace`` builds a changed copy, checked again).

The type holds the equations and what is read off them at the level of derivation (M, F, the
kinematics, values at a state, accelerations, LaTeX).  What analyses finished equations
(:func:`geonh.analysis.linearize`) or compiles them (:func:`geonh.numerics.ode_function`) lives
on a higher floor as a function taking an :class:`Equations`; the methods users know —
``eqs.linearize(...)``, ``eqs.ode_function(...)`` — are thin forwards that those modules
register with :func:`register_method` when they are imported (as pandas and xarray register
accessors; ``import geonh`` imports them all, so the methods always exist).  This module
imports nothing above the equations floor.
"""
from __future__ import annotations

import dataclasses
import functools
import weakref
from functools import cached_property
from typing import TYPE_CHECKING, Any, Callable, Sequence

import mpmath
import sympy as sp

from ..kernel.algebra import algebra_for
from ..kernel.backend import get_backend, using_backend
from ..kernel.display import latex as display_latex
from ..kernel.display import register_rate
from ..errors import AttributeAccessError, DimensionError, ImmutableError, InconsistentStateError, ParseError
from ..moved import renamed
from ..kernel.evaluation import is_big, precision, resolve_keys, symbols_in, to_mp, to_sympy, value_at
from ..kernel.frames import Frame
from ..kernel.generic_point import lu_solve
from ..kernel.jets import directional_derivative
from ..kernel.linalg import solve_linear_at
from ..kernel.parsing import as_expr, as_exprs, as_mapping, as_matrix, as_sequence, as_symbols, sympy_of
from ..kernel.space import ConfigurationSpace
from ..systems.protocol import SystemLike

__all__ = ["Equations", "register_method", "record_positive_definite"]


def linear_parts(alg, residuals: Sequence, unknowns: Sequence) -> tuple[sp.ImmutableMatrix, sp.ImmutableMatrix]:
    """(M, F) of residuals R = M x − F linear in the unknowns x, all natives of the algebra
    ``alg`` (:func:`~geonh.kernel.algebra.algebra_for`): M = ∂R/∂x, F = −R|_{x=0}, each entry
    converted to sympy once (no Jacobian of sympy expressions: on the rattleback's Tzénoff
    form I a fifth of sympy's, with the same entries).  Used by :class:`Equations` for the
    residual forms and by the forms that build their residuals in the algebra."""
    zero, out = alg.zero, alg.sympy
    M = [[out(alg.diff(r, v)) if v in fs else sp.S.Zero for v in unknowns]
         for r, fs in ((r, r.free_symbols) for r in residuals)]
    at0 = {v: zero for v in unknowns}
    F = [out(-alg.subs(r, at0)) for r in residuals]
    return (sp.ImmutableMatrix(len(residuals), len(unknowns), [e for row in M for e in row]),
            sp.ImmutableMatrix(len(residuals), 1, F))


def _register_roles(eqs: "Equations") -> None:
    """Record the roles of the speeds and their rates for display (:func:`geonh.kernel.display.register_rate`):
    u̇_j is the rate of u_j, and a speed that is a coordinate's velocity — its definition is q̇_i
    and it carries q̇_i's name, as the Voronets, Chaplygin and Neimark–Fufaev speeds do — is the
    rate of q_i, so its rate prints as q̈_i (never as ``\\dot{x}_{dot}``); a quasi-velocity of
    another name keeps its name."""
    S = eqs.space
    for j, (u, ud) in enumerate(zip(eqs.u, eqs.ud)):
        register_rate(ud, u)
        if j < len(eqs.speeds) and u not in S.qd:
            speed = sympy_of(eqs.speeds[j])
            if speed in S.qd and u.name == speed.name:
                register_rate(u, S.q[S.qd.index(speed)])


#: the Equations whose mass matrix, given as linear=(M, F), is proven positive definite
#: (:func:`record_positive_definite`): held weakly, by identity (Equations compare by identity)
_POSITIVE_DEFINITE: "weakref.WeakSet[Equations]" = weakref.WeakSet()


def record_positive_definite(eqs: "Equations") -> "Equations":
    """Record the verdict "the mass matrix of ``eqs`` is positive definite at the generic
    point" that the caller has *proven* (validate once: decided where the equations are
    built, carried with them): :meth:`Equations.rhs` then solves M x = F without deciding
    regularity again (:func:`~geonh.kernel.generic_point.lu_solve`).  Only for equations
    built with ``linear=(M, F)`` (the M the proof is about); returns ``eqs``.  A copy made
    with ``dataclasses.replace`` is a new object and carries no verdict."""
    if not isinstance(eqs, Equations) or eqs._linear_given is None:
        raise ParseError("a positive-definiteness verdict is recorded for Equations built with linear=(M, F)")
    _POSITIVE_DEFINITE.add(eqs)
    return eqs


@dataclasses.dataclass(frozen=True, init=False, eq=False, repr=False)
class Equations:
    """Equations of motion  M(t, q, u) · x = F(t, q, u)  with kinematics q̇ = K(t, q, u).

    ``x`` (:attr:`unknowns`) are the speed derivatives u̇ (and, for Lagrange's form, the
    multipliers λ).  Vocabulary follows sympy.physics.mechanics where it fits: :attr:`q`,
    :attr:`u`, :attr:`kdes`, :attr:`mass_matrix`, :attr:`forcing`, :attr:`mass_matrix_full`,
    :attr:`forcing_full`, :meth:`rhs`, :attr:`lam_vec`.  The mass matrix is never inverted
    symbolically unless :meth:`rhs` is called.

    A frozen dataclass (compared by identity): every field is set, checked, by the constructor;
    ``dataclasses.replace(eqs, notes=...)`` gives a changed copy checked again.  The
    methods :meth:`linearize` and :meth:`ode_function` forward to
    :func:`geonh.analysis.linearize` and :func:`geonh.numerics.ode_function`
    (:func:`register_method`).

    Parameters
    ----------
    form : the form's registry name (``geonh.equations.FORMS``).
    system : the system the equations belong to (any :class:`~geonh.systems.SystemLike`).
    u, ud : speed symbols and their rates.
    kinematics : K, q̇ = K(t, q, u), one entry per true coordinate.
    speeds : u as expressions in (t, q, q̇).
    residuals : the equations, = 0, linear in the unknowns; or give ``linear=(M, F)``.
    multipliers : λ symbols (multiplier forms).
    frame : the frame of a frame form.
    reactions : generalized reaction forces (or Maggi's Λ) as expressions.
    notes : remarks of the form.
    reduced_coordinates : coordinates in which the equations close (Chaplygin).
    details : further data of the form, e.g. Maggi's basis ε, the inverse q̇(v*) (read-only).
    """

    form: str
    system: SystemLike
    space: ConfigurationSpace = dataclasses.field(init=False)
    u: tuple[sp.Symbol, ...]
    ud: tuple[sp.Symbol, ...]
    kinematics: tuple[sp.Expr, ...]
    speeds: tuple[sp.Expr, ...]
    residuals: tuple[sp.Expr, ...]
    multipliers: tuple[sp.Symbol, ...]
    frame: Frame | None
    reactions: tuple[sp.Expr, ...]
    notes: str
    reduced_coordinates: tuple[sp.Symbol, ...]
    details: dict[str, Any]
    _linear_given: tuple[sp.ImmutableMatrix, sp.ImmutableMatrix] | None = dataclasses.field(init=False)
    _backend: str = dataclasses.field(init=False)

    def __init__(self, form: str, system: SystemLike, u: Sequence[sp.Symbol], ud: Sequence[sp.Symbol],
                 kinematics: Sequence[sp.Expr], speeds: Sequence[sp.Expr], residuals: Sequence[sp.Expr] = (),
                 *, multipliers: Sequence[sp.Symbol] = (), frame: Frame | None = None,
                 reactions: Sequence[sp.Expr] = (), notes: str = "",
                 linear: tuple[sp.Matrix, sp.Matrix] | None = None,
                 reduced_coordinates: Sequence[sp.Symbol] = (), details: dict[str, Any] | None = None):
        put = object.__setattr__
        space = getattr(system, "space", None)
        if space is None:
            raise ParseError(f"Equations need a system with a configuration space, not {type(system).__name__}")
        syms = space.state_symbols
        u, ud = as_symbols(u, what="speeds u"), as_symbols(ud, what="speed rates u̇")
        multipliers = as_symbols(multipliers, what="multipliers")
        put(self, "form", form)
        put(self, "system", system)
        put(self, "space", space)
        put(self, "u", u)
        put(self, "ud", ud)
        put(self, "kinematics", tuple(as_exprs(kinematics, syms + u, what="kinematics")))
        put(self, "speeds", tuple(as_exprs(speeds, syms, what="speeds")))
        residuals = as_exprs(residuals, syms + u + ud + multipliers, what="residuals")
        given = None
        if linear is not None:
            pair = as_sequence(linear, "linear (M, F)")
            if len(pair) != 2:
                raise ParseError("linear must be the pair (M, F)")
            given = tuple(sp.ImmutableMatrix(as_matrix(m, syms + u, what=w)) for m, w in zip(pair, ("M", "F")))
            if given[0].shape != (len(ud) + len(multipliers),) * 2 or given[1].shape != (given[0].rows, 1):
                raise DimensionError(f"linear (M, F) must be square and a column of the size of the unknowns, "
                                     f"got {given[0].shape} and {given[1].shape}")
            x = sp.Matrix(list(ud) + list(multipliers))
            residuals = list(given[0] * x - given[1])
        put(self, "_linear_given", given)
        put(self, "_backend", get_backend())   # M and F are read off in the backend the form was derived in
        put(self, "residuals", tuple(residuals))
        put(self, "multipliers", tuple(multipliers))
        put(self, "frame", frame)
        put(self, "reactions", tuple(as_exprs(reactions, what="reactions")))
        put(self, "notes", notes)
        put(self, "reduced_coordinates", as_symbols(reduced_coordinates, what="reduced coordinates"))
        put(self, "details", dict(as_mapping(details, "details") if details is not None else {}))
        _register_roles(self)

    if TYPE_CHECKING:  # the forwards registered from above (register_method), declared for type checkers
        def ode_function(self, *args: Any, **kw: Any) -> Any: ...

        def linearize(self, *args: Any, **kw: Any) -> Any: ...

        def to_casadi(self, *args: Any, **kw: Any) -> Any: ...

        def to_jax(self, *args: Any, **kw: Any) -> Any: ...

        def to_c(self, *args: Any, **kw: Any) -> Any: ...

    # -- sympy vocabulary -------------------------------------------------------------------
    @property
    def q(self) -> tuple[sp.Symbol, ...]:
        return self.space.q

    @property
    def lam_vec(self) -> tuple[sp.Symbol, ...]:
        """The multipliers λ (sympy's name for :attr:`multipliers`)."""
        return self.multipliers

    def _kane_part(self, key: str) -> sp.Matrix:
        if key not in self.details or self.form != "kane":
            raise AttributeAccessError(f"the {self.form} equations have no {key}: Kane's generalized forces belong "
                                       "to the kane form (geonh.kane)")
        return sp.Matrix(list(self.details[key]))

    @property
    def fr(self) -> sp.Matrix:
        """Kane's generalized active forces F_r = X_r^i Q_i along the free frame fields (the kane
        form; sympy's ``fr`` of ``KanesMethod.kanes_equations``)."""
        return self._kane_part("fr")

    @property
    def frstar(self) -> sp.Matrix:
        """Kane's generalized inertia forces F*_r along the free frame fields, F_r + F*_r = 0 (the
        kane form; sympy's ``frstar``)."""
        return self._kane_part("frstar")

    @property
    def auxiliary_eqs(self) -> sp.Matrix:
        """F_κ + F*_κ along the constraint fields X_κ on the motion (the kane form; sympy's
        ``auxiliary_eqs``): minus the constraint force's component along X_κ, so a non-contributing
        force given as a load with an unknown magnitude is found by solving them = 0."""
        return self._kane_part("auxiliary_eqs")

    @property
    def unknowns(self) -> tuple[sp.Symbol, ...]:
        return self.ud + self.lam_vec

    @property
    def kdes(self) -> list[sp.Expr]:
        """Kinematic differential equations q̇_i − K_i(t, q, u) = 0."""
        return [v - k for v, k in zip(self.space.qd, self.kinematics)]

    @cached_property
    def _linear(self) -> tuple[sp.ImmutableMatrix, sp.ImmutableMatrix]:
        if self._linear_given is not None:
            return self._linear_given
        with using_backend(self._backend):
            alg = algebra_for(self.space.coords, list(self.residuals) + list(self.unknowns))
            return linear_parts(alg, [alg.native(r) for r in self.residuals], [alg.native(v) for v in self.unknowns])

    @property
    def mass_matrix_positive_definite(self) -> bool:
        """Whether M is *proven* positive definite at the generic point: the verdict its form
        recorded with :func:`record_positive_definite` (the frame forms: the Gram matrix of
        independent frame fields in the kinetic metric).  False means "not proven", not
        "indefinite"; a copy (``dataclasses.replace``) carries no verdict."""
        return self in _POSITIVE_DEFINITE

    @property
    def mass_matrix(self) -> sp.Matrix:
        """M in M x = F (x = :attr:`unknowns`)."""
        return sp.Matrix(self._linear[0])

    @property
    def forcing(self) -> sp.Matrix:
        """F in M x = F."""
        return sp.Matrix(self._linear[1])

    @property
    def mass_matrix_full(self) -> sp.Matrix:
        """Block diag(I, M) acting on (q̇, x)."""
        n = self.space.n
        M = self.mass_matrix
        out = sp.zeros(n + M.rows, n + M.cols)
        out[:n, :n] = sp.eye(n)
        out[n:, n:] = M
        return out

    @property
    def forcing_full(self) -> sp.Matrix:
        """(K, F): kinematics stacked on the forcing."""
        return sp.Matrix(list(self.kinematics)).col_join(self.forcing)

    def rhs(self, symbolic: bool | None = None) -> sp.Matrix:
        """The explicit first-order system ẏ = f(t, y), y = (q, u), symbolically, as sympy's
        ``rhs()``: (K, M⁻¹F) with M⁻¹F from an LU solve (may be large; numerical functions
        come from :mod:`geonh.numerics`: :meth:`ode_function`).  A mass matrix proven positive
        definite (:attr:`mass_matrix_positive_definite`) is solved without the regularity search.
        ``symbolic``: the old form of this call, refused at once naming the new one
        (:class:`~geonh.errors.RenamedError`)."""
        if symbolic is not None:
            raise renamed("Equations.rhs(symbolic=True)" if symbolic else "Equations.rhs(symbolic=False)")
        sol = lu_solve(self.mass_matrix, self.forcing, what=f"{self.form} mass matrix",
                       positive_definite=self.mass_matrix_positive_definite)
        return sp.Matrix(list(self.kinematics)).col_join(sol[:len(self.ud), :])

    # -- evaluation -------------------------------------------------------------------------
    @cached_property
    def value_symbols(self) -> frozenset:
        """The symbols a value mapping for these equations may name: time, coordinates, their
        velocities and accelerations, speeds and their rates, multipliers, and every parameter
        of the equations and of the system (T, V, forces, constraints)."""
        S = self.space
        out = set(S.coords) | set(S.qd) | set(S.qdd) | set(self.u) | set(self.ud) | set(self.lam_vec)
        memo: dict = {}
        out |= symbols_in(list(self._linear[0]) + list(self._linear[1]) + list(self.kinematics)
                          + list(self.speeds), memo)
        sysm = self.system
        parameters = getattr(sysm, "parameters", None)
        if callable(parameters):   # NonlinearSystem, GaussSystem
            out |= set(parameters())
        parts = [getattr(sysm, "T", 0), getattr(sysm, "V", 0), *getattr(sysm, "Q", ()), *getattr(sysm, "holonomic", ())]
        cod = getattr(sysm, "constraints", None)
        if cod is not None and hasattr(cod, "matrix"):
            parts += list(cod.matrix())
        for c in getattr(sysm, "conditions", ()) or ():
            parts.append(c.lhs - c.rhs)
        out |= symbols_in(parts, memo)
        return frozenset(s for s in out if isinstance(s, sp.Symbol))

    def resolve_values(self, values, what: str = "values") -> dict:
        """``values`` keyed by the symbols of :attr:`value_symbols`: names and symbols that differ
        only in their assumptions are matched, anything else is refused
        (:func:`geonh.kernel.evaluation.resolve_keys`)."""
        return resolve_keys(values, self.value_symbols, what=what)

    def _state_values(self, values, what: str) -> dict:
        """:meth:`resolve_values` with the values as sympy numbers (Python and numpy numbers,
        mpmath numbers, formula strings parsed safely)."""
        out = {}
        for s, v in self.resolve_values(values, what).items():
            if isinstance(v, (mpmath.mpf, mpmath.mpc)):
                v = to_sympy(v)
            elif not isinstance(v, sp.Basic):
                v = as_expr(v, what=f"value of {s}")
            out[s] = v
        return out

    def solve_point(self, values: dict) -> list:
        """Unknowns x (u̇, λ) at a state given by ``values`` {symbol or name: number} for t, q, u
        and parameters: sympy numbers, exact Rationals when all values are rational, else
        PRECISION-digit Floats.  Keys follow :meth:`resolve_values`."""
        values = self._state_values(values, "solve_point values")
        return [to_sympy(v) for v in
                solve_linear_at(self.mass_matrix, self.forcing, values, what=f"{self.form} mass matrix")]

    def accelerations(self, values: dict, *, exact: bool | None = None) -> list:
        """q̈ at a state given in coordinates {t, q, q̇, parameters}: u from q̇ by
        :attr:`speeds`, u̇ from M u̇ = F, and q̈ = d/dt K(t, q, u).  Two routes:

        * compiled, in double precision (:mod:`geonh.numerics.accelerations`: q̈ = ∂K/∂q K +
          ∂K/∂u u̇ with the exact Jacobian, compiled once per equations) — with
          ``exact=False``, and by default (``exact=None``) when some value is a float: floats
          in, floats (sympy Floats of 15 digits) out;
        * exact (``exact=True``, and by default when every value is exact, e.g. ints and
          Rationals; also wherever the compiled route does not apply: kinematics that depend
          on time, equations that cannot be compiled): one time derivative
          (:meth:`ConfigurationSpace.total_derivative`), then evaluated — Rationals where
          everything is rational, else PRECISION-digit Floats.

        Keys follow :meth:`resolve_values`."""
        vals = self._state_values(values, "accelerations values")
        if exact is None:   # floats in, floats out (values checked above: a mapping)
            exact = not any(isinstance(v, float) for v in as_mapping(values, "accelerations values").values())
        for u, sexpr in zip(self.u, self.speeds):
            if u not in vals:
                vals[u] = to_sympy(value_at(sexpr, vals))
        if not exact and _NUMERIC_ACCELERATIONS:
            fast = _NUMERIC_ACCELERATIONS[0](self, vals)
            if fast is not None:
                return fast
        x = self.solve_point(vals)
        vals.update(dict(zip(self.ud, x[:len(self.ud)])))
        S = self.space
        out: list = []
        point: dict | None = None
        direction: dict = {}  # set with the point
        tv: dict = {}
        for k in self.kinematics:
            if not is_big(k, 2000):
                out.append(value_at(S.total_derivative(k, along=self.kinematics, speeds=self.u, rates=self.ud),
                                    vals))
                continue
            if point is None:
                # large kinematics (e.g. dependent speeds solved from rolling constraints): the
                # time derivative by forward-mode differentiation at PRECISION digits along
                # (q̇, u̇, ṫ) = (K, u̇, 1), never a symbolic derivative of the large expression
                point = {s: v for s, v in vals.items() if isinstance(s, sp.Symbol)}
                with mpmath.workdps(precision()):
                    direction = {q: to_mp(value_at(kq, point, tree=True)) for q, kq in zip(S.q, self.kinematics)}
                    direction.update({u: to_mp(vals[ud]) for u, ud in zip(self.u, self.ud)})
                    if S.t is not None:
                        direction[S.t] = mpmath.mpf(1)
            with mpmath.workdps(precision()):
                out.append(directional_derivative(k, point, direction, tv, {}))
        return [to_sympy(v) for v in out]

    def latex(self) -> str:
        """LaTeX of M x = F and the kinematics, symbols printed by their roles (q̇ and u̇ with dots,
        q̈ with two: :func:`geonh.kernel.display.latex`)."""
        lines = [display_latex(sp.Eq(sp.MatMul(self.mass_matrix, sp.Matrix(self.unknowns)), self.forcing,
                                     evaluate=False))]
        lines += [display_latex(sp.Eq(v, k)) for v, k in zip(self.space.qd, self.kinematics)]
        return " \\\\\n".join(lines)

    def _repr_latex_(self) -> str:
        from ..kernel.display import repr_latex  # duck-typed renderer: imports none of these classes
        return repr_latex(self)

    def __repr__(self) -> str:
        return (f"Equations({self.form}: {len(self.residuals)} equations in "
                f"{[s.name for s in self.unknowns]}, {self.system!r})")


def _refuse_write(self: Equations, name: str, value: object) -> None:
    raise ImmutableError(f"Equations are immutable (tried to set {name!r}); pass it to the "
                                          "constructor, or make a changed copy with dataclasses.replace")


def _refuse_delete(self: Equations, name: str) -> None:
    raise ImmutableError(f"Equations are immutable (tried to delete {name!r})")


# the frozen dataclass's refusals, with a message that says what to do instead (a frozen
# dataclass may not define these in its body)
setattr(Equations, "__setattr__", _refuse_write)
setattr(Equations, "__delattr__", _refuse_delete)

#: the methods registered from above: name -> the function they forward to
_FORWARDS: dict[str, Callable[..., Any]] = {}
#: the compiled evaluation of :meth:`Equations.accelerations` (registered by geonh.numerics,
#: above this floor; it returns None where it does not apply)
_NUMERIC_ACCELERATIONS: list[Callable[..., Any]] = []


def register_numeric_accelerations(function: Callable[..., Any]) -> None:
    """Make :meth:`Equations.accelerations` try ``function(eqs, values)`` first unless
    ``exact=True`` (:mod:`geonh.numerics.accelerations` registers itself when imported)."""
    _NUMERIC_ACCELERATIONS[:] = [function]
_OWN = frozenset(name for name in vars(Equations) if not name.startswith("__")) \
    | frozenset(f.name for f in dataclasses.fields(Equations))


def register_method(name: str, function: Callable[..., Any]) -> None:
    """Make ``eqs.<name>(*args, **kw)`` call ``function(eqs, *args, **kw)``: a module above the
    equations floor that analyses or compiles equations registers its function this way when
    it is imported (``eqs.linearize`` ← :func:`geonh.analysis.linearize`, ``eqs.ode_function`` ←
    :func:`geonh.numerics.ode_function`), so that the type stays on its floor and imports
    nothing from above — as pandas' ``register_dataframe_accessor``.  The method carries the
    function's name, docstring and signature (less the equations).  Registering a name again
    with the same function does nothing; a name the type defines itself, or one registered to
    another function, is refused with an :class:`~geonh.errors.InconsistentStateError`."""
    if not name.isidentifier() or name.startswith("_") or name in _OWN:
        raise InconsistentStateError(f"cannot register {name!r} on Equations: it is not a public name free for a "
                                     f"method (the type defines {name!r} itself or the name is private)")
    known = _FORWARDS.get(name)
    if known is not None and known is not function:
        raise InconsistentStateError(f"Equations.{name} already forwards to {known.__module__}.{known.__qualname__}")

    @functools.wraps(function)
    def method(self: Equations, *args: Any, **kw: Any) -> Any:
        return function(self, *args, **kw)

    method.__qualname__ = f"Equations.{name}"
    _FORWARDS[name] = function
    setattr(Equations, name, method)
