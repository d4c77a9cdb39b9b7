"""Aumann 1971, *Bemerkung zum Lagrangeschen Befreiungsprinzip und zum Gaußschen Prinzip des
kleinsten Zwanges* (seed 001): the audited formulas.

Each check types the printed formula in literally (partial derivatives b_{μ1} = ∂b/∂x,
b_{μ2} = ∂b/∂ẋ, b_{μ3} = ∂b/∂t taken by hand with ``sp.diff``; the conditions (5), (7) solved
as a plain linear system; the minimum (6) found by eliminating (5) and setting the gradient of
Z to zero) and compares it with what geonh computes: :class:`~geonh.systems.gauss.FreeSystem`,
:class:`~geonh.systems.gauss.GaussSystem` (its ``c``, ``B``, ``Z``, ``constraint_acceleration``),
:func:`~geonh.systems.constraint_analysis.analyze_constraints`, and, as the independent route
of § 5 (d'Alembert), Lagrange's equations with Chetaev multipliers (see
:mod:`geonh.sources.ledger`).
"""
from __future__ import annotations

import sympy as sp

from ..equations.independent import lagrange
from ..equations.nonlinear import chetaev_lagrange
from ..errors import GeonhError, RankError
from ..kernel.generic_point import is_zero, lu_solve
from ..kernel.space import ConfigurationSpace
from ..models import seeds
from ..models.seeds import aumann_example_31
from ..systems.constraint_analysis import analyze_constraints
from ..systems.gauss import FreeSystem, GaussSystem
from .ledger import Finding, compare, definition, formula, solve_linear


# -- the example systems --------------------------------------------------------------------------
def _free_example() -> FreeSystem:
    """A rheonomic free M-system (f, T) with n = 3 whose f does not come from T (Aumann § 2)."""
    S = ConfigurationSpace("x1 x2 x3", time=True)
    x1, x2, _ = S.q
    v1, v2, v3 = S.qd
    t = S.t
    T = (2 * v1 ** 2 + (1 + x1 ** 2) * v2 ** 2 + 3 * v3 ** 2 + v1 * v2) / 2
    f = [-x1 + v2, 1 - t * x2, v3 * v1]
    return FreeSystem(S, f, T)


def _bound_example() -> tuple[FreeSystem, list]:
    """The free system above with m = 2 conditions (4): one linear and rheonomic, one
    nonlinear in ẋ (Aumann allows b(x, ẋ, t) of any form, § 3)."""
    free = _free_example()
    x1, _, x3 = free.space.q
    v1, v2, v3 = free.space.qd
    t = free.space.t
    return free, [v1 + x3 * v2 - t, v3 ** 2 - x1 * v2 ** 2 - 1]


def _partials(S: ConfigurationSpace, b):
    """Aumann's b_{μ1} = ∂b_μ/∂x, b_{μ2} = ∂b_μ/∂ẋ, b_{μ3} = ∂b_μ/∂t, by hand (rows μ)."""
    B1 = sp.Matrix([[sp.diff(e, x) for x in S.q] for e in b])
    B2 = sp.Matrix([[sp.diff(e, v) for v in S.qd] for e in b])
    B3 = sp.Matrix([sp.diff(e, S.t) if S.t is not None else 0 for e in b])
    return B1, B2, B3


def _printed_c(S: ConfigurationSpace, b, f) -> sp.Matrix:
    """c_μ = b_{μ1} ẋ + b_{μ2} f + b_{μ3} of (5), typed in."""
    B1, B2, B3 = _partials(S, b)
    xd = sp.Matrix(S.qd)
    return B1 * xd + B2 * sp.Matrix(list(f)) + B3


def _metric_by_hand(S: ConfigurationSpace, T) -> sp.Matrix:
    """a^{ik} of (2): the Hessian of T in ẋ."""
    return sp.Matrix([[sp.diff(T, u, v) for v in S.qd] for u in S.qd])


