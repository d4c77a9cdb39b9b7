"""Conserved quantities of nonholonomic systems: energy and Jacobi's integral, the nonholonomic
momentum map with its momentum equation, a search for first integrals polynomial in the
speeds, and the check of an integral along a simulated motion.

Every verdict ("conserved", "invariant", "in the constraint distribution") is decided from the
equations at the generic point (:func:`~geonh.kernel.generic_point.is_zero`), never assumed.
Signs follow CONVENTIONS.md: constraints A(t, q) q̇ + b(t, q) = 0 are ideal in Chetaev's
sense, the reaction is R_i = λ_κ A_κi and Lagrange's equations read
d/dt ∂T/∂q̇^i − ∂T/∂q^i = Q_i + R_i (Q includes −∂V/∂q).

1. Energy and Jacobi's integral (Painlevé; Neimark & Fufaev 1972, ch. III §1; Pars 1965,
   §§ 10.8, 14.6).  With L = T − V the Jacobi integral is h = q̇^i ∂L/∂q̇^i − L
   = T₂ − T₀ + V (T = T₂ + T₁ + T₀ by degree in q̇).  Along any motion

       dh/dt = −∂L/∂t + Q*·q̇ + R·q̇,     Q* = Q + ∂V/∂q  (the non-potential forces),

   and R·q̇ = λ_κ A_κi q̇^i = −λ_κ b_κ on the motion.  So h is conserved when L has no explicit
   time, the non-potential forces do no work and the reactions do no work — the last holds for
   homogeneous constraints (b = 0) even if A depends on t.  :func:`jacobi_integral` computes
   dh/dt from the equations (:func:`geonh.analysis.time_derivative`) and, independently, the
   three terms (the reaction from Lagrange's operator along the motion), checks that they add
   up, and decides each one.  For a scleronomic system h = E = T + V
   (:func:`energy_integral`).

2. Nonholonomic momentum map (Bloch, Krishnaprasad, Marsden & Murray 1996, ARMA 136, 21–99,
   §§ 3–4; Bloch 2003, *Nonholonomic Mechanics and Control*, § 5.4).  A symmetry is given by
   infinitesimal generators X_1 … X_k (vector fields on Q).  They must leave L invariant
   (X_a^T(T) = 0 for the tangent lift X^T = X^i ∂_{q^i} + ∂_j X^i q̇^j ∂_{q̇^i}, and
   X_a(V) = 0) and the constraint distribution invariant ((L_{X_a} θ^κ)(Y) = −θ^κ([X_a, Y]) = 0
   for every Y ∈ D) — :func:`check_symmetry` raises :class:`SymmetryError` naming the generator
   and the failing condition otherwise.  S_q = D_q ∩ T_q(orbit) is the bundle of the generator
   combinations ξ^Q = c^a(q) X_a with A ξ^Q = 0; a basis of its sections is the null space of
   A·[X_1 … X_k] (denominators cleared, then in reduced echelon form over the coordinate basis
   so that coordinate fields such as ∂_θ come out as such).  The nonholonomic momentum is

       J(ξ) = ∂L/∂q̇ · ξ^Q = p_i ξ^{Q i},

   and the momentum equation (BKMM96, Theorem 4.5) is

       d/dt J(ξ) = ∂L/∂q̇ · (dξ/dt)^Q  (+ Q*·ξ^Q with non-potential forces),
       (dξ/dt)^Q = (∂_t c^a + ∂_{q^j} c^a q̇^j) X_a.

   Derivation (the check the code repeats): d/dt(p·Y) = ṗ·Y + p·(∂_j Y q̇^j) with
   ṗ = ∂T/∂q + Q + R, R·Y = λ A Y = 0, and invariance ∂T/∂q·X_a + p·(∂_j X_a q̇^j) = 0,
   X_a(V) = 0.  Along equations M u̇ = F, q̇ = K_u u + k_0 whose speeds span D, ξ = K_u y and
   ∂J/∂u = ξᵀ G K_u = yᵀ M for the frame forms' M = K_uᵀ G K_u, so dJ/dt = ∂_t J + ∂_q J · K + y·F
   without the rates M⁻¹F (checked, with the general derivative as fallback).
   A momentum with constant c (a *horizontal symmetry*) is conserved;
   :func:`conserved_momenta` decides every section by whether the right-hand side vanishes
   identically on the constraints.  :meth:`MomentumMap.check` verifies the momentum equation
   against the equations of motion.

3. First integrals polynomial in the speeds (:func:`polynomial_first_integrals`).  Ansatz
   I = Σ c_k φ_k(q) μ_k(u): μ_k the monomials of the speeds u of degree 0 … ``degree``, φ_k
   trigonometric (1, cos jθ, sin jθ, j ≤ order) or polynomial (θ^j) in a chosen coordinate
   subset, or given functions, and c_k unknown constants that may depend on the parameters.
   İ = Σ c_k İ_k must vanish identically along the constrained equations (u̇ = M⁻¹F of a
   form without multipliers).  That is linear in c: at sample configurations the İ_k are
   polynomials in u whose coefficients (rational functions of the parameters, exactly: angles
   are sampled at points of the unit circle with rational sine and cosine, cos θ = (1 − s²)/(1 + s²),
   sin θ = 2s/(1 + s²), and other coordinates at rationals) give the rows of a linear system
   over the field ℚ(parameters); its null space is the space of integrals of the ansatz.  It
   is found at a random rational point of the parameters first (rows over ℚ: the rank, the
   free columns and the support of each free column's null vector in the reduced echelon
   form), then, free column by free column, as a small square system on that support with
   the parameters symbolic (:func:`~geonh.kernel.linalg.solve_in_field`): the expression
   swell of an elimination over ℚ(parameters) on all columns is avoided.  Every candidate is
   verified at the generic point before it is returned; an empty result says that the ansatz
   has no integral.

4. :func:`verify_along` — max |I(t) − I(t₀)| along :func:`geonh.simulate`.
"""
from __future__ import annotations

import itertools
import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import sympy as sp
from sympy.polys.matrices import DomainMatrix

from ..equations.base import Equations
from .integrals import rates as _rates
from .integrals import expression_in, rate_from_forces, rate_vanishes, time_derivative
from ..errors import DimensionError, GeonhError, NotLinearError, SelfCheckError, SingularMapError, SpaceMismatchError
from ..kernel.distributions import potential
from ..kernel.budget import check as check_budget
from ..kernel.fields import VectorField
from ..kernel.generic_point import (
    generic_rank,
    independent_rows,
    is_zero,
    lu_solve,
    nullspace,
    rref,
)
from ..kernel.elementary import TRIG_FUNCTIONS
from ..kernel.linalg import Echelon, solve_in_field
from ..kernel.trig import shorten_trig
from ..kernel.sampling import GENERIC_SPAN, random_values
from ..systems.mechanical import MechanicalSystem
from ..transposition.adapted import solve_constraints
from ..kernel.parsing import as_sequence, sympy_of

__all__ = ["Integral", "IntegralSearch", "MomentumMap", "NonholonomicMomentum", "SymmetryError",
           "check_symmetry", "conserved_momenta", "energy_integral", "jacobi_integral", "momentum_map",
           "integrating_factor_integrals", "polynomial_first_integrals", "verify_along"]


class SymmetryError(GeonhError, ValueError):
    """Generators that are not a symmetry of the system: the Lagrangian or the constraint
    distribution is not invariant (the message names the generator and the condition)."""


# ----------------------------------------------------------------------------------------------
# results
# ----------------------------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class Integral:
    """A quantity and its conservation verdict.

    ``expression`` is in the variables of the equations it was computed for (t, q, u), or in
    (t, q, q̇) when no equations were given; ``rate`` is its time derivative along the motion
    (unsimplified); ``conserved`` is the generic-point verdict rate ≡ 0; ``terms`` splits the
    rate into named contributions with ``vanishing`` the verdict for each; ``source`` cites
    the result."""

    name: str
    expression: sp.Expr
    conserved: bool
    rate: sp.Expr = sp.S.Zero
    terms: Mapping[str, sp.Expr] = field(default_factory=dict)
    vanishing: Mapping[str, bool] = field(default_factory=dict)
    source: str = ""
    note: str = ""

    def __str__(self) -> str:
        verdict = "conserved" if self.conserved else "not conserved"
        return f"{self.name} = {self.expression}: {verdict}"

    def reasons(self) -> list[str]:
        """The contributions to the rate that do not vanish (empty when conserved)."""
        return [k for k, v in self.vanishing.items() if not v]


