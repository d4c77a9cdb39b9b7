"""Invariant measures and Chaplygin's reducing multiplier (geonh.analysis.hamiltonization).

Known results: the nonholonomic particle ż = y ẋ has the invariant density √(1 + y²) in
(x, y, ẋ, ẏ) and the reducing multiplier N = 1/√(1 + y²) (Bloch, Nonholonomic Mechanics and
Control, § 5.8; Fedorov & Jovanović 2004).  Independent checks: the divergence of ρX vanishes;
the Hamiltonian vector field of H̃, rescaled by N, equals the reduced equations at random
states; and for two degrees of freedom N equals the measure's density in (r, p) (Chaplygin's
theorem)."""
import random

import pytest
import sympy as sp

from geonh import ConfigurationSpace, MechanicalSystem, models
from geonh.equations import chaplygin
from geonh.analysis.hamiltonization import hamiltonize, invariant_measure
from geonh.errors import DimensionError, NotFoundError
from geonh.kernel.generic_point import is_zero, lu_solve


def _particle(constraint, V=0):
    S = ConfigurationSpace("x y z")
    x, y, z = S.q
    V = V(x, y) if callable(V) else V
    xd, yd, zd = S.qd
    T = (xd**2 + yd**2 + zd**2) / 2
    system = MechanicalSystem(S, T, V=V, constraints=[constraint(x, y, xd, yd, zd)])
    return chaplygin(system, dependent=[z]), (x, y)


EXAMPLES = {
    "particle": lambda x, y, xd, yd, zd: zd - y * xd,
    "oscillator": lambda x, y, xd, yd, zd: zd - (y * xd - x * yd),
    "sine": lambda x, y, xd, yd, zd: zd - sp.sin(y) * xd,
}


POTENTIAL = {"particle": 0, "oscillator": lambda x, y: (x**2 + y**2) / 2, "sine": lambda x, y: y**2}


def test_nonholonomic_particle_known_values():
    eq, (x, y) = _particle(EXAMPLES["particle"])
    assert sp.simplify(invariant_measure(eq).density - sp.sqrt(1 + y**2)) == 0
    h = hamiltonize(eq)
    assert sp.simplify(h.multiplier - 1 / sp.sqrt(1 + y**2)) == 0
    px, py = h.momenta
    assert sp.simplify(h.hamiltonian - (px**2 + (1 + y**2) * py**2) / 2) == 0


def _reduced_field(eq):
    x = lu_solve(eq.mass_matrix, eq.forcing)
    return list(eq.u), [sp.sympify(v) for v in x]


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_measure_is_invariant_and_hamiltonization_reproduces_the_reduced_equations(name):
    eq, (x, y) = _particle(EXAMPLES[name], V=POTENTIAL[name])
    r, (u, acc) = (x, y), _reduced_field(eq)
    rho = invariant_measure(eq).density
    div = sum(sp.diff(rho * u[a], r[a]) + sp.diff(rho * acc[a], u[a]) for a in range(2))
    assert is_zero(div)
    h = hamiltonize(eq)
    N, H, pt = h.multiplier, h.hamiltonian, h.momenta
    M = eq.mass_matrix
    p = M * sp.Matrix(u)
    # along the reduced motion: d p̃/dt = Ṅ p + N ṗ must equal N · (−∂H̃/∂r) at p̃ = N p, and
    # ṙ = N ∂H̃/∂p̃
    at = {pt[a]: N * p[a] for a in range(2)}
    rdot = {r[a]: u[a] for a in range(2)}
    pdot = M * sp.Matrix(acc) + sp.Matrix([sum(sp.diff(M[a, b], c) * rdot[c] * u[b] for b in range(2) for c in r)
                                          for a in range(2)])
    Ndot = sum(sp.diff(N, c) * rdot[c] for c in r)
    rng = random.Random(5)
    for _ in range(3):
        pt_ = {s: sp.Rational(rng.randint(1, 9), rng.randint(2, 7)) for s in (x, y, *u)}
        for a in range(2):
            lhs = (Ndot * p[a] + N * pdot[a]).xreplace(pt_)
            rhs = (-N * sp.diff(H, r[a])).xreplace(at).xreplace(pt_)
            assert abs(sp.N(lhs - rhs, 40)) < 1e-30
            assert abs(sp.N((N * sp.diff(H, pt[a])).xreplace(at).xreplace(pt_) - u[a].xreplace(pt_), 40)) < 1e-30
    # Chaplygin's theorem for two degrees of freedom: N is the invariant density in (r, p)
    ratio = sp.simplify(N / invariant_measure(eq).momentum_density)
    assert not (ratio.free_symbols & {x, y}) and ratio != 0


