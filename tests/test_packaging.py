"""The package as shipped: what ``import geonh`` loads, one version, py.typed, declared dependencies.

``import geonh`` must not load hypothesis (only ``geonh.testing`` needs it); ``geonh.__version__``
is the one version source (pyproject reads it, the installed metadata must agree); ``py.typed``
ships with the package; every third-party module imported anywhere under geonh/ is declared in
pyproject's dependencies, and every declared dependency is used.
"""
from __future__ import annotations

import ast
import functools
import importlib.metadata
import importlib.resources
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    tomllib = pytest.importorskip("tomli")

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "geonh"
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))

#: the distribution's top-level modules beside the package (pyproject [tool.setuptools] py-modules):
#: ``_geonh_hypothesis`` and ``_geonh_pytest``, the modules of the hypothesis and pytest entry points
TOP_LEVEL_MODULES: tuple[str, ...] = tuple(PYPROJECT["tool"]["setuptools"].get("py-modules", ()))

# import name -> distribution name, where they differ (packages_distributions() is asked first)
DISTRIBUTION_OF = {"yaml": "pyyaml", "sklearn": "scikit-learn", "PIL": "pillow", "skimage": "scikit-image"}


def _normalize(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _requirement_name(req: str) -> str:
    m = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", req)
    assert m, f"cannot read a distribution name from {req!r}"
    return _normalize(m.group(1))


def _imports(node) -> list[str]:
    if isinstance(node, ast.Import):
        return [a.name.split(".")[0] for a in node.names]
    if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
        return [node.module.split(".")[0]]
    return []


def _catches_import_error(handler: ast.ExceptHandler) -> bool:
    types = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    return any(isinstance(t, ast.Name) and t.id in ("ImportError", "ModuleNotFoundError") for t in types)


@functools.lru_cache(maxsize=None)
def _trees() -> tuple[tuple[Path, ast.Module], ...]:
    paths = sorted(PACKAGE.rglob("*.py")) + [ROOT / f"{name}.py" for name in TOP_LEVEL_MODULES]
    return tuple((path, ast.parse(path.read_text(encoding="utf-8"), filename=str(path))) for path in paths)


def _imported_top_level_modules() -> dict[str, set[str]]:
    """Absolute imports anywhere in geonh/ and the top-level modules (module level and inside
    functions): top-level name -> files."""
    found: dict[str, set[str]] = {}
    for path, tree in _trees():
        for node in ast.walk(tree):
            for name in _imports(node):
                found.setdefault(name, set()).add(str(path.relative_to(ROOT)))
    return found


def _optional_modules() -> set[str]:
    """Modules geonh can do without: imported somewhere in a ``try`` that catches ImportError."""
    out: set[str] = set()
    for _, tree in _trees():
        for node in ast.walk(tree):
            if isinstance(node, ast.Try) and any(_catches_import_error(h) for h in node.handlers):
                out |= {m for stmt in node.body for sub in ast.walk(stmt) for m in _imports(sub)}
    return out


def _third_party(modules) -> set[str]:
    return {m for m in modules if m not in sys.stdlib_module_names and m != "geonh" and m not in TOP_LEVEL_MODULES}


@functools.lru_cache(maxsize=None)
def _packages_distributions() -> dict[str, list[str]]:
    return importlib.metadata.packages_distributions()


def _distribution(module: str) -> str:
    dists = _packages_distributions().get(module)
    if dists:
        return _normalize(dists[0])
    return _normalize(DISTRIBUTION_OF.get(module, module))


# ----------------------------------------------------------------------------------------------
# what `import geonh` loads, and geonh.testing
# ----------------------------------------------------------------------------------------------
_MARK = "@@ geonh imported @@"


@pytest.fixture(scope="module")
def importtime():
    """One fresh interpreter: ``-X importtime``, ``import geonh``, a marker, ``import geonh.testing``.

    Returns (modules imported by ``import geonh``, modules imported after it, stdout)."""
    code = ("import sys, geonh; sys.stderr.write(%r + '\\n'); sys.stderr.flush(); "
            "import geonh.testing; from geonh.testing import strategies as gst; "
            "print('hypothesis' in sys.modules, type(gst.configuration_spaces(1, 3)).__module__)" % _MARK)
    res = subprocess.run([sys.executable, "-X", "importtime", "-c", code], cwd=ROOT,
                         capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr[-3000:]
    before, sep, after = res.stderr.partition(_MARK)
    assert sep, res.stderr[-3000:]

    def names(text):  # lines "import time: <self us> | <cumulative us> | <indent><module>", header aside
        return [line.rsplit("|", 1)[1].strip() for line in text.splitlines()
                if line.startswith("import time:") and not line.rstrip().endswith("| imported package")]

    return names(before), names(after), res.stdout


@pytest.mark.xdist_group("importtime")  # one worker where loadgroup groups (not on pytest 9.2: xdist #1386)
def test_import_geonh_does_not_import_hypothesis(importtime):
    loaded, _, _ = importtime
    assert "geonh" in loaded and "geonh.kernel" in loaded and "sympy" in loaded, loaded[-20:]
    hyp = [m for m in loaded if m == "hypothesis" or m.startswith("hypothesis.")]
    assert not hyp, f"`import geonh` imports {hyp[:5]}; only geonh.testing may import hypothesis"
    assert "geonh.testing" not in loaded


@pytest.mark.xdist_group("importtime")  # one worker where loadgroup groups (not on pytest 9.2: xdist #1386)
def test_import_geonh_testing_imports_hypothesis_strategies(importtime):
    _, later, out = importtime
    assert "geonh.testing" in later and "geonh.testing.strategies" in later
    assert "hypothesis" in later and "hypothesis.strategies" in later
    has_hypothesis, strategy_module = out.split()
    assert has_hypothesis == "True" and strategy_module.startswith("hypothesis.")


def test_geonh_testing_strategies_work():
    from hypothesis import given, settings
    from hypothesis.strategies import SearchStrategy

    import geonh
    from geonh.testing import strategies as gst

    assert isinstance(gst.configuration_spaces(1, 3), SearchStrategy)
    drawn = []

    @settings(max_examples=5, deadline=None, database=None)
    @given(gst.configuration_spaces(1, 3).flatmap(gst.vector_fields))
    def check(X):
        assert isinstance(X, geonh.VectorField) and 1 <= X.space.dim <= 3
        drawn.append(X)

    check()
    assert drawn


def test_the_hypothesis_hook_lives_outside_the_package_and_imports_only_hypothesis():
    """Hypothesis runs the ``hypothesis`` entry points at every ``import hypothesis`` in the
    environment: geonh's points to a declared top-level module whose every import (function level
    included) is the standard library or hypothesis — a module inside the package would run
    geonh/__init__.py, and with it sympy, first (tests/test_import_cost.py checks it running)."""
    (hook,) = PYPROJECT["project"]["entry-points"]["hypothesis"].values()
    module, _, function = hook.partition(":")
    assert "." not in module and module in TOP_LEVEL_MODULES, hook
    tree = dict(_trees())[ROOT / f"{module}.py"]
    assert function in {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
    imports = {m for node in ast.walk(tree) for m in _imports(node)}
    assert "hypothesis" in imports and _third_party(imports) == {"hypothesis"}, sorted(imports)
    assert not any(isinstance(node, ast.ImportFrom) and node.level for node in ast.walk(tree))
    # the installed metadata agrees (pip install -e . again after editing the entry points)
    installed = {e.name: e.value for e in importlib.metadata.entry_points(group="hypothesis")
                 if e.dist is not None and _normalize(e.dist.name) == "geonh"}
    assert installed == PYPROJECT["project"]["entry-points"]["hypothesis"]


def test_the_pytest_plugin_lives_outside_the_package_and_imports_no_geonh():
    """pytest loads the ``pytest11`` entry points at every start in the environment: geonh's
    points to a declared top-level module whose module-level imports are the standard library
    and ``_geonh_hypothesis``, and whose hooks import hypothesis at most (only when
    GEONH_HYPOTHESIS_PROFILE is set) — never geonh, never sympy (tests/test_import_cost.py checks
    it running).  The hooks have that one home: geonh.testing.plugin re-exports names, not hooks."""
    (module,) = PYPROJECT["project"]["entry-points"]["pytest11"].values()
    assert "." not in module and ":" not in module and module in TOP_LEVEL_MODULES, module
    tree = dict(_trees())[ROOT / f"{module}.py"]
    hooks = {n.name for n in tree.body if isinstance(n, ast.FunctionDef) and n.name.startswith("pytest_")}
    assert hooks == {"pytest_configure", "pytest_report_header"}
    top = {m for node in tree.body for m in _imports(node)}
    everywhere = {m for node in ast.walk(tree) for m in _imports(node)}
    assert top <= set(sys.stdlib_module_names) | {"_geonh_hypothesis", "__future__"}, sorted(top)
    assert _third_party(everywhere) <= {"hypothesis"} and "geonh" not in everywhere, sorted(everywhere)
    assert not any(isinstance(node, ast.ImportFrom) and node.level for node in ast.walk(tree))
    public = dict(_trees())[PACKAGE / "testing" / "plugin.py"]
    assert not [n.name for n in ast.walk(public) if isinstance(n, ast.FunctionDef) and n.name.startswith("pytest_")]
    # the installed metadata agrees (pip install -e . again after editing the entry points)
    installed = {e.name: e.value for e in importlib.metadata.entry_points(group="pytest11")
                 if e.dist is not None and _normalize(e.dist.name) == "geonh"}
    assert installed == PYPROJECT["project"]["entry-points"]["pytest11"]


# ----------------------------------------------------------------------------------------------
# one version; py.typed; LICENSE
# ----------------------------------------------------------------------------------------------
def test_version_has_one_source():
    import geonh

    assert re.fullmatch(r"\d+\.\d+\.\d+([ab]|rc|\.dev|\.post)?\d*", geonh.__version__), geonh.__version__
    project = PYPROJECT["project"]
    assert "version" not in project and "version" in project["dynamic"]
    assert PYPROJECT["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "geonh.__version__"}
    # the installed metadata (pip install -e .) agrees; if not, reinstall after a version bump
    assert importlib.metadata.version("geonh") == geonh.__version__


def test_py_typed_and_license_are_shipped():
    assert importlib.resources.files("geonh").joinpath("py.typed").is_file()
    assert (PACKAGE / "py.typed").is_file()
    assert "py.typed" in PYPROJECT["tool"]["setuptools"]["package-data"]["geonh"]
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert "BSD 3-Clause License" in text and "the geonh developers" in text
    assert PYPROJECT["project"]["license"] == "BSD-3-Clause" and PYPROJECT["project"]["license-files"] == ["LICENSE"]


@pytest.mark.slow
def test_wheel_contents(tmp_path):
    """A wheel built from a copy of the checkout holds py.typed, the LICENSE, the version of
    geonh.__version__ and every dependency of pyproject."""
    pytest.importorskip("setuptools")
    import shutil

    import geonh

    src = tmp_path / "src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md", "LICENSE", *(f"{m}.py" for m in TOP_LEVEL_MODULES)):
        shutil.copy(ROOT / name, src / name)
    shutil.copytree(PACKAGE, src / "geonh",
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc", ".hypothesis", ".ruff_cache"))
    res = subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation",
                          "--no-index", "-w", str(tmp_path / "dist"), str(src)],
                         capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, res.stderr[-3000:]
    (wheel,) = (tmp_path / "dist").glob("geonh-*.whl")
    with zipfile.ZipFile(wheel) as z:
        names = z.namelist()
        meta = z.read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode()
        entry_points = z.read(next(n for n in names if n.endswith(".dist-info/entry_points.txt"))).decode()
    # every module of every sub-package (geonh/app, geonh/analysis, ...) is shipped, and the
    # console script points to the command line's home
    modules = {p.relative_to(PACKAGE.parent).as_posix() for p in PACKAGE.rglob("*.py")}
    assert modules <= set(names), sorted(modules - set(names))
    entry_lines = [line.strip() for line in entry_points.splitlines()]
    assert "geonh = geonh.app.cli:main" in entry_lines
    # the plugins' top-level modules are shipped, and both plugins are declared
    assert {f"{m}.py" for m in TOP_LEVEL_MODULES} <= set(names)
    assert {"_geonh_hypothesis.py", "_geonh_pytest.py"} <= set(names)
    assert {"geonh-profiles = _geonh_hypothesis:register_profiles", "geonh = _geonh_pytest"} <= set(entry_lines)
    assert "geonh/py.typed" in names and "geonh/__init__.py" in names
    assert any(n.endswith("LICENSE") and ".dist-info/" in n for n in names), names
    assert not any(n.startswith("tests/") for n in names)
    assert f"Version: {geonh.__version__}" in meta.splitlines()
    required = {_requirement_name(line.split(":", 1)[1]) for line in meta.splitlines()
                if line.startswith("Requires-Dist:") and "extra ==" not in line}
    assert required == {_requirement_name(r) for r in PYPROJECT["project"]["dependencies"]}


# ----------------------------------------------------------------------------------------------
# declared dependencies
# ----------------------------------------------------------------------------------------------
# extras for tools, not for code under geonh/: the test suite, the docs site (docs/conf.py) and the
# peers of benchmarks/peer_evaluation.py
TOOL_EXTRAS = {"test", "docs", "bench"}


def _declared() -> tuple[set[str], set[str]]:
    """(dependencies, distributions of the extras other than the tool extras), normalized names."""
    project = PYPROJECT["project"]
    extras = {_requirement_name(r) for name, reqs in project.get("optional-dependencies", {}).items()
              if name not in TOOL_EXTRAS for r in reqs}
    return {_requirement_name(r) for r in project["dependencies"]}, extras


def test_every_imported_third_party_module_is_declared():
    imported = _imported_top_level_modules()
    assert {"sympy", "mpmath", "hypothesis"} <= set(imported), sorted(imported)  # the scan sees imports
    required, extras = _declared()
    optional = _optional_modules()
    missing = {m: sorted(imported[m]) for m in _third_party(imported)
               if _distribution(m) not in required and not (m in optional and _distribution(m) in extras)}
    assert not missing, ("imported but not in pyproject dependencies (nor, for an import with an "
                         f"ImportError fallback, in an extra): {missing}")


def test_every_declared_dependency_is_imported_and_bounded():
    used = {_distribution(m) for m in _third_party(_imported_top_level_modules())}
    project = PYPROJECT["project"]
    reqs = list(project["dependencies"]) + [r for name, rs in project["optional-dependencies"].items()
                                            if name not in TOOL_EXTRAS for r in rs]
    for req in reqs:
        name = _requirement_name(req)
        assert name in used, f"{name} is declared but geonh never imports it"
        assert ">=" in req, f"{req}: give a lower bound"
    test_extra = {_requirement_name(r) for r in project["optional-dependencies"]["test"]}
    assert {"pytest", "pytest-xdist"} <= test_extra
    # the docs extra is what docs/conf.py imports, and the test extra brings it (the site build is a test)
    docs_extra = {_requirement_name(r) for r in project["optional-dependencies"]["docs"]}
    conf = (ROOT / "docs" / "conf.py").read_text(encoding="utf-8")
    assert {"sphinx", "myst-parser", "myst-nb", "ipykernel", "sphinx-mathjax-offline", "matplotlib"} == docs_extra
    extensions = re.search(r"^extensions = \[(.*?)^\]", conf, re.MULTILINE | re.DOTALL).group(1)
    # each Sphinx extension outside Sphinx itself comes from the docs extra
    # (myst-nb brings myst-parser's parser; the kernels it starts are ipykernel's)
    assert set(re.findall(r'"([\w.-]+)"', extensions)) == {
        "myst_nb", "sphinx-mathjax-offline", "sphinx.ext.autodoc", "sphinx.ext.napoleon", "sphinx.ext.mathjax",
        "sphinx.ext.intersphinx", "sphinx.ext.viewcode"}
    assert docs_extra <= test_extra


def test_slow_marker_is_registered_and_strict():
    ini = PYPROJECT["tool"]["pytest"]["ini_options"]
    assert any(m.startswith("slow:") for m in ini["markers"])
    assert "--strict-markers" in ini["addopts"]
    assert "--dist loadgroup" in ini["addopts"]  # xdist_group marks group where loadgroup works