@dataclass(frozen=True, eq=False)
class NonholonomicMomentum:
    """One section ξ^Q = c^a(q) X_a of S = D ∩ T(orbit) with its momentum J = p·ξ^Q and the
    right-hand side of the momentum equation dJ/dt = p·(dξ/dt)^Q + Q*·ξ^Q, both in (t, q, q̇).
    ``horizontal``: c is constant; ``conserved``: the right-hand side vanishes identically on
    the constraints (decided at the generic point)."""

    section: VectorField
    coefficients: tuple[sp.Expr, ...]
    momentum: sp.Expr
    rate: sp.Expr
    horizontal: bool
    conserved: bool

    @property
    def equation(self) -> sp.Eq:
        """dJ/dt = rate, with dJ/dt written as the symbol ``dJ/dt``."""
        return sp.Eq(sp.Symbol("dJ/dt"), self.rate, evaluate=False)


@dataclass(frozen=True, eq=False)
class MomentumMap:
    """The nonholonomic momentum map of ``system`` for the symmetry ``generators``
    (module doc, BKMM96): ``momenta`` one :class:`NonholonomicMomentum` per basis section of
    S = D ∩ T(orbit)."""

    system: MechanicalSystem
    generators: tuple[VectorField, ...]
    momenta: tuple[NonholonomicMomentum, ...]

    @property
    def rank(self) -> int:
        """Rank of the bundle S = D ∩ T(orbit)."""
        return len(self.momenta)

    @property
    def sections(self) -> list[VectorField]:
        return [m.section for m in self.momenta]

    def on(self, eqs: Equations) -> list[Integral]:
        """Each momentum as an :class:`Integral` in the variables (t, q, u) of ``eqs`` (q̇ = K),
        with its rate along the equations and the verdict.  The rate is
        ∂_t J + ∂_q J · K + y·F where ∂J/∂u = Mᵀy holds (``_momentum_rate``; no u̇ = M⁻¹F),
        the general derivative otherwise; a :func:`geonh.budget` is checked between momenta."""
        rates = _LazyRates(eqs)
        out = []
        for k, m in enumerate(self.momenta):
            check_budget("momenta on the equations", k, self.rank, "momenta")
            J = _on_motion(eqs, m.momentum)
            r = _momentum_rate(eqs, J, m.section, rates)
            out.append(Integral(f"J{k + 1}", _trigsimp_if_shorter(J), is_zero(r), r, source=_BKMM,
                                note=f"nonholonomic momentum along {m.section}"))
        return out

    def check(self, eqs: Equations) -> list[bool]:
        """For each momentum: does the momentum equation hold along ``eqs``, i.e. is
        dJ/dt computed from the equations of motion minus the right-hand side p·(dξ/dt)^Q
        identically zero?"""
        rates = _LazyRates(eqs)
        out = []
        for k, m in enumerate(self.momenta):
            check_budget("momentum equations on the equations", k, self.rank, "momenta")
            lhs = _momentum_rate(eqs, _on_motion(eqs, m.momentum), m.section, rates)
            out.append(is_zero(lhs - _on_motion(eqs, m.rate)))
        return out


@dataclass(frozen=True, eq=False)
class IntegralSearch:
    """Result of :func:`polynomial_first_integrals`: ``integrals`` a basis (over the constants,
    which may depend on the parameters) of the first integrals of the ansatz, each verified;
    ``ansatz`` the basis functions φ_k μ_k; ``complete`` False when functions of the state
    other than sin/cos of coordinates had to be treated as independent unknowns (then an
    empty result is only "none found")."""

    equations: Equations
    ansatz: tuple[sp.Expr, ...]
    integrals: tuple[sp.Expr, ...]
    complete: bool = True
    dropped: tuple[sp.Expr, ...] = ()

    @property
    def found(self) -> bool:
        return bool(self.integrals)

    def message(self) -> str:
        if self.integrals:
            return f"{len(self.integrals)} first integral(s) of the ansatz: " + ", ".join(map(str, self.integrals))
        if self.complete:
            return f"no first integral of this ansatz exists ({len(self.ansatz)} ansatz functions)"
        return (f"no first integral of this ansatz was found ({len(self.ansatz)} ansatz functions; functions of "
                "the state other than sin/cos of coordinates were treated as independent, so the search is "
                "not conclusive)")

    def __str__(self) -> str:
        return self.message()

    def contains(self, expr) -> bool:
        """Is ``expr`` (in the equations' variables) a linear combination, with coefficients
        constant along the motion (parameters allowed), of the integrals found?"""
        fs = [sympy_of(e) for e in self.integrals]
        e = expression_in(self.equations, expr)
        return _rank_of_functions(self.equations, fs + [e]) == _rank_of_functions(self.equations, fs)

    def independent(self) -> list[sp.Expr]:
        """A functionally independent subset of the integrals (greedy, by the generic rank of
        their Jacobian in (q, u))."""
        eqs = self.equations
        vars_ = list(eqs.space.q) + list(eqs.u)
        keep: list[sp.Expr] = []
        for I in self.integrals:
            trial = keep + [I]
            J = sp.Matrix([[sp.diff(f, v) for v in vars_] for f in trial])
            if generic_rank(J) == len(trial):
                keep = trial
        return keep


_BKMM = "Bloch, Krishnaprasad, Marsden & Murray 1996, Arch. Rational Mech. Anal. 136, Thm 4.5"
_JACOBI = "Painlevé–Jacobi integral; Neimark & Fufaev 1972, ch. III § 1; Pars 1965, § 14.6"


# ----------------------------------------------------------------------------------------------
# helpers
# ----------------------------------------------------------------------------------------------
def _on_motion(eqs: Equations, expr) -> sp.Expr:
    return sympy_of(expr).xreplace(dict(zip(eqs.space.qd, eqs.kinematics)))


class _LazyRates:
    """The rates u̇ = M⁻¹F of ``eqs`` (:func:`~geonh.analysis.integrals.rates`), solved on first use
    only: the momenta on the equations usually do without them (``_momentum_rate``)."""

    def __init__(self, eqs: Equations):
        if not isinstance(eqs, Equations) or eqs.lam_vec:
            _rates(eqs)          # raises: not Equations, or a form with multipliers
        self.eqs = eqs
        self._value: list[sp.Expr] | None = None

    def __call__(self) -> list[sp.Expr]:
        if self._value is None:
            self._value = _rates(self.eqs)
        return self._value


def _momentum_rate(eqs: Equations, J: sp.Expr, section: VectorField, rates: _LazyRates) -> sp.Expr:
    """dJ/dt along ``eqs`` (M u̇ = F, q̇ = K(t, q, u)) for the momentum J = p·ξ of a section ξ of D
    written in the variables (t, q, u), without the rates u̇ = M⁻¹F where the mass matrix allows.

    With q̇ = K_u u + k_0 (K_u = ∂K/∂u, whose columns span D) write ξ = K_u y.  Then
    ∂J/∂u = ξᵀ G K_u = yᵀ K_uᵀ G K_u (G the Hessian of T in q̇), and K_uᵀ G K_u is the mass
    matrix of the frame forms (Boltzmann–Hamel, Gibbs–Appell, …; its negative in Kane's form,
    where y changes sign): when ∂J/∂u = Mᵀ y is verified (entry by entry at the generic point, on small expressions),

        ∂J/∂u · M⁻¹F = yᵀ M M⁻¹ F = y·F,   so   dJ/dt = ∂_t J + ∂_q J · K + y·F,

    the same function of the state as :func:`~geonh.analysis.integrals.time_derivative` gives,
    without M⁻¹F (an LU solve whose entries, on the spherical robot's 6 speeds, hold ~10⁶
    operations as a tree: minutes and gigabytes for the verdict).  y solves the rows of
    K_u y = ξ that are independent at the generic point; the identity ∂J/∂u = ±Mᵀ y alone
    makes the result exact, whatever y (:func:`~geonh.analysis.integrals.rate_from_forces`
    with ρ = ±y).  Where it fails (ξ not in the span of K_u, M not of
    that form) the derivative is the general one of
    :func:`~geonh.analysis.integrals.time_derivative` with the rates."""
    S = eqs.space
    u = list(eqs.u)
    M = eqs.mass_matrix
    n, m = S.n, len(u)
    xi = list(section.components[:n])
    out = None
    if m and M.shape == (m, m):
        Ku = sp.Matrix([[sp.diff(k, v) for v in u] for k in eqs.kinematics])
        if Ku.free_symbols.isdisjoint(u):
            rows = independent_rows(Ku)
            if len(rows) == m:
                try:
                    sol = lu_solve(Ku.extract(rows, list(range(m))), sp.Matrix([xi[r] for r in rows]),
                                   what="kinematic matrix")
                except SingularMapError:
                    sol = None
                if sol is not None:
                    cand = [sp.cancel(sp.together(e)) for e in sol]
                    # Kane's form: M = −K_uᵀ G K_u, F with it
                    out = rate_from_forces(eqs, J, [cand, [-e for e in cand]])
    if out is None:
        return time_derivative(eqs, J, rates())
    return out


