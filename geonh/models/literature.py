"""The literature's test-bench nonholonomic systems as mechanical models.

Each function returns a :class:`~geonh.models.mechanical.MechanicalModel` (registered in
:mod:`geonh.models` with kind ``"mechanical"``) whose docstring gives the source, the
coordinates, the kinetic energy and constraints as derived here from the geometry, the known
conserved quantities and the invariant measure (or that none exists in geonh's ansatz ρ(q)).
The tests (tests/models/test_literature*.py) check those statements through geonh's public
API (:func:`geonh.analysis.energy_integral`, :func:`~geonh.analysis.momentum_map`,
:func:`~geonh.analysis.invariant_measure`, :func:`~geonh.analysis.is_integral`) and that all
forms give one motion (:func:`geonh.analysis.certify_forms`).

The equations are derived here from the descriptions in the cited papers (the parameters keep
their names); no code is taken from anywhere.
"""
from __future__ import annotations

import sympy as sp

from ..kernel.distributions import Codistribution
from ..kernel.elementary import TRIG_FUNCTIONS
from ..kernel.fields import VectorField
from ..kernel.frames import Frame
from ..kernel.space import ConfigurationSpace
from ..kernel.trig import trig_reduce
from ..systems.mechanical import MechanicalSystem
from .arguments import flag
from .mechanical import MechanicalModel, Symmetry

__all__ = ["snakeboard", "planar_body_thruster", "differential_drive", "roller_racer", "suslov", "veselova",
           "routh_sphere", "rattleback", "spherical_robot", "GARCIA_HUBBARD_1988"]


def _pos(names: str):
    return sp.symbols(names, positive=True)


def _reduced(frame: Frame) -> Frame:
    """The frame with the entries of its fields reduced modulo sin² + cos² = 1 where they are
    rational in sin and cos of single symbols (:func:`~geonh.kernel.trig.trig_reduce`; exact
    algebra), ``cancel`` otherwise."""
    def simp(e):
        if not e.free_symbols:
            return e
        if e.has(*TRIG_FUNCTIONS) and all(f.args[0].is_Symbol for f in e.atoms(*TRIG_FUNCTIONS)):
            return trig_reduce(e)
        return sp.factor(sp.cancel(e))

    C = frame.C.applyfunc(simp)
    fields = [VectorField(frame.space, list(C[:, k])) for k in range(frame.dim)]
    return Frame(fields, names=frame.names, coframe=list(frame.coframe))


# ----------------------------------------------------------------------------------------------
# the snakeboard
# ----------------------------------------------------------------------------------------------
def snakeboard(torques: bool = False) -> MechanicalModel:
    """The snakeboard (Lewis, Ostrowski, Murray & Burdick 1994, ICRA; Bloch, Krishnaprasad,
    Marsden & Murray 1996, ARMA 136, § 7; Ostrowski 1996): a board whose two wheel axles, at
    distance r ahead of and behind the centre (x, y), turn by the opposite angles ±φ, and a
    rotor on the board's centre turning by ψ relative to it.

    Coordinates (x, y, θ, ψ, φ); m the total mass, J the moment of inertia of the whole about
    the vertical through the centre, J_0 the rotor's, J_1 each wheel axle's about its pivot:

        T = ½ m (ẋ² + ẏ²) + ½ J θ̇² + ½ J_0 ψ̇² + J_0 ψ̇ θ̇ + J_1 φ̇²        (BKMM 1996)

    (the rotor's absolute angle is θ + ψ, the axles' θ ± φ; their θ̇² terms are part of J, so
    J > J_0: the condition under which T is positive definite).
    The wheels do not slide sideways: the velocity of each axle's centre
    (x ± r cos θ, y ± r sin θ) is along its wheels (heading θ ± φ),

        −sin(θ + φ) ẋ + cos(θ + φ) ẏ + r cos φ θ̇ = 0,
        −sin(θ − φ) ẋ + cos(θ − φ) ẏ − r cos φ θ̇ = 0.

    ``torques=True``: torques τ_ψ on the rotor and τ_φ on the wheel axles (the inputs of the
    control papers).  Frame: the forward speed v = cos θ ẋ + sin θ ẏ, ψ̇, φ̇, then the two
    constraints (regular for |φ| < π/2: the admissible motion is ẋ = v cos θ, ẏ = v sin θ,
    θ̇ = v tan φ / r).

    Symmetry SE(2) on (x, y, θ): S_q = D_q ∩ T(orbit) is spanned by
    ξ_Q = r cos φ (cos θ ∂x + sin θ ∂y) + sin φ ∂θ, the nonholonomic momentum is

        p = m r cos φ (cos θ ẋ + sin θ ẏ) + sin φ (J θ̇ + J_0 ψ̇)
          = (m r² cos² φ + J sin² φ) v / (r cos φ) + J_0 sin φ ψ̇   (on D),

    and the momentum equation (BKMM 1996, Theorem 4.5) reads on D

        ṗ = cos φ φ̇ ((J − m r²) θ̇ + J_0 ψ̇),

    which for BKMM's choice J = m r² is ṗ = J_0 cos φ φ̇ ψ̇ (+ nothing from τ_ψ, τ_φ: they do no
    work along ξ_Q).  Without torques the energy T is conserved.
    """
    torques = flag(torques, "snakeboard: torques")
    S = ConfigurationSpace("x y theta psi phi")
    x, y, th, ps, ph = S.q
    xd, yd, thd, psd, phd = S.qd
    m, r, J, J0, J1 = _pos("m r J J_0 J_1")
    T = m * (xd**2 + yd**2) / 2 + J * thd**2 / 2 + J0 * psd**2 / 2 + J0 * psd * thd + J1 * phd**2
    cf = sp.expand(sp.expand_trig(-sp.sin(th + ph) * xd + sp.cos(th + ph) * yd + r * sp.cos(ph) * thd))
    cb = sp.expand(sp.expand_trig(-sp.sin(th - ph) * xd + sp.cos(th - ph) * yd - r * sp.cos(ph) * thd))
    params = [m, r, J, J0, J1]
    forces = None
    if torques:
        tps, tph = sp.symbols("tau_psi tau_phi", real=True)
        forces = {ps: tps, ph: tph}
        params += [tps, tph]
    system = MechanicalSystem(S, T, forces=forces, constraints=[cf, cb], conditions=[J > J0], name="snakeboard")
    v = sp.cos(th) * xd + sp.sin(th) * yd
    frame = _reduced(Frame.from_quasi_velocities(S, [v, psd, phd, cf, cb], names=["v", "w_psi", "w_phi", "c_f", "c_b"]))
    return MechanicalModel(
        "snakeboard", "snakeboard: board on two steered wheel axles with a rotor (BKMM 1996)",
        system, frame, ("x", "y"), tuple(params),
        notes="Nonholonomic momentum p = m r cos(phi) (cos(theta) x' + sin(theta) y') + sin(phi) (J theta' "
              "+ J_0 psi'); p' = cos(phi) phi' ((J - m r^2) theta' + J_0 psi') (J_0 cos(phi) phi' psi' "
              "for J = m r^2).  Without torques the energy is conserved.")



