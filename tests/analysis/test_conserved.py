"""Conserved quantities (geonh.analysis.conserved): energy and Jacobi's integral with their
conditions checked, the nonholonomic momentum map and momentum equation (BKMM 1996), the
polynomial first-integral search, and constancy along simulate."""
import numpy as np
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from geonh import VectorField, models, simulate
from geonh.analysis import (
    IntegralSearch,
    SymmetryError,
    check_symmetry,
    conserved_momenta,
    energy_integral,
    jacobi_integral,
    momentum_map,
    polynomial_first_integrals,
    verify_along,
)
from geonh.errors import DimensionError, NotLinearError
from geonh.kernel.generic_point import is_zero
from geonh.models import mechanical as mech


# ----------------------------------------------------------------------------------------------
# fixtures
# ----------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def sleigh():
    return models.get("chaplygin-sleigh")


@pytest.fixture(scope="module")
def sleigh_bh(sleigh):
    return sleigh.equations("boltzmann-hamel")          # u = (v, w)


@pytest.fixture(scope="module")
def disk():
    return models.get("vertical-disk")


@pytest.fixture(scope="module")
def disk_bh(disk):
    return disk.equations("boltzmann-hamel")            # u = (w_theta, w_phi)


def se2(space):
    """Generators of SE(2) acting on (x, y, θ, …): ∂x, ∂y and the rotation about the origin."""
    x, y = space.q[:2]
    n = space.n
    rot = [-y, x, 1] + [0] * (n - 3)
    return [VectorField.coordinate(space, x), VectorField.coordinate(space, y), VectorField(space, rot + (
        [0] if space.t is not None else []))]


def disk_generators(space):
    """SE(2) × S¹ for the vertical disk: translations, rotation (x, y, θ) and the rolling angle."""
    return se2(space) + [VectorField.coordinate(space, space.q[3])]


def sym(name):
    return sp.Symbol(name, positive=True)


def params_of(eqs):
    syms = set()
    for e in list(eqs.mass_matrix) + list(eqs.forcing) + list(eqs.kinematics):
        syms |= sp.sympify(e).free_symbols
    syms -= set(eqs.u) | set(eqs.space.coords)
    return {s.name: 0.7 + 0.3 * k for k, s in enumerate(sorted(syms, key=lambda s: s.name))}


# ----------------------------------------------------------------------------------------------
# 1. energy and Jacobi's integral
# ----------------------------------------------------------------------------------------------
def test_sleigh_energy_conserved_with_every_term_checked(sleigh_bh):
    m, a, I = sym("m"), sym("a"), sym("I")
    v, w = sleigh_bh.u
    E = energy_integral(sleigh_bh)
    assert E.conserved and not E.reasons()
    assert set(E.vanishing) == {"-dL/dt (explicit time)", "power of non-potential forces", "power of the reactions"}
    assert is_zero(E.expression - (m * v**2 / 2 + (I + m * a**2) * w**2 / 2))
    h = jacobi_integral(sleigh_bh)
    assert h.conserved and is_zero(h.expression - E.expression)     # scleronomic: h = E


def test_jacobi_integral_rheonomic_conditions_decided():
    """Rotating knife edge (blade θ = ω t, homogeneous but time-dependent constraint): without
    the force h = ½ m v² is conserved — the reactions do no work because b = 0; the force F
    does work.  The skate on a belt (affine constraint, b ≠ 0): the reactions do work."""
    free = mech.rotating_knife_edge(force=False).equations("boltzmann-hamel")
    h = jacobi_integral(free)
    assert h.conserved and "homogeneous" in h.note
    assert is_zero(h.expression - sym("m") * free.u[0] ** 2 / 2)
    pushed = models.get("rotating-knife-edge").equations("boltzmann-hamel")
    h = jacobi_integral(pushed)
    assert not h.conserved and h.reasons() == ["power of non-potential forces"]
    belt = models.get("skate-on-belt").equations("boltzmann-hamel")
    h = jacobi_integral(belt)
    assert not h.conserved and h.reasons() == ["power of the reactions"]
    assert not energy_integral(belt).conserved
    ball = models.get("ball-on-turntable").equations("boltzmann-hamel")
    h = jacobi_integral(ball)
    assert not h.conserved and "power of the reactions" in h.reasons()