def _system(obj) -> MechanicalSystem:
    system = obj.system if isinstance(obj, Equations) else obj
    if not isinstance(system, MechanicalSystem):
        raise DimensionError(f"a MechanicalSystem (or Equations of one) is needed, not {type(system).__name__}")
    return system


def _lagrangian(system: MechanicalSystem) -> sp.Expr:
    return system.T - system.V


def _nonpotential_forces(system: MechanicalSystem) -> list[sp.Expr]:
    return [Q + sp.diff(system.V, q) for Q, q in zip(system.Q, system.space.q)]


# ----------------------------------------------------------------------------------------------
# 1. energy and Jacobi's integral
# ----------------------------------------------------------------------------------------------
def jacobi_integral(eqs: Equations) -> Integral:
    """Jacobi's integral h = q̇·∂L/∂q̇ − L = T₂ − T₀ + V on the motion of ``eqs`` (a form
    without multipliers), with dh/dt from the equations and its three contributions
    (module doc, item 1):

    * ``"-dL/dt (explicit time)"``: −∂L/∂t;
    * ``"power of non-potential forces"``: Q*·q̇;
    * ``"power of the reactions"``: R·q̇ = −λ·b, zero for homogeneous constraints (b ≡ 0,
      decided), otherwise R = Lagrange's operator − Q along the motion.

    Each is decided at the generic point (``vanishing``); ``conserved`` is the verdict on
    dh/dt itself.  A decomposition that does not add up to dh/dt raises ``AssertionError``
    (it would be a bug)."""
    return _jacobi(eqs, display=True)


def _jacobi(eqs: Equations, *, display: bool) -> Integral:
    """:func:`jacobi_integral`; ``display=False`` leaves h unsimplified (for a caller that
    shows another, equal expression: the display simplification is the costly part)."""
    system = _system(eqs)
    S = eqs.space
    L = _lagrangian(system)
    h = sum((v * sp.diff(L, v) for v in S.qd), sp.S.Zero) - L
    rates = _rates(eqs)
    h_on = _on_motion(eqs, h)
    hdot = time_derivative(eqs, h_on, rates)
    terms: dict[str, sp.Expr] = {}
    terms["-dL/dt (explicit time)"] = _on_motion(eqs, -sp.diff(L, S.t)) if S.t is not None else sp.S.Zero
    Qs = _nonpotential_forces(system)
    terms["power of non-potential forces"] = _on_motion(eqs, sum((Q * v for Q, v in zip(Qs, S.qd)), sp.S.Zero))
    _, b = system.constraint_matrix
    if all(is_zero(e) for e in b):
        terms["power of the reactions"] = sp.S.Zero
        note = "constraints homogeneous (b = 0): the reactions do no work on the motion"
    else:
        K = list(eqs.kinematics)
        qdd = [S.total_derivative(k, along=K, speeds=eqs.u, rates=rates) for k in K]
        Lop = [sympy_of(e).xreplace(dict(zip(S.qdd, qdd))) for e in system.lagrange_operator]
        R = [_on_motion(eqs, lo - Q) for lo, Q in zip(Lop, system.Q)]
        terms["power of the reactions"] = sum((r * k for r, k in zip(R, K)), sp.S.Zero)
        note = "affine (rheonomic) constraints: the reactions' power is R·q̇ = −λ·b"
    vanishing = {k: is_zero(v) for k, v in terms.items()}
    conserved = rate_vanishes(eqs, h_on, hdot)
    total = sum(terms.values(), sp.S.Zero)
    # the self-check dh/dt − Σ terms ≡ 0; when the terms are the expression 0 (homogeneous
    # constraints, no forces, no time) it is the verdict on dh/dt itself, decided just above
    # (dh/dt is a large expression: the rates u̇ = M⁻¹F sit in it, ~1 s per decision on the
    # Chaplygin ball)
    if not (conserved if total == 0 else is_zero(hdot - total)):
        raise SelfCheckError("dh/dt differs from −∂L/∂t + Q*·q̇ + R·q̇ along the motion")
    if conserved and not all(vanishing.values()):
        note += "; the non-zero contributions cancel"
    return Integral("h", _trigsimp_if_shorter(h_on) if display else h_on, conserved, hdot, terms, vanishing,
                    _JACOBI, note)


def energy_integral(eqs: Equations) -> Integral:
    """The energy E = T + V on the motion of ``eqs`` and whether it is conserved (decided from
    the equations).  When T is quadratic in q̇, T and V have no explicit time and the
    constraints are homogeneous (b = 0; A may depend on t) E = h
    and the rate is split as in :func:`jacobi_integral` (Ė = Q*·q̇; the reactions of
    homogeneous constraints do no work).  Otherwise E ≠ h in general: only the verdict on
    Ė is given, with the note to use :func:`jacobi_integral`."""
    system = _system(eqs)
    S = eqs.space
    E = system.T + system.V
    _, b1, T0 = system.quadratic_parts
    scleronomic = ((S.t is None or not E.has(S.t)) and all(is_zero(e) for e in b1) and is_zero(T0)
                   and all(is_zero(e) for e in system.constraint_matrix[1]))
    if scleronomic:
        j = _jacobi(eqs, display=False)   # its h is E here: simplified once, below
        return Integral("E", _trigsimp_if_shorter(_on_motion(eqs, E)), j.conserved, j.rate, j.terms, j.vanishing,
                        "energy theorem: dE/dt = Q*·q̇ + R·q̇, R·q̇ = 0 for homogeneous ideal constraints",
                        "T quadratic in q̇, no explicit time in T, V, and homogeneous constraints: "
                        "E = T + V equals Jacobi's integral")
    E_on = _on_motion(eqs, E)
    r = time_derivative(eqs, E_on, _rates(eqs))
    return Integral("E", _trigsimp_if_shorter(E_on), rate_vanishes(eqs, E_on, r), r, source="energy theorem",
                    note="rheonomic system: E = T + V differs from Jacobi's integral; see jacobi_integral")


# ----------------------------------------------------------------------------------------------
# 2. nonholonomic momentum map
# ----------------------------------------------------------------------------------------------
def _as_field(space, g, k: int) -> VectorField:
    if isinstance(g, VectorField):
        if g.space != space:
            raise SpaceMismatchError(f"generator {k + 1} lives on another space")
        if space.t is not None and not is_zero(g.components[-1]):
            raise DimensionError(f"generator {k + 1} has a time component; symmetries act on q only")
        return g
    if isinstance(g, Mapping):
        return VectorField.from_dict(space, g)
    comps = as_sequence(g, f"generator {k + 1}")
    if len(comps) == space.n and space.t is not None:
        comps = comps + [0]
    return VectorField(space, comps)


def _tangent_lift(space, X: VectorField, f: sp.Expr) -> sp.Expr:
    """X^T(f) = X^i ∂f/∂q^i + (∂_j X^i q̇^j) ∂f/∂q̇^i (X with no time component)."""
    q, qd = space.q, space.qd
    out = sp.S.Zero
    for i in range(space.n):
        Xi = X.components[i]
        if Xi != 0:
            out += Xi * sp.diff(f, q[i])
        dXi = sum((sp.diff(Xi, q[j]) * qd[j] for j in range(space.n)), sp.S.Zero)
        if dXi != 0:
            out += dXi * sp.diff(f, qd[i])
    return out


def _bracket(space, X: Sequence, Y: Sequence) -> list[sp.Expr]:
    c = space.coords
    N = len(c)
    return [sum((X[i] * sp.diff(Y[k], c[i]) - Y[i] * sp.diff(X[k], c[i]) for i in range(N)), sp.S.Zero)
            for k in range(N)]


def _name(k: int, X: VectorField) -> str:
    terms = [f"({c})*d_{s.name}" for c, s in zip(X.components, X.space.coords) if c != 0]
    return f"X{k + 1} = " + (" + ".join(terms) if terms else "0")


