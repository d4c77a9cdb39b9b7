"""Seed 001, example 3.1: x1 + x2 = 0, ẋ1 + ẋ2 + x3 = 0 hide x3 = 0. The raw set is refused
(a pseudo-inverse gives the wrong motion); the full-rank set keeps both original constraints."""
import numpy as np
import sympy as sp

from geonh.systems.constraint_analysis import analyze_constraints

from geonh.models.seeds import aumann_example_31
from geonh.errors import RankError
from geonh.systems.gauss import FreeSystem, GaussSystem
from geonh.equations import udwadia_kalaba
from geonh.numerics import simulate

S, cons = aumann_example_31()
x1, x2, x3 = S.q
v1, v2, v3 = S.qd
rep = analyze_constraints(S, cons)
print(rep.explain())
free = FreeSystem(S, [-x1 + v2, 1 - x2, sp.Rational(1, 2) - x3 * x1], (2 * v1 ** 2 + v2 ** 2 + 3 * v3 ** 2) / 2)
try:
    GaussSystem(free, cons)
except RankError as e:
    print("refused:", str(e)[:160], "...")
state = {x1: sp.Rational(3, 10), x2: -sp.Rational(3, 10), x3: 0, v1: sp.Rational(1, 2), v2: -sp.Rational(1, 2), v3: 0}
raw = GaussSystem(free, cons, allow_rank_deficient=True)
print("pseudo-inverse ẍ3 =", sp.N(raw.accelerations_at(state, allow_rank_deficient=True)[2], 6), "(x3 leaves 0: wrong)")
gs = GaussSystem.regularized(free, cons)
sol = simulate(udwadia_kalaba(gs), [0.3, -0.3, 0.0, 0.5, -0.5, 0.0], (0.0, 3.0), {})
X1, X2, X3, V1, V2, V3 = sol.y
print(f"full-rank set: max|x1 + x2| = {np.max(np.abs(X1 + X2)):.1e}, max|ẋ1 + ẋ2 + x3| = {np.max(np.abs(V1 + V2 + X3)):.1e}")
