"""Vakonomic against nonholonomic motions, by simulation (Cortés, de León, Martín de Diego &
Martínez 2002; Lewis & Murray 1995): the vertical rolling disk's nonholonomic motions are
vakonomic with μ(0) = −m (ẋ(0), ẏ(0)) (derived in geonh.analysis.vakonomic), another initial
multiplier gives a vakonomic motion that is not nonholonomic; on a holonomic and on an
integrable example the motions coincide for every multiplier; on an inclined plane no turning
nonholonomic motion of the disk is vakonomic (Lemos 2021)."""
import math

import numpy as np
import pytest
import sympy as sp

from geonh import ConfigurationSpace, MechanicalSystem, models
from geonh.analysis.vakonomic import compare_vakonomic, vakonomic_multiplier
from geonh.errors import DimensionError, NotLinearError, ParseError

DISK = dict(m=2.0, I=0.5, J=0.25, R=0.7)
m_, g_, a_, k_ = sp.symbols("m g a k", positive=True)


@pytest.fixture(scope="module")
def disk():
    return models.get("vertical-disk").system


def disk_state(theta=0.3, theta_dot=0.8, phi_dot=1.5, R=DISK["R"]):
    return [0.1, 0.2, theta, 0.4, R * math.cos(theta) * phi_dot, R * math.sin(theta) * phi_dot, theta_dot, phi_dot]


def line(integrable: bool):
    S = ConfigurationSpace("x y")
    x, y = S.q
    xd, yd = S.qd
    T = m_ * (xd ** 2 + yd ** 2) / 2
    if integrable:   # (1 + x²)(ẏ − ẋ) = 0: integrable, not closed
        return MechanicalSystem(S, T, V=k_ * x ** 2 / 2 + m_ * g_ * y, constraints=[(1 + x ** 2) * (yd - xd)])
    return MechanicalSystem(S, T, V=m_ * g_ * y, constraints=[yd - a_ * xd])   # holonomic: y = a x + c


@pytest.mark.slow
def test_disk_nonholonomic_motion_is_vakonomic_with_the_derived_multiplier(disk):
    y0 = disk_state()
    r = vakonomic_multiplier(disk, y0, (0.0, 5.0), DISK)
    want = [-DISK["m"] * y0[4], -DISK["m"] * y0[5]]
    assert r.vakonomic and r.kernel.shape == (2, 0)            # unique: θ̇ φ̇ ≠ 0
    assert np.allclose(r.mu0, want, rtol=0, atol=1e-8)
    assert r.residual < 1e-8 and r.deviation < 1e-8            # the witness: (V) from μ0 is the motion
    assert r.mu_deviation < 1e-8                               # with the transported multipliers
    # and μ(t) = −m (ẋ, ẏ) along it (the vakonomic trajectory carries μ in its state)
    mu = r.vakonomic_motion.u[:, 4:]
    assert np.allclose(mu, -DISK["m"] * r.vakonomic_motion.u[:, :2], rtol=0, atol=1e-8)


@pytest.mark.slow
def test_disk_vakonomic_motion_with_another_multiplier_is_not_nonholonomic(disk):
    """μ(0) = −m (ẋ, ẏ) + c, c = (0.3, −0.2): the vakonomic motion keeps the constraints and
    μ + m (ẋ, ẏ) = c, but turns (I θ̈ = R φ̇ w, (J + m R²) φ̈ = −R θ̇ w, w = c₁ sin θ − c₂ cos θ) —
    it leaves the nonholonomic
    motion from the same (q, q̇)."""
    y0 = disk_state()
    c = np.array([0.3, -0.2])
    mu0 = -DISK["m"] * np.array(y0[4:6]) + c
    cmp = compare_vakonomic(disk, y0, mu0, (0.0, 5.0), DISK)
    assert cmp.differs and cmp.divergence > 0.1
    V = cmp.vakonomic
    assert np.max(np.abs(V.constraint_residuals)) < 1e-8     # a constrained motion ...
    assert np.allclose(V.u[:, 4:] + DISK["m"] * V.u[:, :2], c, rtol=0, atol=1e-8)   # ... of (V)
    th, phd = V.q[:, 2], V.u[:, 3]
    thdd = DISK["R"] * phd * (c[0] * np.sin(th) - c[1] * np.cos(th)) / DISK["I"]
    assert np.max(np.abs(thdd)) > 0.1                          # θ̈ ≠ 0: not nonholonomic (θ̈ = 0 there)
    assert np.allclose(V.unknowns[:, 2], thdd, rtol=0, atol=1e-8)
    w = c[0] * np.sin(th) - c[1] * np.cos(th)                 # (J + m R²) φ̈ = −R θ̇ w
    phdd = -DISK["R"] * V.u[:, 2] * w / (DISK["J"] + DISK["m"] * DISK["R"] ** 2)
    assert np.allclose(V.unknowns[:, 3], phdd, rtol=0, atol=1e-8)
    # the nonholonomic motion: θ̇, φ̇ constant
    NH = cmp.nonholonomic
    assert np.allclose(NH.u[:, 2], y0[6], atol=1e-9) and np.allclose(NH.u[:, 3], y0[7], atol=1e-9)


