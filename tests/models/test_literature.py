"""The literature's test-bench systems (geonh.models.literature): each model's published
conserved quantities, momentum equation and invariant measure (or its absence), through the
public API, each with its source; and every form giving one motion."""
from __future__ import annotations

import time

import pytest
import sympy as sp

from geonh import VectorField, models
from geonh.analysis import certify_forms, energy_integral, invariant_measure, is_integral, momentum_map
from geonh.errors import NotFoundError, ParseError
from geonh.kernel.generic_point import is_zero, lu_solve
from geonh.models import literature as lit


def sym(name):
    return sp.Symbol(name, positive=True)


def se2(space):
    """∂x, ∂y and the rotation about the origin on (x, y, θ, …)."""
    x, y = space.q[:2]
    return [VectorField.coordinate(space, x), VectorField.coordinate(space, y),
            VectorField(space, [-y, x, 1] + [0] * (space.n - 3))]


# ----------------------------------------------------------------------------------------------
# the snakeboard (BKMM 1996)
# ----------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def snakeboard():
    return models.get("snakeboard")


@pytest.fixture(scope="module")
def snakeboard_bh(snakeboard):
    return snakeboard.equations("boltzmann-hamel")       # u = (v, w_psi, w_phi)


def test_snakeboard_momentum_equation_as_in_bkmm(snakeboard, snakeboard_bh):
    """BKMM 1996 (§ 7, the snakeboard): under SE(2) the bundle S = D ∩ T(orbit) has rank one,
    spanned by r cos φ (cos θ ∂x + sin θ ∂y) + sin φ ∂θ; the momentum is
    p = m r cos φ (cos θ ẋ + sin θ ẏ) + sin φ (J θ̇ + J_0 ψ̇) and
    ṗ = cos φ φ̇ ((J − m r²) θ̇ + J_0 ψ̇) on D — J_0 cos φ φ̇ ψ̇ for BKMM's J = m r²."""
    S = snakeboard.space
    x, y, th, ps, ph = S.q
    m, r, J, J0 = sym("m"), sym("r"), sym("J"), sym("J_0")
    v, wps, wph = snakeboard_bh.u
    mm = momentum_map(snakeboard.system, se2(S))
    assert mm.rank == 1
    (sec,) = mm.sections
    assert all(is_zero(a - b) for a, b in zip(sec.components, [r * sp.cos(ph) * sp.cos(th),
                                                                 r * sp.cos(ph) * sp.sin(th), sp.sin(ph), 0, 0]))
    (p,) = mm.on(snakeboard_bh)
    thd = v * sp.tan(ph) / r                              # θ̇ on D
    assert is_zero(p.expression - (m * r * sp.cos(ph) * v + sp.sin(ph) * (J * thd + J0 * wps)))
    assert is_zero(p.rate - sp.cos(ph) * wph * ((J - m * r**2) * thd + J0 * wps))
    assert is_zero(p.rate.subs(J, m * r**2) - J0 * sp.cos(ph) * wph * wps)
    assert not p.conserved
    assert mm.check(snakeboard_bh) == [True]


@pytest.mark.slow
def test_snakeboard_energy_and_torques():
    """Without torques the energy is conserved; the torques τ_ψ, τ_φ do work and do not enter
    the momentum equation (they act on the shape, not along ξ_Q)."""
    free = models.get("snakeboard").equations("boltzmann-hamel")
    E = energy_integral(free)
    assert E.conserved
    driven = lit.snakeboard(torques=True)
    eqs = driven.equations("boltzmann-hamel")
    E = energy_integral(eqs)
    assert not E.conserved and E.reasons() == ["power of non-potential forces"]
    mm = momentum_map(driven.system, se2(driven.space))
    (p,) = mm.on(eqs)
    assert all(is_zero(sp.diff(p.rate, sp.Symbol(t, real=True))) for t in ("tau_psi", "tau_phi"))
    assert mm.check(eqs) == [True]
    with pytest.raises(ParseError):
        lit.snakeboard(torques="yes")


