"""The vakonomic (variational) equations of a system with constraints linear in the velocities,
and the terms that set them apart from the nonholonomic (Lagrange–d'Alembert) equations.

**Vakonomic equations.**  Hamilton's principle with the constraints φ^κ(t, q, q̇) =
A_κi(t, q) q̇^i + b_κ(t, q) = 0 enforced before the variation: the curve is stationary for
∫ (L + μ_κ φ^κ) dt among curves with fixed ends, the multipliers μ_κ(t) unknown functions of
time (Kozlov 1983; Arnold, Kozlov & Neishtadt 1988; Lewis & Murray 1995;
Cortés, de León, Martín de Diego & Martínez 2002).  With L = T − V and the other forces
Q_i (geonh's Q already holds −∂V/∂q, CONVENTIONS.md) its Euler–Lagrange equations are

    d/dt ∂(T + μ_κ φ^κ)/∂q̇^i − ∂(T + μ_κ φ^κ)/∂q^i = Q_i,      φ^κ = 0,

that is, writing θ^κ = A_κi dq^i + b_κ dt for the constraint forms and ẋ = (q̇, 1) on a space
with time (ẋ = q̇ without),

    L_i − Q_i + μ̇_κ A_κi + μ_κ dθ^κ(ẋ, ∂_i) = 0,       d/dt φ^κ = 0,                  (V)

with L_i = d/dt ∂T/∂q̇^i − ∂T/∂q^i and dθ^κ(ẋ, ∂_i) = (∂_a θ^κ_i − ∂_i θ^κ_a) ẋ^a, the exterior
derivative of CONVENTIONS.md (no ½).  μ̇ appears and μ does not disappear: the multipliers
are part of the state, the system is first order in (q, q̇, μ).  The nonholonomic equations
(Chetaev's ideal constraints, :func:`geonh.equations.lagrange`) are

    L_i − Q_i − λ_κ A_κi = 0,                             d/dt φ^κ = 0,                  (NH)

so (V) is (NH) with λ = −μ̇ plus the force −μ_κ dθ^κ(ẋ, ·), which vanishes for holonomic
constraints (closed θ).  Along the free fields X_r of an adapted frame (θ^κ(X_r) = 0) the
difference is the **defect** Δ_rκ = dθ^κ(ẋ, X_r) with ẋ on the constraints
(:func:`vakonomic_defect`): when Δ vanishes identically (constraints integrable in Frobenius's
sense, and for affine constraints the drift too) every μ_κ dθ^κ(ẋ, ·) lies in the span of the
rows of A, the accelerations of (V) and (NH) agree for every μ, and the two sets of motions
coincide with λ = −μ̇ − P⁻ᵀ(E C_c)ᵀ μ (P = A C_c, C_c the constraint fields of the frame,
E_κi = dθ^κ(ẋ, ∂_i)).  Otherwise a nonholonomic motion q(t) with multipliers λ(t) is vakonomic
exactly when a solution of the linear transport equation

    Pᵀ (μ̇ + λ) + (E C_c)ᵀ μ = 0                                                           (T)

along it keeps Δ_rκ μ_κ = 0 for all t (Cortés et al. 2002; Lewis & Murray 1995).
:func:`multiplier_transport` gives (NH) with (T) (C_c = Aᵀ) as one first-order system; the
comparison of motions is in :mod:`geonh.analysis.vakonomic`.

Only constraints linear in the velocities (a :class:`~geonh.systems.MechanicalSystem`); the
multipliers pair with the rows of :attr:`MechanicalSystem.constraint_matrix
<geonh.systems.MechanicalSystem.constraint_matrix>` in their order.
"""
from __future__ import annotations

import sympy as sp

from ..errors import NotLinearError, ParseError
from ..kernel.frames import Frame
from ..kernel.evaluation import symbols_in
from ..systems.mechanical import MechanicalSystem
from ..transposition.adapted import speed_symbols
from .base import Equations
from .declaration import Citation, framed

__all__ = ["vakonomic", "vakonomic_defect", "multiplier_transport", "constraint_exterior", "VAKONOMIC_SOURCES"]

KOZLOV_1983 = Citation("kozlov1983", ("Kozlov",), 1983,
                       "Realization of nonintegrable constraints in classical mechanics")
ARNOLD_KOZLOV_NEISHTADT = Citation("arnold-kozlov1988", ("Arnold", "Kozlov", "Neishtadt"), 1988,
                                   "Mathematical Aspects of Classical and Celestial Mechanics")
