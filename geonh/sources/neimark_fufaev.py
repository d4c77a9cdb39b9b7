"""Neimark & Fufaev 1960, *Перестановочные соотношения в аналитической механике неголономных
систем* (seed 004): the audited formulas.

Each check types in the printed formula literally (NF's notation: r, s, l free; j dependent;
ρ the first k dependent coordinates; σ the others; λ, α, β, μ, ν over free + ρ) and compares
it with what geonh computes from brackets (:mod:`geonh.transposition`) or with its equations of
motion (:mod:`geonh.equations`); see :mod:`geonh.sources.ledger`.

The examples are small polynomial systems (fast) and the Chaplygin sleigh:

* ``_particle``: (x, y, z) with ż = y ẋ (the nonholonomic particle), T = ½(ẋ² + ẏ² + ż²);
* ``_toy``: (x, y, z, w) with ż = y ẋ, ẇ = z ẏ (a_wy depends on the dependent z, so the j-sum
  of (1.6) matters), T = ½(ẋ² + (1 + z²) ẏ² + ż² + ẇ²) (depends on a dependent coordinate),
  V = g w + ½ κ x²; free quasi-velocities π̇_1 = ẋ, π̇_2 = y ẋ + ẏ (non-integrable).

NF treat homogeneous constraints only ("линейными и однородными вида (1.2)"), so do the checks.
"""
from __future__ import annotations

import sympy as sp

from ..equations import chaplygin, neimark_fufaev, voronets
from ..equations.engine import lagrange_split
from ..kernel.fields import VectorField
from ..kernel.space import ConfigurationSpace
from ..systems.mechanical import MechanicalSystem
from ..transposition import ConstrainedSetting, printed_nf_B, printed_nf_gamma
from .ledger import Finding, compare, definition, formula

# -- the examples ------------------------------------------------------------------------------
_TOY_QUASI = [[1, 0], [sp.Symbol("y", real=True), 1]]   # π̇_1 = ẋ, π̇_2 = y ẋ + ẏ


def _particle_setting(quasi=None) -> ConstrainedSetting:
    S = ConfigurationSpace("x y z")
    _, y, z = S.q
    return ConstrainedSetting(S, [z], [[y, 0]], quasi=quasi)


def _toy_setting(quasi=None) -> ConstrainedSetting:
    S = ConfigurationSpace("x y z w")
    _, y, z, w = S.q
    return ConstrainedSetting(S, [z, w], [[y, 0], [0, z]], quasi=quasi)


def _toy_system() -> MechanicalSystem:
    S = ConfigurationSpace("x y z w")
    x, y, z, w = S.q
    xd, yd, zd, wd = S.qd
    g, kap = sp.symbols("g kappa", positive=True)
    return MechanicalSystem(S, (xd**2 + (1 + z**2) * yd**2 + zd**2 + wd**2) / 2, V=g * w + kap * x**2 / 2,
                            constraints=[zd - y * xd, wd - z * yd], name="NF toy")


def _particle_system() -> MechanicalSystem:
    S = ConfigurationSpace("x y z")
    x, y, _ = S.q
    xd, yd, zd = S.qd
    kap = sp.Symbol("kappa", positive=True)
    return MechanicalSystem(S, (xd**2 + yd**2 + zd**2) / 2, V=kap * x**2 / 2, constraints=[zd - y * xd],
                            name="nonholonomic particle")


_TOY = "toy ż = y ẋ, ẇ = z ẏ, T = ½(ẋ² + (1+z²)ẏ² + ż² + ẇ²), V = g w + ½κx²"
_TOYQ = _TOY + ", π̇_1 = ẋ, π̇_2 = y ẋ + ẏ"
_PART = "nonholonomic particle ż = y ẋ"


def _nf_a(setting: ConstrainedSetting, k: int, quasi) -> sp.Matrix:
    """a_λα of (1.3), typed in: π̇_r = a_rs q̇_s, π̇_ρ = a_ρs q̇_s − q̇_ρ (columns free, then ρ)."""
    m = setting.m
    p = m + k
    a = sp.zeros(p, p)
    a[:m, :m] = sp.Matrix(quasi) if quasi is not None else sp.eye(m)
    for i in range(k):
        a[m + i, :m] = setting.a[i, :]
        a[m + i, m + i] = -1
    return a


def _array_dict(arr, label: str, names) -> dict:
    """label_{n1,n2,...} -> entry for a rank-3 array (names: one list per axis)."""
    out = {}
    sh = arr.shape
    for i in range(sh[0]):
        for j in range(sh[1]):
            for k in range(sh[2]):
                out[f"{label}_{{{names[0][i]},{names[1][j]},{names[2][k]}}}"] = arr[i, j, k]
    return out


def _nm(qs) -> list[str]:
    return [q.name for q in qs]


# -- § 0 -----------------------------------------------------------------------------------------
@formula("neimark-fufaev1960", "(0.1)", topic="d and δ commute on the independent coordinates",
         printed="dδq_τ − δdq_τ = 0 for the coordinates whose variations are independent (Suslov's view)",
         computed="[V, W]^s = 0 for the free q_s, V, W the d and δ fields of (1.1) with k = 0",
         api="TranspositionalRelations.coordinates", expected="agrees")
def _nf_0_1() -> Finding:
    st = _toy_setting()
    T = st.transposition(0)
    comps = T.coordinates()
    S = st.space
    printed = {f"dδ{q.name} − δd{q.name}": sp.S.Zero for q in st.free}
    computed = {f"dδ{q.name} − δd{q.name}": comps[S.index(q)] for q in st.free}
    found = compare(printed, computed, _TOY + ", k = 0")
    dep = {q.name: comps[S.index(q)] for q in st.dependent}
    return Finding(found.status, found.example, found.difference,
                   "on the dependent coordinates they do not commute: "
                   + "; ".join(f"dδ{k} − δd{k} = {v}" for k, v in dep.items()))


