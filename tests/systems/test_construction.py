"""Cheaper construction (issue 10 item 2): the mass matrix from the bodies' partial velocities
equals the Hessian ∂²T/∂q̇² of the kinetic energy; the symengine engine gives the same
equations as the sympy one; the dynamic N-trailer model is built without simplification."""
from __future__ import annotations

import sympy as sp
import pytest

from geonh.kernel import backend as bk
from geonh.kernel.generic_point import is_zero
from geonh.models import mechanical as mm
from geonh.systems.mechanical import MechanicalSystem, quadratic_form, velocity_quadratic_parts


def _trailer_bodies(N, offaxle):
    from sympy.physics.mechanics import Point, ReferenceFrame, RigidBody, dynamicsymbols, inertia
    x, y = dynamicsymbols("x y")
    th = list(dynamicsymbols(f"theta0:{N + 1}"))
    m = sp.symbols(f"m0:{N + 1}", positive=True)
    I = sp.symbols(f"I0:{N + 1}", positive=True)
    d = sp.symbols(f"d1:{N + 1}", positive=True)
    e = sp.symbols(f"e0:{N + 1}", positive=True)
    F, tau = sp.symbols("F tau", real=True)
    Nf = ReferenceFrame("N")
    O = Point("O")
    O.set_vel(Nf, 0)
    B = [Nf.orientnew(f"B{i}", "Axis", [th[i], Nf.z]) for i in range(N + 1)]
    P = [O.locatenew("P0", x * Nf.x + y * Nf.y)]
    for i in range(1, N + 1):
        P.append(P[-1].locatenew(f"P{i}", -d[i - 1] * B[i].x))
    G = [P[i].locatenew(f"G{i}", e[i] * B[i].x) for i in range(N + 1)] if offaxle else P
    bodies = [RigidBody(f"body{i}", G[i], B[i], m[i], (inertia(B[i], 0, 0, I[i]), G[i]))
              for i in range(N + 1)]
    cons = [P[i].vel(Nf).dot(B[i].y) for i in range(N + 1)]
    loads = [(P[0], F * B[0].x), (B[0], tau * Nf.z)]
    return dict(q=[x, y, *th], bodies=bodies, frame=Nf, loads=loads, constraints=cons)


def _top_bodies():
    """A heavy top with a full (non-diagonal, positive definite) inertia tensor, Euler angles."""
    from sympy.physics.mechanics import Point, ReferenceFrame, RigidBody, dynamicsymbols, inertia
    psi, th, ph = dynamicsymbols("psi theta phi")
    m, l, g = sp.symbols("m l g", positive=True)
    J = sp.Symbol("J", positive=True)
    N = ReferenceFrame("N")
    A = N.orientnew("A", "Body", [psi, th, ph], "zxz")
    O = Point("O")
    O.set_vel(N, 0)
    G = O.locatenew("G", l * A.z)
    G.v2pt_theory(O, N, A)
    body = RigidBody("top", G, A, m, (inertia(A, 3 * J, 4 * J, 5 * J, J / 2, J / 3, J / 4), G))
    return dict(q=[psi, th, ph], bodies=[body], frame=N, loads=[(G, -m * g * N.z)], constraints=[])


def _rheonomic_bodies():
    """Two particles on a rotating (ω t) rod and a rigid pendulum on a moving cart: b and T0 of T
    do not vanish (space with time)."""
    from sympy.physics.mechanics import (Particle, Point, ReferenceFrame, RigidBody, dynamicsymbols,
                                         inertia)
    t = dynamicsymbols._t
    r, s, a = dynamicsymbols("r s a")
    m1, m2, M, w, L, J = sp.symbols("m1 m2 M omega L J", positive=True)
    N = ReferenceFrame("N")
    R = N.orientnew("R", "Axis", [w * t, N.z])
    O = Point("O")
    O.set_vel(N, 0)
    P1 = O.locatenew("P1", r * R.x)
    P1.set_vel(N, P1.pos_from(O).dt(N))
    P2 = O.locatenew("P2", (r + s) * R.x + sp.sin(t) * R.y)
    P2.set_vel(N, P2.pos_from(O).dt(N))
    C = O.locatenew("C", sp.cos(w * t) * N.x + a * N.y)
    C.set_vel(N, C.pos_from(O).dt(N))
    B = R.orientnew("B", "Axis", [a, R.z])
    rod = RigidBody("rod", C, B, M, (inertia(B, J, J, 2 * J), C))
    return dict(q=[r, s, a], bodies=[Particle("p1", P1, m1), Particle("p2", P2, m2), rod], frame=N,
                loads=[], constraints=[], time=True)


