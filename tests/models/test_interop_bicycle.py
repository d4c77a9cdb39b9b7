"""sympy set-ups with more speeds than coordinates, brought in through ``from_kanes_method``:
the Whipple bicycle of sympy's test_kane3.py (no wheel angles, no contact position: the rear
contact point is declared at rest) and the rolling disc of test_kane2.py::test_aux_dep (the
centre's velocity components as speeds, auxiliary speeds at the contact point).  Each set-up is
rebuilt here from the problem sympy's test states (its test is the spec; the code is ours).
geonh adds the missing coordinates, solves the velocity identities for the speeds and keeps the
rest as velocity constraints (``geonh.models.interop._extend``); the results are compared with
sympy's own equations at random consistent states."""
import numpy as np
import pytest
import sympy as sp
import sympy.physics.mechanics as me
import symengine as se

import geonh as g
from geonh.errors import UnsupportedSetupError
from geonh.models.interop import from_kanes_method, kane_frame, to_sympy
from test_interop_sympy_problems import _numeric

t = me.dynamicsymbols._t


def whipple_bicycle(positive=True):
    """The Whipple bicycle of sympy's test_kane3 (Meijaard et al. 2007, Autolev port): yaw q1,
    roll q2, frame pitch q4 (dependent through the front contact), steer q5; speeds u1…u6 with
    u3, u6 the wheel rates relative to frame and fork (no wheel angles, no contact position:
    the rear contact point is declared at rest)."""
    q1, q2, q4, q5 = me.dynamicsymbols("q1 q2 q4 q5")
    u1, u2, u3, u4, u5, u6 = me.dynamicsymbols("u1:7")
    names = ("WFrad WRrad htangle forkoffset forklength framelength forkcg1 forkcg3 framecg1 framecg3 "
             "Iwr11 Iwr22 Iwf11 Iwf22 Iframe11 Iframe22 Iframe33 Iframe31 Ifork11 Ifork22 Ifork33 Ifork31 g "
             "mframe mfork mwf mwr")
    P = dict(zip(names.split(), sp.symbols(names)))
    if positive:   # masses, lengths and moments of inertia declared positive (sympy's test: plain symbols)
        P = {k: (sp.Symbol(k, positive=True) if k[0] in "mIWfg" and not k.endswith("31") else v) for k, v in P.items()}
    N = me.ReferenceFrame("N")
    Y = N.orientnew("Y", "Axis", [q1, N.z])
    R = Y.orientnew("R", "Axis", [q2, Y.x])
    Fr = R.orientnew("Frame", "Axis", [q4 + P["htangle"], R.y])
    WR = me.ReferenceFrame("WR")
    TFr = Fr.orientnew("TempFrame", "Axis", [-P["htangle"], Fr.y])
    Fk = Fr.orientnew("Fork", "Axis", [q5, Fr.x])
    TFk = Fk.orientnew("TempFork", "Axis", [-P["htangle"], Fk.y])
    WF = me.ReferenceFrame("WF")
    rc = me.Point("WR_cont")
    rmc = rc.locatenew("WR_mc", P["WRrad"] * R.z)
    steer = rmc.locatenew("Steer", P["framelength"] * Fr.z)
    fmc = rmc.locatenew("Frame_mc", -P["framecg1"] * Fr.x + P["framecg3"] * Fr.z)
    kmc = steer.locatenew("Fork_mc", -P["forkcg1"] * Fk.x + P["forkcg3"] * Fk.z)
    wfmc = steer.locatenew("WF_mc", P["forklength"] * Fk.x + P["forkoffset"] * Fk.z)
    fc = wfmc.locatenew("WF_cont", P["WFrad"] * (me.dot(Fk.y, Y.z) * Fk.y - Y.z).normalize())
    Y.set_ang_vel(N, u1 * Y.z)
    R.set_ang_vel(Y, u2 * R.x)
    WR.set_ang_vel(Fr, u3 * Fr.y)
    Fr.set_ang_vel(R, u4 * Fr.y)
    Fk.set_ang_vel(Fr, u5 * Fk.x)
    WF.set_ang_vel(Fk, u6 * Fk.y)
    rc.set_vel(N, 0)
    rmc.v2pt_theory(rc, N, WR)
    steer.v2pt_theory(rmc, N, Fr)
    fmc.v2pt_theory(rmc, N, Fr)
    kmc.v2pt_theory(steer, N, Fk)
    wfmc.v2pt_theory(steer, N, Fk)
    fc.v2pt_theory(wfmc, N, WF)
    bodies = [me.RigidBody("BodyFrame", fmc, Fr, P["mframe"],
                           (me.inertia(TFr, P["Iframe11"], P["Iframe22"], P["Iframe33"], 0, 0, P["Iframe31"]), fmc)),
              me.RigidBody("BodyFork", kmc, Fk, P["mfork"],
                           (me.inertia(TFk, P["Ifork11"], P["Ifork22"], P["Ifork33"], 0, 0, P["Ifork31"]), kmc)),
              me.RigidBody("BodyWR", rmc, WR, P["mwr"], (me.inertia(Fr, P["Iwr11"], P["Iwr22"], P["Iwr11"]), rmc)),
              me.RigidBody("BodyWF", wfmc, WF, P["mwf"], (me.inertia(Fk, P["Iwf11"], P["Iwf22"], P["Iwf11"]), wfmc))]
    kd = [q1.diff(t) - u1, q2.diff(t) - u2, q4.diff(t) - u4, q5.diff(t) - u5]
    speed = [fc.vel(N) & Y.x, fc.vel(N) & Y.y, fc.vel(N) & Y.z]
    coord = [fc.pos_from(rc) & Y.z]
    loads = [(fmc, -P["mframe"] * P["g"] * Y.z), (kmc, -P["mfork"] * P["g"] * Y.z),
             (wfmc, -P["mwf"] * P["g"] * Y.z), (rmc, -P["mwr"] * P["g"] * Y.z)]
    km = me.KanesMethod(N, q_ind=[q1, q2, q5], q_dependent=[q4], configuration_constraints=coord,
                        u_ind=[u2, u3, u5], u_dependent=[u1, u4, u6], velocity_constraints=speed, kd_eqs=kd,
                        constraint_solver="CRAMER")
    km.kanes_equations(bodies, loads)
    return km, P, speed, coord


