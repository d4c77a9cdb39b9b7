"""More of sympy's own mechanics test problems (sympy/physics/mechanics/tests) brought into geonh
and out again: the set-ups with speeds, constraints or a linearization that
tests/models/test_interop_sympy_problems.py and test_interop_bicycle.py do not cover.  Each
set-up is rebuilt here from the problem sympy's test states (its test is the spec; the code is
ours).  For each: ``from_kanes_method`` / ``from_lagranges_method``, geonh's Kane form in the
user's speeds (``kane_frame``) or Lagrange form, then ``to_sympy`` (and ``to_pydy_system`` when
the form has no multipliers) with the user's names; the accelerations, the constraint forces
(multipliers, auxiliary equations) and, where sympy's test linearizes, A and B agree with
sympy's own at random consistent states to ``OUT_TOL`` relative, in double precision.  A set-up
geonh cannot take is refused with a geonh error naming why (asserted).

| sympy test | problem | here (the CASES / LINEARIZATIONS / REFUSED id) |
|---|---|---|
| test_kane::one_dof, input_format | spring–mass–damper, a point with no position | one_dof |
| test_kane::two_dof | 2 particles, scaled kdes (implicit kinematics) | two_dof |
| test_kane::input_format (2 dof) | 2 particles, plain kdes | two_dof_plain |
| test_kane::pend | pendulum, the velocity set by hand | pend |
| test_kane::rolling_disc | disc, contact point at rest, 3 speeds for 3 coordinates | kane_rolling_disc (C_x, C_y added, rolling as 2 velocity constraints); kane_rolling_disc_mismatched (kdes u = q̇ against the body rates: refused) |
| test_kane::aux (5 speeds) | disc sliding: contact-point speeds u4, u5 independent | aux_five_speeds (C_x, C_y added) |
| test_kane::aux (u_auxiliary) | disc rolling, contact forces f1, f2 by auxiliary speeds | aux_auxiliary (as kane_rolling_disc; f1, f2: test_aux_contact_force_from_the_auxiliary_equations) |
| test_kane::implicit_kinematics | quaternion attitude, unit norm, 7 kdes for 6 speeds | implicit_kinematics (refused) |
| test_kane::issue_24887 | spherical pendulum, singular mass matrix | issue_24887 (refused) |
| test_kane2::non_central_inertia | Kane 1985 ex. 8.12/8.17, inertia about the mass centre or D | non_central_inertia[_about_D] (D_x, D_y, D_z added) |
| test_kane2::sub_qdot | the same cart, rolling in the kdes: 3 coordinates, 2 speeds | sub_qdot (refused) |
| test_kane2::sub_qdot2 | rolling disc, no bodies | sub_qdot2_free, sub_qdot2_rolling (refused) |
| test_kane4 | double pendulum, torques in q̇, kde1 and kde2 | kane4_kde1, kane4_kde2 |
| test_linearize::pendulum_kane_minimal | pendulum, A | pendulum_kane_minimal |
| test_linearize::pendulum_lagrange_minimal | pendulum (LagrangesMethod), A | pendulum_lagrange_minimal |
| test_lagrange::simp_pen | pendulum (LagrangesMethod) | simp_pen |
| test_lagrange::dub_pen | double pendulum (LagrangesMethod) | dub_pen |
| test_lagrange::disc_on_an_incline_plane | hol_coneqs y = Rθ, multiplier | disc_on_incline |
| test_lagrange::rolling_disc | disc (LagrangesMethod) | lagrange_rolling_disc |
| test_lagrange2 | two damped springs, two forces | lagrange2 |
| test_models | multi_mass_spring_damper(1, g, f), (3); n_link_pendulum_on_cart(1), (2) | msd1, msd3, nlink1, nlink2 |

Reproduce: ``.venv/bin/python -m pytest tests/models/test_interop_sympy_more.py -s -q -p no:cacheprovider``
(``-s`` prints the worst relative difference of each row).
"""
import random
import time

import numpy as np
import pytest
import sympy as sp
import sympy.physics.mechanics as me
import sympy.physics.mechanics.models as models

import geonh as g
from geonh.errors import GeonhError
from geonh.models.interop import (from_kanes_method, from_lagranges_method, kane_frame, to_pydy_system,
                                  to_sympy)
from test_interop_sympy_problems import OUT_TOL, _name, _numeric, _out, _out_linearization, _rel, _solve_linear

t = me.dynamicsymbols._t


# -- the set-ups (sympy's problems, rebuilt) ------------------------------------------------------------
def one_dof():
    """A particle P on a spring k and damper c along N.x; its velocity u N.x set, no position."""
    q, u = me.dynamicsymbols("q u")
    m, c, k = sp.symbols("m c k")
    N = me.ReferenceFrame("N")
    P = me.Point("P")
    P.set_vel(N, u * N.x)
    km = me.KanesMethod(N, [q], [u], [q.diff(t) - u])
    km.kanes_equations([me.Particle("pa", P, m)], [(P, (-k * q - c * u) * N.x)])
    return km


