"""Each job written once, read off the package's own source (issue 21, semantic duplicates):
the working precision is read where it is used, random numbers come from one sampler, the
elementary functions from one table, row elimination from one module, and no function is
named after nothing ("tidy")."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "geonh"
SOURCES = {p.relative_to(PACKAGE).as_posix(): ast.parse(p.read_text(encoding="utf-8"))
           for p in sorted(PACKAGE.rglob("*.py"))}


def _where(path: str, node: ast.AST) -> str:
    return f"geonh/{path}:{node.lineno}"


def test_the_working_precision_is_never_imported_by_value():
    """``from ...evaluation import PRECISION`` freezes a copy: set_precision would not reach it."""
    bad = [_where(path, node) for path, tree in SOURCES.items() for node in ast.walk(tree)
           if isinstance(node, ast.ImportFrom) and any(a.name in ("PRECISION", "BITS") for a in node.names)]
    assert not bad, f"PRECISION/BITS imported by value (read evaluation.precision() instead): {bad}"


def test_module_constants_do_not_freeze_the_precision():
    """A module-level constant computed from the precision is frozen at import as well."""
    bad = []
    for path, tree in SOURCES.items():
        for node in tree.body:
            if isinstance(node, ast.Assign) and any(
                    isinstance(n, ast.Call) and getattr(n.func, "id", getattr(n.func, "attr", "")) in ("precision", "bits")
                    for n in ast.walk(node.value)):
                bad.append(_where(path, node))
    assert not bad, bad


_DRAWS = {"randint", "randrange", "choice", "random", "uniform", "shuffle", "sample", "getrandbits"}


def test_random_numbers_are_drawn_by_the_one_sampler():
    """Only geonh/kernel/sampling.py calls a random generator's drawing methods; everything
    else passes its ``random.Random`` to the sampler."""
    bad = []
    for path, tree in SOURCES.items():
        if path == "kernel/sampling.py":
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _DRAWS \
                    and isinstance(node.func.value, ast.Name) and "rng" in node.func.value.id:
                bad.append(_where(path, node))
    assert not bad, f"random draws outside kernel/sampling.py: {bad}"


_ELEMENTARY = {"sin", "cos", "tan", "cot", "sec", "csc", "asin", "acos", "atan", "sinh", "cosh", "tanh", "exp",
               "log", "acot", "asec", "acsc", "coth"}


def _elementary_refs(nodes) -> int:
    return sum(1 for n in nodes if isinstance(n, ast.Attribute) and n.attr in _ELEMENTARY
               and isinstance(n.value, ast.Name) and n.value.id in ("sp", "sympy"))


def test_elementary_functions_are_listed_once():
    """No list, tuple, set, dict or call argument list of three or more sympy elementary
    functions outside geonh/kernel/elementary.py (read its TABLE, TRIG_FUNCTIONS, ...)."""
    bad = []
    for path, tree in SOURCES.items():
        if path == "kernel/elementary.py":
            continue
        for node in ast.walk(tree):
            if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
                items = node.elts
            elif isinstance(node, ast.Dict):
                items = node.keys
            elif isinstance(node, ast.Call):
                items = node.args
            else:
                continue
            if _elementary_refs(items) >= 3:
                bad.append(_where(path, node))
    assert not bad, f"lists of elementary functions outside kernel/elementary.py: {bad}"


def test_no_function_is_named_tidy():
    """Functions are named after what they do (shorten_for_display, shorten_trig, drop_roundoff, …)."""
    bad = [_where(path, node) for path, tree in SOURCES.items() for node in ast.walk(tree)
           if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.strip("_") == "tidy"]
    assert not bad, bad


def _is_row_update(node: ast.AST) -> bool:
    """``[x - f * y for x, y in zip(...)]``: a row operation R_i ← R_i − f R_j."""
    if not isinstance(node, ast.ListComp) or not isinstance(node.elt, ast.BinOp):
        return False
    elt, gen = node.elt, node.generators[0]
    target = gen.target
    if not (isinstance(target, ast.Tuple) and len(target.elts) == 2 and all(isinstance(t, ast.Name) for t in target.elts)):
        return False
    x, y = (t.id for t in target.elts)
    return isinstance(elt.op, ast.Sub) and getattr(elt.left, "id", "") == x and isinstance(elt.right, ast.BinOp) \
        and isinstance(elt.right.op, ast.Mult) and getattr(elt.right.right, "id", "") == y \
        and isinstance(gen.iter, ast.Call) and getattr(gen.iter.func, "id", "") == "zip"


def test_row_elimination_is_written_once():
    """Gaussian elimination on rows of numbers lives in geonh/kernel/linalg.py only."""
    found = {_where(path, node) for path, tree in SOURCES.items() for node in ast.walk(tree) if _is_row_update(node)}
    assert found and all(w.startswith("geonh/kernel/linalg.py:") for w in found), sorted(found)


@pytest.mark.parametrize("name", ["pivot_order_at", "det_small", "float_positive_definite", "solve_linear_at",
                                  "random_rational", "condition_holds"])
def test_each_kernel_helper_is_defined_once(name):
    homes = [path for path, tree in SOURCES.items() for node in ast.walk(tree)
             if isinstance(node, ast.FunctionDef) and node.name == name]
    assert len(homes) == 1, homes
