"""The report's steady-motion section and the models' declared symmetries (issue 26, part 2:
"bifurcation / eigenvalue diagrams (CLI and report plots)"): geonh.models.Symmetry,
geonh.app.steadies.declared_arguments, report_html(steady=...), geonh report --steady and
geonh steady MODEL without --generator."""
import base64
import re

import pytest
import sympy as sp

from geonh import models
from geonh.app.cli import main
from geonh.app.report import report_html
from geonh.app.steadies import declared_arguments, steady_report
from geonh.app.workbench import TaskError
from geonh.models import Symmetry, literature as lit


def _section(page: str) -> str:
    i = page.index("<h2>Steady motions</h2>")
    j = page.find("<h2>", i + 1)
    return page[i:] if j < 0 else page[i:j]


def _text(html: str) -> str:
    """The visible text: tags and TeX annotations removed, entities of the page's MathML kept."""
    html = re.sub(r"<annotation.*?</annotation>", "", html, flags=re.S)
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


def test_declared_models():
    """The disk, the sleigh and the tilt charts of Routh's sphere and the rattleback declare
    their symmetry; the Euler-angle charts (singular at the upright spins) and the vertical disk
    do not."""
    for name in ("tilted-disk", "chaplygin-sleigh"):
        assert isinstance(models.get(name).symmetry, Symmetry), name
    assert models.get("vertical-disk").symmetry is None
    assert lit.routh_sphere().symmetry is None and lit.rattleback().symmetry is None
    assert lit.routh_sphere(tilt=True).symmetry.parameter == "xi3"
    assert lit.rattleback(tilt=True).symmetry.boundary is False
    with pytest.raises(TaskError, match="vertical-disk declares no symmetry"):
        declared_arguments(models.get("vertical-disk"))


def test_sleigh_report_section_routh_hurwitz_and_runs():
    """The sleigh's straight motion (Neimark & Fufaev 1972; Bloch 2003): the boundary ξ₁ > 0
    and, along ξ₁ ∈ [−1, 1], unstable backwards, asymptotically stable forwards; the
    eigenvalue diagram is an inline PNG."""
    page = report_html(models.get("chaplygin-sleigh"), simulate_t=0, certify=False)
    sec = _section(page)
    text = _text(sec)
    assert "Routh-Hurwitz; 1 zero eigenvalue, 1 from the family" in text
    assert "unstable for \u22121 \u2264 " not in text         # the page writes &le;
    assert re.search(r"unstable for \u22121 &le; .* &le; \u22120\.06667", text), text
    assert re.search(r"asymptotically stable for 0\.06667 &le; .* &le; 1 ", text), text
    png = re.search(r'src="data:image/png;base64,([A-Za-z0-9+/=]+)"', sec)
    assert png and base64.b64decode(png.group(1))[:8] == b"\x89PNG\r\n\x1a\n"
    assert "<h2>Steady motions</h2>" not in report_html(models.get("chaplygin-sleigh"), simulate_t=0,
                                                         certify=False, steady=False)


def test_thin_disk_report_boundary_and_crossing():
    """The thin uniform disk rolling upright: the boundary −g r + 3 ξ₁² > 0 (Ω² > g/(3R)) in
    MathML with its TeX, and along ξ₁ with g = 9.81, r = 1 the verdict changes between 1.8 and
    1.9 (√(9.81/3) = 1.808)."""
    sec = _section(report_html(models.get("tilted-disk"), simulate_t=0, certify=False))
    assert r"- g r + 3 \xi_{1}^{2} &gt; 0" in sec or r"- g r + 3 \xi_{1}^{2} > 0" in sec, sec[:3000]
    text = _text(sec)
    assert re.search(r"unstable for 0\.5 &le; .* &le; 1\.8 ", text), text
    assert re.search(r"spectrally stable for 1\.9 &le; .* &le; 3\.5 ", text), text


def test_report_steady_asked_without_declaration_and_failure_notes():
    """steady=True on a model without a symmetry: a note saying how to get them; no section by
    default."""
    disk = models.get("vertical-disk")
    assert "<h2>Steady motions</h2>" not in report_html(disk, simulate_t=0, certify=False)
    page = report_html(disk, simulate_t=0, certify=False, steady=True)
    assert "vertical-disk declares no symmetry" in _section(page)


def test_declared_arguments_are_steady_reports_arguments():
    """One route: the report and geonh steady MODEL run steady_report with the declared
    arguments; the sleigh's declaration gives 31 grid values on [−1, 1]."""
    args = declared_arguments(models.get("chaplygin-sleigh"))
    assert args["grid"][0] == -1.0 and args["grid"][-1] == 1.0 and len(args["grid"]) == 31
    rep = steady_report(models.get("chaplygin-sleigh"), **args)
    assert rep.families[0].verdicts[0] == "unstable" and rep.families[0].verdicts[-1] == "asymptotically stable"
    assert rep.source.startswith("Neimark & Fufaev 1972")