def two_dof(scaled=True):
    """Two particles in series on springs and dampers; speeds their absolute (u1) and relative
    (u2) rates; the kdes multiplied by 1/2 and 2 (``scaled``, sympy's implicit-kinematics check)."""
    q1, q2, u1, u2 = me.dynamicsymbols("q1 q2 u1 u2")
    m, c1, c2, k1, k2 = sp.symbols("m c1 c2 k1 k2")
    N = me.ReferenceFrame("N")
    P1, P2 = me.Point("P1"), me.Point("P2")
    P1.set_vel(N, u1 * N.x)
    P2.set_vel(N, (u1 + u2) * N.x)
    kd = ([q1.diff(t) / 2 - u1 / 2, 2 * q2.diff(t) - 2 * u2] if scaled else [q1.diff(t) - u1, q2.diff(t) - u2])
    loads = [(P1, (-k1 * q1 - c1 * u1 + k2 * q2 + c2 * u2) * N.x), (P2, (-k2 * q2 - c2 * u2) * N.x)]
    km = me.KanesMethod(N, q_ind=[q1, q2], u_ind=[u1, u2], kd_eqs=kd)
    km.kanes_equations([me.Particle("pa1", P1, m), me.Particle("pa2", P2, m)], loads)
    return km


def pend():
    """A pendulum bob whose velocity is stated by hand, l u (−sin q, cos q); gravity m g N.x."""
    q, u = me.dynamicsymbols("q u")
    m, ln, grav = sp.symbols("m l g")
    N = me.ReferenceFrame("N")
    P = me.Point("P")
    P.set_vel(N, -ln * u * sp.sin(q) * N.x + ln * u * sp.cos(q) * N.y)
    km = me.KanesMethod(N, [q], [u], [q.diff(t) - u])
    km.kanes_equations([me.Particle("pa", P, m)], [(P, m * grav * N.x)])
    return km


def _disc_frames():
    q1, q2, q3 = me.dynamicsymbols("q1 q2 q3")
    N = me.ReferenceFrame("N")
    Y = N.orientnew("Y", "Axis", [q1, N.z])
    L = Y.orientnew("L", "Axis", [q2, Y.x])
    R = L.orientnew("R", "Axis", [q3, L.y])
    return (q1, q2, q3), N, Y, L, R


def kane_rolling_disc():
    """sympy's test_kane::test_rolling_disc: yaw, lean, spin; speeds the disc's angular velocity
    in the lean frame; the contact point at rest (rolling built into the velocities)."""
    q, N, Y, L, R = _disc_frames()
    u1, u2, u3 = me.dynamicsymbols("u1 u2 u3")
    r, m, grav = sp.symbols("r m g")
    w_qd = R.ang_vel_in(N)
    R.set_ang_vel(N, u1 * L.x + u2 * L.y + u3 * L.z)
    C = me.Point("C")
    C.set_vel(N, 0)
    Dmc = C.locatenew("Dmc", r * L.z)
    Dmc.v2pt_theory(C, N, R)
    disc = me.RigidBody("BodyD", Dmc, R, m, (me.inertia(L, m / 4 * r**2, m / 2 * r**2, m / 4 * r**2), Dmc))
    km = me.KanesMethod(N, q_ind=list(q), u_ind=[u1, u2, u3], kd_eqs=[me.dot(R.ang_vel_in(N) - w_qd, uv) for uv in L])
    km.kanes_equations([disc], [(Dmc, -m * grav * Y.z)])
    return km


def kane_rolling_disc_mismatched():
    """:func:`kane_rolling_disc` with kinematic differential equations that contradict its angular
    velocity: u_i = q̇_i while R's angular velocity is set to u1 L.x + u2 L.y + u3 L.z.  No choice of
    coordinates makes those velocities true ones: the completion finds more constraints than the
    set-up's speeds allow (a set-up that truly cannot come in)."""
    q, N, Y, L, R = _disc_frames()
    u1, u2, u3 = me.dynamicsymbols("u1 u2 u3")
    r, m, grav = sp.symbols("r m g")
    R.set_ang_vel(N, u1 * L.x + u2 * L.y + u3 * L.z)
    C = me.Point("C")
    C.set_vel(N, 0)
    Dmc = C.locatenew("Dmc", r * L.z)
    Dmc.v2pt_theory(C, N, R)
    disc = me.RigidBody("BodyD", Dmc, R, m, (me.inertia(L, m / 4 * r**2, m / 2 * r**2, m / 4 * r**2), Dmc))
    km = me.KanesMethod(N, q_ind=list(q), u_ind=[u1, u2, u3], kd_eqs=[x.diff(t) - u for x, u in zip(q, (u1, u2, u3))])
    km.kanes_equations([disc], [(Dmc, -m * grav * Y.z)])
    return km


def aux_disc(auxiliary: bool):
    """sympy's test_kane::test_aux: the disc with the contact point's velocity u4 L.x + u5 (Y.z × L.x)
    and forces f1, f2 there: u4, u5 independent speeds (5 speeds for 3 coordinates: the disc
    slides), or auxiliary (``auxiliary``: the disc rolls, f1, f2 the contact force)."""
    q, N, Y, L, R = _disc_frames()
    u1, u2, u3, u4, u5, f1, f2 = me.dynamicsymbols("u1 u2 u3 u4 u5 f1 f2")
    r, m, grav = sp.symbols("r m g")
    w_qd = R.ang_vel_in(N)
    R.set_ang_vel(N, u1 * L.x + u2 * L.y + u3 * L.z)
    C = me.Point("C")
    C.set_vel(N, u4 * L.x + u5 * (Y.z ^ L.x))
    Dmc = C.locatenew("Dmc", r * L.z)
    Dmc.v2pt_theory(C, N, R)
    disc = me.RigidBody("BodyD", Dmc, R, m, (me.inertia(L, m / 4 * r**2, m / 2 * r**2, m / 4 * r**2), Dmc))
    kd = [me.dot(R.ang_vel_in(N) - w_qd, uv) for uv in L]
    loads = [(Dmc, -m * grav * Y.z), (C, f1 * L.x + f2 * (Y.z ^ L.x))]
    if auxiliary:
        km = me.KanesMethod(N, q_ind=list(q), u_ind=[u1, u2, u3], kd_eqs=kd, u_auxiliary=[u4, u5])
    else:
        km = me.KanesMethod(N, q_ind=list(q), u_ind=[u1, u2, u3, u4, u5], kd_eqs=kd)
    km.kanes_equations([disc], loads)
    return km