# -- § 1 -----------------------------------------------------------------------------------------
@formula("neimark-fufaev1960", "(1.1)", topic="the d and δ fields of the k-family",
         printed="dq_τ = ∂q_τ/∂u_1 du_1, δq_τ = ∂q_τ/∂u_r δu_r (τ ≤ m+k); dq_τ = a_τs dq_s, δq_τ = a_τs δq_s (τ > m+k)",
         computed="V = dq_α ∂_α + a_σs dq_s ∂_σ, W = δq_α ∂_α + a_σs δq_s ∂_σ (constant dq_α, δq_α): "
                  "same dδ − δd at every point",
         api="ConstrainedSetting.fields, TranspositionalRelations.coordinates", expected="agrees")
def _nf_1_1() -> Finding:
    # the printed fields in a curvilinear chart of the (free, ρ) coordinates, u_1 along the motion
    u1, u2, u3 = sp.symbols("u1 u2 u3", real=True)
    du1 = sp.Symbol("du1", real=True)
    xu1, xu2 = sp.symbols("δu1 δu2", real=True)
    printed, computed = {}, {}
    for k in (0, 1):
        st = _particle_setting()
        S = st.space
        x, y, z = S.q
        T = st.transposition(k)
        # chart q_α = q_α(u): x = u1, y = u2 (1 + u1) (, z = u3 + u1 u2), and its inverse
        chart = [u1, u2 * (1 + u1)] + ([u3 + u1 * u2] if k else [])
        us = [u1, u2] + ([u3] if k else [])
        inv = {u1: x, u2: y / (1 + x)}
        if k:
            inv[u3] = z - x * y / (1 + x)
        lam = list(T.q_lambda)
        J = [[sp.diff(c, uu).xreplace(inv) for uu in us] for c in chart]  # ∂q_α/∂u_β at q
        Vc = {q: J[i][0] * du1 for i, q in enumerate(lam)}               # dq_τ = ∂q_τ/∂u_1 du_1
        Wc = {q: J[i][0] * xu1 + J[i][1] * xu2 for i, q in enumerate(lam)}  # δq_τ = ∂q_τ/∂u_r δu_r
        for j, q in enumerate(st.dependent[k:]):                          # τ > m + k: the constraints
            Vc[q] = sum(st.a[k + j, s] * Vc[f] for s, f in enumerate(st.free))
            Wc[q] = sum(st.a[k + j, s] * Wc[f] for s, f in enumerate(st.free))
        V = VectorField.from_dict(S, Vc)
        W = VectorField.from_dict(S, Wc)
        rel = [V(W[i]) - W(V[i]) for i in range(S.n)]
        # geonh's relations with its constant symbols set to the chart fields' values at the point
        vals = {T.d_symbols[q]: Vc[q] for q in lam}
        vals.update({T.delta_symbols[q]: Wc[q] for q in lam})
        mine = [c.xreplace(vals) for c in T.coordinates()]
        for i, q in enumerate(S.q):
            printed[f"k={k}: dδ{q.name} − δd{q.name}"] = rel[i]
            computed[f"k={k}: dδ{q.name} − δd{q.name}"] = mine[i]
        # and the fields themselves: geonh's V, W take the chart's values
        for i, q in enumerate(S.q):
            printed[f"k={k}: V^{q.name}"] = Vc[q]
            computed[f"k={k}: V^{q.name}"] = T.V[i].xreplace(vals)
            printed[f"k={k}: W^{q.name}"] = Wc[q]
            computed[f"k={k}: W^{q.name}"] = T.W[i].xreplace(vals)
    rz = sp.factor(printed["k=0: dδz − δdz"])
    return compare(printed, computed, _PART + ", chart x = u1, y = u2(1+u1) (z = u3 + u1 u2 for k = 1), k = 0, 1",
                   detail=f"k = 0: dδz − δdz = {rz} both ways; the τ of the second line is NF's σ (notation only); "
                          "geonh's constant components are the chart of q_α linear in u")


@formula("neimark-fufaev1960", "(1.2)", topic="linear homogeneous constraints",
         printed="q̇_j = a_js q̇_s",
         computed="ConstrainedSetting.from_codistribution(sleigh constraints, dependent=[y]).velocity_substitution()",
         api="ConstrainedSetting.velocity_substitution", expected="agrees")
def _nf_1_2() -> Finding:
    from .. import models
    sleigh = models.mechanical.chaplygin_sleigh()
    S = sleigh.system.space
    _, y, th = S.q
    xd, yd, _ = S.qd
    st = ConstrainedSetting.from_codistribution(sleigh.system.constraints, dependent=[y])
    sub = st.velocity_substitution()
    printed = {"ẏ": sp.tan(th) * xd}          # a_yx = tan θ, a_yθ = 0
    return definition({"ẏ": sub[yd]}, printed, "Chaplygin sleigh, sin θ ẋ − cos θ ẏ = 0, y dependent")


@formula("neimark-fufaev1960", "(1.3)", topic="quasi-velocities of the k-family",
         printed="π̇_r = a_rs q̇_s, π̇_ρ = a_ρs q̇_s − q̇_ρ",
         computed="θ^λ(q̇) of the adapted frame F_k (TranspositionalRelations.frame), λ over the π's",
         api="TranspositionalRelations.frame, TranspositionalRelations.a", expected="agrees")
