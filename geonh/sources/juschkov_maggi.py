"""Juschkov, *Ableitung der Gleichungen von Maggi …* (seed 003), eqs. (20)–(38): the split of
Newton's law into the motion space "L" and the reaction space "K" (20)–(22), the nonholonomic
bases and Maggi's equations with their reactions (23)–(30), and the car with a steered front
axle of § 5 (31)–(38).

Each check types in the printed formula literally and compares it with what geonh computes
(see :mod:`geonh.sources.ledger`).  The car's computed side is built from first principles,
not from the model ``car`` (whose T, Q and frame are typed from (32)–(34)): T and Q from the
two rigid bodies and the loads (``MechanicalSystem.from_mechanics``), the constraints from the
velocities of the axle centres, the frame from the quasi-velocities (``Frame.from_quasi_velocities``).

Findings: everything agrees except the index range of (30) (printed κ = l … k, must be 1 … k;
on the car it leaves Λ_1 undetermined, for l > k nothing at all).  Noted in the details: the
index placement ∂q̇^σ/∂v_λ^* of (28), ∇^l for ∇' after (27), and the unnumbered component
formula after (21), W^K_{l+κ} = g_{l+κ,σ} q̈^σ + Γ_{l+κ,αβ} q̇^α q̇^β, which is W·e_{l+κ}, not the
e^{l+κ}-component of W^K unless g_{λ,l+κ} = 0 (shown on the saddle).
"""
from __future__ import annotations

import random
from functools import lru_cache

import sympy as sp

from ..equations.hertz import hertz
from ..equations.independent import lagrange, maggi, motion_substitution
from ..equations.nonlinear import chetaev_lagrange, invert_quasi_velocities, maggi_nonlinear
from ..kernel import ConfigurationSpace, Frame, VectorField, is_zero
from ..models import trig_reduce
from ..models.mechanical import juschkov_car
from ..systems.hertz import HertzSpace
from ..systems.mechanical import MechanicalSystem
from ..systems.nonlinear import NonlinearSystem
from .ledger import Finding, compare, definition, formula
from ..kernel.parsing import sympy_of

_DIGITS = 60


def _lagrange_expressions(S: ConfigurationSpace, T) -> list:
    """MW_σ = d/dt ∂T/∂q̇^σ − ∂T/∂q^σ, the paper's definition (after (30)), in (t, q, q̇, q̈)."""
    return [S.total_derivative(sp.diff(T, v)) - sp.diff(T, q) for q, v in zip(S.q, S.qd)]


def _at(expr, values: dict):
    """expr at a state, PRECISION digits."""
    return sp.N(sympy_of(expr).xreplace(values), _DIGITS)


# ==============================================================================================
# the car of § 5
# ==============================================================================================
@lru_cache(maxsize=1)
def _car():
    """(model, derived system, frame from the quasi-velocities, Maggi equations, printed objects,
    the two no-slip conditions).

    The derived system: T and Q of two rigid bodies (body: M1, J1 at C; front axle: M2, J2 at
    A = C + l1 (cos φ, sin φ), turned by φ + θ) with the loads F1 along the body and −F2 v_C/|v_C|
    at C and the steering torques 𝓛1 − 𝓛2 on the axle, −(𝓛1 − 𝓛2) on the body; the
    constraints: the axle centres A and B = C − l2 (cos φ, sin φ) do not move along their axles.
    """
    from sympy.physics.mechanics import Point, ReferenceFrame, RigidBody, dynamicsymbols, inertia

    model = juschkov_car()
    S = model.space
    M1, M2, J1, J2, l1, l2, F1, F2, L1, L2 = model.parameters
    ph, th, x, y = S.q
    # bodies and loads (sympy.physics.mechanics), names as in the model
    q = dynamicsymbols("phi theta x_C y_C")
    t = dynamicsymbols._t
    N = ReferenceFrame("N")
    Bf = N.orientnew("Bf", "Axis", [q[0], N.z])
    Af = Bf.orientnew("Af", "Axis", [q[1], Bf.z])
    O = Point("O")
    O.set_vel(N, 0)
    C = O.locatenew("C", q[2] * N.x + q[3] * N.y)
    C.set_vel(N, C.pos_from(O).dt(N))
    A = C.locatenew("A", l1 * Bf.x)
    A.set_vel(N, A.pos_from(O).dt(N))
    body = RigidBody("body", C, Bf, M1, (inertia(Bf, 0, 0, J1), C))
    axle = RigidBody("axle", A, Af, M2, (inertia(Af, 0, 0, J2), A))
    vCvec = q[2].diff(t) * N.x + q[3].diff(t) * N.y
    vC = sp.sqrt(q[2].diff(t) ** 2 + q[3].diff(t) ** 2)
    loads = [(C, F1 * Bf.x - F2 * vCvec / vC), (Af, (L1 - L2) * N.z), (Bf, -(L1 - L2) * N.z)]
    mech = MechanicalSystem.from_mechanics(list(q), [body, axle], N, loads=loads)
    ren = {s: w for s in mech.space.q + mech.space.qd for w in S.q + S.qd if s.name == w.name}
    T_bodies = sp.expand(sympy_of(mech.T).xreplace(ren))
    Q_bodies = [sympy_of(e).xreplace(ren) for e in mech.Q]
    # the no-slip conditions of the axles, from the velocities of A and B
    rA = (x + l1 * sp.cos(ph), y + l1 * sp.sin(ph))
    rB = (x - l2 * sp.cos(ph), y - l2 * sp.sin(ph))
    vA = [S.total_derivative(e) for e in rA]
    vB = [S.total_derivative(e) for e in rB]
    nA = (-sp.sin(ph + th), sp.cos(ph + th))     # the front axle: the body's normal turned by θ
    nB = (-sp.sin(ph), sp.cos(ph))               # the rear axle: the body's normal
    c_rear = sp.expand(vB[0] * nB[0] + vB[1] * nB[1])
    c_front = sp.expand(vA[0] * nA[0] + vA[1] * nA[1])
    system = MechanicalSystem(S, T_bodies, forces=Q_bodies, constraints=[c_rear, c_front],
                              name="car from its bodies")
    phd, thd = S.qd[0], S.qd[1]
    raw = Frame.from_quasi_velocities(S, [phd, thd, c_rear, c_front], names=["v1", "v2", "v3", "v4"])
    # the LU inverse comes out nested: reduce each entry exactly (sin² + cos² = 1, angle sums
    # expanded); Frame checks θ^a(X_b) = δ^a_b again
    C = raw.C.applyfunc(lambda e: trig_reduce(sp.expand_trig(e)) if e.free_symbols else e)
    frame = Frame([VectorField(S, list(C[:, a])) for a in range(S.n)], names=raw.names, coframe=list(raw.coframe))
    eq = maggi(system, frame)
    return model, system, frame, eq, _printed_car(model), (c_rear, c_front)