def implicit_kinematics():
    """sympy's test_kane::test_implicit_kinematics: a rigid body with quaternion attitude
    (λ0 dependent through the unit norm) and body-axis position; body rates P, Q, R and
    velocities U, V, W; gravity, a torque T_z and a force F_z."""
    lam = me.dynamicsymbols("lambda_0:4", real=True)
    N = me.ReferenceFrame("NED")
    O = me.Point("NED_o")
    O.set_vel(N, 0)
    B = N.orientnew("B", "Quaternion", lam)
    pos = me.dynamicsymbols("B_x:z")
    cm = O.locatenew("B_cm", pos[0] * B.x + pos[1] * B.y + pos[2] * B.z)
    w_qd = B.ang_vel_in(N)
    P, Q, R = me.dynamicsymbols("P Q R")
    B.set_ang_vel(N, P * B.x + Q * B.y + R * B.z)
    dw = (B.ang_vel_in(N) - w_qd).simplify()
    v_qd = cm.vel(N)
    U, V, W = me.dynamicsymbols("U V W")
    cm.set_vel(N, U * B.x + V * B.y + W * B.z)
    dv = cm.vel(N) - v_qd
    lv = sp.Matrix(lam)
    kd = [dw & B.x, dw & B.y, dw & B.z, dv & B.x, dv & B.y, dv & B.z, (lv.T * lv.diff(t))[0]]
    km = me.KanesMethod(N, list(lam[1:]) + list(pos), [U, V, W, P, Q, R], q_dependent=[lam[0]], kd_eqs=kd,
                        configuration_constraints=[(lv.T * lv)[0] - 1], velocity_constraints=[], u_dependent=[],
                        u_auxiliary=[], explicit_kinematics=False)
    MB, gs = sp.symbols("M_B g")
    J = me.inertia(B, *sp.symbols("J_B_xx J_B_yy J_B_zz"), 0, 0, -sp.Symbol("J_B_xz"))
    body = me.RigidBody("RB", cm, B, MB, (J, cm))
    km.kanes_equations([body], [(cm, MB * gs * N.z), (B, me.dynamicsymbols("T_z") * B.z),
                                (cm, me.dynamicsymbols("F_z") * B.z)])
    return km


def issue_24887():
    """sympy's test_kane::test_issue_24887: a spherical pendulum (body-fixed z-x-y angles, the bob
    on A.y): the rate about the rod moves nothing, the mass matrix is singular."""
    grav, ln, m = sp.symbols("g l m")
    q1, q2, q3, u1, u2, u3 = me.dynamicsymbols("q1:4 u1:4")
    N, A = me.ReferenceFrame("N"), me.ReferenceFrame("A")
    A.orient_body_fixed(N, (q1, q2, q3), "zxy")
    w = A.ang_vel_in(N)
    O = me.Point("O")
    O.set_vel(N, 0)
    Po = O.locatenew("Po", -ln * A.y)
    Po.set_vel(A, 0)
    km = me.KanesMethod(N, [q1, q2, q3], [u1, u2, u3], [w.dot(A.x) - u1, w.dot(A.y) - u2, w.dot(A.z) - u3],
                        bodies=[me.Particle("P", Po, m)], forcelist=[(Po, -m * grav * N.y)])
    km.kanes_equations()
    return km


def _cart_parts():
    """Kane 1985 ex. 8.12: a cart A (tilt q1 about P.x on a plane inclined by θ) on two wheels
    B, C (angles q2, q3 about A.z) rolling without slip; D on the axle moves along A.y."""
    q1, q2, q3 = me.dynamicsymbols("q1:4")
    R, M, grav, e, f, theta, a, b, mA, mB, IA, J, K = sp.symbols("R M g e f theta a b mA mB IA J K")
    IA22, IA23, IA33 = sp.symbols("IA22 IA23 IA33")
    Q1, Q2, Q3 = sp.symbols("Q1 Q2 Q3")
    F = me.ReferenceFrame("F")
    P = F.orientnew("P", "axis", [-theta, F.y])
    A = P.orientnew("A", "axis", [q1, P.x])
    B = A.orientnew("B", "axis", [q2, A.z])
    C = A.orientnew("C", "axis", [q3, A.z])
    D = me.Point("D")
    D.set_vel(A, 0)
    pts = {"S*": e * A.y, "Q": f * A.y - R * A.x, "A*": a * A.y, "B*": b * A.z, "C*": -b * A.z}
    return dict(q=(q1, q2, q3), F=F, A=A, B=B, C=C, D=D, pts=pts, R=R, M=M, g=grav, mA=mA, mB=mB,
                IA=(IA, IA22, IA33, IA23), J=J, K=K, Q=(Q1, Q2, Q3))


