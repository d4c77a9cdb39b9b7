"""The result of :func:`geonh.simulate`: a :class:`Trajectory`.

Immutable (frozen; its arrays are read-only :class:`numpy.ndarray` objects) and column-named: ``traj.t``; ``traj.q`` (one
row per time, columns ``traj.q_names``) and ``traj.u`` (columns ``traj.u_names``);
``traj["theta"]`` is one column by name; ``traj.y`` is scipy's layout (state × time) so code
written for :func:`~scipy.integrate.solve_ivp` keeps working.  Computed on first access, with the compiled
right-hand side and the parameters of the run: ``qdot`` (= K(t, q, u)), ``unknowns``
(u̇ and λ), ``multipliers`` (λ), ``reactions`` (the :attr:`Equations.reactions`),
``energy`` (T + V), ``constraint_residuals`` (φ(t, q, q̇) of each velocity constraint).
``raw`` is scipy's own result (``solve_ivp``'s OdeResult, or the same fields when the run
was projected step by step); ``sol`` is its dense output (``None`` unless asked for).

Pickling.  A trajectory pickles as plain data (to another process, a Dask worker's result, a
file): its arrays, scipy's result, every quantity already computed, and the recipe of its
right-hand side (the :class:`~geonh.Equations`, the parameter values and the backend) in place
of the compiled code, which does not travel.  The unpickled trajectory has the same numbers; it
recompiles its ``function`` only when something needs it (``energy``, ``multipliers``, … not
computed before pickling).  ``copy.copy`` and ``copy.deepcopy`` return the trajectory itself:
it is immutable.

Signs.  Lagrange's multipliers follow CONVENTIONS.md: the reaction force is
R_i = +λ_κ A_κi = +λ_κ ∂φ^κ/∂q̇^i — the opposite sign of sympy's ``LagrangesMethod`` —
and ``reactions`` of the Lagrange form are these R_i.  Maggi's ``reactions`` are his Λ_κ,
the multipliers of the frame's constraint forms (R_i = Λ_κ θ^κ_i).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np
import sympy as sp

from .compiled import ODEFunction
from ..errors import AttributeAccessError, NotFoundError, UnknownCoordinateError
from ..kernel.display import html_table, short_number
from ..kernel.parsing import as_floats, sympy_of
from ..systems.mechanical import MechanicalSystem
from ..systems.nonlinear import NonlinearSystem
from .constraints import ConstraintSet

__all__ = ["Trajectory"]

#: the notebook display of a Trajectory lists at most this many state variables
MOST_ROWS = 12


def _frozen(a) -> np.ndarray:
    a = np.array(as_floats(a, "trajectory data"), dtype=float)
    a.flags.writeable = False
    return a


@dataclass(frozen=True, eq=False)
class Trajectory:
    """A simulated motion (module doc).  ``t`` (k,), ``y`` (n_q + n_u, k) as scipy's,
    ``q`` (k, n_q), ``u`` (k, n_u); ``function`` the compiled right-hand side; ``projected``
    whether the velocities were projected onto the constraints after every step."""

    t: np.ndarray
    y: np.ndarray
    function: ODEFunction = field(repr=False)
    raw: Any = field(repr=False)
    projected: bool = False
    constraints: ConstraintSet | None = field(default=None, repr=False)

    def __post_init__(self):
        object.__setattr__(self, "t", _frozen(self.t))
        object.__setattr__(self, "y", _frozen(self.y))
        # the layout, kept apart from the compiled function so that an unpickled trajectory
        # answers everything but computed quantities without recompiling
        object.__setattr__(self, "_names", self.function.state_names)
        object.__setattr__(self, "_nq", self.function.n_q)
        object.__setattr__(self, "_equations", self.function.equations)

    # -- the state ---------------------------------------------------------------------------------
    @property
    def equations(self):
        return self._equations

    @property
    def q_names(self) -> tuple[str, ...]:
        return self._names[:self._nq]

    @property
    def u_names(self) -> tuple[str, ...]:
        return self._names[self._nq:]

    @property
    def q(self) -> np.ndarray:
        """Coordinates, one row per time (columns :attr:`q_names`)."""
        return self.y[:self._nq].T

    @property
    def u(self) -> np.ndarray:
        """Speeds, one row per time (columns :attr:`u_names`)."""
        return self.y[self._nq:].T

    @property
    def states(self) -> np.ndarray:
        """(q, u) rows, shape (k, n_q + n_u)."""
        return self.y.T

    @property
    def success(self) -> bool:
        return bool(self.raw.success)

    @property
    def status(self) -> int:
        return int(self.raw.status)

    @property
    def message(self) -> str:
        return str(self.raw.message)

    @property
    def sol(self):
        """scipy's dense output (an OdeSolution), or None."""
        return self.raw.get("sol") if hasattr(self.raw, "get") else getattr(self.raw, "sol", None)

    @property
    def nfev(self) -> int:
        return int(self.raw.nfev)

    def __len__(self) -> int:
        return len(self.t)

    def __getitem__(self, name: str) -> np.ndarray:
        """One column by name: a coordinate, a speed, "t", a multiplier name, "energy"."""
        if name == "t":
            return self.t
        names = self._names
        if name in names:
            return self.y[names.index(name)]
        lam = [s.name for s in self.equations.lam_vec]
        if name in lam:
            return self.multipliers[:, lam.index(name)]
        if name == "energy":
            return self.energy
        raise UnknownCoordinateError(f"no column {name!r}; columns: {', '.join(('t',) + names + tuple(lam))}")

    def as_dict(self) -> dict[str, np.ndarray]:
        """{"t": t, name: column} for the coordinates and speeds."""
        out = {"t": self.t}
        out.update({n: self.y[i] for i, n in enumerate(self._names)})
        return out

    # -- computed along the motion -----------------------------------------------------------------
    @cached_property
    def qdot(self) -> np.ndarray:
        """q̇ = K(t, q, u), one row per time."""
        f = self.function
        return _frozen(f.batch(self.t, self.states)[:, :f.n_q])

    @cached_property
    def unknowns(self) -> np.ndarray:
        """x = (u̇, λ) of M x = F, one row per time (columns ``equations.unknowns``)."""
        return _frozen(self.function.batch_unknowns(self.t, self.states))

    @cached_property
    def multipliers(self) -> np.ndarray:
        """Lagrange's multipliers λ (sign of CONVENTIONS.md: R_i = +λ_κ A_κi), one row per
        time; no columns for a form without multipliers."""
        return _frozen(self.unknowns[:, len(self.equations.ud):])

    @cached_property
    def reactions(self) -> np.ndarray:
        """:attr:`Equations.reactions` along the motion, one row per time (Lagrange: the
        reaction forces R_i = λ_κ A_κi; Maggi: his Λ_κ)."""
        eqs = self.equations
        if not eqs.reactions:
            raise NotFoundError(f"the {eqs.form} equations carry no reactions (Lagrange's and Maggi's do)")
        g = self.function.observable(list(eqs.reactions), unknowns=True, what="the reactions")
        return _frozen(g.batch(self.t, self.states))

    @cached_property
    def energy(self) -> np.ndarray:
        """T + V along the motion (T at q̇ = K(t, q, u))."""
        system = self.equations.system
        if isinstance(system, (MechanicalSystem, NonlinearSystem)):
            T, V = system.T, getattr(system, "V", sp.S.Zero)
        else:
            raise NotFoundError(f"{type(system).__name__} has no kinetic and potential energy T + V "
                                "(a Gauss system has forces f, not a potential)")
        S = self.equations.space
        E = (sympy_of(T) + sympy_of(V)).xreplace(dict(zip(S.qd, self.equations.kinematics)))
        g = self.function.observable([E], what="the energy")
        return _frozen(g.batch(self.t, self.states)[:, 0])

    @cached_property
    def constraint_residuals(self) -> np.ndarray:
        """φ(t, q, q̇) of every velocity constraint, one row per time (columns
        ``constraints.names``)."""
        cons = self.constraints if self.constraints is not None else ConstraintSet(self.function)
        return _frozen(cons.residuals_batch(self.t, self.states))

    # -- pickling: plain data (module doc) ------------------------------------------------------
    def __reduce__(self):
        state = {k: v for k, v in self.__dict__.items() if k not in ("function", "constraints")}
        if "_recipe" not in state:
            state["_recipe"] = self.function._recipe()
        state["constraints"] = None  # rebuilt from the function when needed
        return _restore, (state,)

    def __copy__(self) -> "Trajectory":
        return self

    def __deepcopy__(self, memo) -> "Trajectory":
        return self

    def __getattr__(self, name: str):
        """Only reached for a missing attribute: the function of an unpickled trajectory,
        recompiled from its recipe on first use."""
        recipe = self.__dict__.get("_recipe")
        if name == "function" and recipe is not None:
            f = ODEFunction._rebuild(recipe)
            object.__setattr__(self, "function", f)
            return f
        raise AttributeAccessError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def __repr__(self) -> str:
        return (f"Trajectory({self.equations.form}: {len(self.t)} times in [{self.t[0]:g}, {self.t[-1]:g}], "
                f"y = {list(self._names)}{', projected' if self.projected else ''})")

    def _repr_html_(self) -> str:
        """Jupyter: the form, the time span and each state variable's first and last value."""
        rows: list = [("form", self.equations.form), ("times", f"{len(self.t)} in [{self.t[0]:g}, {self.t[-1]:g}]")]
        if self.projected:
            rows.append(("projected", "yes"))
        for i, name in enumerate(list(self._names)[:MOST_ROWS]):
            rows.append((name, f"{short_number(self.y[i, 0])} → {short_number(self.y[i, -1])}"))
        if len(self._names) > MOST_ROWS:
            rows.append(("…", f"{len(self._names) - MOST_ROWS} more state variables"))
        return html_table(rows, caption="Trajectory")


def _restore(state: dict) -> Trajectory:
    """A pickled :class:`Trajectory` (its ``function`` recompiled on first use)."""
    traj = object.__new__(Trajectory)
    traj.__dict__.update(state)
    return traj
