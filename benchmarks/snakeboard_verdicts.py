"""The snakeboard's control verdicts (geonh.models ``snakeboard``, torques on the rotor ψ and the
wheel axles φ) with their times, and motion along its decoupling vector fields checked by
simulation: the final-state error of each.

    python benchmarks/snakeboard_verdicts.py

Published (Bullo & Lynch 2001; Bullo & Lewis 2003, 2005): locally configuration accessible,
two decoupling vector fields (the wheel-steering field ∝ ∂φ and the rotor field), locally
kinematically controllable.  Each decoupling field X is followed rest to rest by the inputs
Σ uₐ Yₐ = s̈ X + ½ ṡ² ⟨X : X⟩ (Bullo & Lynch 2001), s(t) = 3t² − 2t³ on [0, 1], on geonh's own
Boltzmann–Hamel equations of the snakeboard (ControlAffineSystem.from_mechanical), and the
simulated end compared with the end of X's integral curve (both DOP853, rtol 1e-12).
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.append(str(Path(__file__).resolve().parents[1]))  # an installed geonh or PYTHONPATH comes first

import numpy as np  # noqa: E402
import sympy as sp  # noqa: E402
from scipy.integrate import solve_ivp  # noqa: E402

#: τ_ψ on the rotor, τ_φ on the wheel axles
TORQUES = [[0, 0, 0, 1, 0], [0, 0, 0, 0, 1]]
#: the configuration of the verdicts (φ away from 0 and ±π/2)
POINT = {"x": 0, "y": 0, "theta": 0, "psi": 0, "phi": sp.Rational(1, 5)}
#: parameter values of the simulation (J > J_0: T positive definite)
VALUES = {"m": 1.0, "r": 1.0, "J": 1.5, "J_0": 0.3, "J_1": 0.2}


def move_along(board, acs, field, q0, *, duration=1.0):
    """Rest-to-rest motion along the decoupling ``field`` for one unit of its flow, simulated on
    geonh's equations of ``board`` driven by the torques; returns (simulated final state
    (q, speeds), the end of the field's integral curve from q0)."""
    from geonh.control import ControlAffineSystem
    S = acs.space
    q = list(S.q)
    used = set().union(*(c.free_symbols for Y in acs.input_fields for c in Y.components), board.system.T.free_symbols)
    params = {s: VALUES[s.name] for s in used if s.name in VALUES}

    def num(X):
        return sp.lambdify(q, [c.xreplace(params) for c in X.components], "numpy")

    Vn, VVn = num(field), num(acs.symmetric_product(field, field))
    Yn = [num(Y) for Y in acs.input_fields]
    cas = ControlAffineSystem.from_mechanical(board.system, TORQUES, inputs=["tau_psi", "tau_phi"], frame=board.frame)
    state = list(cas.space.q)
    f0 = sp.lambdify(state, [c.xreplace(params) for c in cas.drift.components], "numpy")
    fs = [sp.lambdify(state, [c.xreplace(params) for c in f.components], "numpy") for f in cas.fields]

    def rhs(t, z):
        tau = t / duration
        sd, sdd = 6 * tau * (1 - tau) / duration, (6 - 12 * tau) / duration**2
        qq = z[:len(q)]
        B = np.array([Y(*qq) for Y in Yn], dtype=float).T
        target = sdd * np.array(Vn(*qq), dtype=float) + 0.5 * sd**2 * np.array(VVn(*qq), dtype=float)
        u, *_ = np.linalg.lstsq(B, target, rcond=None)
        out = np.array(f0(*z), dtype=float)
        for ui, f in zip(u, fs):
            out = out + ui * np.array(f(*z), dtype=float)
        return out

    z0 = np.array([float(q0[s.name]) for s in S.q] + [0.0] * (len(state) - len(q)))
    sim = solve_ivp(rhs, (0, duration), z0, method="DOP853", rtol=1e-12, atol=1e-13)
    flow = solve_ivp(lambda t, qq: np.array(Vn(*qq), dtype=float), (0, 1), z0[:len(q)], method="DOP853",
                     rtol=1e-12, atol=1e-13)
    return sim.y[:, -1], flow.y[:, -1]


def main() -> None:
    from geonh import models
    from geonh.control import (AffineConnectionSystem, configuration_accessibility, configuration_controllability,
                               decoupling_fields, kinematic_controllability)
    w, c = time.perf_counter(), time.process_time()
    board = models.get("snakeboard")
    acs = AffineConnectionSystem(board.system, TORQUES, inputs=["tau_psi", "tau_phi"])
    print(f"build: {time.perf_counter() - w:.1f} s wall, {time.process_time() - c:.1f} s CPU")
    print("| verdict | answer | witness | wall s | CPU s |")
    print("|---|---|---|---|---|")
    for f in (configuration_accessibility, configuration_controllability, kinematic_controllability):
        w, c = time.perf_counter(), time.process_time()
        v = f(acs, POINT)
        print(f"| {f.__name__} | {'holds' if v.holds else 'fails' if v.final else 'undecided'} | "
              f"{', '.join(v.witness)} | {time.perf_counter() - w:.1f} | {time.process_time() - c:.1f} |", flush=True)
    w, c = time.perf_counter(), time.process_time()
    V = decoupling_fields(acs)
    print(f"| decoupling_fields | {len(V)} fields | rotor ∥ Y1, wheels ∥ ∂φ | {time.perf_counter() - w:.1f} | "
          f"{time.process_time() - c:.1f} |")
    q0 = {"x": 0, "y": 0, "theta": 0, "psi": 0, "phi": 0.2}
    for name, X in zip(("rotor", "wheels"), V):
        w = time.perf_counter()
        end, flow = move_along(board, acs, X, q0)
        print(f"motion along the {name} field: final-state error {np.max(np.abs(end[:5] - flow)):.2e}, "
              f"final speeds {np.max(np.abs(end[5:])):.2e}, end q = {np.round(flow, 6).tolist()} "
              f"({time.perf_counter() - w:.1f} s)", flush=True)


if __name__ == "__main__":
    main()
