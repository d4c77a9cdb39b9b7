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

This module lies on the models floor (systems brought in from another library); nothing below
imports it.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

import sympy as sp

from ..equations.base import Equations
from ..errors import (DimensionError, GeonhError, NotLinearError, ParseError, RankError, SingularMapError,
                     UnsupportedSetupError)
from ..kernel.generic_point import generic_rank, independent_rows, is_zero, lu_solve
from ..kernel.parsing import as_floats, as_mapping, expr_of, sympy_of
from ..kernel.frames import Frame
from ..kernel.space import ConfigurationSpace
from ..systems.mechanical import MechanicalSystem

__all__ = ["from_sympy", "from_kanes_method", "from_lagranges_method", "kane_frame", "to_sympy", "to_pydy_system",
           "SympyEquations"]


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

    def __init__(self, original, frame, rep, true=None):
        try:
            if true is not None:   # the true velocity of a body's point or frame (``_check_kinematics``)
                v = true.xreplace(rep)
                if hasattr(original, "vel"):
                    self.vel = lambda f, v=v: v
                else:
                    self.ang_vel_in = lambda f, v=v: v
            elif hasattr(original, "vel"):
                v = original.vel(frame).xreplace(rep)
                self.vel = lambda f, v=v: v
            else:
                w = original.ang_vel_in(frame).xreplace(rep)
                self.ang_vel_in = lambda f, w=w: w
        except (ValueError, AttributeError) as exc:
            raise UnsupportedSetupError(f"the load on {original} has no velocity in {frame}: {exc}") from None


@dataclass
class _Door:
    """What a sympy set-up holds, read once (every entry point fills the same record)."""

    kind: str                      # "KanesMethod", "System" or "LagrangesMethod"
    q: list                        # coordinates q(t)
    u: list                        # speeds u(t) (none for Lagrange: the speeds are q̇)
    u_aux: list                    # auxiliary speeds (zero on the motion)
    kdes: list                     # kinematic differential equations (= 0)
    bodies: list
    loads: list                    # (point or frame, vector)
    frame: Any
    holonomic: list                # configuration constraints f(t, q) = 0
    velocity: list                 # velocity constraints (= 0) in q, q̇, u, t
    lagrangian: Any = None         # LagrangesMethod: L = T − V
    acceleration: Any = None       # KanesMethod: explicit acceleration constraints (k_dnh, f_dnh)
    u_dep: list = field(default_factory=list)   # the dependent speeds among u


def _mechanics():
    import sympy.physics.mechanics as me
    return me


def _read(setup, frame) -> _Door:
    """Dispatch on the kind of set-up (duck-typed where sympy's classes allow it)."""
    me = _mechanics()
    system_cls = getattr(me, "System", None)
    if system_cls is not None and isinstance(setup, system_cls):
        eom = setup.eom_method
        if eom is not None:  # formed: the method sympy integrates holds exactly what it uses
            door = _read(eom, frame)
            door.kind = f"System ({door.kind})"
            return door
        return _read_system(setup, frame)
    if isinstance(setup, me.LagrangesMethod):
        return _read_lagrange(setup, frame)
    if isinstance(setup, me.KanesMethod):
        return _read_kane(setup, frame)
    raise UnsupportedSetupError(f"expected a sympy.physics.mechanics KanesMethod, LagrangesMethod or System, not "
                                f"{type(setup).__name__}")


def _read_kane(km, frame) -> _Door:
    q, u = list(km.q), list(km.u)
    if getattr(km, "_qdot_u_map", None) is None:
        raise UnsupportedSetupError("the KanesMethod has no kinematic differential equations (kd_eqs=...): "
                                    "geonh needs them to express the speeds in q̇")
    qd = [x.diff(_t()) for x in q]
    if hasattr(km, "_k_ku_implicit"):  # the kdes as given: k_ku u + k_kq̇ q̇ + f_k = 0
        kdes = list(km._k_ku_implicit * sp.Matrix(u) + km._k_kqdot_implicit * sp.Matrix(qd)
                    + km._f_k_implicit)
    else:  # pragma: no cover - older sympy: the solved form q̇ = K(q, u)
        kdes = [d - rhs for d, rhs in km.kindiffdict().items()]
    k_nh = getattr(km, "_k_nh", sp.Matrix())
    vel = list(k_nh * sp.Matrix(u) + km._f_nh) if k_nh.shape[0] else []
    acc = None
    k_dnh = getattr(km, "_k_dnh", None)
    if vel and k_dnh is not None and k_dnh is not k_nh:  # acceleration constraints given explicitly
        acc = (k_dnh, km._f_dnh, k_nh, km._f_nh, dict(km._qdot_u_map))
    return _Door("KanesMethod", q, u, list(getattr(km, "_uaux", None) or []), kdes,
                 list(km.bodies or []), list(km.loads or []), frame if frame is not None else km._inertial,
                 list(getattr(km, "_f_h", None) or []), vel, acceleration=acc,
                 u_dep=list(getattr(km, "_udep", None) or []))


def _read_system(system, frame) -> _Door:
    loads = list(system.loads) + [ld for act in system.actuators for ld in act.to_loads()]
    return _Door("System", list(system.q), list(system.u), list(system.u_aux), list(system.kdes),
                 list(system.bodies), loads, frame if frame is not None else system.frame,
                 list(system.holonomic_constraints), list(system.velocity_constraints), u_dep=list(system.u_dep))


def _read_lagrange(lm, frame) -> _Door:
    hol = list(getattr(lm, "_hol_coneqs", None) or [])
    con = list(lm.coneqs) if lm.coneqs is not None else []
    return _Door("LagrangesMethod", list(lm.q), [], [], [], list(lm.bodies or []), list(lm.forcelist or []),
                 frame if frame is not None else lm.inertial, hol, con[len(hol):], lagrangian=lm._L[0])


def _dynamic_atoms(exprs) -> tuple[set, set]:
    """(functions of time f(t), their derivatives) in the expressions."""
    t = _t()
    funcs, ders = set(), set()
    for e in exprs:
        e = sympy_of(e)
        for d in e.atoms(sp.Derivative):
            if isinstance(d.expr, sp.core.function.AppliedUndef) and d.expr.args == (t,):
                ders.add(d)
        for f in e.atoms(sp.core.function.AppliedUndef):
            if f.args == (t,):
                funcs.add(f)
    return funcs, ders


def _scalars(vec, frame) -> list:
    """A sympy Vector as its components in ``frame`` (for scanning its symbols)."""
    if vec == 0:
        return []
    return list(vec.to_matrix(frame))


def _exogenous(door: _Door, scan: list) -> dict:
    """{f(t): Symbol f} for the functions of time that are neither coordinates nor speeds
    (specified inputs such as a torque T(t)): they come in as parameters of the same name,
    whose values may be expressions in t.  Their derivatives cannot come in."""
    known = set(door.q) | set(door.u) | set(door.u_aux)
    funcs, ders = _dynamic_atoms(scan)
    ext = sorted((f for f in funcs if f not in known), key=str)
    bad = sorted({str(d) for d in ders if d.expr not in known})
    if bad:
        raise UnsupportedSetupError(f"the {door.kind} set-up uses the time derivatives {bad} of functions that are not "
                                    "coordinates: geonh cannot bring them in (give such inputs as expressions in t)")
    out = {}
    names = {x.func.__name__ for x in door.q}
    for f in ext:
        nm = f.func.__name__
        if nm in names:
            raise UnsupportedSetupError(f"the function of time {f} has the name of a coordinate")
        out[f] = sp.Symbol(nm)
    return out


