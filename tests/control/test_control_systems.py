"""Control systems as objects (issue 25.1): driftless, control-affine from a mechanical system."""
from __future__ import annotations

import pytest
import sympy as sp

from geonh import ConfigurationSpace, MechanicalSystem, VectorField, models
from geonh.control import ControlAffineSystem, DriftlessSystem, actuator_forces, point_values
from geonh.errors import (DimensionError, InconsistentStateError, MissingValueError, NotAdaptedError, NotLinearError,
                          ParseError, SpaceMismatchError, UnknownCoordinateError)

m, J = sp.symbols("m J", positive=True)


def knife_edge() -> MechanicalSystem:
    """The knife edge on the plane: T = m(ẋ² + ẏ²)/2 + Jθ̇²/2, sin θ ẋ − cos θ ẏ = 0
    (Bloch 2003, §1.6)."""
    S = ConfigurationSpace("x y theta")
    xd, yd, thd = S.qd
    th = S.q[2]
    return MechanicalSystem(S, m * (xd**2 + yd**2) / 2 + J * thd**2 / 2,
                            constraints=[sp.sin(th) * xd - sp.cos(th) * yd])


def unicycle() -> DriftlessSystem:
    S = ConfigurationSpace("x y theta")
    th = S.q[2]
    return DriftlessSystem([VectorField(S, [sp.cos(th), sp.sin(th), 0]), VectorField(S, [0, 0, 1])], ["v", "w"])


def test_driftless_unicycle_has_named_inputs_and_its_distribution():
    """The kinematic unicycle ẋ = v cos θ, ẏ = v sin θ, θ̇ = w (Murray & Sastry 1993): growth
    vector (2, 3)."""
    uni = unicycle()
    assert uni.inputs == ("v", "w")
    assert uni.distribution.growth_vector() == (2, 3)
    th = uni.space.q[2]
    assert uni.velocity({"v": 2}).components == (2 * sp.cos(th), 2 * sp.sin(th), 0)
    assert uni.drift.is_zero()
    again = DriftlessSystem.from_distribution(uni.distribution)
    assert again.inputs == ("u1", "u2") and again.distribution.growth_vector() == (2, 3)


def test_control_affine_knife_edge_from_its_mechanics():
    """The knife edge driven by a force F along the blade and a torque τ.  The default frame of
    Boltzmann–Hamel's form takes the independent velocities (ẋ, θ̇) as speeds (state names
    v_x, v_theta); by hand from mẍ = F cos θ + λ sin θ, mÿ = F sin θ − λ cos θ, ẏ = ẋ tan θ:
    ẍ = F cos θ/m − ẋ θ̇ tan θ and θ̈ = τ/J (Bloch 2003, §1.6, there in the speed along the blade)."""
    knife = knife_edge()
    th = knife.space.q[2]
    cas = ControlAffineSystem.from_mechanical(knife, [[sp.cos(th), sp.sin(th), 0], [0, 0, 1]], inputs=["F", "tau"])
    assert cas.inputs == ("F", "tau")
    assert [s.name for s in cas.space.coords] == ["x", "y", "theta", "v_x", "v_theta"]
    x, y, th2, vx, vth = cas.space.coords
    assert th2 == th
    f0 = cas.drift.components
    assert sp.simplify(f0[0] - vx) == 0 and sp.simplify(f0[1] - vx * sp.tan(th)) == 0 and f0[2] == vth
    assert sp.simplify(f0[3] + vx * vth * sp.tan(th)) == 0 and sp.simplify(f0[4]) == 0
    F, tau = cas.fields
    assert [sp.simplify(c) for c in F.components] == [0, 0, 0, sp.cos(th) / m, 0]
    assert [sp.simplify(c) for c in tau.components] == [0, 0, 0, 0, 1 / J]
    assert cas.equations is not None and cas.equations.form == "boltzmann-hamel"
    assert cas.is_equilibrium({"x": 1, "y": 2, "theta": 0, "v_x": 0, "v_theta": 0})
    assert not cas.is_equilibrium({"x": 1, "y": 2, "theta": 0, "v_x": 1, "v_theta": 0})
    v = cas.velocity({"F": 1})
    assert sp.simplify(v.components[3] - f0[3] - sp.cos(th) / m) == 0