def _printed_kkt(S: ConfigurationSpace, T, f, b) -> tuple[sp.Matrix, sp.Matrix]:
    """(r, λ) from (7) a^{ik} r_k + λ_μ b^i_{μ2} = 0 together with (5) c_μ + b_{μ2} r = 0,
    typed in as one linear system and solved (LU)."""
    n, m = S.n, len(b)
    a = _metric_by_hand(S, T)
    _, B2, _ = _partials(S, b)
    c = _printed_c(S, b, f)
    r = sp.Matrix(sp.symbols(f"r1:{n + 1}"))
    lam = sp.Matrix(sp.symbols(f"lambda_A1:{m + 1}"))
    eqs7 = a * r + B2.T * lam          # (7), i = 1 … n
    eqs5 = c + B2 * r                  # (5), μ = 1 … m
    unknowns = list(r) + list(lam)
    E = eqs7.col_join(eqs5)
    K = E.jacobian(unknowns)
    rhs = -E.xreplace({u: 0 for u in unknowns})
    sol = K.LUsolve(rhs)
    return sol[:n, :], sol[n:, :]


def _labelled(vec, name: str) -> dict:
    return {f"{name}_{i + 1}": vec[i] for i in range(len(vec))}


# -- § 2, the free M-system -------------------------------------------------------------------------
@formula("aumann1971", "(1)", topic="free M-system: n second-order equations",
         printed="ẍ = f(x, ẋ, t)",
         computed="FreeSystem(f, T).f (any f, not necessarily from T); for a free mechanical system "
                  "FreeSystem.from_system: f = M⁻¹(Q − h) from Lagrange's expressions",
         api="systems.gauss.FreeSystem", expected="agrees")
def _aumann_1() -> Finding:
    free = _free_example()
    S = free.space
    x1, x2, _ = S.q
    v1, v2, v3 = S.qd
    printed = _labelled([-x1 + v2, 1 - S.t * x2, v3 * v1], "f")   # the right-hand side as given
    computed = _labelled(list(free.f), "f")
    # a free mechanical system (the sleigh without its blade) written as (1): Lagrange's
    # equations d/dt ∂T/∂ẋ − ∂T/∂x = Q typed in and solved for ẍ
    ms, _ = seeds.linear_examples()["sleigh"]
    M = ms.space
    p = [sp.diff(ms.T, v) for v in M.qd]
    lag = sp.Matrix([sum(sp.diff(p[i], q) * v for q, v in zip(M.q, M.qd))
                     + sum(sp.diff(p[i], v) * a for v, a in zip(M.qd, M.qdd))
                     - sp.diff(ms.T, M.q[i]) - ms.Q[i] for i in range(M.n)])
    K = lag.jacobian(M.qdd)
    xdd = K.LUsolve(-lag.xreplace({a: 0 for a in M.qdd}))
    printed.update(_labelled(xdd, "sleigh ẍ"))
    computed.update(_labelled(list(FreeSystem.from_system(ms).f), "sleigh ẍ"))
    return definition(printed, computed,
                      "rheonomic n = 3 system with f = (−x1 + ẋ2, 1 − t x2, ẋ3 ẋ1) not from T; the free Chaplygin sleigh")


@formula("aumann1971", "(2)", topic="kinetic energy: positive definite quadratic form",
         printed="T(x, ẋ, t) := ½ a^{ik}(x, t) ẋ_i ẋ_k",
         computed="T = ½ ẋᵀ a ẋ with a = FreeSystem.metric = ∂²T/∂ẋ² (checked positive definite)",
         api="systems.gauss.FreeSystem.metric", expected="agrees")
def _aumann_2() -> Finding:
    free = _free_example()
    S = free.space
    a = free.metric
    printed = sp.Rational(1, 2) * sum(a[i, k] * S.qd[i] * S.qd[k] for i in range(S.n) for k in range(S.n))
    try:  # an indefinite form is no kinetic energy in Aumann's sense
        FreeSystem(S, list(free.f), (S.qd[0] ** 2 - S.qd[1] ** 2 + S.qd[2] ** 2) / 2)
        detail = "an indefinite T was accepted (!)"
    except GeonhError as exc:
        detail = f"an indefinite T is refused ({type(exc).__name__})"
    return definition(printed, free.T, "rheonomic free system, n = 3, a^{22} = 1 + x1²", detail=detail)


