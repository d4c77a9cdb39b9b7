"""Frames on TQ (geonh.kernel.velocity_frames) and the equation forms declared on them
(geonh.equations.nonlinear: Maggi, Gibbs–Appell and Boltzmann–Hamel in a frame on TQ).

Independent checks: for linear quasi-velocities the TQ transpositional coefficients are the
structure coefficients of the linear frame (random frames); for nonlinear ones they are
checked against d(δπ) − δ(dπ) computed on explicit families of curves; and the three forms
on the same frame give the motion of Lagrange's equations with Chetaev multipliers."""
import pytest
import sympy as sp
from hypothesis import given, settings

from geonh import (ConfigurationSpace, boltzmann_hamel_nonlinear, chetaev_lagrange, gibbs_appell_nonlinear,
                   maggi_nonlinear, velocity_frame)
from geonh.analysis.certificate import same_motion
from geonh.errors import DimensionError, SingularMapError
from geonh.kernel.generic_point import is_zero
from geonh.kernel.velocity_frames import VelocityFrame
from geonh.models import seeds
from geonh.testing.strategies import configuration_spaces, frames


@settings(deadline=None, max_examples=15)
@given(configuration_spaces(min_dim=2, max_dim=3).flatmap(lambda S: frames(S, kind="polynomial")))
def test_linear_quasi_velocities_give_the_structure_coefficients(F):
    """v* = B q̇: Γ^ρ_τ = c^ρ_τb ω^b (Hamel 1924, eq. (16) with β_{τ,b,ρ} = c^ρ_τb)."""
    S = F.space
    n = S.n
    w = sp.symbols(f"w1:{n + 1}", real=True)
    quasi = list(F.B * sp.Matrix(S.qd))
    inverse = list(F.C * sp.Matrix(w))
    VF = VelocityFrame(S, quasi, w, inverse)
    assert VF.is_linear
    G = VF.transposition()
    c = F.structure_coefficients()
    om = quasi
    for r in range(n):
        for t in range(n):
            assert is_zero(G[r, t] - sum(c[r, t, b] * om[b] for b in range(n)))


def _curve_check(VF, q0, eta, t, t0):
    """d(δπ) − δ(dπ) on the family q(t, α) = q0(t) + α η(t), at t0, against Γ δπ."""
    S = VF.space
    al = sp.Symbol("alpha")
    q_of = [a + al * b for a, b in zip(q0, eta)]
    at = {}
    state = {**dict(zip(S.q, q0)), **dict(zip(S.qd, [sp.diff(a, t) for a in q0])),
             **dict(zip(S.qdd, [sp.diff(a, t, 2) for a in q0]))}
    curve = {**dict(zip(S.q, q_of)), **dict(zip(S.qd, [sp.diff(a, t) for a in q_of]))}
    dpi_delta = [sp.diff(sum(sp.diff(w, qd).xreplace(state) * e for qd, e in zip(S.qd, eta)), t) for w in VF.quasi]
    delta_dpi = [sp.diff(w.xreplace(curve), al).xreplace({al: 0}) for w in VF.quasi]
    G = VF.transposition().xreplace(state)
    delta_pi = [sum(sp.diff(w, qd).xreplace(state) * e for qd, e in zip(S.qd, eta)) for w in VF.quasi]
    lhs = [a - b for a, b in zip(dpi_delta, delta_dpi)]
    rhs = list(G * sp.Matrix(delta_pi))
    at = {t: t0}
    return [sp.nsimplify(sp.N((x - y).xreplace(at), 50), rational=False) for x, y in zip(lhs, rhs)], \
        [sp.N(x.xreplace(at), 20) for x in lhs]


