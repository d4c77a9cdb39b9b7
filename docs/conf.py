"""Sphinx configuration of the geonh documentation site.

Build (warnings are errors, every cross-reference checked)::

    sphinx-build -n -W --keep-going -b html docs docs/_build/html

The pages are MyST Markdown (``docs/*.md``, read by myst-nb); the API reference
(``docs/reference/``) is autodoc with napoleon, the only API reference.  ``docs/gallery/`` is
written at build time from ``examples/*.py`` by :func:`write_gallery` as MyST notebooks, which
myst-nb executes during the build (their printed output and figures are on the pages).

The built site loads nothing from the network: the math is typeset by MathJax 3 shipped with
the site (the ``sphinx-mathjax-offline`` package copies it into ``_static/mathjax``), and the
intersphinx inventories of Python, SymPy, NumPy, SciPy and Matplotlib are read from
``docs/_inventories/`` (see the README there), while their links point at the public sites.
"""
from __future__ import annotations

import ast
import os
import re
import sys
import tempfile
from pathlib import Path

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
sys.path.insert(0, str(ROOT))

import geonh  # noqa: E402

project = "geonh"
author = "the geonh authors"
copyright = "the geonh authors"
version = release = geonh.__version__ if hasattr(geonh, "__version__") else ""

extensions = [
    "myst_nb",                   # MyST Markdown (myst_parser inside) + executed notebooks
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "sphinx.ext.mathjax",
    "sphinx-mathjax-offline",    # MathJax 3 from _static/, not from a network address
    "sphinx.ext.intersphinx",
    "sphinx.ext.viewcode",
]
nitpicky = True                  # every cross-reference must resolve (as with sphinx-build -n)

source_suffix = {".md": "myst-nb"}
root_doc = "index"
exclude_patterns = ["_build", "_inventories", "Thumbs.db", ".DS_Store"]

myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence", "deflist"]
myst_heading_anchors = 3
myst_dmath_double_inline = True

# -- autodoc ---------------------------------------------------------------------------------
autodoc_default_options = {"members": True, "undoc-members": False, "show-inheritance": False}
autodoc_member_order = "bysource"
# Type hints are not rendered: each docstring's "name : what it is" entries state the type in
# words with the mathematics (a sympy expression in (t, q, q̇), a matrix of shape n × m, ...),
# which the hints (Sequence[sp.Expr] | np.ndarray, private aliases) would only repeat, longer.
autodoc_typehints = "none"
autodoc_preserve_defaults = True
autodoc_class_signature = "mixed"
napoleon_numpy_docstring = True
napoleon_google_docstring = False
napoleon_use_rtype = False
napoleon_use_ivar = True            # dataclass fields are documented once, by autodoc
napoleon_custom_sections = [("Results", "params_style")]

# geonh's docstrings are plain text with Unicode mathematics (|v|², T*, J_·i, "name : what it
# is" entries).  Before napoleon reads them, plain_text_docstring() escapes what reST would
# otherwise take for markup, outside ``literals`` and :role:`targets`.
_CODE = re.compile(r"(``.*?``|:[\w:.-]+:`[^`]*`|`[^`]*`_?)")
_EMPH = re.compile(r"(?<![\w*\\])(\*\*?)(?=[^\s*])(.+?)(?<=[^\s*\\])\1(?![\w*])")
_SECTION = re.compile(r"^(Parameters|Attributes|Results|Other Parameters|Returns|Raises)\s*$")
_ENTRY = re.compile(r"^(:[\w:.-]+:`[^`]+`|\*{0,2}[A-Za-z_][\w, *.]*?)\s+:\s+(\S.*)$")
_ROLE = re.compile(r"^:[\w:.-]+:`~?([^`]+)`$")


def _escape_plain(text: str) -> str:
    text = text.replace("|", "\\|")
    text = re.sub(r"(?<=\w)_(?=[^\w]|$)", r"\\_", text)
    kept: list[str] = []

    def keep(m):
        kept.append(m.group(0))
        return f"\x00{len(kept) - 1}\x00"

    text = _EMPH.sub(keep, text)
    text = text.replace("*", "\\*")
    return re.sub("\x00(\\d+)\x00", lambda m: kept[int(m.group(1))], text)


