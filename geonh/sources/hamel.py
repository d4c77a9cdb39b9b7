"""Hamel 1924, *Über nichtholonome Systeme* (seed 000): the audited formulas (1)–(17).

Each check types in the printed formula literally and compares it with what geonh computes
from brackets (see :mod:`geonh.sources.ledger`).  Equations (18) onward and (I)–(VI) are in
:mod:`geonh.sources.hamel_forms`.

§ 1 is checked on one rheonomic example with position vectors, built once
(``_section1``): coordinates q_1 = x, q_2 = θ (free, n = 2), q_3 = y (dependent, k = 1)
and time t; two particles

    r̄_1 = (x + a cos θ, y + a sin θ, 0)   (mass m1, force F along x),
    r̄_2 = (x + b cos ωt, y, a θ)          (mass m2, force G along y),

and the nonholonomic, rheonomic constraint (2)  ẏ = sin θ ẋ + x θ̇ + h t x.  geonh's side is
:meth:`MechanicalSystem.from_mechanics` (sympy.physics.mechanics particles and loads) with
everything derived from it (Lagrange's operator, Appell's S from Christoffel symbols, the
constraint solution, the δ fields, the Voronets frame, Hamel's raw form); the printed side is
typed in from the plain vectors r̄ by hand (chain rule written out in ``_ddt``).
§ 2 ((13)–(17)) uses the rigid body in z-x-z Euler angles with the body angular velocities.
"""
from __future__ import annotations

import itertools
from functools import lru_cache
from types import SimpleNamespace

import sympy as sp

from ..equations.declaration import contract
from ..equations.engine import lagrange_split
from ..equations.independent import hamel_raw, lagrange, motion_substitution
from ..kernel.fields import VectorField
from ..kernel.frames import Frame
from ..models import kinematic as catalog
from ..systems.mechanical import MechanicalSystem
from ..transposition.adapted import frame_kinematics, solve_constraints, speed_symbols, voronets_frame
from ..transposition.printed import hamel_matrices, printed_hamel_beta
from ..transposition.relations import ConstrainedSetting
from .ledger import Finding, compare, definition, formula, solve_linear

_S1 = "§ 1 example: particles r̄1 = (x + a cos θ, y + a sin θ, 0), r̄2 = (x + b cos ωt, y, a θ), " \
      "ẏ = sin θ ẋ + x θ̇ + h t x (n = 2, k = 1, rheonomic)"


def _labelled(arr, name: str) -> dict:
    """name_{i,j,k} (1-based) -> entry, for every entry of an array."""
    return {f"{name}_{{{','.join(str(i + 1) for i in idx)}}}": arr[idx]
            for idx in itertools.product(*[range(s) for s in arr.shape])}


# -- the § 1 example -----------------------------------------------------------------------------
@lru_cache(maxsize=None)
def _section1() -> SimpleNamespace:
    """The § 1 example: geonh's system (from sympy.physics.mechanics) and the plain data typed
    in by hand for the printed side (position vectors, masses, forces, a_{m,s}, a_m)."""
    from sympy.physics.mechanics import Particle, Point, ReferenceFrame, dynamicsymbols
    xf, yf, thf = dynamicsymbols("x y theta")
    tf = dynamicsymbols._t
    m1, m2, a, b, w, h = sp.symbols("m1 m2 a b omega h", positive=True)
    F, G = sp.symbols("F G", real=True)
    N = ReferenceFrame("N")
    O = Point("O")
    O.set_vel(N, 0)
    P1 = O.locatenew("P1", (xf + a * sp.cos(thf)) * N.x + (yf + a * sp.sin(thf)) * N.y)
    P2 = O.locatenew("P2", (xf + b * sp.cos(w * tf)) * N.x + yf * N.y + a * thf * N.z)
    for P in (P1, P2):
        P.set_vel(N, P.pos_from(O).dt(N))
    # given with a factor, so that solving it for ẏ is not a no-op
    constraint = (1 + xf ** 2) * (yf.diff(tf) - sp.sin(thf) * xf.diff(tf) - xf * thf.diff(tf) - h * tf * xf)
    system = MechanicalSystem.from_mechanics(
        [xf, thf, yf], [Particle("p1", P1, m1), Particle("p2", P2, m2)], N,
        loads=[(P1, F * N.x), (P2, G * N.y)], constraints=[constraint], time=True, name="Hamel § 1 example")
    S = system.space
    x, th, y = S.q
    t = S.t
    # typed in by hand, in the symbols of the space: (1), the masses, the applied forces, (2)
    r = [sp.Matrix([x + a * sp.cos(th), y + a * sp.sin(th), 0]),
         sp.Matrix([x + b * sp.cos(w * t), y, a * th])]
    masses = [m1, m2]
    forces = [sp.Matrix([F, 0, 0]), sp.Matrix([0, G, 0])]
    a_ms = sp.Matrix([[sp.sin(th), x]])        # a_{1,1}, a_{1,2}: columns x, θ
    a_m = sp.Matrix([h * t * x])               # a_1
    return SimpleNamespace(system=system, S=S, x=x, th=th, y=y, t=t, r=r, masses=masses, forces=forces,
                           a=a_ms, a0=a_m, free=[x, th], dep=[y], params=(m1, m2, a, b, w, h, F, G))


