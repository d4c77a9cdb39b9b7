"""``import geonh`` stays cheap (issue 22, fixed costs): the heavy layers load on first use.

Each check runs in a fresh interpreter (this process has imported everything already) and
reads ``sys.modules`` there, so a future eager import of a heavy module is caught.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

#: modules ``import geonh`` must not import: numeric and plotting stacks, the compiler, and
#: geonh's own floors above the equations (they bring the former)
HEAVY = ("numpy", "scipy", "symengine", "dask", "distributed", "matplotlib", "galgebra", "llvmlite", "numba",
         "hypothesis", "geonh.numerics", "geonh.analysis", "geonh.models", "geonh.sources", "geonh.app",
         "geonh.testing")


def _fresh(code: str, cwd=None, env=None) -> dict:
    """Run ``code`` in a fresh interpreter; it prints a JSON value as its last line."""
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, cwd=cwd, env=env)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_import_geonh_leaves_the_heavy_modules_unloaded():
    loaded = _fresh("import json, sys; import geonh; "
                    f"print(json.dumps([m for m in {HEAVY!r} if m in sys.modules]))")
    assert loaded == []


#: ``import hypothesis`` alone, then: the modules of geonh and its symbolic stack it loaded, and
#: each geonh profile's settings [[max_examples, deadline, derandomize, print_blob, database is None],
#: suppressed health checks]
_HYPOTHESIS_PROBE = """
import json, sys
import hypothesis
loaded = sorted(m for m in sys.modules if m.split('.')[0] in ('geonh', 'sympy', 'symengine', 'mpmath'))
from hypothesis import settings
def read(p):
    return [[p.max_examples, p.deadline, p.derandomize, p.print_blob, p.database is None],
            sorted(h.name for h in p.suppress_health_check)]
print(json.dumps([loaded, {n: read(settings.get_profile(n)) for n in ('geonh-fast', 'geonh-thorough')}]))
"""


def test_import_hypothesis_imports_no_geonh_and_registers_the_profiles(tmp_path):
    """Hypothesis runs every ``hypothesis`` entry point at ``import hypothesis``, in any project of
    the environment: geonh's hook registers ``geonh-fast`` and ``geonh-thorough`` with the
    settings of :data:`geonh.testing.plugin.PROFILES` and imports neither geonh nor sympy (it did
    both, +0.4 s wall, before its hook moved to the top-level ``_geonh_hypothesis``).  Run from a
    neutral directory, so the hook's module is found as installed, not from the checkout."""
    from geonh.testing.plugin import PROFILES

    env = {k: v for k, v in os.environ.items() if k != "HYPOTHESIS_NO_PLUGINS"}
    loaded, profiles = _fresh(_HYPOTHESIS_PROBE, cwd=tmp_path, env=env)
    assert loaded == [], f"`import hypothesis` imports {loaded[:8]} through geonh's entry point"
    assert set(profiles) == set(PROFILES)
    for name, (values, checks) in profiles.items():
        want = PROFILES[name]
        assert values[:3] == [want["max_examples"], want["deadline"], want["derandomize"]], name
        assert values[3] is want["print_blob"], name
        if "database" in want:   # else hypothesis's default, which depends on CI detection
            assert values[4] is (want["database"] is None), name
        assert checks == sorted(want["suppress_health_check"]), name


#: a plugin given to a fresh pytest with ``-p``: at the end of the session it prints whether
#: geonh's plugin was loaded, and the modules of geonh and its symbolic stack then imported
_PYTEST_PROBE = """
import json, sys

def pytest_sessionfinish(session):
    loaded = sorted(m for m in sys.modules if m.split('.')[0] in ('geonh', 'sympy', 'symengine', 'mpmath'))
    print('PROBE', json.dumps([session.config.pluginmanager.get_plugin('geonh') is not None, loaded]))
"""


