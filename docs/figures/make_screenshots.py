"""The screenshots of issue 23's closing note: the report, the docs' equations page, a notebook.

Taken by the headless Chromium of ``tests/app/test_browser.py`` (Debian's ``chromium`` and
``chromium-driver``, no network), written to ``docs/figures/``::

    python docs/figures/make_screenshots.py                   # *_after.png from this checkout
    python docs/figures/make_screenshots.py --before BASE     # *_before.png from the checkout BASE

``BASE`` is another checkout of geonh (the "before" images were taken from commit 2bb1b9d:
``git worktree add --detach ../base 2bb1b9d``); its code is imported through ``PYTHONPATH``
while this script, the browser and the notebook machinery stay the ones of this checkout.
``--only report,equations,conventions,notebook`` takes a subset; ``--site DIR`` uses a site
built already.  Needs the test extra and ``nbconvert`` (``pip install nbconvert``); not run by
the test suite.

- ``report_*.png``: ``geonh report chaplygin-sleigh`` as a full page.
- ``docs_equations_*.png``: the site's ``equations.html`` (built with ``sphinx -b html`` from the
  checkout's ``docs/``), one window scrolled to § 2 (Boltzmann–Hamel).  The site is opened with
  the network closed, as an offline reader sees it.
- ``docs_conventions_*.png``: the same for ``conventions.html`` at "Fields, forms, brackets", the
  page that held the site's only typeset formulas before (MathJax from a network address).
- ``notebook_*.png``: the notebook of :data:`CELLS` (written by :func:`notebook`; ``--keep DIR``
  keeps it executed as ``DIR/notebook.ipynb``; not under docs/, where myst-nb would read it), executed
  by a Jupyter kernel on the checkout's code and converted to HTML by nbconvert.  The page
  typesets the notebook's LaTeX with MathJax 3 from the ``sphinx-mathjax-offline`` package (as
  JupyterLab does with its own copy), so both images show what a notebook user sees; only the
  objects' display methods differ.
"""
from __future__ import annotations

import argparse
import importlib
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT / "tests" / "app"))

from test_browser import start_chromium  # noqa: E402

#: the notebook's cells: only API that existed at 2bb1b9d, so the same cells run before and after
CELLS = [
    ("markdown", "# The Chaplygin sleigh in a notebook\n"
                 "The system, its equations of motion, the frame's structure coefficients, a "
                 "linearization, a trajectory and a certificate, each the last expression of "
                 "its cell (as a notebook user writes them)."),
    ("code", "import numpy as np\nimport geonh\nfrom geonh import models\n"
             "sleigh = models.get(\"chaplygin-sleigh\")\nsleigh.system"),
    ("code", "bh = geonh.boltzmann_hamel(sleigh.system, sleigh.frame)\nbh"),
    ("code", "sleigh.frame.structure_coefficients()"),
    ("code", "p = {\"m\": 1, \"a\": 0.5, \"I\": 0.2}\n"
             "lin = bh.linearize({\"x\": 0, \"y\": 0, \"theta\": 0, \"v\": 1.0, \"w\": 0, **p}, "
             "ignorable=\"auto\")\nlin"),
    ("code", "traj = geonh.simulate(bh, {\"x\": 0, \"y\": 0, \"theta\": 0.3, \"v\": 1.0, \"w\": 0.8}, "
             "(0.0, 10.0), p,\n                      t_eval=np.linspace(0.0, 10.0, 201))\ntraj"),
    ("code", "cert = geonh.same_motion(geonh.lagrange(sleigh.system), bh)\ncert"),
]


def notebook():
    """The demo notebook (nbformat 4) of :data:`CELLS`, not executed."""
    import nbformat
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell(src) if kind == "markdown" else nbformat.v4.new_code_cell(src)
                for kind, src in CELLS]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    return nb


def _env(code: Path) -> dict:
    """The environment that imports geonh from the checkout ``code``, offline and quiet."""
    env = dict(os.environ, PYTHONPATH=str(code), GEONH_CACHE_DIR=tempfile.mkdtemp(prefix="geonh-cache-"))
    env.pop("GEONH_PROGRESS", None)
    return env


#: MathJax 3's configuration as JupyterLab sets it: ``$``/``$$`` and ``\\(``/``\\[`` delimiters
_MATHJAX3 = r"""<script>window.MathJax = {tex: {inlineMath: [['$', '$'], ['\\(', '\\)']],
  displayMath: [['$$', '$$'], ['\\[', '\\]']], processEscapes: true, processEnvironments: true}};</script>"""