@pytest.mark.slow
def test_disk_running_straight_has_a_line_of_multipliers(disk):
    """θ̇ = 0: c ∥ (cos θ, sin θ) keeps I θ̈ = 0, so the multiplier is not unique."""
    r = vakonomic_multiplier(disk, disk_state(theta_dot=0.0), (0.0, 3.0), DISK, samples=31)
    assert r.vakonomic and r.kernel.shape == (2, 1)
    assert abs(abs(r.kernel[0, 0]) - math.cos(0.3)) < 1e-8 and abs(abs(r.kernel[1, 0]) - math.sin(0.3)) < 1e-8


@pytest.mark.slow
@pytest.mark.parametrize("integrable", [False, True], ids=["holonomic", "integrable"])
def test_motions_coincide_on_holonomic_and_integrable_examples(integrable):
    s = line(integrable)
    P = dict(m=1.3, g=9.81, a=0.5) if not integrable else dict(m=1.3, g=9.81, k=2.0)
    y0 = [1.0, 0.5, 0.4, 0.2] if not integrable else [1.0, 0.5, 0.4, 0.4]
    for mu0 in ([0.7], [-3.0]):
        cmp = compare_vakonomic(s, y0, mu0, (0.0, 3.0), P)
        assert not cmp.differs and cmp.divergence < 1e-8
    r = vakonomic_multiplier(s, y0, (0.0, 3.0), P, samples=31)
    assert r.vakonomic and r.kernel.shape == (1, 1) and r.deviation < 1e-8   # every μ0 will do
    # the vakonomic multipliers are the transported ones (λ = −μ̇ − (AAᵀ)⁻¹ A Eᵀ μ), and they move
    assert r.mu_deviation < 1e-8 and np.ptp(r.vakonomic_motion.u[:, 2]) > 0.1


@pytest.mark.slow
def test_inclined_plane_disk_motion_is_not_vakonomic(disk):
    """A vertical disk rolling on an inclined plane (V = −m g sin α x): no μ0 makes its turning
    nonholonomic motion vakonomic (Lemos 2021); the least-squares leftover force stays large."""
    S = disk.space
    A, _ = disk.constraint_matrix
    al = sp.Symbol("alpha", positive=True)
    mm = sp.Symbol("m", positive=True)
    inclined = MechanicalSystem(S, disk.T, V=-mm * g_ * sp.sin(al) * S.q[0],
                                constraints=list(A * sp.Matrix(S.qd)))
    r = vakonomic_multiplier(inclined, disk_state(), (0.0, 5.0), dict(DISK, g=9.81, alpha=0.3))
    assert not r.vakonomic and r.residual > 0.1 * r.scale and r.deviation > 0.1


def test_bad_inputs_are_refused(disk):
    with pytest.raises(DimensionError, match="y0"):
        vakonomic_multiplier(disk, [0.0] * 5, (0.0, 1.0), DISK)
    with pytest.raises(DimensionError, match="mu0"):
        compare_vakonomic(disk, disk_state(), [1.0], (0.0, 1.0), DISK)
    with pytest.raises(DimensionError, match="t_span"):
        compare_vakonomic(disk, disk_state(), [1.0, 2.0], (0.0, float("nan")), DISK)
    with pytest.raises(ParseError, match="samples"):
        vakonomic_multiplier(disk, disk_state(), (0.0, 1.0), DISK, samples=1)
    with pytest.raises(ParseError, match="tol"):
        vakonomic_multiplier(disk, disk_state(), (0.0, 1.0), DISK, tol=-1.0)
    with pytest.raises(DimensionError, match="no value for"):
        vakonomic_multiplier(disk, {"x": 0.0}, (0.0, 1.0), DISK)
    with pytest.raises(ParseError, match="MechanicalSystem"):
        compare_vakonomic(object(), disk_state(), [1.0, 2.0], (0.0, 1.0), DISK)
    S = ConfigurationSpace("x y")
    from geonh import NonlinearSystem
    nl = NonlinearSystem(S, (S.qd[0] ** 2 + S.qd[1] ** 2) / 2, constraints=[S.qd[1] ** 2 - S.qd[0] ** 2 * 4])
    with pytest.raises(NotLinearError):
        vakonomic_multiplier(nl, [0.0] * 4, (0.0, 1.0))
