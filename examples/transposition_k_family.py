"""The Neimark–Fufaev k-family of transpositional relations on the rolling disk and the sleigh.

d and δ are vector fields V, W (seed 004, eq. (1.1)); dδq − δdq = [V, W].  k = n − m is the
Hamel/Volterra point of view (d, δ commute on every coordinate), k = 0 the Suslov/Levi-Civita
one (they commute on the free coordinates only, and dδq_σ − δdq_σ = B^σ_rs dq_r δq_s).
"""
import sympy as sp

from geonh import is_zero
from geonh.kernel.space import ConfigurationSpace
from geonh.models import kinematic as catalog
from geonh.transposition import ConstrainedSetting, printed_nf_B


def show(title, setting, quasi=None):
    print(f"== {title}: free {[q.name for q in setting.free]}, "
          f"dependent {[q.name for q in setting.dependent]}")
    for k in range(setting.n - setting.m + 1):
        T = setting.transposition(k, quasi=quasi)
        print(f"  k = {k}  (ρ = {[q.name for q in T.rho]}, σ = {[q.name for q in T.sigma]})")
        for q, e in zip(setting.space.coords, T.coordinates(on_motion=True)):
            print(f"    dδ{q.name} − δd{q.name} = {sp.factor(sp.simplify(e))}")
            if q not in T.sigma:
                assert is_zero(e), f"k = {k}: d and δ must commute on the free coordinates and the ρ's ({q})"
        for lam, e in enumerate(T.quasi()):
            e = sp.factor(sp.simplify(sp.expand(e)))
            if e != 0:
                print(f"    dδπ{lam + 1} − δdπ{lam + 1} = {e}")
            # (1.4): dδπ_λ − δdπ_λ = γ_νλμ dπ_μ δπ_ν with γ from the brackets of the adapted frame
            p = len(T.dpi)
            gam = sum(T.gamma[nu, lam, mu] * T.dpi[mu] * T.deltapi[nu] for nu in range(p) for mu in range(p))
            assert is_zero(e - gam), f"k = {k}: dδπ{lam + 1} − δdπ{lam + 1} must be γ_νλμ dπ_μ δπ_ν"
    return setting.transposition(0)


# vertical rolling disk: ẋ = R cos θ φ̇, ẏ = R sin θ φ̇ (free θ, φ)
disk = catalog.rolling_disk()
x, y, th, ph = disk.space.q
setting = ConstrainedSetting.from_frame(disk.frame, 2, dependent=[x, y])
T0 = show("rolling disk", setting)
B_bracket = sp.simplify(T0.B)
B_printed = sp.simplify(printed_nf_B(setting.a, setting.free, setting.dependent))
print("  B (bracket) =", B_bracket.tolist())
print("  B (1.6)     =", B_printed.tolist())
assert B_bracket == B_printed, "B from the bracket must equal Neimark–Fufaev's (1.6)"
# k = 0 (Suslov): dδx − δdx = R sin θ (dφ δθ − dθ δφ), from ẋ = R cos θ φ̇
R = next(s for s in disk.frame.C.free_symbols if s.name == "R")
d, dl = T0.d_symbols, T0.delta_symbols
assert is_zero(T0.coordinate(x, on_motion=True) - R * sp.sin(th) * (d[ph] * dl[th] - d[th] * dl[ph])), \
    "rolling disk, k = 0: dδx − δdx = R sin θ (dφ δθ − dθ δφ)"

# Chaplygin sleigh / knife edge: sin θ ẋ − cos θ ẏ = 0, π1 = forward speed, π2 = θ̇
S = ConfigurationSpace("x y theta")
x, y, th = S.q
xd, yd, thd = S.qd
sleigh = ConstrainedSetting.from_equations(S, [sp.sin(th) * xd - sp.cos(th) * yd], dependent=[y])
T0 = show("Chaplygin sleigh (π1 = cos θ ẋ + sin θ ẏ, π2 = θ̇)", sleigh,
          quasi=[sp.cos(th) * xd + sp.sin(th) * yd, thd])
# k = 0: ẏ = tan θ ẋ gives dδy − δdy = (dθ δx − dx δθ)/cos² θ
d, dl = T0.d_symbols, T0.delta_symbols
assert is_zero(T0.coordinate(y, on_motion=True) - (d[th] * dl[x] - d[x] * dl[th]) / sp.cos(th)**2), \
    "sleigh, k = 0: dδy − δdy = (dθ δx − dx δθ)/cos² θ"
