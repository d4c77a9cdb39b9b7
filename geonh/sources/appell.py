"""Appell 1911, *Sur les liaisons exprimées par des relations non linéaires entre les vitesses*
(seed 002: the German review JFM 42.0755.02): the audited formulas.

The review numbers only (3) and (4); its other formulas are inline.  Those that are mechanics
are registered under descriptive labels: (S) the acceleration energy, (R) the minimum principle
for R = S − Σ Q_ν q''_ν, (f) the new constraint f(q') = 0 on the real motion, (δf) the rule
f(δq) = 0 for the compatible displacements.  (The numbering (3), (4) suggests that Appell's
(1), (2) are the two relations f(δq) = 0 and f(q') = 0; the review does not print the numbers.)

Each check types the printed formula in literally — S from the Cartesian accelerations
x'', y'', z'' of the particle, differentiated twice by hand with ``sp.diff`` — and compares it
with geonh: :meth:`MechanicalSystem.acceleration_energy` (from Christoffel symbols),
:func:`~geonh.equations.nonlinear.appell`, :func:`~geonh.equations.independent.lagrange`,
:meth:`NonlinearSystem.chetaev_codistribution` (see :mod:`geonh.sources.ledger`).
"""
from __future__ import annotations

import sympy as sp

from ..equations.independent import lagrange
from ..equations.nonlinear import appell
from ..kernel.generic_point import is_zero
from ..kernel.space import ConfigurationSpace
from ..systems.mechanical import MechanicalSystem
from ..systems.nonlinear import NonlinearSystem
from .ledger import Finding, compare, definition, formula

_m, _g, _a0, _a1 = sp.symbols("m g a0 a1", positive=True)


def _cylindrical(constrained: bool = True):
    """A particle (mass m, gravity −g along z) in cylindrical coordinates (ρ, θ, z), with
    Appell–Hamel's constraint made rheonomic: f = z'² − α(t)²(ρ'² + ρ²θ'²), α = a0 + a1 t,
    homogeneous of degree n = 2 in the velocities, depending on q and t.
    Returns (system, Cartesian position (x, y, z) as functions of q, f)."""
    S = ConfigurationSpace("rho theta z", time=True)
    rho, th, z = S.q
    rd, thd, zd = S.qd
    T = _m * (rd ** 2 + rho ** 2 * thd ** 2 + zd ** 2) / 2
    alpha = _a0 + _a1 * S.t
    f = zd ** 2 - alpha ** 2 * (rd ** 2 + rho ** 2 * thd ** 2)
    pos = (rho * sp.cos(th), rho * sp.sin(th), z)
    if not constrained:
        return MechanicalSystem(S, T, V=_m * _g * z), pos, f
    ns = NonlinearSystem(S, T, V=_m * _g * z, constraints=[f],
                         solved={zd: alpha * sp.sqrt(rd ** 2 + rho ** 2 * thd ** 2)}, name="Appell–Hamel, cylindrical")
    return ns, pos, f


def _dt(S: ConfigurationSpace, e: sp.Expr) -> sp.Expr:
    """d/dt by hand: ∂e/∂t + Σ ∂e/∂q q' + Σ ∂e/∂q' q'' (for expressions in t, q, q')."""
    out = sum((sp.diff(e, q) * v for q, v in zip(S.q, S.qd)), sp.S.Zero)
    out += sum((sp.diff(e, v) * a for v, a in zip(S.qd, S.qdd)), sp.S.Zero)
    return out + (sp.diff(e, S.t) if S.t is not None else 0)


def _printed_S(S: ConfigurationSpace, pos) -> sp.Expr:
    """S = ½ Σ m (x''² + y''² + z''²), the Cartesian accelerations in terms of q, q', q''."""
    acc = [_dt(S, _dt(S, p)) for p in pos]
    return _m * sum(a ** 2 for a in acc) / 2


def _labelled(names, values, tag: str) -> dict:
    return {f"{tag}_{nm}": v for nm, v in zip(names, values)}


@formula("appell1911", "(S)", topic="Appell's acceleration energy (inline in the review)",
         printed="S = ½ Σ m (x''² + y''² + z''²), as a function of the q''_ν",
         computed="MechanicalSystem.acceleration_energy = ½ M_ij q''^i q''^j + q''^k Γ_{k,ab} q'^a q'^b "
                  "(Christoffel symbols), equal up to terms free of q''",
         api="MechanicalSystem.acceleration_energy", expected="agrees")