def _printed_car(model) -> dict:
    """The car's formulas of § 5 typed in as printed."""
    S = model.space
    M1, M2, J1, J2, l1, l2, F1, F2, L1, L2 = model.parameters
    ph, th, x, y = S.q
    phd, thd, xd, yd = S.qd
    phdd, thdd, xdd, ydd = S.qdd
    s = sp.sin(th)
    beta = {
        "β^3_1": (l1 * sp.cos(ph) * sp.cos(th) + l2 * sp.cos(ph + th)) / s,
        "β^3_3": sp.cos(ph + th) / s,
        "β^3_4": -sp.cos(ph) / s,
        "β^4_1": (l1 * sp.sin(ph) * sp.cos(th) + l2 * sp.sin(ph + th)) / s,
        "β^4_3": sp.sin(ph + th) / s,
        "β^4_4": -sp.sin(ph) / s,
    }
    # (32): q̇¹ = v*¹, q̇² = v*², q̇³ = β³₁v*¹ + β³₃v*³ + β³₄v*⁴, q̇⁴ likewise: ∂q̇^σ/∂v*^τ
    dq = sp.Matrix([[1, 0, 0, 0], [0, 1, 0, 0],
                    [beta["β^3_1"], 0, beta["β^3_3"], beta["β^3_4"]],
                    [beta["β^4_1"], 0, beta["β^4_3"], beta["β^4_4"]]])
    Ms = M1 + M2
    Js = J1 + J2 + M2 * l1 ** 2
    twoT = (Ms * (xd ** 2 + yd ** 2) + Js * phd ** 2 + J2 * thd ** 2 + 2 * J2 * phd * thd
            + 2 * M2 * l1 * phd * (-xd * sp.sin(ph) + yd * sp.cos(ph)))                      # (33)
    vC = sp.sqrt(xd ** 2 + yd ** 2)
    Q = [sp.S.Zero, L1 - L2, F1 * sp.cos(ph) - F2 * xd / vC, F1 * sp.sin(ph) - F2 * yd / vC]  # (34)
    c31 = [-xd * sp.sin(ph) + yd * sp.cos(ph) - l2 * phd,
           -xd * sp.sin(ph + th) + yd * sp.cos(ph + th) + l1 * phd * sp.cos(th)]            # (31)
    vstar = [phd, thd, -l2 * phd - xd * sp.sin(ph) + yd * sp.cos(ph),
             l1 * phd * sp.cos(th) - xd * sp.sin(ph + th) + yd * sp.cos(ph + th)]          # before (32)
    b31, b41, b33, b43, b34, b44 = (beta[k] for k in ("β^3_1", "β^4_1", "β^3_3", "β^4_3", "β^3_4", "β^4_4"))
    e37_1 = ((Js + M2 * l1 * (b41 * sp.cos(ph) - b31 * sp.sin(ph))) * phdd + J2 * thdd
             + (Ms * b31 - M2 * l1 * sp.sin(ph)) * xdd + (Ms * b41 + M2 * l1 * sp.cos(ph)) * ydd
             - (M2 * l1 * phd ** 2 * (b31 * sp.cos(ph) + b41 * sp.sin(ph))
                + (F1 * sp.cos(ph) - F2 * xd / vC) * b31 + (F1 * sp.sin(ph) - F2 * yd / vC) * b41))
    e37_2 = J2 * (thdd + phdd) - (L1 - L2)
    # the reactions "oder ausführlicher" (after (38))
    X = Ms * xdd - M2 * l1 * (phdd * sp.sin(ph) + phd ** 2 * sp.cos(ph)) - F1 * sp.cos(ph) + F2 * xd / vC
    Y = Ms * ydd + M2 * l1 * (phdd * sp.cos(ph) - phd ** 2 * sp.sin(ph)) - F1 * sp.sin(ph) + F2 * yd / vC
    return {"beta": beta, "dq": dq, "T": twoT / 2, "Q": Q, "c31": c31, "vstar": vstar,
            "e37": [e37_1, e37_2], "Lambda": [X * b33 + Y * b43, X * b34 + Y * b44]}


def _car_on_motion(expr):
    """A car expression in (q, q̇, q̈) along the motion of the derived frame: q̇ = K(q, v), q̈ = K̇."""
    model, system, frame, eq, P, geo = _car()
    return sympy_of(expr).xreplace(motion_substitution(system, eq.kinematics, eq.u, eq.ud))


@formula("juschkov", "(31)", topic="car: no-slip constraints of the two axles",
         printed="−ẋ_C sin φ + ẏ_C cos φ − l2 φ̇ = 0;  −ẋ_C sin(φ+θ) + ẏ_C cos(φ+θ) + l1 φ̇ cos θ = 0",
         computed="v_B·n_B = 0, v_A·n_A = 0 with r_A = r_C + l1 e_body, r_B = r_C − l2 e_body, n_B ⊥ body, "
                  "n_A = n_B turned by θ (velocities by ConfigurationSpace.total_derivative)",
         api="ConfigurationSpace.total_derivative; MechanicalSystem.constraints", expected="agrees")