def _nf_1_3() -> Finding:
    printed, computed = {}, {}
    for k in (1, 2):
        st = _toy_setting()
        S = st.space
        _, y, z, _ = S.q
        xd, yd, zd, wd = S.qd
        T = st.transposition(k, quasi=_TOY_QUASI)
        pr = [xd, y * xd + yd, y * xd - zd] + ([z * yd - wd] if k == 2 else [])
        om = T.frame.quasi_velocities()
        for i, e in enumerate(pr):
            printed[f"k={k}: π̇_{i + 1}"] = e
            computed[f"k={k}: π̇_{i + 1}"] = om[i]
    return definition(computed, printed, _TOYQ + ", k = 1, 2")


@formula("neimark-fufaev1960", "(1.4)", topic="transpositional relations of the k-family",
         printed="dδq_λ − δdq_λ = 0, dδπ_λ − δdπ_λ = γ_νλμ dπ_μ δπ_ν, dδq_σ − δdq_σ = B^σ_rs dq_r δq_s "
                 "(γ of (1.5), B of (1.6))",
         computed="V(θ(W)) − W(θ(V)) for the fields of (1.1): [V, W]^λ, dθ^λ(V, W) in dπ, δπ, [V, W]^σ on the motion",
         api="TranspositionalRelations.coordinates, TranspositionalRelations.quasi", expected="agrees")
def _nf_1_4() -> Finding:
    printed, computed = {}, {}
    for k in (0, 1, 2):
        st = _toy_setting()
        S = st.space
        T = st.transposition(k, quasi=_TOY_QUASI)
        a = _nf_a(st, k, _TOY_QUASI)
        lam = list(T.q_lambda)
        gam = printed_nf_gamma(a, lam)
        B = printed_nf_B(st.a, st.free, st.dependent, k)
        raw = T.coordinates()
        onm = T.coordinates(on_motion=True)
        quasi = T.quasi()
        p = len(lam)
        for q in lam:
            printed[f"k={k}: dδ{q.name} − δd{q.name}"] = sp.S.Zero
            computed[f"k={k}: dδ{q.name} − δd{q.name}"] = raw[S.index(q)]
        for L in range(p):
            printed[f"k={k}: dδπ{L + 1} − δdπ{L + 1}"] = sum(
                gam[nu, L, mu] * T.dpi[mu] * T.deltapi[nu] for nu in range(p) for mu in range(p))
            computed[f"k={k}: dδπ{L + 1} − δdπ{L + 1}"] = quasi[L]
        dq = [T.d_symbols[q] for q in st.free]
        xq = [T.delta_symbols[q] for q in st.free]
        for i, q in enumerate(T.sigma):
            printed[f"k={k}: dδ{q.name} − δd{q.name}"] = sum(
                B[i, r, s] * dq[r] * xq[s] for r in range(st.m) for s in range(st.m))
            computed[f"k={k}: dδ{q.name} − δd{q.name}"] = onm[S.index(q)]
    return compare(printed, computed, _TOYQ + ", k = 0, 1, 2 (a_λα free of the q_σ, where (1.5) is complete)",
                   detail="k = n − m: every dδq − δdq = 0 (Hamel/Volterra); k = 0: only the free ones (Suslov)")


@formula("neimark-fufaev1960", "(1.5)", topic="γ of the k-family",
         printed="γ_νλμ = b_αν b_βμ (∂a_λα/∂q_β − ∂a_λβ/∂q_α), b_αλ a_λβ = δ_αβ",
         computed="γ_νλμ = c^λ_νμ of the frame F_k = b_αν b_βμ (D_β a_λα − D_α a_λβ), D_β = ∂/∂q_β + a_σβ ∂/∂q_σ",
         api="TranspositionalRelations.gamma", expected="hypothesis")
def _nf_1_5() -> Finding:
    c = sp.Symbol("c", real=True)
    printed, computed = {}, {}
    for k in (0, 1):
        st = _particle_setting()
        x, _, z = st.space.q
        quasi = [[1, x + c * z], [0, 1]]          # π̇_1 = ẋ + (x + c z) ẏ, π̇_2 = ẏ
        T = st.transposition(k, quasi=quasi)
        a = _nf_a(st, k, quasi)
        names = [[f"{i + 1}" for i in range(st.m + k)]] * 3
        pr = _array_dict(printed_nf_gamma(a, list(T.q_lambda)), f"k={k}: γ", names)
        cp = _array_dict(T.gamma, f"k={k}: γ", names)
        printed.update(pr)
        computed.update(cp)
    return compare(printed, computed,
                   _PART + ", π̇_1 = ẋ + (x + c z) ẏ, π̇_2 = ẏ; k = 0 (σ = z) and k = 1 (no σ)",
                   hypothesis="the a_λα do not depend on the q_σ (here c = 0); always for k = n − m",
                   under={c: 0},
                   detail="missing the terms a_σβ ∂a_λα/∂q_σ: ∂/∂q_β must be the derivative along the constraints, "
                          "as in NF's own (2.6)")


@formula("neimark-fufaev1960", "(1.6)", topic="B of the k-family",
         printed="B^σ_rs = ∂a_σs/∂q_r + ∂a_σs/∂q_j a_jr − ∂a_σr/∂q_s − ∂a_σr/∂q_j a_js",
         computed="B^σ_rs from [V, W]^σ on the motion (dq_ρ = a_ρs dq_s, δq_ρ = a_ρs δq_s), j over all dependent",
         api="TranspositionalRelations.B", expected="agrees")
def _nf_1_6() -> Finding:
    printed, computed = {}, {}
    for k in (0, 1):
        st = _toy_setting()
        T = st.transposition(k)
        names = [_nm(T.sigma), _nm(st.free), _nm(st.free)]
        printed.update(_array_dict(printed_nf_B(st.a, st.free, st.dependent, k), f"k={k}: B", names))
        computed.update(_array_dict(T.B, f"k={k}: B", names))
    return compare(printed, computed, "toy ż = y ẋ, ẇ = z ẏ (a_wy = z depends on a dependent coordinate), k = 0, 1")


