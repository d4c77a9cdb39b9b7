"""A real browser: `geonh report`'s page and the docs site's equations page in headless Chromium.

Debian's ``chromium`` and ``chromium-driver`` (``.ci/run`` installs them with apt-get where it
can), driven by selenium.  The checks run in the laid-out page: every ``<math>`` element has a
non-zero box, no raw TeX is visible as text, no equation sits in a scrolling box (the scroll
spinner ``overflow-x:auto`` put beside every display equation), and the ``=`` of an aligned
block share one column.  The docs page may render its math with MathJax shipped with the site
(``mjx-container`` elements) or as MathML: either is accepted.

Without a browser the tests are skipped, saying why.  The same browser takes the report's
screenshots under docs/figures/::

    python tests/app/test_browser.py PAGE.html OUT.png
"""
from __future__ import annotations

import os
import re
import shutil
import sys
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

#: Chromium's switches: headless, no sandbox (containers run as root), and nothing that reaches
#: the network (the machine's network is closed; the page must not need it)
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-dev-shm-usage"]


def _binaries() -> tuple[str, str] | None:
    """(chromium, chromedriver) paths, or None where they are not installed."""
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    driver = shutil.which("chromedriver")
    return (browser, driver) if browser and driver else None


def start_chromium(profile: str, width: int = 1000, height: int = 900):
    """A headless Chromium under selenium with a fresh profile directory ``profile``."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    found = _binaries()
    if found is None:
        raise RuntimeError("chromium and chromedriver are not installed (apt-get install chromium chromium-driver)")
    options = webdriver.ChromeOptions()
    options.binary_location = found[0]
    for flag in FLAGS + [f"--user-data-dir={profile}", f"--window-size={width},{height}"]:
        options.add_argument(flag)
    return webdriver.Chrome(service=Service(executable_path=found[1]), options=options)


#: the laid-out page, as the browser sees it: math boxes, visible text, scrolling boxes, aligned rows
_INSPECT = r"""
const maths = Array.from(document.querySelectorAll('math'));
const boxes = maths.map(m => { const r = m.getBoundingClientRect(); return [r.width, r.height]; });
const mjx = Array.from(document.querySelectorAll('mjx-container')).map(
    m => { const r = m.getBoundingClientRect(); return [r.width, r.height]; });
const scrolling = [];
for (const m of maths.concat(Array.from(document.querySelectorAll('mjx-container')))) {
  for (let e = m; e && e !== document.body; e = e.parentElement) {
    const s = getComputedStyle(e);
    if (['auto', 'scroll'].includes(s.overflowX) || ['auto', 'scroll'].includes(s.overflowY)) {
      scrolling.push(e.tagName + '.' + e.className); break; }
  }
}
const misaligned = [];
const edges = (t, column, side) => Array.from(t.querySelectorAll(`:scope > mtr > mtd:nth-child(${column}) > *`))
    .map(e => Math.round(e.getBoundingClientRect()[side]));
for (const t of document.querySelectorAll('mtable.aligned')) {
  // the '=' in one column, the left sides flush right against it, the right sides flush left
  for (const [column, side] of [[2, 'left'], [1, 'right'], [3, 'left']]) {
    const xs = edges(t, column, side);
    if (new Set(xs).size > 1) misaligned.push([column, side, xs]);
  }
}
return {maths: boxes, mjx: mjx, text: document.body.innerText, scrolling: scrolling,
        misaligned: misaligned, aligned: document.querySelectorAll('mtable.aligned').length};
"""

#: TeX that shows as text when math did not render
RAW_TEX = ["\\(", "\\)", "\\[", "$$", "\\begin{", "\\frac", "\\dot{", "\\left(", "\\mathrm"]


def inspect(driver, url: str) -> dict:
    """Load ``url`` and return what :data:`_INSPECT` finds there."""
    driver.get(url)
    return driver.execute_script(_INSPECT)


def problems(found: dict, *, mathjax: bool = False) -> list[str]:
    """What is wrong with a page as inspected: no math, math without a box, raw TeX visible,
    equations in scrolling boxes, aligned blocks whose ``=`` do not line up.  ``mathjax``:
    MathJax's ``mjx-container`` elements count as rendered math too."""
    out = []
    rendered = found["maths"] + (found["mjx"] if mathjax else [])
    if not rendered:
        out.append("no rendered math on the page")
    empty = [wh for wh in rendered if not (wh[0] > 0 and wh[1] > 0)]
    if empty:
        out.append(f"{len(empty)} of {len(rendered)} math elements have no size")
    raw = [t for t in RAW_TEX if t in found["text"]]
    if raw:
        out.append(f"raw TeX visible as text: {raw}")
    if found["scrolling"]:
        out.append(f"math in scrolling boxes (scrollbars beside equations): {sorted(set(found['scrolling']))}")
    if found["misaligned"]:
        out.append(f"aligned blocks whose columns do not line up ([column, edge, x]): {found['misaligned']}")
    return out


