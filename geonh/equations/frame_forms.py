"""The frame forms: each a short declaration on the engine (:mod:`geonh.equations.engine`).

Each form has a public ``declare_<form>`` builder that returns its
:class:`~geonh.equations.declaration.FormDeclaration` (checked when built: V on the motion is
the kinematics, the speeds give back u, the W are admissible and independent), and a form
function that solves it, ``<form>(…) = solve(declare_<form>(…))``.  The form's route, inputs and
sources are its :class:`~geonh.equations.declaration.FormInfo` (``BOLTZMANN_HAMEL``, …), which
the declaration carries and the registry reads.

========================  ===============================================================
form                      declaration (d field V, δ fields W)
========================  ===============================================================
Boltzmann–Hamel           adapted frame X_a, V = u^r X_r (+ X_t), W = X_r (Hamel's
                          extension: quasi-velocities constant; p·[X_r, V] =
                          c^d_rb ω^b ∂T*/∂ω^d, Hamel 1924 eq. (19'), CONVENTIONS.md)
Volterra                  Boltzmann–Hamel without constraints (Hamel 1924, eq. (III))
Voronets                  the Voronets frame X_s = ∂_s + a_js ∂_j (seed 004, k = 0)
Chaplygin                 Voronets on a Chaplygin system (cyclic dependent coordinates)
Neimark–Fufaev (k)        the d and δ fields of seed 004 eq. (1.1) for the chosen k
========================  ===============================================================
"""
from __future__ import annotations

from typing import Sequence

import sympy as sp

from ..errors import NotAdaptedError
from ..kernel.frames import Frame
from ..kernel.generic_point import is_zero
from ..systems.mechanical import MechanicalSystem
from ..transposition.adapted import solve_constraints, speed_symbols, voronets_frame
from ..transposition.relations import ConstrainedSetting
from .base import Equations
from .declaration import (CHAPLYGIN_1897, HAMEL_1924, NEIMARK_FUFAEV_1960, VOLTERRA_1898, FormDeclaration,
                          FormInfo, Inputs, Route, in_frame, solve)

__all__ = ["boltzmann_hamel", "volterra", "voronets", "chaplygin", "chaplygin_obstruction", "is_chaplygin",
           "neimark_fufaev", "declare_boltzmann_hamel", "declare_volterra", "declare_voronets", "declare_chaplygin",
           "declare_neimark_fufaev", "BOLTZMANN_HAMEL", "VOLTERRA", "VORONETS", "CHAPLYGIN", "NEIMARK_FUFAEV"]

BOLTZMANN_HAMEL = FormInfo("boltzmann-hamel", Route.ENGINE, Inputs.FRAME, (
    HAMEL_1924.at("(19')", note="Lagrange–Euler equations; (III) without constraints"),))
VOLTERRA = FormInfo("volterra", Route.ENGINE, Inputs.FRAME, (HAMEL_1924.at("(III)"), VOLTERRA_1898))
VORONETS = FormInfo("voronets", Route.ENGINE, Inputs.DEPENDENT, (NEIMARK_FUFAEV_1960.at("(2.7)"),
                                                                   HAMEL_1924.at("(V)")))
CHAPLYGIN = FormInfo("chaplygin", Route.ENGINE, Inputs.DEPENDENT, (
    NEIMARK_FUFAEV_1960.at("§ 2", note="Voronets's equations for a Chaplygin system"), CHAPLYGIN_1897))
NEIMARK_FUFAEV = FormInfo("neimark-fufaev", Route.ENGINE, Inputs.DEPENDENT, (
    NEIMARK_FUFAEV_1960.at("(2.5)", "(1.1)", note="the registry's entry is k = n − m"),))


def declare_boltzmann_hamel(system: MechanicalSystem, frame: Frame | None = None) -> FormDeclaration:
    """The declaration of :func:`boltzmann_hamel`: Hamel's choice in the adapted frame
    (:func:`~geonh.equations.declaration.in_frame`); Volterra's without constraints."""
    info = BOLTZMANN_HAMEL if system.n_constraints else VOLTERRA
    return in_frame(info.name, system, frame, info=info)


