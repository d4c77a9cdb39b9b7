"""Appell–Hamel: ż² = a²(ẋ² + ẏ²) with gravity. Appell (seed 002 eq. (4)), Chetaev multipliers and
Maggi (seed 003 eqs. (28), (30)) with two choices of nonlinear quasi-velocities agree; Λ = λ."""
import random

import sympy as sp

from geonh.certificate import same_motion
from geonh.equations.nonlinear import appell, chetaev_lagrange, maggi_nonlinear, reactions_at
from geonh.models.seeds import appell_hamel

s = appell_hamel()
xd, yd, zd = s.space.qd
a = sp.Symbol("a", positive=True)
ap = appell(s)
print(s)
print("Chetaev codistribution:", s.chetaev_codistribution().forms[0])
print("Appell vs Chetaev-Lagrange:", same_motion(ap, chetaev_lagrange(s)))
mA = maggi_nonlinear(s, [xd, yd, zd ** 2 - a ** 2 * (xd ** 2 + yd ** 2)])
mB = maggi_nonlinear(s, [xd, yd / xd, zd - a * sp.sqrt(xd ** 2 + yd ** 2)], names=["p", "r"])
print("Maggi A kinematics:", mA.kinematics)
print("Maggi B kinematics:", mB.kinematics)
print("Appell vs Maggi A:", same_motion(ap, mA))
print("Appell vs Maggi B:", same_motion(ap, mB))
st = s.sample_state(random.Random(1))
lam = ap.solve_point(st)[-1]
print(f"λ (Appell) = {sp.N(lam, 15)}, Λ (Maggi A, v*3 = φ) = {sp.N(reactions_at(mA, st)[0], 15)}, "
      f"Λ (Maggi B, v*3 = ż − a√(ẋ²+ẏ²)) / (2ż) = {sp.N(reactions_at(mB, st)[0] / (2 * st[zd]), 15)}")
