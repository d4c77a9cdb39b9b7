"""The vakonomic equations (Kozlov 1983; Arnold, Kozlov & Neishtadt 1988; Lewis &
Murray 1995; Cortés, de León, Martín de Diego & Martínez 2002) and the symbolic comparison with
the nonholonomic ones: the vertical rolling disk in closed form, a holonomic and an integrable
example where the two coincide, affine constraints, and the refusals."""
import pytest
import sympy as sp

from geonh import ConfigurationSpace, MechanicalSystem, NonlinearSystem, models
from geonh.analysis.vakonomic import vakonomic_coincides
from geonh.equations import lagrange
from geonh.equations.vakonomic import constraint_exterior, multiplier_transport, vakonomic, vakonomic_defect
from geonh.errors import NotLinearError, ParseError
from geonh.kernel.generic_point import is_zero

m, g, a, k = sp.symbols("m g a k", positive=True)


@pytest.fixture(scope="module")
def disk():
    return models.get("vertical-disk").system


def plane():
    S = ConfigurationSpace("x y")
    return S, S.q, S.qd


def holonomic_line():
    """A particle on the line y = a x + c, written as the velocity constraint ẏ − a ẋ = 0."""
    S, (x, y), (xd, yd) = plane()
    return MechanicalSystem(S, m * (xd ** 2 + yd ** 2) / 2, V=m * g * y, constraints=[yd - a * xd])


def integrable_line():
    """The same line written as (1 + x²)(ẏ − ẋ) = 0: integrable, but the form is not closed
    (dθ = 2x dx∧dy ≠ 0)."""
    S, (x, y), (xd, yd) = plane()
    return MechanicalSystem(S, m * (xd ** 2 + yd ** 2) / 2, V=k * x ** 2 / 2 + m * g * y,
                            constraints=[(1 + x ** 2) * (yd - xd)])


def test_disk_vakonomic_equations_in_closed_form(disk):
    """(V) for the disk, derived by hand: m ẍ + μ̇₁ = 0, m ÿ + μ̇₂ = 0,
    I θ̈ = R φ̇ (μ₁ sin θ − μ₂ cos θ), J φ̈ − R cos θ μ̇₁ − R sin θ μ̇₂ = −R θ̇ (μ₁ sin θ − μ₂ cos θ)."""
    eqs = vakonomic(disk)
    S = disk.space
    x, y, th, ph = S.q
    xd, yd, thd, phd = S.qd
    xdd, ydd, thdd, phdd = S.qdd
    mu1, mu2 = eqs.details["mu"]
    mud1, mud2 = eqs.details["mu_dot"]
    mm, I, J, R = (sp.Symbol(s, positive=True) for s in "m I J R".split())
    w = mu1 * sp.sin(th) - mu2 * sp.cos(th)
    want = [mm * xdd + mud1, mm * ydd + mud2, I * thdd - R * phd * w,
            J * phdd - R * sp.cos(th) * mud1 - R * sp.sin(th) * mud2 + R * thd * w]
    for got, expected in zip(eqs.residuals[:4], want):
        assert is_zero(got - expected), (got, expected)
    assert eqs.u == tuple(S.qd) + (mu1, mu2) and eqs.unknowns == tuple(S.qdd) + (mud1, mud2)
    assert eqs.form == "vakonomic" and len(eqs.residuals) == 6


def test_disk_nonholonomic_motion_is_vakonomic_with_mu_minus_momentum(disk):
    """On the nonholonomic motion θ = θ0 + Ω t, φ̇ = ω (ẋ, ẏ = R ω (cos θ, sin θ)) the
    vakonomic equations hold with μ = −m (ẋ, ẏ) + c exactly when c = 0 (Ω ω ≠ 0): c ≠ 0 leaves
    I θ̈ = R ω (c₁ sin θ − c₂ cos θ) ≠ 0 — the disk turns, the motion is not nonholonomic."""
    eqs = vakonomic(disk)
    S = disk.space
    th = S.q[2]
    Om, om, c1, c2 = sp.symbols("Omega omega c1 c2", real=True)
    mm, R = sp.Symbol("m", positive=True), sp.Symbol("R", positive=True)
    xd, yd = R * om * sp.cos(th), R * om * sp.sin(th)
    motion = {S.qd[0]: xd, S.qd[1]: yd, S.qd[2]: Om, S.qd[3]: om,
              S.qdd[0]: -R * om * Om * sp.sin(th), S.qdd[1]: R * om * Om * sp.cos(th), S.qdd[2]: 0, S.qdd[3]: 0}
    mu, mud = eqs.details["mu"], eqs.details["mu_dot"]
    mult = {mu[0]: -mm * xd + c1, mu[1]: -mm * yd + c2, mud[0]: mm * R * om * Om * sp.sin(th),
            mud[1]: -mm * R * om * Om * sp.cos(th)}
    res = [r.xreplace(motion).xreplace(mult) for r in eqs.residuals]
    assert all(is_zero(r.xreplace({c1: 0, c2: 0})) for r in res)
    I = sp.Symbol("I", positive=True)
    assert is_zero(res[2] + R * om * (c1 * sp.sin(th) - c2 * sp.cos(th)))  # I θ̈ − R ω (…) with θ̈ = 0
    assert not is_zero(res[2]) and I not in res[2].free_symbols


