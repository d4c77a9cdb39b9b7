"""The Sphinx site builds with warnings as errors; pages, math, API links and the gallery are there."""
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"

pytest.importorskip("sphinx")
pytest.importorskip("myst_parser")


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    out = tmp_path_factory.mktemp("html")
    cmd = [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-E", "-q", "-b", "html", str(DOCS), str(out),
           "-d", str(tmp_path_factory.mktemp("doctrees"))]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, f"sphinx-build failed (warnings are errors):\n{proc.stderr[-5000:]}"
    assert "WARNING" not in proc.stderr and "ERROR" not in proc.stderr, proc.stderr[-5000:]
    return out


@pytest.mark.slow
def test_pages_exist(site):
    for page in ["index.html", "conventions.html", "tutorial.html", "equations.html", "bibliography.html",
                 "reference/index.html", "reference/kernel.html", "reference/equations.html",
                 "reference/top.html", "gallery/index.html", "gallery/chaplygin_sleigh.html"]:
        assert (site / page).exists(), page


@pytest.mark.slow
def test_math_is_rendered(site):
    html = (site / "conventions.html").read_text(encoding="utf-8")
    assert "mathjax" in html.lower()
    assert re.search(r'class="math[^"]*"', html)
    assert r"c^d_{ab}" in html


@pytest.mark.slow
def test_api_links_resolve(site):
    ref = (site / "reference" / "equations.html").read_text(encoding="utf-8")
    assert 'id="geonh.equations.base.Equations"' in ref
    # a :class: reference in a docstring became a link to its target on another page
    assert re.search(r'href="kernel\.html#geonh\.kernel\.frames\.Frame"', ref)
    index = (site / "reference" / "index.html").read_text(encoding="utf-8")
    assert 'href="top.html"' in index and 'href="kernel.html"' in index
    top = (site / "reference" / "models.html").read_text(encoding="utf-8")
    assert 'id="geonh.models.interop.from_kanes_method"' in top


@pytest.mark.slow
def test_citations_link_to_the_bibliography(site):
    html = (site / "transposition.html").read_text(encoding="utf-8")
    assert 'href="bibliography.html#hamel1924"' in html
    bib = (site / "bibliography.html").read_text(encoding="utf-8")
    for label in ["hamel1924", "aumann1971", "appell1911", "juschkov", "neimark-fufaev1960", "meijaard2007"]:
        assert f'id="{label}"' in bib, label


@pytest.mark.slow
def test_gallery_has_every_example(site):
    examples = sorted(p.stem for p in (ROOT / "examples").glob("*.py"))
    index = (site / "gallery" / "index.html").read_text(encoding="utf-8")
    for name in examples:
        assert (site / "gallery" / f"{name}.html").exists(), name
        assert f'href="{name}.html"' in index, name
    page = (site / "gallery" / "chaplygin_sleigh.html").read_text(encoding="utf-8")
    assert "Chaplygin sleigh" in page and "boltzmann_hamel" in page


@pytest.mark.slow
def test_docstring_examples_are_shown_verbatim(site):
    """The kernel's docstring examples (doctests) reach the reference page as written: no
    markup escapes (x\\*\\*2) inside them."""
    import html as _html
    page = (site / "reference" / "kernel.html").read_text(encoding="utf-8")
    text = _html.unescape(re.sub(r"<[^>]+>", "", page))
    assert ">>> X(x**2 * y)" in text
    assert "VectorField((1)*d_y)" in text
    assert "x\\*\\*2" not in text
