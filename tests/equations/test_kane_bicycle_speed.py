"""Kane's form on sympy's Whipple bicycle with every parameter symbolic (issue 27, trust): on
main it ran more than 13 minutes (sympy's total derivative of the frame's kinematics, Christoffel
symbols of the 8 x 8 metric in sympy, the Jacobian of the residuals, and the adaptedness check
forming the symbolic product A·C); now the inertia forces are computed in the engine's algebra
from small primitives and the adaptedness check stays numeric.  And the load symbols that the
free F_r do not depend on (the contact force magnitudes brought in by auxiliary speeds) leave
the equations of motion and stay in the auxiliary equations."""
import sys
import time
from pathlib import Path

import numpy as np
import pytest
import sympy as sp

import geonh as g

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "models"))
from test_interop_bicycle import _benchmark_values, _newton, disc_aux_dep, whipple_bicycle  # noqa: E402
from geonh.models.interop import from_kanes_method, kane_frame  # noqa: E402


def test_generically_zero_load_symbols_leave_the_equations_of_motion():
    """sympy's test_aux_dep disc: the contact force Fx, Fy, Fz enters Q, but F_r along the free
    fields does not depend on it (its coefficients are zero, not simplified).  On main the
    symbols stayed in fr, M and F, so ode_function asked for their values; now they are only
    in the auxiliary equations, which still contain them (sympy's contact force)."""
    km, (r, m, grav, I, J), Fs, f_v = disc_aux_dep()
    ms = from_kanes_method(km, conditions=[r > 0, m > 0, I > 0, J > 0])
    eqs = g.kane(ms, kane_frame(km, ms))
    assert set(Fs) <= set().union(*[q.free_symbols for q in ms.Q])
    motion = eqs.mass_matrix.free_symbols | eqs.forcing.free_symbols | eqs.fr.free_symbols
    assert not motion & set(Fs)
    assert set(Fs) <= eqs.auxiliary_eqs.free_symbols
    f = eqs.ode_function({"r": 0.5, "m": 1.0, "g": 9.81, "I": 0.3, "J": 0.6})   # no value for Fx, Fy, Fz
    y = np.r_[0.1, 0.4, 0.2, -0.5 * np.cos(0.4), 0.3, -0.2, 0.5, -1.0, 2.0]
    assert np.all(np.isfinite(np.asarray(f(0.0, y), float)))


@pytest.mark.slow
def test_kane_bicycle_symbolic_in_seconds_and_agrees_with_lagrange():
    """Kane's form of the symbolic bicycle derives in bounded time (CPU, generous for a loaded
    machine; > 13 min on main) and its q̈ equal Lagrange's at random consistent states with the
    benchmark parameters to 1e-12 relative."""
    km, P, speed, coord = whipple_bicycle()
    conds = [P["Iframe11"] * P["Iframe33"] - P["Iframe31"]**2 > 0, P["Ifork11"] * P["Ifork33"] - P["Ifork31"]**2 > 0]
    ms = from_kanes_method(km, conditions=conds)
    frame = kane_frame(km, ms)
    c0 = time.process_time()
    eqs = g.kane(ms, frame)
    cpu = time.process_time() - c0
    print("KANE bicycle cpu", cpu)
    assert cpu < 180, cpu
    lag = g.lagrange(ms)
    pv = {k.name: float(v) for k, v in _benchmark_values(P).items()}
    S = ms.space
    C = ms.constraints.matrix()
    byname = {s.name: s for s in C.free_symbols}
    fC = sp.lambdify([S.q], C.xreplace({byname[k]: v for k, v in pv.items() if k in byname}))
    hol = sp.lambdify([S.q], ms.holonomic[0].xreplace({s: pv[s.name] for s in ms.holonomic[0].free_symbols
                                                        if s.name in pv}))
    rng = np.random.default_rng(5)
    worst, checked = 0.0, 0
    for _ in range(3):
        qall = np.r_[rng.uniform(-.5, .5, 3), 0.0, rng.uniform(-3, 3, 4)]
        qall[3] = _newton(lambda a: hol(np.r_[qall[:3], a, qall[4:]]), 0.0)
        Cv = np.asarray(fC(qall), float)
        free = np.r_[rng.uniform(-1, 1, 2), rng.uniform(5, 20)]    # lean, steer and rear wheel rates
        idx_free = [1, 2, 4]
        dep = [i for i in range(8) if i not in idx_free]
        xd = np.zeros(8)
        xd[idx_free] = free
        xd[dep] = np.linalg.solve(Cv[:, dep], -Cv[:, idx_free] @ free)
        assert np.max(abs(Cv @ xd)) < 1e-12          # the state is on the constraints
        vals = {s.name: float(x) for s, x in zip(S.q, qall)} | pv
        vals |= {f"{s.name}_dot": float(x) for s, x in zip(S.q, xd)}
        # the compiled double-precision route (exact=False; the exact route takes about a
        # minute of CPU per state on these equations)
        a_k = np.array(eqs.accelerations(vals, exact=False), float)
        a_l = np.array(lag.accelerations(vals, exact=False), float)
        worst = max(worst, float(np.max(abs(a_k - a_l)) / max(1.0, float(np.max(abs(a_l))))))
        checked += 1
    print("AGREE kane-lagrange bicycle", worst)
    assert checked == 3 and worst < 1e-12


@pytest.mark.slow
def test_kane_frame_of_the_bicycle_has_no_unsimplified_zero_coefficients():
    """sympy's bicycle defines u3 = WR_angle' + q1'(sin²q1 sin q2 + sin q2 cos²q1 − sin q2) +
    q4'(sin²(htangle+q4) + cos²(htangle+q4) − 1), and its expanded velocity constraints carry
    such zero sums too.  Kept in B, they went through the elimination C = B⁻¹ (C ten times
    larger; Kane's forcing then double-precision noise of size 1e14).  kane_frame sets every
    coefficient that vanishes at the generic point to 0: the speed is WR_angle' itself."""
    from geonh.kernel.generic_point import is_zero
    km, P, speed, coord = whipple_bicycle()
    conds = [P["Iframe11"] * P["Iframe33"] - P["Iframe31"]**2 > 0, P["Ifork11"] * P["Ifork33"] - P["Ifork31"]**2 > 0]
    ms = from_kanes_method(km, conditions=conds)
    frame = kane_frame(km, ms)
    assert not [e for e in frame.B if e != 0 and is_zero(e)]
    assert str(frame.quasi_velocities()[1]) == "WR_angle_dot"