# ----------------------------------------------------------------------------------------------
# a planar rigid body with a thruster (Lewis & Murray 1997)
# ----------------------------------------------------------------------------------------------
def planar_body_thruster(thrust: bool = True) -> MechanicalModel:
    """A planar rigid body driven by a thruster at a point a distance h from its mass centre
    (Lewis & Murray 1997, *Configuration controllability of simple mechanical control
    systems*, SIAM J. Control Optim. 35, § 5; Bullo & Lewis 2005, § 7.3).

    Coordinates (x, y, θ): the mass centre and the heading; mass m, moment of inertia J about
    the mass centre, T = ½ m (ẋ² + ẏ²) + ½ J θ̇², no constraints.  The thrust acts at the point
    h behind the mass centre on the body axis b1 = (cos θ, sin θ); its body components are the
    inputs F1 (along b1, through the mass centre) and F2 (along b2 = (−sin θ, cos θ)), whose
    moment about the mass centre is (−h b1) × F2 b2 = −h F2:

        Q_x = F1 cos θ − F2 sin θ,   Q_y = F1 sin θ + F2 cos θ,   Q_θ = −h F2.

    Frame: the body velocities v1 = cos θ ẋ + sin θ ẏ, v2 = −sin θ ẋ + cos θ ẏ, w = θ̇, in which
    m (v̇1 − w v2) = F1, m (v̇2 + w v1) = F2, J ẇ = −h F2.  ``thrust=False``: the free body, whose
    energy and SE(2) momenta are conserved; its flow preserves dq du (Liouville).
    """
    thrust = flag(thrust, "planar_body_thruster: thrust")
    S = ConfigurationSpace("x y theta")
    x, y, th = S.q
    xd, yd, thd = S.qd
    m, J, h = _pos("m J h")
    T = m * (xd**2 + yd**2) / 2 + J * thd**2 / 2
    params = [m, J, h]
    forces = None
    if thrust:
        F1, F2 = sp.symbols("F1 F2", real=True)
        forces = [F1 * sp.cos(th) - F2 * sp.sin(th), F1 * sp.sin(th) + F2 * sp.cos(th), -h * F2]
        params += [F1, F2]
    system = MechanicalSystem(S, T, forces=forces, name="planar body with a thruster")
    frame = _reduced(Frame.from_quasi_velocities(
        S, [sp.cos(th) * xd + sp.sin(th) * yd, -sp.sin(th) * xd + sp.cos(th) * yd, thd], names=["v1", "v2", "w"]))
    return MechanicalModel(
        "planar-body-thruster", "planar rigid body with a thruster offset h from its mass centre (Lewis & Murray "
        "1997)", system, frame, None, tuple(params),
        notes="m (v1' - w v2) = F1, m (v2' + w v1) = F2, J w' = -h F2.")


