"""Every strategy of geonh.testing.strategies draws objects whose geonh.testing.source text is
valid Python rebuilding them (in the documented namespace), hypothesis prints a falsifying
example as that text, st.from_type draws geonh types, and draws shrink toward small systems."""
import ast

import pytest
import sympy as sp
from hypothesis import Phase, find, given, settings
from hypothesis import strategies as st
from hypothesis.vendor.pretty import pretty

import geonh
from geonh import (Codistribution, ConfigurationSpace, ConstrainedSetting, Distribution, Form, Frame,
                   MechanicalSystem, NonlinearSystem, OneForm, VectorField, is_zero)
from geonh.kernel.velocity_frames import VelocityFrame
from geonh.testing import strategies as gst
from geonh.testing.source import NAMESPACE_IMPORTS, source


def namespace() -> dict:
    ns: dict = {}
    exec(NAMESPACE_IMPORTS, ns)
    return ns


def _leaves(x) -> list:
    """The defining data of x, flattened: type names, names and sympy expressions."""
    if isinstance(x, (list, tuple)):
        return [type(x).__name__, len(x)] + [y for e in x for y in _leaves(e)]
    if isinstance(x, dict):
        return [y for k, v in x.items() for y in (*_leaves(k), *_leaves(v))]
    if isinstance(x, ConfigurationSpace):
        return ["space", x.coords]
    if isinstance(x, (sp.Basic, sp.MatrixBase, int, float, str)):
        return [x]
    if isinstance(x, OneForm):
        return ["OneForm", *_leaves(x.space), *x.covector]
    if isinstance(x, Form):
        return ["Form", *_leaves(x.space), x.degree, *_leaves(x.components)]
    if isinstance(x, VectorField):
        return ["VectorField", *_leaves(x.space), *x.components]
    if isinstance(x, Frame):
        return ["Frame", *_leaves(x.space), x.names, x.C, x.B]
    if isinstance(x, Distribution):
        return ["Distribution", *_leaves(list(x.fields))]
    if isinstance(x, Codistribution):
        return ["Codistribution", *_leaves(list(x.forms))]
    if isinstance(x, MechanicalSystem):
        return ["MS", *_leaves(x.space), x.T, x.V, *x.Q, x.constraints.matrix(), *x.holonomic, x.name, *x.conditions]
    if isinstance(x, NonlinearSystem):
        return ["NS", *_leaves(x.space), x.T, x.V, *x.Q, *x.phi, x.name, x.virtual, *_leaves(x.solved())]
    if isinstance(x, VelocityFrame):
        return ["VF", *_leaves(x.space), *x.quasi, *x.v, *x.inverse]
    if isinstance(x, ConstrainedSetting):
        return ["CS", *_leaves(x.space), x.dependent, x.a, x.affine, x.quasi]
    raise TypeError(type(x))


def _same(a, b) -> bool:
    """Equal leaves; sympy leaves structurally equal or equal as functions (is_zero)."""
    la, lb = _leaves(a), _leaves(b)
    if len(la) != len(lb):
        return False
    for x, y in zip(la, lb):
        if x == y:
            continue
        if isinstance(x, sp.MatrixBase) and isinstance(y, sp.MatrixBase) and x.shape == y.shape:
            if all(is_zero(u - v) for u, v in zip(x, y)):
                continue
        if isinstance(x, sp.Expr) and isinstance(y, sp.Expr) and is_zero(x - y):
            continue
        return False
    return True


def _round_trip(x) -> None:
    text = source(x)
    y = eval(text, namespace())
    assert type(y) is type(x), text
    assert _same(x, y), text
    # hypothesis prints that text (containers element by element, each element's own text)
    z = eval(pretty(x), namespace())
    assert _same(x, z), pretty(x)


S3 = gst.configuration_spaces(1, 3, time=None)
STRATEGIES = {
    "configuration_spaces": gst.configuration_spaces(1, 4, time=None),
    "coefficients": gst.coefficients(),
    "polynomial_functions": S3.flatmap(gst.polynomial_functions),
    "trigonometric_functions": S3.flatmap(gst.trigonometric_functions),
    "functions": S3.flatmap(gst.functions),
    "vector_fields": S3.flatmap(gst.vector_fields),
    "one_forms": S3.flatmap(gst.one_forms),
    "forms": S3.flatmap(lambda S: st.integers(0, S.dim).flatmap(lambda k: gst.forms(S, k))),
    "invertible_matrices": S3.flatmap(gst.invertible_matrices),
    "frames": S3.flatmap(gst.frames),
    "distributions": S3.flatmap(lambda S: st.integers(0, S.dim).flatmap(
        lambda r: gst.distributions(S, r, redundant=True))),
    "codistributions": S3.flatmap(lambda S: st.integers(0, S.dim).flatmap(lambda r: gst.codistributions(S, r))),
    "integrable_codistributions": S3.flatmap(lambda S: st.integers(0, S.dim).flatmap(
        lambda r: gst.integrable_codistributions(S, r))),
    "coefficient_expressions": S3.flatmap(lambda S: gst.coefficient_expressions(S.coords)),
    "quasi_velocity_matrices": S3.flatmap(lambda S: gst.quasi_velocity_matrices(S.coords, 2)),
    "constrained_settings": gst.constrained_settings(max_n=3, rheonomic=None),
    "holonomic_settings": gst.holonomic_settings(max_n=3),
    "transposition_cases": gst.transposition_cases(max_n=3, rheonomic=None),
    "hamel_frames": gst.hamel_frames(max_dim=3),
    "mechanical_systems": gst.mechanical_systems(kind=gst.CONSTRAINT_KINDS),
    "adapted_frames": gst.mechanical_systems(max_n=3, kind=gst.CONSTRAINT_KINDS).flatmap(gst.adapted_frames),
    "velocity_frames": S3.flatmap(gst.velocity_frames),
    "states": gst.mechanical_systems(max_n=3).flatmap(gst.states),
}


