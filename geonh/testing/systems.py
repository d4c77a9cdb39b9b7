"""Hypothesis strategies for whole mechanical systems, their adapted frames and their states
(re-exported by :mod:`geonh.testing.strategies`).

A drawn system is small by construction, so that deriving its equations of motion takes well
under a second:

* the kinetic energy is T = ½ Σ_k D_k (Σ_j L_kj(q) q̇^j)², i.e. the mass matrix is
  M = Lᵀ D L with L unit lower triangular (entries 0, small constants or one term c q,
  c sin q, c cos q, c q q') and D = diag(D_k) positive (positive parameters ``m1, m2, …`` or
  positive constants; the potential may carry a positive stiffness ``k``): det M = Π D_k > 0 everywhere, so T is positive definite by construction
  (Sylvester: the leading minors of M are the products D_1 ⋯ D_k);
* the k constraints read q̇^{d_κ} + Σ_{λ<κ} e_κλ q̇^{d_λ} − Σ_s a_κs q̇^s − b_κ = 0 on k distinct
  dependent coordinates d_κ: their velocity block on the dependent columns is unit triangular,
  so their rank is exactly k everywhere;
* the potential and the forces are single small terms (or 0).

Every choice shrinks toward the small readable system: fewer coordinates, fewer constraints,
zero couplings (L = 1, a = 0), constants instead of functions, no forces and no potential.
"""
from __future__ import annotations

import math

import sympy as sp
from hypothesis import assume
from hypothesis import strategies as st

from ..errors import DimensionError, NotLinearError, ParseError
from ..kernel.frames import Frame
from ..kernel.parsing import sympy_of
from ..kernel.space import ConfigurationSpace
from ..kernel.velocity_frames import VelocityFrame
from ..systems.mechanical import MechanicalSystem
from ..systems.nonlinear import NonlinearSystem
from ..transposition.adapted import solve_constraints
from ..equations.nonlinear import velocity_frame

__all__ = ["mechanical_systems", "adapted_frames", "velocity_frames", "states"]

#: the constraint kinds :func:`mechanical_systems` draws: ``"linear"`` A(q) q̇ = 0 on Q;
#: ``"affine"`` A(q) q̇ + b(q) = 0 (time adjoined as a coordinate: b is the dt component);
#: ``"rheonomic"`` A(t, q) q̇ + b(t, q) = 0 with T, V and the forces depending on t too;
#: ``"nonlinear"`` q̇^{d_κ} = (linear part) + c q̇^s q̇^r (a :class:`~geonh.NonlinearSystem`).
CONSTRAINT_KINDS = ("linear", "affine", "rheonomic", "nonlinear")

_CONSTANTS = (1, 2, -1, sp.Rational(1, 2), 3, -2, sp.Rational(-1, 2))


def _constants():
    return st.sampled_from([sympy_of(c) for c in _CONSTANTS])


@st.composite
def _entry(draw, coords, zero_weight: int = 5):
    """0 (weight ``zero_weight`` out of 10, and the shrink target), else c, c x, c sin x,
    c cos x or c x y over ``coords``."""
    if not coords or draw(st.integers(0, 9)) < zero_weight:
        return sp.S.Zero
    c = draw(_constants())
    kind = draw(st.sampled_from(["const", "lin", "sin", "cos", "quad"]))
    if kind == "const":
        return c
    x = draw(st.sampled_from(coords))
    if kind == "lin":
        return c * x
    if kind == "sin":
        return c * sp.sin(x)
    if kind == "cos":
        return c * sp.cos(x)
    return c * x * draw(st.sampled_from(coords))


def _kinds(kind) -> tuple[str, ...]:
    if not isinstance(kind, (str, tuple, list)):
        raise ParseError(f"constraint kind must be one of {CONSTRAINT_KINDS} (or a sequence of them), "
                         f"not a {type(kind).__name__}")
    kinds = (kind,) if isinstance(kind, str) else tuple(kind)
    bad = [k for k in kinds if not (type(k) is str and k in CONSTRAINT_KINDS)]
    if not kinds or bad:
        raise ParseError(f"constraint kind must be one of {CONSTRAINT_KINDS} (or a sequence of them), "
                         f"not {[str(k)[:40] for k in kinds] if kinds else kind!r}")
    return kinds


