"""Knife edges: on an inclined plane (gravity) and with a prescribed rotating blade (rheonomic)."""
import sympy as sp

from geonh import equations as E
from geonh import models
from geonh.certificate import same_motion

for name in ("inclined-knife-edge", "rotating-knife-edge"):
    model = models.get(name)
    eq = E.boltzmann_hamel(model.system, model.frame)
    n = model.space.n
    print(f"{model.description}:")
    for u, e in zip(eq.u, eq.rhs()[n:, :]):
        print(f"  d{u}/dt =", sp.simplify(e))
    print("  Lagrange with multipliers:", same_motion(E.lagrange(model.system), eq))
    lag = E.lagrange(model.system)
    print("  reactions R_i = λ A_i:", [sp.simplify(r) for r in lag.reactions])
