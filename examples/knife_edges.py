"""Knife edges: on an inclined plane (gravity) and with a prescribed rotating blade (rheonomic)."""
import sympy as sp

from geonh import equations as E
from geonh import is_zero, models
from geonh.analysis.certificate import same_motion


def closed_forms(model):
    """The known speed rates: v̇ = g sin α cos θ, ẇ = 0 on the incline; v̇ = F cos(ωt)/m for the blade."""
    p = {s.name: s for s in model.parameters}
    if model.name == "inclined-knife-edge":
        th = model.space.q[2]
        return [p["g"] * sp.sin(p["alpha"]) * sp.cos(th), 0]
    return [p["F"] * sp.cos(p["omega"] * model.space.t) / p["m"]]


for name in ("inclined-knife-edge", "rotating-knife-edge"):
    model = models.get(name)
    eq = E.boltzmann_hamel(model.system, model.frame)
    n = model.space.n
    print(f"{model.description}:")
    rates = eq.rhs()[n:, :]
    for u, e in zip(eq.u, rates):
        print(f"  d{u}/dt =", sp.simplify(e))
    want = closed_forms(model)
    assert len(rates) == len(want) and all(is_zero(e - c) for e, c in zip(rates, want)), f"{name}: rates must be {want}"
    lag = E.lagrange(model.system)
    cert = same_motion(lag, eq)
    print("  Lagrange with multipliers:", cert)
    assert cert.same, f"{name}: Boltzmann–Hamel must give the motion of Lagrange's equations"
    print("  reactions R_i = λ A_i:", [sp.simplify(r) for r in lag.reactions])
    (lam,), (A,) = lag.lam_vec, model.system.constraints.forms
    assert all(is_zero(r - lam * a) for r, a in zip(lag.reactions, A.covector)), f"{name}: reactions must be λ A_i"