def test_snakeboard_admissible_motion(snakeboard):
    """The free field of the frame: ẋ = v cos θ, ẏ = v sin θ, θ̇ = v tan φ / r (Ostrowski 1996)."""
    x, y, th, ps, ph = snakeboard.space.q
    X = snakeboard.frame.fields[0].components
    r = sym("r")
    assert all(is_zero(a - b) for a, b in zip(X, [sp.cos(th), sp.sin(th), sp.tan(ph) / r, 0, 0]))
    assert snakeboard.m == 3


@pytest.mark.slow
def test_snakeboard_forms_agree(snakeboard):
    certs = certify_forms(snakeboard.system, frame=snakeboard.frame, dependent=snakeboard.dependent)
    assert certs and all(c.same for c in certs.values()), {k: str(c) for k, c in certs.items()}


def accelerations(eqs):
    return [sp.sympify(a) for a in lu_solve(eqs.mass_matrix, eqs.forcing)]


def gamma(th, ph):
    return sp.Matrix([sp.sin(th) * sp.sin(ph), sp.sin(th) * sp.cos(ph), sp.cos(th)])


def divergence_vanishes(eqs, rho):
    """div(ρ f) = 0 for the whole field f = (q̇(q, u), u̇) (an independent check of a density)."""
    q, u = eqs.space.q, eqs.u
    acc = accelerations(eqs)
    div = sum(sp.diff(rho * k, v) for k, v in zip(eqs.kinematics, q)) \
        + sum(sp.diff(rho * acc[a], u[a]) for a in range(len(u)))
    return is_zero(div)


# ----------------------------------------------------------------------------------------------
# the planar body with a thruster (Lewis & Murray 1997)
# ----------------------------------------------------------------------------------------------
def test_thruster_body_equations_and_momenta():
    """Lewis & Murray 1997 (§ 5): in body velocities m(v̇1 − w v2) = F1, m(v̇2 + w v1) = F2,
    J ẇ = −h F2.  SE(2) is a symmetry with S = T(orbit): the linear and angular momenta obey
    ṗ = Q·ξ (the thrust's components and moment); the free body keeps all three, its energy,
    and the Liouville measure dq du."""
    model = models.get("planar-body-thruster")
    eqs = model.equations("boltzmann-hamel")
    m, J, h = model.parameters[:3]
    F1, F2 = model.parameters[3:]
    v1, v2, w = eqs.u
    acc = accelerations(eqs)
    assert all(is_zero(a - b) for a, b in zip(acc, [F1 / m + w * v2, F2 / m - w * v1, -h * F2 / J]))
    mm = momentum_map(model.system, se2(model.space))
    assert mm.rank == 3 and mm.check(eqs) == [True, True, True]
    free = lit.planar_body_thruster(thrust=False)
    feqs = free.equations("boltzmann-hamel")
    assert energy_integral(feqs).conserved and not energy_integral(eqs).conserved
    fm = momentum_map(free.system, se2(free.space))
    assert all(mom.conserved for mom in fm.momenta)
    assert invariant_measure(feqs).density == 1


# ----------------------------------------------------------------------------------------------
# the differential-drive robot (docs/robot.md)
# ----------------------------------------------------------------------------------------------
def test_differential_drive_equations_and_hidden_integral():
    """(m + 2J/r²) v̇ = m b w² + (τ_R + τ_L)/r and (I + m b² + 2J L²/r²) ẇ = −m b v w +
    L (τ_R − τ_L)/r; θ − r(φ_R − φ_L)/(2L) is constant on every motion; the free robot keeps its
    energy and, like the Chaplygin sleigh (b > 0), has no invariant measure ρ(q) dq du."""
    model = models.get("differential-drive")
    eqs = model.equations("boltzmann-hamel")
    m, I, J, r, L, b, tR, tL = model.parameters
    v, w = eqs.u
    acc = accelerations(eqs)
    assert is_zero(acc[0] - (m * b * w**2 + (tR + tL) / r) / (m + 2 * J / r**2))
    assert is_zero(acc[1] - (-m * b * v * w + L * (tR - tL) / r) / (I + m * b**2 + 2 * J * L**2 / r**2))
    x, y, th, pR, pL = model.space.q
    assert is_integral(eqs, th - r * (pR - pL) / (2 * L))
    assert not is_integral(eqs, th + r * (pR - pL) / (2 * L))
    free = lit.differential_drive(torques=False).equations("boltzmann-hamel")
    assert energy_integral(free).conserved
    with pytest.raises(NotFoundError, match="no invariant measure"):
        invariant_measure(free)


