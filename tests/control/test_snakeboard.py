"""The snakeboard (geonh.models.literature.snakeboard: Lewis, Ostrowski, Murray & Burdick 1994;
BKMM 1996) driven by a torque on the rotor ψ and a torque on the wheel axles φ, decided through
the public API of geonh.control against the published verdicts, and motion along its decoupling
vector fields checked by simulating geonh's own equations of motion.

Published (Bullo & Lynch 2001, *Kinematic controllability for decoupled trajectory planning in
underactuated mechanical systems*, IEEE TRA 17; Bullo & Lewis 2003, *Kinematic controllability
and motion planning for the snakeboard*, IEEE TRA 19; Bullo & Lewis 2005, §§ 7.3, 8.3): the
snakeboard is locally configuration accessible and locally kinematically controllable, with
exactly two decoupling vector fields up to scaling: the wheel-steering input field (∝ ∂φ:
⟨Y_φ : Y_φ⟩ = 0) and the rotor input field, which turns the board about the instantaneous
centre of its wheel axles, (x, y, θ)-part ∝ r cos φ (cos θ ∂x + sin θ ∂y) + sin φ ∂θ, while
spinning the rotor.  Away from φ = ±π/2 (the singular configuration of the constraints).
"""
import importlib.util
from pathlib import Path

import numpy as np
import pytest
import sympy as sp

from geonh import models
from geonh.control import (AffineConnectionSystem, configuration_accessibility, decoupling_fields,
                           kinematic_controllability)
from geonh.kernel.generic_point import is_zero

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[2]

POINT = {"x": 0, "y": 0, "theta": 0, "psi": 0, "phi": sp.Rational(1, 5)}
TORQUES = [[0, 0, 0, 1, 0], [0, 0, 0, 0, 1]]          # τ_ψ on the rotor, τ_φ on the wheel axles


@pytest.fixture(scope="module")
def board():
    return models.get("snakeboard")


@pytest.fixture(scope="module")
def acs(board):
    return AffineConnectionSystem(board.system, TORQUES, inputs=["tau_psi", "tau_phi"])


def test_snakeboard_configuration_accessible_with_witness(acs):
    """Lie(Sym(Y))(q0) = T_q0 Q: Y1, Y2, ⟨Y1 : Y2⟩ span D (rank 3), the brackets [Y1, Y2],
    [Y1, [Y1, Y2]] complete the five directions."""
    v = configuration_accessibility(acs, POINT)
    assert v.holds and v.final and v.rank == 5
    assert v.witness == ("Y1", "Y2", "⟨Y1 : Y2⟩", "[Y1, Y2]", "[Y1, [Y1, Y2]]")


def test_snakeboard_two_decoupling_fields_as_published(acs):
    """Exactly two decoupling fields: the rotor's input field and the wheels' input field ∝ ∂φ;
    the rotor's moves (x, y, θ) along r cos φ (cos θ, sin θ) and sin φ (rotation about the
    instantaneous centre of the axles, Bullo & Lewis 2003); both have ⟨V : V⟩ ∈ span Y."""
    V = decoupling_fields(acs)
    assert len(V) == 2
    Y1, Y2 = acs.input_fields
    S = acs.space
    x, y, th, psi, phi = S.q
    r = sp.Symbol("r", positive=True)
    rotor, wheels = V
    assert all(is_zero(a * Y1.components[3] - b * rotor.components[3])
               for a, b in zip(Y1.components, rotor.components))               # rotor ∥ Y1
    assert all(is_zero(c) for c in wheels.components[:4]) and not is_zero(wheels.components[4])
    cx, cy, cth = rotor.components[:3]
    assert is_zero(cx * sp.sin(phi) - cth * r * sp.cos(phi) * sp.cos(th))
    assert is_zero(cy * sp.sin(phi) - cth * r * sp.cos(phi) * sp.sin(th))
    assert not is_zero(rotor.components[3])                                   # the rotor spins
    Dy = acs.distribution.__class__(list(acs.input_fields), S)
    assert all(Dy.contains(acs.symmetric_product(X, X)) for X in V)
    assert not Dy.contains(acs.symmetric_product(Y1 + Y2, Y1 + Y2))            # a mixed field is not


def test_snakeboard_kinematically_controllable(acs):
    """The involutive closure of the two decoupling fields spans T_q0 Q (Bullo & Lynch 2001)."""
    v = kinematic_controllability(acs, POINT)
    assert v.holds and v.final and v.rank == 5
    assert v.witness[:3] == ("V1", "V2", "[V1, V2]")


def _bench():
    """benchmarks/snakeboard_verdicts.py (its move_along: the decoupling motion and the flow)."""
    spec = importlib.util.spec_from_file_location("snakeboard_verdicts",
                                                  ROOT / "benchmarks" / "snakeboard_verdicts.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_motion_along_decoupling_fields_is_verified_by_simulation(board, acs):
    """Each decoupling field, followed rest to rest by the torques Σ uₐ Yₐ = s'' V + ½ s'² ⟨V : V⟩
    (Bullo & Lynch 2001; benchmarks/snakeboard_verdicts.py: move_along),
    moves the simulated snakeboard (geonh's own equations) to the end of the field's integral
    curve: final-state error below 1e-8, and the board ends at rest.  The rotor field turns and
    moves the board (θ and x change); the wheel field changes φ only."""
    rotor, wheels = decoupling_fields(acs)
    q0 = {"x": 0, "y": 0, "theta": 0, "psi": 0, "phi": 0.2}
    for V, moved in ((rotor, (0, 2, 3)), (wheels, (4,))):
        end, flow = _bench().move_along(board, acs, V, q0)
        err = float(np.max(np.abs(end[:5] - flow)))
        assert err < 1e-8, err
        assert float(np.max(np.abs(end[5:]))) < 1e-8               # at rest again
        for i in moved:
            assert abs(flow[i] - list(q0.values())[i]) > 1e-3
