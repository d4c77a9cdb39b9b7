"""Control systems as first-class objects: driftless and control-affine.

* :class:`DriftlessSystem` — ẋ = Σ uᵢ fᵢ(x): vector fields with named inputs (a distribution
  with a chosen basis), e.g. the kinematic unicycle or car.
* :class:`ControlAffineSystem` — ẋ = f₀(x) + Σ uᵢ fᵢ(x), on a state space of its own.
  :meth:`ControlAffineSystem.from_mechanical` builds one from a
  :class:`~geonh.systems.MechanicalSystem` and chosen actuator forces: the generalized force
  is Q = Σ uᵢ Fⁱ, the equations of motion of a chosen form (Boltzmann–Hamel by default) are
  solved for the speed rates, and the state is (q, the form's speeds) — the quasi-velocities
  of a reduced form, so the state space is the constraint manifold; f₀ = rhs at u = 0 and
  fᵢ = ∂ rhs/∂uᵢ (checked affine in u).

The verdicts on these systems (LARC, Sussmann's condition) are in
:mod:`geonh.control.accessibility`; the affine connection form of a mechanical system is in
:mod:`geonh.control.connection`.
"""
from __future__ import annotations

from typing import Mapping, Sequence

import sympy as sp

from ..errors import (DimensionError, InconsistentStateError, MissingValueError, NotAdaptedError, NotLinearError,
                      ParseError, SpaceMismatchError)
from ..kernel.elementary import TRIG_FUNCTIONS
from ..kernel.distributions import Distribution
from ..kernel.fields import VectorField
from ..kernel.frames import Frame
from ..kernel.generic_point import is_zero
from ..kernel.parsing import as_expr, as_known_expr, as_mapping, as_names, as_sequence, as_values
from ..kernel.space import ConfigurationSpace, known_symbols
from ..kernel.trig import shorten_trig
from ..systems.mechanical import MechanicalSystem
from ..equations.base import Equations
from ..equations.registry import derive

__all__ = ["DriftlessSystem", "ControlAffineSystem", "actuator_forces", "point_values", "shorten_component", "shorten_field",
           "TIDY_LIMIT", "TIDY_SMALL"]


#: expressions larger than this (sympy's ``count_ops``) are left as they are by :func:`shorten_component`
TIDY_LIMIT = 1500
#: and so are expressions of at most this many operations (reducing them costs more than it saves)
TIDY_SMALL = 40


def shorten_component(expr: sp.Expr) -> sp.Expr:
    """A shorter equal form of a component, to keep iterated brackets and symmetric products
    from swelling: sines and cosines of sums expanded (sin(θ + φ) → sin θ cos φ + …), then
    reduced modulo sin² + cos² = 1 (:func:`~geonh.kernel.trig.shorten_trig`: polynomial
    division, never sympy's ``simplify``), or ``cancel`` for a rational function without trig;
    kept only when no larger.  Expressions above ``TIDY_LIMIT`` or at most
    ``TIDY_SMALL`` operations are returned unchanged (the reduction would cost more than it
    saves)."""
    expr = as_expr(expr, what="expression to shorten_component")
    if expr.is_Atom:
        return expr
    size = sp.count_ops(expr)
    if size > TIDY_LIMIT or size <= TIDY_SMALL:
        return expr
    trig = expr.atoms(*TRIG_FUNCTIONS)
    if trig:
        if not all(isinstance(f.args[0], sp.Symbol) for f in trig):
            expr = sp.expand_trig(expr)
        short, _ = shorten_trig(expr)
        return short if sp.count_ops(short) <= size else expr
    try:
        short = sp.cancel(expr)
    except sp.PolynomialError:
        return expr
    return short if sp.count_ops(short) <= size else expr


def shorten_field(X: VectorField) -> VectorField:
    """:func:`shorten_component` on every component of ``X``."""
    if not isinstance(X, VectorField):
        raise ParseError(f"expected a VectorField, got {type(X).__name__}")
    return VectorField(X.space, [shorten_component(c) for c in X.components])