def disc_aux_dep():
    """The rolling disc of sympy's test_kane2::test_aux_dep: yaw, lean, spin q0…q2 and the centre's
    height q3 (dependent); speeds: the disc's angular velocity in B (u0…u2) and the centre's
    velocity in A (u3…u5, dependent); auxiliary speeds ua0…ua2 at the contact point, whose
    contact force Fx, Fy, Fz they bring into evidence."""
    r, m, grav, I, J = sp.symbols("r m g I J")
    Fx, Fy, Fz = sp.symbols("Fx Fy Fz")
    q = me.dynamicsymbols("q:4")
    u = me.dynamicsymbols("u:6")
    ua = me.dynamicsymbols("ua:3")
    qd = [x.diff(t) for x in q]
    N = me.ReferenceFrame("N")
    A = N.orientnew("A", "Axis", [q[0], N.z])
    B = A.orientnew("B", "Axis", [q[1], A.x])
    C = B.orientnew("C", "Axis", [q[2], B.y])
    C.set_ang_vel(N, u[0] * B.x + u[1] * B.y + u[2] * B.z)
    C.set_ang_acc(N, C.ang_vel_in(N).diff(t, B) + me.cross(B.ang_vel_in(N), C.ang_vel_in(N)))
    P = me.Point("P")
    P.set_vel(N, ua[0] * A.x + ua[1] * A.y + ua[2] * A.z)
    O = P.locatenew("O", q[3] * A.z + r * sp.sin(q[1]) * A.y)
    O.set_vel(N, u[3] * A.x + u[4] * A.y + u[5] * A.z)
    O.set_acc(N, O.vel(N).diff(t, A) + me.cross(A.ang_vel_in(N), O.vel(N)))
    w_qd = qd[0] * A.z + qd[1] * B.x + qd[2] * B.y
    v_qd = O.pos_from(P).diff(t, A) + me.cross(A.ang_vel_in(N), O.pos_from(P))
    kdes = sp.Matrix([me.dot(w_qd - C.ang_vel_in(N), e) for e in B] + [me.dot(v_qd - O.vel(N), A.z)])
    f_c = sp.Matrix([me.dot(-r * B.z, A.z) - q[3]])
    f_v = sp.Matrix([me.dot(O.vel(N) - (P.vel(N) + me.cross(C.ang_vel_in(N), O.pos_from(P))), e).expand()
                     for e in A])
    disc = me.RigidBody("disc", O, C, m, (me.inertia(B, I, J, I), O))
    km = me.KanesMethod(N, q_ind=q[:3], u_ind=u[:3], kd_eqs=kdes, q_dependent=q[3:], configuration_constraints=f_c,
                        u_dependent=u[3:], velocity_constraints=f_v, u_auxiliary=ua)
    km.kanes_equations([disc], [(O, m * grav * A.z), (P, Fx * A.x + Fy * A.y + Fz * A.z)])
    return km, (r, m, grav, I, J), (Fx, Fy, Fz), f_v


