"""The problems of sympy's own mechanics tests (sympy/physics/mechanics/tests) brought into geonh
and out again.  Each set-up is rebuilt here from the problem sympy's test states (its test is the
spec; the code is ours), brought in through ``from_kanes_method`` / ``from_sympy`` and compared
with sympy's own equations at random states that satisfy the constraints; then taken out through
``to_sympy`` (and ``to_pydy_system`` where the form has no multipliers), with the user's speed
names, and compared again, in double precision, to ``OUT_TOL`` relative: the accelerations, the
constraint forces (multipliers, auxiliary equations) and the linearized A and B.

| sympy test | problem | here |
|---|---|---|
| test_kane5 (lu, kdes_callable) | rolling disc, body-rate speeds | test_rolling_disc_body_rates_comes_in |
| test_linearize::rolling_disc_kane | disc, q6 dependent, 6 speeds | test_rolling_disc_kane_linearization |
| test_linearize::rolling_disc_lagrange | disc, LagrangesMethod | test_rolling_disc_lagrange_linearization |
| test_linearize::pendulum_kane_nonminimal | pendulum, q1 u1 dependent | test_nonminimal_pendulum_linearization |
| test_linearize::pendulum_lagrange_nonminimal, test_lagrange::nonminimal_pendulum | LagrangesMethod, hol_coneqs | test_nonminimal_pendulum_lagranges_method_linearization |
| test_kane::parallel_axis | pendulum on a cart, input F | test_pendulum_on_cart_linearization_with_an_input |
| test_jointsmethod::four_bar_linkage_with_manual_constraints | 2 configuration constraints | test_four_bar_linkage_comes_in_and_out |
| test_kane::aux | auxiliary speed, non-contributing force | test_auxiliary_speed_brings_the_contact_force_into_evidence, test_auxiliary_speed_at_a_point_moving_by_it_alone |
| test_kane2::aux_dep (the contact forces; its bicycle-style speeds: tests/models/test_interop_bicycle.py) | disc contact force | test_rolling_disc_contact_force_by_auxiliary_speeds |
| test_kane3 (Whipple bicycle) | more speeds than coordinates | tests/models/test_interop_bicycle.py |
"""
import random

import numpy as np
import pytest
import symengine
import sympy as sp
import sympy.physics.mechanics as me
from sympy.core.function import AppliedUndef

import geonh as g
from geonh.errors import AttributeAccessError, GeonhError, UnsupportedSetupError
from geonh.models.interop import (from_kanes_method, from_lagranges_method, kane_frame, to_pydy_system,
                                  to_sympy)
from test_interop_roundtrip import _agree   # the comparison with sympy's rhs() (50 digits)
from test_interop_roundtrip import _sleigh_states, sleigh_kane, sleigh_parts

t = me.dynamicsymbols._t
OUT_TOL = 1e-12          # the Must-show bound: exported equations vs sympy's, relative


# -- one evaluator: any expression (geonh's plain symbols, or sympy's dynamicsymbols) at values by name --
def _name(x) -> str:
    """A symbol's name; ``u`` for u(t); ``u_dot`` for u'(t) (geonh's name of a rate)."""
    if isinstance(x, sp.Derivative):
        return f"{_name(x.expr)}_dot"
    return x.name if isinstance(x, sp.Symbol) else x.func.__name__


def _plain(e) -> sp.Expr:
    """``e`` with every u(t) and u'(t) replaced by the plain symbol of its :func:`_name`."""
    e = sp.sympify(e)
    e = e.xreplace({d: sp.Symbol(_name(d)) for d in e.atoms(sp.Derivative)})
    return e.xreplace({f: sp.Symbol(_name(f)) for f in e.atoms(AppliedUndef) if f.args == (t,)})


def _value(expr, by_name: dict, digits=40):
    """``expr`` at values keyed by name, to ``digits`` digits (sympy)."""
    e = _plain(expr)
    return sp.N(e.xreplace({s: by_name[s.name] for s in e.free_symbols}), digits)


def _num_matrix(M, by_name, digits=30):
    return sp.Matrix(M.rows, M.cols, lambda i, j: _value(M[i, j], by_name, digits))


def _numeric(exprs):
    """A function {name: value} -> the expressions as a float array, in double precision
    (symengine compiles geonh's large kane-form expressions in seconds; sympy prints them for
    minutes)."""
    flat = [_plain(e) for e in exprs]
    syms = sorted({s.name for e in flat for s in e.free_symbols})
    by = {s.name: s for e in flat for s in e.free_symbols}
    f = symengine.Lambdify([by[n] for n in syms], flat, real=True)
    return lambda vals: np.asarray(f([float(vals[n]) for n in syms]), float).ravel()


def _rel(a, b) -> float:
    """The normwise relative difference max |a − b| / max |b| (max |a − b| when b = 0)."""
    a, b = np.asarray(a, float).ravel(), np.asarray(b, float).ravel()
    return float(np.max(np.abs(a - b)) / max(np.max(np.abs(b)), 1.0 if not np.any(b) else 0.0))


def _plain_state(state: dict, rates: dict | None = None) -> dict:
    """A sympy state {q(t), u(t), parameters} by name; rates {u(t): value} as ``<u>_dot``."""
    out = {_name(k): v for k, v in state.items()}
    out |= {f"{_name(k)}_dot": v for k, v in (rates or {}).items()}
    return out


def _sympy_rates(km, state):
    """u̇ of sympy's own equations (mass_matrix u̇ = forcing) at a consistent state, {u(t): value}:
    M and F evaluated at 40 digits, then solved; auxiliary speeds and their rates zero."""
    aux = {x.diff(t): 0 for x in km._uaux} | {x: 0 for x in km._uaux}
    M = km.mass_matrix.xreplace(km.kindiffdict()).xreplace(aux).xreplace(state).evalf(40)
    F = km.forcing.xreplace(km.kindiffdict()).xreplace(aux).xreplace(state).evalf(40)
    return dict(zip(km.u, M.LUsolve(F)))


def _geonh_unknowns(eqs, by_name: dict) -> list:
    """geonh's unknowns (u̇, then λ) at values keyed by name: M x = F at 40 digits, solved."""
    M = _num_matrix(eqs.mass_matrix, by_name, 40)
    F = _num_matrix(eqs.forcing, by_name, 40)
    return list(M.LUsolve(F))


def _close(a, b, tol=sp.Float("1e-14")):
    return abs(a - b) <= tol * (1 + abs(b))


def _solve_linear(f, n=3):
    """x with f(x) = 0 for f affine in x ∈ ℝⁿ (numpy)."""
    f0 = np.asarray(f(np.zeros(n)), float).ravel()
    J = np.array([np.asarray(f(e), float).ravel() - f0 for e in np.eye(n)]).T
    return np.linalg.solve(J, -f0)


# -- out: to_sympy / to_pydy_system, with the user's names ------------------------------------------
def _out(eqs, states: list, truths: list, *, names=None, pydy=True) -> float:
    """geonh's ``eqs`` out through :func:`to_sympy` (and :func:`to_pydy_system` when they carry no
    multipliers): the speeds are the dynamicsymbols ``names``; the exported M x = F, solved in
    double precision at each state (values by name), and pydy's generated right-hand side give
    ``truths`` (sympy's u̇ in the order of the speeds, then the multipliers) to OUT_TOL relative.
    Returns the worst relative difference."""
    se = to_sympy(eqs)
    if names is not None:
        assert list(se.u) == list(names)
    n = se.mass_matrix.rows
    M, F = _numeric(se.mass_matrix), _numeric(se.forcing)
    ode = sysm = None
    if pydy:
        sysm = to_pydy_system(eqs)
        ode = sysm.generate_ode_function(constants_arg_type="dictionary")
        assert [str(x) for x in sysm.speeds] == [str(x) for x in se.u]
    worst = 0.0
    for by_name, want in zip(states, truths):
        want = np.asarray([float(w) for w in want])
        x = np.linalg.solve(M(by_name).reshape(n, n), F(by_name))
        worst = max(worst, _rel(x[:len(want)], want))
        if ode is not None:
            y = np.array([float(by_name[_name(v)]) for v in list(se.q) + list(se.u)])
            rhs = ode(y, 0.0, {c: float(by_name[c.name]) for c in sysm.constants_symbols})
            worst = max(worst, _rel(rhs[len(se.q):], want[:len(se.u)]))
    assert worst <= OUT_TOL, worst
    return worst


