"""The engine: Lagrange's central equation, and frame forms as declarations on it.

The engine is Lagrange's central equation in the form of Neimark–Fufaev 1960, eq. (2.1),
written for an arbitrary extension V of the motion (the d field) and virtual fields W (the δ
fields):

    E(W) = d/dt (p·W) − W(T(q, V)) + p·[W, V] − Q·W  =  (d/dt p − ∂T/∂q − Q)·W,     (*)

an identity for any fields; p·[W, V] = −p_i (dδq^i − δdq^i) is the transpositional term
(CONVENTIONS.md: dδq^i − δdq^i = [V, W]^i).  A frame form is a choice of (V, W), stated once
as a :class:`~geonh.equations.declaration.FormDeclaration` and solved by
:func:`~geonh.equations.declaration.solve`; the declarations of Boltzmann–Hamel, Volterra,
Voronets, Chaplygin and Neimark–Fufaev (every k) are in :mod:`geonh.equations.frame_forms`.
"""
from __future__ import annotations

from typing import Mapping, Sequence

import sympy as sp

from ..errors import DimensionError, ParseError, SpaceMismatchError
from ..kernel.budget import check
from ..kernel.fields import VectorField
from ..kernel.parsing import as_exprs, as_mapping, as_sequence, as_symbols, expr_of
from ..systems.mechanical import MechanicalSystem

__all__ = ["lagrange_split", "NativeSplit", "central_equations"]


def lagrange_split(system: MechanicalSystem, K: Sequence[sp.Expr], u: Sequence[sp.Symbol]):
    """Lagrange's expressions on the motion q̇ = K(t, q, u), split by linearity in u̇:
    L_i − Q_i = Σ_s MdK[i][s] u̇_s + LQ0[i], with MdK = M ∂K/∂u (from the primitives of
    :attr:`~geonh.systems.MechanicalSystem.primitives`; no composite expression is differentiated).
    Also returns p, ∂T/∂q and Q on the motion."""
    S = system.space
    n = S.n
    u, K = _motion(S, K, u)
    prim = system.primitives
    Mq = system.mass_matrix
    qd_on = dict(zip(S.qd, K))
    zero_ud = [sp.S.Zero] * len(u)
    acc0 = [S.total_derivative(k, along=K, speeds=u, rates=zero_ud) for k in K]
    dKdu = [[sp.diff(k, us) if us in k.free_symbols else sp.S.Zero for us in u] for k in K]
    M_on = Mq.xreplace(qd_on)
    p_on = [e.xreplace(qd_on) for e in prim["p"]]
    dTdq = [e.xreplace(qd_on) for e in prim["dTdq"]]
    Q_on = [e.xreplace(qd_on) for e in system.Q]
    LQ0 = []
    for i in range(n):
        e = sum((M_on[i, j] * acc0[j] for j in range(n) if M_on[i, j] != 0 and acc0[j] != 0), sp.S.Zero)
        LQ0.append(e + prim["pdot0"][i].xreplace(qd_on) - dTdq[i] - Q_on[i])
    MdK = [[sum((M_on[i, j] * dKdu[j][s] for j in range(n) if dKdu[j][s] != 0 and M_on[i, j] != 0), sp.S.Zero)
            for s in range(len(u))] for i in range(n)]
    return MdK, LQ0, p_on, dTdq, Q_on


def _motion(S, K, u) -> tuple[tuple, list]:
    """(u, K) converted at the boundary: speed symbols, and n kinematic expressions in (t, q, u)."""
    u = as_symbols(u, what="speeds u")
    K = as_exprs(K, S.state_symbols + u, what="kinematics K")
    if len(K) != S.n:
        raise DimensionError(f"{S.n} kinematic expressions K needed, got {len(K)}")
    return u, K


def _fields(S, W) -> list:
    W = as_sequence(W, "δ fields W")
    for X in W:
        if not isinstance(X, VectorField) or X.space != S:
            raise SpaceMismatchError(f"the δ fields must be VectorFields on {S!r}")
    return W


