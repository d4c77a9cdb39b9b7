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
from typing import Mapping, Sequence

import sympy as sp

from ..errors import DimensionError, NotAdaptedError, NotFoundError, SingularMapError, UnknownCoordinateError
from ..kernel.distributions import potential
from ..kernel.evaluation import real_value
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


def invariant_measure(eqs: Equations, *, depth: int = 3) -> InvariantMeasure:
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
    """
    if eqs.lam_vec:
        raise NotAdaptedError("an invariant measure needs equations without multipliers (a frame form such "
                              "as boltzmann_hamel, or chaplygin)")
    S = eqs.space
    q, u = tuple(S.q), tuple(eqs.u)
    if S.t is not None:
        raise NotAdaptedError("invariant measures of rheonomic systems are not sought (the flow depends on t)")
    X = [[_shorter(c) for c in Xa] for Xa in _frame_fields(eqs)]
    K = [sum((X[a][i] * u[a] for a in range(len(u))), sp.S.Zero) for i in range(len(q))]
    Mm, F = eqs.mass_matrix.applyfunc(_shorter), eqs.forcing.applyfunc(_shorter)
    x = [sympy_of(v) for v in lu_solve(Mm, F, what="mass matrix")]
    div = sum((sp.diff(K[i], q[i]) for i in range(len(q))), sp.S.Zero) \
        + sum((sp.diff(x[a], u[a]) for a in range(len(u))), sp.S.Zero)
    E = _linear_coefficients(div, u, "the divergence of the flow, Σ ∂q̇_i/∂q_i + Σ ∂u̇_a/∂u_a,")
    present = set().union(*(sympy_of(e).free_symbols for e in list(Mm) + list(F) + K))
    cs = [v for v in q if v in present]
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
