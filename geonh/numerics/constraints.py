"""Velocity constraints along a motion: residuals and the projection onto them.

For an :class:`~geonh.numerics.compiled.ODEFunction` with state y = (q, u) the constraints
φ(t, q, q̇) = 0 of its system (A q̇ + b for a :class:`~geonh.systems.MechanicalSystem`, φ for a
:class:`~geonh.systems.NonlinearSystem`, b for a :class:`~geonh.systems.GaussSystem`) are read
at q̇ = K(t, q, u): ψ(t, q, u) = φ(t, q, K(t, q, u)).  Frame forms satisfy them by
construction (ψ ≡ 0); forms whose state keeps all velocities (u = q̇: Lagrange with
multipliers, Gauss, Udwadia–Kalaba) keep them only through their initial data, up to the
integration error.

Projection (:meth:`ConstraintSet.project`): the velocities u closest to the given ones in the
kinetic-energy metric, q held fixed,

    min ½ Δuᵀ H Δu   subject to  ψ(t, q, u + Δu) = 0,     H = K_uᵀ G K_u,

by Gauss–Newton steps Δu = −H⁻¹Jᵀ (J H⁻¹ Jᵀ)⁻¹ ψ, J = ∂ψ/∂u = (∂φ/∂q̇) K_u (one step is exact
for constraints linear in the velocities; up to six for nonlinear ones).  G is the system's
mass matrix ∂²T/∂q̇² (the identity for a system without one).
"""
from __future__ import annotations

import numpy as np
import sympy as sp

from .compiled import Observable, ODEFunction
from ..errors import SingularMapError
from ..kernel.parsing import as_float, as_floats, sympy_of
from ..systems.gauss import GaussSystem
from ..systems.mechanical import MechanicalSystem
from ..systems.nonlinear import NonlinearSystem

__all__ = ["ConstraintSet", "velocity_constraints", "metric_of"]


def velocity_constraints(system) -> list[sp.Expr]:
    """The velocity constraints φ(t, q, q̇) = 0 of a system (empty for a kind without them)."""
    S = system.space
    if isinstance(system, MechanicalSystem):
        A, b = system.constraint_matrix
        return [sum((A[k, i] * S.qd[i] for i in range(S.n) if A[k, i] != 0), b[k]) for k in range(A.rows)]
    if isinstance(system, NonlinearSystem):
        return list(system.phi)
    if isinstance(system, GaussSystem):
        return list(system.b)
    return []


def metric_of(system) -> sp.Matrix:
    """The kinetic-energy metric G = ∂²T/∂q̇² of a system (identity when it has none)."""
    S = system.space
    if isinstance(system, (MechanicalSystem, NonlinearSystem)):
        return sp.Matrix(system.mass_matrix)
    if isinstance(system, GaussSystem):
        return sp.Matrix(system.free.metric)
    return sp.eye(S.n)


class ConstraintSet:
    """The constraints of ``f``'s system at q̇ = K(t, q, u): names, residuals, projection."""

    def __init__(self, f: ODEFunction):
        eqs = f.equations
        S = eqs.space
        self.f = f
        phis = velocity_constraints(eqs.system)
        self.phi = phis
        self.names = tuple(f"constraint {k + 1}: {sp.sstr(e)} = 0" for k, e in enumerate(phis))
        self.r = len(phis)
        #: the state keeps every velocity (u = q̇): the constraints hold only through the data
        self.keeps_velocities = (tuple(eqs.u) == tuple(S.qd)
                                 and [sympy_of(k) for k in eqs.kinematics] == list(S.qd))
        self._sub = dict(zip(S.qd, eqs.kinematics))
        self._psi: Observable | None = None
        self._proj: Observable | None = None

    @property
    def psi(self):
        if self._psi is None:
            self._psi = self.f.observable([e.xreplace(self._sub) for e in self.phi], what="the constraints")
        return self._psi

    def residuals(self, t, y) -> np.ndarray:
        return self.psi(t, y) if self.r else np.zeros(0)

    def residuals_batch(self, t, Y) -> np.ndarray:
        return self.psi.batch(t, Y) if self.r else np.zeros((len(Y), 0))

    def _projector(self):
        if self._proj is None:
            f, eqs = self.f, self.f.equations
            S = eqs.space
            n, nu = f.n_q, f.n_u
            Phi_v = sp.Matrix([[sp.diff(e, v) for v in S.qd] for e in self.phi]).xreplace(self._sub)
            if self.keeps_velocities:
                Ku = sp.eye(n)
            else:
                Ku = sp.Matrix(list(eqs.kinematics)).jacobian(list(eqs.u))
            G = metric_of(eqs.system).xreplace(self._sub)
            psi = [e.xreplace(self._sub) for e in self.phi]
            exprs = psi + list(Phi_v) + list(Ku) + list(G)
            self._proj = f.observable(exprs, what="the constraint projection")
            self._layout = (self.r, n, nu)
        return self._proj

    def project(self, t, y, *, tol: float = 1e-15, iterations: int = 6) -> np.ndarray:
        """y with its velocities u projected onto the constraints (module doc)."""
        y = np.array(as_floats(y, "the state y"), dtype=float)
        tol = as_float(tol, "tol", minimum=0)
        if not self.r:
            return y
        n = self.f.n_q
        scale = 1.0 + (float(np.max(np.abs(y[n:]))) if len(y) > n else 0.0)
        if np.max(np.abs(self.residuals(t, y))) <= tol * scale:
            return y   # already on the constraints (frame forms: by construction)
        g = self._projector()
        r, n, nu = self._layout
        for _ in range(iterations):
            v = g(t, y)
            psi = v[:r]
            scale = 1.0 + float(np.max(np.abs(y[n:]))) if nu else 1.0
            if np.max(np.abs(psi)) <= tol * scale:
                break
            o = r
            Phi = v[o:o + r * n].reshape(r, n)
            o += r * n
            Ku = v[o:o + n * nu].reshape(n, nu)
            o += n * nu
            G = v[o:o + n * n].reshape(n, n)
            J = Phi @ Ku
            H = Ku.T @ G @ Ku
            try:
                HiJt = np.linalg.solve(H, J.T)
                du = -HiJt @ np.linalg.solve(J @ HiJt, psi)
            except np.linalg.LinAlgError:
                raise SingularMapError("cannot project onto the constraints here: the metric or "
                                       "the constraint Jacobian ∂ψ/∂u is singular") from None
            y[n:] += du
        return y