def _out_linearization(eqs, point: dict, independent: list, embed: dict | None = None, inputs=()):
    """A and B of the exported equations (:func:`to_sympy`): ẋ = (K(q, u), u̇ of M x = F) with
    x = (q, u) differentiated at ``point`` (values by name) in double precision (symengine), then
    restricted to the ``independent`` state names through ``embed`` {dependent name: its
    expression in the independent names and the parameters}: A = J_ind,x · ∂x/∂x_ind, B = J_ind,inputs."""
    se = to_sympy(eqs)
    kd = se.kindiffdict()
    full = [_name(x) for x in list(se.q) + list(se.u)]
    nq, nu, n = len(se.q), len(se.u), se.mass_matrix.rows
    K = [_plain(kd[x.diff(t)]) for x in se.q]
    Mp, Fp = [_plain(e) for e in se.mass_matrix], [_plain(e) for e in se.forcing]
    names = sorted({s.name for e in K + Mp + Fp for s in e.free_symbols})
    args = [symengine.Symbol(nm) for nm in names]
    SE = [symengine.sympify(e) for e in K + Mp + Fp]
    wrt = [symengine.Symbol(nm) for nm in full + list(inputs)]
    f = symengine.Lambdify(args, SE + [e.diff(v) for v in wrt for e in SE], real=True)
    out = np.asarray(f([float(point[nm]) for nm in names]), float).ravel()
    vals, d = out[:len(SE)], out[len(SE):].reshape(len(wrt), len(SE))
    Mv, Fv = vals[nq:nq + n * n].reshape(n, n), vals[nq + n * n:]
    sol = np.linalg.solve(Mv, Fv)
    J = np.zeros((nq + nu, len(wrt)))
    for k in range(len(wrt)):
        J[:nq, k] = d[k, :nq]
        dM, dF = d[k, nq:nq + n * n].reshape(n, n), d[k, nq + n * n:]
        J[nq:, k] = np.linalg.solve(Mv, dF - dM @ sol)[:nu]
    E = np.zeros((len(full), len(independent)))
    for i, nm in enumerate(full):
        for j, ind in enumerate(independent):
            if nm == ind:
                E[i, j] = 1.0
            elif embed and nm in embed:
                ex = sp.sympify(embed[nm])
                E[i, j] = float(_value(sp.diff(ex, sp.Symbol(ind)), point, 30))
    rows = [full.index(nm) for nm in independent]
    return J[rows, :len(full)] @ E, J[rows, len(full):]


# -- the rolling disc with body-rate speeds (sympy's test_kane5.py) --------------------------------------
def disc_body_rates():
    """A disc of mass m and radius r rolling on the ground plane.  Lean/heading by a body-fixed
    z-x rotation (q1, q2) into an intermediate frame, spin q3 about its y axis; the contact point
    at (q4, q5).  Speeds: the disc's angular velocity in its own axes (u1, u2, u3) and the contact
    point's velocity (u4, u5), dependent through rolling without slip.  The mass centre's velocity
    is stated as ω × (centre − contact): the rolling constraint built into the velocities, as
    sympy's test does."""
    q1, q2, q3, q4, q5 = me.dynamicsymbols("q1:6")
    u1, u2, u3, u4, u5 = me.dynamicsymbols("u1:6")
    grav, r, m = sp.symbols("g r m")
    N = me.ReferenceFrame("N")
    A = me.ReferenceFrame("A")
    A.orient_body_fixed(N, (q1, q2, 0), "zxy")
    D = me.ReferenceFrame("D")
    D.orient_axis(A, A.y, q3)
    w_orient = D.ang_vel_in(N)
    D.set_ang_vel(N, u1 * D.x + u2 * D.y + u3 * D.z)
    O = me.Point("O")
    O.set_vel(N, 0)
    cp = O.locatenew("cp", q4 * N.x + q5 * N.y)
    cp.set_vel(N, u4 * N.x + u5 * N.y)
    G = cp.locatenew("G", r * A.z)
    G.set_vel(D, 0)
    G.set_vel(N, D.ang_vel_in(N).cross(G.pos_from(cp)))
    disc = me.RigidBody("disc", G, D, m, (m * r**2 / 4 * me.inertia(D, 1, 2, 1), G))
    kdes = [w_orient.dot(D.x) - u1, w_orient.dot(D.y) - u2, w_orient.dot(D.z) - u3,
            q4.diff(t) - u4, q5.diff(t) - u5]
    slip = cp.vel(N) + D.ang_vel_in(A).cross(cp.pos_from(G))
    fnh = [slip.dot(N.x), slip.dot(N.y)]
    loads = [(G, -m * grav * N.z)]
    km = me.KanesMethod(N, [q1, q2, q3, q4, q5], [u1, u2, u3], kdes, u_dependent=[u4, u5],
                        velocity_constraints=fnh, bodies=[disc], forcelist=loads,
                        explicit_kinematics=False, constraint_solver="LU")
    km.kanes_equations()
    return km, (grav, r, m), fnh


def _disc_states(km, params, fnh, n=3, seed=3):
    grav, r, m = params
    rng = random.Random(seed)
    kd = km.kindiffdict()
    fnh = [e.xreplace(kd) for e in fnh]
    out = []
    for _ in range(n):
        st = {x: sp.Rational(rng.randint(-9, 9), 7) for x in km.q} | {x: sp.Rational(rng.randint(-9, 9), 5)
                                                                       for x in km.u[:3]}
        st |= {grav: sp.Rational(981, 100), r: sp.Rational(rng.randint(2, 9), 10), m: sp.Rational(rng.randint(2, 9), 3)}
        st |= sp.solve([e.xreplace(st) for e in fnh], km.u[3:])
        out.append(st)
    return out


@pytest.mark.slow
def test_rolling_disc_body_rates_comes_in():
    """On main: refused (the centre's velocity is no time derivative of a position).  It differs
    from the true one by a combination of the rolling constraints, so the constrained partial
    velocities, hence Kane's equations, are those of the true velocities: it comes in, with
    sympy's accelerations."""
    km, params, fnh = disc_body_rates()
    grav, r, m = params
    ms = from_kanes_method(km, conditions=[m > 0, r > 0])
    assert [s.name for s in ms.space.q] == ["q1", "q2", "q3", "q4", "q5"] and ms.n_constraints == 2
    states = _disc_states(km, params, fnh)
    _agree(km, ms, states)
    # Kane's form in the body rates, and out again by their names (its numbers: the other tests;
    # evaluating this form's 10⁴-operation mass matrix by sympy at 40 digits takes minutes)
    eqs = g.kane(ms, kane_frame(km, ms))
    assert [s.name for s in eqs.u] == ["u1", "u2", "u3"] and list(to_sympy(eqs).u) == list(km.u[:3])
    # out (to_sympy, pydy) in double precision: sympy's u̇1, u̇2, u̇3
    truths = [[_sympy_rates(km, st)[x] for x in km.u[:3]] for st in states]
    print("OUT disc body rates: u̇ rel", _out(eqs, [_plain_state(st) for st in states], truths, names=km.u[:3]))


