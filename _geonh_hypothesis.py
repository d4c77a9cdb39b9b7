"""geonh's hypothesis profiles, registered when hypothesis is imported — without importing geonh.

Hypothesis calls every function of the ``hypothesis`` entry-point group at the end of its own
``import hypothesis`` (unless ``HYPOTHESIS_NO_PLUGINS`` is set), in every project of an
environment where geonh is installed.  geonh's entry point (``geonh-profiles``) therefore
points here, to a top-level module shipped in geonh's distribution that imports only the
standard library and hypothesis: the hook of a module inside the package (``geonh.testing.plugin``)
would first run ``geonh/__init__.py`` and so import sympy — about a third of a second and every
side effect of geonh's import, paid by each ``import hypothesis`` of an unrelated project
(``benchmarks/hypothesis_import_cost.py`` measures it).

This module is not for users: the public names are :data:`geonh.testing.plugin.PROFILES` and
:func:`geonh.testing.plugin.register_profiles`, which are these.
"""
from __future__ import annotations

from typing import Any

__all__ = ["PROFILES", "register_profiles"]

#: the profiles' settings (hypothesis setting names; health checks by name); documented in
#: geonh.testing.plugin
PROFILES: dict[str, dict[str, Any]] = {
    "geonh-fast": {"max_examples": 10, "deadline": None, "derandomize": True, "database": None,
                   "suppress_health_check": ("too_slow", "data_too_large"), "print_blob": True},
    "geonh-thorough": {"max_examples": 300, "deadline": None, "derandomize": False,
                       "suppress_health_check": ("too_slow", "data_too_large"), "print_blob": True},
}


def register_profiles() -> None:
    """Register the geonh profiles with hypothesis (idempotent; imports hypothesis, nothing of geonh)."""
    from hypothesis import HealthCheck, settings

    for name, values in PROFILES.items():
        kw = dict(values)
        kw["suppress_health_check"] = [HealthCheck[h] for h in values["suppress_health_check"]]
        settings.register_profile(name, **kw)