def _j31() -> Finding:
    model, system, frame, eq, P, geo = _car()
    computed = {"rear axle B": geo[0], "front axle A": geo[1]}
    printed = {"rear axle B": P["c31"][0], "front axle A": P["c31"][1]}
    same = all(e == 0 or is_zero(e) for e in (model.system.constraints.matrix() - system.constraints.matrix()))
    return definition(printed, computed, "Juschkov's car, q = (φ, θ, x_C, y_C)",
                      detail="the model `car` uses " + ("the same" if same else "OTHER") + " constraint forms")


@formula("juschkov", "(32)", topic="car: inversion q̇(v*) of the quasi-velocities",
         printed="ẋ_C = β³₁v*¹ + β³₃v*³ + β³₄v*⁴, ẏ_C = β⁴₁v*¹ + β⁴₃v*³ + β⁴₄v*⁴, β³₁ = (l1 cos φ cos θ + l2 cos(φ+θ))/sin θ, "
                 "β³₃ = cos(φ+θ)/sin θ, β³₄ = −cos φ/sin θ, β⁴₁ = (l1 sin φ cos θ + l2 sin(φ+θ))/sin θ, "
                 "β⁴₃ = sin(φ+θ)/sin θ, β⁴₄ = −sin φ/sin θ",
         computed="C = B⁻¹ (LU, entries reduced exactly mod sin² + cos² = 1) of the coframe v*¹ = φ̇, v*² = θ̇, "
                  "v*³, v*⁴ = the no-slip conditions; column a = ∂q̇/∂v*^a",
         api="Frame.from_quasi_velocities(...).C", expected="agrees")
def _j32() -> Finding:
    model, system, frame, eq, P, geo = _car()
    C = frame.C
    names = ["φ̇", "θ̇", "ẋ_C", "ẏ_C"]
    printed, computed = {}, {}
    for i in range(4):
        for a in range(4):
            key = f"β^{i + 1}_{a + 1}" if i >= 2 else f"∂{names[i]}/∂v*^{a + 1}"
            printed[key] = P["dq"][i, a]
            computed[key] = C[i, a]
    return compare(printed, computed, "Juschkov's car; frame from the quasi-velocities (LU inverse)")


@formula("juschkov", "(33)", topic="car: kinetic energy",
         printed="2T = M*(ẋ_C² + ẏ_C²) + J*φ̇² + J2θ̇² + 2J2φ̇θ̇ + 2M2 l1 φ̇(−ẋ_C sin φ + ẏ_C cos φ), M* = M1 + M2, J* = J1 + J2 + M2 l1²",
         computed="T of the body (M1, J1 at C, angle φ) and the front axle (M2, J2 at A = C + l1 e_body, angle φ + θ)",
         api="MechanicalSystem.from_mechanics", expected="agrees")
def _j33() -> Finding:
    model, system, frame, eq, P, geo = _car()
    return compare(2 * P["T"], 2 * system.T, "Juschkov's car, two rigid bodies (sympy.physics.mechanics)")


@formula("juschkov", "(34)", topic="car: generalized forces",
         printed="Q_φ = 0, Q_θ = 𝓛1(t) − 𝓛2, Q_{x_C} = F1(t) cos φ − F2 ẋ_C/v_C, Q_{y_C} = F1(t) sin φ − F2 ẏ_C/v_C, v_C = √(ẋ_C² + ẏ_C²)",
         computed="Q_i = Σ F·∂v_P/∂q̇^i + M·∂ω/∂q̇^i for F1 e_body − F2 v_C/|v_C| at C and the steering torques "
                  "±(𝓛1 − 𝓛2) on axle / body (internal, hence Q_φ = 0)",
         api="MechanicalSystem.from_mechanics (loads)", expected="agrees")
def _j34() -> Finding:
    model, system, frame, eq, P, geo = _car()
    labels = ["Q_φ", "Q_θ", "Q_{x_C}", "Q_{y_C}"]
    return compare(dict(zip(labels, P["Q"])), dict(zip(labels, system.Q)),
                   "Juschkov's car; 𝓛1, 𝓛2 read as torques between body and axle")


@formula("juschkov", "(35)", topic="car: first Maggi equation",
         printed="(MW_1 − Q_1) ∂q̇¹/∂v*¹ + (MW_3 − Q_3) ∂q̇³/∂v*¹ + (MW_4 − Q_4) ∂q̇⁴/∂v*¹ = 0",
         computed="Σ_σ (MW_σ − Q_σ) C^σ_1 (Maggi, free field X_1 of the frame from the quasi-velocities)",
         api="equations.maggi(...).residuals[0]", expected="agrees")
def _j35() -> Finding:
    model, system, frame, eq, P, geo = _car()
    S = model.space
    MW = _lagrange_expressions(S, P["T"])
    d = P["dq"]
    printed = sum(((MW[s] - P["Q"][s]) * d[s, 0] for s in (0, 2, 3)), sp.S.Zero)
    return compare(_car_on_motion(printed), eq.residuals[0],
                   "Juschkov's car on the motion q̇ = C(v1, v2, 0, 0); T (33), Q (34), ∂q̇/∂v* (32) as printed",
                   detail="the omitted σ = 2 term vanishes: ∂θ̇/∂v*¹ = 0")


@formula("juschkov", "(36)", topic="car: second Maggi equation",
         printed="MW_2 − Q_2 = 0",
         computed="Σ_σ (MW_σ − Q_σ) C^σ_2 = MW_2 − Q_2 (X_2 = ∂_θ: the constraints are free of θ̇)",
         api="equations.maggi(...).residuals[1]", expected="agrees")
def _j36() -> Finding:
    model, system, frame, eq, P, geo = _car()
    S = model.space
    MW = _lagrange_expressions(S, P["T"])
    return compare(_car_on_motion(MW[1] - P["Q"][1]), eq.residuals[1],
                   "Juschkov's car on the motion; T (33), Q (34) as printed")