def test_jacobi_verdicts_agree_with_simulation():
    free = mech.rotating_knife_edge(force=False).equations("boltzmann-hamel")
    p = {"m": 1.3, "omega": 0.8}
    assert verify_along((free, [0.1, 0.2, 0.9], (0.0, 5.0), p), jacobi_integral(free), rtol=1e-12, atol=1e-12) < 1e-10
    belt = models.get("skate-on-belt").equations("boltzmann-hamel")
    pb = {"m": 1.0, "I": 0.5, "k": 2.0, "b": 0.7}
    dev = verify_along((belt, [0.1, 0.2, 0.3, 0.5, 0.4], (0.0, 3.0), pb), jacobi_integral(belt))
    assert dev > 1e-3


def test_multiplier_forms_are_refused(sleigh):
    with pytest.raises(NotLinearError, match="without multipliers"):
        energy_integral(sleigh.equations("lagrange"))


# ----------------------------------------------------------------------------------------------
# 2. nonholonomic momentum map and momentum equation
# ----------------------------------------------------------------------------------------------
def test_sleigh_momenta_and_momentum_equation(sleigh, sleigh_bh):
    """SE(2) on the sleigh: S = D (the orbits are all of Q).  The sections come out as the
    blade direction cos θ ∂x + sin θ ∂y and the rotation about the contact point ∂θ; their
    momenta are the linear momentum m v along the blade and the angular momentum about the
    contact point (I + m a²) ω.  The momentum equation gives d(m v)/dt = m a ω² and
    d((I + m a²) ω)/dt = −m a v ω — the sleigh's equations (Chaplygin 1911; Bloch 2003,
    § 1.7) — so neither is conserved: the sleigh has its energy but not the angular momentum
    about the contact point."""
    S = sleigh.system.space
    x, y, th = S.q
    m, a, I = sym("m"), sym("a"), sym("I")
    v, w = sleigh_bh.u
    mm = momentum_map(sleigh.system, se2(S))
    assert mm.rank == 2
    secs = [list(s.components) for s in mm.sections]
    assert secs == [[sp.cos(th), sp.sin(th), 0], [0, 0, 1]]
    assert mm.momenta[1].coefficients == (y, -x, 1)          # ∂θ = y ∂x − x ∂y + (rotation)
    J1, J2 = mm.on(sleigh_bh)
    assert is_zero(J1.expression - m * v) and is_zero(J1.rate - m * a * w**2)
    assert is_zero(J2.expression - (I + m * a**2) * w) and is_zero(J2.rate + m * a * v * w)
    assert not any(mom.conserved for mom in mm.momenta) and not any(mom.horizontal for mom in mm.momenta)
    assert mm.check(sleigh_bh) == [True, True]
    assert mm.check(sleigh.equations("voronets")) == [True, True]
    assert conserved_momenta(sleigh.system, se2(S), sleigh_bh) == []


def test_vertical_disk_momenta_conserved(disk, disk_bh):
    """BKMM 1996 (§ 4, the rolling disk): under SE(2) × S¹ the nonholonomic momenta are the
    spin about the vertical I θ̇ and the rolling momentum (J + m R²) φ̇, both conserved, though
    neither symmetry is horizontal (ξ depends on q; the right-hand side p·(dξ/dt)^Q vanishes on
    the constraints)."""
    S = disk.system.space
    m, I, J, R = sym("m"), sym("I"), sym("J"), sym("R")
    wth, wph = disk_bh.u
    mm = momentum_map(disk.system, disk_generators(S))
    assert mm.rank == 2 and all(mom.conserved and not mom.horizontal for mom in mm.momenta)
    assert mm.check(disk_bh) == [True, True]
    cons = conserved_momenta(disk.system, disk_generators(S), disk_bh)
    got = sorted(cons, key=lambda c: str(c.expression))
    assert is_zero(got[0].expression - I * wth) or is_zero(got[1].expression - I * wth)
    assert any(is_zero(c.expression - (J + m * R**2) * wph) for c in cons)
    assert all(c.conserved for c in cons)


