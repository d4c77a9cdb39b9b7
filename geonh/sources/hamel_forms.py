"""Hamel 1924, *Über nichtholonome Systeme* (seed 000): the audited formulas (18)–(26) and the
forms (I)–(VI) of the equations of motion (there is no (IV) in the paper).

Each check types in the printed formula literally (misprints kept) on a small example and
compares it with what geonh computes: the frame forms of the engine (from brackets:
:func:`geonh.equations.volterra`, :func:`~geonh.equations.boltzmann_hamel`,
:func:`~geonh.equations.voronets`), the frames (:func:`geonh.transposition.adapted.voronets_frame`,
:meth:`Frame.hamel_beta`) and the transpositional relations
(:class:`geonh.transposition.TranspositionalRelations`).  See :mod:`geonh.sources.ledger`.

Notation of the paper: E the kinetic energy, J_i = ∂E/∂ω_i, K_i the force along the i-th
field, β_{i,s,m} = c^m_is (CONVENTIONS.md); in § 1 n free and k dependent coordinates, in § 2
(20)–(21') k free quasi-velocities and q_n = t.

Examples (all small, each check < 2 s):

* the Chaplygin sleigh body (mass m, centre a ahead of the blade, inertia I, constant forces
  F_x, F_y, M), with E and Appell's W = ½ S dm w̄² typed in from the position of the mass
  centre; with the blade (ẏ = tan θ ẋ) for (I), (II), (25) ((II) shows its difference on the
  knife edge a = 0, the shorter display), and without it (a holonomic system in the
  quasi-velocities v, w, c) for (18), (19), (19'), (III);
* the skate on a moving belt (``geonh.models`` "skate-on-belt", rheonomic) in its frame
  (v, w, c, t) for (20)–(21'), (III), (26), (VI);
* the ball on a turning table ("ball-on-turntable", rheonomic, 3 free and 2 dependent
  coordinates, a_m = ∓Ω y, Ω x) in Hamel's frame (22)–(24) for (22)–(24') and (V).
"""
from __future__ import annotations

from functools import cache

import sympy as sp

from .. import models
from ..equations import boltzmann_hamel, tzenoff, volterra, voronets
from ..equations.independent import motion_substitution
from ..kernel.frames import Frame
from ..kernel.space import ConfigurationSpace
from ..systems.mechanical import MechanicalSystem
from ..transposition.adapted import frame_kinematics, voronets_frame
from ..transposition.relations import ConstrainedSetting
from .ledger import Finding, compare, definition, formula, show

SRC = "hamel1924"


# -- the examples ------------------------------------------------------------------------------
class _Sleigh:
    """The sleigh body with E and W typed in (literal ½ S dm v̄², ½ S dm w̄²)."""

    def __init__(self, blade: bool, forces: bool, offset: bool = True):
        S = ConfigurationSpace("x y theta")
        th = S.q[2]
        xd, yd, thd = S.qd
        xdd, ydd, thdd = S.qdd
        m, a, I = sp.symbols("m a I", positive=True)
        if not offset:          # mass centre on the blade: a knife edge
            a = sp.S.Zero
        Fx, Fy, M = sp.symbols("F_x F_y M", real=True)
        # mass centre G = (x + a cos θ, y + a sin θ): velocity and acceleration typed in
        vG = (xd - a * sp.sin(th) * thd, yd + a * sp.cos(th) * thd)
        wG = (xdd - a * sp.cos(th) * thd**2 - a * sp.sin(th) * thdd,
              ydd - a * sp.sin(th) * thd**2 + a * sp.cos(th) * thdd)
        self.E = m * (vG[0]**2 + vG[1]**2) / 2 + I * thd**2 / 2
        # ½ S dm w̄² of a plane body = ½ m |w̄_G|² + ½ I (θ̈² + θ̇⁴)
        self.W = m * (wG[0]**2 + wG[1]**2) / 2 + I * (thdd**2 + thd**4) / 2
        self.K = (Fx, Fy, M) if forces else (0, 0, 0)
        cons = [sp.sin(th) * xd - sp.cos(th) * yd] if blade else []
        self.system = MechanicalSystem(S, self.E, forces=dict(zip(S.q, self.K)), constraints=cons,
                                       name="sleigh body")
        self.S = S
        self.frame = Frame.from_quasi_velocities(
            S, [sp.cos(th) * xd + sp.sin(th) * yd, thd, sp.sin(th) * xd - sp.cos(th) * yd], names=["v", "w", "c"])


@cache
def _sleigh(blade: bool, forces: bool, offset: bool = True) -> _Sleigh:
    return _Sleigh(blade, forces, offset)


@cache
def _skate():
    return models.get("skate-on-belt")


@cache
def _ball():
    return models.get("ball-on-turntable")


def _fam(prefix: str, names, values) -> dict:
    return {f"{prefix}{nm}": v for nm, v in zip(names, values)}


