"""Documentation: runnable code in docs/*.md, docstrings of public names, the reference pages cover every module."""
import importlib
import inspect
import pkgutil
import re
from pathlib import Path

import pytest

import geonh

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"


def public_modules() -> list[str]:
    """Every public module and sub-package of geonh (no component with a leading underscore)."""
    found = {"geonh"}
    for info in pkgutil.walk_packages(geonh.__path__, "geonh."):
        if not any(part.startswith("_") for part in info.name.split(".")[1:]):
            found.add(info.name)
    return sorted(found)

# every page with Python code blocks (found, so a new page's code runs too); each page's blocks
# run in order, in one namespace.  (Pages written as MyST notebooks, ``{code-cell}``, and the
# gallery run when the site is built: tests/test_docs_site.py.)
_GENERATED = ("_build", "gallery")
RUNNABLE_PAGES = sorted(p.relative_to(DOCS).as_posix() for p in DOCS.rglob("*.md")
                        if p.relative_to(DOCS).parts[0] not in _GENERATED
                        and re.search(r"^ *```python$", p.read_text(encoding="utf-8"), re.MULTILINE))


def test_runnable_pages_are_found():
    """The pages known to carry Python blocks are among those found (the search sees them)."""
    assert {"tutorial.md", "conventions.md", "generic-point.md", "index.md", "transposition.md",
            "equations.md", "nonlinear.md", "linearization.md", "numerics.md", "integrators.md",
            "sweeps.md", "conserved.md", "model-files.md", "robot.md", "interop.md", "jupyter.md"} <= set(RUNNABLE_PAGES)


def _code_blocks(md: str) -> list[str]:
    blocks = re.findall(r"^( *)```python\n(.*?)^\1```", md, re.DOTALL | re.MULTILINE)
    out = []
    for indent, body in blocks:
        out.append("\n".join(line[len(indent):] for line in body.splitlines()))
    return out


@pytest.mark.parametrize("page", RUNNABLE_PAGES)
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
    for name in ["conventions.md", "tutorial.md", "generic-point.md", "reference/index.md", "bibliography.md",
                 "gallery/index.md", "transposition.md", "equations.md", "nonlinear.md", "linearization.md",
                 "numerics.md"]:
        assert name in links
    for name in ["conventions.md", "tutorial.md", "generic-point.md", "reference/index.md", "bibliography.md"]:
        assert (DOCS / name).exists()


def test_reference_pages_document_every_public_module():
    """docs/reference/*.md (the site's autodoc pages) name every public module of geonh."""
    text = "\n".join(p.read_text(encoding="utf-8") for p in (DOCS / "reference").glob("*.md"))
    documented = set(re.findall(r"\.\. automodule:: ([\w.]+)", text))
    missing = sorted(set(public_modules()) - documented)
    assert not missing, f"docs/reference does not document {missing}"


def test_docs_pages_cite_the_bibliography_not_seed_numbers():
    """The pages cite sources by name with a link to the bibliography; "seed NNN" is only in the
    bibliography's mapping for readers of the docstrings."""
    bib = (DOCS / "bibliography.md").read_text(encoding="utf-8")
    labels = set(re.findall(r"^\(([\w-]+)\)=$", bib, re.MULTILINE))
    for n, label in [("000", "hamel1924"), ("001", "aumann1971"), ("002", "appell1911"), ("003", "juschkov"),
                     ("004", "neimark-fufaev1960")]:
        assert f"seed {n} = [" in bib and label in labels
    for page, text in _pages().items():
        if page in ("bibliography.md", "errors.md", "README.md"):
            continue
        assert not re.search(r"\b[Ss]eed \d{3}\b", text), f"{page} still cites a seed by number"
        for target in re.findall(r"\]\(#([a-z]+-?[a-z]*\d{4}|juschkov)\)", text):
            assert target in labels, f"{page} cites #{target}, which the bibliography does not define"


def test_conventions_page_states_the_conventions_itself():
    text = (DOCS / "conventions.md").read_text(encoding="utf-8")
    # typeset as MyST math (the same statements as LaTeX)
    for must in ["$[X, Y] = XY - YX$", "no ½", r"\beta_{a,b,d} = c^d_{ab}", r"$\gamma^k_{ij} = -c^k_{ij}$",
                 r"\mathrm{d}\theta(X, Y) = X(\theta(Y)) - Y(\theta(X)) - \theta([X, Y])"]:
        assert must in text, must


def test_index_and_readme_state_the_conventions_file():
    """The front pages say plainly where geonh's conventions are stated, inside the repository:
    no page points outside it (a user's clone has nothing there)."""
    for text in ((DOCS / "index.md").read_text(encoding="utf-8"), (ROOT / "README.md").read_text(encoding="utf-8")):
        assert "conventions.md" in text
    for page, text in {**_pages(), "make_audit.py": (DOCS / "make_audit.py").read_text(encoding="utf-8")}.items():
        assert "../shared" not in text, f"{page} points outside the repository"


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


def test_one_api_reference():
    """autodoc (docs/reference/) is the only API reference: no hand-made one beside it, and no
    page or the README links one."""
    assert not (DOCS / "api.md").exists() and not (DOCS / "make_api.py").exists()
    for page in [*DOCS.glob("*.md"), ROOT / "README.md"]:
        assert "api.md" not in page.read_text(encoding="utf-8"), page.name


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


# ----------------------------------------------------------------------------------------------
# model names in the docs and the README
# ----------------------------------------------------------------------------------------------
def _pages() -> dict[str, str]:
    pages = {p.name: p.read_text(encoding="utf-8") for p in sorted(DOCS.glob("*.md"))}
    pages["README.md"] = (ROOT / "README.md").read_text(encoding="utf-8")
    return pages


