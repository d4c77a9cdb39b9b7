"""The Neimark–Fufaev k-family of transpositional relations on the rolling disk and the sleigh.

d and δ are vector fields V, W (seed 004, eq. (1.1)); dδq − δdq = [V, W].  k = n − m is the
Hamel/Volterra point of view (d, δ commute on every coordinate), k = 0 the Suslov/Levi-Civita
one (they commute on the free coordinates only, and dδq_σ − δdq_σ = B^σ_rs dq_r δq_s).
"""
import sympy as sp

from geonh.models import kinematic as catalog
from geonh.kernel.space import ConfigurationSpace
from geonh.transposition import ConstrainedSetting, printed_nf_B


def show(title, setting, quasi=None):
    print(f"== {title}: free {[q.name for q in setting.free]}, "
          f"dependent {[q.name for q in setting.dependent]}")
    for k in range(setting.n - setting.m + 1):
        T = setting.transposition(k, quasi=quasi)
        print(f"  k = {k}  (ρ = {[q.name for q in T.rho]}, σ = {[q.name for q in T.sigma]})")
        for q, e in zip(setting.space.coords, T.coordinates(on_motion=True)):
            print(f"    dδ{q.name} − δd{q.name} = {sp.factor(sp.simplify(e))}")
        for lam, e in enumerate(T.quasi()):
            e = sp.factor(sp.simplify(sp.expand(e)))
            if e != 0:
                print(f"    dδπ{lam + 1} − δdπ{lam + 1} = {e}")


# vertical rolling disk: ẋ = R cos θ φ̇, ẏ = R sin θ φ̇ (free θ, φ)
disk = catalog.rolling_disk()
x, y, th, ph = disk.space.q
setting = ConstrainedSetting.from_frame(disk.frame, 2, dependent=[x, y])
show("rolling disk", setting)
T0 = setting.transposition(0)
print("  B (bracket) =", sp.simplify(T0.B).tolist())
print("  B (1.6)     =", sp.simplify(printed_nf_B(setting.a, setting.free, setting.dependent)).tolist())

# Chaplygin sleigh / knife edge: sin θ ẋ − cos θ ẏ = 0, π1 = forward speed, π2 = θ̇
S = ConfigurationSpace("x y theta")
x, y, th = S.q
xd, yd, thd = S.qd
sleigh = ConstrainedSetting.from_equations(S, [sp.sin(th) * xd - sp.cos(th) * yd], dependent=[y])
show("Chaplygin sleigh (π1 = cos θ ẋ + sin θ ẏ, π2 = θ̇)", sleigh,
     quasi=[sp.cos(th) * xd + sp.sin(th) * yd, thd])