def check_symmetry(system, generators: Sequence) -> tuple[VectorField, ...]:
    """Check that ``generators`` (vector fields on Q: :class:`VectorField`, component
    sequences over q, or {coordinate: component} mappings) are infinitesimal symmetries of the
    nonholonomic system: for each X_a

    * the kinetic energy is invariant under the tangent lift, X_a^T(T) ≡ 0;
    * the potential is invariant, X_a(V) ≡ 0;
    * the constraint distribution is invariant: θ^κ([X_a, Y]) ≡ 0 for every θ^κ of the
      constraints and every Y of a basis of D (on a space with time, of the kernel of the full
      constraint forms A dq + b dt, so the affine part must be invariant too).

    Returns the generators as vector fields; raises :class:`SymmetryError` naming the first
    generator and condition that fail."""
    system = _system(system)
    S = system.space
    X = tuple(_as_field(S, g, k) for k, g in enumerate(as_sequence(generators, "generators")))
    if not X:
        raise DimensionError("no generators given")
    for k, Xa in enumerate(X):
        lift = _tangent_lift(S, Xa, system.T)
        if not is_zero(lift):
            raise SymmetryError(f"{_name(k, Xa)} does not leave the kinetic energy invariant: its tangent lift "
                                f"gives X^T(T) = {sp.factor(lift)} ≠ 0")
        xv = sum((c * sp.diff(system.V, s) for c, s in zip(Xa.components, S.q)), sp.S.Zero)
        if not is_zero(xv):
            raise SymmetryError(f"{_name(k, Xa)} does not leave the potential invariant: X(V) = {xv} ≠ 0")
    Cm = system.constraints.matrix()          # rows θ^κ over S.coords (dt last on a space with time)
    if Cm.rows:
        D = nullspace(Cm)
        for k, Xa in enumerate(X):
            for Y in D:
                br = _bracket(S, Xa.components, list(Y))
                for r in range(Cm.rows):
                    val = sum((Cm[r, i] * br[i] for i in range(len(br))), sp.S.Zero)
                    if not is_zero(val):
                        raise SymmetryError(
                            f"{_name(k, Xa)} does not leave the constraint distribution invariant: for the field "
                            f"Y = {list(Y)} of D, constraint {r + 1} gives θ([X, Y]) = {sp.simplify(val)} ≠ 0")
    return X


def _clear_denominators(v: Sequence[sp.Expr]) -> list[sp.Expr]:
    parts = [sp.fraction(sp.together(sympy_of(e))) for e in v]
    den = sp.S.One
    for _, d in parts:
        den = sp.lcm(den, d)
    out = [sp.cancel(sp.together(n * den / d)) for n, d in parts]
    nz = [e for e in out if e != 0]
    if nz:
        g = nz[0]
        for e in nz[1:]:
            g = sp.gcd(g, e)
        if g != 0 and g != 1:
            out = [sp.cancel(e / g) for e in out]
    return [sp.trigsimp(e) for e in out]


def _solve_combination(Xm: sp.Matrix, Y: Sequence[sp.Expr]) -> list[sp.Expr]:
    """c with Xm c = Y (Xm n×k, columns the generators); generators dependent at the generic
    point get c = 0."""
    k = Xm.cols
    cols = independent_rows(Xm.T)
    Xs = Xm.extract(list(range(Xm.rows)), cols)
    rows = independent_rows(Xs)
    sol = lu_solve(Xs.extract(rows, list(range(len(cols)))), sp.Matrix([Y[r] for r in rows]),
                   what="generators at the generic point")
    c = [sp.S.Zero] * k
    for j, col in enumerate(cols):
        c[col] = sp.cancel(sp.together(sol[j]))
    res = Xm * sp.Matrix(c) - sp.Matrix(list(Y))
    if not all(is_zero(e) for e in res):
        raise SymmetryError(f"the section {list(Y)} is not a combination of the generators (not tangent to the orbits)")
    return [sp.trigsimp(e) for e in c]


def momentum_map(system, generators: Sequence, *, sections: Sequence | None = None,
                 check: bool = True) -> MomentumMap:
    """The nonholonomic momentum map and momentum equation (module doc, item 2; BKMM96 § 4).

    ``system``: a :class:`MechanicalSystem` (or Equations of one).  ``generators``: the
    infinitesimal generators X_a of the symmetry (vector fields on Q), checked with
    :func:`check_symmetry` unless ``check=False``.  ``sections``: optional vector fields in
    S = D ∩ T(orbit) to use instead of the computed basis (each checked to lie in D and to be
    a combination of the generators).  Returns a :class:`MomentumMap`; each momentum carries
    J = p·ξ^Q, the right-hand side p·(dξ/dt)^Q + Q*·ξ^Q, ``horizontal`` and ``conserved``."""
    system = _system(system)
    S = system.space
    X = (check_symmetry(system, generators) if check
         else tuple(_as_field(S, g, k) for k, g in enumerate(as_sequence(generators, "generators"))))
    n = S.n
    Xm = sp.Matrix([[Xa.components[i] for Xa in X] for i in range(n)])      # n × k
    A, _ = system.constraint_matrix
    if sections is None:
        AX = A * Xm if A.rows else sp.zeros(0, len(X))
        basis = nullspace(AX) if A.rows else [sp.eye(len(X))[:, j] for j in range(len(X))]
        fields = [list(Xm * c) for c in basis]
        if fields:
            # reduced echelon form in the coordinate basis: pivots on the first coordinates
            F = rref(sp.Matrix(fields))[0]
            fields = [list(F.row(r)) for r in range(F.rows) if not all(is_zero(e) for e in F.row(r))]
        fields = [_clear_denominators(f) for f in fields]
    else:
        fields = []
        for k, Y in enumerate(as_sequence(sections, "sections")):
            Yf = _as_field(S, Y, k)
            comps = list(Yf.components[:n])
            if A.rows and not all(is_zero(e) for e in A * sp.Matrix(comps)):
                raise SymmetryError(f"section {k + 1} = {comps} is not in the constraint distribution D (A ξ ≠ 0)")
            fields.append(comps)
    if generic_rank(sp.Matrix(fields).T) < len(fields) if fields else False:
        raise DimensionError("the sections are dependent at the generic point")
    p = list(system.momenta)
    Qs = _nonpotential_forces(system)
    qd = S.qd
    coords_t = list(S.q) + ([S.t] if S.t is not None else [])
    xd = list(qd) + ([sp.S.One] if S.t is not None else [])
    if A.rows:
        free, dep, a, a0 = solve_constraints(system)
        on_D = {qd[j]: sum((a[r, c] * qd[s] for c, s in enumerate(free)), a0[r]) for r, j in enumerate(dep)}
    else:
        on_D = {}
    out = []
    for comps in fields:
        c = _solve_combination(Xm, comps)
        cdot = [sum((sp.diff(ca, x) * v for x, v in zip(coords_t, xd)), sp.S.Zero) for ca in c]
        xi_dot = [sum((cdot[a_] * X[a_].components[i] for a_ in range(len(X))), sp.S.Zero) for i in range(n)]
        J = _trigsimp_if_shorter(sum((pi * yi for pi, yi in zip(p, comps) if yi != 0), sp.S.Zero))
        rate = sum((pi * zi for pi, zi in zip(p, xi_dot) if zi != 0), sp.S.Zero)
        rate += sum((Qi * yi for Qi, yi in zip(Qs, comps) if yi != 0 and Qi != 0), sp.S.Zero)
        rate = _trigsimp_if_shorter(rate)
        horizontal = all(not (sympy_of(ca).free_symbols & set(coords_t)) for ca in c)
        conserved = is_zero(sympy_of(rate).xreplace(on_D))
        sec = VectorField(S, comps + ([0] if S.t is not None else []))
        out.append(NonholonomicMomentum(sec, tuple(c), J, rate, horizontal, conserved))
    return MomentumMap(system, X, tuple(out))


