"""Discrete Lagrange–d'Alembert (DLA) integrator for nonholonomic mechanical systems.

:func:`dla_integrate` integrates a :class:`~geonh.MechanicalSystem` with constraints linear
and homogeneous in the velocities, A(q) q̇ = 0, by the discrete Lagrange–d'Alembert principle
of Cortés & Martínez (2001, *Nonlinearity* 14, 1365) with the discrete constraint of
McLachlan & Perlmutter (2006, *J. Nonlinear Sci.* 16, 283).  The residuals and their Jacobian
are generated symbolically once per (system, rule) and compiled
(:func:`geonh.numerics.codegen.compile_function`: symengine's LLVM ``Lambdify`` with cse, numpy
``lambdify`` as fallback); each step is then a few compiled calls and a small dense solve.

The scheme
----------
L(q, q̇) = T − V, generalized forces Q_i = Q_i^{nc} − ∂V/∂q^i (``MechanicalSystem.Q``),
G_i(q, q̇) := ∂T/∂q^i + Q_i (so G = ∂L/∂q + Q^{nc}), p_i(q, q̇) = ∂T/∂q̇^i.

* Discrete Lagrangian, ``rule="midpoint"``:  L_d(q0, q1) = h L((q0 + q1)/2, (q1 − q0)/h);
  ``rule="trapezoidal"``:  L_d(q0, q1) = ½ h [L(q0, v) + L(q1, v)], v = (q1 − q0)/h.
  Non-conservative forces Q^{nc} enter as discrete forces f_d^± of the same rule (midpoint:
  f_d^− = f_d^+ = ½ h Q^{nc}(q̄, v); trapezoidal: f_d^− = ½ h Q^{nc}(q0, v),
  f_d^+ = ½ h Q^{nc}(q1, v)).
* Discrete constraint (McLachlan–Perlmutter's choice):  A((q_k + q_{k+1})/2) (q_{k+1} − q_k)/h = 0,
  so the continuous constraint holds at every midpoint to round-off.
* DLA equations (Cortés–Martínez: D2 L_d(q_{k−1}, q_k) + D1 L_d(q_k, q_{k+1}) lies in the
  annihilator D°(q_k) of the constraint distribution, the reaction taken at the node q_k):

      D2 L_d(q_{k−1}, q_k) + D1 L_d(q_k, q_{k+1}) + f_d^+(q_{k−1}, q_k) + f_d^−(q_k, q_{k+1})
          + h A(q_k)ᵀ λ_k = 0.

  **Sign convention.**  The papers write the right-hand side as "∈ D°" or "= μ_k A(q_k)";
  here μ_k = −h λ_k, chosen so that λ_k approximates the continuous multiplier of
  CONVENTIONS.md (reaction R_i = +λ_κ A_κi in d/dt ∂L/∂q̇ − ∂L/∂q = Q^{nc} + λ A): the
  left-hand side is h (∂L/∂q + Q^{nc} − ṗ) + O(h³), i.e. −h R.

Position–momentum form.  With the discrete Legendre transforms p_k^+ = D2 L_d(q_{k−1}, q_k)
+ f_d^+ and p_k^− = −D1 L_d(q_k, q_{k+1}) − f_d^−, the DLA equation reads p_k^− = p_k^+ +
h A(q_k)ᵀ λ_k (the reaction impulse at the node).  Each step solves, for the step velocity
v = (q_{k+1} − q_k)/h and the impulse μ = h λ_k, the n + r equations (midpoint rule, q̄ =
q_k + ½ h v)

    p_k^+ + ½ h G(q̄, v) − p(q̄, v) + A(q_k)ᵀ μ = 0,        A(q̄) v = 0,

by Newton's method (compiled residual and Jacobian, predictor = the previous step's v and μ;
converged when max |Newton update| ≤ ``tol`` · (1 + max |(v, μ)|)), then sets
q_{k+1} = q_k + h v and p_{k+1}^+ = ½ h G(q̄, v) + p(q̄, v).  Solving for v rather than q_{k+1}
keeps the Jacobian ≈ [[−M, Aᵀ], [A, 0]] well conditioned for every h, and keeps the
constraint residual A(q̄) v at round-off (a residual recomputed from differences of stored
positions, A(q̄)(q_{k+1} − q_k)/h, carries an extra rounding error of about ε |q| / h).

Initialisation.  The first step needs p_0^+.  We take the continuous momentum
p_0 = ∂L/∂q̇(q0, q̇0) with q̇0 on the constraints (checked, or projected in the kinetic-energy
metric with ``project=True``).  Only p_0 modulo D°(q0) matters — a component along
A(q0)ᵀ is absorbed by λ_0 — so no further projection is needed and the first step is as
consistent as every later one (the discrete Legendre transform −D1 L_d(q0, q1) = p_0 +
h A(q0)ᵀ λ_0 holds with the discrete constraint on (q0, q1)).  Consequently λ_0 carries
only about half of the node's impulse (λ_0 ≈ λ(0)/2); λ_k, k ≥ 1, approximate λ(t_k).

Node velocities and energy.  The node velocity q̇_k is the discrete Legendre transform made
consistent: the unique q̇_k with A(q_k) q̇_k = 0 and M(q_k) q̇_k + b(q_k) − p_k^+ ∈ D°(q_k)
(p_k^+ and p_k^− give the same q̇_k, since they differ by an element of D°); a KKT solve
per node.  It is a second-order approximation of q̇(t_k) and satisfies the constraint to
round-off.  The energy is the Jacobi integral E = p·q̇ − L = ½ q̇ᵀ M q̇ − T0 + V (= T + V for T
quadratic in q̇), at the nodes (with q̇_k) and at the midpoints (with (q̄, v)).

Accuracy.  Both rules give a symmetric scheme (L_d, the discrete constraint and the node
reaction are self-adjoint), of order 2 (measured in tests/numerics/test_dla.py against DOP853 at
1e-13).  The energy error is O(h²); on reversible periodic motions (the knife edge on an
inclined plane) it oscillates with a fixed amplitude over 10^5 steps, while on the circling
relative equilibrium of the dynamic 2-trailer it drifts like c h² t (measured, see
docs/integrators.md; McLachlan & Perlmutter relate good energy behaviour to reversibility).

Not supported (clear errors): affine constraints A q̇ + b = 0 with b ≠ 0 and rheonomic
systems (a space with time): :class:`~geonh.NotLinearError`.  Holonomic constraints of the
system enter as their differentials df = 0 like any other row of A (f itself then drifts by
O(h²), boundedly).
"""
from __future__ import annotations