def boltzmann_hamel(system: MechanicalSystem, frame: Frame | None = None) -> Equations:
    """Boltzmann–Hamel (Hamel's Lagrange–Euler) equations in an adapted frame.

        d/dt ∂T*/∂ω^r + c^d_rb ω^b ∂T*/∂ω^d − X_r(T*) = K_r     (Hamel 1924, eq. (19'))

    for the free r, with the constraints ω^α = 0 substituted only after differentiation
    (J_α = ∂T*/∂ω^α stays in the c term).  Default frame: :func:`voronets_frame`.  Without
    constraints the form is Volterra's.  ``solve(declare_boltzmann_hamel(system, frame))``.
    """
    return solve(declare_boltzmann_hamel(system, frame))


def declare_volterra(system: MechanicalSystem, frame: Frame) -> FormDeclaration:
    """The declaration of :func:`volterra` (NotAdaptedError for a system with constraints)."""
    if system.n_constraints:
        raise NotAdaptedError("Volterra's equations are for systems without constraints; use boltzmann_hamel")
    return in_frame(VOLTERRA.name, system, frame, info=VOLTERRA)


def volterra(system: MechanicalSystem, frame: Frame) -> Equations:
    """Volterra's equations (Hamel 1924, eq. (III)): a holonomic system in quasi-velocities;
    ``solve(declare_volterra(system, frame))``."""
    return solve(declare_volterra(system, frame))


def declare_voronets(system: MechanicalSystem, dependent: Sequence | None = None) -> FormDeclaration:
    """The declaration of :func:`voronets`: Hamel's choice in the Voronets frame."""
    return in_frame(VORONETS.name, system, voronets_frame(system, dependent), info=VORONETS)


def voronets(system: MechanicalSystem, dependent: Sequence | None = None) -> Equations:
    """Voronets's equations (seed 004 eq. (2.7); Hamel 1924 eq. (V)): the engine in the Voronets
    frame X_s = ∂_s + a_js ∂_j (the extension of seed 004 for k = 0: V^s = q̇_s constant, V^j =
    a_js q̇_s + a_j); the transpositional term p·[X_l, V] = −(∂T/∂q̇_j) B^j_rl q̇_r.
    ``solve(declare_voronets(system, dependent))``."""
    return solve(declare_voronets(system, dependent))


def chaplygin_obstruction(system: MechanicalSystem, dependent: Sequence | None = None) -> str:
    """Empty string if the system is of Chaplygin type for these dependent coordinates, else why not."""
    S = system.space
    free, dep, a, a0 = solve_constraints(system, dependent)
    qj = [S.q[j] for j in dep]
    if any(not is_zero(e) for e in a0):
        return "the constraints have affine terms a_j"
    for name, exprs in (("the kinetic energy", [system.T]), ("the forces", list(system.Q)),
                        ("the constraint coefficients a_js", list(a))):
        for e in exprs:
            for x in qj:
                if x in e.free_symbols and not is_zero(sp.diff(e, x)):
                    return f"{name} depend(s) on the dependent coordinate {x}"
    return ""


def is_chaplygin(system: MechanicalSystem, dependent: Sequence | None = None) -> bool:
    """Is the system of Chaplygin type for these dependent coordinates (see
    :func:`chaplygin_obstruction` for the reason when it is not)?"""
    return chaplygin_obstruction(system, dependent) == ""