def conserved_momenta(system, generators: Sequence, eqs: Equations | None = None, *,
                      sections: Sequence | None = None) -> list[Integral]:
    """The nonholonomic momenta J(ξ) (of the basis sections of :func:`momentum_map`, or of
    ``sections``) that are conserved: horizontal symmetries, or right-hand side of the momentum
    equation identically zero on the constraints.  With ``eqs`` they are returned in the
    variables of ``eqs`` (t, q, u) and their conservation is re-checked along the equations;
    without, in (t, q, q̇).  Sections whose momentum is not conserved are left out (see
    :func:`momentum_map` for all of them)."""
    mm = momentum_map(system, generators, sections=sections)
    rates = _LazyRates(eqs) if eqs is not None else None
    out = []
    for k, m in enumerate(mm.momenta):
        if not m.conserved:
            continue
        note = ("horizontal symmetry (ξ constant)" if m.horizontal
                else "p·(dξ/dt)^Q vanishes identically on the constraints")
        if eqs is not None and rates is not None:
            check_budget("conserved momenta on the equations", k, mm.rank, "momenta")
            J = _on_motion(eqs, m.momentum)
            r = _momentum_rate(eqs, J, m.section, rates)
            if not is_zero(r):
                raise SelfCheckError(f"momentum J{k + 1} conserved by the momentum equation but not along {eqs.form}")
            out.append(Integral(f"J{k + 1}", _trigsimp_if_shorter(J), True, r, source=_BKMM, note=note + f"; section {m.section}"))
        else:
            out.append(Integral(f"J{k + 1}", m.momentum, True, m.rate, source=_BKMM,
                                note=note + f"; section {m.section}"))
    return out


# ----------------------------------------------------------------------------------------------
# 3. polynomial first integrals
# ----------------------------------------------------------------------------------------------
def _monomials(u: Sequence[sp.Symbol], degree: int) -> list[sp.Expr]:
    out: list[sp.Expr] = [sp.S.One]
    for d in range(1, degree + 1):
        out += [sp.Mul(*c) for c in itertools.combinations_with_replacement(u, d)]
    return out


def _coefficient_functions(space, coordinates, kind: str, order: int) -> list[sp.Expr]:
    """Tensor products over ``coordinates`` (a sequence, or a mapping {coordinate: kind}) of
    1, cos jθ, sin jθ (kind "trig") or θ^j (kind "poly"), j ≤ order."""
    items = list(coordinates.items()) if isinstance(coordinates, Mapping) else \
        [(c, kind) for c in as_sequence(coordinates, "coordinates")]
    per = []
    for c, kd in items:
        s = c if isinstance(c, sp.Symbol) else space.coordinate(c)
        if s not in space.coords:
            raise SpaceMismatchError(f"{s} is not a coordinate of {space!r}")
        if kd == "trig":
            fs = [sp.S.One] + [f(j * s) for j in range(1, order + 1) for f in (sp.cos, sp.sin)]
        elif kd == "poly":
            fs = [s**j for j in range(order + 1)]
        else:
            raise DimensionError(f"kind must be 'trig' or 'poly', not {kd!r}")
        per.append(fs)
    if not per:
        return [sp.S.One]
    return [sp.Mul(*combo) for combo in itertools.product(*per)]


def _trigsimp_if_shorter(e: sp.Expr) -> sp.Expr:
    """A shorter equal form for display, for e of at most 400 operations (e itself otherwise):
    the reduction modulo sin² + cos² = 1 (:func:`~geonh.kernel.trig.shorten_trig`, polynomial
    division, ~5× faster than sympy's ``trigsimp`` on the Chaplygin ball's energy, same form)
    when e is trigonometric in single-symbol angles; ``trigsimp`` of e's expanded, factored
    terms otherwise, kept when no longer."""
    e = sympy_of(e)
    if sp.count_ops(e) > 400:
        return e
    r, reduced = shorten_trig(e)
    if reduced:
        return r
    try:
        t = sp.trigsimp(sp.factor_terms(sp.expand(e)))
    except Exception:  # noqa: BLE001 - display only
        return e
    return t if sp.count_ops(t) <= sp.count_ops(e) else e


def _display_integral(I: sp.Expr) -> sp.Expr:
    """A shorter equal form of an integral found by the search, for display.  The ansatz has
    cos jθ, sin jθ; when every trigonometric argument is an integer multiple of one symbol they
    are expanded (cos 2θ = cos²θ − sin²θ, ...) and reduced modulo sin² + cos² = 1
    (:func:`~geonh.kernel.trig.shorten_trig`, polynomial division, at most 400 operations),
    kept when no longer; sympy's ``trigsimp`` on such integrals costs seconds.  Other
    integrals go through ``_trigsimp_if_shorter``."""
    args = [f.args[0] for f in I.atoms(*TRIG_FUNCTIONS)]
    if not args or not all(isinstance(a, sp.Symbol) or (a.is_Mul and len(a.args) == 2 and a.args[0].is_Integer
                                                          and isinstance(a.args[1], sp.Symbol)) for a in args):
        return _trigsimp_if_shorter(I)
    r, reduced = shorten_trig(sp.expand_trig(I) if any(not isinstance(a, sp.Symbol) for a in args) else I, 400)
    return r if reduced and sp.count_ops(r) <= sp.count_ops(I) else I


_CIRCLE = (sp.Dummy("s"), sp.Dummy("x"))


def _circle_point(rng: random.Random) -> tuple[sp.Rational, sp.Rational, sp.Rational]:
    """(x, cos, sin): a rational x for polynomial occurrences and a rational point of the unit
    circle, cos = (1 − s²)/(1 + s²), sin = 2s/(1 + s²) (θ and e^{iθ} are algebraically
    independent, so identities in θ, cos θ, sin θ may be tested at independent values)."""
    s, x = random_values(rng, (), either_sign=_CIRCLE, span=GENERIC_SPAN).values()   # the one sampler
    return x, (1 - s**2) / (1 + s**2), 2 * s / (1 + s**2)


class _Point:
    """Substitution of one sample configuration (and time) into expressions, exactly."""

    def __init__(self, state: set, rng: random.Random, fresh: dict):
        self.state = state
        self.vals = {s: _circle_point(rng) for s in sorted(state, key=sp.default_sort_key)}
        self.fresh = fresh          # state-dependent atom not represented exactly → unknown
        self.incomplete = False
        self.cache: dict = {}

    def _trig(self, f, arg):
        coeffs = sp.Poly(arg, *self.state).as_dict() if arg.free_symbols <= self.state else None
        if coeffs is None:
            return None
        z = sp.S.One
        for mon, k in coeffs.items():
            if sum(mon) == 0:
                return None              # constant offset inside: not handled exactly
            if sum(mon) != 1 or not (k.is_Integer):
                return None
            s = sorted(self.state, key=sp.default_sort_key)[mon.index(1)]
            _, c, si = self.vals[s]
            z *= (c + sp.I * si) ** int(k)
        z = sp.expand(z)
        re, im = z.as_real_imag()
        if f is sp.cos:
            return re
        if f is sp.sin:
            return im
        if f is sp.tan:
            return im / re
        if f is sp.cot:
            return re / im
        return None

    def __call__(self, expr: sp.Expr) -> sp.Expr:
        expr = sympy_of(expr)
        if expr in self.cache:
            return self.cache[expr]
        rep = {}
        for atom in expr.atoms(sp.Function, sp.Pow):
            if not (atom.free_symbols & self.state):
                continue
            if isinstance(atom, sp.Pow) and atom.exp.is_Integer:
                continue
            v = None
            if isinstance(atom, TRIG_FUNCTIONS) and len(atom.args) == 1:
                v = self._trig(type(atom), sp.expand(atom.args[0]))
            if v is None:
                # not exactly representable (sin(ω t), exp(x), √x, ...): an independent unknown
                if atom not in self.fresh:
                    self.fresh[atom] = sp.Dummy(f"f{len(self.fresh)}")
                v = self.fresh[atom]
                self.incomplete = True
            rep[atom] = v
        out = expr.xreplace(rep) if rep else expr
        out = out.xreplace({s: v[0] for s, v in self.vals.items()})
        self.cache[expr] = out
        return out


def _as_generators(e, gens: dict) -> sp.Expr:
    """e with every function atom (of the parameters alone, at this stage) replaced by a dummy
    generator of the coefficient field, shared through ``gens``."""
    e = sympy_of(e)
    rep = {}
    for a in e.atoms(sp.Function):
        if a not in gens:
            gens[a] = sp.Dummy(f"g{len(gens)}")
        rep[a] = gens[a]
    return e.xreplace(rep) if rep else e


class _PointRoute(Exception):
    """The rates cannot be solved at a sample point (singular or non-square mass matrix): the
    search takes the expression route instead (caught in :func:`_point_rows`'s caller)."""