def escape_line(line: str) -> str:
    """One docstring line with reST's inline markup characters escaped outside code."""
    parts = _CODE.split(line)
    out = "".join(p if i % 2 else _escape_plain(p) for i, p in enumerate(parts))
    if re.match(r"^\s*:[\w:.-]+:`", out):  # a role at the start of a line is not a field list
        out = re.sub(r"^(\s*)", r"\1\\ ", out, count=1)
    return out


def _prose_before_sections(lines: list[str]) -> list[str]:
    """Move prose that follows a numpy section (after a blank line, at the section's indent, not
    a ``name : text`` entry) in front of the section: napoleon would read it as more entries."""
    i = 0
    while i < len(lines):
        if not _SECTION.match(lines[i].strip()):
            i += 1
            continue
        start, ind = i, len(lines[i]) - len(lines[i].lstrip())
        j = i + 2
        while j < len(lines):
            line = lines[j]
            if _SECTION.match(line.strip()):
                break
            if (line.strip() and not lines[j - 1].strip() and len(line) - len(line.lstrip()) == ind
                    and not _ENTRY.match(line.strip())):
                k = j
                while k < len(lines) and not _SECTION.match(lines[k].strip()):
                    k += 1
                prose = lines[j:k]
                while prose and not prose[-1].strip():
                    prose.pop()
                lines = lines[:start] + prose + [""] + lines[start:j] + lines[k:]
                start += len(prose) + 1
                j = start + 2
                break
            j += 1
        i = start + 1
    return lines


def plain_text_docstring(app, what, name, obj, options, lines):
    """autodoc-process-docstring hook (runs before napoleon): escape plain-text markup, turn
    ``name : description`` entries of numpy sections into ``name`` + indented description (so
    napoleon does not read the description as a type), and separate hanging indents from the
    paragraphs around them by blank lines (plain text indents freely; reST does not).  A doctest
    block (from a ``>>>`` line to the next blank line) is kept verbatim, as a literal block is."""
    lines[:] = _prose_before_sections(list(lines))
    section, in_literal, in_doctest, out, free = False, False, False, [], []
    for line in lines:
        stripped = line.strip()
        indent = len(line) - len(line.lstrip())
        if in_literal and stripped and indent <= literal_indent:
            in_literal = False
        in_doctest = bool(stripped) and (in_doctest or stripped.startswith(">>>"))
        if in_literal or in_doctest or not stripped:
            out.append(line)
            free.append(False)
            continue
        if _SECTION.match(stripped):
            section, section_indent = True, indent
            out.append(line)
            free.append(False)
            continue
        if section and set(stripped) == {"-"}:
            out.append(line)
            free.append(False)
            continue
        if section and indent < section_indent:
            section = False
        m = _ENTRY.match(stripped) if section and indent == section_indent else None
        if m:
            name = _ROLE.sub(r"\1", m.group(1)).split(".")[-1]
            out.append(" " * indent + name.replace("*", "\\*"))
            out.append(" " * (indent + 4) + escape_line(m.group(2)))
            free += [False, False]
        else:
            out.append(escape_line(line))
            free.append(not section)
        if stripped.endswith("::"):
            in_literal, literal_indent = True, indent
    result: list[str] = []
    for i, line in enumerate(out):
        if free[i] and i and out[i - 1].strip():
            ind = len(line) - len(line.lstrip())
            prev_ind = len(out[i - 1]) - len(out[i - 1].lstrip())
            if ind < prev_ind and free[i - 1]:
                result.append("")            # a hanging indent ends
            elif (ind > prev_ind and free[i - 1] and i > 1 and out[i - 2].strip()
                  and not out[i - 1].rstrip().endswith("::")
                  and not out[i - 1].lstrip().startswith(("* ", "- "))):
                result.insert(len(result) - 1, "")   # the line before becomes a term
        result.append(line)
    if what in ("attribute", "property", "data"):
        result.insert(0, "\\ ")   # napoleon reads "type: text" off the first line of attributes
    lines[:] = result