def _cart_rest(c, about_D=False):
    F, A, B, C, D = c["F"], c["A"], c["B"], c["C"], c["D"]
    P = {k: D.locatenew(k, v) for k, v in c["pts"].items()}
    for p in P.values():
        p.v2pt_theory(D, F, A)
    Bh = P["B*"].locatenew("B^", -c["R"] * A.x)
    Ch = P["C*"].locatenew("C^", -c["R"] * A.x)
    Bh.v2pt_theory(P["B*"], F, B)
    Ch.v2pt_theory(P["C*"], F, C)
    IA, IA22, IA33, IA23 = c["IA"]
    inert = [me.inertia(A, IA, IA22, IA33, 0, IA23, 0), me.inertia(B, c["K"], c["K"], c["J"]),
             me.inertia(C, c["K"], c["K"], c["J"])]
    bodies = []
    for name, G, fr, m, I in zip(("rbA", "rbB", "rbC"), (P["A*"], P["B*"], P["C*"]), (A, B, C),
                                 (c["mA"], c["mB"], c["mB"]), inert):
        if about_D:      # the inertia about D: the central one plus the point mass's (parallel axes)
            bodies.append(me.RigidBody(name, G, fr, m, (I + me.inertia_of_point_mass(m, G.pos_from(D), fr), D)))
        else:
            bodies.append(me.RigidBody(name, G, fr, m, (I, G)))
    Q1, Q2, Q3 = c["Q"]
    loads = [(P["S*"], -c["M"] * c["g"] * F.x), (P["Q"], Q1 * A.x + Q2 * A.y + Q3 * A.z)]
    return bodies, loads, [me.dot(p.vel(F), A.y) for p in (Bh, Ch)]


def non_central_inertia(about_D=False):
    """sympy's test_kane2::test_non_central_inertia: speeds u1 (tilt rate), u2 (D along A.y),
    the wheel rates u4, u5 dependent through rolling, u3 (A's rate about A.z) auxiliary; D has
    no position (4 speeds for 3 coordinates).  ``about_D``: the inertias given about D."""
    c = _cart_parts()
    q1, q2, q3 = c["q"]
    u1, u2, u3, u4, u5 = me.dynamicsymbols("u1:6")
    A, B, C = c["A"], c["B"], c["C"]
    A.set_ang_vel(c["F"], u1 * A.x + u3 * A.z)
    B.set_ang_vel(A, u4 * A.z)
    C.set_ang_vel(A, u5 * A.z)
    c["D"].set_vel(c["F"], u2 * A.y)
    bodies, loads, vc = _cart_rest(c, about_D)
    km = me.KanesMethod(c["F"], q_ind=[q1, q2, q3], u_ind=[u1, u2], kd_eqs=[q1.diff(t) - u1, q2.diff(t) - u4,
                                                                           q3.diff(t) - u5],
                        u_dependent=[u4, u5], velocity_constraints=vc, u_auxiliary=[u3])
    km.kanes_equations(bodies, loads)
    return km


def sub_qdot():
    """sympy's test_kane2::test_sub_qdot: the cart of :func:`non_central_inertia`, the wheels'
    rates q̇2, q̇3 (no speeds of their own) in the kdes through rolling: 3 coordinates, 2 speeds
    and the auxiliary u3."""
    c = _cart_parts()
    q1, q2, q3 = c["q"]
    u1, u2, u3 = me.dynamicsymbols("u1:4")
    A = c["A"]
    A.set_ang_vel(c["F"], u1 * A.x + u3 * A.z)
    c["D"].set_vel(c["F"], u2 * A.y)
    bodies, loads, roll = _cart_rest(c)
    km = me.KanesMethod(c["F"], [q1, q2, q3], [u1, u2], kd_eqs=roll + [u1 - q1.diff(t)], u_auxiliary=[u3])
    km.kanes_equations(bodies, loads)
    return km


def sub_qdot2(rolling: bool):
    """sympy's test_kane2::test_sub_qdot2 (Kane 1985 ex. 8.3): a disc C on the plane, contact at
    (q3, q4), the speeds its angular velocity in B and q̇3, q̇4; only the contact force and
    gravity, no bodies (sympy forms F_r alone).  ``rolling``: u3, u4 dependent through rolling."""
    grav, m, Px, Py, Pz, R = sp.symbols("g m Px Py Pz R")
    q = me.dynamicsymbols("q:5")
    u = me.dynamicsymbols("u:5")
    A = me.ReferenceFrame("A")
    Bp = A.orientnew("B_prime", "Axis", [q[0], A.z])
    B = Bp.orientnew("B", "Axis", [sp.pi / 2 - q[1], Bp.x])
    C = B.orientnew("C", "Axis", [q[2], B.z])
    O = me.Point("O")
    O.set_vel(A, 0)
    pR = O.locatenew("R", q[3] * A.x + q[4] * A.y)
    pR.set_vel(A, pR.pos_from(O).diff(t, A))
    pR.set_vel(B, 0)
    Ch = pR.locatenew("C^", 0)
    Ch.set_vel(C, 0)
    Cs = Ch.locatenew("C*", R * B.y)
    Cs.set_vel(C, 0)
    Cs.set_vel(B, 0)
    Cs.v2pt_theory(pR, A, B)
    Ch.v2pt_theory(Cs, A, C)
    forces = [(Ch, Px * A.x + Py * A.y + Pz * A.z), (Cs, -m * grav * A.z)]
    kde = [ui - e for ui, e in zip(u, [C.ang_vel_in(A) & uv for uv in B] + [x.diff(t) for x in q[3:]])]
    if rolling:
        km = me.KanesMethod(A, q, u[:3], kde, u_dependent=u[3:], velocity_constraints=[Ch.vel(A) & uv for uv in
                                                                                       (A.x, A.y)])
    else:
        km = me.KanesMethod(A, q, u, kde)
    km.kanes_equations([], forces)
    return km