# -- numerics: sympy's equations and geonh's Kane form in the user's speeds, in double precision ---------
def _sympy_side(km, params, extra=()):
    """Functions of (q, u, params[, extra]) for sympy's M, F (M u̇ = F over every speed) and
    velocity constraints, auxiliary speeds zero; the u̇ of the auxiliary equations appended."""
    q, u = list(km.q), list(km.u)
    ud = sp.symbols(f"ud0:{len(u)}")
    X = sp.symbols(f"x0:{len(q) + len(u)}")
    aux = {x.diff(t): 0 for x in km._uaux} | {x: 0 for x in km._uaux}
    kd = km.kindiffdict()

    def plain(e):
        e = sp.sympify(e).xreplace(kd).xreplace(aux).xreplace({x.diff(t): d for x, d in zip(u, ud)})
        return e.xreplace(dict(zip(q + u, X)))
    args = list(X) + list(params) + list(ud) + list(extra)
    out = {"M": sp.lambdify(args, plain(km.mass_matrix)), "F": sp.lambdify(args, plain(km.forcing)),
           "fnh": sp.lambdify(args, [plain(e) for e in km._f_nh + km._k_nh * sp.Matrix(u)])}
    if km._uaux:
        out["aux"] = sp.lambdify(args, [plain(e) for e in km.auxiliary_eqs])
    return out


def _geonh_side(eqs):
    syms = {s.name: s for M in (eqs.mass_matrix, eqs.forcing, eqs.auxiliary_eqs) for s in M.free_symbols}
    names = sorted(syms)
    fs = [se.Lambdify([syms[n] for n in names], list(M), real=True)
          for M in (eqs.mass_matrix, eqs.forcing, eqs.auxiliary_eqs)]

    def at(k, vals):
        return np.asarray(fs[k]([vals.get(n, 0.0) for n in names]), float)
    return names, at


def _affine_solve(f, n):
    """x with f(x) = 0 for f affine in x ∈ ℝⁿ."""
    f0 = np.asarray(f(np.zeros(n)), float).ravel()
    J = np.array([np.asarray(f(e), float).ravel() - f0 for e in np.eye(n)]).T
    return np.linalg.lstsq(J, -f0, rcond=None)[0] if J.shape[0] != n else np.linalg.solve(J, -f0)


def _rel(a, b):
    a, b = np.ravel(a), np.ravel(b)
    return float(np.max(abs(a - b)) / max(1.0, float(np.max(abs(b)))))