@formula("juschkov", "(37)", topic="car: Maggi's equations written out",
         printed="[J* + M2 l1(β⁴₁ cos φ − β³₁ sin φ)] φ̈ + J2 θ̈ + (M*β³₁ − M2 l1 sin φ) ẍ_C + (M*β⁴₁ + M2 l1 cos φ) ÿ_C "
                 "= M2 l1 φ̇²(β³₁ cos φ + β⁴₁ sin φ) + [F1 cos φ − F2 ẋ_C/v_C] β³₁ + [F1 sin φ − F2 ẏ_C/v_C] β⁴₁;  "
                 "J2(θ̈ + φ̈) = 𝓛1 − 𝓛2",
         computed="Maggi's equations (28) of the car from its bodies, loads and no-slip conditions, in the frame of the quasi-velocities",
         api="equations.maggi(...).residuals", expected="agrees")
def _j37() -> Finding:
    model, system, frame, eq, P, geo = _car()
    printed = {"(37) line 1": _car_on_motion(P["e37"][0]), "(37) line 2": _car_on_motion(P["e37"][1])}
    computed = {"(37) line 1": eq.residuals[0], "(37) line 2": eq.residuals[1]}
    return compare(printed, computed, "Juschkov's car on the motion q̇ = C(v1, v2, 0, 0) (left − right side)")


@formula("juschkov", "(38)", topic="car: law of motion from (31) and (37)",
         printed="φ = φ(t), θ = θ(t), x_C = x_C(t), y_C = y_C(t): the solution of (31) and (37)",
         computed="q̈ of Lagrange's equations with multipliers of the car from its bodies, loads and no-slip conditions",
         api="equations.lagrange(...).solve_point", expected="agrees")
def _j38() -> Finding:
    model, system, frame, eq, P, geo = _car()
    S = model.space
    eqs = [S.total_derivative(c) for c in P["c31"]] + list(P["e37"])    # (31) differentiated, (37)
    lag = lagrange(system)
    rng = random.Random(38)
    names = ["φ̈", "θ̈", "ẍ_C", "ÿ_C"]
    printed, computed = {}, {}
    for trial in (1, 2):
        st = system.sample_state(rng)
        A, b = sp.linear_eq_to_matrix([_at(e, st) for e in eqs], list(S.qdd))
        sol = A.LUsolve(b)
        ref = lag.solve_point(st)[:S.n]
        for i, nm in enumerate(names):
            printed[f"{nm} (state {trial})"] = sol[i]
            computed[f"{nm} (state {trial})"] = ref[i]
    return compare(printed, computed, "Juschkov's car at two random states satisfying (31) (60 digits): "
                   "q̈ from the printed (31) + (37) against Lagrange with multipliers")


@formula("juschkov", "(30)", topic="Maggi's second group: the reactions Λ_κ",
         printed="(MW_σ − Q_σ) ∂q̇^σ/∂v*^{l+κ} = Λ_κ,  κ = \\overline{l, k}, i.e. κ = l … k",
         computed="Λ_κ = Σ_σ (MW_σ − Q_σ) C^σ_{l+κ} for κ = 1 … k: the multipliers of the constraint functions v*^{l+κ} = φ^κ",
         api="equations.maggi(...).reactions", expected="misprint")
def _j30() -> Finding:
    model, system, frame, eq, P, geo = _car()
    S = model.space
    MW = _lagrange_expressions(S, P["T"])
    Q, d = P["Q"], P["dq"]
    n, k = S.n, 2
    l = n - k

    def Lam(kappa: int):   # (30) in (q, q̇, q̈)
        return sum(((MW[s] - Q[s]) * d[s, l + kappa - 1] for s in range(n)), sp.S.Zero)

    kappas = range(1, k + 1)
    printed_range = range(l, k + 1)                       # κ = l … k as printed
    # decided at a random state satisfying (31) (60 digits), so the difference reads as a number;
    # q̈ there from Lagrange's equations with multipliers, Λ from geonh's Maggi equations
    from ..equations.nonlinear import reactions_at
    st = system.sample_state(random.Random(30))
    ref = lagrange(system).solve_point(st)
    vals = {**st, **dict(zip(S.qdd, ref[:n]))}
    lam = ref[n:]
    Lv = reactions_at(eq, st)
    full = {kk: _at(Lam(kk), vals) for kk in kappas}            # (30) over κ = 1 … k
    printed = {f"Λ_{kk}": (full[kk] if kk in printed_range else sp.Symbol(f"Λ_{kk}")) for kk in kappas}
    computed = {f"Λ_{kk}": Lv[kk - 1] for kk in kappas}
    # the nonlinear example of § 4 (l = 2, k = 1): the printed range κ = 2 … 1 is empty
    n4 = _nl()
    S4, s4 = n4["S"], n4["system"]
    st4 = s4.sample_state(random.Random(30))
    ref4 = chetaev_lagrange(s4).solve_point(st4)
    at4 = {**st4, **dict(zip(S4.qdd, ref4[:S4.n])), **{w: q.xreplace(st4) for w, q in zip(n4["vstar"], n4["quasi"])}}
    eps4 = _nl_eps(_nl_inverse(), n4["vstar"], S4).xreplace(at4)
    MW4 = _lagrange_expressions(S4, n4["T"])
    full4 = sum(((MW4[i] - n4["F"][i]).xreplace(at4) * eps4[i, 2] for i in range(S4.n)), sp.S.Zero)
    L4 = reactions_at(_nl_maggi(), st4)[0]
    printed["Λ_1 (§ 4 example)"] = sp.Symbol("Λ_1")
    computed["Λ_1 (§ 4 example)"] = L4
    found = compare(printed, computed, "Juschkov's car (l = k = 2) at a random state satisfying (31), where the "
                    "printed range κ = l … k = {2} leaves Λ_1 undetermined (shown as the unknown Λ_1); and "
                    + _NL_EXAMPLE + " (l = 2, k = 1: the printed range is empty)")
    if found.status != "agrees":
        shown = {key: (printed[key] - sp.Float(computed[key], 8) if isinstance(printed[key], sp.Symbol)
                       else (sp.S.Zero if is_zero(printed[key] - computed[key]) else sp.Float(printed[key] - computed[key], 8)))
                 for key in printed}
        found = Finding(found.status, found.example, shown, found.detail)

    def close(a, b):
        return abs(sp.N(a - b, 50)) < sp.Float(10) ** -40

    notes = []
    ok = all(close(full[kk], Lv[kk - 1]) for kk in kappas) and full4 == L4 == ref4[S4.n]
    notes.append("with κ = 1 … k (as in (27), and as § 5 itself uses it) (30) " + ("agrees" if ok else "still DIFFERS")
                 + " on both examples (§ 4 example: exactly, = the Chetaev multiplier)")
    ok = all(close(_at(P["Lambda"][i], vals), Lv[i]) for i in range(k))
    notes.append("§ 5's expanded Λ1, Λ2 (after (38)) " + ("agree" if ok else "DIFFER"))
    # Λ_κ are Lagrange's multipliers of the constraints (31) (R_i = λ_κ ∂φ^κ/∂q̇^i)
    same = all(close(a, b) for a, b in zip(Lv, lam))
    notes.append("Λ_κ " + ("=" if same else "≠") + " Lagrange's λ_κ of (31) at a random state (40 digits)")
    notes.append("perhaps an OCR confusion of 1 and l")
    return Finding(found.status, found.example, found.difference, "; ".join(notes))