CASES = {
    "trailer-3": lambda: _trailer_bodies(3, False),
    "trailer-3-offaxle": lambda: _trailer_bodies(3, True),
    "heavy-top-full-inertia": _top_bodies,
    "rheonomic-particles-and-rod": _rheonomic_bodies,
}


@pytest.mark.parametrize("case", list(CASES))
@pytest.mark.parametrize("backend", ["symengine", "sympy"])
def test_mass_matrix_from_bodies_equals_hessian(case, backend):
    """(M, b, T0) from the partial velocities equal ∂²T/∂q̇², ∂T/∂q̇|0, T|0 of
    T = Σ body.kinetic_energy (exact zero decision at the generic point)."""
    if backend == "symengine" and not bk.SYMENGINE_AVAILABLE:
        pytest.skip("symengine not installed")
    mo = CASES[case]()
    with bk.using_backend(backend):
        sysm = MechanicalSystem.from_mechanics(mo["q"], mo["bodies"], mo["frame"], mo["loads"],
                                               mo["constraints"], time=mo.get("time", False))
    S = sysm.space
    T = S.from_dynamic(sum((b.kinetic_energy(mo["frame"]) for b in mo["bodies"]), sp.S.Zero))
    H = sp.hessian(T, S.qd)
    M, b, T0 = sysm.quadratic_parts
    zero = {v: 0 for v in S.qd}
    for i in range(S.n):
        for j in range(S.n):
            assert is_zero(M[i, j] - H[i, j]), (case, i, j)
        assert is_zero(b[i] - sp.diff(T, S.qd[i]).xreplace(zero)), (case, i)
    assert is_zero(T0 - T.xreplace(zero))
    assert is_zero(sp.expand(sysm.T - T))
    if case.startswith("rheonomic"):
        assert any(e != 0 for e in b) and T0 != 0


def test_quadratic_form_round_trip():
    """quadratic_form writes (M, b, T0) as monomials that MechanicalSystem reads back exactly."""
    mo = _trailer_bodies(2, True)
    sysm = MechanicalSystem.from_mechanics(mo["q"], mo["bodies"], mo["frame"], mo["loads"], mo["constraints"])
    M, b, T0 = sysm.quadratic_parts
    T = quadratic_form(sysm.space.qd, M, b, T0)
    assert sp.expand(T - sysm.T) == 0


def test_velocity_quadratic_parts_collects_shared_partial_velocities():
    """Σ_b m_b P over bodies sharing a partial velocity P is written (Σ m_b) P, exactly."""
    x, xd, yd = sp.symbols("x x_dot y_dot")
    m1, m2 = sp.symbols("m1 m2", positive=True)
    v = [sp.cos(x) * xd, sp.sin(x) * xd + yd]
    M, b, T0 = velocity_quadratic_parts([xd, yd], [(m1, v), (m2, v)])
    assert sp.expand(M[0, 0] - (m1 + m2) * (sp.cos(x)**2 + sp.sin(x)**2)) == 0
    assert M[0, 0].is_Mul and M[0, 1] == M[1, 0]   # one product (m1 + m2)·P, not two terms
    assert sp.expand(M[0, 1] - (m1 + m2) * sp.sin(x)) == 0 and b == sp.zeros(2, 1) and T0 == 0


