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

The pytest plugin (plugin name ``geonh``) loads the profile named by the environment variable
``GEONH_HYPOTHESIS_PROFILE`` (:data:`ENVIRONMENT`) at ``pytest_configure``, unless

* hypothesis's own option ``--hypothesis-profile`` is given (it wins), or
* a profile other than the one hypothesis chose by itself is already loaded — by your
  conftest.py, say; your choice is kept and the report header says so.  Hypothesis chooses
  ``default``, or its own ``ci`` profile when it detects a CI service (the ``CI`` variable and
  the like); the variable overrides that automatic choice, since setting it is explicit.

Without the variable the plugin changes nothing.  ``-p no:geonh`` turns it off, and ``-p geonh``
turns it on when ``PYTEST_DISABLE_PLUGIN_AUTOLOAD`` is set.

The hooks live outside the package, in the small top-level module ``_geonh_pytest`` (entry point
``pytest11``, ``geonh = "_geonh_pytest"``): pytest loads every ``pytest11`` module at start-up in
every project of the environment, and a module of this package would run ``geonh/__init__.py``
and import sympy there (about a quarter of a second per pytest start).  ``_geonh_pytest``
imports only the standard library and ``_geonh_hypothesis``, and hypothesis only when the
variable is set.  This module is the public home of the plugin's names; it defines no hooks
itself (listing it in ``-p`` or ``pytest_plugins`` adds nothing).
"""
from __future__ import annotations

from typing import Any

import _geonh_hypothesis as _profiles   # the hypothesis entry point's module (outside the package: no geonh import)
import _geonh_pytest as _hooks          # the pytest entry point's module (likewise)

__all__ = ["ENVIRONMENT", "PROFILES", "register_profiles"]

#: the environment variable naming the profile to load; its one source is ``_geonh_pytest``,
#: the module of the pytest entry point
ENVIRONMENT: str = _hooks.ENVIRONMENT

#: the profiles' settings (hypothesis setting names; health checks by name); their one source is
#: ``_geonh_hypothesis``, the module of the hypothesis entry point
PROFILES: dict[str, dict[str, Any]] = _profiles.PROFILES


def register_profiles() -> None:
    """Register :data:`PROFILES` with hypothesis (idempotent; imports hypothesis)."""
    _profiles.register_profiles()
