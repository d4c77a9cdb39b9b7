"""Hypothesis strategies for random constrained settings (re-exported by geonh.testing.strategies).

Entries are small sums of polynomial and trigonometric terms in the coordinates (the dependent
ones included, which is where Neimark–Fufaev's printed (1.5) fails), so that symbolic work stays
fast on n ≤ 4 coordinates.
"""
from __future__ import annotations

import sympy as sp
from hypothesis import strategies as st

from ..kernel.frames import Frame
from ..kernel.fields import VectorField
from ..kernel.forms import OneForm
from ..kernel.space import ConfigurationSpace
from ..transposition.relations import ConstrainedSetting
from ..kernel.parsing import sympy_of

__all__ = [
    "coefficient_expressions",
    "constrained_settings",
    "holonomic_settings",
    "quasi_velocity_matrices",
    "transposition_cases",
    "hamel_frames",
]

_COEF = st.sampled_from([-2, -1, 1, 2, sp.Rational(1, 2), sp.Rational(-3, 2)])


@st.composite
def _term(draw, coords):
    c = draw(_COEF)
    i = draw(st.sampled_from(coords))
    j = draw(st.sampled_from(coords))
    kind = draw(st.sampled_from(["const", "lin", "quad", "sin", "cos", "qcos"]))
    if kind == "const":
        return sympy_of(c)
    if kind == "lin":
        return c * i
    if kind == "quad":
        return c * i * j
    if kind == "sin":
        return c * sp.sin(i)
    if kind == "cos":
        return c * sp.cos(i)
    return c * i * sp.cos(j)


@st.composite
def coefficient_expressions(draw, coords, zero_probability: float = 0.25, max_terms: int = 2):
    """A random coefficient: 0 (with some probability) or a sum of 1..max_terms terms
    c, c q_i, c q_i q_j, c sin q_i, c cos q_i, c q_i cos q_j."""
    coords = list(coords)
    if draw(st.floats(0, 1)) < zero_probability:
        return sp.S.Zero
    n = draw(st.integers(1, max_terms))
    return sp.Add(*[draw(_term(coords)) for _ in range(n)])


@st.composite
def quasi_velocity_matrices(draw, coords, m: int):
    """An m × m matrix invertible at the generic point: a row-permuted triangular matrix with
    non-vanishing diagonal (1, 2, 1 + q², 2 + cos q) and random entries below it."""
    coords = list(coords)
    M = sp.zeros(m, m)
    for r in range(m):
        q = draw(st.sampled_from(coords))
        M[r, r] = draw(st.sampled_from([sp.S.One, sp.Integer(2), 1 + q**2, 2 + sp.cos(q)]))
        for s in range(r):
            M[r, s] = draw(coefficient_expressions(coords, zero_probability=0.5, max_terms=1))
    perm = draw(st.permutations(list(range(m))))
    return M.extract(list(perm), list(range(m)))


@st.composite
def constrained_settings(draw, min_n: int = 2, max_n: int = 4, rheonomic: bool | None = False,
                         max_terms: int = 2):
    """A random ConstrainedSetting: n coordinates q1..qn, m free (1 ≤ m < n), the dependent
    coordinates a random subset in random order, random a_js depending on every coordinate
    (and on t when rheonomic), random affine terms when rheonomic (``None``: either)."""
    n = draw(st.integers(min_n, max_n))
    m = draw(st.integers(1, n - 1))
    if rheonomic is None:
        rheonomic = draw(st.booleans())
    S = ConfigurationSpace([f"q{i + 1}" for i in range(n)], time=bool(rheonomic))
    dep_idx = draw(st.permutations(list(range(n))))[: n - m]
    dep = [S.q[i] for i in dep_idx]
    coords = list(S.coords)
    a = sp.Matrix(n - m, m, lambda j, s: draw(coefficient_expressions(coords, max_terms=max_terms)))
    aff = None
    if rheonomic:
        aff = [draw(coefficient_expressions(coords, max_terms=max_terms)) for _ in range(n - m)]
    return ConstrainedSetting(S, dep, a, aff)


@st.composite
def holonomic_settings(draw, min_n: int = 2, max_n: int = 4):
    """Integrable constraints g_j(q) = q_j + f_j(q) = const, solved for the dependent velocities
    by implicit differentiation: a = −(∂g/∂q_dep)⁻¹ ∂g/∂q_free (a depends on q_dep too)."""
    n = draw(st.integers(min_n, max_n))
    m = draw(st.integers(1, n - 1))
    S = ConfigurationSpace([f"q{i + 1}" for i in range(n)])
    dep_idx = sorted(draw(st.permutations(list(range(n))))[: n - m])
    dep = [S.q[i] for i in dep_idx]
    free = [q for q in S.q if q not in dep]
    g = [q + draw(coefficient_expressions(S.q, zero_probability=0.1, max_terms=1)) * sp.Rational(1, 3)
         for q in dep]
    Jd = sp.Matrix(len(dep), len(dep), lambda i, j: sp.diff(g[i], dep[j]))
    Jf = sp.Matrix(len(dep), len(free), lambda i, j: sp.diff(g[i], free[j]))
    a = -(Jd.adjugate(method="berkowitz") / Jd.det(method="berkowitz")) * Jf
    return ConstrainedSetting(S, dep, a)


@st.composite
def transposition_cases(draw, min_n: int = 2, max_n: int = 4, rheonomic: bool | None = False):
    """(setting, k, quasi): a random setting, a random 0 ≤ k ≤ n − m and a random free
    quasi-velocity matrix a_rs."""
    setting = draw(constrained_settings(min_n=min_n, max_n=max_n, rheonomic=rheonomic))
    k = draw(st.integers(0, setting.n - setting.m))
    quasi = draw(quasi_velocity_matrices(setting.space.coords, setting.m))
    return setting, k, quasi


@st.composite
def hamel_frames(draw, min_dim: int = 2, max_dim: int = 4):
    """A random frame from a random coframe B = P·(triangular, non-vanishing diagonal)."""
    n = draw(st.integers(min_dim, max_dim))
    S = ConfigurationSpace([f"q{i + 1}" for i in range(n)])
    B = draw(quasi_velocity_matrices(S.q, n))
    # C = adj(B)/det(B): flat expressions keep the comparisons cheap
    C = B.adjugate(method="berkowitz") / B.det(method="berkowitz")
    return Frame([VectorField(S, list(C[:, a])) for a in range(n)],
                 coframe=[OneForm(S, list(B[r, :])) for r in range(n)])
