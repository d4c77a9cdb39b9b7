"""Adapted frames and the motion they describe: the facts every frame form starts from.

Given constraints (a :class:`~geonh.kernel.Codistribution`, or any object with a
``constraints`` codistribution, such as a :class:`~geonh.systems.MechanicalSystem`):

* :func:`solve_constraints` solves A q̇ + b = 0 for the dependent velocities,
  q̇_j = a_js q̇_s + a_j (Hamel 1924, eq. (2));
* :func:`voronets_frame` is the frame of Hamel 1924, eqs. (22)–(24), the default frame of
  every frame form;
* :func:`check_adapted` checks that a frame lists the free fields first, then fields whose
  coframe forms span the constraints, then (rheonomic) dt (Hamel 1924, eqs. (20), (21));
* :func:`frame_kinematics` gives the motion in the frame: ω on the motion, q̇ = K(t, q, u)
  and u(q̇), u the free quasi-velocities;
* :func:`speed_symbols` names the speeds u and their rates u̇.
"""
from __future__ import annotations

import weakref
from typing import Protocol, Sequence, Union

import sympy as sp

from ..kernel.display import register_rate
from ..errors import DimensionError, NotAdaptedError, ParseError
from ..kernel.distributions import Codistribution
from ..kernel.fields import VectorField
from ..kernel.forms import OneForm
from ..kernel.frames import Frame
from ..kernel.generic_point import all_zero, product_is_zero
from ..kernel.parsing import as_exprs, as_names
from .relations import ConstrainedSetting

__all__ = ["HasConstraints", "speed_symbols", "solve_constraints", "voronets_frame", "check_adapted",
           "frame_kinematics"]


class HasConstraints(Protocol):
    """Anything that carries its velocity constraints as a codistribution."""

    constraints: Codistribution


Constraints = Union[Codistribution, HasConstraints]


def _codistribution(constraints: Constraints) -> Codistribution:
    cod = constraints if isinstance(constraints, Codistribution) else getattr(constraints, "constraints", None)
    if not isinstance(cod, Codistribution):
        raise ParseError(f"expected a Codistribution or a system with constraints, got {type(constraints).__name__}")
    return cod


def speed_symbols(names: Sequence[str]) -> tuple[tuple[sp.Symbol, ...], tuple[sp.Symbol, ...]]:
    """Speed symbols u (real) with these names and their rates u̇ (``<name>_dot``)."""
    names = as_names(names, "speed names")
    u = tuple(sp.Symbol(nm, real=True) for nm in names)
    ud = tuple(sp.Symbol(f"{nm}_dot", real=True) for nm in names)
    for s, r in zip(u, ud):   # the rates' roles, for display (x_dot_dot prints as a double dot)
        register_rate(r, s)
    return u, ud


def solve_constraints(constraints: Constraints, dependent: Sequence | None = None):
    """Solve A q̇ + b = 0 for the dependent velocities: q̇_j = a_js q̇_s + a_j (Hamel 1924, eq. (2)).

    Returns (free indices, dependent indices, a (r×m Matrix), a0 (r-vector)), from
    :meth:`ConstrainedSetting.from_codistribution` (``dependent`` defaults to the last
    coordinates whose block of A is invertible).
    """
    cod = _codistribution(constraints)
    S = cod.space
    st = ConstrainedSetting.from_codistribution(cod, dependent)
    free = [S.index(q) for q in st.free]
    dep = [S.index(q) for q in st.dependent]
    return free, dep, st.a, st.affine


def voronets_frame(constraints: Constraints, dependent: Sequence | None = None) -> Frame:
    """The frame of Hamel 1924, eqs. (22)–(24): ω_s = q̇_s (free), ω_j = q̇_j − a_js q̇_s − a_j
    (constraints), ω_t = 1.  Fields X_s = ∂_s + a_js ∂_j, X_j = ∂_j, X_t = ∂_t + a_j ∂_j; the
    coframe is given in closed form next to them (duality is verified by :class:`Frame`)."""
    cod = _codistribution(constraints)
    S = cod.space
    free, dep, a, a0 = solve_constraints(cod, dependent)
    n, N = S.n, S.dim
    rows = []
    names = []
    for s in free:
        row = [0] * N
        row[s] = 1
        rows.append(row)
        names.append(f"{S.q[s].name}_dot")
    for k, j in enumerate(dep):
        row = [sp.S.Zero] * N
        row[j] = sp.S.One
        for c, s in enumerate(free):
            row[s] = -a[k, c]
        if S.t is not None:
            row[n] = -a0[k]
        rows.append(row)
        names.append(f"c_{S.q[j].name}")
    if S.t is not None:
        rows.append([0] * n + [1])
        names.append("t_dot")
    C = sp.zeros(N, N)
    for c, s in enumerate(free):
        C[s, c] = 1
        for k, j in enumerate(dep):
            C[j, c] = a[k, c]
    for k, j in enumerate(dep):
        C[j, len(free) + k] = 1
    if S.t is not None:
        C[n, N - 1] = 1
        for k, j in enumerate(dep):
            C[j, N - 1] = a0[k]
    fields = [VectorField(S, list(C[:, c])) for c in range(N)]
    frame = Frame(fields, names=names, coframe=[OneForm(S, row) for row in rows])
    # adapted by construction (its constraint forms are the solved constraints, the block of A
    # they were solved with is regular): the verdict is carried, not decided again
    _record_adapted(cod, frame, len(free))
    return frame