def _field_solve(M: list[list], b: list) -> list:
    """x with M x = b over a field (:func:`~geonh.kernel.linalg.solve_in_field`);
    ``_PointRoute`` when M is singular at the sample point."""
    try:
        return solve_in_field(M, b)
    except SingularMapError:
        raise _PointRoute("singular mass matrix at the sample point") from None


def _point_rows(P, grads, Kp, Mp, Fp, u, gens, fix=None, rates=None) -> list[list[sp.Expr]]:
    """Rows of the linear system at one sample point: for every monomial in the speeds (and in
    the unknowns of P.fresh), its coefficient in each İ_k = ∂_t φ_k + ∂_q φ_k·K + ∂_u φ_k·u̇.

    Arithmetic in sympy's rational function field over (speeds, parameters), the rates u̇
    solved there from the mass matrix and forcing at the point (``Mp``, ``Fp``: small
    expressions; converting the LU-solved rates instead costs ~90 % of a search on a rolling
    body).  ``fix``: values for every symbol other than the speeds (the parameters at a random
    rational point, and the generators of functions of the parameters): the rows come out
    with rational entries, for the rank decisions.  The expression route (with ``rates``, a
    callable giving u̇ at the point) is the fallback."""
    gens_u = list(u) + list(P.fresh.values())
    pieces = []
    for g_t, g_q, g_u in grads:
        pieces.append((P(g_t), [P(gq) for gq in g_q], [P(gu) for gu in g_u]))
    flat = [e for a, bq, bu in pieces for e in [a, *bq, *bu]]
    exprs = Kp + [e for row in (Mp or []) for e in row] + Fp + flat
    rep = {}
    for e in exprs:
        for a in sympy_of(e).atoms(sp.Function, sp.Pow):
            if isinstance(a, sp.Pow) and (a.exp.is_Integer or a.free_symbols & set(gens_u)):
                continue
            if a not in gens:
                gens[a] = sp.Dummy(f"g{len(gens)}")
            rep[a] = gens[a]
    syms = set(gens_u)
    for e in exprs:
        syms |= sympy_of(e).xreplace(rep).free_symbols
    if fix is not None:
        vals = fix(sorted(syms - set(gens_u), key=sp.default_sort_key))
        order = gens_u
    else:
        vals = {}
        order = gens_u + sorted(syms - set(gens_u), key=sp.default_sort_key)
    try:
        F, *_ = sp.field(order, sp.QQ)
        cache: dict = {}

        def conv(e):
            e = sympy_of(e)
            if e not in cache:
                cache[e] = F.from_expr(e.xreplace(rep).xreplace(vals) if vals else e.xreplace(rep))
            return cache[e]
        Kf = [conv(k) for k in Kp]
        if Mp is None:
            raise _PointRoute("no square mass matrix: the expression route")
        xf = _field_solve([[conv(e) for e in row] for row in Mp], [conv(f) for f in Fp])
        nu = len(gens_u)
        values = []
        for a, bq, bu in pieces:
            e = conv(a)
            for gq, k in zip(bq, Kf):
                if gq != 0:
                    e += conv(gq) * k
            for gu, x in zip(bu, xf):
                if gu != 0:
                    e += conv(gu) * x
            values.append(e)
        if any(any(any(m[:nu]) for m, _ in e.denom.terms()) for e in values):
            # a denominator in the unknowns of P.fresh (√ of the coordinates: the rattleback's
            # contact point): the row set times the common denominator, as the expression route
            # below does (the same rows up to a non-zero factor), not the rates written out
            common = F.ring.one
            for e in values:
                common = common.lcm(e.denom)
            values = [e * common for e in values]
        out_polys = []
        for e in values:
            num, den = e.numer, e.denom
            if any(any(m[:nu]) for m, _ in den.terms()):
                raise NotLinearError("denominator depends on the speeds")
            dd = den.as_expr()
            groups: dict = {}
            for mon, c in num.terms():
                groups.setdefault(mon[:nu], []).append((mon[nu:], c))
            polys = {}
            for key, terms in groups.items():
                expr = sp.Add(*[F.domain.to_sympy(c) * sp.Mul(*[g**k for g, k in zip(order[nu:], m) if k])
                                for m, c in terms])
                polys[key] = expr / dd
            out_polys.append(polys)
        monos = set().union(*[set(p) for p in out_polys])
        return [[p.get(m, sp.S.Zero) for p in out_polys] for m in sorted(monos)]
    except (_PointRoute, ValueError, sp.PolynomialError, sp.CoercionFailed):
        pass
    xp = rates() if rates is not None else []
    vals = []
    for a, bq, bu in pieces:
        e = a + sum((gq * k for gq, k in zip(bq, Kp) if gq != 0), sp.S.Zero)
        e += sum((gu * x for gu, x in zip(bu, xp) if gu != 0), sp.S.Zero)
        vals.append(sp.together(sp.expand(e)) if e != 0 else sp.S.Zero)
    fr = [sp.fraction(e) for e in vals]
    L = sp.S.One
    for _, d in fr:
        L = sp.lcm(L, d)
    by_monomial: list[dict] = []
    for nmr, d in fr:
        e = sp.expand(nmr * sp.cancel(L / d)) if nmr != 0 else sp.S.Zero
        by_monomial.append(sp.Poly(e, *gens_u).as_dict() if e != 0 else {})
    monos = set().union(*[set(p.keys()) for p in by_monomial])
    rows = [[_as_generators(p.get(m, sp.S.Zero), gens) for p in by_monomial] for m in sorted(monos)]
    if fix is not None:
        syms2 = set().union(*[sympy_of(e).free_symbols for row in rows for e in row]) - set(gens_u)
        v2 = fix(sorted(syms2, key=sp.default_sort_key))
        rows = [[sympy_of(e).xreplace(v2) for e in row] for row in rows]
    return rows


