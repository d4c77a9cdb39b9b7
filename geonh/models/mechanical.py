"""Built-in mechanical systems: kinetic energy, forces, constraints and an adapted frame.

Each function returns a :class:`MechanicalModel`: the :class:`~geonh.systems.MechanicalSystem`
plus, where one is natural, a recommended adapted :class:`~geonh.kernel.Frame` (free
quasi-velocities first, then the constraint forms, then ``dt`` for rheonomic systems; Hamel
1924, eqs. (20), (21)) and the dependent coordinates for Voronets's / Chaplygin's equations.
The registry (``names()``, ``get(name)``) is :mod:`geonh.models`; the kinematic skeletons
(constraints and frames only) are in :mod:`geonh.models.kinematic`.

All parameters are positive sympy Symbols; generalized forces that the literature writes as
given functions of time (driving force, steering torque) are constant symbols here (their
values at the instant considered), because a :class:`MechanicalSystem` holds plain symbols.
Kinetic energies are written out by hand from the geometry (not via sympy.physics.mechanics),
so the tests that compare with sympy's ``KanesMethod`` are independent checks.
"""
from __future__ import annotations

import math
import numbers
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import ClassVar

import sympy as sp

from ..equations.registry import derive
from ..errors import DimensionError, ParseError
from ..kernel.distributions import Codistribution, Distribution
from ..kernel.fields import VectorField
from ..kernel.frames import Frame
from ..kernel.space import ConfigurationSpace
from ..kernel.elementary import TRIG_FUNCTIONS
from ..kernel.trig import trig_reduce
from ..systems.mechanical import MechanicalSystem, quadratic_form, velocity_quadratic_parts
from . import kinematic as catalog
from ..kernel.parsing import as_floats
from .arguments import count, flag

__all__ = [
    "MechanicalModel", "Symmetry", "tilted_rolling_disk", "chaplygin_sleigh", "inclined_knife_edge",
    "vertical_rolling_disk", "free_rigid_body", "heavy_top", "juschkov_car", "ball_on_turntable", "chaplygin_ball",
    "rotating_knife_edge", "skate_on_belt", "dynamic_n_trailer", "trig_reduce",
]


def _pos(names: str):
    return sp.symbols(names, positive=True)


def _with_reduced_inverse(frame: Frame) -> Frame:
    """The same frame with its C = B⁻¹ entries reduced exactly: each entry, a rational function
    of sin and cos of single-symbol angles, is reduced modulo sin² + cos² = 1 by polynomial
    division of numerator and denominator (:func:`trig_reduce`; {s² + c² − 1} is a Gröbner
    basis, so the remainder is exact, no heuristic simplification).  LU inverses of
    trigonometric coframes come out nested; smaller C makes every equation form smaller.
    Entries with other arguments (sums of angles, time) only get ``cancel``.  Both steps are
    exact algebra, so no generic-point check of the result is needed."""
    C = frame.C

    def simp(e):
        if not e.free_symbols or not e.has(*TRIG_FUNCTIONS):
            return sp.factor(sp.cancel(e)) if e.free_symbols else e
        if all(f.args[0].is_Symbol for f in e.atoms(*TRIG_FUNCTIONS)):
            return trig_reduce(e)
        return sp.factor(sp.cancel(e))

    C2 = C.applyfunc(simp)
    fields = [VectorField(frame.space, list(C2[:, k])) for k in range(frame.dim)]
    return Frame(fields, names=frame.names, coframe=list(frame.coframe))