# -- Kane's vocabulary: the user's speeds, F_r, F*_r and auxiliary speeds -------------------------------
def test_kane_frame_keeps_the_users_speeds_and_forces():
    """The sleigh as a KanesMethod (u1 = ẋ, u3 = θ̇ independent, u2 = ẏ dependent): geonh's kane
    form in kane_frame is in u1, u3 by name (to_sympy and pydy too), with sympy's accelerations,
    sympy's F_r and F*_r at random rates (u̇2 from the acceleration constraint)."""
    km = sleigh_kane()
    ms = from_kanes_method(km)
    eqs = g.kane(ms, kane_frame(km, ms))
    assert [s.name for s in eqs.u] == ["u1", "u3"]
    se = to_sympy(eqs)
    u1, u3, u2 = km.u
    assert list(se.u) == [u1, u3] and list(se.unknowns) == [u1.diff(t), u3.diff(t)]
    assert [str(x) for x in to_pydy_system(eqs).coordinates + to_pydy_system(eqs).speeds] == \
        ["x(t)", "y(t)", "theta(t)", "u1(t)", "u3(t)"]
    fr, frstar = km.kanes_equations()
    rng = random.Random(11)
    states = _sleigh_states(km, n=3)
    truths = [[_sympy_rates(km, st)[x] for x in (u1, u3)] for st in states]
    print("OUT sleigh: u̇ rel", _out(eqs, [_plain_state(st) for st in states], truths, names=[u1, u3]))
    out_fr, out_frstar = _numeric(se.fr), _numeric(se.frstar)
    for st in states:
        rates = _sympy_rates(km, st)
        by_name = _plain_state(st, rates)
        for a, x in zip(_geonh_unknowns(eqs, by_name), (u1, u3)):
            assert _close(a, rates[x])
        # F_r, F*_r at arbitrary rates of the independent speeds (u̇2 from k_dnh u̇ + f_dnh = 0)
        free = {u1.diff(t): sp.Rational(rng.randint(-9, 9), 4), u3.diff(t): sp.Rational(rng.randint(-9, 9), 4)}
        acc_con = (km._k_dnh * km.u.diff(t) + km._f_dnh).xreplace(free).xreplace(km.kindiffdict())
        d2 = sp.Dummy("u2_dot")
        free[u2.diff(t)] = sp.solve(acc_con.xreplace({u2.diff(t): d2}).xreplace(st)[0], d2)[0]
        by_name = _plain_state(st, {k.expr: v for k, v in free.items()})
        want_fr = [sp.N(fr[r].xreplace(st), 40) for r in range(2)]
        want_frstar = [sp.N(frstar[r].xreplace(km.kindiffdict()).xreplace(free).xreplace(st), 40) for r in range(2)]
        for r in range(2):
            assert _close(_value(eqs.fr[r], by_name), want_fr[r])
            assert _close(_value(eqs.frstar[r], by_name), want_frstar[r])
        assert _rel(out_fr(by_name), want_fr) <= OUT_TOL and _rel(out_frstar(by_name), want_frstar) <= OUT_TOL


def test_auxiliary_speed_brings_the_contact_force_into_evidence():
    """sympy's u_auxiliary: an auxiliary speed ua along the blade's normal B.y at P and the
    unknown lateral force R B.y there; sympy's auxiliary equation solved for R on the motion
    equals geonh's auxiliary_eqs (the constraint field of kane_frame, named ua) solved for R."""
    p = sleigh_parts()
    u1, u2, u3 = p["u"]
    ua = me.dynamicsymbols("ua")
    R = sp.Symbol("R")
    N, B, P, G = p["N"], p["B"], p["P"], p["G"]
    P.set_vel(N, u1 * N.x + u2 * N.y + ua * B.y)
    G.v2pt_theory(P, N, B)
    loads = p["loads"] + [me.Force(P, R * B.y)]
    km = me.KanesMethod(N, q_ind=list(p["q"]), u_ind=[u1, u3], u_dependent=[u2], kd_eqs=p["kdes"],
                        velocity_constraints=[P.vel(N).dot(B.y).xreplace({ua: 0})], u_auxiliary=[ua],
                        bodies=[p["body"]], forcelist=loads)
    km.kanes_equations()
    ms = from_kanes_method(km)
    frame = kane_frame(km, ms)
    assert frame.names == ("u1", "u3", "ua")
    eqs = g.kane(ms, frame)
    assert eqs.auxiliary_eqs.shape == (1, 1) and all(R not in e.free_symbols for e in eqs.fr)
    out_aux = _numeric(to_sympy(eqs).auxiliary_eqs)
    for st in _sleigh_states(km, n=3):
        rates = _sympy_rates(km, st)
        R_sympy = sp.solve(km.auxiliary_eqs[0].xreplace({k.diff(t): v for k, v in rates.items()}).xreplace(st), R)[0]
        by_name = _plain_state(st, {u1: rates[u1], u3: rates[u3]}) | {"R": sp.Symbol("R")}
        by_name |= dict(zip(("u1_dot", "u3_dot"), _geonh_unknowns(eqs, by_name)))
        aux = eqs.auxiliary_eqs[0]
        Rg = [s for s in aux.free_symbols if s.name == "R"][0]
        by_name["R"] = Rg
        R_geonh = sp.solve(_value(aux, by_name), Rg)[0]
        assert _close(R_geonh, R_sympy), (R_geonh, R_sympy)
        R_out = _solve_linear(lambda x: out_aux(by_name | {"R": x[0]}), 1)     # out: to_sympy's auxiliary_eqs
        assert _rel(R_out, [R_sympy]) <= OUT_TOL, (R_out, R_sympy)


def _sleigh_blade_moving_by_ua(constraint_carries_ua: bool):
    """The sleigh with a contact point ``blade`` at P whose velocity is the auxiliary speed alone,
    ua B.y, and the unknown lateral force R B.y there; the velocity constraint either written
    with it, (velocity of P) · B.y − ua = 0 (sympy's test_aux_dep way), or without it."""
    p = sleigh_parts()
    u1, u2, u3 = p["u"]
    ua = me.dynamicsymbols("ua")
    R = sp.Symbol("R")
    N, B, P = p["N"], p["B"], p["P"]
    blade = P.locatenew("blade", 0 * B.x)
    blade.set_vel(N, ua * B.y)
    con = p["con"] - ua if constraint_carries_ua else p["con"]
    km = me.KanesMethod(N, q_ind=list(p["q"]), u_ind=[u1, u3], u_dependent=[u2], kd_eqs=p["kdes"],
                        velocity_constraints=[con], u_auxiliary=[ua], bodies=[p["body"]],
                        forcelist=p["loads"] + [me.Force(blade, R * B.y)])
    km.kanes_equations()
    return km


