"""The package's shape, read off its own import statements.

Layers (lowest first): errors < kernel < transposition < systems < equations < numerics <
certificate < models < cli / testing.  Every import of a geonh module — at module level or
inside a function — must point to the same layer or one below, and no module may import a
private name (one starting with "_", dunders aside) or a private module of another module.
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "geonh"

LAYERS = ["errors", "kernel", "transposition", "systems", "equations", "numerics", "analysis", "models",
          "sources", "testing", "app"]
TOP = {"__main__": 11}


def _modules() -> dict[str, Path]:
    out = {}
    for path in PACKAGE.rglob("*.py"):
        rel = path.relative_to(PACKAGE.parent).with_suffix("")
        parts = list(rel.parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


MODULES = _modules()


def layer(modname: str) -> int:
    """Layer index of a geonh module (geonh itself, the public facade, is above everything)."""
    parts = modname.split(".")
    if len(parts) == 1:
        return 99
    head = parts[1]
    if head in TOP:
        return TOP[head]
    return LAYERS.index(head)


def _resolve(module: str, node: ast.ImportFrom | ast.Import, alias: ast.alias | None = None) -> list[tuple[str, str]]:
    """(imported geonh module, imported name or "") pairs of one import statement."""
    pkg_parts = module.split(".")
    if not MODULES[module].name == "__init__.py":
        pkg_parts = pkg_parts[:-1]
    out = []
    if isinstance(node, ast.Import):
        for a in node.names:
            if a.name.split(".")[0] == "geonh":
                out.append((a.name, ""))
        return out
    if node.level:
        base = pkg_parts[:len(pkg_parts) - node.level + 1]
        target = ".".join(base + ([node.module] if node.module else []))
    else:
        target = node.module or ""
    if target.split(".")[0] != "geonh":
        return out
    for a in node.names:
        sub = f"{target}.{a.name}"
        if sub in MODULES:  # `from .pkg import module`
            out.append((sub, ""))
        else:
            out.append((target, a.name))
    return out


def _imports(module: str) -> list[tuple[str, str, int]]:
    tree = ast.parse(MODULES[module].read_text(encoding="utf-8"))
    out = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            for target, name in _resolve(module, node):
                out.append((target, name, node.lineno))
    return out


ALL_IMPORTS = {m: _imports(m) for m in MODULES}


def test_the_reader_sees_the_layers():
    """Guard against a reader that silently finds nothing."""
    assert layer("geonh.kernel.frames") < layer("geonh.transposition.adapted") < layer("geonh.systems.mechanical") \
        < layer("geonh.equations.engine") < layer("geonh.numerics.ode") < layer("geonh.analysis.certificate") \
        < layer("geonh.models.mechanical")
    assert ("geonh.kernel.fields", "VectorField") in {(t, n) for t, n, _ in ALL_IMPORTS["geonh.kernel.frames"]}
    assert sum(len(v) for v in ALL_IMPORTS.values()) > 100


@pytest.mark.parametrize("module", sorted(m for m in MODULES if m != "geonh"))
def test_imports_point_down(module):
    bad = [f"line {ln}: {t}" for t, _, ln in ALL_IMPORTS[module] if layer(t) > layer(module)]
    assert not bad, f"{module} (layer {layer(module)}) imports from a higher layer: {bad}"


@pytest.mark.parametrize("module", sorted(MODULES))
def test_no_private_names_across_modules(module):
    bad = []
    for target, name, ln in ALL_IMPORTS[module]:
        if target == module:
            continue
        private_module = any(p.startswith("_") and not p.startswith("__") for p in target.split("."))
        private_name = name.startswith("_") and not (name.startswith("__") and name.endswith("__"))
        if private_module or private_name:
            bad.append(f"line {ln}: {target} {name}".strip())
    assert not bad, f"{module} imports private names of other modules: {bad}"


def test_facade_does_not_import_testing():
    assert not [t for t, _, _ in ALL_IMPORTS["geonh"] if t.startswith("geonh.testing")]
