"""The contract every equation form keeps, one test id per form of the one list, the registry.

For each form of :data:`geonh.FORMS`: it agrees with Lagrange's equations on the built-in
models it applies to (fixed seeds); an engine form's declaration builds, passes its checks
and is refused when a wrong kinematics or an inadmissible δ field is planted in it; an
independent form has no declaration; and every form names its sources as structured
citations of docs/bibliography.md, with its route and inputs stated in docs/equations.md.

Below, the planted mistakes one by one (a sign flipped in K, a W outside the admissible
distribution, speeds that do not give back u, dependent W): each is refused when the
declaration is built, by the check named for it, and with that check taken out of
:data:`geonh.equations.declaration.CHECKS` the same declaration gets through (or, for the
kinematics, is caught only by the next check) — so each test fails without its check.
"""
from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest
import sympy as sp

import geonh as g
from geonh import models
from geonh.equations import FORMS, Citation, FormDeclaration, Inputs, Route, solve
from geonh.equations import declaration
from geonh.kernel.fields import coordinate_fields

DOCS = next(p for p in Path(__file__).resolve().parents if (p / "docs" / "bibliography.md").exists()) / "docs"
#: the one list of forms: every registered form gets one test id per contract
ALL = list(FORMS)
#: built-in models (with and without constraints, with time) on which the contracts are checked
MODELS = ("chaplygin-sleigh", "rotating-knife-edge", "heavy-top")
SEED = 7


def _cases(name: str) -> list:
    out = [models.get(m) for m in MODELS]
    out = [m for m in out if FORMS[name].applies(m.system, m.dependent)]
    assert out, f"{name} applies to none of {MODELS}: add a model it applies to"
    return out


# -- agreement with Lagrange ---------------------------------------------------------------------
@pytest.mark.slow
@pytest.mark.parametrize("name", ALL)
def test_agrees_with_lagrange(name):
    """Same accelerations as Lagrange's equations with multipliers (Lagrange's own id: same as
    Boltzmann–Hamel's) at random states drawn with a fixed seed."""
    reference = "boltzmann-hamel" if name == "lagrange" else "lagrange"
    for M in _cases(name):
        ref = FORMS[reference](M.system, M.frame, M.dependent)
        cert = g.same_motion(ref, FORMS[name](M.system, M.frame, M.dependent), seed=SEED)
        assert cert.same, (name, M.name, str(cert))


# -- declarations --------------------------------------------------------------------------------
def _flip_kinematics(decl: FormDeclaration) -> FormDeclaration:
    """The declaration with the sign of its last non-zero kinematic expression flipped."""
    K = list(decl.kinematics)
    i = max(k for k, e in enumerate(K) if e != 0)
    K[i] = -K[i]
    return dataclasses.replace(decl, kinematics=K)


def _inadmissible_W(decl: FormDeclaration) -> tuple[dict, str]:
    """Changes that put a W outside the admissible distribution: W[0] := a coordinate field
    that a constraint does not annihilate (without constraints every field is admissible:
    W[1] := W[0], dependent); and the check that must refuse it."""
    system = decl.system
    theta = system.constraints.matrix()
    if theta.rows == 0:
        return dict(W=(decl.W[0], decl.W[0]) + tuple(decl.W[2:])), "independence"
    i = next(i for i in range(system.space.n) if any(theta[a, i] != 0 for a in range(theta.rows)))
    W = (coordinate_fields(system.space)[i],) + tuple(decl.W[1:])
    return dict(W=W), "admissibility"