def mechanical_systems(min_n: int = 2, max_n: int = 4, min_constraints: int = 0,
                       max_constraints: int | None = None,
                       kind: str | tuple[str, ...] = ("linear", "affine", "rheonomic"),
                       forces: bool = True, potential: bool = True, parameters: bool = True):
    """A :class:`~geonh.MechanicalSystem` (a :class:`~geonh.NonlinearSystem` for
    ``kind="nonlinear"``) with ``min_n ≤ n ≤ max_n`` coordinates ``q1 … qn`` and
    ``min_constraints ≤ k ≤ max_constraints`` constraints of rank exactly k (default at most
    n − 1, so at least one degree of freedom is left).

    ``kind``: one of :data:`CONSTRAINT_KINDS` or a sequence of them (drawn; shrinks toward the
    first).  ``forces`` / ``potential``: allow a generalized force (a small function of q, q̇
    and, for rheonomic draws, t) and a potential V(q).  ``parameters``: the diagonal D of the
    mass matrix are positive symbols ``m1 … mn`` (``Symbol(…, positive=True)``) and the
    potential may carry a positive stiffness ``k``, else every coefficient is a number.  The construction (module docstring) makes T positive definite and the
    constraint rank exact; the system's ``name`` is ``"random system"``.
    """
    kinds = _kinds(kind)
    if min_n < 1 or max_n < min_n:
        raise DimensionError(f"need 1 <= min_n <= max_n, got {min_n}, {max_n}")
    hi = max_n - 1 if max_constraints is None else max_constraints
    if min_constraints < 0 or hi < min_constraints or min_constraints > max_n - 1:
        raise DimensionError(f"need 0 <= min_constraints <= max_constraints < n <= {max_n}, got "
                             f"{min_constraints}, {max_constraints}")
    if "nonlinear" in kinds and hi < 1:
        raise DimensionError("a nonlinear system needs at least one constraint (max_constraints >= 1)")
    return _mechanical_systems(min_n, max_n, min_constraints, hi, kinds, bool(forces), bool(potential),
                               bool(parameters))


@st.composite
def _mechanical_systems(draw, min_n, max_n, min_k, max_k, kinds, forces, potential, parameters):
    kind = draw(st.sampled_from(kinds))
    lo_n = max(min_n, min_k + 1, 2 if kind == "nonlinear" else 1)
    n = draw(st.integers(lo_n, max_n))
    lo_k = max(min_k, 1 if kind == "nonlinear" else 0)
    k = draw(st.integers(lo_k, min(max_k, n - 1)))
    S = ConfigurationSpace([f"q{i + 1}" for i in range(n)], time=kind in ("affine", "rheonomic"))
    q, qd = list(S.q), list(S.qd)
    coords = list(S.coords) if kind == "rheonomic" else q
    # T = ½ Σ_k D_k (Σ_j L_kj q̇^j)², L unit lower triangular, D > 0
    D = [sp.Symbol(f"m{i + 1}", positive=True) if parameters else draw(st.sampled_from([sp.S.One, sp.Integer(2), sp.Rational(1, 2)]))
         for i in range(n)]
    T = sp.S.Zero
    for r in range(n):
        w = qd[r] + sp.Add(*[draw(_entry(coords, 7)) * qd[j] for j in range(r)])
        T += sp.expand(D[r] * w**2 / 2)   # expanded: MechanicalSystem reads M off the monomials (10x faster than by diff)
    V = draw(_entry(q, 6)) if potential else sp.S.Zero
    if parameters and V != 0 and draw(st.booleans()):
        V = sp.Symbol("k", positive=True) * V          # a stiffness: a positive parameter
    Q = None
    if forces:
        Q = [draw(_entry(coords + qd, 7)) for _ in range(n)]
    # constraints on k distinct dependent coordinates, unit triangular on them
    order = draw(st.permutations(list(range(n)))) if k else list(range(n))
    dep = sorted(order[n - k:]) if k else []
    free = [i for i in range(n) if i not in dep]
    phis: list = []
    solved: dict = {}
    for a, j in enumerate(dep):
        rhs = sp.Add(*[draw(_entry(coords, 3)) * qd[s] for s in free])
        if kind in ("affine", "rheonomic"):
            rhs += draw(_entry(coords, 5))
        if kind == "nonlinear":
            s, r = draw(st.sampled_from(free)), draw(st.sampled_from(free))
            rhs += draw(_constants()) * qd[s] * qd[r]
        couple = sp.Add(*[draw(_entry(coords, 7)) * qd[dep[b]] for b in range(a)])
        phis.append(qd[j] + couple - rhs)
        solved[qd[j]] = rhs - couple.xreplace(solved)
    if kind == "nonlinear":
        return NonlinearSystem(S, T, V, Q, phis, solved=solved, name="random system")
    return MechanicalSystem(S, T, V, Q, constraints=phis, name="random system")


