"""Hertz's representation space (seed 003 §§ 1–4): orthogonal split, reactions, Coulomb friction,
and the galgebra-vs-sympy measurement."""
import sympy as sp

from geonh.systems.hertz import HertzSpace, benchmark_split, split_galgebra
from geonh.equations import hertz
from geonh.systems import NonlinearSystem
from geonh.models.seeds import appell_hamel
from geonh.kernel.space import ConfigurationSpace

hs = HertzSpace(appell_hamel())
W = hs.acceleration()
WL, WK = hs.split(W)
print("W^K (covariant):", [sp.simplify(e) for e in WK])
print("W_L·W^K =", sp.simplify(hs.dot(WL, WK)))
print("Λ(t, q, q̇) =", sp.simplify(hs.multipliers()[0]))
print("split timings (s):", benchmark_split(hs, W))
print("galgebra split equals sympy split:",
      all(sp.simplify(a - b) == 0 for a, b in zip(split_galgebra(hs, W)[1], WK)))

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
print(f"rough incline: down-slope acceleration {along}, g(sin α − k cos α) = {sp.N(9.8 * (s_ - c / 5), 12)}")
