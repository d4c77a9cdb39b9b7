"""Rigid body in body angular velocities: Hamel's β_ism = ε_ism (CONVENTIONS.md).

No constraints (m = n = 3, k = 0 = n − m): d and δ commute on the Euler angles and the
transpositional relations of the quasi-coordinates are dδπ_m − δdπ_m = ε_ism δπ_i dπ_s,
the sign that gives Euler's equations I Ω̇ + Ω × I Ω = M.
"""
import sympy as sp

from geonh.models import kinematic as catalog
from geonh.transposition import ConstrainedSetting, hamel_matrices, printed_hamel_beta

model = catalog.rigid_body()
T = ConstrainedSetting.from_frame(model.frame, 3).transposition(0)
beta = T.beta.applyfunc(sp.simplify)
eps = sp.Array([[[sp.LeviCivita(i, s, m) for m in range(3)] for s in range(3)] for i in range(3)])
print("β[i, s, m] from brackets:", beta.tolist())
print("β == ε:", beta == eps)
assert beta == eps, "Hamel's β_ism must be ε_ism for body angular velocities"
for m, e in enumerate(T.quasi()):
    print(f"dδπ{m + 1} − δdπ{m + 1} =", sp.simplify(sp.expand(e)))
    expected = sum(sp.LeviCivita(i, s, m) * T.deltapi[i] * T.dpi[s] for i in range(3) for s in range(3))
    assert sp.expand(sp.simplify(sp.expand(e)) - expected) == 0, f"dδπ{m + 1} − δdπ{m + 1} must be ε_ism δπ_i dπ_s"
coords = [sp.simplify(c) for c in T.coordinates()]
print("dδq − δdq on the Euler angles:", coords)
assert coords == [0, 0, 0], "k = 0 = n − m: d and δ commute on the Euler angles"

b13, c13 = hamel_matrices(model.frame)
ok = printed_hamel_beta(b13.T, c13, model.space.coords).applyfunc(sp.simplify)
print("Hamel (17), b read (quasi, coordinate):", ok == eps)
assert ok == eps, "Hamel (17) with b read (quasi, coordinate) must give ε"