def central_equations(system: MechanicalSystem, V: VectorField, W: Sequence[VectorField],
                      on_motion: Mapping | Sequence[Mapping], u: Sequence[sp.Symbol], ud: Sequence[sp.Symbol],
                      K: Sequence[sp.Expr]) -> tuple[sp.Matrix, sp.Matrix]:
    """The engine: E(W) = d/dt(p·W) − W(T(q, V)) + p·[W, V] − Q·W for each W (module doc).

    ``V`` and the ``W`` may contain constant symbols (their components off the motion) that
    ``on_motion`` (one dict, or one per W) maps to their values on the motion (in t, q, u);
    ``K`` is the velocity on the motion.
    Derivatives are taken first and the motion substituted after (never before: substituting
    constraints into T first is the classic error).  Every derivative is taken of a small
    primitive (entries of M, b, T0 of T, the field components, the kinematics) and combined by
    the chain rule, so no large composite expression is ever differentiated:

        d/dt(p·W) = ṗ·W + p·Ẇ,  ṗ = M q̈ + ṗ⁰,  q̈ = ∂K/∂u u̇ + (∂_t K + ∂_q K K),
        W(T(q, V)) = W·∂_q T + p·W(V).

    E is linear in u̇; returns (M, F) with E = M u̇ − F, M_rs = W_r·M·∂K/∂u_s.
    """
    S = system.space
    if not isinstance(V, VectorField) or V.space != S:
        raise SpaceMismatchError(f"the d field V must be a VectorField on {S!r}")
    W = _fields(S, W)
    u, K = _motion(S, K, u)
    ud = as_symbols(ud, what="speed rates u̇")
    if isinstance(on_motion, (list, tuple)):
        on_motion = [as_mapping(o, "on_motion") for o in on_motion]
        if len(on_motion) != len(W):
            raise DimensionError(f"one on-motion substitution per δ field ({len(W)}), got {len(on_motion)}")
    else:
        on_motion = as_mapping(on_motion, "on_motion")
    fast = _central_equations_symengine(system, V, W, on_motion, u, K)
    if fast is not None:
        return fast
    S = system.space
    n = S.n
    MdK, LQ0, p_on, dTdq, Q_on = lagrange_split(system, K, u)
    pdot0 = [LQ0[i] + dTdq[i] + Q_on[i] for i in range(n)]  # ṗ with u̇ = 0
    coords = S.coords
    xd = list(K) + ([sp.S.One] if S.t is not None else [])
    rows, minusF = [], []
    ons = on_motion if isinstance(on_motion, (list, tuple)) else [on_motion] * len(W)
    for r, (Wf, on_motion) in enumerate(zip(W, ons)):
        check("equations of motion", r, len(W), "equations")
        Wc = [c.xreplace(on_motion) for c in Wf.components[:n]]
        nz = [i for i in range(n) if Wc[i] != 0]
        # p·Ẇ with Ẇ = ∂_t W + K^j ∂_j W along the motion
        pWdot = sp.S.Zero
        for i in nz:
            c = Wf.components[i]
            fs = c.free_symbols
            d = sum((xd[j] * sp.diff(c, coords[j]) for j in range(len(coords)) if coords[j] in fs), sp.S.Zero)
            if d != 0:
                pWdot += p_on[i] * d.xreplace(on_motion)
        # W(T(q, V)) = W·∂_q T + p·W(V)
        WV = [Wf(V.components[j]).xreplace(on_motion) for j in range(n)]
        WT = sum((dTdq[i] * Wc[i] for i in nz), sp.S.Zero) + sum(
            (p_on[j] * WV[j] for j in range(n) if WV[j] != 0), sp.S.Zero)
        br = Wf.bracket(V)
        trans = sum((p_on[i] * br.components[i].xreplace(on_motion) for i in range(n)
                     if br.components[i] != 0), sp.S.Zero)
        QW = sum((Q_on[i] * Wc[i] for i in nz), sp.S.Zero)
        minusF.append(sum((pdot0[i] * Wc[i] for i in nz), sp.S.Zero) + pWdot - WT + trans - QW)
        rows.append([sum((Wc[i] * MdK[i][s] for i in nz), sp.S.Zero) for s in range(len(u))])
    return sp.Matrix(rows), -sp.Matrix(minusF)


