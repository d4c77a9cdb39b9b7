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

Each formula is written once, against the algebra interface of :mod:`geonh.kernel.algebra`:
the central equation (:func:`central_equations`), Lagrange's split (Hamel 1924, eq. (9):
:func:`lagrange_split`, :func:`frame_split`) and, below them, the mechanical primitives
(:meth:`~geonh.systems.MechanicalSystem.primitives_at`).  One computation takes one algebra
(:func:`~geonh.kernel.algebra.algebra_for`): symengine when that is the backend and every
input converts, sympy otherwise — the same code either way.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Sequence

import sympy as sp

from ..moved import package_getattr
from ..errors import DimensionError, SpaceMismatchError
from ..kernel.algebra import Algebra, algebra_for
from ..kernel.budget import check
from ..kernel.progress import report
from ..kernel.fields import VectorField
from ..kernel.frames import Frame
from ..kernel.parsing import as_exprs, as_mapping, as_sequence, as_symbols
from ..systems.mechanical import MechanicalSystem

__all__ = ["LagrangeSplit", "FrameSplit", "lagrange_split", "frame_split", "central_equations"]


@dataclass(frozen=True)
class LagrangeSplit:
    """Lagrange's expressions on the motion q̇ = K(t, q, u), split by linearity in u̇
    (Hamel 1924, eq. (9); ẋ includes ṫ = 1):

        L_i − Q_i = Σ_s MdK[i][s] u̇_s + LQ0[i],   MdK = M ∂K/∂u,   LQ0 = M a0 + ṗ⁰ − ∂T/∂q − Q,
        q̈ = ∂K/∂u u̇ + a0,   a0 = ∂_t K + ∂_q K · K,

    with the primitives p, ṗ⁰, ∂T/∂q of :class:`~geonh.systems.mechanical.Primitives` at v = K.

    Attributes (sympy expressions, one entry per true coordinate i)
    ----------------------------------------------------------------
    MdK : rows i, columns s (one per speed u_s).
    LQ0 : the part free of u̇.
    p : the momenta on the motion.
    pdot : ṗ on the motion with u̇ = 0 (M a0 + ṗ⁰).
    dTdq : ∂T/∂q on the motion.
    Q : the generalized forces on the motion.
    algebra : the name of the algebra that computed them.
    """

    MdK: tuple[tuple[sp.Expr, ...], ...]
    LQ0: tuple[sp.Expr, ...]
    p: tuple[sp.Expr, ...]
    pdot: tuple[sp.Expr, ...]
    dTdq: tuple[sp.Expr, ...]
    Q: tuple[sp.Expr, ...]
    algebra: str


@dataclass(frozen=True)
class FrameSplit:
    """Lagrange's split contracted with the fields of a frame (Maggi's expressions): for each
    frame field X_a = C^i_a ∂_i,

        Σ_i C^i_a (L_i − Q_i) = Σ_s rows[a][s] u̇_s + rests[a]

    on the motion q̇ = K(t, q, u) (sympy expressions; ``algebra`` names the algebra that
    computed them)."""

    rows: tuple[tuple[sp.Expr, ...], ...]
    rests: tuple[sp.Expr, ...]
    algebra: str


