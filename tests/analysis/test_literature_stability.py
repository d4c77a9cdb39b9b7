"""Steady spins of the literature's rolling bodies (issue 26, "Must show"), through the public
API: :func:`geonh.analysis.steady.steady_motions`, :meth:`SteadyMotion.stability`,
:func:`geonh.analysis.steady.stability_boundary` and :func:`geonh.analysis.linearize` with
``generators=`` (the linearization reduced by the symmetry).

Both bodies are linearized in the chart ``tilt=True`` of :mod:`geonh.models.literature`,
R = R_z(ψ) R_x(α) R_y(β), regular at the upright position (the z-x-z Euler angles are not:
only ψ + φ is defined at θ = 0).  The symmetry is SE(2): the translations ∂x, ∂y and the
rotation about the vertical through the origin ∂ψ − y ∂x + x ∂y; a steady spin about the
vertical is the relative equilibrium ξ = (0, 0, n) at α = β = 0 (or α = π).

Known results, each with its source:

* **Routh's sphere** (a ball of radius R, mass m, its mass centre G a distance a from the
  centre O on the symmetry axis; central moments A, C) spinning with angular speed n about
  the vertical symmetry axis on a perfectly rough plane.  A body of revolution spinning on
  its pole, where the radius of curvature is ρ, with G at height h above the contact point,
  is stable exactly for

      (C + m ρ h)² n² > 4 m g (h − ρ) (A + m h²)

  (Routh 1884, *Advanced Rigid Dynamics*, the body of revolution on a rough plane;
  Karapetyan 1980s; Borisov & Mamaev 2002, RCD 7, for Routh's sphere).  Its sharp-point
  limit ρ → 0 is the sleeping top's C² n² > 4 A' m g h (A' = A + m h², Maievski/Klein).
  For the sphere ρ = R: with G above O (h = R + a, h − ρ = a) the spin is stable exactly
  above n² = 4 m g a (A + m (R + a)²) / (C + m R (R + a))²; with G below O (h = R − a,
  h − ρ = −a) the left side is positive and the right negative: stable for every n.
  geonh's boundary (the even characteristic polynomial's conditions) must reduce to this.
* **The rattleback** (Garcia & Hubbard 1988, Proc. R. Soc. Lond. A 418, 165–197, their
  parameters :data:`geonh.models.literature.GARCIA_HUBBARD_1988`; Bondi 1986, Proc. R. Soc.
  A 405): the spin direction matters.  The flow is reversible (t → −t with n → −n), so the
  spectrum at −n is minus the spectrum at n; with the misalignment D ≠ 0 the two oscillation
  modes get real parts of opposite signs, so the spin in one direction excites one mode with
  a growth rate an order of magnitude above the other direction's (the fast reversal against
  the slow one); without the misalignment (D = 0) every eigenvalue is on the imaginary axis.
  Without slip and dissipation both directions are linearly unstable at these parameters
  for every spin speed tried (2 ≤ |n| ≤ 1000 rad/s): the spin reverses in both directions,
  as reported by Garcia & Hubbard's reversal-time formula being valid for both directions
  (Kondo & Nakanishi 2017, Phys. Rev. E 95, 062207).
"""
import numpy as np
import pytest
import sympy as sp

import geonh
from geonh.analysis import linearize
from geonh.analysis.steady import stability_boundary, steady_motions
from geonh.errors import ParseError
from geonh.models import literature as lit

M, R, A_, A, C_, G = sp.symbols("m R a A C g", positive=True)   # A_ the offset a, A and C_ the moments
XI3 = sp.Symbol("xi3", real=True)


def _se2(system):
    ps, al, be, x, y = system.space.q
    return [[0, 0, 0, 1, 0], [0, 0, 0, 0, 1], [1, 0, 0, -y, x]]


@pytest.fixture(scope="module")
def sphere():
    model = lit.routh_sphere(tilt=True)
    return {"lagrange": geonh.lagrange(model.system),
            "boltzmann-hamel": geonh.boltzmann_hamel(model.system, model.frame),
            "gens": _se2(model.system)}