# -- intersphinx, offline ----------------------------------------------------------------------
# (public site the links point at, the inventory vendored in docs/_inventories/): the build
# reads no network address.  The link targets are the versions the inventories describe.
INVENTORIES = DOCS / "_inventories"
intersphinx_mapping = {
    "python": ("https://docs.python.org/3.11/", str(INVENTORIES / "python.inv")),
    "sympy": ("https://docs.sympy.org/1.11/", str(INVENTORIES / "sympy.inv")),
    "numpy": ("https://numpy.org/doc/1.13/", str(INVENTORIES / "numpy.inv")),
    "scipy": ("https://docs.scipy.org/doc/scipy-1.10.1/", str(INVENTORIES / "scipy.inv")),
    "matplotlib": ("https://matplotlib.org/2.1.1/", str(INVENTORIES / "matplotlib.inv")),
}
intersphinx_timeout = 1

# Names outside every inventory the site reads, each with its reason (keep this list short):
nitpick_ignore = [
    # geonh.app.cli's InputError and FiniteFloat derive from click's classes; click's
    # documentation is not among the vendored inventories (the site links Python, SymPy, NumPy,
    # SciPy and Matplotlib only), so the base classes autodoc names stay plain text
    ("py:class", "click.exceptions.ClickException"),
    ("py:class", "click.types.ParamType"),
]

html_theme = "alabaster"
html_title = "geonh"
html_static_path: list[str] = []
mathjax3_config = {"tex": {"macros": {"d": "\\mathrm{d}"}}}

# -- cross-references by the name a reader sees -------------------------------------------------
# A docstring names an object as its module sees it: ``Equations`` inside geonh.analysis (which
# imports it), ``geonh.MechanicalSystem`` (a re-export), ``sympy.Matrix``.  Sphinx only knows
# the name under which autodoc (or an inventory) documented the object, its canonical
# ``__module__.__qualname__``.  canonical_target() follows the name the way Python does, from
# the namespace of the module whose docstring holds the reference, to that canonical name;
# resolve_by_import() then resolves the reference to it (in this site or through intersphinx).
# A name that Python cannot find stays unresolved and fails the build.
import importlib  # noqa: E402
import inspect  # noqa: E402


_FIELD = object()


def _import_dotted(dotted: str):
    """The object a dotted name denotes (the longest importable module prefix, then attributes),
    and the module it was found in; (None, None) when Python cannot find it."""
    parts = dotted.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except Exception:
            continue
        owner = None
        try:
            for name in parts[i:]:
                if inspect.isclass(obj) and not hasattr(obj, name) and name == parts[-1]:
                    owner, obj = obj, _FIELD      # an instance attribute (set in __init__, or a
                    continue                      # dataclass field without a default)
                owner, obj = obj, getattr(obj, name)
        except Exception:     # AttributeError, or geonh.moved's error for a name moved away
            return None, None
        return obj, owner
    return None, None


def _canonical(obj, owner, last: str) -> list[str]:
    """Canonical names of obj: as an attribute of the class in owner's MRO that defines it (a
    method, property or field is documented there), and as ``__module__.__qualname__`` (what a
    forwarding method or a re-exported name points to); data: its module's name and its own."""
    out = []
    if inspect.ismodule(obj):
        return [obj.__name__]
    if inspect.isclass(owner):
        for klass in owner.__mro__:
            if last in vars(klass) or last in getattr(klass, "__annotations__", {}):
                out.append(f"{klass.__module__}.{klass.__qualname__}.{last}")
                break
        else:
            if obj is _FIELD:     # set in __init__: documented (#:) on the class itself
                out.append(f"{owner.__module__}.{owner.__qualname__}.{last}")
    if inspect.isclass(obj) or inspect.isroutine(obj):
        target = inspect.unwrap(obj)
        mod, qual = getattr(target, "__module__", None), getattr(target, "__qualname__", None)
        if isinstance(mod, str) and isinstance(qual, str) and "<" not in qual:
            out.append(f"{mod}.{qual}")
    elif inspect.ismodule(owner):
        out.append(f"{owner.__name__}.{last}")
    return out


