"""Rigid body and heavy top in body angular velocities: Volterra's equations are Euler's.

The frame Ω1, Ω2, Ω3 (z-x-z Euler angles, geonh.models.kinematic.rigid_body) has [X_a, X_b] = ε_abd X_d,
so the Boltzmann–Hamel term c^d_ab ω^b ∂T*/∂ω^d is Ω × (I Ω).
"""
import sympy as sp

from geonh import equations as E
from geonh import models


for name in ("free-rigid-body", "heavy-top"):
    model = models.get(name)
    eq = E.volterra(model.system, model.frame)
    angles = model.space.q
    print(f"{model.description}:")
    c = model.frame.structure_coefficients()
    print("  [X1, X2] =", [models.trig_reduce(c[d, 0, 1], angles) for d in range(3)], "on (X1, X2, X3)")
    for r in eq.residuals:
        P = sp.Poly(sp.expand(r), *eq.u, *eq.ud)
        tidy = sum(models.trig_reduce(k, angles) * sp.Mul(*[x**p for x, p in zip(P.gens, mon)]) for mon, k in P.terms())
        print("   ", sp.collect(tidy, eq.ud), "= 0")