@formula("aumann1971", "(3)", topic="equivalence under a time-independent change of coordinates",
         printed="x = X(x̃), det ∂X/∂x̃ ≠ 0, carries (f̃, T̃) into (f, T) (and the conditions (4*) with them)",
         computed="FreeSystem.transform: f(X, J x̃̇, t) = J f̃ + J̇ x̃̇, T̃ = T(X, J x̃̇); Gauss's r = J r̃ (§ 5)",
         api="systems.gauss.FreeSystem.transform", expected="agrees")
def _aumann_3() -> Finding:
    # Cartesian (x, y) -> polar (ρ, φ); f not from T; one nonlinear condition b
    S = ConfigurationSpace("x y")
    x, y = S.q
    xd, yd = S.qd
    P = ConfigurationSpace("rho phi")
    rho, phi = P.q
    T = (xd ** 2 + 2 * yd ** 2 + xd * yd) / 2
    free = FreeSystem(S, [-x + yd, -y - xd * yd], T)
    b = [xd ** 2 + yd ** 2 - x * y - 2]
    X = {x: rho * sp.cos(phi), y: rho * sp.sin(phi)}
    J = sp.Matrix([[sp.diff(X[u], w) for w in P.q] for u in S.q])
    # typed in: ẋ = J x̃̇, ẍ = J x̃̈ + J̇ x̃̇ (J̇ by hand)
    xt_dot = sp.Matrix(P.qd)
    Jdot = sp.Matrix(2, 2, lambda i, j: sum(sp.diff(J[i, j], w) * wd for w, wd in zip(P.q, P.qd)))
    sub = {x: X[x], y: X[y], xd: (J * xt_dot)[0], yd: (J * xt_dot)[1]}
    tfree = free.transform(P, X)
    f_old = sp.Matrix([e.xreplace(sub) for e in free.f])
    printed = {**_labelled(f_old, "f∘X"), "T∘X": T.xreplace(sub)}
    computed = {**_labelled(J * sp.Matrix(list(tfree.f)) + Jdot * xt_dot, "f∘X"), "T∘X": tfree.T}
    # § 5: the minimum (6) is invariant: r computed in x and in x̃ correspond, r = J r̃
    r_old = GaussSystem(free, b).constraint_acceleration().xreplace(sub)
    r_new = GaussSystem(tfree, [e.xreplace(sub) for e in b]).constraint_acceleration()
    printed.update(_labelled(r_old, "r∘X"))
    computed.update(_labelled(J * r_new, "r∘X"))
    Pt = ConfigurationSpace("rho phi", time=True)
    try:
        free.transform(Pt, {x: Pt.q[0] * sp.cos(Pt.q[1] + Pt.t), y: Pt.q[0] * sp.sin(Pt.q[1] + Pt.t)})
        detail = "a time-dependent X was accepted (!)"
    except GeonhError as exc:
        detail = f"a time-dependent X is refused ({type(exc).__name__}; § 5: independence of t is essential)"
    return compare(printed, computed,
                   "Cartesian → polar, T = ½(ẋ² + 2ẏ² + ẋẏ), f = (−x + ẏ, −y − ẋẏ), b = ẋ² + ẏ² − xy − 2",
                   detail=detail)


# -- § 3, the bound system ------------------------------------------------------------------------
@formula("aumann1971", "(4*)", topic="kinematic conditions as given",
         printed="b*_μ(x, ẋ, t) = 0, μ = 1, …, m, m < n",
         computed="ConstraintReport.original (velocity-free conditions allowed), m < n",
         api="systems.constraint_analysis.analyze_constraints", expected="agrees")
def _aumann_4star() -> Finding:
    S = ConfigurationSpace("x1 x2 x3", time=True)
    x1, x2, x3 = S.q
    v1, v2, v3 = S.qd
    t = S.t
    given = [x1 ** 2 + x2 - t * x3, v1 * v3 + x2 * v2 ** 2 - t]
    rep = analyze_constraints(S, given)
    printed = {**_labelled(given, "b*"), "m < n": sp.Integer(int(len(given) < S.n))}
    computed = {**_labelled(rep.original, "b*"), "m < n": sp.Integer(int(len(rep.original) < S.n))}
    return definition(printed, computed, "n = 3, b*_1 = x1² + x2 − t x3 (velocity-free), b*_2 = ẋ1ẋ3 + x2ẋ2² − t")