# ----------------------------------------------------------------------------------------------
# the roller racer (Krishnaprasad & Tsakiris 2001)
# ----------------------------------------------------------------------------------------------
@pytest.mark.slow
def test_roller_racer_momentum():
    """SE(2): S is spanned by (d1 cos φ + d2)(cos θ ∂x + sin θ ∂y) − sin φ ∂θ; the momentum is
    p = m (d1 cos φ + d2) v − sin φ ((I1 + I2) θ̇ + I2 φ̇) with θ̇ = −(v sin φ + d2 φ̇)/(d1 cos φ + d2)
    on D (Krishnaprasad & Tsakiris 2001), and the momentum equation holds; energy is conserved
    without the joint torque, and there is no invariant measure ρ(θ, φ) dq du."""
    model = models.get("roller-racer")
    S = model.space
    x, y, th, ph = S.q
    m, I1, I2, d1, d2 = model.parameters
    eqs = model.equations("boltzmann-hamel")
    v, wph = eqs.u
    mm = momentum_map(model.system, se2(S))
    (sec,) = mm.sections
    k = d1 * sp.cos(ph) + d2
    assert all(is_zero(a - b) for a, b in zip(sec.components, [k * sp.cos(th), k * sp.sin(th), -sp.sin(ph), 0]))
    (p,) = mm.on(eqs)
    thd = -(v * sp.sin(ph) + d2 * wph) / k
    assert is_zero(p.expression - (m * k * v - sp.sin(ph) * ((I1 + I2) * thd + I2 * wph)))
    assert mm.check(eqs) == [True] and not p.conserved
    assert energy_integral(eqs).conserved
    assert not energy_integral(lit.roller_racer(torque=True).equations("boltzmann-hamel")).conserved
    with pytest.raises(NotFoundError, match="no invariant measure"):
        invariant_measure(eqs)


# ----------------------------------------------------------------------------------------------
# Suslov's and Veselova's problems
# ----------------------------------------------------------------------------------------------
@pytest.mark.slow
def test_suslov_equations_integral_and_measure():
    """Suslov 1902 (Bloch 2003; Borisov & Mamaev): I1 Ω̇1 = −Ω2 (I13 Ω1 + I23 Ω2),
    I2 Ω̇2 = Ω1 (I13 Ω1 + I23 Ω2); the energy ½(I1 Ω1² + I2 Ω2²) is its integral; an invariant
    measure exists iff e3 is an eigenvector of I (Kozlov 1988): none for I13, I23 ≠ 0, the
    Haar measure sin θ dq dΩ for I13 = I23 = 0."""
    model = models.get("suslov")
    I1, I2, I3, I13, I23 = model.parameters
    eqs = model.equations("boltzmann-hamel")
    W1, W2 = eqs.u
    k = I13 * W1 + I23 * W2
    acc = accelerations(eqs)
    assert is_zero(acc[0] + W2 * k / I1) and is_zero(acc[1] - W1 * k / I2)
    E = energy_integral(eqs)
    assert E.conserved and is_zero(E.expression - (I1 * W1**2 + I2 * W2**2) / 2)
    assert not is_integral(eqs, W1) and not is_integral(eqs, W1**2 + W2**2)
    with pytest.raises(NotFoundError, match="no invariant measure"):
        invariant_measure(eqs)
    aligned = lit.suslov(aligned=True)
    aeqs = aligned.equations("boltzmann-hamel")
    th = aligned.space.q[1]
    rho = invariant_measure(aeqs).density
    assert all(is_zero(sp.diff(rho / sp.sin(th), c)) for c in aligned.space.q)
    assert is_integral(aeqs, aeqs.u[0]) and is_integral(aeqs, aeqs.u[1])


