"""Every script in examples/ checks what it shows, and runs to completion.

Scripts are discovered automatically (``examples/*.py``), each runs in its own interpreter
with the repository on ``sys.path``; they run concurrently (one per core) and each test waits
for its own script.  Examples are meant to be quick (well under 20 s each).

An example is also a check: next to what it prints it ``assert``s the claims it makes (closed
forms, certificates, conservation laws, ...), so a failed claim fails its test, with the
script's output in the message.  :func:`test_example_asserts` makes sure no example comes
without such a check.
"""
import ast
import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = sorted((ROOT / "examples").glob("*.py"))
TIMEOUT = 120  # hard limit per script, generous because scripts run concurrently

_pool = None
_futures = {}


def _run(path: Path, cwd: Path = ROOT):
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    env.setdefault("MPLBACKEND", "Agg")
    env.pop("PYTHONOPTIMIZE", None)  # -O would strip the asserts the examples check with
    t = time.perf_counter()
    r = subprocess.run([sys.executable, str(path)], check=False, cwd=str(cwd), env=env, capture_output=True,
                       text=True, timeout=TIMEOUT)
    return r, time.perf_counter() - t


def _future(path: Path):
    global _pool
    if _pool is None:
        _pool = ThreadPoolExecutor(max_workers=max(1, min(4, os.cpu_count() or 1)))
        for p in EXAMPLES:
            _futures[p] = _pool.submit(_run, p)
    return _futures[path]


def _check_run(name: str, r, seconds: float) -> None:
    """Fail with the script's output (its prints and the traceback of a failed assert)."""
    assert r.returncode == 0, (f"{name} failed ({seconds:.1f} s, exit {r.returncode}):\n"
                               f"--- stdout ---\n{r.stdout[-4000:]}\n--- stderr ---\n{r.stderr[-4000:]}")
    assert r.stdout.strip(), f"{name} printed nothing"


def _asserts(source: str) -> list[ast.Assert]:
    """The assert statements of a script whose condition is not a constant (``assert True``)."""
    return [node for node in ast.walk(ast.parse(source)) if isinstance(node, ast.Assert)
            and not isinstance(node.test, ast.Constant)]


def test_examples_exist():
    assert (ROOT / "examples" / "kernel_tour.py") in EXAMPLES


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.name for p in EXAMPLES])
def test_example_asserts(path):
    """Each example checks its claims with at least one real ``assert``."""
    found = _asserts(path.read_text(encoding="utf-8"))
    assert found, f"{path.name} asserts nothing: add asserts that check what it shows"


@pytest.mark.slow  # 20 scripts, about 90 s of CPU: in the full run (CI), not in the fast subset
@pytest.mark.parametrize("path", EXAMPLES, ids=[p.name for p in EXAMPLES])
def test_example_runs(path):
    r, seconds = _future(path).result()
    _check_run(path.name, r, seconds)


def test_failed_assert_fails_with_output(tmp_path):
    """The harness itself: a script whose assert fails makes the check fail, and the message
    carries both what the script printed and the assertion's message."""
    script = tmp_path / "bad_example.py"
    script.write_text('print("shown before the check: 42")\nx = 41\nassert x == 42, "x should be 42"\n',
                      encoding="utf-8")
    assert len(_asserts(script.read_text(encoding="utf-8"))) == 1
    assert not _asserts("assert True\n")
    r, seconds = _run(script, cwd=tmp_path)
    with pytest.raises(AssertionError) as info:
        _check_run(script.name, r, seconds)
    message = str(info.value)
    assert "shown before the check: 42" in message
    assert "AssertionError: x should be 42" in message