# ==============================================================================================
# § 4: nonholonomic bases and Maggi's equations for a nonlinear, rheonomic constraint
# ==============================================================================================
@lru_cache(maxsize=1)
def _nl():
    """A particle (mass m) in 3-space, forces (y, −x, −1), with the nonlinear rheonomic constraint
    φ = ż − c t x ẋ − ẏ² = 0, and the quasi-velocities v*¹ = ẋ + x ẏ, v*² = ẏ, v*³ = φ (27).
    Everything is polynomial, so every check is exact (rational arithmetic)."""
    S = ConfigurationSpace("x y z", time=True)
    x, y, z = S.q
    xd, yd, zd = S.qd
    t = S.t
    m, c = sp.symbols("m c", positive=True)
    T = m * (xd ** 2 + yd ** 2 + zd ** 2) / 2
    F = [y, -x, sp.S.NegativeOne]
    phi = zd - c * t * x * xd - yd ** 2
    system = NonlinearSystem(S, T, forces=F, constraints=[phi], solved={zd: c * t * x * xd + yd ** 2},
                             name="particle with ż = c t x ẋ + ẏ²")
    quasi = [xd + x * yd, yd, phi]
    vstar = sp.symbols("v1 v2 v3", real=True)
    return {"S": S, "system": system, "T": T, "F": F, "phi": phi, "quasi": quasi, "vstar": vstar,
            "m": m, "c": c}


@lru_cache(maxsize=1)
def _nl_inverse():
    d = _nl()
    return invert_quasi_velocities(d["system"], d["quasi"], d["vstar"])


@lru_cache(maxsize=1)
def _nl_maggi():
    d = _nl()
    return maggi_nonlinear(d["system"], d["quasi"], names=["w1", "w2"])


def _nl_eps(inverse, vstar, S) -> sp.Matrix:
    """(26) as printed: ε_τ = ∂q̇^σ/∂v*^τ e_σ; column τ holds the components of ε_τ."""
    return sp.Matrix([[sp.diff(inverse[s], vstar[tau]) for tau in range(len(vstar))] for s in range(S.n)])


_NL_EXAMPLE = "particle, forces (y, −x, −1), constraint φ = ż − c t x ẋ − ẏ² (nonlinear, rheonomic), v* = (ẋ + x ẏ, ẏ, φ)"


@formula("juschkov", "(23)", topic="nonholonomic constraints φ^κ(t, q, q̇) = 0",
         printed="φ^κ(t, q, q̇) = 0, κ = 1 … k, q = (q¹, …, q^{3n})",
         computed="NonlinearSystem.phi (constraints nonlinear in q̇, time-dependent), Chetaev rows ∂φ/∂q̇",
         api="systems.NonlinearSystem", expected="agrees")
def _j23() -> Finding:
    d = _nl()
    s, S = d["system"], d["S"]
    printed = {"φ": d["phi"], **{f"∂φ/∂{v}": sp.diff(d["phi"], v) for v in S.qd}}
    computed = {"φ": s.phi[0], **{f"∂φ/∂{v}": s.virtual_matrix[0, i] for i, v in enumerate(S.qd)}}
    return definition(printed, computed, _NL_EXAMPLE)


@formula("juschkov", "(24)", topic="new velocity variables v*(t, q, q̇)",
         printed="v*^ρ = v*^ρ(t, q, q̇), ρ = 1 … 3n",
         computed="the speeds u = v*^λ(t, q, q̇) of maggi_nonlinear and the Jacobian ∂v*/∂q̇ (nonsingular) of HertzSpace",
         api="equations.maggi_nonlinear(...).speeds; HertzSpace.dual_basis", expected="agrees")
def _j24() -> Finding:
    d = _nl()
    S = d["S"]
    eq = _nl_maggi()
    hs = HertzSpace(d["system"], quasi=d["quasi"])
    printed = {f"v*^{i + 1}": d["quasi"][i] for i in range(2)}
    computed = {f"v*^{i + 1}": eq.speeds[i] for i in range(2)}
    printed.update({f"∂v*^{r + 1}/∂{v}": sp.diff(d["quasi"][r], v) for r in range(3) for v in S.qd})
    computed.update({f"∂v*^{r + 1}/∂{v}": hs.dual_basis()[r, i] for r in range(3) for i, v in enumerate(S.qd)})
    det = sp.factor(hs.dual_basis().det())
    return definition(printed, computed, _NL_EXAMPLE,
                      detail=f"det ∂v*/∂q̇ = {det}: the inverse (25) exists" if not is_zero(det)
                      else "∂v*/∂q̇ is SINGULAR: no inverse (25)")