# -- § 2: helpers ------------------------------------------------------------------------------
def _speeds(m: int):
    u = tuple(sp.Symbol(f"u{i + 1}", real=True) for i in range(m))
    ud = tuple(sp.Symbol(f"u{i + 1}_dot", real=True) for i in range(m))
    return u, ud


class _Along:
    """The fields (1.1) of the k-family (π = q) along a motion q̇ = K(q, u): d symbols → values on
    the motion, K, and the virtual δ symbols (δq_ρ = a_ρs δq_s)."""

    def __init__(self, system: MechanicalSystem, dependent, k: int):
        st = ConstrainedSetting.from_codistribution(system.constraints, dependent)
        self.st = st
        self.tr = tr = st.transposition(k)
        self.S = S = system.space
        self.u, self.ud = _speeds(st.m)
        d_on = {tr.d_symbols[q]: self.u[s] for s, q in enumerate(st.free)}
        for i, q in enumerate(tr.rho):
            d_on[tr.d_symbols[q]] = sum(st.a[i, s] * self.u[s] for s in range(st.m))
        self.d_on = d_on
        self.K = [tr.V[i].xreplace(d_on) for i in range(S.n)]
        self.on_v = dict(zip(S.qd, self.K))
        self.virtual = {tr.delta_symbols[q]: sum(st.a[i, s] * tr.delta_symbols[f] for s, f in enumerate(st.free))
                        for i, q in enumerate(tr.rho)}
        self.xq = [tr.delta_symbols[f] for f in st.free]

    def dt(self, expr):
        return self.S.total_derivative(expr, along=self.K, speeds=self.u, rates=self.ud)

    def dalembert(self, system: MechanicalSystem):
        """Σ_i (d/dt ∂T/∂q̇_i − ∂T/∂q_i − Q_i) δq_i on the motion (geonh's Lagrange split)."""
        sl = lagrange_split(system, self.K, self.u)
        MdK, LQ0 = sl.MdK, sl.LQ0
        W = self.tr.W
        return sum((sum(MdK[i][s] * self.ud[s] for s in range(len(self.u))) + LQ0[i]) * W[i]
                   for i in range(self.S.n)).xreplace(self.virtual)


# -- § 2 -----------------------------------------------------------------------------------------
@formula("neimark-fufaev1960", "(2.1)", topic="central equation (d'Alembert–Lagrange rewritten)",
         printed="d/dt(∂T/∂q̇_i δq_i) − δT + ∂T/∂q_i (δq̇_i − d/dt δq_i) = Q_i δq_i",
         computed="d/dt(∂T/∂q̇_i δq_i) − δT + ∂T/∂q̇_i (δq̇_i − d/dt δq_i) − Q_i δq_i "
                  "= (d/dt ∂T/∂q̇_i − ∂T/∂q_i − Q_i) δq_i",
         api="equations.engine.central_equations, equations.engine.lagrange_split", expected="misprint")
def _nf_2_1() -> Finding:
    system = _particle_system()
    S = system.space
    printed, computed, read = {}, {}, {}
    for k in (0, 1):
        al = _Along(system, ["z"], k)
        V, W = al.tr.V, al.tr.W
        p = [sp.diff(system.T, v) for v in S.qd]
        dTdq = [sp.diff(system.T, q) for q in S.q]
        A = al.dt(sum(p[i].xreplace(al.on_v) * W[i] for i in range(S.n)))            # d/dt(∂T/∂q̇_i δq_i)
        dT = W(system.T.xreplace(dict(zip(S.qd, V.components)))).xreplace(al.d_on)   # δT = W(T(q, V))
        dqdot = [W(V[i]).xreplace(al.d_on) for i in range(S.n)]                       # δq̇_i
        ddq = [al.dt(W[i]) for i in range(S.n)]                                       # d/dt δq_i
        QW = sum(system.Q[i].xreplace(al.on_v) * W[i] for i in range(S.n))
        lit = A - dT + sum(dTdq[i].xreplace(al.on_v) * (dqdot[i] - ddq[i]) for i in range(S.n)) - QW
        fix = A - dT + sum(p[i].xreplace(al.on_v) * (dqdot[i] - ddq[i]) for i in range(S.n)) - QW
        printed[f"k={k}"] = lit.xreplace(al.virtual)
        read[f"k={k}"] = fix.xreplace(al.virtual)
        computed[f"k={k}"] = al.dalembert(system)
    found = compare(printed, computed, _PART + ", T = ½(ẋ²+ẏ²+ż²), V = ½κx²; δ, d the fields (1.1), k = 0, 1; "
                    "δq̇_i = W(V^i), d/dt δq_i along the motion")
    if found.status == "misprint" and compare(read, computed, "").status == "agrees":
        return Finding("misprint", found.example, found.difference,
                       "the factor of (δq̇_i − d/dt δq_i) must be ∂T/∂q̇_i (as in (2.2), (3.2)); the dot is lost "
                       "(print or OCR); with it (2.1) is an identity")
    return found


@formula("neimark-fufaev1960", "(2.2)", topic="central equation with the relations (1.4)",
         printed="d/dt(∂T/∂q̇_i δq_i) − δT − ∂T/∂q̇_σ B^σ_rs q̇_r δq_s = Q_i δq_i",
         computed="(d/dt ∂T/∂q̇_i − ∂T/∂q_i − Q_i) δq_i on the motion, δ virtual (geonh's Lagrange split)",
         api="equations.engine.lagrange_split, TranspositionalRelations.B", expected="agrees")