import math
import weakref
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

import numpy as np
import sympy as sp

from ..errors import (DimensionError, InconsistentStateError, MissingValueError, NotFoundError, NotLinearError,
                      ParseError, SingularMapError, UnknownCoordinateError)
from .codegen import compile_function
from ..systems.mechanical import MechanicalSystem
from ..kernel.parsing import sympy_of

__all__ = ["RULES", "DLAScheme", "DLATrajectory", "dla_scheme", "dla_integrate"]

#: the discrete Lagrangians :func:`dla_integrate` knows
RULES = ("midpoint", "trapezoidal")

_CACHE: "weakref.WeakKeyDictionary[MechanicalSystem, dict]" = weakref.WeakKeyDictionary()


def _frozen(a, dtype=float) -> np.ndarray:
    a = np.array(a, dtype=dtype)
    a.flags.writeable = False
    return a


def _as_system(system) -> MechanicalSystem:
    if isinstance(system, MechanicalSystem):
        return system
    inner = getattr(system, "system", None)
    if isinstance(inner, MechanicalSystem):
        return inner
    raise ParseError(f"the DLA integrator takes a MechanicalSystem (or a model with .system), "
                     f"not {type(system).__name__}")


class DLAScheme:
    """The compiled discrete Lagrange–d'Alembert step of one system and rule (module doc).

    Built once by :func:`dla_scheme` (cached per system, rule and backend); call
    :meth:`integrate` (what :func:`dla_integrate` does) as often as you like.

    Attributes: ``system``, ``rule``, ``backend`` (of the compiled functions), ``parameters``
    (the symbols that need values, sorted by name), ``n``, ``r`` (number of constraints),
    ``q_names``, ``constraint_names``.
    """

    def __init__(self, system, rule: str = "midpoint", backend: str = "auto"):
        system = _as_system(system)
        if rule not in RULES:
            raise NotFoundError(f"unknown rule {rule!r}; rules: {', '.join(RULES)}")
        S = system.space
        A, b = system.constraint_matrix
        if S.t is not None:
            if any(e != 0 for e in b):
                raise NotLinearError(
                    f"{system.name or 'the system'} has affine (rheonomic) constraints A q̇ + b = 0 with b ≠ 0; "
                    "the DLA integrator supports only constraints linear and homogeneous in the velocities, "
                    "A(q) q̇ = 0, on a space without time")
            raise NotLinearError(
                f"{system.name or 'the system'} is rheonomic (its space has time t); the DLA integrator "
                "supports only scleronomic systems: L(q, q̇) and constraints A(q) q̇ = 0 without t")
        self.system = system
        self.rule = rule
        n, r = S.n, A.rows
        self.n, self.r = n, r
        self.q_names = tuple(s.name for s in S.q)
        self.constraint_names = tuple(
            f"constraint {k + 1}: {sp.sstr(sum((A[k, i] * S.qd[i] for i in range(n)), sp.S.Zero))} = 0"
            for k in range(r))
        M, bT, T0 = system.quadratic_parts
        q, qd = list(S.q), list(S.qd)
        T = system.T
        V = system.V
        p = [sympy_of(e) for e in system.momenta]
        G = [sp.diff(T, q[i]) + system.Q[i] for i in range(n)]

        # parameters: every symbol that is not a coordinate or a velocity
        exprs = [T, V] + list(system.Q) + list(A)
        free = set().union(*[sympy_of(e).free_symbols for e in exprs])
        self.parameters: tuple[sp.Symbol, ...] = tuple(sorted(free - set(q) - set(qd), key=lambda s: s.name))

        # argument symbols (dummies: no clash with user names)
        v = [sp.Dummy(f"v{i}") for i in range(n)]
        mu = [sp.Dummy(f"mu{k}") for k in range(r)]
        q0 = [sp.Dummy(f"q{i}") for i in range(n)]
        p0 = [sp.Dummy(f"p{i}") for i in range(n)]
        h = sp.Dummy("h")
        P = list(self.parameters)
        step_args = v + mu + q0 + p0 + [h] + P

        def at(e, qq, vv):
            return sympy_of(e).xreplace({**dict(zip(q, qq)), **dict(zip(qd, vv))})

        A0 = A.xreplace(dict(zip(q, q0)))
        qbar = [q0[i] + h * v[i] / 2 for i in range(n)]
        Abar = A.xreplace(dict(zip(q, qbar)))
        if rule == "midpoint":
            Gm = [at(e, qbar, v) for e in G]
            pm = [at(e, qbar, v) for e in p]
            R_mom = [p0[i] + h * Gm[i] / 2 - pm[i] + sum((A0[k, i] * mu[k] for k in range(r)), sp.S.Zero)
                     for i in range(n)]
            P_plus = [h * Gm[i] / 2 + pm[i] for i in range(n)]
        else:
            q1 = [q0[i] + h * v[i] for i in range(n)]
            pav = [(at(e, q0, v) + at(e, q1, v)) / 2 for e in p]
            R_mom = [p0[i] + h * at(G[i], q0, v) / 2 - pav[i] + sum((A0[k, i] * mu[k] for k in range(r)), sp.S.Zero)
                     for i in range(n)]
            P_plus = [h * at(G[i], q1, v) / 2 + pav[i] for i in range(n)]
        R_con = [sum((Abar[k, i] * v[i] for i in range(n)), sp.S.Zero) for k in range(r)]
        R = R_mom + R_con
        self._step = compile_function(R + P_plus, step_args, backend=backend, what="the DLA residuals")
        self._jac = compile_function(R, step_args, backend=backend, wrt=v + mu, what="the DLA Jacobian")
        self.backend = self._step.backend

        # nodes: M, A, b, T0, V at q (KKT solve for the node velocities, energy)
        node_args = q + P
        self._node = compile_function(list(M) + list(A) + list(bT) + [T0, V], node_args, backend=backend,
                                      what="the node quantities")
        # midpoints: A(q̄) v and the energy at (q̄, v)
        E = sum((M[i, j] * qd[i] * qd[j] for i in range(n) for j in range(n) if M[i, j] != 0), sp.S.Zero) / 2 - T0 + V
        self._mid = compile_function(
            [sum((A[k, i] * qd[i] for i in range(n)), sp.S.Zero) for k in range(r)] + [E], q + qd + P,
            backend=backend, what="the midpoint quantities")

    # -- input checks ------------------------------------------------------------------------------
    def parameter_values(self, params: Mapping | None) -> np.ndarray:
        """The parameter vector (order of :attr:`parameters`) from {symbol or name: value};
        refuses missing, unknown and non-finite values."""
        if params is None:
            params = {}
        if not hasattr(params, "items"):
            raise DimensionError(f"params must be a mapping {{symbol or name: value}}, not {type(params).__name__}")
        byname = {s.name: s for s in self.parameters}
        vals: dict[str, float] = {}
        unknown = []
        for k, val in params.items():
            name = k.name if isinstance(k, sp.Symbol) else str(k)
            if name not in byname:
                unknown.append(name)
                continue
            if isinstance(val, bool) or val is None:
                raise InconsistentStateError(f"parameter {name} = {val!r} is not a number")
            try:
                x = complex(val)
            except (TypeError, ValueError):
                raise InconsistentStateError(f"parameter {name} = {val!r} is not a number") from None
            if x.imag != 0 or not math.isfinite(x.real):
                raise InconsistentStateError(f"parameter {name} = {val!r} is not a finite real number")
            vals[name] = x.real
        if unknown:
            raise UnknownCoordinateError(
                f"given but not parameters of {self.system.name or 'the system'}: {', '.join(unknown)} "
                f"(parameters: {', '.join(byname) or 'none'})")
        missing = [nm for nm in byname if nm not in vals]
        if missing:
            raise MissingValueError(f"give numerical values for {', '.join(missing)} in params")
        return np.array([vals[s.name] for s in self.parameters], dtype=float)

    def _vector(self, x, what: str) -> np.ndarray:
        try:
            a = np.array(x, dtype=float).reshape(-1)
        except (TypeError, ValueError):
            raise DimensionError(f"{what} must be {self.n} numbers ({', '.join(self.q_names)}), not {x!r}") from None
        if a.shape != (self.n,):
            raise DimensionError(f"{what} has {a.size} entries; the coordinates {list(self.q_names)} are {self.n}")
        bad = [nm for nm, val in zip(self.q_names, a) if not math.isfinite(val)]
        if bad:
            raise InconsistentStateError(f"{what} is not finite in {', '.join(bad)}")
        return a

    # -- nodes -----------------------------------------------------------------------------------
    def _node_parts(self, Q: np.ndarray, pv: np.ndarray):
        n, r = self.n, self.r
        X = np.hstack([Q, np.tile(pv, (len(Q), 1))])
        out = self._node.batch(X)
        Mm = out[:, :n * n].reshape(len(Q), n, n)
        Am = out[:, n * n:n * n + r * n].reshape(len(Q), r, n)
        bv = out[:, n * n + r * n:n * n + r * n + n]
        T0 = out[:, -2]
        V = out[:, -1]
        return Mm, Am, bv, T0, V

    def _legendre_velocities(self, Q, Pm, pv):
        """q̇_k ∈ D(q_k) with M q̇_k + b − p_k ∈ D°(q_k) (KKT solve per node), and the energy."""
        n, r = self.n, self.r
        Mm, Am, bv, T0, V = self._node_parts(Q, pv)
        K = np.zeros((len(Q), n + r, n + r))
        K[:, :n, :n] = Mm
        K[:, :n, n:] = np.transpose(Am, (0, 2, 1))
        K[:, n:, :n] = Am
        rhs = np.zeros((len(Q), n + r))
        rhs[:, :n] = Pm - bv
        try:
            sol = np.linalg.solve(K, rhs[..., None])[..., 0]
        except np.linalg.LinAlgError:
            raise SingularMapError("the mass matrix with the constraints, [[M, Aᵀ], [A, 0]], is singular at a node "
                                   "(the constraints lose rank or M is not positive definite there)") from None
        qd = sol[:, :n]
        E = 0.5 * np.einsum("ki,kij,kj->k", qd, Mm, qd) - T0 + V
        res = np.einsum("kri,ki->kr", Am, qd)
        return qd, E, res

    def _project(self, q0, qd0, pv):
        n, r = self.n, self.r
        Mm, Am, _, _, _ = self._node_parts(q0[None, :], pv)
        K = np.zeros((n + r, n + r))
        K[:n, :n] = Mm[0]
        K[:n, n:] = Am[0].T
        K[n:, :n] = Am[0]
        rhs = np.concatenate([Mm[0] @ qd0, np.zeros(r)])
        try:
            return np.linalg.solve(K, rhs)[:n]
        except np.linalg.LinAlgError:
            raise SingularMapError("cannot project the initial velocities: [[M, Aᵀ], [A, 0]] is singular at q0") \
                from None

    # -- integration ------------------------------------------------------------------------------
    def integrate(self, q0, qd0, h: float, n_steps: int, params: Mapping | None = None, *, t0: float = 0.0,
                  tol: float = 1e-13, max_iter: int = 20, project: bool = False,
                  constraint_tol: float = 1e-9) -> "DLATrajectory":
        """n_steps DLA steps of size h from (q0, q̇0); see :func:`dla_integrate`."""
        n, r = self.n, self.r
        for nm, val in (("h", h), ("tol", tol), ("constraint_tol", constraint_tol), ("t0", t0)):
            if isinstance(val, bool) or not isinstance(val, (int, float, np.integer, np.floating)) \
                    or not math.isfinite(float(val)):
                raise InconsistentStateError(f"{nm} must be a finite number, not {val!r}")
        h, tol, t0 = float(h), float(tol), float(t0)
        if h <= 0:
            raise InconsistentStateError(f"the step h must be positive, not {h!r} (integrate backwards by "
                                         "reversing the initial velocities)")
        if tol <= 0 or constraint_tol <= 0:
            raise InconsistentStateError("tol and constraint_tol must be positive")
        if isinstance(n_steps, bool) or not isinstance(n_steps, (int, np.integer)) or n_steps < 0:
            raise DimensionError(f"n_steps must be a non-negative integer, not {n_steps!r}")
        if isinstance(max_iter, bool) or not isinstance(max_iter, (int, np.integer)) or max_iter < 1:
            raise DimensionError(f"max_iter must be a positive integer, not {max_iter!r}")
        n_steps = int(n_steps)
        pv = self.parameter_values(params)
        q0 = self._vector(q0, "q0")
        qd0 = self._vector(qd0, "qd0")
        Mm, Am, bv, T0, V = self._node_parts(q0[None, :], pv)
        if not (np.all(np.isfinite(Mm)) and np.all(np.isfinite(Am))):
            raise SingularMapError(f"the mass matrix or the constraints are not finite at q0 = {q0.tolist()}")
        res0 = Am[0] @ qd0
        if r:
            if project:
                qd0 = self._project(q0, qd0, pv)
                Mm, Am, bv, T0, V = self._node_parts(q0[None, :], pv)
            else:
                worst = int(np.argmax(np.abs(res0)))
                if abs(res0[worst]) > constraint_tol:
                    raise InconsistentStateError(
                        f"the initial velocities violate {self.constraint_names[worst]} (residual "
                        f"{res0[worst]:.3g}, beyond constraint_tol = {constraint_tol:g}); give velocities with A(q0) q̇0 = 0 or pass "
                        "project=True")
        p_init = Mm[0] @ qd0 + bv[0]
        E0 = float(0.5 * qd0 @ Mm[0] @ qd0 - T0[0] + V[0])

        m = n + r
        Q = np.empty((n_steps + 1, n))
        Pm = np.empty((n_steps + 1, n))
        Vs = np.empty((n_steps, n))
        Mu = np.empty((n_steps, r))
        its = np.empty(n_steps, dtype=np.int64)
        nres = np.empty(n_steps)
        Q[0] = q0
        Pm[0] = p_init
        np_ = len(pv)
        arg = np.empty(m + 2 * n + 1 + np_)
        arg[m + 2 * n] = h
        arg[m + 2 * n + 1:] = pv
        out = np.empty(m + n)
        jac = np.empty(m * m)
        x = np.concatenate([qd0, np.zeros(r)])
        step_into, jac_into = self._step.into, self._jac.into
        solve = np.linalg.solve
        absmax = np.max
        isfinite = math.isfinite
        qk = q0.copy()
        for k in range(n_steps):
            arg[m:m + n] = qk
            arg[m + n:m + 2 * n] = Pm[k]
            converged = False
            it = 0
            while True:
                arg[:m] = x
                step_into(arg, out)
                if it == max_iter:
                    break
                jac_into(arg, jac)
                try:
                    dx = solve(jac.reshape(m, m), out[:m])
                except np.linalg.LinAlgError:
                    raise SingularMapError(
                        f"the DLA step {k} (t = {t0 + k * h:g}) has a singular Newton matrix at q = "
                        f"{np.round(qk, 6).tolist()}: the constraints lose rank or M is singular there") from None
                x -= dx
                it += 1
                d = float(absmax(np.abs(dx)))
                if not isfinite(d):
                    break
                if d <= tol * (1.0 + float(absmax(np.abs(x)))):
                    arg[:m] = x
                    step_into(arg, out)
                    converged = True
                    break
            resid = float(absmax(np.abs(out[:m]))) if m else 0.0
            if not converged or not isfinite(resid):
                raise SingularMapError(
                    f"Newton's method did not converge in DLA step {k} (t = {t0 + k * h:g} → {t0 + (k + 1) * h:g}) "
                    f"within {max_iter} iterations: residual max |R| = {resid:.3g}, last update "
                    f"{d:.3g}; reduce h (h = {h:g}) or raise max_iter/tol")
            v = x[:n]
            Vs[k] = v
            Mu[k] = x[n:]
            qk = qk + h * v
            Q[k + 1] = qk
            Pm[k + 1] = out[m:]
            its[k] = it
            nres[k] = resid
        return self._result(t0, h, Q, Pm, Vs, Mu, its, nres, pv, E0, tol)

    def _result(self, t0, h, Q, Pm, Vs, Mu, its, nres, pv, E0, tol) -> "DLATrajectory":
        r = self.r
        N = len(Vs)
        qd, E, node_res = self._legendre_velocities(Q, Pm, pv)
        qbar = Q[:-1] + 0.5 * h * Vs
        if N:
            mid = self._mid.batch(np.hstack([qbar, Vs, np.tile(pv, (N, 1))]))
        else:
            mid = np.zeros((0, r + 1))
        t = t0 + h * np.arange(N + 1)
        return DLATrajectory(
            t=t, q=Q, qd=qd, p=Pm, t_mid=t[:-1] + h / 2, q_mid=qbar, v_mid=Vs, multipliers=Mu / h,
            energy=E, energy_mid=mid[:, r], constraint_residuals=mid[:, :r], node_constraint_residuals=node_res,
            iterations=its, newton_residuals=nres, energy0=E0, h=h, rule=self.rule, q_names=self.q_names,
            constraint_names=self.constraint_names,
            params={s.name: float(v) for s, v in zip(self.parameters, pv)}, tol=tol)

    def __repr__(self) -> str:
        return (f"DLAScheme({self.system.name or 'system'}: {self.rule} rule, n = {self.n}, r = {self.r}, "
                f"backend {self.backend!r})")