def test_momentum_equation_with_torques():
    """With a steering torque τ_θ and a driving torque τ_φ the momentum equation gains Q*·ξ^Q:
    d(I θ̇)/dt = τ_θ, and the rolling momentum changes by τ_φ."""
    d = mech.vertical_rolling_disk(torques=True)
    eqs = d.equations("boltzmann-hamel")
    mm = momentum_map(d.system, disk_generators(d.system.space))
    assert mm.check(eqs) == [True, True]
    tt, tp = sp.symbols("tau_theta tau_phi", real=True)
    S = d.system.space
    spin = next(mom for mom in mm.momenta if list(mom.section.components) == [0, 0, 1, 0])
    assert spin.rate == tt and not spin.conserved
    roll = next(mom for mom in mm.momenta if mom is not spin)
    assert is_zero(roll.rate.subs({S.qd[0]: sp.Symbol("R", positive=True) * sp.cos(S.q[2]) * S.qd[3],
                                   S.qd[1]: sp.Symbol("R", positive=True) * sp.sin(S.q[2]) * S.qd[3]}) - tp)


def test_heavy_top_horizontal_symmetry():
    """No constraints: S = T(orbit); rotation about the vertical (∂ψ) is horizontal and p_ψ
    is conserved."""
    top = models.get("heavy-top")
    mm = momentum_map(top.system, [[1, 0, 0]])
    (mom,) = mm.momenta
    assert mom.horizontal and mom.conserved and mom.rate == 0
    assert is_zero(mom.momentum - top.system.momenta[0])
    assert mm.check(top.equations("boltzmann-hamel")) == [True]


def test_symmetry_failures_are_named(sleigh, disk):
    S = sleigh.system.space
    # rotation of the body about its blade point without moving it: T has the a-terms
    with pytest.raises(SymmetryError, match="kinetic energy"):
        check_symmetry(sleigh.system, [VectorField.coordinate(S, S.q[2])])
    # rotation of the contact point about the origin with the heading fixed: T is invariant,
    # the rolling constraints are not
    D = disk.system.space
    x, y = D.q[:2]
    with pytest.raises(SymmetryError, match="constraint distribution"):
        check_symmetry(disk.system, [VectorField(D, [-y, x, 0, 0])])
    knife = models.get("inclined-knife-edge")
    with pytest.raises(SymmetryError, match="potential"):
        momentum_map(knife.system, [VectorField.coordinate(knife.system.space, "x")])
    # ∂y is a symmetry of the inclined knife edge (V = −m g sin α x)
    mm = momentum_map(knife.system, [[0, 1, 0]])
    assert mm.rank == 0


def test_given_sections_are_checked(disk):
    D = disk.system.space
    with pytest.raises(SymmetryError, match="not in the constraint distribution"):
        momentum_map(disk.system, disk_generators(D), sections=[VectorField.coordinate(D, "x")])
    mm = momentum_map(disk.system, disk_generators(D), sections=[VectorField.coordinate(D, "theta")])
    assert mm.rank == 1 and mm.momenta[0].conserved


# ----------------------------------------------------------------------------------------------
# 3. polynomial first integrals
# ----------------------------------------------------------------------------------------------
def test_sleigh_has_only_its_energy(sleigh_bh):
    """Degree ≤ 2 with constant (parameter-dependent) coefficients: only 2E; degree 1 with
    trigonometric coefficients in θ: none — in particular no momentum is conserved."""
    m, a, I = sym("m"), sym("a"), sym("I")
    v, w = sleigh_bh.u
    r = polynomial_first_integrals(sleigh_bh, 2)
    assert len(r.integrals) == 1
    assert is_zero(r.integrals[0] - (m * v**2 + (I + m * a**2) * w**2))
    assert r.contains(energy_integral(sleigh_bh).expression)
    th = sleigh_bh.space.q[2]
    none = polynomial_first_integrals(sleigh_bh, 1, coordinates=[th])
    assert not none.found and none.complete and "no first integral of this ansatz exists" in none.message()


def test_vertical_disk_integrals(disk_bh):
    """Rolling rate, spin rate, energy; with coefficients polynomial in (x, y) and
    trigonometric in θ also the two integrals w_θ x − R sin θ w_φ, w_θ y + R cos θ w_φ
    (w_θ times the centre of the circle the contact point runs on)."""
    wth, wph = disk_bh.u
    x, y, th, _ = disk_bh.space.q
    R = sym("R")
    r1 = polynomial_first_integrals(disk_bh, 1)
    assert set(r1.integrals) == {wth, wph}
    r2 = polynomial_first_integrals(disk_bh, 2)
    assert len(r2.integrals) == 5 and r2.contains(energy_integral(disk_bh).expression)
    assert len(r2.independent()) == 2
    r = polynomial_first_integrals(disk_bh, 1, coordinates={x: "poly", y: "poly", th: "trig"})
    assert len(r.integrals) == 4
    assert r.contains(wth * x - R * sp.sin(th) * wph) and r.contains(wth * y + R * sp.cos(th) * wph)
    assert not r.contains(x * wph)
    assert len(IntegralSearch(disk_bh, r.ansatz, r.integrals).independent()) == 4