# ----------------------------------------------------------------------------------------------
# the differential-drive robot (docs/robot.md)
# ----------------------------------------------------------------------------------------------
def differential_drive(torques: bool = True) -> MechanicalModel:
    """A differential-drive robot: a chassis on two driven wheels of radius r on a common axle
    of length 2L (docs/robot.md builds it step by step; Bloch 2003, § 1.? ; Siegwart,
    Nourbakhsh & Scaramuzza 2011, § 3.2).

    Coordinates (x, y, θ, φ_R, φ_L): the axle's midpoint, the heading and the wheel angles.
    The chassis (mass m, moment of inertia I about its mass centre, which lies b ahead of the
    axle), each wheel J about its axle:

        T = ½ m ((ẋ − b sin θ θ̇)² + (ẏ + b cos θ θ̇)²) + ½ I θ̇² + ½ J (φ̇_R² + φ̇_L²).

    No side slip and rolling of both wheels, with v = cos θ ẋ + sin θ ẏ:
    sin θ ẋ − cos θ ẏ = 0,  v + L θ̇ − r φ̇_R = 0,  v − L θ̇ − r φ̇_L = 0.  Motor torques τ_R, τ_L
    on the wheel angles (``torques=True``).  Frame: v, w = θ̇, then the three constraints.

    The two rolling constraints differ by an exact form: h = θ − r (φ_R − φ_L)/(2L) is constant
    on every motion (the growth vector stops at (2, 3, 4) on five coordinates).  Without torques
    the energy is conserved.  With b > 0 the flow has no invariant measure ρ(q) dq du: like the
    Chaplygin sleigh, the turning rate decays on straight-line motion.
    """
    torques = flag(torques, "differential_drive: torques")
    S = ConfigurationSpace("x y theta phiR phiL")
    x, y, th, pR, pL = S.q
    xd, yd, thd, pRd, pLd = S.qd
    m, I, J, r, L, b = _pos("m I J r L b")
    T = (m * ((xd - b * sp.sin(th) * thd)**2 + (yd + b * sp.cos(th) * thd)**2) / 2
         + I * thd**2 / 2 + J * (pRd**2 + pLd**2) / 2)
    v = sp.cos(th) * xd + sp.sin(th) * yd
    cons = [sp.sin(th) * xd - sp.cos(th) * yd, v + L * thd - r * pRd, v - L * thd - r * pLd]
    params = [m, I, J, r, L, b]
    forces = None
    if torques:
        tR, tL = sp.symbols("tau_R tau_L", real=True)
        forces = {pR: tR, pL: tL}
        params += [tR, tL]
    system = MechanicalSystem(S, sp.expand(T), forces=forces, constraints=cons, name="differential-drive robot")
    frame = _reduced(Frame.from_quasi_velocities(S, [v, thd] + cons, names=["v", "w", "c", "cR", "cL"]))
    return MechanicalModel(
        "differential-drive", "differential-drive robot: two driven wheels, mass centre b ahead of the axle",
        system, frame, ("x", "y", "theta"), tuple(params),
        notes="theta - r (phiR - phiL)/(2 L) is constant (an integrable combination of the constraints); "
              "without torques the energy is conserved.")


# ----------------------------------------------------------------------------------------------
# the roller racer (Krishnaprasad & Tsakiris)
# ----------------------------------------------------------------------------------------------
def roller_racer(torque: bool = False) -> MechanicalModel:
    """The roller racer (Krishnaprasad & Tsakiris 1995, *G-snakes*; 2001, *Oscillations,
    SE(2)-snakes and motion control: a study of the roller racer*, Dyn. Syst. 16; Bloch 2003,
    § 1.? ): two planar bodies joined at a pivot, each on a wheel axle.

    Coordinates (x, y, θ, φ): the first body's axle midpoint (its mass centre), its heading and
    the joint angle.  The pivot is d1 behind the first axle, the second axle d2 behind the pivot;
    the first body has mass m and moment of inertia I1, the second's mass is neglected and
    its moment of inertia is I2:

        T = ½ m (ẋ² + ẏ²) + ½ I1 θ̇² + ½ I2 (θ̇ + φ̇)²        (Krishnaprasad & Tsakiris 2001).

    Neither axle slides sideways (the second axle's midpoint is
    (x, y) − d1 (cos θ, sin θ) − d2 (cos(θ + φ), sin(θ + φ)), heading θ + φ):

        −sin θ ẋ + cos θ ẏ = 0,
        −sin(θ + φ) ẋ + cos(θ + φ) ẏ − d1 cos φ θ̇ − d2 (θ̇ + φ̇) = 0.

    ``torque=True``: a torque τ on the joint angle φ (the rider's input).  Frame: the forward
    speed v = cos θ ẋ + sin θ ẏ, φ̇, then the constraints; on D, θ̇ = −(v sin φ + d2 φ̇)/(d1 cos φ + d2).

    SE(2) on (x, y, θ): S = D ∩ T(orbit) is spanned by (d1 cos φ + d2)(cos θ ∂x + sin θ ∂y) − sin φ ∂θ,
    and the nonholonomic momentum is p = m (d1 cos φ + d2) v − sin φ ((I1 + I2) θ̇ + I2 φ̇).
    Without the torque the energy is conserved.
    """
    torque = flag(torque, "roller_racer: torque")
    S = ConfigurationSpace("x y theta phi")
    x, y, th, ph = S.q
    xd, yd, thd, phd = S.qd
    m, I1, I2, d1, d2 = _pos("m I1 I2 d1 d2")
    T = m * (xd**2 + yd**2) / 2 + I1 * thd**2 / 2 + I2 * (thd + phd)**2 / 2
    c1 = -sp.sin(th) * xd + sp.cos(th) * yd
    c2 = sp.expand(sp.expand_trig(-sp.sin(th + ph) * xd + sp.cos(th + ph) * yd - d1 * sp.cos(ph) * thd
                                  - d2 * (thd + phd)))
    params = [m, I1, I2, d1, d2]
    forces = None
    if torque:
        tau = sp.Symbol("tau", real=True)
        forces = {ph: tau}
        params.append(tau)
    system = MechanicalSystem(S, sp.expand(T), forces=forces, constraints=[c1, c2], name="roller racer")
    frame = _reduced(Frame.from_quasi_velocities(S, [sp.cos(th) * xd + sp.sin(th) * yd, phd, c1, c2],
                                                 names=["v", "w_phi", "c1", "c2"]))
    return MechanicalModel(
        "roller-racer", "roller racer: two bodies on wheel axles joined at a pivot (Krishnaprasad & Tsakiris)",
        system, frame, ("x", "y"), tuple(params),
        notes="Momentum p = m (d1 cos(phi) + d2) v - sin(phi) ((I1 + I2) theta' + I2 phi'); without the "
              "torque the energy is conserved.")


