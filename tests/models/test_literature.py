"""The literature's test-bench systems (geonh.models.literature): each model's published
conserved quantities, momentum equation and invariant measure (or its absence), through the
public API, each with its source; and every form giving one motion."""
from __future__ import annotations

import time

import pytest
import sympy as sp

from geonh import VectorField, models
from geonh.analysis import certify_forms, energy_integral, momentum_map
from geonh.errors import ParseError
from geonh.kernel.generic_point import is_zero
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


# ----------------------------------------------------------------------------------------------
# every literature model is fast to build
# ----------------------------------------------------------------------------------------------
LITERATURE = ["snakeboard"]


@pytest.mark.parametrize("name", LITERATURE)
def test_models_build_fast(name):
    t = time.process_time()
    model = models.get(name)
    assert time.process_time() - t < 1.0
    assert model.name == name and models.kind(name) == "mechanical" and model.frame is not None