# -- test_kane2.py::test_aux_dep ------------------------------------------------------------------------
@pytest.mark.slow
def test_aux_dep_disc_comes_in_with_sympys_accelerations_and_contact_force():
    """On main: refused ("4 coordinates, 6 speeds … one speed per coordinate").  Now the contact
    point's position P_x, P_y is added (its height, pinned by the identities, is dropped), the
    centre's velocity components u3, u4 solved from its velocity identity; Kane's form in the
    user's speeds u0, u1, u2 (constraint fields named ua0…ua2) gives sympy's u̇ and, from
    auxiliary_eqs solved as sympy's are, sympy's contact force Fx, Fy, Fz, to 1e-12."""
    km, (r, m, grav, I, J), Fs, f_v = disc_aux_dep()
    ms = from_kanes_method(km, conditions=[r > 0, m > 0, I > 0, J > 0])
    assert [s.name for s in ms.space.q] == ["q0", "q1", "q2", "q3", "P_x", "P_y"]
    frame = kane_frame(km, ms)
    assert frame.names == ("u0", "u1", "u2", "ua0", "ua1", "ua2")
    eqs = g.kane(ms, frame)
    # the load at P, whose velocity is the auxiliary speeds alone, enters the auxiliary equations
    # as in sympy's (its partial velocities along ua0…ua2): they are solved for Fx, Fy, Fz
    assert eqs.auxiliary_eqs.shape == (3, 1) and all(F in eqs.auxiliary_eqs.free_symbols for F in Fs)
    sym = _sympy_side(km, (r, m, grav, I, J), Fs)
    names, at = _geonh_side(eqs)
    rng = np.random.default_rng(7)
    worst = {"ud": 0.0, "F": 0.0}
    for _ in range(5):
        pars = [rng.uniform(.3, 2), rng.uniform(.5, 3), 9.81, rng.uniform(.2, 2), rng.uniform(.2, 2)]
        qv = np.r_[rng.uniform(-1.5, 1.5, 3), 0.0]
        qv[3] = -pars[0] * np.cos(qv[1])
        uv = np.r_[rng.uniform(-2, 2, 3), 0, 0, 0]
        uv[3:] = _affine_solve(lambda d: sym["fnh"](*qv, *uv[:3], *d, *pars, *[0] * 6, 0, 0, 0), 3)
        args = (*qv, *uv, *pars)
        ud = np.linalg.solve(sym["M"](*args, *[0] * 6, 0, 0, 0), np.ravel(sym["F"](*args, *[0] * 6, 0, 0, 0)))
        F_sympy = _affine_solve(lambda F: sym["aux"](*args, *ud, *F), 3)
        vals = {f"q{i}": qv[i] for i in range(4)} | {"P_x": rng.uniform(-3, 3), "P_y": rng.uniform(-3, 3)}
        vals |= {f"u{i}": uv[i] for i in range(3)} | dict(zip(("r", "m", "g", "I", "J"), pars))
        udg = np.linalg.solve(at(0, vals).reshape(3, 3), at(1, vals).ravel())
        worst["ud"] = max(worst["ud"], _rel(udg, ud[:3]))
        vals |= {f"u{i}_dot": udg[i] for i in range(3)}
        F_geonh = _affine_solve(lambda F: at(2, vals | {str(x): v for x, v in zip(Fs, F)}), 3)
        worst["F"] = max(worst["F"], _rel(F_geonh, F_sympy))
    print("AGREE aux_dep", worst)
    assert worst["ud"] < 1e-12 and worst["F"] < 1e-12, worst


# -- test_kane3.py: the Whipple bicycle -----------------------------------------------------------------
def _benchmark_values(P: dict) -> dict:
    """The benchmark parameters of Meijaard et al. (2007), Table 1, in the set-up's geometry (head
    angle from the vertical-to-steer-axis angle λ = π/10; the frame and fork lengths and mass
    centres measured along and across the steer axis), and sympy's sign of the products of
    inertia — the values sympy's test_kane3 checks with."""
    lam = sp.pi / 10
    hta = sp.pi / 2 - lam
    rR, rF, wb, trail = sp.Rational(3, 10), sp.Rational(35, 100), sp.Rational(102, 100), sp.Rational(8, 100)
    xB, zB, xH, zH = sp.Rational(3, 10), sp.Rational(9, 10), sp.Rational(9, 10), sp.Rational(7, 10)
    s, c = sp.sin(hta), sp.cos(hta)
    offset = rF * c - trail * s                       # the fork offset (rake)
    fork_len = wb * c - (rF - rR) * s
    frame_len = wb * s - offset + (rF - rR) * c
    d = sp.sqrt((zH - rF)**2 + (wb - xH)**2)          # front-wheel centre to fork mass centre
    ang = sp.pi / 2 - hta - sp.acos((zH - rF) / d)
    vals = {"WFrad": rF, "WRrad": rR, "htangle": hta, "forkoffset": offset, "forklength": fork_len,
            "framelength": frame_len, "forkcg1": d * sp.cos(ang) - fork_len, "forkcg3": offset + d * sp.sin(ang),
            "framecg1": (zB - rR - xB / s * c) * s, "framecg3": xB / s + (zB - rR - xB / s * c) * c,
            "Iwr11": "0.0603", "Iwr22": "0.12", "Iwf11": "0.1405", "Iwf22": "0.28", "Ifork11": "0.05892",
            "Ifork22": "0.06", "Ifork33": "0.00708", "Ifork31": "0.00756", "Iframe11": "9.2", "Iframe22": "11",
            "Iframe33": "2.8", "Iframe31": "-2.4", "mfork": 4, "mframe": 85, "mwf": 3, "mwr": 2, "g": "9.81"}
    return {P[k]: sp.nsimplify(v) if isinstance(v, str) else v for k, v in vals.items()}