def test_auxiliary_speed_at_a_point_moving_by_it_alone():
    """A force at a point whose stated velocity is auxiliary speeds only enters the auxiliary
    equations as in sympy's KanesMethod (on main it dropped out of them: R could not be
    solved for).  The velocity constraint gives the auxiliary speed its value off the motion,
    ua = (velocity of P) · B.y, so along the constraint field the point moves by B.y, sympy's
    partial velocity.  R from geonh's and from to_sympy's auxiliary_eqs equals sympy's.  Written
    without ua in the constraint, the force would vanish from every equation: refused."""
    km = _sleigh_blade_moving_by_ua(True)
    u1, u3 = km.u[0], km.u[1]
    ms = from_kanes_method(km)
    eqs = g.kane(ms, kane_frame(km, ms))
    assert [s.name for s in eqs.u] == ["u1", "u3"] and kane_frame(km, ms).names == ("u1", "u3", "ua")
    fs = [_numeric(eqs.auxiliary_eqs), _numeric(to_sympy(eqs).auxiliary_eqs)]
    for st in _sleigh_states(km, n=3):
        rates = _sympy_rates(km, st)
        R = [s for s in km.auxiliary_eqs[0].free_symbols if s.name == "R"][0]
        aux = {km._uaux[0].diff(t): 0, km._uaux[0]: 0}
        R_sympy = sp.solve(km.auxiliary_eqs[0].xreplace({k.diff(t): v for k, v in rates.items()}).xreplace(aux)
                           .xreplace(st), R)[0]
        by_name = _plain_state(st, rates)
        for R_any in (0, 7):         # R is non-contributing: the motion does not depend on it
            assert _rel(_geonh_unknowns(eqs, by_name | {"R": R_any}), [rates[u1], rates[u3]]) <= 1e-30
        for f in fs:
            R_geonh = _solve_linear(lambda x: f(by_name | {"R": x[0]}), 1)
            assert _rel(R_geonh, [R_sympy]) <= OUT_TOL, (R_geonh, R_sympy)
    with pytest.raises(UnsupportedSetupError, match="auxiliary speeds .* only"):
        from_kanes_method(_sleigh_blade_moving_by_ua(False))


def test_exported_kindiffdict_is_the_kinematics_as_exported():
    """SympyEquations.kindiffdict() reads q' = K off the exported kdes q' − K without a solve: K
    exactly as exported (on main ``sp.solve`` simplified it — sin/cos became tan here, and on the
    rolling disc's Kane form of test_linearize it took 300 s CPU)."""
    km = sleigh_kane()
    ms = from_kanes_method(km)
    for eqs in (g.kane(ms, kane_frame(km, ms)), g.lagrange(ms)):
        se = to_sympy(eqs)
        kd = se.kindiffdict()
        assert [kd[x.diff(t)] for x in se.q] == [x.diff(t) - k for x, k in zip(se.q, se.kdes)]
        if eqs.form == "kane":       # ẏ = u1 sin θ / cos θ
            assert kd[se.q[1].diff(t)].has(sp.sin) and not kd[se.q[1].diff(t)].has(sp.tan)


def test_kane_vocabulary_only_on_the_kane_form():
    km = sleigh_kane()
    ms = from_kanes_method(km)
    eqs = g.lagrange(ms)
    for name in ("fr", "frstar", "auxiliary_eqs"):
        with pytest.raises(AttributeAccessError, match="kane form"):
            getattr(eqs, name)
        assert not hasattr(eqs, name)
    lam = me.LagrangesMethod(sp.Symbol("m") * me.dynamicsymbols("x").diff() ** 2 / 2, [me.dynamicsymbols("x")])
    with pytest.raises(UnsupportedSetupError, match="no speeds"):
        kane_frame(lam, ms)
    other = from_kanes_method(disc_body_rates()[0], conditions=[sp.Symbol("m") > 0, sp.Symbol("r") > 0])
    with pytest.raises(GeonhError, match="coordinates"):
        kane_frame(km, other)
    with pytest.raises(GeonhError, match="MechanicalSystem"):
        kane_frame(km, "sleigh")


# -- linearizations (sympy's test_linearize.py, test_kane.py) ----------------------------------------


def _max_rel(A, B):
    """max |A − B| / (1 + max |B|) over the entries."""
    scale = 1 + max((abs(b) for b in B), default=0)
    return max((abs(a - b) for a, b in zip(A, B)), default=0) / scale


def nonminimal_pendulum():
    """A particle on a massless rod of length L in the plane, in its Cartesian coordinates
    (q1 along gravity, q2 across it): the length as a configuration constraint, q1 and u1
    dependent, the radial velocity zero as the velocity constraint."""
    q1, q2 = me.dynamicsymbols("q1:3")
    u1, u2 = me.dynamicsymbols("u1:3")
    L, m, grav = sp.symbols("L m g")
    N = me.ReferenceFrame("N")
    O = me.Point("O")
    O.set_vel(N, 0)
    rod = N.orientnew("rod", "Axis", [sp.atan(q2 / q1), N.z])
    P = O.locatenew("P", q1 * N.x + q2 * N.y)
    P.set_vel(N, u1 * N.x + u2 * N.y)
    bob = me.Particle("bob", P, m)
    fc = [P.pos_from(O).magnitude() - L]
    fv = [sp.simplify(P.vel(N).express(rod).dot(rod.x))]
    fa = [sp.simplify(fv[0].diff(t))]
    km = me.KanesMethod(N, q_ind=[q2], u_ind=[u2], q_dependent=[q1], u_dependent=[u1],
                        configuration_constraints=fc, velocity_constraints=fv, acceleration_constraints=fa,
                        kd_eqs=[q1.diff(t) - u1, q2.diff(t) - u2])
    km.kanes_equations([bob], [(P, m * grav * N.x)])
    return km, (L, m, grav)


@pytest.mark.slow
def test_nonminimal_pendulum_linearization():
    """sympy's test_linearize_pendulum_kane_nonminimal: A about the hanging equilibrium, through
    Lagrange's form (state q2, q̇2) and Kane's form in the user's speed (state q2, u2)."""
    km, (L, m, grav) = nonminimal_pendulum()
    q1, q2 = km.q[1], km.q[0]
    u2, u1 = km.u
    ms = from_kanes_method(km, conditions=[L > 0, m > 0])
    assert len(ms.holonomic) == 1 and ms.n_constraints == 1
    lag_eqs, kane_eqs = g.lagrange(ms), g.kane(ms, kane_frame(km, ms))
    Lp, Q2, Q2d = sp.symbols("L q2 q2_dot")
    q1_on = sp.sqrt(Lp**2 - Q2**2)             # the hanging branch of the length constraint
    rng = random.Random(4)
    for _ in range(2):
        pars = {L: sp.Rational(rng.randint(2, 9), 3), m: sp.Rational(rng.randint(1, 9), 2), grav: sp.Rational(981, 100)}
        op = [{q1: pars[L], q2: 0}, {u1: 0, u2: 0}, {u1.diff(t): 0, u2.diff(t): 0}]
        A_sympy = km.linearize(op_point=op, A_and_B=True)[0].xreplace(pars).xreplace(op[0])
        point = {"q1": pars[L], "q2": 0, "L": pars[L], "m": pars[m], "g": pars[grav]}
        lag = g.lagrange(ms).linearize(point | {"q1_dot": 0, "q2_dot": 0}, dependent=["q1"], symbolic=True)
        kan = g.kane(ms, kane_frame(km, ms)).linearize(point | {"u2": 0}, dependent=["q1"], symbolic=True)
        assert [s.name for s in lag.state] == ["q2", "q2_dot"] and [s.name for s in kan.state] == ["q2", "u2"]
        for lin in (lag, kan):
            assert sp.simplify(lin.A - A_sympy) == sp.zeros(2, 2)
            num = g.lagrange(ms).linearize(point | {"q1_dot": 0, "q2_dot": 0}, dependent=["q1"])
            assert _max_rel(num.A, A_sympy.evalf()) < 1e-12
        # out: the exported Lagrange (with its multiplier) and Kane (speed u2) forms, linearized on the circle
        A_lag = _out_linearization(lag_eqs, point | {"q1_dot": 0, "q2_dot": 0}, ["q2", "q2_dot"],
                                   {"q1": q1_on, "q1_dot": -Q2 * Q2d / q1_on})[0]
        A_kan = _out_linearization(kane_eqs, point | {"u2": 0}, ["q2", "u2"], {"q1": q1_on})[0]
        print("OUT nonminimal pendulum Kane: A rel", _rel(A_lag, A_sympy), _rel(A_kan, A_sympy))
        assert _rel(A_lag, A_sympy) <= OUT_TOL and _rel(A_kan, A_sympy) <= OUT_TOL
    # out off the equilibrium: sympy's u̇2 at random states on the circle, from to_sympy and pydy
    states = []
    for _ in range(3):
        th, w = sp.Rational(rng.randint(-9, 9), 7), sp.Rational(rng.randint(-9, 9), 5)
        st = pars | {q1: pars[L] * sp.cos(th), q2: pars[L] * sp.sin(th), u2: w, u1: -sp.tan(th) * w}
        states.append(st)
    truths = [[_sympy_rates(km, st)[u2]] for st in states]
    print("OUT nonminimal pendulum Kane: u̇ rel", _out(kane_eqs, [_plain_state(st) for st in states], truths,
                                                      names=[u2]))


