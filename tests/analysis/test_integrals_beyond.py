"""First integrals beyond polynomials (issue 26.3): Jellett's linear and Routh's algebraic
integral of Routh's sphere, and the integrating-factor search ``integrating_factor_integrals``.

Routh's sphere: a ball of radius R and mass m whose centre of mass lies a distance a from its
centre on the symmetry axis e₃, central moments of inertia A, A, C, rolling without slipping on
a horizontal plane under gravity (Routh, *Advanced Rigid Dynamics* 1884, § 243; Borisov &
Mamaev, Regul. Chaotic Dyn. 7 (2002) 177–200, § 3; Bustamante & Lynch, arXiv:1908.09781).
With s = Rγ + a e₃ the vector from the contact point to the centre of mass (γ the upward
vertical) and ω the angular velocity, in the frame (line of nodes, ·, e₃):

* Jellett's integral  ⟨Iω, s⟩ = A R ω₂ sin θ + C ω₃ (R cos θ + a)   (linear in ω);
* Routh's integral    ω₃ √(AC + mA⟨s, s⟩ + m(C − A)⟨s, e₃⟩²)
                      = ω₃ √(AC + mA R² sin²θ + mC (R cos θ + a)²)   (algebraic).

Every verdict is checked independently: symbolically by differentiating along the equations
(``is_integral``) and numerically along a simulated motion (``verify_along``).
"""

import pytest
import sympy as sp

from geonh import ConfigurationSpace, Frame, MechanicalSystem, models
from geonh.analysis import (integrating_factor_integrals, is_integral, polynomial_first_integrals,
                            verify_along)
from geonh.equations import derive
from geonh.errors import NotLinearError, SpaceMismatchError

PARAMS = {"m": 1.3, "R": 0.5, "a": 0.2, "A": 0.11, "C": 0.17, "g": 9.81}
Y0 = [0.1, 0.6, -0.3, 0.0, 0.0, 0.4, -0.7, 5.0]       # ψ θ φ x y, ω₁ ω₂ ω₃


def routh_sphere():
    """Routh's sphere in the Résal frame: speeds ω = (θ̇, ψ̇ sin θ, ψ̇ cos θ + φ̇) (z-x-z Euler
    angles ψ, θ, φ; contact point (x, y)); T = m|v_G|²/2 + (A ω₁² + A ω₂² + C ω₃²)/2,
    V = m g (R + a cos θ); rolling: the contact point R ẑ below the centre has zero velocity."""
    S = ConfigurationSpace("psi theta phi x y")
    ps, th, ph, x, y = S.q
    psd, thd, phd, xd, yd = S.qd
    m, R, a, A, C, g = sp.symbols("m R a A C g", positive=True)
    e3 = [sp.sin(ps) * sp.sin(th), -sp.cos(ps) * sp.sin(th), sp.cos(th)]
    G = [x + a * e3[0], y + a * e3[1], R + a * e3[2]]
    vG = [S.total_derivative(c) for c in G]
    w = [thd, psd * sp.sin(th), psd * sp.cos(th) + phd]
    T = m * sum(v**2 for v in vG) / 2 + (A * w[0]**2 + A * w[1]**2 + C * w[2]**2) / 2
    cons = [xd - R * (thd * sp.sin(ps) - phd * sp.cos(ps) * sp.sin(th)),
            yd + R * (thd * sp.cos(ps) + phd * sp.sin(ps) * sp.sin(th))]
    system = MechanicalSystem(S, sp.expand(T), V=m * g * G[2], constraints=cons, name="routh sphere")
    frame = Frame.from_quasi_velocities(S, [*w, *cons], names=["w1", "w2", "w3", "c_x", "c_y"])
    return derive("boltzmann-hamel", system, frame)


@pytest.fixture(scope="module")
def sphere():
    return routh_sphere()


@pytest.mark.slow
def test_jellett_integral_found_at_degree_1(sphere):
    eqs = sphere
    th = eqs.space.q[1]
    w1, w2, w3 = eqs.u
    m, R, a, A, C = sp.symbols("m R a A C", positive=True)
    found = polynomial_first_integrals(eqs, 1, coordinates=[th])
    jellett = A * R * w2 * sp.sin(th) + C * w3 * (R * sp.cos(th) + a)
    assert len(found.integrals) == 1 and found.contains(jellett)
    assert is_integral(eqs, jellett)
    assert verify_along((eqs, Y0, (0.0, 3.0), PARAMS), jellett, rtol=1e-11, atol=1e-12) < 1e-8
    # the constant-coefficient ansatz has none (Jellett's coefficients depend on θ)
    assert not polynomial_first_integrals(eqs, 1).found


@pytest.mark.slow
def test_routh_integral_found_by_its_integrating_factor(sphere):
    eqs = sphere
    th = eqs.space.q[1]
    w1, w2, w3 = eqs.u
    m, R, a, A, C = sp.symbols("m R a A C", positive=True)
    res = integrating_factor_integrals(eqs)
    routh = w3 * sp.sqrt(A * C + m * A * R**2 * sp.sin(th)**2 + m * C * (R * sp.cos(th) + a)**2)
    assert len(res.integrals) == 1
    (I,) = res.integrals
    assert any(p.exp == sp.Rational(1, 2) for p in I.atoms(sp.Pow))      # algebraic, not polynomial
    vals = {s: sp.Rational(k + 2, k + 5) for k, s in enumerate((m, R, a, A, C))}
    r1, r2 = [sp.N(((I / routh)**2).xreplace({th: t}).xreplace(vals), 40) for t in (sp.Rational(3, 7), sp.Rational(5, 11))]
    assert abs(r1 - r2) < 1e-30 and abs(r1) > 1e-6          # I is a constant multiple of Routh's integral
    assert is_integral(eqs, routh)
    assert verify_along((eqs, Y0, (0.0, 3.0), PARAMS), routh, rtol=1e-11, atol=1e-12) < 1e-8
    # neither ω₁ nor ω₂ has an integrating factor
    assert all(not f.has(w1) and not f.has(w2) for f in res.integrals)


def test_integrating_factor_none_for_the_sleigh():
    """The Chaplygin sleigh: ω̇ = −m a v ω/(I + m a²) is ω times a linear form, but not ġ for a
    g(q) (the equations depend on no coordinate): no integral f(q)·ω, nor f(q)·v."""
    eqs = models.get("chaplygin-sleigh").equations("boltzmann-hamel")
    res = integrating_factor_integrals(eqs)
    assert not res.found and not res.complete
    assert "not conclusive" in res.message()


def test_integrating_factor_keeps_a_plain_linear_integral():
    """The vertical rolling disk: the speeds w_θ and w_φ are integrals themselves (f = 1)."""
    eqs = models.get("vertical-disk").equations("boltzmann-hamel")
    res = integrating_factor_integrals(eqs)
    assert set(res.integrals) == set(eqs.u)
    assert all(is_integral(eqs, I) for I in res.integrals)


def test_integrating_factor_bad_input():
    eqs = models.get("chaplygin-sleigh").equations("boltzmann-hamel")
    v, w = eqs.u
    with pytest.raises(NotLinearError):
        integrating_factor_integrals(eqs, [v * w])
    with pytest.raises(NotLinearError):
        integrating_factor_integrals(eqs, [v + 1])
    with pytest.raises(SpaceMismatchError):
        integrating_factor_integrals(eqs, coordinates=[sp.Symbol("nope")])