def _explicit_time(exprs) -> bool:
    """Does an expression depend on t other than through functions of t?"""
    t = _t()
    for e in exprs:
        e = sympy_of(e)
        if t not in e.free_symbols:
            continue
        funcs, ders = _dynamic_atoms([e])
        rep = {d: sp.Dummy() for d in ders}
        e = e.xreplace(rep)
        e = e.xreplace({f: sp.Dummy() for f in _dynamic_atoms([e])[0]})
        if t in e.free_symbols:
            return True
    return False


def _solve_full_rank(A: sp.Matrix, rhs: sp.Matrix, what: str) -> sp.Matrix:
    """x with A x = rhs for A of full rank at the generic point (decided by ``generic_rank``
    before): a diagonal A entry by entry, else LU with generic pivots, else (should the pivot
    search ever disagree with the rank) sympy's LU with geonh's generic zero test."""
    n = A.rows
    if all(A[i, j] == 0 for i in range(n) for j in range(n) if i != j):
        return sp.Matrix([rhs[i] / A[i, i] for i in range(n)])
    x = _solve_orthogonal_rows(A, rhs)
    if x is not None:
        return x
    try:
        return lu_solve(A, rhs, what=what)
    except SingularMapError:
        return A.LUsolve(rhs, iszerofunc=is_zero)


def _solve_orthogonal_rows(A: sp.Matrix, rhs: sp.Matrix) -> sp.Matrix | None:
    """x = Aᵀ (A Aᵀ)⁻¹ rhs when the rows of A are mutually orthogonal (A Aᵀ = D diagonal, decided
    by geonh's generic zero test), else None.  Kinematic differential equations that state a
    velocity by its components in a rotated frame (sympy's test_linearize rolling disc: the
    centre's velocity in the disc's axes) have a direction-cosine block, orthogonal rows of
    length 1: LU would pivot through nested fractions of sines and cosines that are identically
    ±1 but not recognised (expanding them then takes minutes), the transpose is exact and small.
    A diagonal entry of D that is generically 1 (``is_zero(D_ii − 1)``) is not divided by."""
    n = A.rows
    rows = [A.row(i) for i in range(n)]
    for i in range(n):
        for j in range(i + 1, n):
            if not is_zero(sp.expand((rows[i] * rows[j].T)[0, 0])):
                return None
    x = sp.zeros(n, 1)
    for i in range(n):
        d = sp.expand((rows[i] * rows[i].T)[0, 0])
        c = rhs[i] if is_zero(d - 1) else rhs[i] / d
        if c != 0:
            x += rows[i].T * c
    return x


def _speeds_from_kdes(S, door: _Door, exo: dict) -> dict:
    """{u_j(t): u_j(q, q̇) in dynamicsymbols}: the kinematic differential equations (linear in u)
    solved for the speeds.  Done in plain symbols (the coordinates of ``S`` and a dummy per
    speed), so the rank of ∂kdes/∂u is decided at random points like every other rank in
    geonh (:func:`~geonh.kernel.generic_point.generic_rank`) and the solve follows that
    verdict."""
    t = _t()
    q, u, kdes = door.q, door.u, door.kdes
    if len(kdes) != len(q) or len(u) != len(q):
        raise DimensionError(f"{len(q)} coordinates, {len(u)} speeds and {len(kdes)} kinematic differential "
                             "equations: geonh needs one speed per coordinate (dependent speeds included)")
    udots = [x.diff(t) for x in u]
    if any(sympy_of(k).has(*udots) for k in kdes):
        raise NotLinearError("the kinematic differential equations involve u̇")
    U = [sp.Dummy(x.func.__name__) for x in u]
    rep = dict(zip(u, U)) | {x: 0 for x in door.u_aux} | exo
    K = sp.Matrix([S.from_dynamic(sympy_of(k).xreplace(rep)) for k in kdes])
    A = K.jacobian(U)
    if any(e.has(*U) for e in A):
        raise NotLinearError("the kinematic differential equations are not linear in the speeds u")
    b = -K.xreplace({s: 0 for s in U})
    r = generic_rank(A)
    if r < len(u):
        raise SingularMapError(f"∂kdes/∂u has rank {r} < {len(u)} at the generic point: the kinematic "
                               "differential equations do not determine the speeds from q̇")
    sol = _solve_full_rank(A, b, "∂kdes/∂u")
    return {x: S.to_dynamic(v) for x, v in zip(u, sol)}


def _not_a_derivative(S, v: list) -> str:
    """Why the velocity components ``v`` (plain symbols, linear in q̇) are not the time
    derivative of a position r(t, q), or "" if they are: v = J q̇ + v₀ is dr/dt exactly when
    the form J dq + v₀ dt is closed (∂J_i/∂q_j = ∂J_j/∂q_i, ∂J_i/∂t = ∂v₀/∂q_i; without time
    v₀ = 0)."""
    zero = {x: 0 for x in S.qd}
    for comp in v:
        J = [sp.diff(comp, x) for x in S.qd]
        v0 = comp.xreplace(zero)
        if S.t is None and not is_zero(v0):
            return f"it has the part {v0} at rest"
        for i in range(S.n):
            for j in range(i + 1, S.n):
                if not is_zero(sp.diff(J[i], S.q[j]) - sp.diff(J[j], S.q[i])):
                    return f"∂/∂{S.q[j]} of its {S.qd[i]} part differs from ∂/∂{S.q[i]} of its {S.qd[j]} part"
            if S.t is not None and not is_zero(sp.diff(J[i], S.t) - sp.diff(v0, S.q[i])):
                return f"∂/∂t of its {S.qd[i]} part differs from ∂/∂{S.q[i]} of its part at rest"
    return ""


def _fixed_point(P, N):
    """A point joined to ``P`` by positions and declared at rest in ``N`` (its velocity set to 0),
    or None: the origin from which P's position, and so its true velocity, is known."""
    seen, todo = {P}, [P]
    while todo:
        X = todo.pop()
        v = X._vel_dict.get(N)
        if v is not None and v == 0:
            return X
        for Y in X._pos_dict:
            if Y not in seen:
                seen.add(Y)
                todo.append(Y)
    return None


def _in_span(S, diff: list, rows) -> bool:
    """Are the expressions ``diff`` (plain symbols, linear in q̇) combinations of the constraint
    rows ``rows()`` (∂c/∂q̇ | c at q̇ = 0), at the generic point?"""
    D = _coefficient_rows(S, diff, "velocity difference")
    D = sp.Matrix([r for r in D.tolist() if any(not is_zero(e) for e in r)]) if D.rows else D
    if not D.rows:
        return True
    C = rows()
    if not C.rows:
        return False
    return generic_rank(C.col_join(D)) == generic_rank(C)


