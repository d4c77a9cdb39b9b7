"""Rheonomic transpositional relations: a ball rolling on a uniformly rotating table.

Coordinates (x, y) of the centre, z-x-z Euler angles (ψ, θ, φ), time t as the last
coordinate (δt = 0).  Rolling on a table turning at the rate Ω:
    ẋ = r ω_y − Ω y,   ẏ = −r ω_x + Ω x   (affine terms a_x = −Ω y, a_y = Ω x).
Time acts as one more free coordinate with a_jt = a_j, so k = 0 gives extra terms
B^σ_ts dt δq_s = −D_s(a_σ) dt δq_s: here B^x_ts = Ω a_ys and B^y_ts = −Ω a_xs.
"""
import sympy as sp

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

T = setting.transposition(0)  # Suslov / Voronets point of view
dt = T.dt
for q in (x, y):
    e = sp.expand(T.coordinate(q, on_motion=True))
    aff = sp.collect(sp.expand(sp.diff(e, dt) * dt), dt)
    print(f"dδ{q.name} − δd{q.name} = {sp.simplify(e - sp.expand(sp.diff(e, dt) * dt))}")
    print(f"      affine part (dt δq_s terms): {sp.simplify(aff)}")

T2 = setting.transposition(2)  # Hamel's point of view: d, δ commute on every coordinate
print("k = 2: all dδq − δdq vanish:", all(sp.simplify(c) == 0 for c in T2.coordinates()))
for lam, e in enumerate(T2.quasi()[:5]):
    e = sp.simplify(sp.expand(e))
    if e != 0:
        print(f"  dδπ{lam + 1} − δdπ{lam + 1} = {e}")
