"""Vertical rolling disk with steering and driving torques: I θ̈ = τ_θ, (J + m R²) φ̈ = τ_φ.

Also shows that on this system the classic error (constraints substituted into T before
differentiating) happens to give the right equations, while on the tilted disk it does not:
see examples/classic_error.py.
"""
import sympy as sp

from geonh import equations as E
from geonh.models import mechanical
from geonh.certificate import same_motion

model = mechanical.vertical_rolling_disk(torques=True)
eq = E.chaplygin(model.system, ["x", "y"])
print("Chaplygin's equations (free θ, φ):")
for u, e in zip(eq.u, eq.rhs()[4:, :]):
    print(f"  d{u}/dt =", sp.simplify(e))
lag = E.lagrange(model.system)
print("multipliers (rolling reactions):")
sol = lag.mass_matrix.LUsolve(lag.forcing)
for lam, r in zip(lag.lam_vec, sol[len(lag.ud):, :]):
    print(f"  {lam} =", sp.simplify(r))
for form in ("boltzmann-hamel", "maggi", "gibbs-appell", "kane", "voronets", "tzenoff-I"):
    print(f"  {form:16s}", same_motion(lag, model.equations(form)))