class _Quasi:
    """E*(t, q, ω) = E(t, q, C ω) with every ω a symbol (free: the engine's speeds u; the
    constraint and time quasi-velocities: own symbols, put to 0 and 1 after differentiation),
    and the motion q̇ = K(t, q, u) of the engine's equations ``eqs``."""

    def __init__(self, system, frame: Frame, eqs):
        S = system.space
        self.S, self.frame, self.eqs = S, frame, eqs
        m = len(eqs.u)
        self.m = m
        self.om = list(eqs.u) + [sp.Symbol(f"omega_{frame.names[a]}") for a in range(m, S.dim)]
        self.on = {w: 0 for w in self.om[m:S.n]}
        if S.t is not None:
            self.on[self.om[-1]] = 1
        qd = [sum((frame.C[i, a] * self.om[a] for a in range(S.dim) if frame.C[i, a] != 0), sp.S.Zero)
              for i in range(S.n)]
        self.E = system.T.xreplace(dict(zip(S.qd, qd)))
        self.J = [sp.diff(self.E, w) for w in self.om]
        self.beta = frame.hamel_beta()

    def ddt(self, f):
        """d/dt along the motion of a function of (t, q, ω), ω put on the motion first."""
        e = self.eqs
        return self.S.total_derivative(f.xreplace(self.on), along=e.kinematics, speeds=e.u, rates=e.ud)

    def dE_dtheta(self, i):
        """(∂E/∂ϑ_i) = Σ_s ∂E/∂q_s c_{s,i} (E as a function of q and ω)."""
        C = self.frame.C
        return sum((sp.diff(self.E, q) * C[s, i] for s, q in enumerate(self.S.coords) if C[s, i] != 0), sp.S.Zero)

    def lagrange_euler(self, i):
        """Q_i of (19'): d/dt ∂E/∂ω_i + Σ_{s,m} β_{i,s,m} ω_s ∂E/∂ω_m − (∂E/∂ϑ_i), on the motion."""
        N = self.S.dim
        b = sum((self.beta[i, s, mm] * self.om[s] * self.J[mm] for s in range(N) for mm in range(N)
                 if self.beta[i, s, mm] != 0), sp.S.Zero)
        return (self.ddt(self.J[i]) + b - self.dE_dtheta(i)).xreplace(self.on)

    def force(self, system, i):
        """K_i = Σ_s c_{s,i} K_s (the formula after (III))."""
        C = self.frame.C
        return sum((C[s, i] * system.Q[s] for s in range(self.S.n) if C[s, i] != 0), sp.S.Zero).xreplace(
            dict(zip(self.S.qd, self.eqs.kinematics)))


# -- § 2: the Lagrange–Euler equations ---------------------------------------------------------
@formula(SRC, "(18)", topic="Lagrange's principle in quasi-coordinates",
         printed="Σ_i Q_i δϑ_i = Σ_i K_i δϑ_i, Q_i of (19'), K_i = Σ_s c_{s,i} K_s",
         computed="S dm w̄·δr̄ = Σ_s L_s δq_s (Lagrange's Q_s of (9)) and Σ_s K_s δq_s with δq_s = Σ_i c_{s,i} δϑ_i (14)",
         api="MechanicalSystem.lagrange_operator, Frame.C", expected="agrees")
def _hamel_18() -> Finding:
    sl = _sleigh(False, True)
    s, F = sl.system, sl.frame
    eqs = volterra(s, F)
    qz = _Quasi(s, F, eqs)
    S = s.space
    dth = sp.symbols("δϑ_v δϑ_w δϑ_c")
    dq = [sum(F.C[i, a] * dth[a] for a in range(3)) for i in range(3)]
    sub = motion_substitution(s, eqs.kinematics, eqs.u, eqs.ud)
    printed = {"Σ Q_i δϑ_i": sum(qz.lagrange_euler(i) * dth[i] for i in range(3)),
               "Σ K_i δϑ_i": sum(qz.force(s, i) * dth[i] for i in range(3))}
    computed = {"Σ Q_i δϑ_i": sum(s.lagrange_operator[i].xreplace(sub) * dq[i] for i in range(S.n)),
                "Σ K_i δϑ_i": sum(s.Q[i] * dq[i] for i in range(S.n))}
    return compare(printed, computed, "sleigh body without blade (holonomic), quasi-velocities v, w, c, forces F_x, F_y, M")


@formula(SRC, "(19)", topic="Q_i = dJ_i/dt − X_i E",
         printed="Q_i = dJ_i/dt − X_i E, J_i = ∂E/∂ω_i, X_i E the extended point transformation: Σ_s c_{s,i} ∂E/∂q_s + Σ_s (dc_{s,i}/dt) ∂E/∂q̇_s",
         computed="Q_i = Σ_s C^s_i (d/dt ∂T/∂q̇_s − ∂T/∂q_s), the engine's Volterra expression (brackets)",
         api="equations.volterra", expected="agrees")
def _hamel_19() -> Finding:
    sl = _sleigh(False, False)
    s, F = sl.system, sl.frame
    S = s.space
    eqs = volterra(s, F)
    qz = _Quasi(s, F, eqs)
    onq = dict(zip(S.qd, eqs.kinematics))
    printed = []
    for i in range(3):
        c = [F.C[r, i] for r in range(S.n)]
        cdot = [S.total_derivative(e, along=eqs.kinematics, speeds=eqs.u, rates=eqs.ud) for e in c]
        XE = sum(c[r] * sp.diff(sl.E, S.q[r]) + cdot[r] * sp.diff(sl.E, S.qd[r]) for r in range(S.n)).xreplace(onq)
        printed.append(qz.ddt(qz.J[i]) - XE)
    return compare(_fam("Q_", F.names, printed), _fam("Q_", F.names, eqs.residuals),
                   "sleigh body without blade (holonomic), quasi-velocities v, w, c")


