"""Invariant measures and Chaplygin's reducing multiplier of Chaplygin systems.

A Chaplygin system (:func:`~geonh.equations.chaplygin`) closes in its shape coordinates r and
their rates u = ṙ:  M(r) u̇ = F(r, u), ṙ = u.  Two questions follow (Chaplygin 1911; Fedorov
& Jovanović 2004, J. Nonlinear Sci. 14, 341; Bloch, *Nonholonomic Mechanics and Control*,
§ 5.8):

**Invariant measure.**  Is there a density ρ(r) with div(ρ X) = 0 for the reduced field
X = (u, M⁻¹F) on (r, u)?  Since ρ does not depend on u,

    div(ρ X) = ρ (u · ∇log ρ + Σ_a ∂x_a/∂u_a),   x = M⁻¹F,

so the divergence D = Σ_a ∂x_a/∂u_a must be linear in u, D = Σ_a D_a(r) u_a, and then
ρ = exp(g) with dg = −Σ D_a dr_a, which exists iff that one-form is closed.  (Measured in
(r, p), p = M u, the density is ρ / det M.)

**Reducing multiplier (two degrees of freedom).**  With p = M u, the Hamiltonian
H(r, p) = ½ pᵀM⁻¹p + V(r) and the non-Hamiltonian (gyroscopic) part of the reduced equations
F_nh = ṗ − ½ uᵀ(∂_r M)u − Q* (Q* = −∂V* the reduced potential forces; u·F_nh = 0 by energy
conservation), the time change dτ = N(r) dt and the momenta p̃ = N p make the equations
Hamiltonian, dr/dτ = ∂H̃/∂p̃, dp̃/dτ = −∂H̃/∂r with H̃(r, p̃) = H(r, p̃/N), exactly when

    F_nh = (∇ log N)(p·u) − ((∇ log N)·u) p,

which this module solves for ∇ log N (linear in it: the coefficients of the velocity
monomials) and integrates.  Nothing is assumed: every step is checked at the generic point
(the form of D, closedness, the identity above with the N found), and a system without
such a density or multiplier gets :class:`~geonh.errors.NotFoundError` saying which step
fails.  By Chaplygin's theorem N exists for m = 2 whenever an invariant measure does; the
tests check the relation on examples rather than assume it.
"""
from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations
from typing import Mapping, Sequence

import mpmath
import sympy as sp

from ..errors import (DimensionError, InconsistentStateError, NotAdaptedError, NotFoundError, ParseError, SingularMapError,
                      UnknownCoordinateError)
from ..kernel import backend
from ..kernel.distributions import potential
from ..kernel.evaluation import native_values, precision, real_value
from ..kernel.fields import VectorField
from ..kernel.trig import shorten_trig
from ..kernel.generic_point import generic_rank, independent_rows, inverse, is_zero, lu_solve
from ..kernel.linalg import det_small
from ..kernel.sampling import sample_points
from ..equations.base import Equations
from ..kernel.parsing import as_expr, as_mapping, as_symbols, sympy_of

__all__ = ["InvariantMeasure", "Hamiltonization", "invariant_measure", "hamiltonize"]


