"""The application's run: one derivation per (model, form), models asked for their kind, and
the report's objects rendered by one table keyed by type (geonh.app.report.html)."""
import collections
import dataclasses
import html
import types

import markupsafe
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
    assert report.html(cert) == ("<td>same motion</td><td>1.5 \u00d7 10<sup>\u221231</sup></td>"
                                 "<td>exact rational states</td>")
    aumann = models.get("aumann-3.1")
    analysis = analyze_constraints(aumann.space, list(aumann.constraints))
    assert str(analysis) == analysis.explain()
    assert report.html(analysis) == f"<pre>{html.escape(analysis.explain())}</pre>"   # its own text form
    assert report.html("a < b") == "<pre>a &lt; b</pre>"                        # escaped
    view = workbench.frame_view(models.get("unicycle"))
    assert report.html(view).startswith("<h2>Frame and structure coefficients</h2>")
    assert set(report.PAGES) == set(models.KINDS)


# -- the page from its templates: escaping, aligned blocks, minus signs, no reprs --------------------------------
HOSTILE = '<script>alert("x")</script><img src=x onerror=alert(1)>'


def _no_markup_from(page: str) -> None:
    assert "<script" not in page and "<img src=x" not in page and "onerror=alert(1)>" not in page


def test_a_hostile_model_name_and_description_are_escaped():
    sleigh = _lookalike(models.get("chaplygin-sleigh"), "mechanical")
    sleigh.name, sleigh.description = HOSTILE, "a & b " + HOSTILE
    page = report.report_html(sleigh, certify=False, simulate_t=0)
    _no_markup_from(page)
    assert str(markupsafe.escape(HOSTILE)) in page and "a &amp; b" in page


def test_hostile_symbol_names_are_escaped():
    import sympy as sp
    from geonh.kernel import ConfigurationSpace
    from geonh.systems import MechanicalSystem
    q = sp.Symbol(HOSTILE)
    space = ConfigurationSpace([q])
    qd = space.qd[0]
    page = report.html(MechanicalSystem(space, qd**2 / 2 - q))
    _no_markup_from(page)
    assert "&lt;script&gt;" in page
    view = workbench.FrameView(None, {HOSTILE: qd}, {}, [(HOSTILE, "a", "b", q)], 0)
    _no_markup_from(report.html(view))
    _no_markup_from(report.html(workbench.GrowthView(HOSTILE, 2, None, HOSTILE)))
    _no_markup_from(report.html(Certificate(False, 1.0, HOSTILE, 2)))
    _no_markup_from(report.aligned([(q, q + 1)]) + report.inline(q))
    assert "<mo>&lt;</mo>" in report.inline(sp.Lt(q, 1))           # a relation's "<" is text, not a tag


def test_an_aligned_block_is_one_table_with_minus_signs():
    import sympy as sp
    a, b, x = sp.symbols("a b x")
    block = report.aligned([(a, -b + x), (sp.Symbol("V"), sp.Integer(-3))])
    assert block.count("<math") == 1 and block.count("<mtr>") == 2 and 'class="aligned"' in block
    assert block.count("<mtd><mo>=</mo></mtd>") == 2
    assert "<mo>-</mo>" not in block and "<mn>-" not in block and "<mo>\u2212</mo>" in block
    assert "<mn>\u22123</mn>" in block
    assert r"\begin{aligned}a &amp;= - b + x \\ V &amp;= -3\end{aligned}" in block     # its TeX annotation
    assert report.aligned([]) == ""


def test_a_long_right_side_continues_on_rows_broken_before_a_term():
    import sympy as sp
    xs = sp.symbols("x0:24")
    rhs = sum((sp.Integer(k + 1) * s * sp.cos(s) for k, s in enumerate(xs)), sp.S.Zero) - xs[0] ** 2
    block = report.aligned([(sp.Symbol("F"), rhs)])
    rows = block.split("</mtable>")[0].split("<mtr>")[1:]
    assert len(rows) >= 3
    assert all(r.startswith("<mtd></mtd><mtd></mtd>") for r in rows[1:])        # continuations
    assert all(report._visible_chars(r) <= report.ROW_CHARS + 12 for r in rows)
    # every term once, in the rows and in the TeX annotation
    assert sum(r.count("<mi>cos</mi>") for r in rows) == 24
    tex = html.unescape(block.split('encoding="application/x-tex">')[1])
    assert tex.count("&=") == 1 and tex.count(r"&\quad") == len(rows) - 1 and tex.count(r"\cos") == 24