def _ddt(expr, S):
    """d/dt by hand: ∂/∂t + Σ q̇ ∂/∂q + Σ q̈ ∂/∂q̇ (the printed side's chain rule)."""
    out = sp.diff(expr, S.t) if S.t is not None else sp.S.Zero
    for q, v, acc in zip(S.q, S.qd, S.qdd):
        out += v * sp.diff(expr, q) + acc * sp.diff(expr, v)
    return out


def _velocity_by_hand(r, S):
    """v̄ = Σ ∂r̄/∂q_i q̇_i + ∂r̄/∂t (the formula after (4))."""
    return sum((sp.diff(r, q) * v for q, v in zip(S.q, S.qd)), sp.diff(r, S.t))


def _acceleration_by_hand(r, S):
    """w̄ = d²r̄/dt², the chain rule twice (the formula after (4))."""
    return _ddt(_velocity_by_hand(r, S), S)


def _dot(u, v):
    return sum((ui * vi for ui, vi in zip(u, v)), sp.S.Zero)


def _printed_Q(e, S, i):
    """Q_i = S dm w̄·∂r̄/∂q_i (Lagrange's acceleration components, text after (7))."""
    return sum((m * _dot(_acceleration_by_hand(r, S), sp.diff(r, S.q[i])) for m, r in zip(e.masses, e.r)),
               sp.S.Zero)


def _printed_K(e, S, i):
    """K_i = S dk̄·∂r̄/∂q_i (the force components, text after (7))."""
    return sum((_dot(f, sp.diff(r, S.q[i])) for f, r in zip(e.forces, e.r)), sp.S.Zero)


def _on_constraint(e):
    """{q̇_{n+m}: Σ a_{m,s} q̇_s + a_m}, typed in from (2)."""
    S = e.S
    vel = dict(zip(S.q, S.qd))
    return {vel[q]: sum((e.a[j, c] * vel[s] for c, s in enumerate(e.free)), e.a0[j]) for j, q in enumerate(e.dep)}


# -- § 1 ----------------------------------------------------------------------------------------
@formula("hamel1924", "(1)", topic="position vectors of a rheonomic system; E quadratic in q̇",
         printed="r̄ = r̄(q_1, …, q_n, q_{n+1}, …, q_{n+k}; t), E = ½ S dm v̄², v̄ = Σ ∂r̄/∂q_i q̇_i + ∂r̄/∂t",
         computed="MechanicalSystem.from_mechanics(…, time=True).T (time adjoined as the last coordinate; "
                  "quadratic in q̇ with coefficients in q, t, checked on construction)",
         api="MechanicalSystem.from_mechanics", expected="agrees")
def _hamel_1() -> Finding:
    e = _section1()
    S = e.S
    vs = [_velocity_by_hand(r, S) for r in e.r]
    E = sum((m * _dot(v, v) for m, v in zip(e.masses, vs)), sp.S.Zero) / 2
    quadratic = sp.Integer(int(all(not c.has(*S.qd) for c in e.system.mass_matrix)))
    key = "∂²E/∂q̇² free of q̇"
    return definition({"E": E, key: sp.Integer(1)}, {"E": e.system.T, key: quadratic}, _S1, detail="E has a linear part and a q̇-free part from ∂r̄2/∂t = (−bω sin ωt, 0, 0)")


@formula("hamel1924", "(2)", topic="nonholonomic rheonomic constraints solved for dependent velocities",
         printed="q̇_{n+m} = Σ_{s=1}^{n} a_{m,s} q̇_s + a_m  (m = 1, …, k)",
         computed="q̇_j = a_js q̇_s + a_j from solve_constraints (ConstrainedSetting.from_codistribution "
                  "of the constraint forms, dt component = affine part)",
         api="transposition.solve_constraints", expected="agrees")
def _hamel_2() -> Finding:
    e = _section1()
    S = e.S
    free, dep, a, a0 = solve_constraints(e.system, ["y"])
    computed = {f"q̇_{S.q[j].name}": sum((a[k, c] * S.qd[s] for c, s in enumerate(free)), a0[k])
                for k, j in enumerate(dep)}
    printed = {f"q̇_{q.name}": v for q, v in zip(e.dep, _on_constraint(e).values())}
    holo = ConstrainedSetting.from_codistribution(e.system.constraints, ["y"]).is_holonomic()
    return definition(printed, computed, _S1,
                      detail=f"the constraint is {'holonomic (!)' if holo else 'nonholonomic'} (Frobenius)")


