"""What an :class:`~geonh.equations.Equations` can hold as its system.

Every system kind (:class:`~geonh.systems.MechanicalSystem`,
:class:`~geonh.systems.NonlinearSystem`, :class:`~geonh.systems.GaussSystem`,
:class:`~geonh.systems.HertzSpace`'s system) provides a configuration space and a sampler of
random states that satisfy its constraints; the certificate draws its states from it.
"""
from __future__ import annotations

import random
from typing import Iterable, Protocol, runtime_checkable

from ..kernel.space import ConfigurationSpace

__all__ = ["SystemLike"]


@runtime_checkable
class SystemLike(Protocol):
    """A system equations can be derived for: a space and consistent random states."""

    space: ConfigurationSpace

    def sample_state(self, rng: random.Random, extra_symbols: Iterable = ()) -> dict:
        """A random state {t, q, q̇, parameters} satisfying the velocity constraints."""
        ...