def test_ball_on_turntable_centre_integrals():
    """The ball on a uniformly rotating table (rheonomic): the centre moves on a circle,
    ẍ = −k Ω ẏ, ÿ = k Ω x with k = I/(I + m r²); the search finds w_z and
    (I + m r²) w_x − Ω m r x, (I + m r²) w_y − Ω m r y (coefficients depend on the parameters)."""
    b = models.get("ball-on-turntable")
    eqs = b.equations("boltzmann-hamel")
    x, y = eqs.space.q[3:5]
    wx, wy, wz = eqs.u
    m, r, I, Om = sym("m"), sym("r"), sym("I"), sym("Omega")
    res = polynomial_first_integrals(eqs, 1, coordinates={x: "poly", y: "poly"})
    assert len(res.integrals) == 3
    for expected in (wz, (I + m * r**2) * wx - Om * m * r * x, (I + m * r**2) * wy - Om * m * r * y):
        assert res.contains(expected)


def test_tilted_disk_energy_only_at_low_degree():
    """The rolling (tilted) disk's further integrals (Appell–Korteweg) are not polynomial in the
    speeds with constant coefficients: the search returns exactly T + V at degree 2."""
    eqs = models.get("tilted-disk").equations("boltzmann-hamel")
    assert energy_integral(eqs).conserved
    assert not polynomial_first_integrals(eqs, 1).found
    r = polynomial_first_integrals(eqs, 2)
    assert len(r.integrals) == 1 and r.contains(energy_integral(eqs).expression)


def test_search_input_checks(disk_bh):
    with pytest.raises(DimensionError):
        polynomial_first_integrals(disk_bh, 1, coordinates=["theta"], kind="bessel")
    with pytest.raises(NotLinearError):
        polynomial_first_integrals(disk_bh, 1, functions=[disk_bh.u[0]])


# ----------------------------------------------------------------------------------------------
# 4. along simulate (property-based)
# ----------------------------------------------------------------------------------------------
@settings(deadline=None, max_examples=4)
@given(st.floats(-2.0, 2.0), st.floats(-2.0, 2.0), st.floats(-3.0, 3.0))
def test_sleigh_integrals_constant_along_simulate(sleigh_bh, v0, w0, th0):
    p = params_of(sleigh_bh)
    tr = simulate(sleigh_bh, [0.0, 0.0, th0, v0, w0], (0.0, 4.0), p, rtol=1e-12, atol=1e-12)
    for I in [energy_integral(sleigh_bh)] + list(polynomial_first_integrals(sleigh_bh, 2).integrals):
        assert verify_along(tr, I) < 1e-10


@settings(deadline=None, max_examples=4)
@given(st.floats(-2.0, 2.0), st.floats(-2.0, 2.0), st.floats(-3.0, 3.0), st.floats(-1.0, 1.0))
def test_disk_integrals_constant_along_simulate(disk, disk_bh, w1, w2, th0, x0):
    p = params_of(disk_bh)
    tr = simulate(disk_bh, [x0, 0.3, th0, 0.1, w1, w2], (0.0, 4.0), p, rtol=1e-12, atol=1e-12)
    x, y, th, _ = disk_bh.space.q
    found = polynomial_first_integrals(disk_bh, 1, coordinates={x: "poly", y: "poly", th: "trig"}).integrals
    conserved = conserved_momenta(disk.system, disk_generators(disk.system.space), disk_bh)
    for I in [energy_integral(disk_bh), *found, *conserved]:
        assert verify_along(tr, I) < 1e-10


