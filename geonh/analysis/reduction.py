"""Reduction by a symmetry, reconstruction and geometric phase (docs/reduction.md).

Setting (Bloch, Krishnaprasad, Marsden & Murray 1996, *Nonholonomic mechanical systems with
symmetry*, Arch. Rational Mech. Anal. 136, 21–99, §§ 2–6, "BKMM"; Bloch 2003, *Nonholonomic
Mechanics and Control*, ch. 5): a group G acts on Q with infinitesimal generators X_1 … X_k
(checked by :func:`~geonh.analysis.conserved.check_symmetry`).  The coordinates the generators
move are the *group* coordinates g (there must be k of them, and the k × k matrix X_g of the
generators' group components must be invertible: a free action in a local trivialisation
Q = G × M); the others are the *shape* coordinates r.  Every velocity is written

    q̇ = X(q) ξ + ṙ,       ξ ∈ 𝔤  (X = [X_1 … X_k]: ξ = ġ g⁻¹ for a left action, the
                                   "spatial" velocity; at the reference point g = e it is the
                                   body velocity g⁻¹ġ).

The constraints A q̇ = 0 (homogeneous, scleronomic, G-invariant) and the bundle
S_q = D_q ∩ T_q(orbit) with the basis ξ_b^Q = c_b^a(q) X_a of
:func:`~geonh.analysis.conserved.momentum_map` and the nonholonomic momenta
p_b = J(ξ_b) = ∂L/∂q̇ · ξ_b^Q (BKMM § 4).  With D_q + T_q(orbit) = T_qQ ("the dimension
assumption", BKMM § 2) the k equations

    A X ξ = −A_r ṙ        (k − s independent rows: the constraints),
    ξ_b^Q · M (X ξ + ṙ) = p_b   (s rows: the momenta; ξ_b^Q · M X = 𝕀 restricted to S, the
                                 locked inertia tensor 𝕀_bc = ⟨ξ_b^Q, ξ_c^Q⟩_T)

have one solution, the **nonholonomic connection** written as BKMM's reconstruction equation

    ξ = −𝒜(q) ṙ + Γ(q) p,        g⁻¹ġ = −𝒜_loc(r) ṙ + Γ_loc(r) p   (at g = e),

𝒜 = A^kin + A^sym the kinematic part (what the constraints fix) and the part the momentum
equation fixes (BKMM § 5; the connection one-form is A^kin + 𝕀⁻¹ J).  ``s = 0``
(the *principal kinematic* case, BKMM § 6): ξ = −𝒜 ṙ, no momentum.  The momentum equation
(BKMM Thm 4.5, :func:`~geonh.analysis.conserved.momentum_map`) in the reduced variables is

    ṗ = ṙᵀ σ(r) ṙ + pᵀ γ(r) ṙ + pᵀ λ(r) p        (its right-hand side with q̇ substituted),

and the reduced Lagrange–d'Alembert–Poincaré equations on the shape space are the shape rows
of Hamel's Lagrange–Euler equations (:func:`~geonh.equations.frame_forms.boltzmann_hamel`) in
the frame whose quasi-velocities are (ṙ, p, the constraints): their speeds are the reduced
variables (ṙ, p), and by G-invariance their right-hand sides do not depend on g.  The momentum
rows are checked against the momentum equation (two derivations, one answer; else
:class:`~geonh.errors.SelfCheckError`).

Geometric phase.  For a gait r(t) (a closed loop in shape space, prescribed: the actuators
make the shape follow it) the group motion solves ṗ = (momentum equation), ġ = X_g(q) ξ, a
system of ODEs along the gait (:meth:`ReducedEquations.reconstruct`).  Where s = 0 or the
momentum stays 0, ξ = −𝒜 ṙ and the group displacement of a loop depends on the loop only;
for an abelian group it is exactly the area integral of the curvature

    g(T) − g(0) = −∮ 𝒜_loc = −∬_Σ B,   B_αβ = ∂_α 𝒜_β − ∂_β 𝒜_α − [𝒜_α, 𝒜_β]

(Stokes; Marsden, Montgomery & Ratiu 1990; Kelly & Murray 1995, *Geometric phases and robotic
locomotion*, J. Robotic Systems 12, eq. (13)), and for a non-abelian group −B(e_α, e_β)·ε² is
the leading term of the phase of a small ε-square loop (:func:`curvature`,
:func:`phase_integral`).  The Lie bracket of 𝔤 in the basis of the generators is minus the
bracket of the vector fields: generators of a left action are right-invariant fields.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import sympy as sp

from ..equations.base import Equations
from ..equations.frame_forms import boltzmann_hamel
from ..errors import (DimensionError, MissingValueError, NotFoundError, ParseError, SelfCheckError,
                      SingularMapError, UnsupportedSetupError)
from ..kernel.elementary import TRIG_FUNCTIONS
from ..kernel.fields import VectorField
from ..kernel.frames import Frame
from ..kernel.generic_point import generic_rank, independent_rows, is_zero, lu_solve
from ..kernel.parsing import as_expr, as_floats, as_mapping, as_sequence, sympy_of
from ..kernel.space import ConfigurationSpace
from ..kernel.trig import trig_reduce
from ..systems.mechanical import MechanicalSystem
from .conserved import MomentumMap, check_symmetry, momentum_map
from .steady import generators_over

__all__ = ["NonholonomicConnection", "ReducedEquations", "Reconstruction", "nonholonomic_connection",
           "reduced_equations", "curvature", "phase_integral", "driven_system"]

_BKMM = "Bloch, Krishnaprasad, Marsden & Murray 1996, Arch. Rational Mech. Anal. 136, 21–99"


def _simp(e) -> sp.Expr:
    """``e`` reduced modulo sin² + cos² = 1 where it is rational in sin, cos of symbols
    (:func:`~geonh.kernel.trig.trig_reduce`), else ``cancel``-ed."""
    e = sympy_of(e)
    if not e.free_symbols:
        return e
    trig = e.atoms(*TRIG_FUNCTIONS)
    if trig and all(f.args[0].is_Symbol for f in trig):
        return trig_reduce(e)
    return sp.factor(sp.cancel(sp.together(e)))


def _tolerance(x, what: str) -> float:
    """A positive float tolerance, else :class:`~geonh.errors.ParseError`."""
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        raise ParseError(f"{what} must be a positive number, not {type(x).__name__}")
    v = float(x)
    if not v > 0:
        raise ParseError(f"{what} must be a positive number, not {x}")
    return v


@dataclass(frozen=True, eq=False)
class NonholonomicConnection:
    """The nonholonomic connection of a system with symmetry (module docstring, BKMM § 5).

    Attributes
    ----------
    system : the :class:`~geonh.MechanicalSystem`.
    generators : X_1 … X_k as vector fields.
    group, shape : the group coordinates g (moved by the generators) and the shape coordinates r.
    momenta : p_1 … p_s, the symbols of the nonholonomic momenta (``p`` when s = 1).
    momentum_map : the :class:`~geonh.analysis.MomentumMap` whose sections define them.
    A : 𝒜(q), k × dim r: ξ = −𝒜 ṙ + Γ p (ξ the generator components of the velocity).
    Gamma : Γ(q), k × s.
    locked_inertia : 𝕀(q), s × s, 𝕀_bc = ⟨ξ_b^Q, ξ_c^Q⟩ in the kinetic-energy metric.
    reference : the values of the group coordinates of the local forms (default 0: g = e).
    """

    system: MechanicalSystem
    generators: tuple
    group: tuple
    shape: tuple
    momenta: tuple
    momentum_map: MomentumMap = field(repr=False)
    A: sp.Matrix = field(repr=False)
    Gamma: sp.Matrix = field(repr=False)
    locked_inertia: sp.Matrix = field(repr=False)
    reference: dict = field(repr=False, default_factory=dict)

    @property
    def kinematic(self) -> bool:
        """The principal kinematic case: S = 0, the constraints alone fix ξ = −𝒜 ṙ."""
        return not self.momenta

    @property
    def shape_velocities(self) -> tuple:
        """The symbols of ṙ (the space's velocity symbols of the shape coordinates)."""
        S = self.system.space
        return tuple(S.qd[S.q.index(r)] for r in self.shape)

    def local(self) -> tuple[sp.Matrix, sp.Matrix]:
        """(𝒜_loc(r), Γ_loc(r)): 𝒜 and Γ at the group reference g = e, the body form of the
        reconstruction equation g⁻¹ġ = −𝒜_loc ṙ + Γ_loc p (BKMM § 5)."""
        return (self.A.xreplace(self.reference).applyfunc(_simp),
                self.Gamma.xreplace(self.reference).applyfunc(_simp))

    def xi(self) -> sp.Matrix:
        """ξ = −𝒜 ṙ + Γ p as a column (in q, ṙ, p)."""
        rd = sp.Matrix(len(self.shape), 1, list(self.shape_velocities))   # a column also when r is empty
        return -self.A * rd + self.Gamma * sp.Matrix(len(self.momenta), 1, list(self.momenta))

    def velocity(self) -> dict:
        """{q̇_i: expression in (q, ṙ, p)}: the admissible velocity q̇ = X ξ + ṙ."""
        S = self.system.space
        xi = self.xi()
        out = {}
        for i, qi in enumerate(S.q):
            if qi in self.shape:
                out[S.qd[i]] = S.qd[i]
            else:
                out[S.qd[i]] = sum((xi[a] * X.components[i] for a, X in enumerate(self.generators)), sp.S.Zero)
        return out


def _group_shape(S: ConfigurationSpace, X: Sequence[VectorField]) -> tuple[list, list]:
    n = S.n
    moved = [i for i in range(n) if any(not is_zero(Xa.components[i]) for Xa in X)]
    return moved, [i for i in range(n) if i not in moved]


def _scleronomic(system, who: str) -> MechanicalSystem:
    """The MechanicalSystem of ``system`` (or of its Equations), refused unless scleronomic."""
    if isinstance(system, Equations):
        system = system.system
    if not isinstance(system, MechanicalSystem):
        raise ParseError(f"{who} takes a MechanicalSystem, not {type(system).__name__}")
    if system.space.t is not None:
        raise UnsupportedSetupError(f"{who} takes a scleronomic system (no time in the space)")
    return system


def nonholonomic_connection(system, generators: Sequence, *, sections: Sequence | None = None,
                            reference: Mapping | None = None) -> NonholonomicConnection:
    """The nonholonomic connection 𝒜, Γ and the locked inertia 𝕀 (module docstring).

    ``system``: a :class:`~geonh.MechanicalSystem` (or :class:`~geonh.Equations` of one) with
    homogeneous scleronomic constraints; ``generators``: the infinitesimal generators (as
    :func:`~geonh.analysis.momentum_map` takes them); ``sections``: the basis of S = D ∩
    T(orbit) that defines the momenta (default :func:`~geonh.analysis.momentum_map`'s);
    ``reference``: values of the group coordinates for the local forms (default 0).
    Raises :class:`~geonh.errors.DimensionError` when the generators do not act freely on as
    many group coordinates as there are generators, :class:`~geonh.errors.SingularMapError`
    when D + T(orbit) ≠ TQ, :class:`~geonh.errors.UnsupportedSetupError` for time-dependent
    or affine constraints or a kinetic energy with terms linear in q̇."""
    system = _scleronomic(system, "nonholonomic_connection")
    S = system.space
    X = check_symmetry(system, generators_over(system, generators))
    n, k = S.n, len(X)
    moved, shape_idx = _group_shape(S, X)
    if len(moved) != k:
        raise DimensionError(f"the {k} generators move the {len(moved)} coordinates "
                             f"{[S.q[i].name for i in moved]}: reduction needs as many group coordinates as generators")
    Xg = sp.Matrix([[Xa.components[i] for Xa in X] for i in moved])
    if generic_rank(Xg) < k:
        raise DimensionError("the generators are dependent on the group coordinates (the action is not free)")
    mm = momentum_map(system, list(X), sections=sections, check=False)
    s = mm.rank
    Am, b = system.constraint_matrix
    if any(not is_zero(e) for e in b):
        raise UnsupportedSetupError("reduction needs homogeneous constraints A q̇ = 0")
    shape = tuple(S.q[i] for i in shape_idx)
    rd = [S.qd[i] for i in shape_idx]
    xi = sp.symbols(f"_xi1:{k + 1}", real=True)
    names = ["p"] if s == 1 else [f"p{b_ + 1}" for b_ in range(s)]
    taken = {str(x) for x in system.T.free_symbols | set(S.state_symbols)}
    names = [nm if nm not in taken else f"{nm}_J" for nm in names]
    p = tuple(sp.Symbol(nm, real=True) for nm in names)
    Xm = sp.Matrix([[Xa.components[i] for Xa in X] for i in range(n)])
    qdot = Xm * sp.Matrix(xi) + sp.Matrix([S.qd[i] if i in shape_idx else 0 for i in range(n)])
    sub = dict(zip(S.qd, qdot))
    rows: list = []
    if Am.rows:
        AX = Am * Xm
        keep = independent_rows(AX)
        rows += [sp.expand((Am.row(r) * qdot)[0]) for r in keep]
    rows += [sp.expand(sympy_of(m.momentum).xreplace(sub)) - p[b_] for b_, m in enumerate(mm.momenta)]
    if len(rows) != k:
        raise SingularMapError(f"D + T(orbit) is not the whole tangent space: {len(rows)} equations for the {k} "
                               "components of ξ")
    Mx, rhs = sp.linear_eq_to_matrix(rows, xi)
    if generic_rank(Mx) < k:
        raise SingularMapError("the constraints and the momenta do not fix ξ (D + T(orbit) ≠ TQ or the locked "
                               "inertia is singular)")
    sol = lu_solve(Mx, rhs, what="the connection's equations")
    sol = sol.applyfunc(lambda e: sp.expand(e))
    Aconn = sp.Matrix(k, len(rd), lambda a, j: -sp.diff(sol[a], rd[j])).applyfunc(_simp)
    Gam = sp.Matrix(k, s, lambda a, j: sp.diff(sol[a], p[j])).applyfunc(_simp)
    rest = [sp.expand(sol[a] - sum((sp.diff(sol[a], v) * v for v in list(rd) + list(p)), sp.S.Zero))
            for a in range(k)]
    if any(not is_zero(e) for e in rest):
        raise UnsupportedSetupError("the kinetic energy has terms linear in q̇: ξ is not linear in (ṙ, p)")
    Mq = sp.hessian(system.T, S.qd)
    secs = [sp.Matrix(list(m.section.components[:n])) for m in mm.momenta]
    locked = sp.Matrix(s, s, lambda a, c: (secs[a].T * Mq * secs[c])[0]).applyfunc(_simp)
    ref = {S.q[i]: sp.S.Zero for i in moved}
    if reference is not None:
        for key, v in as_mapping(reference, "reference").items():
            hit = [S.q[i] for i in moved if S.q[i] == key or S.q[i].name == str(key)]
            if not hit:
                raise NotFoundError(f"reference {key!r} is not a group coordinate "
                                    f"{[S.q[i].name for i in moved]}")
            ref[hit[0]] = as_expr(v, what=f"reference value of {key}")
    return NonholonomicConnection(system, tuple(X), tuple(S.q[i] for i in moved), shape, p, mm,
                                  Aconn, Gam, locked, ref)


@dataclass(frozen=True, eq=False)
class Reconstruction:
    """The group motion along a gait (:meth:`ReducedEquations.reconstruct`): ``t`` the output
    times, ``group`` (len(t) × k) the group coordinates, ``momenta`` (len(t) × s), ``phase`` the
    group coordinates at the end minus those at the start."""

    t: Any
    group: Any
    momenta: Any
    phase: Any


@dataclass(frozen=True, eq=False)
class ReducedEquations:
    """The reduced equations of a system with symmetry (module docstring; BKMM § 5).

    ``connection`` the :class:`NonholonomicConnection`; ``equations`` Hamel's equations in the
    frame (ṙ, p, constraints) whose speeds ``speeds`` = (w_r …, p …) are the reduced variables;
    ``shape_rates`` r̈ = f(r, ṙ, p) and ``momentum_rates`` ṗ = h(r, ṙ, p) (the momentum
    equation) in the shape coordinates and the speeds, at the group reference; ``reconstruction``
    ξ = −𝒜_loc ṙ + Γ_loc p (the body velocity g⁻¹ġ) in the same variables."""

    connection: NonholonomicConnection
    equations: Equations = field(repr=False)
    speeds: tuple
    shape_rates: tuple
    momentum_rates: tuple
    reconstruction: tuple
    #: the momentum equation's right-hand sides at every group point (in q, the speeds, p)
    momentum_everywhere: tuple = field(default=(), repr=False)

    def in_speeds(self, expr) -> sp.Expr:
        """``expr`` (in q, q̇, p) with ṙ written as the reduced speeds w_r."""
        c = self.connection
        e = as_expr(expr, c.system.space.state_symbols, what="in_speeds expression")
        return e.xreplace(dict(zip(c.shape_velocities, self.speeds[:len(c.shape)])))

    def reconstruct(self, gait: Mapping, t_span: tuple, *, group0: Mapping | None = None,
                    momenta0: Sequence | None = None, values: Mapping | None = None, t_eval=None,
                    rtol: float = 1e-12, atol: float = 1e-12) -> Reconstruction:
        """Integrate the momentum and reconstruction equations along the gait r(t).

        ``gait``: {shape coordinate (name or symbol): expression in the symbol ``t``}, every
        shape coordinate; ``group0`` the initial group coordinates (default 0), ``momenta0``
        the initial momenta (default 0); ``values`` the system's parameters.  The state (g, p)
        solves ṗ = h(r, ṙ, p) (the momentum equation: it holds whatever forces act on the
        shape) and ġ = X_g(g, r) (−𝒜 ṙ + Γ p), by scipy's DOP853 at ``rtol``/``atol``."""
        import numpy as np
        from scipy.integrate import solve_ivp
        c = self.connection
        S = c.system.space
        tsym = sp.Symbol("t", real=True)
        g_in = as_mapping(gait, "gait")
        path = {}
        for r in c.shape:
            hit = [v for kk, v in g_in.items() if kk == r or str(kk) == r.name]
            if not hit:
                raise MissingValueError(f"the gait gives no path for the shape coordinate {r.name}")
            e = as_expr(hit[0], [tsym], what=f"gait of {r.name}")
            e = e.xreplace({s_: tsym for s_ in e.free_symbols if s_.name == "t"})
            path[r] = e
        for kk in g_in:
            if not any(kk == r or str(kk) == r.name for r in c.shape):
                raise NotFoundError(f"gait key {kk!r} is not a shape coordinate {[r.name for r in c.shape]}")
        pdot = list(self.momentum_everywhere)
        w = self.speeds[:len(c.shape)]
        xi_full = c.xi().xreplace(dict(zip(c.shape_velocities, w)))
        gdot = [sum((xi_full[a] * Xa.components[i] for a, Xa in enumerate(c.generators)), sp.S.Zero)
                for i in (S.q.index(gq) for gq in c.group)]
        sysm = c.system
        by = {s_.name: s_ for e in [*gdot, *pdot, sysm.T, sysm.V, *sysm.Q, *sysm.constraints.matrix()]
              for s_ in sympy_of(e).free_symbols}
        params = {}
        for kk, v in (as_mapping(values, "values") if values is not None else {}).items():
            if str(kk) not in by:
                raise NotFoundError(f"{kk!r} is not a parameter of the system")
            params[by[str(kk)]] = as_expr(v, what=f"value of {kk}")
        t0, t1 = (float(x) for x in as_floats(t_span, "t_span"))
        k, s = len(c.group), len(c.momenta)
        g0 = [0.0] * k
        if group0 is not None:
            for kk, v in as_mapping(group0, "group0").items():
                idx = [j for j, gq in enumerate(c.group) if gq == kk or gq.name == str(kk)]
                if not idx:
                    raise NotFoundError(f"group0 {kk!r} is not a group coordinate {[gq.name for gq in c.group]}")
                g0[idx[0]] = float(as_floats([v], f"group0 {kk}")[0])
        p0 = ([float(x) for x in as_floats(as_sequence(momenta0, "momenta0"), "momenta0")] if momenta0 is not None
              else [0.0] * s)
        tols = [_tolerance(rtol, "rtol"), _tolerance(atol, "atol")]
        if len(p0) != s:
            raise DimensionError(f"momenta0 has {len(p0)} entries for {s} momenta")
        on_path = {**{r: path[r] for r in c.shape}, **{wi: sp.diff(path[r], tsym) for wi, r in zip(w, c.shape)}}
        exprs = [sympy_of(e).xreplace(params).xreplace(on_path) for e in gdot + pdot]
        args = [tsym] + list(c.group) + list(c.momenta)
        left = set().union(*(e.free_symbols for e in exprs)) - set(args)
        if left:
            raise MissingValueError(f"give values for {sorted(str(x) for x in left)}")
        f = sp.lambdify([args], exprs, modules="numpy", cse=True)

        def rhs(t, y):
            return np.asarray(f([t, *y]), dtype=float)

        sol = solve_ivp(rhs, (t0, t1), np.array(g0 + p0, dtype=float), method="DOP853", rtol=tols[0], atol=tols[1],
                        t_eval=None if t_eval is None else as_floats(t_eval, "t_eval"))
        if not sol.success:
            raise SelfCheckError(f"the reconstruction did not reach t = {t1}: {sol.message}")
        Y = sol.y.T
        return Reconstruction(sol.t, Y[:, :k], Y[:, k:], Y[-1, :k] - Y[0, :k])


def reduced_equations(system, generators: Sequence, *, sections: Sequence | None = None,
                      reference: Mapping | None = None) -> ReducedEquations:
    """The reduced Lagrange–d'Alembert–Poincaré equations with the momentum equation and the
    reconstruction equation (module docstring; BKMM §§ 5–6).  Arguments as
    :func:`nonholonomic_connection`.  The momentum rows of Hamel's equations in the frame
    (ṙ, p, constraints) are checked against BKMM's momentum equation
    (:func:`~geonh.analysis.momentum_map`); a mismatch raises
    :class:`~geonh.errors.SelfCheckError`."""
    c = nonholonomic_connection(system, generators, sections=sections, reference=reference)
    sysm = c.system
    S = sysm.space
    Am, _ = sysm.constraint_matrix
    cons = [sum((Am[r, i] * S.qd[i] for i in range(S.n)), sp.S.Zero) for r in range(Am.rows)]
    quasi = list(c.shape_velocities) + [m.momentum for m in c.momentum_map.momenta] + cons
    wn = [f"w_{r.name}" for r in c.shape]
    names = wn + [pp.name for pp in c.momenta] + [f"c{j + 1}" for j in range(len(cons))]
    try:
        frame = Frame.from_quasi_velocities(S, quasi, names=names)
    except (SingularMapError, DimensionError) as err:
        raise SingularMapError(f"the quasi-velocities (ṙ, p, constraints) are not a frame: {err}") from err
    eqs = boltzmann_hamel(sysm, frame)
    u = tuple(eqs.u)
    w, pu = u[:len(c.shape)], u[len(c.shape):]
    to_p = dict(zip(pu, c.momenta))
    ref = c.reference
    # the momentum equation of BKMM Thm 4.5 in (q, ṙ, p): q̇ = X ξ + ṙ
    vel = {qd: e.xreplace(dict(zip(c.shape_velocities, w))) for qd, e in c.velocity().items()}
    bkmm = tuple(sympy_of(m.rate).xreplace(vel) for m in c.momentum_map.momenta)
    momentum_rates = tuple(_simp(e.xreplace(ref)) for e in bkmm)
    # Hamel's equations M (ẅ, ṗ) = F at the reference: the shape rows with ṗ from the momentum
    # equation give ẅ; the momentum rows must then hold (the self-check)
    Mm = eqs.mass_matrix.xreplace(to_p).xreplace(ref)
    Fm = eqs.forcing.xreplace(to_p).xreplace(ref)
    nw = len(w)
    pd = sp.Matrix(len(pu), 1, list(momentum_rates))
    if nw:
        wdd = lu_solve(Mm[:nw, :nw], Fm[:nw, :] - Mm[:nw, nw:] * pd, what="the shape rows of the reduced equations")
    else:
        wdd = sp.zeros(0, 1)
    shape_rates = tuple(_simp(e) for e in wdd)
    res = Mm[nw:, :nw] * sp.Matrix(nw, 1, list(shape_rates)) + Mm[nw:, nw:] * pd - Fm[nw:, :]
    for j in range(len(pu)):
        if not is_zero(res[j]):
            raise SelfCheckError(f"momentum {c.momenta[j]}: Hamel's equations and the momentum equation disagree")
    A_loc, G_loc = c.local()
    xi = -A_loc * sp.Matrix(len(w), 1, list(w)) + G_loc * sp.Matrix(len(c.momenta), 1, list(c.momenta))
    return ReducedEquations(c, eqs, w + tuple(c.momenta), shape_rates, momentum_rates,
                            tuple(_simp(e) for e in xi), bkmm)


def _lie_bracket(c: NonholonomicConnection) -> Any:
    """The structure constants C[d][a][b] of 𝔤 in the basis of the generators:
    [e_a, e_b] = C^d_ab e_d with [e_a, e_b] = −[X_a, X_b] (vector fields; module docstring)."""
    S = c.system.space
    X = c.generators
    k = len(X)
    Xm = sp.Matrix([[Xa.components[i] for Xa in X] for i in range(S.n)])
    C = [[[sp.S.Zero] * k for _ in range(k)] for _ in range(k)]
    for a in range(k):
        for b_ in range(a + 1, k):
            br = [sum((X[a].components[i] * sp.diff(X[b_].components[j], S.q[i])
                       - X[b_].components[i] * sp.diff(X[a].components[j], S.q[i]) for i in range(S.n)), sp.S.Zero)
                  for j in range(S.n)]
            if all(is_zero(e) for e in br):
                continue
            coef = lu_solve(Xm.extract(independent_rows(Xm), list(range(k))),
                            sp.Matrix([br[i] for i in independent_rows(Xm)]), what="generators")
            for d in range(k):
                v = -_simp(coef[d])
                if v.free_symbols & set(S.q):
                    raise SelfCheckError("the generators' brackets are not constant combinations of them")
                C[d][a][b_], C[d][b_][a] = v, -v
    return C


def curvature(connection: NonholonomicConnection) -> dict:
    """The curvature of the local connection form 𝒜_loc (module docstring):
    {(r_α, r_β): B_αβ as a k-column} for α < β, B_αβ = ∂_α 𝒜_β − ∂_β 𝒜_α − [𝒜_α, 𝒜_β]
    (Kelly & Murray 1995, eq. (13); 𝒜_α the α-th column of 𝒜_loc)."""
    if not isinstance(connection, NonholonomicConnection):
        raise ParseError(f"curvature takes a NonholonomicConnection, not {type(connection).__name__}")
    A, _ = connection.local()
    C = _lie_bracket(connection)
    k = A.rows
    out = {}
    r = connection.shape
    for al in range(len(r)):
        for be in range(al + 1, len(r)):
            Aa, Ab = A[:, al], A[:, be]
            br = sp.Matrix([sum((C[d][a][b_] * Aa[a] * Ab[b_] for a in range(k) for b_ in range(k)), sp.S.Zero)
                            for d in range(k)])
            out[(r[al], r[be])] = (sp.diff(Ab, r[al]) - sp.diff(Aa, r[be]) - br).applyfunc(_simp)
    return out


def phase_integral(connection: NonholonomicConnection, region: Mapping, *, approximate: bool = False) -> sp.Matrix:
    """The geometric phase of the boundary of the rectangle ``region`` = {r_α: (a, b), r_β: (c,
    d)} of two shape coordinates, traversed counter-clockwise in the (r_α, r_β) plane — r_α the
    region's first key, whatever the order of the coordinates (the other shape coordinates
    fixed), with zero momentum: −∬ B_αβ dr_α dr_β in closed form (sympy's
    ``integrate``; module docstring).  Exact for an abelian group; for a non-abelian one only
    the leading term of a small loop, and refused unless ``approximate=True``."""
    if not isinstance(connection, NonholonomicConnection):
        raise ParseError(f"phase_integral takes a NonholonomicConnection, not {type(connection).__name__}")
    reg = as_mapping(region, "region")
    if len(reg) != 2:
        raise DimensionError(f"the region gives {len(reg)} shape coordinates; a rectangle needs 2")
    keys = []
    for kk, ab in reg.items():
        hit = [r for r in connection.shape if r == kk or r.name == str(kk)]
        if not hit:
            raise NotFoundError(f"{kk!r} is not a shape coordinate {[r.name for r in connection.shape]}")
        lim = as_sequence(ab, f"limits of {kk}")
        if len(lim) != 2:
            raise DimensionError(f"the limits of {kk} must be (start, end)")
        keys.append((hit[0], as_expr(lim[0], what="limit"), as_expr(lim[1], what="limit")))
    C = _lie_bracket(connection)
    if any(v != 0 for row in C for col in row for v in col) and not approximate:
        raise UnsupportedSetupError("the symmetry group is not abelian: the area integral of the curvature is "
                                    "only the leading term of a small loop's phase (pass approximate=True)")
    if keys[0][0] == keys[1][0]:
        raise DimensionError(f"the region names {keys[0][0].name} twice; a rectangle needs 2 shape coordinates")
    # the orientation is the region's order (r_α first), whatever the coordinates' order:
    # B_βα = −B_αβ
    first, second = keys[0][0], keys[1][0]
    forms = curvature(connection)
    B = forms[(first, second)] if (first, second) in forms else -forms[(second, first)]
    (x, a, b_), (y, c_, d) = keys
    return B.applyfunc(lambda e: -sp.simplify(sp.integrate(e, (x, a, b_), (y, c_, d))))


def driven_system(system, gait: Mapping) -> MechanicalSystem:
    """The system with its shape driven along ``gait`` ({coordinate: expression in ``t``}): the
    same kinetic energy, potential, forces and constraints on a space with time, and the
    rheonomic constraints q̇_α − d/dt gait_α(t) = 0, whose reactions are the forces the
    actuators exert on the driven coordinates (ideal constraints, Chetaev).  Simulating it
    (any form) is the direct check of :meth:`ReducedEquations.reconstruct`."""
    system = _scleronomic(system, "driven_system")
    S = system.space
    S2 = ConfigurationSpace(list(S.q), time=True)
    tsym = S2.t
    g_in = as_mapping(gait, "gait")
    if not g_in:
        raise DimensionError("an empty gait")
    extra = []
    for kk, e in g_in.items():
        hit = [i for i, qi in enumerate(S.q) if qi == kk or qi.name == str(kk)]
        if not hit:
            raise NotFoundError(f"gait key {kk!r} is not a coordinate {[qi.name for qi in S.q]}")
        ex = as_expr(e, [tsym], what=f"gait of {kk}")
        ex = ex.xreplace({s_: tsym for s_ in ex.free_symbols if s_.name == "t"})
        extra.append(S2.qd[hit[0]] - sp.diff(ex, tsym))
    Am, _ = system.constraint_matrix
    cons = [sum((Am[r, i] * S.qd[i] for i in range(S.n)), sp.S.Zero) for r in range(Am.rows)]
    forces = [sp.expand(Qi + sp.diff(system.V, qi)) for Qi, qi in zip(system.Q, S.q)]
    return MechanicalSystem(S2, system.T, V=system.V, forces=forces, constraints=cons + extra,
                            holonomic=system.holonomic,
                            name=f"{system.name or 'system'} driven along a gait", conditions=system.conditions)