@pytest.fixture(scope="module")
def chromium(tmp_path_factory):
    if _binaries() is None:
        pytest.skip("no browser: chromium and chromium-driver are not installed and could not be "
                    "(.ci/run installs them with apt-get where it runs as root)")
    driver = start_chromium(str(tmp_path_factory.mktemp("chromium-profile")))
    try:
        yield driver
    finally:
        driver.quit()


@pytest.fixture(scope="module")
def report_page(tmp_path_factory) -> Path:
    from geonh.app.cli import main
    out = tmp_path_factory.mktemp("report") / "chaplygin-sleigh.html"
    assert main(["report", "chaplygin-sleigh", "-o", str(out), "--t", "2"]) == 0
    return out


@pytest.mark.slow
def test_the_report_renders_in_chromium(chromium, report_page, capsys):
    capsys.readouterr()
    found = inspect(chromium, report_page.as_uri())
    assert problems(found) == []
    assert len(found["maths"]) >= 8 and found["aligned"] >= 5     # T,V; constraints; frame; coefficients; equations
    assert "Certificate" in found["text"] and "Simulation" in found["text"]
    assert "Trajectory(" not in found["text"] and "['" not in found["text"]      # no Python reprs


@pytest.mark.slow
def test_the_checks_catch_raw_tex_scrollbars_and_empty_math(chromium, tmp_path):
    """The checks can fail: a page of raw TeX, math in a scrolling box, an empty <math>."""
    page = tmp_path / "bad.html"
    page.write_text('<!DOCTYPE html><html><body><p>\\(x^2\\)</p><div style="overflow-x:auto">'
                    '<math display="block"><mi>x</mi></math></div><math></math></body></html>', encoding="utf-8")
    found = inspect(chromium, page.as_uri())
    wrong = problems(found)
    assert any("raw TeX" in p for p in wrong) and any("scrolling" in p for p in wrong)
    assert any("no size" in p for p in wrong)
    plain = tmp_path / "plain.html"
    plain.write_text("<!DOCTYPE html><html><body><p>no math</p></body></html>", encoding="utf-8")
    assert problems(inspect(chromium, plain.as_uri())) == ["no rendered math on the page"]


@pytest.fixture(scope="module")
def site(docs_site) -> Path:
    """The docs site built once per session (tests/conftest.py ``docs_site``); read only."""
    assert docs_site.returncode == 0, docs_site.stderr[-5000:]
    return docs_site.html


@pytest.mark.slow
def test_the_docs_equations_render_offline_in_chromium(chromium, site):
    """The site's math renders with the network closed: MathJax shipped with the site or MathML."""
    found = inspect(chromium, (site / "equations.html").as_uri())
    assert problems(found, mathjax=True) == []
    found = inspect(chromium, (site / "conventions.html").as_uri())
    assert [p for p in problems(found, mathjax=True) if p != "no rendered math on the page"] == []


#: the width at which no page of the site may scroll sideways (alabaster's fixed column fits in it)
SITE_WIDTH = 1280

#: the pages built from docs/*.md whose own width is not the formulas' doing, with the reason;
#: they are still checked for formulas wider than their column
WIDE_PAGES = {"audit.html": "the generated tables of docs/make_audit.py are wider than the column"}

#: how wide the page is and which typeset formulas are wider than the box they sit in
_WIDTHS = r"""
const de = document.documentElement;
const wide = [];
for (const m of document.querySelectorAll('mjx-container')) {
  const math = m.querySelector(':scope > mjx-math') || m;
  const w = math.getBoundingClientRect().width, box = m.parentElement.getBoundingClientRect();
  if (w > box.width + 1 || math.getBoundingClientRect().right > box.right + 1)
    wide.push([Math.round(w), Math.round(box.width), (m.textContent || '').slice(0, 60)]);
}
return {scroll: de.scrollWidth, client: de.clientWidth, wide: wide};
"""