@settings(deadline=None, max_examples=3)
@given(st.lists(st.floats(-1.5, 1.5), min_size=4, max_size=4), st.floats(-3.0, 3.0))
def test_momenta_in_velocities_along_projected_lagrange(disk, vel, th0):
    """The momenta J(q, q̇) of the momentum map, checked along Lagrange's equations with
    multipliers from random velocities projected onto the constraints (project=True)."""
    lag = disk.equations("lagrange")
    p = params_of(lag)
    y0 = [0.2, -0.1, th0, 0.0] + list(vel)
    tr = simulate(lag, y0, (0.0, 3.0), p, project=True, rtol=1e-12, atol=1e-12)
    mm = momentum_map(disk.system, disk_generators(disk.system.space))
    for mom in mm.momenta:
        assert verify_along(tr, mom) < 1e-10


def test_verify_along_simulates_and_sees_non_integrals(sleigh, sleigh_bh):
    p = params_of(sleigh_bh)
    mm = momentum_map(sleigh.system, se2(sleigh.system.space))
    src = (sleigh_bh, [0.0, 0.0, 0.3, 1.0, 0.8], (0.0, 3.0), p)
    assert verify_along(src, energy_integral(sleigh_bh), rtol=1e-12, atol=1e-12) < 1e-10
    for mom in mm.momenta:                 # m v and (I + m a²) ω change along the motion
        assert verify_along(src, mom) > 1e-3
    with pytest.raises(DimensionError):
        verify_along("not a trajectory", sp.S.One)
    tr = simulate(sleigh_bh, [0.0, 0.0, 0.3, 1.0, 0.8], (0.0, 1.0), p)
    assert verify_along(tr, sleigh_bh.u[0]) > 1e-3 and np.isfinite(verify_along(tr, sleigh_bh.u[1]))


# ----------------------------------------------------------------------------------------------
# the Chaplygin ball (the model chaplygin-ball)
# ----------------------------------------------------------------------------------------------
@pytest.mark.slow
def test_chaplygin_ball_integrals():
    """Chaplygin's ball (mass centre at the geometric centre, principal moments I1, I2, I3;
    Chaplygin 1903; Borisov & Mamaev 2002): energy, the vertical component of the angular
    momentum about the contact point K·γ and |K|², K = I Ω + m r² (Ω − (Ω·γ) γ) in body axes.
    K·γ is the nonholonomic momentum of the rotation about the vertical through the contact
    point (its momentum equation has zero right-hand side) and the degree-1 search with
    coefficients trigonometric in (θ, φ) finds exactly it."""
    from geonh import boltzmann_hamel
    from geonh.analysis import is_integral
    model = models.get("chaplygin-ball")
    ball, S = model.system, model.space
    ps, th, ph, x, y = S.q
    m, r, I1, I2, I3 = model.parameters
    eqs = boltzmann_hamel(ball, model.frame)
    W = eqs.u
    gam = [sp.sin(th) * sp.sin(ph), sp.sin(th) * sp.cos(ph), sp.cos(th)]
    Wg = sum(w * g for w, g in zip(W, gam))
    K = [Ii * W[i] + m * r**2 * (W[i] - Wg * gam[i]) for i, Ii in enumerate((I1, I2, I3))]
    Kg = sum(k * g for k, g in zip(K, gam))
    assert energy_integral(eqs).conserved
    assert is_integral(eqs, sum(k**2 for k in K))
    mm = momentum_map(ball, [[0, 0, 0, 1, 0], [0, 0, 0, 0, 1], [1, 0, 0, -y, x]])
    (mom,) = mm.momenta
    assert list(mom.section.components) == [1, 0, 0, 0, 0] and mom.conserved and not mom.horizontal
    assert is_zero(mm.on(eqs)[0].expression - Kg) and mm.check(eqs) == [True]
    res = polynomial_first_integrals(eqs, 1, coordinates=[th, ph])
    assert len(res.integrals) == 1 and is_zero(res.integrals[0] - Kg)