class NativeSplit:
    """Lagrange's split (:func:`lagrange_split`) on symengine, for the hot paths.

    The inputs — M, b, T0 of T (upper triangle of M only), Q, K, and ``extra`` expressions the
    caller will need — are converted once (one :class:`~geonh.kernel.backend.Translation`);
    then, on the motion q̇ = K(t, q, u):

        p_i = M_ik K^k + b_i,   ṗ⁰_i = (∂_j M_ik ẋ^j) K^k + ∂_j b_i ẋ^j,
        ∂T/∂q^j = ½ ∂_j M_ik K^i K^k + ∂_j b_i K^i + ∂_j T0,
        q̈ = ∂K/∂u u̇ + a0,  a0 = ∂_t K + ∂_q K · K,
        L_i − Q_i = Σ_s MdK_is u̇_s + LQ0_i,  MdK = M ∂K/∂u,  LQ0 = M a0 + ṗ⁰ − ∂T/∂q − Q

    (Hamel 1924, eq. (9); ẋ includes ṫ = 1).  Every derivative is of a small primitive (an
    entry of M, b, T0, a component of K), never of a composite; nothing is expanded or
    simplified.  :meth:`create` returns None when the backend is sympy or an input does not
    convert (the callers then run their sympy code)."""

    @classmethod
    def create(cls, system: MechanicalSystem, K, u, extra=()):
        from ..kernel import backend as bk
        S = system.space
        u, K = _motion(S, K, u)
        extra = as_exprs(extra, what="extra expressions")
        if not bk.use_symengine():
            return None
        n = S.n
        Mq, bq, T0 = system.quadratic_parts
        upper = [Mq[i, j] for i in range(n) for j in range(i, n)]
        inputs = (upper + list(bq) + [T0] + list(system.Q) + list(K) + list(extra)
                  + list(S.coords) + list(S.qd) + list(u))
        if not bk.supports(inputs):
            return None
        self = cls()
        self._setup(system, K, u, upper, bq, T0, bk)
        return self

    def _setup(self, system, K, u, upper, bq, T0, bk):
        import symengine as se
        S = system.space
        n = self.n = S.n
        self.tr = bk.Translation()
        cv = self.cv = self.tr.to_symengine
        zero = self.zero = se.Integer(0)
        one = se.Integer(1)
        self.add = lambda ts: se.Add(*ts) if ts else zero  # noqa: E731
        add = self.add
        X = self.X = [cv(x) for x in S.coords]          # q (and t)
        qd = [cv(v) for v in S.qd]
        us = self.u = [cv(x) for x in u]
        Kc = self.K = [cv(k) for k in K]
        self.xd = Kc + ([one] if S.t is not None else [])  # ẋ on the motion (ṫ = 1)
        qd_on = dict(zip(qd, Kc))
        M = self.M = [[zero] * n for _ in range(n)]
        k = 0
        for i in range(n):
            for j in range(i, n):
                M[i][j] = M[j][i] = cv(upper[k])
                k += 1
        b = [cv(e) for e in bq]
        T0c = cv(T0)
        self.Q = [cv(e).subs(qd_on) if e != 0 else zero for e in system.Q]
        grad, along = self.grad, self.along
        dM = {(i, j): grad(M[i][j]) for i in range(n) for j in range(i, n)}
        db = [grad(e) for e in b]
        dT0 = grad(T0c)
        self.p = [add([M[i][k] * Kc[k] for k in range(n) if M[i][k] != 0 and Kc[k] != 0]
                      + ([b[i]] if b[i] != 0 else [])) for i in range(n)]
        Mdot = {key: along(g) for key, g in dM.items()}
        pdot0 = []
        for i in range(n):
            ts = [Mdot[(min(i, k), max(i, k))] * Kc[k] for k in range(n)
                  if Kc[k] != 0 and Mdot[(min(i, k), max(i, k))] != 0]
            bd = along(db[i])
            if bd != 0:
                ts.append(bd)
            pdot0.append(add(ts))
        dTdq = []
        for j in range(n):
            ts = []
            for i in range(n):
                if Kc[i] == 0:
                    continue
                for k in range(i, n):
                    g = dM[(i, k)]
                    if g is not None and g[j] != 0 and Kc[k] != 0:
                        ts.append(g[j] * Kc[i] * Kc[k] if i != k else g[j] * Kc[i] * Kc[k] / 2)
                if db[i] is not None and db[i][j] != 0:
                    ts.append(db[i][j] * Kc[i])
            if dT0 is not None and dT0[j] != 0:
                ts.append(dT0[j])
            dTdq.append(add(ts))
        self.dTdq = dTdq
        dKdu = [[kk.diff(x) if x in kk.free_symbols else zero for x in us] for kk in Kc]
        acc0 = [along(grad(kk)) for kk in Kc]
        self.MdK = [[add([M[i][j] * dKdu[j][s] for j in range(n) if M[i][j] != 0 and dKdu[j][s] != 0])
                     for s in range(len(us))] for i in range(n)]
        Macc0 = [add([M[i][j] * acc0[j] for j in range(n) if M[i][j] != 0 and acc0[j] != 0]) for i in range(n)]
        self.pdot = [Macc0[i] + pdot0[i] for i in range(n)]          # ṗ with u̇ = 0
        self.LQ0 = [self.pdot[i] - dTdq[i] - self.Q[i] for i in range(n)]

    def _native(self, e):
        """A native (symengine) expression; a sympy one or a formula string is converted."""
        import symengine as se
        return e if isinstance(e, se.Basic) else self.cv(expr_of(e, what="expression"))

    def grad(self, e):
        """[∂e/∂x for x in (q, t)], or None when e is free of them."""
        e = self._native(e)
        if e == 0:
            return None
        fs = e.free_symbols
        g = [e.diff(x) if x in fs else self.zero for x in self.X]
        return g if any(x != 0 for x in g) else None

    def along(self, g):
        """Σ_j g_j ẋ^j on the motion (g a gradient from :meth:`grad`)."""
        if g is None:
            return self.zero
        g = [self._native(x) for x in as_sequence(g, "gradient")]
        if len(g) != len(self.X):
            raise DimensionError(f"a gradient has {len(self.X)} entries, got {len(g)}")
        return self.add([g[j] * self.xd[j] for j in range(len(self.X)) if g[j] != 0])

    def derivative(self, components, f):
        """X(f) = X^i ∂f/∂x^i for a field X given by its (native) components over (q, t)."""
        g = self.grad(f)
        components = [self._native(x) for x in as_sequence(components, "components")]
        if len(components) != len(self.X):
            raise DimensionError(f"a field has {len(self.X)} components, got {len(components)}")
        if g is None:
            return self.zero
        return self.add([components[i] * g[i] for i in range(len(self.X)) if components[i] != 0 and g[i] != 0])

    def to_sympy(self, e):
        return self.tr.to_sympy(self._native(e))