def pendulum_on_cart():
    """sympy's 2-dof inverted pendulum on a cart (test_kane.py, test_parallel_axis): a cart (q1)
    on a spring with a force F(t), a rigid pendulum (q2) with its inertia given about the hinge."""
    q1, q2 = me.dynamicsymbols("q1 q2")
    u1, u2 = me.dynamicsymbols("u1 u2")
    F = me.dynamicsymbols("F")
    grav, k, ls, a, mA, mC, Ix, Iy, Iz = sp.symbols("g k ls a mA mC Ix Iy Iz")
    N = me.ReferenceFrame("N")
    A = N.orientnew("A", "Axis", [-q2, N.z])
    A.set_ang_vel(N, -u2 * N.z)
    O = me.Point("O")
    O.set_vel(N, 0)
    C = O.locatenew("C", q1 * N.x)
    C.set_vel(N, u1 * N.x)
    Ao = C.locatenew("Ao", a * A.y)
    Ao.v2pt_theory(C, N, A)
    cart = me.Particle("cart", C, mC)
    pend = me.RigidBody("pend", Ao, A, mA, (me.inertia(A, Ix, Iy, Iz), C))
    loads = [(Ao, -N.y * grav * mA), (C, -N.y * grav * mC), (C, -N.x * k * (q1 - ls)), (C, N.x * F)]
    km = me.KanesMethod(N, [q1, q2], [u1, u2], [q1.diff(t) - u1, q2.diff(t) - u2], bodies=[cart, pend],
                        forcelist=loads)
    km.kanes_equations()
    return km, (grav, k, ls, a, mA, mC, Ix, Iy, Iz), F


@pytest.mark.slow
def test_pendulum_on_cart_linearization_with_an_input():
    """A and B (input F) about the upright equilibrium q1 = ls, q2 = 0 agree with sympy's
    KanesMethod.linearize, symbolically and in double precision."""
    km, pars, F = pendulum_on_cart()
    grav, k, ls, a, mA, mC, Ix, Iy, Iz = pars
    ms = from_kanes_method(km, conditions=[mA > 0, mC > 0, Iz - mA * a**2 > 0])
    q1, q2 = km.q
    u1, u2 = km.u
    rng = random.Random(8)
    vals = {s: sp.Rational(rng.randint(1, 9), rng.randint(1, 4)) for s in pars}
    vals[Iz] = vals[mA] * vals[a] ** 2 + 1        # inertia about the hinge exceeds m a²
    op = [{q1: vals[ls], q2: 0}, {u1: 0, u2: 0}, {F: 0}]
    A_s, B_s, r = km.linearize(op_point=op, A_and_B=True)
    assert list(r) == [F]
    A_s, B_s = A_s.xreplace(vals).xreplace(op[0]), B_s.xreplace(vals).xreplace(op[0])
    eqs = g.kane(ms, kane_frame(km, ms))
    point = {s.name: v for s, v in vals.items() if s not in (Ix, Iy)} | {"q1": vals[ls], "q2": 0, "u1": 0, "u2": 0, "F": 0}
    lin = eqs.linearize(point, inputs=["F"], symbolic=True)
    assert [s.name for s in lin.state] == ["q1", "q2", "u1", "u2"]
    assert sp.simplify(lin.A - A_s) == sp.zeros(4, 4) and sp.simplify(lin.B - B_s) == sp.zeros(4, 1)
    num = eqs.linearize(point, inputs=["F"])
    assert _max_rel(num.A, A_s.evalf()) < 1e-12 and _max_rel(num.B, B_s.evalf()) < 1e-12
    # out: A and B of the exported equations (input F a constant of pydy's), u̇ at random states
    A_o, B_o = _out_linearization(eqs, point, ["q1", "q2", "u1", "u2"], inputs=["F"])
    print("OUT pendulum on cart: A, B rel", _rel(A_o, A_s), _rel(B_o, B_s))
    assert _rel(A_o, A_s) <= OUT_TOL and _rel(B_o, B_s) <= OUT_TOL
    states = [vals | {q1: sp.Rational(rng.randint(-9, 9), 7), q2: sp.Rational(rng.randint(-9, 9), 7),
                      u1: sp.Rational(rng.randint(-9, 9), 5), u2: sp.Rational(rng.randint(-9, 9), 5),
                      F: sp.Rational(rng.randint(-9, 9), 2)} for _ in range(3)]
    truths = [[_sympy_rates(km, st)[x] for x in (u1, u2)] for st in states]
    print("OUT pendulum on cart: u̇ rel", _out(eqs, [_plain_state(st) for st in states], truths, names=[u1, u2]))


# -- the four-bar linkage (sympy's test_jointsmethod.py, with manual constraints) ---------------------
def four_bar():
    """Links of lengths l1 (ground, fixed in N), l2, l3, l4 pinned in a loop; density ρ.  The
    relative angles q1, q2, q3 with speeds u_i = q̇_i; q2, q3 and u2, u3 dependent through the
    loop closure (two configuration constraints) and its time derivative.  Gravity −g N.y."""
    q1, q2, q3 = me.dynamicsymbols("q1:4")
    u1, u2, u3 = me.dynamicsymbols("u1:4")
    l1, l2, l3, l4, rho, grav = sp.symbols("l1:5 rho g")
    N = me.ReferenceFrame("N")
    B2 = N.orientnew("B2", "Axis", [q1, N.z])
    B3 = B2.orientnew("B3", "Axis", [q2, B2.z])
    B4 = B3.orientnew("B4", "Axis", [q3, B3.z])
    B2.set_ang_vel(N, u1 * N.z)
    B3.set_ang_vel(B2, u2 * B2.z)
    B4.set_ang_vel(B3, u3 * B3.z)
    O = me.Point("O")                 # the ground link's centre
    O.set_vel(N, 0)
    J1 = O.locatenew("J1", l1 / 2 * N.x)
    J1.set_vel(N, 0)
    G2 = J1.locatenew("G2", l2 / 2 * B2.x)
    J2 = J1.locatenew("J2", l2 * B2.x)
    G3 = J2.locatenew("G3", l3 / 2 * B3.x)
    J3 = J2.locatenew("J3", l3 * B3.x)
    G4 = J3.locatenew("G4", l4 / 2 * B4.x)
    bodies = []
    for G, B, ln, name in ((G2, B2, l2, "link2"), (G3, B3, l3, "link3"), (G4, B4, l4, "link4")):
        G.set_vel(N, G.pos_from(O).dt(N))
        bodies.append(me.RigidBody(name, G, B, rho * ln, (me.inertia(B, 0, 0, rho * ln**3 / 12), G)))
    loop = J3.pos_from(O) + l4 * B4.x + l1 / 2 * N.x
    fh = [loop.dot(N.x), loop.dot(N.y)]
    kd = {q.diff(t): u for q, u in zip((q1, q2, q3), (u1, u2, u3))}
    fhd = [sp.diff(f, t).xreplace(kd) for f in fh]
    loads = [(G, -rho * ln * grav * N.y) for G, ln in ((G2, l2), (G3, l3), (G4, l4))]
    km = me.KanesMethod(N, q_ind=[q1], u_ind=[u1], q_dependent=[q2, q3], u_dependent=[u2, u3],
                        kd_eqs=[q1.diff(t) - u1, q2.diff(t) - u2, q3.diff(t) - u3], configuration_constraints=fh,
                        velocity_constraints=fhd, bodies=bodies, forcelist=loads)
    km.kanes_equations()
    return km, (l1, l2, l3, l4, rho, grav), fh, fhd