@pytest.mark.slow
def test_veselova_invariant_measure_in_closed_form():
    """Veselova 1986 (Fedorov & Jovanović 2004): the density √(γ·I⁻¹γ) on (γ, Ω), Ω ⊥ γ; in
    the Chaplygin variables (θ, φ, θ̇, φ̇) times the Jacobian sin² θ.  Independent check:
    div(ρ f) = 0.  The energy is conserved."""
    model = models.get("veselova")
    ps, th, ph = model.space.q
    I1, I2, I3 = model.parameters
    eqs = model.equations("chaplygin")
    g = gamma(th, ph)
    known = sp.sin(th)**2 * sp.sqrt(g[0]**2 / I1 + g[1]**2 / I2 + g[2]**2 / I3)
    rho = invariant_measure(eqs).density
    assert all(is_zero(sp.diff(rho / known, c)) for c in (th, ph))
    assert divergence_vanishes(eqs, known)
    assert not divergence_vanishes(eqs, sp.sin(th)**2)
    assert energy_integral(model.equations("boltzmann-hamel")).conserved


# ----------------------------------------------------------------------------------------------
# Routh's sphere
# ----------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def routh():
    model = models.get("routh-sphere")
    return model, model.equations("boltzmann-hamel")


def _routh_quantities(model, eqs):
    ps, th, ph, x, y = model.space.q
    m, R, a, A, C, g = model.parameters
    W = sp.Matrix(eqs.u)
    e3 = sp.Matrix([0, 0, 1])
    r = a * e3 - R * gamma(th, ph)                       # mass centre → contact point
    K = sp.diag(A, A, C) * W + m * r.cross(W.cross(r))     # angular momentum about the contact point
    routh2 = A * C + m * A * r.dot(r) + m * (C - A) * r.dot(e3)**2
    return W, r, K, routh2


@pytest.mark.slow
def test_routh_sphere_energy_jellett_and_routh(routh):
    """Routh 1884; Borisov & Mamaev 2002: energy, Jellett's ⟨K, r⟩ and Routh's
    Ω3 √(A C + m A ⟨r, r⟩ + m (C − A) ⟨r, e3⟩²) are integrals (checked by differentiating along
    the equations); ⟨K, γ⟩ (Chaplygin ball's) is not, nor is Ω3."""
    model, eqs = routh
    W, r, K, routh2 = _routh_quantities(model, eqs)
    th, ph = model.space.q[1:3]
    assert energy_integral(eqs).conserved
    assert is_integral(eqs, K.dot(r))
    assert not is_integral(eqs, K.dot(gamma(th, ph)))
    assert is_integral(eqs, W[2] * sp.sqrt(routh2))
    assert is_integral(eqs, W[2]**2 * routh2)
    assert not is_integral(eqs, W[2])


@pytest.mark.slow
def test_routh_sphere_invariant_measure(routh):
    """The measure sin θ (A + m ⟨r, r⟩) √(A C + m A ⟨r, r⟩ + m (C − A) ⟨r, e3⟩²) dq dΩ
    (Borisov & Mamaev 2002): found by geonh and checked by div(ρ f) = 0."""
    model, eqs = routh
    W, r, K, routh2 = _routh_quantities(model, eqs)
    th = model.space.q[1]
    A, m = model.parameters[3], model.parameters[0]
    known = sp.sin(th) * (A + m * r.dot(r)) * sp.sqrt(routh2)
    rho = invariant_measure(eqs).density
    assert all(is_zero(sp.diff(rho / known, c)) for c in model.space.q)


# ----------------------------------------------------------------------------------------------
# the rattleback
# ----------------------------------------------------------------------------------------------
def test_rattleback_published_parameters():
    """Garcia & Hubbard 1988: the numbers the command line uses are the published ones."""
    model = models.get("rattleback")
    vals = model.extra["values"]
    assert vals == lit.GARCIA_HUBBARD_1988
    assert {p.name for p in model.parameters} == set(vals)
    assert vals["D"] != 0                                  # the misalignment that breaks the symmetry