def _nf_2_2() -> Finding:
    system = _toy_system()
    S = system.space
    printed, computed = {}, {}
    for k in (0, 1):
        al = _Along(system, ["z", "w"], k)
        st, V, W = al.st, al.tr.V, al.tr.W
        B = printed_nf_B(st.a, st.free, st.dependent, k)
        p = [sp.diff(system.T, v) for v in S.qd]
        A = al.dt(sum(p[i].xreplace(al.on_v) * W[i] for i in range(S.n)))
        dT = W(system.T.xreplace(dict(zip(S.qd, V.components)))).xreplace(al.d_on)
        qdot = [al.on_v[S.velocity(f)] for f in st.free]
        Bt = sum(p[S.index(q)].xreplace(al.on_v) * B[i, r, s] * qdot[r] * al.xq[s]
                 for i, q in enumerate(al.tr.sigma) for r in range(st.m) for s in range(st.m))
        QW = sum(system.Q[i].xreplace(al.on_v) * W[i] for i in range(S.n))
        printed[f"k={k}"] = (A - dT - Bt - QW).xreplace(al.virtual)
        computed[f"k={k}"] = al.dalembert(system)
    return compare(printed, computed, _TOY + "; k = 0, 1; B typed in from (1.6)")


def _k_frame(k: int):
    st = _toy_setting()
    return st, st.transposition(k, quasi=_TOY_QUASI), _nf_a(st, k, _TOY_QUASI)


@formula("neimark-fufaev1960", "(2.3)", topic="variations of coordinates and quasi-coordinates",
         printed="δq_λ = b_λν δπ_ν, δq_σ = a_σs δq_s = a_σs b_sν δπ_ν, b_λν a_νμ = δ_λμ",
         computed="W = δπ_ν X_ν with X_ν the fields of the adapted frame F_k (TranspositionalRelations.frame)",
         api="TranspositionalRelations.frame", expected="agrees")
def _nf_2_3() -> Finding:
    printed, computed = {}, {}
    for k in (0, 1):
        st, T, a = _k_frame(k)
        S = st.space
        b = a.inv()
        lam = list(T.q_lambda)
        p = len(lam)
        dpi = T.deltapi[:p]
        for i, q in enumerate(lam):
            printed[f"k={k}: δ{q.name}"] = sum(b[i, nu] * dpi[nu] for nu in range(p))
        for j, q in enumerate(T.sigma):
            printed[f"k={k}: δ{q.name}"] = sum(st.a[k + j, s] * b[s, nu] * dpi[nu]
                                                for s in range(st.m) for nu in range(p))
        Wf = sum((dpi[nu] * T.frame.fields[nu].as_matrix() for nu in range(p)), sp.zeros(S.dim, 1))
        for q in lam + list(T.sigma):
            computed[f"k={k}: δ{q.name}"] = Wf[S.index(q)]
    return definition(computed, printed, _TOYQ + ", k = 0, 1")


def _tstar_printed(system: MechanicalSystem, st: ConstrainedSetting, T, a, P):
    """T* of (2.4), typed in: T(q_i, b_λν π̇_ν, a_σs b_sν π̇_ν)."""
    S = system.space
    b = a.inv()
    lam = list(T.q_lambda)
    p = len(lam)
    sub = {S.velocity(q): sum(b[i, nu] * P[nu] for nu in range(p)) for i, q in enumerate(lam)}
    for j, q in enumerate(T.sigma):
        sub[S.velocity(q)] = sum(st.a[T.k + j, s] * b[s, nu] * P[nu] for s in range(st.m) for nu in range(p))
    return system.T.xreplace(sub), sub


@formula("neimark-fufaev1960", "(2.4)", topic="kinetic energy in quasi-velocities",
         printed="T*(q_i, π̇_ν) = T(q_i, b_λν π̇_ν, a_σs b_sν π̇_ν)",
         computed="T(q, C ω) with ω = (π̇_ν, η_σ = 0) in the adapted frame F_k (Frame.velocities_from)",
         api="Frame.velocities_from, TranspositionalRelations.frame", expected="agrees")
def _nf_2_4() -> Finding:
    system = _toy_system()
    S = system.space
    printed, computed = {}, {}
    for k in (0, 1, 2):
        st, T, a = _k_frame(k)
        p = st.m + k
        P = sp.symbols(f"P1:{p + 1}", real=True)
        Ts, _ = _tstar_printed(system, st, T, a, P)
        qd = T.frame.velocities_from(list(P) + [0] * len(T.sigma))
        printed[f"k={k}"] = Ts
        computed[f"k={k}"] = system.T.xreplace(dict(zip(S.qd, qd)))
    return definition(computed, printed, _TOYQ + ", k = 0, 1, 2")


@formula("neimark-fufaev1960", "(2.6)", topic="derivative of T* along a quasi-coordinate",
         printed="∂T*/∂π_l = ∂T*/∂q_λ b_λl + ∂T*/∂q_σ a_σs b_sl",
         computed="X_l(T*), X_l = b_αl (∂_α + a_σα ∂_σ) the l-th field of the adapted frame F_k",
         api="TranspositionalRelations.frame", expected="agrees")
def _nf_2_6() -> Finding:
    system = _toy_system()
    printed, computed = {}, {}
    for k in (0, 1):
        st, T, a = _k_frame(k)
        b = a.inv()
        p = st.m + k
        P = sp.symbols(f"P1:{p + 1}", real=True)
        Ts, _ = _tstar_printed(system, st, T, a, P)
        for l in range(st.m):
            pr = sum(sp.diff(Ts, q) * b[i, l] for i, q in enumerate(T.q_lambda))
            pr += sum(sp.diff(Ts, q) * st.a[k + j, s] * b[s, l] for j, q in enumerate(T.sigma) for s in range(st.m))
            printed[f"k={k}, l={l + 1}"] = pr
            computed[f"k={k}, l={l + 1}"] = T.frame.fields[l](Ts)
    return definition(computed, printed, _TOYQ + " (T depends on the dependent z), k = 0, 1")


