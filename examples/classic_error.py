"""The classic error: substituting the nonholonomic constraints into T before differentiating.

For the tilted rolling disk, the plain Lagrange equations of T° = T|constraints in the free
coordinates (ψ, θ, φ) describe a different (wrong) motion; Voronets's / Chaplygin's equations
add the missing term −(∂T/∂q̇_j)° B^j_rl q̇_r, equivalently Hamel's J_α c^α_rb ω^b with
J_α = ∂T*/∂ω^α kept in the transpositional term.  On the vertical disk the missing term
vanishes and the naive equations happen to be right.
"""
import sympy as sp

from geonh import equations as E
from geonh import systems
from geonh.certificate import same_motion


def naive(system, dependent):
    S = system.space
    free, dep, a, a0 = E.solve_constraints(system, dependent)
    eq = E.voronets(system, dependent)
    Kq = list(S.qd)
    for k, j in enumerate(dep):
        Kq[j] = sum((a[k, c] * S.qd[s] for c, s in enumerate(free)), a0[k])
    T0 = system.T.xreplace(dict(zip(S.qd, Kq)))          # constraints substituted first: wrong
    to_u = dict(zip([S.qd[s] for s in free], eq.u))
    res = []
    for c, l in enumerate(free):
        e = E._time_derivative(system, sp.diff(T0, S.qd[l]).xreplace(to_u), eq.kinematics, eq.u, eq.ud)
        e -= sp.diff(T0, S.q[l]).xreplace(to_u)
        e -= (system.Q[l] + sum((a[k, c] * system.Q[j] for k, j in enumerate(dep)), sp.S.Zero)).xreplace(
            dict(zip(S.qd, eq.kinematics)))
        res.append(e)
    return E.Equations("naive", system, eq.u, eq.ud, eq.kinematics, eq.speeds, res), eq


for name in ("tilted-disk", "chaplygin-sleigh", "vertical-disk"):
    model = systems.get(name)
    wrong, right = naive(model.system, model.dependent)
    ref = E.lagrange(model.system)
    print(f"{name}:")
    print("   naive Lagrange of T°:", same_motion(ref, wrong, states=2))
    print("   Voronets            :", same_motion(ref, right, states=2))

model = systems.get("chaplygin-sleigh")
wrong, right = naive(model.system, ["y"])
print("\nChaplygin sleigh, free (x, θ): naive vs correct θ̈")
for nm, eq in (("naive", wrong), ("correct", right)):
    print(f"   {nm:8s}", systems.trig_reduce(eq.rhs(symbolic=True)[3 + 1]))
