"""The door for sympy users: every sympy.physics.mechanics entry point (KanesMethod, System with
its constraints set each documented way, LagrangesMethod) comes into geonh with the same
accelerations as sympy's own ``rhs()`` at random states that satisfy the constraints — or is
refused with a GeonhError naming what cannot come in.  Never a silently dropped constraint."""
import random

import mpmath
import pytest
import sympy as sp
import sympy.physics.mechanics as me

import geonh as g
from geonh.errors import DimensionError, GeonhError, SingularMapError, UnsupportedSetupError
from geonh.models.interop import from_kanes_method, from_lagranges_method, from_sympy

t = me.dynamicsymbols._t
m, a, I, f0, l, grav, c = sp.symbols("m a I f0 l g c", positive=True)


# -- comparing with sympy's rhs() ----------------------------------------------------------------------
def _sympy_qdd(setup):
    """A function state -> (q̇, q̈) of sympy's own equations at ``state`` {q(t), u(t) or q'(t),
    parameters, inputs}: for Kane's method q̇ = K(q, u) from kindiffdict and
    q̈ = ∂K/∂q q̇ + ∂K/∂u u̇ with u̇ from rhs(); for Lagrange's method rhs() gives q̈ directly.
    sympy's expressions are evaluated at 50 digits (mpmath, through lambdify)."""
    rhs = setup.rhs()
    q = list(setup.q)
    n = len(q)
    method = setup.eom_method if isinstance(setup, me.System) else setup

    def compiled(exprs):
        cache = {}

        def at(state):
            keys = tuple(state)
            if keys not in cache:
                cache[keys] = sp.lambdify(list(keys), exprs, "mpmath")
            with mpmath.workdps(50):
                return [sp.Float(v, 45) for v in cache[keys](*[mpmath.mpmathify(sp.N(v, 50)) for v in state.values()])]
        return at

    if isinstance(method, me.LagrangesMethod):
        qdd = compiled([rhs[n + i] for i in range(n)])
        return lambda state: ([state[x.diff(t)] for x in q], qdd(state))
    u = list(setup.u)
    kd = method.kindiffdict()
    K = [kd[x.diff(t)] for x in q]
    ud = [rhs[n + j] for j in range(len(u))]
    parts = compiled(K + ud + [sp.diff(k, x) for k in K for x in q] + [sp.diff(k, x) for k in K for x in u])
    nu = len(u)

    def at(state):
        vals = parts(state)
        qd, udv = vals[:n], vals[n:n + nu]
        dq = vals[n + nu:n + nu + n * n]
        du = vals[n + nu + n * n:]
        qdd = [sum(dq[i * n + j] * qd[j] for j in range(n)) + sum(du[i * nu + k] * udv[k] for k in range(nu))
               for i in range(n)]
        return qd, qdd
    return at


def _agree(setup, ms: g.MechanicalSystem, states, forms=("lagrange",), complete=None):
    """geonh's accelerations (keyed by names) equal sympy's at every state; ``complete(vals)`` adds
    the values of coordinates geonh added (with their rates on the constraints)."""
    q = list(setup.q)
    sympy_at = _sympy_qdd(setup)
    for state in states:
        qd, qdd = sympy_at(state)
        vals = {x.func.__name__: state[x] for x in q}
        vals |= {f"{x.func.__name__}_dot": v for x, v in zip(q, qd)}
        vals |= {k.name if isinstance(k, sp.Symbol) else k.func.__name__: v for k, v in state.items()
                 if isinstance(k, sp.Symbol) or (k.args == (t,) and k.func.__name__ in _INPUTS)}
        vals |= complete(vals) if complete is not None else {}
        for form in forms:
            eqs = g.lagrange(ms) if form == "lagrange" else g.derive(form, ms)
            names = {s.name for s in eqs.value_symbols}
            acc = eqs.accelerations({k: v for k, v in vals.items() if k in names})
            err = max(abs(float(x1 - x2)) for x1, x2 in zip(qdd, acc))
            assert err < 1e-20, (form, state, qdd, acc)


_INPUTS = {"F"}


def _r(rng, lo=-9, hi=9, den=7):
    return sp.Rational(rng.randint(lo, hi), den)