def _check_kinematics(S, door: _Door, rep: dict, C) -> dict:
    """Kane's method works with the velocities as the set-up states them; Lagrange's equations of
    T(q, q̇) = Σ ½ m v² + ½ ωᵀ I ω (geonh's route) need each mass centre's velocity to be the
    time derivative of its position in q and each body's angular velocity that of its
    orientation.  A set-up may build a constraint into its velocities (sympy's rolling disc of
    test_kane5: the centre's velocity set to ω × r from the contact point, as if that point were
    at rest).  When the stated velocity differs from the true one by a combination of the
    velocity constraints (``C()``: rows ∂c/∂q̇ | c₀), the constrained partial velocities — and so
    Kane's equations — of both are the same (Kane & Levinson 1985, §3.6: ṽ_r = v_r + Σ_s v_s A_sr
    and the difference vanishes on the constraints), so the true velocities are used.  Any
    other difference is refused: it would come in as another motion.

    Returns {body: (true velocity of its mass centre as an N-vector or None, true angular
    velocity as a vector or None)} for the bodies whose stated velocities were replaced."""
    t = _t()
    N = door.frame
    fixed: dict = {}
    for b in door.bodies:
        label = getattr(b, "name", str(b))
        P = getattr(b, "masscenter", None)
        v_true = w_true = None
        if P is not None and sympy_of(getattr(b, "mass", 1)) != 0:
            v = [S.from_dynamic(sympy_of(c).xreplace(rep)) for c in P.vel(N).to_matrix(N)]
            why = _not_a_derivative(S, v)
            O = _fixed_point(P, N) if why else None
            if O is not None:
                true = sp.Matrix(P.pos_from(O).to_matrix(N)).diff(t)
                if _in_span(S, [vi - S.from_dynamic(sympy_of(c).xreplace(rep)) for vi, c in zip(v, true)], C):
                    why, v_true = "", true[0] * N.x + true[1] * N.y + true[2] * N.z
            if why:
                raise UnsupportedSetupError(
                    f"the velocity of {P} (mass centre of {label}) in {N} is not the time derivative of a "
                    f"position in the coordinates {[x.name for x in S.q]} ({why}), nor does it differ from "
                    "that derivative by a combination of the velocity constraints: the set-up builds a "
                    "constraint into its velocities (e.g. a rolling contact point declared at rest, its "
                    "position left out of the coordinates).  Kane's partial velocities handle that, a "
                    "kinetic energy T(q, q̇) cannot: add the point's coordinates (e.g. the contact point's "
                    "x, y) with their speeds and state the constraint as velocity constraints")
        B = getattr(b, "frame", None)
        if B is not None and B != N and getattr(b, "central_inertia", None) is not None:
            try:
                Cd = B.dcm(N)
            except ValueError:
                raise UnsupportedSetupError(f"the frame {B} of {label} has no orientation relative to {N}: its "
                                            "angular velocity cannot be checked against its orientation (orient "
                                            "it)") from None
            W = -(Cd.diff(t) * Cd.T)   # the angular velocity of the orientation, in B's components
            stored = B.ang_vel_in(N).to_matrix(B)
            d = [S.from_dynamic(sympy_of(stored[k]).xreplace(rep) - W[r_, c_])
                 for k, (r_, c_) in enumerate(((2, 1), (0, 2), (1, 0)))]
            bad = [k for k in range(3) if not is_zero(d[k])]
            if bad and _in_span(S, d, C):
                w_true = W[2, 1] * B.x + W[0, 2] * B.y + W[1, 0] * B.z
            elif bad:
                k = bad[0]
                raise UnsupportedSetupError(
                    f"the angular velocity of {B} ({label}) in {N} is not that of its orientation (they differ "
                    f"by {d[k]} along {B}.{'xyz'[k]}, not a combination of the velocity constraints): the "
                    "set-up builds a constraint into its velocities, which a kinetic energy T(q, q̇) cannot "
                    "carry")
        if v_true is not None or w_true is not None:
            fixed[b] = (v_true, w_true)
    return fixed


def _true_energy(b, N, v, w, rep):
    """T of a body with the true velocities (``_check_kinematics``): ½ m v·v + ½ ω·I·ω."""
    P, B = b.masscenter, getattr(b, "frame", None)
    v = P.vel(N).xreplace(rep) if v is None else v
    T = sympy_of(b.mass) * v.dot(v) / 2
    if B is not None and getattr(b, "central_inertia", None) is not None:
        w = B.ang_vel_in(N).xreplace(rep) if w is None else w
        T += w.dot(b.central_inertia.dot(w)) / 2
    return T


def _coefficient_rows(S, exprs, what: str) -> sp.Matrix:
    """Rows (∂c/∂q̇ | c at q̇ = 0) of expressions in plain symbols, refused unless linear in q̇."""
    rows = []
    zero = {v: 0 for v in S.qd}
    for c in exprs:
        grad = [sp.diff(c, v) for v in S.qd]
        if any(g.has(*S.qd) for g in grad):
            raise NotLinearError(f"the {what} {c} = 0 is not linear in the velocities")
        rows.append(grad + [c.xreplace(zero)])
    return sp.Matrix(rows) if rows else sp.zeros(0, S.n + 1)


def _without_generic_zeros(S, exprs: list) -> list:
    """The expressions Σ_i a_i q̇^i + a_0 (linear in q̇, plain symbols) with every coefficient a
    that vanishes at the generic point (:func:`~geonh.kernel.generic_point.is_zero`, e.g.
    ``sin(q)**2 + cos(q)**2 - 1`` left unsimplified by a set-up's kinematics) set to 0.

    The same functions, but a frame inverted from them (C = B⁻¹) no longer carries such an
    entry through its elimination: on sympy's Whipple bicycle those entries made C ten times
    larger and Kane's forcing F double-precision noise of size 1e14 (catastrophic cancellation;
    at 200 bits it agreed with Lagrange's).  Expressions without such a coefficient come back
    as they are."""
    out = []
    for w in exprs:
        coeffs = [(v, sp.diff(w, v)) for v in S.qd]
        zeros = [v for v, a in coeffs if a != 0 and is_zero(a)]
        if not zeros:
            out.append(w)
            continue
        rest = w.xreplace({v: 0 for v in S.qd})
        rest = sp.S.Zero if rest != 0 and is_zero(rest) else rest
        out.append(sp.Add(*[a * v for v, a in coeffs if v not in zeros and a != 0]) + rest)
    return out


def _fdot(S, hol: list) -> list:
    """ḟ = ∂f/∂q q̇ (+ ∂f/∂t) of configuration constraints, in plain symbols."""
    out = []
    for h in hol:
        f = S.from_dynamic(h)
        out.append(sum((sp.diff(f, x) * v for x, v in zip(S.q, S.qd)), sp.diff(f, S.t) if S.t is not None else 0))
    return out


def _constraint_rows(S, hol: list, vel: list) -> sp.Matrix:
    """Rows (∂c/∂q̇ | c at q̇ = 0) of every velocity constraint and of ḟ of every configuration
    constraint, in plain symbols."""
    return _coefficient_rows(S, _fdot(S, hol) + [S.from_dynamic(c) for c in vel], "velocity constraint")


def _velocity_constraints(S, door: _Door, hol: list, vel: list) -> list:
    """The velocity constraints that go to the MechanicalSystem next to the holonomic ones.

    For Kane's method (a KanesMethod, a System) the velocity constraints are the motion's: they
    must contain the time derivative of every configuration constraint (sympy's own rule; it is
    checked at the generic point — otherwise sympy's motion would leave f = 0, geonh's would not,
    and the set-up is refused).  geonh enters a holonomic constraint through ḟ itself, so the
    velocity constraints that only repeat the ḟ are left out.  Lagrange's method keeps its
    holonomic and nonholonomic constraints apart already."""
    if door.lagrangian is not None or not hol:
        return vel
    H = _coefficient_rows(S, _fdot(S, hol), "time derivative of the configuration constraint")
    V = _coefficient_rows(S, [S.from_dynamic(c) for c in vel], "velocity constraint")
    rv = generic_rank(V)
    if rv < V.rows:
        raise RankError(f"the {V.rows} velocity constraints of the {door.kind} have rank {rv}: they are dependent")
    if generic_rank(H) < H.rows:
        raise RankError(f"the configuration constraints {hol} of the {door.kind} are dependent")
    if generic_rank(H.col_join(V)) > rv:
        raise UnsupportedSetupError(
            f"the configuration constraints {hol} of the {door.kind} are not enforced by its velocity "
            "constraints (their time derivatives are not combinations of them): sympy's Kane equations "
            "move with the velocity constraints only, geonh would keep f = 0, so the motions differ; "
            "add the time derivatives to the velocity constraints")
    keep = independent_rows(H.col_join(V))
    return [vel[i - H.rows] for i in keep if i >= H.rows]


