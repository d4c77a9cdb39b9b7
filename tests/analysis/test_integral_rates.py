"""Rates of first integrals without the rates u̇ = M⁻¹F written out (issue 26).

* The integral search's rows at a sample point are set up over a field from the mass matrix
  and the forcing at the point; a square root of the coordinates (the rattleback's contact
  point) puts an unknown of the point in the denominators, which used to send the search to the
  expression route with the symbolic rates M⁻¹F at the point (> 120 s on the rattleback).
"""
import time

import pytest

from geonh import models
from geonh.analysis import polynomial_first_integrals


@pytest.fixture(scope="module")
def rattleback():
    return models.get("rattleback").equations("boltzmann-hamel")


@pytest.mark.slow
@pytest.mark.parametrize("degree", [1, 2])
def test_rattleback_search_stays_on_the_field_route(rattleback, degree, monkeypatch):
    """The rattleback's search (constant coefficients): its rows come from the field route
    although √(γ·Λγ) puts an unknown of the sample point in the denominators (the row set is
    multiplied by the common denominator); the expression route with the rates at the point is
    never taken.  Before: more than 120 s at degree 1; now about a second.  No integral of the
    ansatz exists (the energy's coefficients depend on the attitude), and the search says it is
    incomplete (the square root is an unknown of the point)."""
    import geonh.analysis.conserved as conserved

    def no_rates(eqs):
        raise AssertionError("the rates u̇ = M⁻¹F were written out")
    monkeypatch.setattr(conserved, "_rates", no_rates)
    t = time.process_time()
    found = polynomial_first_integrals(rattleback, degree)
    assert time.process_time() - t < 20
    assert found.integrals == () and not found.complete


def _jellett(name):
    """⟨I Ω, r⟩ on a rolling body's Boltzmann–Hamel equations (benchmarks/integral_rates.py):
    r from the mass centre to the contact point; the rotor momenta added on the robot."""
    import sympy as sp
    model = models.get(name)
    eqs = model.equations("boltzmann-hamel")
    P = {p.name: p for p in model.parameters}
    th, ph = eqs.space.q[1], eqs.space.q[2]
    gam = [sp.sin(th) * sp.sin(ph), sp.sin(th) * sp.cos(ph), sp.cos(th)]
    W = sp.Matrix(eqs.u[:3])
    if name == "rattleback":
        In = sp.Matrix([[P["A"], P["D"], 0], [P["D"], P["B"], 0], [0, 0, P["C"]]])
        lam = [P["a1"] ** 2, P["a2"] ** 2, P["a3"] ** 2]
        s = sp.sqrt(sum(L * c ** 2 for L, c in zip(lam, gam)))
        r = [-lam[0] * gam[0] / s, -lam[1] * gam[1] / s, P["h"] - lam[2] * gam[2] / s]
        K = In * W
    else:                                   # the spherical robot: a balanced ball, r = −R γ
        K = sp.diag(P["I1"], P["I2"], P["I3"]) * W + sp.Matrix([P[f"J{k}"] * a for k, a in zip((1, 2, 3), eqs.u[3:6])])
        r = [-P["R"] * c for c in gam]
    return eqs, sum(K[i] * r[i] for i in range(3))


@pytest.mark.slow
@pytest.mark.parametrize("name, conserved", [("spherical-robot", True), ("rattleback", False)])
def test_is_integral_solves_the_rates_at_the_sample_points(name, conserved, monkeypatch):
    """Jellett's integral on the spherical robot (conserved: a balanced ball) and on the
    rattleback (not conserved): ∂J/∂u is not Mᵀu, so the verdict used to be taken on İ with the
    symbolic rates M⁻¹F (6·10⁶ operations on the robot: ~90 s); now u̇ is solved at each sample
    point.  The rates are never formed, and the verdict agrees with İ at random states with u̇
    solved numerically (Equations.solve_point)."""
    import random

    import sympy as sp

    from geonh.analysis import integrals, is_integral
    eqs, J = _jellett(name)

    def no_rates(eqs):
        raise AssertionError("the rates u̇ = M⁻¹F were written out")
    monkeypatch.setattr(integrals, "rates", no_rates)
    t = time.process_time()
    assert is_integral(eqs, J) is conserved
    assert time.process_time() - t < 10
    S = eqs.space
    rng = random.Random(5)
    syms = sorted(J.free_symbols | set(S.q) | set(eqs.u) | sp.Matrix(eqs.mass_matrix).free_symbols
                  | sp.Matrix(eqs.forcing).free_symbols, key=str)
    values = []
    for _ in range(3):
        pt = {s: sp.Rational(rng.randint(2, 19), rng.randint(3, 11)) for s in syms}
        ud = eqs.solve_point(pt)
        rate = sum((sp.diff(J, q) * k for q, k in zip(S.q, eqs.kinematics)), sp.S.Zero)
        rate += sum((sp.diff(J, u) * a for u, a in zip(eqs.u, ud)), sp.S.Zero)
        values.append(abs(sp.N(rate.xreplace(pt), 40)))
    assert all(v < 1e-25 for v in values) if conserved else any(v > 1e-6 for v in values)


