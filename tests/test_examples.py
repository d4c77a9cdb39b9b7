"""Every script in examples/ checks what it shows, and runs to completion.

Scripts are discovered automatically (``examples/*.py``), each runs in its own interpreter
with the repository on ``sys.path``; they run concurrently (one per core) and each test waits
for its own script.  Each script runs once per test run: the first process (xdist worker) that
needs them claims every script not yet claimed (a claim file in the run's shared directory,
tests/conftest.py ``run_shared_dir``) and leaves each result there; a test of another worker
waits for the result.  Examples are meant to be quick (well under 20 s each).

An example is also a check: next to what it prints it ``assert``s the claims it makes (closed
forms, certificates, conservation laws, ...), so a failed claim fails its test, with the
script's output in the message.  :func:`test_example_asserts` makes sure no example comes
without such a check.
"""
import ast
import json
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


def _claim(shared: Path, path: Path) -> bool:
    """Claim ``path`` for this process (True) unless another process of the run has (False)."""
    try:
        os.close(os.open(shared / f"{path.name}.claim", os.O_CREAT | os.O_EXCL | os.O_WRONLY))
    except FileExistsError:
        return False
    return True


def _run_and_share(path: Path, shared: Path):
    """Run ``path`` and leave its result in ``shared`` (written whole, then renamed)."""
    r, seconds = _run(path)
    tmp = shared / f"{path.name}.json.tmp"
    tmp.write_text(json.dumps({"returncode": r.returncode, "stdout": r.stdout, "stderr": r.stderr,
                               "seconds": seconds}), encoding="utf-8")
    tmp.replace(shared / f"{path.name}.json")
    return r, seconds


def _shared_result(shared: Path, path: Path):
    """The result another process of the run leaves for ``path``, waited for."""
    done = shared / f"{path.name}.json"
    deadline = time.monotonic() + TIMEOUT * max(1, len(EXAMPLES))
    while not done.exists():
        assert time.monotonic() < deadline, f"{path.name}: the process that claimed it left no result"
        time.sleep(0.2)
    d = json.loads(done.read_text(encoding="utf-8"))
    return subprocess.CompletedProcess([sys.executable, str(path)], d["returncode"], d["stdout"], d["stderr"]), \
        d["seconds"]


def _result(path: Path, shared: Path):
    """(completed process, seconds) of ``path``: run here if this process claimed it, else the
    result another process left.  The first call claims every script not yet claimed."""
    global _pool
    if _pool is None:
        _pool = ThreadPoolExecutor(max_workers=max(1, min(4, os.cpu_count() or 1)))
        for p in EXAMPLES:
            if _claim(shared, p):
                _futures[p] = _pool.submit(_run_and_share, p, shared)
    future = _futures.get(path)
    return future.result() if future is not None else _shared_result(shared, path)


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
def test_example_runs(path, run_shared_dir):
    r, seconds = _result(path, run_shared_dir)
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


def test_a_script_claimed_by_another_process_is_read_not_run_again(tmp_path):
    """The harness: a script runs once per test run — the first claim wins, a second claim
    fails, and the result the claimant leaves is what another process reads."""
    shared = tmp_path / "shared"
    shared.mkdir()
    script = tmp_path / "once.py"
    script.write_text('import pathlib, sys\nprint("ran")\n'
                      'p = pathlib.Path(sys.argv[0]).with_suffix(".count")\n'
                      'p.write_text(str(int(p.read_text()) + 1 if p.exists() else 1))\n', encoding="utf-8")
    assert _claim(shared, script) and not _claim(shared, script)
    r, seconds = _run_and_share(script, shared)
    other, other_seconds = _shared_result(shared, script)
    assert (other.returncode, other.stdout, other_seconds) == (r.returncode, r.stdout, seconds) == (0, "ran\n", seconds)
    assert script.with_suffix(".count").read_text() == "1"
