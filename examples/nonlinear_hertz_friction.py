"""Hertz's representation space (seed 003 §§ 1–4): orthogonal split, reactions, Coulomb friction,
and the galgebra-vs-sympy measurement."""
import random

import sympy as sp

from geonh import is_zero
from geonh.equations import hertz
from geonh.equations.nonlinear import appell
from geonh.kernel.evaluation import to_sympy
from geonh.kernel.space import ConfigurationSpace
from geonh.models.seeds import appell_hamel
from geonh.systems import NonlinearSystem
from geonh.systems.hertz import HertzSpace, benchmark_split, split_galgebra

hs = HertzSpace(appell_hamel())
W = hs.acceleration()
WL, WK = hs.split(W)
print("W^K (covariant):", [sp.simplify(e) for e in WK])
print("W_L·W^K =", sp.simplify(hs.dot(WL, WK)))
assert is_zero(hs.dot(WL, WK)), "the split W = W_L + W^K must be orthogonal"
Lam = hs.multipliers()[0]
print("Λ(t, q, q̇) =", sp.simplify(Lam))
st = hs.system.sample_state(random.Random(1))
lam = to_sympy(appell(hs.system).solve_point(st)[-1])   # 60-digit Float
print(f"at a random state: Λ = {sp.N(Lam.xreplace(st), 15)}, Appell's λ = {sp.N(lam, 15)}")
assert abs(Lam.xreplace(st) - lam) < 1e-40 * abs(lam), "Hertz's Λ must be Chetaev's multiplier λ"
print("split timings (s):", benchmark_split(hs, W))
same_split = all(sp.simplify(a - b) == 0 for a, b in zip(split_galgebra(hs, W)[1], WK))
print("galgebra split equals sympy split:", same_split)
assert same_split, "galgebra and sympy must give the same split"

S = ConfigurationSpace("x z")
x, z = S.q
xd, zd = S.qd
m, g, al, k = sp.symbols("m g alpha k", positive=True)
incline = NonlinearSystem(S, m * (xd ** 2 + zd ** 2) / 2, V=m * g * z, holonomic=[z + x * sp.tan(al)],
                          solved={zd: -xd * sp.tan(al)})
h2 = HertzSpace(incline)
eq = hertz(h2, "coulomb", k)
vals = {m: sp.Integer(2), g: sp.Rational(98, 10), al: sp.Rational(1, 2), k: sp.Rational(1, 5),
        x: sp.Integer(1), z: -sp.tan(sp.Rational(1, 2)), xd: sp.Integer(3), zd: -3 * sp.tan(sp.Rational(1, 2))}
acc = eq.accelerations(vals)
c, s_ = sp.cos(sp.Rational(1, 2)), sp.sin(sp.Rational(1, 2))
along = sp.N(sp.Float(acc[0], 30) * c - sp.Float(acc[1], 30) * s_, 12)
expected = sp.Rational(98, 10) * (s_ - c / 5)
print(f"rough incline: down-slope acceleration {along}, g(sin α − k cos α) = {sp.N(expected, 12)}")
assert abs(sp.N(along - expected, 30)) < 1e-10, "sliding down a rough incline: a = g(sin α − k cos α)"