def test_cli_steady_uses_the_declared_symmetry(capsys):
    """geonh steady tilted-disk: the declared generators, θ = 0 and the thin disk's formulas;
    --at xi1=3 (a family value) gives one verdict instead of the diagram, and --no-boundary
    overrides the declaration."""
    assert main(["steady", "tilted-disk", "--no-boundary", "--at", "xi1=3"]) == 0
    out = capsys.readouterr().out
    assert "parameters: I_d = m*r**2/4, I_a = m*r**2/2" in out and "source: Neimark & Fufaev 1972" in out
    assert "verdict: spectrally stable" in out and "stability boundary" not in out
    assert main(["steady", "tilted-disk"]) == 0
    out = capsys.readouterr().out
    assert "-g*r + 3*xi1**2 > 0" in out and out.count("  xi1 = ") == 31


def test_cli_report_no_steady(tmp_path, capsys):
    out = tmp_path / "sleigh.html"
    assert main(["report", "chaplygin-sleigh", "-o", str(out), "--t", "0", "--no-certify", "--no-steady"]) == 0
    assert "<h2>Steady motions</h2>" not in out.read_text()
    assert main(["report", "chaplygin-sleigh", "-o", str(out), "--t", "0", "--no-certify"]) == 0
    assert "<h2>Steady motions</h2>" in out.read_text()
    capsys.readouterr()


def test_a_value_given_for_the_verdict_enters_the_formulas(capsys):
    """--at r=2 (a number for the verdict) with --param I_d=m*r**2/4: the thin disk's I_d is
    m·2²/4, as with --param r=2; before, I_d took r = 1 while the rest took r = 2 (a silent wrong
    eigenvalue).  Ω² − g/(3r) scaled: λ² = −(4/5)(3Ω² − g/r) for the thin disk, Ω = ξ₁/r."""
    D = ["--generator", "0,0,0,1,0", "--generator", "0,0,0,0,1", "--generator", "1,0,0,-y,x",
         "--generator", "0,0,1,0,0", "--at", "theta=0", "--param", "I_d=m*r**2/4", "--param", "I_a=m*r**2/2"]
    outs = []
    for extra in (["--at", "r=2"], ["--param", "r=2"]):
        assert main(["--format", "json", "steady", "tilted-disk", *D, "--at", "xi1=4", "--at", "g=9.81",
                     "--no-boundary", *extra]) == 0
        import json
        fam = json.loads(capsys.readouterr().out)["families"][0]
        outs.append(max(im for _, im in fam["eigenvalues"][0]))
    expect = float(sp.sqrt(sp.Rational(4, 5) * (3 * 2**2 - sp.Float(9.81) / 2)))
    assert outs[0] == pytest.approx(expect, rel=1e-9) and outs[1] == pytest.approx(expect, rel=1e-9)


@pytest.mark.slow
def test_routh_sphere_tilt_report_crosses_at_rouths_bound():
    """Routh's sphere (tilt chart), mass centre above the centre: with m = R = 1, a = 0.3,
    A = 0.4, C = 0.5, g = 9.81 Routh's bound is n² > 4 m g a (A + m (R + a)²)/(C + m R (R + a))²
    = 7.59, n > 2.755: the diagram's verdicts change there."""
    model = lit.routh_sphere(tilt=True)
    rep = steady_report(model, **declared_arguments(model))
    (fam,) = rep.families
    bound = (4 * 9.81 * 0.3 * (0.4 + 1.3**2) / 1.8**2) ** 0.5
    for n, verdict in zip(fam.grid, fam.verdicts):
        assert (verdict == "spectrally stable") == (n > bound), (n, verdict)


@pytest.mark.parametrize("kwargs, message", [
    ({"generators": "x"}, "generators must be a non-empty sequence"),
    ({"generators": [["1", "0"], ["1"]]}, "different lengths"),
    ({"generators": [[object()]]}, "a component or value must be"),
    ({"generators": [["1"]], "parameter": "xi1", "span": (1.0, 0.0)}, "an interval A < B"),
    ({"generators": [["1"]], "parameter": "xi1"}, "parameter and span go together"),
    ({"generators": [["1"]], "points": 1}, "points must be"),
    ({"generators": [["1"]], "boundary": "no"}, "boundary must be True or False"),
    ({"generators": [["1"]], "at": {"1x": 0}}, "at must map names to values"),
    ({"generators": [["1"]], "values": {"g": float("nan")}}, "not a finite number"),
])
def test_symmetry_refuses_malformed_declarations(kwargs, message):
    """A declaration is checked where it is made; its strings are parsed where they are used,
    on the model's symbols, never run as code."""
    from geonh.errors import GeonhError
    with pytest.raises(GeonhError, match=message):
        Symmetry(**kwargs)


def test_a_declared_string_is_parsed_never_run(tmp_path, monkeypatch):
    """A generator string that is code is refused by the parser when the report or the command
    uses it, and nothing runs."""
    import dataclasses
    marker = tmp_path / "ran"
    sleigh = models.get("chaplygin-sleigh")
    bad = dataclasses.replace(sleigh, symmetry=Symmetry(
        (("1", "0", "0"), ("0", "1", "0"), (f"open({str(marker)!r}, 'w')", "x", "1"))))
    page = report_html(bad, simulate_t=0, certify=False)
    assert "no steady motions" in _section(page) and not marker.exists()


