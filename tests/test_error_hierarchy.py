"""Errors come from the hierarchy only: every ``raise`` in geonh uses a class of ``geonh.errors``.

The rule of docs/errors.md ("every error geonh raises on purpose is a GeonhError"), read off
the package's own source with ``ast``:

* no ``raise`` names a built-in exception class (``ValueError``, ``TypeError``, ``KeyError``,
  ``builtins.RuntimeError``, …), called or not, and no built-in exception is constructed
  anywhere (so neither ``err = ValueError(...); raise err`` nor a factory returning one);
  a ``NotImplementedError`` is allowed only in an abstract method, ``SystemExit`` only as the
  exit status of the command line;
* every class that a ``raise`` names (in the module's namespace, or imported inside the
  function) is a :class:`~geonh.errors.GeonhError`, apart from the few listed in
  :data:`NOT_ERRORS` with their reason (private signals must be caught in their own module);
* a ``raise`` of a name that is not a class re-raises an object bound in its function (a
  caught exception, ``raise exc``; an error built by a helper) — ``raise ... from ...`` is
  judged by what it raises, the cause may be anything.

Each GeonhError also derives from the matching built-in, so ``except ValueError`` callers keep
working.
"""
from __future__ import annotations

import ast
import builtins
import importlib
import importlib.util
from pathlib import Path

import pytest

import geonh
from geonh.errors import GeonhError

PACKAGE = Path(geonh.__file__).resolve().parent

BUILTIN_EXCEPTIONS = frozenset(name for name, obj in vars(builtins).items()
                               if isinstance(obj, type) and issubclass(obj, BaseException))

#: built-in classes a raise may name, with where and why
PROTOCOL_BUILTINS = {
    "SystemExit": "the exit status of the command line (`python -m geonh`, geonh.cli.main)",
    "AssertionError": ("a failed property of geonh.testing.properties: what pytest and hypothesis report as a "
                       "test failure (only that module may raise it: test_assertion_error_only_in_properties)"),
}

#: classes defined in geonh that a raise may use although they are not GeonhErrors: the reason,
#: and whether it is a private signal (then its module must catch it, by it or by a base class)
NOT_ERRORS = {
    "InputError": ("the command line's bad-input error: a click.ClickException, so that click prints "
                   "it and exits with status 2", False),
    "_OSFailure": ("carries an OSError of a command past click's handling of EPIPE to main()", True),
    "_Deferred": ("the fast linear-algebra route hands a decision to the reference route", True),
    "_NoBound": ("a node whose rounding error the float screen does not model: decide at PRECISION "
                 "digits instead", True),
    "_TaskTimeout": ("a sweep task's time limit inside the worker thread", True),
    "_Singular": ("a declaration's expression has no finite value at one random point: try another", True),
    "_CompiledUnavailable": ("symengine cannot compile these equations: linearize takes the 60-digit route", True),
    "_PointRoute": ("the integral search cannot solve the rates at a sample point: the expression route instead", True),
    "_Unsortable": ("a node the memoized sort key cannot rank: sympy's Basic.compare orders it instead", True),
    "_NoValueHere": ("the chained form's graph evaluator meets a singular or non-real node: no value at that point", True),
    "_TooManyEvaluations": ("a verifying steering simulation used up its evaluations: an IntegrationError", True),
    "_NotOnGraph": ("a node the chained form's graph evaluator does not take: the kernel's values_at instead", True),
}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _sources() -> list[tuple[str, Path]]:
    return sorted((_module_name(p), p) for p in PACKAGE.rglob("*.py"))


