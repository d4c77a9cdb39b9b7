"""Chained form (Murray & Sastry 1993) of the unicycle, the car and the N-trailer (Sørdalen 1993),
checked by substitution; growth vectors and degrees of nonholonomy as published."""
from __future__ import annotations

import pytest
import sympy as sp

from geonh import models
from geonh.control.chained import chained_fields, chained_form
from geonh.errors import NoChainedFormError
from geonh.kernel import ConfigurationSpace, Distribution, VectorField
from geonh.kernel.generic_point import is_zero


def inputs(name):
    m = models.get(name)
    return m, list(m.frame.fields[:2])


def last_trailer(m, N):
    """Sørdalen 1993: the axle midpoint of the last trailer, (x_N, y_N)."""
    x, y, *th = m.space.q
    d = [sp.Symbol(f"d{i}", positive=True) for i in range(1, N + 1)]
    return (x - sum(di * sp.cos(t) for di, t in zip(d, th[1:])),
            y - sum(di * sp.sin(t) for di, t in zip(d, th[1:])))


@pytest.mark.parametrize("name, growth", [
    ("unicycle", (2, 3)), ("kinematic-car", (2, 3, 4)), ("1-trailer", (2, 3, 4)),
    ("2-trailer", (2, 3, 4, 5)), ("3-trailer", (2, 3, 4, 5, 6))])
def test_published_growth_vectors(name, growth):
    # Murray & Sastry 1993 (car: (2, 3, 4)); Sørdalen 1993 / Laumond: the N-trailer has growth
    # (2, 3, …, N + 3), degree of nonholonomy N + 2
    m = models.get(name)
    assert m.distribution.growth_vector() == growth
    degree = {"unicycle": 2, "kinematic-car": 3}.get(name) or int(name.split("-")[0]) + 2
    assert len(growth) == degree


def symbolic_residuals_vanish(form):
    return all(sp.simplify(sp.expand_trig(r)) == 0 for r in form.residuals())


@pytest.mark.slow
def test_unicycle_chained_form_by_substitution():
    m, f = inputs("unicycle")
    x, y, th = m.space.q
    form = chained_form(f)
    assert form.z[0] == x and form.z[-1] == y
    assert sp.simplify(form.z[1] - sp.tan(th)) == 0
    assert symbolic_residuals_vanish(form)


@pytest.mark.slow
def test_car_chained_form_is_the_textbook_one():
    # Murray & Sastry 1993: z = (x, tan φ / (L cos³ θ), tan θ, y), v1 = cos θ u1
    m, f = inputs("kinematic-car")
    x, y, th, ph = m.space.q
    L = sp.Symbol("L", positive=True)
    form = chained_form(f)
    want = [x, sp.tan(ph) / (L * sp.cos(th) ** 3), sp.tan(th), y]
    assert all(sp.simplify(a - b) == 0 for a, b in zip(form.z, want))
    assert sp.simplify(form.beta[0, 0] - sp.cos(th)) == 0 and form.beta[0, 1] == 0
    assert symbolic_residuals_vanish(form)


@pytest.mark.slow
def test_one_trailer_chained_form_by_substitution():
    m, f = inputs("1-trailer")
    h1, h2 = last_trailer(m, 1)
    form = chained_form(f, h1, h2)
    assert symbolic_residuals_vanish(form)
    # z_{n−1} = tan θ_N (Sørdalen 1993), decided at the generic point
    assert is_zero(form.z[-2] - sp.tan(m.space.q[-1]))
    assert not is_zero(form.z[-2] - sp.tan(m.space.q[-2]))


