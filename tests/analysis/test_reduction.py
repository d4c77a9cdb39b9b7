"""Reduction, reconstruction and geometric phase (geonh.analysis.reduction; issue 26 part 1).

Sources: Bloch, Krishnaprasad, Marsden & Murray 1996, ARMA 136, 21–99 ("BKMM": the
nonholonomic connection, the momentum equation (Thm 4.5), the reduced equations and the
reconstruction equation, the snakeboard in § 7 with J = m r²); Kelly & Murray 1995, J. Robotic
Systems 12 (the curvature DA = dA − [A, A] and the phase of a small loop); the vertical rolling
disk ẋ = R cos θ φ̇, ẏ = R sin θ φ̇ (Bloch 2003, § 1.4), whose phase along an ellipse in shape
space is a Bessel function (computed below from ∮ R cos θ dφ).
"""
from __future__ import annotations

import numpy as np
import pytest
import sympy as sp
from scipy.special import jv

import geonh as g
from geonh import models
from geonh.models import literature
from geonh.analysis import (curvature, driven_system, nonholonomic_connection, phase_integral,
                            reduced_equations)
from geonh.kernel.generic_point import is_zero

t = sp.Symbol("t", real=True)
SNAKE_VALUES = {"m": 1, "r": sp.Rational(1, 2), "J": sp.Rational(1, 3), "J_0": sp.Rational(1, 10),
                "J_1": sp.Rational(1, 20)}


def _se2(space):
    x, y = space.q[0], space.q[1]
    n = space.n
    return [[1, 0] + [0] * (n - 2), [0, 1] + [0] * (n - 2), [-y, x, 1] + [0] * (n - 3)]


@pytest.fixture(scope="module")
def snake():
    sb = literature.snakeboard(torques=True)
    return sb.system, reduced_equations(sb.system, _se2(sb.system.space))


def _snake_symbols(system):
    x, y, th, ps, ph = system.space.q
    syms = {s.name: s for s in system.T.free_symbols | system.constraints.matrix().free_symbols
            | set().union(*(sp.sympify(Q).free_symbols for Q in system.Q))}
    return ps, ph, syms


@pytest.mark.slow
def test_snakeboard_connection_reconstruction_equation(snake):
    """BKMM § 7: S_q is spanned by r cos φ e_1 + sin φ ∂θ, the locked inertia is
    𝕀 = m r² cos²φ + J sin²φ, and the body velocity is g⁻¹ġ = (v, 0, θ̇) with
    v = r cos φ (p − J_0 sin φ ψ̇)/𝕀, θ̇ = sin φ (p − J_0 sin φ ψ̇)/𝕀 (for J = m r²:
    v = cos φ (p − J_0 sin φ ψ̇)/(m r), θ̇ = sin φ (p − J_0 sin φ ψ̇)/(m r²))."""
    system, red = snake
    c = red.connection
    ps, ph, s = _snake_symbols(system)
    m, r, J, J0 = s["m"], s["r"], s["J"], s["J_0"]
    assert [q.name for q in c.group] == ["x", "y", "theta"] and [q.name for q in c.shape] == ["psi", "phi"]
    assert len(c.momenta) == 1 and not c.kinematic
    I = m * r**2 * sp.cos(ph)**2 + J * sp.sin(ph)**2
    assert is_zero(c.locked_inertia[0, 0] - I)
    p = c.momenta[0]
    wps, wph = red.speeds[:2]
    expect = [r * sp.cos(ph) * (p - J0 * sp.sin(ph) * wps) / I, 0, sp.sin(ph) * (p - J0 * sp.sin(ph) * wps) / I]
    assert all(is_zero(a - b) for a, b in zip(red.reconstruction, expect))
    A, G = c.local()
    assert all(is_zero(e) for e in A[:, 1]) and is_zero(A[0, 0] - r * J0 * sp.sin(ph) * sp.cos(ph) / I)
    assert is_zero(G[2, 0] - sp.sin(ph) / I)
    bk = {J: m * r**2}
    assert is_zero(red.reconstruction[0].xreplace(bk) - sp.cos(ph) * (p - J0 * sp.sin(ph) * wps) / (m * r))