def _check_acceleration(S, door: _Door, exo: dict) -> None:
    """Explicit acceleration constraints of a KanesMethod must be the time derivative of its
    velocity constraints (geonh derives them from the velocity constraints): checked by rank,
    at the generic point, in the speeds u and their rates as independent variables."""
    k_dnh, f_dnh, k_nh, f_nh, qdot_u = door.acceleration
    t = _t()
    u = sp.Matrix(door.u)
    expected = (k_nh.diff(t) * u + f_nh.diff(t)).xreplace(qdot_u)
    U = [sp.Dummy(x.func.__name__) for x in door.u]
    Ud = [sp.Dummy(f"{x.func.__name__}_dot") for x in door.u]
    rep = {x.diff(t): d for x, d in zip(door.u, Ud)}
    rep2 = dict(zip(door.u, U)) | {x: 0 for x in door.u_aux} | exo

    def plain(e):
        return S.from_dynamic(sympy_of(e).xreplace(rep).xreplace(rep2))

    E = sp.Matrix([[plain(k_nh[i, j]) for j in range(k_nh.cols)] + [plain(expected[i])] for i in range(k_nh.rows)])
    G = sp.Matrix([[plain(k_dnh[i, j]) for j in range(k_dnh.cols)] + [plain(f_dnh[i])] for i in range(k_dnh.rows)])
    if generic_rank(E.col_join(G)) > generic_rank(E):
        raise UnsupportedSetupError(
            "the acceleration constraints given to the KanesMethod are not the time derivative of its velocity "
            "constraints; geonh derives them from the velocity constraints, so the motions would differ: drop "
            "acceleration_constraints= or make them consistent")



# -- set-ups with more speeds than coordinates ------------------------------------------------------
@dataclass
class _Extension:
    """A Kane set-up with more speeds than coordinates, completed (``_extend``): the added
    coordinates, the speeds solved in q and q̇, the true velocities and the remaining identities."""

    q: list              # the set-up's coordinates, then the added ones (dynamicsymbols)
    rep: dict            # {u(t): u(q, q̇) in dynamicsymbols}
    true_vel: dict       # {mass centre: true velocity, body frame: true angular velocity} (N-vectors)
    constraints: list    # the identities left after solving for u: velocity constraints (= 0)
    aux_rows: list = field(default_factory=list)   # those identities with the auxiliary speeds kept


def _orientation_path(B, N) -> list | None:
    """The frames from ``B`` to ``N`` joined by orientations (``orient*``), or None."""
    prev = {B: None}
    todo = [B]
    while todo:
        X = todo.pop(0)
        if X == N:
            path = [X]
            while prev[path[-1]] is not None:
                path.append(prev[path[-1]])
            return path[::-1]
        for Y in X._dcm_dict:
            if Y not in prev:
                prev[Y] = X
                todo.append(Y)
    return None


def _true_ang_vel(B, N, memo: dict):
    """The angular velocity of ``B`` in ``N`` that its orientation gives (not the one set with
    ``set_ang_vel``): the sum over the orientation path of each link's −Ċ Cᵀ (C = Fᵢ.dcm(Fᵢ₊₁),
    in Fᵢ's axes), or None when B has no orientation relative to N."""
    if B in memo:
        return memo[B]
    path = _orientation_path(B, N)
    if path is None:
        return None
    t = _t()
    w = 0 * N.x
    for F, G in zip(path, path[1:]):
        C = F.dcm(G)
        W = -(C.diff(t) * C.T)
        w += W[2, 1] * F.x + W[0, 2] * F.y + W[1, 0] * F.z
    memo[B] = w
    return w


def _spin_axis(B, N, memo: dict):
    """For a frame ``B`` with no orientation relative to N whose angular velocity is set relative
    to an oriented frame P along an axis fixed in P (a wheel's spin: ``WR.set_ang_vel(Frame,
    u3 * Frame.y)``): (P, the axis as a P-vector), else None."""
    t = _t()
    for P, w in B._ang_vel_dict.items():
        if P == B or _true_ang_vel(P, N, memo) is None:
            continue
        try:
            comp = list(w.to_matrix(P))
        except ValueError:
            continue
        nz = [c for c in comp if c != 0]
        if not nz:
            continue
        ratio = [sp.cancel(c / nz[0]) for c in comp]
        if any(_dynamic_atoms([c])[0] or c.has(t) for c in ratio):
            continue
        return P, ratio[0] * P.x + ratio[1] * P.y + ratio[2] * P.z
    return None


def _root(points: list, N, aux: dict, open_speeds: frozenset = frozenset(), other_speeds: frozenset = frozenset()):
    """The point, joined to every mass centre by positions, that the set-up declares at rest or
    moving by auxiliary speeds only (a contact point), else one whose stated velocity involves
    ``open_speeds`` and none of ``other_speeds`` (the open ones: those the kinematic differential
    equations leave open; the point moves by them alone, as the cart's axle point in Kane 1985
    ex. 8.12 or a sliding disc's contact point): the one given
    coordinates; else None."""
    seen, todo, root, moving = set(points[:1]), list(points[:1]), None, None
    while todo:
        X = todo.pop(0)
        v = X._vel_dict.get(N)
        if root is None and v is not None and (v == 0 or v.xreplace(aux) == 0):
            root = X
        elif moving is None and v is not None and open_speeds:
            comps = list(v.xreplace(aux).to_matrix(N))
            atoms = set().union(*(_dynamic_atoms([c])[0] for c in comps))
            if not any(c.has(sp.Derivative) for c in comps) and atoms & open_speeds and not atoms & other_speeds:
                moving = X
        for Y in X._pos_dict:
            if Y not in seen:
                seen.add(Y)
                todo.append(Y)
    root = root if root is not None else moving
    if root is None or any(P not in seen for P in points):
        return None
    return root