def test_knife_edge_on_an_inclined_plane():
    m = models.get("inclined-knife-edge")
    eq = chaplygin(m.system, m.dependent)
    h = hamiltonize(eq)
    rho_p = invariant_measure(eq).momentum_density
    assert not (sp.simplify(h.multiplier / rho_p).free_symbols & set(h.coordinates))


def test_no_measure_and_no_multiplier_are_reported():
    eq, _ = _particle(lambda x, y, xd, yd, zd: zd - (x**2 * yd + y * xd))
    with pytest.raises(NotFoundError, match="not closed"):
        invariant_measure(eq)
    with pytest.raises(NotFoundError):
        hamiltonize(eq)


def test_three_degrees_of_freedom_refused():
    m = models.get("tilted-disk")
    with pytest.raises(DimensionError, match="two degrees of freedom"):
        hamiltonize(chaplygin(m.system, m.dependent))


def test_chaplygin_sleigh_has_no_invariant_measure_and_the_rolling_disk_a_trivial_one():
    """The sleigh's motion tends to a straight line (an attractor), so no invariant measure
    exists, and geonh says so; the vertical rolling disk's reduced flow preserves dr du and
    needs no time change (N = 1)."""
    sleigh = models.get("chaplygin-sleigh")
    eq = chaplygin(sleigh.system, sleigh.dependent)
    with pytest.raises(NotFoundError, match="no invariant measure"):
        invariant_measure(eq)
    with pytest.raises(NotFoundError):
        hamiltonize(eq)
    disk = models.get("vertical-disk")
    eq = chaplygin(disk.system, disk.dependent)
    assert invariant_measure(eq).density == 1 and hamiltonize(eq).multiplier == 1


def test_chaplygin_ball_invariant_measure():
    """Chaplygin's ball (1903): the flow on (ψ, θ, φ, x, y, Ω) preserves ρ dq dΩ with
    ρ ∝ sin θ √(1 − m r² γ·(I + m r²)⁻¹γ) (Haar measure on SO(3) times Chaplygin's density;
    Borisov & Mamaev 2002).  Independent check: div(ρ f) = 0 for the whole field f."""
    from geonh import boltzmann_hamel
    model = models.get("chaplygin-ball")
    ps, th, ph, x, y = q = model.space.q
    m, r, I1, I2, I3 = model.parameters
    eq = boltzmann_hamel(model.system, model.frame)
    im = invariant_measure(eq)
    gam = [sp.sin(th) * sp.sin(ph), sp.sin(th) * sp.cos(ph), sp.cos(th)]
    D = m * r**2
    known = sp.sin(th) * sp.sqrt(1 - D * sum(g**2 / (Ii + D) for g, Ii in zip(gam, (I1, I2, I3))))
    ratio = im.density / known
    assert all(is_zero(sp.diff(ratio, v)) for v in q)
    # div(ρ f) = 0, f = (K(q, Ω), M⁻¹F), evaluated at random rational points of the state
    u = eq.u
    acc = lu_solve(eq.mass_matrix, eq.forcing)
    rho = known
    div = sum(sp.diff(rho * k, v) for k, v in zip(eq.kinematics, q)) + sum(sp.diff(rho * acc[a], u[a])
                                                                           for a in range(3))
    assert is_zero(div)


def test_equations_without_a_frame_are_refused_by_name():
    """Reduced equations whose frame is missing (built by hand) get NotAdaptedError naming
    what is needed, not an AttributeError from inside the computation."""
    from geonh.equations import Equations
    from geonh.errors import NotAdaptedError
    eq, _ = _particle(EXAMPLES["particle"])
    bare = Equations(eq.form, eq.system, eq.u, eq.ud, eq.kinematics, eq.speeds, eq.residuals,
                     reduced_coordinates=eq.reduced_coordinates)
    assert bare.frame is None
    with pytest.raises(NotAdaptedError, match="frame equations"):
        hamiltonize(bare)