def _params(rng):
    return {m: sp.Rational(rng.randint(2, 9), 3), a: sp.Rational(rng.randint(1, 9), 7),
            I: sp.Rational(rng.randint(1, 9), 5), f0: sp.Rational(rng.randint(1, 9), 4),
            l: sp.Rational(rng.randint(5, 9), 2), grav: sp.Rational(rng.randint(5, 12), 1),
            c: sp.Rational(rng.randint(1, 9), 6)}


# -- sympy's rolling disc (the KanesMethod example of sympy's documentation) ------------------------------
def rolling_disc(consistent: bool = True):
    """sympy's documented disc; ``consistent=False``: with kinematic differential equations
    u_i = q̇_i that contradict its stated angular velocity u1 L.x + u2 L.y + u3 L.z."""
    q1, q2, q3, u1, u2, u3 = me.dynamicsymbols("q1 q2 q3 u1 u2 u3")
    r, mm, gg = sp.symbols("r m g")
    N = me.ReferenceFrame("N")
    Y = N.orientnew("Y", "Axis", [q1, N.z])
    L = Y.orientnew("L", "Axis", [q2, Y.x])
    R = L.orientnew("R", "Axis", [q3, L.y])
    w_R_N_qd = R.ang_vel_in(N)
    R.set_ang_vel(N, u1 * L.x + u2 * L.y + u3 * L.z)
    C = me.Point("C")
    C.set_vel(N, 0)
    Dmc = C.locatenew("Dmc", r * L.z)
    Dmc.v2pt_theory(C, N, R)
    In = me.inertia(L, mm / 4 * r**2, mm / 2 * r**2, mm / 4 * r**2)
    kd = ([me.dot(R.ang_vel_in(N) - w_R_N_qd, uv) for uv in L] if consistent
          else [q1.diff() - u1, q2.diff() - u2, q3.diff() - u3])
    force_list = [(Dmc, -mm * gg * Y.z)]
    body = me.RigidBody("BodyD", Dmc, R, mm, (In, Dmc))
    KM = me.KanesMethod(N, q_ind=[q1, q2, q3], u_ind=[u1, u2, u3], kd_eqs=kd)
    KM.kanes_equations([body], force_list)
    return KM, (r, mm, gg)


@pytest.mark.slow
def test_sympy_rolling_disc_docs_example_comes_in_with_its_contact_position():
    """The docs' disc (body-rate speeds u1, u2, u3; ∂kdes/∂u = I) was refused on main with the
    self-contradicting 'SingularMapError … rank 3 < 3', then, named, as a constraint built into
    the velocities (the contact point C declared at rest, its position no coordinate, so the mass
    centre's velocity is no time derivative of a position in q1, q2, q3).  Now the set-up is
    completed: C's position C_x, C_y is added, the rolling becomes two velocity constraints, and
    the accelerations of q1, q2, q3 are sympy's (50 digits) at random states — those of the disc
    written with its contact point by hand (:func:`rolling_disc_with_contact`)."""
    KM, (r, mm, gg) = rolling_disc()
    ms = from_kanes_method(KM, conditions=[mm > 0, r > 0])
    assert [s.name for s in ms.space.q] == ["q1", "q2", "q3", "C_x", "C_y"] and ms.n_constraints == 2
    A, _ = ms.constraint_matrix
    S = ms.space
    by = {s.name: s for s in A.free_symbols}

    def contact_rates(vals):
        """C_x_dot, C_y_dot on the rolling constraints A q̇ = 0 (A free of C_x, C_y and the rates)."""
        Av = A.xreplace({s: vals[n] for n, s in by.items() if n in vals})
        known = sp.Matrix([vals[f"{x.name}_dot"] for x in S.q[:3]])
        sol = Av[:, 3:].LUsolve(-Av[:, :3] * known)
        return {"C_x": 0, "C_y": 0, "C_x_dot": sol[0], "C_y_dot": sol[1]}

    rng = random.Random(3)
    states = [{x: _r(rng) for x in KM.q} | {x: _r(rng) for x in KM.u}
              | {r: sp.Rational(rng.randint(2, 9), 5), mm: sp.Rational(rng.randint(2, 9), 3), gg: 10}
              for _ in range(3)]
    _agree(KM, ms, states, complete=contact_rates)


