"""Generate docs/api.md from the docstrings of geonh's public modules.

Pure Python (``inspect`` + ``pkgutil``), no documentation toolchain::

    python docs/make_api.py            # rewrite docs/api.md
    python docs/make_api.py --check    # exit 1 if docs/api.md is out of date

Every public module of the package is documented: the kernel first, in data-flow order
(space → fields → forms → frames → distributions → generic → errors → catalog → cli →
testing.strategies), then the others alphabetically.  A module's public names are its
``__all__`` if it has one, else the classes and functions it defines without a leading
underscore.  Classes list their public methods and properties.
"""
from __future__ import annotations

import argparse
import importlib
import inspect
import pkgutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

KERNEL = ["geonh.space", "geonh.fields", "geonh.forms", "geonh.frames", "geonh.distributions",
          "geonh.generic", "geonh.errors", "geonh.catalog", "geonh.cli", "geonh.testing.strategies"]
OUT = ROOT / "docs" / "api.md"


def public_modules() -> list[str]:
    import geonh
    found = set()
    for info in pkgutil.walk_packages(geonh.__path__, "geonh."):
        parts = info.name.split(".")
        if any(p.startswith("_") for p in parts[1:]):
            continue
        if info.ispkg:
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
        default = "" if p.default is p.empty else (" = " if ann else "=") + repr(p.default)
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


def _own(mod, n) -> bool:
    return getattr(getattr(mod, n), "__module__", mod.__name__) == mod.__name__


def reexported_names(mod) -> list[str]:
    """Names in ``__all__`` defined in another module (documented after the marker)."""
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
    for n, v in vars(cls).items():
        if n.startswith("_"):
            continue
        if isinstance(v, property):
            yield n, v, "property"
        elif isinstance(v, (classmethod, staticmethod)):
            yield n, v.__func__, "classmethod" if isinstance(v, classmethod) else "staticmethod"
        elif inspect.isfunction(v):
            yield n, v, "method"


def render_module(modname: str) -> str:
    """The markdown section of one module (``## `modname` ``, its docstring, its names)."""
    mod = importlib.import_module(modname)
    lines = [f"## `{modname}`", "", _doc(mod), ""]
    names = public_names(mod)
    extra = reexported_names(mod)
    for name in names + ([REEXPORT_MARK] if extra else []) + extra:
        if name == REEXPORT_MARK:
            srcs = sorted({getattr(mod, n).__module__ for n in extra})
            lines += [REEXPORT_MARK, "", "Re-exported from " + ", ".join(f"`{m}`" for m in srcs) + ":", ""]
            continue
        obj = getattr(mod, name)
        if inspect.isclass(obj):
            lines += [f"### class `{name}{_sig(obj)}`", "", _doc(obj), ""]
            for mname, m, kind in _members(obj):
                if kind == "property":
                    lines += [f"#### `{name}.{mname}` (property)", "",
                              inspect.cleandoc(m.__doc__) if m.__doc__ else "", ""]
                else:
                    pre = "classmethod " if kind == "classmethod" else ""
                    lines += [f"#### {pre}`{name}.{mname}{_sig(m)}`", "",
                              inspect.cleandoc(m.__doc__) if m.__doc__ else "", ""]
        elif callable(obj):
            lines += [f"### `{name}{_sig(obj)}`", "", _doc(obj), ""]
        else:
            lines += [f"### `{name}`", "", f"`{obj!r}`", ""]
    # collapse runs of blank lines
    text = "\n".join(lines)
    while "\n\n\n" in text:
        text = text.replace("\n\n\n", "\n\n")
    return text.rstrip() + "\n"


def render() -> str:
    mods = public_modules()
    head = ["# API reference", "",
            "Generated by `python docs/make_api.py` from the docstrings; do not edit by hand.",
            "Signs and index orders: [conventions.md](conventions.md).", "",
            "Modules:", ""]
    head += [f"- [`{m}`](#{m.replace('.', '')})" for m in mods]
    return "\n".join(head) + "\n\n" + "\n".join(render_module(m) for m in mods)


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
