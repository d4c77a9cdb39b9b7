"""Rigid body and heavy top in body angular velocities: Volterra's equations are Euler's.

The frame Ω1, Ω2, Ω3 (z-x-z Euler angles, geonh.models.kinematic.rigid_body) has [X_a, X_b] = ε_abd X_d,
so the Boltzmann–Hamel term c^d_ab ω^b ∂T*/∂ω^d is Ω × (I Ω).
"""
import sympy as sp

from geonh import equations as E
from geonh import is_zero, models

for name in ("free-rigid-body", "heavy-top"):
    model = models.get(name)
    eq = E.volterra(model.system, model.frame)
    angles = model.space.q
    print(f"{model.description}:")
    c = model.frame.structure_coefficients()
    print("  [X1, X2] =", [models.trig_reduce(c[d, 0, 1], angles) for d in range(3)], "on (X1, X2, X3)")
    assert all(is_zero(c[d, a, b] - sp.LeviCivita(a, b, d)) for a in range(3) for b in range(3) for d in range(3)), \
        "the body angular velocities must have [X_a, X_b] = ε_abd X_d"
    for r in eq.residuals:
        P = sp.Poly(sp.expand(r), *eq.u, *eq.ud)
        tidy = sum(models.trig_reduce(k, angles) * sp.Mul(*[x**p for x, p in zip(P.gens, mon)]) for mon, k in P.terms())
        print("   ", sp.collect(tidy, eq.ud), "= 0")
    par = {s.name: s for s in model.parameters}
    I1, I2, I3 = par["I1"], par["I2"], par["I3"]
    W, Wd = eq.u, eq.ud
    if name == "free-rigid-body":
        M = [par["M1"], par["M2"], par["M3"]]
    else:  # gravity's moment about the fixed point in body axes (z-x-z angles ψ, θ, φ)
        psi, th, ph = angles
        mgl = par["m"] * par["g"] * par["l"]
        M = [mgl * sp.sin(th) * sp.cos(ph), -mgl * sp.sin(th) * sp.sin(ph), 0]
    euler = [I1 * Wd[0] + (I3 - I2) * W[1] * W[2] - M[0],
             I2 * Wd[1] + (I1 - I3) * W[2] * W[0] - M[1],
             I3 * Wd[2] + (I2 - I1) * W[0] * W[1] - M[2]]
    assert all(is_zero(r - e) for r, e in zip(eq.residuals, euler)), f"{name}: Volterra's equations must be Euler's"