# -- model files: the [symmetry] table -------------------------------------------------------------
SLEIGH_FILE = '''
coordinates = ["x", "y", "theta"]
[parameters]
m = "positive"
a = "positive"
I = "positive"
[dynamics]
kinetic_energy = "m/2*((x_dot - a*sin(theta)*theta_dot)**2 + (y_dot + a*cos(theta)*theta_dot)**2) + I/2*theta_dot**2"
constraints = ["sin(theta)*x_dot - cos(theta)*y_dot"]
'''


def test_model_file_symmetry_table_drives_steady_and_report(tmp_path, capsys):
    """A model file's [symmetry] gives geonh steady and the report the same steady motions as
    the built-in sleigh's declaration: ξ₁ > 0, unstable backwards, asymptotically stable
    forwards (examples/models/chaplygin_sleigh.toml carries one)."""
    from geonh.models import files
    text = SLEIGH_FILE + '''
[symmetry]
generators = [["1", "0", "0"], ["0", "1", 0], ["-y", "x", "1"]]
values = { m = 1, a = "1/2", I = 0.2 }
parameter = "xi1"
range = [-1, 1]
points = 5
source = "Bloch 2003"
'''
    model = files.loads(text, "sleigh.toml")
    sym = model.symmetry
    x, y = model.space.q[:2]
    assert sym.generators[2] == (-y, x, 1) and sym.span == (-1.0, 1.0) and sym.points == 5
    rep = steady_report(model, **declared_arguments(model))
    assert [str(c) for c in rep.families[0].conditions] == ["xi1"]
    assert rep.families[0].verdicts == ["unstable", "unstable", "spectrally stable", "asymptotically stable",
                                        "asymptotically stable"]
    path = tmp_path / "sleigh.toml"
    path.write_text(text)
    assert main(["steady", str(path)]) == 0
    assert "source: Bloch 2003" in capsys.readouterr().out
    sec = _section(report_html(model, simulate_t=0, certify=False))
    assert "asymptotically stable for 0.5" in sec
    from pathlib import Path
    example = Path(__file__).parents[2] / "examples" / "models" / "chaplygin_sleigh.toml"
    assert files.load(example).symmetry.parameter == "xi1"


@pytest.mark.parametrize("table, message", [
    ("[symmetry]\nparameter = 'xi1'", "symmetry.generators: missing"),
    ("[symmetry]\ngenerators = 'x'", "symmetry.generators: must be a non-empty array"),
    ("[symmetry]\ngenerators = [['1', '0']]", "2 components for the 3 coordinates"),
    ("[symmetry]\ngenerators = [['1', '0', 'q']]", "unknown symbol 'q'"),
    ("[symmetry]\ngenerators = [['1', '0', \"__import__('os')\"]]", "symmetry.generators[0][2]"),
    ("[symmetry]\ngenerators = [['1', '0', '0']]\nat = { z = 0 }", "'z' is not a coordinate"),
    ("[symmetry]\ngenerators = [['1', '0', '0']]\nparams = { g = 1 }", "'g' is not a declared parameter"),
    ("[symmetry]\ngenerators = [['1', '0', '0']]\nparameter = 'xi1'\nrange = [1]", "an array of two numbers"),
    ("[symmetry]\ngenerators = [['1', '0', '0']]\nparameter = 'xi1'\nrange = [1, 0]", "an interval A < B"),
    ("[symmetry]\ngenerators = [['1', '0', '0']]\npoints = 1.5", "symmetry.points: must be a whole number"),
    ("[symmetry]\ngenerators = [['1', '0', '0']]\nboundary = 'no'", "symmetry.boundary: must be true or false"),
    ("[symmetry]\ngenerators = [['1', '0', '0']]\nsweep = 1", "symmetry.sweep: unknown key"),
])
def test_model_file_symmetry_errors_name_the_key(table, message):
    from geonh.errors import ModelFileError
    from geonh.models import files
    with pytest.raises(ModelFileError, match=re.escape(message)):
        files.loads(SLEIGH_FILE + table, "sleigh.toml")


def test_declared_steady_verdicts_agree_on_both_backends():
    """The sleigh's declared diagram (families, boundary, verdicts, eigenvalues) is the same on
    the symengine and the sympy backend."""
    from geonh.kernel import backend as be
    out = {}
    for backend in ("symengine", "sympy"):
        if backend == "symengine" and not be.SYMENGINE_AVAILABLE:
            continue
        with be.using_backend(backend):
            model = models.get("chaplygin-sleigh")
            rep = steady_report(model, **declared_arguments(model))
            (f,) = rep.families
            out[backend] = ([str(c) for c in f.conditions], f.verdicts,
                            [[round(z.real, 12) + 1j * round(z.imag, 12) for z in row] for row in f.eigenvalues])
    assert all(v == out["sympy"] for v in out.values()) and out["sympy"][0] == ["xi1"]
