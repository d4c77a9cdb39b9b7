"""geonh.models.interop: KanesMethod -> geonh -> sympy/pydy round trips on the Chaplygin sleigh."""
import random

import numpy as np
import pytest
import sympy as sp
import sympy.physics.mechanics as me

import geonh as g
from geonh.errors import DimensionError, GeonhError
from geonh.models.interop import SympyEquations, from_kanes_method, to_pydy_system, to_sympy

m, a, I, f = sp.symbols("m a I f", positive=True)


def sleigh_kane():
    """The sleigh in sympy: contact point P = (x, y), mass centre G = P + a B.x, no sideways
    slip at P, a constant force f N.x at G; speeds u1 = ẋ, u3 = θ̇ free, u2 = ẏ dependent."""
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
    loads = [(G, f * N.x)]
    km = me.KanesMethod(N, q_ind=[x, y, th], u_ind=[u1, u3], u_dependent=[u2],
                        kd_eqs=[x.diff() - u1, y.diff() - u2, th.diff() - u3],
                        velocity_constraints=[P.vel(N).dot(B.y)], bodies=[body], forcelist=loads)
    km.kanes_equations([body], loads)
    return km, (x, y, th), (u1, u2, u3)


@pytest.fixture(scope="module")
def kane():
    return sleigh_kane()


@pytest.fixture(scope="module")
def system(kane):
    return from_kanes_method(kane[0])


def _states(n, seed=7):
    rng = random.Random(seed)
    for _ in range(n):
        params = {m: sp.Rational(rng.randint(1, 9), 3), a: sp.Rational(rng.randint(1, 9), 7),
                  I: sp.Rational(rng.randint(1, 9), 5), f: sp.Rational(rng.randint(-9, 9), 4)}
        q = [sp.Rational(rng.randint(-9, 9), 7) for _ in range(3)]
        u1, u3 = sp.Rational(rng.randint(-9, 9), 5), sp.Rational(rng.randint(-9, 9), 5)
        yield params, q, (u1, sp.tan(q[2]) * u1, u3)


def test_from_kanes_method_reads_the_setup(system):
    S = system.space
    assert [s.name for s in S.q] == ["x", "y", "theta"]
    assert system.n_constraints == 1
    x, y, th = S.q
    xd, yd, thd = S.qd
    T = (m * (xd**2 + yd**2) + (I + m * a**2) * thd**2) / 2 + m * a * thd * (yd * sp.cos(th) - xd * sp.sin(th))
    assert sp.expand(system.T - T) == 0
    assert [sp.simplify(Q) for Q in system.Q] == [f, 0, -a * f * sp.sin(th)]


def test_kane_and_geonh_accelerations_agree(kane, system):
    km, qs, us = kane
    rhs = km.rhs()                       # (q', u') in the order of km.u = (u1, u3, u2)
    order = [list(km.u).index(u) for u in us]
    S = system.space
    eqs = [g.lagrange(system), g.derive("voronets", system, dependent=["y"])]
    for params, q, u in _states(4):
        kv = dict(zip(qs, q)) | dict(zip(us, u)) | params
        udot = [sp.N(rhs[3 + k].xreplace(kv), 40) for k in order]
        gv = dict(zip(S.q, q)) | dict(zip(S.qd, u)) | params
        for eq in eqs:
            acc = eq.accelerations(gv)
            assert max(abs(float(sp.N(x1 - x2, 40))) for x1, x2 in zip(udot, acc)) < 1e-12, eq.form


def _bh(system):
    S = system.space
    x, y, th = S.q
    xd, yd, thd = S.qd
    frame = g.Frame.from_quasi_velocities(S, [sp.cos(th) * xd + sp.sin(th) * yd, thd,
                                              -sp.sin(th) * xd + sp.cos(th) * yd])
    return g.boltzmann_hamel(system, frame)