@formula(SRC, "(19')", topic="Lagrange–Euler (Boltzmann–Hamel) expression",
         printed="Q_i = d/dt(∂E/∂ω_i) + Σ_{s,m} β_{i,s,m} ω_s ∂E/∂ω_m − (∂E/∂ϑ_i), (∂E/∂ϑ_i) = Σ_s ∂E/∂q_s c_{s,i}",
         computed="Q_i = d/dt ∂T*/∂ω^i + c^m_is ω^s ∂T*/∂ω^m − X_i(T*), β_{i,s,m} = c^m_is from brackets; ∂E/∂q_s at constant ω",
         api="equations.volterra, equations.boltzmann_hamel, Frame.hamel_beta", expected="agrees")
def _hamel_19p() -> Finding:
    sl = _sleigh(False, False)
    s, F = sl.system, sl.frame
    eqs = volterra(s, F)
    qz = _Quasi(s, F, eqs)
    printed = _fam("Q_", F.names, [qz.lagrange_euler(i) for i in range(3)])
    computed = _fam("Q_", F.names, eqs.residuals)
    return compare(printed, computed, "sleigh body without blade (holonomic), quasi-velocities v, w, c "
                   "([X_v, X_w] = X_c, [X_w, X_c] = X_v)")


@formula(SRC, "(III)", topic="Volterra's / Hamel's equations Q_i = K_i",
         printed="Q_i = K_i (i = 1 … n), Q_i of (19'), K_i = Σ_s c_{s,i} S dk̄ ∂r̄/∂q_s; with (21) only the first k, (20), (21) put in",
         computed="Boltzmann–Hamel equations in the frame, from brackets (Volterra without constraints)",
         api="equations.volterra, equations.boltzmann_hamel", expected="agrees")
def _hamel_III() -> Finding:
    sl = _sleigh(False, True)
    s, F = sl.system, sl.frame
    eqs = volterra(s, F)
    qz = _Quasi(s, F, eqs)
    printed = _fam("sleigh body Q_", F.names, [qz.lagrange_euler(i) - qz.force(s, i) for i in range(3)])
    computed = _fam("sleigh body Q_", F.names, eqs.residuals)
    mod = _skate()
    sk, Fk = mod.system, mod.frame
    ek = boltzmann_hamel(sk, Fk)
    qk = _Quasi(sk, Fk, ek)
    printed.update(_fam("skate on belt Q_", Fk.names, [qk.lagrange_euler(i) - qk.force(sk, i) for i in range(qk.m)]))
    computed.update(_fam("skate on belt Q_", Fk.names, ek.residuals))
    return compare(printed, computed, "sleigh body without blade (forces F_x, F_y, M; frame v, w, c); "
                   "skate on a belt (frame v, w, c, t; c = 0, ω_t = 1 put in after differentiating)")


@formula(SRC, "(20)", topic="time as the last coordinate",
         printed="q_n = ϑ_n = t, q̇_n = ω_n = 1",
         computed="time adjoined as the last coordinate; adapted frame's last coframe form dt; ω_t = 1 on the motion",
         api="ConfigurationSpace(time=True), check_adapted, frame_kinematics", expected="agrees")
def _hamel_20() -> Finding:
    mod = _skate()
    S, F = mod.space, mod.frame
    u = sp.symbols("v w")
    omega = frame_kinematics(F, 2, u)[0]
    printed = {"q_n": S.t, **{f"θ^n_{q}": (1 if q == S.t else 0) for q in S.coords}, "ω_n": 1}
    computed = {"q_n": S.coords[-1], **{f"θ^n_{q}": F.B[S.dim - 1, j] for j, q in enumerate(S.coords)},
                "ω_n": omega[-1]}
    return definition(printed, computed, "skate on a belt, frame (v, w, c, t)")


@formula(SRC, "(20')", topic="δt = 0",
         printed="δq_n = δϑ_n = 0",
         computed="the fields of the virtual displacements (all but X_t) have no t-component; δϑ_n = dt(δq)",
         api="Frame.C, Frame.B", expected="agrees")
def _hamel_20p() -> Finding:
    mod = _skate()
    S, F = mod.space, mod.frame
    dq = sp.symbols("δx δy δθ")
    n = S.n
    printed = {**{f"δq_n on X_{F.names[a]}": 0 for a in range(n)}, "δϑ_n": 0}
    computed = {**{f"δq_n on X_{F.names[a]}": F.C[n, a] for a in range(n)},
                "δϑ_n": sum(F.B[n, j] * dq[j] for j in range(n))}
    return definition(printed, computed, "skate on a belt, frame (v, w, c, t), δq = (δx, δy, δθ), δt = 0")


@formula(SRC, "(21)", topic="constraints as vanishing quasi-velocities",
         printed="ω_{k+h} = 0 (h = 1 … n − k − 1)",
         computed="the constraint of the system equals θ^c(q̇) (the frame is adapted: check_adapted), and ω_c = 0 on the frame's motion",
         api="check_adapted, frame_kinematics, MechanicalSystem.constraint_matrix", expected="agrees")