def _printed_2_5(system, k, read: bool):
    """(2.5) typed in, on the motion: d/dt ∂T*/∂π̇_l − ∂T*/∂π_l + γ_lλμ ∂T*/∂π̇_λ π̇_μ
    − B^σ_rs ∂T*/∂q̇_σ q̇_r b_sl − Π_l.  ``read``: ∂T*/∂q̇_σ read as ∂T/∂q̇_σ with (2.4)."""
    S = system.space
    st, T, a = _k_frame(k)
    b = a.inv()
    m, p = st.m, st.m + k
    lam = list(T.q_lambda)
    P = sp.symbols(f"P1:{p + 1}", real=True)
    u, ud = _speeds(m)
    Ts, sub = _tstar_printed(system, st, T, a, P)
    on = {P[i]: (u[i] if i < m else 0) for i in range(p)}
    K = [sub[v].xreplace(on) for v in S.qd]
    on_v = dict(zip(S.qd, K))
    gam = printed_nf_gamma(a, lam)
    B = printed_nf_B(st.a, st.free, st.dependent, k)
    J = [sp.diff(Ts, P[i]) for i in range(p)]
    qdot = [on_v[S.velocity(f)] for f in st.free]
    out = []
    for l in range(m):
        e = S.total_derivative(J[l].xreplace(on), along=K, speeds=u, rates=ud)
        e -= (sum(sp.diff(Ts, q) * b[i, l] for i, q in enumerate(lam))
              + sum(sp.diff(Ts, q) * st.a[k + j, s] * b[s, l] for j, q in enumerate(T.sigma) for s in range(m))
              ).xreplace(on)
        e += sum(gam[l, L, mu] * J[L] * P[mu] for L in range(p) for mu in range(p)).xreplace(on)
        for j, q in enumerate(T.sigma):
            dTs = (sp.diff(system.T, S.velocity(q)).xreplace(sub) if read else sp.diff(Ts, S.velocity(q))).xreplace(on)
            e -= sum(B[j, r, s] * dTs * qdot[r] * b[s, l] for r in range(m) for s in range(m))
        Pi = sum(system.Q[S.index(q)] * b[i, l] for i, q in enumerate(lam))
        Pi += sum(system.Q[S.index(q)] * st.a[k + j, s] * b[s, l] for j, q in enumerate(T.sigma) for s in range(m))
        e -= Pi.xreplace(on_v)
        out.append(e)
    return out, u, ud


@formula("neimark-fufaev1960", "(2.5)", topic="intermediate equations of motion (k-family)",
         printed="d/dt ∂T*/∂π̇_l − ∂T*/∂π_l + γ_lλμ ∂T*/∂π̇_λ π̇_μ − B^σ_rs ∂T*/∂q̇_σ q̇_r b_sl = Π_l",
         computed="the engine with the fields (1.1) of k: the same with ∂T/∂q̇_σ (T* has no q̇_σ) in the B term",
         api="equations.neimark_fufaev", expected="misprint")
def _nf_2_5() -> Finding:
    system = _toy_system()
    printed, computed, read = {}, {}, {}
    for k in (0, 1, 2):
        eq = neimark_fufaev(system, k, ["z", "w"], quasi=_TOY_QUASI)
        lit, u, ud = _printed_2_5(system, k, False)
        fix, _, _ = _printed_2_5(system, k, True)
        ren = dict(zip(eq.u + eq.ud, u + ud))
        for l in range(len(lit)):
            printed[f"k={k}, l={l + 1}"] = lit[l]
            read[f"k={k}, l={l + 1}"] = fix[l]
            computed[f"k={k}, l={l + 1}"] = eq.residuals[l].xreplace(ren)
    found = compare(printed, computed, _TOYQ + ", k = 0, 1, 2 (γ from (1.5), complete here; B from (1.6))")
    if found.status == "misprint" and compare(read, computed, "").status == "agrees":
        return Finding("misprint", found.example, found.difference,
                       "T* = T(q, b π̇, a b π̇) has no q̇_σ, so ∂T*/∂q̇_σ ≡ 0 as printed; read as ∂T/∂q̇_σ "
                       "with (2.4) substituted, (2.5) agrees for every k (for k = n − m the term is absent: "
                       "Boltzmann–Hamel; the text's 'уравнения (2.4)' there means (2.5))")
    return found


def _printed_2_7(system, dependent, read: bool):
    """(2.7) typed in, on the motion; ``read``: −∂T°/∂q_l restored and (∂T/∂q̇_j)° in the B term."""
    S = system.space
    st = ConstrainedSetting.from_codistribution(system.constraints, dependent)
    m = st.m
    u, ud = _speeds(m)
    fi = [S.index(f) for f in st.free]
    zero = {S.velocity(q): sum(st.a[j, s] * S.velocity(f) for s, f in enumerate(st.free))
            for j, q in enumerate(st.dependent)}
    T0 = system.T.xreplace(zero)                                  # T° (constraints put in)
    to_u = {S.velocity(f): u[s] for s, f in enumerate(st.free)}
    K = [S.qd[i].xreplace(zero).xreplace(to_u) for i in range(S.n)]
    on_v = dict(zip(S.qd, K))
    B = printed_nf_B(st.a, st.free, st.dependent, 0)
    out = []
    for l, fl in enumerate(st.free):
        e = S.total_derivative(sp.diff(T0, S.velocity(fl)).xreplace(to_u), along=K, speeds=u, rates=ud)
        e -= sum(sp.diff(T0, q) * st.a[j, l] for j, q in enumerate(st.dependent)).xreplace(to_u)
        if read:
            e -= sp.diff(T0, fl).xreplace(to_u)
        for j, q in enumerate(st.dependent):
            pj = sp.diff(system.T, S.velocity(q)).xreplace(zero) if read else sp.diff(T0, S.velocity(q))
            e -= sum(B[j, r, l] * pj.xreplace(to_u) * u[r] for r in range(m))
        Pi = system.Q[fi[l]] + sum(system.Q[S.index(q)] * st.a[j, l] for j, q in enumerate(st.dependent))
        e -= Pi.xreplace(on_v)
        out.append(e)
    return out, u, ud


