"""Neimark–Fufaev's k-family as declared (geonh.equations.frame_forms.declare_neimark_fufaev)
against the closed forms of Neimark & Fufaev 1960, eqs. (1.1) and (1.4).

For k, the d and δ fields have constant components (dq_α, δq_α) on the free coordinates and the
first k dependent ones (ρ), and V^σ = a_σs dq_s, W^σ = a_σs δq_s on the others (σ); then
dδq − δdq = [V, W] (CONVENTIONS.md) vanishes on the free coordinates and the ρ's and is
B^σ_rs dq_r δq_s on the σ's.  Every k gives the same motion, so a declaration built with the
mirrored k (k ↔ n − m − k) passes every test of the motion: these tests read the declared
fields themselves (mutation ``nf-k-mirrored`` of benchmarks/mutation_score.py).

Examples (geonh.sources.neimark_fufaev): the nonholonomic particle ż = y ẋ, and the toy
ż = y ẋ, ẇ = z ẏ (free x, y; dependent z, w).
"""
import pytest
import sympy as sp

from geonh.equations.frame_forms import declare_neimark_fufaev
from geonh.sources.neimark_fufaev import _particle_system, _toy_system


def _symbols(decl) -> dict:
    """The declaration's constant symbols by name (dx, δx, …)."""
    out = {}
    for X in (decl.V,) + tuple(decl.W):
        for c in X.components:
            out.update({s.name: s for s in sp.sympify(c).free_symbols})
    return out


def _bracket(V, W, coords):
    """[V, W]^k = V(W^k) − W(V^k) on component lists (typed in here, not geonh's)."""
    def d(X, f):
        return sum(X[i] * sp.diff(f, q) for i, q in enumerate(coords))
    return [sp.expand(d(V, W[k]) - d(W, V[k])) for k in range(len(coords))]


def _closed_toy(k, s):
    """(V, W, dδ − δd) of eq. (1.1)/(1.4) for the toy, typed in per k."""
    x, y, z, w = sp.symbols("x y z w", real=True)
    dx, dy, xx, xy = s["dx"], s["dy"], s["δx"], s["δy"]
    if k == 0:
        V, W = [dx, dy, y * dx, z * dy], [xx, xy, y * xx, z * xy]
        rel = [0, 0, dy * xx - xy * dx, y * dx * xy - y * xx * dy]
    elif k == 1:
        dz, xz = s["dz"], s["δz"]
        V, W = [dx, dy, dz, z * dy], [xx, xy, xz, z * xy]
        rel = [0, 0, 0, dz * xy - xz * dy]
    else:
        V = [dx, dy, s["dz"], s["dw"]]
        W = [xx, xy, s["δz"], s["δw"]]
        rel = [0, 0, 0, 0]
    return V, W, rel


@pytest.mark.parametrize("k", [0, 1, 2])
def test_toy_fields_and_relations_per_k(k):
    system = _toy_system()
    decl = declare_neimark_fufaev(system, k)
    s = _symbols(decl)
    V, W, rel = _closed_toy(k, s)
    assert [sp.expand(c - e) for c, e in zip(decl.V.components, V)] == [0] * 4
    assert [sp.expand(c - e) for c, e in zip(decl.W[0].components, W)] == [0] * 4
    coords = list(system.space.coords)
    assert [sp.expand(a - b) for a, b in zip(_bracket(list(decl.V.components), list(decl.W[0].components), coords),
                                             rel)] == [0] * 4


@pytest.mark.parametrize("k", [0, 1])
def test_particle_relation_per_k(k):
    # ż = y ẋ: k = 0 (Voronets): dδz − δdz = dy δx − dx δy (B^z_yx = 1 = −B^z_xy); k = 1 (Hamel): 0
    system = _particle_system()
    decl = declare_neimark_fufaev(system, k)
    s = _symbols(decl)
    coords = list(system.space.coords)
    rel = _bracket(list(decl.V.components), list(decl.W[0].components), coords)
    expected = s["dy"] * s["δx"] - s["dx"] * s["δy"] if k == 0 else 0
    assert [sp.expand(r) for r in rel] == [0, 0, sp.expand(expected)]


@pytest.mark.parametrize("system, n_dep", [(_particle_system, 1), (_toy_system, 2)])
def test_the_varied_coordinates_are_the_free_ones_and_the_first_k_dependent(system, n_dep):
    # on the motion the declaration maps δq_α → b_αl for α over free + ρ: ρ = the first k dependents
    sysm = system()
    names = [q.name for q in sysm.space.coords]
    free, dep = names[:2], names[2:]
    for k in range(n_dep + 1):
        decl = declare_neimark_fufaev(sysm, k)
        varied = {str(a)[1:] for a in decl.on_motion[0] if str(a).startswith("δ")}
        assert varied == set(free + dep[:k]), k
        assert decl.form == f"neimark-fufaev(k={k})"
