"""An invariant measure's density in other variables (issue 23, the friction list): the density
transforms with the Jacobian determinant of the change of variables."""
from __future__ import annotations

import pytest
import sympy as sp

from geonh import ConfigurationSpace, MechanicalSystem, boltzmann_hamel, models
from geonh.analysis.hamiltonization import invariant_measure
from geonh.equations import chaplygin
from geonh.errors import GeonhError, SingularMapError
from geonh.kernel.generic_point import is_zero


@pytest.fixture(scope="module")
def particle():
    """The nonholonomic particle ż = y ẋ, reduced: ρ = √(1 + y²) in (x, y, u_x, u_y) (Bloch § 5.8)."""
    P = ConfigurationSpace("x y z")
    x, y, z = P.q
    xd, yd, zd = P.qd
    eq = chaplygin(MechanicalSystem(P, (xd**2 + yd**2 + zd**2) / 2, constraints=[zd - y * xd]), dependent=[z])
    return invariant_measure(eq)


def test_a_coordinate_change_multiplies_by_the_jacobian(particle):
    """y = sinh s: ρ̃(s) = √(1 + sinh² s) · cosh s = cosh² s."""
    s = sp.Symbol("s", real=True)
    y = particle.coordinates[0]
    new = particle.density_in({y: sp.sinh(s)}, [s])
    assert is_zero(new - sp.cosh(s) ** 2)
    assert particle.density_in({"y": sp.sinh(s)}, [s]) == new           # names work too
    # a scaling of a speed, u_y = 3 w: the factor 3
    w = sp.Symbol("w", real=True)
    assert is_zero(particle.density_in({particle.speeds[1]: 3 * w}, [w]) - 3 * particle.density)


def test_bad_changes_are_refused(particle):
    s = sp.Symbol("s", real=True)
    y = particle.coordinates[0]
    with pytest.raises(GeonhError, match="not a coordinate or speed"):
        particle.density_in({"nope": s}, [s])
    with pytest.raises(GeonhError, match="one new symbol each"):
        particle.density_in({y: s}, [])
    with pytest.raises(SingularMapError):
        particle.density_in({y: sp.S(2)}, [s])


@pytest.mark.slow
def test_chaplygin_ball_in_euler_angle_rates():
    """Body angular velocities Ω → Euler angle rates (ψ̇, θ̇, φ̇): dΩ = sin θ dψ̇ dθ̇ dφ̇, so the
    density gains the factor sin θ (Haar's measure on SO(3) in Euler angles)."""
    model = models.get("chaplygin-ball")
    th = model.space.q[1]
    eq = boltzmann_hamel(model.system, model.frame)
    im = invariant_measure(eq)
    new = im.density_in(dict(zip(im.speeds, eq.speeds)), model.space.qd[:3])
    assert is_zero(new ** 2 - (sp.sin(th) * im.density) ** 2)