@formula("aumann1971", "(4**)", topic="consistent initial values",
         printed="x0, ẋ0, t0 satisfying (4*) (and, as required later in § 3, the full-rank set (4))",
         computed="ConstraintReport.check_state: no violated condition, given or hidden (x3 = 0, ẋ3 = 0 in ex. 3.1)",
         api="ConstraintReport.violations / check_state", expected="agrees")
def _aumann_4starstar() -> Finding:
    S, given = aumann_example_31()
    x1, x2, x3 = S.q
    v1, v2, v3 = S.qd
    rep = analyze_constraints(S, given)
    full = [v1 + v2, v3]                        # Aumann's system (4) of example 3.1, typed in
    half = sp.Rational(1, 2)
    states = {
        "A (consistent)": {x1: half, x2: -half, x3: 0, v1: 1, v2: -1, v3: 0},
        "B ((4*) only, x3 ≠ 0)": {x1: half, x2: -half, x3: half, v1: 1, v2: -sp.Rational(3, 2), v3: 0},
        "C ((4*), not (4): ẋ3 ≠ 0)": {x1: half, x2: -half, x3: 0, v1: 1, v2: -1, v3: 2},
    }
    printed, computed = {}, {}
    for label, st in states.items():
        ok = all(e.xreplace(st) == 0 for e in list(given) + full)
        printed[label] = sp.Integer(int(ok))
        computed[label] = sp.Integer(int(not rep.violations(st)))
    return definition(printed, computed, "example 3.1 at three initial states (1 = admissible)",
                      detail="(4*) alone would admit B and C; Aumann's further requirement that (4**) satisfy (4) "
                             "excludes them, as geonh does")


@formula("aumann1971", "(4)", topic="velocity-free conditions replaced by their derivative; rank m",
         printed="b_μ(x, ẋ, t) = 0, g(x, t) = 0 replaced by ∂g/∂x_i ẋ_i + ∂g/∂t = 0; Rg(∂b_μ/∂ẋ_k) = m",
         computed="ConstraintReport.raw (S.total_derivative of g) and raw_rank",
         api="systems.constraint_analysis.analyze_constraints", expected="agrees")
def _aumann_4() -> Finding:
    S = ConfigurationSpace("x1 x2 x3", time=True)
    x1, x2, x3 = S.q
    v1, v2, v3 = S.qd
    t = S.t
    g = x1 ** 2 + x2 - t * x3
    bv = v1 * v3 + x2 * v2 ** 2 - t
    rep = analyze_constraints(S, [bv, g])
    dg = sum(sp.diff(g, x) * v for x, v in zip(S.q, S.qd)) + sp.diff(g, t)
    printed = {"b_1": bv, "b_2": dg, "Rg ∂b/∂ẋ": sp.Integer(2)}
    computed = {"b_1": rep.raw[0], "b_2": rep.raw[1], "Rg ∂b/∂ẋ": sp.Integer(rep.raw_rank)}
    return definition(printed, computed, "n = 3, b*_1 = ẋ1ẋ3 + x2ẋ2² − t, b*_2 = g = x1² + x2 − t x3")


@formula("aumann1971", "(3.1)", topic="example: hidden holonomic constraint",
         printed="x1 + x2 = 0, ẋ1 + ẋ2 + x3 = 0 ⇒ ẋ1 + ẋ2 = 0 (rank 1 < 2), x3 = 0; system (4): ẋ1 + ẋ2 = 0, ẋ3 = 0",
         computed="analyze_constraints: raw rank 1, hidden x3 = 0, full-rank set (4) = {ẋ1 + ẋ2, ẋ3}",
         api="systems.constraint_analysis.analyze_constraints", expected="agrees")