@pytest.mark.slow
def test_snakeboard_momentum_equation_as_bkmm(snake):
    """BKMM Thm 4.5 / § 7: ṗ = cos φ φ̇ ((J − m r²) θ̇ + J_0 ψ̇) with θ̇ = sin φ (p − J_0 sin φ ψ̇)/𝕀;
    for BKMM's J = m r², ṗ = J_0 cos φ φ̇ ψ̇; with the section scaled by cos φ (P = p cos φ),
    Ṗ = J_0 cos²φ φ̇ ψ̇ − tan φ φ̇ P.  The torques on ψ and φ do not enter."""
    system, red = snake
    c = red.connection
    ps, ph, s = _snake_symbols(system)
    m, r, J, J0 = s["m"], s["r"], s["J"], s["J_0"]
    p = c.momenta[0]
    wps, wph = red.speeds[:2]
    I = m * r**2 * sp.cos(ph)**2 + J * sp.sin(ph)**2
    thd = sp.sin(ph) * (p - J0 * sp.sin(ph) * wps) / I
    (pdot,) = red.momentum_rates
    assert is_zero(pdot - sp.cos(ph) * wph * ((J - m * r**2) * thd + J0 * wps))
    assert is_zero(pdot.xreplace({J: m * r**2}) - J0 * sp.cos(ph) * wph * wps)
    assert not (pdot.free_symbols & {s["tau_psi"], s["tau_phi"]})
    x, y, th = system.space.q[:3]
    sec = [r * sp.cos(ph)**2 * sp.cos(th), r * sp.cos(ph)**2 * sp.sin(th), sp.sin(ph) * sp.cos(ph), 0, 0]
    bkmm = g.MechanicalSystem(system.space, system.T.xreplace({J: m * r**2}), constraints=system.constraints,
                              conditions=[m * r**2 > J0])
    red2 = reduced_equations(bkmm, _se2(system.space), sections=[sec])
    P = red2.connection.momenta[0]
    w2 = red2.speeds[:2]
    assert is_zero(red2.momentum_rates[0]
                   - (J0 * sp.cos(ph)**2 * w2[1] * w2[0] - sp.tan(ph) * w2[1] * P))


@pytest.mark.slow
def test_snakeboard_reduced_shape_equations(snake):
    """The reduced Lagrange–d'Alembert–Poincaré equations of the shape (BKMM § 7): no
    constraint involves ψ̇ or φ̇'s conjugate directions beyond the board, so Lagrange's ψ and φ
    equations hold without reactions: J_0 (ψ̈ + θ̈) = τ_ψ and 2 J_1 φ̈ = τ_φ, with θ̇ from the
    reconstruction equation and ṗ from the momentum equation; for J = m r² this is
    J_0 (1 − J_0 sin²φ/(m r²)) ψ̈ = τ_ψ − (J_0/(m r²)) cos φ φ̇ (p − J_0 sin φ ψ̇)."""
    system, red = snake
    c = red.connection
    ps, ph, s = _snake_symbols(system)
    m, r, J, J0, J1 = s["m"], s["r"], s["J"], s["J_0"], s["J_1"]
    tps, tph = s["tau_psi"], s["tau_phi"]
    p = c.momenta[0]
    wps, wph = red.speeds[:2]
    psdd, phdd = red.shape_rates
    assert is_zero(phdd - tph / (2 * J1))
    thd = red.reconstruction[2]
    # θ̈ along the motion: chain rule with φ̈, ψ̈ and ṗ of the reduced equations
    thdd = (sp.diff(thd, ph) * wph + sp.diff(thd, wps) * psdd + sp.diff(thd, wph) * phdd
            + sp.diff(thd, p) * red.momentum_rates[0])
    assert is_zero(J0 * (psdd + thdd) - tps)
    bk = {J: m * r**2}
    assert is_zero(J0 * (1 - J0 * sp.sin(ph)**2 / (m * r**2)) * psdd.xreplace(bk)
                   - (tps - J0 / (m * r**2) * sp.cos(ph) * wph * (p - J0 * sp.sin(ph) * wps)))


