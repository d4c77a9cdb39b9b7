"""Sphinx configuration of the geonh documentation site.

Build (warnings are errors)::

    sphinx-build -W --keep-going -b html docs docs/_build/html

The pages are MyST Markdown (``docs/*.md``); the API reference (``docs/reference/``) is autodoc
with napoleon; ``docs/gallery/`` is written at build time from ``examples/*.py`` by
:func:`write_gallery` (docstring and source of every script; the scripts are not run).
"""
from __future__ import annotations

import ast
import re
import sys
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
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "sphinx.ext.mathjax",
    "sphinx.ext.viewcode",
]

source_suffix = {".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "Thumbs.db", ".DS_Store"]
# geonh's own pages: the generated one-page API (make_api.py) stays a plain-Markdown file for
# readers on GitHub; the site's API reference is docs/reference/ (autodoc)
exclude_patterns += ["api.md"]

myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence", "deflist"]
myst_heading_anchors = 3
myst_dmath_double_inline = True

# -- autodoc ---------------------------------------------------------------------------------
autodoc_default_options = {"members": True, "undoc-members": False, "show-inheritance": False}
autodoc_member_order = "bysource"
autodoc_typehints = "none"          # signatures keep sympy types out of the cross-reference check
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


html_theme = "alabaster"
html_title = "geonh"
html_static_path: list[str] = []
mathjax3_config = {"tex": {"macros": {"d": "\\mathrm{d}"}}}

# -- the example gallery ---------------------------------------------------------------------
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


def gallery_pages() -> dict[str, str]:
    """{file name: Markdown} for docs/gallery: one page per examples/*.py and an index."""
    pages: dict[str, str] = {}
    rows = []
    for path in sorted(EXAMPLES.glob("*.py")):
        title, body = example_summary(path)
        name = path.stem
        rows.append((name, title))
        text = [f"({'example-' + name})=", "", f"# {_md_escape_title(title)}", "",
                f"`examples/{path.name}`: run it with `python examples/{path.name}` (the test "
                f"suite runs every example).", ""]
        if body:
            text += ["```text", body, "```", ""]
        text += ["```{literalinclude} " + f"../../examples/{path.name}",
                 ":language: python", ":linenos:", "```", ""]
        pages[f"{name}.md"] = "\n".join(text)
    index = ["# Example gallery", "",
             "Every script of `examples/`, with its description and source.  The scripts are not "
             "run when the site is built; run one with `python examples/NAME.py`.", "",
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
    app.connect("builder-inited", write_gallery)
    return {"parallel_read_safe": True}