def kane4(kde: int):
    """sympy's test_kane4: a double pendulum of two particles, a torsional spring σ and damper δ
    between the rods written in q̇2; kde1 u = q̇, kde2 u2 = q̇1 + q̇2."""
    q1, q2 = me.dynamicsymbols("q1 q2")
    u1, u2 = me.dynamicsymbols("u1 u2")
    ln, m, sig, delta = sp.symbols("l m sigma delta")
    N = me.ReferenceFrame("N")
    A = N.orientnew("A", "Axis", (q1, N.z))
    B = A.orientnew("B", "Axis", (q2, N.z))
    O = me.Point("O")
    O.set_vel(N, 0)
    P = O.locatenew("P", ln * A.x)
    P.v2pt_theory(O, N, A)
    Q = P.locatenew("Q", ln * B.x)
    Q.v2pt_theory(P, N, B)
    Ta = (sig * q2 + delta * q2.diff(t)) * N.z
    kd = [u1 - q1.diff(t), u2 - q2.diff(t)] if kde == 1 else [u1 - q1.diff(t), u2 - (q1.diff(t) + q2.diff(t))]
    km = me.KanesMethod(N, [q1, q2], [u1, u2], kd_eqs=kd)
    km.kanes_equations([me.Particle("Ap", P, m), me.Particle("Bp", Q, m)], [(A, Ta), (B, -Ta)])
    return km


def _pendulum(lagrange: bool):
    """sympy's test_linearize minimal pendulum: angle q1, the bob at L A.x, gravity 9.8 m N.x;
    KanesMethod with u1 = q̇1, or LagrangesMethod."""
    q1, u1 = me.dynamicsymbols("q1 u1")
    L, m = sp.symbols("L m")
    N = me.ReferenceFrame("N")
    O = me.Point("N*")
    O.set_vel(N, 0)
    A = N.orientnew("A", "axis", [q1, N.z])
    A.set_ang_vel(N, (q1.diff(t) if lagrange else u1) * N.z)
    P = O.locatenew("P", L * A.x)
    P.v2pt_theory(O, N, A)
    bob = me.Particle("pP", P, m)
    if lagrange:
        lm = me.LagrangesMethod(me.Lagrangian(N, bob), [q1], forcelist=[(P, m * 9.8 * N.x)], frame=N)
        lm.form_lagranges_equations()
        return lm
    km = me.KanesMethod(N, q_ind=[q1], u_ind=[u1], kd_eqs=sp.Matrix([q1.diff(t) - u1]))
    km.kanes_equations([bob], [(P, m * 9.8 * N.x)])
    return km


def pendulum_kane_minimal():
    return _pendulum(False)


def pendulum_lagrange_minimal():
    return _pendulum(True)


def simp_pen():
    """sympy's test_lagrange::test_simp_pen: the bob's potential −m g l cos q in the Lagrangian."""
    q = me.dynamicsymbols("q")
    ln, m, grav = sp.symbols("l m g")
    N = me.ReferenceFrame("N")
    A = N.orientnew("A", "Axis", [q, N.z])
    A.set_ang_vel(N, q.diff(t) * N.z)
    O = me.Point("O")
    O.set_vel(N, 0)
    P = O.locatenew("P", ln * A.x)
    P.v2pt_theory(O, N, A)
    bob = me.Particle("Pa", P, m)
    bob.potential_energy = -m * grav * ln * sp.cos(q)
    lm = me.LagrangesMethod(me.Lagrangian(N, bob), [q])
    lm.form_lagranges_equations()
    return lm


def dub_pen():
    """sympy's test_lagrange::test_dub_pen: two bobs on rods at absolute angles q1, q2."""
    q1, q2 = me.dynamicsymbols("q1 q2")
    ln, m, grav = sp.symbols("l m g")
    N = me.ReferenceFrame("N")
    A = N.orientnew("A", "Axis", [q1, N.z])
    B = N.orientnew("B", "Axis", [q2, N.z])
    A.set_ang_vel(N, q1.diff(t) * A.z)
    B.set_ang_vel(N, q2.diff(t) * A.z)
    O = me.Point("O")
    P = O.locatenew("P", ln * A.x)
    R = P.locatenew("R", ln * B.x)
    O.set_vel(N, 0)
    P.v2pt_theory(O, N, A)
    R.v2pt_theory(P, N, B)
    pP, pR = me.Particle("ParP", P, m), me.Particle("ParR", R, m)
    pP.potential_energy = -m * grav * ln * sp.cos(q1)
    pR.potential_energy = -m * grav * ln * sp.cos(q1) - m * grav * ln * sp.cos(q2)
    lm = me.LagrangesMethod(me.Lagrangian(N, pP, pR), [q1, q2], bodies=[pP, pR])
    lm.form_lagranges_equations()
    return lm


def disc_on_incline():
    """sympy's test_lagrange::test_disc_on_an_incline_plane: a disc rolling down an incline
    (y along it, θ its angle), rolling y = R θ as hol_coneqs; the Lagrangian only, no frame."""
    y, theta = me.dynamicsymbols("y theta")
    m, grav, R, ln, alpha = sp.symbols("m g R l alpha")
    N = me.ReferenceFrame("N")
    A = N.orientnew("A", "Axis", [sp.pi / 2 - alpha, N.z])
    B = A.orientnew("B", "Axis", [-theta, A.z])
    Do = me.Point("Do")
    Do.set_vel(N, y.diff(t) * A.x)
    D = me.RigidBody("D", Do, B, m, (m * R**2 / 2 * B.z | B.z, Do))
    D.potential_energy = m * grav * (ln - y) * sp.sin(alpha)
    lm = me.LagrangesMethod(me.Lagrangian(N, D), [y, theta], hol_coneqs=[y - R * theta])
    lm.form_lagranges_equations()
    return lm