@formula("hamel1924", "(2')", topic="virtual displacements of the constraints",
         printed="δq_{n+m} = Σ_s a_{m,s} δq_s  (no a_m term; δt = 0)",
         computed="the δ field W of the transpositional relations (k = 0): W^j = a_js δq_s, W^t = 0 "
                  "(Chetaev: the homogeneous part of (2))",
         api="ConstrainedSetting.fields(k).delta", expected="agrees")
def _hamel_2p() -> Finding:
    e = _section1()
    S = e.S
    setting = ConstrainedSetting.from_codistribution(e.system.constraints, ["y"])
    fl = setting.fields(0)
    W = fl.delta
    dq = [fl.delta_symbols[q] for q in e.free]
    printed = {f"δ{q.name}": sum((e.a[j, c] * dq[c] for c in range(len(e.free))), sp.S.Zero)
               for j, q in enumerate(e.dep)}
    printed["δt"] = sp.S.Zero
    computed = {f"δ{q.name}": W.components[S.index(q)] for q in e.dep}
    computed["δt"] = W.components[S.index(S.t)]
    return definition(printed, computed, _S1)


@formula("hamel1924", "(3)", topic="accelerations of the dependent coordinates",
         printed="q̈_{n+m} = Σ_s a_{m,s} q̈_s + … (… free of q̈: Σ_s (d a_{m,s}/dt) q̇_s + d a_m/dt)",
         computed="q̈_j solved from the differentiated constraint rows d/dt φ = 0 of Lagrange's equations "
                  "with multipliers (ConfigurationSpace.total_derivative)",
         api="equations.lagrange (constraint rows)", expected="agrees")
def _hamel_3() -> Finding:
    e = _section1()
    S = e.S
    # printed: the q̈ part as printed, the dots filled with the time derivative of the coefficients
    printed = {}
    on = _on_constraint(e)
    for j, q in enumerate(e.dep):
        acc = sum((e.a[j, c] * S.qdd[S.index(s)] for c, s in enumerate(e.free)), sp.S.Zero)
        dots = sum((_ddt(e.a[j, c], S) * S.qd[S.index(s)] for c, s in enumerate(e.free)), _ddt(e.a0[j], S))
        printed[f"q̈_{q.name}"] = (acc + dots).xreplace(on)
    eqs = lagrange(e.system)
    rows = eqs.residuals[S.n:]           # the differentiated constraints, linear in q̈
    dep_acc = [S.qdd[S.index(q)] for q in e.dep]
    sol = solve_linear(rows, dep_acc)
    computed = {f"q̈_{q.name}": sol[a].xreplace(on) for q, a in zip(e.dep, dep_acc)}
    return compare(printed, computed, _S1)


@formula("hamel1924", "(4)", topic="∂ of a dependent velocity with respect to a free one",
         printed="∂q̇_{n+m}/∂q̇_s = a_{m,s}",
         computed="∂K_j/∂u_s = C^j_s of the Voronets frame (frame_kinematics; q̇ = C ω, ω_s = q̇_s); "
                  "also ∂q̈_j/∂q̈_s from the constraint rows of Lagrange's equations",
         api="transposition.voronets_frame / frame_kinematics", expected="agrees")
def _hamel_4() -> Finding:
    e = _section1()
    S = e.S
    F = voronets_frame(e.system, ["y"])
    m = len(e.free)
    u, _ = speed_symbols(F.names[:m])
    _, K, _ = frame_kinematics(F, m, u)
    rows = lagrange(e.system).residuals[S.n:]
    printed, computed = {}, {}
    for j, q in enumerate(e.dep):
        jj = S.index(q)
        coef = rows[j].diff(S.qdd[jj])
        for c, s in enumerate(e.free):
            printed[f"∂q̇_{q.name}/∂q̇_{s.name}"] = e.a[j, c]
            computed[f"∂q̇_{q.name}/∂q̇_{s.name}"] = sp.diff(K[jj], u[c])
            printed[f"∂q̈_{q.name}/∂q̈_{s.name}"] = e.a[j, c]
            computed[f"∂q̈_{q.name}/∂q̈_{s.name}"] = -rows[j].diff(S.qdd[S.index(s)]) / coef
    return compare(printed, computed, _S1,
                   detail="(I) uses (4) as ∂q̈_{n+m}/∂q̈_s = a_{m,s} ('wegen (4)'); by (3) it has the same value")