def widths(driver, url: str) -> dict:
    """Load ``url``, wait until MathJax (if the page has it) has typeset, and return
    :data:`_WIDTHS`: the page's scroll and client widths and the formulas wider than their box."""
    driver.get(url)
    driver.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "if (window.MathJax && MathJax.startup && MathJax.startup.promise)"
        "  MathJax.startup.promise.then(() => done(1), () => done(0)); else done(0);")
    return driver.execute_script(_WIDTHS)


def overflow(found: dict, *, page: bool = True) -> list[str]:
    """What sticks out: the page wider than the window (``page``), formulas wider than their box.
    A ``pre`` scrolling inside its own box does not widen the page, so code is fine."""
    out = []
    if page and found["scroll"] > found["client"]:
        out.append(f"the page scrolls sideways: {found['scroll']} px of content in {found['client']} px")
    out += [f"formula {w} px wide in a {b} px box: {text!r}" for w, b, text in found["wide"]]
    return out


@pytest.fixture(scope="module")
def wide_chromium(tmp_path_factory):
    if _binaries() is None:
        pytest.skip("no browser: chromium and chromium-driver are not installed")
    driver = start_chromium(str(tmp_path_factory.mktemp("chromium-profile-wide")), width=SITE_WIDTH)
    try:
        yield driver
    finally:
        driver.quit()


@pytest.mark.slow
def test_no_page_of_the_site_overflows_sideways(wide_chromium, site):
    """At a 1280 px window no narrative page (docs/*.md) scrolls sideways, and on no page of the
    built site (API reference and gallery included) is a typeset formula wider than its column."""
    narrative = {p.stem + ".html" for p in (ROOT / "docs").glob("*.md")}
    pages = sorted(p for p in site.rglob("*.html") if not {"_static", "_sources", "_modules"} & set(p.parts))
    assert len(narrative) >= 15 and narrative <= {p.name for p in pages}
    wrong = {}
    for page in pages:
        name = page.relative_to(site).as_posix()
        found = overflow(widths(wide_chromium, page.as_uri()), page=name in narrative and name not in WIDE_PAGES)
        if found:
            wrong[name] = found
    assert wrong == {}


@pytest.mark.slow
def test_the_overflow_check_catches_wide_pages_and_formulas(wide_chromium, site, tmp_path):
    """The check can fail: a page wider than the window, and a formula wider than its column."""
    page = tmp_path / "wide.html"
    page.write_text('<!DOCTYPE html><html><body><div style="width:2000px">wide</div></body></html>',
                    encoding="utf-8")
    assert [p.split(":")[0] for p in overflow(widths(wide_chromium, page.as_uri()))] == ["the page scrolls sideways"]
    mathjax = re.search(r'src="(_static/mathjax/[^"]+)"', (site / "equations.html").read_text(encoding="utf-8"))
    assert mathjax, "the site loads no MathJax from _static/mathjax"
    formula = " + ".join(f"x_{{{i}}}" for i in range(200))
    (tmp_path / "_static").symlink_to(site / "_static", target_is_directory=True)
    page = tmp_path / "wide_formula.html"    # beside (a link to) the site's _static: MathJax loads as on the site
    page.write_text('<!DOCTYPE html><html><body><div style="width:600px;overflow:hidden">'
                    f'$$ {formula} $$</div><script src="{mathjax.group(1)}"></script>'
                    '</body></html>', encoding="utf-8")
    found = overflow(widths(wide_chromium, page.as_uri()))
    assert len(found) == 1 and found[0].startswith("formula ") and "600 px box" in found[0]


def screenshot(page: Path, out: Path, width: int = 1000) -> None:
    """A full-page PNG of ``page`` taken by the headless Chromium of these tests."""
    with tempfile.TemporaryDirectory() as profile:
        driver = start_chromium(profile, width=width)
        try:
            driver.get(page.resolve().as_uri())
            height = driver.execute_script("return document.documentElement.scrollHeight")
            driver.set_window_size(width, int(height) + 120)
            driver.save_screenshot(str(out))
        finally:
            driver.quit()


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(f"usage: {os.path.basename(sys.argv[0])} PAGE.html OUT.png")
    screenshot(Path(sys.argv[1]), Path(sys.argv[2]))