def test_rolling_disc_with_inconsistent_kinematics_is_refused_clearly():
    """The docs' disc with kinematic differential equations u_i = q̇_i that contradict its stated
    angular velocity (u1 L.x + u2 L.y + u3 L.z): no coordinates make its velocities true ones
    (completed with the contact position, its speeds would leave no velocity free), so it is
    refused, naming the mass centre and why the completion failed."""
    KM, (r, mm, gg) = rolling_disc(consistent=False)
    with pytest.raises(UnsupportedSetupError, match=r"Dmc .* not the time derivative of a position.*did not help"
                                                    r".*do not describe the same motions"):
        from_kanes_method(KM, conditions=[mm > 0, r > 0])


def test_system_without_speeds_whose_velocity_hides_a_constraint_is_refused_clearly():
    """A System with coordinates and no speeds whose particle's velocity (q̇1 N.x + q1 q̇2 N.y) is
    not that of its position (q1 N.x + q2 N.y): there are no speeds to complete the set-up with,
    so the refusal names the point and why, as before the completion existed."""
    q1, q2 = me.dynamicsymbols("q1 q2")
    N = me.ReferenceFrame("N")
    O = me.Point("O")
    O.set_vel(N, 0)
    P = O.locatenew("P", q1 * N.x + q2 * N.y)
    P.set_vel(N, q1.diff() * N.x + q1 * q2.diff() * N.y)
    s = me.System(N, O)
    s.q_ind = [q1, q2]
    s.add_bodies(me.Particle("pa", P, m))
    with pytest.raises(UnsupportedSetupError, match=r"velocity of P .* not the time derivative of a position") as exc:
        from_sympy(s)
    assert "did not help" not in str(exc.value)


def rolling_disc_with_contact():
    """The docs' disc with what the velocities hid: the contact point's coordinates x, y with
    speeds u4, u5 and the two rolling constraints as velocity constraints (u4, u5 dependent)."""
    q1, q2, q3, x, y = me.dynamicsymbols("q1 q2 q3 x y")
    u1, u2, u3, u4, u5 = me.dynamicsymbols("u1 u2 u3 u4 u5")
    r, mm, gg = sp.symbols("r m g")
    N = me.ReferenceFrame("N")
    Y = N.orientnew("Y", "Axis", [q1, N.z])
    L = Y.orientnew("L", "Axis", [q2, Y.x])
    R = L.orientnew("R", "Axis", [q3, L.y])
    w_R_N_qd = R.ang_vel_in(N)
    R.set_ang_vel(N, u1 * L.x + u2 * L.y + u3 * L.z)
    O = me.Point("O")
    O.set_vel(N, 0)
    C = O.locatenew("C", x * N.x + y * N.y)
    C.set_vel(N, u4 * N.x + u5 * N.y)
    Dmc = C.locatenew("Dmc", r * L.z)
    Dmc.v2pt_theory(C, N, L)                      # C and the centre are both fixed in L
    In = me.inertia(L, mm / 4 * r**2, mm / 2 * r**2, mm / 4 * r**2)
    kd = [me.dot(R.ang_vel_in(N) - w_R_N_qd, uv) for uv in L] + [u4 - x.diff(), u5 - y.diff()]
    contact = Dmc.vel(N) + me.cross(R.ang_vel_in(N), -r * L.z)     # the disc's material point at C
    body = me.RigidBody("BodyD", Dmc, R, mm, (In, Dmc))
    loads = [(Dmc, -mm * gg * Y.z)]
    KM = me.KanesMethod(N, q_ind=[q1, q2, q3, x, y], u_ind=[u1, u2, u3], u_dependent=[u4, u5], kd_eqs=kd,
                        velocity_constraints=[contact.dot(N.x), contact.dot(N.y)], bodies=[body], forcelist=loads)
    KM.kanes_equations([body], loads)
    return KM, (r, mm, gg), contact, N


