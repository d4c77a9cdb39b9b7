"""Equation forms for constraints nonlinear in the velocities (each returns an :class:`Equations`).

* :func:`chetaev_lagrange` — Lagrange's equations with Chetaev multipliers, unknowns (q̈, λ);
* :func:`appell` — Appell's equations with a multiplier (seed 002, eq. (4)):
  ∂S/∂q̈_ν − Q_ν − λ ∂f/∂q̇_ν = 0 together with the differentiated constraint (3), S
  Appell's acceleration energy (:meth:`MechanicalSystem.acceleration_energy`, built from
  Christoffel symbols, so the route is independent of Lagrange's).  The printed (4) writes
  ∂S/∂q'_ν (a velocity); only ∂S/∂q''_ν makes the equations right (docs/nonlinear.md);
* :func:`maggi_nonlinear` — Maggi's equations for nonlinear constraints (seed 003, eqs.
  (24)–(30)): user-chosen quasi-velocities v*^ρ(t, q, q̇) whose last k are the constraints
  (27), the inverse q̇(t, q, v*) (25), the velocity-dependent basis ε_τ = ∂q̇/∂v*^τ (26),
  the motion equations (28) and the reactions Λ_κ (30).

The virtual-displacement rule (Chetaev's by default) is a property of the
:class:`~geonh.systems.NonlinearSystem`.
"""
from __future__ import annotations

import random
from typing import Mapping, Sequence

import sympy as sp

from ..errors import DimensionError, NotFoundError, RankError, SingularMapError
from ..kernel.evaluation import real_value, state_tolerance, to_sympy, value_at
from ..kernel.parsing import as_expr, as_names, as_sequence, as_symbols, as_values, sympy_of
from ..kernel.velocity_frames import VelocityFrame, singular_at
from ..systems.nonlinear import as_nonlinear
from ..transposition.adapted import speed_symbols
from .base import Equations
from .independent import motion_substitution, multiplier_equations

__all__ = ["chetaev_lagrange", "appell", "velocity_frame", "maggi_nonlinear", "gibbs_appell_nonlinear",
           "boltzmann_hamel_nonlinear", "invert_quasi_velocities", "reactions_at"]


# ----------------------------------------------------------------------------------------------
# multiplier forms
# ----------------------------------------------------------------------------------------------
def chetaev_lagrange(system) -> Equations:
    """Lagrange's equations with Chetaev multipliers for φ^κ(t, q, q̇) = 0:

        d/dt ∂T/∂q̇^i − ∂T/∂q^i − Q_i − λ_κ Θ^κ_i = 0,      φ̇^κ = 0,

    Θ = ∂φ/∂q̇ for Chetaev's rule (the system's virtual rule otherwise).  Unknowns (q̈, λ);
    speeds are the velocities.  Reactions R_i = λ_κ Θ^κ_i.
    """
    system = as_nonlinear(system)
    return multiplier_equations("chetaev-lagrange", system, system.lagrange_operator,
                                system.virtual_matrix, system.phi,
                                notes=f"virtual displacements: {system.virtual}")


def appell(system) -> Equations:
    """Appell's equations with multipliers (seed 002, eqs. (3), (4)):

        ∂S/∂q̈_ν − Q_ν − λ_κ ∂φ^κ/∂q̇_ν = 0,                                        (4)
        ∂φ/∂q̇_ν q̈_ν + ∂φ/∂q_ν q̇_ν + ∂φ/∂t = 0,                                    (3)

    S = Appell's acceleration energy (from Christoffel symbols).  Printed (4) reads ∂S/∂q'_ν;
    the derivative is with respect to the accelerations q''_ν (checked in the tests: with
    ∂S/∂q̇ the equations differ from every other form).  Sign: R_ν = +λ ∂φ/∂q̇_ν, the
    convention of CONVENTIONS.md and of seed 002 (its (4) has −λ ∂f/∂q'_ν on the left).
    """
    system = as_nonlinear(system)
    S = system.space
    Sacc = system.acceleration_energy()
    accel = [sp.diff(Sacc, a) for a in S.qdd]
    return multiplier_equations("appell", system, accel, system.virtual_matrix, system.phi)