def _four_bar_states(km, pars, fh, fhd, n=2, seed=2):
    l1, l2, l3, l4, rho, grav = pars
    q1, q2, q3 = km.q
    u1, u2, u3 = km.u
    rng = random.Random(seed)
    out = []
    while len(out) < n:
        st = {l1: sp.Rational(13, 100), l2: sp.Rational(24, 100), l3: sp.Rational(21, 100), l4: sp.Rational(34, 100),
              rho: 997, grav: sp.Rational(981, 100), q1: sp.Rational(rng.randint(15, 25), 10)}
        try:
            with sp.evaluate(True):
                sol = sp.nsolve([f.xreplace(st) for f in fh], [q2, q3], [0.67, 2.53], prec=50)
        except (ValueError, ZeroDivisionError):
            continue
        st |= {q2: sol[0], q3: sol[1], u1: sp.Rational(rng.randint(-9, 9), 10)}
        st |= sp.solve([f.xreplace(st) for f in fhd], [u2, u3])
        out.append(st)
    return out


@pytest.mark.slow
def test_four_bar_linkage_comes_in_and_out():
    """Two configuration constraints, one degree of freedom: sympy's accelerations through
    Lagrange's form and, in the user's speed u1, through Kane's form (F_r too); out again with
    the user's names."""
    km, pars, fh, fhd = four_bar()
    l1, l2, l3, l4, rho, grav = pars
    ms = from_kanes_method(km, conditions=[s > 0 for s in pars])
    assert len(ms.holonomic) == 2 and ms.n_constraints == 2
    states = _four_bar_states(km, pars, fh, fhd)
    lag = g.lagrange(ms)
    eqs = g.kane(ms, kane_frame(km, ms))
    se = to_sympy(eqs)
    assert list(se.u) == [km.u[0]] and [str(x) for x in se.q] == ["q1(t)", "q2(t)", "q3(t)"]
    fr, _ = km.kanes_equations()
    out_fr = _numeric(se.fr)
    truths = [[_sympy_rates(km, st)[u] for u in km.u] for st in states]
    qd_of = [{f"{x.func.__name__}_dot": st[u] for x, u in zip(km.q, km.u)} for st in states]
    print("OUT four-bar Kane: u̇ rel", _out(eqs, [_plain_state(st) for st in states], [w[:1] for w in truths],
                                           names=[km.u[0]]))
    print("OUT four-bar Lagrange: q̈ rel", _out(lag, [_plain_state(st) | qd for st, qd in zip(states, qd_of)], truths,
                                               pydy=False))
    for st in states:
        assert _rel(out_fr(_plain_state(st)), [sp.N(fr[0].xreplace(st), 40)]) <= OUT_TOL
        rates = _sympy_rates(km, st)
        by_name = _plain_state(st, rates)
        qd = {f"{x.func.__name__}_dot": st[u] for x, u in zip(km.q, km.u)}     # q̇ = u here
        qdd = _geonh_unknowns(lag, by_name | qd)[:3]
        assert all(_close(a, rates[u]) for a, u in zip(qdd, km.u))             # q̈ = u̇
        assert _close(_geonh_unknowns(eqs, by_name)[0], rates[km.u[0]])
        assert _close(_value(eqs.fr[0], by_name), sp.N(fr[0].xreplace(st), 40))


def test_nonminimal_pendulum_lagranges_method_linearization():
    """sympy's test_linearize_pendulum_lagrange_nonminimal: a LagrangesMethod with the length as
    hol_coneqs; its linearized A (multipliers at the operating point solved by sympy) equals
    geonh's, symbolically and in double precision; off equilibrium, the accelerations and the
    constraint force (the multiplier of the length constraint) equal those of sympy's rhs()."""
    from geonh.models.interop import from_lagranges_method
    q1, q2 = me.dynamicsymbols("q1:3")
    q1d, q2d = q1.diff(t), q2.diff(t)
    L, m, grav = sp.symbols("L m g")
    N = me.ReferenceFrame("N")
    O = me.Point("O")
    O.set_vel(N, 0)
    P = O.locatenew("P", q1 * N.x + q2 * N.y)
    P.set_vel(N, P.pos_from(O).dt(N))
    lm = me.LagrangesMethod(me.Lagrangian(N, me.Particle("bob", P, m)), [q1, q2], hol_coneqs=[q1**2 + q2**2 - L**2],
                            forcelist=[(P, m * grav * N.x)], frame=N)
    lm.form_lagranges_equations()
    ms = from_lagranges_method(lm, conditions=[L > 0, m > 0])
    assert len(ms.holonomic) == 1
    rng = random.Random(6)
    pars = {L: sp.Rational(rng.randint(2, 9), 3), m: sp.Rational(rng.randint(1, 9), 2), grav: sp.Rational(981, 100)}
    op = {q1: pars[L], q2: 0, q1d: 0, q2d: 0, q1d.diff(t): 0, q2d.diff(t): 0}
    lam = lm.solve_multipliers(op_point=op)
    A_s = lm.linearize([q2], [q2d], [q1], [q1d], op_point=op | lam, A_and_B=True)[0].xreplace(pars)
    point = {"q1": pars[L], "q2": 0, "q1_dot": 0, "q2_dot": 0, "L": pars[L], "m": pars[m], "g": pars[grav]}
    lin = g.lagrange(ms).linearize(point, dependent=["q1"], symbolic=True)
    assert [s.name for s in lin.state] == ["q2", "q2_dot"]
    assert sp.simplify(lin.A - A_s) == sp.zeros(2, 2)
    assert _max_rel(g.lagrange(ms).linearize(point, dependent=["q1"]).A, A_s.evalf()) < 1e-12
    Lp, Q2, Q2d = sp.symbols("L q2 q2_dot")
    q1_on = sp.sqrt(Lp**2 - Q2**2)
    A_out = _out_linearization(g.lagrange(ms), point, ["q2", "q2_dot"], {"q1": q1_on, "q1_dot": -Q2 * Q2d / q1_on})[0]
    print("OUT nonminimal pendulum LagrangesMethod: A rel", _rel(A_out, A_s))
    assert _rel(A_out, A_s) <= OUT_TOL
    rhs = lm.rhs()
    states, wants = [], []
    for _ in range(3):
        th, w = sp.Rational(rng.randint(-9, 9), 7), sp.Rational(rng.randint(-9, 9), 5)
        st = pars | {q1: pars[L] * sp.cos(th), q2: pars[L] * sp.sin(th), q1d: -pars[L] * w * sp.sin(th),
                     q2d: pars[L] * w * sp.cos(th)}
        want = list(rhs.xreplace(st).evalf(40))[2:]                      # q̈1, q̈2, λ
        by_name = _plain_state(st) | {"q1_dot": st[q1d], "q2_dot": st[q2d]}
        got = _geonh_unknowns(g.lagrange(ms), by_name)
        assert len(got) == 3 and all(_close(a, b) for a, b in zip(got, want)), (got, want)
        states.append(by_name)
        wants.append(want)
    # out: to_sympy's M x = F gives sympy's q̈ and the constraint force λ (pydy takes no multipliers)
    unknowns = list(to_sympy(g.lagrange(ms)).unknowns)
    assert unknowns[:2] == [sp.Function(f"q{i}_dot")(t).diff(t) for i in (1, 2)] and len(unknowns) == 3
    print("OUT nonminimal pendulum LagrangesMethod: q̈, λ rel", _out(g.lagrange(ms), states, wants, pydy=False))


