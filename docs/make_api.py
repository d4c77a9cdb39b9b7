"""Generate docs/api.md from the docstrings of geonh's public modules.

Pure Python (``inspect`` + ``pkgutil``), no documentation toolchain::

    python docs/make_api.py            # rewrite docs/api.md
    python docs/make_api.py --check    # exit 1 if docs/api.md is out of date

Every public module and sub-package is documented, in the order of the floors (each imports
only from the ones before it): the package ``geonh`` itself, then ``geonh.kernel`` and its
modules, ``geonh.transposition``, ``geonh.systems``, ``geonh.equations``, ``geonh.numerics``,
``geonh.analysis``, ``geonh.models``; then the application, ``geonh.app``, ``geonh.errors`` and
``geonh.moved`` (which lie below every floor but are read last) and
``geonh.testing.strategies``.  That is the list
:data:`KERNEL`; any other module follows alphabetically.

A module's public names are its ``__all__`` if it has one, else the classes and functions it
defines without a leading underscore.  Names defined in the module are documented in full;
names it re-exports from a module documented here are listed after
:data:`REEXPORT_MARK` with a link to that module (documented in full only when their home
module is not).  Classes list their public methods and properties.
"""
from __future__ import annotations

import argparse
import dataclasses
import importlib
import inspect
import re
import pkgutil
import sys
from collections.abc import Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

#: the documented modules in layer order (modules found but not listed here follow alphabetically)
KERNEL = [
    "geonh",
    # kernel
    "geonh.kernel", "geonh.kernel.space", "geonh.kernel.fields", "geonh.kernel.forms", "geonh.kernel.frames",
    "geonh.kernel.distributions", "geonh.kernel.generic_point", "geonh.kernel.evaluation", "geonh.kernel.jets",
    "geonh.kernel.linalg", "geonh.kernel.sampling", "geonh.kernel.parsing", "geonh.kernel.elementary",
    "geonh.kernel.display",
    # transposition
    "geonh.transposition", "geonh.transposition.relations", "geonh.transposition.adapted",
    "geonh.transposition.printed",
    # systems
    "geonh.systems", "geonh.systems.protocol", "geonh.systems.mechanical", "geonh.systems.nonlinear",
    "geonh.systems.gauss", "geonh.systems.hertz", "geonh.systems.constraint_analysis",
    # equations
    "geonh.equations", "geonh.equations.base", "geonh.equations.engine", "geonh.equations.declaration",
    "geonh.equations.frame_forms",
    "geonh.equations.independent", "geonh.equations.nonlinear", "geonh.equations.gauss",
    "geonh.equations.hertz", "geonh.equations.hamilton", "geonh.equations.registry",
    # numerics
    "geonh.numerics", "geonh.numerics.codegen", "geonh.numerics.compiled", "geonh.numerics.ode",
    "geonh.numerics.trajectory", "geonh.numerics.constraints",
    # analysis
    "geonh.analysis", "geonh.analysis.linearize", "geonh.analysis.conserved", "geonh.analysis.integrals",
    "geonh.analysis.hamiltonization", "geonh.analysis.advisor", "geonh.analysis.certificate",
    # models
    "geonh.models", "geonh.models.kinematic", "geonh.models.mechanical", "geonh.models.seeds",
    "geonh.models.bicycle", "geonh.models.interop",
    # the application on top; the lowest floor (errors, moved names), read last; testing
    "geonh.app", "geonh.app.cli", "geonh.app.workbench", "geonh.app.report", "geonh.app.plotting",
    "geonh.errors", "geonh.moved", "geonh.testing.strategies",
]
OUT = ROOT / "docs" / "api.md"


def public_modules() -> list[str]:
    """Every public module and sub-package of geonh (no leading underscore), in :data:`KERNEL`
    order, then the rest alphabetically."""
    import geonh
    found = {"geonh"}
    for info in pkgutil.walk_packages(geonh.__path__, "geonh."):
        parts = info.name.split(".")
        if any(p.startswith("_") for p in parts[1:]):
            continue
        found.add(info.name)
    rest = sorted(found - set(KERNEL))
    return [m for m in KERNEL if m in found] + rest


def _doc(obj) -> str:
    return inspect.cleandoc(obj.__doc__) if obj.__doc__ else "*(no docstring)*"


