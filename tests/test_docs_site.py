"""The Sphinx site builds with warnings as errors and every cross-reference resolved
(``sphinx-build -n -W``); pages, offline math, API links, intersphinx and the executed gallery
are there, and the built site loads nothing from the network."""
import html as _html
import importlib
import inspect
import re
from pathlib import Path

import pytest

import geonh

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"

pytest.importorskip("sphinx")
pytest.importorskip("myst_nb")
pytest.importorskip("ipykernel")


@pytest.fixture(scope="module")
def site(docs_site):
    """The site built once per session (tests/conftest.py ``docs_site``: ``sphinx-build -n -W``)."""
    print(f"sphinx-build: {docs_site.seconds:.1f} s wall")
    assert docs_site.returncode == 0, f"sphinx-build failed (warnings are errors):\n{docs_site.stderr[-5000:]}"
    assert "WARNING" not in docs_site.stderr and "ERROR" not in docs_site.stderr, docs_site.stderr[-5000:]
    return docs_site.html


def _site_module(name):
    """A module of docs/ (conf.py, count_math.py), imported by path."""
    spec = importlib.util.spec_from_file_location(f"_docs_{name}", DOCS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _inventory(site):
    """{(role, name)} of the site's own objects.inv: what autodoc documented."""
    from sphinx.util.inventory import InventoryFile
    with open(site / "objects.inv", "rb") as f:
        inv = InventoryFile.load(f, "", lambda base, uri: uri)
    return {(role, name) for role, entries in inv.items() for name in entries}


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
    # MathJax comes with the site: the page loads it from _static, and it is there
    src = re.search(r'<script[^>]*src="([^"]*mathjax[^"]*)"', html).group(1)
    assert src.startswith("_static/mathjax/"), src
    assert (site / src.split("?")[0]).is_file()
    assert (site / "_static" / "mathjax" / "output" / "chtml" / "fonts" / "woff-v2").is_dir()


_REMOTE = re.compile(r"^(?:[a-z][a-z0-9+.-]*:)?//", re.IGNORECASE)


def _loaded_addresses(html: str) -> list[str]:
    """Every address a page loads by itself (scripts, style sheets, images, frames, media,
    CSS url(...)): not the links a reader may follow (<a href>)."""
    out = []
    for tag in re.findall(r"<(?:script|link|img|iframe|source|video|audio|embed)\b[^>]*>", html, re.IGNORECASE):
        name = tag[1:].split()[0].lower()
        attrs = dict((k.lower(), v) for k, v in re.findall(r'([\w-]+)\s*=\s*"([^"]*)"', tag))
        if name == "link" and not (set(attrs.get("rel", "").lower().split()) & {"stylesheet", "preload", "icon",
                                                                                 "modulepreload", "prefetch"}):
            continue
        out += [attrs[k] for k in ("src", "href", "data", "poster") if k in attrs]
    out += re.findall(r"url\(\s*['\"]?([^'\")]+)", html)
    return out


@pytest.mark.slow
def test_site_loads_nothing_from_the_network(site):
    """No page, style sheet or script of the built site loads a network address (math, fonts,
    styles and images all come with the site), and MathJax's own configuration points at no
    network address either."""
    pages = sorted(site.rglob("*.html"))
    assert len(pages) > 30
    remote = {}
    for page in pages:
        bad = [a for a in _loaded_addresses(page.read_text(encoding="utf-8")) if _REMOTE.match(a.strip())]
        if bad:
            remote[page.relative_to(site).as_posix()] = bad
    for css in sorted((site / "_static").glob("*.css")):
        bad = [a for a in re.findall(r"url\(\s*['\"]?([^'\")]+)", css.read_text(encoding="utf-8"))
               if _REMOTE.match(a.strip())]
        if bad:
            remote[css.name] = bad
    assert not remote, f"the site loads network addresses: {remote}"
    # the check itself sees a network address where there is one
    assert _loaded_addresses('<script defer src="https://cdn.example/tex-chtml.js"></script>')
    assert _REMOTE.match("https://cdn.example/tex-chtml.js") and _REMOTE.match("//cdn.example/x.js")


@pytest.mark.slow
def test_intersphinx_links_to_the_libraries(site):
    """Names of Python, SymPy, NumPy, SciPy and Matplotlib in docstrings link to those projects'
    pages (the inventories are read from docs/_inventories, the links go to the public sites)."""
    pages = "\n".join(p.read_text(encoding="utf-8") for p in (site / "reference").glob("*.html"))
    for address in ["https://docs.python.org/3.11/", "https://docs.sympy.org/1.11/", "https://numpy.org/doc/1.13/",
                    "https://docs.scipy.org/doc/scipy-1.10.1/", "https://matplotlib.org/2.1.1/"]:
        assert f'href="{address}' in pages, address
    kernel = (site / "reference" / "kernel.html").read_text(encoding="utf-8")
    assert 'href="https://docs.sympy.org/1.11/modules/printing.html#sympy.printing.latex.latex"' in kernel


@pytest.mark.slow
def test_every_public_module_and_name_is_documented(site):
    """autodoc is the only API reference: every public module has its automodule entry, and
    every name ``import geonh`` exports is documented under its defining module's name."""
    inv = _inventory(site)
    modules = {name for role, name in inv if role == "py:module"}
    import pkgutil
    public = {"geonh"} | {i.name for i in pkgutil.walk_packages(geonh.__path__, "geonh.")
                          if not any(part.startswith("_") for part in i.name.split(".")[1:])}
    assert not public - modules, f"no reference entry for {sorted(public - modules)}"
    names = {name for role, name in inv}
    conf = _site_module("conf")
    missing = []
    for export in geonh.__all__:
        obj = getattr(geonh, export)
        if inspect.ismodule(obj):
            found = obj.__name__ in modules
        else:
            found = any(c in names for c in conf.with_data_homes(
                conf.canonical_target(f"geonh.{export}", None, None), names))
        if not found:
            missing.append(export)
    assert not missing, f"geonh exports names the reference does not document: {missing}"


@pytest.mark.slow
def test_formulas_are_counted(site):
    """docs/count_math.py counts the typeset formulas (inline and display math elements)."""
    count_math = _site_module("count_math")
    counts = count_math.count_site(site)
    page = (site / "conventions.html").read_text(encoding="utf-8")
    assert counts["conventions.html"] == count_math.count_page(page)
    assert counts["conventions.html"] == len(re.findall(r'<(?:span|div) class="math[" ]', page)) >= 3
    assert count_math.count_page('<p><span class="math notranslate nohighlight">\\(x\\)</span> '
                                 '<div class="math notranslate nohighlight">\\[y\\]</div></p>') == 2
    print(f"typeset formulas on the site: {sum(counts.values())}")


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
def test_gallery_is_executed_with_its_figures(site):
    """Every example ran when the site was built: its page shows what it printed, and the
    figure the Chaplygin sleigh example draws is on its page as an image that comes with the
    site."""
    for path in sorted((ROOT / "examples").glob("*.py")):
        page = (site / "gallery" / f"{path.stem}.html").read_text(encoding="utf-8")
        assert 'class="cell_output' in page, f"{path.stem}: no output on the page"
    page = (site / "gallery" / "chaplygin_sleigh.html").read_text(encoding="utf-8")
    text = _html.unescape(re.sub(r"<[^>]+>", "", page))
    assert re.search(r"t = 20: v = 1\.43178\d \(limit 1\.43178\d\)", text)   # printed by the script
    images = re.findall(r'<img[^>]*src="([^"]+\.png)"', page)
    assert images, "the sleigh's figure is not on its page"
    assert all((site / "gallery" / src).is_file() for src in images)


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