def test_transposition_on_tq_against_families_of_curves():
    """Appell–Hamel's constraint as a quasi-velocity: v*_3 = ż² − a²(ẋ² + ẏ²); Γ from
    E_σ(v*) ε_τ against d(δπ) − δ(dπ) differentiated on explicit curves (dδq = δdq)."""
    sy = seeds.appell_hamel()
    S = sy.space
    a = [s for s in sy.phi[0].free_symbols if s.name == "a"][0]
    VF = velocity_frame(sy, [S.qd[0], S.qd[1], sy.phi[0]])
    assert not VF.is_linear
    t = sp.Symbol("t")
    q0 = [1 + t + t**2 / 3, 2 * t - t**3 / 5, 3 + t + t**2]
    eta = [t**2 + 1, 1 - t, t**3 / 2 + 2]
    diff, lhs = _curve_check(VF, q0, eta, t, sp.Rational(1, 3))
    diff = [d.xreplace({a: sp.Rational(3, 7)}) for d in diff]
    assert all(abs(sp.N(d, 40)) < 1e-35 for d in diff)
    assert any(abs(sp.N(x.xreplace({a: sp.Rational(3, 7)}), 20)) > 1e-3 for x in lhs)   # not vacuous


NONLINEAR = {
    "appell-hamel": (seeds.appell_hamel, lambda sy, S: [S.qd[0], S.qd[1], sy.phi[0]]),
    "isokinetic": (seeds.isokinetic_particle, lambda sy, S: [S.qd[0], S.qd[1], sy.phi[0]]),
    "speed-constraint": (seeds.speed_constraint_particle, lambda sy, S: [S.qd[1], sy.phi[0]]),
}


@pytest.mark.parametrize("name", sorted(NONLINEAR))
@pytest.mark.parametrize("form", [maggi_nonlinear, gibbs_appell_nonlinear, boltzmann_hamel_nonlinear])
def test_forms_on_a_frame_on_tq_give_chetaev_lagranges_motion(name, form):
    build, quasi = NONLINEAR[name]
    sy = build()
    frame = velocity_frame(sy, quasi(sy, sy.space))
    eq = form(sy, frame)
    assert eq.details["frame"] is frame
    assert same_motion(chetaev_lagrange(sy), eq, states=2).same


def test_boltzmann_hamel_on_tq_needs_the_constraint_momentum():
    """Dropping the Γ term of the constraint quasi-velocity (the classic error of substituting
    the constraint too early) changes the motion of Appell–Hamel's particle."""
    sy = seeds.appell_hamel()
    S = sy.space
    frame = velocity_frame(sy, [S.qd[0], S.qd[1], sy.phi[0]])
    eq = boltzmann_hamel_nonlinear(sy, frame)
    G = eq.details["transposition"]
    assert not all(is_zero(e) for e in G.row(2))
    Tstar = frame.in_quasi(sy.T)
    pc = sp.diff(Tstar, frame.v[2])
    assert not is_zero(pc.xreplace({frame.v[2]: 0}))


def test_velocity_frame_errors():
    S = ConfigurationSpace("x y")
    x, y = S.q
    xd, yd = S.qd
    w = sp.symbols("w1 w2", real=True)
    with pytest.raises(DimensionError):
        VelocityFrame(S, [xd], w, [w[0], w[1]])
    with pytest.raises(SingularMapError, match="does not invert"):
        VelocityFrame(S, [xd, yd**3], w, [w[0], w[1]])
    with pytest.raises(SingularMapError, match="singular"):
        VelocityFrame(S, [xd + yd, 2 * xd + 2 * yd + 0 * x], w, [w[0] / 2, w[0] / 2])
    VF = VelocityFrame(S, [xd, yd**3], w, [w[0], sp.cbrt(w[1])])
    assert not VF.is_linear
    with pytest.raises(DimensionError, match="nonlinear"):
        VF.to_frame()


@pytest.mark.parametrize("name", ["chaplygin-sleigh", "vertical-disk"])
def test_linear_frames_on_tq_reproduce_boltzmann_hamel(name):
    """A linear frame handed over as quasi-velocities: the TQ forms are the Q forms."""
    from geonh import boltzmann_hamel, models
    m = models.get(name)
    quasi = m.frame.quasi_velocities()[:m.space.n]
    frame = velocity_frame(m.system, quasi)
    assert frame.is_linear
    ref = boltzmann_hamel(m.system, m.frame)
    for form in (boltzmann_hamel_nonlinear, gibbs_appell_nonlinear, maggi_nonlinear):
        assert same_motion(ref, form(m.system, frame), states=2).same