def point_values(space: ConfigurationSpace, point) -> dict:
    """A point {coordinate (symbol or name): value} of ``space`` as {symbol: sympy value}: every
    coordinate must be given (:class:`~geonh.errors.MissingValueError` names the missing ones),
    a key that is not a coordinate raises :class:`~geonh.errors.UnknownCoordinateError`, values
    are exact where given exactly (strings parsed, never evaluated) and must be finite real
    numbers or expressions in the parameters (not in the coordinates)."""
    if not isinstance(space, ConfigurationSpace):
        raise ParseError(f"expected a ConfigurationSpace, got {type(space).__name__}")
    values = as_values(point, space.coords, what="point")
    out: dict = {}
    for k, v in values.items():
        out[space.coords[space.index(k)]] = v
    missing = [s.name for s in space.coords if s not in out]
    if missing:
        raise MissingValueError(f"the point gives no value for the coordinate(s) {missing}")
    for s, v in out.items():
        if v.free_symbols & set(space.state_symbols) or v.has(sp.oo, -sp.oo, sp.zoo, sp.nan) or v.is_real is False:
            raise InconsistentStateError(f"the value {v} of {s} is not a finite real number or parameter expression")
    return out


def _input_names(inputs, m: int, default: str) -> tuple[str, ...]:
    """The input names: given (m distinct identifiers), or ``default1 … defaultm``."""
    if inputs is None:
        return tuple(f"{default}{i + 1}" for i in range(m))
    names = as_names(inputs, "input names")
    if len(names) != m:
        raise DimensionError(f"{m} input name(s) needed (one per control field), got {len(names)}")
    if len(set(names)) != len(names):
        raise DimensionError(f"repeated input name in {list(names)}")
    return names


def _fields(fields, what: str) -> tuple[VectorField, ...]:
    out = as_sequence(fields, what)
    if not out:
        raise DimensionError(f"{what}: at least one control vector field is needed")
    for X in out:
        if not isinstance(X, VectorField):
            raise ParseError(f"{what}: expected VectorFields, got {type(X).__name__}")
    for X in out[1:]:
        if X.space != out[0].space:
            raise SpaceMismatchError(f"{what}: fields from different spaces {out[0].space!r} and {X.space!r}")
    return tuple(out)


class DriftlessSystem:
    """ẋ = Σᵢ uᵢ fᵢ(x): control vector fields fᵢ on one space with named inputs uᵢ.

    Parameters
    ----------
    fields : the control vector fields f₁ … f_m (at least one).
    inputs : their input names (default ``u1 … um``).

    Examples
    --------
        >>> from geonh.kernel import ConfigurationSpace, VectorField
        >>> from geonh.control import DriftlessSystem
        >>> import sympy as sp
        >>> S = ConfigurationSpace("x y theta")
        >>> th = S.q[2]
        >>> uni = DriftlessSystem([VectorField(S, [sp.cos(th), sp.sin(th), 0]),
        ...                        VectorField(S, [0, 0, 1])], inputs=["v", "w"])
        >>> uni.inputs, uni.distribution.growth_vector()
        (('v', 'w'), (2, 3))
    """

    def __init__(self, fields: Sequence[VectorField], inputs: Sequence[str] | None = None):
        self.fields: tuple[VectorField, ...] = _fields(fields, "DriftlessSystem fields")
        self.space: ConfigurationSpace = self.fields[0].space
        self.inputs: tuple[str, ...] = _input_names(inputs, len(self.fields), "u")

    @classmethod
    def from_distribution(cls, distribution: Distribution, inputs: Sequence[str] | None = None) -> "DriftlessSystem":
        """The system whose control fields are the basis of ``distribution``."""
        if not isinstance(distribution, Distribution):
            raise ParseError(f"expected a Distribution, got {type(distribution).__name__}")
        return cls(distribution.basis, inputs)

    @property
    def distribution(self) -> Distribution:
        """span{f₁ … f_m}."""
        return Distribution(self.fields, self.space)

    @property
    def drift(self) -> VectorField:
        """The zero drift (so the verdicts treat both kinds of system alike)."""
        return VectorField.zero(self.space)

    def velocity(self, controls: Mapping) -> VectorField:
        """ẋ = Σ uᵢ fᵢ for the controls {input name: value}."""
        return _combination(self, VectorField.zero(self.space), controls)

    def __repr__(self) -> str:
        return f"DriftlessSystem({len(self.fields)} input(s) {list(self.inputs)} on {self.space!r})"