# ----------------------------------------------------------------------------------------------
# Maggi's equations for nonlinear constraints
# ----------------------------------------------------------------------------------------------
def _rank_at(M: sp.Matrix, state: Mapping) -> int | None:
    """Rank of M at a state (entries by :func:`real_value`, |entry| < :func:`~geonh.kernel.evaluation.state_tolerance` counted as zero);
    None where an entry is singular or not real there."""
    vals = [real_value(e, state) for e in M]
    if any(v is None for v in vals):
        return None
    tol = state_tolerance()
    return sp.Matrix(M.rows, M.cols, vals).rank(iszerofunc=lambda x: abs(x) < tol)


def _symbols_for(names: Sequence[str], tag: str) -> tuple[sp.Symbol, ...]:
    return tuple(sp.Symbol(f"{nm}{tag}", real=True) for nm in names)


def _inverted_frame(system, quasi: list, vstar: Sequence[sp.Symbol], inverse: Sequence | None,
                    branch: int | None) -> VelocityFrame:
    """The frame on TQ of ``quasi`` with the inverse of seed 003 eq. (25): ``inverse`` checked, or
    the branch of sympy's that reproduces the system's consistent states (each candidate is
    checked by building its :class:`VelocityFrame` on those states)."""
    S = system.space
    if len(quasi) != S.n or len(vstar) != S.n:
        raise DimensionError(f"{S.n} quasi-velocities needed, got {len(quasi)}")
    rng = random.Random(11)
    states = [system.sample_state(rng) for _ in range(2)]
    if singular_at(sp.Matrix([[sp.diff(w, v) for v in S.qd] for w in quasi]), states):
        raise SingularMapError(
            "the Jacobian ∂v*/∂q̇ of the chosen quasi-velocities is singular on the constraint "
            "manifold: the inverse q̇(t, q, v*) (seed 003, eq. (25)) does not exist")

    def frame(cand: Sequence) -> VelocityFrame | None:
        try:
            return VelocityFrame(S, quasi, vstar, cand, states=states)
        except SingularMapError:
            return None

    if inverse is not None:
        if len(inverse) != S.n:
            raise DimensionError(f"the inverse needs {S.n} expressions q̇(t, q, v*), got {len(inverse)}")
        found = frame(inverse)
        if found is None:
            raise SingularMapError("the given inverse q̇(t, q, v*) does not invert the quasi-velocities "
                                   "(v*(q̇(v*)) ≠ v* at a consistent state)")
        return found
    try:
        sols = sp.solve([q - w for q, w in zip(quasi, vstar)], list(S.qd), dict=True)
    except NotImplementedError:
        sols = []
    cands = [[s[v] for v in S.qd] for s in sols if all(v in s for v in S.qd)]
    if not cands:
        raise NotFoundError("sympy cannot invert the quasi-velocities v*(t, q, q̇) (seed 003, eq. (25)); "
                            "pass inverse=[q̇^1(t, q, v*), ...]")
    if branch is not None:
        if not 0 <= branch < len(cands):
            raise NotFoundError(f"branch {branch} requested, sympy found {len(cands)} branch(es)")
        cands = [cands[branch]]
    good = [f for f in map(frame, cands) if f is not None]
    if len(good) != 1:
        raise NotFoundError(
            f"sympy found {len(cands)} branch(es) of the inverse, {len(good)} of which reproduce the "
            f"system's consistent states: pass branch= or inverse= ({cands})")
    return good[0]


def invert_quasi_velocities(system, quasi: Sequence, vstar: Sequence[sp.Symbol], *,
                            inverse: Sequence | None = None, branch: int | None = None) -> list[sp.Expr]:
    """The inverse q̇^σ = q̇^σ(t, q, v*) of seed 003 eq. (25) for v*^ρ = quasi[ρ](t, q, q̇).

    * The Jacobian ∂v*/∂q̇ must be nonsingular at the generic point of the constraint manifold;
      otherwise no inverse exists and :class:`SingularMapError` is raised.
    * ``inverse`` given: it is checked (v*(q̇(v*)) = v* at random consistent states).
    * otherwise sympy's ``solve``; no solution raises :class:`NotFoundError` asking for
      ``inverse=``.  Several branches: ``branch`` picks one; without it the branch that
      reproduces the velocities of random consistent states is taken (exactly one must).
      Either way the branch is checked on consistent states.
    """
    system = as_nonlinear(system)
    S = system.space
    quasi = [as_expr(q, S.state_symbols, what="quasi-velocity") for q in as_sequence(quasi, "quasi")]
    vstar = as_symbols(vstar, what="vstar")
    inverse = _inverse_of(inverse, S, vstar)
    return list(_inverted_frame(system, quasi, vstar, inverse, branch).inverse)


