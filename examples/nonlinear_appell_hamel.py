"""Appell–Hamel: ż² = a²(ẋ² + ẏ²) with gravity. Appell (seed 002 eq. (4)), Chetaev multipliers and
Maggi (seed 003 eqs. (28), (30)) with two choices of nonlinear quasi-velocities agree; Λ = λ."""
import random

import sympy as sp

from geonh import is_zero
from geonh.analysis.certificate import same_motion
from geonh.equations.nonlinear import (
    appell,
    chetaev_lagrange,
    maggi_nonlinear,
    reactions_at,
)
from geonh.kernel.evaluation import to_sympy
from geonh.models.seeds import appell_hamel

s = appell_hamel()
xd, yd, zd = s.space.qd
a = sp.Symbol("a", positive=True)
ap = appell(s)
print(s)
chetaev = s.chetaev_codistribution().forms[0]
print("Chetaev codistribution:", chetaev)
phi = zd ** 2 - a ** 2 * (xd ** 2 + yd ** 2)
assert all(is_zero(c - sp.diff(phi, v)) for c, v in zip(chetaev.covector, s.space.qd)), "Chetaev's form is ∂φ/∂q̇ dq"


def agree(label, eq1, eq2):
    cert = same_motion(eq1, eq2)
    print(f"{label}:", cert)
    assert cert.same, f"{label}: the two forms must give the same motion"


agree("Appell vs Chetaev-Lagrange", ap, chetaev_lagrange(s))
mA = maggi_nonlinear(s, [xd, yd, phi])
mB = maggi_nonlinear(s, [xd, yd / xd, zd - a * sp.sqrt(xd ** 2 + yd ** 2)], names=["p", "r"])
print("Maggi A kinematics:", mA.kinematics)
print("Maggi B kinematics:", mB.kinematics)
agree("Appell vs Maggi A", ap, mA)
agree("Appell vs Maggi B", ap, mB)
st = s.sample_state(random.Random(1))
lam = to_sympy(ap.solve_point(st)[-1])   # values as 60-digit Floats
LamA, LamB = to_sympy(reactions_at(mA, st)[0]), to_sympy(reactions_at(mB, st)[0]) / (2 * st[zd])
print(f"λ (Appell) = {sp.N(lam, 15)}, Λ (Maggi A, v*3 = φ) = {sp.N(LamA, 15)}, "
      f"Λ (Maggi B, v*3 = ż − a√(ẋ²+ẏ²)) / (2ż) = {sp.N(LamB, 15)}")
assert abs(LamA - lam) < 1e-40 * abs(lam), "Maggi's Λ (v*3 = φ) must equal Appell's λ"
assert abs(LamB - lam) < 1e-40 * abs(lam), "Maggi's Λ (v*3 = ż − a√(ẋ²+ẏ²)) / (2ż) must equal λ"