# sympy's test_kane3: A of (lean, steer, lean rate, steer rate) as polynomials in the speed v, the
# reference it checks its own linearization against (1e-12)
_RES = [[0, 0, 1.0, 0], [0, 0, 0, 1.0],
        [(9.48977444677355, 0, 0), (-0.571523173729245, 0, -0.891197738059089), (0, -0.105522449805691, 0),
         (0, -0.330515398992311, 0)],
        [(11.7194768719633, 0, 0), (30.9087533932407, 0, -1.97171508499972), (0, 3.67680523332152, 0),
         (0, -3.08486552743311, 0)]]


def _res(v):
    return np.array([[e if not isinstance(e, tuple) else e[0] + e[1] * v + e[2] * v * v for e in row] for row in _RES])


@pytest.fixture(scope="module")
def bicycle():
    km, P, speed, coord = whipple_bicycle()
    conds = [P["Iframe11"] * P["Iframe33"] - P["Iframe31"]**2 > 0, P["Ifork11"] * P["Ifork33"] - P["Ifork31"]**2 > 0]
    ms = from_kanes_method(km, conditions=conds)
    return km, P, ms, g.lagrange(ms)


@pytest.mark.slow
def test_whipple_bicycle_comes_in(bicycle):
    """On main: refused (4 coordinates, 6 speeds).  The rear contact's position and the two wheel
    angles are added; the four coordinates' speeds come from the kinematic differential
    equations, the wheel rates u3, u6 from the wheels' angular velocities, and the rear wheel's
    rolling (built into the set-up by declaring the rear contact at rest) stays as two velocity
    constraints beside sympy's three (the front contact; its normal one is ḟ of the configuration
    constraint): 8 coordinates, 3 degrees of freedom, as sympy's 3 independent speeds."""
    km, P, ms, eqs = bicycle
    assert [s.name for s in ms.space.q] == ["q1", "q2", "q5", "q4", "WR_angle", "WF_angle", "WR_cont_x", "WR_cont_y"]
    assert ms.n_constraints == 5 and len(ms.holonomic) == 1


def _newton(f, x, steps=60):
    for _ in range(steps):
        h = 1e-7
        dx = -f(x) * h / (f(x + h) - f(x))
        x += dx
        if abs(dx) < 1e-15:
            break
    return x