@formula("hamel1924", "(5)", topic="∂ of the acceleration: q̇ printed where q̈ is meant",
         printed="∂w̄/∂q̇_i = ∂r̄/∂q_i  (i = 1, …, n+k)",
         computed="∂w̄/∂q̈_i = ∂v̄/∂q̇_i = ∂r̄/∂q_i (w̄, v̄ from ConfigurationSpace.total_derivative); "
                  "∂w̄/∂q̇_i = 2 d/dt ∂r̄/∂q_i instead",
         api="ConfigurationSpace.total_derivative", expected="misprint")
def _hamel_5() -> Finding:
    e = _section1()
    S = e.S
    printed, computed, qdd_reading, rhs = {}, {}, {}, {}
    for p, r in enumerate(e.r):
        v = r.applyfunc(S.total_derivative)
        w = v.applyfunc(S.total_derivative)
        for i, q in enumerate(S.q):
            for c, axis in enumerate("xyz"):
                key = f"r̄{p + 1}, i = {q.name}, {axis}"
                printed[key] = sp.diff(w[c], S.qd[i])          # as printed: ∂w̄/∂q̇_i
                computed[key] = sp.diff(v[c], S.qd[i])         # the partial velocity ∂v̄/∂q̇_i
                qdd_reading[key] = sp.diff(w[c], S.qdd[i])     # ∂w̄/∂q̈_i
                rhs[key] = sp.diff(r[c], q)                    # ∂r̄/∂q_i
    ok_q = compare(qdd_reading, computed, "").status == "agrees" and compare(rhs, computed, "").status == "agrees"
    return compare(printed, computed, _S1,
                   detail=("read ∂w̄/∂q̈_i it agrees with ∂r̄/∂q_i" if ok_q else "the q̈ reading fails too (!)")
                   + "; the misprint is already in docs/equations.md § 11")


@formula("hamel1924", "(6)", topic="virtual displacement of a point (δt = 0)",
         printed="δr̄ = Σ_{i=1}^{n} ∂r̄/∂q_i δq_i + Σ_{s=1}^{k} ∂r̄/∂q_{n+s} δq_{n+s}",
         computed="δr̄ = W(r̄), W the δ field of the transpositional relations (k = n − m: all δq free "
                  "symbols; k = 0: δq_{n+s} by (2')); W^t = 0",
         api="ConstrainedSetting.fields(k).delta", expected="agrees")
def _hamel_6() -> Finding:
    e = _section1()
    S = e.S
    setting = ConstrainedSetting.from_codistribution(e.system.constraints, ["y"])
    printed, computed = {}, {}
    for k in (len(e.dep), 0):
        fl = setting.fields(k)
        W = fl.delta
        dq = {q: fl.delta_symbols[q] for q in e.free}
        for j, q in enumerate(e.dep):     # k = n − m: a free symbol; k = 0: (2') typed in
            dq[q] = fl.delta_symbols[q] if k else sum((e.a[j, c] * dq[s] for c, s in enumerate(e.free)), sp.S.Zero)
        for p, r in enumerate(e.r):
            typed = sum((sp.diff(r, q) * dq[q] for q in S.q), sp.zeros(3, 1))
            for c, axis in enumerate("xyz"):
                key = f"k = {k}: δr̄{p + 1}_{axis}"
                printed[key] = typed[c]
                computed[key] = W(r[c])
    return definition(printed, computed, _S1,
                      detail="no ∂r̄/∂t δt term: r̄2 depends on t, and W^t = 0 (δt = 0)")


@formula("hamel1924", "(7)", topic="Lagrange's principle in generalized components",
         printed="Σ_{i≤n} Q_i δq_i + Σ_s Q_{n+s} δq_{n+s} = Σ_{i≤n} K_i δq_i + Σ_s K_{n+s} δq_{n+s}, "
                 "Q = S dm w̄·∂r̄/∂q, K = S dk̄·∂r̄/∂q",
         computed="Σ_i (L_i − Q_i) W^i with Lagrange's operator L = d/dt ∂T/∂q̇ − ∂T/∂q "
                  "(MechanicalSystem.lagrange_operator), the generalized forces of the loads and the δ field W",
         api="MechanicalSystem.lagrange_operator / MechanicalSystem.Q", expected="agrees")
def _hamel_7() -> Finding:
    e = _section1()
    S = e.S
    ms = e.system
    setting = ConstrainedSetting.from_codistribution(ms.constraints, ["y"])
    W = setting.fields(len(e.dep)).delta        # all δq independent (before (2') is inserted)
    dq = [W.components[i] for i in range(S.n)]
    printed = sum(((_printed_Q(e, S, i) - _printed_K(e, S, i)) * dq[i] for i in range(S.n)), sp.S.Zero)
    computed = sum(((ms.lagrange_operator[i] - ms.Q[i]) * dq[i] for i in range(S.n)), sp.S.Zero)
    return compare(sp.expand(printed), sp.expand(computed), _S1)


