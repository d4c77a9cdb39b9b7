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

from ..kernel.elementary import TRIG_FUNCTIONS
from ..kernel.fields import VectorField
from ..kernel.frames import Frame
from ..kernel.space import ConfigurationSpace
from ..kernel.trig import trig_reduce
from ..systems.mechanical import MechanicalSystem
from .arguments import flag
from .mechanical import MechanicalModel

__all__ = ["snakeboard"]


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