@pytest.mark.slow
def test_rattleback_energy_is_conserved():
    """The energy is conserved (Garcia & Hubbard 1988)."""
    eqs = models.get("rattleback").equations("boltzmann-hamel")
    assert energy_integral(eqs).conserved


@pytest.mark.slow
def test_rattleback_has_no_invariant_measure_in_the_ansatz():
    """No invariant measure ρ(q) dq du (Kozlov 1988: the spin reversal's asymptotically stable
    steady spin excludes one; tests/analysis/test_literature_stability.py sees it in the
    eigenvalues): ``invariant_measure`` says so with a witness of the closedness condition
    failing, from its numeric certificate, in well under a minute of CPU time (the symbolic
    route alone runs past ten minutes)."""
    eqs = models.get("rattleback").equations("boltzmann-hamel")
    start = time.process_time()
    with pytest.raises(NotFoundError, match=r"no invariant measure of the ansatz ρ\(q\).*closedness condition fails"):
        invariant_measure(eqs)
    assert time.process_time() - start < 60


# ----------------------------------------------------------------------------------------------
# the spherical robot with rotors
# ----------------------------------------------------------------------------------------------
@pytest.mark.slow
def test_spherical_robot_energy_and_rotor_momenta():
    """Free rotors: the energy and the momenta of the three rotor angles α_k (cyclic: horizontal
    symmetries) are conserved — geonh's momentum map decides it from the generators ∂/∂α_k, and
    on the 8-coordinate Boltzmann–Hamel equations the momenta come out as J_k (Ω_k + α̇_k)
    (Borisov, Kilin & Mamaev 2012), first integrals along the equations (and along a simulated
    motion to 1e-9), in seconds."""
    from geonh.analysis import verify_along
    from geonh.testing.properties import first_integral
    model = models.get("spherical-robot")
    eqs = model.equations("boltzmann-hamel")
    S = model.space
    assert energy_integral(eqs).conserved
    gens = [VectorField.coordinate(S, a) for a in S.q[5:8]]
    mm = momentum_map(model.system, gens)
    assert mm.rank == 3 and all(mom.conserved and mom.horizontal for mom in mm.momenta)
    t = time.process_time()
    on = mm.on(eqs)
    assert time.process_time() - t < 10.0
    W, a = eqs.u[:3], eqs.u[3:]
    Js = [sym(f"J{k}") for k in (1, 2, 3)]
    assert [I.conserved for I in on] == [True, True, True]
    assert all(is_zero(I.expression - Js[k] * (W[k] + a[k])) for k, I in enumerate(on))
    assert mm.check(eqs) == [True, True, True]
    for I in on:
        first_integral(eqs, I.expression)
    params = dict(zip(model.parameters, [2, sp.Rational(1, 2), 3, 4, 5, sp.Rational(1, 2), sp.Rational(2, 3), 1]))
    y0 = [sp.Rational(1, 3), 1, sp.Rational(1, 5), 0, 0, 0, 0, 0] + [sp.Rational(3, 10), -sp.Rational(1, 2), 1, 2, -1, sp.Rational(1, 2)]
    for I in on:
        assert verify_along((eqs, y0, (0, 3), params), I, rtol=1e-12, atol=1e-12) < 1e-9


# ----------------------------------------------------------------------------------------------
# every literature model is fast to build
# ----------------------------------------------------------------------------------------------
LITERATURE = ["snakeboard", "planar-body-thruster", "differential-drive", "roller-racer", "suslov", "veselova",
              "routh-sphere", "rattleback", "spherical-robot"]


@pytest.mark.parametrize("name", LITERATURE)
def test_models_build_fast(name):
    t = time.process_time()
    model = models.get(name)
    assert time.process_time() - t < 1.0
    assert model.name == name and models.kind(name) == "mechanical" and model.frame is not None