def adapted_frames(system):
    """A frame adapted to the constraints of ``system``.

    For a :class:`~geonh.MechanicalSystem` a :class:`~geonh.Frame` from the quasi-velocities
    (Hamel 1924, eq. (13); the layout of ``in_frame`` in :mod:`geonh.equations.declaration`
    and of the models' frames)

        ω^s = q̇^s + Σ_{s'<s} K_ss'(q) q̇^s' + Σ_κ e_sκ(q) θ^κ(q̇)   (free s, names u1 …),
        ω^κ = θ^κ(q̇) = A_κi q̇^i + b_κ                              (the system's constraint forms, c1 …),
        ω^t = 1                                                      (with time, t_dot),

    where the free coordinates are those of :func:`geonh.solve_constraints`; adding multiples
    of the constraint rows and a unit-triangular K leaves the coframe invertible wherever the
    dependent block of A is.  For a :class:`~geonh.NonlinearSystem` a frame on TQ
    (:func:`geonh.velocity_frame`) with free quasi-velocities v^s = q̇^s + K q̇ (earlier free,
    plus a term c (q̇^s')² when drawn) and the constraints φ^κ as the last ones; its inverse is
    solved exactly (the constraints must be linear in the dependent velocities, as drawn
    systems are).  Couplings shrink to 0 (the Voronets frame)."""
    if isinstance(system, NonlinearSystem):
        return _velocity_adapted(system)
    if not isinstance(system, MechanicalSystem):
        raise ParseError(f"adapted_frames takes a MechanicalSystem or NonlinearSystem, not {type(system).__name__}")
    return _adapted(system)


@st.composite
def _adapted(draw, system):
    S = system.space
    free = solve_constraints(system)[0] if system.n_constraints else list(range(S.n))
    vel = list(S.velocities)
    thetas = [sp.Add(*[c * v for c, v in zip(th.covector, vel)]) for th in system.constraints.forms]
    coords = list(S.coords)
    omegas = []
    for a, s in enumerate(free):
        w = S.qd[s] + sp.Add(*[draw(_entry(coords, 7)) * S.qd[free[b]] for b in range(a)])
        w += sp.Add(*[draw(_entry(coords, 7)) * th for th in thetas])
        omegas.append(sp.expand(w))
    names = [f"u{a + 1}" for a in range(len(free))] + [f"c{k + 1}" for k in range(len(thetas))]
    if S.t is not None:
        names.append("t_dot")
    return Frame.from_quasi_velocities(S, omegas + thetas + ([sp.S.One] if S.t is not None else []), names=names)


def _triangular_quasi(draw, S, which, nonlinear):
    """v^a = q̇^{which[a]} + Σ_{b<a} K_ab q̇^{which[b]} (+ c (q̇^{which[b]})²): the quasi-velocities
    and their inverse q̇(v) by forward substitution."""
    coords = list(S.coords)
    quasi: list = []
    back: dict = {}
    vs = [sp.Symbol(f"v{a + 1}", real=True) for a in range(len(which))]
    for a, i in enumerate(which):
        g = sp.Add(*[draw(_entry(coords, 7)) * S.qd[which[b]] for b in range(a)])
        if nonlinear and a and draw(st.booleans()):
            g += draw(_constants()) * S.qd[which[draw(st.integers(0, a - 1))]] ** 2
        quasi.append(S.qd[i] + g)
        back[S.qd[i]] = vs[a] - g.xreplace(back)
    return quasi, vs, back


@st.composite
def _velocity_adapted(draw, system):
    S = system.space
    solved = system.solved()
    free = [i for i in range(S.n) if S.qd[i] not in solved]
    dep = [S.qd[i] for i in range(S.n) if S.qd[i] in solved]
    for f in system.phi:
        if any(sp.diff(f, v, w) != 0 for v in dep for w in dep):
            raise NotLinearError("adapted_frames needs constraints linear in the dependent velocities "
                                 f"{[str(v) for v in dep]}")
    quasi, vs, back = _triangular_quasi(draw, S, free, nonlinear=True)
    vc = [sp.Symbol(f"v_c{j + 1}", real=True) for j in range(len(dep))]
    sol = sp.solve([f - w for f, w in zip(system.phi, vc)], dep, dict=True)
    if len(sol) != 1:
        raise NotLinearError("adapted_frames could not solve the constraints for the dependent velocities")
    inverse = {**back, **{v: sp.expand(sol[0][v].xreplace(back)) for v in dep}}
    names = [v.name for v in vs]
    return velocity_frame(system, quasi + list(system.phi), names=names, inverse=[inverse[v] for v in S.qd])