def _aumann_31() -> Finding:
    S, given = aumann_example_31()
    x1, x2, x3 = S.q
    v1, v2, v3 = S.qd
    rep = analyze_constraints(S, given)
    printed = {"b*_1": x1 + x2, "b*_2": v1 + v2 + x3, "Rg of raw (4)": sp.Integer(1),
               "hidden": x3, "(4)_1": v1 + v2, "(4)_2": v3}
    computed = {"b*_1": rep.original[0], "b*_2": rep.original[1], "Rg of raw (4)": sp.Integer(rep.raw_rank),
                "hidden": rep.hidden[0] if len(rep.hidden) == 1 else sp.nan,
                "(4)_1": rep.velocity_constraints[0], "(4)_2": rep.velocity_constraints[1]}
    free = FreeSystem(S, [-x1 + v2, 1 - x2, sp.Rational(1, 2) - x3 * x1], (2 * v1 ** 2 + v2 ** 2 + 3 * v3 ** 2) / 2)
    try:
        GaussSystem(free, given)
        detail = "GaussSystem accepted the rank-deficient raw set (!)"
    except RankError:
        detail = "GaussSystem refuses the raw set (RankError): Gauss's (5)–(7) need the full-rank set (4)"
    return definition(printed, computed, "the seed's example (model aumann-3.1)", detail=detail)


# -- § 3.2, § 4: Lagrange's liberation principle and Gauss's principle ------------------------------
@formula("aumann1971", "(1')", topic="liberated system: free motion plus constraint acceleration",
         printed="ẍ = f(x, ẋ, t) + r, r from (5), (7)",
         computed="ẍ of Lagrange's equations with (Chetaev) multipliers — d'Alembert's axiom, § 5",
         api="equations.lagrange, equations.chetaev_lagrange", expected="agrees")
def _aumann_1p() -> Finding:
    printed, computed = {}, {}
    # linear conditions (the case Aumann § 5 compares with d'Alembert): the Chaplygin sleigh and
    # the skate on a moving belt (rheonomic)
    for label in ("sleigh", "skate on belt"):
        ms, _ = seeds.linear_examples()[label]
        S = ms.space
        A, b0 = ms.constraint_matrix
        b = [sum((A[k, i] * S.qd[i] for i in range(S.n)), b0[k]) for k in range(A.rows)]
        f = FreeSystem.from_system(ms).f
        r, _ = _printed_kkt(S, ms.T, f, b)
        printed.update(_labelled(sp.Matrix(list(f)) + r, f"{label} ẍ"))
        computed.update(_labelled(lagrange(ms).rhs()[S.n:, :], f"{label} ẍ"))
    # a condition nonlinear in ẋ, rheonomic (Gauss gives Chetaev's reaction)
    ns = seeds.speed_constraint_particle()
    S = ns.space
    f = FreeSystem.from_system(ns).f
    r, _ = _printed_kkt(S, ns.T, f, list(ns.phi))
    printed.update(_labelled(sp.Matrix(list(f)) + r, "speed ẍ"))
    computed.update(_labelled(chetaev_lagrange(ns).rhs()[S.n:, :], "speed ẍ"))
    return compare(printed, computed, "Chaplygin sleigh, skate on a moving belt (linear); "
                   "particle with ẋ² + ẏ² = v(t)² (nonlinear, rheonomic)")


@formula("aumann1971", "(5)", topic="differentiated conditions along (1')",
         printed="c_μ + b_{μ2} r = 0, c_μ = b_{μ1} ẋ + b_{μ2} f + b_{μ3} (from b_{μ1} ẋ + b_{μ2} ẍ + b_{μ3} = 0)",
         computed="GaussSystem.c (d/dt b at ẍ = f), GaussSystem.B; c + B r = 0 for r = constraint_acceleration()",
         api="systems.gauss.GaussSystem.c", expected="agrees")
def _aumann_5() -> Finding:
    free, b = _bound_example()
    S = free.space
    gs = GaussSystem(free, b)
    c = _printed_c(S, b, free.f)
    _, B2, _ = _partials(S, b)
    r = gs.constraint_acceleration()
    printed = {**_labelled(c, "c"), **_labelled(c + B2 * r, "c + b_2 r")}
    computed = {**_labelled(gs.c, "c"), **_labelled(sp.zeros(len(b), 1), "c + b_2 r")}
    return compare(printed, computed,
                   "rheonomic, n = 3, b = (ẋ1 + x3ẋ2 − t, ẋ3² − x1ẋ2² − 1), f not from T")


@formula("aumann1971", "(6)", topic="Gauss: the constraint Z is minimal on L",
         printed="Z(r) := T(x, r, t) minimal on L = {r : c_μ + b_{μ2} r = 0}",
         computed="GaussSystem.Z and r = a⁻¹ b_2ᵀ (b_2 a⁻¹ b_2ᵀ)⁻¹ (−c) (GaussSystem.constraint_acceleration)",
         api="systems.gauss.GaussSystem.constraint_acceleration", expected="agrees")