def test_control_affine_sleigh_reproduces_its_equations_with_the_inputs_added():
    """The Chaplygin sleigh in its frame (v, w): v̇ = a w² + F/m, ẇ = (τ − a m v w)/(I + a² m)
    (Neimark & Fufaev 1972; Bloch 2003, §1.7), F along the sleigh's axis, τ a torque."""
    sl = models.get("chaplygin-sleigh")
    th = sl.system.space.q[2]
    cas = ControlAffineSystem.from_mechanical(sl.system, [[sp.cos(th), sp.sin(th), 0], [0, 0, 1]],
                                              frame=sl.frame, inputs=["F", "tau"])
    x, y, th2, v, w = cas.space.coords
    syms = {s.name: s for s in sl.system.T.free_symbols}
    a, I, mm = syms["a"], syms["I"], syms["m"]
    f0, F, tau = cas.drift.components, cas.fields[0].components, cas.fields[1].components
    assert sp.simplify(f0[3] - a * w**2) == 0
    assert sp.simplify(f0[4] + a * mm * v * w / (I + a**2 * mm)) == 0
    assert sp.simplify(F[3] - 1 / mm) == 0 and sp.simplify(F[4]) == 0
    assert sp.simplify(tau[4] - 1 / (I + a**2 * mm)) == 0 and sp.simplify(tau[3]) == 0


def test_actuator_forces_read_sequences_and_mappings():
    knife = knife_edge()
    th = knife.space.q[2]
    assert actuator_forces(knife, [{"theta": 1}, [sp.cos(th), 0, 0]]) == [[0, 0, 1], [sp.cos(th), 0, 0]]


def test_bad_input_raises_geonh_errors():
    knife = knife_edge()
    S = knife.space
    other = ConfigurationSpace("a b c")
    with pytest.raises(DimensionError):
        actuator_forces(knife, [[1, 0]])
    with pytest.raises(DimensionError):
        actuator_forces(knife, [])
    with pytest.raises(NotLinearError):
        actuator_forces(knife, [[S.qd[0], 0, 0]])
    with pytest.raises(UnknownCoordinateError):
        actuator_forces(knife, [{"z": 1}])
    with pytest.raises(ParseError):
        ControlAffineSystem.from_mechanical("knife", [[0, 0, 1]])
    with pytest.raises(NotAdaptedError):       # Lagrange's form keeps all n speeds: not reduced
        ControlAffineSystem.from_mechanical(knife, [[0, 0, 1]], form="lagrange")
    with pytest.raises(DimensionError):
        ControlAffineSystem.from_mechanical(knife, [[0, 0, 1]], inputs=["a", "b"])
    X = VectorField(S, [1, 0, 0])
    with pytest.raises(SpaceMismatchError):
        ControlAffineSystem(X, [VectorField(other, [1, 0, 0])])
    with pytest.raises(ParseError):
        ControlAffineSystem(X, ["d_x"])
    with pytest.raises(DimensionError):
        DriftlessSystem([])
    with pytest.raises(DimensionError):
        DriftlessSystem([X, X], inputs=["u", "u"])
    with pytest.raises(ParseError):
        DriftlessSystem([X], inputs=["not a name"])
    with pytest.raises(ParseError):
        unicycle().velocity({"nope": 1})
    with pytest.raises(NotAdaptedError):
        T = ConfigurationSpace("x", time=True)
        ControlAffineSystem(VectorField(T, [1, 0]), [VectorField(T, [0, 0])])


def test_point_values_need_every_coordinate_and_finite_values():
    S = ConfigurationSpace("x y")
    assert point_values(S, {"x": "1/2", "y": 0}) == {S.q[0]: sp.Rational(1, 2), S.q[1]: 0}
    with pytest.raises(MissingValueError):
        point_values(S, {"x": 0})
    with pytest.raises(UnknownCoordinateError):
        point_values(S, {"x": 0, "y": 0, "z": 0})
    with pytest.raises(InconsistentStateError):
        point_values(S, {"x": sp.oo, "y": 0})
    with pytest.raises(InconsistentStateError):
        point_values(S, {"x": S.q[1], "y": 0})
    with pytest.raises(ParseError):
        point_values(S, [0, 0])


@pytest.mark.parametrize("name", ["geonh.control.systems", "geonh.control.accessibility", "geonh.control.connection"])
def test_docstring_examples_run(name):
    """The examples in the docstrings of geonh.control print what they show."""
    import doctest
    import importlib
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0