def test_every_strategy_is_round_tripped():
    """The table above names every strategy of the module (so a new one gets a round trip)."""
    names = {n for n in gst.__all__ if n != "source"}
    assert names == set(STRATEGIES)


SLOW = {"adapted_frames"}    # > 1 s: frames of systems, rebuilt and compared as functions


@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.slow) if n in SLOW else n
                                  for n in sorted(STRATEGIES)])
def test_source_rebuilds_every_strategy(name):
    @settings(deadline=None, max_examples=6, database=None)
    @given(STRATEGIES[name])
    def check(x):
        _round_trip(x)

    check()


def test_source_fixed_cases():
    x, m = sp.Symbol("x", real=True), sp.Symbol("m", positive=True)
    S_ = sp.Symbol("S", positive=True)          # a name of the namespace: written in place
    e = x ** sp.Rational(1, 3) / 3 + m * S_ + sp.Rational(1, 2) + sp.Function("f")(x)
    text = source(e)
    assert "Symbol('S', positive=True)" in text and "Rational(1, 3)" in text
    assert eval(text, namespace()) == e
    assert source(sp.Rational(-3, 2)) == "Rational(-3, 2)"
    Q = ConfigurationSpace("x y", time="tau")
    assert eval(source(Q), namespace()) == Q
    with pytest.raises(ValueError):
        source(object())


def test_reprs_unchanged():
    """The short display reprs stay (source is a separate text)."""
    S = ConfigurationSpace("x y")
    X = VectorField(S, [S.q[1], 0])
    assert repr(X) == "VectorField((y)*d_x)"
    assert repr(S) == "ConfigurationSpace([x, y])"


@pytest.mark.slow
def test_falsifying_example_is_valid_python():
    """hypothesis's printed counterexample, pasted after the namespace imports, rebuilds it."""
    @settings(deadline=None, max_examples=50, database=None, phases=[Phase.generate, Phase.shrink])
    @given(gst.mechanical_systems(min_constraints=1))
    def claim(system):
        assert system.n_constraints == 0

    with pytest.raises(AssertionError) as info:
        claim()
    note = next(n for n in info.value.__notes__ if n.startswith(("Falsifying example", "Failing test case")))
    call = ast.parse(note.split(":", 1)[1].strip()).body[0].value
    arg = call.keywords[0].value
    system = eval(ast.unparse(arg), namespace())
    assert isinstance(system, MechanicalSystem) and system.n_constraints == 1


@pytest.mark.parametrize("cls", [ConfigurationSpace, VectorField, OneForm, Form, Frame, Distribution,
                                 Codistribution, MechanicalSystem, NonlinearSystem, VelocityFrame])
def test_from_type(cls):
    @settings(deadline=None, max_examples=5, database=None)
    @given(st.from_type(cls))
    def check(x):
        assert isinstance(x, cls)

    check()


def test_builds_fills_annotated_geonh_parameters():
    def pair(system: MechanicalSystem, field: VectorField) -> tuple:
        return system, field

    @settings(deadline=None, max_examples=5, database=None)
    @given(st.builds(pair))
    def check(p):
        assert isinstance(p[0], MechanicalSystem) and isinstance(p[1], VectorField)

    check()


@pytest.mark.slow
def test_shrinks_to_the_smallest_system():
    s = find(gst.mechanical_systems(), lambda s: True, settings=settings(database=None, deadline=None))
    m1, m2 = sp.symbols("m1 m2", positive=True)
    q1d, q2d = s.space.qd
    assert s.n == 2 and s.n_constraints == 0 and not s.space.is_rheonomic
    assert s.T == m1 * q1d**2 / 2 + m2 * q2d**2 / 2 and s.V == 0 and all(Q == 0 for Q in s.Q)


@pytest.mark.slow
def test_shrinks_a_constrained_counterexample():
    """A 'bug' that needs a constraint and a force shrinks to one plain constraint and one
    constant force on two coordinates."""
    s = find(gst.mechanical_systems(max_n=4), lambda s: s.n_constraints >= 1 and any(q != 0 for q in s.Q),
             settings=settings(database=None, deadline=None, max_examples=500))
    assert s.n == 2 and s.n_constraints == 1 and s.V == 0 and not s.space.is_rheonomic
    A, b = s.constraint_matrix
    assert sorted(A) == [0, 1] and b == sp.zeros(1, 1)
    assert sum(1 for q in s.Q if q != 0) == 1 and all(q.is_number for q in s.Q)