@pytest.mark.parametrize("name", ALL)
def test_declaration(name):
    """An engine form: its declaration builds and passes its checks, carries the form's record,
    solves to the form's equations, and refuses a planted wrong kinematics and a planted
    inadmissible W when it is built.  An independent form has no declaration."""
    entry = FORMS[name]
    for M in _cases(name)[:2]:
        if entry.route is Route.INDEPENDENT:
            assert entry.declare is None
            with pytest.raises(g.NotFoundError, match="independent"):
                entry.declaration(M.system, M.frame, M.dependent)
            continue
        decl = entry.declaration(M.system, M.frame, M.dependent)
        assert isinstance(decl, FormDeclaration) and decl.info is entry.info
        assert decl.route is Route.ENGINE and decl.inputs is entry.inputs and decl.sources == entry.sources
        assert decl.form.split("(")[0] == name
        declaration.verify(decl)  # the checks pass (they ran when it was built)
        assert g.same_motion(solve(decl), entry(M.system, M.frame, M.dependent)).same
        with pytest.raises(g.DeclarationError) as wrong_k:
            _flip_kinematics(decl)
        assert wrong_k.value.check == "kinematics" and wrong_k.value.form == decl.form
        change, check = _inadmissible_W(decl)
        with pytest.raises(g.DeclarationError) as wrong_w:
            dataclasses.replace(decl, **change)
        assert wrong_w.value.check == check and wrong_w.value.item.startswith("W")


# -- sources -------------------------------------------------------------------------------------
def _bibliography() -> dict[str, str]:
    """label → the entry's text, from docs/bibliography.md."""
    text = (DOCS / "bibliography.md").read_text(encoding="utf-8")
    parts = re.split(r"^\(([\w-]+)\)=$", text, flags=re.M)
    return {parts[k]: parts[k + 1] for k in range(1, len(parts), 2)}


def _registry_table() -> dict[str, tuple[str, str]]:
    """name → (route, inputs) from the registry table of docs/equations.md."""
    text = (DOCS / "equations.md").read_text(encoding="utf-8")
    out = {}
    for row in re.findall(r"^\| (`[^|]+`) \| (\w+) \| ([^|]+) \| \d+ \|$", text, flags=re.M):
        for n in re.findall(r"`([^`]+)`", row[0]):
            out[n] = (row[1], row[2].split(";")[0].strip())
    return out


@pytest.mark.parametrize("name", ALL)
def test_structured_citation(name):
    """Each source is a Citation whose key is a label of docs/bibliography.md, whose entry
    there names its authors and year; at least one cites equation labels; docs/equations.md
    states the form's route and inputs as the registry does."""
    entry = FORMS[name]
    bib = _bibliography()
    assert entry.sources and all(isinstance(c, Citation) for c in entry.sources)
    assert any(c.equations for c in entry.sources)
    for c in entry.sources:
        assert c.key in bib, f"{name}: {c.key} is not a label of docs/bibliography.md"
        assert c.work and c.authors
        for who in c.authors:
            assert who in bib[c.key], (name, c.key, who)
        if c.year is not None:
            assert str(c.year) in bib[c.key], (name, c.key, c.year)
        assert str(c).startswith(c.label) and all(e in str(c) for e in c.equations)
    assert entry.source == "; ".join(str(c) for c in entry.sources)
    said = {Inputs.NONE: "nothing", Inputs.FRAME: "frame", Inputs.DEPENDENT: "dependent"}
    assert _registry_table()[name] == (entry.route.value, said[entry.inputs])


# -- the planted mistakes, one check each ---------------------------------------------------------
@pytest.fixture(scope="module")
def sleigh_decl():
    M = models.get("chaplygin-sleigh")
    return g.declare_boltzmann_hamel(M.system, M.frame)


def _without(monkeypatch, check: str) -> None:
    """verify() with every check but ``check`` (CHECKS itself is read-only)."""
    kept = {name: f for name, f in declaration.CHECKS.items() if name != check}
    monkeypatch.setattr(declaration, "CHECKS", kept)


