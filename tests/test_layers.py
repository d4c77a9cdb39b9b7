"""The package's shape, read off its own import statements.

Floors, lowest first (:data:`FLOORS`): errors < kernel < transposition < systems < equations <
numerics < analysis < control < models < sources < the facade ``geonh`` < testing < app.  A module's floor
is named by its package (``geonh.kernel.frames`` lies on the kernel floor); the lowest floor
holds ``geonh.errors`` and ``geonh.moved`` (the table of moved names); the facade
``geonh/__init__.py`` has its own floor, and ``geonh/__main__.py`` (``python -m geonh``) lies on
the application floor with :mod:`geonh.app`.  There is no other table: a module in no floor's
package fails :func:`test_every_module_lies_on_a_floor`.

Every import of a geonh module — at module level, inside a function, or under
``if TYPE_CHECKING:`` (an annotation-only import is an import all the same) — must point to the
same floor or one below; the graph of these imports has no circle; and no module imports a
private name (one starting with "_", dunders aside) or a private module of another module.
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "geonh"

#: the floors, lowest first; each names the packages (or top-level modules) it holds.  "geonh"
#: is the facade, geonh/__init__.py; the application floor is the top.
FLOORS: list[tuple[str, ...]] = [
    ("errors", "moved"), ("kernel",), ("transposition",), ("systems",), ("equations",), ("numerics",),
    ("analysis",), ("control",), ("models",), ("sources",), ("geonh",), ("testing",), ("app", "__main__"),
]
FLOOR_OF = {head: i for i, heads in enumerate(FLOORS) for head in heads}


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
    """The floor of a geonh module (an index into :data:`FLOORS`); KeyError if it lies on none."""
    parts = modname.split(".")
    return FLOOR_OF["geonh" if len(parts) == 1 else parts[1]]


def _resolve(module: str, is_package: bool, node: ast.ImportFrom | ast.Import,
             modules: dict | set) -> list[tuple[str, str]]:
    """(imported geonh module, imported name or "") pairs of one import statement of ``module``."""
    pkg_parts = module.split(".")
    if not is_package:
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
        if sub in modules:  # `from .pkg import module`
            out.append((sub, ""))
        else:
            out.append((target, a.name))
    return out


def imports_in(source: str, module: str, is_package: bool = False,
               modules: dict | set = MODULES) -> list[tuple[str, str, int]]:
    """(target module, name, line) of every geonh import in ``source``: ``ast.walk`` visits every
    statement — module level, function bodies, ``if TYPE_CHECKING:`` blocks, ``try`` blocks."""
    out = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            for target, name in _resolve(module, is_package, node, modules):
                out.append((target, name, node.lineno))
    return out


def _imports(module: str) -> list[tuple[str, str, int]]:
    path = MODULES[module]
    return imports_in(path.read_text(encoding="utf-8"), module, path.name == "__init__.py")


ALL_IMPORTS = {m: _imports(m) for m in MODULES}


def _owner(target: str, modules: dict | set) -> str:
    """The module an import lands in: ``geonh.x.y`` itself, or the longest prefix that is a
    module (``import geonh.kernel.frames.Frame`` does not occur, but a dotted name is safe)."""
    parts = target.split(".")
    while parts and ".".join(parts) not in modules:
        parts.pop()
    return ".".join(parts) or target


def graph(imports: dict[str, list[tuple[str, str, int]]]) -> dict[str, set[str]]:
    """module -> the geonh modules it imports (itself left out)."""
    mods = set(imports)
    return {m: {_owner(t, mods) for t, _, _ in imp} - {m} for m, imp in imports.items()}


def circles(g: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative): each is a
    set of modules that import one another round a circle.  Sorted, for a stable message."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    out: list[list[str]] = []
    counter = 0
    for root in sorted(g):
        if root in index:
            continue
        work = [(root, iter(sorted(g.get(root, ()))))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(g.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    component.append(w)
                    if w == node:
                        break
                if len(component) > 1:
                    out.append(sorted(component))
    return sorted(out)


def test_the_reader_sees_the_layers():
    """Guard against a reader that silently finds nothing."""
    assert layer("geonh.errors") < layer("geonh.kernel.frames") < layer("geonh.transposition.adapted") \
        < layer("geonh.systems.mechanical") < layer("geonh.equations.engine") < layer("geonh.numerics.ode") \
        < layer("geonh.analysis.certificate") < layer("geonh.models.mechanical") < layer("geonh.sources.ledger") \
        < layer("geonh") < layer("geonh.testing.strategies") < layer("geonh.app.cli") == layer("geonh.__main__")
    assert ("geonh.kernel.fields", "VectorField") in {(t, n) for t, n, _ in ALL_IMPORTS["geonh.kernel.frames"]}
    assert sum(len(v) for v in ALL_IMPORTS.values()) > 100
    assert sum(len(v) for v in graph(ALL_IMPORTS).values()) > 100


def test_the_reader_sees_annotation_only_and_function_level_imports():
    source = ("from __future__ import annotations\nfrom typing import TYPE_CHECKING\n"
              "if TYPE_CHECKING:\n    from ..numerics.ode import simulate\n"
              "def f():\n    from ..app import cli\n")
    found = {t for t, _, _ in imports_in(source, "geonh.equations.base")}
    assert found == {"geonh.numerics.ode", "geonh.app.cli"}


def test_the_checks_can_fail():
    """A planted circle is found, and an upward import is seen as one."""
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert circles({"a": {"b"}, "b": set()}) == []
    planted = imports_in("if TYPE_CHECKING:\n    from ..app.report import report_html\n", "geonh.equations.base")
    assert [layer(t) > layer("geonh.equations.base") for t, _, _ in planted] == [True]


def test_every_module_lies_on_a_floor():
    homeless = []
    for m in sorted(MODULES):
        try:
            layer(m)
        except KeyError:
            homeless.append(m)
    assert not homeless, f"modules in no floor's package (FLOORS): {homeless}"


@pytest.mark.parametrize("module", sorted(MODULES))
def test_imports_point_down(module):
    bad = [f"line {ln}: {t}" for t, _, ln in ALL_IMPORTS[module] if layer(t) > layer(module)]
    assert not bad, f"{module} (floor {FLOORS[layer(module)]}) imports from a higher floor: {bad}"


def test_no_circle():
    found = circles(graph(ALL_IMPORTS))
    assert not found, f"modules importing one another round a circle: {found}"


def test_the_application_floor_is_the_top():
    top = len(FLOORS) - 1
    assert FLOORS[top] == ("app", "__main__")
    assert {m for m in MODULES if layer(m) == top} == {m for m in MODULES if m.startswith(("geonh.app", "geonh.__main__"))}
    users = sorted(m for m, imp in ALL_IMPORTS.items() if layer(m) != top and any(t.startswith("geonh.app") for t, _, _ in imp))
    assert not users, f"the library imports the application: {users}"


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