class _Split:
    """Lagrange's split (:class:`LagrangeSplit`) in one algebra: the engine's working form.

    The inputs are converted once (one algebra), then, on the motion q̇ = K(t, q, u), with the
    primitives of :meth:`MechanicalSystem.primitives_at` at v = K:

        q̈ = ∂K/∂u u̇ + a0,  a0 = ∂_t K + ∂_q K · K,
        L_i − Q_i = Σ_s MdK_is u̇_s + LQ0_i,  MdK = M ∂K/∂u,  LQ0 = M a0 + ṗ⁰ − ∂T/∂q − Q

    (Hamel 1924, eq. (9)).  Every derivative is of a small primitive (an entry of M, b, T0, a
    component of K), never of a composite; nothing is expanded or simplified."""

    def __init__(self, system: MechanicalSystem, K: Sequence, u: Sequence, algebra: Algebra):
        S = system.space
        n = self.n = S.n
        alg = self.alg = algebra
        zero, add = alg.zero, alg.add
        Kc = self.K = [alg.native(k) for k in K]
        us = self.u = [alg.native(x) for x in u]
        self.xd = Kc + ([alg.one] if S.t is not None else [])   # ẋ on the motion (ṫ = 1)
        P = system.primitives_at(alg, Kc)
        M = self.M = P.M
        self.p, self.dTdq = P.p, P.dTdq
        qd_on = {alg.native(v): k for v, k in zip(S.qd, Kc)}
        self.Q = [alg.subs(alg.native(e), qd_on) if e != 0 else zero for e in system.Q]
        dKdu = [[alg.diff(k, x) if x in k.free_symbols else zero for x in us] for k in Kc]
        acc0 = [alg.along(alg.gradient(k), self.xd) for k in Kc]
        self.MdK = [[add([M[i][j] * dKdu[j][s] for j in range(n) if M[i][j] != zero and dKdu[j][s] != zero])
                     for s in range(len(us))] for i in range(n)]
        Macc0 = [add([M[i][j] * acc0[j] for j in range(n) if M[i][j] != zero and acc0[j] != zero]) for i in range(n)]
        self.pdot = [Macc0[i] + P.pdot0[i] for i in range(n)]          # ṗ with u̇ = 0
        self.LQ0 = [self.pdot[i] - self.dTdq[i] - self.Q[i] for i in range(n)]

    @classmethod
    def of(cls, system: MechanicalSystem, K: Sequence, u: Sequence, extra: Sequence = ()) -> "_Split":
        """The split in the algebra of the current backend for these inputs (symengine when
        active and everything converts: M, b, T0, Q, K and the ``extra`` expressions the caller
        will convert; else sympy — the same code, :func:`~geonh.kernel.algebra.algebra_for`)."""
        S = system.space
        Mq, bq, T0 = system.quadratic_parts
        upper = [Mq[i, j] for i in range(S.n) for j in range(i, S.n)]
        inputs = (upper + list(bq) + [T0] + list(system.Q) + list(K) + list(extra) + list(S.qd) + list(u))
        return cls(system, K, u, algebra_for(S.coords, inputs))

    def record(self) -> LagrangeSplit:
        out = self.alg.sympy
        return LagrangeSplit(tuple(tuple(out(e) for e in row) for row in self.MdK),
                             tuple(out(e) for e in self.LQ0), tuple(out(e) for e in self.p),
                             tuple(out(e) for e in self.pdot), tuple(out(e) for e in self.dTdq),
                             tuple(out(e) for e in self.Q), self.alg.name)


def lagrange_split(system: MechanicalSystem, K: Sequence[sp.Expr], u: Sequence[sp.Symbol]) -> LagrangeSplit:
    """Lagrange's expressions on the motion q̇ = K(t, q, u), split by linearity in u̇:
    L_i − Q_i = Σ_s MdK[i][s] u̇_s + LQ0[i] (:class:`LagrangeSplit`, Hamel 1924, eq. (9)),
    computed in the algebra of the current backend from the primitives of
    :meth:`~geonh.systems.MechanicalSystem.primitives_at` (no composite expression is
    differentiated)."""
    S = system.space
    u, K = _motion(S, K, u)
    return _Split.of(system, K, u).record()