# ----------------------------------------------------------------------------------------------
# rigid bodies with a fixed point and a nonholonomic constraint (Euler angles z-x-z)
# ----------------------------------------------------------------------------------------------
def _body_rates(S) -> list:
    """Body angular velocity Ω of the z-x-z Euler angles (ψ, θ, φ) (the first three coordinates)."""
    ps, th, ph = S.q[:3]
    psd, thd, phd = S.qd[:3]
    return [psd * sp.sin(th) * sp.sin(ph) + thd * sp.cos(ph), psd * sp.sin(th) * sp.cos(ph) - thd * sp.sin(ph),
            psd * sp.cos(th) + phd]


def _space_rates(S) -> list:
    """Space angular velocity ω of the z-x-z Euler angles (ψ, θ, φ) (the first three coordinates)."""
    ps, th, ph = S.q[:3]
    psd, thd, phd = S.qd[:3]
    return [thd * sp.cos(ps) + phd * sp.sin(th) * sp.sin(ps), thd * sp.sin(ps) - phd * sp.sin(th) * sp.cos(ps),
            psd + phd * sp.cos(th)]


def _rotation(S) -> sp.Matrix:
    """Body-to-space rotation R = R_z(ψ) R_x(θ) R_z(φ) of the z-x-z Euler angles."""
    ps, th, ph = S.q[:3]

    def rz(a):
        return sp.Matrix([[sp.cos(a), -sp.sin(a), 0], [sp.sin(a), sp.cos(a), 0], [0, 0, 1]])
    rx = sp.Matrix([[1, 0, 0], [0, sp.cos(th), -sp.sin(th)], [0, sp.sin(th), sp.cos(th)]])
    return rz(ps) * rx * rz(ph)


def _vertical(S) -> list:
    """γ = Rᵀ e_z, the upward vertical in body axes: (sin θ sin φ, sin θ cos φ, cos θ)."""
    th, ph = S.q[1:3]
    return [sp.sin(th) * sp.sin(ph), sp.sin(th) * sp.cos(ph), sp.cos(th)]


# the tilt chart of the bodies rolling on a plane, regular at the upright position
def _tilt_rotation(S) -> sp.Matrix:
    """Body-to-space rotation R = R_z(ψ) R_x(α) R_y(β) of the heading ψ and the tilts α, β (the
    first three coordinates): regular at the upright position α = β = 0, where the z-x-z Euler
    angles are not (only ψ + φ is defined at θ = 0); singular only at α = ±π/2."""
    ps, al, be = S.q[:3]
    rz = sp.Matrix([[sp.cos(ps), -sp.sin(ps), 0], [sp.sin(ps), sp.cos(ps), 0], [0, 0, 1]])
    rx = sp.Matrix([[1, 0, 0], [0, sp.cos(al), -sp.sin(al)], [0, sp.sin(al), sp.cos(al)]])
    ry = sp.Matrix([[sp.cos(be), 0, sp.sin(be)], [0, 1, 0], [-sp.sin(be), 0, sp.cos(be)]])
    return rz * rx * ry


def _tilt_body_rates(S) -> list:
    """Body angular velocity Ω = Rᵀ ω of :func:`_tilt_rotation`: ω = ψ̇ e_z + α̇ R_z(ψ) e_x +
    β̇ R_z(ψ) R_x(α) e_y, so Ω = ψ̇ R_y(β)ᵀ R_x(α)ᵀ e_z + α̇ R_y(β)ᵀ e_x + β̇ e_y."""
    _, al, be = S.q[:3]
    psd, ald, bed = S.qd[:3]
    sa, ca, sb, cb = sp.sin(al), sp.cos(al), sp.sin(be), sp.cos(be)
    return [-sb * ca * psd + cb * ald, sa * psd + bed, cb * ca * psd + sb * ald]


def _tilt_space_rates(S) -> list:
    """Space angular velocity ω of :func:`_tilt_rotation` (see :func:`_tilt_body_rates`)."""
    ps, al, _ = S.q[:3]
    psd, ald, bed = S.qd[:3]
    return [ald * sp.cos(ps) - bed * sp.sin(ps) * sp.cos(al), ald * sp.sin(ps) + bed * sp.cos(ps) * sp.cos(al),
            psd + bed * sp.sin(al)]


def _tilt_rates(S) -> list:
    """The rates (ψ̇, α̇, β̇) of Ω = e_a (column a), inverting :func:`_tilt_body_rates`:
    ψ̇ = (cos β Ω3 − sin β Ω1)/cos α, α̇ = cos β Ω1 + sin β Ω3, β̇ = Ω2 − sin α ψ̇."""
    _, al, be = S.q[:3]
    sa, ca, sb, cb = sp.sin(al), sp.cos(al), sp.sin(be), sp.cos(be)
    return [[-sb / ca, 0, cb / ca], [cb, 0, sb], [sa * sb / ca, 1, -sa * cb / ca]]


def _tilt_vertical(S) -> list:
    """γ = Rᵀ e_z of :func:`_tilt_rotation`: (−sin β cos α, sin α, cos β cos α)."""
    _, al, be = S.q[:3]
    return [-sp.sin(be) * sp.cos(al), sp.sin(al), sp.cos(be) * sp.cos(al)]