def polynomial_first_integrals(eqs: Equations, degree: int = 2, *, coordinates: Sequence = (),
                               kind: str = "trig", order: int = 1, functions: Sequence | None = None,
                               extra: Sequence = (), include_potential: bool = True,
                               seed: int = 7, max_points: int = 80) -> IntegralSearch:
    """Every first integral of ``eqs`` (a form without multipliers) of the form

        I = Σ c_k φ_k(t, q) μ_k(u),

    μ_k the monomials of the speeds ``eqs.u`` of degree 0 … ``degree`` (the constant function
    alone excluded), φ_k from ``functions`` or generated on ``coordinates``: ``kind="trig"`` —
    products of 1, cos jθ, sin jθ (j ≤ ``order``); ``kind="poly"`` — θ^j (j ≤ ``order``); no
    coordinates — constants.  ``extra`` adds further ansatz terms; with
    ``include_potential`` the potential V is one (so that T + V can be found at degree 2).
    The c_k are constants that may depend on the parameters: the linear system İ = 0 is set up
    exactly (module doc, item 3) and solved over ℚ(parameters).  Returns an
    :class:`IntegralSearch` whose ``integrals`` are verified at the generic point (a basis of
    the integrals of the ansatz; ``message()`` says plainly when there is none)."""
    if degree < 0:
        raise DimensionError("degree must be ≥ 0")
    S = eqs.space
    if functions is None:
        funcs = _coefficient_functions(S, coordinates, kind, order)
    else:
        funcs = [expression_in(eqs, f, "a coefficient function") for f in as_sequence(functions, "functions")]
        if any(f.free_symbols & set(S.qd) or f.free_symbols & set(eqs.u) for f in funcs):
            raise NotLinearError("the coefficient functions φ_k may depend on t and q only")
    basis: list[sp.Expr] = []
    for f in funcs:
        for mu in _monomials(eqs.u, degree):
            b = f * mu
            if b.free_symbols & (set(S.coords) | set(eqs.u)) and b not in basis:
                basis.append(b)
    extras = [expression_in(eqs, e, "an extra candidate") for e in as_sequence(extra, "extra")]
    system = eqs.system
    V = getattr(system, "V", 0)
    if include_potential and degree >= 2 and V != 0:
        extras.append(_on_motion(eqs, V))
    for e in extras:
        if e not in basis:
            basis.append(e)
    if eqs.lam_vec:
        _rates(eqs)          # raises: first integrals need equations without multipliers
    if not basis:
        return IntegralSearch(eqs, (), ())
    N = len(basis)
    state = set(S.coords)
    u = list(eqs.u)
    K = list(eqs.kinematics)
    # derivatives of the ansatz functions (small), and the places where K and u̇ enter
    grads = []
    for b in basis:
        g_t = sp.diff(b, S.t) if S.t is not None else sp.S.Zero
        g_q = [sp.diff(b, q) for q in S.q]
        g_u = [sp.diff(b, v) for v in u]
        grads.append((g_t, g_q, g_u))
    rng = random.Random(seed)
    complete = True
    # the rank decisions (which rows, the null space's dimension and support) at one random
    # rational point of the parameters: rows over ℚ, cheap; exact rows over ℚ(parameters) only
    # where an integral exists, on its support, at as few sample points as it takes
    num_rng = random.Random(seed + 1)
    num_pt: dict = {}
    gens: dict = {}          # functions of the parameters alone (sin α, √m, ...) → field generators

    def fix(symbols):
        new = [s_ for s_ in symbols if s_ not in num_pt]
        if new:
            num_pt.update(random_values(num_rng, new, span=GENERIC_SPAN))
        return {s_: num_pt[s_] for s_ in symbols}

    n_u = len(u)
    M_full = eqs.mass_matrix
    square = M_full.shape == (n_u, n_u)
    rate_exprs: list = []

    def lazy_rates(P):
        def get():
            if not rate_exprs:
                rate_exprs.extend(_rates(eqs))
            return [P(x) for x in rate_exprs]
        return get

    def rows_at(P, numeric):
        Kp = [P(k) for k in K]
        Mp = [[P(M_full[i, j]) for j in range(n_u)] for i in range(n_u)] if square else None
        Fp = [P(f) for f in eqs.forcing] if square else []
        return _point_rows(P, grads, Kp, Mp, Fp, u, gens, fix if numeric else None, lazy_rates(P))

    points: list = []
    num_rows: list[list] = []
    echelon = Echelon(exact=True)
    stale = 0
    for _ in range(max_points):
        P = _Point(state, rng, {})
        points.append(P)
        new_rows = rows_at(P, True)
        complete = complete and not P.incomplete
        grown = False
        for row in new_rows:
            if all(e == 0 for e in row):
                continue
            if echelon.add(list(row)):
                num_rows.append(row)
                grown = True
        stale = 0 if grown else stale + 1
        if echelon.rank == N or stale >= 3:
            break
    back = {v: k for k, v in gens.items()}
    if num_rows:
        exact_rows: list[list] = []          # rows over ℚ(parameters), point by point, as needed
        exact_at: list[list] = []            # the same rows at the parameter point num_pt
        pending = iter(points)

        def more_rows() -> bool:
            P = next(pending, None)
            if P is None:
                return False
            for row in rows_at(P, False):
                if any(e != 0 for e in row):
                    exact_rows.append(row)
                    exact_at.append(list(_at_point([row], num_pt, num_rng).row(0)))
            return True
        vecs = []
        for free, cols in _null_supports(num_rows):
            x = _solve_on_support(exact_rows, exact_at, more_rows, cols, free)
            full = [sp.S.Zero] * N
            full[free] = sp.S.One
            for j, c in zip(cols, x):
                full[j] = sympy_of(c).xreplace(back)
            vecs.append(full)
    else:
        vecs = [[sp.S.One if i == j else sp.S.Zero for i in range(N)] for j in range(N)]
    found, dropped = [], []
    for vec in vecs:
        coeffs = _clear_denominators([sp.factor(c) for c in vec])
        I = sp.Add(*[c * b for c, b in zip(coeffs, basis) if c != 0])
        if is_zero(I):
            continue
        if rate_vanishes(eqs, I):        # u̇ solved at the sample points, not written out
            I = _display_integral(I)
            found.append(-I if I.could_extract_minus_sign() else I)
        else:
            dropped.append(I)
    return IntegralSearch(eqs, tuple(basis), tuple(found), complete, tuple(dropped))


def _null_supports(rows: list[list]) -> list[tuple[int, list[int]]]:
    """The null space of the rational matrix ``rows`` (the search's rows at one random point
    of the parameters) by its reduced row echelon form: for each free column f, the pivot
    columns p whose entry in column f is non-zero — the support of the null vector with
    c_f = 1 and the other free columns 0, c_p = −R_pf (Golub & Van Loan §5.4.1)."""
    R, pivots = DomainMatrix.from_Matrix(sp.Matrix(rows)).to_field().rref()
    R = R.to_Matrix()
    out = []
    for f in range(R.cols):
        if f in pivots:
            continue
        out.append((f, [p for i, p in enumerate(pivots) if R[i, f] != 0]))
    return out


def _solve_on_support(exact_rows: list[list], exact_at: list[list], more_rows, cols: list[int],
                      free: int) -> list:
    """The coefficients c_p (p in ``cols``) of the null vector with c_free = 1 over
    ℚ(parameters): A[:, cols] c = −A[:, free] on |cols| rows independent at the random
    parameter point (greedy :class:`~geonh.kernel.linalg.Echelon` on ``exact_at``; the rows
    grow by ``more_rows()``), solved by :func:`~geonh.kernel.linalg.solve_in_field`.

    The pivots and supports come from a random rational point of the parameters, where the
    rank of the rows equals the generic one with probability one (Schwartz–Zippel); the
    vector found is then the generic one, and the caller verifies every integral at the
    generic point, so a wrong support could only drop an integral, never add a false one."""
    if not cols:
        return []
    picked: list[int] = []
    ech = Echelon(exact=True)
    seen = 0
    while len(picked) < len(cols):
        while seen < len(exact_rows) and len(picked) < len(cols):
            if ech.add([exact_at[seen][j] for j in cols]):
                picked.append(seen)
            seen += 1
        if len(picked) < len(cols) and not more_rows():
            raise SelfCheckError("the exact rows of the integral search do not reach the rank found at the "
                                 "random parameter point")
    syms = sorted(set().union(*[sympy_of(exact_rows[i][j]).free_symbols for i in picked for j in [*cols, free]]),
                  key=sp.default_sort_key)
    F, *_ = sp.field(syms, sp.QQ) if syms else (None,)
    conv = (lambda e: F.from_expr(sympy_of(e))) if F is not None else sympy_of
    Ms = [[conv(exact_rows[i][j]) for j in cols] for i in picked]
    b = [-conv(exact_rows[i][free]) for i in picked]
    try:
        x = solve_in_field(Ms, b)
    except SingularMapError:
        raise SelfCheckError("the integral search's rows on a support are singular over ℚ(parameters) although "
                             "regular at a random point of the parameters") from None
    return [v.as_expr() if F is not None else v for v in x]


def _integrating_factor(eqs: Equations, L: sp.Expr, shape: list) -> sp.Expr | None:
    """f(shape) with d/dt (f·L) ≡ 0 along ``eqs``, or None (:func:`integrating_factor_integrals`)."""
    S = eqs.space
    u = list(eqs.u)
    K = list(eqs.kinematics)
    # L̇ = ∂_t L + ∂_q L·K + ∂_u L·M⁻¹F = ∂_t L + ∂_q L·K + ρ·F with Mᵀρ = ∂_u L (one small
    # solve instead of the rates M⁻¹F): a polynomial in u
    lam = sp.Matrix([sp.diff(L, v) for v in u])
    rho = lu_solve(eqs.mass_matrix.T, lam, what=f"{eqs.form} mass matrix (transposed)")
    # ġ = Σ_s G_s K_s: L̇ + L·ġ ≡ 0 coefficient by coefficient of the monomials in u, linear in G.
    # The coefficients of L̇ are collected term by term, Σ_k ρ_k [F_k]_μ + [∂_t L + ∂_q L·K]_μ,
    # without expanding the products ρ_k F_k (ρ is rational in q: expanding it into F is
    # most of the cost of a search on a rolling body)
    Ks = [K[list(S.q).index(c)] for c in shape]
    small = sp.diff(L, S.t) if S.t is not None else sp.S.Zero
    small += sum((sp.diff(L, q) * k for q, k in zip(S.q, K) if L.has(q)), sp.S.Zero)
    try:
        d0: dict = {}
        for r, part in [(sp.S.One, small), *[(r, f) for r, f in zip(rho, eqs.forcing) if r != 0]]:
            for mon, c in (sp.Poly(sp.expand(part), *u).as_dict().items() if part != 0 else ()):
                d0[mon] = d0.get(mon, sp.S.Zero) + (c if r == 1 else r * c)
        dL = [sp.Poly(sp.expand(L * k), *u).as_dict() for k in Ks]
    except sp.PolynomialError:
        return None
    monos = sorted(set(d0) | set().union(*[set(p) for p in dL]))
    A = sp.Matrix([[p.get(m, sp.S.Zero) for p in dL] for m in monos]) if dL else sp.zeros(len(monos), 0)
    b = sp.Matrix([-d0.get(m, sp.S.Zero) for m in monos])
    G = [sp.S.Zero] * len(shape)
    if shape and A.rows:
        cols = independent_rows(A.T)
        Ac = A.extract(list(range(A.rows)), cols)
        rows = independent_rows(Ac)
        if rows:
            sol = lu_solve(Ac.extract(rows, list(range(len(cols)))), b.extract(rows, [0]), what="integrating factor")
            for j, c in enumerate(cols):
                G[c] = sp.cancel(sol[j])
    # consistency: every coefficient (the rows not used, the monomials L does not reach)
    if not all(is_zero(sum((A[i, j] * G[j] for j in range(len(shape))), sp.S.Zero) - b[i]) for i in range(len(monos))):
        return None
    if all(g == 0 for g in G):
        return sp.S.One
    # closed (∂_i G_j = ∂_j G_i), then a potential g: f = e^g
    n = len(shape)
    if not all(is_zero(sp.diff(G[j], shape[i]) - sp.diff(G[i], shape[j])) for i in range(n) for j in range(i + 1, n)):
        return None
    g = potential(G, shape)
    if g is None:
        return None
    f = sp.Mul(*[sp.exp(t) for t in sp.Add.make_args(sp.expand_log(g, force=False))])
    return sp.Mul(*[sp.Pow(_trigsimp_if_shorter(b_), e_) for b_, e_ in (t.as_base_exp() for t in sp.Mul.make_args(f))])


