"""Testing helpers for geonh users: hypothesis strategies for property-based tests.

``from geonh.testing import strategies as gst`` gives random configuration spaces, functions,
vector fields, forms, frames (guaranteed independent), distributions and codistributions, and
whole systems with their adapted frames and consistent states (:mod:`geonh.testing.systems`);
see :mod:`geonh.testing.strategies`.  :func:`geonh.testing.source.source` writes any drawn
object as Python that rebuilds it, the form in which hypothesis prints counterexamples.
"""
from . import strategies

__all__ = ["strategies"]