@dataclass(frozen=True)
class Symmetry:
    """A model's symmetry group and the steady motions its report and ``geonh steady`` show.

    The arguments of :func:`geonh.app.steadies.steady_report`, declared once with the model:

    Attributes
    ----------
    generators : the infinitesimal generators X_1 … X_k of the group acting on Q, each as its
        components over the coordinates (strings parsed on the model's symbols, never run as
        code), e.g. SE(2) on (x, y, θ): ``("1", "0", "0"), ("0", "1", "0"), ("-y", "x", "1")``.
    at : coordinates fixed ({"theta": "0"}: the upright disk).
    params : system parameters as formulas ({"I_d": "m*r**2/4"}: a uniform thin disk); the
        stability boundary is stated in the parameters left symbolic.
    values : numbers for the verdicts only (system parameters, or the family's parameters for
        a single verdict), e.g. {"g": "9.81"}; parameters neither given nor swept take 1.
    parameter, span, points : the eigenvalue diagram, ``points`` values of ``parameter`` (a
        family or system parameter) on ``span``.
    boundary : whether the stability conditions are derived in closed form (False where that
        symbolic work takes long: the diagram's verdicts are numeric).
    source : where the steady motions and their stability are published.
    """

    generators: tuple
    at: dict = field(default_factory=dict)
    params: dict = field(default_factory=dict)
    values: dict = field(default_factory=dict)
    parameter: str | None = None
    span: tuple | None = None
    points: int = 31
    boundary: bool = True
    source: str = ""

    def __post_init__(self) -> None:
        """Checks the shape of each attribute (the strings are parsed where they are used, on
        the model's symbols): a geonh error names the attribute."""
        gens = self.generators
        if isinstance(gens, (str, bytes)) or not isinstance(gens, Sequence) or not gens:
            raise ParseError(f"Symmetry: generators must be a non-empty sequence of component sequences, not {gens!r}")
        rows = []
        for g in gens:
            if isinstance(g, (str, bytes)) or not isinstance(g, Sequence) or not g:
                raise ParseError(f"Symmetry: a generator must be a sequence of components, not {g!r}")
            rows.append(tuple(_component(c) for c in g))
        if len({len(r) for r in rows}) != 1:
            raise DimensionError(f"Symmetry: the generators have different lengths {[len(r) for r in rows]}")
        object.__setattr__(self, "generators", tuple(rows))
        for name in ("at", "params", "values"):
            value = getattr(self, name)
            if not isinstance(value, Mapping) or not all(isinstance(k, str) and k.isidentifier() for k in value):
                raise ParseError(f"Symmetry: {name} must map names to values, not {value!r}")
            object.__setattr__(self, name, {k: _component(v) for k, v in value.items()})
        if self.parameter is not None and not (isinstance(self.parameter, str) and self.parameter.isidentifier()):
            raise ParseError(f"Symmetry: parameter must be a name or None, not {self.parameter!r}")
        if self.span is not None:
            lo, hi = as_floats(self.span, "Symmetry: span")
            if not lo < hi:
                raise ParseError(f"Symmetry: span must be an interval A < B, not {self.span!r}")
            object.__setattr__(self, "span", (float(lo), float(hi)))
        if (self.parameter is None) != (self.span is None):
            raise ParseError("Symmetry: parameter and span go together (the eigenvalue diagram)")
        object.__setattr__(self, "points", count(self.points, "Symmetry: points", 2))
        object.__setattr__(self, "boundary", flag(self.boundary, "Symmetry: boundary"))
        if not isinstance(self.source, str):
            raise ParseError(f"Symmetry: source must be text, not {self.source!r}")