def _classical(h, rho, n):
    """Routh's condition (C + m ρ h)² n² − 4 m g (h − ρ)(A + m h²) > 0 (module docstring)."""
    return (C_ + M * rho * h)**2 * n**2 - 4 * M * G * (h - rho) * (A + M * h**2)


def _spin(eqs, gens, alpha):
    fams = steady_motions(eqs, gens, at={"alpha": alpha, "beta": 0})
    assert len(fams) == 1
    (fam,) = fams
    assert [sp.sympify(e) for e in fam.xi] == [0, 0, XI3]          # a spin about the vertical only
    return fam


def _boundary(fam):
    b = stability_boundary(fam)
    # λ⁴ + b1 λ² + b0: spectral stability needs b1 > 0, b0 > 0, b1² − 4 b0 > 0; one zero root,
    # the family's (the spin speed)
    assert b.kind == "spectral" and len(b.conditions) == 3
    assert b.zeros == 1 and b.family_zeros == 1
    return b


def _is_classical_times_squares(condition, classical):
    """condition = classical · n² · (a product of positive symbols and even powers): the same
    sign wherever n ≠ 0 and the squared factors do not vanish."""
    ratio = sp.factor(sp.cancel(condition / classical / XI3**2))
    assert not ratio.has(XI3) and ratio.free_symbols <= {M, R, A_, A, C_, G}
    for f in sp.Mul.make_args(ratio):
        base, exp = f.as_base_exp()
        assert f.is_positive or (exp.is_Integer and exp % 2 == 0), (f, ratio)


NUMBERS = {"m": 1, "R": 1, "a": sp.Rational(3, 10), "A": sp.Rational(2, 5), "C": sp.Rational(1, 2),
           "g": sp.Rational(981, 100)}


@pytest.mark.slow
@pytest.mark.parametrize("form", ["lagrange", "boltzmann-hamel"])
def test_routh_sphere_spin_with_mass_centre_above_is_stable_exactly_above_routh_bound(sphere, form):
    """G above O (α = π): stable exactly for (C + m R (R + a))² n² > 4 m g a (A + m (R + a)²)."""
    fam = _spin(sphere[form], sphere["gens"], sp.pi)
    b = _boundary(fam)
    classical = _classical(R + A_, R, XI3)
    # the discriminant condition b1² − 4 b0 is the classical one times n² and squares
    _is_classical_times_squares(b.conditions[2], classical)
    # the full conjunction agrees with the classical condition on both sides of the bound
    sub = {s: NUMBERS[s.name] for s in (M, R, A_, A, C_, G)}
    bound = float(sp.sqrt((4 * M * G * A_ * (A + M * (R + A_)**2) / (C_ + M * R * (R + A_))**2).xreplace(sub)))
    for n in (0.5 * bound, 0.9 * bound, 1.1 * bound, 3 * bound):
        values = {**NUMBERS, "xi3": sp.Rational(repr(n))}
        expected = n > bound
        assert b.holds(values) == expected, n
        verdict = fam.stability(values).verdict
        assert verdict == ("spectrally stable" if expected else "unstable"), (n, verdict)


@pytest.mark.slow
@pytest.mark.parametrize("form", ["lagrange", "boltzmann-hamel"])
def test_routh_sphere_spin_with_mass_centre_below_is_always_stable(sphere, form):
    """G below O (α = 0): the classical condition with h = R − a holds for every n."""
    fam = _spin(sphere[form], sphere["gens"], 0)
    b = _boundary(fam)
    classical = _classical(R - A_, R, XI3)          # = n²(C + mR(R − a))² + 4 m g a (A + m (R − a)²)
    assert sp.expand(classical - (XI3**2 * (C_ + M * R * (R - A_))**2
                                  + 4 * M * G * A_ * (A + M * (R - A_)**2))) == 0
    _is_classical_times_squares(b.conditions[2], classical)
    for n in (0.1, 1, 4, 30):
        values = {**NUMBERS, "xi3": sp.Rational(repr(n))}
        assert b.holds(values)
        assert fam.stability(values).verdict == "spectrally stable"