@pytest.mark.slow
def test_chaplygin_ball_four_integrals_along_simulate():
    """The ball's four integrals — energy ½ K·Ω, K·γ, |K|² and |γ|² = 1 — stay constant to
    1e-10 along a simulated motion (DOP853 at tolerances 1e-12)."""
    from geonh import boltzmann_hamel
    model = models.get("chaplygin-ball")
    ps, th, ph, x, y = model.space.q
    m, r, I1, I2, I3 = model.parameters
    eqs = boltzmann_hamel(model.system, model.frame)
    W = eqs.u
    gam = [sp.sin(th) * sp.sin(ph), sp.sin(th) * sp.cos(ph), sp.cos(th)]
    Wg = sum(w * g for w, g in zip(W, gam))
    K = [Ii * W[i] + m * r**2 * (W[i] - Wg * gam[i]) for i, Ii in enumerate((I1, I2, I3))]
    integrals = {"energy": sum(k * w for k, w in zip(K, W)) / 2, "K.gamma": sum(k * g for k, g in zip(K, gam)),
                 "|K|^2": sum(k**2 for k in K), "|gamma|^2": sum(g**2 for g in gam)}
    p = {m: 1.0, r: 0.5, I1: 0.3, I2: 0.45, I3: 0.6}
    tr = simulate(eqs, [0.2, 1.1, 0.4, 0.0, 0.0, 0.7, -0.4, 1.3], (0.0, 4.0), p, rtol=1e-12, atol=1e-12)
    for name, I in integrals.items():
        assert verify_along(tr, I) < 1e-10, name
    # and the motion is not trivial: the body axes move
    assert abs(tr.y[1, -1] - tr.y[1, 0]) > 1e-2


# ----------------------------------------------------------------------------------------------
# momenta on the equations without the rates u̇ = M⁻¹F (issue 26: the spherical robot)
# ----------------------------------------------------------------------------------------------
def _robot_map():
    model = models.get("spherical-robot")
    S = model.space
    return model, momentum_map(model.system, [VectorField.coordinate(S, a) for a in S.q[5:8]])


def _count_general_route(monkeypatch) -> list:
    """Record the calls of the general derivative with the rates u̇ = M⁻¹F in the momenta."""
    import geonh.analysis.conserved as conserved
    calls: list = []
    general = conserved.time_derivative

    def counted(*args, **kw):
        calls.append(args[1])
        return general(*args, **kw)
    monkeypatch.setattr(conserved, "time_derivative", counted)
    return calls


def _rate_at_random_states(eqs, integral, seed=3, states=3):
    """dJ/dt at random rational states from u̇ solved numerically (Equations.solve_point),
    independently of the symbolic rate: the pairs (symbolic rate there, that value)."""
    import random

    from geonh.analysis.integrals import expression_in
    rng = random.Random(seed)
    S = eqs.space
    J = expression_in(eqs, integral.expression)
    syms = sorted(J.free_symbols | integral.rate.free_symbols | set(S.q) | set(eqs.u)
                  | sp.Matrix(eqs.mass_matrix).free_symbols | sp.Matrix(eqs.forcing).free_symbols, key=str)
    out = []
    for _ in range(states):
        pt = {s: sp.Rational(rng.randint(2, 19), rng.randint(3, 11)) for s in syms}
        ud = eqs.solve_point(pt)
        full = sum((sp.diff(J, q) * k for q, k in zip(S.q, eqs.kinematics)), sp.S.Zero)
        full += sum((sp.diff(J, u) * a for u, a in zip(eqs.u, ud)), sp.S.Zero)
        out.append((sp.N(integral.rate.xreplace(pt), 30), sp.N(full.xreplace(pt), 30)))
    return out


@pytest.mark.slow
@pytest.mark.parametrize("form", ["boltzmann-hamel", "kane", "voronets"])
def test_spherical_robot_rotor_momenta_on_equations_fast_and_right(form, monkeypatch):
    """The rotor momenta J_k (Ω_k + α̇_k) of the spherical robot on its 8-coordinate equations:
    before, the rates u̇ = M⁻¹F (~10⁶ operations as a tree) took ~100 s CPU and gigabytes; now
    dJ/dt = ∂_q J·K + y·F (∂J/∂u = ±Mᵀy) in well under 10 s.  Checked: conserved, the
    expression equals p·ξ at q̇ = K(q, u) at random states, the rate vanishes at random states
    with u̇ solved numerically, the momentum equation holds, and geonh.testing's independent
    first-integral check passes."""
    import random
    import time

    from geonh.testing.properties import first_integral
    model, mm = _robot_map()
    eqs = model.equations(form)
    general = _count_general_route(monkeypatch)
    t = time.process_time()
    res = mm.on(eqs)
    assert time.process_time() - t < 10.0
    assert general == []                        # no u̇ = M⁻¹F needed
    assert [r.conserved for r in res] == [True, True, True]
    assert mm.check(eqs) == [True, True, True]
    S = model.space
    rng = random.Random(7)
    for r, m in zip(res, mm.momenta):
        first_integral(eqs, r.expression)
        for _ in range(3):
            pt = {s: sp.Rational(rng.randint(1, 9), rng.randint(2, 7))     # θ ≠ 0: the frame is regular
                  for s in r.expression.free_symbols | m.momentum.free_symbols | set(S.q) | set(eqs.u)
                  if s not in S.qd}
            pt.update({v: sp.sympify(k).xreplace(pt) for v, k in zip(S.qd, eqs.kinematics)})
            assert abs(sp.N(r.expression.xreplace(pt) - m.momentum.xreplace(pt), 40)) < 1e-30
        for fast, full in _rate_at_random_states(eqs, r):
            assert abs(fast) < 1e-20 and abs(full) < 1e-20
    if form == "boltzmann-hamel":
        W, a = eqs.u[:3], eqs.u[3:]
        J = sp.symbols("J1 J2 J3", positive=True)
        for k, r in enumerate(res):
            assert is_zero(r.expression - J[k] * (W[k] + a[k]))