class ControlAffineSystem:
    """ẋ = f₀(x) + Σᵢ uᵢ fᵢ(x): a drift f₀ and control fields fᵢ with named inputs.

    Parameters
    ----------
    drift : f₀.
    fields : the control vector fields f₁ … f_m, on the space of f₀.
    inputs : their names (default ``u1 … um``).

    ``equations`` is the :class:`~geonh.equations.Equations` it was built from
    (:meth:`from_mechanical`), else None.

    Examples
    --------
        >>> from geonh.kernel import ConfigurationSpace, VectorField
        >>> from geonh.control import ControlAffineSystem
        >>> S = ConfigurationSpace("x v")
        >>> x, v = S.q
        >>> di = ControlAffineSystem(VectorField(S, [v, 0]), [VectorField(S, [0, 1])])
        >>> di.inputs, di.drift
        (('u1',), VectorField((v)*d_x))
    """

    def __init__(self, drift: VectorField, fields: Sequence[VectorField], inputs: Sequence[str] | None = None,
                 *, equations: Equations | None = None):
        if not isinstance(drift, VectorField):
            raise ParseError(f"the drift must be a VectorField, got {type(drift).__name__}")
        self.fields: tuple[VectorField, ...] = _fields(fields, "ControlAffineSystem fields")
        if self.fields[0].space != drift.space:
            raise SpaceMismatchError(f"the drift lives on {drift.space!r}, the control fields on {self.fields[0].space!r}")
        if drift.space.t is not None:
            raise NotAdaptedError("a control-affine system here is autonomous: the state space has no time")
        self.drift = drift
        self.space: ConfigurationSpace = drift.space
        self.inputs: tuple[str, ...] = _input_names(inputs, len(self.fields), "u")
        self.equations = equations

    @classmethod
    def from_mechanical(cls, system: MechanicalSystem, actuators: Sequence, *, inputs: Sequence[str] | None = None,
                        form: str = "boltzmann-hamel", frame: Frame | None = None,
                        dependent: Sequence | None = None) -> "ControlAffineSystem":
        """The control-affine system of ``system`` driven by the generalized forces
        Q = Σᵢ uᵢ Fⁱ(q) (``actuators``: one Fⁱ per input, a sequence over the coordinates or a
        mapping {coordinate: component}; :func:`actuator_forces`).

        The equations of ``form`` (registry name, ``geonh.FORMS``; with ``frame`` or
        ``dependent`` where the form takes them) are derived for the system with these forces
        and solved, y' = (K(q, u), M⁻¹F): state y = (q, speeds).  The form must be reduced
        (as many speeds as degrees of freedom: the state lies on the constraint manifold),
        else :class:`~geonh.errors.NotAdaptedError`.  f₀ = y'|_{u=0}, fᵢ = ∂y'/∂uᵢ; an rhs
        that is not affine in the inputs raises :class:`~geonh.errors.NotLinearError`."""
        if not isinstance(system, MechanicalSystem):
            raise ParseError(f"expected a MechanicalSystem, got {type(system).__name__}")
        S = system.space
        if S.t is not None:
            raise NotAdaptedError("a rheonomic system (time in the space) has no autonomous control-affine form")
        F = actuator_forces(system, actuators)
        names = _input_names(inputs, len(F), "u")
        used = {str(v) for v in system.T.free_symbols.union(*(Q.free_symbols for Q in system.Q),
                                                          *(e.free_symbols for row in F for e in row))}
        u = []
        for n in names:
            name = f"input_{n}"
            while name in used:
                name += "_"
            u.append(sp.Symbol(name, real=True))
        Q = [q_i + sum((ui * Fa[i] for ui, Fa in zip(u, F)), sp.S.Zero) for i, q_i in enumerate(system.Q)]
        driven = MechanicalSystem(S, system.T, 0, forces=Q, constraints=system.constraints,
                                  name=system.name, conditions=system.conditions)
        eqs = derive(form, driven, frame=frame, dependent=dependent)
        if len(eqs.u) != system.dof:
            raise NotAdaptedError(f"the form {form!r} has {len(eqs.u)} speeds for {system.dof} degrees of freedom: "
                                  "choose a reduced form (boltzmann-hamel, maggi, voronets, kane, ...)")
        speeds = _state_speeds(S, eqs.u)
        rename = {a: b for a, b in zip(eqs.u, speeds) if a != b}
        rhs = [e.xreplace(rename) for e in eqs.rhs()]
        state = ConfigurationSpace(list(S.q) + speeds)
        zero = {ui: 0 for ui in u}
        f0 = [e.xreplace(zero) for e in rhs]
        cols = []
        for ui in u:
            col = [sp.diff(e, ui) for e in rhs]
            if any(not is_zero(sp.diff(c, uj)) for c in col for uj in u if c.has(uj)):
                raise NotLinearError(f"the equations are not affine in the input {ui}")
            cols.append(VectorField(state, col))
        return cls(VectorField(state, f0), cols, names, equations=eqs)

    def velocity(self, controls: Mapping) -> VectorField:
        """ẋ = f₀ + Σ uᵢ fᵢ for the controls {input name: value}."""
        return _combination(self, self.drift, controls)

    def is_equilibrium(self, point: Mapping) -> bool:
        """f₀(x₀) = 0 (decided exactly, or at the generic parameter values)."""
        pt = point_values(self.space, point)
        return all(is_zero(c.xreplace(pt)) for c in self.drift.components)

    def __repr__(self) -> str:
        return f"ControlAffineSystem(drift and {len(self.fields)} input(s) {list(self.inputs)} on {self.space!r})"


