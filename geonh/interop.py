"""Interop with sympy.physics.mechanics and pydy: bring a ``KanesMethod`` (or a sympy
``System``) set-up into geonh, and take geonh's equations back out.

- :func:`from_kanes_method` reads the coordinates q, the speeds u, the kinematic differential
  equations, the bodies, the loads and the velocity constraints of a ``KanesMethod`` or a
  ``sympy.physics.mechanics.System`` and builds a :class:`~geonh.systems.MechanicalSystem`
  (through :meth:`MechanicalSystem.from_mechanics`).  geonh works in q and q̇: the speeds are
  eliminated by solving the kinematic differential equations for u = u(q, q̇).
- :func:`to_sympy` turns any geonh :class:`~geonh.equations.Equations` into a
  :class:`SympyEquations`: q, u, kdes, mass matrix and forcing (also the "full" ones) in
  dynamicsymbols, as a sympy.physics.mechanics user knows them from ``KanesMethod``.
- :func:`to_pydy_system` wraps those in a ``pydy.system.System`` (pydy must be installed), for
  pydy's code generation and integration.

This module sits on top of the layers (beside :mod:`geonh.cli`); nothing below imports it.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

import sympy as sp

from .equations.base import Equations
from .errors import DimensionError, GeonhError, NotLinearError, ParseError
from .kernel.generic_point import lu_solve
from .kernel.parsing import as_floats, as_mapping, sympy_of
from .systems.mechanical import MechanicalSystem

__all__ = ["from_kanes_method", "to_sympy", "to_pydy_system", "SympyEquations"]


# ----------------------------------------------------------------------------------------------
# sympy.physics.mechanics -> geonh
# ----------------------------------------------------------------------------------------------
class _Energy:
    """A body seen only through its kinetic energy (``from_mechanics``'s fallback)."""

    def __init__(self, T):
        self._T = T

    def kinetic_energy(self, frame):
        return self._T


class _Location:
    """A load's point or frame with its velocity rewritten in q̇ (for ``from_mechanics``)."""

    def __init__(self, original, frame, rep):
        if hasattr(original, "vel"):
            self.vel = lambda f, v=original.vel(frame).xreplace(rep): v
        else:
            self.ang_vel_in = lambda f, w=original.ang_vel_in(frame).xreplace(rep): w


def _setup(km, frame):
    """(q, u, kdes as expressions = 0, bodies, loads, frame, velocity constraints = 0,
    configuration constraints) of a KanesMethod or a sympy System."""
    q, u = list(km.q), list(km.u)
    if hasattr(km, "kindiffdict") and not hasattr(km, "form_eoms"):  # KanesMethod
        try:
            kd = km.kindiffdict()
        except AttributeError as exc:
            raise GeonhError(f"the KanesMethod has no kinematic differential equations: {exc}") from None
        kdes = [qd - rhs for qd, rhs in kd.items()]
        bodies = list(getattr(km, "bodies", None) or [])
        loads = list(getattr(km, "loads", None) or [])
        frame = frame if frame is not None else getattr(km, "_inertial", None)
        k_nh, f_nh = getattr(km, "_k_nh", sp.Matrix()), getattr(km, "_f_nh", sp.Matrix())
        vel = list(k_nh * sp.Matrix(u) + f_nh) if k_nh.shape[0] else []
        config = list(getattr(km, "_f_h", sp.Matrix()))
    else:  # sympy.physics.mechanics.System
        kdes = list(km.kdes)
        bodies, loads = list(km.bodies), list(km.loads)
        frame = frame if frame is not None else km.frame
        vel = list(km.nonholonomic_constraints)
        config = list(km.holonomic_constraints)
    if frame is None:
        raise GeonhError("the set-up names no inertial frame: pass frame=")
    if not bodies:
        raise GeonhError("the set-up has no bodies: build the KanesMethod with bodies=[...] (or pass a System)")
    return q, u, kdes, bodies, loads, frame, vel, config


def _speeds_from_kdes(q, u, kdes):
    """{u_j: u_j(q, q̇)} from the kinematic differential equations (linear in u)."""
    t = _t()
    if len(kdes) != len(q) or len(u) != len(q):
        raise DimensionError(f"{len(q)} coordinates, {len(u)} speeds and {len(kdes)} kinematic differential "
                             "equations: geonh needs one speed per coordinate (dependent speeds included)")
    K = sp.Matrix(kdes)
    A = K.jacobian(u)
    if K.has(*[x.diff(t) for x in u]):
        raise NotLinearError("the kinematic differential equations involve u̇")
    b = -K.xreplace({s: 0 for s in u})
    if any(A[i, j].has(*u) for i in range(A.rows) for j in range(A.cols)):
        raise NotLinearError("the kinematic differential equations are not linear in the speeds u")
    sol = lu_solve(A, b, what="∂kdes/∂u")
    return {s: sp.simplify(v) for s, v in zip(u, sol)}


def from_kanes_method(km, *, frame=None, potential=0, time: bool = False, name: str = "") -> MechanicalSystem:
    """A :class:`~geonh.systems.MechanicalSystem` from a sympy ``KanesMethod`` (built with
    ``bodies=`` and ``forcelist=``) or a ``sympy.physics.mechanics.System``.

    Reads q, u, the kinematic differential equations (solved for u = u(q, q̇); they must be
    linear in u, one speed per coordinate), the bodies (T = Σ body.kinetic_energy), the loads
    (generalized forces) and the velocity constraints, all rewritten in q and q̇; the inertial
    frame is the set-up's own unless ``frame`` is given.  ``potential``: V in dynamicsymbols
    (loads already carry gravity if the set-up has it; do not give both).  The result is built
    by :meth:`MechanicalSystem.from_mechanics`.  Configuration (holonomic) constraints of the
    set-up are refused (``GeonhError``): give them to :class:`MechanicalSystem` directly."""
    q, u, kdes, bodies, loads, frame, vel, config = _setup(km, frame)
    if config:
        raise GeonhError(f"configuration constraints {config} are not read from a KanesMethod set-up; "
                         "build the MechanicalSystem with holonomic=[...]")
    rep = _speeds_from_kdes(q, u, kdes)
    T = sum((b.kinetic_energy(frame) for b in bodies), sp.S.Zero)
    energy = [_Energy(sp.expand(T.xreplace(rep)))]
    new_loads = [(_Location(loc, frame, rep), vec.xreplace(rep)) for loc, vec in loads]
    constraints = [sp.expand(c.xreplace(rep)) for c in vel]
    return MechanicalSystem.from_mechanics(q, energy, frame, loads=new_loads, constraints=constraints,
                                           potential=potential, time=time, name=name)


# ----------------------------------------------------------------------------------------------
# geonh -> sympy.physics.mechanics
# ----------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class SympyEquations:
    """geonh's equations in sympy.physics.mechanics' vocabulary, in dynamicsymbols of t:
    ``mass_matrix · unknowns = forcing`` with ``kdes`` (q' − K(t, q, u) = 0).

    Attributes
    ----------
    form : the geonh form the equations come from.
    q, u : coordinates and speeds as dynamicsymbols (column matrices).
    kdes : kinematic differential equations q' − K = 0.
    unknowns : u' and, for multiplier forms, the multipliers λ (dynamicsymbols).
    mass_matrix, forcing : M and F of M · unknowns = F.
    mass_matrix_full, forcing_full : block diag(I, M) and (K, F) acting on (q', unknowns).
    constants : the parameters (the free symbols other than t).
    """

    form: str
    q: sp.Matrix
    u: sp.Matrix
    kdes: sp.Matrix
    unknowns: sp.Matrix
    mass_matrix: sp.Matrix
    forcing: sp.Matrix
    mass_matrix_full: sp.Matrix
    forcing_full: sp.Matrix
    constants: tuple = field(default=())

    def kindiffdict(self) -> dict:
        """{q': K(t, q, u)}, as ``KanesMethod.kindiffdict()``."""
        t = _t()
        return {qi.diff(t): sp.solve(kde, qi.diff(t))[0] for qi, kde in zip(self.q, self.kdes)}

    def rhs(self) -> sp.Matrix:
        """(q', u') explicitly (M solved by LU; may be large), as ``KanesMethod.rhs()``."""
        t = _t()
        kd = self.kindiffdict()
        sol = self.mass_matrix.LUsolve(self.forcing)
        return sp.Matrix([kd[qi.diff(t)] for qi in self.q]).col_join(sol[:len(self.u), :])


def _t():
    from sympy.physics.mechanics import dynamicsymbols
    return dynamicsymbols._t


def to_sympy(eqs: Equations) -> SympyEquations:
    """geonh :class:`~geonh.equations.Equations` as a :class:`SympyEquations` in dynamicsymbols:
    every coordinate q_i becomes q_i(t), every speed u_j a dynamicsymbol u_j(t) of the same name
    (for Lagrange's form the speeds are the velocities, named like ``x_dot``), u̇_j becomes
    u_j'(t) and each multiplier λ a dynamicsymbol."""
    t = _t()
    S = eqs.space
    speeds = [sp.Function(s.name)(t) for s in eqs.u]
    rep = {s: f for s, f in zip(eqs.u, speeds)}
    rep.update({sd: f.diff(t) for sd, f in zip(eqs.ud, speeds)})
    lams = [sp.Function(s.name)(t) for s in eqs.lam_vec]
    rep.update(dict(zip(eqs.lam_vec, lams)))
    time = getattr(S, "t", None)
    if isinstance(time, sp.Symbol) and time != t:
        rep[time] = t

    def conv(e):
        return S.to_dynamic(sympy_of(e).xreplace(rep))

    q = sp.Matrix(list(S.dynamicsymbols()))
    n = len(eqs.kinematics)
    K = sp.Matrix([conv(k) for k in eqs.kinematics])
    qd = sp.Matrix([qi.diff(t) for qi in q[:n]])
    M = eqs.mass_matrix.applyfunc(conv)
    F = eqs.forcing.applyfunc(conv)
    full_M = sp.diag(sp.eye(n), M)
    full_F = K.col_join(F)
    params = set()
    for e in list(M) + list(F) + list(K):
        params |= {s for s in e.free_symbols if s != t}
    return SympyEquations(form=eqs.form, q=q[:n, :], u=sp.Matrix(speeds), kdes=qd - K,
                          unknowns=sp.Matrix([f.diff(t) for f in speeds] + lams),
                          mass_matrix=M, forcing=F, mass_matrix_full=full_M, forcing_full=full_F,
                          constants=tuple(sorted(params, key=lambda s: s.name)))


class _PydyMethod:
    """The parts of a KanesMethod that ``pydy.system.System`` reads."""

    def __init__(self, se: SympyEquations):
        t = _t()
        self.q, self.u = se.q, se.u
        self.mass_matrix, self.forcing = se.mass_matrix, se.forcing
        self.mass_matrix_full, self.forcing_full = se.mass_matrix_full, se.forcing_full
        self._qdot = se.q.diff(t)
        self._udot = se.u.diff(t)
        self._uaux = sp.Matrix()
        self._kd = se.kindiffdict()

    def kindiffdict(self):
        return dict(self._kd)


def to_pydy_system(eqs: Equations, constants: dict | None = None, initial_conditions: dict | None = None,
                   times: Sequence[float] | None = None, **kwargs: Any):
    """A ``pydy.system.System`` for geonh's equations (pydy must be installed).

    ``constants`` and ``initial_conditions`` may be keyed by geonh's symbols or by name (or by
    the dynamicsymbols of :func:`to_sympy`); ``times`` as pydy's.  Only forms whose unknowns
    are the speed rates can be integrated by pydy: a multiplier form (Lagrange's) raises
    :class:`~geonh.errors.DimensionError` — take a frame form (``boltzmann_hamel``,
    ``voronets``, ``maggi`` …) instead."""
    try:
        from pydy.system import System
    except ImportError:  # pragma: no cover - depends on the environment
        raise GeonhError("to_pydy_system needs pydy: pip install pydy") from None
    constants = {k: as_floats(v, f"the value of {k}") for k, v in as_mapping({} if constants is None else constants, "constants").items()}
    initial_conditions = {k: as_floats(v, f"the initial value of {k}")
                          for k, v in as_mapping({} if initial_conditions is None else initial_conditions, "initial_conditions").items()}
    times = as_floats(times, "times") if times is not None else None
    if eqs.lam_vec:
        raise DimensionError(f"the {eqs.form} equations carry multipliers {list(eqs.lam_vec)}; pydy integrates "
                             "M u' = F only: use a form without multipliers (e.g. boltzmann_hamel)")
    se = to_sympy(eqs)
    by_name = {s.name: s for s in se.constants}
    dyn = {str(f.func): f for f in list(se.q) + list(se.u)}

    def key(k, table):
        if not isinstance(k, (str, sp.Basic)):
            raise ParseError(f"keys are symbols or names, not {type(k).__name__}")
        name = k if isinstance(k, str) else getattr(k, "name", None) or str(getattr(k, "func", k))
        if name not in table:
            raise GeonhError(f"{k!r} is not one of {sorted(table)}")
        return table[name]

    consts = {key(k, by_name): v[()] if v.ndim == 0 else v for k, v in constants.items()}
    ics = {key(k, dyn): v[()] if v.ndim == 0 else v for k, v in initial_conditions.items()}
    sysm = System(_PydyMethod(se), constants=consts, initial_conditions=ics, **kwargs)
    if times is not None:
        sysm.times = times
    return sysm