@dataclass(frozen=True, eq=False)
class DLATrajectory:
    """The result of :func:`dla_integrate` (module :mod:`geonh.numerics.dla`).  Frozen; every
    array is a read-only numpy array of floats (``iterations`` of ints).

    Nodes k = 0 … N (N steps): ``t`` (N+1,), ``q`` (N+1, n), ``qd`` the node velocities (the
    discrete Legendre transform made consistent: A(q_k) q̇_k = 0, second order), ``p`` the
    momenta p_k^+ = D2 L_d(q_{k−1}, q_k) (+ f_d^+; p_0 = ∂L/∂q̇(q0, q̇0)), ``energy`` the Jacobi
    integral at (q_k, q̇_k), ``node_constraint_residuals`` A(q_k) q̇_k (N+1, r).

    Steps k = 0 … N−1: ``t_mid`` = t_k + h/2, ``q_mid`` = q_k + ½ h v (midpoints), ``v_mid`` the
    step velocities v = (q_{k+1} − q_k)/h (as solved for), ``multipliers`` λ_k (N, r) in the sign
    of CONVENTIONS.md (λ_0 ≈ λ(0)/2, see the module doc), ``energy_mid`` the energy at
    (q_mid, v_mid), ``constraint_residuals`` A(q_mid) v_mid (N, r; the discrete constraint, at
    round-off), ``iterations`` Newton iterations per step, ``newton_residuals`` the final
    max |residual| per step.

    ``energy0`` the energy of the initial data, ``energy_error`` = energy − energy0; ``h``,
    ``rule``, ``q_names``, ``constraint_names``, ``params`` ({name: value}); ``traj["x"]``
    a coordinate column by name (also ``"t"``, ``"x_dot"`` for a node velocity, ``"energy"``).
    """

    t: np.ndarray
    q: np.ndarray
    qd: np.ndarray
    p: np.ndarray
    t_mid: np.ndarray
    q_mid: np.ndarray
    v_mid: np.ndarray
    multipliers: np.ndarray
    energy: np.ndarray
    energy_mid: np.ndarray
    constraint_residuals: np.ndarray
    node_constraint_residuals: np.ndarray
    iterations: np.ndarray
    newton_residuals: np.ndarray
    energy0: float
    h: float
    rule: str
    q_names: tuple
    constraint_names: tuple
    params: dict = field(default_factory=dict)
    tol: float = 1e-13

    def __post_init__(self):
        for name in ("t", "q", "qd", "p", "t_mid", "q_mid", "v_mid", "multipliers", "energy", "energy_mid",
                     "constraint_residuals", "node_constraint_residuals", "newton_residuals"):
            object.__setattr__(self, name, _frozen(getattr(self, name)))
        object.__setattr__(self, "iterations", _frozen(self.iterations, dtype=np.int64))
        object.__setattr__(self, "energy0", float(self.energy0))
        object.__setattr__(self, "h", float(self.h))
        object.__setattr__(self, "q_names", tuple(self.q_names))
        object.__setattr__(self, "constraint_names", tuple(self.constraint_names))
        object.__setattr__(self, "params", dict(self.params))

    @property
    def n_steps(self) -> int:
        return len(self.t) - 1

    @property
    def energy_error(self) -> np.ndarray:
        """energy − energy0 at the nodes."""
        return _frozen(self.energy - self.energy0)

    @property
    def max_energy_error(self) -> float:
        """max |energy − energy0| over the nodes."""
        return float(np.max(np.abs(self.energy - self.energy0))) if len(self.energy) else 0.0

    @property
    def max_constraint_residual(self) -> float:
        """max |A(q_mid) v_mid| over the steps and constraints (the discrete constraint)."""
        c = self.constraint_residuals
        return float(np.max(np.abs(c))) if c.size else 0.0

    def __len__(self) -> int:
        return len(self.t)

    def __getitem__(self, name: str) -> np.ndarray:
        """A node column by name: ``"t"``, a coordinate, ``"<coordinate>_dot"`` (node velocity),
        ``"energy"``."""
        if name == "t":
            return self.t
        if name == "energy":
            return self.energy
        if name in self.q_names:
            return self.q[:, self.q_names.index(name)]
        dots = [f"{nm}_dot" for nm in self.q_names]
        if name in dots:
            return self.qd[:, dots.index(name)]
        raise UnknownCoordinateError(f"no column {name!r}; columns: {', '.join(['t', 'energy', *self.q_names, *dots])}")

    def as_dict(self) -> dict[str, np.ndarray]:
        """{"t": t, coordinate: column, coordinate_dot: node velocity column, "energy": energy}."""
        out: dict[str, Any] = {"t": self.t}
        out.update({nm: self.q[:, i] for i, nm in enumerate(self.q_names)})
        out.update({f"{nm}_dot": self.qd[:, i] for i, nm in enumerate(self.q_names)})
        out["energy"] = self.energy
        return out

    def __repr__(self) -> str:
        return (f"DLATrajectory({self.rule}: {self.n_steps} steps of h = {self.h:g} in "
                f"[{self.t[0]:g}, {self.t[-1]:g}], q = {list(self.q_names)}, max |ΔE| = {self.max_energy_error:.2g}, "
                f"max |A v| = {self.max_constraint_residual:.2g})")


