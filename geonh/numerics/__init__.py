"""Numerics: from symbolic equations to numbers.

:func:`ode_function` (also ``eqs.ode_function``) compiles the explicit first-order system
ẏ = f(t, y), y = (q, u) (:mod:`geonh.numerics.compiled`, code from
:mod:`geonh.numerics.codegen`; the mass matrix is solved numerically at every call); :func:`simulate` integrates it with scipy and
returns a :class:`Trajectory` (named columns, multipliers, reactions, energy and constraint
residuals along the motion), checking the initial state against the constraints and
optionally projecting onto them (:mod:`geonh.numerics.constraints`).
:func:`first_order_function` is the older name of ``ode_function`` with every parameter given.
:func:`dla_integrate` is the structure-preserving alternative for linear nonholonomic
constraints: a discrete Lagrange–d'Alembert integrator (:mod:`geonh.numerics.dla`).
:func:`sweep` runs many simulations (or any per-point task) over a parameter grid, in this
process or on a Dask cluster (:mod:`geonh.numerics.sweep`).
``eqs.to_casadi()``, ``eqs.to_jax()`` and ``eqs.to_c()`` export the same right-hand side, an
outputs map and Jacobians to CasADi, JAX and self-contained C (:mod:`geonh.numerics.export`).
Exact and 60-digit values at single states come from :mod:`geonh.kernel.evaluation` and
:meth:`geonh.Equations.accelerations`.
"""
from .compiled import ODEFunction, Observable, ode_function
from . import accelerations as _accelerations  # noqa: F401 - registers the compiled Equations.accelerations
from . import export as _export  # noqa: F401 - registers Equations.to_casadi, to_jax, to_c (no casadi/jax import)
from .constraints import ConstraintSet, metric_of, velocity_constraints
from .dla import RULES, DLAScheme, DLATrajectory, dla_integrate, dla_scheme
from .sweep import SweepResult, sweep
from .ode import first_order_function, simulate
from .trajectory import Trajectory

__all__ = ["ode_function", "ODEFunction", "Observable", "first_order_function", "simulate", "Trajectory", "ConstraintSet", "velocity_constraints",
           "metric_of", "dla_integrate", "dla_scheme", "DLATrajectory", "DLAScheme", "RULES",
           "sweep", "SweepResult"]