@pytest.mark.slow
@pytest.mark.parametrize("J", [sp.Rational(1, 3), sp.Rational(1, 2)])     # J ≠ m r², and BKMM's J = m r²
def test_snakeboard_reduced_equations_match_lagrange_with_multipliers(snake, J):
    """An independent derivation of the reduced equations: Lagrange's equations with
    multipliers (``g.lagrange``) of the same system, solved at exact states on D.  The state
    (x, y, θ, ψ, φ; ψ̇, φ̇, p) is mapped to (q, q̇) by the connection (q̇ = X ξ + ṙ); then ψ̈ and
    φ̈ of Lagrange's equations equal ``shape_rates`` and d/dt p(q, q̇) = ∂p/∂q q̇ + ∂p/∂q̇ q̈
    equals ``momentum_rates``, for a general J and for BKMM's J = m r².

    No printed text of BKMM's (§ 7) or Ostrowski's reduced shape equations could be read for
    this check (docs/reduction.md): it compares two derivations, not geonh with a printed
    formula.  Angles with rational sines (θ = atan 5/12, φ = atan 3/4) keep everything exact."""
    system, red = snake
    c = red.connection
    S = system.space
    x, y, th, ps, ph = S.q
    _, _, s = _snake_symbols(system)
    p = c.momenta[0]
    wps, wph = red.speeds[:2]
    par = {s["m"]: 2, s["r"]: sp.Rational(1, 2), s["J"]: J, s["J_0"]: sp.Rational(1, 10),
           s["J_1"]: sp.Rational(1, 20), s["tau_psi"]: sp.Rational(3, 7), s["tau_phi"]: -sp.Rational(1, 9)}
    pt = {x: sp.Rational(1, 3), y: -2, th: sp.atan(sp.Rational(5, 12)), ps: sp.Rational(7, 5),
          ph: sp.atan(sp.Rational(3, 4))}
    eqs = g.lagrange(system)
    pmap = c.momentum_map.momenta[0].momentum
    for psd, phd, p0 in [(sp.Rational(2, 3), -sp.Rational(5, 4), sp.Rational(3, 11)), (sp.S(-1), sp.Rational(1, 2), sp.S(-2))]:
        shape = {S.qd[3]: psd, S.qd[4]: phd, p: p0}
        qd = {v: sp.radsimp(e.xreplace({**pt, **par, **shape})) for v, e in c.velocity().items()}
        qdd = eqs.accelerations({**pt, **par, **qd}, exact=True)
        assert all(isinstance(a, sp.Rational) for a in qdd)
        pdot = (sum((sp.diff(pmap, q) * qd[v] for q, v in zip(S.q, S.qd)), sp.S.Zero)
                + sum((sp.diff(pmap, v) * a for v, a in zip(S.qd, qdd)), sp.S.Zero))
        reduced_point = {ph: pt[ph], wps: psd, wph: phd, p: p0, **par}
        assert sp.radsimp(red.shape_rates[0].xreplace(reduced_point)) == qdd[3]
        assert sp.radsimp(red.shape_rates[1].xreplace(reduced_point)) == qdd[4]
        assert sp.radsimp(red.momentum_rates[0].xreplace(reduced_point)) == sp.radsimp(pdot.xreplace({**pt, **par, **qd}))


def _snake_initial(system, c, gait, p0, values):
    """The full state at t = 0 on the gait with momentum p0, g = e."""
    S = system.space
    ps, ph = S.q[3], S.q[4]
    r0 = {ps: gait["psi"].subs(t, 0), ph: gait["phi"].subs(t, 0)}
    rd0 = {S.qd[3]: sp.diff(gait["psi"], t).subs(t, 0), S.qd[4]: sp.diff(gait["phi"], t).subs(t, 0)}
    pv = {sy: values[sy.name] for sy in system.T.free_symbols | system.constraints.matrix().free_symbols
          if sy.name in values}
    pt = {S.q[0]: 0, S.q[1]: 0, S.q[2]: 0, **r0, **rd0, c.momenta[0]: p0}
    vel = c.velocity()
    qd0 = [float(vel[qd].xreplace(pv).xreplace(pt)) for qd in S.qd]
    return [0.0, 0.0, 0.0, float(r0[ps]), float(r0[ph])] + qd0


@pytest.mark.slow
@pytest.mark.parametrize("p0", [0.0, 0.2])
def test_snakeboard_gait_phase_matches_direct_simulation(snake, p0):
    """The phase of a periodic gait (ψ, φ) = (½ sin 2πt, 0.3 sin(2πt + π/4)) over one period:
    the reconstruction and momentum equations along the gait against the full equations
    (Lagrange's, with the shape driven along the gait by ideal rheonomic constraints) agree to
    1e-8 in the group coordinates and in the momentum."""
    system, red = snake
    free = g.MechanicalSystem(system.space, system.T, constraints=system.constraints, conditions=system.conditions)
    gait = {"psi": sp.sin(2 * sp.pi * t) / 2, "phi": sp.Rational(3, 10) * sp.sin(2 * sp.pi * t + sp.pi / 4)}
    vals = {k: v for k, v in SNAKE_VALUES.items()}
    rec = red.reconstruct(gait, (0, 1), momenta0=[p0], values={**vals, "tau_psi": 0, "tau_phi": 0})
    assert np.linalg.norm(rec.phase) > 0.1                 # the gait moves the board
    eqs = g.lagrange(driven_system(free, gait))
    y0 = _snake_initial(free, red.connection, gait, p0, vals)
    tr = g.simulate(eqs, y0, (0, 1), vals, rtol=1e-12, atol=1e-12)
    assert np.max(np.abs(tr.q[-1][:3] - rec.group[-1])) < 1e-8
    assert abs(tr.q[-1][3] - tr.q[0][3]) < 1e-12 and abs(tr.q[-1][4] - tr.q[0][4]) < 1e-12   # a closed loop
    J = red.connection.momentum_map.momenta[0].momentum
    sub = {sy: vals[sy.name] for sy in J.free_symbols if sy.name in vals}
    Jf = sp.lambdify([list(free.space.q) + list(free.space.qd)], J.xreplace(sub))
    assert abs(Jf(list(tr.q[-1]) + list(tr.u[-1])) - rec.momenta[-1][0]) < 1e-8


