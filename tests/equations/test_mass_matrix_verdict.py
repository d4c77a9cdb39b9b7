"""The frame forms (Boltzmann–Hamel, Maggi) carry the verdict "M is positive definite" (the
Gram matrix of independent frame fields in the kinetic metric) into their Equations, and
``rhs()`` then solves without the regularity search — with the very same result."""
import dataclasses

import pytest
import sympy as sp

import geonh.kernel.generic_point as gp
import geonh.models.mechanical as mm
from geonh.equations import Equations, boltzmann_hamel, maggi
from geonh.equations.base import record_positive_definite
from geonh.equations.declaration import free_fields_gram_definite
from geonh.errors import DimensionError, ParseError
from geonh.kernel.fields import VectorField
from geonh.kernel.frames import Frame
from geonh.kernel.space import ConfigurationSpace

MODELS = {
    "sleigh": mm.chaplygin_sleigh,              # 2x2, trigonometric
    "tilted-disk": mm.tilted_rolling_disk,      # 3x3
    "skate-on-belt": mm.skate_on_belt,          # rheonomic (time)
    "trailer-2": lambda: mm.dynamic_n_trailer(2),
}


@pytest.fixture
def pivot_searches(monkeypatch):
    """Counts the calls of the regularity search (generic_point.regular_pivot_order)."""
    calls = []
    real = gp.regular_pivot_order

    def spy(*a, **k):
        calls.append(a)
        return real(*a, **k)

    monkeypatch.setattr(gp, "regular_pivot_order", spy)
    return calls


@pytest.mark.parametrize("form", [boltzmann_hamel, maggi], ids=["bh", "maggi"])
@pytest.mark.parametrize("name", list(MODELS))
def test_verdict_carried_and_rhs_unchanged(name, form, pivot_searches):
    model = MODELS[name]()
    eqs = form(model.system, model.frame)
    assert eqs.mass_matrix_positive_definite is True
    # the reference: the same solve deciding regularity itself (the route before the verdict)
    expected = sp.Matrix(list(eqs.kinematics)).col_join(
        gp.lu_solve(eqs.mass_matrix, eqs.forcing)[:len(eqs.ud), :])
    pivot_searches.clear()
    got = eqs.rhs()
    assert pivot_searches == []          # the verdict is carried: no regularity search
    assert sp.srepr(got) == sp.srepr(expected)


def test_no_verdict_without_proof(pivot_searches):
    """Equations from residuals, and copies (dataclasses.replace), carry no verdict: their
    rhs() decides regularity (the search runs)."""
    model = mm.chaplygin_sleigh()
    eqs = boltzmann_hamel(model.system, model.frame)
    copy = dataclasses.replace(eqs, notes="a copy")
    assert copy.mass_matrix_positive_definite is False
    pivot_searches.clear()
    assert sp.srepr(copy.rhs()) == sp.srepr(eqs.rhs())
    assert len(pivot_searches) == 1
    from_residuals = Equations("x", model.system, eqs.u, eqs.ud, eqs.kinematics, eqs.speeds, eqs.residuals)
    assert from_residuals.mass_matrix_positive_definite is False
    with pytest.raises(ParseError):      # a verdict needs the M it is about (linear=(M, F))
        record_positive_definite(from_residuals)


def test_lu_solve_searches_where_the_order_matters(pivot_searches):
    """A 4x4 mass matrix with functions is solved by a symbolic LU whose result depends on the
    pivot order: the search runs even with the verdict."""
    x = sp.Symbol("x")
    M = sp.Matrix(4, 4, lambda i, j: (2 + sp.cos(x)) if i == j else sp.sin(x) / 8)
    F = sp.Matrix([1, sp.cos(x), 0, x])
    assert sp.srepr(gp.lu_solve(M, F, positive_definite=True)) == sp.srepr(gp.lu_solve(M, F))
    assert len(pivot_searches) == 2
    pivot_searches.clear()
    M2 = M[:2, :2]
    assert sp.srepr(gp.lu_solve(M2, F[:2, :], positive_definite=True)) == sp.srepr(gp.lu_solve(M2, F[:2, :]))
    assert len(pivot_searches) == 1      # only the call without the verdict


def test_free_fields_with_a_time_component_give_no_verdict():
    S = ConfigurationSpace(["x", "y"], time=True)
    e = lambda *c: VectorField(S, list(c))   # noqa: E731
    fr = Frame([e(1, 0, 1), e(0, 1, 0), e(0, 0, 1)])     # the first field moves in time
    assert free_fields_gram_definite(fr, 1) is False
    assert free_fields_gram_definite(fr, 0) is True
    fr2 = Frame([e(0, 1, 0), e(1, 0, 1), e(0, 0, 1)])
    assert free_fields_gram_definite(fr2, 1) is True
    assert free_fields_gram_definite(fr2, 2) is False
    with pytest.raises(DimensionError):
        free_fields_gram_definite(fr2, 4)


def test_derivation_runs_with_the_collector_paused(monkeypatch):
    """The declaration (in_frame) and the derivation (solve: central_equations) run with
    Python's cyclic collector paused (kernel.budget.gc_paused: ~0.15 s of the dynamic
    32-trailer's derivation was the collector rescanning acyclic sympy nodes), and leave it
    as they found it, enabled or disabled, also when the declaration refuses."""
    import gc
    import geonh.equations.declaration as decl
    from geonh.errors import NotAdaptedError
    seen: list = []
    real = decl.central_equations

    def spy(*args):
        seen.append(gc.isenabled())
        return real(*args)

    monkeypatch.setattr(decl, "central_equations", spy)
    mo = mm.chaplygin_sleigh()
    try:
        for state in (True, False):
            (gc.enable if state else gc.disable)()
            boltzmann_hamel(mo.system, mo.frame)
            assert gc.isenabled() is state
            with pytest.raises(NotAdaptedError):   # refused inside in_frame
                boltzmann_hamel(mo.system, Frame.coordinate(mo.system.space))
            assert gc.isenabled() is state
    finally:
        gc.enable()
    assert len(seen) == 2 and not any(seen)