def _hamel_21() -> Finding:
    from ..transposition.adapted import check_adapted
    mod = _skate()
    s, S, F = mod.system, mod.space, mod.frame
    m = check_adapted(s, F)
    u = sp.symbols("v w")
    K = frame_kinematics(F, m, u)[1]
    A, b = s.constraint_matrix
    phi = sum(A[0, i] * S.qd[i] for i in range(S.n)) + b[0]
    omc = F.quasi_velocities()[m]
    printed = {"ω_c": omc, "ω_c on the motion": 0}
    computed = {"ω_c": phi, "ω_c on the motion": omc.xreplace(dict(zip(S.qd, K)))}
    return definition(printed, computed, "skate on a belt −(ẋ − b t) sin θ + ẏ cos θ = 0, frame (v, w, c, t); k = 2")


@formula(SRC, "(21')", topic="virtual displacements of the constraints",
         printed="δϑ_{k+h} = 0 (h = 1 … n − k − 1)",
         computed="Chetaev's rule Σ ∂φ/∂q̇_i δq_i = 0 equals δϑ_c = θ^c(δq) (δt = 0); δϑ_c vanishes on the free fields",
         api="MechanicalSystem.constraint_matrix, Frame.B", expected="agrees")
def _hamel_21p() -> Finding:
    mod = _skate()
    s, S, F = mod.system, mod.space, mod.frame
    dq = sp.symbols("δx δy δθ")
    A, _ = s.constraint_matrix
    dth_c = sum(F.B[2, j] * dq[j] for j in range(S.n))
    printed = {"δϑ_c": dth_c, **{f"δϑ_c(X_{F.names[r]})": 0 for r in range(2)}}
    computed = {"δϑ_c": sum(A[0, j] * dq[j] for j in range(S.n)),
                **{f"δϑ_c(X_{F.names[r]})": sum(F.B[2, j] * F.C[j, r] for j in range(S.dim)) for r in range(2)}}
    return definition(printed, computed, "skate on a belt, frame (v, w, c, t)")


# -- Woronetz's special case (22)–(24'), (V) ---------------------------------------------------
def _ball_data():
    """The ball on a turning table, Hamel's q_1..q_n = (ψ, θ, φ) free, q_{n+1}, q_{n+2} = (x, y),
    q_{n+k+1} = t, and the a_{m,s}, a_m of (2) read off the rolling constraints
    ẋ = r ω_y − Ω y, ẏ = −r ω_x + Ω x (typed in)."""
    mod = _ball()
    S = mod.space
    ps, th, _, x, y = S.q
    r, Om = sp.Symbol("r", positive=True), sp.Symbol("Omega", positive=True)
    a = sp.Matrix([[0, r * sp.sin(ps), -r * sp.sin(th) * sp.cos(ps)],
                   [0, -r * sp.cos(ps), -r * sp.sin(th) * sp.sin(ps)]])
    a0 = [-Om * y, Om * x]
    return mod, a, a0


@formula(SRC, "(22)", topic="Hamel's frame for Woronetz: free velocities",
         printed="ω_i = q̇_i and δϑ_i = δq_i (i = 1 … n), so that the β with last index ≤ n vanish",
         computed="voronets_frame: ω_s = q̇_s for the free coordinates; β_{a,b,s} = c^s_ab from brackets",
         api="transposition.adapted.voronets_frame, Frame.hamel_beta", expected="agrees")
def _hamel_22() -> Finding:
    mod, _, _ = _ball_data()
    s, S = mod.system, mod.space
    F = voronets_frame(s, mod.dependent)
    dq = sp.symbols("δψ δθ δφ δx δy δt")
    om = F.quasi_velocities()
    beta = F.hamel_beta()
    printed, computed = {}, {}
    for i in range(3):
        nm = S.q[i].name
        printed[f"ω_{nm}"], computed[f"ω_{nm}"] = S.qd[i], om[i]
        printed[f"δϑ_{nm}"], computed[f"δϑ_{nm}"] = dq[i], sum(F.B[i, j] * dq[j] for j in range(S.dim))
        for a_ in range(S.dim):
            for b_ in range(S.dim):
                lab = f"β_{{{F.names[a_]},{F.names[b_]},{nm}}}"
                printed[lab], computed[lab] = 0, beta[a_, b_, i]
    return definition(printed, computed, "ball on a turning table, free (ψ, θ, φ), dependent (x, y)")


def _hamel_23_rows(delta: bool):
    mod, a, a0 = _ball_data()
    s, S = mod.system, mod.space
    F = voronets_frame(s, mod.dependent)
    if delta:
        v = list(sp.symbols("δψ δθ δφ δx δy δt"))
    else:
        v = list(S.velocities)       # q̇_{n+k+1} = ṫ = 1
    n, k = 3, 2
    printed, computed, full = {}, {}, {}
    for mm in range(k):
        lab = f"{'δϑ' if delta else 'ω'}_{{n+{mm + 1}}}"
        # the printed sum runs s = 1 … k
        printed[lab] = v[n + mm] - sum(a[mm, ss] * v[ss] for ss in range(k)) - a0[mm] * v[n + k]
        full[lab] = v[n + mm] - sum(a[mm, ss] * v[ss] for ss in range(n)) - a0[mm] * v[n + k]
        computed[lab] = sum(F.B[n + mm, j] * v[j] for j in range(S.dim))
    return printed, computed, full


@formula(SRC, "(23)", topic="constraint quasi-velocities of Hamel's frame",
         printed="ω_{n+m} = q̇_{n+m} − Σ_{s=1}^{k} a_{m,s} q̇_s − a_m q̇_{n+k+1} = 0 (m = 1 … k)",
         computed="ω_{n+m} = q̇_{n+m} − Σ_{s=1}^{n} a_{m,s} q̇_s − a_m q̇_{n+k+1} (sum over all n free coordinates, as in (2))",
         api="transposition.adapted.voronets_frame", expected="misprint")