def dla_scheme(system, rule: str = "midpoint", *, backend: str = "auto") -> DLAScheme:
    """The compiled :class:`DLAScheme` of ``system`` (a MechanicalSystem or a model with
    ``.system``) for ``rule`` ("midpoint" or "trapezoidal"), built once and cached per
    system, rule and backend."""
    system = _as_system(system)
    if rule not in RULES:
        raise NotFoundError(f"unknown rule {rule!r}; rules: {', '.join(RULES)}")
    try:
        per = _CACHE.setdefault(system, {})
    except TypeError:  # pragma: no cover - not weak-referenceable: no cache
        return DLAScheme(system, rule, backend)
    key = (rule, backend)
    if key not in per:
        per[key] = DLAScheme(system, rule, backend)
    return per[key]


def dla_integrate(system, q0: Sequence[float], qd0: Sequence[float], h: float, n_steps: int,
                  params: Mapping | None = None, *, rule: str = "midpoint", tol: float = 1e-13,
                  max_iter: int = 20, project: bool = False, constraint_tol: float = 1e-9, t0: float = 0.0,
                  backend: str = "auto") -> DLATrajectory:
    """Integrate ``system`` by the discrete Lagrange–d'Alembert principle: ``n_steps`` steps of
    size ``h`` from q(t0) = q0, q̇(t0) = qd0 (formulas, sign convention and sources in
    :mod:`geonh.numerics.dla`: Cortés & Martínez 2001; McLachlan & Perlmutter 2006).

    Parameters
    ----------
    system : a :class:`~geonh.MechanicalSystem` with constraints A(q) q̇ = 0 (no time), or a
        model with ``.system`` (``geonh.models.get("chaplygin-sleigh")``).
    q0, qd0 : initial coordinates and velocities, in the order of ``system.space.q``;
        A(q0) qd0 = 0 to ``constraint_tol`` (else :class:`~geonh.InconsistentStateError`),
        or ``project=True`` to project qd0 onto the constraints in the kinetic-energy metric.
    h, n_steps : step size (> 0) and number of steps.
    params : {symbol or name: value} for every parameter of T, V, the forces and the
        constraints (finite real numbers).
    rule : the discrete Lagrangian, "midpoint" (default) or "trapezoidal".
    tol, max_iter : Newton's method stops when max |update| ≤ ``tol`` · (1 + max |unknowns|)
        (the unknowns: step velocity v and impulse h λ); :class:`~geonh.SingularMapError` naming the
        step, its time and the residual if it does not within ``max_iter`` iterations.
    backend : code generation backend (:mod:`geonh.numerics.codegen`).

    Returns a :class:`DLATrajectory`.  Errors: :class:`~geonh.NotLinearError` for affine or
    rheonomic constraints (not supported), :class:`~geonh.InconsistentStateError` for
    inconsistent initial velocities, non-finite data or parameters and h ≤ 0,
    :class:`~geonh.MissingValueError` for missing parameters,
    :class:`~geonh.UnknownCoordinateError` for unknown ones, :class:`~geonh.DimensionError`
    for arrays of the wrong length, :class:`~geonh.SingularMapError` for a singular Newton
    matrix or non-convergence.
    """
    scheme = dla_scheme(system, rule, backend=backend)
    return scheme.integrate(q0, qd0, h, n_steps, params, t0=t0, tol=tol, max_iter=max_iter, project=project,
                            constraint_tol=constraint_tol)