def declare_chaplygin(system: MechanicalSystem, dependent: Sequence | None = None) -> FormDeclaration:
    """The declaration of :func:`chaplygin`: Voronets's, with the reduced coordinates noted
    (NotAdaptedError with the reason if the system is not of Chaplygin type)."""
    reason = chaplygin_obstruction(system, dependent)
    if reason:
        raise NotAdaptedError(f"not a Chaplygin system: {reason}")
    free, dep, _, _ = solve_constraints(system, dependent)
    S = system.space
    reduced = tuple(S.q[s] for s in free)
    notes = (f"closed in {[q.name for q in reduced]}; {[S.q[j].name for j in dep]} follow by quadrature")
    return in_frame(CHAPLYGIN.name, system, voronets_frame(system, dependent), notes=notes,
                    reduced_coordinates=reduced, info=CHAPLYGIN)


def chaplygin(system: MechanicalSystem, dependent: Sequence | None = None) -> Equations:
    """Chaplygin's equations: Voronets's equations for a Chaplygin system, in which T, the
    forces and the a_js do not depend on the dependent coordinates q_j, and a_j = 0.  The
    equations then close in (q_s, q̇_s); q_j follow by quadrature.  Raises NotAdaptedError
    with the reason if the system is not of Chaplygin type.
    ``solve(declare_chaplygin(system, dependent))``."""
    return solve(declare_chaplygin(system, dependent))


def neimark_fufaev(system: MechanicalSystem, k: int, dependent: Sequence | None = None,
                   quasi=None) -> Equations:
    """Neimark–Fufaev's intermediate equations (seed 004 eq. (2.5)) for 0 ≤ k ≤ n − m,
    ``solve(declare_neimark_fufaev(system, k, dependent, quasi))`` (see there)."""
    return solve(declare_neimark_fufaev(system, k, dependent, quasi))


def declare_neimark_fufaev(system: MechanicalSystem, k: int, dependent: Sequence | None = None,
                           quasi=None) -> FormDeclaration:
    """The declaration of Neimark–Fufaev's intermediate equations (seed 004 eq. (2.5)) for
    0 ≤ k ≤ n − m:

        d/dt ∂T*/∂π̇_l − ∂T*/∂π_l + γ_lλμ ∂T*/∂π̇_λ π̇_μ − B^σ_rs ∂T*/∂q̇_σ q̇_r b_sl = Π_l,

    declared with the d and δ fields of eq. (1.1) for this k from
    :class:`~geonh.transposition.TranspositionalRelations`: V, W have constant components on
    the free coordinates and the ρ's; on the motion dq_α = b_αν π̇_ν (π̇_ρ = 0, ṫ = 1) and,
    for the l-th equation, δq_α = b_αl.  k = n − m gives Boltzmann–Hamel, k = 0 Voronets
    (with π = q).  ``quasi``: the free quasi-velocities π̇_r = a_rs q̇_s (default π_r = q_r).
    """
    S = system.space
    st = ConstrainedSetting.from_codistribution(system.constraints, dependent, quasi=quasi)
    tr = st.transposition(k)
    m = st.m
    names = [f"pi{r + 1}" for r in range(m)] if quasi is not None else [f"{q.name}_dot" for q in st.free]
    u, ud = speed_symbols(names)
    pidot = list(u) + [sp.S.Zero] * k + ([sp.S.One] if S.t is not None else [])
    dq = tr.b * sp.Matrix(pidot)
    d_on = {tr.d_symbols[q]: dq[i] for i, q in enumerate(tr.q_lambda)}
    K = tuple(tr.V.components[i].xreplace(d_on) for i in range(S.n))
    ons = []
    for l in range(m):
        on = dict(d_on)
        on.update({tr.delta_symbols[q]: tr.b[i, l] for i, q in enumerate(tr.q_lambda) if q != S.t})
        ons.append(on)
    speeds = tuple(tr.a[:m, :] * sp.Matrix([S.velocity(q) for q in tr.q_lambda]))
    notes = f"ρ = {[q.name for q in tr.rho]}, σ = {[q.name for q in tr.sigma]}"
    return FormDeclaration(f"neimark-fufaev(k={k})", system, tr.V, (tr.W,) * m, tuple(ons), u, ud, K, speeds,
                           notes=notes, info=NEIMARK_FUFAEV)