def test_planted_wrong_kinematics(sleigh_decl, monkeypatch):
    """(i) a sign flipped in K: V on the motion is no longer K — refused by the kinematics check;
    without it, only the speeds check (u(K) ≠ u) still catches it."""
    K = list(sleigh_decl.kinematics)
    K[0] = -K[0]
    with pytest.raises(g.DeclarationError, match=r"kinematics check at V\^x") as err:
        dataclasses.replace(sleigh_decl, kinematics=K)
    assert (err.value.form, err.value.check, err.value.item) == ("boltzmann-hamel", "kinematics", "V^x")
    _without(monkeypatch, "kinematics")
    with pytest.raises(g.DeclarationError) as err:
        dataclasses.replace(sleigh_decl, kinematics=K)
    assert err.value.check == "speeds"


def test_planted_consistent_wrong_motion(sleigh_decl, monkeypatch):
    """A wrong motion stated consistently (V and K both with ẏ flipped, and the speeds of that
    motion) violates the constraint: refused by the kinematics check, and by nothing else."""
    S = sleigh_decl.system.space
    K = list(sleigh_decl.kinematics)
    K[1] = -K[1]
    V = g.VectorField(S, [sleigh_decl.V.components[0], -sleigh_decl.V.components[1], sleigh_decl.V.components[2]])
    x, y, th = S.q
    speeds = (sp.cos(th) * S.qd[0] - sp.sin(th) * S.qd[1], S.qd[2])
    with pytest.raises(g.DeclarationError, match="constraint 1") as err:
        dataclasses.replace(sleigh_decl, V=V, kinematics=K, speeds=speeds)
    assert err.value.check == "kinematics"
    _without(monkeypatch, "kinematics")
    dataclasses.replace(sleigh_decl, V=V, kinematics=K, speeds=speeds)  # nothing else sees it


def test_planted_inadmissible_W(sleigh_decl, monkeypatch):
    """(ii) W[0] = ∂_x, outside the admissible distribution (the sleigh's constraint
    −sin θ ẋ + cos θ ẏ = 0 does not annihilate it): refused by the admissibility check; without
    it the declaration would be built (∂_x and X_w are independent)."""
    S = sleigh_decl.system.space
    W = (coordinate_fields(S)[0], sleigh_decl.W[1])
    with pytest.raises(g.DeclarationError, match=r"admissibility check at W\[0\]: constraint 1") as err:
        dataclasses.replace(sleigh_decl, W=W)
    assert err.value.check == "admissibility" and err.value.item == "W[0]"
    _without(monkeypatch, "admissibility")
    assert dataclasses.replace(sleigh_decl, W=W).W[0].components == (1, 0, 0)


def test_planted_speeds_that_do_not_give_back_u(sleigh_decl, monkeypatch):
    """(iii) v defined as 2(cos θ ẋ + sin θ ẏ): on q̇ = K it gives 2v — refused by the speeds
    check; without it the declaration would be built."""
    speeds = (2 * sleigh_decl.speeds[0], sleigh_decl.speeds[1])
    with pytest.raises(g.DeclarationError, match=r"speeds check at u\[0\] = v") as err:
        dataclasses.replace(sleigh_decl, speeds=speeds)
    assert err.value.check == "speeds"
    _without(monkeypatch, "speeds")
    dataclasses.replace(sleigh_decl, speeds=speeds)


def test_planted_dependent_W(sleigh_decl, monkeypatch):
    """W = (X_v, 3 X_v): both admissible, dependent — refused by the independence check; too
    few W likewise (with a speed dropped); without the check both would be built."""
    W = (sleigh_decl.W[0], 3 * sleigh_decl.W[0])
    with pytest.raises(g.DeclarationError, match=r"independence check at W\[1\]: it depends on W\[0\]"):
        dataclasses.replace(sleigh_decl, W=W)
    d = sleigh_decl
    one = dict(W=d.W[:1], on_motion=d.on_motion[:1], u=d.u[:1], ud=d.ud[:1], speeds=d.speeds[:1])
    with pytest.raises(g.DeclarationError, match="1 δ fields for 2 degrees of freedom"):
        dataclasses.replace(d, **one)
    _without(monkeypatch, "independence")
    dataclasses.replace(sleigh_decl, W=W)