def integrating_factor_integrals(eqs: Equations, candidates: Sequence | None = None, *,
                                 coordinates: Sequence | None = None) -> IntegralSearch:
    """First integrals I = f(q)·L(q, u), L linear in the speeds and f an unknown function of
    the coordinates (an integrating factor), for each L of ``candidates`` (default: each speed
    u_k of ``eqs``, a form without multipliers).

    İ = f (L̇ + L ġ) with f = e^g, so I is an integral iff L̇ = −L·ġ: L̇ (a polynomial in u,
    quadratic for mechanical forces) is L times the linear form −ġ = −Σ_s ∂_s g K_s(q, u).
    Matching the coefficients of the monomials of u gives a linear system A(q) ∇g = b(q) for
    the gradient of g in the ``coordinates`` s (default: those on which the mass matrix, the
    forcing and L depend — the shape of a system with symmetry); it is solved at the generic
    point (independent rows, LU), every coefficient checked, ∇g checked closed and integrated
    (:func:`~geonh.kernel.distributions.potential`: logarithms first, so algebraic factors
    f = Π p_k^{c_k} come out as such).  Each I = f·L is verified along the equations at the
    generic point before it is returned.

    Routh's sphere (a ball whose centre of mass lies off its centre on the symmetry axis,
    rolling on a plane) gives Routh's integral ω₃·√(AC + mA⟨s, s⟩ + m(C − A)⟨s, e₃⟩²), s the
    vector from the contact point to the centre of mass: algebraic, not polynomial (Routh,
    *Advanced Rigid Dynamics* 1884, § 243; Borisov & Mamaev, Regul. Chaotic Dyn. 7 (2002) 177).
    Returns an :class:`IntegralSearch` whose ``ansatz`` are the L's; ``complete`` is False (a
    candidate without a factor in closed form is only "none found")."""
    if not isinstance(eqs, Equations):
        raise DimensionError(f"expected Equations, got {type(eqs).__name__}")
    if eqs.lam_vec:
        _rates(eqs)              # raises: forms with multipliers
    S = eqs.space
    u = list(eqs.u)
    Ls = list(u) if candidates is None else [expression_in(eqs, c, "a candidate L") for c in
                                             as_sequence(candidates, "candidates")]
    for L in Ls:
        if not all(sp.diff(L, v, 2) == 0 for v in u) or any(sp.diff(L, v, w) != 0 for v in u for w in u):
            raise NotLinearError(f"the candidate {L} is not linear in the speeds {u}")
        if not is_zero(L.xreplace({v: 0 for v in u})):
            raise NotLinearError(f"the candidate {L} has a part free of the speeds; L must be linear in {u}")
    if coordinates is None:
        shape = None
    else:
        shape = [c if isinstance(c, sp.Symbol) else S.coordinate(c) for c in as_sequence(coordinates, "coordinates")]
        for c in shape:
            if c not in S.q:
                raise SpaceMismatchError(f"{c} is not a coordinate of {S!r}")
    found, dropped = [], []
    for L in Ls:
        if shape is None:
            free = eqs.mass_matrix.free_symbols.union(*[sympy_of(f).free_symbols for f in eqs.forcing], L.free_symbols)
            sh = [q for q in S.q if q in free]
        else:
            sh = shape
        f = _integrating_factor(eqs, L, sh)
        if f is None:
            continue
        I = f * L
        if rate_vanishes(eqs, I):        # u̇ solved at the sample points, not written out
            found.append(I)
        else:
            dropped.append(I)
    return IntegralSearch(eqs, tuple(Ls), tuple(found), False, tuple(dropped))


def _at_point(rows: list[list], pt: dict, rng: random.Random) -> sp.Matrix:
    """rows (rational functions of the parameters) at the random rational point ``pt``
    (extended as needed)."""
    syms = set().union(*[sympy_of(e).free_symbols for row in rows for e in row]) if rows else set()
    pt.update(random_values(rng, sorted(syms - set(pt), key=sp.default_sort_key), span=GENERIC_SPAN))
    return sp.Matrix([[sympy_of(e).xreplace(pt) for e in row] for row in rows])


def _independent_at(rows: list[list], pt: dict, rng: random.Random) -> list[int]:
    """Indices of rows independent at the random parameter point (greedy)."""
    M = _at_point(rows, pt, rng)
    keep: list[int] = []
    for i in range(M.rows):
        trial = keep + [i]
        if DomainMatrix.from_Matrix(M.extract(trial, list(range(M.cols)))).to_field().rank() == len(trial):
            keep = trial
    return keep


def _rank_of_functions(eqs: Equations, fs: list[sp.Expr]) -> int:
    """Dimension of span{f} over the functions constant in the state (generic rank of the
    values at random states, parameters symbolic)."""
    if not fs:
        return 0
    S = eqs.space
    state = list(S.coords) + list(eqs.u)
    rng = random.Random(11)
    pts = [random_values(rng, state, span=GENERIC_SPAN) for _ in range(len(fs) + 3)]
    M = sp.Matrix([[sympy_of(f).xreplace(p) for f in fs] for p in pts])
    return generic_rank(M)


# ----------------------------------------------------------------------------------------------
# 4. along a simulated motion
# ----------------------------------------------------------------------------------------------
def verify_along(source, integral, params: dict | None = None, **simulate_kw) -> float:
    """max |I(t) − I(t₀)| along a motion.

    ``source``: a :class:`~geonh.numerics.Trajectory`, or ``(eqs, y0, t_span)`` /
    ``(eqs, y0, t_span, params)`` to be simulated with :func:`geonh.simulate` (``simulate_kw``
    passed on, e.g. ``project=True``, ``rtol``, ``atol``).  ``integral``: an
    :class:`Integral`, a :class:`NonholonomicMomentum` or an expression in (t, q, u) — or in
    (t, q, q̇), converted with q̇ = K(t, q, u) of the trajectory's equations.  Parameters come
    from the trajectory's binding (or ``params``)."""
    import numpy as np

    from ..numerics.ode import simulate
    from ..numerics.trajectory import Trajectory
    if isinstance(source, Trajectory):
        traj = source
    elif isinstance(source, (tuple, list)) and len(source) in (3, 4) and isinstance(source[0], Equations):
        p = source[3] if len(source) == 4 else params
        traj = simulate(source[0], source[1], source[2], params=p, **simulate_kw)
    else:
        raise DimensionError("verify_along takes a Trajectory or (eqs, y0, t_span[, params])")
    eqs = traj.equations
    if isinstance(integral, Integral):
        expr = integral.expression
    elif isinstance(integral, NonholonomicMomentum):
        expr = integral.momentum
    else:
        expr = expression_in(eqs, integral, "the integral")
    expr = _on_motion(eqs, expr)
    g = traj.function.observable([expr], what="the integral")
    vals = np.asarray(g.batch(traj.t, traj.states))[:, 0]
    if not np.all(np.isfinite(vals)):
        return math.inf
    return float(np.max(np.abs(vals - vals[0])))