def _inverse_of(inverse, space, vstar) -> list | None:
    """The user's inverse q̇(t, q, v*) converted at the boundary (None: sympy solves)."""
    if inverse is None:
        return None
    return [as_expr(e, space.state_symbols + tuple(vstar), what="inverse q̇(t, q, v*)")
            for e in as_sequence(inverse, "inverse")]


def velocity_frame(system, quasi: Sequence, *, names: Sequence[str] | None = None,
                   inverse: Sequence | None = None, branch: int | None = None) -> VelocityFrame:
    """The frame on TQ (:class:`~geonh.kernel.velocity_frames.VelocityFrame`) of quasi-velocities
    ``quasi`` = (v*^1 … v*^n) in (t, q, q̇) adapted to a system's constraints: the first
    l = n − k are free (named ``names``, default v1 …), the last k vanish exactly on the constraint
    manifold with the constraints' Chetaev forms there (Juschkov, eq. (27)) — the constraints
    themselves, or any such functions.  The inverse q̇(t, q, v*) (eq. (25)) is ``inverse``, or
    sympy's, with the branch that reproduces the system's consistent states
    (:func:`invert_quasi_velocities`)."""
    system = as_nonlinear(system)
    S = system.space
    n, k = S.n, system.n_constraints
    l = n - k
    quasi = [as_expr(q, S.state_symbols, what="quasi-velocity") for q in as_sequence(quasi, "quasi")]
    if len(quasi) != n:
        raise DimensionError(f"{n} quasi-velocities needed (l = {l} free, then the {k} constraints), "
                             f"got {len(quasi)}")
    if names is not None:
        names = as_names(names, "names of the free quasi-velocities")
    if inverse is not None:
        inverse = as_sequence(inverse, "inverse")
    rng = random.Random(5)
    states = [system.sample_state(rng) for _ in range(2)]
    if k:
        Jphi = system.constraint_jacobian
        Jc = sp.Matrix([[sp.diff(w, v) for v in S.qd] for w in quasi[l:]])
        for st in states:
            for w in quasi[l:]:
                x = real_value(w, st)
                if x is None or abs(x) > state_tolerance():
                    raise RankError(f"the constraint quasi-velocity {w} does not vanish on the constraint "
                                    "manifold: the last k quasi-velocities must be the constraints (27)")
            rk = _rank_at(Jphi.col_join(Jc), st)
            if rk is None or rk != k:
                raise RankError("the last k quasi-velocities do not have the constraints' Chetaev forms "
                                "on the constraint manifold")
    if names is None:
        # v1, v2, … unless the system already has a symbol of that name (a parameter v1, say)
        taken = {x.name for e in (*quasi, system.T, *system.phi, *system.Q) for x in sympy_of(e).free_symbols}
        prefix = next(p for p in ("v", "v_star", "w_star") if not any(f"{p}{i + 1}" in taken for i in range(l)))
        names = [f"{prefix}{i + 1}" for i in range(l)]
    names = list(names)
    if len(names) != l:
        raise DimensionError(f"{l} names for the free quasi-velocities needed, got {len(names)}")
    vstar = _symbols_for(names, "") + tuple(sp.Symbol(f"v_c{j + 1}", real=True) for j in range(k))
    return _inverted_frame(system, quasi, vstar, _inverse_of(inverse, S, vstar), branch)