def suslov(aligned: bool = False) -> MechanicalModel:
    """Suslov's problem (Suslov 1902; Kozlov 1988; Bloch 2003, § 1.? ; Borisov & Mamaev 2002): a
    rigid body turning about a fixed point whose angular velocity has no component along a
    body-fixed axis e (here e = e3):  Ω3 = 0.

    Coordinates (ψ, θ, φ), z-x-z Euler angles; body axes chosen so that e1, e2 are principal
    for the block of the inertia tensor (about the fixed point) orthogonal to e:

        I = [[I1, 0, I13], [0, I2, I23], [I13, I23, I3]],   T = ½ Ω·I Ω.

    With the multiplier of Ω3 = 0 the equations are I Ω̇ + Ω × IΩ = λ e3, i.e.

        I1 Ω̇1 = −Ω2 (I13 Ω1 + I23 Ω2),   I2 Ω̇2 = Ω1 (I13 Ω1 + I23 Ω2).

    Integral: the energy ½ (I1 Ω1² + I2 Ω2²).  Invariant measure (Kozlov 1988; Fedorov &
    Jovanović 2004): one exists iff e is an eigenvector of I; for I13 = I23 = 0 (``aligned=True``,
    where Ω1 and Ω2 are themselves constant) it is the Haar measure sin θ dq dΩ, otherwise
    there is none (the divergence −I13 Ω2/I1 + I23 Ω1/I2 is not a derivative along the flow).
    Frame: Ω1, Ω2, then the constraint Ω3.
    """
    aligned = flag(aligned, "suslov: aligned")
    S = ConfigurationSpace("psi theta phi")
    I1, I2, I3 = _pos("I1 I2 I3")
    Om = _body_rates(S)
    if aligned:
        I13 = I23 = sp.S.Zero
        params: tuple = (I1, I2, I3)
        conditions: list = []
    else:
        I13, I23 = sp.symbols("I13 I23", real=True)
        params = (I1, I2, I3, I13, I23)
        conditions = [I1 * I2 * I3 > I1 * I23**2 + I2 * I13**2, I1 * I3 > I13**2, I2 * I3 > I23**2]
    Imat = sp.Matrix([[I1, 0, I13], [0, I2, I23], [I13, I23, I3]])
    W = sp.Matrix(Om)
    T = sp.expand((W.T * Imat * W)[0, 0] / 2)
    system = MechanicalSystem(S, T, constraints=[Om[2]], conditions=conditions, name="Suslov problem")
    frame = _reduced(Frame.from_quasi_velocities(S, Om, names=["W1", "W2", "W3"]))
    return MechanicalModel(
        "suslov", "Suslov's problem: rigid body with a fixed point and a zero body angular velocity component",
        system, frame, None, params,
        notes="I1 W1' = -W2 (I13 W1 + I23 W2), I2 W2' = W1 (I13 W1 + I23 W2); energy conserved; invariant "
              "measure only for I13 = I23 = 0 (Kozlov 1988).")


def veselova() -> MechanicalModel:
    """Veselova's problem (Veselova 1986; Fedorov & Jovanović 2004; Fassò, García-Naranjo &
    Montaldi 2019): a rigid body turning about a fixed point (principal moments I1, I2, I3 about
    it) whose angular velocity has no component along a space-fixed axis, the vertical:

        ω_z = ψ̇ + cos θ φ̇ = 0        (Ω·γ = 0 in body axes).

    Coordinates (ψ, θ, φ), z-x-z Euler angles; T = ½ Σ I_k Ω_k².  A Chaplygin system with
    dependent coordinate ψ (cyclic: T and the constraint do not involve it), reduced to the
    Poisson sphere γ = (sin θ sin φ, sin θ cos φ, cos θ).  Frame: θ̇, φ̇, then the constraint.

    Integrals: the energy.  Invariant measure (Veselova 1986; Fedorov & Jovanović 2004): on the
    reduced space of (γ, Ω), Ω ⊥ γ, the density √(γ·I⁻¹γ).  In the variables (θ, φ, θ̇, φ̇) of
    the Chaplygin reduction the same measure has the density

        ρ = sin² θ √(γ·I⁻¹γ) ∝ sin² θ √(I2 I3 γ1² + I1 I3 γ2² + I1 I2 γ3²),

    the factor sin² θ being the Jacobian: dγ = sin θ dθ dφ on the sphere, and on D
    Ω = θ̇ (cos φ, −sin φ, 0) + φ̇ sin θ (−cos θ sin φ, −cos θ cos φ, sin θ), an orthonormal
    pair spanning γ⊥, so the area element of Ω is sin θ dθ̇ dφ̇.
    """
    S = ConfigurationSpace("psi theta phi")
    ps, th, ph = S.q
    psd, thd, phd = S.qd
    I1, I2, I3 = _pos("I1 I2 I3")
    Om = _body_rates(S)
    T = sp.expand(sum(I * w**2 for I, w in zip((I1, I2, I3), Om)) / 2)
    c = psd + sp.cos(th) * phd
    system = MechanicalSystem(S, T, constraints=[c], name="Veselova problem")
    frame = _reduced(Frame.from_quasi_velocities(S, [thd, phd, c], names=["w_theta", "w_phi", "c"]))
    return MechanicalModel(
        "veselova", "Veselova's problem: rigid body with a fixed point, no spin about the vertical",
        system, frame, ("psi",), (I1, I2, I3), notes="energy conserved; invariant measure (Veselova 1986).")



