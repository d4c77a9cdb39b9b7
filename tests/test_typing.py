"""The type check: mypy over the whole package, as CI runs it (the suite is CI's only command).

The configuration is pyproject.toml's ``[tool.mypy]``; this test only runs ``python -m mypy``
with it and fails with mypy's own report.  The cache lives in the checkout (``.mypy_cache``,
mypy's default, ignored by git): a clean clone pays the cold run once (about 7 s here), later
runs reuse it (about 1 s).  Under pytest-xdist only one worker runs this test, so the cache is
never written by two mypy processes of one session at a time.
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]


def _mypy(*targets: str) -> subprocess.CompletedProcess:
    """``python -m mypy [targets]`` from the checkout, with pyproject.toml's configuration."""
    cmd = [sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml"),
           "--cache-dir", str(ROOT / ".mypy_cache"), *targets]
    return subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=900)


def test_mypy_is_configured_without_blanket_ignores():
    """The configuration checks every module: no ``ignore_errors`` anywhere, and the package
    itself is the target (``files``)."""
    conf = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["mypy"]
    assert conf["files"] == ["geonh"]
    assert "ignore_errors" not in conf
    for override in conf.get("overrides", []):
        assert "ignore_errors" not in override, override["module"]
        if not str(override["module"]).startswith("geonh"):
            # third-party modules without type information only: never geonh's own
            assert set(override) == {"module", "ignore_missing_imports"}, override


@pytest.mark.slow
def test_mypy_passes_on_geonh():
    """``python -m mypy geonh`` reports no error (its output is the failure message)."""
    proc = _mypy("geonh")
    assert proc.returncode == 0, f"mypy found errors:\n{proc.stdout}{proc.stderr}"
    assert "Success: no issues found" in proc.stdout, proc.stdout + proc.stderr


@pytest.mark.slow
def test_mypy_run_fails_on_a_planted_error(tmp_path):
    """The same command with the same configuration fails on a type error, so the test above
    cannot pass by not checking."""
    bad = tmp_path / "planted.py"
    bad.write_text("def f(x: int) -> str:\n    return x\n", encoding="utf-8")
    proc = _mypy(str(bad))
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert 'Incompatible return value type (got "int", expected "str")' in proc.stdout
