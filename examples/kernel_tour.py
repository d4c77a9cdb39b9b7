"""A tour of the geometric kernel: frames, structure coefficients, growth vectors, integrability.

Run:  python examples/kernel_tour.py
"""
import sympy as sp

from geonh import Codistribution, ConfigurationSpace, OneForm, bracket, models
from geonh.models import kinematic as catalog
from geonh.kernel.generic_point import is_zero


def nonzero_coefficients(frame):
    c = frame.structure_coefficients()
    n = frame.dim
    out = []
    for a in range(n):
        for b in range(a + 1, n):
            for d in range(n):
                v = c[d, a, b]
                if not is_zero(v):
                    out.append(f"c^{frame.names[d]}_({frame.names[a]},{frame.names[b]}) = {sp.simplify(v)}")
    return out


def main():
    print("== Structure coefficients [X_a, X_b] = c^d_ab X_d ==")
    for name in ("unicycle", "heisenberg", "rolling-disk", "rigid-body"):
        m = models.get(name)
        print(f"{name}: " + "; ".join(nonzero_coefficients(m.frame)))

    print("\n== Rigid body: c^d_ab = epsilon_abd ==")
    c = catalog.rigid_body().frame.structure_coefficients()
    ok = all(is_zero(c[d, a, b] - sp.LeviCivita(a, b, d))
             for a in range(3) for b in range(3) for d in range(3))
    print("Levi-Civita structure:", ok)

    print("\n== Growth vectors of the admissible distributions ==")
    for name in ("unicycle", "rolling-disk", "1-trailer", "2-trailer", "3-trailer"):
        m = models.get(name)
        print(f"{name:>12}: {m.distribution.growth_vector()}  (dim {m.space.dim})")

    print("\n== Integrability of constraints ==")
    S = ConfigurationSpace("x y z")
    x, y, z = S.q
    examples = {
        "dz - y dx": [OneForm(S, [-y, 0, 1])],
        "y dx - x dy, z dx + x dz": [OneForm(S, [y, -x, 0]), OneForm(S, [z, 0, x])],
    }
    for label, forms in examples.items():
        print(f"{label}: {Codistribution(forms).verdict()}")
    print(f"rolling disk: {catalog.rolling_disk().constraints.verdict()}")

    print("\n== Heisenberg: [X1, X2] = X3 ==")
    X1, X2, X3 = catalog.heisenberg().frame.fields
    print(f"[{X1}, {X2}] = {bracket(X1, X2)}; equals X3: {bracket(X1, X2).equals(X3)}")


if __name__ == "__main__":
    main()