class _OnTQ:
    """A system's motion written in a frame on TQ: speeds u = the free v*, v*_c = 0 on the motion,
    q̇ = K(t, q, u), q̈ = d/dt K along the motion (linear in u̇), and the frame fields ε_τ there."""

    def __init__(self, system, frame: VelocityFrame):
        S = system.space
        if frame.space is not S:
            raise DimensionError("the frame on TQ belongs to another configuration space")
        self.system, self.frame = system, frame
        n, k = S.n, system.n_constraints
        self.l = l = n - k
        self.u, self.ud = speed_symbols([w.name for w in frame.v[:l]])
        self.on = {**{frame.v[l + j]: sp.S.Zero for j in range(k)}, **dict(zip(frame.v[:l], self.u))}
        self.K = [e.xreplace(self.on) for e in frame.inverse]
        self.eps = [[frame.basis[s, t].xreplace(self.on) for s in range(n)] for t in range(n)]  # eps[τ][σ]
        self.sub = motion_substitution(system, self.K, self.u, self.ud)

    def motion(self, expr: sp.Expr) -> sp.Expr:
        """expr(t, q, q̇, q̈) on the motion, in (t, q, u, u̇)."""
        return sympy_of(expr).xreplace(self.sub)

    def project(self, row: Sequence[sp.Expr], tau: int) -> sp.Expr:
        """Σ_σ row_σ ε^σ_τ."""
        e = self.eps[tau]
        return sum((row[s] * e[s] for s in range(len(row)) if e[s] != 0), sp.S.Zero)

    def equations(self, form: str, residuals: Sequence[sp.Expr], **kw) -> Equations:
        f = self.frame
        return Equations(form, self.system, self.u, self.ud, self.K, f.quasi[:self.l], residuals,
                         details={"frame": f, "basis": self.eps, "inverse": list(f.inverse),
                                  "quasi": list(f.quasi), **kw.pop("details", {})}, **kw)


def _frame_of(system, quasi, names, inverse, branch) -> VelocityFrame:
    if isinstance(quasi, VelocityFrame):
        return quasi
    return velocity_frame(system, quasi, names=names, inverse=inverse, branch=branch)


def maggi_nonlinear(system, quasi: Sequence | VelocityFrame, *, names: Sequence[str] | None = None,
                    inverse: Sequence | None = None, branch: int | None = None) -> Equations:
    """Maggi's equations for (possibly nonlinear) constraints, seed 003 eqs. (24)–(30): the
    projection of Lagrange's expressions onto a frame on TQ (:func:`velocity_frame`, or a
    :class:`VelocityFrame` as ``quasi``).

    ``quasi`` = (v*^1 … v*^n), expressions in (t, q, q̇): the first l = n − k are the free
    quasi-velocities (the speeds u of the result), the last k the constraints, v*^{l+κ} = φ^κ
    (27) — any functions vanishing exactly on the constraint manifold with the same Chetaev
    forms there are accepted; the reactions Λ are then the multipliers of *these* functions.
    With ε_τ^σ = ∂q̇^σ/∂v*^τ (26) at v*^{l+κ} = 0 and MW_σ − Q_σ = d/dt ∂T/∂q̇^σ − ∂T/∂q^σ − Q_σ:

        (MW_σ − Q_σ) ∂q̇^σ/∂v*^λ = 0,        λ = 1 … l                             (28)
        (MW_σ − Q_σ) ∂q̇^σ/∂v*^{l+κ} = Λ_κ,   κ = 1 … k                             (30)

    (the printed (30) says κ = l … k; the range is 1 … k).  Λ_κ = λ_κ of :func:`appell` /
    :func:`chetaev_lagrange` when v*^{l+κ} = φ^κ, since ∂φ^μ/∂q̇^σ ∂q̇^σ/∂v*^{l+κ} = δ^μ_κ.
    The reactions are stored in :attr:`Equations.reactions` as expressions in (t, q, u, u̇).
    """
    system = as_nonlinear(system)
    M = _OnTQ(system, _frame_of(system, quasi, names, inverse, branch))
    LQ = [M.motion(L - Q) for L, Q in zip(system.lagrange_operator, system.Q)]
    n = system.space.n
    res = [M.project(LQ, lam) for lam in range(M.l)]
    reac = [M.project(LQ, tau) for tau in range(M.l, n)]
    return M.equations("maggi-nonlinear", res, reactions=reac, notes="reactions = Λ_κ of seed 003 eq. (30)")


