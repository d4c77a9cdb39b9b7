"""The classic error: substituting the nonholonomic constraints into T before differentiating.

For the tilted rolling disk, the plain Lagrange equations of T° = T|constraints in the free
coordinates (ψ, θ, φ) describe a different (wrong) motion; Voronets's / Chaplygin's equations
add the missing term −(∂T/∂q̇_j)° B^j_rl q̇_r, equivalently Hamel's J_α c^α_rb ω^b with
J_α = ∂T*/∂ω^α kept in the transpositional term.  On the vertical disk the missing term
vanishes and the naive equations happen to be right.
"""
import sympy as sp

from geonh import equations as E
from geonh import is_zero, models
from geonh.analysis.certificate import same_motion
from geonh.equations.hamilton import hamilton_equations


def naive(system, dependent):
    """(naive equations, Voronets's equations): the naive ones are the Lagrange equations of
    T° — Hamilton's principle with the constraints put into T before the variation."""
    return hamilton_equations(system, "naive", dependent=dependent), E.voronets(system, dependent)


# model: is the naive motion right?  (Voronets's always is)
for name, naive_is_right in (("tilted-disk", False), ("chaplygin-sleigh", False), ("vertical-disk", True)):
    model = models.get(name)
    wrong, right = naive(model.system, model.dependent)
    ref = E.lagrange(model.system)
    c_naive, c_voronets = same_motion(ref, wrong, states=2), same_motion(ref, right, states=2)
    print(f"{name}:")
    print("   naive Lagrange of T°:", c_naive)
    print("   Voronets            :", c_voronets)
    assert c_voronets.same, f"{name}: Voronets's equations must agree with Lagrange's"
    assert c_naive.same == naive_is_right, f"{name}: the naive equations should be {'right' if naive_is_right else 'wrong'}"

model = models.get("chaplygin-sleigh")
m, a, I = model.parameters
x, y, th = model.space.q
xd, yd, thd = model.space.qd
wrong, right = naive(model.system, ["y"])
print("\nChaplygin sleigh, free (x, θ): naive vs correct θ̈")
for nm, eq in (("naive", wrong), ("correct", right)):
    print(f"   {nm:8s}", models.trig_reduce(eq.rhs()[3 + 1]))
# ẇ = −m a v w/(I + m a²) with v = ẋ/cos θ, w = θ̇ on the constraint ẏ = tan θ ẋ
correct = -m * a * xd * thd / ((I + m * a**2) * sp.cos(th))
assert is_zero(right.rhs()[3 + 1] - correct), "Voronets's θ̈ must be −m a ẋ θ̇/((I + m a²) cos θ)"
assert not is_zero(wrong.rhs()[3 + 1] - correct), "the naive θ̈ should differ from the correct one"