@dataclass(frozen=True)
class InvariantMeasure:
    """ρ(r) dr du, invariant under the reduced flow on (r, u); ``momentum_density`` is the
    same measure in (r, p), ρ / det M.  A density is fixed up to a constant factor; where it
    changes sign the measure is |ρ| dr du."""

    coordinates: tuple[sp.Symbol, ...]
    speeds: tuple[sp.Symbol, ...]
    density: sp.Expr
    momentum_density: sp.Expr

    def density_in(self, old_of_new: Mapping, new: Sequence) -> sp.Expr:
        """The density of the same measure in other variables: ``old_of_new`` gives some of the
        old variables (coordinates and speeds: symbols, or names of those in ρ) as expressions of the ``new``
        symbols (one per old variable, in the same order) and of the old variables that stay.
        By the change of variables in an integral (the Jacobian matrix of the map is block
        triangular, the staying variables' block the identity)

            ρ̃(y) = ρ(x(y)) · det(∂x_changed/∂y)

        (up to its sign: the measure is |ρ̃| dy).  The classical case: the density in the
        independent coordinate velocities instead of the speeds u of the frame, with
        ``old_of_new`` = {u_a: u_a(q, q̇)} (e.g. ``eqs.speeds`` when they involve only the
        chosen q̇): for Chaplygin's ball, body angular velocities → Euler angle rates, the
        density gains the factor sin θ of dΩ = sin θ dψ̇ dθ̇ dφ̇."""
        variables = {v.name: v for v in (*self.coordinates, *self.speeds)}
        mapping = as_mapping(old_of_new, "old_of_new")
        old = []
        for k in mapping:   # a symbol (a cyclic coordinate absent from ρ too), or the name of one of ρ's
            if isinstance(k, sp.Symbol):
                old.append(k)
            elif isinstance(k, str) and k in variables:
                old.append(variables[k])
            else:
                raise UnknownCoordinateError(f"{k!r} is not a coordinate or speed of the measure "
                                             f"({', '.join(variables)}): give a name of one, or a symbol")
        ys = as_symbols(new, what="new variables")
        if len(ys) != len(old):
            raise DimensionError(f"{len(old)} variables replaced by {len(ys)} new ones; give one new symbol each")
        exprs = [as_expr(v, what=f"value of {x.name}") for x, v in zip(old, mapping.values())]
        clash = set(ys) & set(variables.values()) - set(old)
        if clash:
            raise DimensionError(f"the new variables {sorted(map(str, clash))} are variables that stay")
        J = sp.Matrix(len(old), len(ys), lambda i, j: sp.diff(exprs[i], ys[j]))
        det = det_small(J.tolist()) if len(old) <= 3 else J.det(method="berkowitz")
        if is_zero(det):
            raise SingularMapError(f"the change of variables {dict(zip(old, exprs))} is singular "
                                   "(det ∂x/∂y = 0): the new variables do not determine the old ones")
        return self.density.xreplace(dict(zip(old, exprs))) * det


@dataclass(frozen=True)
class Hamiltonization:
    """Chaplygin's reducing multiplier N(r): with dτ = N dt and p̃ = N p the reduced equations
    are Hamilton's with ``hamiltonian`` H̃(r, p̃) (in the symbols ``momenta``)."""

    coordinates: tuple[sp.Symbol, ...]
    momenta: tuple[sp.Symbol, ...]
    multiplier: sp.Expr
    hamiltonian: sp.Expr
    nonhamiltonian_force: tuple[sp.Expr, ...]


def _reduced(eqs: Equations):
    """(r, u, M, x = M⁻¹F) of reduced Chaplygin equations, checked."""
    r = tuple(eqs.reduced_coordinates)
    if not r or eqs.lam_vec:
        raise NotAdaptedError("invariant measures and reducing multipliers need equations closed in shape "
                              "coordinates (geonh.equations.chaplygin)")
    u = tuple(eqs.u)
    if len(u) != len(r):
        raise DimensionError(f"{len(u)} speeds for {len(r)} shape coordinates")
    S = eqs.space
    for a, (ra, ua) in enumerate(zip(r, u)):
        k = eqs.kinematics[S.index(ra)]
        if not is_zero(k - ua):
            raise NotAdaptedError(f"the speed {ua} is not the rate of {ra} (q̇ = {k})")
    M, F = eqs.mass_matrix, eqs.forcing
    other = (set(S.q) - set(r)) | ({S.t} if S.t is not None else set())
    for e in list(M) + list(F):
        if e.free_symbols & other:
            raise NotAdaptedError(f"the equations are not closed in {[q.name for q in r]}: {e} involves "
                                  f"{sorted(map(str, e.free_symbols & other))}")
    x = lu_solve(M, F, what="reduced mass matrix")
    return r, u, M, [sympy_of(v) for v in x]


def _linear_coefficients(expr: sp.Expr, u: tuple, what: str) -> list[sp.Expr]:
    """expr = Σ c_a u_a with c_a free of u, checked; the c_a."""
    zero = {v: 0 for v in u}
    cs = [sp.diff(expr, v).xreplace(zero) for v in u]
    if not is_zero(expr - sum((c * v for c, v in zip(cs, u)), sp.S.Zero)):
        raise NotFoundError(f"{what} is not linear and homogeneous in the velocities {list(u)} "
                            "(dissipative or velocity-dependent forces?)")
    return cs


