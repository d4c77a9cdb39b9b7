"""Hypothesis profiles for geonh's symbolic property tests, and the pytest plugin that selects them.

Two profiles, registered whenever hypothesis is imported (the ``hypothesis`` entry point
calls :func:`register_profiles` through the small top-level module ``_geonh_hypothesis``, which
imports neither geonh nor sympy, so ``import hypothesis`` stays cheap in every project of the
environment; pytest's ``--hypothesis-profile`` and a conftest's ``settings.load_profile``
therefore find them):

``geonh-fast`` (CI)
    10 examples per test; no deadline (one symbolic example takes from milliseconds to
    seconds, and the first call of a test also pays for caches and compilation, so a
    deadline would only report noise); the ``too_slow`` and ``data_too_large`` health checks
    suppressed (drawing a system with its frame is slow by nature, and small systems are
    what the strategies shrink to); **derandomized**, so a CI run tests the same examples
    every time: a red build is reproducible from its log alone, and a pull request cannot
    turn red on an example it did not cause — finding new examples is the nightly profile's
    job; **no example database** (``database=None``): CI machines are fresh, a
    derandomized run would replay nothing it does not draw anyway, and no ``.hypothesis/``
    directory is written into the checkout; ``print_blob=True``, so a failure prints the
    ``@reproduce_failure`` line.
``geonh-thorough`` (nightly)
    300 examples per test, randomized (new examples every night), no deadline, the same
    health checks suppressed, and hypothesis's default directory database: an example that
    failed last night is replayed first in the next run until it passes; ``print_blob=True``.

The pytest plugin (entry point ``pytest11``, ``geonh = "geonh.testing.plugin"``) loads the
profile named by the environment variable ``GEONH_HYPOTHESIS_PROFILE`` (:data:`ENVIRONMENT`)
at ``pytest_configure``, unless

* hypothesis's own option ``--hypothesis-profile`` is given (it wins), or
* a profile other than the one hypothesis chose by itself is already loaded — by your
  conftest.py, say; your choice is kept and the report header says so.  Hypothesis chooses
  ``default``, or its own ``ci`` profile when it detects a CI service (the ``CI`` variable and
  the like); the variable overrides that automatic choice, since setting it is explicit.

Without the variable the plugin changes nothing.  It keeps pytest's start cheap: it imports
neither hypothesis nor geonh's strategies or properties unless the variable is set.
"""
from __future__ import annotations

import os
import sys
from typing import Any

import _geonh_hypothesis as _profiles   # the entry point's module (outside the package: no geonh import)

__all__ = ["ENVIRONMENT", "PROFILES", "register_profiles"]

#: the environment variable naming the profile to load
ENVIRONMENT = "GEONH_HYPOTHESIS_PROFILE"

#: the profiles' settings (hypothesis setting names; health checks by name); their one source is
#: ``_geonh_hypothesis``, the module of the hypothesis entry point
PROFILES: dict[str, dict[str, Any]] = _profiles.PROFILES

_STATUS_KEY = "geonh_hypothesis_status"


def register_profiles() -> None:
    """Register :data:`PROFILES` with hypothesis (idempotent; imports hypothesis)."""
    _profiles.register_profiles()


def _automatic_profiles() -> tuple[str, ...]:
    """The profiles hypothesis loads by itself: ``default``, and ``ci`` on a detected CI service."""
    try:
        from hypothesis._settings import is_in_ci   # hypothesis >= 6.131; private, hence guarded
    except ImportError:
        return ("default",)
    return ("default", "ci") if is_in_ci() else ("default",)


def _usage_error(message: str) -> Exception:
    """pytest's UsageError (a clean "ERROR: ..." line) when pytest runs, else NotFoundError."""
    pytest = sys.modules.get("pytest")   # the hooks run under pytest, which is loaded; never imported here
    if pytest is not None and hasattr(pytest, "UsageError"):
        return pytest.UsageError(message)
    from ..errors import NotFoundError
    return NotFoundError(message)


def pytest_configure(config) -> None:
    """Load the profile of ``GEONH_HYPOTHESIS_PROFILE`` (see the module docstring)."""
    name = os.environ.get(ENVIRONMENT, "").strip()
    if not name:
        return
    if config.getoption("--hypothesis-profile", default=None):
        setattr(config, _STATUS_KEY, f"{ENVIRONMENT}={name} ignored: --hypothesis-profile given")
        return
    from hypothesis import settings
    from hypothesis.errors import InvalidArgument

    register_profiles()
    current = settings.get_current_profile_name()
    if current not in _automatic_profiles():
        setattr(config, _STATUS_KEY, f"{ENVIRONMENT}={name} not loaded: profile {current!r} was loaded before "
                                     "(by a conftest.py); it is kept")
        return
    try:
        settings.load_profile(name)
    except InvalidArgument:
        raise _usage_error(f"{ENVIRONMENT}={name!r} names no registered hypothesis profile; geonh registers "
                           f"{', '.join(PROFILES)}") from None
    setattr(config, _STATUS_KEY, f"hypothesis profile {name!r} loaded from {ENVIRONMENT}")


def pytest_report_header(config) -> str | None:
    """One header line saying what the plugin did with ``GEONH_HYPOTHESIS_PROFILE``."""
    status = getattr(config, _STATUS_KEY, None)
    return f"geonh: {status}" if status else None