@pytest.mark.parametrize("name", ["chaplygin-sleigh", "vertical-disk", "skate-on-belt", "rotating-knife-edge"])
def test_point_verdict_agrees_with_the_full_derivative(name):
    """The verdict with u̇ solved at the sample points equals is_zero on İ with the symbolic
    rates, for integrals and non-integrals (the energy, u₁·cos q₁, a momentum-like u₂)."""
    import sympy as sp

    from geonh.analysis import energy_integral
    from geonh.analysis.integrals import rate_vanishes, time_derivative
    from geonh.kernel.generic_point import is_zero
    eqs = models.get(name).equations("boltzmann-hamel")
    S = eqs.space
    for I in (energy_integral(eqs).expression, eqs.u[0] * sp.cos(S.q[0]), eqs.u[-1], eqs.u[0] ** 2 * S.q[-1]):
        assert rate_vanishes(eqs, I) is is_zero(time_derivative(eqs, I))


@pytest.mark.parametrize("name", ["chaplygin-ball", "routh-sphere"])
def test_rate_from_forces_equals_the_rate_at_random_states(name):
    """rate_from_forces(eqs, E, [u]) = ∂_q E·K + u·F (∂E/∂u = Mᵀu on the Boltzmann–Hamel form)
    equals İ with u̇ solved numerically at random states, with and without a non-zero power
    (E and E·cos θ); a weight that fails the check gives None; a weight of the wrong length
    raises DimensionError."""
    import random

    import sympy as sp

    from geonh.analysis import energy_integral
    from geonh.analysis.integrals import rate_from_forces
    from geonh.errors import DimensionError
    eqs = models.get(name).equations("boltzmann-hamel")
    S = eqs.space
    E = energy_integral(eqs).expression
    fast = rate_from_forces(eqs, E, [[2 * v for v in eqs.u], eqs.u])
    assert fast is not None and sp.count_ops(fast) > 0
    assert rate_from_forces(eqs, E * sp.cos(S.q[1]), [eqs.u]) is None
    with pytest.raises(DimensionError):
        rate_from_forces(eqs, E, [eqs.u[:1]])
    rng = random.Random(2)
    syms = sorted(fast.free_symbols | E.free_symbols | set(S.q) | set(eqs.u)
                  | sp.Matrix(eqs.mass_matrix).free_symbols | sp.Matrix(eqs.forcing).free_symbols, key=str)
    for _ in range(3):
        pt = {s: sp.Rational(rng.randint(2, 19), rng.randint(3, 11)) for s in syms}
        ud = eqs.solve_point(pt)
        full = sum((sp.diff(E, q) * k for q, k in zip(S.q, eqs.kinematics)), sp.S.Zero)
        full += sum((sp.diff(E, u) * a for u, a in zip(eqs.u, ud)), sp.S.Zero)
        a, b = sp.N(fast.xreplace(pt), 40), sp.N(full.xreplace(pt), 40)
        assert abs(a - b) < 1e-25 * max(1, abs(b)) and abs(a) < 1e-25      # the energy is conserved


@pytest.mark.slow
def test_the_new_verdicts_agree_on_both_backends():
    """rate_from_forces' check, is_integral's point verdict and the momentum map on the
    equations (``_momentum_rate``) decide alike on the symengine and the sympy backend: Jellett's
    integral on the spherical robot (conserved) and the rattleback (not), the energy weight on
    Routh's sphere, the rotor momenta of the robot."""
    from geonh import VectorField
    from geonh.analysis import energy_integral, is_integral, momentum_map
    from geonh.analysis.integrals import rate_from_forces
    from geonh.kernel import backend as be
    verdicts = {}
    for backend in ("symengine", "sympy"):
        if backend == "symengine" and not be.SYMENGINE_AVAILABLE:
            continue
        with be.using_backend(backend):
            got = []
            for name in ("spherical-robot", "rattleback"):
                eqs, J = _jellett(name)
                got.append(is_integral(eqs, J))
            sphere = models.get("routh-sphere").equations("boltzmann-hamel")
            E = energy_integral(sphere).expression
            got.append(rate_from_forces(sphere, E, [sphere.u]) is not None)
            robot = models.get("spherical-robot")
            eqs = robot.equations("boltzmann-hamel")
            gens = [VectorField.coordinate(robot.space, robot.space.coordinate(a)) for a in ("alpha1", "alpha2", "alpha3")]
            mm = momentum_map(robot.system, gens)
            got.append(tuple(I.conserved for I in mm.on(eqs)) + tuple(mm.check(eqs)))
            verdicts[backend] = got
    assert verdicts["sympy"] == [True, False, True, (True,) * 6]
    assert all(v == verdicts["sympy"] for v in verdicts.values())