def _aumann_6() -> Finding:
    free, b = _bound_example()
    S = free.space
    gs = GaussSystem(free, b)
    n = S.n
    rs = sp.symbols(f"r1:{n + 1}")
    # Z(r) := T(x, r, t), typed in: ẋ replaced by r in T
    Z = free.T.xreplace(dict(zip(S.qd, rs)))
    # minimum on L: solve (5) for r1, r3, put into Z, gradient in r2 = 0
    c = _printed_c(S, b, free.f)
    _, B2, _ = _partials(S, b)
    con = c + B2 * sp.Matrix(rs)
    sol = solve_linear(list(con), [rs[0], rs[2]])   # (5) is linear in r: one solution
    Zr = sp.expand(Z.xreplace(sol))
    r2 = solve_linear([sp.diff(Zr, rs[1])], [rs[1]])[rs[1]]
    r_min = [sol[rs[0]].xreplace({rs[1]: r2}), r2, sol[rs[2]].xreplace({rs[1]: r2})]
    r = gs.constraint_acceleration()
    printed = {**_labelled(r_min, "r"), "Z(r)": Z.xreplace(dict(zip(rs, r_min)))}
    computed = {**_labelled(r, "r"), "Z(r)": gs.Z(list(r))}
    affine = not all(is_zero(e) for e in c)
    detail = ("L is the affine set c + b_2 r = 0, a translate of ker b_2 (here c ≠ 0), not the linear subspace "
              "§ 4 says: on a linear L the minimum would be r = 0") if affine else ""
    return compare(printed, computed,
                   "rheonomic, n = 3, m = 2, b = (ẋ1 + x3ẋ2 − t, ẋ3² − x1ẋ2² − 1): L is a line, Z minimized on it",
                   detail=detail)


@formula("aumann1971", "(7)", topic="Lagrange multipliers of Gauss's minimum",
         printed="a^{ik} r_k + λ_μ b^i_{μ2} = 0, i = 1, …, n, with (5); det(b^j_{μ2} (a^{ji})⁻¹ b^i_{μ'2}) ≠ 0",
         computed="r = ẍ − f of Lagrange's equations with Chetaev multipliers, λ^{Aumann} = −λ(Chetaev)",
         api="equations.gauss, equations.chetaev_lagrange", expected="agrees")
def _aumann_7() -> Finding:
    ns = seeds.speed_constraint_particle()
    S = ns.space
    f = FreeSystem.from_system(ns).f
    r, lamA = _printed_kkt(S, ns.T, f, list(ns.phi))
    eq = chetaev_lagrange(ns)
    sol = eq.rhs()  # q̇, q̈ only; the multipliers from the full linear solve
    x = lu_solve(eq.mass_matrix, eq.forcing, what="Chetaev–Lagrange mass matrix")
    printed = {**_labelled(r, "r"), **_labelled(lamA, "λ")}
    computed = {**_labelled(sol[S.n:, :] - sp.Matrix(list(f)), "r"),
                **_labelled(-x[S.n:, :], "λ")}
    _, B2, _ = _partials(S, list(ns.phi))
    a = _metric_by_hand(S, ns.T)
    gram = (B2 * a.inv() * B2.T).det()
    m = B2.rows
    kkt = sp.Matrix(sp.BlockMatrix([[a, B2.T], [B2, sp.zeros(m, m)]])).det()
    ratio = sp.factor(kkt / (a.det() * gram))
    detail = ("Gram-type determinant det(b_2 a⁻¹ b_2ᵀ) = " + sp.sstr(sp.factor(gram))
              + (" ≠ 0" if not is_zero(gram) else " = 0 (!)")
              + f"; it is the determinant of the m equations for λ after r is eliminated — the m + n equations "
                f"(5), (7) have det = {sp.sstr(ratio)}·det(a)·det(b_2 a⁻¹ b_2ᵀ), also ≠ 0")
    return compare(printed, computed, "particle with ẋ² + ẏ² = v(t)², spring and constant force (rheonomic)",
                   detail=detail)
