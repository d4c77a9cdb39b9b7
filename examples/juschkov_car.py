"""Juschkov's car (seed 003, § 5): inversion (32), Maggi's equations (37), reactions Λ1, Λ2.

Quasi-velocities v*¹ = φ̇, v*² = θ̇, v*³, v*⁴ = the two no-slip constraints (31).
"""
import numpy as np
import sympy as sp

from geonh import equations as E
from geonh import models, simulate
from geonh.certificate import same_motion

model = models.get("car")
S = model.space
C = model.frame.C
print("Inversion (32): q̇ = C v*")
for i in (2, 3):
    print(f"  d{S.q[i]}/dt =", " + ".join(f"({sp.simplify(C[i, a])}) v{a + 1}" for a in range(4) if C[i, a] != 0))

eq = E.maggi(model.system, model.frame)
print("\nMaggi (28) in this frame agrees with Lagrange:", same_motion(E.lagrange(model.system), eq, states=2))
print("second Maggi equation (36):", sp.simplify(eq.residuals[1]), "= 0")

# drive: F1 = 200 N, steering torque 𝓛1 = 0.5 N m, resistances F2 = 20 N, 𝓛2 = 0
M1, M2, J1, J2, l1, l2, F1, F2, L1, L2 = model.parameters
par = {M1: 1000.0, M2: 50.0, J1: 1500.0, J2: 5.0, l1: 1.2, l2: 1.4, F1: 200.0, F2: 20.0, L1: 0.5, L2: 0.0}
th0 = 0.1
# moving at v_C = 5 m/s: with v3 = v4 = 0 and φ = 0, (32) gives ẋ_C = φ̇ (l1 + l2) cos θ / sin θ
# (the frame is singular at θ = 0: driving straight, φ̇ = 0 and v_C is not a function of v1)
y0 = [0.0, th0, 0.0, 0.0, 5.0 * np.tan(th0) / (1.2 + 1.4), 0.0]   # φ, θ, x_C, y_C, v1 = φ̇, v2 = θ̇
sol = simulate(eq, y0, (0.0, 5.0), params=par)
print(f"\nafter 5 s: φ = {sol.y[0, -1]:.4f} rad, θ = {sol.y[1, -1]:.4f} rad, C = ({sol.y[2, -1]:.2f}, {sol.y[3, -1]:.2f}) m")

# reactions along the motion (Maggi's second group (30))
vals = {s: sp.Float(v) for s, v in zip(list(S.q) + list(eq.u), sol.y[:, -1])}
vals.update({k: sp.Float(v) for k, v in par.items()})
ud = eq.solve_point(vals)
sub = {**vals, **dict(zip(eq.ud, (sp.Float(float(x)) for x in ud)))}
for k, Lam in enumerate(eq.reactions):
    print(f"  Λ{k + 1} = {float(sp.sympify(Lam).xreplace(sub)):.3f} N  (reaction of constraint {k + 1} of (31))")