def test_dynamic_n_trailer_model_matches_expanded_T_and_closed_frame():
    """The model builder's T (from partial velocities, no expand, no trigsimp) equals the
    expanded Σ ½ m_i |Ṗ_i|² + ½ J_i θ̇_i², and its frame is the closed-form one."""
    from geonh.models import kinematic
    N = 3
    Mo = mm.dynamic_n_trailer(N)
    S = Mo.space
    x, y, *th = S.q
    d = [sp.Symbol(f"d{i}", positive=True) for i in range(1, N + 1)]
    ms = [sp.Symbol(f"m{i}", positive=True) for i in range(N + 1)]
    Js = [sp.Symbol(f"J{i}", positive=True) for i in range(N + 1)]
    P = [(x, y)]
    for i in range(1, N + 1):
        P.append((P[-1][0] - d[i - 1] * sp.cos(th[i]), P[-1][1] - d[i - 1] * sp.sin(th[i])))
    Pd = [(S.total_derivative(a), S.total_derivative(c)) for a, c in P]
    T = sum(ms[i] * (Pd[i][0]**2 + Pd[i][1]**2) / 2 + Js[i] * S.qd[2 + i]**2 / 2 for i in range(N + 1))
    H = sp.hessian(sp.expand(T), S.qd)
    for a, c in zip(Mo.system.mass_matrix, H):
        assert is_zero(a - c)
    assert Mo.frame.C == kinematic.n_trailer(N).frame.C


@pytest.mark.skipif(not bk.SYMENGINE_AVAILABLE, reason="symengine not installed")
@pytest.mark.parametrize("name", ["chaplygin-sleigh", "rotating-knife-edge", "heavy-top", "dynamic-1-trailer"])
@pytest.mark.parametrize("form", ["boltzmann-hamel", "voronets"])
def test_engine_symengine_equals_sympy(name, form):
    """The central equation on symengine gives the same M and F as on sympy (difference zero
    at the generic point)."""
    from geonh import models
    Mo = models.get(name)
    e1 = Mo.equations(form)
    with bk.using_backend("sympy"):
        e2 = Mo.equations(form)
    for a, c in zip(list(e1.mass_matrix) + list(e1.forcing), list(e2.mass_matrix) + list(e2.forcing)):
        assert is_zero(a - c)


@pytest.mark.skipif(not bk.SYMENGINE_AVAILABLE, reason="symengine not installed")
@pytest.mark.parametrize("name", ["tilted-disk", "rotating-knife-edge", "skate-on-belt", "car", "dynamic-1-trailer"])
def test_primitives_symengine_equal_sympy(name):
    """MechanicalSystem.primitives (p, ṗ⁰, ∂T/∂q) on symengine equal the sympy ones."""
    from geonh import models
    Mo = models.get(name)
    with bk.using_backend("symengine"):
        a = Mo.system.primitives
    with bk.using_backend("sympy"):
        Mo2 = models.get(name)
        b = Mo2.system.primitives
    assert a.algebra == "symengine" and b.algebra == "sympy"
    for key in ("p", "pdot0", "dTdq"):
        for x, y in zip(getattr(a, key), getattr(b, key)):
            assert is_zero(x - y), (name, key)


def test_construction_runs_with_the_collector_paused(monkeypatch):
    """Building a system (from_mechanics included: its mass matrix, the definiteness verdict,
    the constraints) runs with Python's cyclic collector paused (kernel.budget.gc_paused: it
    rescanned the many acyclic sympy nodes, ~0.2 s of the dynamic 32-trailer's model stage),
    and leaves the collector as it found it, enabled or disabled, also on a refusal."""
    import gc
    import geonh.systems.mechanical as ms
    from geonh.errors import NotPositiveDefiniteError
    seen: list = []
    real = ms.not_positive_definite_at

    def spy(M, conditions=()):
        seen.append(gc.isenabled())
        return real(M, conditions)

    real_parts = ms.body_quadratic_parts

    def spy_parts(*args):
        seen.append(gc.isenabled())
        return real_parts(*args)

    monkeypatch.setattr(ms, "not_positive_definite_at", spy)
    monkeypatch.setattr(ms, "body_quadratic_parts", spy_parts)
    S = mm.chaplygin_sleigh().space
    mo = _trailer_bodies(2, True)
    try:
        for state in (True, False):
            (gc.enable if state else gc.disable)()
            MechanicalSystem.from_mechanics(mo["q"], mo["bodies"], mo["frame"], mo["loads"], mo["constraints"])
            assert gc.isenabled() is state
            with pytest.raises(NotPositiveDefiniteError):
                MechanicalSystem(S, -sum(v**2 for v in S.qd))
            assert gc.isenabled() is state
    finally:
        gc.enable()
    assert len(seen) >= 4 and not any(seen)