@formula("neimark-fufaev1960", "(2.7)", topic="Voronets's equations (k = 0), Chaplygin's as a case",
         printed="d/dt ∂T°/∂q̇_l − ∂T°/∂q_j a_jl − B^j_rl ∂T°/∂q̇_j q̇_r = Π_l",
         computed="d/dt ∂T°/∂q̇_l − ∂T°/∂q_l − ∂T°/∂q_j a_jl − B^j_rl (∂T/∂q̇_j)° q̇_r = Π_l (voronets; chaplygin)",
         api="equations.voronets, equations.chaplygin", expected="misprint")
def _nf_2_7() -> Finding:
    from .. import models
    sleigh = models.mechanical.chaplygin_sleigh().system
    cases = [("toy", _toy_system(), ["z", "w"], voronets), ("sleigh", sleigh, ["y"], chaplygin)]
    printed, computed, read = {}, {}, {}
    for name, system, dep, form in cases:
        eq = form(system, dep)
        lit, u, ud = _printed_2_7(system, dep, False)
        fix, _, _ = _printed_2_7(system, dep, True)
        ren = dict(zip(eq.u + eq.ud, u + ud))
        for l in range(len(lit)):
            printed[f"{name}, l={l + 1}"] = lit[l]
            read[f"{name}, l={l + 1}"] = fix[l]
            computed[f"{name}, l={l + 1}"] = eq.residuals[l].xreplace(ren)
    found = compare(printed, computed, _TOY + " (Voronets, z, w dependent); Chaplygin sleigh (Chaplygin, y dependent)")
    # NF: for k = 0 (π = q, a_sl = b_sl = δ_sl) γ_lλμ = 0, so (2.5) has no γ term
    g0 = _toy_setting().transposition(0).gamma
    g0_zero = all(e == 0 for e in sp.flatten(g0.tolist()))
    gamma_note = "; γ_lλμ = 0 for k = 0 (brackets), as NF say" if g0_zero else "; γ ≠ 0 for k = 0 (!)"
    if found.status == "misprint" and compare(read, computed, "").status == "agrees":
        return Finding("misprint", found.example, found.difference,
                       "the term −∂T°/∂q_l (from −∂T*/∂π_l of (2.6)) is missing, and ∂T°/∂q̇_j ≡ 0 (T° has no q̇_j) "
                       "must be (∂T/∂q̇_j)°; with both, (2.7) agrees, on the sleigh with Chaplygin's equations too"
                       + gamma_note)
    return found


# -- § 3: Hamilton's principle -----------------------------------------------------------------
class _Variation:
    """Virtual variations δq_s = η_s(t), δq_j = a_js η_s along the motion q̇ = K(q, u) of the
    free velocities u (the motion of geonh's Voronets equations), and the Euler–Lagrange
    expressions d/dt ∂I/∂η̇_r − ∂I/∂η_r of an integrand I linear in (η, η̇)."""

    def __init__(self, system: MechanicalSystem, dependent):
        self.system = system
        self.S = S = system.space
        self.st = st = ConstrainedSetting.from_codistribution(system.constraints, dependent)
        self.eq = voronets(system, dependent)
        self.u, self.ud, self.K = self.eq.u, self.eq.ud, list(self.eq.kinematics)
        self.on_v = dict(zip(S.qd, self.K))
        m = st.m
        self.eta = sp.symbols(f"eta1:{m + 1}", real=True)
        self.etad = sp.symbols(f"eta1:{m + 1}_dot", real=True)
        self.dq = [sp.S.Zero] * S.n
        for s, f in enumerate(st.free):
            self.dq[S.index(f)] = self.eta[s]
        for j, q in enumerate(st.dependent):
            self.dq[S.index(q)] = sum(st.a[j, s] * self.eta[s] for s in range(m))
        self.ddq = [S.total_derivative(e, along=self.K, speeds=list(self.u) + list(self.eta),
                                       rates=list(self.ud) + list(self.etad)) for e in self.dq]

    def delta(self, F, qdot_var):
        """δF = ∂F/∂q_i δq_i + ∂F/∂q̇_i δq̇_i on the motion, for the given δq̇_i."""
        S = self.S
        return sum(sp.diff(F, S.q[i]).xreplace(self.on_v) * self.dq[i]
                   + sp.diff(F, S.qd[i]).xreplace(self.on_v) * qdot_var[i] for i in range(S.n))

    def work(self):
        return sum(self.system.Q[i].xreplace(self.on_v) * self.dq[i] for i in range(self.S.n))

    def momenta(self):
        return [sp.diff(self.system.T, v).xreplace(self.on_v) for v in self.S.qd]

    def euler_lagrange(self, I) -> list:
        I = sp.expand(I)
        return [self.S.total_derivative(sp.diff(I, self.etad[r]), along=self.K, speeds=self.u, rates=self.ud)
                - sp.diff(I, self.eta[r]) for r in range(self.st.m)]

    def relations(self, k: int) -> list:
        """dδq_i − δdq_i on the motion from (1.4) of k, typed in: 0 for λ, B^σ_rs q̇_r δq_s for σ (B of (1.6))."""
        S, st = self.S, self.st
        B = printed_nf_B(st.a, st.free, st.dependent, k)
        qdot = [self.on_v[S.velocity(f)] for f in st.free]
        out = [sp.S.Zero] * S.n
        for j, q in enumerate(st.dependent[k:]):
            out[S.index(q)] = sum(B[j, r, s] * qdot[r] * self.eta[s] for r in range(st.m) for s in range(st.m))
        return out


