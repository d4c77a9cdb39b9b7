"""geonh's pytest plugin (entry point pytest11, plugin name geonh, hooks in the top-level module
_geonh_pytest, names in geonh.testing.plugin): hypothesis profiles geonh-fast and geonh-thorough,
chosen by GEONH_HYPOTHESIS_PROFILE, never over a profile a conftest loaded, and hypothesis's own
--hypothesis-profile respected; ``-p no:geonh`` turns it off, ``-p geonh`` on without autoload.
Each case runs pytest in a subprocess (pytester)."""
from __future__ import annotations

import pytest

from geonh.testing import plugin

pytest_plugins = ["pytester"]

PROBE = """
import sys
HYPOTHESIS_AT_COLLECTION = "hypothesis" in sys.modules

def test_probe():
    from hypothesis import settings
    print("PROFILE", settings.get_current_profile_name(), settings.default.max_examples,
          settings.default.derandomize, settings.default.database, settings.default.deadline)
    print("HYPOTHESIS_AT_COLLECTION", HYPOTHESIS_AT_COLLECTION)
"""


@pytest.fixture(params=[False, True], ids=["local", "on-ci"])
def on_ci(request, monkeypatch):
    """Run each case twice: with every variable by which hypothesis detects a CI service removed,
    and with ``CI=true`` (there hypothesis loads its own ``ci`` profile by itself)."""
    from hypothesis._settings import _CI_VARS

    for key in _CI_VARS:
        monkeypatch.delenv(key, raising=False)
    if request.param:
        monkeypatch.setenv("CI", "true")
    return request.param


def _run(pytester, *args):
    pytester.makepyfile(test_probe=PROBE)
    return pytester.runpytest_subprocess("-s", "-p", "no:cacheprovider", *args)


def _line(result, key):
    line = next(line for line in result.outlines if key + " " in line)
    return line.split(key + " ", 1)[1].split()


@pytest.mark.slow
def test_environment_variable_loads_the_fast_profile(pytester, monkeypatch, on_ci):
    monkeypatch.setenv(plugin.ENVIRONMENT, "geonh-fast")
    result = _run(pytester)
    result.assert_outcomes(passed=1)
    assert _line(result, "PROFILE") == ["geonh-fast", "10", "True", "None", "None"]
    result.stdout.fnmatch_lines(["geonh: hypothesis profile 'geonh-fast' loaded from GEONH_HYPOTHESIS_PROFILE"])


@pytest.mark.slow
def test_without_the_variable_nothing_changes_and_hypothesis_is_not_imported(pytester, monkeypatch, on_ci):
    monkeypatch.delenv(plugin.ENVIRONMENT, raising=False)
    result = _run(pytester)
    result.assert_outcomes(passed=1)
    assert _line(result, "PROFILE")[0] == ("ci" if on_ci else "default")   # hypothesis's own choice
    assert _line(result, "HYPOTHESIS_AT_COLLECTION") == ["False"]   # pytest's start stays cheap
    assert not any(line.startswith("geonh:") for line in result.outlines)


@pytest.mark.slow
def test_a_profile_loaded_by_the_conftest_is_kept(pytester, monkeypatch, on_ci):
    monkeypatch.setenv(plugin.ENVIRONMENT, "geonh-thorough")
    pytester.makeconftest("from hypothesis import settings\n"
                          "settings.register_profile('mine', max_examples=7)\nsettings.load_profile('mine')\n")
    result = _run(pytester)
    result.assert_outcomes(passed=1)
    assert _line(result, "PROFILE")[:2] == ["mine", "7"]
    result.stdout.fnmatch_lines(["geonh: GEONH_HYPOTHESIS_PROFILE=geonh-thorough not loaded: profile 'mine'*kept"])


@pytest.mark.slow
def test_hypothesis_option_wins_and_finds_the_geonh_profiles(pytester, monkeypatch, on_ci):
    monkeypatch.setenv(plugin.ENVIRONMENT, "geonh-fast")
    result = _run(pytester, "--hypothesis-profile", "geonh-thorough")
    result.assert_outcomes(passed=1)
    assert _line(result, "PROFILE")[:3] == ["geonh-thorough", "300", "False"]
    result.stdout.fnmatch_lines(["geonh: GEONH_HYPOTHESIS_PROFILE=geonh-fast ignored: --hypothesis-profile given"])


@pytest.mark.slow
def test_the_plugin_is_named_geonh(pytester, monkeypatch, on_ci):
    """``-p no:geonh`` turns the plugin off; with plugin autoloading off, ``-p geonh`` (the entry
    point's name) turns it on."""
    monkeypatch.setenv(plugin.ENVIRONMENT, "geonh-fast")
    off = _run(pytester, "-p", "no:geonh")
    off.assert_outcomes(passed=1)
    assert _line(off, "PROFILE")[0] == ("ci" if on_ci else "default")
    assert not any(line.startswith("geonh:") for line in off.outlines)
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    on = _run(pytester, "-p", "geonh")
    on.assert_outcomes(passed=1)
    assert _line(on, "PROFILE")[:2] == ["geonh-fast", "10"]
    on.stdout.fnmatch_lines(["geonh: hypothesis profile 'geonh-fast' loaded from GEONH_HYPOTHESIS_PROFILE"])


@pytest.mark.slow
def test_an_unknown_profile_is_a_usage_error(pytester, monkeypatch, on_ci):
    monkeypatch.setenv(plugin.ENVIRONMENT, "geonh-fats")
    result = _run(pytester)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*GEONH_HYPOTHESIS_PROFILE='geonh-fats' names no registered hypothesis profile*"])


def test_profiles_are_registered_when_hypothesis_is_imported():
    from hypothesis import settings

    plugin.register_profiles()
    fast, thorough = settings.get_profile("geonh-fast"), settings.get_profile("geonh-thorough")
    assert fast.deadline is None and fast.derandomize and fast.database is None and fast.max_examples == 10
    assert thorough.deadline is None and not thorough.derandomize and thorough.max_examples == 300