def _component(value):
    """A generator component or a value of a :class:`Symmetry`: a string (parsed later, on the
    model's symbols), a number or a sympy expression."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool) or not isinstance(value, (numbers.Real, sp.Basic)):
        raise ParseError(f"Symmetry: a component or value must be a string, a number or a sympy expression, "
                         f"not {value!r}")
    if isinstance(value, numbers.Real) and not math.isfinite(value):
        raise ParseError(f"Symmetry: {value!r} is not a finite number")
    return value


@dataclass
class MechanicalModel:
    """A built-in mechanical system with its recommended adapted frame.

    Attributes
    ----------
    name, description : identification.
    system : the :class:`MechanicalSystem`.
    frame : recommended adapted frame (free fields first, constraint fields, then time), or None.
    dependent : dependent coordinates (names) for :func:`geonh.equations.voronets` /
        :func:`~geonh.equations.chaplygin`; None means the default choice.
    parameters : the constant symbols (masses, lengths, forces).
    notes : known closed forms and remarks.
    symmetry : the symmetry whose steady motions the report shows (:class:`Symmetry`), or None.
    """

    #: what the model is (:data:`geonh.models.KINDS`): the application asks this, never the class
    kind: ClassVar[str] = "mechanical"

    name: str
    description: str
    system: MechanicalSystem
    frame: Frame | None = None
    dependent: tuple | None = None
    parameters: tuple = ()
    notes: str = ""
    extra: dict = field(default_factory=dict)
    symmetry: Symmetry | None = None

    @property
    def space(self) -> ConfigurationSpace:
        return self.system.space

    @property
    def m(self) -> int:
        """Number of free velocities (degrees of freedom)."""
        return self.system.dof

    @property
    def constraints(self) -> Codistribution:
        """The constraint codistribution of the system."""
        return self.system.constraints

    @property
    def distribution(self) -> Distribution:
        """The admissible distribution: the free fields of the frame (or the annihilator of the
        constraints when the model has no frame)."""
        if self.frame is not None:
            return Distribution(list(self.frame.fields[:self.m]), self.space)
        return self.constraints.annihilator()

    def equations(self, form: str = "boltzmann-hamel"):
        """Equations of motion in a registered form (:data:`geonh.equations.FORMS`), in the
        recommended frame where the form takes a frame, with the recommended dependent
        coordinates where it takes those."""
        return derive(form, self.system, self.frame, self.dependent)

    def __repr__(self) -> str:
        return f"MechanicalModel({self.name!r}, {self.system!r})"


# ----------------------------------------------------------------------------------------------
# rolling and sliding bodies on a plane
# ----------------------------------------------------------------------------------------------
def tilted_rolling_disk() -> MechanicalModel:
    """Thin disk rolling without slipping on a horizontal plane, under gravity.

    Coordinates (ψ, θ, φ, x, y): heading (yaw) ψ, lean θ (θ = 0 upright), spin φ, contact
    point (x, y).  Frames as sympy's rolling-disc example: Y = rot(ψ, N.z), L = rot(θ, Y.x),
    disk = rot(φ, L.y); the centre is r·L.z above the contact point, at
    (x + r sin θ sin ψ, y − r sin θ cos ψ, r cos θ).  Central moments of inertia I_d (about a
    diameter) and I_a (about the axis); a uniform disk has I_d = m r²/4, I_a = m r²/2.

    Rolling (velocity of the material contact point = 0):  ẋ = r cos ψ φ̇,  ẏ = r sin ψ φ̇.
    Recommended frame: the angular velocity components in L (sympy's u1, u2, u3)
    w1 = θ̇, w2 = φ̇ + ψ̇ sin θ, w3 = ψ̇ cos θ, then c_x = ẋ − r cos ψ φ̇, c_y = ẏ − r sin ψ φ̇.
    """
    S = ConfigurationSpace("psi theta phi x y")
    ps, th, ph, x, y = S.q
    psd, thd, phd, xd, yd = S.qd
    m, r, g, Id, Ia = _pos("m r g I_d I_a")
    # centre velocity from the unconstrained position (never the rolling velocity: T must be
    # the kinetic energy of the free body, the constraints enter through the multipliers)
    cx = x + r * sp.sin(th) * sp.sin(ps)
    cy = y - r * sp.sin(th) * sp.cos(ps)
    cz = r * sp.cos(th)
    vel = [S.total_derivative(c) for c in (cx, cy, cz)]
    w1, w2, w3 = thd, phd + psd * sp.sin(th), psd * sp.cos(th)
    T = m * sum(v**2 for v in vel) / 2 + (Id * w1**2 + Ia * w2**2 + Id * w3**2) / 2
    V = m * g * r * sp.cos(th)
    cons = [xd - r * sp.cos(ps) * phd, yd - r * sp.sin(ps) * phd]
    system = MechanicalSystem(S, sp.expand(T), V=V, constraints=cons, name="tilted rolling disk")
    frame = _with_reduced_inverse(Frame.from_quasi_velocities(S, [w1, w2, w3, *cons], names=["w1", "w2", "w3", "c_x", "c_y"]))
    return MechanicalModel(
        "tilted-disk", "disk rolling without slipping on a plane under gravity (5 coordinates, 2 constraints)",
        system, frame, ("x", "y"), (m, r, g, Id, Ia),
        notes="Energy T + m g r cos θ is conserved.  Chaplygin-type for dependent (x, y): T, V and the "
              "constraint coefficients do not depend on x, y.",
        symmetry=Symmetry((("0", "0", "0", "1", "0"), ("0", "0", "0", "0", "1"), ("1", "0", "0", "-y", "x"),
                           ("0", "0", "1", "0", "0")),
                          at={"theta": "0"}, params={"I_d": "m*r**2/4", "I_a": "m*r**2/2"},
                          values={"g": 9.81, "r": 1, "m": 1}, parameter="xi1", span=(0.5, 3.5),
                          source="Neimark & Fufaev 1972, ch. III: upright rolling of a thin uniform disk is stable "
                                 "exactly for Omega^2 > g/(3 r)"))


def chaplygin_sleigh() -> MechanicalModel:
    """Chaplygin sleigh: a rigid body on a plane with a knife-edge blade at the body origin
    (x, y) and the mass centre a ahead of it on the blade line.

    T = ½ m |d/dt (x + a cos θ, y + a sin θ)|² + ½ I θ̇² (I about the mass centre); the blade
    cannot slide sideways: sin θ ẋ − cos θ ẏ = 0.  In the frame v = cos θ ẋ + sin θ ẏ, w = θ̇
    (:func:`geonh.models.kinematic.unicycle`):  v̇ = a w²,  ẇ = −m a v w / (I + m a²).
    """
    model = catalog.unicycle()
    S = model.space
    x, y, th = S.q
    xd, yd, thd = S.qd
    m, a, I = _pos("m a I")
    vx = S.total_derivative(x + a * sp.cos(th))
    vy = S.total_derivative(y + a * sp.sin(th))
    T = sp.expand(m * (vx**2 + vy**2) / 2 + I * thd**2 / 2)
    system = MechanicalSystem(S, T, constraints=[sp.sin(th) * xd - sp.cos(th) * yd], name="Chaplygin sleigh")
    return MechanicalModel(
        "chaplygin-sleigh", "rigid body with a knife edge at the origin, mass centre a ahead",
        system, _with_reduced_inverse(model.frame), ("y",), (m, a, I),
        notes="v' = a w^2, w' = -m a v w/(I + m a^2); the energy is conserved and the sleigh "
              "tends to straight-line motion (w -> 0 for v > 0).",
        symmetry=Symmetry((("1", "0", "0"), ("0", "1", "0"), ("-y", "x", "1")), parameter="xi1", span=(-1.0, 1.0),
                          source="Neimark & Fufaev 1972; Bloch 2003, § 1.7: straight motion is asymptotically "
                                 "stable forwards (v > 0) and unstable backwards"))


def inclined_knife_edge() -> MechanicalModel:
    """Knife edge (skate) on a plane inclined at angle α, gravity pulling down the slope
    along +x: V = −m g sin α · x.  Coordinates (x, y, θ) on the plane, contact point = mass
    centre; constraint sin θ ẋ − cos θ ẏ = 0.

    Classical solution (Neimark–Fufaev): θ̇ = const = w, and v = cos θ ẋ + sin θ ẏ obeys
    m v̇ = m g sin α cos θ, so the skate moves on a cycloid-like path.
    """
    model = catalog.unicycle()
    S = model.space
    x, y, th = S.q
    xd, yd, thd = S.qd
    m, I, g, alpha = _pos("m I g alpha")
    T = m * (xd**2 + yd**2) / 2 + I * thd**2 / 2
    V = -m * g * sp.sin(alpha) * x
    system = MechanicalSystem(S, T, V=V, constraints=[sp.sin(th) * xd - sp.cos(th) * yd],
                              name="knife edge on an inclined plane")
    return MechanicalModel(
        "inclined-knife-edge", "knife edge on an inclined plane under gravity", system, _with_reduced_inverse(model.frame),
        ("y",), (m, I, g, alpha),
        notes="w' = 0, v' = g sin(alpha) cos(theta).  Chaplygin for dependent y and also for dependent x "
              "(V depends on x, but the force -dV/dx = m g sin(alpha) does not).")


def vertical_rolling_disk(torques: bool = False) -> MechanicalModel:
    """Vertical disk of radius R rolling without slipping: coordinates (x, y, θ, φ), contact
    point (x, y), heading θ, rolling angle φ; ẋ = R cos θ φ̇, ẏ = R sin θ φ̇.

    T = ½ m (ẋ² + ẏ²) + ½ I θ̇² + ½ J φ̇².  With ``torques=True`` a steering torque τ_θ and a
    driving torque τ_φ act.  Frame: :func:`geonh.models.kinematic.rolling_disk` (free θ̇, φ̇).
    Equations: I θ̈ = τ_θ, (J + m R²) φ̈ = τ_φ.
    """
    torques = flag(torques, "vertical_rolling_disk: torques")
    model = catalog.rolling_disk()
    S = model.space
    x, y, th, ph = S.q
    xd, yd, thd, phd = S.qd
    R = sp.Symbol("R", positive=True)
    m, I, J = _pos("m I J")
    T = m * (xd**2 + yd**2) / 2 + I * thd**2 / 2 + J * phd**2 / 2
    params = [m, I, J, R]
    forces = None
    if torques:
        tt, tp = sp.symbols("tau_theta tau_phi", real=True)
        forces = {th: tt, ph: tp}
        params += [tt, tp]
    cons = [xd - R * sp.cos(th) * phd, yd - R * sp.sin(th) * phd]
    system = MechanicalSystem(S, T, forces=forces, constraints=cons, name="vertical rolling disk")
    return MechanicalModel(
        "vertical-disk", "vertical disk rolling without slipping on a plane", system, _with_reduced_inverse(model.frame),
        ("x", "y"), tuple(params), notes="I theta'' = tau_theta, (J + m R^2) phi'' = tau_phi.")


# ----------------------------------------------------------------------------------------------
# rigid bodies in body angular velocities (Volterra: no constraints, non-holonomic frame)
# ----------------------------------------------------------------------------------------------
def _body_rates(S):
    ps, th, ph = S.q
    psd, thd, phd = S.qd
    return [psd * sp.sin(th) * sp.sin(ph) + thd * sp.cos(ph),
            psd * sp.sin(th) * sp.cos(ph) - thd * sp.sin(ph),
            psd * sp.cos(th) + phd]


def free_rigid_body(torques: bool = True) -> MechanicalModel:
    """Rigid body about its fixed mass centre, z-x-z Euler angles (ψ, θ, φ), principal moments
    I1, I2, I3, body torque components M1, M2, M3 (constants; ``torques=False`` for the free
    Euler top).  Frame: body angular velocities (:func:`geonh.models.kinematic.rigid_body`).

    The generalized forces are Q_i = M_a ∂Ω_a/∂q̇^i (virtual work M·δπ).  Volterra's
    equations in this frame are Euler's:  I1 Ω̇1 + (I3 − I2) Ω2 Ω3 = M1  (cyclic).
    """
    torques = flag(torques, "free_rigid_body: torques")
    model = catalog.rigid_body()
    S = model.space
    I1, I2, I3 = _pos("I1 I2 I3")
    Om = _body_rates(S)
    T = sum(I * w**2 for I, w in zip((I1, I2, I3), Om)) / 2
    params = [I1, I2, I3]
    forces = None
    if torques:
        Ms = sp.symbols("M1 M2 M3", real=True)
        forces = [sum(Mk * sp.diff(w, v) for Mk, w in zip(Ms, Om)) for v in S.qd]
        params += list(Ms)
    system = MechanicalSystem(S, sp.expand(T), forces=forces, name="rigid body")
    return MechanicalModel("free-rigid-body", "rigid body about its mass centre (Euler's equations)",
                           system, _with_reduced_inverse(model.frame), None, tuple(params),
                           notes="I1 W1' + (I3 - I2) W2 W3 = M1 and cyclic.")


def heavy_top(symmetric: bool = False) -> MechanicalModel:
    """Heavy rigid body with a fixed point, mass centre at distance l on the body 3-axis,
    z-x-z Euler angles (θ = angle between the 3-axis and the upward vertical).
    V = m g l cos θ; moments I1, I2, I3 about the fixed point (``symmetric=True``: Lagrange
    top, I2 = I1).  In body angular velocities (Euler–Poisson):

        I1 Ω̇1 + (I3 − I2) Ω2 Ω3 = m g l γ2,   I2 Ω̇2 + (I1 − I3) Ω3 Ω1 = −m g l γ1,
        I3 Ω̇3 + (I2 − I1) Ω1 Ω2 = 0,          γ = (sin θ sin φ, sin θ cos φ, cos θ),

    γ the upward vertical in body axes (the gravity torque is l e3 × (−m g γ)).
    """
    symmetric = flag(symmetric, "heavy_top: symmetric")
    model = catalog.rigid_body()
    S = model.space
    ps, th, ph = S.q
    I1, I3, m, g, l = _pos("I1 I3 m g l")
    I2 = I1 if symmetric else sp.Symbol("I2", positive=True)
    Om = _body_rates(S)
    T = sum(I * w**2 for I, w in zip((I1, I2, I3), Om)) / 2
    V = m * g * l * sp.cos(th)
    params = (I1, I3, m, g, l) if symmetric else (I1, I2, I3, m, g, l)
    system = MechanicalSystem(S, sp.expand(T), V=V, name="heavy top")
    return MechanicalModel("heavy-top", "heavy rigid body with a fixed point (Euler-Poisson)",
                           system, _with_reduced_inverse(model.frame), None, params,
                           notes="Energy, the vertical angular momentum and (Lagrange top) Omega3 are conserved.")


# ----------------------------------------------------------------------------------------------
# the car of seed 003 (Juschkov, § 5)
# ----------------------------------------------------------------------------------------------
def juschkov_car() -> MechanicalModel:
    """The two-body car of Juschkov (seed 003, § 5): body (mass M1, yaw inertia J1, mass centre
    C) and front axle (M2, J2, centre A at distance l1 ahead of C, steering angle θ relative to
    the body); rear axle B at distance l2 behind C.  q = (φ, θ, x_C, y_C).

    T from eq. (33), forces (34) with F1, 𝓛1 (constants here: the values of F1(t), 𝓛1(t) at
    the instant) and the resistances F2 against v_C, 𝓛2 against the steering; constraints (31).
    Recommended frame: Juschkov's v*¹ = φ̇, v*² = θ̇, v*³, v*⁴ = the left sides of (31)
    (eq. (27)), whose inversion is (32).
    """
    S = ConfigurationSpace("phi theta x_C y_C")
    ph, th, x, y = S.q
    phd, thd, xd, yd = S.qd
    M1, M2, J1, J2, l1, l2 = _pos("M1 M2 J1 J2 l1 l2")
    F1, F2, L1, L2 = sp.symbols("F1 F2 L1 L2", real=True)
    Ms = M1 + M2
    Js = J1 + J2 + M2 * l1**2
    T = (Ms * (xd**2 + yd**2) + Js * phd**2 + J2 * thd**2 + 2 * J2 * phd * thd
         + 2 * M2 * l1 * phd * (-xd * sp.sin(ph) + yd * sp.cos(ph))) / 2          # (33)
    vC = sp.sqrt(xd**2 + yd**2)
    Q = [0, L1 - L2, F1 * sp.cos(ph) - F2 * xd / vC, F1 * sp.sin(ph) - F2 * yd / vC]  # (34)
    c1 = -xd * sp.sin(ph) + yd * sp.cos(ph) - l2 * phd                                  # (31)
    c2 = -xd * sp.sin(ph + th) + yd * sp.cos(ph + th) + l1 * phd * sp.cos(th)
    system = MechanicalSystem(S, sp.expand(T), forces=Q, constraints=[c1, c2], name="Juschkov car")
    # the frame in closed form, Juschkov's inversion (32): with v = (φ̇, θ̇, c1, c2),
    # ẋ_C = [(l1 cos φ cos θ + l2 cos(φ+θ)) v1 + cos(φ+θ) v3 − cos φ v4] / sin θ, ẏ_C likewise
    # with sin; Frame checks θ^a(X_b) = δ^a_b at the generic point
    cs, sn = sp.cos(ph + th), sp.sin(ph + th)
    st = sp.sin(th)
    X1 = VectorField(S, [1, 0, (l1 * sp.cos(ph) * sp.cos(th) + l2 * cs) / st,
                         (l1 * sp.sin(ph) * sp.cos(th) + l2 * sn) / st])
    X2 = VectorField(S, [0, 1, 0, 0])
    X3 = VectorField(S, [0, 0, cs / st, sn / st])
    X4 = VectorField(S, [0, 0, -sp.cos(ph) / st, -sp.sin(ph) / st])
    coframe = [Codistribution.from_constraints(S, [e]).forms[0] for e in (phd, thd, c1, c2)]
    frame = Frame([X1, X2, X3, X4], coframe=coframe, names=["v1", "v2", "v3", "v4"])
    return MechanicalModel(
        "car", "Juschkov's car: body and steered front axle (seed 003, § 5)", system, frame,
        ("x_C", "y_C"), (M1, M2, J1, J2, l1, l2, F1, F2, L1, L2),
        notes="Maggi's equations (35)-(37) and reactions Lambda_1, Lambda_2 = maggi(...).reactions.")


# ----------------------------------------------------------------------------------------------
# rheonomic systems
# ----------------------------------------------------------------------------------------------
def ball_on_turntable() -> MechanicalModel:
    """Ball (radius r, mass m, central moment I; I = 2/5 m r² homogeneous) rolling without
    slipping on a table turning with constant angular velocity Ω about the vertical z axis.

    Coordinates (ψ, θ, φ, x, y) and time t: z-x-z Euler angles of the ball, centre (x, y, r).
    Space angular velocity ω = (θ̇ cos ψ + φ̇ sin θ sin ψ, θ̇ sin ψ − φ̇ sin θ cos ψ, ψ̇ + φ̇ cos θ).
    Rolling on the moving table (contact point velocity = table velocity Ω ẑ × (x, y, 0)):

        ẋ − r ω_y + Ω y = 0,     ẏ + r ω_x − Ω x = 0      (rheonomic, affine in time's dt).

    Frame: ω_x, ω_y, ω_z free, the two constraints, dt.  Known result: the centre moves on a
    circle, ẍ = −k Ω ẏ, ÿ = k Ω ẋ with k = I/(I + m r²) (= 2/7 for a homogeneous ball).
    """
    S = ConfigurationSpace("psi theta phi x y", time=True)
    ps, th, ph, x, y = S.q
    psd, thd, phd, xd, yd = S.qd
    m, r, I, Om = _pos("m r I Omega")
    wx = thd * sp.cos(ps) + phd * sp.sin(th) * sp.sin(ps)
    wy = thd * sp.sin(ps) - phd * sp.sin(th) * sp.cos(ps)
    wz = psd + phd * sp.cos(th)
    T = m * (xd**2 + yd**2) / 2 + I * (psd**2 + thd**2 + phd**2 + 2 * psd * phd * sp.cos(th)) / 2
    c1 = xd - r * wy + Om * y
    c2 = yd + r * wx - Om * x
    system = MechanicalSystem(S, T, constraints=[c1, c2], name="ball on a turntable")
    frame = _with_reduced_inverse(Frame.from_quasi_velocities(S, [wx, wy, wz, c1, c2, sp.S.One],
                                              names=["w_x", "w_y", "w_z", "c1", "c2", "t_dot"]))
    return MechanicalModel(
        "ball-on-turntable", "ball rolling on a uniformly rotating table (rheonomic)", system, frame,
        ("x", "y"), (m, r, I, Om),
        notes="x'' = -k Omega y', y'' = k Omega x', k = I/(I + m r^2): circles with angular velocity k Omega.")


def chaplygin_ball() -> MechanicalModel:
    """Chaplygin's ball (Chaplygin 1903): a sphere of radius r and mass m whose mass centre is
    its geometric centre, with principal central moments I1, I2, I3 (not equal), rolling without
    slipping on a horizontal plane.

    Coordinates (ψ, θ, φ, x, y): z-x-z Euler angles, centre (x, y, r).  Rolling: the centre
    velocity is ω × r e_z, i.e. ẋ = r ω_y, ẏ = −r ω_x with ω the space angular velocity.
    Frame: the body angular velocities Ω (as for :func:`free_rigid_body`), then the two
    constraints.  With γ = (sin θ sin φ, sin θ cos φ, cos θ) the vertical in body axes and
    K = I Ω + m r² (Ω − (Ω·γ) γ) the angular momentum about the contact point, the motion is
    K̇ = K × Ω, γ̇ = γ × Ω.  Integrals: energy ½ K·Ω, K·γ, |K|², |γ|² = 1; invariant measure
    with density ∝ sin θ √(1 − m r² γ·(I + m r²)⁻¹γ) in (ψ, θ, φ, x, y, Ω)
    (Chaplygin 1903; Borisov & Mamaev 2002).
    """
    S = ConfigurationSpace("psi theta phi x y")
    ps, th, ph, x, y = S.q
    psd, thd, phd, xd, yd = S.qd
    m, r, I1, I2, I3 = _pos("m r I1 I2 I3")
    Om = [psd * sp.sin(th) * sp.sin(ph) + thd * sp.cos(ph), psd * sp.sin(th) * sp.cos(ph) - thd * sp.sin(ph),
          psd * sp.cos(th) + phd]
    wx = thd * sp.cos(ps) + phd * sp.sin(th) * sp.sin(ps)
    wy = thd * sp.sin(ps) - phd * sp.sin(th) * sp.cos(ps)
    T = sp.expand(m * (xd**2 + yd**2) / 2 + (I1 * Om[0]**2 + I2 * Om[1]**2 + I3 * Om[2]**2) / 2)
    cons = [xd - r * wy, yd + r * wx]
    system = MechanicalSystem(S, T, constraints=cons, name="Chaplygin ball")
    frame = _with_reduced_inverse(Frame.from_quasi_velocities(S, Om + cons, names=["W1", "W2", "W3", "c1", "c2"]))
    return MechanicalModel(
        "chaplygin-ball", "Chaplygin's ball: unbalanced-inertia sphere rolling on a plane", system, frame,
        ("x", "y"), (m, r, I1, I2, I3),
        notes="K' = K x W, gamma' = gamma x W, K = I W + m r^2 (W - (W.gamma) gamma); integrals: energy, "
              "K.gamma, |K|^2, |gamma|^2; invariant measure sin(theta) sqrt(1 - m r^2 gamma.(I + m r^2)^-1 gamma).")


def rotating_knife_edge(force: bool = True) -> MechanicalModel:
    """A knife edge (mass m) on a plane whose blade direction is prescribed, θ = ω t
    (rheonomic constraint −sin ωt ẋ + cos ωt ẏ = 0), pushed by a constant force F along x.
    Coordinates (x, y) and time.  Frame: v = cos ωt ẋ + sin ωt ẏ, the constraint, dt.
    Equation: m v̇ = F cos ωt (the reaction is normal to the blade)."""
    force = flag(force, "rotating_knife_edge: force")
    S = ConfigurationSpace("x y", time=True)
    x, y = S.q
    xd, yd = S.qd
    t = S.t
    m, w = _pos("m omega")
    params = [m, w]
    forces = None
    if force:
        F = sp.Symbol("F", real=True)
        forces = {x: F}
        params.append(F)
    c = -sp.sin(w * t) * xd + sp.cos(w * t) * yd
    system = MechanicalSystem(S, m * (xd**2 + yd**2) / 2, forces=forces, constraints=[c],
                              name="knife edge with a prescribed rotating blade")
    frame = _with_reduced_inverse(Frame.from_quasi_velocities(S, [sp.cos(w * t) * xd + sp.sin(w * t) * yd, c, sp.S.One],
                                              names=["v", "c", "t_dot"]))
    return MechanicalModel("rotating-knife-edge", "knife edge with a prescribed uniformly rotating blade",
                           system, frame, ("y",), tuple(params), notes="m v' = F cos(omega t).")


def skate_on_belt() -> MechanicalModel:
    """Rheonomic: a skate (knife edge, mass m, inertia I) on a belt moving along x with speed
    b t; the blade forbids sideways velocity relative to the belt:
    −(ẋ − b t) sin θ + ẏ cos θ = 0; a spring V = k(x² + y²)/2 holds it.  Frame: v =
    cos θ ẋ + sin θ ẏ, w = θ̇, the constraint, dt (the affine term b t sin θ is in the
    constraint form's dt component)."""
    S = ConfigurationSpace("x y theta", time=True)
    x, y, th = S.q
    xd, yd, thd = S.qd
    t = S.t
    m, I, k, b = _pos("m I k b")
    T = m * (xd**2 + yd**2) / 2 + I * thd**2 / 2
    c = -(xd - b * t) * sp.sin(th) + yd * sp.cos(th)
    system = MechanicalSystem(S, T, V=k * (x**2 + y**2) / 2, constraints=[c], name="skate on a belt")
    frame = Frame.from_quasi_velocities(S, [sp.cos(th) * xd + sp.sin(th) * yd, thd, c, sp.S.One],
                                        names=["v", "w", "c", "t_dot"])
    return MechanicalModel("skate-on-belt", "knife edge on a belt moving with speed b t", system,
                           _with_reduced_inverse(frame), ("y",), (m, I, k, b))


# ----------------------------------------------------------------------------------------------
# the dynamic N-trailer
# ----------------------------------------------------------------------------------------------
def dynamic_n_trailer(N: int = 1) -> MechanicalModel:
    """Tractor pulling N trailers, each hitched at the axle midpoint of the body in front.

    Coordinates (x, y, θ0, …, θN): tractor axle midpoint and headings.  Axle midpoints
    P_0 = (x, y), P_i = P_{i−1} − d_i (cos θ_i, sin θ_i).  Body i has mass m_i (mass centre at
    its axle midpoint) and yaw inertia J_i about it:  T = Σ ½ m_i |Ṗ_i|² + ½ J_i θ̇_i².
    One no-slip constraint per axle: −sin θ_i Ṗ_i^x + cos θ_i Ṗ_i^y = 0.  A driving force F
    along the tractor's heading at P_0 and a steering torque τ on θ0.
    Frame: :func:`geonh.models.kinematic.n_trailer` (v = tractor speed, w = θ̇0, then the constraints).
    """
    N = count(N, "dynamic_n_trailer: N, the number of trailers")
    model = catalog.n_trailer(N)
    S = model.space
    x, y, *th = S.q
    d = [sp.Symbol(f"d{i}", positive=True) for i in range(1, N + 1)]
    ms = [sp.Symbol(f"m{i}", positive=True) for i in range(N + 1)]
    Js = [sp.Symbol(f"J{i}", positive=True) for i in range(N + 1)]
    F, tau = sp.symbols("F tau", real=True)
    P = [(x, y)]
    for i in range(1, N + 1):
        px, py = P[-1]
        P.append((px - d[i - 1] * sp.cos(th[i]), py - d[i - 1] * sp.sin(th[i])))
    Pd = [(S.total_derivative(px), S.total_derivative(py)) for px, py in P]
    # T = Σ ½ m_i |Ṗ_i|² + ½ J_i θ̇_i², as ½ q̇ᵀ M q̇ with M = Σ m_i J_iᵀ J_i + J_i e_iᵀ e_i from the
    # partial velocities (no expansion of the squares, no second derivatives)
    blocks = [(ms[i], list(Pd[i])) for i in range(N + 1)] + [(Js[i], [S.qd[2 + i]]) for i in range(N + 1)]
    T = quadratic_form(S.qd, *velocity_quadratic_parts(S.qd, blocks))
    cons = [-sp.sin(th[i]) * Pd[i][0] + sp.cos(th[i]) * Pd[i][1] for i in range(N + 1)]
    forces = {x: F * sp.cos(th[0]), y: F * sp.sin(th[0]), th[0]: tau}
    system = MechanicalSystem(S, T, forces=forces, constraints=cons,
                              name=f"dynamic {N}-trailer")
    return MechanicalModel(
        f"dynamic-{N}-trailer", f"tractor pulling {N} on-axle trailers, with masses and inertias",
        system, model.frame, None, tuple(ms + Js + d + [F, tau]),
        notes="With F = tau = 0 the energy T is conserved.")