@formula("hamel1924", "(8)", topic="the raw form of the equations of motion",
         printed="Q_i + Σ_m a_{m,i} Q_{n+m} = K_i + Σ_m a_{m,i} K_{n+m} ≡ K'_i  (i = 1, …, n)",
         computed="equations.hamel_raw: Maggi's Σ_i (L_i − Q_i) C^i_s along the free fields "
                  "X_s = ∂_s + a_js ∂_j of the Voronets frame, on the motion",
         api="equations.hamel_raw", expected="agrees")
def _hamel_8() -> Finding:
    e = _section1()
    S = e.S
    eqs = hamel_raw(e.system, ["y"])
    sub = motion_substitution(e.system, eqs.kinematics, eqs.u, eqs.ud)
    printed, computed = {}, {}
    for c, s in enumerate(e.free):
        i = S.index(s)
        lhs = _printed_Q(e, S, i) + sum((e.a[j, c] * _printed_Q(e, S, S.index(q)) for j, q in enumerate(e.dep)),
                                        sp.S.Zero)
        Kp = _printed_K(e, S, i) + sum((e.a[j, c] * _printed_K(e, S, S.index(q)) for j, q in enumerate(e.dep)),
                                       sp.S.Zero)
        printed[f"i = {s.name}"] = (lhs - Kp).xreplace(sub)
        computed[f"i = {s.name}"] = eqs.residuals[c]
    return compare(printed, computed, _S1)


@formula("hamel1924", "(9)", topic="Lagrange's acceleration components",
         printed="Q_i = d/dt (∂E/∂q̇_i) − ∂E/∂q_i  (Q_i = S dm w̄·∂r̄/∂q_i)",
         computed="MechanicalSystem.lagrange_operator (from the primitives M, b, T0 of E, ṫ = 1)",
         api="MechanicalSystem.lagrange_operator", expected="agrees")
def _hamel_9() -> Finding:
    e = _section1()
    S = e.S
    E = e.system.T
    printed, computed = {}, {}
    for i, q in enumerate(S.q):
        L = e.system.lagrange_operator[i]
        printed[f"d/dt ∂E/∂q̇_{q.name} − ∂E/∂{q.name}"] = _ddt(sp.diff(E, S.qd[i]), S) - sp.diff(E, q)
        computed[f"d/dt ∂E/∂q̇_{q.name} − ∂E/∂{q.name}"] = L
        printed[f"S dm w̄·∂r̄/∂{q.name}"] = _printed_Q(e, S, i)
        computed[f"S dm w̄·∂r̄/∂{q.name}"] = L
    return compare(printed, computed, _S1)


@formula("hamel1924", "(10)", topic="Appell's function: q̇ printed where q̈ is meant",
         printed="S dm w̄·∂r̄/∂q_i = S dm w̄·∂w̄/∂q̇_i = ∂W/∂q̇_i,  W = ½ S dm w̄²",
         computed="∂S/∂q̈_i = L_i, Appell's S from Christoffel symbols (MechanicalSystem.acceleration_energy); "
                  "with ∂/∂q̈_i in the two last members the chain agrees",
         api="MechanicalSystem.acceleration_energy", expected="misprint")
def _hamel_10() -> Finding:
    e = _section1()
    S = e.S
    Sacc = e.system.acceleration_energy()
    ws = [_acceleration_by_hand(r, S) for r in e.r]
    W = sum((m * _dot(w, w) for m, w in zip(e.masses, ws)), sp.S.Zero) / 2
    printed, computed, reading = {}, {}, {}
    for i, q in enumerate(S.q):
        target = sp.diff(Sacc, S.qdd[i])
        k1, k2, k3 = (f"S dm w̄·∂r̄/∂{q.name}", f"S dm w̄·∂w̄/∂q̇_{q.name}", f"∂W/∂q̇_{q.name}")
        printed[k1] = _printed_Q(e, S, i)
        printed[k2] = sum((m * _dot(w, sp.diff(w, S.qd[i])) for m, w in zip(e.masses, ws)), sp.S.Zero)
        printed[k3] = sp.diff(W, S.qd[i])
        reading[k1] = printed[k1]
        reading[k2] = sum((m * _dot(w, sp.diff(w, S.qdd[i])) for m, w in zip(e.masses, ws)), sp.S.Zero)
        reading[k3] = sp.diff(W, S.qdd[i])
        for k in (k1, k2, k3):
            computed[k] = target
    ok = compare(reading, computed, "").status == "agrees"
    return compare(printed, computed, _S1,
                   detail=("with ∂/∂q̈_i every member agrees" if ok else "the q̈ reading fails too (!)")
                   + "; the misprint is already in docs/equations.md § 11")