@pytest.mark.slow
@pytest.mark.parametrize("N", [2, 3])
def test_n_trailer_chained_form_by_substitution(N):
    # Sørdalen 1993: from the last trailer's position, z1 = x_N, z_n = y_N, z_{n−1} = tan θ_N,
    # z_{n−2} = tan(θ_{N−1} − θ_N) / (d_N cos³ θ_N); every residual of the substitution zero
    m, f = inputs(f"{N}-trailer")
    form = chained_form(f, *last_trailer(m, N))
    assert form.is_verified() and form.failures() == []
    th = m.space.q[2:]
    dN = sp.Symbol(f"d{N}", positive=True)
    assert is_zero(form.z[-2] - sp.tan(th[-1]))
    assert is_zero(form.z[-3] - sp.tan(th[-2] - th[-1]) / (dN * sp.cos(th[-1]) ** 3))
    assert not is_zero(form.z[-3] - sp.tan(th[-2] - th[-1]) / (dN * sp.cos(th[-1]) ** 2))


@pytest.mark.slow
def test_three_trailer_wrong_flat_output_is_refused():
    # the substitution check on the 3-trailer's graph can fail: the second trailer's position
    # is not a flat output of the 3-trailer
    m, f = inputs("3-trailer")
    x, y, *th = m.space.q
    d1, d2 = sp.symbols("d1 d2", positive=True)
    with pytest.raises(NoChainedFormError, match="not chained"):
        chained_form(f, x - d1 * sp.cos(th[1]) - d2 * sp.cos(th[2]), y - d1 * sp.sin(th[1]) - d2 * sp.sin(th[2]))


@pytest.mark.slow
def test_both_backends_build_the_same_trailer_form():
    from geonh.kernel.backend import using_backend
    m, f = inputs("1-trailer")
    fast = chained_form(f, *last_trailer(m, 1))
    with using_backend("sympy"):
        ref = chained_form(f, *last_trailer(m, 1))
    assert fast.natives is not None and ref.natives is None
    assert all(is_zero(a - b) for a, b in zip(fast.z[2:], ref.z[2:]))
    assert ref.is_verified()


@pytest.mark.slow
def test_pushforward_equals_chained_fields():
    # the pushed-forward inputs are β-combinations of G1 = ∂1 + z2 ∂3 + …, G2 = ∂2
    m, f = inputs("kinematic-car")
    form = chained_form(f)
    G1, G2 = chained_fields(list(form.z))
    for a, fa in enumerate(f):
        push = sp.Matrix([fa(zk) for zk in form.z])
        assert (push - form.beta[0, a] * G1 - form.beta[1, a] * G2).applyfunc(sp.simplify) == sp.zeros(4, 1)


def test_a_wrong_h2_is_refused_by_the_substitution_check():
    m, f = inputs("1-trailer")
    h1, _ = last_trailer(m, 1)
    with pytest.raises(NoChainedFormError, match="not chained"):
        chained_form(f, h1, m.space.q[1])      # y of the tractor is not a flat output


def test_three_inputs_have_no_chained_form():
    S = ConfigurationSpace("x y z w")
    e = [VectorField.coordinate(S, q) for q in S.coords[:3]]
    with pytest.raises(NoChainedFormError, match="exactly 2 inputs"):
        chained_form(e)


def test_wrong_growth_vector_has_no_chained_form():
    # two Heisenberg planes: growth (2, 3, 3) ≠ (2, 3, 4)
    S = ConfigurationSpace("x y z w")
    x, y, z, w = S.q
    f = [VectorField(S, [1, 0, -y / 2, 0]), VectorField(S, [0, 1, x / 2, 0])]
    assert Distribution(f).growth_vector() == (2, 3)
    with pytest.raises(NoChainedFormError, match="growth vector"):
        chained_form(f)


def test_a_failing_h1_is_reported_with_the_reason():
    m, f = inputs("kinematic-car")
    with pytest.raises(NoChainedFormError, match="h1 = phi: Δ2 is not involutive"):
        chained_form(f, h1=m.space.q[3])


@pytest.mark.slow
def test_one_trailer_found_without_hints():
    # Murray's conditions with h1 = x (the tractor) and h2 a first integral of Δ2^⊥
    m, f = inputs("1-trailer")
    form = chained_form(f)
    assert form.z[0] == m.space.q[0] and form.is_verified()