def _extend(door: _Door, exo: dict, use_time: bool) -> _Extension:
    """Complete a Kane set-up that has more speeds than coordinates (sympy's Whipple bicycle,
    test_kane3; the disc of test_kane2::test_aux_dep): the speeds that the kinematic differential
    equations leave open are velocities of points or frames whose positions are no coordinates.

    1. Add coordinates: the position (x, y, z in N) of the point joined to every mass centre that
       is declared at rest or moving by auxiliary speeds (the contact point) — else of one moving
       by the speeds the kinematic differential equations leave open alone (``_root``) — and the angle θ of
       every body frame with no orientation that spins about an axis fixed in an oriented frame
       P (a wheel: ω_B = ω_P + θ̇ e, allowed when its inertia is symmetric about e, so that T and
       Kane's inertia torque are those of the rigid body).
    2. The velocity identities: the kinematic differential equations, then for every body frame
       ω_set(u) = ω_true(q, q̇) and for every mass centre v_set(u) = (ẋ, ẏ, ż) + d/dt r(q) — all
       linear in u and q̇.  The speeds are solved from the first rows independent in u (at the
       generic point); the other rows, with u replaced, are velocity constraints (the rear
       wheel's rolling).  An added coordinate whose rate they set to zero (z on the ground) is
       dropped.
    3. Checked (else refused): the map q̇ ↦ u is one-to-one on geonh's constraint distribution and
       onto the speeds that satisfy the set-up's velocity constraints (equal dimensions), so both
       describe the same motions; on them the set velocities are the true ones and Kane's
       equations (Kane & Levinson 1985, §3.6) are Lagrange's of the true T."""
    t = _t()
    N = door.frame
    aux = {x: 0 for x in door.u_aux}
    memo: dict = {}
    names = {x.func.__name__ for x in door.q} | {x.func.__name__ for x in door.u} | {str(s) for s in exo.values()}
    added: list = []

    def new(name):
        if name in names:
            raise UnsupportedSetupError(f"the coordinate {name} geonh adds has the name of a coordinate, speed or "
                                        "input of the set-up")
        names.add(name)
        x = sp.Function(name)(t)
        added.append(x)
        return x

    bodies = [b for b in door.bodies if getattr(b, "masscenter", None) is not None]
    true_w: dict = {}
    axes: dict = {}      # the frame in whose axes each frame's identity is written
    for b in bodies:
        B = getattr(b, "frame", None)
        if B is None or getattr(b, "central_inertia", None) is None or B in true_w:
            continue
        w = _true_ang_vel(B, N, memo)
        if w is None:
            spin = _spin_axis(B, N, memo)
            if spin is None:
                raise UnsupportedSetupError(
                    f"the frame {B} of {getattr(b, 'name', b)} has no orientation relative to {N} and does not spin "
                    "about an axis fixed in an oriented frame: orient it (its angle as a coordinate)")
            P, e = spin
            try:
                Im = b.central_inertia.to_matrix(P)
            except ValueError:
                raise UnsupportedSetupError(f"the inertia of {getattr(b, 'name', b)} is not given in the axes of {P}, "
                                            f"about whose axis {e} its frame {B} spins: orient {B}") from None
            E = sp.Matrix(e.to_matrix(P))
            X = sp.Matrix([[0, -E[2], E[1]], [E[2], 0, -E[0]], [-E[1], E[0], 0]])
            if not all(is_zero(sp.expand(x)) for x in X * Im - Im * X):
                raise UnsupportedSetupError(
                    f"the inertia of {getattr(b, 'name', b)} is not symmetric about its spin axis {e} in {P}: "
                    f"its frame {B} has no orientation, so the body would not be rigid; orient {B}")
            w = _true_ang_vel(P, N, memo) + new(f"{B.name}_angle").diff(t) * e
        true_w[B], axes[B] = w, B if B in memo else spin[0]
    masscentres = [b.masscenter for b in bodies if sympy_of(getattr(b, "mass", 1)) != 0]
    open_speeds = frozenset(x for x in door.u if x not in aux and not any(sympy_of(k).has(x) for k in door.kdes))
    root = _root(masscentres, N, aux, open_speeds, frozenset(door.u) - open_speeds) if masscentres else None
    true_v: dict = {}
    if masscentres:
        if root is None:
            raise UnsupportedSetupError(
                f"the {door.kind} set-up has more speeds than coordinates, and no point joined to every mass centre "
                "is declared at rest, moving by auxiliary speeds only or by the speeds the kinematic differential "
                f"equations leave open ({[str(x) for x in open_speeds]}) only: geonh cannot tell whose position to add "
                "as coordinates; add them (with speeds) yourself")
        xyz = [new(f"{root.name}_{c}") for c in "xyz"]
        base = xyz[0].diff(t) * N.x + xyz[1].diff(t) * N.y + xyz[2].diff(t) * N.z
        for P in masscentres:
            if P in true_v:
                continue
            r = sp.Matrix(P.pos_from(root).to_matrix(N)).diff(t)
            true_v[P] = base + r[0] * N.x + r[1] * N.y + r[2] * N.z
    q_all = list(door.q) + added
    S = ConfigurationSpace([x.func.__name__ for x in q_all], time=t if use_time else False)
    U = [sp.Dummy(x.func.__name__) for x in door.u]
    A = [sp.Dummy(x.func.__name__) for x in door.u_aux]
    to_plain = dict(zip(door.u, U)) | dict(zip(door.u_aux, A)) | exo

    def plain(e):
        return S.from_dynamic(sp.expand(sympy_of(e).xreplace(to_plain)))

    rows_a = [plain(k) for k in door.kdes]          # the identities with the auxiliary speeds kept
    for B, w in true_w.items():
        rows_a += [plain(c) for c in (B.ang_vel_in(N) - w).to_matrix(axes[B])]
    for P, v in true_v.items():
        vs = P.vel(N)
        F = vs.args[0][1] if vs.args else N
        rows_a += [plain(c) for c in (vs - v).to_matrix(F)]
    rows = [r_.xreplace({a: sp.S.Zero for a in A}) for r_ in rows_a]
    Eu = sp.Matrix([[sp.diff(r_, x) for x in U] for r_ in rows])
    if any(e.has(*U) for e in Eu):
        raise NotLinearError("the kinematic differential equations or the set velocities are not linear in the speeds")
    if generic_rank(Eu) < len(U):
        raise SingularMapError(
            f"the speeds {[str(x) for x in door.u]} are not determined by the kinematic differential equations and "
            "the velocities of the bodies' mass centres and frames (even with the contact position and wheel "
            "angles as coordinates)")
    pick = independent_rows(Eu)
    b0 = sp.Matrix([-rows[i].xreplace({x: 0 for x in U}) for i in pick])
    sol = _solve_full_rank(Eu.extract(pick, list(range(len(U)))), b0, "∂(identities)/∂u")
    sol_map = dict(zip(U, sol))
    rest = [sp.expand(rows[i].xreplace(sol_map)) for i in range(len(rows)) if i not in pick]
    rest_a: list = []
    if A:   # the same solve with the auxiliary speeds kept: what they are off the motion (``_auxiliary_speeds``)
        b0a = sp.Matrix([-rows_a[i].xreplace({x: sp.S.Zero for x in U}) for i in pick])
        sol_a = _solve_full_rank(Eu.extract(pick, list(range(len(U)))), b0a, "∂(identities)/∂u")
        rest_a = [sp.expand(rows_a[i].xreplace(dict(zip(U, sol_a)))) for i in range(len(rows)) if i not in pick]
        rest_a = [c for c in rest_a if c.has(*A)]
    R = _coefficient_rows(S, rest, "velocity identity")
    keep = [i for i in independent_rows(R)] if R.rows else []
    R = R.extract(keep, list(range(R.cols))) if keep else sp.zeros(0, S.n + 1)
    rest = [rest[i] for i in keep]
    # an added coordinate whose rate the identities set to zero is dropped
    drop = []
    for j in range(len(door.q), S.n):
        e = sp.zeros(1, S.n + 1)
        e[j] = 1
        if R.rows and generic_rank(R.col_join(e)) == generic_rank(R):
            drop.append(j)
    if drop:
        zero = {S.q[j]: 0 for j in drop} | {S.qd[j]: 0 for j in drop}
        rest = [sp.expand(c.xreplace(zero)) for c in rest]
        rest = [c for c in rest if not is_zero(c)]
        R = _coefficient_rows(S, rest, "velocity identity")
        rest = [rest[i] for i in independent_rows(R)] if R.rows else []
        sol = sol.xreplace(zero)
        rest_a = [sp.expand(c.xreplace(zero)) for c in rest_a]
        zero_dyn = {q_all[j].diff(t): 0 for j in drop} | {q_all[j]: 0 for j in drop}
        true_v = {P: v.xreplace(zero_dyn) for P, v in true_v.items()}
        true_w = {B: w.xreplace(zero_dyn) for B, w in true_w.items()}
        q_all = [x for j, x in enumerate(q_all) if j not in drop]
    S2 = ConfigurationSpace([x.func.__name__ for x in q_all], time=t if use_time else False)
    rep = {x: S.to_dynamic(v) for x, v in zip(door.u, sol)}
    cons = [S.to_dynamic(c) for c in rest]
    _check_same_motions(S2, door, exo, rep, cons)
    back = dict(zip(A, door.u_aux))
    return _Extension(q_all, rep, true_v | true_w, cons, [S.to_dynamic(c).xreplace(back) for c in rest_a])