def _ann(a) -> str:
    if isinstance(a, str):
        return a.replace("'", "").replace('"', "")
    if isinstance(a, type):
        return a.__qualname__ if a.__module__ == "builtins" else f"{a.__module__}.{a.__qualname__}"
    return repr(a).replace("typing.", "")


def _default(v) -> str:
    """A default value as written in the source: functions and classes by name (their repr
    carries a memory address, which would make the output differ from run to run)."""
    if inspect.isfunction(v) or inspect.isclass(v) or inspect.isbuiltin(v):
        return v.__qualname__
    return repr(v)


def _sig(obj) -> str:
    """The signature with annotations written as in the source (no quotes)."""
    try:
        sig = inspect.signature(obj)
    except (TypeError, ValueError):
        return "(...)"
    ps = list(sig.parameters.values())
    if ps and ps[0].name in ("self", "cls"):
        sig = sig.replace(parameters=ps[1:])
    params = []
    for p in sig.parameters.values():
        ann = "" if p.annotation is p.empty else ": " + _ann(p.annotation)
        default = "" if p.default is p.empty else (" = " if ann else "=") + _default(p.default)
        params.append(p.replace(annotation=p.empty, default=p.empty).__str__() + ann + default)
    # keep the * / separators inspect would print
    out, seen_kw = [], False
    for p, text in zip(sig.parameters.values(), params):
        if p.kind is p.KEYWORD_ONLY and not seen_kw:
            out.append("*")
            seen_kw = True
        if p.kind is p.VAR_POSITIONAL:
            seen_kw = True
        out.append(text)
    ret = "" if sig.return_annotation is sig.empty else " -> " + _ann(sig.return_annotation)
    return "(" + ", ".join(out) + ")" + ret


REEXPORT_MARK = "<!-- re-exported names below -->"


def _anchor(modname: str) -> str:
    return "#" + modname.replace(".", "")


def origin(mod, n) -> str:
    """The module a public name of ``mod`` is defined in.  Classes and functions say so
    themselves; a sub-module is its own origin; a data object (a registry, a tuple of names)
    comes from the deepest sub-module of ``mod`` that lists it in ``__all__``."""
    obj = getattr(mod, n)
    if inspect.ismodule(obj):
        return obj.__name__
    if inspect.isclass(obj) or inspect.isfunction(obj):
        return getattr(obj, "__module__", None) or mod.__name__
    best = mod.__name__
    for name, sub in sorted(sys.modules.items()):
        if (name.startswith(mod.__name__ + ".") and sub is not None and n in getattr(sub, "__all__", ())
                and getattr(sub, n, None) is obj and name.count(".") > best.count(".")):
            best = name
    return best


def _own(mod, n) -> bool:
    return origin(mod, n) == mod.__name__


def reexported_names(mod) -> list[str]:
    """Names in ``__all__`` defined in another module (listed after the marker)."""
    return [n for n in getattr(mod, "__all__", []) if hasattr(mod, n) and not _own(mod, n)]


def public_names(mod) -> list[str]:
    if hasattr(mod, "__all__"):
        return [n for n in mod.__all__ if hasattr(mod, n) and _own(mod, n)]
    out = []
    for n, obj in vars(mod).items():
        if n.startswith("_") or not (inspect.isclass(obj) or inspect.isfunction(obj)):
            continue
        if getattr(obj, "__module__", None) == mod.__name__:
            out.append(n)
    return out


def _members(cls):
    fields = {f.name for f in dataclasses.fields(cls)} if dataclasses.is_dataclass(cls) else set()
    for n, v in vars(cls).items():
        if n.startswith("_") or n in fields:  # a dataclass field's default is not a method
            continue
        if isinstance(v, property):
            yield n, v, "property"
        elif isinstance(v, (classmethod, staticmethod)):
            yield n, v.__func__, "classmethod" if isinstance(v, classmethod) else "staticmethod"
        elif inspect.isfunction(v):
            yield n, v, "method"