def test_numbers_in_text_get_minus_signs():
    assert report.minus_signs("x -0.3 → -1e-05, 60-digit, tzenoff-II, t=-2") == \
        "x \u22120.3 → \u22121e-05, 60-digit, tzenoff-II, t=\u22122"
    assert report.number(-2.5) == "\u22122.5" and report.number(10.0) == "10"


def test_powers_of_ten_are_typeset():
    """A number in scientific notation reads 2.97 × 10⁻⁶¹ (superscript exponent, real minus
    signs), never 2.97e-61; the certificate's residual is one."""
    assert report.number(2.97e-61, 3) == "2.97 \u00d7 10<sup>\u221261</sup>"
    assert report.number(-1.5e20) == "\u22121.5 \u00d7 10<sup>20</sup>"
    assert report.number(1e-5) == "1 \u00d7 10<sup>\u22125</sup>"
    assert report.number(0.0, 3) == "0" and report.number(0.25) == "0.25"
    cert = Certificate(True, 2.97e-61, "random states, 60-digit arithmetic", 3)
    cell = report.html(cert).split("</td>")[1]
    assert cell == "<td>2.97 \u00d7 10<sup>\u221261</sup>" and "e-" not in report.html(cert)


def test_the_certificate_names_its_number_of_random_states():
    cert = Certificate(True, 2.5e-61, "random states, 60-digit arithmetic", 3)
    assert "<td>3 random states, 60-digit arithmetic</td>" in report.html(cert)


def test_the_templates_are_package_data():
    import importlib.resources
    import tomllib
    from pathlib import Path
    templates = importlib.resources.files("geonh.app") / "templates"
    names = {p.name for p in templates.iterdir()}
    assert {"report.html", "report.css", "certificate.html"} <= names
    pyproject = tomllib.loads((Path(__file__).resolve().parents[2] / "pyproject.toml").read_text(encoding="utf-8"))
    patterns = pyproject["tool"]["setuptools"]["package-data"]["geonh"]
    assert {f"app/templates/*{Path(n).suffix}" for n in names} <= set(patterns)


@pytest.mark.slow
def test_the_page_has_no_python_reprs_and_no_scrolling_boxes(tmp_path, capsys):
    page = tmp_path / "r.html"
    assert main(["report", "chaplygin-sleigh", "-o", str(page), "--t", "1"]) == 0
    capsys.readouterr()
    text = page.read_text(encoding="utf-8")
    assert "overflow-x" not in text and "overflow:auto" not in text and 'class="eq"' not in text
    assert "Trajectory(" not in text and "[&#x27;" not in text and "['" not in text
    assert "201 times, 0 &le; t &le; 1; state <math" in text
    assert text.count('<mtable class="aligned"') >= 5 and "<mo>-</mo>" not in text
    assert "2 random states, 60-digit arithmetic" in text


def test_parentheses_stretch_only_around_fractions():
    import sympy as sp
    x, th, a = sp.symbols("x theta a")
    ml = report.inline(sp.cos(th) * (x + a**2) / (1 + sp.cos(x / (a + 1))))
    assert ml.count('<mo stretchy="false">(</mo>') == ml.count('<mo stretchy="false">)</mo>') == 2   # (a²+x), (θ)
    assert ml.count("<mo>(</mo>") == ml.count("<mo>)</mo>") == 1                                   # around x/(a+1)


def test_a_wide_product_and_a_wide_constraint_are_broken_too():
    """c (a₀ + … + a₂₃) is multiplied out to break; a long constraint reads 0 = … and breaks."""
    import sympy as sp
    xs = sp.symbols("x0:24")
    c, g = sp.symbols("c g")
    wide = -g * sum((s * sp.cos(s) for s in xs), sp.S.Zero)
    for lhs, rhs in [(c, wide), (wide, 0)]:
        block = report.aligned([(lhs, rhs)])
        rows = block.split("</mtable>")[0].split("<mtr>")[1:]
        assert len(rows) >= 3 and all(report._visible_chars(r) <= report.ROW_CHARS + 12 for r in rows)
        assert sum(r.count("<mi>cos</mi>") for r in rows) == 24
        assert all(r.startswith("<mtd></mtd><mtd></mtd><mtd><mrow><mspace") for r in rows[1:])  # −g x cos x: minus first
    assert report.aligned([(wide, 0)]).startswith(
        '<math xmlns="http://www.w3.org/1998/Math/MathML" display="block"><semantics><mtable class="aligned" '
        'columnalign="right center left"><mtr><mtd><mrow><mn>0</mn></mrow></mtd>')