def notebook_html(code: Path, out: Path) -> Path:
    """Execute the demo notebook on ``code``'s geonh and write it as HTML to ``out``."""
    import nbformat
    from nbclient import NotebookClient
    from nbconvert import HTMLExporter
    nb = notebook()
    saved = os.environ.copy()
    os.environ.update(_env(code))             # the kernel inherits this process's environment
    try:
        NotebookClient(nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(out.parent)}}).execute()
    finally:
        os.environ.clear()
        os.environ.update(saved)
    offline = importlib.import_module("sphinx-mathjax-offline")     # the package's name has hyphens
    mathjax = Path(str(offline.__file__)).parent / "static" / "mathjax" / "tex-chtml.js"
    exporter = HTMLExporter(template_name="lab", mathjax_url=mathjax.as_uri())
    body, _ = exporter.from_notebook_node(nb)
    # nbconvert configures MathJax 2 (``MathJax.Hub.Config``), which MathJax 3 ignores; without
    # ``$`` as a delimiter it would leave sympy's ``$\displaystyle ...$`` outputs as raw TeX
    body = body.replace("<head>", "<head>\n" + _MATHJAX3, 1)
    # the lab template's output boxes scroll (overflow auto): with MathJax 3's display margins
    # each typeset output got a vertical scrollbar, an artefact of this export (same before/after)
    body = body.replace("</head>", "<style>.jp-OutputArea-output { overflow: visible !important; }</style>\n</head>", 1)
    # require.js from a network address (for widgets, none here): the page loads nothing remote
    body = re.sub(r'<script src="https?://[^"]*"></script>', "", body)
    out.write_text(body, encoding="utf-8")
    nbformat.write(nb, str(out.with_suffix(".ipynb")))
    return out


def shoot(page: Path, out: Path, *, width: int = 1000, height: int | None = None, anchor: str | None = None,
          scale: float = 1.0) -> None:
    """A PNG of ``page``: the full page, or one window of ``height`` scrolled to ``anchor`` (a CSS
    selector).  ``scale`` < 1 shrinks it; the colours are reduced to a palette to keep it small."""
    from PIL import Image
    with tempfile.TemporaryDirectory() as profile:
        driver = start_chromium(profile, width=width, height=height or 900)
        try:
            driver.get(page.resolve().as_uri())
            time.sleep(3)                     # MathJax typesets
            if height is None:
                full = driver.execute_script("return document.documentElement.scrollHeight")
                driver.set_window_size(width, int(full) + 120)
            elif anchor:
                driver.execute_script(f"document.querySelector({anchor!r}).scrollIntoView(true)")
            driver.save_screenshot(str(out))
        finally:
            driver.quit()
    image = Image.open(out).convert("RGB")
    if scale != 1.0:
        image = image.resize((round(image.width * scale), round(image.height * scale)), Image.Resampling.LANCZOS)
    image.quantize(colors=256, method=Image.Quantize.MEDIANCUT).save(out, optimize=True)
    print(f"{out.relative_to(ROOT)}: {image.width}×{image.height}, {out.stat().st_size // 1024} KiB")


def report(code: Path, out: Path, work: Path) -> None:
    page = work / "report.html"
    subprocess.run([sys.executable, "-m", "geonh", "report", "chaplygin-sleigh", "-o", str(page)],
                   env=_env(code), check=True, timeout=900, cwd=work)
    shoot(page, out)


def build_site(code: Path, work: Path, site: Path | None = None) -> Path:
    """The HTML site of ``code``'s docs/: ``site`` where built already, else built in ``work``."""
    if site is None:
        site = work / "site"
        subprocess.run([sys.executable, "-m", "sphinx", "-b", "html", "-q", str(code / "docs"), str(site),
                        "-d", str(work / "doctrees")], env=_env(code), check=True, timeout=1800, cwd=work)
    return site


#: the site's pages and where their screenshots look: (page, section id, window height)
PAGES = {"equations": ("equations.html", "boltzmannhamel-hamel-s-lagrangeeuler-equations-boltzmann-hamel-system-frame", 1100),
         "conventions": ("conventions.html", "fields-forms-brackets", 700)}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", type=Path, help="the checkout of the 'before' code")
    parser.add_argument("--only", default="report,equations,conventions,notebook")
    parser.add_argument("--keep", type=Path, help="keep the pages (report.html, site/, notebook.html and "
                        ".ipynb) in this directory")
    parser.add_argument("--site", type=Path, help="the HTML site built already from the checkout's docs/")
    args = parser.parse_args(argv)
    code, tag = (args.before.resolve(), "before") if args.before else (ROOT, "after")
    only = set(args.only.split(","))
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp) if args.keep is None else args.keep.resolve()
        work.mkdir(parents=True, exist_ok=True)
        if "report" in only:
            report(code, HERE / f"report_{tag}.png", work)
        for name, (html, section, height) in PAGES.items():
            if name in only:
                site = args.site = build_site(code, work, args.site)
                shoot(site / html, HERE / f"docs_{name}_{tag}.png", height=height, anchor=f"#{section}")
        if "notebook" in only:
            shoot(notebook_html(code, work / "notebook.html"), HERE / f"notebook_{tag}.png", width=900)


if __name__ == "__main__":
    main()