def _value(obj) -> list[str]:
    """Markdown lines for a public data object: a registry of dataclass entries as a table of
    their non-callable fields, other mappings by their keys, small literals by their repr."""
    if isinstance(obj, dict) and obj and all(dataclasses.is_dataclass(v) for v in obj.values()):
        first = next(iter(obj.values()))
        cols = [f.name for f in dataclasses.fields(first) if not callable(getattr(first, f.name))]
        rows = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
        for v in obj.values():
            rows.append("| " + " | ".join(str(getattr(v, c)).replace("|", "\\|") for c in cols) + " |")
        return rows
    if isinstance(obj, Mapping):
        return ["Keys: " + ", ".join(f"`{k}`" for k in obj)]
    if isinstance(obj, frozenset) and " at 0x" not in repr(obj):
        # sorted: a set's repr follows the hash seed, and the page must not change between runs
        return ["`frozenset({" + ", ".join(sorted(map(str, obj))) + "})`"]
    if isinstance(obj, (str, int, float, tuple)) and " at 0x" not in repr(obj):
        return [f"`{obj!r}`"]
    return [f"`{_ann(obj)}`"]


def _render_name(mod, name: str) -> list[str]:
    obj = getattr(mod, name)
    if inspect.isclass(obj):
        lines = [f"### class `{name}{_sig(obj)}`", "", _doc(obj), ""]
        for mname, m, kind in _members(obj):
            if kind == "property":
                lines += [f"#### `{name}.{mname}` (property)", "",
                          inspect.cleandoc(m.__doc__) if m.__doc__ else "", ""]
            else:
                pre = "classmethod " if kind == "classmethod" else ""
                lines += [f"#### {pre}`{name}.{mname}{_sig(m)}`", "",
                          inspect.cleandoc(m.__doc__) if m.__doc__ else "", ""]
        return lines
    if callable(obj) and getattr(obj, "__module__", None) != "typing":  # a type alias is data
        return [f"### `{name}{_sig(obj)}`", "", _doc(obj), ""]
    return [f"### `{name}`", ""] + _value(obj) + [""]


def render_module(modname: str, documented: frozenset[str] | None = None) -> str:
    """The markdown section of one module (``## `modname` ``, its docstring, its names).

    ``documented``: the modules that have their own section (default :func:`public_modules`).
    After :data:`REEXPORT_MARK` the re-exported names are listed by home module, linked when
    the home module has a section, else documented here in full."""
    mod = importlib.import_module(modname)
    if documented is None:
        documented = frozenset(public_modules())
    lines = [f"## `{modname}`", "", _doc(mod), ""]
    for name in public_names(mod):
        lines += _render_name(mod, name)
    extra = reexported_names(mod)
    if extra:
        by_src: dict[str, list[str]] = {}
        for n in extra:
            by_src.setdefault(origin(mod, n), []).append(n)
        lines += [REEXPORT_MARK, "", "Re-exported:", ""]
        for src in sorted(by_src):
            listed = ", ".join(f"`{n}`" for n in by_src[src])
            where = f"[`{src}`]({_anchor(src)})" if src in documented else f"`{src}` (below)"
            lines.append(f"- from {where}: {listed}")
        lines.append("")
        for n in extra:
            if origin(mod, n) not in documented:
                lines += _render_name(mod, n)
    # collapse runs of blank lines; memory addresses (reprs of functions inside data) vary by run
    text = re.sub(r" at 0x[0-9a-fA-F]+", "", "\n".join(lines))
    while "\n\n\n" in text:
        text = text.replace("\n\n\n", "\n\n")
    return text.rstrip() + "\n"


def render() -> str:
    mods = public_modules()
    head = ["# API reference", "",
            "Generated by `python docs/make_api.py` from the docstrings; do not edit by hand.",
            "Signs and index orders: [conventions.md](conventions.md).", "",
            "Modules:", ""]
    head += [f"- [`{m}`]({_anchor(m)})" for m in mods]
    documented = frozenset(mods)
    return "\n".join(head) + "\n\n" + "\n".join(render_module(m, documented) for m in mods)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="compare instead of writing")
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args(argv)
    text = render()
    if args.check:
        current = args.out.read_text(encoding="utf-8") if args.out.exists() else ""
        if current != text:
            print(f"{args.out} is out of date: run python docs/make_api.py", file=sys.stderr)
            return 1
        return 0
    args.out.write_text(text, encoding="utf-8")
    print(f"wrote {args.out} ({len(text.splitlines())} lines)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