def test_planted_time_component_of_W(monkeypatch):
    """With time, a δ field with δt ≠ 0 (W[0] + ∂_t) is not a virtual displacement."""
    M = models.get("rotating-knife-edge")
    decl = g.declare_boltzmann_hamel(M.system, M.frame)
    S = M.system.space
    W = (decl.W[0] + coordinate_fields(S)[S.n],) + tuple(decl.W[1:])
    with pytest.raises(g.DeclarationError, match="δt"):
        dataclasses.replace(decl, W=W)


def test_planted_time_component_of_V():
    """With time, V^t on the motion must be 1."""
    M = models.get("rotating-knife-edge")
    decl = g.declare_voronets(M.system, M.dependent)
    S = M.system.space
    V = g.VectorField(S, list(decl.V.components[:S.n]) + [2])
    with pytest.raises(g.DeclarationError, match=r"kinematics check at V\^t"):
        dataclasses.replace(decl, V=V)


def test_declaration_errors_are_clear_and_pickle():
    import pickle
    e = g.DeclarationError("voronets", "speeds", "u[0] = v", "gives 2, not 1")
    assert isinstance(e, ValueError) and isinstance(e, g.GeonhError)
    assert str(e) == "voronets: the declaration fails its speeds check at u[0] = v: gives 2, not 1"
    back = pickle.loads(pickle.dumps(e))
    assert (back.form, back.check, back.item, str(back)) == (e.form, e.check, e.item, str(e))


def test_records_refuse_bad_fields():
    """Route and inputs are enums (a registered name converts, anything else is refused); a
    citation's fields are typed; a declaration's record must be an engine form's."""
    info = declaration.FormInfo("x", "engine", "frame")
    assert info.route is Route.ENGINE and info.inputs is Inputs.FRAME
    with pytest.raises(g.ParseError, match="Route must be one of"):
        declaration.FormInfo("x", "sideways", Inputs.NONE)
    with pytest.raises(g.ParseError, match="Inputs must be one of"):
        Inputs(["frame"])
    with pytest.raises(g.ParseError):
        Citation("k", "Hamel", 1924, "work")            # authors: a sequence, not one string
    with pytest.raises(g.ParseError):
        Citation("k", ("Hamel",), "1924", "work")
    M = models.get("chaplygin-sleigh")
    decl = g.declare_boltzmann_hamel(M.system, M.frame)
    with pytest.raises(g.DeclarationError, match="route"):
        dataclasses.replace(decl, info=FORMS["kane"].info)
    assert str(Route.ENGINE) == "engine" and f"{Inputs.DEPENDENT}" == "dependent"


def test_framed_is_a_record():
    M = models.get("chaplygin-sleigh")
    fm = declaration.framed(M.system, M.frame)
    assert isinstance(fm, declaration.FramedMotion) and fm.m == 2 and fm.u == tuple(sp.symbols("v w", real=True))
    with pytest.raises(dataclasses.FrozenInstanceError):
        fm.m = 3


def test_cli_forms_reads_the_records(capsys):
    """`geonh forms --format json` prints each form's route, inputs and structured sources as
    its record holds them."""
    import json
    from geonh.app.cli import main
    assert main(["forms", "--format", "json"]) == 0
    rows = {r["name"]: r for r in json.loads(capsys.readouterr().out)}
    assert list(rows) == ALL
    for name, entry in FORMS.items():
        r = rows[name]
        assert (r["route"], r["inputs"], r["source"]) == (entry.route.value, entry.inputs.value, entry.source)
        assert r["sources"] == [c.as_dict() for c in entry.sources]


def test_the_checks_are_read_only():
    """No caller can drop or reorder a check for everyone: CHECKS is a read-only mapping."""
    with pytest.raises(TypeError):
        declaration.CHECKS["kinematics"] = lambda decl, point: None  # type: ignore[index]
    with pytest.raises(TypeError):
        del declaration.CHECKS["speeds"]  # type: ignore[attr-defined]
    assert list(declaration.CHECKS) == ["kinematics", "speeds", "admissibility", "independence"]