def canonical_target(target: str, module: str | None, klass: str | None) -> list[str]:
    """Candidate canonical names of a reference ``target`` written in ``module`` (inside class
    ``klass``), most specific first."""
    target = target.lstrip("~.")
    heads = [target]
    if module:
        if klass:
            heads.append(f"{module}.{klass}.{target}")
        heads.append(f"{module}.{target}")
    heads.append(f"geonh.{target}")
    out: list[str] = []
    for dotted in heads:
        obj, owner = _import_dotted(dotted)
        if obj is None and owner is None:
            continue
        for name in _canonical(obj, owner, dotted.rsplit(".", 1)[-1]):
            if name not in out:
                out.append(name)
    return out


def with_data_homes(names: list[str], documented) -> list[str]:
    """names, and for a name that denotes data (not a class, routine or module): the documented
    names (of ``documented``) of the same object, which may live where it is defined rather
    than where the name was found (``geonh.FORMS`` is ``geonh.equations.registry.FORMS``)."""
    out = list(names)
    for name in names:
        obj, _ = _import_dotted(name)
        if obj is None or obj is _FIELD or inspect.isclass(obj) or inspect.isroutine(obj) or inspect.ismodule(obj):
            continue
        last = name.rsplit(".", 1)[-1]
        out += [full for full in documented if full.rsplit(".", 1)[-1] == last
                and full not in out and _import_dotted(full)[0] is obj]
    return out


def resolve_by_import(app, env, node, contnode):
    """missing-reference hook: resolve a py reference through canonical_target()."""
    if node.get("refdomain") != "py":
        return None
    target = node["reftarget"]
    if target.split(".")[-1].startswith("_") and not target.endswith("__"):
        return None      # private helpers are not documented: write them ``literal``
    domain = env.get_domain("py")
    names = with_data_homes(canonical_target(target, node.get("py:module"), node.get("py:class")),
                            domain.objects)
    for name in names:
        if name == target:
            continue
        for role in ([node["reftype"]] + ["class", "func", "meth", "attr", "data", "exc", "obj"]):
            ref = domain.resolve_xref(env, node["refdoc"], app.builder, role, name, node, contnode)
            if ref is not None:
                return ref
        new = node.deepcopy()
        new["reftarget"] = name
        from sphinx.ext import intersphinx
        ref = intersphinx.missing_reference(app, env, new, contnode)
        if ref is not None:
            return ref
    return None


# -- the example gallery, executed by myst-nb -----------------------------------------------------
nb_execution_mode = "cache"          # run each notebook once; reruns reuse jupyter-cache
nb_execution_timeout = 300           # one example (the test suite allows 120 s when run alone)
nb_execution_raise_on_error = True   # a failing example fails the build
nb_execution_show_tb = True
nb_merge_streams = True
# the kernels import this checkout's geonh and draw with the inline backend (figures as PNG)
os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
os.environ["MPLBACKEND"] = "module://matplotlib_inline.backend_inline"
# a fresh IPython profile for the kernels: the build does not read the user's profile; figures
# are drawn inline from the start (geonh.app.plotting builds Figures without pyplot, shown as
# PNG when a cell ends with one); the kernel's own log (its notice that the local channel is
# not encrypted) stays off stderr, where a warning would fail tests/test_docs_site.py
_IPYTHONDIR = Path(tempfile.mkdtemp(prefix="geonh-docs-ipython-"))
(_IPYTHONDIR / "profile_default").mkdir()
(_IPYTHONDIR / "profile_default" / "ipython_kernel_config.json").write_text(
    '{"IPKernelApp": {"log_level": "ERROR", "matplotlib": "inline"}}', encoding="utf-8")