def lagrange_rolling_disc():
    """sympy's test_lagrange::test_rolling_disc: the disc from its contact point at rest."""
    q, N, Y, L, R = _disc_frames()
    r, m, grav = sp.symbols("r m g")
    C = me.Point("C")
    C.set_vel(N, 0)
    Dmc = C.locatenew("Dmc", r * L.z)
    Dmc.v2pt_theory(C, N, R)
    body = me.RigidBody("BodyD", Dmc, R, m, (me.inertia(L, m / 4 * r**2, m / 2 * r**2, m / 4 * r**2), Dmc))
    body.potential_energy = -m * grav * r * sp.cos(q[1])
    lm = me.LagrangesMethod(me.Lagrangian(N, body), list(q))
    lm.form_lagranges_equations()
    return lm


def lagrange2():
    """sympy's test_lagrange2: two particles on springs in series, each with a friction force."""
    q1, q2 = me.dynamicsymbols("q1 q2")
    m, k, nu = sp.symbols("m k nu")
    N = me.ReferenceFrame("N")
    O = me.Point("O")
    P1 = O.locatenew("P1", q1 * N.x)
    P1.set_vel(N, q1.diff(t) * N.x)
    P2 = O.locatenew("P2", q2 * N.x)
    P2.set_vel(N, q2.diff(t) * N.x)
    p1, p2 = me.Particle("pP1", P1, m), me.Particle("pP2", P2, m)
    p1.potential_energy = k * q1**2 / 2
    p2.potential_energy = k * (q1 - q2)**2 / 2
    lm = me.LagrangesMethod(me.Lagrangian(N, p1, p2), (q1, q2), frame=N,
                            forcelist=[(P1, -nu * q1.diff(t) * N.x), (P2, -nu * q2.diff(t) * N.x)])
    lm.form_lagranges_equations()
    return lm


def _positive(setup) -> list:
    """conditions=[p > 0] for the parameters of the set-up's mass matrix that are masses, lengths
    or moments of inertia (sympy's tests use plain symbols; products of inertia left free)."""
    M = setup.mass_matrix
    syms = {s for e in M for s in e.free_symbols if isinstance(s, sp.Symbol) and s != t}
    return [s > 0 for s in sorted(syms, key=str) if s.name[0] in "mlLrRIJKMab" and not s.name[-2:].isdigit()]


def _inputs(setup) -> list:
    """The specified functions of time (neither coordinates nor speeds) the set-up's equations use."""
    own = set(setup.q) | set(getattr(setup, "u", [])) | set(getattr(setup, "_uaux", None) or [])
    exprs = list(setup.mass_matrix_full) + list(setup.forcing_full)
    return sorted(me.find_dynamicsymbols(sp.Matrix(exprs)) - own - {x.diff(t) for x in own}, key=str)


def _random_state(setup, rng, lagrange: bool) -> dict:
    """Random q, speeds (q̇ for Lagrange), parameters (1/2 … 3) and inputs, exact rationals."""
    st = {x: sp.Rational(rng.randint(-9, 9), 7) for x in setup.q}
    speeds = [x.diff(t) for x in setup.q] if lagrange else list(setup.u)
    st |= {x: sp.Rational(rng.randint(-9, 9), 5) for x in speeds}
    st |= {x: sp.Rational(rng.randint(-9, 9), 4) for x in _inputs(setup)}
    exprs = list(setup.mass_matrix_full) + list(setup.forcing_full)
    pars = {s for e in exprs for s in e.free_symbols if isinstance(s, sp.Symbol) and s != t}
    st |= {s: sp.Rational(rng.randint(2, 12), 4) for s in sorted(pars, key=str)}
    udep = list(getattr(setup, "_udep", None) or [])
    if udep and not lagrange:           # dependent speeds from the velocity constraints k_nh u + f_nh = 0
        aux = {x: 0 for x in getattr(setup, "_uaux", None) or []}
        cons = (setup._k_nh * sp.Matrix(setup.u) + setup._f_nh).xreplace(aux).xreplace(
            {k: v for k, v in st.items() if k not in udep})
        st |= sp.solve(list(cons), udep, dict=True)[0]
    return st


def _sympy_truth(setup, st, lagrange: bool) -> list:
    """sympy's own u̇ (Kane) or q̈ then the multipliers (Lagrange) at the state: its full mass
    matrix and forcing at 40 digits, solved; the kinematic rows dropped."""
    kd = {} if lagrange else setup.kindiffdict()
    aux = {} if lagrange else {x.diff(t): 0 for x in setup._uaux} | {x: 0 for x in setup._uaux}
    M = setup.mass_matrix_full.xreplace(kd).xreplace(aux).xreplace(st).evalf(40)
    F = setup.forcing_full.xreplace(kd).xreplace(aux).xreplace(st).evalf(40)
    return list(M.LUsolve(F))[len(setup.q):]


def _bring_in(setup, name: str = ""):
    """geonh's system and equations of a sympy set-up: Kane's form in the user's speeds, or
    Lagrange's form."""
    lagrange = isinstance(setup, me.LagrangesMethod)
    conditions = CONDITIONS.get(name, _positive)(setup)
    ms = (from_lagranges_method if lagrange else from_kanes_method)(setup, conditions=conditions)
    return ms, (g.lagrange(ms) if lagrange else g.kane(ms, kane_frame(setup, ms)))


def _consistent(name: str, st: dict, setup) -> dict:
    """A state on the set-up's configuration constraints (those with some)."""
    if name == "disc_on_incline":                    # rolling y = R θ, ẏ = R θ̇
        y, theta = setup.q
        R = [s for s in st if isinstance(s, sp.Symbol) and s.name == "R"][0]
        st[y], st[y.diff(t)] = st[R] * st[theta], st[R] * st[theta.diff(t)]
    return st