LEWIS_MURRAY_1995 = Citation("lewis-murray1995", ("Lewis", "Murray"), 1995,
                             "Variational principles for constrained systems: theory and experiment")
CORTES_2002 = Citation("cortes2002", ("Cortés", "de León", "Martín de Diego", "Martínez"), 2002,
                       "Geometric description of vakonomic and nonholonomic dynamics. Comparison of solutions")
#: the sources of the vakonomic equations and of their comparison with the nonholonomic ones
VAKONOMIC_SOURCES = (KOZLOV_1983, ARNOLD_KOZLOV_NEISHTADT, LEWIS_MURRAY_1995,
                     CORTES_2002)


def _linear_system(system, what: str) -> MechanicalSystem:
    if isinstance(system, MechanicalSystem):
        return system
    if hasattr(system, "phi"):   # NonlinearSystem: constraints nonlinear in the velocities
        raise NotLinearError(f"{what} needs constraints linear in the velocities (a MechanicalSystem); "
                             f"constraints nonlinear in the velocities are not supported")
    raise ParseError(f"{what} takes a MechanicalSystem, not {type(system).__name__}")


def _fresh(system: MechanicalSystem, stem: str, count: int) -> tuple[tuple[sp.Symbol, ...], tuple[sp.Symbol, ...]]:
    """``count`` speed symbols ``<stem>1`` … and their rates, named apart from every symbol of
    the system (a parameter called ``mu1`` gets ``mu1_``)."""
    S = system.space
    A, b = system.constraint_matrix
    taken = {s.name for s in symbols_in([system.T, system.V, *system.Q, *A, *b], {})}
    taken |= {s.name for s in (*S.coords, *S.qd, *S.qdd)}
    names = []
    for k in range(count):
        name = f"{stem}{k + 1}"
        while name in taken or f"{name}_dot" in taken:
            name += "_"
        names.append(name)
    return speed_symbols(names)


def constraint_exterior(system: MechanicalSystem) -> sp.Matrix:
    """E_κi = dθ^κ(ẋ, ∂_i) = Σ_a (∂_a θ^κ_i − ∂_i θ^κ_a) ẋ^a, a k × n matrix in (t, q, q̇): the
    constraint forms θ^κ = A_κi dq^i + b_κ dt (rows of ``system.constraint_matrix``) contracted
    with the velocity ẋ = (q̇, 1) (ẋ = q̇ without time) by their exterior derivative
    (CONVENTIONS.md).  Zero exactly when every θ^κ is closed (holonomic constraints written as
    velocity constraints)."""
    system = _linear_system(system, "constraint_exterior")
    S = system.space
    X = S.coords
    xd = list(S.qd) + ([sp.S.One] if S.t is not None else [])
    Th = system.constraints.matrix()
    E = sp.zeros(Th.rows, S.n)
    for k in range(Th.rows):
        for i in range(S.n):
            E[k, i] = sp.Add(*[(sp.diff(Th[k, i], X[a]) - sp.diff(Th[k, a], X[i])) * xd[a]
                               for a in range(len(X)) if a != i])
    return E


def vakonomic(system: MechanicalSystem) -> Equations:
    """The vakonomic equations (V) of the module doc (Kozlov 1983; Arnold, Kozlov & Neishtadt
    1988; Lewis & Murray 1995; Cortés et al. 2002):

        L_i − Q_i + μ̇_κ A_κi + μ_κ dθ^κ(ẋ, ∂_i) = 0,      A q̈ + Ȧ q̇ + ḃ = 0,

    as :class:`~geonh.equations.Equations` (form ``"vakonomic"``) with speeds u = (q̇, μ) and
    unknowns (q̈, μ̇): the multipliers are part of the state, so ``eqs.ode_function()`` and
    :func:`geonh.simulate` integrate y = (q, q̇, μ); y0 gives q, consistent velocities q̇ and
    the initial multipliers μ(0) (consistent velocities are needed: ``project=`` refuses with
    :class:`~geonh.errors.SingularMapError`, the kinetic metric says nothing of μ).
    ``eqs.details["mu"]`` and ``["mu_dot"]`` are the multiplier
    symbols and their rates; ``eqs.reactions`` the vakonomic constraint force
    −μ̇_κ A_κi − μ_κ dθ^κ(ẋ, ∂_i).  The mass matrix [[M, Aᵀ], [A, 0]] is regular where M is
    positive definite and A has full rank.  A system without constraints gives Lagrange's
    equations with no multiplier."""
    system = _linear_system(system, "vakonomic")
    S = system.space
    A, b = system.constraint_matrix
    k = A.rows
    mu, mud = _fresh(system, "mu", k)
    E = constraint_exterior(system)
    L = system.lagrange_operator
    reactions = [-sp.Add(*[A[c, i] * mud[c] + mu[c] * E[c, i] for c in range(k)]) for i in range(S.n)]
    res = [L[i] - system.Q[i] - reactions[i] for i in range(S.n)]
    res += [S.total_derivative(sp.Add(*[A[c, i] * S.qd[i] for i in range(S.n)], b[c])) for c in range(k)]
    return Equations("vakonomic", system, tuple(S.qd) + mu, tuple(S.qdd) + mud, list(S.qd), list(S.qd), res,
                     reactions=reactions, details={"mu": mu, "mu_dot": mud, "sources": VAKONOMIC_SOURCES},
                     notes="vakonomic: L_i - Q_i + mu_dot_k A_ki + mu_k d(theta^k)(xdot, d_i) = 0, "
                           "state (q, qdot, mu)")