# -- sympy's test_linearize.py rolling discs ------------------------------------------------------------
def disc_linearize_kane():
    """sympy's test_linearize_rolling_disc_kane: yaw, lean, spin (q1, q2, q3) and the centre at
    (q4, q5, q6); speeds: the disc's angular velocity in the lean frame (u1, u2, u3) and the
    centre's velocity in the disc's own axes (u4, u5, u6), dependent through rolling; the height
    q6 dependent through the contact."""
    r, m, grav = sp.symbols("r m g")
    q1, q2, q3, q4, q5, q6 = q = me.dynamicsymbols("q1:7")
    u1, u2, u3, u4, u5, u6 = me.dynamicsymbols("u1:7")
    N = me.ReferenceFrame("N")
    NO = me.Point("NO")
    A = N.orientnew("A", "Axis", [q1, N.z])
    B = A.orientnew("B", "Axis", [q2, A.x])
    C = B.orientnew("C", "Axis", [q3, B.y])
    CO = NO.locatenew("CO", q4 * N.x + q5 * N.y + q6 * N.z)
    w_c_n_qd = C.ang_vel_in(N)
    C.set_ang_vel(N, u1 * B.x + u2 * B.y + u3 * B.z)
    v_co_n_qd = CO.pos_from(NO).dt(N)
    CO.set_vel(N, u4 * C.x + u5 * C.y + u6 * C.z)
    P = CO.locatenew("P", r * B.z)
    P.v2pt_theory(CO, N, C)
    f_c = [q6 - me.dot(CO.pos_from(P), N.z)]
    f_v = [me.dot(P.vel(N), uv) for uv in C]
    kdes = [me.dot(w_c_n_qd - C.ang_vel_in(N), uv) for uv in B] + [me.dot(v_co_n_qd - CO.vel(N), uv) for uv in N]
    disc = me.RigidBody("Disc", CO, C, m, (me.inertia(C, m * r**2 / 4, m * r**2 / 2, m * r**2 / 4), CO))
    km = me.KanesMethod(N, [q1, q2, q3, q4, q5], [u1, u2, u3], kd_eqs=kdes, q_dependent=[q6],
                        configuration_constraints=f_c, u_dependent=[u4, u5, u6], velocity_constraints=f_v)
    km.kanes_equations([disc], [(CO, m * grav * A.z)])
    return km, (r, m, grav)


def _disc_A_sympy(q1, q3d):
    """sympy's A of test_linearize_rolling_disc_kane at upright rolling (q1̇ = 0, q2 = 0,
    m = r = g = 1), state (q1 … q5, u1, u2, u3), as that test asserts it."""
    s, c = sp.sin(q1), sp.cos(q1)
    return sp.Matrix([[0, 0, 0, 0, 0, 0, 0, 1], [0, 0, 0, 0, 0, 1, 0, 0], [0, 0, 0, 0, 0, 0, 1, 0],
                      [s * q3d, 0, 0, 0, 0, -s, -c, 0], [-c * q3d, 0, 0, 0, 0, c, -s, 0],
                      [0, sp.Rational(4, 5), 0, 0, 0, 0, 0, 6 * q3d / 5], [0, 0, 0, 0, 0, 0, 0, 0],
                      [0, 0, 0, 0, 0, -2 * q3d, 0, 0]])


@pytest.mark.slow
def test_rolling_disc_kane_linearization():
    """sympy's test_linearize_rolling_disc_kane brought in (on main: from_kanes_method ran for more
    than 10 minutes — the centre's velocity in the disc's axes made LU pivot through nested
    fractions of sines and cosines); Kane's form in the user's speeds u1, u2, u3 linearized at
    upright rolling with q6 dependent: A equals sympy's (B empty) at random yaw, spin and spin
    rate, to 1e-12 relative."""
    km, (r, m, grav) = disc_linearize_kane()
    ms = from_kanes_method(km, conditions=[m > 0, r > 0])
    assert ms.n_constraints == 3 and len(ms.holonomic) == 1
    eqs = g.kane(ms, kane_frame(km, ms))
    assert [s.name for s in eqs.u] == ["u1", "u2", "u3"]
    rng = random.Random(5)
    for _ in range(1):
        q1, q3, q3d = (sp.Rational(rng.randint(-9, 9), 7) for _ in range(3))
        point = {"q1": q1, "q2": 0, "q3": q3, "q4": sp.Rational(rng.randint(-9, 9), 5),
                 "q5": sp.Rational(rng.randint(-9, 9), 5), "q6": -1, "u1": 0, "u2": q3d, "u3": 0,
                 "m": 1, "r": 1, "g": 1}
        lin = eqs.linearize(point, dependent=["q6"])
        assert [s.name for s in lin.state] == ["q1", "q2", "q3", "q4", "q5", "u1", "u2", "u3"]
        assert _max_rel(lin.A, _disc_A_sympy(q1, q3d).evalf()) < 1e-12
        assert lin.B.shape[1] == 0
        # out: the exported Kane form (u1, u2, u3) linearized with q6 = −r cos q2 from the contact
        A_out = _out_linearization(eqs, point | {"q6": -1}, ["q1", "q2", "q3", "q4", "q5", "u1", "u2", "u3"],
                                   {"q6": -sp.Symbol("r") * sp.cos(sp.Symbol("q2"))})[0]
        print("OUT disc Kane linearization: A rel", _rel(A_out, _disc_A_sympy(q1, q3d)))
        assert _rel(A_out, _disc_A_sympy(q1, q3d)) <= OUT_TOL


@pytest.mark.slow
def test_rolling_disc_lagrange_linearization():
    """sympy's test_linearize_rolling_disc_lagrange: a LagrangesMethod whose Lagrangian carries
    the rolling contact in its velocities (the contact point at rest); A about upright rolling
    equals sympy's, symbolically in the spin rate."""
    from geonh.models.interop import from_lagranges_method
    q1, q2, q3 = q = me.dynamicsymbols("q1 q2 q3")
    r, m, grav = sp.symbols("r m g")
    N = me.ReferenceFrame("N")
    Y = N.orientnew("Y", "Axis", [q1, N.z])
    L = Y.orientnew("L", "Axis", [q2, Y.x])
    R = L.orientnew("R", "Axis", [q3, L.y])
    Cp = me.Point("C")
    Cp.set_vel(N, 0)
    Dmc = Cp.locatenew("Dmc", r * L.z)
    Dmc.v2pt_theory(Cp, N, R)
    body = me.RigidBody("BodyD", Dmc, R, m, (me.inertia(L, m / 4 * r**2, m / 2 * r**2, m / 4 * r**2), Dmc))
    body.potential_energy = -m * grav * r * sp.cos(q2)
    lm = me.LagrangesMethod(me.Lagrangian(N, body), q)
    lm.form_lagranges_equations()
    ms = from_lagranges_method(lm, conditions=[m > 0, r > 0])
    q3d = ms.space.qd[2]
    lin = g.lagrange(ms).linearize({"q1": 0, "q2": 0, "q3": 0, "q1_dot": 0, "q2_dot": 0, "q3_dot": q3d},
                                   symbolic=True)
    assert [s.name for s in lin.state] == ["q1", "q2", "q3", "q1_dot", "q2_dot", "q3_dot"]
    sol = sp.Matrix([[0, 0, 0, 1, 0, 0], [0, 0, 0, 0, 1, 0], [0, 0, 0, 0, 0, 1],
                     [0, 0, 0, 0, -6 * q3d, 0], [0, -4 * grav / (5 * r), 0, 6 * q3d / 5, 0, 0], [0, 0, 0, 0, 0, 0]])
    A = lin.A.xreplace({s: {"r": r, "g": grav}.get(s.name, s) for s in lin.A.free_symbols})
    assert sp.simplify(A - sol) == sp.zeros(6, 6)
    # out: the exported Lagrange form (speeds q1_dot …), at random spin rates and parameters
    rng = random.Random(9)
    eqs = g.lagrange(ms)
    for _ in range(2):
        w, rv, gv = (sp.Rational(rng.randint(1, 9), rng.randint(1, 5)) for _ in range(3))
        pt = {"q1": 0, "q2": 0, "q3": 0, "q1_dot": 0, "q2_dot": 0, "q3_dot": w, "r": rv, "g": gv, "m": 1}
        A_out = _out_linearization(eqs, pt, ["q1", "q2", "q3", "q1_dot", "q2_dot", "q3_dot"])[0]
        want = sol.xreplace({q3d: w, r: rv, grav: gv})
        print("OUT disc Lagrange linearization: A rel", _rel(A_out, want))
        assert _rel(A_out, want) <= OUT_TOL


