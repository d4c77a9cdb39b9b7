"""Ball rolling on a uniformly rotating turntable (rheonomic constraints).

Known result: the centre moves on a circle with angular velocity k Ω, k = I/(I + m r²), so
2/7 Ω for a homogeneous ball, whatever the initial state: after 7π/Ω it is back where it
started.  Time is a coordinate; the frame is (ω_x, ω_y, ω_z, rolling constraints, dt).
"""
import numpy as np

from geonh import equations as E
from geonh import is_zero, models, simulate
from geonh.analysis.certificate import same_motion

model = models.get("ball-on-turntable")
m, r, I, Om = model.parameters
S = model.space
eq = E.boltzmann_hamel(model.system, model.frame)
cert = same_motion(E.lagrange(model.system), eq, states=2)
print("Boltzmann–Hamel (with time field) vs Lagrange:", cert)
assert cert.same, "Boltzmann–Hamel with the time field must agree with Lagrange's equations"
rhs = eq.rhs()[S.n:, :]
for u, e in zip(eq.u, rhs):
    print(f"  d{u}/dt =", models.trig_reduce(e))
x_, y_ = S.q[3], S.q[4]
wx, wy, wz = eq.u
closed = [-Om * m * r * (Om * y_ - r * wy) / (I + m * r**2), Om * m * r * (Om * x_ - r * wx) / (I + m * r**2), 0]
assert all(is_zero(e - c) for e, c in zip(rhs, closed)), "ω̇ differs from the closed form printed above"

par = {m: 1.0, r: 0.1, I: 0.4 * 1.0 * 0.1**2, Om: 1.0}
k = par[I] / (par[I] + par[m] * par[r]**2)
period = 2 * np.pi / (k * par[Om])
y0 = [0.3, 1.2, 0.0, 0.5, 0.0, 0.7, -0.4, 0.2]        # ψ θ φ x y, ω_x ω_y ω_z
sol = simulate(eq, y0, (0.0, period), params=par, rtol=1e-11, atol=1e-11)
x, y = sol.y[3], sol.y[4]
# centre of the circle and its radius from the samples
A = np.c_[2 * x, 2 * y, np.ones_like(x)]
cx, cy, c0 = np.linalg.lstsq(A, x**2 + y**2, rcond=None)[0]
rad = np.sqrt(c0 + cx**2 + cy**2)
dev = np.max(np.abs(np.hypot(x - cx, y - cy) - rad))
back = np.hypot(x[-1] - x[0], y[-1] - y[0])
print(f"k = {k:.6f} (2/7 = {2 / 7:.6f}); one period 2π/(kΩ) = {period:.4f} s")
print(f"centre path: circle about ({cx:.4f}, {cy:.4f}), radius {rad:.4f}, max deviation {dev:.2e}")
print(f"back to the start after one period: |Δ(x, y)| = {back:.2e}")
assert abs(k - 2 / 7) < 1e-12, "k = I/(I + m r²) must be 2/7 for a homogeneous ball"
assert rad > 0.1 and dev < 1e-8, "the centre must move on a circle"
assert back < 1e-8, "the centre must be back at its start after 2π/(kΩ)"
