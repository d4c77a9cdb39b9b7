"""Rheonomic speed constraint ẋ² + ẏ² = v(t)² and the isokinetic particle (Chetaev's rule)."""
import random

import sympy as sp

from geonh.analysis.certificate import same_motion
from geonh.equations.nonlinear import appell, maggi_nonlinear
from geonh.kernel.evaluation import to_sympy
from geonh.models.seeds import isokinetic_particle, speed_constraint_particle
from geonh.numerics import simulate

s = speed_constraint_particle()
xd, yd = s.space.qd
t = s.space.t
v0, v1 = sp.symbols("v0 v1", positive=True)
ap = appell(s)
mg = maggi_nonlinear(s, [yd, xd ** 2 + yd ** 2 - (v0 + v1 * t) ** 2])
cert = same_motion(ap, mg)
print("speed constraint: Appell vs Maggi:", cert)
assert cert.same, "Appell's and Maggi's equations must give the same motion"
params = {sp.Symbol(n, positive=True): v for n, v in {"m": 1.0, "k": 0.7, "F": 0.3, "v0": 1.0, "v1": 0.5}.items()}
sol = simulate(ap, [0.2, 0.1, 0.6, 0.8], (0.0, 2.0), params)
drift = max(abs(y[2] ** 2 + y[3] ** 2 - (1 + 0.5 * ti) ** 2) for ti, y in zip(sol.t, sol.y.T))
print(f"max |ẋ² + ẏ² − v(t)²| over t ∈ [0, 2]: {drift:.2e}")
assert drift < 1e-8, "the motion must keep the speed constraint"

iso = isokinetic_particle()
ap = appell(iso)
st = iso.sample_state(random.Random(2))
m = sp.Symbol("m", positive=True)
v = [st[q] for q in iso.space.qd]
F = [Q.xreplace(st) for Q in iso.Q]
Fv = sum(f * x for f, x in zip(F, v)) / sum(x * x for x in v)
acc = ap.accelerations(st)
closed = [(f - Fv * x) / st[m] for f, x in zip(F, v)]
print("isokinetic q̈ (Appell):      ", [sp.N(x, 12) for x in acc])
print("closed form (F − (F·v/v²)v)/m:", [sp.N(x, 12) for x in closed])
assert all(abs(to_sympy(a) - c) < 1e-40 * (1 + abs(c)) for a, c in zip(acc, closed)), "q̈ must be (F − (F·v/v²)v)/m"