# ----------------------------------------------------------------------------------------------
# bodies rolling on a plane: Routh's sphere, the rattleback, a spherical robot
# ----------------------------------------------------------------------------------------------
def _rolling_body(S, centre_height, body_point, m, tilt: bool = False):
    """Translational kinetic energy and rolling constraints of a body with z-x-z Euler angles
    (ψ, θ, φ) and the horizontal position (x, y) of its mass centre G (coordinates 4 and 5 of
    ``S``): G is at height ``centre_height``(θ, φ); the contact point is G + R ρ with ρ =
    ``body_point`` in body axes.  Rolling: the material contact point is at rest,
    v_G + ω × R ρ = 0; its horizontal components are the constraints (the vertical one
    follows from the height, a holonomic relation).  They are written in the heading frame
    (turned by −ψ, an invertible recombination of the two): with R = R_z(ψ) R', ω = R_z(ψ) ω'
    and ω × Rρ = R_z(ψ) (ω' × R'ρ), so ψ enters only through R_z(−ψ) (ẋ, ẏ).  ``tilt``: the
    angles (ψ, α, β) of :func:`_tilt_rotation`, R' = R_x(α) R_y(β), ω' = (α̇, β̇ cos α, ψ̇ + β̇ sin α)."""
    ps, th, ph = S.q[:3]
    xd, yd = S.qd[:5][3:5]
    psd, thd, phd = S.qd[:3]
    zd = S.total_derivative(centre_height)
    rx = sp.Matrix([[1, 0, 0], [0, sp.cos(th), -sp.sin(th)], [0, sp.sin(th), sp.cos(th)]])
    if tilt:
        Rp = rx * sp.Matrix([[sp.cos(ph), 0, sp.sin(ph)], [0, 1, 0], [-sp.sin(ph), 0, sp.cos(ph)]])
        w = sp.Matrix([thd, phd * sp.cos(th), psd + phd * sp.sin(th)])
    else:
        Rp = rx * sp.Matrix([[sp.cos(ph), -sp.sin(ph), 0], [sp.sin(ph), sp.cos(ph), 0], [0, 0, 1]])
        # ω' = R_z(−ψ) ω: (θ̇, −φ̇ sin θ, ψ̇ + φ̇ cos θ) for the z-x-z angles
        w = sp.Matrix([thd, -phd * sp.sin(th), psd + phd * sp.cos(th)])
    rho = Rp * sp.Matrix(body_point)
    vP = w.cross(rho)
    T = m * (xd**2 + yd**2 + zd**2) / 2
    return T, [sp.cos(ps) * xd + sp.sin(ps) * yd + vP[0], -sp.sin(ps) * xd + sp.cos(ps) * yd + vP[1]]


def _rolling_frame(S, omegas: list, rho: sp.Matrix, tilt: bool = False) -> Frame:
    """The frame dual to the body angular velocities Ω and the two rolling constraints of
    :func:`_rolling_body`, written down in closed form (an LU inverse of the coframe comes out
    ten times larger on the rattleback).  With c = R_z(−ψ)(ẋ, ẏ) + [R'(Ω × ρ)]_xy:

    * X_{Ω_a}: the Euler-angle rates of Ω = e_a, ψ̇ = (Ω1 sin φ + Ω2 cos φ)/sin θ,
      θ̇ = Ω1 cos φ − Ω2 sin φ, φ̇ = Ω3 − cos θ ψ̇, and (ẋ, ẏ) = −[R (e_a × ρ)]_xy;
    * X_{c1} = cos ψ ∂x + sin ψ ∂y,  X_{c2} = −sin ψ ∂x + cos ψ ∂y.

    :class:`~geonh.kernel.Frame` checks θ^a(X_b) = δ^a_b.  ``tilt``: the angles (ψ, α, β) of
    :func:`_tilt_rotation` instead, with the rates of Ω = e_a from :func:`_tilt_rates`."""
    ps = S.q[0]
    if tilt:
        euler = _tilt_rates(S)
        R = _tilt_rotation(S)
    else:
        th, ph = S.q[1:3]
        sf, cf, st, ct = sp.sin(ph), sp.cos(ph), sp.sin(th), sp.cos(th)
        euler = [[sf / st, cf / st, 0], [cf, -sf, 0], [-ct * sf / st, -ct * cf / st, 1]]
        R = _rotation(S)
    fields = []
    for a in range(3):
        w = R * sp.Matrix([int(i == a) for i in range(3)]).cross(rho)
        fields.append(VectorField(S, [euler[0][a], euler[1][a], euler[2][a], -w[0], -w[1]]))
    fields.append(VectorField(S, [0, 0, 0, sp.cos(ps), sp.sin(ps)]))
    fields.append(VectorField(S, [0, 0, 0, -sp.sin(ps), sp.cos(ps)]))
    coframe = [Codistribution.from_constraints(S, [e]).forms[0] for e in omegas]
    return Frame(fields, coframe=coframe, names=["W1", "W2", "W3", "c1", "c2"])


#: SE(2) on the tilt chart (ψ, α, β, x, y): the translations and the rotation about the vertical
_SE2_TILT = (("0", "0", "0", "1", "0"), ("0", "0", "0", "0", "1"), ("1", "0", "0", "-y", "x"))


