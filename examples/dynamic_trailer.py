"""Dynamic N-trailer: a tractor (driving force F, steering torque τ) pulling N on-axle
trailers, each with mass and yaw inertia; one no-slip constraint per axle.

In the frame of geonh.models.kinematic.n_trailer (v = tractor speed, w = θ̇0) the Boltzmann–Hamel
equations are two ODEs, whatever N.  With F = τ = 0 the energy is conserved; when pulled
straight the trailers line up behind the tractor.
"""
import numpy as np
import sympy as sp

from geonh import equations as E
from geonh import simulate
from geonh.analysis.certificate import same_motion
from geonh.models import mechanical

N = 2
model = mechanical.dynamic_n_trailer(N)
S = model.space
print(model.system, f"- {S.n} coordinates, {model.system.n_constraints} constraints, dof {model.system.dof}")
eq = E.boltzmann_hamel(model.system, model.frame)
cert = same_motion(E.lagrange(model.system), eq, states=2)
print("Boltzmann–Hamel in the (v, w) frame vs Lagrange:", cert)
assert cert.same, "Boltzmann–Hamel in the (v, w) frame must agree with Lagrange's equations"
assert len(eq.u) == 2 and model.system.dof == 2, "two speeds (v, w) whatever N"

names = {str(p): p for p in model.parameters}
par = {names["m0"]: 2.0, names["m1"]: 1.0, names["m2"]: 1.0, names["J0"]: 0.3, names["J1"]: 0.2,
       names["J2"]: 0.2, names["d1"]: 1.0, names["d2"]: 0.8, names["F"]: 0.0, names["tau"]: 0.0}
y0 = [0.0, 0.0, 0.4, 0.0, -0.3, 1.0, 0.5]           # x, y, θ0, θ1, θ2, v, w
sol = simulate(eq, y0, (0.0, 6.0), params=par, rtol=1e-11, atol=1e-11)
K = [sp.sympify(k).xreplace(par) for k in eq.kinematics]
Efun = sp.lambdify(list(S.q) + list(eq.u), model.system.T.xreplace(dict(zip(S.qd, K))).xreplace(par))
En = np.array([Efun(*sol.y[:, k]) for k in range(sol.y.shape[1])])
drift = np.max(np.abs(En - En[0]))
print(f"free coasting (F = τ = 0), 6 s: energy {En[0]:.8f}, max drift {drift:.1e}")
assert drift < 1e-9, "with F = τ = 0 the energy must be conserved"

par[names["F"]] = 1.0
sol = simulate(eq, [0.0, 0.0, 0.0, 0.6, -0.5, 0.5, 0.0], (0.0, 15.0), params=par)
th = sol.y[2:2 + N + 1, -1]
print(f"pulled straight (F = 1), 15 s: tractor at ({sol.y[0, -1]:.2f}, {sol.y[1, -1]:.2f}), "
      f"speed {sol.y[-2, -1]:.3f}; headings θ0..θ{N} = {np.round(th, 4)} (trailers lined up)")
assert np.max(np.abs(sol.y[2:2 + N + 1, 0])) > 0.5, "the trailers start out of line"
assert np.max(np.abs(th)) < 1e-6 and abs(sol.y[1, -1]) < 1e-9, "pulled straight, the trailers must line up behind the tractor"