def _extension(door: _Door, exo: dict, use_time: bool, hidden: bool = False) -> _Extension | None:
    """``_extend`` for a Kane set-up with more speeds than coordinates (and one kinematic
    differential equation per coordinate) — or, with ``hidden``, with as many speeds as
    coordinates whose stated velocities are not those of positions in them (``_hidden_extension``)
    — else None."""
    if door.lagrangian is not None or len(door.kdes) != len(door.q):
        return None
    if len(door.u) > len(door.q) or (hidden and len(door.u) == len(door.q)):
        return _extend(door, exo, use_time)
    return None


def _hidden_extension(door: _Door, exo: dict, use_time: bool, hidden: UnsupportedSetupError) -> _Extension:
    """A Kane set-up with one speed per coordinate whose stated velocities hide a constraint
    (``hidden``, the verdict of ``_check_kinematics``: sympy's test_kane::test_rolling_disc, its
    contact point declared at rest while the mass centre moves) completed by ``_extend``: the
    contact position added as coordinates, the rolling kept as velocity constraints — accepted only
    when ``_check_same_motions`` confirms the same motions, else ``hidden`` is raised with the reason."""
    if not door.u or len(door.u) != len(door.q) or len(door.kdes) != len(door.q):
        raise hidden      # no speeds to solve for (a System without speeds): nothing to complete
    try:
        return _extend(door, exo, use_time)
    except GeonhError as exc:
        raise UnsupportedSetupError(f"{hidden} (completing the set-up with the contact position as coordinates "
                                    f"did not help: {exc})") from None


def _check_same_motions(S, door: _Door, exo: dict, rep: dict, cons: list) -> None:
    """Refuse unless the map q̇ ↦ u(q, q̇) is one-to-one on geonh's constraint distribution (the
    set-up's velocity and configuration constraints and the identities ``cons``) and that
    distribution has the dimension of the speeds allowed by the set-up's velocity constraints."""
    aux = {x: 0 for x in door.u_aux}
    U = [sp.Dummy(x.func.__name__) for x in door.u]
    vel_u = [sympy_of(c).xreplace(dict(zip(door.u, U)) | aux | exo) for c in door.velocity]
    Vu = sp.Matrix([[sp.diff(S.from_dynamic(c), x) for x in U] for c in vel_u]) if vel_u else sp.zeros(0, len(U))
    free_u = len(U) - (generic_rank(Vu) if Vu.rows else 0)
    hol = [sympy_of(h).xreplace(exo) for h in door.holonomic]
    vel = [sp.expand(sympy_of(c).xreplace(exo | aux | rep)) for c in door.velocity] + cons
    C = _constraint_rows(S, hol, vel)
    rc = generic_rank(C) if C.rows else 0
    Um = _coefficient_rows(S, [S.from_dynamic(sympy_of(v)) for v in rep.values()], "speed")
    if S.n - rc != free_u or generic_rank(C.col_join(Um)[:, :S.n]) < S.n:
        raise UnsupportedSetupError(
            f"with the coordinates {[x.name for x in S.q]} the {door.kind} set-up's speeds do not describe the same "
            f"motions ({S.n - rc} velocities free against {free_u} free speeds): its set velocities are not those "
            "of positions in these coordinates")

def _auxiliary_speeds(S, door: _Door, rep: dict, identities: Sequence = ()) -> dict:
    """{ua(t): its value in q, q̇} for the loads, or {} (auxiliary speeds zero).

    Kane's auxiliary speeds (Kane & Levinson 1985, §4.4; sympy's ``u_auxiliary``) measure the
    velocity a constraint forbids.  On the motion they are zero, so the equations of motion
    take every velocity with ua = 0.  A load enters the auxiliary equations through its
    partial velocity ∂v/∂ua.  geonh's auxiliary equations are Kane's along the constraint
    fields X_κ of :func:`kane_frame`, dual to the velocity constraints c_κ(q, q̇).  A load's
    velocity is therefore extended off the motion by the value the set-up's own velocity
    constraints give the auxiliary speeds, c(q, q̇) + B ua = 0.  That is sympy's test_aux_dep
    way: a contact point's velocity is stated as the auxiliary speeds only, and the rolling
    constraints are written with it.  On the motion (c = 0) nothing changes.  Along X_κ the
    load moves as sympy's partial velocity says, ∂v/∂ua plus the dependent speeds' share.

    When the constraints do not contain the auxiliary speeds (B = 0, the sleigh's way), the
    auxiliary speeds stay zero: a point's velocity must then be its material one plus the
    auxiliary speeds.  A load at a point (or on a frame) whose velocity is auxiliary speeds
    only is refused then: its force would vanish from every equation, the auxiliary ones
    included — unless the velocity identities of a completed set-up (``identities``, ``_extend``:
    sympy's test_kane::test_aux, the contact point's velocity u4 L.x + u5 (Y.z × L.x) and the mass
    centre's from it) contain them: they then give the auxiliary speeds off the motion, as the
    velocity constraints would."""
    if not door.u_aux:
        return {}
    aux = list(door.u_aux)
    keep = {k: v for k, v in rep.items() if k not in aux}
    A = [sp.Dummy(x.func.__name__) for x in aux]
    B = sp.zeros(0, len(A))
    for given in (door.velocity, identities):
        if B.rows and not all(is_zero(e) for e in B):
            break
        cons = [sp.expand(sympy_of(c).xreplace(keep).xreplace(dict(zip(aux, A)))) for c in given]
        B = sp.Matrix([[S.from_dynamic(sp.diff(c, a)) for a in A] for c in cons]) if cons else sp.zeros(0, len(A))
    if B.rows == 0 or all(is_zero(e) for e in B):
        for loc, _ in (tuple(ld) for ld in door.loads):
            v = _scalars(loc.vel(door.frame) if hasattr(loc, "vel") else loc.ang_vel_in(door.frame), door.frame)
            if any(sympy_of(c).has(*aux) for c in v) and all(sp.expand(sympy_of(c).xreplace(
                    {x: 0 for x in aux})) == 0 for c in v):
                raise UnsupportedSetupError(
                    f"the load on {loc} has a velocity of auxiliary speeds {[str(x) for x in aux]} only, and the "
                    "velocity constraints do not contain them: its force would drop out of every equation, "
                    "the auxiliary ones included.  State the velocity as the material velocity plus the "
                    "auxiliary speeds (e.g. P.v2pt_theory(...) + ua·n), or write the velocity constraints with it "
                    "(sympy's test_aux_dep)")
        return {}
    rows = independent_rows(B)
    if len(rows) < len(aux):
        raise RankError(f"the velocity constraints determine only {len(rows)} of the auxiliary speeds "
                        f"{[str(x) for x in aux]}: Kane's auxiliary equations need each one's partial velocities")
    c0 = sp.Matrix([-S.from_dynamic(cons[i].xreplace({a: 0 for a in A})) for i in rows])
    sol = _solve_full_rank(B.extract(rows, list(range(len(A)))), c0, "∂(velocity constraints)/∂(auxiliary speeds)")
    return {x: S.to_dynamic(v) for x, v in zip(aux, sol)}