def _appell_S() -> Finding:
    ns, pos, _ = _cylindrical()
    S = ns.space
    printed_S = _printed_S(S, pos)
    geonh_S = ns.base.acceleration_energy()
    names = [str(q) for q in S.q]
    printed = _labelled(names, [sp.diff(printed_S, a) for a in S.qdd], "∂S/∂q''")
    computed = _labelled(names, [sp.diff(geonh_S, a) for a in S.qdd], "∂S/∂q''")
    return compare(printed, computed, "particle in cylindrical coordinates (ρ, θ, z)",
                   detail="compared through ∂S/∂q''_ν: the terms of S free of q'' (which geonh's S omits) "
                          "enter neither the minimum of R nor (4)")


@formula("appell1911", "(R)", topic="motion = minimum of R = S − Σ Q_ν q''_ν (inline)",
         printed="R = S − Σ Q_ν q''_ν minimal in the q''_ν; with the new constraint: minimal subject to (3)",
         computed="q'' of Lagrange's equations d/dt ∂T/∂q' − ∂T/∂q = Q (free system); q'' of Appell's equations "
                  "with a multiplier (new constraint)",
         api="equations.lagrange, equations.nonlinear.appell", expected="agrees")
def _appell_R() -> Finding:
    ms, pos, f = _cylindrical(constrained=False)
    S = ms.space
    names = [str(q) for q in S.q]
    R = _printed_S(S, pos) - sum(Q * a for Q, a in zip(ms.Q, S.qdd))
    grad = sp.Matrix([sp.diff(R, a) for a in S.qdd])
    H = grad.jacobian(S.qdd)
    qdd = H.LUsolve(-grad.xreplace({a: 0 for a in S.qdd}))
    printed = _labelled(names, qdd, "free q''")
    computed = _labelled(names, lagrange(ms).rhs()[S.n:, :], "free q''")
    # the new motion: R minimal among the q'' that satisfy (3) (one multiplier μ, solved by hand)
    ns, _, _ = _cylindrical()
    mu = sp.Symbol("mu")
    eq3 = _dt(S, f)
    E = list(grad + mu * sp.Matrix([sp.diff(eq3, a) for a in S.qdd])) + [eq3]
    unknowns = list(S.qdd) + [mu]
    E = sp.Matrix(E)
    sol = E.jacobian(unknowns).LUsolve(-E.xreplace({u: 0 for u in unknowns}))
    printed.update(_labelled(names, sol[:S.n, :], "constrained q''"))
    computed.update(_labelled(names, appell(ns).rhs()[S.n:, :], "constrained q''"))
    return compare(printed, computed,
                   "particle with gravity in cylindrical coordinates (ρ, θ, z); then with the new constraint "
                   "f = z'² − (a0 + a1 t)²(ρ'² + ρ²θ'²)",
                   detail="the Hessian ∂²R/∂q''² = M is positive definite, so the stationary points are the minima")


@formula("appell1911", "(f)", topic="the new constraint on the real motion (inline)",
         printed="f(q'_1, q'_2, …, q'_k) = 0, f homogeneous of degree n in the q'_ν",
         computed="NonlinearSystem.phi; Chetaev's form θ = Σ ∂f/∂q'_ν dq_ν gives θ(q') = n f = 0 (Euler): "
                  "the real displacement is a virtual one",
         api="NonlinearSystem.chetaev_codistribution", expected="agrees")
def _appell_f() -> Finding:
    ns, _, f = _cylindrical()
    S = ns.space
    theta = ns.chetaev_codistribution().forms[0]
    on_qd = sum((c * v for c, v in zip(list(theta.covector)[:S.n], S.qd)), sp.S.Zero)
    printed = {"f": f, "Σ ∂f/∂q'_ν q'_ν": 2 * f}        # n = 2 for this f
    computed = {"f": ns.phi[0], "Σ ∂f/∂q'_ν q'_ν": on_qd}
    return definition(printed, computed, "f = z'² − (a0 + a1 t)²(ρ'² + ρ²θ'²), n = 2, in cylindrical coordinates")


@formula("appell1911", "(δf)", topic="rule for the compatible displacements (inline)",
         printed="f(δq_1, δq_2, …, δq_k) = 0 for the displacements compatible with the frictionless constraint",
         computed="Chetaev's rule Σ ∂f/∂q'_ν δq_ν = 0: the reaction λ ∂f/∂q'_ν of (4) does no work exactly on these; "
                  "on the cone f(δq) = 0 its work vanishes only for δq ∥ q' (or n = 1)",
         api="NonlinearSystem.chetaev_codistribution, equations.nonlinear.appell (reactions)",
         expected="hypothesis")