def _exp_potential(grad: list, r: tuple, what: str) -> sp.Expr:
    for a in range(len(r)):
        for b in range(a + 1, len(r)):
            if not is_zero(sp.diff(grad[b], r[a]) - sp.diff(grad[a], r[b])):
                raise NotFoundError(f"no {what} depending on {[q.name for q in r]} only: the one-form "
                                    f"Σ G_a dr_a, G = {grad}, is not closed")
    if all(is_zero(g) for g in grad):
        return sp.S.One
    g = potential(grad, r)
    if g is None:
        raise NotFoundError(f"the {what} exists (its logarithmic gradient {grad} is closed) but sympy "
                            "found no closed-form potential")
    # g is fixed up to a constant: log(h) with h < 0 at every sample point (sympy's
    # antiderivative may take that branch) becomes log(−h), same gradient, exp(g) real
    pts = sample_points(set(r) | g.free_symbols, 3)
    flips = {}
    for L in g.atoms(sp.log):
        hs = [real_value(L.args[0], pt) for pt in pts]
        if all(h is not None and h < 0 for h in hs):
            flips[L] = sp.log(-L.args[0])
    out = sp.exp(g.xreplace(flips))
    if any(real_value(out, pt) is None for pt in pts):
        raise NotFoundError(f"the {what} exp({g}) is not real on the sample points {pts}")
    return out


#: expressions up to this many operations are reduced modulo sin² + cos² = 1 before the analysis
#: the largest expression (``count_ops``) reduced modulo sin² + cos² = 1
SHORTEN_OPS = 20000


def _shorter(e: sp.Expr) -> sp.Expr:
    """e reduced modulo sin² + cos² = 1 when it is not huge (:func:`~geonh.kernel.trig.shorten_trig`)."""
    return shorten_trig(e, SHORTEN_OPS)[0]


def _frame_fields(eqs: Equations) -> list[list[sp.Expr]]:
    """The fields X_a with q̇ = Σ_a X_a u_a (components ∂K/∂u_a), checked: the kinematics must
    be linear and homogeneous in the speeds."""
    K = [sympy_of(k) for k in eqs.kinematics]
    u = eqs.u
    zero = {v: 0 for v in u}
    X = [[sp.diff(k, v).xreplace(zero) for k in K] for v in u]
    for i, k in enumerate(K):
        if not is_zero(k - sum((X[a][i] * v for a, v in enumerate(u)), sp.S.Zero)):
            raise NotFoundError(f"the kinematics q̇ = K(q, u) are not linear and homogeneous in the speeds "
                                f"({eqs.space.q[i]}' = {k}); no invariant measure is sought for them")
    return X


#: the random points at which the numeric obstruction (:func:`invariant_measure`) must show,
#: each a nonzero far above round-off, before "no invariant measure" is said without the
#: symbolic route; a further point or two is drawn in case one is singular
CERTIFICATE_POINTS = 2