def velocity_frames(space: ConfigurationSpace, nonlinear: bool = True):
    """A :class:`~geonh.kernel.velocity_frames.VelocityFrame` (a frame on TQ) on ``space``:
    v^a = q̇^a + Σ_{b<a} K_ab(t, q) q̇^b (+ c (q̇^b)² for one earlier b, when ``nonlinear``),
    triangular in the velocities, so the inverse q̇(t, q, v) is exact by forward substitution
    and the Jacobian ∂v/∂q̇ is unit triangular (invertible everywhere).  Shrinks toward v = q̇."""
    if not isinstance(space, ConfigurationSpace):
        raise ParseError(f"velocity_frames takes a ConfigurationSpace, not {type(space).__name__}")
    return _velocity_frames(space, bool(nonlinear))


@st.composite
def _velocity_frames(draw, space, nonlinear):
    quasi, vs, back = _triangular_quasi(draw, space, list(range(space.n)), nonlinear)
    return VelocityFrame(space, quasi, vs, [sp.expand(back[v]) for v in space.qd])


def _system_parameters(system) -> list:
    if isinstance(system, NonlinearSystem):
        params = system.parameters()
    else:
        params = set()
        for e in (system.T, system.V, *system.Q, *list(system.constraints.matrix())):
            params |= sympy_of(e).free_symbols
        params -= set(system.space.state_symbols)
    for c in system.conditions:
        params |= c.free_symbols - set(system.space.state_symbols)
    return sorted(params, key=sp.default_sort_key)


def states(system, magnitude: float = 2.0):
    """Numeric states {symbol: float} of ``system`` (a :class:`~geonh.MechanicalSystem` or a
    :class:`~geonh.NonlinearSystem`) that satisfy its velocity constraints: time, coordinates
    and free velocities in [−``magnitude``, ``magnitude``], every parameter in
    [1/2, ``magnitude``] (positive; the system's ``conditions`` must hold, draws that violate
    them are rejected), the dependent velocities solved from the constraints.  The dict holds
    the whole state and the parameters, the form :func:`geonh.simulate` takes for ``y0`` and
    ``params``.  Values shrink toward 0 (parameters toward 1/2)."""
    if not isinstance(system, (MechanicalSystem, NonlinearSystem)):
        raise ParseError(f"states draws for a MechanicalSystem or NonlinearSystem, not {type(system).__name__}")
    if not (isinstance(magnitude, (int, float)) and not isinstance(magnitude, bool)
            and math.isfinite(magnitude) and magnitude >= 0.5):
        raise ParseError(f"magnitude must be a finite number >= 0.5, not {magnitude!r}")
    S = system.space
    if isinstance(system, NonlinearSystem):
        solved = system.solved()
        dep_syms = list(solved)
    elif system.n_constraints:
        free, dep, a, a0 = solve_constraints(system)
        dep_syms = [S.qd[j] for j in dep]
        solved = {S.qd[j]: a0[r] + sum((a[r, c] * S.qd[s] for c, s in enumerate(free)), sp.S.Zero)
                  for r, j in enumerate(dep)}
    else:
        dep_syms, solved = [], {}
    params = _system_parameters(system)
    drawn = [*S.coords, *[v for v in S.qd if v not in dep_syms]]
    return _states(system, drawn, params, solved, float(magnitude))


def _reals(lo, hi):
    return st.floats(lo, hi, allow_nan=False, allow_infinity=False).map(lambda x: x + 0.0)


@st.composite
def _states(draw, system, drawn, params, solved, magnitude):
    point = {s: draw(_reals(-magnitude, magnitude)) for s in drawn}
    for p in params:
        point[p] = draw(_reals(0.5, magnitude))
    for c in system.conditions:
        assume(bool(c.xreplace(point)))
    exact = {s: sp.Float(x, 30) for s, x in point.items()}
    for v, e in solved.items():
        x = sympy_of(e).xreplace(exact).evalf(30)
        assume(x.is_real and x.is_finite)
        exact[v] = x
        point[v] = float(x)
    return point