def _central_equations_symengine(system, V, W, on_motion, u, K):
    """:func:`central_equations` on symengine (:class:`NativeSplit`; the same formulas term by
    term): only the rows of M and F are converted back to sympy.  None when the backend is
    sympy or an expression does not convert."""
    ons = list(on_motion) if isinstance(on_motion, (list, tuple)) else [on_motion] * len(W)
    extra = (list(V.components) + [c for Wf in W for c in Wf.components]
             + [x for on in ons for kv in on.items() for x in kv])
    ns = NativeSplit.create(system, K, u, extra)
    if ns is None:
        return None
    n, cv, add = ns.n, ns.cv, ns.add
    Vc = [cv(c) for c in V.components]
    rows, minusF = [], []
    for r, (Wf, on) in enumerate(zip(W, ons)):
        check("equations of motion", r, len(W), "equations")
        on_se = {cv(a): cv(v) for a, v in on.items()}
        sub = (lambda e: e.subs(on_se) if e != 0 else e) if on_se else (lambda e: e)  # noqa: E731
        Wraw = [cv(c) for c in Wf.components]
        Wc = [sub(c) for c in Wraw[:n]]
        nz = [i for i in range(n) if Wc[i] != 0]
        # p·Ẇ, Ẇ = ∂_t W + K^j ∂_j W along the motion
        pWdot = add([ns.p[i] * sub(ns.along(ns.grad(Wraw[i]))) for i in nz])
        # W(T(q, V)) = W·∂_q T + p·W(V)
        WV = [sub(ns.derivative(Wraw, Vc[j])) for j in range(n)]
        WT = add([ns.dTdq[i] * Wc[i] for i in nz] + [ns.p[j] * WV[j] for j in range(n) if WV[j] != 0])
        # p·[W, V], [W, V]^k = W(V^k) − V(W^k)  (CONVENTIONS.md)
        br = [sub(ns.derivative(Wraw, Vc[k]) - ns.derivative(Vc, Wraw[k])) for k in range(n)]
        trans = add([ns.p[k] * br[k] for k in range(n) if br[k] != 0])
        QW = add([ns.Q[i] * Wc[i] for i in nz])
        minusF.append(add([ns.pdot[i] * Wc[i] for i in nz]) + pWdot - WT + trans - QW)
        rows.append([add([Wc[i] * ns.MdK[i][s] for i in nz]) for s in range(len(ns.u))])
    out_rows, out_F = [], []
    for r, (row, e) in enumerate(zip(rows, minusF)):
        check("equations of motion (conversion to sympy)", r, len(rows), "equations")
        out_rows.append([ns.to_sympy(x) for x in row])
        out_F.append(ns.to_sympy(-e))
    return sp.Matrix(out_rows), sp.Matrix(out_F)