@pytest.mark.slow
def test_momentum_rate_without_rates_equals_general_rate():
    """The snakeboard's SE(2) momentum (not conserved: ṗ = cos φ φ̇ ((J − m r²) θ̇ + J₀ ψ̇)) on its
    Boltzmann–Hamel and Kane equations: the rate computed without u̇ = M⁻¹F equals, at random
    states, the general one with u̇ solved numerically; the verdict is "not conserved"."""
    model = models.get("snakeboard")
    S = model.space
    mm = momentum_map(model.system, [VectorField.coordinate(S, c) for c in S.q[:2]]
                      + [VectorField(S, [-S.q[1], S.q[0], 1, 0, 0])])
    for form in ("boltzmann-hamel", "kane"):
        eqs = model.equations(form)
        res = mm.on(eqs)
        assert [r.conserved for r in res] == [False]
        assert mm.check(eqs) == [True]
        for fast, full in _rate_at_random_states(eqs, res[0]):
            assert abs(fast) > 1e-6 and abs(fast - full) < 1e-20 * max(1, abs(full))


@pytest.mark.slow
def test_momentum_rate_general_route_when_mass_matrix_is_not_the_frame_gram(monkeypatch):
    """Equations with rows of M u̇ = F scaled by 1 + θ² (the same motion, but M is no longer
    ±K_uᵀ G K_u): the shortcut's check fails and the general derivative with u̇ = M⁻¹F is used —
    same verdicts and the same rate as a function as on the unscaled equations."""
    from geonh.equations.base import Equations
    model = models.get("snakeboard")
    S = model.space
    eqs = model.equations("boltzmann-hamel")
    D = sp.diag(*[1 + S.q[2] ** 2 + k for k in range(len(eqs.u))])
    scaled = Equations("boltzmann-hamel", eqs.system, eqs.u, eqs.ud, eqs.kinematics, eqs.speeds,
                       linear=(D * eqs.mass_matrix, D * eqs.forcing), frame=eqs.frame)
    mm = momentum_map(model.system, [VectorField.coordinate(S, c) for c in S.q[:2]]
                      + [VectorField(S, [-S.q[1], S.q[0], 1, 0, 0])])
    general = _count_general_route(monkeypatch)
    a = mm.on(eqs)[0]
    assert general == []
    b = mm.on(scaled)[0]
    assert len(general) == 1
    assert not a.conserved and not b.conserved
    assert is_zero(a.rate - b.rate)
    assert mm.check(scaled) == [True]


def test_momenta_on_equations_honour_the_budget():
    """A geonh.budget that is used up stops the momenta on the equations between momenta with
    BudgetExceededError naming the step (no unbounded work)."""
    import time

    import geonh
    from geonh.errors import BudgetExceededError
    model, mm = _robot_map()
    eqs = model.equations("boltzmann-hamel")
    with pytest.raises(BudgetExceededError, match="momenta on the equations"):
        with geonh.budget(seconds=1e-3):
            time.sleep(0.01)
            mm.on(eqs)
    with pytest.raises(BudgetExceededError, match="momentum equations on the equations"):
        with geonh.budget(seconds=1e-3):
            time.sleep(0.01)
            mm.check(eqs)
