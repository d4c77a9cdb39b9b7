"""A tour of the geometric kernel: frames, structure coefficients, growth vectors, integrability.

Run:  python examples/kernel_tour.py
"""
import sympy as sp

from geonh import Codistribution, ConfigurationSpace, OneForm, bracket, models
from geonh.kernel.generic_point import is_zero
from geonh.models import kinematic as catalog


def nonzero_coefficients(frame):
    """{(d, a, b): c^d_ab} for a < b, nonzero ones only (names of the frame's fields)."""
    c = frame.structure_coefficients()
    n = frame.dim
    out = {}
    for a in range(n):
        for b in range(a + 1, n):
            for d in range(n):
                v = c[d, a, b]
                if not is_zero(v):
                    out[frame.names[d], frame.names[a], frame.names[b]] = sp.simplify(v)
    return out


def main():
    print("== Structure coefficients [X_a, X_b] = c^d_ab X_d ==")
    symbols = {s.name: s for s in models.get("rolling-disk").frame.C.free_symbols}
    R, th = symbols["R"], symbols["theta"]
    expected = {"unicycle": {("c", "v", "w"): 1, ("v", "w", "c"): 1},
                "heisenberg": {("c", "u1", "u2"): 1},
                "rolling-disk": {("c_x", "w_theta", "w_phi"): -R * sp.sin(th), ("c_y", "w_theta", "w_phi"): R * sp.cos(th)},
                "rigid-body": {("Omega3", "Omega1", "Omega2"): 1, ("Omega2", "Omega1", "Omega3"): -1,
                               ("Omega1", "Omega2", "Omega3"): 1}}
    for name, want in expected.items():
        got = nonzero_coefficients(models.get(name).frame)
        print(f"{name}: " + "; ".join(f"c^{d}_({a},{b}) = {v}" for (d, a, b), v in got.items()))
        assert got.keys() == want.keys() and all(is_zero(got[k] - want[k]) for k in want), \
            f"{name}: structure coefficients differ from {want}"

    print("\n== Rigid body: c^d_ab = epsilon_abd ==")
    c = catalog.rigid_body().frame.structure_coefficients()
    ok = all(is_zero(c[d, a, b] - sp.LeviCivita(a, b, d))
             for a in range(3) for b in range(3) for d in range(3))
    print("Levi-Civita structure:", ok)
    assert ok, "body angular velocities must have c^d_ab = ε_abd (CONVENTIONS.md)"

    print("\n== Growth vectors of the admissible distributions ==")
    growth = {"unicycle": (2, 3), "rolling-disk": (2, 3, 4), "1-trailer": (2, 3, 4), "2-trailer": (2, 3, 4, 5),
              "3-trailer": (2, 3, 4, 5, 6)}
    for name, want in growth.items():
        m = models.get(name)
        gv = m.distribution.growth_vector()
        print(f"{name:>12}: {gv}  (dim {m.space.dim})")
        assert tuple(gv) == want and gv[-1] == m.space.dim, f"{name}: growth vector {gv}, expected {want} (bracket generating)"

    print("\n== Integrability of constraints ==")
    S = ConfigurationSpace("x y z")
    x, y, z = S.q
    examples = {
        "dz - y dx": ([OneForm(S, [-y, 0, 1])], False),
        "y dx - x dy, z dx + x dz": ([OneForm(S, [y, -x, 0]), OneForm(S, [z, 0, x])], True),
    }
    for label, (forms, integrable) in examples.items():
        verdict = Codistribution(forms).verdict()
        print(f"{label}: {verdict}")
        assert verdict.integrable == integrable, f"{label}: integrable should be {integrable}"
        if integrable:  # each first integral f has df in the span of the forms: det(df; θ1; θ2) = 0
            assert verdict.first_integrals, f"{label}: first integrals expected"
            for f in verdict.first_integrals:
                rows = [[sp.diff(f, q) for q in S.q]] + [list(th.covector) for th in forms]
                assert is_zero(sp.Matrix(rows).det()), f"{label}: {f} is not a first integral"
    verdict = catalog.rolling_disk().constraints.verdict()
    print(f"rolling disk: {verdict}")
    assert not verdict.integrable, "the rolling disk is nonholonomic"

    print("\n== Heisenberg: [X1, X2] = X3 ==")
    X1, X2, X3 = catalog.heisenberg().frame.fields
    print(f"[{X1}, {X2}] = {bracket(X1, X2)}; equals X3: {bracket(X1, X2).equals(X3)}")
    assert bracket(X1, X2).equals(X3), "Heisenberg frame: [X1, X2] must be X3"


if __name__ == "__main__":
    main()