def _voronets_motion(e):
    """The motion in the Voronets frame: (frame, u, K, {u_s: q̇_s}) with K = q̇(t, q, u)."""
    F = voronets_frame(e.system, ["y"])
    m = len(e.free)
    u, ud = speed_symbols(F.names[:m])
    _, K, _ = frame_kinematics(F, m, u)
    S = e.S
    back = {u[c]: S.qd[S.index(s)] for c, s in enumerate(e.free)}
    return F, u, ud, K, back


@formula("hamel1924", "(11)", topic="E'' (constraints inserted): derivative in a free velocity",
         printed="∂E''/∂q̇_i = ∂E/∂q̇_i + Σ_m ∂E/∂q̇_{n+m} ∂q̇_{n+m}/∂q̇_i = ∂E/∂q̇_i + ∂E'/∂q̇_i",
         computed="J_i = p·X_i on the motion (engine.lagrange_split momenta contracted with the free field "
                  "X_i = ∂_i + a_ji ∂_j of the Voronets frame) = ∂T*/∂ω_i",
         api="equations.engine.lagrange_split / equations.declaration.contract", expected="agrees")
def _hamel_11() -> Finding:
    e = _section1()
    S = e.S
    E = e.system.T
    on = _on_constraint(e)
    F, u, ud, K, back = _voronets_motion(e)
    p_on = lagrange_split(e.system, K, u).p
    Epp = E.xreplace(on)
    printed, computed = {}, {}
    for c, s in enumerate(e.free):
        i = S.index(s)
        chain = sp.diff(E, S.qd[i]) + sum((sp.diff(E, S.qd[S.index(q)]) * sp.diff(on[S.qd[S.index(q)]], S.qd[i])
                                           for q in e.dep), sp.S.Zero)
        J = contract(p_on, F, c).xreplace(back)
        printed[f"∂E''/∂q̇_{s.name}"] = sp.diff(Epp, S.qd[i])
        printed[f"∂E/∂q̇_{s.name} + Σ ∂E/∂q̇_{{n+m}} ∂q̇_{{n+m}}/∂q̇_{s.name}"] = chain.xreplace(on)
        computed[f"∂E''/∂q̇_{s.name}"] = J
        computed[f"∂E/∂q̇_{s.name} + Σ ∂E/∂q̇_{{n+m}} ∂q̇_{{n+m}}/∂q̇_{s.name}"] = J
    return compare(printed, computed, _S1,
                   detail="the text before (11) writes q̇_{n−m} for q̇_{n+m} (docs/transposition.md § 8, item 6)")


@formula("hamel1924", "(12)", topic="E'' (constraints inserted): derivative in a free coordinate",
         printed="∂E''/∂q_i = ∂E/∂q_i + Σ_m ∂E/∂q̇_{n+m} ∂q̇_{n+m}/∂q_i = ∂E/∂q_i + ∂E'/∂q_i",
         computed="∂_i T*(q, ω) at ω = (q̇_s, 0, 1): the coordinate field ∂_i applied to T* = T(q, C ω) "
                  "(frame_kinematics in the Voronets frame)",
         api="transposition.frame_kinematics / VectorField", expected="agrees")
def _hamel_12() -> Finding:
    e = _section1()
    S = e.S
    E = e.system.T
    on = _on_constraint(e)
    F, u, ud, K, back = _voronets_motion(e)
    Tstar = E.xreplace(dict(zip(S.qd, K)))
    printed, computed = {}, {}
    for c, s in enumerate(e.free):
        chain = sp.diff(E, s) + sum((sp.diff(E, S.qd[S.index(q)]) * sp.diff(on[S.qd[S.index(q)]], s)
                                     for q in e.dep), sp.S.Zero)
        d_i = VectorField.coordinate(S, s)(Tstar).xreplace(back)
        printed[f"∂E''/∂{s.name}"] = sp.diff(E.xreplace(on), s)
        printed[f"∂E/∂{s.name} + Σ ∂E/∂q̇_{{n+m}} ∂q̇_{{n+m}}/∂{s.name}"] = chain.xreplace(on)
        computed[f"∂E''/∂{s.name}"] = d_i
        computed[f"∂E/∂{s.name} + Σ ∂E/∂q̇_{{n+m}} ∂q̇_{{n+m}}/∂{s.name}"] = d_i
    return compare(printed, computed, _S1)


# -- § 2 ----------------------------------------------------------------------------------------
_RB = "rigid body, z-x-z Euler angles (ψ, θ, φ), body angular velocities Ω1, Ω2, Ω3"