def test_to_sympy_gives_the_same_accelerations(system):
    bh = _bh(system)
    se = to_sympy(bh)
    assert isinstance(se, SympyEquations)
    t = me.dynamicsymbols._t
    assert [str(q.func) for q in se.q] == ["x", "y", "theta"] and all(q.args == (t,) for q in se.q)
    assert se.mass_matrix.shape == (2, 2) and se.mass_matrix_full.shape == (5, 5)
    assert set(se.constants) == {m, a, I, f}
    v, w = se.u
    rhs = se.rhs().applyfunc(sp.simplify)
    th = se.q[2]
    assert sp.simplify(rhs[3] - (a * w**2 + f * sp.cos(th) / m)) == 0
    assert sp.simplify(rhs[4] + a * (f * sp.sin(th) + m * v * w) / (I + a**2 * m)) == 0
    # the same q̈ as geonh's own equations at random states
    S = system.space
    for params, q, u in _states(3, seed=3):
        gv = dict(zip(S.q, q)) | dict(zip(S.qd, u)) | params
        geonh_acc = bh.accelerations(gv)
        dv = {se.q[i]: q[i] for i in range(3)} | params
        dv[v] = sp.cos(q[2]) * u[0] + sp.sin(q[2]) * u[1]
        dv[w] = u[2]
        uprime = [e.xreplace(dv) for e in rhs[3:]]
        kd = se.kindiffdict()
        qdd = []
        for qi in se.q:
            K = kd[qi.diff(t)]
            dK = sum(K.diff(s) * kd[s.diff(t)] for s in se.q) + sum(K.diff(s) * up for s, up in zip(se.u, rhs[3:]))
            qdd.append(dK.xreplace(dv))
        assert max(abs(float(sp.N(x1 - x2, 40))) for x1, x2 in zip(qdd, geonh_acc)) < 1e-12
        assert all(abs(float(sp.N(x))) < 1e10 for x in uprime)


def test_pydy_integrates_the_geonh_trajectory(system):
    pytest.importorskip("pydy")
    bh = _bh(system)
    par = {"m": 1.0, "a": 0.5, "I": 0.2, "f": 0.3}
    y0 = [0.0, 0.0, 0.1, 0.5, 2.0]
    times = np.linspace(0, 1, 11)
    ps = to_pydy_system(bh, constants=par, initial_conditions=dict(zip(["x", "y", "theta"] + [u.name for u in bh.u], y0)),
                        times=times)
    Y = ps.integrate()
    traj = g.simulate(bh, y0, (0, 1), params={s: par[s.name] for s in (m, a, I, f)}, t_eval=times,
                      rtol=1e-11, atol=1e-11)
    assert np.max(np.abs(Y - np.asarray(traj.y).T)) < 1e-6


def test_pydy_refuses_multiplier_forms(system):
    with pytest.raises(DimensionError, match="multipliers"):
        to_pydy_system(g.lagrange(system))


def test_from_kanes_method_refuses_a_setup_without_bodies():
    x = me.dynamicsymbols("x")
    u = me.dynamicsymbols("u")
    N = me.ReferenceFrame("N")
    km = me.KanesMethod(N, q_ind=[x], u_ind=[u], kd_eqs=[x.diff() - u])
    with pytest.raises(GeonhError, match="no bodies"):
        from_kanes_method(km)


def test_from_sympy_system():
    """A sympy.physics.mechanics.System is read like a KanesMethod (a particle on a spring)."""
    x, u = me.dynamicsymbols("x u")
    k = sp.Symbol("k", positive=True)
    N = me.ReferenceFrame("N")
    O = me.Point("O")
    O.set_vel(N, 0)
    P = O.locatenew("P", x * N.x)
    P.set_vel(N, u * N.x)
    sys_ = me.System(N, O)
    sys_.q_ind = [x]
    sys_.u_ind = [u]
    sys_.kdes = [u - x.diff()]
    sys_.add_bodies(me.Particle("p", P, m))
    sys_.add_loads(me.Force(P, -k * x * N.x))
    ms = from_kanes_method(sys_)
    xd = ms.space.qd[0]
    assert sp.expand(ms.T - m * xd**2 / 2) == 0
    assert sp.simplify(ms.Q[0] + k * ms.space.q[0]) == 0