def from_sympy(setup, *, frame=None, potential=0, time: bool | None = None, body_potentials: bool | None = None,
               conditions: Sequence = (), name: str = "") -> MechanicalSystem:
    """A :class:`~geonh.systems.MechanicalSystem` from a sympy.physics.mechanics set-up: a
    ``KanesMethod``, a ``LagrangesMethod`` or a ``System``.  Everything the set-up holds comes
    in, or a :class:`~geonh.errors.GeonhError` says what cannot:

    * coordinates q (kept by name); time ``t`` when an expression depends on it explicitly
      (``time=None``; ``True``/``False`` force it);
    * the speeds: the kinematic differential equations (linear in u, one speed per coordinate)
      are solved for u = u(q, q̇) — the rank of ∂kdes/∂u is decided at the generic point
      (:func:`~geonh.kernel.generic_point.generic_rank`); auxiliary speeds are zero;
    * more speeds than coordinates (sympy's Whipple bicycle: no wheel angles, the rear contact
      declared at rest): the missing coordinates are added — ``<point>_x``, ``<point>_y``
      (``_z``) for the contact point joined to the mass centres (or, when none is at rest, the
      point moving by the speeds the kinematic differential equations leave open alone: sympy's
      test_kane2 cart), ``<frame>_angle`` for a wheel
      spinning about an axis of an oriented frame — the speeds solved from the velocity
      identities of the mass centres and frames, the identities left over kept as velocity
      constraints (the rolling the set-up built into its velocities); refused, naming why, when
      that does not give the set-up's motions (``_extend``);
    * as many speeds as coordinates, but velocities that are no time derivatives of positions in
      them, nor differ from those by a combination of the velocity constraints (sympy's
      test_kane::test_rolling_disc: the contact point declared at rest): completed the same way
      (``_hidden_extension``) where that gives the set-up's motions, else refused naming the
      mass centre or frame and why;
    * the kinetic energy Σ body.kinetic_energy (Kane's method) or the Lagrangian L = T − V split
      by degree in q̇ (Lagrange's method); every load (also a System's actuators) as generalized
      forces; functions of time that are neither coordinates nor speeds (specified inputs)
      become parameters of the same name (their derivatives are refused);
    * every constraint: holonomic (``configuration_constraints``, ``hol_coneqs``,
      ``System.holonomic_constraints``) as holonomic constraints; velocity constraints
      (``velocity_constraints``, ``nonhol_coneqs``, ``System.nonholonomic_constraints`` or its
      ``velocity_constraints`` however they were set).  For Kane's method the velocity
      constraints are the motion's and must contain the time derivatives of the configuration
      constraints (checked); explicit acceleration constraints must be their time derivative
      (checked);
    * ``body.potential_energy``: LagrangesMethod uses it (through its Lagrangian); KanesMethod
      ignores it.  A Kane set-up whose bodies carry a potential energy is refused unless
      ``body_potentials`` says what to do: ``True`` adds it to V, ``False`` ignores it as
      sympy's KanesMethod does.

    A System whose equations were formed (``form_eoms``) is read through its method
    (KanesMethod or LagrangesMethod); an unformed System is read as sympy's default,
    KanesMethod.  ``frame`` overrides the inertial frame; ``potential`` (in dynamicsymbols) is
    added to V; ``conditions`` restrict the parameters (as for :class:`MechanicalSystem`: sympy's
    symbols often carry no sign, e.g. ``conditions=[m > 0, r > 0]``).  The result has the same
    accelerations as the set-up's own ``rhs()`` at states
    that satisfy the constraints (tests/models/test_interop_roundtrip.py)."""
    potential = expr_of(potential, what="potential")  # a formula string is parsed, never evaluated
    door = _read(setup, frame)
    t = _t()
    if door.frame is None and (door.loads or door.lagrangian is None):
        raise UnsupportedSetupError(f"the {door.kind} set-up names no inertial frame: pass frame=")
    if door.lagrangian is None and not door.bodies:
        raise UnsupportedSetupError(f"the {door.kind} set-up has no bodies: build it with bodies=[...] "
                                    "(or pass a System with bodies)")
    pe = [b for b in door.bodies if sympy_of(getattr(b, "potential_energy", 0) or 0) != 0]
    if door.lagrangian is None and pe and body_potentials is None:
        raise UnsupportedSetupError(
            f"the bodies {[getattr(b, 'name', str(b)) for b in pe]} carry a potential_energy, which Kane's "
            f"method (the {door.kind}) does not use: pass body_potentials=True to add it to V or "
            "body_potentials=False to ignore it as sympy's KanesMethod does (or form a System's equations "
            "with LagrangesMethod first)")
    # what to scan for functions of time: every scalar the set-up holds
    scan = list(door.kdes) + list(door.holonomic) + list(door.velocity) + [potential]
    if door.lagrangian is not None:
        scan.append(door.lagrangian)
    try:
        energies = [b.kinetic_energy(door.frame) for b in door.bodies] if door.lagrangian is None else []
        load_parts = []
        for loc, vec in (tuple(ld) for ld in door.loads):
            vl = loc.vel(door.frame) if hasattr(loc, "vel") else loc.ang_vel_in(door.frame)
            load_parts += _scalars(vec, door.frame) + _scalars(vl, door.frame)
    except (ValueError, AttributeError, TypeError) as exc:
        raise UnsupportedSetupError(f"the {door.kind} set-up cannot be read: {exc}") from None
    scan += energies + load_parts
    scan += [getattr(b, "potential_energy", 0) or 0 for b in pe] if body_potentials else []
    exo = _exogenous(door, scan)
    use_time = _explicit_time(scan) if time is None else bool(time)
    S = ConfigurationSpace([x.func.__name__ for x in door.q], time=t if use_time else False)
    rep = dict(exo) | {x: 0 for x in door.u_aux}
    ext = _extension(door, exo, use_time)
    if ext is not None:
        S = ConfigurationSpace([x.func.__name__ for x in ext.q], time=t if use_time else False)
        rep |= ext.rep
    elif door.u:
        rep |= _speeds_from_kdes(S, door, exo)
    V = sympy_of(potential).xreplace(exo)
    if door.lagrangian is not None:
        L = S.from_dynamic(sympy_of(door.lagrangian).xreplace(exo))
        L0 = L.xreplace({v: 0 for v in S.qd})
        T = sp.expand(S.to_dynamic(L - L0))
        V = V - S.to_dynamic(L0)
    hol = [sympy_of(h).xreplace(exo) for h in door.holonomic]
    vel = [sp.expand(sympy_of(c).xreplace(rep)) for c in door.velocity]
    true_vel: dict = {}
    if ext is not None:   # the true velocities (``_extend``), the identities left as constraints
        fixed = {b: (ext.true_vel.get(b.masscenter), ext.true_vel.get(getattr(b, "frame", None)))
                 for b in door.bodies if getattr(b, "masscenter", None) is not None}
        vel += [sp.expand(c) for c in ext.constraints]
    elif door.lagrangian is None:
        try:
            fixed = _check_kinematics(S, door, rep, lambda: _constraint_rows(S, hol, vel))
        except UnsupportedSetupError as hidden:   # one speed per coordinate, a constraint hidden in the velocities
            ext = _hidden_extension(door, exo, use_time, hidden)
            S = ConfigurationSpace([x.func.__name__ for x in ext.q], time=t if use_time else False)
            rep = dict(exo) | {x: 0 for x in door.u_aux} | ext.rep
            vel = [sp.expand(sympy_of(c).xreplace(rep)) for c in door.velocity] + [sp.expand(c) for c in ext.constraints]
            fixed = {b: (ext.true_vel.get(b.masscenter), ext.true_vel.get(getattr(b, "frame", None)))
                     for b in door.bodies if getattr(b, "masscenter", None) is not None}
    if door.lagrangian is None:
        for b, (v, w) in fixed.items():
            energies[door.bodies.index(b)] = _true_energy(b, door.frame, v, w, rep)
            true_vel |= {b.masscenter: v} if v is not None else {}
            true_vel |= {b.frame: w} if w is not None else {}
        T = sp.expand(sum(energies, sp.S.Zero).xreplace(rep))
        if body_potentials:
            V = V + sum((sympy_of(b.potential_energy).xreplace(exo) for b in pe), sp.S.Zero)
    load_rep = rep | _auxiliary_speeds(S, door, rep, ext.aux_rows if ext is not None else ())
    loads = [(_Location(loc, door.frame, load_rep, true_vel.get(loc)), vec.xreplace(rep))
             for loc, vec in (tuple(ld) for ld in door.loads)]
    if door.acceleration is not None:
        _check_acceleration(S, door, exo)
    vel = _velocity_constraints(S, door, hol, vel)
    q = ext.q if ext is not None else door.q
    return MechanicalSystem.from_mechanics(q, [_Energy(T)], door.frame, loads=loads, constraints=vel,
                                           holonomic=hol, potential=V, time=use_time, name=name,
                                           conditions=conditions)