@formula("juschkov", "(25)", topic="the inverse q̇(t, q, v*)",
         printed="q̇^σ = q̇^σ(t, q, v*), σ = 1 … 3n (the inverse of (24))",
         computed="invert_quasi_velocities (sympy solve, branch checked at consistent states): "
                  "v*(t, q, q̇(t, q, v*)) = v* and q̇(t, q, v*(t, q, q̇)) = q̇",
         api="equations.invert_quasi_velocities", expected="agrees")
def _j25() -> Finding:
    d = _nl()
    S, v = d["S"], d["vstar"]
    inv = _nl_inverse()
    to_q = dict(zip(S.qd, inv))
    to_v = dict(zip(v, d["quasi"]))
    printed = {f"v*^{r + 1}(q̇(v*))": sp.expand(d["quasi"][r].xreplace(to_q)) for r in range(3)}
    computed = {f"v*^{r + 1}(q̇(v*))": v[r] for r in range(3)}
    printed.update({f"q̇^{s + 1}(v*(q̇))": sp.expand(inv[s].xreplace(to_v)) for s in range(3)})
    computed.update({f"q̇^{s + 1}(v*(q̇))": S.qd[s] for s in range(3)})
    return definition(printed, computed, _NL_EXAMPLE)


@formula("juschkov", "(26)", topic="nonholonomic bases ε_τ, ε^ρ",
         printed="ε_τ = ∂q̇^σ/∂v*^τ e_σ, ε^ρ = ∂v*^ρ/∂q̇^τ e^τ, with ε^ρ·ε_τ = (∂v*^ρ/∂q̇^σ)(∂q̇^σ/∂v*^τ) = δ^ρ_τ",
         computed="HertzSpace.basis() = (∂v*/∂q̇)⁻¹ (LU; columns: ε_τ), HertzSpace.dual_basis() (rows: ε^ρ)",
         api="HertzSpace.basis, HertzSpace.dual_basis", expected="agrees")
def _j26() -> Finding:
    d = _nl()
    S, v = d["S"], d["vstar"]
    inv = _nl_inverse()
    eps = _nl_eps(inv, v, S).xreplace(dict(zip(v, d["quasi"])))   # in (t, q, q̇)
    eps_up = sp.Matrix([[sp.diff(w, qd) for qd in S.qd] for w in d["quasi"]])
    hs = HertzSpace(d["system"], quasi=d["quasi"])
    E, Ed = hs.basis(), hs.dual_basis()
    printed, computed = {}, {}
    for tau in range(3):
        for s in range(3):
            printed[f"ε_{tau + 1}^{s + 1}"] = eps[s, tau]
            computed[f"ε_{tau + 1}^{s + 1}"] = E[s, tau]
    for r in range(3):
        for s in range(3):
            printed[f"ε^{r + 1}_{s + 1}"] = eps_up[r, s]
            computed[f"ε^{r + 1}_{s + 1}"] = Ed[r, s]
    dual = eps_up * eps
    for r in range(3):
        for tau in range(3):
            printed[f"ε^{r + 1}·ε_{tau + 1}"] = dual[r, tau]
            computed[f"ε^{r + 1}·ε_{tau + 1}"] = sp.S.One if r == tau else sp.S.Zero
    return compare(printed, computed, _NL_EXAMPLE + "; ε_τ from the inverse (25), read at v* = v*(q̇)")


@formula("juschkov", "(27)", topic="the constraints as the last quasi-velocities",
         printed="v*^{l+κ} = φ^κ(t, q, q̇), l = 3n − k; then ε^{l+κ} = ∂φ^κ/∂q̇^τ e^τ = ∇'φ^κ",
         computed="the last k rows of ∂v*/∂q̇ are geonh's Chetaev rows (virtual_matrix) and v*^{l+κ} = 0 on the motion",
         api="NonlinearSystem.virtual_matrix; maggi_nonlinear (checks the last k quasi-velocities)", expected="agrees")
def _j27() -> Finding:
    d = _nl()
    S, s = d["S"], d["system"]
    hs = HertzSpace(s, quasi=d["quasi"])
    printed = {f"ε^3_{v}": sp.diff(d["phi"], v) for v in S.qd}
    computed = {f"ε^3_{v}": s.virtual_matrix[0, i] for i, v in enumerate(S.qd)}
    st = s.sample_state(random.Random(27))
    printed["v*^3 at a consistent state"] = d["phi"].xreplace(st)
    computed["v*^3 at a consistent state"] = sp.S.Zero
    return compare(printed, computed, _NL_EXAMPLE,
                   detail="the unnumbered line after (27) prints ∇^l φ^κ for ∇'φ^κ (typesetting)"
                   + ("" if hs.l == 2 else "; l ≠ 2?!"))


def _nl_printed_28(on_motion: bool):
    """(28) as printed, (MW_σ − Q_σ) ∂q̇^σ/∂v*^λ for λ = 1 … l, with MW from T and ∂q̇/∂v* from (25).
    on_motion: along maggi_nonlinear's motion (q̇ = K(t, q, w), v* = (w1, w2, 0)); else in (t, q, q̇, q̈)."""
    d = _nl()
    S, v = d["S"], d["vstar"]
    inv = _nl_inverse()
    eps = _nl_eps(inv, v, S)
    MW = _lagrange_expressions(S, d["T"])
    LQ = [MW[s] - d["F"][s] for s in range(S.n)]
    if on_motion:
        eq = _nl_maggi()
        sub = motion_substitution(d["system"], eq.kinematics, eq.u, eq.ud)
        LQ = [e.xreplace(sub) for e in LQ]
        eps = eps.xreplace({v[0]: eq.u[0], v[1]: eq.u[1], v[2]: 0})
    else:
        eps = eps.xreplace(dict(zip(v, d["quasi"])))
    return [sp.expand(sum((LQ[s] * eps[s, lam] for s in range(S.n)), sp.S.Zero)) for lam in range(2)]


