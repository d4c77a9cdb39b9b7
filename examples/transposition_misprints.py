"""Two places where the printed formulas of the seeds must be read or completed with care.

1. Hamel 1924, eq. (17): β_{i,s,m} = Σ (∂b_{m,l}/∂q_h − ∂b_{m,h}/∂q_l) c_{l,i} c_{h,s}.  In (13)
   b_{i,s} is indexed (coordinate, quasi); in (17) b_{m,l} must be read (quasi, coordinate).
2. Neimark–Fufaev 1960, eq. (1.5): γ_νλμ = b_αν b_βμ (∂a_λα/∂q_β − ∂a_λβ/∂q_α) misses the
   terms a_σβ ∂a_λα/∂q_σ when the a_λα depend on the eliminated coordinates q_σ (k < n − m).
"""
import sympy as sp

from geonh.kernel.space import ConfigurationSpace
from geonh.models import kinematic as catalog
from geonh.transposition import (
                                 ConstrainedSetting,
                                 corrected_nf_gamma,
                                 hamel_matrices,
                                 printed_hamel_beta,
                                 printed_nf_gamma,
)

# 1. Hamel (17) on the unicycle frame v = cos θ ẋ + sin θ ẏ, w = θ̇, c = sin θ ẋ − cos θ ẏ
F = catalog.unicycle().frame
b13, c13 = hamel_matrices(F)
coords = F.space.coords
bracket = F.hamel_beta().applyfunc(sp.simplify)
right = printed_hamel_beta(b13.T, c13, coords).applyfunc(sp.simplify)
wrong = printed_hamel_beta(b13, c13, coords).applyfunc(sp.simplify)
print("β from brackets           :", bracket.tolist())
print("(17), b as (quasi, coord) :", right.tolist(), "equal:", right == bracket)
print("(17), b as in (13)        :", wrong.tolist(), "equal:", wrong == bracket)
assert right == bracket, "Hamel (17) with b read (quasi, coordinate) must give β from the brackets"
assert wrong != bracket, "Hamel (17) with b indexed as in (13) should give a wrong β"

# 2. Neimark–Fufaev (1.5): ż = x ẏ, π̇1 = ẋ, π̇2 = ẏ + z ẋ, k = 0 (σ = z)
S = ConfigurationSpace("x y z")
x, y, z = S.q
xd, yd, zd = S.qd
setting = ConstrainedSetting.from_equations(S, [sp.Eq(zd, x * yd)], dependent=[z])
T = setting.transposition(0, quasi=[xd, yd + z * xd])
print("\nż = x ẏ,  π̇1 = ẋ,  π̇2 = ẏ + z ẋ,  k = 0")
rel = sp.factor(sp.expand(T.quasi()[1]))
dpi1, dpi2 = T.dpi
xpi1, xpi2 = T.deltapi
print("dδπ2 − δdπ2 from the fields    :", rel)
assert sp.expand(rel + x * (dpi1 * xpi2 - dpi2 * xpi1)) == 0, "dδπ2 − δdπ2 must be −x (dπ1 δπ2 − dπ2 δπ1)"
gamma = sp.simplify(T.gamma)
printed = sp.simplify(printed_nf_gamma(T.a, T.q_lambda))
corrected = sp.simplify(corrected_nf_gamma(T.a, T.q_lambda, T.a_sigma, T.q_sigma))
print("γ[ν, λ, μ] from brackets       :", gamma.tolist())
print("γ printed (1.5)                :", printed.tolist())
print("γ corrected (D_β = ∂_β + a_σβ ∂_σ):", corrected.tolist())
assert printed != gamma, "(1.5) as printed should miss the terms a_σβ ∂a_λα/∂q_σ here"
assert corrected == gamma, "(1.5) with D_β = ∂_β + a_σβ ∂_σ must give γ from the brackets"