def _last_name(node: ast.AST) -> str | None:
    """``ValueError`` for ``ValueError`` and ``builtins.ValueError`` (not for ``sp.ValueError``:
    an attribute of another module is resolved against the module instead)."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "builtins":
        return node.attr
    return None


def _parents(tree: ast.AST) -> dict:
    out = {}
    for node in ast.walk(tree):
        for child in ast.iter_child_nodes(node):
            out[child] = node
    return out


def _enclosing_function(node, parents):
    while node in parents:
        node = parents[node]
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            return node
    return None


def _is_abstract(func) -> bool:
    return func is not None and any((_last_name(d) or getattr(d, "attr", None)) == "abstractmethod"
                                    for d in getattr(func, "decorator_list", ()))


def _bound_in(func, name: str) -> bool:
    """Is ``name`` bound inside ``func`` (a parameter, an assignment, a handler's ``as``, a loop
    or ``with`` target, a local import)?"""
    if func is None:
        return False
    args = func.args
    params = {a.arg for a in args.posonlyargs + args.args + args.kwonlyargs}
    params |= {a.arg for a in (args.vararg, args.kwarg) if a is not None}
    if name in params:
        return True
    for node in ast.walk(func):
        if isinstance(node, ast.ExceptHandler) and node.name == name:
            return True
        if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Store):
            return True
        if isinstance(node, (ast.Import, ast.ImportFrom)) and any((a.asname or a.name) == name for a in node.names):
            return True
    return False


def _local_import(func, name: str, module: str):
    """The object ``name`` imported by a ``from ... import`` inside ``func`` (None if none)."""
    if func is None:
        return None
    for node in ast.walk(func):
        if isinstance(node, ast.ImportFrom):
            for a in node.names:
                if (a.asname or a.name) == name:
                    base = importlib.util.resolve_name("." * node.level + (node.module or ""),
                                                       module.rpartition(".")[0] if node.level else "")
                    return getattr(importlib.import_module(base), a.name, None)
    return None


def offences(source: str, module: str, namespace: dict | None) -> list[str]:
    """The lines of ``source`` (the module ``module``, its namespace if it can be imported)
    that break the rule of this file, each as "line: what"."""
    tree = ast.parse(source)
    parents = _parents(tree)
    out = []
    raised = {id(n.exc) for n in ast.walk(tree) if isinstance(n, ast.Raise) and n.exc is not None}
    for node in ast.walk(tree):
        # a built-in exception constructed outside a raise (kept in a variable, returned by a helper)
        if isinstance(node, ast.Call) and id(node) not in raised and _last_name(node.func) in BUILTIN_EXCEPTIONS:
            out.append(f"{node.lineno}: builds the built-in {ast.unparse(node.func)}")
        if not isinstance(node, ast.Raise) or node.exc is None:
            continue
        target = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
        func = _enclosing_function(node, parents)
        name = _last_name(target)
        text = f"{node.lineno}: raise {ast.unparse(node.exc)[:80]}"
        if name in BUILTIN_EXCEPTIONS and not (isinstance(target, ast.Name) and _bound_in(func, name)):
            if name in PROTOCOL_BUILTINS or (name == "NotImplementedError" and _is_abstract(func)):
                continue
            out.append(f"{text}: a built-in exception, not a class of geonh.errors")
            continue
        if namespace is None:
            continue
        try:
            obj = eval(compile(ast.Expression(target), module, "eval"), dict(namespace))  # noqa: S307 - our own source
        except Exception:  # noqa: BLE001 - a name local to the function
            obj = _local_import(func, name, module) if name else None
            if obj is None:
                if isinstance(target, ast.Name) and not _bound_in(func, target.id):
                    out.append(f"{text}: {target.id} is bound nowhere")
                continue
        if isinstance(target, ast.Name) and _bound_in(func, target.id) and not isinstance(obj, type):
            continue   # a re-raise of a caught or built exception object
        if isinstance(obj, type):
            if issubclass(obj, GeonhError):
                continue
            if obj.__name__ in NOT_ERRORS and obj.__module__ == module:
                continue
            out.append(f"{text}: {obj.__module__}.{obj.__qualname__} is not a GeonhError")
    return out


@pytest.mark.parametrize("module, path", _sources(), ids=[m for m, _ in _sources()])
def test_every_raise_uses_the_hierarchy(module, path):
    namespace = None
    if path.name != "__main__.py":   # importing __main__ would run the command line
        namespace = vars(importlib.import_module(module))
    found = offences(path.read_text(encoding="utf-8"), module, namespace)
    assert not found, f"{module}: raises outside geonh.errors:\n  " + "\n  ".join(found)


def test_private_signals_are_caught_in_their_module():
    """A private signal allowed by NOT_ERRORS never reaches a user: its own module catches it
    (by name or by a base class)."""
    for module, path in _sources():
        if path.name == "__main__.py":
            continue
        ns = vars(importlib.import_module(module))
        tree = ast.parse(path.read_text(encoding="utf-8"))
        caught = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.ExceptHandler) and node.type is not None:
                types = node.type.elts if isinstance(node.type, ast.Tuple) else [node.type]
                for t in types:
                    try:
                        obj = eval(compile(ast.Expression(t), module, "eval"), dict(ns))  # noqa: S307
                    except Exception:  # noqa: BLE001
                        continue
                    if isinstance(obj, type):
                        caught.add(obj)
        for name, (_, signal) in NOT_ERRORS.items():
            cls = ns.get(name)
            if signal and isinstance(cls, type) and cls.__module__ == module:
                assert any(issubclass(cls, c) for c in caught), f"{module}.{name} is raised but never caught there"


PLANTED = {
    "raise ValueError('x')": "def f(x):\n    raise ValueError('x')\n",
    "raise TypeError": "def f(x):\n    raise TypeError\n",
    "raise builtins.KeyError": "import builtins\n\ndef f(x):\n    raise builtins.KeyError(x)\n",
    "raise ... from ...": "def f(x):\n    try:\n        x()\n    except OSError as e:\n        raise RuntimeError('y') from e\n",
    "a built-in in a variable": "def f(x):\n    err = IndexError(x)\n    raise err\n",
    "a factory of a built-in": "def _bad(x):\n    return ZeroDivisionError(x)\n\ndef f(x):\n    raise _bad(x)\n",
    "a non-abstract NotImplementedError": "class A:\n    def f(self):\n        raise NotImplementedError\n",
    "a class outside the hierarchy": "class Oops(Exception):\n    pass\n\ndef f():\n    raise Oops('x')\n",
    "an imported class outside the hierarchy": "import sympy as sp\n\ndef f():\n    raise sp.PolynomialError('x')\n",
}


@pytest.mark.parametrize("case", sorted(PLANTED))
def test_a_planted_bare_raise_is_found(case):
    """The checker is not vacuous: each planted offence is reported."""
    source = PLANTED[case]
    namespace: dict = {}
    exec(compile(source, "planted", "exec"), namespace)  # noqa: S102 - the fixed snippets above
    assert offences(source, "planted", namespace), case


def test_what_the_rule_allows():
    allowed = ("from geonh.errors import ParseError, SingularMapError\n"
               "import abc\n\n"
               "class A(abc.ABC):\n"
               "    @abc.abstractmethod\n"
               "    def f(self):\n"
               "        raise NotImplementedError\n\n"
               "def g(x):\n"
               "    try:\n"
               "        x()\n"
               "    except ValueError as exc:\n"
               "        if x:\n"
               "            raise\n"
               "        raise exc\n"
               "    raise SingularMapError('s') from None\n\n"
               "def h(x):\n"
               "    from geonh.errors import RankError\n"
               "    raise RankError('r') from x\n\n"
               "def main():\n"
               "    raise SystemExit(0)\n")
    namespace: dict = {}
    exec(compile(allowed, "allowed", "exec"), namespace)  # noqa: S102 - the fixed snippet above
    assert offences(allowed, "allowed", namespace) == []


def test_assertion_error_only_in_properties():
    """AssertionError is the protocol of :mod:`geonh.testing.properties` (a property that fails) and
    of no other module: elsewhere a wrong input or state is a geonh error."""
    offenders = []
    for module, path in _sources():
        if module == "geonh.testing.properties":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Raise) and node.exc is not None and _last_name(
                    node.exc.func if isinstance(node.exc, ast.Call) else node.exc) == "AssertionError":
                offenders.append(f"{module}:{node.lineno}")
    assert not offenders, offenders