def routh_sphere(tilt: bool = False) -> MechanicalModel:
    """Routh's sphere (Routh 1884, *Advanced rigid dynamics*, § 239 ff.; Borisov & Mamaev 2002,
    *The rolling of rigid body on a plane and sphere. Hierarchy of dynamics*, RCD 7): a ball of
    radius R whose mass centre G lies a distance a from its geometric centre O on the axis of
    dynamical symmetry e3, rolling without slipping on a horizontal plane under gravity.

    Coordinates (ψ, θ, φ, x, y): z-x-z Euler angles and the horizontal position of O (at height
    R).  G = O − a e3 (θ = 0: G below O), at (x − a sin ψ sin θ, y + a cos ψ sin θ, R − a cos θ);
    central moments A (about e1, e2) and C (about e3):

        T = ½ m |Ġ|² + ½ (A (Ω1² + Ω2²) + C Ω3²),   V = −m g a cos θ.

    Rolling: v_O = ω × R e_z, i.e. ẋ = R ω_y, ẏ = −R ω_x.  Frame: the body angular velocities
    Ω, then the constraints.  With γ the upward vertical and r = a e3 − R γ the vector from G to
    the contact point (body axes), the integrals are

    * the energy T + V;
    * Jellett's integral ⟨K, r⟩, K = I Ω + m r × (Ω × r) the angular momentum about the contact
      point (linear in Ω);
    * Routh's integral Ω3 √(A C + m A ⟨r, r⟩ + m (C − A) ⟨r, e3⟩²) (algebraic, not polynomial,
      in the speeds; its square is a polynomial integral).

    The tests check each by differentiating along the equations
    (:func:`~geonh.analysis.is_integral`).

    ``tilt=True``: coordinates (ψ, α, β, x, y) with R = R_z(ψ) R_x(α) R_y(β) instead of the
    Euler angles, regular at the upright position α = β = 0 (G below O; G above O is
    (α, β) = (π, 0)), where the steady spins about the vertical are linearized
    (tests/analysis/test_literature_stability.py); γ = (−sin β cos α, sin α, cos β cos α).
    """
    tilt = flag(tilt, "routh_sphere: tilt")
    S = ConfigurationSpace("psi alpha beta x y" if tilt else "psi theta phi x y")
    ps, th, ph, x, y = S.q
    m, R, a, A, C, g = _pos("m R a A C g")
    if tilt:
        Om, (wx, wy, _) = _tilt_body_rates(S), _tilt_space_rates(S)
        e3 = _tilt_rotation(S)[:, 2]
        Gx, Gy, Gz = x - a * e3[0], y - a * e3[1], R - a * e3[2]
        V = -m * g * a * e3[2]
    else:
        Om = _body_rates(S)
        wx, wy, _ = _space_rates(S)
        Gx = x - a * sp.sin(ps) * sp.sin(th)
        Gy = y + a * sp.cos(ps) * sp.sin(th)
        Gz = R - a * sp.cos(th)
        V = -m * g * a * sp.cos(th)
    vG = [S.total_derivative(c) for c in (Gx, Gy, Gz)]
    T = sp.expand(m * sum(v**2 for v in vG) / 2 + (A * (Om[0]**2 + Om[1]**2) + C * Om[2]**2) / 2)
    xd, yd = S.qd[3:5]
    cons = [xd - R * wy, yd + R * wx]
    system = MechanicalSystem(S, T, V=V, constraints=cons, name="Routh's sphere")
    frame = _reduced(Frame.from_quasi_velocities(S, Om + cons, names=["W1", "W2", "W3", "c1", "c2"]))
    return MechanicalModel(
        "routh-sphere", "Routh's sphere: a ball with displaced mass centre rolling on a plane",
        system, frame, ("x", "y"), (m, R, a, A, C, g),
        notes="Integrals: energy, Jellett's K.r and Routh's W3 sqrt(A C + m A r.r + m (C - A) (r.e3)^2) with "
              "r = a e3 - R gamma.",
        symmetry=Symmetry(_SE2_TILT, at={"alpha": "pi", "beta": "0"},
                          values={"m": 1, "R": 1, "a": 0.3, "A": 0.4, "C": 0.5, "g": 9.81}, parameter="xi3",
                          span=(0.5, 6.0), points=23,
                          source="Routh 1884, Advanced rigid dynamics, § 239 ff.: the spin n with the mass centre "
                                 "above the centre is stable exactly for (C + m R (R + a))^2 n^2 > "
                                 "4 m g a (A + m (R + a)^2)") if tilt else None)


#: Garcia & Hubbard 1988 (Proc. R. Soc. Lond. A 418, 165–197): the ellipsoidal rattleback's
#: published parameters (SI units): semi-axes a1, a2, a3, mass-centre offset h below the
#: ellipsoid's centre, central inertia A, B, C with the product of inertia D, mass m, gravity g
GARCIA_HUBBARD_1988 = {"a1": 0.2, "a2": 0.03, "a3": 0.02, "h": 0.01, "A": 2.0e-4, "B": 1.6e-3, "C": 1.7e-3,
                       "D": -2.0e-5, "m": 1.0, "g": 9.81}