# ---------------------------------------------------------------------------------------------
# the vertical rolling disk: an abelian principal kinematic connection
# ---------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def disk():
    m = models.get("vertical-disk")
    return m.system, reduced_equations(m.system, [[1, 0, 0, 0], [0, 1, 0, 0]])


def test_vertical_disk_connection_and_curvature(disk):
    """ẋ = R cos θ φ̇, ẏ = R sin θ φ̇: ξ = −𝒜 ṙ with 𝒜 = −R (cos θ, sin θ) dφ (principal kinematic:
    no momentum), curvature B_θφ = ∂θ 𝒜_φ = R (sin θ, −cos θ)."""
    system, red = disk
    c = red.connection
    th, ph = system.space.q[2], system.space.q[3]
    R = next(s for s in system.constraints.matrix().free_symbols if s.name == "R")
    assert c.kinematic and c.momenta == () and red.momentum_rates == ()
    A, G = c.local()
    assert A == sp.Matrix([[0, -R * sp.cos(th)], [0, -R * sp.sin(th)]]) and G.shape == (2, 0)
    B = curvature(c)[(th, ph)]
    assert all(is_zero(a - b) for a, b in zip(B, [R * sp.sin(th), -R * sp.cos(th)]))
    assert red.shape_rates == (0, 0)


def test_vertical_disk_rectangle_phase_is_the_curvature_integral(disk):
    """The rectangle θ ∈ [θ0, θ1], φ ∈ [φ0, φ1] (counter-clockwise): the phase −∬B is
    (R (cos θ1 − cos θ0)(φ1 − φ0), R (sin θ1 − sin θ0)(φ1 − φ0)) in closed form, and the
    reconstruction along its four sides gives the same displacement to 1e-10."""
    system, red = disk
    c = red.connection
    a, b, c0, d = sp.symbols("theta0 theta1 phi0 phi1", real=True)
    R = next(s for s in system.constraints.matrix().free_symbols if s.name == "R")
    ph_int = phase_integral(c, {"theta": (a, b), "phi": (c0, d)})
    expect = [R * (sp.cos(b) - sp.cos(a)) * (d - c0), R * (sp.sin(b) - sp.sin(a)) * (d - c0)]
    assert all(sp.simplify(u - v) == 0 for u, v in zip(ph_int, expect))
    num = {a: 0.3, b: 1.4, c0: -0.5, d: 0.7, R: 0.25}
    sides = [{"theta": a + (b - a) * t, "phi": c0}, {"theta": b, "phi": c0 + (d - c0) * t},
             {"theta": b + (a - b) * t, "phi": d}, {"theta": a, "phi": d + (c0 - d) * t}]
    total = np.zeros(2)
    for side in sides:
        gait = {k: sp.sympify(v).xreplace(num) for k, v in side.items()}
        total += red.reconstruct(gait, (0, 1), values={"R": 0.25}).phase
    assert np.max(np.abs(total - np.array([float(e.xreplace(num)) for e in expect]))) < 1e-10