def _residuals(var: _Variation) -> dict:
    return {f"r={r + 1}": e for r, e in enumerate(var.eq.residuals)}


def _labels(exprs) -> dict:
    return {f"r={r + 1}": e for r, e in enumerate(exprs)}


@formula("neimark-fufaev1960", "(3.1)", topic="Hamilton's principle (k = n − m)",
         printed="∫ (δT + δA) dt = 0, with dδq_i = δdq_i for every true coordinate (k = n − m)",
         computed="d/dt ∂I/∂η̇_r − ∂I/∂η_r = Voronets's equations (voronets), δq = η_s X_s virtual",
         api="equations.voronets, equations.hamilton.hamilton_equations", expected="agrees")
def _nf_3_1() -> Finding:
    var = _Variation(_toy_system(), ["z", "w"])
    I = var.delta(var.system.T, var.ddq) + var.work()            # δq̇_i = d/dt δq_i
    found = compare(_labels(var.euler_lagrange(I)), _residuals(var), _TOY + "; k = n − m = 2")
    # with Suslov's relations (k = 0) the same integrand gives other (wrong) equations
    rel = var.relations(0)
    I0 = var.delta(var.system.T, [var.ddq[i] - rel[i] for i in range(var.S.n)]) + var.work()
    wrong = compare(_labels(var.euler_lagrange(I0)), _residuals(var), "")
    note = ("with the k = 0 relations (d, δ commuting on the free coordinates only) (3.1) gives other equations"
            if wrong.status != "agrees" else "")
    return Finding(found.status, found.example, found.difference, note)


@formula("neimark-fufaev1960", "(3.2)", topic="general form of the principle (every k)",
         printed="∫ [δT + δA + ∂T/∂q̇_i (d/dt δq_i − δq̇_i)] dt = 0, δq̇_i from the relations (1.4) of k",
         computed="d/dt ∂I/∂η̇_r − ∂I/∂η_r = Voronets's equations (voronets), for k = 0, 1, 2",
         api="equations.voronets, equations.hamilton.hamilton_equations", expected="agrees")
def _nf_3_2() -> Finding:
    var = _Variation(_toy_system(), ["z", "w"])
    p = var.momenta()
    printed, computed = {}, {}
    for k in (0, 1, 2):
        rel = var.relations(k)                                    # dδq_i − δdq_i
        dqdot = [var.ddq[i] - rel[i] for i in range(var.S.n)]     # δq̇_i = d/dt δq_i − (dδq_i − δdq_i)
        I = var.delta(var.system.T, dqdot) + var.work() + sum(p[i] * (var.ddq[i] - dqdot[i]) for i in range(var.S.n))
        for key, e in _labels(var.euler_lagrange(I)).items():
            printed[f"k={k}, {key}"] = e
        for key, e in _residuals(var).items():
            computed[f"k={k}, {key}"] = e
    return compare(printed, computed, _TOY + "; k = 0, 1, 2 (B of (1.6))")


@formula("neimark-fufaev1960", "(3.3)", topic="Voronets's form of the principle",
         printed="∫ [δ(T̃ + U) + ∂T/∂q̇_j δ(q̇_j − a_js q̇_s)] dt = 0, d and δ commuting on every true coordinate",
         computed="d/dt ∂I/∂η̇_r − ∂I/∂η_r = Voronets's equations (voronets); T̃ = T with q̇_j = a_js q̇_s",
         api="equations.voronets, equations.hamilton.hamilton_equations", expected="agrees")
def _nf_3_3() -> Finding:
    var = _Variation(_toy_system(), ["z", "w"])
    S, st = var.S, var.st
    zero = {S.velocity(q): sum(st.a[j, s] * S.velocity(f) for s, f in enumerate(st.free))
            for j, q in enumerate(st.dependent)}
    Ttil = var.system.T.xreplace(zero)
    U = -var.system.V                                              # the force function
    p = var.momenta()
    I = var.delta(Ttil + U, var.ddq)
    for j, q in enumerate(st.dependent):
        c = S.velocity(q) - sum(st.a[j, s] * S.velocity(f) for s, f in enumerate(st.free))
        I += p[S.index(q)] * var.delta(c, var.ddq)
    found = compare(_labels(var.euler_lagrange(I)), _residuals(var), _TOY + " (conservative: U = −V)")
    # NF's unnumbered reduction after (3.3): δT* (= δT, d and δ commuting) = δT̃ + ∂T/∂q̇_j δ(q̇_j − a_js q̇_s)
    rhs = var.delta(Ttil, var.ddq) + sum(
        p[S.index(q)] * var.delta(S.velocity(q) - sum(st.a[j, s] * S.velocity(f) for s, f in enumerate(st.free)),
                                  var.ddq) for j, q in enumerate(st.dependent))
    same = compare(var.delta(var.system.T, var.ddq), rhs, "").status == "agrees"
    return Finding(found.status, found.example, found.difference,
                   "the unnumbered identity δT* = δT̃ + ∂T/∂q̇_j δ(q̇_j − a_js q̇_s) that reduces (3.3) to (3.1) "
                   + ("holds on the example" if same else "FAILS on the example"))