def _hamel_23() -> Finding:
    printed, computed, full = _hamel_23_rows(False)
    found = compare(printed, computed, "ball on a turning table: n = 3 free (ψ, θ, φ), k = 2 dependent (x, y)")
    if found.status == "misprint" and compare(full, computed, "").status == "agrees":
        return Finding(found.status, found.example, found.difference,
                       "the sum must run s = 1 … n (the free coordinates of (2)); read so, (23) agrees")
    return found


@formula(SRC, "(23')", topic="virtual displacements of Hamel's frame",
         printed="δϑ_{n+m} = δq_{n+m} − Σ_{s=1}^{k} a_{m,s} δq_s − a_m δq_{n+k+1} = 0 (m = 1 … k)",
         computed="δϑ_{n+m} = θ^{n+m}(δq) = δq_{n+m} − Σ_{s=1}^{n} a_{m,s} δq_s − a_m δt",
         api="transposition.adapted.voronets_frame", expected="misprint")
def _hamel_23p() -> Finding:
    printed, computed, full = _hamel_23_rows(True)
    found = compare(printed, computed, "ball on a turning table: n = 3 free (ψ, θ, φ), k = 2 dependent (x, y)")
    if found.status == "misprint" and compare(full, computed, "").status == "agrees":
        return Finding(found.status, found.example, found.difference,
                       "the sum must run s = 1 … n, as in (2'); read so, (23') agrees")
    return found


@formula(SRC, "(24)", topic="time in Hamel's frame",
         printed="ω_{n+k+1} = q̇_{n+k+1} = 1",
         computed="voronets_frame's last coframe form is dt; ω_t = 1 on the motion",
         api="transposition.adapted.voronets_frame, frame_kinematics", expected="agrees")
def _hamel_24() -> Finding:
    mod, _, _ = _ball_data()
    S = mod.space
    F = voronets_frame(mod.system, mod.dependent)
    omega, _, _ = frame_kinematics(F, 3, sp.symbols("u1:4"))
    printed = {"ω_{n+k+1}": S.velocity(S.t), "ω_{n+k+1} on the motion": 1}
    computed = {"ω_{n+k+1}": F.quasi_velocities()[-1], "ω_{n+k+1} on the motion": omega[-1]}
    return definition(printed, computed, "ball on a turning table, Hamel's frame (22)–(24)")


@formula(SRC, "(24')", topic="δt = 0 in Hamel's frame",
         printed="δϑ_{n+k+1} = δq_{n+k+1} = 0, so that the β with last index n+k+1 vanish",
         computed="θ^t = dt, the virtual fields X_1 … X_{n+k} have no t-component, β_{a,b,t} = c^t_ab = 0 from brackets",
         api="transposition.adapted.voronets_frame, Frame.hamel_beta", expected="agrees")
def _hamel_24p() -> Finding:
    mod, _, _ = _ball_data()
    S = mod.space
    F = voronets_frame(mod.system, mod.dependent)
    dq = sp.symbols("δψ δθ δφ δx δy δt")
    N = S.dim
    beta = F.hamel_beta()
    printed = {"δϑ_{n+k+1} − δq_{n+k+1}": 0, **{f"δq_{{n+k+1}} on X_{F.names[a]}": 0 for a in range(N - 1)}}
    computed = {"δϑ_{n+k+1} − δq_{n+k+1}": sum(F.B[N - 1, j] * dq[j] for j in range(N)) - dq[-1],
                **{f"δq_{{n+k+1}} on X_{F.names[a]}": F.C[N - 1, a] for a in range(N - 1)}}
    for a_ in range(N):
        for b_ in range(N):
            lab = f"β_{{{F.names[a_]},{F.names[b_]},t}}"
            printed[lab], computed[lab] = 0, beta[a_, b_, N - 1]
    return definition(printed, computed, "ball on a turning table, Hamel's frame (22)–(24)")


@formula(SRC, "(V)", topic="Woronetz's equations (Hamel's form)",
         printed="dJ_i/dt + Σ_{s=1..n, m=1..k} β_{i,s,n+m} ω_s J_{n+m} + Σ_{m=1..k} β_{i,n+k+1,n+m} J_{n+m} − (∂E/∂ϑ_i) = K_i; J_i = ∂E''/∂q̇_i, J_{n+m} = ∂E/∂q̇_{n+m}",
         computed="Voronets's equations: the engine in the Voronets frame (Boltzmann–Hamel, β from brackets); J_a = p·X_a",
         api="equations.voronets", expected="agrees")