@pytest.mark.slow
def test_sympy_rolling_disc_with_its_contact_point_comes_in():
    KM, (r, mm, gg), contact, N = rolling_disc_with_contact()
    ms = from_kanes_method(KM, conditions=[mm > 0, r > 0])
    assert [s.name for s in ms.space.q] == ["q1", "q2", "q3", "x", "y"] and ms.n_constraints == 2
    rng = random.Random(1)
    u4, u5 = KM.u[3], KM.u[4]
    states = []
    for _ in range(3):
        st = {x: _r(rng) for x in KM.q} | {x: _r(rng) for x in KM.u[:3]}
        st |= {r: sp.Rational(rng.randint(2, 9), 5), mm: sp.Rational(rng.randint(2, 9), 3), gg: 10}
        vc = [e.xreplace(KM.kindiffdict()).xreplace(st) for e in (contact.dot(N.x), contact.dot(N.y))]
        st |= sp.solve(vc, [u4, u5])              # on the rolling constraints
        states.append(st)
    _agree(KM, ms, states)


# -- the Chaplygin sleigh, built for every entry point --------------------------------------------------
def sleigh_parts(force=None):
    x, y, th = me.dynamicsymbols("x y theta")
    u1, u2, u3 = me.dynamicsymbols("u1 u2 u3")
    N = me.ReferenceFrame("N")
    B = N.orientnew("B", "Axis", (th, N.z))
    B.set_ang_vel(N, u3 * N.z)
    O = me.Point("O")
    O.set_vel(N, 0)
    P = O.locatenew("P", x * N.x + y * N.y)
    P.set_vel(N, u1 * N.x + u2 * N.y)
    G = P.locatenew("G", a * B.x)
    G.v2pt_theory(P, N, B)
    body = me.RigidBody("sleigh", G, B, m, (me.inertia(B, 0, 0, I), G))
    F = force if force is not None else f0
    loads = [me.Force(G, F * N.x), me.Torque(B, -c * u3 * N.z)]
    kdes = [u1 - x.diff(), u2 - y.diff(), u3 - th.diff()]
    return dict(q=(x, y, th), u=(u1, u2, u3), N=N, B=B, O=O, P=P, G=G, body=body, loads=loads, kdes=kdes,
                con=P.vel(N).dot(B.y))


def _sleigh_states(setup, n=3, seed=5, inputs=None):
    p = sleigh_parts()
    x, y, th = p["q"]
    u1, u2, u3 = p["u"]
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        st = _params(rng) | {x: _r(rng), y: _r(rng), th: _r(rng)}
        v1, v3 = _r(rng, den=5), _r(rng, den=5)
        st |= {u1: v1, u2: sp.tan(st[th]) * v1, u3: v3}       # on the constraint: u2 = tan(θ) u1
        st |= inputs(rng) if inputs else {}
        out.append(st)
    return out


def sleigh_kane():
    p = sleigh_parts()
    u1, u2, u3 = p["u"]
    km = me.KanesMethod(p["N"], q_ind=list(p["q"]), u_ind=[u1, u3], u_dependent=[u2], kd_eqs=p["kdes"],
                        velocity_constraints=[p["con"]], bodies=[p["body"]], forcelist=p["loads"])
    km.kanes_equations([p["body"]], p["loads"])
    return km


def test_kanes_method_sleigh():
    km = sleigh_kane()
    ms = from_kanes_method(km)
    assert ms.n_constraints == 1
    _agree(km, ms, _sleigh_states(km), forms=("lagrange", "voronets"))


def _sleigh_system(way: str, force=None):
    p = sleigh_parts(force)
    x, y, th = p["q"]
    u1, u2, u3 = p["u"]
    s = me.System(p["N"], p["O"])
    s.q_ind = [x, y, th]
    s.u_ind = [u1, u3]
    s.u_dep = [u2]
    s.kdes = p["kdes"]
    s.add_bodies(p["body"])
    s.add_loads(*p["loads"])
    if way == "velocity_constraints":
        s.velocity_constraints = [p["con"]]
    elif way == "nonholonomic_constraints":
        s.nonholonomic_constraints = [p["con"]]
    elif way == "add_nonholonomic_constraints":
        s.add_nonholonomic_constraints(p["con"])
    elif way == "velocity_constraints in q'":       # the same constraint written in q̇, not u
        s.velocity_constraints = [p["con"].xreplace({u1: x.diff(), u2: y.diff()})]
    else:
        raise AssertionError(way)
    return s


