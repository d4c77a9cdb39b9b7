"""Vertical rolling disk with steering and driving torques: I θ̈ = τ_θ, (J + m R²) φ̈ = τ_φ.

Also shows that on this system the classic error (constraints substituted into T before
differentiating) happens to give the right equations, while on the tilted disk it does not:
see examples/classic_error.py.
"""
import sympy as sp

from geonh import equations as E
from geonh import is_zero
from geonh.analysis.certificate import same_motion
from geonh.equations.hamilton import hamilton_equations
from geonh.models import mechanical

model = mechanical.vertical_rolling_disk(torques=True)
m, I, J, R, tau_th, tau_ph = model.parameters
x, y, th, ph = model.space.q
xd, yd, thd, phd = model.space.qd
eq = E.chaplygin(model.system, ["x", "y"])
print("Chaplygin's equations (free θ, φ):")
rates = eq.rhs()[4:, :]
for u, e in zip(eq.u, rates):
    print(f"  d{u}/dt =", sp.simplify(e))
assert is_zero(rates[0] - tau_th / I) and is_zero(rates[1] - tau_ph / (J + m * R**2)), \
    "θ̈ = τ_θ/I and φ̈ = τ_φ/(J + m R²)"
lag = E.lagrange(model.system)
print("multipliers (rolling reactions):")
sol = lag.mass_matrix.LUsolve(lag.forcing)
for lam, r in zip(lag.lam_vec, sol[len(lag.ud):, :]):
    print(f"  {lam} =", sp.simplify(r))
# the constraints are ẋ − R cos θ φ̇ = 0, ẏ − R sin θ φ̇ = 0, so λ1 = m ẍ and λ2 = m ÿ along the motion
phdd = tau_ph / (J + m * R**2)
xdd = R * (sp.cos(th) * phdd - sp.sin(th) * thd * phd)
ydd = R * (sp.sin(th) * phdd + sp.cos(th) * thd * phd)
assert is_zero(sol[len(lag.ud)] - m * xdd) and is_zero(sol[len(lag.ud) + 1] - m * ydd), "λ1 = m ẍ, λ2 = m ÿ"
for form in ("boltzmann-hamel", "maggi", "gibbs-appell", "kane", "voronets", "tzenoff-I"):
    cert = same_motion(lag, model.equations(form))
    print(f"  {form:16s}", cert)
    assert cert.same, f"{form} must give the motion of Lagrange's equations"
cert = same_motion(lag, hamilton_equations(model.system, "naive", dependent=["x", "y"]))
print(f"  {'naive (T°)':16s}", cert)
assert cert.same, "on the vertical disk the naive Lagrange equations of T° happen to be right"