def _appell_deltaf() -> Finding:
    ns, _, f = _cylindrical()
    S = ns.space
    rho = S.q[0]
    rd, thd, zd = S.qd
    alpha = _a0 + _a1 * S.t
    eq = appell(ns)
    # a displacement on the printed cone f(δq) = 0: δρ = p, δθ = s, δz = α √(p² + ρ² s²)
    p, s = sp.symbols("p s", real=True)
    dq = [p, s, alpha * sp.sqrt(p ** 2 + rho ** 2 * s ** 2)]
    on = {zd: alpha * sp.sqrt(rd ** 2 + rho ** 2 * thd ** 2)}   # the motion on the branch z' > 0
    cone = sp.expand(f.xreplace(dict(zip(S.qd, dq))))
    work = sum((R * d for R, d in zip(eq.reactions, dq)), sp.S.Zero).xreplace(on)
    k = sp.Symbol("k", positive=True)
    along = {p: k * rd, s: k * thd}
    detail = "f(δq) = " + sp.sstr(cone) + " on the cone parametrization"
    return compare({"virtual work of the reaction": sp.S.Zero}, {"virtual work of the reaction": work},
                   "f = z'² − (a0 + a1 t)²(ρ'² + ρ²θ'²) (n = 2), δq = (p, s, α√(p² + ρ²s²)) on the cone f(δq) = 0",
                   hypothesis="δq is parallel to the real velocity q' (δρ = k ρ', δθ = k θ'), or f is linear (n = 1)",
                   under=along, detail=detail)


@formula("appell1911", "(3)", topic="the constraint differentiated in time",
         printed="∂f/∂q'_1 q''_1 + … + ∂f/∂q'_k q''_k + ∂f/∂q_1 q'_1 + … + ∂f/∂t = 0",
         computed="the constraint row d/dt φ of Appell's equations (ConfigurationSpace.total_derivative)",
         api="equations.nonlinear.appell", expected="agrees")
def _appell_3() -> Finding:
    ns, _, f = _cylindrical()
    S = ns.space
    printed = (sum((sp.diff(f, v) * a for v, a in zip(S.qd, S.qdd)), sp.S.Zero)
               + sum((sp.diff(f, q) * v for q, v in zip(S.q, S.qd)), sp.S.Zero) + sp.diff(f, S.t))
    computed = appell(ns).residuals[S.n]
    return compare(printed, computed, "f = z'² − (a0 + a1 t)²(ρ'² + ρ²θ'²), cylindrical coordinates, rheonomic")


@formula("appell1911", "(4)", topic="Appell's equations with a multiplier",
         printed="∂S/∂q'_ν − Q_ν − λ ∂f/∂q'_ν = 0",
         computed="∂S/∂q''_ν − Q_ν − λ ∂f/∂q'_ν = 0 (S differentiated in the accelerations); reaction +λ ∂f/∂q'_ν",
         api="equations.nonlinear.appell", expected="misprint")
def _appell_4() -> Finding:
    ns, pos, f = _cylindrical()
    S = ns.space
    eq = appell(ns)
    (lam,) = eq.lam_vec
    Sp = _printed_S(S, pos)
    names = [str(q) for q in S.q]
    printed = [sp.diff(Sp, v) - Q - lam * sp.diff(f, v) for v, Q in zip(S.qd, ns.Q)]
    computed = list(eq.residuals[:S.n])
    # "die Glieder λ ∂f/∂q'_ν stellen die Wirkung der ... Kraft dar": the reaction, with its sign
    reaction_p = [lam * sp.diff(f, v) for v in S.qd]
    found = compare({**_labelled(names, printed, "(4)"), **_labelled(names, reaction_p, "reaction")},
                    {**_labelled(names, computed, "(4)"), **_labelled(names, list(eq.reactions), "reaction")},
                    "particle with gravity in cylindrical coordinates, f = z'² − (a0 + a1 t)²(ρ'² + ρ²θ'²)")
    corrected = [sp.diff(Sp, a) - Q - lam * sp.diff(f, v) for a, v, Q in zip(S.qdd, S.qd, ns.Q)]
    if found.status == "misprint" and all(is_zero(c - e) for c, e in zip(corrected, computed)):
        return Finding("misprint", found.example, found.difference,
                       "∂S/∂q'_ν must read ∂S/∂q''_ν (the accelerations); read that way (4) agrees, sign of λ included")
    return found