def _pytest_start(tmp_path, *options: str) -> tuple[bool, list[str]]:
    """``python -m pytest --co -q`` on an empty directory in a fresh interpreter, plugins
    autoloaded as in any project of the environment: (geonh's plugin loaded, geonh/sympy modules
    imported).  ``benchmarks/pytest_start_cost.py`` times the same start."""
    (tmp_path / "_geonh_start_probe.py").write_text(_PYTEST_PROBE, encoding="utf-8")
    (tmp_path / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")   # no parent's ini or conftest.py is read
    (tmp_path / "empty").mkdir()
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "PYTEST_ADDOPTS", "PYTEST_PLUGINS", "GEONH_HYPOTHESIS_PROFILE")}
    proc = subprocess.run([sys.executable, "-m", "pytest", "--co", "-q", "-p", "no:cacheprovider",
                           "-p", "_geonh_start_probe", *options, "empty"],
                          capture_output=True, text=True, timeout=300, cwd=tmp_path, env=env)
    assert proc.returncode == pytest.ExitCode.NO_TESTS_COLLECTED, proc.stdout[-2000:] + proc.stderr[-2000:]
    line = next(line for line in proc.stdout.splitlines() if line.startswith("PROBE "))
    plugin, loaded = json.loads(line.split(" ", 1)[1])
    return plugin, loaded


def test_starting_pytest_imports_no_geonh(tmp_path):
    """pytest loads every ``pytest11`` entry point at start-up, in any project of the
    environment: geonh's plugin is loaded and imports neither geonh nor sympy (it did both, +0.4 s
    per pytest run, while the entry point was ``geonh.testing.plugin``; it is ``_geonh_pytest``).
    Run from a neutral directory, so the plugin's module is found as installed."""
    plugin, loaded = _pytest_start(tmp_path)
    assert plugin, "geonh's pytest11 entry point was not loaded (pip install -e . again?)"
    assert loaded == [], f"starting pytest imports {loaded[:8]} through geonh's pytest plugin"


@pytest.mark.slow
def test_lazy_names_are_the_eager_objects_and_dir_is_complete():
    """Every name of ``__all__`` is reachable, is the object of its home module, and appears
    in ``dir(geonh)``; the methods registered from above exist before their floor is loaded."""
    out = _fresh(
        "import json, sys, geonh\n"
        "from geonh.equations import Equations\n"
        "has = [hasattr(Equations, 'linearize'), callable(Equations.ode_function)]\n"
        "missing = sorted(set(geonh.__all__) - set(dir(geonh)))\n"
        "from geonh.numerics import simulate\n"
        "from geonh.analysis import energy_integral, linearize\n"
        "from geonh.sources import audit\n"
        "same = [geonh.simulate is simulate, geonh.energy_integral is energy_integral,\n"
        "        geonh.linearize is linearize, geonh.audit is audit,\n"
        "        geonh.models is sys.modules['geonh.models']]\n"
        "bad = [n for n in geonh.__all__ if getattr(geonh, n, None) is None]\n"
        "print(json.dumps([has, missing, same, bad]))")
    has, missing, same, bad = out
    assert has == [True, True]
    assert missing == [] and bad == []
    assert same == [True] * 5


def test_certify_forms_is_a_top_level_name():
    """``geonh.certify_forms`` is the certificate's ``certify_forms``, like ``geonh.same_motion``."""
    import geonh
    from geonh.analysis.certificate import certify_forms
    assert "certify_forms" in geonh.__all__ and geonh.certify_forms is certify_forms


def test_star_import_and_moved_names_after_lazy_loading():
    """``from geonh import *`` gives every public name; a moved name still raises MovedError
    (the lazy ``__getattr__`` passes it on to :func:`geonh.moved.package_getattr`)."""
    out = _fresh(
        "from geonh import *\n"
        "import json\n"
        "import geonh\n"
        "from geonh.errors import MovedError\n"
        "try:\n"
        "    geonh.cli\n"
        "    moved = 'no error'\n"
        "except MovedError as e:\n"
        "    moved = str(e)\n"
        "print(json.dumps([sorted(n for n in geonh.__all__ if n not in globals()), moved]))")
    missing, moved = out
    assert missing == []
    assert "geonh.app.cli" in moved