@lru_cache(maxsize=None)
def _rigid_body() -> SimpleNamespace:
    """The rigid body: geonh's frame built from the quasi-velocities (C by LU), and Hamel's b, c
    typed in: b_{i,s} = coefficient of q̇_i in ω_s (13), c_{s,i} the closed-form inverse."""
    S = catalog.rigid_body().space
    ps, th, ph = S.q
    sn, cs = sp.sin, sp.cos
    pd, td, fd = S.qd
    omegas = [pd * sn(th) * sn(ph) + td * cs(ph), pd * sn(th) * cs(ph) - td * sn(ph), pd * cs(th) + fd]
    F = Frame.from_quasi_velocities(S, omegas, names=["Omega1", "Omega2", "Omega3"])
    # rows i = coordinate (ψ, θ, φ), columns s = quasi (Ω1, Ω2, Ω3)
    b = sp.Matrix([[sn(th) * sn(ph), sn(th) * cs(ph), cs(th)],
                   [cs(ph), -sn(ph), 0],
                   [0, 0, 1]])
    # q̇_s = Σ_i c_{s,i} ω_i: rows s = coordinate, columns i = quasi
    c = sp.Matrix([[sn(ph) / sn(th), cs(ph) / sn(th), 0],
                   [cs(ph), -sn(ph), 0],
                   [-sn(ph) * cs(th) / sn(th), -cs(ph) * cs(th) / sn(th), 1]])
    return SimpleNamespace(S=S, F=F, b=b, c=c, omega=sp.symbols("Omega1:4", real=True))


@formula("hamel1924", "(13)", topic="quasi-velocities and their inverse",
         printed="ω_s = Σ_i b_{i,s} q̇_i,  q̇_s = Σ_i c_{s,i} ω_i",
         computed="Frame.from_quasi_velocities: ω = B q̇ (Frame.quasi_velocities), q̇ = C ω (Frame.velocities_from), "
                  "C = B⁻¹ by LU; b = Bᵀ, c = C (transposition.printed.hamel_matrices)",
         api="Frame.from_quasi_velocities", expected="agrees")
def _hamel_13() -> Finding:
    rb = _rigid_body()
    S, F, b, c, w = rb.S, rb.F, rb.b, rb.c, rb.omega
    n = S.n
    printed = {f"ω_{s + 1}": sum((b[i, s] * S.qd[i] for i in range(n)), sp.S.Zero) for s in range(n)}
    printed.update({f"q̇_{S.q[s].name}": sum((c[s, i] * w[i] for i in range(n)), sp.S.Zero) for s in range(n)})
    computed = {f"ω_{s + 1}": e for s, e in enumerate(F.quasi_velocities())}
    computed.update({f"q̇_{S.q[s].name}": e for s, e in zip(range(n), F.velocities_from(list(w)))})
    bb, cc = hamel_matrices(F)
    printed.update(_labelled(sp.Array(b.tolist()), "b"))
    printed.update(_labelled(sp.Array(c.tolist()), "c"))
    computed.update(_labelled(sp.Array(bb.tolist()), "b"))
    computed.update(_labelled(sp.Array(cc.tolist()), "c"))
    return definition(printed, computed, _RB)


@formula("hamel1924", "(14)", topic="virtual displacements in quasi-coordinates",
         printed="δϑ_s = Σ_i b_{i,s} δq_i,  δq_s = Σ_i c_{s,i} δϑ_i",
         computed="δϑ = θ(W) = Frame.components(W) of a δ field W = δq_i ∂_i; δq = components of Σ δϑ_i X_i",
         api="Frame.components / Frame.fields", expected="agrees")
def _hamel_14() -> Finding:
    rb = _rigid_body()
    S, F, b, c = rb.S, rb.F, rb.b, rb.c
    n = S.n
    dq = sp.symbols("δpsi δtheta δphi", real=True)
    dv = sp.symbols("δϑ1:4", real=True)
    W = VectorField(S, list(dq))
    printed = {f"δϑ_{s + 1}": sum((b[i, s] * dq[i] for i in range(n)), sp.S.Zero) for s in range(n)}
    computed = {f"δϑ_{s + 1}": v for s, v in enumerate(F.components(W))}
    Wq = sum((F.fields[i] * dv[i] for i in range(1, n)), F.fields[0] * dv[0])
    printed.update({f"δq_{S.q[s].name}": sum((c[s, i] * dv[i] for i in range(n)), sp.S.Zero) for s in range(n)})
    computed.update({f"δq_{S.q[s].name}": Wq.components[s] for s in range(n)})
    return definition(printed, computed, _RB)


@formula("hamel1924", "(15)", topic="d and δ commute on the true coordinates (Hamel's choice)",
         printed="δ dq_i = d δq_i  (equivalent to δ dr̄ = d δr̄)",
         computed="dδq^i − δdq^i = [V, W]^i = 0 for the k = n − m (Hamel/Volterra) fields; "
                  "δdr̄ − dδr̄ = −[V, W](r̄) = 0",
         api="TranspositionalRelations.coordinates (k = n − m)", expected="agrees")