def _witness(eqs: Equations, X: list, cs: tuple) -> str | None:
    """A numeric obstruction to an invariant density ρ(cs) (:func:`invariant_measure`), or None
    when there is none at the sample points or this check cannot decide (then the symbolic
    route decides).  It can only say "no": each test is a condition every density satisfies.

    With x = (q, u), q̇ = Σ_c X_c u_c and M(q) u̇ = F(q, u), the divergence of the flow is
    D = Σ_c u_c div X_c + tr(M⁻¹ ∂F/∂u), and a density ρ = exp(g) needs D = Σ_c E_c(q) u_c with

        E_c = ∂D/∂u_c = div X_c + Σ_ab (M⁻¹)_ab ∂²F_b/∂u_a∂u_c,     X_c(g) = −E_c.

    At a random rational point (q, u, parameters) this evaluates, at the working precision
    (symengine's MPFR, :func:`~geonh.kernel.evaluation.native_values`), E_c and ∂E_c/∂q_j
    (∂M⁻¹ = −M⁻¹ ∂M M⁻¹; the second and third derivatives of F by symengine), and tests in turn

    1. linearity: D − Σ_c u_c ∂D/∂u_c = 0 (Euler's identity for D linear in u);
    2. where the base fields X_c alone span the directions ``cs`` at the point (else no
       verdict): G = ∇g from n independent rows A_S G = −E_S (A_cj = X_c^{cs_j}); the other
       rows must agree, A_c G + E_c = 0;
    3. closedness: ∂_j G_l − ∂_l G_j = 0, with ∂_j G = −A_S⁻¹ (∂_j E_S + ∂_j A_S G).

    A value counts as nonzero when it exceeds 10^-(digits/2) times the size of its terms; the
    verdict needs such a nonzero at ``CERTIFICATE_POINTS`` points, and any point where
    every test passes ends the check without a verdict."""
    q, u = tuple(eqs.space.q), tuple(eqs.u)
    n, k = len(cs), len(X)
    if not backend.SYMENGINE_AVAILABLE or not cs or k < n:
        return None
    Ms, Fs = [sympy_of(e) for e in eqs.mass_matrix], [sympy_of(e) for e in eqs.forcing]
    free = set().union(*(e.free_symbols for e in [*Ms, *Fs, *(c for Xc in X for c in Xc)]))
    if free & set(u) & set().union(*(e.free_symbols for e in Ms)) or len({s.name for s in free}) < len(free):
        return None                        # M depends on u, or two symbols share a name (symengine merges them)
    try:
        tr = backend.Translation()
        M_, F_, X_ = tr.to_symengine(Ms), tr.to_symengine(Fs), [tr.to_symengine(list(Xc)) for Xc in X]
        U, Q = tr.to_symengine(list(u)), tr.to_symengine(list(q))
    except backend.UnsupportedExpressionError:
        return None
    C = [Q[q.index(v)] for v in cs]
    m = len(u)
    exprs: dict = {}                       # key → symengine expression, evaluated at once per point
    for b in range(m):
        for a in range(m):
            dF = F_[b].diff(U[a])
            exprs["dF", b, a] = dF
            for c in range(a, m):          # ∂²F_b/∂u_a∂u_c is symmetric in (a, c): once each
                H = dF.diff(U[c])
                exprs["H", b, a, c] = H
                for j in range(n):
                    exprs["dH", b, a, c, j] = H.diff(C[j])
        for a in range(m):
            exprs["M", b, a] = M_[b * m + a]
            for j in range(n):
                exprs["dM", b, a, j] = M_[b * m + a].diff(C[j])
    for c in range(k):
        div = sum((X_[c][i].diff(Q[i]) for i in range(len(q))), X_[c][0] * 0)
        exprs["div", c] = div
        for j in range(n):
            exprs["ddiv", c, j] = div.diff(C[j])
            exprs["A", c, j] = X_[c][q.index(cs[j])]
            for l_ in range(n):
                exprs["dA", c, j, l_] = X_[c][q.index(cs[j])].diff(C[l_])
    keys, natives = list(exprs), list(exprs.values())
    conditions = getattr(eqs.system, "conditions", ()) or ()
    found: list = []
    try:
        points = sample_points(free | set(q) | set(u), CERTIFICATE_POINTS + 2, conditions=conditions)
    except InconsistentStateError:         # no point satisfies the conditions: no verdict here
        return None
    for pt in points:
        raw = native_values(natives, pt)
        if any(v is None for v in raw):
            continue                       # singular or not real at this point: draw the next
        with mpmath.workdps(precision()):
            vals = dict(zip(keys, (mpmath.mpf(v.p) / v.q if isinstance(v, sp.Basic) else v for v in raw)))
            for key in [key for key in vals if key[0] in ("H", "dH") and key[2] < key[3]]:
                vals[(key[0], key[1], key[3], key[2]) + key[4:]] = vals[key]
            w = _obstruction_at(vals,
                                [mpmath.mpf(sp.Rational(pt[v]).p) / sp.Rational(pt[v]).q for v in u], cs, m, k)
        if w is None:
            return None
        found.append((pt, w))
        if len(found) == CERTIFICATE_POINTS:
            break
    if len(found) < CERTIFICATE_POINTS:
        return None
    pt, (what, value) = found[0]
    shown = ", ".join(f"{s} = {pt[s]}" for s in sorted(pt, key=sp.default_sort_key) if s in free or s in u)
    return (f"no invariant measure of the ansatz ρ(q) dq du, ρ = exp(g({', '.join(v.name for v in cs)})) "
            f"(Kozlov 1988): {what} = {mpmath.nstr(value, 6)} ≠ 0 at {shown} "
            f"(and nonzero at {CERTIFICATE_POINTS - 1} more random point(s); working precision "
            f"{precision()} digits, round-off below 1e-{precision() // 2} of the terms)")


