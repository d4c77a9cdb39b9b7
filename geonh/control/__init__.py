"""Geometric control of nonholonomic systems (issue 25)."""