@pytest.mark.slow
def test_whipple_bicycle_accelerations_agree_with_sympys(bicycle):
    """At random states on the constraints (lean, steer and pitch up to ±0.5 rad; pitch solved
    from the configuration constraint, the dependent speeds from sympy's velocity constraints),
    with the benchmark parameters: geonh's q̈ (Lagrange's form with multipliers, the rear contact
    speeds from geonh's constraints) equal sympy's u̇ (M u̇ = F of its KanesMethod) — q̈ of
    q1, q2, q5, q4 are u̇1, u̇2, u̇5, u̇4 and the wheel angles' are u̇3, u̇6 — to 1e-12 relative;
    so does M x = F of the equations taken out again by :func:`to_sympy`."""
    km, P, ms, eqs = bicycle
    pv = _benchmark_values(P)
    q, u = list(km.q), list(km.u)          # q1 q2 q5 q4, u2 u3 u5 u1 u4 u6
    X = sp.symbols("x0:10")
    kd = km.kindiffdict()

    def plain(e):
        return sp.sympify(e).xreplace(kd).xreplace(pv).xreplace(dict(zip(q + u, X)))
    fM = sp.lambdify(X, plain(km.mass_matrix))
    fF = sp.lambdify(X, plain(km.forcing))
    fnh = sp.lambdify(X, plain(km._f_nh + km._k_nh * sp.Matrix(u)))
    hol = sp.lambdify(X, plain(km._f_h[0]))
    S = ms.space
    C = ms.constraints.matrix()
    byname = {s.name: s for s in C.free_symbols}
    fC = sp.lambdify([S.q], C.xreplace({byname[k.name]: v for k, v in pv.items() if k.name in byname}))
    exported = to_sympy(eqs)               # and out again, through sympy's vocabulary
    out_n, out_M, out_F = exported.mass_matrix.rows, _numeric(exported.mass_matrix), _numeric(exported.forcing)
    rng = np.random.default_rng(11)
    worst = worst_out = 0.0
    for _ in range(4):
        qv = np.r_[rng.uniform(-.5, .5, 3), 0.0]
        qv[3] = _newton(lambda a: hol(*qv[:3], a, *[0] * 6), 0.0)
        uv = np.r_[rng.uniform(-1, 1), rng.uniform(5, 20), rng.uniform(-1, 1), 0, 0, 0]
        uv[3:] = _affine_solve(lambda d: fnh(*qv, *uv[:3], *d), 3)
        ud = np.linalg.solve(fM(*qv, *uv), np.ravel(fF(*qv, *uv)))
        qall = np.r_[qv, rng.uniform(-3, 3, 4)]
        qd = {"q1": uv[3], "q2": uv[0], "q5": uv[2], "q4": uv[4], "WR_angle": uv[1], "WF_angle": uv[5]}
        Cv = np.asarray(fC(qall), float)
        known = np.array([qd[s.name] for s in S.q[:6]])
        xy = np.linalg.lstsq(Cv[:, 6:], -Cv[:, :6] @ known, rcond=None)[0]
        assert np.max(abs(Cv[:, :6] @ known + Cv[:, 6:] @ xy)) < 1e-12      # the state is on geonh's constraints
        vals = {s.name: float(x) for s, x in zip(S.q, qall)} | {k.name: float(v) for k, v in pv.items()}
        vals |= {f"{s.name}_dot": float(x) for s, x in zip(S.q, np.r_[known, xy])}
        acc = np.array(eqs.accelerations(vals), float)
        want = np.array([ud[3], ud[0], ud[2], ud[4], ud[1], ud[5]])
        worst = max(worst, _rel(acc[:6], want))
        x = np.linalg.solve(out_M(vals).reshape(out_n, out_n), out_F(vals))   # out: to_sympy's M x = F
        worst_out = max(worst_out, _rel(x[:6], want))
    print("AGREE bicycle accelerations", worst, "out", worst_out)
    assert worst < 1e-12 and worst_out < 1e-12