def _nonzero(value, scale) -> bool:
    """Is ``value`` a nonzero far above round-off against ``scale``, the size of the terms it
    was computed from?"""
    return abs(value) > mpmath.mpf(10) ** (-(precision() // 2)) * scale


def _abs(A):
    """The matrix of absolute values (the sizes that round-off is relative to)."""
    return A.apply(abs)


def _obstruction_at(v: dict, u0: list, cs: tuple, m: int, k: int) -> tuple[str, object] | None:
    """The first failing test of ``_witness`` at one point (``v``: the values of its
    expressions, ``u0`` the speeds there): (what, value), or None when all pass or the base
    fields do not span the directions ``cs`` there.  Beside each quantity its size (the same
    formula with every term replaced by its absolute value) bounds the round-off it carries."""
    n = len(cs)
    Mv = mpmath.matrix([[v["M", b, a] for a in range(m)] for b in range(m)])
    try:
        Mi = mpmath.inverse(Mv)
    except ZeroDivisionError:
        return None
    aMi = _abs(Mi)
    E = [v["div", c] + mpmath.fsum(Mi[a, b] * v["H", b, a, c] for a in range(m) for b in range(m)) for c in range(k)]
    sE = [abs(v["div", c]) + mpmath.fsum(aMi[a, b] * abs(v["H", b, a, c]) for a in range(m) for b in range(m))
          for c in range(k)]
    # 1. linearity: D(q, u) = Σ_c u_c E_c
    terms = [v["div", c] * u0[c] for c in range(k)] + [Mi[a, b] * v["dF", b, a] for a in range(m) for b in range(m)]
    lin = mpmath.fsum(terms) - mpmath.fsum(E[c] * u0[c] for c in range(k))
    if _nonzero(lin, mpmath.fsum(aMi[a, b] * abs(v["dF", b, a]) for a in range(m) for b in range(m))
                + mpmath.fsum(abs(v["div", c] * u0[c]) + sE[c] * abs(u0[c]) for c in range(k))):
        return "the divergence of the flow minus its linear part, D − Σ_c u_c ∂D/∂u_c,", lin
    A = [[v["A", c, j] for j in range(n)] for c in range(k)]
    rows = next((S for S in combinations(range(k), n)
                 if _nonzero(mpmath.det(mpmath.matrix([A[c] for c in S])),
                             mpmath.fprod(mpmath.norm(mpmath.matrix(A[c]), 2) for c in S))), None)
    if rows is None:
        return None
    ASi = mpmath.inverse(mpmath.matrix([A[c] for c in rows]))
    aASi = _abs(ASi)
    G = -(ASi * mpmath.matrix([E[c] for c in rows]))
    sG = aASi * mpmath.matrix([sE[c] for c in rows])
    # 2. the other rows agree
    for c in range(k):
        if c not in rows:
            res = mpmath.fsum([A[c][j] * G[j] for j in range(n)] + [E[c]])
            if _nonzero(res, mpmath.fsum(abs(A[c][j]) * sG[j] for j in range(n)) + sE[c]):
                return f"X_{c + 1}(g) + E_{c + 1} with ∇g solved from the fields {[r + 1 for r in rows]}", res
    # 3. closedness: ∂_j G = −A_S⁻¹ (∂_j E_S + ∂_j A_S G)
    dG, sdG = [], []
    for j in range(n):
        dM = mpmath.matrix([[v["dM", b, a, j] for a in range(m)] for b in range(m)])
        dMi, sdMi = -(Mi * dM * Mi), aMi * _abs(dM) * aMi
        dE = [v["ddiv", c, j] + mpmath.fsum(dMi[a, b] * v["H", b, a, c] + Mi[a, b] * v["dH", b, a, c, j]
                                            for a in range(m) for b in range(m)) for c in rows]
        sdE = [abs(v["ddiv", c, j]) + mpmath.fsum(sdMi[a, b] * abs(v["H", b, a, c]) + aMi[a, b] * abs(v["dH", b, a, c, j])
                                                  for a in range(m) for b in range(m)) for c in rows]
        dA = mpmath.matrix([[v["dA", c, l_, j] for l_ in range(n)] for c in rows])
        dG.append(-(ASi * (mpmath.matrix(dE) + dA * G)))
        sdG.append(aASi * (mpmath.matrix(sdE) + _abs(dA) * (_abs(G) + sG)))
    for j in range(n):
        for l_ in range(j + 1, n):
            curl = dG[j][l_] - dG[l_][j]
            if _nonzero(curl, sdG[j][l_] + sdG[l_][j]):
                return (f"the closedness condition fails (the one-form Σ G_j dq_j, G = ∇log ρ solved from "
                        f"X_c(log ρ) = −E_c, is not closed): ∂G_{cs[l_]}/∂{cs[j]} − ∂G_{cs[j]}/∂{cs[l_]}"), curl
    return None


def invariant_measure(eqs: Equations, *, depth: int = 3, numeric_check: bool = True) -> InvariantMeasure:
    """An invariant measure ρ(q) dq du of the equations' flow ẋ = f, x = (q, u), with q̇ = K(q, u)
    and u̇ = M⁻¹F, or :class:`~geonh.errors.NotFoundError` naming why none exists.

    ρ = exp(g) is invariant iff div(ρ f) = 0, i.e. f(g) = −div f (Liouville).  With
    K = Σ_a X_a u_a and div f = Σ_a E_a(q) u_a (it must be linear in u, because g does not depend
    on u) this is the system X_a(g) = −E_a along the admissible fields, completed by its
    brackets, [X_a, X_b](g) = X_b(E_a) − X_a(E_b) (and brackets of brackets up to ``depth``),
    which fixes ∇g where the fields and their brackets span; coordinates absent from the
    equations (cyclic ones) are not in ρ.  Then ∇g must be consistent and closed, and
    g = ∫ ∇g (Kozlov 1988; Fedorov & Jovanović 2004; Bloch 2003, § 5.8).

    For reduced Chaplygin equations (:func:`~geonh.equations.chaplygin`) the fields are ∂_r and
    this is Chaplygin's density on the shape space.  For the Chaplygin ball in body angular
    velocities it gives sin θ √(1 − m r² γ·(I + m r²)⁻¹γ) (Chaplygin 1903).

    **The ansatz and what "no" means.**  The measures sought are ρ(q) dq du with ρ = exp(g) a
    smooth positive function of the coordinates that occur in the equations (not of the speeds
    u, not of t, not of cyclic coordinates), in the variables (q, u) of the equations (a
    density in other variables is :meth:`InvariantMeasure.density_in`).  A
    :class:`~geonh.errors.NotFoundError` whose message begins "no invariant measure" says that
    no such ρ exists for generic parameter values; it does not exclude a density depending on
    the speeds, nor one for special parameter values (Kozlov 1988: an invariant measure with a
    smooth density excludes asymptotically stable motions; Suslov's problem has one only when
    e₃ is a principal axis).

    **The numeric certificate** (``numeric_check=True``, the default).  Before the symbolic
    route, the conditions every density satisfies are tested numerically at random rational
    points (values of the coordinates, speeds and parameters; the system's ``conditions``
    hold there), at the working precision (:func:`~geonh.kernel.evaluation.precision`, symengine's
    MPFR): with E_c = ∂D/∂u_c the coefficients of the divergence D of the flow,

    1. D = Σ_c u_c E_c (the divergence is linear and homogeneous in the speeds);
    2. where the fields X_c alone span the coordinate directions of ρ at the point,
       G = ∇ log ρ solved from n independent rows of X_c(log ρ) = −E_c agrees with the others;
    3. ∂_j G_l − ∂_l G_j = 0 (closedness; ∂E_c/∂q_j from the third derivatives ∂³F/∂u∂u∂q and
       ∂M⁻¹ = −M⁻¹ ∂M M⁻¹, no symbolic inverse of M).

    A value counts as nonzero when it exceeds 10^-(digits/2) times the size of the terms it is
    computed from (the round-off rule of :mod:`geonh.kernel.generic_point`).  Only a nonzero
    at ``CERTIFICATE_POINTS`` (2) points is a verdict: :class:`~geonh.errors.NotFoundError`
    "no invariant measure of the ansatz ρ(q) …", naming the failing condition, its value and
    the first point (the witness).  Otherwise — every test passes at a point, the fields and
    the brackets are both needed to span, symengine cannot take the expressions — the
    certificate says nothing and the exact symbolic route below decides, so a system with a
    density gets the same exact answer either way.  The certificate can only say "no": each
    condition is necessary.  For the rattleback it answers in seconds where the symbolic route
    (second derivatives of M⁻¹F on its √(γ·Λγ) contact geometry) runs past ten minutes.
    ``numeric_check=False`` skips it.
    """
    if not isinstance(numeric_check, bool):
        raise ParseError(f"numeric_check is True or False, not {numeric_check!r}")
    if eqs.lam_vec:
        raise NotAdaptedError("an invariant measure needs equations without multipliers (a frame form such "
                              "as boltzmann_hamel, or chaplygin)")
    S = eqs.space
    q, u = tuple(S.q), tuple(eqs.u)
    if S.t is not None:
        raise NotAdaptedError("invariant measures of rheonomic systems are not sought (the flow depends on t)")
    X = [[_shorter(c) for c in Xa] for Xa in _frame_fields(eqs)]
    K = [sum((X[a][i] * u[a] for a in range(len(u))), sp.S.Zero) for i in range(len(q))]
    if numeric_check:
        # before the (costly) trig reduction of M and F: the coordinates they show unreduced
        # include those they really depend on, and no density of more coordinates is no density
        shown = set().union(*(sympy_of(e).free_symbols for e in [*eqs.mass_matrix, *eqs.forcing, *K]))
        witness = _witness(eqs, X, tuple(v for v in q if v in shown))
        if witness is not None:
            raise NotFoundError(witness)
    Mm, F = eqs.mass_matrix.applyfunc(_shorter), eqs.forcing.applyfunc(_shorter)
    present = set().union(*(sympy_of(e).free_symbols for e in list(Mm) + list(F) + K))
    cs = [v for v in q if v in present]
    x = [sympy_of(v) for v in lu_solve(Mm, F, what="mass matrix")]
    div = sum((sp.diff(K[i], q[i]) for i in range(len(q))), sp.S.Zero) \
        + sum((sp.diff(x[a], u[a]) for a in range(len(u))), sp.S.Zero)
    E = _linear_coefficients(div, u, "the divergence of the flow, Σ ∂q̇_i/∂q_i + Σ ∂u̇_a/∂u_a,")
    idx = [q.index(v) for v in cs]
    base = [VectorField(S, Xa) for Xa in X]
    fields, rhs = list(base), [-e for e in E]           # Y(g) = rhs for every Y in fields

    def rows() -> sp.Matrix:
        return sp.Matrix(len(fields), len(cs), lambda k, j: fields[k].components[idx[j]])

    rank = generic_rank(rows()) if cs else 0
    level = list(range(len(base)))                      # the newest generation of fields
    for _ in range(depth):
        if rank >= len(cs):
            break
        new = []
        for a in level:
            for b in range(len(base)):
                if a < len(base) and b >= a:            # first generation: each pair once
                    continue
                # [Y, X_b](g) = Y(X_b g) − X_b(Y g) = Y(rhs_b) − X_b(rhs_a)
                fields.append(fields[a].bracket(base[b]))
                rhs.append(fields[a](rhs[b]) - base[b](rhs[a]))
                new.append(len(fields) - 1)
        if not new:
            break
        level = new
        rank = generic_rank(rows())
    if rank < len(cs):
        raise NotFoundError(f"∇ log ρ is not determined: the admissible fields and their brackets (to depth "
                            f"{depth}) span only {rank} of the {len(cs)} directions {[v.name for v in cs]}")
    A, b = rows(), sp.Matrix(rhs)
    grad: list = []
    if cs:
        keep = independent_rows(A)
        grad = [sympy_of(v) for v in lu_solve(A.extract(keep, list(range(len(cs)))), b.extract(keep, [0]),
                                                 what="equations for ∇ log ρ")]
    if not all(is_zero(e) for e in A * sp.Matrix(len(cs), 1, grad) - b):
        raise NotFoundError("no invariant measure with a density in the coordinates: the equations "
                            "X(log ρ) = −div f along the admissible fields and their brackets are inconsistent")
    grad = [_shorter(g_) for g_ in grad]
    rho = _exp_potential(grad, tuple(cs), "invariant measure") if cs else sp.S.One
    det = _shorter(det_small(Mm.tolist()) if Mm.rows <= 3 else Mm.det(method="berkowitz"))
    return InvariantMeasure(tuple(cs), u, rho, rho / det)


def hamiltonize(eqs: Equations) -> Hamiltonization:
    """Chaplygin's reducing multiplier N(r) of reduced Chaplygin equations with two degrees
    of freedom and potential forces, and the Hamiltonian H̃(r, p̃) of the rescaled system
    (module doc); every identity is verified at the generic point."""
    r, u, M, x = _reduced(eqs)
    if len(r) != 2:
        raise DimensionError(f"Chaplygin's reducing multiplier is a theorem for two degrees of freedom; "
                             f"these equations have {len(r)}")
    system, frame = eqs.system, eqs.frame
    if frame is None or not hasattr(system, "Q"):
        raise NotAdaptedError("Chaplygin's reducing multiplier needs frame equations (geonh.equations.chaplygin) "
                              "of a system with generalized forces Q")
    S = eqs.space
    # the reduced generalized forces Q*_a = Q · X_a, X_a the frame field of the free coordinate
    fields = frame.fields[:len(r)]
    Q = list(system.Q)
    Qs = [sum((Q[i] * X.components[i] for i in range(S.n) if X.components[i] != 0), sp.S.Zero) for X in fields]
    if any(sympy_of(q).has(*u) for q in Qs) or any(sympy_of(q).free_symbols & set(S.qd) for q in Qs):
        raise NotFoundError("the reduced forces depend on the velocities: no Hamiltonian form")
    V = potential([-q for q in Qs], r) if not all(is_zero(q) for q in Qs) else sp.S.Zero
    if V is None:
        raise NotFoundError(f"the reduced forces {Qs} have no potential V(r)")
    p = list(M * sp.Matrix(u))
    xd = dict(zip(r, u))
    pdot = [sum((M[a, b] * x[b] for b in range(2)), sp.S.Zero)
            + sum((sp.diff(M[a, b], c) * xd[c] * u[b] for b in range(2) for c in r), sp.S.Zero) for a in range(2)]
    Fnh = [pdot[a] - sp.Rational(1, 2) * sum((sp.diff(M[b, c], r[a]) * u[b] * u[c]
                                              for b in range(2) for c in range(2)), sp.S.Zero) - Qs[a]
           for a in range(2)]
    if not is_zero(sum((f * v for f, v in zip(Fnh, u)), sp.S.Zero)):
        raise NotFoundError("the non-Hamiltonian force does work (u · F_nh ≠ 0): not a conservative "
                            "Chaplygin system")
    # F_nh = ν (p·u) − (ν·u) p for ν = ∇ log N: linear in ν, one equation per velocity monomial
    nu = sp.symbols("nu1 nu2")
    pu = sum((pa * ua for pa, ua in zip(p, u)), sp.S.Zero)
    nuu = sum((n_ * ua for n_, ua in zip(nu, u)), sp.S.Zero)
    residual = [sp.expand(Fnh[a] - (nu[a] * pu - nuu * p[a])) for a in range(2)]
    monomials = [u[0] ** 2, u[0] * u[1], u[1] ** 2]
    rows = []
    for res in residual:
        for mono in monomials:
            rows.append(sp.Poly(res, *u).coeff_monomial(mono))
    A = sp.Matrix([[sp.diff(e, n_) for n_ in nu] for e in rows])
    b = sp.Matrix([-e.xreplace({n_: 0 for n_ in nu}) for e in rows])
    sol = None
    for i in range(len(rows)):
        for j in range(i + 1, len(rows)):
            sub = A.extract([i, j], [0, 1])
            det = sub.det(method="berkowitz")
            if not is_zero(det):
                sol = list(lu_solve(sub, b.extract([i, j], [0]), what="multiplier equations"))
                break
        if sol is not None:
            break
    if sol is None:
        raise NotFoundError("the multiplier equations do not determine ∇ log N")
    sol = [sp.cancel(s_) for s_ in sol]
    if not all(is_zero((A * sp.Matrix(sol) - b)[k]) for k in range(len(rows))):
        raise NotFoundError("no reducing multiplier: F_nh is not of the form ν (p·u) − (ν·u) p "
                            f"(the equations for ν = ∇ log N are inconsistent); F_nh = {Fnh}")
    N = sp.simplify(_exp_potential(sol, r, "reducing multiplier"))
    pt = tuple(sp.Symbol(f"p_{q.name}", real=True) for q in r)
    Minv = inverse(M, what="reduced mass matrix")
    ptv = sp.Matrix(pt) / N
    H = sp.Rational(1, 2) * (ptv.T * Minv * ptv)[0, 0] + V
    return Hamiltonization(r, pt, N, H, tuple(Fnh))