def _cart_conditions(km) -> list:
    """The cart's masses, moments of inertia and wheel radius positive."""
    by = {s.name: s for e in km.mass_matrix_full for s in e.free_symbols}
    return [by[n] > 0 for n in ("mA", "mB", "IA", "J", "K", "R")]


CONDITIONS = {"non_central_inertia": _cart_conditions, "non_central_inertia_about_D": _cart_conditions}
CASES = {
    "one_dof": one_dof, "two_dof": two_dof, "two_dof_plain": lambda: two_dof(False), "pend": pend,
    "kane4_kde1": lambda: kane4(1), "kane4_kde2": lambda: kane4(2),
    "pendulum_kane_minimal": pendulum_kane_minimal, "pendulum_lagrange_minimal": pendulum_lagrange_minimal,
    "simp_pen": simp_pen, "dub_pen": dub_pen, "disc_on_incline": disc_on_incline,
    "lagrange_rolling_disc": lagrange_rolling_disc, "lagrange2": lagrange2,
    "msd1": lambda: models.multi_mass_spring_damper(1, True, True), "msd3": lambda: models.multi_mass_spring_damper(3),
    "aux_five_speeds": lambda: aux_disc(False), "kane_rolling_disc": kane_rolling_disc,
    "aux_auxiliary": lambda: aux_disc(True), "non_central_inertia": non_central_inertia,
    "non_central_inertia_about_D": lambda: non_central_inertia(True),
    "nlink1": lambda: models.n_link_pendulum_on_cart(1), "nlink2": lambda: models.n_link_pendulum_on_cart(2),
}


SLOW = {"aux_five_speeds", "kane_rolling_disc", "aux_auxiliary", "non_central_inertia",
        "non_central_inertia_about_D"}     # > 1 s CPU each


@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.slow) if n in SLOW else n for n in CASES])
def test_comes_in_and_goes_out(name):
    """In: geonh's accelerations (and multipliers) equal sympy's at 3 random consistent states;
    out: to_sympy's M x = F (and pydy's generated right-hand side without multipliers), with
    the user's speed names, give them again — all to OUT_TOL relative, in double precision."""
    t0 = time.process_time()
    setup = CASES[name]()
    lagrange = isinstance(setup, me.LagrangesMethod)
    ms, eqs = _bring_in(setup, name)
    rng = random.Random(sum(map(ord, name)))
    states = [_consistent(name, _random_state(setup, rng, lagrange), setup) for _ in range(3)]
    truths = [_sympy_truth(setup, st, lagrange) for st in states]
    free = [] if lagrange else [x for x in setup.u if x not in set(getattr(setup, "_udep", None) or [])]
    if not lagrange:                                 # the independent speeds' rates (sympy's come first)
        truths = [tr[:len(free)] for tr in truths]
    by_name = [{_name(k): v for k, v in st.items()} for st in states]
    # the coordinates geonh added (_extend) and parameters only geonh's equations show (they must
    # drop out: the comparison says so)
    added = sorted(({s.name for s in ms.space.q} | {s.name for s in eqs.value_symbols}) - set(by_name[0]))
    by_name = [d | {nm: sp.Rational(rng.randint(-9, 9), 3) for nm in added} for d in by_name]
    M, F = _numeric(eqs.mass_matrix), _numeric(eqs.forcing)
    n = eqs.mass_matrix.rows
    worst_in = 0.0
    for vals, want in zip(by_name, truths):
        got = np.linalg.solve(M(vals).reshape(n, n), F(vals))
        assert len(got) == len(want)
        worst_in = max(worst_in, _rel(got, [float(w) for w in want]))
    assert worst_in <= OUT_TOL, worst_in
    names = None if lagrange else free
    worst_out = _out(eqs, by_name, truths, names=names, pydy=not eqs.lam_vec)
    print(f"ROW {name}: in {worst_in:.1e}, out {worst_out:.1e} ({time.process_time() - t0:.2f} s CPU)")


