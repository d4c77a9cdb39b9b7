"""The application's run: one derivation per (model, form), models asked for their kind, and
the report's objects rendered by one table keyed by type (geonh.app.report.html)."""
import collections
import dataclasses
import html
import types

import pytest

from geonh import models
from geonh.app import report, workbench
from geonh.analysis.certificate import Certificate
from geonh.app.cli import main
from geonh.equations import registry
from geonh.systems import analyze_constraints


class _Counted:
    """A registry entry that counts its derivations (every derivation of a registered form,
    by ``derive`` or by the certificate, calls the entry)."""

    def __init__(self, entry, name: str, calls: collections.Counter):
        self._entry, self._name, self._calls = entry, name, calls

    def __getattr__(self, attr):
        return getattr(self._entry, attr)

    def __call__(self, *args, **kwargs):
        self._calls[self._name] += 1
        return self._entry(*args, **kwargs)


@pytest.fixture
def derivations(monkeypatch) -> collections.Counter:
    """form name → how many times it was derived while the test ran."""
    calls: collections.Counter = collections.Counter()
    for name, entry in list(registry.FORMS.items()):
        monkeypatch.setitem(registry.FORMS, name, _Counted(entry, name, calls))
    return calls


@pytest.mark.slow
def test_report_derives_each_form_once(derivations, tmp_path, capsys):
    """`geonh report chaplygin-sleigh` shows the Boltzmann–Hamel equations, certifies every
    form against Lagrange's and simulates: one derivation per form (it was three of
    Boltzmann–Hamel's: the equations shown, the certificate, the simulation)."""
    assert main(["report", "chaplygin-sleigh", "-o", str(tmp_path / "r.html"), "--t", "1"]) == 0
    capsys.readouterr()
    assert "boltzmann-hamel" in derivations and "lagrange" in derivations and len(derivations) >= 8
    assert dict(derivations) == dict.fromkeys(derivations, 1)


@pytest.mark.slow
def test_sweep_derives_once(derivations):
    """A sweep linearizes one derivation at every value (it derived once per value)."""
    eigs = workbench.eigenvalue_sweep(models.get("chaplygin-sleigh"), "a", [0.5, 1.0, 2.0], at={"v": 1})
    assert len(eigs) == 3
    assert dict(derivations) == {"boltzmann-hamel": 1}


def test_session_holds_a_derivation_per_model_and_form(derivations):
    session = workbench.Session()
    sleigh = models.get("chaplygin-sleigh")
    eqs = workbench.equations(sleigh, session=session)
    assert workbench.equations(sleigh, "boltzmann-hamel", session=session) is eqs
    assert workbench.equations(sleigh, "lagrange", session=session) is not eqs
    other = models.get("chaplygin-sleigh")                      # another model object: its own derivation
    assert workbench.equations(other, session=session) is not eqs
    assert derivations == {"boltzmann-hamel": 2, "lagrange": 1}
    assert workbench.equations(sleigh) is not eqs               # no session: a run of its own
    assert workbench.frame(sleigh, session=session) is sleigh.frame


def test_session_keys_the_frame_and_dependent_coordinates(derivations):
    sleigh = models.get("chaplygin-sleigh")
    session = workbench.Session()
    eqs = session.equations(sleigh, "voronets")
    sleigh.dependent = ("x",)          # a model record changed under the run: not the same derivation
    assert session.equations(sleigh, "voronets") is not eqs
    assert derivations == {"voronets": 2}


def _lookalike(model, kind: str):
    """An object of no geonh model class with ``model``'s data, saying it is of ``kind``."""
    data = {f.name: getattr(model, f.name) for f in dataclasses.fields(model)}
    return types.SimpleNamespace(**data, kind=kind, space=model.space, m=model.m, constraints=model.constraints,
                                 distribution=model.distribution)


def test_the_application_asks_a_model_its_kind():
    """The workbench and the report go by what a model says it is, not by its class."""
    for name in ("unicycle", "chaplygin-sleigh", "appell-hamel", "aumann-3.1"):
        assert models.get(name).kind == models.kind(name)
    sleigh = _lookalike(models.get("chaplygin-sleigh"), "mechanical")
    assert workbench.kind(sleigh) == "mechanical"
    assert workbench.show_data(sleigh)["T"] != 0
    page = report.report_html(sleigh, certify=False, simulate_t=0)
    assert "<h2>System</h2>" in page and "Equations of motion (boltzmann-hamel)" in page


def test_each_object_renders_by_its_type():
    cert = Certificate(True, 1.5e-31, "exact rational states", 2)
    assert report.html(cert) == ("<td>same motion</td><td>1.5e-31</td><td>exact rational states</td>")
    aumann = models.get("aumann-3.1")
    analysis = analyze_constraints(aumann.space, list(aumann.constraints))
    assert str(analysis) == analysis.explain()
    assert report.html(analysis) == f"<pre>{html.escape(analysis.explain())}</pre>"   # its own text form
    assert report.html("a < b") == "<pre>a &lt; b</pre>"                        # escaped
    view = workbench.frame_view(models.get("unicycle"))
    assert report.html(view).startswith("<h2>Frame and structure coefficients</h2>")
    assert set(report.PAGES) == set(models.KINDS)