def test_tilt_flag_is_checked():
    with pytest.raises(ParseError):
        lit.routh_sphere(tilt="yes")
    with pytest.raises(ParseError):
        lit.rattleback(tilt=1)


# ----------------------------------------------------------------------------------------------
# the rattleback
# ----------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def rattleback():
    model = lit.rattleback(tilt=True)
    eqs = geonh.boltzmann_hamel(model.system, model.frame)
    return eqs, _se2(model.system), {k: sp.nsimplify(v) for k, v in lit.GARCIA_HUBBARD_1988.items()}


def _spin_eigenvalues(rattleback, n, **changes):
    eqs, gens, values = rattleback
    point = {"psi": 0, "alpha": 0, "beta": 0, "x": 0, "y": 0,
             "psi_dot": n, "alpha_dot": 0, "beta_dot": 0, "x_dot": 0, "y_dot": 0, **values, **changes}
    lin = linearize(eqs, point, generators=gens, xi=[0, 0, n], exact=True)
    assert [s.name for s in lin.state] == ["alpha", "beta", "W1", "W2", "W3"]
    return np.sort_complex(np.asarray(lin.eigenvalues(), dtype=complex))


@pytest.mark.slow
@pytest.mark.parametrize("n", [5, 20])
def test_rattleback_spin_direction_asymmetry(rattleback, n):
    """Garcia & Hubbard's rattleback spinning upright at ±n rad/s: the spectrum at −n is minus
    the spectrum at n (reversibility), the real parts are not zero (the misalignment couples
    the spin to the oscillations), and the largest growth rate of one direction is more than
    five times the other's."""
    plus, minus = _spin_eigenvalues(rattleback, n), _spin_eigenvalues(rattleback, -n)
    scale = np.abs(plus).max()
    assert np.abs(np.sort_complex(-plus) - minus).max() < 1e-9 * scale
    grow_plus, grow_minus = plus.real.max(), minus.real.max()
    assert min(grow_plus, grow_minus) > 1e-6 * scale        # both directions: a growing mode
    fast, slow = max(grow_plus, grow_minus), min(grow_plus, grow_minus)
    assert fast > 5 * slow
    # each direction: one mode grows, the other decays (real parts of opposite signs)
    assert (plus.real > 1e-6 * scale).sum() == 2 and (plus.real < -1e-6 * scale).sum() == 2


@pytest.mark.slow
def test_rattleback_without_misalignment_has_no_asymmetry(rattleback):
    """D = 0 (inertia aligned with the curvature): every eigenvalue on the imaginary axis in
    both directions — the asymmetry above comes from the misalignment."""
    for n in (5, -5):
        ev = _spin_eigenvalues(rattleback, n, D=0)
        assert np.abs(ev.real).max() < 1e-9 * np.abs(ev).max()


@pytest.mark.slow
def test_rattleback_has_no_smooth_invariant_measure_by_its_steady_spin(rattleback, sphere):
    """No invariant measure with a smooth positive density ρ(q, u) (geonh's ansatz ρ(q) included):
    along the steady spin, a periodic orbit (period 2π/n), Liouville's formula gives the
    monodromy determinant exp(∫ div f dt) = exp(−∫ d/dt log ρ dt) = 1, so the Floquet
    exponents — the eigenvalues of the co-moving linearization; on the orbit directions those
    of ad_ξ on se(2), whose trace is 0 — sum to 0, i.e. tr A_red = 0 (Kozlov 1988: an
    asymptotically stable mode excludes an invariant measure).  The rattleback's is −3.84 s⁻¹ at
    n = 5; Routh's sphere, which has Chaplygin's density, gives 0 at its steady spins."""
    ev = _spin_eigenvalues(rattleback, 5)
    assert ev.sum().real < -1.0 and abs(ev.sum().imag) < 1e-9 * np.abs(ev).max()
    fam = _spin(sphere["boltzmann-hamel"], sphere["gens"], 0)
    st = fam.stability({**NUMBERS, "xi3": 3})
    assert abs(complex(np.sum(st.eigenvalues))) < 1e-9 * (1 + np.abs(st.eigenvalues).max())