def _hamel_V() -> Finding:
    mod, a, a0 = _ball_data()
    s, S = mod.system, mod.space
    F = voronets_frame(s, mod.dependent)
    eqs = voronets(s, mod.dependent)
    qz = _Quasi(s, F, eqs)
    n, k = 3, 2
    tt = n + k
    beta, J, om = qz.beta, qz.J, qz.om
    printed, computed = {}, {}
    for i in range(n):
        e = qz.ddt(J[i])
        e += sum(beta[i, ss, n + mm] * om[ss] * J[n + mm] for ss in range(n) for mm in range(k))
        e += sum(beta[i, tt, n + mm] * J[n + mm] for mm in range(k))
        e += -qz.dE_dtheta(i)
        e = e.xreplace(qz.on) - qz.force(s, i)
        printed[f"(V)_{S.q[i].name}"] = e
        computed[f"(V)_{S.q[i].name}"] = eqs.residuals[i]
    # J_i = ∂E''/∂q̇_i (E'' = E with (2) put in) and J_{n+m} = ∂E/∂q̇_{n+m}, on the motion
    qd_dep = [sum(a[mm, ss] * S.qd[ss] for ss in range(n)) + a0[mm] for mm in range(k)]
    Epp = s.T.xreplace(dict(zip(S.qd[n:], qd_dep)))
    on = dict(zip(S.qd, eqs.kinematics))
    p = [pi.xreplace(on) for pi in s.momenta]
    for i in range(n + k):
        lab = f"J_{S.q[i].name}"
        printed[lab] = (sp.diff(Epp, S.qd[i]) if i < n else sp.diff(s.T, S.qd[i])).xreplace(on)
        computed[lab] = sum(F.C[j, i] * p[j] for j in range(S.n))
    return compare(printed, computed, "ball on a turning table, free (ψ, θ, φ), dependent (x, y), a_m = −Ω y, Ω x")


# -- § 1: Tzénoff's forms -----------------------------------------------------------------------
class _Tzenoff:
    """The pieces of (I), (II) on the sleigh with blade, y dependent: ẏ = a_{1,x} ẋ, a_{1,x} = tan θ,
    a_{1,θ} = 0 (typed in from the constraint), everything on the motion of Voronets's equations."""

    def __init__(self, offset: bool = True):
        sl = _sleigh(True, True, offset)
        s, S = sl.system, sl.system.space
        th = S.q[2]
        xd, thd = S.qd[0], S.qd[2]
        self.sl, self.s, self.S = sl, s, S
        self.eqs = voronets(s, ["y"])
        e = self.eqs
        self.sub = motion_substitution(s, e.kinematics, e.u, e.ud)
        self.free = [0, 2]                     # x, θ
        self.yd_of = sp.tan(th) * xd           # (2): q̇_{n+1} = a_{1,x} ẋ + a_{1,θ} θ̇
        self.a = {0: sp.diff(self.yd_of, xd), 2: sp.diff(self.yd_of, thd)}   # (4)
        self.ydd_of = S.total_derivative(self.yd_of)                          # (3)
        self.Kp = {i: sl.K[i] + self.a[i] * sl.K[1] for i in self.free}       # K'_i of (8)
        self.dW_dydd = sp.diff(sl.W, S.qdd[1])

    def on(self, f):
        return f.xreplace(self.sub)

    def ddt(self, f):
        """d/dt of a function of (t, q, q̇), on the motion."""
        return self.on(self.S.total_derivative(f))


@cache
def _tz(offset: bool = True) -> _Tzenoff:
    return _Tzenoff(offset)


@formula(SRC, "(I)", topic="Tzénoff's second form",
         printed="d/dt(∂E/∂q̇) − ∂E/∂q_i + ∂W'/∂q̈_i = K'_i, ∂W'/∂q̈_i = Σ_m a_{m,i} ∂W/∂q̈_{n+m} (the index i of q̇ is missing in print)",
         computed="Voronets's equations (engine, brackets) = Σ_i C^i_r (L_i − K_i) in the Voronets frame",
         api="equations.tzenoff(kind=2), equations.voronets", expected="agrees")
def _hamel_I() -> Finding:
    tz = _tz()
    sl, S = tz.sl, tz.S
    printed, computed = {}, {}
    for c, i in enumerate(tz.free):
        e = tz.ddt(sp.diff(sl.E, S.qd[i])) - tz.on(sp.diff(sl.E, S.q[i])) + tz.on(tz.a[i] * tz.dW_dydd) - tz.Kp[i]
        printed[f"(I)_{S.q[i].name}"] = e
        computed[f"(I)_{S.q[i].name}"] = tz.eqs.residuals[c]
    same = compare(list(tzenoff(tz.s, 2, ["y"]).residuals), list(tz.eqs.residuals), "").status == "agrees"
    return compare(printed, computed, "sleigh with blade and forces F_x, F_y, M, y dependent (ẏ = tan θ ẋ); "
                   "W = ½ m |w̄_G|² + ½ I (θ̈² + θ̇⁴)",
                   detail="the first term prints ∂E/∂q̇ without the index i (typographical); read with i"
                   + ("; equations.tzenoff(kind=2) gives the same expressions" if same else ""))


@formula(SRC, "(II)", topic="Tzénoff's first form",
         printed="d/dt(∂E''/∂q̇_i) − ∂E''/∂q_i + ∂E'/∂q_i − d/dt(∂E'/∂q̇_i) + ∂W'/∂q_i = K'_i",
         computed="the same with ∂W'/∂q̈_i = Σ_m a_{m,i} ∂W/∂q̈_{n+m} in the last term: Voronets's equations (engine, brackets)",
         api="equations.tzenoff(kind=1), equations.voronets", expected="misprint")
