"""Seed 001, example 3.1: x1 + x2 = 0, ẋ1 + ẋ2 + x3 = 0 hide x3 = 0. The raw set is refused
(a pseudo-inverse gives the wrong motion); the full-rank set keeps both original constraints."""
import numpy as np
import sympy as sp

from geonh.equations import udwadia_kalaba
from geonh.errors import RankError
from geonh.models.seeds import aumann_example_31
from geonh.numerics import simulate
from geonh.systems.constraint_analysis import analyze_constraints
from geonh.systems.gauss import FreeSystem, GaussSystem

S, cons = aumann_example_31()
x1, x2, x3 = S.q
v1, v2, v3 = S.qd
rep = analyze_constraints(S, cons)
print(rep.explain())
assert not rep.full_rank, "the raw set (4) is rank deficient"
assert [sp.expand(h) for h in rep.hidden] in ([x3], [-x3]), "the hidden holonomic constraint x3 = 0 must be found"
free = FreeSystem(S, [-x1 + v2, 1 - x2, sp.Rational(1, 2) - x3 * x1], (2 * v1 ** 2 + v2 ** 2 + 3 * v3 ** 2) / 2)
refused = False
try:
    GaussSystem(free, cons)
except RankError as e:
    refused = True
    print("refused:", str(e)[:160], "...")
assert refused, "GaussSystem must refuse the rank-deficient raw set"
state = {x1: sp.Rational(3, 10), x2: -sp.Rational(3, 10), x3: 0, v1: sp.Rational(1, 2), v2: -sp.Rational(1, 2), v3: 0}
raw = GaussSystem(free, cons, allow_rank_deficient=True)
x3dd_raw = raw.accelerations_at(state, allow_rank_deficient=True)[2]
print("pseudo-inverse ẍ3 =", sp.N(x3dd_raw, 6), "(x3 leaves 0: wrong)")
assert abs(x3dd_raw) > 0.1, "the pseudo-inverse should push x3 off 0"
gs = GaussSystem.regularized(free, cons)
x3dd = gs.accelerations_at(state)[2]
print("full-rank set     ẍ3 =", sp.N(x3dd, 6))
assert abs(x3dd) < 1e-12, "with the full-rank set x3 stays at 0"
sol = simulate(udwadia_kalaba(gs), [0.3, -0.3, 0.0, 0.5, -0.5, 0.0], (0.0, 3.0), {})
X1, X2, X3, V1, V2, V3 = sol.y
drift1, drift2 = np.max(np.abs(X1 + X2)), np.max(np.abs(V1 + V2 + X3))
print(f"full-rank set: max|x1 + x2| = {drift1:.1e}, max|ẋ1 + ẋ2 + x3| = {drift2:.1e}")
assert drift1 < 1e-9 and drift2 < 1e-9, "the full-rank set must keep both original constraints"