def rattleback(tilt: bool = False) -> MechanicalModel:
    """The rattleback (celt) as an ellipsoid rolling without slipping on a horizontal plane
    under gravity (Bondi 1986, Proc. R. Soc. A 405; Garcia & Hubbard 1988, Proc. R. Soc. A 418;
    Borisov & Mamaev 2003): the principal axes of inertia are turned about the vertical body
    axis against the ellipsoid's axes, which makes the spin direction matter.

    Body axes along the ellipsoid's semi-axes a1, a2, a3 (e3 up at rest); the mass centre G
    lies h below the ellipsoid's centre O (O = G + h e3); central inertia
    [[A, D, 0], [D, B, 0], [0, 0, C]] (D ≠ 0: the misalignment).  Coordinates (ψ, θ, φ, x, y):
    z-x-z Euler angles and the horizontal position of G.  With Λ = diag(a1², a2², a3²) and γ the
    upward vertical in body axes, the contact point (where the outward normal is −γ) is
    O − Λγ/√(γ·Λγ), so G is at height √(γ·Λγ) − h γ3 and ρ = h e3 − Λγ/√(γ·Λγ) is the
    contact point seen from G:

        T = ½ m (ẋ² + ẏ² + ż_G²) + ½ Ω·I Ω,   V = m g z_G,

    rolling: v_G + ω × Rρ = 0 (horizontal components).  Frame: the body angular velocities
    Ω, then the constraints.  ``extra["values"]`` holds Garcia & Hubbard's published numbers
    (:data:`GARCIA_HUBBARD_1988`).

    The energy is conserved; the flow has no invariant measure ρ(q) dq du (geonh's ansatz):
    the divergence of the flow is not a derivative along it, as the spin reversal (an
    attracting steady spin in one direction) requires.

    ``tilt=True``: coordinates (ψ, α, β, x, y) with R = R_z(ψ) R_x(α) R_y(β) instead of the
    Euler angles, regular at rest upright (α = β = 0), where the steady spins about the
    vertical are linearized (tests/analysis/test_literature_stability.py).
    """
    tilt = flag(tilt, "rattleback: tilt")
    S = ConfigurationSpace("psi alpha beta x y" if tilt else "psi theta phi x y")
    m, g, a1, a2, a3, h, A, B, C = _pos("m g a1 a2 a3 h A B C")
    D = sp.Symbol("D", real=True)
    gam = _tilt_vertical(S) if tilt else _vertical(S)
    Lam = [a1**2, a2**2, a3**2]
    s = sp.sqrt(sum(L * c**2 for L, c in zip(Lam, gam)))
    zG = s - h * gam[2]
    rho = [-Lam[0] * gam[0] / s, -Lam[1] * gam[1] / s, h - Lam[2] * gam[2] / s]
    Ttr, cons = _rolling_body(S, zG, rho, m, tilt)
    Om = sp.Matrix(_tilt_body_rates(S) if tilt else _body_rates(S))
    Imat = sp.Matrix([[A, D, 0], [D, B, 0], [0, 0, C]])
    T = Ttr + (Om.T * Imat * Om)[0, 0] / 2
    system = MechanicalSystem(S, T, V=m * g * zG, constraints=cons, conditions=[A * B > D**2], name="rattleback")
    frame = _rolling_frame(S, list(Om) + cons, sp.Matrix(rho), tilt)
    return MechanicalModel(
        "rattleback", "rattleback: ellipsoid with misaligned inertia rolling on a plane (Garcia & Hubbard 1988)",
        system, frame, ("x", "y"), (m, g, a1, a2, a3, h, A, B, C, D),
        notes="Energy conserved; no invariant measure with a density in the coordinates.",
        extra={"values": dict(GARCIA_HUBBARD_1988), "initial": {},
               "source": "Garcia & Hubbard 1988, Proc. R. Soc. Lond. A 418"},
        symmetry=Symmetry(_SE2_TILT, at={"alpha": "0", "beta": "0"}, parameter="xi3", span=(-5.0, 5.0), points=21,
                          boundary=False,
                          source="Garcia & Hubbard 1988; Bondi 1986: the growth rates of the steady spins differ "
                                 "with the spin direction") if tilt else None)


def spherical_robot(torques: bool = False) -> MechanicalModel:
    """A spherical robot driven by three internal rotors (Borisov, Kilin & Mamaev 2012, *How to
    control Chaplygin's sphere using rotors*, RCD 17; Svinin, Morinaga & Yamamoto 2013): a
    balanced ball (mass centre at the geometric centre; mass m, radius R) rolling without
    slipping on a horizontal plane, with three axisymmetric rotors on its principal axes.

    Coordinates (ψ, θ, φ, x, y, α1, α2, α3): z-x-z Euler angles of the shell, its centre (x, y)
    and the rotor angles relative to the shell.  I = diag(I1, I2, I3) is the central inertia
    of the whole with the rotors locked, J_k rotor k's moment about its axis:

        T = ½ m (ẋ² + ẏ²) + ½ Ω·I Ω + Σ_k J_k Ω_k α̇_k + ½ Σ_k J_k α̇_k²      (a gyrostat).

    Rolling as for Chaplygin's ball: ẋ = R ω_y, ẏ = −R ω_x.  ``torques=True``: motor torques
    τ_k on the rotor angles.  Frame: Ω, α̇, then the constraints.

    Without torques: the energy and the rotors' momenta J_k (Ω_k + α̇_k) (α_k cyclic, a
    horizontal symmetry) are conserved.
    """
    torques = flag(torques, "spherical_robot: torques")
    S = ConfigurationSpace("psi theta phi x y alpha1 alpha2 alpha3")
    m, R, I1, I2, I3, J1, J2, J3 = _pos("m R I1 I2 I3 J1 J2 J3")
    xd, yd = S.qd[3:5]
    ad = S.qd[5:8]
    Om = _body_rates(S)
    wx, wy, _ = _space_rates(S)
    Js = (J1, J2, J3)
    T = sp.expand(m * (xd**2 + yd**2) / 2 + sum(I * w**2 for I, w in zip((I1, I2, I3), Om)) / 2
                  + sum(J * w * a for J, w, a in zip(Js, Om, ad)) + sum(J * a**2 for J, a in zip(Js, ad)) / 2)
    cons = [xd - R * wy, yd + R * wx]
    params = [m, R, I1, I2, I3, J1, J2, J3]
    forces = None
    conditions = [I1 > J1, I2 > J2, I3 > J3]
    if torques:
        taus = sp.symbols("tau1 tau2 tau3", real=True)
        forces = dict(zip(S.q[5:8], taus))
        params += list(taus)
    system = MechanicalSystem(S, T, forces=forces, constraints=cons, conditions=conditions, name="spherical robot")
    frame = _reduced(Frame.from_quasi_velocities(S, Om + list(ad) + cons,
                                                 names=["W1", "W2", "W3", "a1", "a2", "a3", "c1", "c2"]))
    return MechanicalModel(
        "spherical-robot", "spherical robot: a balanced ball driven by three internal rotors", system, frame,
        ("x", "y"), tuple(params),
        notes="Without torques: energy and the rotor momenta J_k (W_k + alpha_k') are conserved.")