@pytest.mark.slow
@pytest.mark.parametrize("way", ["velocity_constraints", "nonholonomic_constraints",
                                 "add_nonholonomic_constraints", "velocity_constraints in q'"])
def test_system_sleigh_every_way_of_setting_the_constraint(way):
    """On main, ``System.velocity_constraints = [...]`` came in as 0 constraints: the
    unconstrained motion, silently."""
    s = _sleigh_system(way)
    ms_unformed = from_sympy(s)                      # read as sympy's default, KanesMethod
    s.form_eoms()
    ms_formed = from_sympy(s)                        # read through the KanesMethod sympy built
    for ms in (ms_unformed, ms_formed):
        assert ms.n_constraints == 1, way
        _agree(s, ms, _sleigh_states(s, n=2))


@pytest.mark.slow
def test_system_actuators_and_specified_inputs_come_in():
    """A System's actuators are loads too (sympy adds them in form_eoms), and a function of time
    that is neither a coordinate nor a speed (a specified force F(t)) comes in as a parameter F."""
    F = me.dynamicsymbols("F")
    s = _sleigh_system("velocity_constraints", force=F)
    B, N = s.bodies[0].frame, s.frame
    k = sp.Symbol("k", positive=True)
    th = s.q[2]
    s.add_actuators(me.TorqueActuator(-k * th, N.z, B, N))
    ms = from_sympy(s)
    assert "F" in {x.name for x in ms.Q[0].free_symbols}
    assert any(k in Qi.free_symbols for Qi in ms.Q)
    s.form_eoms()
    states = _sleigh_states(s, n=2, inputs=lambda rng: {F: _r(rng), k: sp.Rational(rng.randint(1, 9), 2)})
    _agree(s, ms, states)


def test_lagranges_method_sleigh():
    """LagrangesMethod: its Lagrangian, forcelist and nonhol_coneqs."""
    x, y, th = me.dynamicsymbols("x y theta")
    xd, yd, thd = (v.diff() for v in (x, y, th))
    T = m * (xd**2 + yd**2) / 2 + (I + m * a**2) * thd**2 / 2 + m * a * thd * (yd * sp.cos(th) - xd * sp.sin(th))
    N = me.ReferenceFrame("N")
    B = N.orientnew("B", "Axis", (th, N.z))
    O = me.Point("O")
    G = O.locatenew("G", (x + a * sp.cos(th)) * N.x + (y + a * sp.sin(th)) * N.y)
    G.set_vel(N, G.pos_from(O).dt(N))
    lm = me.LagrangesMethod(T, [x, y, th], forcelist=[(G, f0 * N.x), (B, -c * thd * N.z)], frame=N,
                            nonhol_coneqs=[-xd * sp.sin(th) + yd * sp.cos(th)])
    lm.form_lagranges_equations()
    ms = from_lagranges_method(lm)
    assert ms.n_constraints == 1 and ms.V == 0
    rng = random.Random(3)
    states = []
    for _ in range(3):
        st = _params(rng) | {x: _r(rng), y: _r(rng), th: _r(rng)}
        v1, v3 = _r(rng, den=5), _r(rng, den=5)
        states.append(st | {xd: v1, yd: sp.tan(st[th]) * v1, thd: v3})
    _agree(lm, ms, states)


# -- holonomic constraints: a pendulum in Cartesian coordinates -------------------------------------------
def pendulum_parts():
    x, y = me.dynamicsymbols("x y")
    ux, uy = me.dynamicsymbols("u_x u_y")
    N = me.ReferenceFrame("N")
    O = me.Point("O")
    O.set_vel(N, 0)
    P = O.locatenew("P", x * N.x + y * N.y)
    P.set_vel(N, ux * N.x + uy * N.y)
    bob = me.Particle("bob", P, m)
    loads = [me.Force(P, -m * grav * N.y - c * uy * N.y)]
    return dict(q=(x, y), u=(ux, uy), N=N, O=O, P=P, bob=bob, loads=loads,
                kdes=[ux - x.diff(), uy - y.diff()], f=x**2 + y**2 - l**2)