def _disc_with_contact_force(auxiliary_in_constraints: bool):
    """The disc of :func:`disc_linearize_kane` with a contact force F = Fx A.x + Fy A.y + Fz A.z at
    its contact point and auxiliary speeds ua1:4 there, in the two ways one writes it:

    - sympy's (test_kane2.py::test_aux_dep): the contact point's velocity is the auxiliary
      speeds alone, and the rolling constraints are written with it, so the dependent speeds
      carry the auxiliary ones into the disc;
    - the material contact point (the centre's velocity plus ω × r, plus the auxiliary speeds),
      the constraints without them — what geonh reads (auxiliary speeds zero on the motion)."""
    r, m, grav = sp.symbols("r m g")
    Fs = sp.symbols("Fx Fy Fz")
    q1, q2, q3, q4, q5, q6 = q = me.dynamicsymbols("q1:7")
    u = me.dynamicsymbols("u1:7")
    ua = me.dynamicsymbols("ua1:4")
    N = me.ReferenceFrame("N")
    NO = me.Point("NO")
    A = N.orientnew("A", "Axis", [q1, N.z])
    B = A.orientnew("B", "Axis", [q2, A.x])
    C = B.orientnew("C", "Axis", [q3, B.y])
    CO = NO.locatenew("CO", q4 * N.x + q5 * N.y + q6 * N.z)
    w_c_n_qd = C.ang_vel_in(N)
    C.set_ang_vel(N, u[0] * B.x + u[1] * B.y + u[2] * B.z)
    v_co_n_qd = CO.pos_from(NO).dt(N)
    CO.set_vel(N, u[3] * C.x + u[4] * C.y + u[5] * C.z)
    P = CO.locatenew("P", r * B.z)
    aux = ua[0] * C.x + ua[1] * C.y + ua[2] * C.z
    if auxiliary_in_constraints:
        P.set_vel(N, aux)
        f_v = [me.dot(CO.vel(N) - (P.vel(N) + me.cross(C.ang_vel_in(N), CO.pos_from(P))), uv) for uv in C]
    else:
        P.v2pt_theory(CO, N, C)
        f_v = [me.dot(P.vel(N), uv) for uv in C]
        P.set_vel(N, P.vel(N) + aux)
    f_c = [q6 - me.dot(CO.pos_from(P), N.z)]
    kdes = [me.dot(w_c_n_qd - C.ang_vel_in(N), uv) for uv in B] + [me.dot(v_co_n_qd - CO.vel(N), uv) for uv in N]
    disc = me.RigidBody("Disc", CO, C, m, (me.inertia(C, m * r**2 / 4, m * r**2 / 2, m * r**2 / 4), CO))
    km = me.KanesMethod(N, list(q[:5]), list(u[:3]), kd_eqs=kdes, q_dependent=[q6], configuration_constraints=f_c,
                        u_dependent=list(u[3:]), velocity_constraints=f_v, u_auxiliary=list(ua))
    km.kanes_equations([disc], [(CO, m * grav * A.z), (P, Fs[0] * A.x + Fs[1] * A.y + Fs[2] * A.z)])
    return km, (r, m, grav), Fs, f_v


@pytest.mark.slow
def test_rolling_disc_contact_force_by_auxiliary_speeds():
    """The disc's contact force (three non-contributing components) from sympy's auxiliary_eqs
    (test_aux_dep's way) equals the one from geonh's auxiliary_eqs in kane_frame, solved on the
    motion at random consistent states, to 1e-12 relative (double precision), and so does the
    one from to_sympy's auxiliary_eqs (out).  geonh reads both ways of writing it: the material
    contact point plus the auxiliary speeds, and sympy's own set-up, where the contact point's
    velocity is the auxiliary speeds alone and the rolling constraints carry them (on main its
    force dropped out of geonh's auxiliary equations)."""
    km_s, (r, m, grav), Fs, f_v = _disc_with_contact_force(True)
    km_g, _, _, _ = _disc_with_contact_force(False)
    kd = km_s.kindiffdict()
    zero_aux = {x.diff(t): 0 for x in km_s._uaux} | {x: 0 for x in km_s._uaux}

    def sympys(exprs):
        return _numeric([sp.sympify(e).xreplace(kd).xreplace(zero_aux) for e in exprs])

    sM, sF, sAux, sfv = (sympys(e) for e in (km_s.mass_matrix, km_s.forcing, km_s.auxiliary_eqs, f_v))
    rng = np.random.default_rng(3)
    states = []
    for _ in range(3):
        vals = {"r": rng.uniform(.5, 2), "m": rng.uniform(.5, 3), "g": 9.81} | dict(zip(("Fx", "Fy", "Fz"), [0.0] * 3))
        vals |= {f"q{i + 1}": v for i, v in enumerate(rng.uniform(-1.5, 1.5, 6))}
        vals["q6"] = -vals["r"] * np.cos(vals["q2"])
        vals |= {f"u{i + 1}": v for i, v in enumerate(rng.uniform(-2, 2, 3))}
        vals |= dict(zip(("u4", "u5", "u6"), _solve_linear(lambda d: sfv(vals | dict(zip(("u4", "u5", "u6"), d))))))
        ud = np.linalg.solve(sM(vals).reshape(6, 6), sF(vals))
        vals |= {f"u{i + 1}_dot": v for i, v in enumerate(ud)}
        states.append((vals, ud, _solve_linear(lambda F: sAux(vals | dict(zip(("Fx", "Fy", "Fz"), F))))))
    for km in (km_g, km_s):
        ms = from_kanes_method(km, conditions=[m > 0, r > 0])
        frame = kane_frame(km, ms)
        assert frame.names == ("u1", "u2", "u3", "ua1", "ua2", "ua3")
        eqs = g.kane(ms, frame)
        assert eqs.auxiliary_eqs.shape == (3, 1)
        gM, gF, gAux = _numeric(eqs.mass_matrix), _numeric(eqs.forcing), _numeric(eqs.auxiliary_eqs)
        oAux = _numeric(to_sympy(eqs).auxiliary_eqs)
        worst = 0.0
        for vals, ud, F_sympy in states:
            udg = np.linalg.solve(gM(vals).reshape(3, 3), gF(vals))
            assert np.max(abs(udg - ud[:3])) <= 1e-12 * (1 + np.max(abs(ud)))
            for f in (gAux, oAux):
                F_geonh = _solve_linear(lambda F: f(vals | dict(zip(("Fx", "Fy", "Fz"), F))))
                assert np.max(abs(F_geonh - F_sympy)) <= 1e-12 * (1 + np.max(abs(F_sympy))), (F_geonh, F_sympy)
                worst = max(worst, _rel(F_geonh, F_sympy))
        print(f"OUT disc contact force ({'sympy' if km is km_s else 'material'} set-up): F rel", worst)
