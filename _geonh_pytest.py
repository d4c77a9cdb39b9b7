"""geonh's pytest plugin (entry point ``pytest11``, plugin name ``geonh``) — without importing geonh.

pytest loads the module of every ``pytest11`` entry point when it starts, in every project of
an environment where geonh is installed, used or not.  geonh's entry point therefore points
here, to a top-level module shipped in geonh's distribution that imports only the standard
library and ``_geonh_hypothesis`` (the profiles' one source): a module inside the package
(``geonh.testing.plugin``, the entry point until session 18) would first run
``geonh/__init__.py`` and so import sympy — about a quarter of a second and every side effect
of geonh's import, paid by each pytest run of an unrelated project
(``benchmarks/pytest_start_cost.py`` measures it).  The hooks import hypothesis only when ``GEONH_HYPOTHESIS_PROFILE`` is set.

The hooks: :func:`pytest_configure` loads the profile named by ``GEONH_HYPOTHESIS_PROFILE``
unless hypothesis's option ``--hypothesis-profile`` is given or a profile other than the one
hypothesis chose by itself (``default``, or ``ci`` on a detected CI service) is already loaded,
by a conftest.py say; :func:`pytest_report_header` says what it did.  ``-p no:geonh`` turns
the plugin off; ``-p geonh`` turns it on under ``PYTEST_DISABLE_PLUGIN_AUTOLOAD``.

This module is not for users: the public names are in :mod:`geonh.testing.plugin`, which
documents the profiles and the variable and re-exports :data:`ENVIRONMENT`.
"""
from __future__ import annotations

import os
import sys
from typing import Any

import _geonh_hypothesis

__all__ = ["ENVIRONMENT", "pytest_configure", "pytest_report_header"]

#: the environment variable naming the profile to load; documented in geonh.testing.plugin
ENVIRONMENT = "GEONH_HYPOTHESIS_PROFILE"

_STATUS_KEY = "geonh_hypothesis_status"


def _automatic_profiles() -> tuple[str, ...]:
    """The profiles hypothesis loads by itself: ``default``, and ``ci`` on a detected CI service."""
    try:
        from hypothesis._settings import is_in_ci   # hypothesis >= 6.131; private, hence guarded
    except ImportError:
        return ("default",)
    return ("default", "ci") if is_in_ci() else ("default",)


def _usage_error(message: str) -> Exception:
    """pytest's UsageError, which pytest reports as one ``ERROR: ...`` line (exit code 4).

    The hooks run only inside pytest, whose start-up has imported ``pytest`` by the time
    ``pytest_configure`` is called; pytest is no dependency of geonh, so it is looked up in
    ``sys.modules``, never imported here."""
    return sys.modules["pytest"].UsageError(message)


def pytest_configure(config: Any) -> None:
    """Load the profile of ``GEONH_HYPOTHESIS_PROFILE`` (see the module docstring).

    ``config`` is pytest's ``Config``."""
    name = os.environ.get(ENVIRONMENT, "").strip()
    if not name:
        return
    if config.getoption("--hypothesis-profile", default=None):
        setattr(config, _STATUS_KEY, f"{ENVIRONMENT}={name} ignored: --hypothesis-profile given")
        return
    from hypothesis import settings
    from hypothesis.errors import InvalidArgument

    _geonh_hypothesis.register_profiles()
    current = settings.get_current_profile_name()
    if current not in _automatic_profiles():
        setattr(config, _STATUS_KEY, f"{ENVIRONMENT}={name} not loaded: profile {current!r} was loaded before "
                                     "(by a conftest.py); it is kept")
        return
    try:
        settings.load_profile(name)
    except InvalidArgument:
        raise _usage_error(f"{ENVIRONMENT}={name!r} names no registered hypothesis profile; geonh registers "
                           f"{', '.join(_geonh_hypothesis.PROFILES)}") from None
    setattr(config, _STATUS_KEY, f"hypothesis profile {name!r} loaded from {ENVIRONMENT}")


def pytest_report_header(config: Any) -> str | None:
    """One header line saying what the plugin did with ``GEONH_HYPOTHESIS_PROFILE``."""
    status = getattr(config, _STATUS_KEY, None)
    return f"geonh: {status}" if status else None