def multiplier_transport(system: MechanicalSystem) -> Equations:
    """The nonholonomic equations (NH) together with the transport (T) of the module doc with
    C_c = Aᵀ (Cortés et al. 2002):

        L_i − Q_i − λ_κ A_κi = 0,    A q̈ + Ȧ q̇ + ḃ = 0,    A Aᵀ (μ̇ + λ) + A Eᵀ μ = 0,

    form ``"multiplier-transport"``, speeds u = (q̇, μ), unknowns (q̈, μ̇, λ).  Its motions in q
    are the nonholonomic ones whatever μ(0); μ(t) is affine in μ(0), and along a motion the
    vakonomic equations hold with this μ exactly where the defect Δ_rκ μ_κ
    (:func:`vakonomic_defect`) vanishes — the part of −μ̇_κ A_κi − μ_κ E_κi − λ_κ A_κi the
    transport leaves is Σ_r Δ_rκ μ_κ along the free fields.  ``details``: ``"mu"``,
    ``"mu_dot"``."""
    system = _linear_system(system, "multiplier_transport")
    S = system.space
    A, b = system.constraint_matrix
    k = A.rows
    mu, mud = _fresh(system, "mu", k)
    lam = tuple(sp.Symbol(f"lambda{c + 1}", real=True) for c in range(k))
    E = constraint_exterior(system)
    L = system.lagrange_operator
    reactions = [sp.Add(*[lam[c] * A[c, i] for c in range(k)]) for i in range(S.n)]
    res = [L[i] - system.Q[i] - reactions[i] for i in range(S.n)]
    res += [S.total_derivative(sp.Add(*[A[c, i] * S.qd[i] for i in range(S.n)], b[c])) for c in range(k)]
    AAt, AEt = A * A.T, A * E.T
    res += [sp.Add(*[AAt[c, d] * (mud[d] + lam[d]) + AEt[c, d] * mu[d] for d in range(k)]) for c in range(k)]
    return Equations("multiplier-transport", system, tuple(S.qd) + mu, tuple(S.qdd) + mud, list(S.qd),
                     list(S.qd), res, multipliers=lam, reactions=reactions,
                     details={"mu": mu, "mu_dot": mud, "sources": VAKONOMIC_SOURCES})


def vakonomic_defect(system: MechanicalSystem, frame: Frame | None = None) -> tuple[sp.Matrix, Frame]:
    """Δ_rκ = dθ^κ(ẋ, X_r) on the motion: the m × k matrix of the components of the vakonomic
    force −μ_κ dθ^κ(ẋ, ·) along the free fields X_r of ``frame`` (an adapted frame; default the
    Voronets frame), with ẋ = (K(t, q, u), 1) the frame's kinematics, an expression in
    (t, q, u) (Cortés et al. 2002).  It vanishes identically exactly when the vakonomic and
    nonholonomic equations have the same accelerations for every μ, i.e. the same motions
    (module doc).  Returns (Δ, frame)."""
    system = _linear_system(system, "vakonomic_defect")
    S = system.space
    fm = framed(system, frame)
    frame, m = fm.frame, fm.m
    E = constraint_exterior(system).xreplace(dict(zip(S.qd, fm.kinematics)))
    D = sp.zeros(m, E.rows)
    for r in range(m):
        for c in range(E.rows):
            D[r, c] = sp.Add(*[E[c, i] * frame.C[i, r] for i in range(S.n) if frame.C[i, r] != 0])
    return D, frame
