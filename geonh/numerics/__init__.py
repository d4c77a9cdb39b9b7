"""Numerics: from symbolic equations to numbers.

:func:`first_order_function` compiles the explicit first-order system ẏ = f(t, y), y = (q, u),
for given parameter values (the mass matrix is solved numerically at every call);
:func:`simulate` integrates it with scipy's ``solve_ivp``.  Exact and 60-digit values at
single states come from :mod:`geonh.kernel.evaluation` and :meth:`geonh.Equations.accelerations`.
"""
from .ode import first_order_function, simulate

__all__ = ["first_order_function", "simulate"]