# hyphenated names in backticks that are not models: the registry's forms, the names other
# equation forms give their Equations (.form), and the methods of GaussSystem.accelerations_at
NOT_MODELS = set(geonh.FORMS) | {"chetaev-lagrange", "maggi-nonlinear", "udwadia-kalaba", "hertz-coulomb",
                                 "moore-penrose", "geonh-fast", "geonh-thorough"}  # the hypothesis profiles
_SHOW = re.compile(r"geonh\s+show\s+([a-z0-9][a-z0-9.\-]*)")
_GET = re.compile(r"models\.(?:get|describe|kind)\(\s*[\"']([^\"']+)[\"']")
_TICKED = re.compile(r"`([a-z0-9]+(?:-[a-zA-Z0-9.]+)+)`")


def _mentioned_models(text: str) -> set[str]:
    """Model names a page mentions: after ``geonh show``, in ``models.get("…")`` (and describe,
    kind), and hyphenated names in backticks that are not forms.  (A one-word name in backticks,
    such as `car`, cannot be told from an identifier, so it counts only in the first two places.)"""
    found = set(_SHOW.findall(text)) | set(_GET.findall(text))
    found |= {t for t in _TICKED.findall(text) if t not in NOT_MODELS and not t.endswith((".md", ".py"))}
    return found


def test_mention_finder_sees_models():
    text = "run `geonh show car`, then models.get(\"heavy-top\"); `tilted-disk` and `kane` too"
    assert _mentioned_models(text) == {"car", "heavy-top", "tilted-disk"}


@pytest.mark.parametrize("page", sorted(_pages()))
def test_model_names_in_docs_exist(page):
    """Every model a docs page or the README names is a model of the library."""
    known = set(geonh.models.names())
    unknown = sorted(_mentioned_models(_pages()[page]) - known)
    assert not unknown, f"{page} names models the library does not have: {unknown}"


def test_index_and_readme_name_every_model():
    """The model tables of docs/index.md and the README list the whole library."""
    for page in ("index.md", "README.md"):
        text = _pages()[page]
        missing = sorted(n for n in geonh.models.names() if f"`{n}`" not in text)
        assert not missing, f"{page} does not mention the models {missing}"


@pytest.mark.parametrize("name", ["chaplygin-sleigh", "vertical-disk", "rolling-disk", "appell-hamel", "aumann-3.1"])
def test_geonh_show_runs_for_documented_models(name, capsys):
    """`geonh show NAME` works for the models the docs show (a cheap subset: not the 3-trailer)."""
    import geonh.app.cli

    assert any(name in _mentioned_models(text) for text in _pages().values())
    assert geonh.app.cli.main(["show", name]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"{name}: {geonh.models.describe(name)}")


@pytest.mark.slow
def test_audit_md_is_up_to_date():
    """docs/audit.md is what docs/make_audit.py generates from geonh.audit() now."""
    import importlib.util
    spec = importlib.util.spec_from_file_location("make_audit", DOCS / "make_audit.py")
    make_audit = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(make_audit)
    committed = (DOCS / "audit.md").read_text(encoding="utf-8")
    assert committed == make_audit.render(), "docs/audit.md is stale: run python docs/make_audit.py"


# ----------------------------------------------------------------------------------------------
# the README and the command line point a new user only at what the repository holds
# ----------------------------------------------------------------------------------------------
def test_readme_links_stay_inside_the_repository():
    """Every relative link of the README names a file or folder of this repository."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    links = [link.split("#")[0] for link in re.findall(r"\]\(([^)\s]+)\)", text)]
    relative = [link for link in links if link and not re.match(r"[a-z]+:", link)]
    assert relative, "the README links nothing"
    for link in relative:
        target = (ROOT / link).resolve()
        assert target.is_relative_to(ROOT) and target.exists(), f"README links {link}, which is not in the repository"


def _ignored(name: str) -> bool:
    """Whether a file ``name`` in the clone's root matches a pattern of .gitignore."""
    import fnmatch
    patterns = [ln.strip() for ln in (ROOT / ".gitignore").read_text(encoding="utf-8").splitlines()]
    return any(fnmatch.fnmatch(name, p.lstrip("/").rstrip("/")) for p in patterns if p and not p.startswith("#"))


def test_readme_command_outputs_are_ignored_by_git():
    """The files the README's commands write (`-o FILE`, `--plot FILE`) do not show up as
    untracked files in the clone."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    outputs = set(re.findall(r"(?:\s-o|--plot)\s+([\w.-]+\.\w+)", text))
    assert "report.html" in outputs
    for name in outputs:
        assert _ignored(name), f"{name}, written by a README command, is not in .gitignore"
    assert not _ignored("README.md") and not _ignored("pyproject.toml")


def test_readme_names_the_fast_subset_beside_the_full_command():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    full = re.findall(r"^\.venv/bin/python -m pytest.*$", ci, re.MULTILINE)
    assert full == [".venv/bin/python -m pytest -n auto"], full
    assert f"&& {full[0]}\n" in text                      # the full command, exactly as CI runs it
    assert f'{full[0]} -m "not slow"' in text               # and the fast subset beside it


def test_cli_help_names_the_model_file_page():
    """`geonh --help` points to the documentation page of the model-file format, which exists."""
    from click.testing import CliRunner
    from geonh.app.cli import cli

    out = CliRunner().invoke(cli, ["--help"]).output
    pages = re.findall(r"docs/([\w-]+\.md)", out)
    assert pages == ["model-files.md"], out
    assert (DOCS / pages[0]).exists()
    assert "source tree" not in out