@pytest.mark.slow
def test_vertical_disk_ellipse_phase_bessel_and_direct_simulation(disk):
    """The gait θ = θ0 + a cos 2πt, φ = b sin 2πt: −∮𝒜 = ∮ R (cos θ, sin θ) dφ
    = 2π R b J_1(a) (−sin θ0, cos θ0) (J_1 Bessel's function: ∫ cos(a cos s) cos s ds = 0,
    ∫ sin(a cos s) cos s ds = 2π J_1(a)); the reconstruction and the direct simulation of the
    disk driven along the gait agree with it to 1e-9."""
    system, red = disk
    th0, a, b, R = 0.7, 0.9, 1.3, 0.25
    gait = {"theta": th0 + a * sp.cos(2 * sp.pi * t), "phi": b * sp.sin(2 * sp.pi * t)}
    closed = 2 * np.pi * R * b * jv(1, a) * np.array([-np.sin(th0), np.cos(th0)])
    rec = red.reconstruct(gait, (0, 1), values={"R": R})
    assert np.max(np.abs(rec.phase - closed)) < 1e-9
    eqs = g.lagrange(driven_system(system, gait))
    S = system.space
    y0 = [0, 0, th0 + a, 0, R * np.cos(th0 + a) * 2 * np.pi * b, R * np.sin(th0 + a) * 2 * np.pi * b, 0,
          2 * np.pi * b]
    tr = g.simulate(eqs, y0, (0, 1), {"R": R, "m": 1, "I": 0.3, "J": 0.2}, rtol=1e-12, atol=1e-12)
    assert [str(q) for q in eqs.q] == [s.name for s in S.q]
    assert np.max(np.abs(tr.q[-1][:2] - closed)) < 1e-9


# ---------------------------------------------------------------------------------------------
# a non-abelian kinematic connection: the differential-drive robot on SE(2)
# ---------------------------------------------------------------------------------------------
@pytest.mark.slow
def test_differential_drive_small_loop_phase_is_minus_curvature():
    """SE(2) on (x, y, θ), shape (φ_R, φ_L), three constraints: principal kinematic,
    g⁻¹ġ = (r (φ̇_R + φ̇_L)/2, 0, r (φ̇_R − φ̇_L)/(2L)); dA = 0 and the curvature is the bracket
    term alone, B = −[𝒜_R, 𝒜_L] = (0, −r²/(2L), 0): a small ε-square loop moves the robot
    sideways by −B ε² + O(ε³) (Kelly & Murray 1995).  phase_integral refuses the non-abelian
    group unless asked for the approximation."""
    dd = models.get("differential-drive")
    S = dd.system.space
    red = reduced_equations(dd.system, _se2(S))
    c = red.connection
    r_, L_ = (next(s for s in dd.system.constraints.matrix().free_symbols if s.name == n) for n in ("r", "L"))
    B = curvature(c)[(S.q[3], S.q[4])]
    assert list(B) == [0, -r_**2 / (2 * L_), 0]
    vals = {"r": 0.3, "L": 0.5}
    eps = 1e-3
    sides = [{"phiR": eps * t, "phiL": 0}, {"phiR": eps, "phiL": eps * t},
             {"phiR": eps * (1 - t), "phiL": eps}, {"phiR": 0, "phiL": eps * (1 - t)}]
    g0 = {"x": 0.0, "y": 0.0, "theta": 0.0}
    for side in sides:
        g0 = dict(zip(["x", "y", "theta"], red.reconstruct(side, (0, 1), group0=g0, values=vals).group[-1]))
    lead = -eps**2 * np.array([float(e.xreplace({r_: 0.3, L_: 0.5})) for e in B])
    assert np.max(np.abs(np.array(list(g0.values())) - lead)) < 1e-3 * eps**2
    with pytest.raises(g.errors.UnsupportedSetupError, match="not abelian"):
        phase_integral(c, {"phiR": (0, 1), "phiL": (0, 1)})
    approx = phase_integral(c, {"phiR": (0, eps), "phiL": (0, eps)}, approximate=True)
    assert np.allclose([float(e.xreplace({r_: 0.3, L_: 0.5})) for e in approx], lead, rtol=1e-12, atol=0)


# ---------------------------------------------------------------------------------------------
# bad input
# ---------------------------------------------------------------------------------------------
def test_bad_input_is_refused_with_geonh_errors(disk):
    system, red = disk
    with pytest.raises(g.analysis.SymmetryError):
        nonholonomic_connection(system, [[0, 0, 1, 0]])                # θ-shift breaks the constraints
    with pytest.raises(g.DimensionError, match="as many group coordinates"):
        nonholonomic_connection(system, [[1, 0, 0, 0], [2, 0, 0, 0]])
    with pytest.raises(g.MissingValueError, match="phi"):
        red.reconstruct({"theta": t}, (0, 1), values={"R": 1})
    with pytest.raises(g.NotFoundError, match="shape coordinate"):
        red.reconstruct({"theta": t, "phi": t, "x": t}, (0, 1), values={"R": 1})
    with pytest.raises(g.MissingValueError, match="R"):
        red.reconstruct({"theta": t, "phi": t}, (0, 1))
    with pytest.raises(g.NotFoundError):
        driven_system(system, {"nope": t})
    with pytest.raises(g.ParseError):
        curvature(system)
