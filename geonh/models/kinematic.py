"""Built-in kinematic models: constraint codistribution, admissible distribution, adapted frame.

Every model's adapted coframe lists the free quasi-velocities first and the constraint forms
last (ω^α = 0 on the motion), following Hamel 1924, eq. (21).  The registry is
:mod:`geonh.models`; the mechanical (dynamic) versions are in :mod:`geonh.models.mechanical`.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import sympy as sp

from ..errors import DimensionError
from ..kernel.distributions import Codistribution, Distribution
from ..kernel.fields import VectorField
from ..kernel.forms import OneForm
from ..kernel.frames import Frame
from ..kernel.parsing import as_expr
from ..kernel.space import ConfigurationSpace
from .arguments import count


@dataclass
class KinematicModel:
    """A constrained configuration space with an adapted frame (free fields first)."""

    #: what the model is (:data:`geonh.models.KINDS`): the application asks this, never the class
    kind: ClassVar[str] = "kinematic"

    name: str
    description: str
    space: ConfigurationSpace
    frame: Frame
    m: int  # number of free quasi-velocities (rank of the admissible distribution)

    @property
    def constraints(self) -> Codistribution:
        """The constraint forms: the last n − m coframe forms."""
        return Codistribution(list(self.frame.coframe[self.m:]), self.space)

    @property
    def distribution(self) -> Distribution:
        """The admissible distribution: the first m frame fields."""
        return Distribution(list(self.frame.fields[:self.m]), self.space)


def unicycle() -> KinematicModel:
    """Unicycle / knife edge / Chaplygin sleigh kinematics: sin θ ẋ − cos θ ẏ = 0."""
    S = ConfigurationSpace("x y theta")
    x, y, th = S.q
    xd, yd, thd = S.qd
    c, s_ = sp.cos(th), sp.sin(th)
    coframe = [OneForm(S, [c, s_, 0]), OneForm(S, [0, 0, 1]), OneForm(S, [s_, -c, 0])]
    fields = [VectorField(S, [c, s_, 0]), VectorField(S, [0, 0, 1]), VectorField(S, [s_, -c, 0])]
    F = Frame(fields, coframe=coframe, names=["v", "w", "c"])  # closed-form dual pair
    return KinematicModel("unicycle", "knife edge in the plane: no sideways velocity", S, F, 2)


def heisenberg() -> KinematicModel:
    """Heisenberg (Brockett) system: ż = (x ẏ − y ẋ)/2."""
    S = ConfigurationSpace("x y z")
    x, y, z = S.q
    xd, yd, zd = S.qd
    F = Frame.from_quasi_velocities(S, [xd, yd, zd - (x * yd - y * xd) / 2], names=["u1", "u2", "c"])
    return KinematicModel("heisenberg", "the Heisenberg frame: [X1, X2] = X3", S, F, 2)


def rolling_disk() -> KinematicModel:
    """Vertical disk of radius R rolling without slipping: ẋ = R cos θ φ̇, ẏ = R sin θ φ̇."""
    S = ConfigurationSpace("x y theta phi")
    x, y, th, ph = S.q
    xd, yd, thd, phd = S.qd
    R = sp.Symbol("R", positive=True)
    F = Frame.from_quasi_velocities(
        S, [thd, phd, xd - R * sp.cos(th) * phd, yd - R * sp.sin(th) * phd],
        names=["w_theta", "w_phi", "c_x", "c_y"])
    return KinematicModel("rolling-disk", "vertical disk rolling without slipping on a plane (kinematics)", S, F, 2)


def rigid_body() -> KinematicModel:
    """SO(3) in z-x-z Euler angles (ψ, θ, φ) with the body angular velocities as quasi-velocities

    Ω1 = ψ̇ sin θ sin φ + θ̇ cos φ,  Ω2 = ψ̇ sin θ cos φ − θ̇ sin φ,  Ω3 = ψ̇ cos θ + φ̇.
    No constraints (m = n = 3): a holonomic system in quasi-velocities (Volterra).
    """
    S = ConfigurationSpace("psi theta phi")
    ps, th, ph = S.q
    sn, cs = sp.sin, sp.cos
    coframe = [OneForm(S, [sn(th) * sn(ph), cs(ph), 0]), OneForm(S, [sn(th) * cs(ph), -sn(ph), 0]),
               OneForm(S, [cs(th), 0, 1])]
    # the dual frame in closed form (ψ̇ = (Ω1 sin φ + Ω2 cos φ)/sin θ, θ̇ = Ω1 cos φ − Ω2 sin φ, …)
    fields = [VectorField(S, [sn(ph) / sn(th), cs(ph), -sn(ph) * cs(th) / sn(th)]),
              VectorField(S, [cs(ph) / sn(th), -sn(ph), -cs(ph) * cs(th) / sn(th)]),
              VectorField(S, [0, 0, 1])]
    F = Frame(fields, coframe=coframe, names=["Omega1", "Omega2", "Omega3"])
    return KinematicModel("rigid-body", "body angular velocities on SO(3), z-x-z Euler angles", S, F, 3)


def kinematic_car(length=None) -> KinematicModel:
    """Front-wheel-steered car, reference point at the rear axle midpoint (Murray & Sastry 1993).

    Coordinates (x, y, θ, φ): rear axle midpoint, heading, steering angle; wheelbase L.
    ẋ = cos θ v, ẏ = sin θ v, θ̇ = tan φ / L · v, φ̇ = w.  Coframe: v = cos θ ẋ + sin θ ẏ,
    w = φ̇, then the constraints sin θ ẋ − cos θ ẏ = 0 (rear wheels) and θ̇ − tan φ / L · v = 0
    (front wheels).  Growth vector (2, 3, 4).  ``length``: the wheelbase (default the symbol L).
    """
    S = ConfigurationSpace("x y theta phi")
    x, y, th, ph = S.q
    L = sp.Symbol("L", positive=True) if length is None else as_expr(length, what="kinematic_car: wheelbase L")
    if L.is_positive is False:
        raise DimensionError(f"kinematic_car: the wheelbase L = {length!r} must be positive")
    c, s_, k = sp.cos(th), sp.sin(th), sp.tan(ph) / L
    coframe = [OneForm(S, [c, s_, 0, 0]), OneForm(S, [0, 0, 0, 1]), OneForm(S, [s_, -c, 0, 0]),
               OneForm(S, [-k * c, -k * s_, 1, 0])]
    fields = [VectorField(S, [c, s_, k, 0]), VectorField(S, [0, 0, 0, 1]), VectorField(S, [s_, -c, 0, 0]),
              VectorField(S, [0, 0, 1, 0])]
    F = Frame(fields, coframe=coframe, names=["v", "w", "c_rear", "c_front"])
    return KinematicModel("kinematic-car", "front-wheel-steered car, rear axle reference point (kinematics)",
                          S, F, 2)


#: the largest N of :func:`n_trailer` (and :func:`geonh.models.mechanical.dynamic_n_trailer`)
MAX_TRAILERS = 100


def n_trailer(N: int, lengths=None) -> KinematicModel:
    """Unicycle pulling N trailers hitched at the axle midpoints (kinematic N-trailer).

    Coordinates (x, y, θ0, …, θN): tractor axle midpoint and headings.  With v0 the tractor
    speed, v_i = v_{i−1} cos(θ_{i−1} − θ_i) and d_i θ̇_i = v_{i−1} sin(θ_{i−1} − θ_i).
    Coframe: v = cos θ0 ẋ + sin θ0 ẏ, w = θ̇0, then the constraints
    sin θ0 ẋ − cos θ0 ẏ = 0 and θ̇_i − f_i(θ) v = 0.  ``lengths``: hitch lengths d_i
    (default symbols d1 … dN).  N is an int, 1 ≤ N ≤ :data:`MAX_TRAILERS`; numeric hitch
    lengths are positive.
    """
    N = count(N, "n_trailer: N, the number of trailers", hint=" (the unicycle() has none)")
    if N > MAX_TRAILERS:
        raise DimensionError(f"n_trailer: N = {N} trailers is too large: at most {MAX_TRAILERS} (the frame's "
                             "expressions grow with N², and N = 100 already takes seconds)")
    S = ConfigurationSpace(["x", "y"] + [f"theta{i}" for i in range(N + 1)])
    x, y, *th = S.q
    xd, yd, *thd = S.qd
    if lengths is None:
        lengths = [sp.Symbol(f"d{i}", positive=True) for i in range(1, N + 1)]
    if isinstance(lengths, (str, bytes)) or not hasattr(lengths, "__len__"):
        raise DimensionError(f"n_trailer: lengths must be a sequence of {N} hitch lengths, not {lengths!r}")
    if len(lengths) != N:
        raise DimensionError(f"n_trailer: {N} hitch lengths needed, got {len(lengths)}")
    given, lengths = lengths, [as_expr(L, what=f"n_trailer: hitch length d{i}") for i, L in enumerate(lengths, 1)]
    for i, L in enumerate(lengths):
        if L.is_positive is False:
            raise DimensionError(f"n_trailer: hitch length d{i + 1} = {given[i]!r} must be positive")
    n = N + 3
    c0, s0 = sp.cos(th[0]), sp.sin(th[0])
    speed = sp.S.One  # v_{i-1} / v0
    f = []
    for i in range(1, N + 1):
        f.append(speed * sp.sin(th[i - 1] - th[i]) / lengths[i - 1])
        speed = speed * sp.cos(th[i - 1] - th[i])

    def vec(d):
        out = [sp.S.Zero] * n
        for k, v in d.items():
            out[S.index(k)] = v
        return out

    # coframe: v = cos θ0 ẋ + sin θ0 ẏ, w = θ̇0, sin θ0 ẋ − cos θ0 ẏ, θ̇_i − f_i v
    coframe = [OneForm(S, vec({x: c0, y: s0})), OneForm(S, vec({th[0]: 1})), OneForm(S, vec({x: s0, y: -c0}))]
    coframe += [OneForm(S, vec({x: -f[i - 1] * c0, y: -f[i - 1] * s0, th[i]: 1})) for i in range(1, N + 1)]
    # its dual frame in closed form: X_v = cos θ0 ∂x + sin θ0 ∂y + Σ f_i ∂θ_i, X_w = ∂θ0, …
    drive = {x: c0, y: s0}
    drive.update({th[i]: f[i - 1] for i in range(1, N + 1)})
    fields = [VectorField(S, vec(drive)), VectorField(S, vec({th[0]: 1})), VectorField(S, vec({x: s0, y: -c0}))]
    fields += [VectorField(S, vec({th[i]: 1})) for i in range(1, N + 1)]
    names = ["v", "w"] + [f"c{i}" for i in range(N + 1)]
    F = Frame(fields, coframe=coframe, names=names)
    return KinematicModel(f"{N}-trailer", f"unicycle pulling {N} on-axle trailers", S, F, 2)
