"""Juschkov's car (seed 003, § 5): inversion (32), Maggi's equations (37), reactions Λ1, Λ2.

Quasi-velocities v*¹ = φ̇, v*² = θ̇, v*³, v*⁴ = the two no-slip constraints (31).
"""
import numpy as np
import sympy as sp

from geonh import equations as E
from geonh import is_zero, models, simulate
from geonh.analysis.certificate import same_motion

model = models.get("car")
S = model.space
M1, M2, J1, J2, l1, l2, F1, F2, L1, L2 = model.parameters
ph, th = S.q[0], S.q[1]
C = model.frame.C
print("Inversion (32): q̇ = C v*")
for i in (2, 3):
    print(f"  d{S.q[i]}/dt =", " + ".join(f"({sp.simplify(C[i, a])}) v{a + 1}" for a in range(4) if C[i, a] != 0))
# (32) as printed in seed 003: columns v1, v2, v3, v4 of ẋ_C and ẏ_C
s_ = sp.sin(th)
printed_32 = [[(l1 * sp.cos(ph) * sp.cos(th) + l2 * sp.cos(ph + th)) / s_, 0, sp.cos(ph + th) / s_, -sp.cos(ph) / s_],
              [(l1 * sp.sin(ph) * sp.cos(th) + l2 * sp.sin(ph + th)) / s_, 0, sp.sin(ph + th) / s_, -sp.sin(ph) / s_]]
assert all(is_zero(C[i, a] - printed_32[i - 2][a]) for i in (2, 3) for a in range(4)), "C must be the inversion (32)"

eq = E.maggi(model.system, model.frame)
cert = same_motion(E.lagrange(model.system), eq, states=2)
print("\nMaggi (28) in this frame agrees with Lagrange:", cert)
assert cert.same, "Maggi's equations must give the motion of Lagrange's equations"
print("second Maggi equation (36):", sp.simplify(eq.residuals[1]), "= 0")
v1d, v2d = eq.ud
assert is_zero(eq.residuals[1] - (J2 * (v1d + v2d) - (L1 - L2))), "(36) must read J2 (θ̈ + φ̈) = 𝓛1 − 𝓛2"

# drive: F1 = 200 N, steering torque 𝓛1 = 0.5 N m, resistances F2 = 20 N, 𝓛2 = 0
par = {M1: 1000.0, M2: 50.0, J1: 1500.0, J2: 5.0, l1: 1.2, l2: 1.4, F1: 200.0, F2: 20.0, L1: 0.5, L2: 0.0}
th0 = 0.1
# moving at ẋ_C = 5 m/s: with v3 = v4 = 0 and φ = 0, (32) gives ẋ_C = φ̇ (l1 + l2) cos θ / sin θ
# (the frame is singular at θ = 0: driving straight, φ̇ = 0 and v_C is not a function of v1)
y0 = [0.0, th0, 0.0, 0.0, 5.0 * np.tan(th0) / (1.2 + 1.4), 0.0]   # φ, θ, x_C, y_C, v1 = φ̇, v2 = θ̇
sol = simulate(eq, y0, (0.0, 5.0), params=par)
print(f"\nafter 5 s: φ = {sol.y[0, -1]:.4f} rad, θ = {sol.y[1, -1]:.4f} rad, C = ({sol.y[2, -1]:.2f}, {sol.y[3, -1]:.2f}) m")

# reactions along the motion (Maggi's second group (30))
vals = {s: sp.Float(v) for s, v in zip(list(S.q) + list(eq.u), sol.y[:, -1])}
vals.update({k: sp.Float(v) for k, v in par.items()})
ud = eq.solve_point(vals)
sub = {**vals, **dict(zip(eq.ud, (sp.Float(float(x)) for x in ud)))}
Lams = [float(sp.sympify(Lam).xreplace(sub)) for Lam in eq.reactions]
for k, Lam in enumerate(Lams):
    print(f"  Λ{k + 1} = {Lam:.3f} N  (reaction of constraint {k + 1} of (31))")
# Λκ are Lagrange's multipliers λκ of the constraints (31) (R_i = λκ ∂φκ/∂q̇_i) at the same state
qd = {v: sp.sympify(K).xreplace(vals) for v, K in zip(S.qd, eq.kinematics)}
lag = E.lagrange(model.system)
state = {k: v for k, v in vals.items() if k not in eq.u}      # Lagrange's state: q, q̇ (not Maggi's speeds)
lam = [float(x) for x in lag.solve_point({**state, **qd})[S.n:]]
assert np.allclose(Lams, lam, rtol=1e-9, atol=0), f"Maggi's Λ {Lams} must equal Lagrange's λ {lam}"