def _hamel_II() -> Finding:
    def forms(tz):
        sl, S = tz.sl, tz.S
        yd = S.qd[1]
        Epp = sl.E.xreplace({yd: tz.yd_of})                    # E'' of (11)
        p_dep = sp.diff(sl.E, yd).xreplace({yd: tz.yd_of})     # ∂E/∂q̇_{n+1} on the constraint
        printed, corrected, computed = {}, {}, {}
        for c, i in enumerate(tz.free):
            dEp_dqd = p_dep * tz.a[i]                              # ∂E'/∂q̇_i of (11)
            dEp_dq = p_dep * sp.diff(tz.yd_of, S.q[i])             # ∂E'/∂q_i of (12)
            head = (tz.ddt(sp.diff(Epp, S.qd[i])) - tz.on(sp.diff(Epp, S.q[i])) + tz.on(dEp_dq)
                    - tz.ddt(dEp_dqd) - tz.Kp[i])
            # ∂W'/∂q_i: W differentiated only through q̈_{n+1} of (3), with respect to q_i
            dW_dq = tz.on(tz.dW_dydd * sp.diff(tz.ydd_of, S.q[i]))
            dW_dqdd = tz.on(tz.dW_dydd * sp.diff(tz.ydd_of, S.qdd[i]))   # = a_{1,i} ∂W/∂q̈_{n+1}
            lab = f"(II)_{S.q[i].name}"
            printed[lab] = head + dW_dq
            corrected[lab] = head + dW_dqdd
            computed[lab] = tz.eqs.residuals[c]
        return printed, corrected, computed

    printed, corrected, computed = forms(_tz(False))
    found = compare(printed, computed, "knife edge (sleigh with mass centre on the blade, a = 0) with forces "
                    "F_x, F_y, M, y dependent (ẏ = tan θ ẋ)")
    _, corrected_a, computed_a = forms(_tz(True))
    if (found.status == "misprint" and compare(corrected, computed, "").status == "agrees"
            and compare(corrected_a, computed_a, "").status == "agrees"):
        return Finding(found.status, found.example, found.difference,
                       "∂W'/∂q_i read as W differentiated by q_i through q̈_{n+m}(q, q̇, q̈) of (3); the last term "
                       "must be ∂W'/∂q̈_i (as in (I)); read so, (II) agrees, also on the sleigh with a ≠ 0"
                       + ("; equations.tzenoff(kind=1) implements this reading" if compare(
                           list(tzenoff(_tz(True).s, 1, ["y"]).residuals), list(computed_a.values()), "").status
                          == "agrees" else ""))
    return found


# -- § 3: Hamilton's principle and Woronetz's theorem ----------------------------------------------
def _principle_equations(s, eqs, dq_of_eta, eta, etad, integrand):
    """d/dt ∂I/∂η̇_r − ∂I/∂η_r (the Euler–Lagrange expressions of ∫ I dt after an integration by
    parts; sign: that of the Lagrange operator) for an integrand I linear in (η, η̇)."""
    S = s.space
    out = []
    for r in range(len(eta)):
        A = sp.diff(integrand, eta[r])
        B = sp.diff(integrand, etad[r])
        out.append(S.total_derivative(B, along=eqs.kinematics, speeds=eqs.u, rates=eqs.ud) - A)
    return out


def _variation(S, F_expr, dq, ddq, on):
    """δF of F(t, q, q̇) with δt = 0, δq̇ = d/dt δq (eq. (26)), on the motion."""
    out = sp.S.Zero
    for i in range(S.n):
        if dq[i] != 0:
            out += sp.diff(F_expr, S.q[i]).xreplace(on) * dq[i]
        out += sp.diff(F_expr, S.qd[i]).xreplace(on) * ddq[i]
    return out


@formula(SRC, "(25)", topic="Hamilton's principle",
         printed="∫ (δE + δA) dt = 0 with dδq = δdq (26), δq admissible by (2'), δt = 0",
         computed="Voronets's equations (engine, brackets); the principle's Euler–Lagrange expressions d/dt ∂I/∂η̇ − ∂I/∂η",
         api="equations.voronets (cf. equations.hamilton_equations form 'hamilton')", expected="agrees")
def _hamel_25() -> Finding:
    tz = _tz()
    s, S, sl, eqs = tz.s, tz.S, tz.sl, tz.eqs
    th = S.q[2]
    eta, etad = sp.symbols("eta1 eta2"), sp.symbols("eta1_dot eta2_dot")
    # (2'): δx = η1, δθ = η2, δy = tan θ δx
    dq = [eta[0], sp.tan(th) * eta[0], eta[1]]
    on = dict(zip(S.qd, eqs.kinematics))
    ddq = [S.total_derivative(d.xreplace(on), along=eqs.kinematics, speeds=eqs.u, rates=eqs.ud)
           + sum(sp.diff(d, e) * ed for e, ed in zip(eta, etad)) for d in dq]
    dA = sum(sl.K[i] * dq[i] for i in range(S.n))
    I = _variation(S, sl.E, dq, ddq, on) + dA
    res = _principle_equations(s, eqs, dq, eta, etad, sp.expand(I))
    return compare(_fam("E_", ["x", "θ"], res), _fam("E_", ["x", "θ"], eqs.residuals),
                   "sleigh with blade and forces, y dependent; variations δq = (η1, tan θ η1, η2)")


@formula(SRC, "(26)", topic="d and δ commute on every coordinate",
         printed="dδq − δdq = 0 for all q (Hamel's assumption for the central equation)",
         computed="[V, W] = 0 on every coordinate for the transpositional relations with k = n − m (Hamel's view); "
                  "then dδϑ_c − δdϑ_c = β_{i,s,c} δϑ_i dϑ_s ≠ 0, so δω_c ≠ 0 although δϑ_c = 0",
         api="ConstrainedSetting.transposition(n − m).coordinates", expected="agrees")
