"""The problems of sympy's own mechanics tests (sympy/physics/mechanics/tests) brought into geonh
and out again.  Each set-up is rebuilt here from the problem sympy's test states (its test is the
spec; the code is ours), brought in through ``from_kanes_method`` / ``from_sympy`` and compared
with sympy's own equations at random states that satisfy the constraints."""
import random

import pytest
import sympy as sp
import sympy.physics.mechanics as me

from geonh.models.interop import from_kanes_method, to_sympy
from test_interop_roundtrip import _agree   # the comparison with sympy's rhs() (50 digits)

t = me.dynamicsymbols._t


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
    _agree(km, ms, _disc_states(km, params, fnh))