def test_disk_equations_do_not_coincide_witness(disk):
    c = vakonomic_coincides(disk)
    assert not c.coincide and c.relation == ()
    assert "Δ[" in c.witness and not is_zero(c.defect[0, 0])


def test_holonomic_example_coincides_with_lambda_minus_mu_dot():
    """Closed constraint forms: E = 0, (V) is (NH) with λ = −μ̇ (Arnold, Kozlov & Neishtadt)."""
    s = holonomic_line()
    assert constraint_exterior(s) == sp.zeros(1, 2)
    c = vakonomic_coincides(s)
    assert c.coincide and "holonomic" in c.witness
    assert c.relation == (-c.mu_dot[0],)
    # the residuals themselves: (V) with μ̇ = −λ is (NH), row by row
    V, NH = vakonomic(s), lagrange(s)
    swap = {c.mu_dot[0]: -NH.multipliers[0]}
    assert all(is_zero(v.xreplace(swap) - w) for v, w in zip(V.residuals, NH.residuals))


def test_integrable_example_coincides_with_relation():
    """θ = g dh with g = 1 + x², h = y − x: integrable, not closed; the motions coincide with
    λ = −μ̇ − μ ġ/g on the constraint (Cortés et al. 2002)."""
    s = integrable_line()
    S = s.space
    x = S.q[0]
    xd, yd = S.qd
    assert constraint_exterior(s) != sp.zeros(1, 2)
    c = vakonomic_coincides(s)
    assert c.coincide and "integrable" in c.witness
    lam = c.relation[0].xreplace({yd: xd})
    mu, mud = c.mu[0], c.mu_dot[0]
    assert is_zero(lam - (-mud - mu * 2 * x * xd / (1 + x ** 2)))
    # (V) with μ̇ = −λ − μ ġ/g is (NH)
    V, NH = vakonomic(s), lagrange(s)
    swap = {mud: -NH.multipliers[0] - mu * 2 * x * xd / (1 + x ** 2)}
    on = {yd: xd, S.qdd[1]: S.qdd[0]}
    assert all(is_zero((v.xreplace(swap) - w).xreplace(on)) for v, w in zip(V.residuals[:2], NH.residuals[:2]))


def test_rheonomic_constraints_closed_and_with_drift():
    """Affine constraints: ẏ = v(t) (θ = dy − v(t) dt closed) coincide; ẏ = x (θ = dy − x dt,
    dθ = dt∧dx ≠ 0, the drift is not integrable) does not."""
    S = ConfigurationSpace("x y", time=True)
    x, y = S.q
    xd, yd = S.qd
    t = S.t
    T = m * (xd ** 2 + yd ** 2) / 2
    closed = MechanicalSystem(S, T, constraints=[yd - sp.sin(t)])
    drift = MechanicalSystem(S, T, constraints=[yd - x])
    assert vakonomic_coincides(closed).coincide
    c = vakonomic_coincides(drift)
    assert not c.coincide
    E = constraint_exterior(drift)
    assert E[0, 0] == 1 and E[0, 1] == 0          # dθ(ẋ, ∂_x) = (∂_t θ_x − ∂_x θ_t)·1 = 1
    eqs = vakonomic(drift)
    mu = eqs.details["mu"][0]
    assert is_zero(eqs.residuals[0] - (m * S.qdd[0] + mu))


def test_without_constraints_the_vakonomic_equations_are_lagrange():
    S, (x, y), (xd, yd) = plane()
    s = MechanicalSystem(S, m * (xd ** 2 + yd ** 2) / 2, V=m * g * y)
    V, NH = vakonomic(s), lagrange(s)
    assert V.u == tuple(S.qd) and V.details["mu"] == ()
    assert all(is_zero(v - w) for v, w in zip(V.residuals, NH.residuals))
    assert vakonomic_coincides(s).coincide


def test_multiplier_symbols_avoid_the_systems_names():
    S, (x, y), (xd, yd) = plane()
    mu1 = sp.Symbol("mu1", positive=True)
    s = MechanicalSystem(S, mu1 * (xd ** 2 + yd ** 2) / 2, constraints=[yd - x * xd])
    eqs = vakonomic(s)
    assert [u.name for u in eqs.details["mu"]] == ["mu1_"]
    assert mu1 in eqs.mass_matrix.free_symbols


def test_multiplier_transport_shape(disk):
    eqs = multiplier_transport(disk)
    assert eqs.form == "multiplier-transport" and len(eqs.unknowns) == 8
    assert eqs.mass_matrix.shape == (8, 8)
    D, frame = vakonomic_defect(disk, models.get("vertical-disk").frame)
    assert D.shape == (2, 2) and frame.C.shape == (4, 4)


def test_nonlinear_and_other_systems_are_refused():
    S = ConfigurationSpace("x y z")
    xd, yd, zd = S.qd
    nl = NonlinearSystem(S, (xd ** 2 + yd ** 2 + zd ** 2) / 2, constraints=[zd ** 2 - xd ** 2 - yd ** 2])
    for f in (vakonomic, multiplier_transport, constraint_exterior, vakonomic_defect, vakonomic_coincides):
        with pytest.raises(NotLinearError, match="nonlinear in the velocities"):
            f(nl)
        with pytest.raises(ParseError, match="MechanicalSystem"):
            f("x + y")
