"""Chaplygin sleigh: v̇ = a w², ẇ = −m a v w/(I + m a²) in the frame v = cos θ ẋ + sin θ ẏ, w = θ̇.

The sleigh forgets its rotation: w → 0 and v → sqrt(v0² + (I + m a²) w0² / m) (energy).
"""
import numpy as np
import sympy as sp

from geonh import equations as E
from geonh import models, simulate
from geonh.certificate import same_motion

model = models.get("chaplygin-sleigh")
m, a, I = model.parameters
eq = E.boltzmann_hamel(model.system, model.frame)
rhs = eq.rhs()
print("Boltzmann–Hamel equations in the frame (v, w):")
for u, e in zip(eq.u, rhs[3:, :]):
    print(f"  d{u}/dt =", sp.simplify(e))
print("Chaplygin system for dependent y:", E.is_chaplygin(model.system, ["y"]))
print("Chaplygin's equations vs these:", same_motion(eq, E.chaplygin(model.system, ["y"]), states=2))

par = {m: 1.0, a: 0.5, I: 0.2}
v0, w0 = 0.5, 2.0
sol = simulate(eq, [0, 0, 0, v0, w0], (0, 20), params=par)
v, w = sol.y[3], sol.y[4]
vinf = np.sqrt(v0**2 + (par[I] + par[m] * par[a]**2) * w0**2 / par[m])
print(f"t = 20: v = {v[-1]:.6f} (limit {vinf:.6f}), w = {w[-1]:.2e}")
