"""The printed closed forms of the seeds, evaluated literally, for comparison with the brackets.

geonh computes every transpositional coefficient from brackets
(:class:`~geonh.transposition.TranspositionalRelations`); the functions here type in the
formulas as printed — Hamel 1924, eq. (17); Neimark–Fufaev 1960, eqs. (1.5), (1.6) — and a
corrected (1.5), so that tests and docs can show where the print agrees and where it is
misprinted or incomplete (docs/transposition.md § 8).
"""
from __future__ import annotations

from typing import Sequence

import sympy as sp

from ..errors import DimensionError, SingularMapError
from ..kernel.frames import Frame
from ..kernel.generic_point import generic_rank, inverse
from ..kernel.parsing import as_matrix, as_symbols

__all__ = ["hamel_matrices", "printed_hamel_beta", "printed_nf_gamma", "corrected_nf_gamma", "printed_nf_B"]


def hamel_matrices(frame: Frame) -> tuple[sp.Matrix, sp.Matrix]:
    """Hamel's matrices of eq. (13): ω_s = Σ_i b_{i,s} q̇_i and q̇_s = Σ_i c_{s,i} ω_i, i.e.
    b = Bᵀ (rows coordinates, columns quasi) and c = C (rows coordinates, columns quasi)."""
    return frame.B.T, frame.C


def printed_hamel_beta(b, c, coords: Sequence[sp.Symbol]) -> sp.Array:
    """Hamel 1924, eq. (17), evaluated literally:

        β_{i,s,m} = Σ_{h,l} (∂b_{m,l}/∂q_h − ∂b_{m,h}/∂q_l) c_{l,i} c_{h,s}.

    Returns β[i, s, m].  Correct only if ``b`` is indexed (quasi, coordinate), i.e. b = B, the
    transpose of the b of eq. (13); then β_{i,s,m} = c^m_is (CONVENTIONS.md).  Passing the
    b of (13) (:func:`hamel_matrices`) reproduces the misreading.
    """
    b = as_matrix(b, what="b")
    c = as_matrix(c, what="c")
    coords = as_symbols(coords, what="coordinates")
    n = len(coords)
    if b.shape != (n, n) or c.shape != (n, n):
        raise DimensionError(f"b and c must be {n} x {n} for {n} coordinates")
    out = [[[sp.S.Zero] * n for _ in range(n)] for _ in range(n)]
    for mm in range(n):
        K = sp.Matrix(n, n, lambda l, h: sp.diff(b[mm, l], coords[h]) - sp.diff(b[mm, h], coords[l]))
        if all(e == 0 for e in K):
            continue
        G = c.T * K * c
        for i in range(n):
            for s in range(n):
                out[i][s][mm] = G[i, s]
    return sp.Array(out)


def printed_nf_gamma(a, q: Sequence[sp.Symbol]) -> sp.Array:
    """Neimark–Fufaev 1960, eq. (1.5), evaluated literally:

        γ_νλμ = b_αν b_βμ (∂a_λα/∂q_β − ∂a_λβ/∂q_α),   b_αλ a_λβ = δ_αβ.

    ``a`` is the (m+k) × (m+k) matrix of π̇_λ = a_λα q̇_α over the coordinates ``q``.  Returns
    γ[ν, λ, μ].  Complete only if the a_λα do not depend on the q_σ; see
    :func:`corrected_nf_gamma`.
    """
    return corrected_nf_gamma(a, q, None, ())


def corrected_nf_gamma(a, q: Sequence[sp.Symbol], a_sigma, q_sigma: Sequence[sp.Symbol]) -> sp.Array:
    """The general form of Neimark–Fufaev's (1.5) (corrected):

        γ_νλμ = b_αν b_βμ (D_β a_λα − D_α a_λβ),   D_β = ∂/∂q_β + a_σβ ∂/∂q_σ,

    with a_σβ the coefficients of dq_σ = a_σs dq_s (``a_sigma``, rows ``q_sigma``, columns
    ``q``; a_σρ = 0, and with time as the last of ``q`` the column a_σt = a_σ).  For
    ``a_sigma=None`` this is the printed (1.5).  Returns γ[ν, λ, μ].
    """
    a = as_matrix(a, what="a")
    q = as_symbols(q, what="coordinates q")
    q_sigma = as_symbols(q_sigma, what="coordinates q_sigma")
    p = len(q)
    if a.shape != (p, p):
        raise DimensionError(f"a must be {p} x {p} for {p} coordinates, got {a.shape}")
    ns = len(q_sigma)
    if a_sigma is not None:
        a_sigma = as_matrix(a_sigma, what="a_sigma")
        if a_sigma.shape != (ns, p):
            raise DimensionError(f"a_sigma must be {ns} x {p}, got {a_sigma.shape}")
    rk = generic_rank(a)
    if rk < p:
        raise SingularMapError(f"the quasi-velocity matrix a_λα is singular (rank {rk} < {p})")
    b = inverse(a, "quasi-velocity matrix a_λα")

    def D(f, beta):
        out = sp.diff(f, q[beta])
        if a_sigma is not None:
            for i, qs in enumerate(q_sigma):
                if a_sigma[i, beta] != 0:
                    out += a_sigma[i, beta] * sp.diff(f, qs)
        return out

    out = [[[sp.S.Zero] * p for _ in range(p)] for _ in range(p)]
    for lam in range(p):
        K = sp.Matrix(p, p, lambda al, be: D(a[lam, al], be) - D(a[lam, be], al))
        if all(e == 0 for e in K):
            continue
        G = b.T * K * b
        for nu in range(p):
            for mu in range(p):
                out[nu][lam][mu] = G[nu, mu]
    return sp.Array(out)


def printed_nf_B(a, q_free: Sequence[sp.Symbol], q_dep: Sequence[sp.Symbol], k: int = 0) -> sp.Array:
    """Neimark–Fufaev 1960, eq. (1.6), evaluated literally:

        B^σ_rs = ∂a_σs/∂q_r + ∂a_σs/∂q_j a_jr − ∂a_σr/∂q_s − ∂a_σr/∂q_j a_js,

    j over all dependent coordinates ``q_dep``, σ over ``q_dep[k:]``; ``a`` is the
    (n − m) × m matrix a_js (rows ``q_dep``, columns ``q_free``).  Rheonomic extension: put
    time last in ``q_free`` and the affine terms a_j as its column (a_jt = a_j).
    Returns B[σ, r, s].
    """
    a = as_matrix(a, what="a")
    q_free = as_symbols(q_free, what="free coordinates")
    q_dep = as_symbols(q_dep, what="dependent coordinates")
    m = len(q_free)
    nd = len(q_dep)
    if a.shape != (nd, m):
        raise DimensionError(f"a must be {nd} x {m}, got {a.shape}")
    if not 0 <= k <= nd:
        raise DimensionError(f"k must satisfy 0 ≤ k ≤ {nd}, got {k}")

    def D(f, r):
        out = sp.diff(f, q_free[r])
        for j, qj in enumerate(q_dep):
            if a[j, r] != 0:
                out += sp.diff(f, qj) * a[j, r]
        return out

    out = []
    for sg in range(k, nd):
        out.append([[D(a[sg, s], r) - D(a[sg, r], s) for s in range(m)] for r in range(m)])
    return sp.Array(out) if out else sp.Array([], (0, m, m))
