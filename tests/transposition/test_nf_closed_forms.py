"""The coefficients of the transpositional relations against closed forms typed in from
Neimark & Fufaev 1960, eq. (1.4) (fast; close to geonh.transposition.relations):

    dδq_σ − δdq_σ = B^σ_rs dq_r δq_s,        dδπ_λ − δdπ_λ = γ_νλμ dπ_μ δπ_ν.

Toy ż = y ẋ, ẇ = z ẏ, k = 0 (σ = z, w): dδz − δdz = dy δx − dx δy, dδw − δdw = y (dx δy − dy δx)
(a_wy = z, and δz = y δx on the motion): B^z_xy = −1, B^z_yx = 1, B^w_xy = y, B^w_yx = −y.
Particle ż = y ẋ, k = 1, π_3 with π̇_3 = y ẋ − ż: dδπ_3 − δdπ_3 = d(y δx − δz) − δ(y dx − dz)
= dy δx − δy dx, so γ_132 = 1, γ_231 = −1, every other γ zero.

Mutation guards: ``B-transpose``, ``gamma-index-order``, ``quasi-relation-sign`` of
benchmarks/mutation_score.py.
"""
import sympy as sp

from geonh.sources.neimark_fufaev import _particle_setting, _toy_setting


def test_B_of_the_toy_k0():
    T = _toy_setting().transposition(0)
    y = T.space.q[1]
    B = T.B
    assert B.shape == (2, 2, 2)
    assert [[B[0, r, s] for s in range(2)] for r in range(2)] == [[0, -1], [1, 0]]
    assert [[sp.expand(B[1, r, s]) for s in range(2)] for r in range(2)] == [[0, y], [-y, 0]]


def test_quasi_relation_of_the_particle_k1():
    T = _particle_setting().transposition(1)
    d1, d2, _ = T.dpi
    x1, x2, _ = T.deltapi
    assert [sp.expand(e) for e in T.quasi()] == [0, 0, sp.expand(d2 * x1 - d1 * x2)]


def test_gamma_of_the_particle_k1():
    g = _particle_setting().transposition(1).gamma
    nonzero = {(nu, lam, mu): g[nu, lam, mu] for nu in range(3) for lam in range(3) for mu in range(3)
               if g[nu, lam, mu] != 0}
    assert nonzero == {(0, 2, 1): 1, (1, 2, 0): -1}