def from_kanes_method(km, *, frame=None, potential=0, time: bool | None = None, body_potentials: bool | None = None,
                      conditions: Sequence = (), name: str = "") -> MechanicalSystem:
    """:func:`from_sympy` for a ``KanesMethod`` (or a ``System``): q, the kinematic differential
    equations solved for u = u(q, q̇), the bodies, the loads and every constraint, rewritten in q
    and q̇."""
    return from_sympy(km, frame=frame, potential=potential, time=time, body_potentials=body_potentials,
                      conditions=conditions, name=name)


def from_lagranges_method(lm, *, frame=None, potential=0, time: bool | None = None, conditions: Sequence = (),
                          name: str = "") -> MechanicalSystem:
    """:func:`from_sympy` for a ``LagrangesMethod``: its Lagrangian (T the part of degree ≥ 1 in
    q̇, V = −L at q̇ = 0), its forcelist as generalized forces, ``hol_coneqs`` as holonomic and
    ``nonhol_coneqs`` as velocity constraints."""
    return from_sympy(lm, frame=frame, potential=potential, time=time, conditions=conditions, name=name)


def kane_frame(setup, system: MechanicalSystem) -> Frame:
    """The frame of a Kane set-up's own speeds on ``system`` (what :func:`from_sympy` made of the
    set-up), so that ``geonh.kane(system, kane_frame(setup, system))`` gives Kane's equations in
    the user's independent speeds, by their names, and :func:`to_sympy` gives them back so.

    The coframe (Hamel 1924, eq. (13)): the independent speeds u_r = u_r(q, q̇) (the kinematic
    differential equations solved as in :func:`from_sympy`), then the set-up's velocity
    constraints c_κ(q, q̇) as they are written (Kane's motion constraints), named by the
    set-up's auxiliary speeds when there is one per constraint (else ``c1``, ``c2`` …).  The
    dual fields X_r (r free) are Kane's constrained partial velocities; along the constraint
    fields (c_κ(X_κ) = 1), :attr:`~geonh.equations.Equations.auxiliary_eqs` give the
    non-contributing forces, as sympy's ``u_auxiliary`` do."""
    door = _read(setup, None)
    if not door.u:
        raise UnsupportedSetupError(f"the {door.kind} set-up has no speeds: its frame is the coordinates' own")
    if not isinstance(system, MechanicalSystem):
        raise ParseError(f"kane_frame needs the MechanicalSystem made of the set-up, not {type(system).__name__}")
    S = system.space
    exo = _exogenous(door, list(door.kdes) + list(door.velocity) + list(door.holonomic))
    ext = _extension(door, exo, S.t is not None, hidden=len(S.q) > len(door.q))
    q = ext.q if ext is not None else door.q
    if [x.func.__name__ for x in q] != [x.name for x in S.q]:
        raise UnsupportedSetupError(f"the set-up's coordinates {[str(x) for x in q]} are not those of the "
                                    f"system {[x.name for x in S.q]}")
    rep = ext.rep if ext is not None else _speeds_from_kdes(S, door, exo)
    free = [x for x in door.u if x not in door.u_dep]
    rep_all = dict(exo) | {x: 0 for x in door.u_aux} | rep
    omegas = [S.from_dynamic(sympy_of(rep[x])) for x in free]
    cons = [S.from_dynamic(sp.expand(sympy_of(c).xreplace(rep_all))) for c in door.velocity]
    cons += [S.from_dynamic(c) for c in ext.constraints] if ext is not None else []   # after the set-up's own
    cons = [cons[i] for i in independent_rows(_coefficient_rows(S, cons, "velocity constraint"))] if cons else []
    if door.lagrangian is None and door.holonomic:
        rows = _constraint_rows(S, [sympy_of(h).xreplace(exo) for h in door.holonomic], [])
        if generic_rank(rows.col_join(_coefficient_rows(S, cons, "velocity constraint"))) > len(cons):
            raise UnsupportedSetupError("the set-up's velocity constraints do not contain the time derivatives of "
                                        "its configuration constraints")
    if len(free) + len(cons) != S.n:
        raise DimensionError(f"{len(free)} independent speeds and {len(cons)} independent velocity constraints for "
                             f"{S.n} coordinates: Kane's frame needs n of them")
    names = [x.func.__name__ for x in free]
    aux = [x.func.__name__ for x in door.u_aux]
    names += aux if len(aux) == len(cons) else [f"c{k + 1}" for k in range(len(cons))]
    if S.t is not None:
        omegas.append(sp.S.One)       # θ^t = dt
        names.append("t_")
    return Frame.from_quasi_velocities(S, _without_generic_zeros(S, omegas + cons), names=names)


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
    fr, frstar, auxiliary_eqs : Kane's generalized active and inertia forces along the free
        speeds and the auxiliary equations along the constraint fields (sympy's
        ``KanesMethod.kanes_equations()`` and ``auxiliary_eqs``), for geonh's kane form
        (:attr:`~geonh.equations.Equations.fr` …); empty column matrices for other forms.
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
    fr: sp.Matrix = field(default_factory=lambda: sp.zeros(0, 1))
    frstar: sp.Matrix = field(default_factory=lambda: sp.zeros(0, 1))
    auxiliary_eqs: sp.Matrix = field(default_factory=lambda: sp.zeros(0, 1))

    def kindiffdict(self) -> dict:
        """{q': K(t, q, u)}, as ``KanesMethod.kindiffdict()``: each kde c q' + r = 0 (linear in
        its q', c = 1 for :func:`to_sympy`'s q' − K) read as q' = −r / c, without a solve
        (``sp.solve`` simplifies K: minutes on a rolling disc's Kane form)."""
        t = _t()
        out = {}
        for qi, kde in zip(self.q, self.kdes):
            qd = qi.diff(t)
            c, r = sp.diff(kde, qd), kde.xreplace({qd: 0})
            out[qd] = -r if c == 1 else -r / c
        return out

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
    u_j'(t) and each multiplier λ a dynamicsymbol.  For the kane form, F_r, F*_r and the
    auxiliary equations come along (``fr``, ``frstar``, ``auxiliary_eqs``), so a
    non-contributing force is solved from them in sympy as from ``KanesMethod.auxiliary_eqs``."""
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
    kane = {key: sp.Matrix([conv(e) for e in eqs.details[key]]) if eqs.form == "kane" and key in eqs.details
            else sp.zeros(0, 1) for key in ("fr", "frstar", "auxiliary_eqs")}
    params = set()
    for e in list(M) + list(F) + list(K):
        params |= {s for s in e.free_symbols if s != t}
    return SympyEquations(form=eqs.form, q=q[:n, :], u=sp.Matrix(speeds), kdes=qd - K,
                          unknowns=sp.Matrix([f.diff(t) for f in speeds] + lams),
                          mass_matrix=M, forcing=F, mass_matrix_full=full_M, forcing_full=full_F,
                          constants=tuple(sorted(params, key=lambda s: s.name)), **kane)


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