def gibbs_appell_nonlinear(system, quasi: Sequence | VelocityFrame, *, names: Sequence[str] | None = None,
                           inverse: Sequence | None = None, branch: int | None = None) -> Equations:
    """Gibbs–Appell equations in a frame on TQ (Appell 1911): with Appell's acceleration energy
    S(t, q, q̇, q̈) (:meth:`MechanicalSystem.acceleration_energy`, from Christoffel symbols) written
    on the motion in the quasi-accelerations, q̈ = ε_τ v̇*^τ + …,

        ∂S/∂v̇*^λ = Q_σ ε^σ_λ,        λ = 1 … l.

    Since ∂q̈^σ/∂v̇*^λ = ε^σ_λ this is Maggi's projection reached through S instead of Lagrange's
    expressions: an independent route on the same frame."""
    system = as_nonlinear(system)
    M = _OnTQ(system, _frame_of(system, quasi, names, inverse, branch))
    Sacc = M.motion(system.acceleration_energy())
    Q = [M.motion(q) for q in system.Q]
    res = [sp.diff(Sacc, M.ud[lam]) - M.project(Q, lam) for lam in range(M.l)]
    return M.equations("gibbs-appell-nonlinear", res)


def boltzmann_hamel_nonlinear(system, quasi: Sequence | VelocityFrame, *, names: Sequence[str] | None = None,
                              inverse: Sequence | None = None, branch: int | None = None) -> Equations:
    """The Boltzmann–Hamel equations in a frame on TQ (Novoselov's form of Hamel's
    Lagrange–Euler equations, Hamel 1924, eq. (19'), with the transpositional coefficients of
    :meth:`VelocityFrame.transposition`):

        d/dt ∂T*/∂v*^λ + Γ^ρ_λ ∂T*/∂v*^ρ − ε_λ(T*) = Q_σ ε^σ_λ,      λ = 1 … l,

    T*(t, q, v*) = T(t, q, q̇(t, q, v*)), Γ^ρ_λ = E_σ(v*^ρ) ε^σ_λ, ε_λ(T*) = ε^σ_λ ∂T*/∂q^σ at
    constant v*; the sum over ρ runs over every quasi-velocity, the constraint ones included
    (their momenta ∂T*/∂v*_c stay in the Γ term), and v*_c = 0 only after differentiating.
    For linear quasi-velocities Γ^ρ_λ = c^ρ_λb ω^b and this is :func:`boltzmann_hamel`."""
    system = as_nonlinear(system)
    frame = _frame_of(system, quasi, names, inverse, branch)
    M = _OnTQ(system, frame)
    S = system.space
    n = S.n
    Tstar = frame.in_quasi(system.T)
    p = [sp.diff(Tstar, w) for w in frame.v]
    p_on = [e.xreplace(M.on) for e in p]
    pdot = [S.total_derivative(e, along=M.K, speeds=M.u, rates=M.ud) for e in p_on[:M.l]]
    Gam = frame.transposition().applyfunc(M.motion)
    dT = [sp.diff(Tstar, q).xreplace(M.on) for q in S.q]
    Q = [M.motion(q) for q in system.Q]
    res = [pdot[lam] + sum((Gam[r, lam] * p_on[r] for r in range(n) if p_on[r] != 0), sp.S.Zero)
           - M.project(dT, lam) - M.project(Q, lam) for lam in range(M.l)]
    return M.equations("boltzmann-hamel-nonlinear", res, details={"transposition": Gam})


def reactions_at(eq: Equations, state: Mapping) -> list:
    """Evaluate :attr:`Equations.reactions` of a Maggi result at a state {t, q, q̇, parameters}:
    u from the speeds, u̇ from the equations (exact or PRECISION digits)."""
    vals = as_values(state, eq.space.state_symbols + tuple(eq.u), what="state")
    for u, s in zip(eq.u, eq.speeds):
        vals.setdefault(u, to_sympy(value_at(s, vals)))
    x = eq.solve_point(vals)
    vals.update(dict(zip(eq.unknowns, x)))
    return [to_sympy(value_at(r, vals)) for r in eq.reactions]


