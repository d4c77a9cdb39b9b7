"""The classic error: substituting the nonholonomic constraints into T before differentiating.

For the tilted rolling disk, the plain Lagrange equations of T° = T|constraints in the free
coordinates (ψ, θ, φ) describe a different (wrong) motion; Voronets's / Chaplygin's equations
add the missing term −(∂T/∂q̇_j)° B^j_rl q̇_r, equivalently Hamel's J_α c^α_rb ω^b with
J_α = ∂T*/∂ω^α kept in the transpositional term.  On the vertical disk the missing term
vanishes and the naive equations happen to be right.
"""

from geonh import equations as E
from geonh import models
from geonh.certificate import same_motion
from geonh.equations.hamilton import hamilton_equations


def naive(system, dependent):
    """(naive equations, Voronets's equations): the naive ones are the Lagrange equations of
    T° — Hamilton's principle with the constraints put into T before the variation."""
    return hamilton_equations(system, "naive", dependent=dependent), E.voronets(system, dependent)


for name in ("tilted-disk", "chaplygin-sleigh", "vertical-disk"):
    model = models.get(name)
    wrong, right = naive(model.system, model.dependent)
    ref = E.lagrange(model.system)
    print(f"{name}:")
    print("   naive Lagrange of T°:", same_motion(ref, wrong, states=2))
    print("   Voronets            :", same_motion(ref, right, states=2))

model = models.get("chaplygin-sleigh")
wrong, right = naive(model.system, ["y"])
print("\nChaplygin sleigh, free (x, θ): naive vs correct θ̈")
for nm, eq in (("naive", wrong), ("correct", right)):
    print(f"   {nm:8s}", models.trig_reduce(eq.rhs()[3 + 1]))
