"""Testing helpers for geonh users: hypothesis strategies for property-based tests.

``from geonh.testing import strategies as gst`` gives random configuration spaces, functions,
vector fields, forms, frames (guaranteed independent), distributions and codistributions; see
:mod:`geonh.testing.strategies`.
"""
from . import strategies

__all__ = ["strategies"]