os.environ["IPYTHONDIR"] = str(_IPYTHONDIR)

EXAMPLES = ROOT / "examples"
GALLERY = DOCS / "gallery"


def example_summary(path: Path) -> tuple[str, str]:
    """(title, body) of an example script's module docstring: the first line is the title."""
    doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
    lines = doc.strip().splitlines()
    title = lines[0].strip() if lines else path.stem.replace("_", " ")
    body = "\n".join(lines[1:]).strip()
    return title, body


def _md_escape_title(title: str) -> str:
    return title.replace("*", "\\*").replace("_", "\\_")


_CELL = re.compile(r"^# %%(.*)$", re.MULTILINE)


def script_cells(source: str) -> list[tuple[str, str]]:
    """[(heading, code)]: a script cut into notebook cells at its ``# %%`` lines (the "percent"
    cell marker of Spyder, VS Code and jupytext); the text after the marker heads its cell.  A
    cell's last expression is shown, as in a notebook: a figure named on the last line of a
    cell is drawn on the page (a bare name is a no-op when the script runs as a script)."""
    cells, start, heading = [], 0, ""
    for m in _CELL.finditer(source):
        cells.append((heading, source[start:m.start()]))
        start, heading = m.end() + 1, m.group(1).strip()
    cells.append((heading, source[start:]))
    return [(h, c.strip("\n")) for h, c in cells if c.strip()]


NOTEBOOK_HEADER = """---
file_format: mystnb
kernelspec:
  name: python3
  display_name: Python 3
---
"""


def gallery_pages() -> dict[str, str]:
    """{file name: MyST notebook} for docs/gallery: one page per examples/*.py, whose source is
    one code cell that myst-nb runs at build time (its printed output and its figures appear
    under it), and an index."""
    pages: dict[str, str] = {}
    rows = []
    for path in sorted(EXAMPLES.glob("*.py")):
        title, body = example_summary(path)
        name = path.stem
        rows.append((name, title))
        source = path.read_text(encoding="utf-8").rstrip("\n")
        fence = "`" * max(3, 1 + max((len(m) for m in re.findall(r"`+", source)), default=0))
        text = [NOTEBOOK_HEADER, f"({'example-' + name})=", "", f"# {_md_escape_title(title)}", "",
                f"`examples/{path.name}`, run when the site was built: its output and figures "
                f"are below the source (the test suite runs every example too; run it yourself "
                f"with `python examples/{path.name}`).", ""]
        if body:
            text += ["```text", body, "```", ""]
        for heading, code in script_cells(source):
            if heading:
                text += [heading, ""]
            text += [fence + "{code-cell} ipython3", code, fence, ""]
        pages[f"{name}.md"] = "\n".join(text)
    index = ["# Example gallery", "",
             "Every script of `examples/`, with its description, its source and what it printed "
             "and drew when the site was built; run one with `python examples/NAME.py`.", "",
             "| example | what it shows |", "|---|---|"]
    for name, title in rows:
        index.append(f"| [`{name}.py`]({name}.md) | {title.replace('|', '/')} |")
    index += ["", "```{toctree}", ":hidden:", ""] + [name for name, _ in rows] + ["```", ""]
    pages["index.md"] = "\n".join(index)
    return pages


def write_gallery(app=None) -> list[Path]:
    """Write docs/gallery/*.md (only files whose text changed, so rebuilds stay incremental)."""
    GALLERY.mkdir(exist_ok=True)
    written = []
    pages = gallery_pages()
    for old in GALLERY.glob("*.md"):
        if old.name not in pages:
            old.unlink()
    for name, text in pages.items():
        path = GALLERY / name
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
        written.append(path)
    return written


def setup(app):
    app.connect("autodoc-process-docstring", plain_text_docstring, priority=100)
    app.connect("missing-reference", resolve_by_import, priority=900)   # after intersphinx (500)
    app.connect("builder-inited", write_gallery)
    return {"parallel_read_safe": True}
