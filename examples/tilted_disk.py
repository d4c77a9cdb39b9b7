"""Tilted rolling disk: every equation form gives the same motion; energy is conserved.

The disk (5 coordinates ψ, θ, φ, x, y; 2 rolling constraints) is written in the frame of its
angular velocity components in the leaning frame L (w1 = θ̇, w2 = φ̇ + ψ̇ sin θ, w3 = ψ̇ cos θ).
"""
import time

import numpy as np
import sympy as sp

from geonh import equations as E
from geonh import models, simulate
from geonh.analysis.certificate import same_motion

model = models.get("tilted-disk")
system, frame = model.system, model.frame
print(model.system, "\n  dof =", system.dof, " constraints:", [str(c) for c in system.constraints.forms])
assert system.dof == 3 and system.n_constraints == 2, "5 coordinates, 2 rolling constraints, 3 degrees of freedom"

ref = E.lagrange(system)
print("\nEvery form against Lagrange's equations with multipliers (q̈ at random consistent states):")
for name, eq in [("boltzmann-hamel (L frame)", E.boltzmann_hamel(system, frame)),
                 ("voronets (x, y dependent)", E.voronets(system, ["x", "y"])),
                 ("chaplygin", E.chaplygin(system, ["x", "y"])),
                 ("maggi (L frame)", E.maggi(system, frame)),
                 ("gibbs-appell (L frame)", E.gibbs_appell(system, frame)),
                 ("kane (L frame)", E.kane(system, frame)),
                 ("tzenoff-II", E.tzenoff(system, 2))]:
    cert = same_motion(ref, eq, states=2)
    print(f"  {name:28s} {cert}")
    assert cert.same, f"{name} must give the motion of Lagrange's equations"

# simulate a leaning, spinning disk and watch the energy
m, r, g, Id, Ia = model.parameters
par = {m: 1.0, r: 0.5, g: 9.81, Id: 1.0 * 0.5**2 / 4, Ia: 1.0 * 0.5**2 / 2}
eq = E.boltzmann_hamel(system, frame)
t0 = time.time()
sol = simulate(eq, [0, 0.3, 0, 0, 0, 0.2, 4.0, 1.5], (0, 5), params=par, rtol=1e-12, atol=1e-12)
S = system.space
K = [sp.sympify(k).xreplace(par) for k in eq.kinematics]
energy = sp.lambdify(list(S.q) + list(eq.u), (system.T.xreplace(dict(zip(S.qd, K))) + system.V).xreplace(par))
E_t = np.array([energy(*sol.y[:, k]) for k in range(sol.y.shape[1])])
print(f"\nSimulated 5 s in {time.time() - t0:.1f} s: lean θ ranges over [{sol.y[1].min():.3f}, {sol.y[1].max():.3f}],"
      f" contact point ends at ({sol.y[3, -1]:.3f}, {sol.y[4, -1]:.3f})")
drift = np.max(np.abs(E_t - E_t[0]))
print(f"energy {E_t[0]:.10f}, max drift {drift:.2e}")
assert sol.success and drift < 1e-8, "the energy of the rolling disk must be conserved"