def _pendulum_states(q, u, n=3, seed=9, lagrange=False):
    x, y = q
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        st = _params(rng)
        xv = st[l] * sp.Rational(rng.randint(-8, 8), 10)
        yv = -sp.sqrt(st[l] ** 2 - xv**2)
        vx = _r(rng, den=5)
        vy = -xv * vx / yv                            # on ḟ = 2 x ẋ + 2 y ẏ = 0
        st |= {x: xv, y: yv}
        st |= {x.diff(): vx, y.diff(): vy} if lagrange else {u[0]: vx, u[1]: vy}
        out.append(st)
    return out


def _pendulum_system(way: str):
    p = pendulum_parts()
    x, y = p["q"]
    ux, uy = p["u"]
    s = me.System(p["N"], p["O"])
    s.q_ind, s.q_dep = [x], [y]
    s.u_ind, s.u_dep = [ux], [uy]
    s.kdes = p["kdes"]
    s.add_bodies(p["bob"])
    s.add_loads(*p["loads"])
    if way == "holonomic_constraints":
        s.holonomic_constraints = [p["f"]]
    elif way == "add_holonomic_constraints":
        s.add_holonomic_constraints(p["f"])
    elif way == "holonomic and velocity_constraints":   # the derivative given explicitly (in u, scaled)
        s.holonomic_constraints = [p["f"]]
        s.velocity_constraints = [x * ux + y * uy]
    else:
        raise AssertionError(way)
    return s, p


@pytest.mark.slow
@pytest.mark.parametrize("way", ["holonomic_constraints", "add_holonomic_constraints",
                                 "holonomic and velocity_constraints"])
def test_system_holonomic_constraints(way):
    s, p = _pendulum_system(way)
    ms = from_sympy(s)
    assert len(ms.holonomic) == 1 and ms.n_constraints == 1
    s.form_eoms()
    _agree(s, ms, _pendulum_states(p["q"], p["u"]))


def test_kanes_method_configuration_constraints():
    p = pendulum_parts()
    x, y = p["q"]
    ux, uy = p["u"]
    km = me.KanesMethod(p["N"], q_ind=[x], u_ind=[ux], kd_eqs=p["kdes"], q_dependent=[y],
                        configuration_constraints=[p["f"]], u_dependent=[uy],
                        velocity_constraints=[x * ux + y * uy], bodies=[p["bob"]], forcelist=p["loads"])
    km.kanes_equations([p["bob"]], p["loads"])
    ms = from_kanes_method(km)
    assert len(ms.holonomic) == 1 and ms.n_constraints == 1
    _agree(km, ms, _pendulum_states(p["q"], p["u"]))


def test_lagranges_method_holonomic_constraints():
    p = pendulum_parts()
    x, y = p["q"]
    xd, yd = x.diff(), y.diff()
    lm = me.LagrangesMethod(m * (xd**2 + yd**2) / 2 - m * grav * y, [x, y], hol_coneqs=[p["f"]],
                            forcelist=[(p["P"], -c * yd * p["N"].y)], frame=p["N"])
    lm.form_lagranges_equations()
    ms = from_lagranges_method(lm)
    assert len(ms.holonomic) == 1 and ms.n_constraints == 1
    assert sp.simplify(ms.V - m * grav * ms.space.q[1]) == 0
    _agree(lm, ms, _pendulum_states(p["q"], p["u"], lagrange=True))


# -- clear refusals -------------------------------------------------------------------------------------
def test_configuration_constraint_not_enforced_by_velocity_constraints_is_refused():
    """Kane moves with the velocity constraints only: one that does not contain ḟ gives another
    motion than geonh's holonomic constraint would."""
    p = pendulum_parts()
    x, y = p["q"]
    ux, uy = p["u"]
    km = me.KanesMethod(p["N"], q_ind=[x], u_ind=[ux], kd_eqs=p["kdes"], q_dependent=[y],
                        configuration_constraints=[p["f"]], u_dependent=[uy], velocity_constraints=[uy],
                        bodies=[p["bob"]], forcelist=p["loads"])
    with pytest.raises(GeonhError, match="not enforced by its velocity constraints"):
        from_kanes_method(km)