@pytest.mark.slow
def test_aux_contact_force_from_the_auxiliary_equations():
    """sympy's test_kane::test_aux with u_auxiliary: the contact point's velocity u4 L.x + u5 (Y.z × L.x),
    auxiliary, and the contact force f1 L.x + f2 (Y.z × L.x) there.  geonh adds the contact position
    C_x, C_y; the rolling becomes two velocity constraints, named u4, u5 in kane_frame, and the
    velocity identities give the auxiliary speeds off the motion, so the force enters the auxiliary
    equations as in sympy's.  f1, f2 solved from geonh's auxiliary_eqs (and from to_sympy's) equal
    those from sympy's auxiliary_eqs, at 3 random states, to OUT_TOL relative; they stay out of
    the equations of motion."""
    setup = aux_disc(True)
    ms, eqs = _bring_in(setup, "aux_auxiliary")
    assert [s.name for s in ms.space.q] == ["q1", "q2", "q3", "C_x", "C_y"] and ms.n_constraints == 2
    assert kane_frame(setup, ms).names == ("u1", "u2", "u3", "u4", "u5")
    fs = list(me.dynamicsymbols("f1 f2"))
    assert set(fs) <= me.find_dynamicsymbols(setup.auxiliary_eqs) and not set(fs) & set(_inputs(setup))
    assert eqs.auxiliary_eqs.shape == (2, 1)
    kd = setup.kindiffdict()
    zero = {x.diff(t): 0 for x in setup._uaux} | {x: 0 for x in setup._uaux}
    rng = random.Random(27)
    M, F = _numeric(eqs.mass_matrix), _numeric(eqs.forcing)
    aux_in, aux_out = _numeric(eqs.auxiliary_eqs), _numeric(to_sympy(eqs).auxiliary_eqs)
    worst = 0.0
    for _ in range(3):
        st = {k: v for k, v in _random_state(setup, rng, False).items() if k not in fs}
        ud = _sympy_truth(setup, st | {f: 0 for f in fs}, False)
        rates = {x.diff(t): v for x, v in zip(setup.u, ud)}
        F1, F2 = sp.symbols("F1 F2")
        aux_s = [e.xreplace(kd).xreplace(zero).xreplace(rates).xreplace(dict(zip(fs, (F1, F2)))).xreplace(st)
                 for e in setup.auxiliary_eqs]
        sol = sp.solve(aux_s, [F1, F2], dict=True)[0]
        want = [float(sol[F1]), float(sol[F2])]
        vals = {_name(k): v for k, v in st.items()} | {"C_x": sp.Rational(rng.randint(-9, 9), 3),
                                                      "C_y": sp.Rational(rng.randint(-9, 9), 3)}
        n = eqs.mass_matrix.rows
        udg = np.linalg.solve(M(vals).reshape(n, n), F(vals | {"f1": 0, "f2": 0}))
        # the force does no work on the motion: geonh's forcing shows f1, f2 with coefficients that
        # are generically zero (not simplified), so its value must not change with them
        worst = max(worst, _rel(udg, [float(x) for x in ud]),
                    _rel(F(vals | {"f1": 0, "f2": 0}), F(vals | {"f1": 3.0, "f2": -5.0})))
        vals |= {f"u{i + 1}_dot": udg[i] for i in range(3)}
        for f in (aux_in, aux_out):
            got = _solve_linear(lambda x: f(vals | {"f1": x[0], "f2": x[1]}), 2)
            worst = max(worst, _rel(got, want))
    assert worst <= OUT_TOL, worst
    print(f"ROW aux_auxiliary contact force: rel {worst:.1e}")


LINEARIZATIONS = {"one_dof": one_dof, "pendulum_kane_minimal": pendulum_kane_minimal,
                  "pendulum_lagrange_minimal": pendulum_lagrange_minimal}


@pytest.mark.parametrize("name", list(LINEARIZATIONS))
def test_linearization_in_and_out(name):
    """sympy's A (its test linearizes about the general state: A in q, u; B empty) equals, at
    random states, that of the exported equations (to_sympy's M x = F differentiated), and at
    the equilibria (q = 0 and, for the pendula, q = π, at rest) geonh's own ``linearize`` (which
    linearizes about equilibria and steady motions only) — to OUT_TOL relative."""
    setup = LINEARIZATIONS[name]()
    lagrange = isinstance(setup, me.LagrangesMethod)
    _, eqs = _bring_in(setup, name)
    speeds = [x.diff(t) for x in setup.q] if lagrange else list(setup.u)
    if lagrange:
        A_s, B_s, _ = setup.linearize(list(setup.q), speeds, A_and_B=True)
    else:
        A_s, B_s, _ = setup.linearize(A_and_B=True)
    assert B_s.shape[1] == 0
    state = [_name(x) for x in list(setup.q) + speeds]
    rng = random.Random(sum(map(ord, name)) + 1)
    worst = 0.0
    for k in range(4):
        st = _random_state(setup, rng, lagrange)
        if k >= 2:                                   # an equilibrium: geonh's linearize too
            st |= {x: (sp.pi if k == 3 and name != "one_dof" else 0) for x in setup.q} | {x: 0 for x in speeds}
        want_A = np.array(A_s.xreplace(st).evalf(30), float)
        point = {_name(k): v for k, v in st.items()}
        A_out, B_out = _out_linearization(eqs, point, state)
        assert B_out.size == 0
        worst = max(worst, _rel(A_out, want_A))
        if k >= 2:
            lin = eqs.linearize(point)
            assert [s.name for s in lin.state] == state and np.asarray(lin.B).size == 0
            worst = max(worst, _rel(np.array(lin.A, float), want_A))
    assert worst <= OUT_TOL, worst
    print(f"ROW {name} linearization: A rel {worst:.1e}")


REFUSED = {
    # 3 speeds for 3 coordinates whose velocities no coordinates make true (kdes u = q̇ against the
    # body-rate angular velocity): the completion with the contact position does not give the motions
    "kane_rolling_disc_mismatched": (kane_rolling_disc_mismatched, "UnsupportedSetupError",
                                     "not the time derivative of a position.*did not help.*same motions"),
    # fewer speeds than coordinates (constraints written as kinematic differential equations)
    "sub_qdot": (sub_qdot, "DimensionError", "one speed per coordinate"),
    "implicit_kinematics": (implicit_kinematics, "DimensionError", "one speed per coordinate"),
    # the mass matrix is singular (sympy's too): no accelerations
    "issue_24887": (issue_24887, "NotPositiveDefiniteError", "not positive definite"),
    # F_r alone: no bodies, no mass
    "sub_qdot2_free": (lambda: sub_qdot2(False), "UnsupportedSetupError", "no bodies"),
    "sub_qdot2_rolling": (lambda: sub_qdot2(True), "UnsupportedSetupError", "no bodies"),
}


@pytest.mark.parametrize("name", list(REFUSED))
def test_refused_with_the_reason(name):
    """The set-ups geonh cannot take are refused by a geonh error that names why."""
    build, kind, why = REFUSED[name]
    setup = build()
    with pytest.raises(GeonhError, match=why) as info:
        from_kanes_method(setup, conditions=_positive(setup))
    assert type(info.value).__name__ == kind
    print(f"ROW {name}: refused, {kind}: {str(info.value)[:160]}")