def frame_split(system: MechanicalSystem, frame: Frame, K: Sequence[sp.Expr],
                u: Sequence[sp.Symbol]) -> FrameSplit:
    """Lagrange's split contracted with every field of ``frame`` (:class:`FrameSplit`):
    Σ_i C^i_a (L_i − Q_i) = Σ_s rows[a][s] u̇_s + rests[a] (Maggi's expressions, seed 003
    eqs. (28), (30)), the contractions taken in the same algebra as the split."""
    S = system.space
    u, K = _motion(S, K, u)
    if not isinstance(frame, Frame) or frame.space != S:
        raise SpaceMismatchError(f"frame_split needs a Frame on {S!r}")
    n = S.n
    sl = _Split.of(system, K, u, extra=list(frame.C))
    alg = sl.alg
    C = [[alg.native(frame.C[i, a]) for a in range(frame.dim)] for i in range(n)]
    rows, rests = [], []
    for a in range(frame.dim):
        check("Lagrange's split along the frame", a, frame.dim, "fields")
        nz = [i for i in range(n) if C[i][a] != alg.zero]
        rows.append(tuple(alg.sympy(alg.add([C[i][a] * sl.MdK[i][s] for i in nz])) for s in range(len(u))))
        rests.append(alg.sympy(alg.add([C[i][a] * sl.LQ0[i] for i in nz])))
    report("Lagrange's split along the frame", frame.dim, frame.dim)   # the step is over (progress display)
    return FrameSplit(tuple(rows), tuple(rests), alg.name)


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
                      on_motion: Mapping | Sequence[Mapping], u: Sequence[sp.Symbol],
                      K: Sequence[sp.Expr]) -> tuple[sp.Matrix, sp.Matrix]:
    """The engine: E(W) = d/dt(p·W) − W(T(q, V)) + p·[W, V] − Q·W for each W (module doc;
    Neimark–Fufaev 1960, eq. (2.1)).

    ``V`` and the ``W`` may contain constant symbols (their components off the motion) that
    ``on_motion`` (one mapping, or one per W) maps to their values on the motion (in t, q, u);
    ``K`` is the velocity on the motion, ``u`` the speeds.
    Derivatives are taken first and the motion substituted after (never before: substituting
    constraints into T first is the classic error).  Every derivative is taken of a small
    primitive (entries of M, b, T0 of T, the field components, the kinematics) and combined by
    the chain rule, so no large composite expression is ever differentiated:

        d/dt(p·W) = ṗ·W + p·Ẇ,  ṗ = M q̈ + ṗ⁰,  q̈ = ∂K/∂u u̇ + (∂_t K + ∂_q K K),
        W(T(q, V)) = W·∂_q T + p·W(V).

    Written once against :class:`~geonh.kernel.algebra.Algebra`: computed in symengine when
    that is the backend and every input converts, else in sympy (the same code); only the
    rows of M and F are converted to sympy.  E is linear in u̇; returns (M, F) with
    E = M u̇ − F, M_rs = W_r·M·∂K/∂u_s.
    """
    S = system.space
    if not isinstance(V, VectorField) or V.space != S:
        raise SpaceMismatchError(f"the d field V must be a VectorField on {S!r}")
    W = _fields(S, W)
    u, K = _motion(S, K, u)
    if isinstance(on_motion, (list, tuple)):
        ons = [as_mapping(o, "on_motion") for o in on_motion]
        if len(ons) != len(W):
            raise DimensionError(f"one on-motion substitution per δ field ({len(W)}), got {len(ons)}")
    else:
        ons = [as_mapping(on_motion, "on_motion")] * len(W)
    extra = (list(V.components) + [c for Wf in W for c in Wf.components]
             + [x for on in ons for kv in on.items() for x in kv])
    sl = _Split.of(system, K, u, extra)
    alg, n, xd = sl.alg, sl.n, sl.xd
    zero = alg.zero
    add, native, derivative = alg.add, alg.native, alg.derivative
    Vc = [native(c) for c in V.components]
    rows, minusF = [], []
    for r, (Wf, on) in enumerate(zip(W, ons)):
        check("equations of motion", r, len(W), "equations")
        on_n = {native(a): native(v) for a, v in on.items()}

        def sub(e, on_n=on_n):
            return alg.subs(e, on_n) if on_n else e

        Wraw = [native(c) for c in Wf.components]
        Wc = [sub(c) for c in Wraw[:n]]
        nz = [i for i in range(n) if Wc[i] != zero]
        # p·Ẇ, Ẇ = ∂_t W + K^j ∂_j W along the motion
        pWdot = add([sl.p[i] * sub(alg.along(alg.gradient(Wraw[i]), xd)) for i in nz])
        # W(T(q, V)) = W·∂_q T + p·W(V)
        WVraw = [derivative(Wraw, Vc[j]) for j in range(n)]
        WV = [sub(e) for e in WVraw]
        WT = add([sl.dTdq[i] * Wc[i] for i in nz] + [sl.p[j] * WV[j] for j in range(n) if WV[j] != zero])
        # p·[W, V], [W, V]^k = W(V^k) − V(W^k)  (CONVENTIONS.md)
        br = [sub(WVraw[k] - derivative(Vc, Wraw[k])) for k in range(n)]
        trans = add([sl.p[k] * br[k] for k in range(n) if br[k] != zero])
        QW = add([sl.Q[i] * Wc[i] for i in nz])
        minusF.append(add([sl.pdot[i] * Wc[i] for i in nz]) + pWdot - WT + trans - QW)
        rows.append([add([Wc[i] * sl.MdK[i][s] for i in nz]) for s in range(len(sl.u))])
    report("equations of motion", len(W), len(W))   # the step is over (progress display)
    out_rows, out_F = [], []
    for r, (row, e) in enumerate(zip(rows, minusF)):
        check("equations of motion (conversion to sympy)", r, len(rows), "equations")
        out_rows.append([alg.sympy(x) for x in row])
        out_F.append(alg.sympy(-e))
    report("equations of motion (conversion to sympy)", len(rows), len(rows))
    return sp.Matrix(out_rows), sp.Matrix(out_F)


#: a name that moved from here names its new home (geonh.moved)
__getattr__ = package_getattr(__name__)
