"""Chaplygin sleigh: v̇ = a w², ẇ = −m a v w/(I + m a²) in the frame v = cos θ ẋ + sin θ ẏ, w = θ̇.

The sleigh forgets its rotation: w → 0 and v → sqrt(v0² + (I + m a²) w0² / m) (energy).
"""
import numpy as np
import sympy as sp

from geonh import equations as E
from geonh import is_zero, models, simulate
from geonh.analysis.certificate import same_motion

model = models.get("chaplygin-sleigh")
m, a, I = model.parameters
eq = E.boltzmann_hamel(model.system, model.frame)
rhs = eq.rhs()
v_, w_ = eq.u
print("Boltzmann–Hamel equations in the frame (v, w):")
for u, e in zip(eq.u, rhs[3:, :]):
    print(f"  d{u}/dt =", sp.simplify(e))
assert is_zero(rhs[3] - a * w_**2), "v̇ must be a w²"
assert is_zero(rhs[4] + m * a * v_ * w_ / (I + m * a**2)), "ẇ must be −m a v w/(I + m a²)"
chap = E.is_chaplygin(model.system, ["y"])
print("Chaplygin system for dependent y:", chap)
assert chap, "the sleigh is a Chaplygin system with y dependent"
cert = same_motion(eq, E.chaplygin(model.system, ["y"]), states=2)
print("Chaplygin's equations vs these:", cert)
assert cert.same, "Chaplygin's equations must give the same motion"

par = {m: 1.0, a: 0.5, I: 0.2}
v0, w0 = 0.5, 2.0
sol = simulate(eq, [0, 0, 0, v0, w0], (0, 20), params=par)
v, w = sol.y[3], sol.y[4]
vinf = np.sqrt(v0**2 + (par[I] + par[m] * par[a]**2) * w0**2 / par[m])
print(f"t = 20: v = {v[-1]:.6f} (limit {vinf:.6f}), w = {w[-1]:.2e}")
energy = par[m] * v**2 + (par[I] + par[m] * par[a]**2) * w**2     # 2T
assert np.max(np.abs(energy - energy[0])) < 1e-8, "energy must be conserved"
assert abs(w[-1]) < 1e-8 and abs(v[-1] - vinf) < 1e-8, "the sleigh must forget its rotation: w → 0, v → v∞"

# %% The speeds against time: w dies out, v grows to its limit v∞
# (the site's gallery draws the figure; run as a script, nothing opens)
from geonh.app import plotting  # noqa: E402  (matplotlib, the [plot] extra)

fig = plotting.trajectory_figure(sol, which="u", title="Chaplygin sleigh: v → v∞, w → 0")
fig.axes[0].axhline(vinf, linestyle=":", color="gray")
fig