def test_inconsistent_acceleration_constraints_are_refused():
    p = sleigh_parts()
    u1, u2, u3 = p["u"]
    ok = me.KanesMethod(p["N"], q_ind=list(p["q"]), u_ind=[u1, u3], u_dependent=[u2], kd_eqs=p["kdes"],
                        velocity_constraints=[p["con"]], bodies=[p["body"]], forcelist=p["loads"])
    acc = [(p["con"].diff(t)).xreplace(ok.kindiffdict())]
    good = me.KanesMethod(p["N"], q_ind=list(p["q"]), u_ind=[u1, u3], u_dependent=[u2], kd_eqs=p["kdes"],
                          velocity_constraints=[p["con"]], acceleration_constraints=[2 * acc[0]],
                          bodies=[p["body"]], forcelist=p["loads"])
    assert from_kanes_method(good).n_constraints == 1          # a multiple of the derivative is fine
    bad = me.KanesMethod(p["N"], q_ind=list(p["q"]), u_ind=[u1, u3], u_dependent=[u2], kd_eqs=p["kdes"],
                         velocity_constraints=[p["con"]], acceleration_constraints=[u2.diff(t)],
                         bodies=[p["body"]], forcelist=p["loads"])
    with pytest.raises(GeonhError, match="acceleration constraints"):
        from_kanes_method(bad)


def test_kane_body_potential_energy_is_not_guessed():
    """KanesMethod ignores body.potential_energy, LagrangesMethod uses it: geonh asks."""
    p = pendulum_parts()
    x, y = p["q"]
    ux, uy = p["u"]
    p["bob"].potential_energy = m * grav * y
    km = me.KanesMethod(p["N"], q_ind=[x], u_ind=[ux], kd_eqs=p["kdes"], q_dependent=[y],
                        configuration_constraints=[p["f"]], u_dependent=[uy],
                        velocity_constraints=[x * ux + y * uy], bodies=[p["bob"]], forcelist=p["loads"])
    km.kanes_equations([p["bob"]], p["loads"])
    with pytest.raises(GeonhError, match="potential_energy"):
        from_kanes_method(km)
    ignored = from_kanes_method(km, body_potentials=False)        # as sympy's KanesMethod
    _agree(km, ignored, _pendulum_states(p["q"], p["u"], n=2))
    added = from_kanes_method(km, body_potentials=True)
    assert sp.simplify(added.V - m * grav * added.space.q[1]) == 0


def test_singular_kdes_refused_consistently():
    """A rank decision and a solve that cannot contradict each other: rank 1 < 2 is said as such."""
    x, y = me.dynamicsymbols("x y")
    u1, u2 = me.dynamicsymbols("u1 u2")
    N = me.ReferenceFrame("N")
    O = me.Point("O")
    P = O.locatenew("P", x * N.x + y * N.y)
    P.set_vel(N, x.diff() * N.x + y.diff() * N.y)
    s = me.System(N, O)
    s.q_ind, s.u_ind = [x, y], [u1, u2]
    s.kdes = [x.diff() - (u1 + u2), y.diff() - (u1 + u2)]
    s.add_bodies(me.Particle("p", P, m))
    with pytest.raises(SingularMapError, match=r"rank 1 < 2"):
        from_sympy(s)


def test_speeds_must_match_coordinates():
    x, y = me.dynamicsymbols("x y")
    u1 = me.dynamicsymbols("u1")
    N = me.ReferenceFrame("N")
    O = me.Point("O")
    P = O.locatenew("P", x * N.x + y * N.y)
    P.set_vel(N, u1 * N.x)
    s = me.System(N, O)
    s.q_ind, s.u_ind = [x, y], [u1]
    s.kdes = [x.diff() - u1, y.diff()]
    s.add_bodies(me.Particle("p", P, m))
    with pytest.raises(DimensionError, match="one speed per coordinate"):
        from_sympy(s)


def test_derivative_of_a_specified_input_is_refused():
    F = me.dynamicsymbols("F")
    s = _sleigh_system("velocity_constraints", force=F.diff(t))
    with pytest.raises(GeonhError, match="time derivatives"):
        from_sympy(s)


def test_not_a_sympy_setup():
    with pytest.raises(GeonhError, match="KanesMethod, LagrangesMethod or System"):
        from_sympy(object())