@pytest.mark.slow
def test_whipple_bicycle_linearization_is_the_benchmark(bicycle):
    """sympy's test_kane3 checks its linearized A of (lean, steer, lean rate, steer rate) against
    the benchmark at v = 0 … 5 m/s; geonh's linearization of the bicycle brought in (Lagrange's
    form, pitch dependent, the independent speeds lean rate, steer rate and rear wheel rate as
    sympy's u2, u5, u3) gives the same A to 1e-12 relative, and its eigenvalues are those of
    Meijaard et al. (2007), Table 2."""
    from test_bicycle import _close, _expected
    km, P, ms, eqs = bicycle
    pv = {k.name: v for k, v in _benchmark_values(P).items()}
    worst = 0.0
    for v in range(6):
        point = {x.name: 0 for x in ms.space.q} | {f"{x.name}_dot": 0 for x in ms.space.q[:4]}
        point |= {"WR_angle_dot": sp.Rational(v) / sp.Rational(3, 10), "WF_angle_dot": sp.Rational(v) / sp.Rational(35, 100)}
        lin = eqs.linearize(point | pv, ignorable="auto",
                            dependent=["q4", "q1_dot", "q4_dot", "WF_angle_dot", "WR_cont_x_dot", "WR_cont_y_dot"])
        names = [s.name for s in lin.state]
        idx = [names.index(n) for n in ("q2", "q5", "q2_dot", "q5_dot")]
        A = np.array(lin.A, float)[np.ix_(idx, idx)]
        worst = max(worst, _rel(A, _res(v)))
        ev = np.linalg.eigvals(A)
        for re, im in _expected(v):
            assert any(_close(z.real, re) and _close(z.imag, im) for z in ev), (v, ev)
    print("AGREE bicycle A", worst)
    assert worst < 1e-12


# -- what cannot come in is refused, naming why --------------------------------------------------------
def _spinning_wheel(inertia_axes):
    """A wheel on an axle: yaw q1 of the axle frame A, the wheel W unoriented, spinning about A.y
    with u2 (no angle coordinate), its centre at rest."""
    q1 = me.dynamicsymbols("q1")
    u1, u2 = me.dynamicsymbols("u1 u2")
    N = me.ReferenceFrame("N")
    A = N.orientnew("A", "Axis", [q1, N.z])
    W = me.ReferenceFrame("W")
    W.set_ang_vel(A, u2 * A.y)
    O = me.Point("O")
    O.set_vel(N, 0)
    wheel = me.RigidBody("wheel", O, W, 1, (me.inertia(A, *inertia_axes), O))
    return me.KanesMethod(N, [q1], [u1, u2], kd_eqs=[q1.diff(t) - u1], bodies=[wheel], forcelist=[])


def test_spinning_wheel_comes_in_with_its_angle():
    """A wheel symmetric about its spin axis: its angle W_angle is added, u2 is its rate, the
    centre stays at rest (O_x, O_y, O_z dropped)."""
    ms = from_kanes_method(_spinning_wheel((1, 2, 1)))
    assert [s.name for s in ms.space.q] == ["q1", "W_angle"] and ms.n_constraints == 0


def test_wheel_not_symmetric_about_its_spin_axis_is_refused():
    """Inertia 1, 2, 3 in the axle's axes while the wheel spins about A.y: its inertia would turn
    with it, T with a fixed dyadic is no rigid body's — refused."""
    with pytest.raises(UnsupportedSetupError, match="not symmetric about its spin axis"):
        from_kanes_method(_spinning_wheel((1, 2, 3)))


def test_frame_without_orientation_or_spin_axis_is_refused():
    q1 = me.dynamicsymbols("q1")
    u1, u2 = me.dynamicsymbols("u1 u2")
    N = me.ReferenceFrame("N")
    W = me.ReferenceFrame("W")
    W.set_ang_vel(N, u1 * N.z + u2 * sp.cos(q1) * N.x)
    O = me.Point("O")
    O.set_vel(N, 0)
    body = me.RigidBody("b", O, W, 1, (me.inertia(N, 1, 1, 1), O))
    km = me.KanesMethod(N, [q1], [u1, u2], kd_eqs=[q1.diff(t) - u1], bodies=[body], forcelist=[])
    with pytest.raises(UnsupportedSetupError, match="no orientation relative to N"):
        from_kanes_method(km)


def test_speed_that_moves_nothing_consistently_is_refused():
    """u2 moves particle a in N.y while particle b, at the same point O declared at rest, is at
    rest: no position of O reproduces both, so geonh's coordinates would force u2 = 0 where
    sympy's motion has it free — refused (different motions), never a silent u2 = 0."""
    x = me.dynamicsymbols("x")
    u1, u2 = me.dynamicsymbols("u1 u2")
    N = me.ReferenceFrame("N")
    O = me.Point("O")
    O.set_vel(N, 0)
    Pa = O.locatenew("Pa", x * N.x)
    Pa.set_vel(N, u1 * N.x + u2 * N.y)
    Pb = O.locatenew("Pb", N.z)
    Pb.set_vel(N, 0)
    km = me.KanesMethod(N, [x], [u1, u2], kd_eqs=[x.diff(t) - u1],
                        bodies=[me.Particle("a", Pa, 1), me.Particle("b", Pb, 1)], forcelist=[])
    with pytest.raises(UnsupportedSetupError, match="do not describe the same motions"):
        from_kanes_method(km)


