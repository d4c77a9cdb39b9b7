"""Linearization about an equilibrium or a steady motion (docs/linearization.md).

The equations M(t, q, u) x = F(t, q, u), x = (u̇, λ), with q̇ = K(t, q, u), are the first-order
system ẏ = f(y), y = (q, u).  At an operating point y0 that is a *steady motion* — the speeds
constant (u̇ = 0) and every coordinate constant except ignorable ones, which may drift at a
constant rate — the Jacobian of f is constant along the motion and

    δẏ = A δy + B δr,     A = ∂f/∂y (y0),   B = ∂f/∂r (y0)

for small deviations δy and small inputs δr (named symbols of the equations: forces, torques).

How A is computed (never inverting the mass matrix symbolically):

* **Derivatives at the point.**  The rows q̇ = K give ∂K/∂y directly.  For the speed rows,
  differentiating M x = F gives M(y0) ∂x/∂y = ∂F/∂y − (∂M/∂y) x0 with x0 = M(y0)⁻¹F(y0)
  (u̇0 = 0 on a steady motion, but the multipliers λ0 are not zero in general), so
  ∂u̇/∂y is one LU solve of the small linear system at y0.  Numerically (default) the
  derivatives ∂F/∂y, ∂M/∂y, ∂K/∂y are taken by forward-mode automatic differentiation at y0
  (dual numbers, one pass over the distinct subexpressions of the equations, PRECISION
  digits), so equations with huge expression trees linearize in a fraction of a second; with
  ``symbolic=True`` they are sympy derivatives with the operating point substituted, and the
  LU solve is symbolic (parameters not given in the operating point stay symbols).
* **Ignorable coordinates.**  A coordinate that appears in no retained row (neither in M, F
  nor in the kinematics of a retained coordinate, nor in a constraint) may drift; with
  ``ignorable="auto"`` the largest such set is found and left out of the state (its rows are
  reported as drift rates), or name them explicitly.
* **Holonomic constraints and dependent coordinates.**  A holonomic constraint f(q) = 0 (for
  a :class:`~geonh.MechanicalSystem`: ``system.holonomic``) is conserved by the motion, so the
  linear flow keeps the tangent space ∂f/∂q δq = 0; one dependent coordinate per constraint is
  eliminated on it, δq_dep = −(∂f/∂q_dep)⁻¹ ∂f/∂q_ind δq_ind (the bicycle's rear-frame pitch).
* **Dependent speeds.**  Forms with multipliers (Lagrange) use all velocities as speeds; their
  velocity constraints g = A(q) K(q, u) + b = 0 are conserved too and their linearization
  ∂g/∂q δq + ∂g/∂u δu = 0 eliminates the dependent speeds (which therefore depend on δq too).
  Frame forms (Boltzmann–Hamel, Voronets, Maggi, Kane, …) already have independent speeds.
  A = P J E: J the Jacobian on (retained q, u), E the embedding of the independent variables
  into the tangent space, P the selection of their rows.

:meth:`Linearization.second_order` gives the M, C, K form M δq̈ + C δq̇ + K δq = F δr in
chosen coordinates; :func:`eigenvalues` (and :meth:`Linearization.eigenvalues`) the spectrum.
An operating point that is not a steady motion, or that violates a constraint, raises
:class:`~geonh.errors.InconsistentStateError` naming the residual.
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Iterable, Mapping, Sequence

import mpmath
import sympy as sp

from ..errors import (DimensionError, GeonhError, InconsistentStateError, MissingValueError, NotAdaptedError, ParseError,
                      SingularMapError, UnknownCoordinateError)
from ..kernel.evaluation import check_assumptions, precision, resolve_keys, symbols_in, to_mp
from ..kernel.parsing import as_expr, as_exprs, as_float, as_mapping, as_matrix, as_sequence, as_symbols, as_values, sympy_of
from ..kernel.generic_point import is_zero, lu_solve
from ..kernel.elementary import ELEMENTARY
from ..kernel.linalg import Echelon, drop_roundoff, eliminate
from ..kernel.sampling import GENERIC_SPAN, OFFSET_SPAN, random_values, sample_points

if TYPE_CHECKING:  # annotations only: Equations.linearize calls in here, so no import back at run time
    from .base import Equations

__all__ = ["Linearization", "SecondOrder", "linearize", "eigenvalues", "jacobian_at"]


# ----------------------------------------------------------------------------------------------
# forward-mode automatic differentiation over the distinct subexpressions
# ----------------------------------------------------------------------------------------------
def _mpf(x):
    """A number at PRECISION digits (:func:`geonh.kernel.evaluation.to_mp`: ValueError naming
    the symbols without a value, SingularMapError where it is singular)."""
    return mpmath.mpmathify(to_mp(x))


#: (value, derivative) of the elementary functions: the one table (:mod:`geonh.kernel.elementary`)
_D1 = {f: (e.value, e.derivative) for f, e in ELEMENTARY.items() if e.value is not None and e.derivative is not None}


class _Jet:
    """Values and first derivatives (sparse gradients {variable index: value}) of sympy
    expressions at one point: forward-mode automatic differentiation (dual numbers) over the
    distinct subexpressions, shared by every expression evaluated with the same jet."""

    def __init__(self, point: Mapping, variables: Sequence[sp.Symbol]):
        with mpmath.workdps(precision()):
            self.point = {k: _mpf(v) for k, v in point.items()}
        self.index = {v: i for i, v in enumerate(variables)}
        self.cache: dict = {}

    def __call__(self, expr) -> tuple[Any, dict]:
        expr = sympy_of(expr)
        cache = self.cache
        with mpmath.workdps(precision()):
            stack = [(expr, False)]
            while stack:
                e, ready = stack.pop()
                if e in cache:
                    continue
                if not e.args or e.is_Number or e.is_NumberSymbol:
                    cache[e] = self._leaf(e)
                elif not ready:
                    stack.append((e, True))
                    stack.extend((a, False) for a in e.args if a not in cache)
                else:
                    cache[e] = self._node(e)
        return cache[expr]

    def _leaf(self, e):
        if e.is_Symbol:
            if e not in self.point:
                raise MissingValueError(f"no value for {e}")
            i = self.index.get(e)
            return self.point[e], ({i: mpmath.mpf(1)} if i is not None else {})
        return _mpf(e), {}

    def _node(self, e):
        args = [self.cache[a] for a in e.args]
        vals = [a[0] for a in args]
        if e.is_Add:
            g: dict = {}
            for _, ga in args:
                for i, d in ga.items():
                    g[i] = g.get(i, 0) + d
            return mpmath.fsum(vals), g
        if e.is_Mul:
            n = len(vals)
            pre = [mpmath.mpf(1)] * (n + 1)
            for i in range(n):
                pre[i + 1] = pre[i] * vals[i]
            suf = mpmath.mpf(1)
            g = {}
            for i in range(n - 1, -1, -1):
                ga = args[i][1]
                if ga:
                    other = pre[i] * suf
                    for j, d in ga.items():
                        g[j] = g.get(j, 0) + other * d
                suf *= vals[i]
            return pre[n], g
        if e.is_Pow:
            (b, gb), (x, gx) = args
            if e.exp.is_Integer:
                k = int(e.exp)
                if b == 0 and k < 0:
                    raise SingularMapError(f"{e} is singular at the operating point")
                val = b ** k
                fac = k * b ** (k - 1) if gb else 0
                return val, {i: fac * d for i, d in gb.items()}
            if b == 0:
                if not gb and not gx:
                    return mpmath.mpf(0), {}
                raise SingularMapError(f"{e} is not differentiable at the operating point (base 0)")
            val = b ** x
            g = {}
            if gb:
                fac = x * b ** (x - 1)
                for i, d in gb.items():
                    g[i] = fac * d
            if gx:
                fac = val * mpmath.log(b)
                for i, d in gx.items():
                    g[i] = g.get(i, 0) + fac * d
            return val, g
        if e.func in _D1 and len(args) == 1:
            f, df = _D1[e.func]
            (a, ga), = args
            fac = df(a) if ga else 0
            return f(a), {i: fac * d for i, d in ga.items()}
        if isinstance(e, sp.atan2):
            (y, gy), (x, gx) = args
            r2 = x * x + y * y
            g = {}
            for i, d in gy.items():
                g[i] = g.get(i, 0) + x / r2 * d
            for i, d in gx.items():
                g[i] = g.get(i, 0) - y / r2 * d
            return mpmath.atan2(y, x), g
        if isinstance(e, sp.Abs):
            (a, ga), = args
            if a == 0 and ga:
                raise SingularMapError(f"{e} is not differentiable at the operating point")
            s = mpmath.sign(a)
            return abs(a), {i: s * d for i, d in ga.items()}
        # anything else: its value by sympy, its derivatives symbolically (then evaluated here)
        sub = {s: sp.Float(v, precision()) for s, v in self.point.items() if s in e.free_symbols}
        try:
            val = _mpf(e.xreplace(sub))
            g = {}
            for s in e.free_symbols:
                i = self.index.get(s)
                if i is not None:   # the derivative's value only (its own jet could recurse for
                    # ever: sign → DiracDelta → DiracDelta(x, 1) → …)
                    g[i] = _mpf(sp.diff(e, s).xreplace(sub))
        except (ValueError, TypeError) as exc:
            if isinstance(exc, GeonhError):
                raise
            raise SingularMapError(f"{e} has no finite value or derivative at the operating point "
                                   "(e.g. sign or Abs where its argument is 0)") from None
        return val, g


def _genuine_dependence(groups, q, u, values, memo) -> list[set]:
    """For each group of expressions, the coordinates it depends on: those it contains,
    confirmed by a non-zero derivative at a random point near the operating point (so that
    an unsimplified cos²ψ + sin²ψ does not tie ψ to the equations)."""
    present = [symbols_in(g, memo) & set(q) for g in groups]
    cand = sorted(set().union(*present), key=str)
    if not cand:
        return present
    rng = random.Random(20240601)
    pt = {}
    with mpmath.workdps(precision()):
        for s in sorted(symbols_in([e for g in groups for e in g], memo), key=str):
            base = None
            v = values.get(s)
            if v is not None and not sympy_of(v).free_symbols:
                try:
                    base = _mpf(v)
                except (ValueError, SingularMapError):
                    base = None
            if s in q or s in u:      # the one sampler: a small offset, or a generic parameter value
                pt[s] = (base if base is not None else 0) + _mpf(random_values(rng, (s,), span=OFFSET_SPAN)[s])
            elif base is not None:
                pt[s] = base
            else:
                pt[s] = _mpf(random_values(rng, (s,), span=GENERIC_SPAN)[s])
        try:
            jet = _Jet(pt, cand)
            out = []
            for g, pres in zip(groups, present):
                grads: dict = {}
                for e in g:
                    for i, d in jet(e)[1].items():
                        grads[i] = max(grads.get(i, 0), abs(d))
                big = max(grads.values(), default=0)
                tol = mpmath.mpf(10) ** (-(precision() // 2)) * (1 + big)
                out.append({c for c in pres if grads.get(cand.index(c), 0) > tol})
            return out
        except (ValueError, ZeroDivisionError, SingularMapError, TypeError, OverflowError):
            return present


def jacobian_at(exprs: Iterable, variables: Sequence[sp.Symbol], point: Mapping):
    """Values and the Jacobian of ``exprs`` with respect to ``variables`` at ``point``
    {symbol: number} (every symbol of the expressions needs a value), by forward-mode
    automatic differentiation at PRECISION digits: returns (values, rows) as mpmath numbers."""
    variables = as_symbols(variables, what="variables")
    point = as_values(point, what="point")
    jet = _Jet(point, variables)
    vals, rows = [], []
    for e in as_exprs(exprs, what="expressions"):
        v, g = jet(e)
        vals.append(v)
        rows.append([g.get(i, mpmath.mpf(0)) for i in range(len(variables))])
    return vals, rows


# ----------------------------------------------------------------------------------------------
# results
# ----------------------------------------------------------------------------------------------
def _to_sympy_matrix(rows, cols: int | None = None) -> sp.Matrix:
    rows = list(rows)
    if not rows:
        return sp.zeros(0, cols or 0)
    return sp.Matrix([[_num(x) for x in r] for r in rows])


def _num(x):
    if isinstance(x, sp.Basic):
        return x
    if x == 0:
        return sp.S.Zero
    if isinstance(x, mpmath.mpc):
        return sp.Float(x.real, precision()) + sp.I * sp.Float(x.imag, precision())
    return sp.Float(x, precision())


@dataclass(frozen=True)
class SecondOrder:
    """M δq̈ + C δq̇ + K δq = F δr in the chosen coordinates (sympy matrices; numbers with
    PRECISION digits in the numeric mode).  ``speeds`` are the speeds that carry the coordinates
    (δq̇ = G δu + H δq at the operating point; G = I, H = 0 when the speeds are the coordinate
    rates)."""

    M: sp.Matrix
    C: sp.Matrix
    K: sp.Matrix
    F: sp.Matrix
    coordinates: tuple
    speeds: tuple
    inputs: tuple


@dataclass(frozen=True)
class Linearization:
    """The linear equations δẏ = A δy + B δr about an operating point.

    Attributes
    ----------
    A, B : sympy matrices (numbers with PRECISION digits unless ``symbolic``).
    state : the state variables of A: the independent retained coordinates, then the
        independent speeds.
    inputs : the input symbols (columns of B).
    dependent : the eliminated coordinates and speeds.
    ignorable : the coordinates left out of the state.
    drift : {coordinate: rate} of the coordinates that move on the steady motion.
    operating_point : the values used ({symbol: value}, completed: dependent coordinates and
        speeds solved, ignorable coordinates 0 where not given).
    equations : the :class:`~geonh.Equations` linearized.
    symbolic : whether A, B are symbolic.
    """

    A: sp.Matrix
    B: sp.Matrix
    state: tuple
    inputs: tuple
    dependent: tuple
    ignorable: tuple
    drift: dict
    operating_point: dict
    equations: Equations
    symbolic: bool
    _parts: dict = field(repr=False, compare=False, default_factory=dict)

    def numpy(self):
        """(A, B) as numpy float arrays (every symbol must have a value)."""
        import numpy as np
        return (np.array(self.A.evalf(17), dtype=float).reshape(self.A.shape),
                np.array(self.B.evalf(17), dtype=float).reshape(self.B.shape))

    def eigenvalues(self, values: Mapping | None = None, *, high_precision: bool = False):
        """Eigenvalues of A (``values`` for symbols left in a symbolic A); see :func:`eigenvalues`."""
        A = self.A
        if values is not None:
            values = as_mapping(values, "values")
        if values:
            known = set(self.equations.value_symbols) | symbols_in(A)
            A = A.xreplace({s: as_expr(v, what=f"value of {s}")
                            for s, v in resolve_keys(values, known, what="eigenvalue values").items()})
        return eigenvalues(A, high_precision=high_precision)

    def second_order(self, coordinates: Sequence | None = None) -> SecondOrder:
        """The M, C, K form  M δq̈ + C δq̇ + K δq = F δr  in ``coordinates`` (default: every
        independent retained coordinate).

        The rows are the equations of the speeds that carry these coordinates, projected onto
        the independent speeds (with multipliers: by the admissible directions, which removes
        the reactions), and the speeds are replaced by the coordinate rates through the
        linearized kinematics δq̇ = G δu + H δq.  Speeds that carry none of the coordinates
        (e.g. a rolling speed) are eliminated by a Schur complement of the mass matrix; they
        must not enter the equations of the coordinates at first order, and the other
        coordinates must not either — otherwise the second-order form does not close and
        :class:`~geonh.errors.NotAdaptedError` says which entries couple (use A).  The rows
        are oriented so that M has a positive diagonal."""
        return _second_order(self, coordinates)


# ----------------------------------------------------------------------------------------------
# linear algebra in the two modes (sympy matrices throughout; numeric solves by mpmath)
# ----------------------------------------------------------------------------------------------
class _Mode:
    def __init__(self, symbolic: bool, tol):
        self.symbolic = symbolic
        self.tol = mpmath.mpf(10) ** (-(precision() // 3)) if tol is None else mpmath.mpf(tol)

    def zero(self, x, scale=1) -> bool:
        if self.symbolic:
            x = sympy_of(x)
            if x == 0:
                return True
            if not x.free_symbols:
                return abs(_mpf(x)) <= self.tol * (1 + abs(_mpf(scale)))
            return is_zero(x)
        return abs(_mpf(x)) <= self.tol * (1 + abs(_mpf(scale)))

    def solve(self, A: sp.Matrix, B: sp.Matrix, what: str) -> sp.Matrix:
        if A.rows == 0:
            return sp.zeros(0, B.cols)
        if self.symbolic:
            return lu_solve(A, B, what=what)
        with mpmath.workdps(precision()):
            Am = mpmath.matrix([[_mpf(x) for x in A.row(i)] for i in range(A.rows)])
            cols = []
            for j in range(B.cols):
                b = mpmath.matrix([_mpf(x) for x in B.col(j)])
                try:
                    cols.append(mpmath.lu_solve(Am, b))
                except ZeroDivisionError:
                    raise SingularMapError(f"{what} is singular at the operating point") from None
            return sp.Matrix(A.rows, B.cols, lambda i, j: _num(cols[int(j)][int(i)]))

    def numeric(self, M: sp.Matrix, point: Mapping | None = None):
        """mpmath values of a matrix, symbolic entries at a random point (positive rationals)."""
        if M.rows == 0 or M.cols == 0:
            return []
        free = set().union(*(e.free_symbols for e in M))
        pt = sample_points(free, 1)[0] if free else {}
        with mpmath.workdps(precision()):
            return [[_mpf(sympy_of(M[i, j]).xreplace(pt)) for j in range(M.cols)] for i in range(M.rows)]


def _rank_columns(mode: _Mode, M: sp.Matrix, prefer: Sequence[int]) -> list[int]:
    """Columns (tried in the order ``prefer``) that raise the rank of M, by elimination at the
    point (numeric) or at a random point (symbolic)."""
    rows = mode.numeric(M)
    if not rows:
        return []
    big = max((abs(x) for r in rows for x in r), default=mpmath.mpf(0))
    echelon = Echelon(exact=False, tol=mode.tol * (1 + big))   # reduced copies of the chosen columns
    chosen = []
    with mpmath.workdps(precision()):
        for j in prefer:
            if echelon.add([r[j] for r in rows]):
                chosen.append(j)
            if len(chosen) == len(rows):
                break
    return chosen


# ----------------------------------------------------------------------------------------------
# the linearization
# ----------------------------------------------------------------------------------------------
def linearize(equations: Equations, operating_point: Mapping, *, inputs: Sequence = (), symbolic: bool = False,
              ignorable: Sequence | str = (), dependent: Sequence = (), parameters: Mapping | None = None,
              tol=None) -> Linearization:
    """Linearize ``equations`` about an equilibrium or a steady motion (module docstring).

    Parameters
    ----------
    operating_point : {symbol or name: value} for the coordinates, the speeds (or the
        coordinate velocities q̇, from which the speeds follow by ``equations.speeds``), time
        and the parameters.  Missing values are completed where possible: ignorable
        coordinates are 0, dependent coordinates are solved from the holonomic constraints
        (numerically, from 0), dependent speeds of a multiplier form from the velocity
        constraints.  Keys are names or symbols (:meth:`Equations.resolve_values`: a symbol that
        differs from the equations' only in its assumptions is matched by name; a key that
        names no symbol of the equations or of the system is refused).
    inputs : symbols (or names) of forces/torques in the equations; B = ∂f/∂inputs at their
        operating values (default 0).
    symbolic : symbolic A, B (sympy derivatives; every symbol without a value stays) instead of
        numbers with PRECISION digits (automatic differentiation at the point).
    ignorable : coordinates to leave out of the state, or "auto" for every coordinate that no
        retained row depends on.
    dependent : coordinates and speeds (symbols or names) to eliminate on the constraints
        (default: chosen by pivoting, last coordinates first).
    parameters : more values, merged into ``operating_point``.
    tol : the zero tolerance of the numeric decisions (default 10^(−PRECISION/3), relative).

    A frame form whose equations are singular at the point although its frame is regular there
    (the frame's inverse, computed once by LU with pivots chosen at random points, may divide by
    sin θ where the true inverse does not: a removable singularity) is derived again in the same
    frame with its inverse's pivots chosen at the operating point, so that no pivot vanishes
    there, and that is linearized (:attr:`Linearization.equations`).  A frame singular at the
    point raises :class:`SingularMapError` saying so.
    """
    from .base import Equations as _Equations
    if not isinstance(equations, _Equations):
        raise ParseError(f"linearize takes Equations, not {type(equations).__name__}")
    tol = as_float(tol, "tol", minimum=0) if tol is not None else None
    operating_point = as_mapping(operating_point, "operating point")
    parameters = as_mapping(parameters, "parameters") if parameters is not None else None
    inputs = as_sequence(inputs, "inputs")
    dependent = as_sequence(dependent, "dependent")
    if not (isinstance(ignorable, str) and ignorable == "auto"):
        ignorable = as_sequence(ignorable, "ignorable")
    kw = dict(inputs=inputs, symbolic=symbolic, ignorable=ignorable, dependent=dependent, parameters=parameters,
              tol=tol)
    try:
        return _linearize(equations, operating_point, **kw)
    except SingularMapError as exc:
        regular = _regular_frame_equations(equations, operating_point, parameters, exc)
        if regular is None:
            raise
    return _linearize(regular, operating_point, **kw)


def _linearize(equations: Equations, operating_point: Mapping, *, inputs: Sequence, symbolic: bool,
               ignorable: Sequence | str, dependent: Sequence, parameters: Mapping | None, tol) -> Linearization:
    """The linearization proper (:func:`linearize` adds the retry in a frame regular at the point)."""
    mode = _Mode(symbolic, tol)
    S = equations.space
    q = S.q
    u = tuple(equations.u)
    n, m = len(q), len(u)
    lam = tuple(equations.lam_vec)
    k = len(lam)
    system = equations.system
    xs = tuple(equations.unknowns)
    res = [sympy_of(r) for r in equations.residuals]
    Kin = list(equations.kinematics)
    N = len(res)
    if N != m + k:
        raise DimensionError(f"linearize needs a square system in (u̇, λ): {N} equations, {m} speeds and "
                             f"{k} multipliers")
    hol = [sympy_of(f) for f in getattr(system, "holonomic", ())]
    # velocity constraints g(q, u) = A K + b (only forms whose speeds are not independent)
    gexprs: list = []
    if k:
        cod = getattr(system, "constraints", None)
        if cod is not None and getattr(cod, "forms", ()):
            Cm = cod.matrix()
            for r in range(Cm.rows):
                e = sum((Cm[r, i] * Kin[i] for i in range(n) if Cm[r, i] != 0), sp.S.Zero)
                if S.t is not None:
                    e += Cm[r, n]
                gexprs.append(e)

    # -- the operating point --------------------------------------------------------------
    memo: dict = {}
    universe: set = set(q) | set(u) | set(S.qd) | ({S.t} if S.t is not None else set())
    universe |= symbols_in(res + Kin + hol + gexprs, memo)
    universe -= set(xs)
    by_name = {s.name: s for s in universe}
    values: dict = {}
    # keys: names or symbols, matched by the one rule of every value mapping (resolve_keys)
    given = {**equations.resolve_values(parameters, "linearize parameters"),
             **equations.resolve_values(operating_point, "operating point")}
    for s, val in given.items():
        # a float (numpy's too) is taken at its shortest decimal: 0.1 is 1/10 (finite only)
        values[s] = (sp.Rational(repr(as_float(val, f"operating-point value of {s}"))) if isinstance(val, float)
                     else as_expr(val, universe, what=f"operating-point value of {s}"))
        check_assumptions(s, values[s], "operating-point value")
    inputs = tuple(x if isinstance(x, sp.Symbol) else by_name.get(str(x), None) for x in inputs)
    if any(x is None for x in inputs):
        raise UnknownCoordinateError("an input is not a symbol of the equations")
    for x in inputs:
        if x in set(q) | set(u):
            raise DimensionError(f"input {x} is a coordinate or speed")
        values.setdefault(x, sp.S.Zero)
    if S.t is not None:
        values.setdefault(S.t, sp.S.Zero)

    # -- ignorable coordinates ------------------------------------------------------------
    groups = [res, hol + gexprs] + [[e] for e in Kin]
    dep_sets = _genuine_dependence(groups, q, u, values, memo)
    speed_rows, cons_rows, kin_syms = dep_sets[0], dep_sets[1], dep_sets[2:]
    fixed = speed_rows | cons_rows
    deps_named = {d if isinstance(d, sp.Symbol) else by_name.get(str(d)) for d in dependent}
    if None in deps_named:
        raise UnknownCoordinateError(f"dependent {dependent!r} names a symbol the equations do not have")
    if ignorable == "auto":
        ign = {x for x in q if x not in fixed and x not in deps_named}
        changed = True
        while changed:
            changed = False
            for i, x in enumerate(q):
                if x not in ign:
                    for y in list(ign):
                        if y in kin_syms[i]:
                            ign.discard(y)
                            changed = True
    else:
        ign = set()
        for x in ignorable:
            s = x if isinstance(x, sp.Symbol) else by_name.get(str(x))
            if s not in q:
                raise UnknownCoordinateError(f"ignorable {x!r} is not a coordinate")
            ign.add(s)
        for y in ign:
            where = [f"the kinematics of {q[i].name}" for i in range(n) if q[i] not in ign and y in kin_syms[i]]
            if y in speed_rows:
                where.insert(0, "the equations of the speeds")
            if y in cons_rows:
                where.append("the constraints")
            if where:
                raise InconsistentStateError(f"{y} is not ignorable: {', '.join(where)} depend(s) on it")
    ignorable_t = tuple(x for x in q if x in ign)
    retained = [i for i in range(n) if q[i] not in ign]
    for i in retained:
        values.setdefault(q[i], None)
    for x in ignorable_t:
        values.setdefault(x, sp.S.Zero)

    # missing coordinates: solve the holonomic constraints
    missing_q = [x for x in q if values.get(x) is None]
    if missing_q:
        _solve_coordinates(missing_q, hol, values, mode)
    # missing speeds: from coordinate velocities, or from the velocity constraints
    missing_u = [x for x in u if x not in values]
    if missing_u:
        _solve_speeds(equations, missing_u, gexprs, values, mode)
    for x in q:
        if values.get(x) is None:
            values.pop(x, None)

    # -- derivatives at the point -----------------------------------------------------------
    qr = [q[i] for i in retained]
    variables = qr + list(u) + list(inputs)
    nv = len(variables)
    Kr = [Kin[i] for i in retained]
    exprs = Kr + res + hol + gexprs
    zero_x = {x: sp.S.Zero for x in xs}
    # residual r = M x − F: at x = 0 its x-gradient is M(y0) and its value −F(y0)
    vals, grads = _derivatives(exprs, variables + list(xs), {**values, **zero_x}, mode, memo)
    offs = [0]
    for size in (len(Kr), N, len(hol), len(gexprs)):
        offs.append(offs[-1] + size)
    K0 = vals[:offs[1]]
    Kgrads = [row[:nv] for row in grads[:offs[1]]]
    rows_r = grads[offs[1]:offs[2]]
    M0 = sp.Matrix(N, N, lambda a, b: rows_r[int(a)][nv + int(b)])
    F0 = sp.Matrix([-v for v in vals[offs[1]:offs[2]]])
    f0, gf = vals[offs[2]:offs[3]], [row[:nv] for row in grads[offs[2]:offs[3]]]
    g0, gg = vals[offs[3]:offs[4]], [row[:nv] for row in grads[offs[3]:offs[4]]]
    scale = max([abs(_mpf(x)) for x in list(M0) + list(F0) if not sympy_of(x).free_symbols] + [1])
    x0 = mode.solve(M0, F0, f"{equations.form} mass matrix")
    # ∂R/∂y, R = F − M x0, from the residual at x = x0 (a second pass unless x0 = 0)
    if all(sympy_of(v) == 0 for v in x0):
        dR = [[-d for d in row[:nv]] for row in rows_r]
    else:
        at = {**values, **{x: v for x, v in zip(xs, x0)}}
        dR = [[-d for d in row] for row in _derivatives(res, variables, at, mode, memo)[1]]

    # -- the operating point must be consistent and steady ------------------------------------
    for c, (f, val) in enumerate(zip(hol, f0)):
        if not mode.zero(val, scale):
            raise InconsistentStateError(f"the operating point violates the holonomic constraint {c + 1}: "
                                         f"f = {_show(val)} (f = {f})")
    for c, val in enumerate(g0):
        if not mode.zero(val, scale):
            raise InconsistentStateError(f"the operating point violates velocity constraint {c + 1}: "
                                         f"A q̇ + b = {_show(val)}")
    bad = [f"{ud.name} = {_show(x0[j])}" for j, ud in enumerate(equations.ud) if not mode.zero(x0[j], scale)]
    if bad:
        raise InconsistentStateError("the operating point is not a steady motion: the speeds are not constant ("
                                     + ", ".join(bad) + ")")
    appearing = speed_rows | set().union(*(kin_syms[i] for i in retained)) | fixed
    drift: dict = {}
    for j, i in enumerate(retained):
        if not mode.zero(K0[j], scale):
            drift[q[i]] = K0[j]
            if q[i] in appearing:
                raise InconsistentStateError(
                    f"the operating point is not a steady motion: {q[i].name} moves "
                    f"({q[i].name}' = {_show(K0[j])}) and the equations depend on it")
    for i in range(n):
        if q[i] in ign:
            try:
                rate = _derivatives([Kin[i]], [], values, mode)[0][0]
            except ValueError:
                continue
            if not mode.zero(rate, scale):
                drift[q[i]] = rate

    # -- Jacobians ------------------------------------------------------------------------------
    Jq = lambda rows, cols: sp.Matrix(len(rows), len(cols), lambda a, b: rows[a][cols[b]])  # noqa: E731
    iq = list(range(len(qr)))
    iu = list(range(len(qr), len(qr) + m))
    ir = list(range(len(qr) + m, nv))
    Rq, Ru, Rr = Jq(dR, iq), Jq(dR, iu), Jq(dR, ir)
    Kq, Ku, Kr_ = Jq(Kgrads, iq), Jq(Kgrads, iu), Jq(Kgrads, ir)
    X = mode.solve(M0, Rq.row_join(Ru).row_join(Rr), f"{equations.form} mass matrix")
    Ud = X[:m, :]  # ∂u̇/∂(q_r, u, r)

    # -- the tangent space of the constraints ------------------------------------------------
    Phf = Jq(gf, iq) if hol else sp.zeros(0, len(qr))
    Phg_q = Jq(gg, iq) if gexprs else sp.zeros(0, len(qr))
    Phg_u = Jq(gg, iu) if gexprs else sp.zeros(0, m)
    keep = [c for c in range(Phg_u.rows) if not all(mode.zero(x, scale) for x in Phg_u.row(c))]
    Phg_q, Phg_u = Phg_q.extract(keep, list(range(len(qr)))), Phg_u.extract(keep, list(range(m)))
    named_q = [qr.index(d) for d in deps_named if d in qr]
    named_u = [u.index(d) for d in deps_named if d in u]
    speed_of = {u[j]: q[S.qd.index(u[j])] for j in range(m) if u[j] in S.qd}
    if Phf.rows:
        prefer = named_q + [j for j in reversed(iq) if j not in named_q]
        dq = _rank_columns(mode, Phf, prefer)
        if len(dq) < Phf.rows:
            raise SingularMapError("the holonomic constraints are dependent at the operating point "
                                   f"(rank {len(dq)} < {Phf.rows})")
    else:
        dq = []
    if named_q and set(named_q) - set(dq):
        raise InconsistentStateError(f"the coordinates {[qr[j].name for j in named_q]} cannot all be dependent")
    if Phg_u.rows:
        depq = {qr[j] for j in dq}
        order = (named_u
                 + [j for j in reversed(range(m)) if j not in named_u and speed_of.get(u[j]) in depq]
                 + [j for j in reversed(range(m)) if j not in named_u and speed_of.get(u[j]) in ign]
                 + [j for j in reversed(range(m)) if j not in named_u])
        seen: list = []
        for j in order:
            if j not in seen:
                seen.append(j)
        du = _rank_columns(mode, Phg_u, seen)
        if len(du) < Phg_u.rows:
            raise SingularMapError("the velocity constraints are dependent at the operating point")
    else:
        du = []
    if named_u and set(named_u) - set(du):
        raise InconsistentStateError(f"the speeds {[u[j].name for j in named_u]} cannot all be dependent")
    qi = [j for j in iq if j not in dq]
    ui = [j for j in range(m) if j not in du]
    # E_q: δq_r = E_q δq_ind;   δu = E_uq δq_ind + E_uu δu_ind
    Eq = sp.zeros(len(qr), len(qi))
    for c, j in enumerate(qi):
        Eq[j, c] = 1
    if dq:
        sol = mode.solve(Phf.extract(list(range(Phf.rows)), dq), -Phf.extract(list(range(Phf.rows)), qi),
                         "holonomic constraint Jacobian")
        for a, j in enumerate(dq):
            for c in range(len(qi)):
                Eq[j, c] = sol[a, c]
    Euq = sp.zeros(m, len(qi))
    Euu = sp.zeros(m, len(ui))
    for c, j in enumerate(ui):
        Euu[j, c] = 1
    if du:
        rows = list(range(Phg_u.rows))
        rhs = -(Phg_q * Eq).row_join(Phg_u.extract(rows, ui))
        sol = mode.solve(Phg_u.extract(rows, du), rhs, "velocity constraint Jacobian")
        for a, j in enumerate(du):
            for c in range(len(qi)):
                Euq[j, c] = sol[a, c]
            for c in range(len(ui)):
                Euu[j, c] = sol[a, len(qi) + c]
    # -- A and B on the independent variables ------------------------------------------------
    J = (Kq.row_join(Ku)).col_join(Ud[:, :len(qr) + m])
    Bfull = Kr_.col_join(Ud[:, len(qr) + m:])
    E = (Eq.row_join(sp.zeros(len(qr), len(ui)))).col_join(Euq.row_join(Euu))
    rows_ind = qi + [len(qr) + j for j in ui]
    A = J.extract(rows_ind, list(range(J.cols))) * E
    B = Bfull.extract(rows_ind, list(range(Bfull.cols))) if inputs else sp.zeros(len(rows_ind), 0)
    A, B = (X.applyfunc(_cancel_if_small) if symbolic else drop_roundoff(X) for X in (A, B))
    state = tuple(qr[j] for j in qi) + tuple(u[j] for j in ui)
    dependent_t = tuple(qr[j] for j in dq) + tuple(u[j] for j in du)
    parts = dict(M0=M0, Rq=Rq, Ru=Ru, Rr=Rr, Kq=Kq, Ku=Ku, Eq=Eq, Euq=Euq, Euu=Euu, qr=qr, qi=qi, ui=ui,
                 m=m, k=k, mode=mode, scale=scale, x0=x0)
    return Linearization(A, B, state, tuple(inputs), dependent_t, ignorable_t, drift,
                         {s: v for s, v in values.items() if v is not None}, equations, symbolic, parts)


def _regular_frame_equations(equations: Equations, operating_point: Mapping, parameters, exc: SingularMapError):
    """The equations of the same frame form derived again in the same frame, its inverse C = B⁻¹
    computed by LU with the rows pivoted at the operating point (every pivot non-zero there, so
    C and the equations have no singularity there); None when that does not apply (not a
    frame form, or the point does not fix the coordinates).  A frame singular at the point
    raises SingularMapError naming it and a form without a frame."""
    from ..kernel.fields import VectorField
    from ..kernel.frames import Frame
    from .registry import FORMS

    entry = FORMS.get(equations.form)
    frame = equations.frame
    if frame is None or entry is None or entry.takes != "frame":
        return None
    try:
        given = {**equations.resolve_values(parameters, "linearize parameters"),
                 **equations.resolve_values(operating_point, "operating point")}
        point = {s: as_expr(v, what=f"value of {s}") for s, v in given.items()}
    except (UnknownCoordinateError, ValueError):
        return None
    S = frame.space
    if S.t is not None:
        point.setdefault(S.t, sp.S.Zero)
    B = frame.B
    n = B.rows
    with mpmath.workdps(precision()):
        try:
            A = [[_mpf(sympy_of(B[i, j]).xreplace(point)) for j in range(n)] for i in range(n)]
        except (ValueError, TypeError, SingularMapError):
            return None                       # the point does not fix the frame's coordinates
        big = max((abs(x) for r in A for x in r), default=mpmath.mpf(0))
        order, rank = eliminate(A, exact=False, tol=(1 + big) * mpmath.mpf(10) ** (-(precision() // 2)), largest=True)
        if rank < n:
            raise SingularMapError(
                f"{exc}; the frame {list(frame.names)} itself is singular at the operating point (its "
                f"coframe matrix has rank {rank} < {n} there), so the {equations.form} equations have no "
                "value there: linearize a form without this frame, e.g. derive('lagrange', system)") from None
    rows = list(range(n))
    C = B.extract(order, rows).LUsolve(sp.eye(n).extract(order, rows), iszerofunc=lambda e: e == 0)
    fields = [VectorField(S, list(C[:, a])) for a in range(n)]
    regular = Frame(fields, names=frame.names, coframe=frame.coframe)
    return entry(equations.system, regular, None)


def _cancel_if_small(e):
    """``cancel(e)`` (numerator and denominator without common factors) when e has at most 6
    symbols and 400 operations; e otherwise."""
    e = sympy_of(e)
    if e.is_number or len(e.free_symbols) > 6 or sp.count_ops(e) > 400:
        return e
    return sp.cancel(e)


def _show(x) -> str:
    x = sympy_of(x) if isinstance(x, sp.Basic) else x
    if isinstance(x, sp.Basic) and x.free_symbols:
        return str(x)
    v = _mpf(x)
    return mpmath.nstr(v, 8)


def _derivatives(exprs, variables, values, mode: _Mode, memo: dict | None = None):
    """(values, gradient rows) of ``exprs`` at ``values``: numerically by automatic
    differentiation, symbolically by sympy derivatives with the values substituted."""
    if not mode.symbolic:
        missing = symbols_in(exprs, memo) - set(values)
        if missing:
            raise MissingValueError(f"give values for {sorted(map(str, missing))} in the operating point "
                             "(or linearize with symbolic=True)")
        jet = _Jet(values, variables)
        vals, grads = [], []
        for e in exprs:
            v, g = jet(e)
            vals.append(_num(v))
            grads.append([_num(g.get(i, 0)) for i in range(len(variables))])
        return vals, grads
    sub = {s: v for s, v in values.items() if v is not None}
    vals, grads = [], []
    for e in exprs:
        e = sympy_of(e)
        fs = e.free_symbols
        vals.append(e.xreplace(sub))
        grads.append([sp.diff(e, x).xreplace(sub) if x in fs else sp.S.Zero for x in variables])
    return vals, grads


def _solve_coordinates(missing, hol, values, mode: _Mode) -> None:
    """Solve the holonomic constraints for missing coordinate values (Newton from 0)."""
    if mode.symbolic or not hol:
        raise MissingValueError(f"give values for the coordinates {[x.name for x in missing]}")
    eqs = [f for f in hol if f.free_symbols & set(missing)]
    if len(eqs) != len(missing):
        raise MissingValueError(f"give values for the coordinates {[x.name for x in missing]} "
                         f"({len(eqs)} holonomic constraint(s) involve them)")
    known = {s: v for s, v in values.items() if v is not None}

    def resid(*z):
        pt = dict(known)
        pt.update({s: sp.Float(v, precision()) for s, v in zip(missing, z)})
        jet = _Jet(pt, [])
        return [jet(f)[0] for f in eqs]

    with mpmath.workdps(precision()):
        try:
            sol = mpmath.findroot(resid, [mpmath.mpf(0)] * len(missing))
        except (ValueError, ZeroDivisionError) as exc:
            raise InconsistentStateError(f"cannot solve the holonomic constraints for {[x.name for x in missing]}: "
                                         f"{exc}") from None
    sol = [sol[i] for i in range(len(missing))] if isinstance(sol, mpmath.matrix) else [sol]
    for s, v in zip(missing, sol):
        values[s] = _num(v)


def _solve_speeds(equations: Equations, missing, gexprs, values, mode: _Mode) -> None:
    """Missing speeds: from given coordinate velocities (u = speeds(q, q̇)), else from the
    velocity constraints (linear in the speeds)."""
    S = equations.space
    u = list(equations.u)
    if all(v in values for v in S.qd) and not set(missing) & set(S.qd):
        for s in missing:
            e = equations.speeds[u.index(s)]
            values[s] = sympy_of(e).xreplace(values)
        return
    if not gexprs:
        raise MissingValueError(f"give values for the speeds {[x.name for x in missing]}")
    known = {s: v for s, v in values.items() if v is not None and s not in missing}
    zero = {s: 0 for s in missing}

    def at(e):
        if mode.symbolic:
            return sympy_of(e).xreplace(known)
        return _num(_Jet(known, [])(e)[0])

    rows, rhs = [], []
    for g in gexprs:
        coeffs = [sp.diff(g, s) for s in missing]
        if all(c == 0 for c in coeffs):
            continue
        rows.append([at(c) for c in coeffs])
        rhs.append(-at(g.xreplace(zero)))
    A = sp.Matrix(rows) if rows else sp.zeros(0, len(missing))
    if A.rows != len(missing):
        raise MissingValueError(f"give values for the speeds {[x.name for x in missing]} ({A.rows} velocity "
                         f"constraint(s) involve them)")
    sol = mode.solve(A, sp.Matrix(rhs), "velocity constraints")
    for s, v in zip(missing, sol):
        values[s] = v


# ----------------------------------------------------------------------------------------------
# the second-order form and eigenvalues
# ----------------------------------------------------------------------------------------------
def _second_order(lin: Linearization, coordinates) -> SecondOrder:
    p = lin._parts
    mode: _Mode = p["mode"]
    qr, qi, ui, m, k = p["qr"], p["qi"], p["ui"], p["m"], p["k"]
    M0, Rq, Ru, Rr = p["M0"], p["Rq"], p["Ru"], p["Rr"]
    Kq, Ku, Eq, Euq, Euu = p["Kq"], p["Ku"], p["Eq"], p["Euq"], p["Euu"]
    scale = p["scale"]
    u = lin.equations.u
    ind = [qr[j] for j in qi]
    if coordinates is None:
        sel = list(range(len(ind)))
    else:
        sel = []
        for c in as_sequence(coordinates, "coordinates"):
            s = c if isinstance(c, sp.Symbol) else next((x for x in ind if x.name == str(c)), None)
            if s not in ind:
                raise UnknownCoordinateError(f"{c!r} is not an independent coordinate of the linearization "
                                             f"({[x.name for x in ind]})")
            sel.append(ind.index(s))
    rest = [j for j in range(len(ind)) if j not in sel]
    N = M0.rows
    # project the rows onto the independent speeds (removes the multipliers)
    P = Euu.T
    if k:
        if N != m + k:
            raise NotAdaptedError("cannot project out the multipliers: rows and speeds do not pair up")
        P = P.row_join(sp.zeros(len(ui), k))
        lamcols = P * M0[:, m:]
        if not all(mode.zero(x, scale) for x in lamcols):
            raise NotAdaptedError("the admissible directions do not annihilate the reactions at the operating "
                                  "point; the second-order form needs Chetaev-ideal multiplier rows")
    Mu = M0[:, :m]
    Mp = P * Mu * Euu
    Dp = P * Mu * Euq
    Cp = -P * Ru * Euu
    Kp = -P * (Rq * Eq + Ru * Euq)
    Bp = P * Rr
    # linearized kinematics of the independent coordinates, δq̇ = H δq + G δu; the rates of
    # the coordinates in Dp δq̇ (dependent speeds that follow coordinates) are replaced by it
    rows_i = [qr.index(x) for x in ind]
    Hall = (Kq * Eq + Ku * Euq).extract(rows_i, list(range(len(qi))))
    Gall = (Ku * Euu).extract(rows_i, list(range(len(ui))))
    Kp = Kp + Dp * Hall
    Cp = Cp + Dp * Gall
    G = Gall.extract(sel, list(range(len(ui))))
    s_cols = [c for c in range(len(ui)) if not all(mode.zero(x, scale) for x in G.col(c))]
    o_cols = [c for c in range(len(ui)) if c not in s_cols]
    if len(s_cols) != len(sel):
        raise NotAdaptedError(f"the coordinates {[ind[j].name for j in sel]} are carried by "
                              f"{len(s_cols)} speeds {[u[ui[c]].name for c in s_cols]}; the second-order form "
                              "needs as many speeds as coordinates")
    Gs = G.extract(list(range(len(sel))), s_cols)
    H = Hall.extract(sel, list(range(len(qi))))
    for a in range(len(sel)):
        for j in rest:
            if not mode.zero(H[a, j], scale):
                raise NotAdaptedError(f"the rate of {ind[sel[a]].name} depends on {ind[j].name}; include it")
    Hs = H.extract(list(range(len(sel))), sel)
    # Schur complement: eliminate the speeds that carry none of the coordinates
    ss = s_cols
    if o_cols:
        Moo = Mp.extract(o_cols, o_cols)
        Mso = Mp.extract(ss, o_cols)
        W = mode.solve(Moo.T, Mso.T, "mass matrix block of the other speeds").T
        T = sp.zeros(len(ss), Mp.rows)
        for a, r in enumerate(ss):
            T[a, r] = 1
            for b, c in enumerate(o_cols):
                T[a, c] = -W[a, b]
    else:
        T = sp.eye(Mp.rows).extract(ss, list(range(Mp.rows)))
    Meff = (T * Mp).extract(list(range(len(ss))), ss)
    Ceff_all = T * Cp
    for a in range(len(ss)):
        for c in o_cols:
            if not mode.zero(Ceff_all[a, c], scale):
                raise NotAdaptedError(f"the speed {u[ui[c]].name} enters the equations of "
                                      f"{[ind[j].name for j in sel]} at first order; the second-order form in "
                                      "these coordinates does not close (use A)")
    Kt = T * Kp
    for a in range(len(ss)):
        for j in rest:
            if not mode.zero(Kt[a, j], scale):
                raise NotAdaptedError(f"the coordinate {ind[j].name} enters the equations of "
                                      f"{[ind[x].name for x in sel]}; include it in the coordinates")
    Ceff = Ceff_all.extract(list(range(len(ss))), ss)
    Gi = mode.solve(Gs, sp.eye(len(ss)), "kinematics of the coordinates")
    cols = list(range(len(sel)))
    M2 = Meff * Gi
    C2 = Ceff * Gi - Meff * Gi * Hs
    K2 = Kt.extract(cols, sel) - Ceff * Gi * Hs
    F2 = T * Bp
    # orient the rows so that the mass matrix has a positive diagonal (Kane's rows
    # F_r + F*_r = 0 are the negatives of the others)
    diag = [mode.numeric(sp.Matrix([[M2[i, i]]]))[0][0] for i in range(M2.rows)]
    if diag and all(d < 0 for d in diag):
        M2, C2, K2, F2 = -M2, -C2, -K2, -F2
    M2, C2, K2, F2 = (X.applyfunc(_cancel_if_small) if lin.symbolic else drop_roundoff(X) for X in (M2, C2, K2, F2))
    return SecondOrder(M2, C2, K2, F2, tuple(ind[j] for j in sel), tuple(u[ui[c]] for c in ss), lin.inputs)


def eigenvalues(A, *, high_precision: bool = False):
    """Eigenvalues of a square matrix (sympy with numeric entries, mpmath or numpy), computed
    by mpmath at PRECISION digits and sorted by real part (then imaginary part); real and
    imaginary parts below 10^(−PRECISION/2) of the matrix's scale are round-off and set to 0.
    Returns a numpy complex array, or with ``high_precision=True`` a list of mpmath numbers
    (mpf for the real eigenvalues of a real matrix)."""
    import numpy as np
    if isinstance(A, sp.MatrixBase):
        free = set().union(*(e.free_symbols for e in A)) if A else set()
        if free:
            raise MissingValueError(f"A has symbols {sorted(map(str, free))}; give their values")
        rows, cols = A.shape
        entries = [[_mpf(A[i, j]) for j in range(cols)] for i in range(rows)]
    elif isinstance(A, mpmath.matrix):
        rows, cols = A.rows, A.cols
        entries = [[A[i, j] for j in range(cols)] for i in range(rows)]
    elif isinstance(A, np.ndarray) and A.dtype.kind in "iufc":
        arr = A
        if arr.ndim != 2:
            raise DimensionError(f"eigenvalues of an array of shape {arr.shape}")
        rows, cols = arr.shape
        entries = [[mpmath.mpmathify(arr[i, j]) for j in range(cols)] for i in range(rows)]
    else:
        return eigenvalues(as_matrix(A, what="A"), high_precision=high_precision)
    if rows != cols:
        raise DimensionError(f"eigenvalues of a {rows}x{cols} matrix")
    if rows == 0:
        return [] if high_precision else np.zeros(0, dtype=complex)
    with mpmath.workdps(precision()):
        ev = mpmath.eig(mpmath.matrix(entries), left=False, right=False)
        real = all(not isinstance(x, mpmath.mpc) or x.imag == 0 for r in entries for x in r)
        tol = mpmath.mpf(10) ** (-(precision() // 2)) * (1 + max(abs(x) for r in entries for x in r))
        out = []
        for e in ev:
            e = mpmath.mpmathify(e)
            re, im = mpmath.re(e), mpmath.im(e)
            re = mpmath.mpf(0) if abs(re) <= tol else re
            im = mpmath.mpf(0) if abs(im) <= tol else im
            out.append(re if (real and im == 0) else mpmath.mpc(re, im))
        out.sort(key=lambda z: (float(mpmath.re(z)), float(mpmath.im(z))))
    if high_precision:
        return out
    return np.array([complex(z) for z in out])
