"""The one form registry and the one model library."""
from __future__ import annotations

import dataclasses

import pytest
import sympy as sp

import geonh as g
from geonh import models
from geonh.analysis.certificate import certify_forms
from geonh.app.cli import main
from geonh.equations import FORMS, FormDeclaration, Inputs, derive


def test_every_form_names_route_and_source():
    assert {"lagrange", "boltzmann-hamel", "volterra", "voronets", "chaplygin", "neimark-fufaev", "maggi",
            "hamel-raw", "gibbs-appell", "kane", "tzenoff-I", "tzenoff-II"} == set(FORMS)
    for name, entry in FORMS.items():
        assert entry.name == name and entry.route in ("engine", "independent") and entry.source
        assert entry.inputs in (Inputs.FRAME, Inputs.DEPENDENT, Inputs.NONE)


def test_engine_forms_are_declarations():
    """The engine forms return what their declaration says (frame forms carry their frame)."""
    M = models.get("chaplygin-sleigh")
    for name, entry in FORMS.items():
        if entry.route == "engine" and entry.applies(M.system, M.dependent):
            eq = entry(M.system, M.frame, M.dependent)
            assert eq.form.split("(")[0] == name, (name, eq.form)


@pytest.mark.slow
def test_certify_forms_on_the_sleigh():
    M = models.get("chaplygin-sleigh")
    certs = certify_forms(M.system, frame=M.frame, dependent=M.dependent)
    assert set(certs) == set(FORMS) - {"lagrange", "volterra"}
    assert all(c.same for c in certs.values()), {k: str(c) for k, c in certs.items()}


def test_derive_refuses_with_the_reason():
    M = models.get("skate-on-belt")
    with pytest.raises(g.NotAdaptedError, match="affine terms"):
        derive("chaplygin", M.system, M.frame, M.dependent)
    with pytest.raises(g.NotFoundError, match="known forms"):
        derive("no-such-form", M.system)


def test_declaration_is_checked_once_and_frozen():
    M = models.get("chaplygin-sleigh")
    decl = g.equations.in_frame("boltzmann-hamel", M.system, M.frame)
    with pytest.raises(dataclasses.FrozenInstanceError):
        decl.form = "x"
    with pytest.raises(g.DimensionError, match="on-motion"):
        dataclasses.replace(decl, on_motion=())
    with pytest.raises(g.SpaceMismatchError):
        other = g.ConfigurationSpace("a b c")
        dataclasses.replace(decl, V=g.VectorField(other, [1, 0, 0]))


def test_equations_are_immutable():
    M = models.get("chaplygin-sleigh")
    eq = M.equations("voronets")
    with pytest.raises(AttributeError, match="immutable"):
        eq.form = "something else"
    with pytest.raises(AttributeError):
        del eq.notes
    ch = M.equations("chaplygin")
    assert ch.reduced_coordinates == tuple(M.space.q[s] for s in (0, 2)) and "quadrature" in ch.notes


def test_model_library_kinds_and_descriptions():
    assert set(models.names()) == set(models.names("kinematic")) | set(models.names("mechanical")) \
        | set(models.names("seed"))
    for name in ("chaplygin-sleigh", "vertical-disk", "rolling-disk", "unicycle"):
        m = models.get(name)
        assert m.name == name and m.description == models.describe(name)
        assert m.frame is not None and m.distribution.rank == m.m
    with pytest.raises(g.NotFoundError, match="known models"):
        models.get("bicycle-of-theseus")


def test_seed_models():
    ah = models.get("appell-hamel")
    assert isinstance(ah.system, g.NonlinearSystem) and ah.system.dof == 2
    au = models.get("aumann-3.1")
    rep = g.analyze_constraints(au.space, list(au.constraints))
    x3 = au.space.q[2]
    assert any(sp.simplify(h - x3) == 0 or sp.simplify(h + x3) == 0 for h in rep.configuration_constraints)


def test_cli_forms(capsys):
    assert main(["forms"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [ln.split()[0] for ln in lines] == list(FORMS)


@pytest.mark.parametrize("name", ["chaplygin-sleigh", "vertical-disk", "appell-hamel", "aumann-3.1"])
def test_cli_show_every_kind(name, capsys):
    assert main(["show", name]) == 0
    assert capsys.readouterr().out.startswith(f"{name}: ")


def test_facade_exports_resolve():
    for name in g.__all__:
        assert hasattr(g, name), name
    for sub in (g.kernel, g.transposition, g.systems, g.equations, g.numerics, g.models):
        for name in sub.__all__:
            assert hasattr(sub, name), (sub.__name__, name)