@formula("juschkov", "(28)", topic="Maggi's equations (first group)",
         printed="(MW_σ − Q_σ) ∂q̇^σ/∂v_λ^* = 0, λ = 1 … l",
         computed="(MW_σ − Q_σ) ∂q̇^σ/∂v*^λ = 0 along the motion q̇ = q̇(t, q, v*¹, v*², 0) (upper index λ)",
         api="equations.maggi_nonlinear(...).residuals", expected="agrees")
def _j28() -> Finding:
    eq = _nl_maggi()
    printed = _nl_printed_28(True)
    return compare({f"λ = {i + 1}": printed[i] for i in range(2)},
                   {f"λ = {i + 1}": sp.expand(eq.residuals[i]) for i in range(2)}, _NL_EXAMPLE,
                   detail="the printed lower index v_λ^* is the quasi-velocity v*^λ (index placement only)")


@formula("juschkov", "(29)", topic="the law of motion from (23) and (28)",
         printed="q^σ = q^σ(t), σ = 1 … 3n: the solution of (23) and (28)",
         computed="q̈ of Lagrange's equations with Chetaev multipliers (independent route) at random consistent states",
         api="equations.chetaev_lagrange(...).solve_point", expected="agrees")
def _j29() -> Finding:
    d = _nl()
    S, s = d["S"], d["system"]
    eqs = [S.total_derivative(d["phi"])] + _nl_printed_28(False)    # (23) differentiated, (28)
    ch = chetaev_lagrange(s)
    rng = random.Random(29)
    printed, computed = {}, {}
    for trial in (1, 2):
        st = s.sample_state(rng)
        A, b = sp.linear_eq_to_matrix([sympy_of(e).xreplace(st) for e in eqs], list(S.qdd))
        sol = A.LUsolve(b)
        ref = ch.solve_point(st)[:S.n]
        for i, qdd in enumerate(S.qdd):
            printed[f"{qdd} (state {trial})"] = sp.nsimplify(sol[i]) if sol[i].is_Float else sol[i]
            computed[f"{qdd} (state {trial})"] = ref[i]
    return compare(printed, computed, _NL_EXAMPLE + "; two random consistent rational states (exact)")


# ==============================================================================================
# §§ 3–4: Newton's law split into the motion space L and the reaction space K
# ==============================================================================================
@lru_cache(maxsize=1)
def _surface():
    """One particle (n = 1, so M = m and y = x) on the saddle z = c x y under gravity, as a
    Hertz space; § 3's coordinates q = (x, y, f) with q³ = f = z − c x y (17).  A random state
    on the surface (rational), and the motions there: with Coulomb friction of coefficient k
    (geonh's hertz equations) and ideal (Lagrange with Chetaev multipliers)."""
    S = ConfigurationSpace("x y z")
    x, y, z = S.q
    xd, yd, zd = S.qd
    m, g, c, k = sp.symbols("m g c k", positive=True)
    f = z - c * x * y
    system = NonlinearSystem(S, m * (xd ** 2 + yd ** 2 + zd ** 2) / 2, V=m * g * z, holonomic=[f],
                             solved={zd: S.total_derivative(c * x * y)}, name="particle on a saddle")
    hs = HertzSpace(system)
    R = sp.Rational
    vals = {m: R(3, 2), g: R(49, 5), c: R(2, 3), k: R(1, 4), x: R(1, 2), y: R(-3, 4), xd: R(5, 4), yd: R(2, 3)}
    vals[z] = (c * x * y).xreplace(vals)
    vals[zd] = S.total_derivative(c * x * y).xreplace(vals)
    rough = hertz(hs, "coulomb", k)
    W_rough = rough.solve_point(vals)
    N, T0 = hs.reactions("coulomb", k)
    W_ideal = chetaev_lagrange(system).solve_point({s: v for s, v in vals.items() if s != k})[:S.n]  # no friction
    # § 3's basis: y(q) = (q¹, q², q³ + c q¹ q²), e_σ = ∂y/∂q^σ at q = (x, y, 0); e³ = ∇f
    q1, q2, q3 = sp.symbols("q1 q2 q3", real=True)
    yq = [q1, q2, q3 + c * q1 * q2]
    e_low = [[sp.diff(comp, qs).xreplace({q1: x, q2: y, q3: 0}) for comp in yq] for qs in (q1, q2, q3)]
    e_up3 = [sp.diff(f, w) for w in S.q]
    return {"S": S, "system": system, "hs": hs, "vals": vals, "m": m, "g": g, "k": k,
            "W_rough": W_rough, "W_ideal": W_ideal, "N": N, "T0": T0, "e_low": e_low, "e_up3": e_up3}


def _split_in(basis_L: list, basis_K: list, vec: list, at: dict) -> tuple[list, list]:
    """The paper's split of a vector (Cartesian components, orthonormal e_σ) as
    vec = a^λ (L basis)_λ + b_κ (K basis)^κ; returns (vec_L, vec^K) at the point ``at``."""
    cols = [list(b) for b in basis_L] + [list(b) for b in basis_K]
    A = sp.Matrix(cols).T.xreplace(at)
    coef = A.LUsolve(sp.Matrix(vec))
    nL = len(basis_L)
    vL = [sum((coef[i] * A[r, i] for i in range(nL)), sp.S.Zero) for r in range(A.rows)]
    vK = [sum((coef[i] * A[r, i] for i in range(nL, A.cols)), sp.S.Zero) for r in range(A.rows)]
    return vL, vK


def _surface_sides(W):
    """(M W_L − Y_L, M W^K − Y^K) at the surface state for accelerations W, split literally in
    § 3's bases {e_1, e_2} and {e³ = ∇f}."""
    d = _surface()
    vals = d["vals"]
    MW = [d["m"].xreplace(vals) * w for w in W]
    Y = [sympy_of(e).xreplace(vals) for e in d["system"].Q]
    WL, WK = _split_in(d["e_low"][:2], [d["e_up3"]], MW, vals)
    YL, YK = _split_in(d["e_low"][:2], [d["e_up3"]], Y, vals)
    return [a - b for a, b in zip(WL, YL)], [a - b for a, b in zip(WK, YK)]


