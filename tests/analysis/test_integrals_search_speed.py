"""The integral search fast enough to use (issue 26.3): on Routh's sphere, a 5-coordinate rolling
body, the polynomial search at degree 2 with coefficients trigonometric in θ finds the published
integrals within 60 s of CPU (the issue's target; about 3 s), and the integrating-factor search
finds Routh's algebraic integral within 15 s (about 2 s; 37 s before).

Routh's sphere from the model library (:func:`geonh.models.literature.routh_sphere`: G = O − a e₃,
V = −m g a cos θ), its equations in the Résal frame (line of nodes, ·, e₃), where the integrals
depend on θ alone: ω = (θ̇, ψ̇ sin θ, ψ̇ cos θ + φ̇).  With s = R γ − a e₃ the vector from the
contact point to the centre of mass (γ the upward vertical), in that frame s = (0, R sin θ,
R cos θ − a), and (Routh, *Advanced Rigid Dynamics* 1884, § 243; Borisov & Mamaev, Regul. Chaotic
Dyn. 7 (2002) 177–200, § 3):

* Jellett's integral  ⟨Iω, s⟩ = A R ω₂ sin θ + C ω₃ (R cos θ − a);
* Routh's integral squared  ω₃² (A C + m A R² sin²θ + m C (R cos θ − a)²);
* the energy T + V.
"""
import time

import pytest
import sympy as sp

from geonh import Frame
from geonh.analysis import energy_integral, integrating_factor_integrals, is_integral, polynomial_first_integrals
from geonh.equations import derive
from geonh.models.literature import routh_sphere


def _resal_equations():
    model = routh_sphere()
    S = model.system.space
    ps, th, ph, x, y = S.q
    psd, thd, phd, xd, yd = S.qd
    R = next(p for p in model.parameters if p.name == "R")
    w = [thd, psd * sp.sin(th), psd * sp.cos(th) + phd]
    cons = [xd - R * (thd * sp.sin(ps) - phd * sp.cos(ps) * sp.sin(th)),
            yd + R * (thd * sp.cos(ps) + phd * sp.sin(ps) * sp.sin(th))]
    frame = Frame.from_quasi_velocities(S, [*w, *cons], names=["w1", "w2", "w3", "c_x", "c_y"])
    return derive("boltzmann-hamel", model.system, frame), model.parameters


@pytest.fixture(scope="module")
def sphere():
    return _resal_equations()


@pytest.mark.slow
def test_degree_2_search_finds_the_published_integrals_within_60_s(sphere):
    eqs, params = sphere
    m, R, a, A, C, g = params
    th = eqs.space.q[1]
    w1, w2, w3 = eqs.u
    c0 = time.process_time()
    found = polynomial_first_integrals(eqs, 2, coordinates=[th], order=2)
    cpu = time.process_time() - c0
    assert cpu <= 60, f"the degree-2 search took {cpu:.1f} s of CPU"
    jellett = A * R * w2 * sp.sin(th) + C * w3 * (R * sp.cos(th) - a)
    routh2 = w3**2 * (A * C + m * A * R**2 * sp.sin(th)**2 + m * C * (R * sp.cos(th) - a)**2)
    energy = energy_integral(eqs).expression
    for I in (jellett, routh2, energy):
        assert is_integral(eqs, I)
        assert found.contains(I)
    # the four-dimensional space Jellett, Jellett², Routh², energy, and nothing else
    assert len(found.integrals) == 4 and found.contains(jellett**2)
    assert not found.contains(w3**2) and not found.contains(w1 * w3)
    assert all(is_integral(eqs, I) for I in found.integrals)


@pytest.mark.slow
def test_routh_integral_by_its_integrating_factor_within_15_s(sphere):
    eqs, params = sphere
    m, R, a, A, C, g = params
    th = eqs.space.q[1]
    w3 = eqs.u[2]
    c0 = time.process_time()
    res = integrating_factor_integrals(eqs)
    cpu = time.process_time() - c0
    assert cpu <= 15, f"the integrating-factor search took {cpu:.1f} s of CPU"     # 37 s before issue 26.3
    routh = w3 * sp.sqrt(A * C + m * A * R**2 * sp.sin(th)**2 + m * C * (R * sp.cos(th) - a)**2)
    assert len(res.integrals) == 1
    (I,) = res.integrals
    assert any(p.exp == sp.Rational(1, 2) for p in I.atoms(sp.Pow))      # algebraic, not polynomial
    vals = {s: sp.Rational(k + 2, k + 5) for k, s in enumerate((m, R, a, A, C))}
    r1, r2 = [sp.N(((I / routh)**2).xreplace({th: t}).xreplace(vals), 40) for t in (sp.Rational(3, 7), sp.Rational(5, 11))]
    assert abs(r1 - r2) < 1e-30 and abs(r1) > 1e-6          # a constant multiple of Routh's integral
