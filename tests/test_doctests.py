"""The examples in the docstrings of geonh.kernel run and print what they show (doctest).

Every module of the ``geonh.kernel`` package is searched (:class:`doctest.DocTestFinder`); each
docstring with examples is one test, run on both symbolic backends (the outputs are sympy
objects either way, so they must agree).  Every public class of the kernel
(``geonh.kernel.__all__``) carries at least one example.
"""
from __future__ import annotations

import copy
import doctest
import importlib
import inspect
import pkgutil

import pytest

import geonh.kernel
from geonh.kernel import using_backend

FLAGS = doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS
MODULES = sorted(f"geonh.kernel.{m.name}" for m in pkgutil.iter_modules(geonh.kernel.__path__))


def _doctests() -> list[doctest.DocTest]:
    finder = doctest.DocTestFinder(exclude_empty=True)
    out = []
    for name in ["geonh.kernel", *MODULES]:
        out += [t for t in finder.find(importlib.import_module(name)) if t.examples]
    return sorted(out, key=lambda t: t.name)


DOCTESTS = _doctests()


def _run(test: doctest.DocTest, backend: str) -> tuple[doctest.TestResults, str]:
    """(results, report) of one docstring's examples under ``backend``."""
    fresh = copy.copy(test)
    fresh.globs = dict(test.globs)  # names an example defines never reach another run
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    report: list[str] = []
    with using_backend(backend):
        runner.run(fresh, out=report.append)
    return runner.summarize(verbose=False), "".join(report)


@pytest.mark.parametrize("backend", ["symengine", "sympy"])
@pytest.mark.parametrize("test", DOCTESTS, ids=[t.name for t in DOCTESTS])
def test_kernel_docstring_examples(test, backend):
    result, report = _run(test, backend)
    assert result.attempted == len(test.examples)
    assert result.failed == 0, report


def test_every_public_kernel_class_has_an_example():
    documented = {t.name.removeprefix("geonh.kernel.").split(".", 1)[1] for t in DOCTESTS
                  if t.name.count(".") >= 3}
    classes = [n for n in geonh.kernel.__all__ if inspect.isclass(getattr(geonh.kernel, n))]
    assert classes
    missing = [n for n in classes if n not in documented]
    assert not missing, f"public kernel classes without a docstring example: {missing}"


def test_a_changed_output_fails():
    """The harness compares outputs: VectorField's example with one expected output altered
    (the bracket's sign flipped, [∂_x, x ∂_y] = −∂_y) fails, naming the example."""
    original = next(t for t in DOCTESTS if t.name == "geonh.kernel.fields.VectorField")
    changed = copy.copy(original)
    changed.examples = [copy.copy(e) for e in original.examples]
    k = next(i for i, e in enumerate(changed.examples) if e.want == "VectorField((1)*d_y)\n")
    changed.examples[k].want = "VectorField((-1)*d_y)\n"
    result, report = _run(changed, "symengine")
    assert result.failed == 1
    assert "X.bracket(Y)" in report and "Expected:" in report and "VectorField((1)*d_y)" in report
    # and the unaltered examples pass
    assert _run(original, "symengine")[0].failed == 0