#: the adaptedness verdicts decided so far (validate once): per frame, per constraint
#: codistribution, the entries of the frame's coframe matrix B it was decided on and the
#: verdict m.  Both keys are held weakly (a verdict lives no longer than its objects); the
#: entries of B are compared on every look-up, so a verdict is never served for another frame,
#: other constraints, or a frame whose B was replaced.
_ADAPTED: "weakref.WeakKeyDictionary[Frame, weakref.WeakKeyDictionary[Codistribution, tuple[tuple, int]]]" = \
    weakref.WeakKeyDictionary()


def check_adapted(constraints: Constraints, frame: Frame) -> int:
    """Check that ``frame`` is adapted: free fields first, then the constraint directions, then
    (rheonomic) the time field with θ^t = dt; the last coframe forms must span the
    constraints.  Returns m, the number of free fields.

    Hamel 1924, eqs. (20), (21): the coframe forms θ^{m+1..n} must span the r-dimensional
    constraint codistribution, whose basis is the rows of A (independent: the verdict of
    :class:`Codistribution`).  Decided as a zero test, not a rank: every :class:`Frame` has
    a checked inverse (B·C = I, not decided again), so θ^a(X_b) = δ^a_b and the common kernel
    of the r independent forms θ^{m+1..n} is spanned by the other fields X_b, b ∈ adm = the
    m free fields (and, rheonomic, the time field X_t): N − r of them, independent.  The row
    space of a set of forms is the annihilator of their common kernel (linear algebra at each
    point), so the rows of A lie in span θ^{m+1..n} exactly when A·X_b = 0 for every b ∈ adm,
    and then the two r-dimensional spans are equal.  The r × |adm| matrix A·C[:, adm] is
    tested by :func:`~geonh.kernel.generic_point.product_is_zero` (both factors evaluated
    at PRECISION digits at the sample points; a non-zero entry proves the frame not
    adapted).  The old rank test rank [A; θ^{m+1..n}] = r is the same condition, but its
    stack is rank deficient by design, so no double-precision screen could ever accept it.

    The verdict is decided once per (constraints, frame) pair and carried: a second call with
    the same codistribution object and the same frame (same entries of B) returns it without
    a generic-point decision."""
    cod = _codistribution(constraints)
    S = cod.space
    if frame.space != S:
        raise NotAdaptedError(f"the frame lives on {frame.space!r}, the system on {S!r}")
    B = frame.B
    known = _ADAPTED.get(frame)
    seen = known.get(cod) if known is not None else None
    if seen is not None and seen[0] == tuple(B):
        return seen[1]
    n, r = S.n, cod.rank
    m = n - r
    if S.t is not None:
        row = list(B[n, :])
        if not all_zero(row[:n] + [row[n] - 1]):
            raise NotAdaptedError("on a space with time the last coframe form must be dt "
                                  "(Hamel 1924, eq. (20): ω_n = 1, δϑ_n = 0)")
    adm = list(range(m)) + ([n] if S.t is not None else [])
    if r and not product_is_zero(cod.matrix(), frame.C.extract(list(range(S.dim)), adm)):
        raise NotAdaptedError(
            f"the coframe forms {m + 1}..{n} do not span the constraint codistribution: the "
            f"frame is not adapted (free fields first, then the {r} constraint directions)")
    _record_adapted(cod, frame, m)
    return m


def _record_adapted(cod: Codistribution, frame: Frame, m: int) -> None:
    """Carry the verdict "``frame`` is adapted to ``cod`` with m free fields" (see :data:`_ADAPTED`)."""
    known = _ADAPTED.get(frame)
    if known is None:
        known = _ADAPTED.setdefault(frame, weakref.WeakKeyDictionary())
    known[cod] = (tuple(frame.B), m)


def frame_kinematics(frame: Frame, m: int, u: Sequence[sp.Symbol]):
    """The motion in an adapted frame with free quasi-velocities u: returns (ω, K, speeds) with
    ω = (u, 0, …, 0[, 1]) on the motion, q̇^i = K^i = C^i_a ω^a (Hamel 1924, eq. (13)) and
    u_r = θ^r(q̇) = B^r_i q̇^i."""
    S = frame.space
    n = S.n
    u = as_exprs(u, what="speeds u")
    if not isinstance(m, int) or not 0 <= m <= n or len(u) != m:
        raise DimensionError(f"frame_kinematics needs 0 ≤ m ≤ {n} and m = {m} speeds, got {len(u)}")
    omega = list(u) + [sp.S.Zero] * (n - m) + ([sp.S.One] if S.t is not None else [])
    K = [sum((frame.C[i, a] * omega[a] for a in range(len(omega)) if omega[a] != 0), sp.S.Zero)
         for i in range(n)]
    speeds = [sum((frame.B[r, i] * S.velocities[i] for i in range(S.dim)), sp.S.Zero) for r in range(m)]
    return omega, K, speeds
