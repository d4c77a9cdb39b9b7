"""Documentation: runnable code in docs/*.md, docstrings of public names, docs/api.md freshness."""
import importlib
import inspect
import re
import sys
from pathlib import Path

import pytest

import geonh

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
sys.path.insert(0, str(DOCS))
import make_api

KERNEL_PAGES = ["tutorial.md", "conventions.md", "generic-point.md"]


def _code_blocks(md: str) -> list[str]:
    blocks = re.findall(r"^( *)```python\n(.*?)^\1```", md, re.DOTALL | re.MULTILINE)
    out = []
    for indent, body in blocks:
        out.append("\n".join(line[len(indent):] for line in body.splitlines()))
    return out


@pytest.mark.parametrize("page", KERNEL_PAGES)
def test_code_blocks_run(page, capsys):
    text = (DOCS / page).read_text(encoding="utf-8")
    blocks = _code_blocks(text)
    assert blocks, f"{page} has no python code blocks"
    ns = {"__name__": f"docs_{page}"}
    for i, code in enumerate(blocks):
        exec(compile(code, f"{page}[block {i}]", "exec"), ns)


def test_tutorial_printed_outputs_match(capsys):
    """The '# ...' comments after print(...) in the tutorial are what actually gets printed."""
    text = (DOCS / "tutorial.md").read_text(encoding="utf-8")
    ns = {"__name__": "docs_tutorial"}
    for code in _code_blocks(text):
        exec(code, ns)
    out = capsys.readouterr().out
    for expected in ["VectorField((cos(theta))*d_x + (sin(theta))*d_y)", "[x*z, x/y]",
                     "growth vector (2, 3, 4),\nbracket generating".replace(",\n", ", "),
                     "VectorField((1)*d_x + (-y/2)*d_z) VectorField((1)*d_y + (x/2)*d_z)"]:
        assert expected in out


def test_index_links_resolve():
    text = (DOCS / "index.md").read_text(encoding="utf-8")
    links = re.findall(r"\]\(([^)#]+\.md)\)", text)
    for name in ["conventions.md", "tutorial.md", "generic-point.md", "api.md",
                 "transposition.md", "equations.md", "nonlinear.md"]:
        assert name in links
    for name in ["conventions.md", "tutorial.md", "generic-point.md", "api.md"]:
        assert (DOCS / name).exists()


def test_conventions_page_cites_the_project_file():
    text = (DOCS / "conventions.md").read_text(encoding="utf-8")
    assert "../shared/CONVENTIONS.md" in text
    for must in ["[X, Y] = XY − YX", "no ½", "β_{a,b,d} = c^d_ab", "γ^k_ij = −c^k_ij",
                 "dθ(X, Y) = X(θ(Y)) − Y(θ(X)) − θ([X, Y])"]:
        assert must in text, must


def _public_names():
    """Everything ``geonh`` exports, and the public strategies."""
    out = [f"geonh.{name}" for name in geonh.__all__]
    out += [f"geonh.testing.strategies.{name}" for name in geonh.testing.strategies.__all__]
    return out


def _resolve(qualname):
    modname, name = qualname.rsplit(".", 1)
    return getattr(importlib.import_module(modname), name)


import geonh.testing.strategies


@pytest.mark.parametrize("qualname", _public_names())
def test_public_names_have_docstrings(qualname):
    obj = _resolve(qualname)
    if isinstance(obj, dict):  # the form registry: every entry names its source
        assert obj and all(getattr(v, "source", "") for v in obj.values()), qualname
        return
    assert inspect.isclass(obj) or callable(obj) or inspect.ismodule(obj), qualname
    assert obj.__doc__ and obj.__doc__.strip(), f"{qualname} has no docstring"


@pytest.mark.parametrize("modname", make_api.KERNEL)
def test_api_md_kernel_sections_up_to_date(modname):
    """The kernel sections of docs/api.md are what make_api.py generates now (regenerate with
    ``python docs/make_api.py``)."""
    committed = (DOCS / "api.md").read_text(encoding="utf-8")
    section = make_api.render_module(modname)
    own = section.split(make_api.REEXPORT_MARK)[0]
    assert own in committed, f"docs/api.md is stale for {modname}: run python docs/make_api.py"


def test_api_md_lists_every_public_module():
    committed = (DOCS / "api.md").read_text(encoding="utf-8")
    for modname in make_api.public_modules():
        assert f"## `{modname}`" in committed, f"{modname} missing: run python docs/make_api.py"


def test_readme_example_and_commands():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = _code_blocks(text)
    assert blocks, "README.md has no Python example"
    for code in blocks:
        exec(compile(code, "README.md", "exec"), {"__name__": "readme"})
    assert ("python3 -m venv .venv && .venv/bin/pip install -e . && .venv/bin/geonh show rolling-disk"
            in text)
    test_cmd = "python3 -m venv .venv && .venv/bin/pip install -e '.[test]' && .venv/bin/python -m pytest"
    assert test_cmd in text
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "pip install --quiet -e '.[test]'" in ci and ".venv/bin/python -m pytest" in ci