_SURFACE = ("one particle (M = m) on the saddle z = c x y under gravity, q = (x, y, f), f = z − c x y; "
            "a random state on the surface (60 digits)")


@formula("juschkov", "(20)", topic="Newton's law projected on the motion space L",
         printed="M W_L = Y_L + R'_L  (W_L = W_L^λ e_λ; R'_L = T_0, the part of the reaction the constraint equations leave open)",
         computed="on geonh's motion with Coulomb friction (hertz(…, 'coulomb')): M W_L − Y_L = T0, geonh's non-ideal reaction (in L)",
         api="equations.hertz(..., friction='coulomb'); HertzSpace.reactions", expected="agrees")
def _j20() -> Finding:
    d = _surface()
    left, _ = _surface_sides(d["W_rough"])
    T0 = [sp.N(sympy_of(e).xreplace(d["vals"]), _DIGITS) for e in d["T0"]]
    labels = ["x", "y", "z"]
    nonzero = any(abs(v) > 1e-20 for v in T0)
    return compare({f"(M W_L − Y_L)_{a}": sp.N(v, _DIGITS) for a, v in zip(labels, left)},
                   {f"(M W_L − Y_L)_{a}": v for a, v in zip(labels, T0)},
                   _SURFACE + "; rough surface, Coulomb coefficient k = 1/4",
                   detail="R'_L = T0 ≠ 0 here" if nonzero else "T0 vanished at the state?!")


@formula("juschkov", "(21)", topic="Newton's law projected on the reaction space K",
         printed="M W^K = Y^K + R'^K, R'^K ≡ N = Λ_κ ∇f^κ (W^K = W^K_{l+κ} e^{l+κ})",
         computed="on geonh's motion with Coulomb friction: M W^K − Y^K = N = Λ ∇'φ with Λ from HertzSpace.multipliers (friction-free)",
         api="equations.hertz(..., friction='coulomb'); HertzSpace.reactions", expected="agrees")
def _j21() -> Finding:
    d = _surface()
    _, right = _surface_sides(d["W_rough"])
    Nv = [sp.N(sympy_of(e).xreplace(d["vals"]), _DIGITS) for e in d["N"]]
    labels = ["x", "y", "z"]
    # the unnumbered component formula after (21): W^K_{l+κ} = g_{l+κ,σ} q̈^σ + Γ_{l+κ,αβ} q̇^α q̇^β,
    # i.e. W·e_{l+κ}; the e^{l+κ}-component of W^K is W·e_{l+κ} − W_L·e_{l+κ}
    vals = d["vals"]
    A = sp.Matrix([d["e_low"][0], d["e_low"][1], d["e_up3"]]).T.xreplace(vals)
    W = list(d["W_rough"])
    coef = A.LUsolve(sp.Matrix(W))
    e3 = [sympy_of(e).xreplace(vals) for e in d["e_low"][2]]
    cov = sum((a * b for a, b in zip(W, e3)), sp.S.Zero)
    note = ("the unnumbered formula after (21), W^K_{l+κ} = g_{l+κ,σ} q̈^σ + Γ_{l+κ,αβ} q̇^α q̇^β (= W·e_{l+κ}), "
            + ("agrees here" if is_zero(coef[2] - cov) else
               f"is NOT the e^{{l+κ}}-component of W^K here ({sp.N(cov, 6)} vs {sp.N(coef[2], 6)}): it omits "
               "−W_L·e_{l+κ}, zero only when g_{λ,l+κ} = 0 (here e_1·e_3 = c y ≠ 0); W^K is still known from q^λ(t)"))
    return compare({f"(M W^K − Y^K)_{a}": sp.N(v, _DIGITS) for a, v in zip(labels, right)},
                   {f"(M W^K − Y^K)_{a}": v for a, v in zip(labels, Nv)},
                   _SURFACE + "; rough surface, Coulomb coefficient k = 1/4", detail=note)


@formula("juschkov", "(22)", topic="ideal constraints: free motion in L",
         printed="M W_L = Y_L",
         computed="M W_L − Y_L = 0 on the ideal motion of Lagrange's equations with Chetaev multipliers "
                  "(§ 3: holonomic, L = span(e_λ); § 4: nonholonomic, L = span(ε_λ))",
         api="equations.chetaev_lagrange(...).solve_point; HertzSpace.reactions (T0 = 0)", expected="agrees")
def _j22() -> Finding:
    d = _surface()
    left, _ = _surface_sides(d["W_ideal"])
    printed = {f"§ 3 (M W_L − Y_L)_{a}": sp.N(v, _DIGITS) for a, v in zip("xyz", left)}
    computed = {f"§ 3 (M W_L − Y_L)_{a}": sp.S.Zero for a in "xyz"}
    # § 4: the nonlinear example, L = span(ε_1, ε_2), K = span(ε³ = ∇'φ), exact
    n4 = _nl()
    S, v = n4["S"], n4["vstar"]
    st = n4["system"].sample_state(random.Random(22))
    W = chetaev_lagrange(n4["system"]).solve_point(st)[:S.n]
    at = {**st, **{w: q.xreplace(st) for w, q in zip(v, n4["quasi"])}}
    eps = _nl_eps(_nl_inverse(), v, S).xreplace(at)
    eps_up3 = [sp.diff(n4["phi"], w).xreplace(st) for w in S.qd]
    MW = [n4["m"].xreplace(st) * w for w in W]
    Y = [sympy_of(e).xreplace(st) for e in n4["F"]]
    WL, _ = _split_in([list(eps[:, 0]), list(eps[:, 1])], [eps_up3], MW, {})
    YL, _ = _split_in([list(eps[:, 0]), list(eps[:, 1])], [eps_up3], Y, {})
    for a, x1, x2 in zip("xyz", WL, YL):
        printed[f"§ 4 (M W_L − Y_L)_{a}"] = x1 - x2
        computed[f"§ 4 (M W_L − Y_L)_{a}"] = sp.S.Zero
    return compare(printed, computed, _SURFACE + "; and " + _NL_EXAMPLE + " at a random consistent state (exact)")
