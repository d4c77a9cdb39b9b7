"""Rheonomic transpositional relations: a ball rolling on a uniformly rotating table.

Coordinates (x, y) of the centre, z-x-z Euler angles (ψ, θ, φ), time t as the last
coordinate (δt = 0).  Rolling on a table turning at the rate Ω:
    ẋ = r ω_y − Ω y,   ẏ = −r ω_x + Ω x   (affine terms a_x = −Ω y, a_y = Ω x).
Time acts as one more free coordinate with a_jt = a_j, so k = 0 gives extra terms
B^σ_ts dt δq_s = −D_s(a_σ) dt δq_s: here B^x_ts = Ω a_ys and B^y_ts = −Ω a_xs.
"""
import sympy as sp

from geonh import is_zero
from geonh.kernel.space import ConfigurationSpace
from geonh.transposition import ConstrainedSetting

S = ConfigurationSpace("x y psi theta phi", time=True)
x, y, ps, th, ph = S.q
xd, yd, psd, thd, phd = S.qd
r, Om = sp.symbols("r Omega", positive=True)
wx = thd * sp.cos(ps) + phd * sp.sin(th) * sp.sin(ps)
wy = thd * sp.sin(ps) - phd * sp.sin(th) * sp.cos(ps)
setting = ConstrainedSetting.from_equations(
    S, [sp.Eq(xd, r * wy - Om * y), sp.Eq(yd, -r * wx + Om * x)], dependent=[x, y])
print("affine terms a_j:", list(setting.affine))
assert list(setting.affine) == [-Om * y, Om * x], "affine terms a_x = −Ω y, a_y = Ω x"
a_s = {q: dict(zip(setting.free, setting.a.row(i))) for i, q in enumerate(setting.dependent)}   # a_js

T = setting.transposition(0)  # Suslov / Voronets point of view
dt = T.dt
# B^x_ts = Ω a_ys, B^y_ts = −Ω a_xs: the dt δq_s terms are Ω dt a_ys δq_s and −Ω dt a_xs δq_s
expected_affine = {x: Om * dt * sum(a_s[y][s] * T.delta_symbols[s] for s in setting.free),
                   y: -Om * dt * sum(a_s[x][s] * T.delta_symbols[s] for s in setting.free)}
for q in (x, y):
    e = sp.expand(T.coordinate(q, on_motion=True))
    aff = sp.collect(sp.expand(sp.diff(e, dt) * dt), dt)
    print(f"dδ{q.name} − δd{q.name} = {sp.simplify(e - sp.expand(sp.diff(e, dt) * dt))}")
    print(f"      affine part (dt δq_s terms): {sp.simplify(aff)}")
    assert is_zero(aff - expected_affine[q]), f"the dt δq_s terms of dδ{q.name} − δd{q.name} must be {expected_affine[q]}"

T2 = setting.transposition(2)  # Hamel's point of view: d, δ commute on every coordinate
commute = all(sp.simplify(c) == 0 for c in T2.coordinates())
print("k = 2: all dδq − δdq vanish:", commute)
assert commute, "k = n − m (Hamel): d and δ commute on every coordinate"
for lam, e in enumerate(T2.quasi()[:5]):
    e = sp.simplify(sp.expand(e))
    if e != 0:
        print(f"  dδπ{lam + 1} − δdπ{lam + 1} = {e}")