def _hamel_15() -> Finding:
    e = _section1()
    S = e.S
    setting = ConstrainedSetting.from_codistribution(e.system.constraints, ["y"])
    tr = setting.transposition(len(e.dep))
    printed, computed = {}, {}
    for q, val in zip(S.coords, tr.coordinates()):
        printed[f"δd{q.name} − dδ{q.name}"] = sp.S.Zero
        computed[f"δd{q.name} − dδ{q.name}"] = -val
    V, W = tr.V, tr.W
    for p, r in enumerate(e.r):
        for c, axis in enumerate("xyz"):
            printed[f"δdr̄{p + 1}_{axis} − dδr̄{p + 1}_{axis}"] = sp.S.Zero
            computed[f"δdr̄{p + 1}_{axis} − dδr̄{p + 1}_{axis}"] = W(V(r[c])) - V(W(r[c]))
    tr0 = setting.transposition(0)
    suslov = sp.factor(tr0.coordinate(e.y, on_motion=True))
    r_suslov = sp.factor(tr0.W(tr0.V(e.r[0][1])) - tr0.V(tr0.W(e.r[0][1])))
    return compare(printed, computed, _S1,
                   detail=f"an admissible choice, not a necessary one (Hamel): with k = 0 (Suslov) "
                          f"dδy − δdy = {suslov} and δdr̄1_y − dδr̄1_y = {r_suslov} (δdr̄ = dδr̄ fails with it)")


def _rigid_setting():
    rb = _rigid_body()
    return rb, ConstrainedSetting(rb.S, [], sp.zeros(0, 3), quasi=list(rb.F.quasi_velocities()))


@formula("hamel1924", "(16)", topic="the transpositional relations (Übergangsgleichungen)",
         printed="dδϑ_m − δdϑ_m = Σ_{i,s} β_{i,s,m} δϑ_i dϑ_s, β of (17) (b read (quasi, coordinate))",
         computed="V(ϑ_m(W)) − W(ϑ_m(V)) for commuting d and δ fields (TranspositionalRelations.quasi, "
                  "k = n − m), in dϑ, δϑ",
         api="TranspositionalRelations.quasi", expected="agrees")
def _hamel_16() -> Finding:
    rb, setting = _rigid_setting()
    tr = setting.transposition(0)
    F = rb.F
    n = rb.S.n
    beta = printed_hamel_beta(F.B, rb.c, rb.S.coords)     # (17) with b = B (see (17))
    dth, dlt = tr.dpi, tr.deltapi
    printed = {f"dδϑ_{m + 1} − δdϑ_{m + 1}": sum((beta[i, s, m] * dlt[i] * dth[s] for i in range(n) for s in range(n)),
                                                sp.S.Zero) for m in range(n)}
    computed = {f"dδϑ_{m + 1} − δdϑ_{m + 1}": v for m, v in enumerate(tr.quasi())}
    found = compare(printed, computed, _RB)
    return found if found.status != "agrees" else Finding(
        "agrees", found.example, found.difference,
        "first slot of β the δ index, second the d index (CONVENTIONS.md); e.g. dδϑ_3 − δdϑ_3 = "
        + sp.sstr(sp.factor(sp.trigsimp(computed["dδϑ_3 − δdϑ_3"]))))


@formula("hamel1924", "(17)", topic="Hamel's β from the matrices b, c of (13)",
         printed="β_{i,s,m} = Σ_{h,l} (∂b_{m,l}/∂q_h − ∂b_{m,h}/∂q_l) c_{l,i} c_{h,s}, with b_{i,s} of (13)",
         computed="β_{i,s,m} = c^m_is = θ^m([X_i, X_s]); (17) holds with b read (quasi, coordinate), b = B",
         api="Frame.hamel_beta", expected="misprint")
def _hamel_17() -> Finding:
    F = catalog.rigid_body().frame
    b13, c13 = hamel_matrices(F)
    printed = printed_hamel_beta(b13, c13, F.space.coords)
    computed = F.hamel_beta()
    found = compare(_labelled(printed, 'β'), _labelled(computed, 'β'), "rigid body, body angular velocities (Euler angles)")
    transposed = printed_hamel_beta(F.B, c13, F.space.coords)
    if found.status == "misprint" and compare(_labelled(transposed, 'β'), _labelled(computed, 'β'), "").status == "agrees":
        return Finding("misprint", found.example, found.difference,
                       "the index order of b in (17) is (quasi, coordinate), the transpose of (13)'s; "
                       "read that way (17) agrees")
    return found