def _state_speeds(S: ConfigurationSpace, u: Sequence[sp.Symbol]) -> list[sp.Symbol]:
    """The speeds as state coordinates: a speed that is a velocity q̇ of the space (the default
    frame of a form takes them) becomes ``v_<q>``, so the state space (q, speeds) has names
    that are not velocity names of its own coordinates."""
    taken = {s.name for s in S.q}
    out = []
    for s in u:
        name = s.name
        if s in S.qd or name in taken or name.endswith("_dot") or name.endswith("_ddot"):
            base = S.q[S.qd.index(s)].name if s in S.qd else name.replace("_dot", "")
            name = f"v_{base}"
            while name in taken:
                name += "_"
        if name == s.name:
            out.append(s)
        else:
            out.append(sp.Symbol(name, real=True))
        taken.add(name)
    return out


def _combination(system, start: VectorField, controls) -> VectorField:
    values = as_mapping(controls, "controls")
    unknown = [k for k in values if k not in system.inputs]
    if unknown:
        raise ParseError(f"unknown input(s) {unknown}; the inputs are {list(system.inputs)}")
    out = start
    for name, X in zip(system.inputs, system.fields):
        if name in values:
            out = out + as_expr(values[name], system.space.state_symbols, what=f"control {name}") * X
    return out


def actuator_forces(system: MechanicalSystem, actuators: Sequence) -> list[list[sp.Expr]]:
    """The actuator covectors Fⁱ_j (one row per input, one entry per true coordinate), each
    given as a sequence over ``system.space.q`` or a mapping {coordinate: component}; strings
    are parsed, never evaluated, and may name only the system's coordinates and parameters
    (:class:`~geonh.errors.UnknownCoordinateError` otherwise; sympy expressions may bring
    symbols of their own, e.g. a thruster's offset h).  Components depend on q only (velocities refused)."""
    if not isinstance(system, MechanicalSystem):
        raise ParseError(f"expected a MechanicalSystem, got {type(system).__name__}")
    S = system.space
    rows = as_sequence(actuators, "actuators")
    if not rows:
        raise DimensionError("at least one actuator force is needed")
    known = known_symbols(S, system.T, system.V, list(system.Q), system.constraints)
    def component(v, what: str) -> sp.Expr:
        return as_known_expr(v, known, what=what, whose="the system")
    out = []
    for a, row in enumerate(rows):
        if isinstance(row, Mapping):
            F = [sp.S.Zero] * S.n
            for k, v in as_mapping(row, "actuator").items():
                i = S.index(k)
                if i >= S.n:
                    raise DimensionError("no actuator force acts along the time coordinate")
                F[i] = component(v, f"actuator {a + 1} along {k}")
        else:
            comps = as_sequence(row, f"actuator {a + 1}")
            if len(comps) != S.n:
                raise DimensionError(f"actuator {a + 1}: {S.n} components needed (one per coordinate), got {len(comps)}")
            F = [component(v, f"actuator {a + 1} component") for v in comps]
        for v in F:
            if v.has(*S.qd) or v.has(*S.qdd):
                raise NotLinearError(f"actuator {a + 1}: the force {v} depends on velocities")
        out.append(F)
    return out