def _hamel_26() -> Finding:
    mod = _skate()
    s, S = mod.system, mod.space
    st = ConstrainedSetting.from_codistribution(s.constraints, ["y"])
    tr = st.transposition(len(st.dependent))
    comps = tr.coordinates()
    printed = {f"dδ{q.name} − δd{q.name}": 0 for q in S.coords}
    computed = {f"dδ{q.name} − δd{q.name}": comps[i] for i, q in enumerate(S.coords)}
    # Hamel's consequence: the relation of the constraint quasi-coordinate does not vanish
    quasi = tr.quasi()
    rho = st.m                     # the π of the constraint (the first dependent coordinate)
    rel = sp.factor(sp.trigsimp(quasi[rho]))
    detail = (f"with (26) the constraint quasi-velocity π̇3 = tan θ ẋ − ẏ − b t tan θ (π1 = x, π2 = θ) has "
              f"dδπ3 − δdπ3 = {sp.sstr(rel)} "
              "≠ 0: δϑ_c = δπ3 = 0 but δω_c ≠ 0, as Hamel says after (26)") if rel != 0 else ""
    return definition(printed, computed, "skate on a belt, y dependent, k = n − m (Hamel's view)", detail=detail)


@formula(SRC, "(VI)", topic="Woronetz's theorem (Hamilton's principle with constraints put in E)",
         printed="∫ (δE'' + Σ_{l=1}^{n−k−1} J_{k+l} δω_{k+l} + δA) dt = 0, (26) for all q",
         computed="Boltzmann–Hamel equations in the frame (engine, brackets); Euler–Lagrange expressions d/dt ∂I/∂η̇ − ∂I/∂η",
         api="equations.boltzmann_hamel (cf. equations.hamilton_equations form 'woronetz')", expected="agrees")
def _hamel_VI() -> Finding:
    mod = _skate()
    s, S, F = mod.system, mod.space, mod.frame
    eqs = boltzmann_hamel(s, F)
    qz = _Quasi(s, F, eqs)
    m = qz.m                                    # Hamel's k = 2 free quasi-velocities (v, w)
    th = S.q[2]
    xd, yd, thd = S.qd
    b = sp.Symbol("b", positive=True)
    t = S.t
    # the quasi-velocities of the frame, typed in (ω_n = ṫ = 1)
    v = sp.cos(th) * xd + sp.sin(th) * yd
    w = thd
    c = -(xd - b * t) * sp.sin(th) + yd * sp.cos(th)
    # E'': E with ω_c = 0 and ω_n = 1 put in before the variation, q̇ = C (v, w, 0, 1)
    qd_new = [F.C[i, 0] * v + F.C[i, 1] * w + F.C[i, 3] for i in range(S.n)]
    Epp = s.T.xreplace(dict(zip(S.qd, qd_new)))
    eta, etad = sp.symbols("eta1 eta2"), sp.symbols("eta1_dot eta2_dot")
    dq = [F.C[i, 0] * eta[0] + F.C[i, 1] * eta[1] for i in range(S.n)]     # δϑ_c = 0, δt = 0
    on = dict(zip(S.qd, eqs.kinematics))
    ddq = [S.total_derivative(d, along=eqs.kinematics, speeds=eqs.u, rates=eqs.ud)
           + sum(sp.diff(d, e) * ed for e, ed in zip(eta, etad)) for d in dq]
    J = [j.xreplace(qz.on) for j in qz.J]
    dA = sum(s.Q[i].xreplace(on) * dq[i] for i in range(S.n))
    d_c = _variation(S, c, dq, ddq, on)
    I = _variation(S, Epp, dq, ddq, on) + J[m] * d_c + dA          # J_{k+1} δω_{k+1}
    res = _principle_equations(s, eqs, dq, eta, etad, sp.expand(I))
    labels = [f"E_{nm}" for nm in F.names[:m]]
    found = compare(dict(zip(labels, res)), dict(zip(labels, eqs.residuals)),
                    "skate on a belt, frame (v, w, c, t): k = 2, n − k − 1 = 1 constraint")
    # the line before (VI) prints δE = δE'' + Σ J_{k−l} δω_{k+l}: J_{k−1} = J_1 = J_v
    # (the equations with J_{k−1} minus those with J_{k+1}: the Euler–Lagrange expressions of (J_v − J_c) δω_c)
    extra = _principle_equations(s, eqs, dq, eta, etad, sp.expand((J[m - 2] - J[m]) * d_c))
    other = compare(dict(zip(labels, extra)), {lab: 0 for lab in labels}, "")
    if found.status == "agrees" and other.status == "misprint":
        def in_sines(e):   # cos² → 1 − sin², for a short display
            return sp.trigsimp(sp.factor(sp.expand(sp.expand(e).subs(sp.cos(th) ** 2, 1 - sp.sin(th) ** 2))))
        diff = {lab: in_sines(e) for lab, e in zip(labels, extra)}
        return Finding(found.status, found.example, found.difference,
                       "the line before (VI) prints J_{k−l}; with J_{k−1} = J_v in place of J_{k+1} = J_c the "
                       "equations differ (with − without the misprint): " + show(diff))
    return found
