"""Every script in examples/ runs to completion (exit status 0) and prints something.

Scripts are discovered automatically (``examples/*.py``), each runs in its own interpreter
with the repository on ``sys.path``; they run concurrently (one per core) and each test waits
for its own script.  Examples are meant to be quick (well under 20 s each).
"""
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


def _run(path: Path):
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    env.setdefault("MPLBACKEND", "Agg")
    t = time.perf_counter()
    r = subprocess.run([sys.executable, str(path)], cwd=str(ROOT), env=env, capture_output=True,
                       text=True, timeout=TIMEOUT)
    return r, time.perf_counter() - t


def _future(path: Path):
    global _pool
    if _pool is None:
        _pool = ThreadPoolExecutor(max_workers=max(1, min(4, os.cpu_count() or 1)))
        for p in EXAMPLES:
            _futures[p] = _pool.submit(_run, p)
    return _futures[path]


def test_examples_exist():
    assert (ROOT / "examples" / "kernel_tour.py") in EXAMPLES


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.name for p in EXAMPLES])
def test_example_runs(path):
    r, seconds = _future(path).result()
    assert r.returncode == 0, f"{path.name} failed ({seconds:.1f} s):\n{r.stdout[-2000:]}\n{r.stderr[-4000:]}"
    assert r.stdout.strip(), f"{path.name} printed nothing"