def test_no_point_at_rest_is_refused():
    """More speeds than coordinates, and no point of the bodies is declared at rest (or moving by
    auxiliary speeds): whose position to add is not known — refused."""
    x = me.dynamicsymbols("x")
    u1, u2 = me.dynamicsymbols("u1 u2")
    N = me.ReferenceFrame("N")
    O = me.Point("O")
    Pa = O.locatenew("Pa", x * N.x)
    Pa.set_vel(N, u1 * N.x + u2 * N.y)
    km = me.KanesMethod(N, [x], [u1, u2], kd_eqs=[x.diff(t) - u1], bodies=[me.Particle("a", Pa, 1)], forcelist=[])
    with pytest.raises(UnsupportedSetupError, match="no point joined to every mass centre"):
        from_kanes_method(km)


def _vertical_disc_system(formed: bool):
    """The vertical disc of docs/interop-more-speeds.md as a sympy ``System`` (heading q1, spin rate
    u2 with no spin angle, the contact point C at rest) driven by a spin torque T."""
    q1 = me.dynamicsymbols("q1")
    u1, u2 = me.dynamicsymbols("u1 u2")
    r, m, T = sp.symbols("r m T", positive=True)
    N = me.ReferenceFrame("N")
    A = N.orientnew("A", "Axis", [q1, N.z])
    W = me.ReferenceFrame("W")
    W.set_ang_vel(A, u2 * A.y)
    A.set_ang_vel(N, u1 * N.z)
    C = me.Point("C")
    C.set_vel(N, 0)
    G = C.locatenew("G", r * N.z)
    G.v2pt_theory(C, N, W)
    s = me.System(N, C)
    s.q_ind, s.u_ind, s.kdes = [q1], [u1, u2], [q1.diff(t) - u1]
    s.add_bodies(me.RigidBody("disc", G, W, m, (me.inertia(A, m * r**2 / 4, m * r**2 / 2, m * r**2 / 4), G)))
    s.add_loads(me.Torque(W, T * A.y))
    if formed:
        s.form_eoms()
    return s, (r, m, T)


@pytest.mark.parametrize("formed", [False, True])
def test_sympy_system_with_more_speeds_comes_in(formed):
    """The same door for a sympy ``System`` (unformed: read as Kane's method; formed: through its
    KanesMethod): W_angle, C_x, C_y added, the rolling kept as two constraints, and q̈1, the
    spin angle's q̈ equal sympy's u̇1, u̇2 (to 1e-40)."""
    s, (r, m, T) = _vertical_disc_system(formed)
    ms = from_kanes_method(s)
    assert [x.name for x in ms.space.q] == ["q1", "W_angle", "C_x", "C_y"] and ms.n_constraints == 2
    q1v, wd, rv, mv, Tv = sp.Rational(3, 7), sp.Rational(5, 2), sp.Rational(3, 10), sp.Integer(2), sp.Rational(1, 3)
    vals = {"q1": q1v, "W_angle": 1, "C_x": 2, "C_y": 3, "q1_dot": sp.Rational(1, 2), "W_angle_dot": wd,
            "C_x_dot": rv * wd * sp.cos(q1v), "C_y_dot": rv * wd * sp.sin(q1v), "r": rv, "m": mv, "T": Tv}
    acc = g.lagrange(ms).accelerations(vals)
    if not formed:
        s.form_eoms()
    u1, u2 = s.u
    rates = s.rhs().xreplace({s.q[0]: q1v, u1: sp.Rational(1, 2), u2: wd, r: rv, m: mv, T: Tv})
    assert abs(acc[0] - rates[1]) < 1e-40 and abs(acc[1] - rates[2]) < 1e-40, (acc, rates)
