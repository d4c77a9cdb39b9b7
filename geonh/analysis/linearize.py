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

On the compiled route a further operating point of a kind seen before (the same keys, inputs
and options) replays the structure the stages decided, in numpy, each decision checked at the
point (``_repeat_point``; docs/linearization.md, "Repeated operating points").

:meth:`Linearization.second_order` gives the M, C, K form M δq̈ + C δq̇ + K δq = F δr in
chosen coordinates; :func:`eigenvalues` (and :meth:`Linearization.eigenvalues`) the spectrum.
An operating point that is not a steady motion, or that violates a constraint, raises
:class:`~geonh.errors.InconsistentStateError` naming the residual.
"""
from __future__ import annotations

import math
import random
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Mapping, Sequence, cast

import mpmath
from mpmath.libmp import from_float as _from_float
import sympy as sp

from ..equations.base import register_method
from .conserved import SymmetryError, check_symmetry
from ..numerics.export import matrices_to_c, matrices_to_casadi, matrices_to_jax
from ..errors import (DimensionError, InconsistentStateError, MissingValueError, NotAdaptedError, ParseError,
                      SingularMapError, UnknownCoordinateError)
from ..kernel.evaluation import check_assumptions, precision, resolve_keys, symbols_in, to_mp
from ..kernel.parsing import as_expr, as_float, as_mapping, as_matrix, as_sequence, sympy_of
from ..kernel.display import latex, matrix_latex, short_numbers, short_text
from ..kernel.generic_point import is_zero, lu_solve
from ..kernel.jets import Jet, jacobian_at
from ..kernel.linalg import Echelon, drop_roundoff, eliminate
from ..kernel.sampling import GENERIC_SPAN, OFFSET_SPAN, random_values, sample_points

if TYPE_CHECKING:  # annotations only: Equations.linearize calls in here, so no import back at run time
    from ..systems.mechanical import MechanicalSystem
    from ..equations.base import Equations

__all__ = ["Linearization", "SecondOrder", "linearize", "eigenvalues", "jacobian_at", "state_generator"]


# ----------------------------------------------------------------------------------------------
# numbers and derivatives at the point (forward-mode differentiation: geonh.kernel.jets)
# ----------------------------------------------------------------------------------------------
def _mpf(x):
    """A number at PRECISION digits (:func:`geonh.kernel.evaluation.to_mp`: ValueError naming
    the symbols without a value, SingularMapError where it is singular)."""
    return mpmath.mpmathify(to_mp(x))


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
            jet = Jet.gradient(pt, cand)
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


# ----------------------------------------------------------------------------------------------
# the compiled route: values and exact Jacobian of the equations, compiled once
# ----------------------------------------------------------------------------------------------
#: zero tolerance (relative) of the decisions on compiled double-precision values: the rule of
#: drop_roundoff (the last third of the digits is round-off) at 15 digits, 10^(−2·15/3)
COMPILED_TOL = 1e-10


class _CompiledUnavailable(Exception):
    """The compiled route cannot take these equations (symengine cannot compile them, or the
    fallback code fails to evaluate them): :func:`_linearize` takes the PRECISION-digit route."""


def _fnum(x: float):
    """A double as a sympy Float of 15 digits (the digits it carries): ``sp.Float(x)``, built
    from its binary digits directly (``Float._new``, as sympy's own arithmetic does; 40 % of
    ``sp.Float``'s time, the same number)."""
    return sp.S.Zero if x == 0 else sp.Float._new(_from_float(x), 53)


class _CompiledJets:
    """[K; r; f; g] (every kinematics row, the residuals r = M x − F, the holonomic and velocity
    constraints of :class:`_Read`) and their exact Jacobian with respect to w = (q, u, inputs,
    x), compiled once as ONE function of values and Jacobian
    (:func:`geonh.numerics.codegen.compile_function` with ``jet``: forward mode on the shared
    expression graph, not differences; LLVM at opt_level 0, whose build is several times
    cheaper than -O3's and whose code is fast enough for a sweep) in the arguments
    (w, the other symbols sorted by name).  :meth:`at` gives what :func:`_derivatives` gives,
    in double precision; :meth:`dependence` what :func:`_genuine_dependence` gives."""

    def __init__(self, read: _Read, inputs: tuple):
        from ..numerics.cache import cached_compile
        from ..numerics.codegen import CompiledFunction, compile_function
        self.n, self.m, self.N = len(read.q), len(read.u), len(read.residuals)
        self.nh, self.ng = len(read.holonomic), len(read.velocity)
        self.q, self.u, self.inputs, self.xs = read.q, read.u, inputs, read.unknowns
        exprs = [sympy_of(e) for e in read.kinematics + read.residuals + read.holonomic + read.velocity]
        wrt = tuple(read.q) + tuple(read.u) + tuple(inputs) + tuple(read.unknowns)
        others = sorted(symbols_in(exprs, read.memo) - set(wrt), key=lambda s: (s.name, sp.srepr(s)))
        self.args = wrt + tuple(others)
        self.nw = len(wrt)
        from ..numerics.codegen import llvm_available
        try:
            self.jet = cached_compile(("linearize-jet", exprs, self.args, wrt),
                                      lambda: compile_function(exprs, self.args, what="the equations", wrt=wrt,
                                                               jet=True, opt_level=0),
                                      CompiledFunction.of_lambdify)
        except Exception as exc:  # noqa: BLE001 - what cannot be compiled takes the exact route
            raise _CompiledUnavailable(str(exc)) from None
        if llvm_available() and self.jet.backend != "llvm":
            raise _CompiledUnavailable("symengine cannot compile these equations")
        self.rows = len(exprs)

    def both(self, a):
        """(values, Jacobian) at the argument vector ``a`` (one call of the compiled jet)."""
        out = self.jet(a)
        k = self.rows
        return out[:k], out[k:].reshape(k, self.nw)

    def _eval(self, a):
        """:meth:`both`; what fails to evaluate takes the exact route."""
        try:
            return self.both(a)
        except Exception as exc:  # noqa: BLE001 - e.g. DiracDelta in numpy code: the exact route
            raise _CompiledUnavailable(str(exc)) from None

    def _vector(self, values: Mapping):
        """The argument vector (NaN where a value is missing) and the missing symbols."""
        import numpy as np
        a = np.empty(len(self.args))
        missing = []
        for i, s in enumerate(self.args):
            v = values.get(s)
            try:
                a[i] = float(v) if v is not None else np.nan
            except (TypeError, ValueError):
                a[i] = np.nan
            if not np.isfinite(a[i]):
                missing.append(s)
        return a, missing

    def at(self, values: Mapping, retained: Sequence[int]):
        """(values, gradient rows, every K value) at ``values``, as :func:`_derivatives` gives
        them for Kr + r + f + g with respect to (q_r, u, inputs, x): sympy Floats."""
        import numpy as np
        a, missing = self._vector(values)
        val, J = self._eval(a)
        n = self.n
        rows = list(retained) + list(range(n, n + self.N + self.nh + self.ng))
        cols = list(retained) + list(range(n, self.nw))
        v, G = val[rows], J[np.ix_(rows, cols)]
        if not (np.isfinite(v).all() and np.isfinite(G).all()):
            if missing:
                raise MissingValueError(f"give values for {sorted(map(str, missing))} in the operating point "
                                        "(or linearize with symbolic=True)")
            raise SingularMapError("the equations have no finite value or derivative at the operating point")
        K_all = [_fnum(float(x)) if np.isfinite(x) else None for x in val[:n]]
        return ([_fnum(float(x)) for x in v], [[_fnum(float(x)) for x in r] for r in G], K_all)

    def dependence(self, values: Mapping) -> list[set]:
        """:func:`_genuine_dependence` of the groups [r, f + g, K_1, …, K_n] on the coordinates:
        a coordinate belongs to a group when a derivative of the group by it is non-zero
        (above COMPILED_TOL relative) at a random point near the operating point — coordinates
        and speeds offset from their values, the other symbols at their values or generic."""
        import numpy as np
        rng = random.Random(20240601)
        a = np.empty(len(self.args))
        for i, s in enumerate(self.args):
            v = values.get(s)
            try:
                base = float(v) if v is not None else None
            except (TypeError, ValueError):
                base = None
            if s in self.q or s in self.u:
                a[i] = (base or 0.0) + float(random_values(rng, (s,), span=OFFSET_SPAN)[s])
            elif base is not None:
                a[i] = base
            else:
                a[i] = float(random_values(rng, (s,), span=GENERIC_SPAN)[s])
        return self.dependence_of(self._eval(a)[1])

    def dependence_of(self, jacobian) -> list[set]:
        """:meth:`dependence` from the Jacobian at the offset point."""
        D = self.dependence_matrix(jacobian)
        return [{self.q[j] for j in range(self.n) if D[g, j]} for g in range(D.shape[0])]

    def dependence_matrix(self, jacobian):
        """The dependence sets as a boolean array (groups × coordinates): a group's largest
        |derivative| by the coordinate above COMPILED_TOL · (1 + the group's largest), NaN
        counted as a dependence."""
        import numpy as np
        n, N = self.n, self.N
        J = np.abs(jacobian[:, :n])
        out = np.empty((2 + n, n), dtype=bool)
        for k, g in enumerate((slice(n, n + N), slice(n + N, n + N + self.nh + self.ng))):
            block = J[g]
            if block.size:
                big = float(block.max()) if np.isfinite(block).all() else 0.0
                out[k] = ~(block.max(axis=0) <= COMPILED_TOL * (1 + big))
            else:
                out[k] = False
        K = J[:n]
        if n:
            rows_big = np.where(np.isfinite(K).all(axis=1), K.max(axis=1), 0.0)
            out[2:] = ~(K <= COMPILED_TOL * (1 + rows_big)[:, None])
        return out


#: {id(equations): (weak reference, the cached _Read, {inputs: _CompiledJets})}
_COMPILED: dict[int, tuple[Any, _Read, dict]] = {}


def _entry(equations: Equations) -> tuple[Any, _Read, dict]:
    """The in-memory cache entry of ``equations`` (dropped when they are garbage)."""
    import weakref
    key = id(equations)
    hit = _COMPILED.get(key)
    if hit is not None and hit[0]() is equations:
        return hit
    def drop(_ref: Any, key: int = key) -> None:
        _COMPILED.pop(key, None)

    entry: tuple[Any, _Read, dict] = (weakref.ref(equations, drop), _read_equations(equations), {})
    _COMPILED[key] = entry
    return entry


def _read_cached(equations: Equations) -> _Read:
    """``_read_equations``, once per equations object (and its symbols_in memo with it)."""
    return _entry(equations)[1]


def _compiled_jets(equations: Equations, read: _Read, inputs: tuple) -> _CompiledJets:
    """The ``_CompiledJets`` of ``equations`` with these inputs, compiled at the first
    request and kept as long as the equations live (a sweep over speeds compiles once)."""
    jets = _entry(equations)[2]
    hit = jets.get(inputs)
    if hit is None:
        hit = jets[inputs] = _CompiledJets(read, inputs)
    return hit


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
    _parts: _Parts | _NumericParts = field(repr=False, compare=False)   # what second_order needs of the stages
    #: on a relative equilibrium (``generators=`` of :func:`linearize`): ξ, the Lie algebra element
    #: whose generator is the velocity, q̇ = ξ_Q(q); () otherwise
    xi: tuple = ()
    #: the group coordinates replaced by the orbit directions (reduced linearization); () otherwise
    group: tuple = ()

    def __repr__(self) -> str:
        """Shapes, the state and A with 6 significant digits (never the PRECISION-digit numbers
        nor the equations); under 1,000 characters."""
        def names(xs, most=10):
            xs = [str(x) for x in xs]
            return "[" + ", ".join(xs[:most]) + (f", … ({len(xs) - most} more)" if len(xs) > most else "") + "]"
        A = self.A
        if self.symbolic or A.rows > 6 or any(not e.is_number for e in A):
            a = f"A: {A.rows}x{A.cols} {'symbolic' if self.symbolic else 'matrix'}"
        else:
            a = "A=[" + ", ".join(short_numbers(A.row(i), 6) for i in range(A.rows)) + "]"
        text = (f"Linearization({self.equations.form}: state={names(self.state)}, {a}, "
                f"B: {self.B.rows}x{self.B.cols}, dependent={names(self.dependent)}, "
                f"ignorable={names(self.ignorable)})")
        return short_text(text, 999)

    def _repr_latex_(self) -> str:
        """Jupyter: δẏ = A δy (+ B δr), A and B with 6 significant digits."""
        rows = r" \\ ".join(rf"\delta {latex(s)}" for s in self.state)
        y = rf"\begin{{pmatrix}}{rows}\end{{pmatrix}}" if self.state else "()"
        out = rf"\dot{{\delta y}} = {matrix_latex(self.A)}\,\delta y"
        if self.B.cols:
            out += rf" + {matrix_latex(self.B)}\,\delta r"
        return rf"$$\delta y = {y},\quad {out}$$"

    def numpy(self):
        """(A, B) as numpy float arrays (every symbol must have a value)."""
        import numpy as np
        return (np.array(self.A.evalf(17), dtype=float).reshape(self.A.shape),
                np.array(self.B.evalf(17), dtype=float).reshape(self.B.shape))

    def to_casadi(self, *, name: str = "linearization"):
        """(``casadi.Function`` p → (A, B), parameter names): A and B as functions of the
        symbols left in them (a symbolic linearization: parameters, operating point), sorted
        by name (:func:`geonh.numerics.export.matrices_to_casadi`)."""
        return matrices_to_casadi({"A": self.A, "B": self.B}, name=name)

    def to_jax(self, *, enable_x64: bool = True):
        """(pure JAX function p → {"A": A, "B": B}, parameter names) (see :meth:`to_casadi`;
        :func:`geonh.numerics.export.matrices_to_jax`)."""
        return matrices_to_jax({"A": self.A, "B": self.B}, enable_x64=enable_x64)

    def to_c(self, *, name: str = "linearization"):
        """A self-contained C source ``void <name>(const double *p, double *A, double *B)``
        (A, B row-major; :func:`geonh.numerics.export.matrices_to_c`)."""
        return matrices_to_c({"A": self.A, "B": self.B}, name=name)

    def eigenvalues(self, values: Mapping | None = None, *, high_precision: bool = False):
        """Eigenvalues of A (``values`` for symbols left in a symbolic A); see :func:`eigenvalues`."""
        A = self.A
        if values is not None:
            values = as_mapping(values, "values")
        if values:
            known = set(self.equations.value_symbols) | symbols_in(A)
            A = A.xreplace({s: as_expr(v, what=f"value of {s}")
                            for s, v in resolve_keys(values, known, what="eigenvalue values").items()})
        if isinstance(self._parts, _NumericParts) and not values and not high_precision:
            return _eigenvalues_of_array(self._parts.A)
        if self._parts.mode.compiled and not high_precision:
            return _double_eigenvalues(A)
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
        are oriented so that M has a positive diagonal.

        Coordinates that drift on a steady motion (a rolling vehicle's position and heading)
        stay in the state under the default ``ignorable=()`` of :func:`linearize`, and the
        second-order form then does not close: linearize with ``ignorable="auto"`` (the error
        says so)."""
        if self.xi:
            raise NotAdaptedError("a linearization reduced by a symmetry (generators=) has no second-order form "
                                  "in coordinates; use A (its state is the shape and the invariant speeds)")
        try:
            return _second_order(self, coordinates)
        except NotAdaptedError as exc:
            moving = [x.name for x in self.drift if x in self.state]
            if not moving:
                raise
            raise NotAdaptedError(f"{exc}; the coordinates {moving} drift on this steady motion and stay in the "
                                  "state: linearize with ignorable=\"auto\" to leave out every coordinate that "
                                  "no retained row depends on (or name them in ignorable=[...])") from None


# ----------------------------------------------------------------------------------------------
# linear algebra in the two modes (sympy matrices throughout; numeric solves by mpmath)
# ----------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class _Mode:
    """Numeric (numbers at the working precision, mpmath solves) or symbolic (sympy, exact LU), with
    the relative zero tolerance of the numeric decisions."""

    symbolic: bool
    tol: Any
    compiled: bool = False          # derivatives from compiled double-precision code (_CompiledJets)

    @classmethod
    def of(cls, symbolic: bool, tol, compiled: bool = False) -> _Mode:
        """The mode; ``tol`` None: 10^(−precision()/3) at PRECISION digits, and
        COMPILED_TOL = 10^(−2·15/3) for compiled double-precision values (whose last third of
        digits is round-off)."""
        if tol is None:
            tol = COMPILED_TOL if compiled else mpmath.mpf(10) ** (-(precision() // 3))
        return cls(symbolic, mpmath.mpf(tol), compiled)

    def drop(self, X: sp.Matrix) -> sp.Matrix:
        """Round-off of a numeric matrix set to 0 (:func:`~geonh.kernel.linalg.drop_roundoff` at
        PRECISION digits; entries ≤ COMPILED_TOL · (1 + max |X_ij|) for compiled values)."""
        if not self.compiled or not X:
            return drop_roundoff(X)
        vals = [abs(float(x)) for x in X]
        cut = COMPILED_TOL * (1 + max(vals))
        return sp.Matrix(X.rows, X.cols, [x if v > cut else sp.S.Zero for x, v in zip(X, vals)])

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
        if self.compiled:               # double-precision numbers: one LAPACK solve
            import numpy as np
            Af = np.array([[float(x) for x in A.row(i)] for i in range(A.rows)])
            Bf = np.array([[float(x) for x in B.row(i)] for i in range(B.rows)]).reshape(B.rows, B.cols)
            try:
                X = np.linalg.solve(Af, Bf)
            except np.linalg.LinAlgError:
                raise SingularMapError(f"{what} is singular at the operating point") from None
            if not np.isfinite(X).all():
                raise SingularMapError(f"{what} is singular at the operating point")
            return sp.Matrix(A.rows, B.cols, [_fnum(float(v)) for v in X.ravel()])
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
# the linearization, in stages
# ----------------------------------------------------------------------------------------------
def linearize(equations: Equations, operating_point: Mapping, *, inputs: Sequence = (), symbolic: bool = False,
              exact: bool = False, ignorable: Sequence | str = (), dependent: Sequence = (),
              parameters: Mapping | None = None, tol=None, generators: Sequence | None = None,
              xi: Sequence | None = None) -> Linearization:
    """Linearize ``equations`` about an equilibrium or a steady motion (module docstring).

    Parameters
    ----------
    operating_point : {symbol or name: value} for the coordinates, the speeds (or the
        coordinate velocities q̇, from which the speeds follow by ``equations.speeds``), time
        and the parameters.  Missing values are completed where possible: ignorable
        coordinates are 0, dependent coordinates are solved from the holonomic constraints
        (numerically, from 0; with ``symbolic=True`` exactly, refused naming the solutions when
        there are several), dependent speeds of a multiplier form from the velocity
        constraints.  Keys are names or symbols (:meth:`Equations.resolve_values`: a symbol that
        differs from the equations' only in its assumptions is matched by name; a key that
        names no symbol of the equations or of the system is refused).
    inputs : symbols (or names) of forces/torques in the equations; B = ∂f/∂inputs at their
        operating values (default 0).
    symbolic : symbolic A, B (sympy derivatives; every symbol without a value stays) instead of
        numbers.
    exact : numbers with PRECISION digits (forward-mode automatic differentiation at the point,
        the route of certificates) instead of the default: the exact Jacobian of the equations
        compiled once per equations and inputs (``_CompiledJets``, cached in memory and
        on disk by :mod:`geonh.numerics.cache`) and evaluated in double precision, the small
        solves by LAPACK — the same A, B and state to about 1e-12 relative, thousands of times
        faster per operating point.
    ignorable : coordinates to leave out of the state, or "auto" for every coordinate that no
        retained row depends on.  The default () keeps every coordinate, drifting ones included
        (their columns of A are 0, and their drift is :attr:`Linearization.drift`); for the
        steady motion of a rolling vehicle pass "auto" — :meth:`Linearization.second_order`
        needs it, and the independent speeds are then chosen among the speeds that matter.
    dependent : coordinates and speeds (symbols or names) to eliminate on the constraints
        (default: chosen by pivoting, last coordinates first).
    parameters : more values, merged into ``operating_point``.
    tol : the zero tolerance of the numeric decisions (default 10^(−PRECISION/3) relative with
        ``exact=True``, COMPILED_TOL = 1e-10 on the compiled route).
    generators : infinitesimal generators X_1 … X_k of a symmetry group acting on Q (as for
        :func:`~geonh.analysis.conserved.check_symmetry`, which checks them): the operating
        point is then a *relative equilibrium* — q̇ = ξ_Q(q) = ξ^a X_a(q) for a constant ξ, the
        shape constant — in ANY form (Lagrange's too, where the contact velocities of a disk on a
        circle rotate), and the result is the linearization *reduced by the symmetry*: the
        equations seen from the group motion exp(tξ), ż = f(z) − ξ_TQ(z) (autonomous, the
        relative equilibrium an equilibrium of it; ξ_TQ the generator lifted to the state), on
        the quotient by the orbit directions X_a at the point (which the linear flow keeps: the
        orbit's tangent space is invariant, [η_TQ, f − ξ_TQ] = [ξ, η]_TQ).  Its state is the
        shape and the speeds (the group coordinates are cyclic and dropped,
        :attr:`Linearization.group`); frame forms and Lagrange's form give the same eigenvalues
        (:func:`geonh.analysis.steady.steady_motions`, docs/linearization.md "Relative
        equilibria").  Exact or symbolic (the compiled route is not used).
    xi : the Lie algebra element ξ (one value per generator); default: solved from
        K(q0, u0) = ξ^a X_a(q0), refused with :class:`InconsistentStateError` naming the
        coordinates whose velocity no ξ generates (the shape moves).

    A frame form whose equations are singular at the point although its frame is regular there
    (the frame's inverse, computed once by LU with pivots chosen at random points, may divide by
    sin θ where the true inverse does not: a removable singularity) is derived again in the same
    frame with its inverse's pivots chosen at the operating point, so that no pivot vanishes
    there, and that is linearized (:attr:`Linearization.equations`).  A frame singular at the
    point raises :class:`SingularMapError` saying so.

    The work is done in stages, each a function below with the formula it applies:
    ``_read_equations`` (M x = F, K, the constraints) → ``_given_point`` (the values
    and inputs) → ``_choose_ignorable`` (the retained coordinates) → ``_complete_point``
    (missing coordinates and speeds solved) → ``_differentiate`` (the jets: values and
    first derivatives of K, M x − F and the constraints at the point, x0 = M⁻¹F) →
    ``_steady_motion`` (consistency: constraints satisfied, speeds constant, the drift) →
    ``_speed_jacobian`` (∂u̇/∂y = M⁻¹ ∂(F − M x0)/∂y) → ``_tangent_space`` (dependent
    coordinates and speeds eliminated) → ``_assemble`` (A = P J E, B) → the
    :class:`Linearization` record.
    """
    from ..equations.base import Equations as _Equations
    if not isinstance(equations, _Equations):
        raise ParseError(f"linearize takes Equations, not {type(equations).__name__}")
    request = _Request(
        operating_point=as_mapping(operating_point, "operating point"),
        inputs=tuple(as_sequence(inputs, "inputs")),
        symbolic=symbolic,
        exact=bool(exact),
        ignorable="auto" if isinstance(ignorable, str) and ignorable == "auto"
        else tuple(as_sequence(ignorable, "ignorable")),
        dependent=tuple(as_sequence(dependent, "dependent")),
        parameters=as_mapping(parameters, "parameters") if parameters is not None else None,
        tol=as_float(tol, "tol", minimum=0) if tol is not None else None,
        generators=_generator_components(equations, generators) if generators is not None else (),
        xi=tuple(as_expr(x, what="xi") for x in as_sequence(xi, "xi")) if xi is not None else None)
    if request.xi is not None and not request.generators:
        raise ParseError("xi needs the generators of the symmetry (generators=[...])")
    if request.xi is not None and len(request.xi) != len(request.generators):
        raise DimensionError(f"xi has {len(request.xi)} values for {len(request.generators)} generators")
    if request.generators and request.ignorable:
        raise ParseError("a relative equilibrium (generators=) drops the group coordinates itself: "
                         "give no ignorable coordinates")
    try:
        return _linearize(equations, request)
    except SingularMapError as exc:
        regular = _regular_frame_equations(equations, request.operating_point, request.parameters, exc)
        if regular is None:
            raise
    return _linearize(regular, request)


@dataclass(frozen=True)
class _Request:
    """The arguments of :func:`linearize`, checked (stage 0)."""

    operating_point: Mapping
    inputs: tuple
    symbolic: bool
    exact: bool                     # PRECISION digits (jets) rather than compiled double precision
    ignorable: tuple | str          # coordinates (symbols or names), or "auto"
    dependent: tuple
    parameters: Mapping | None
    tol: float | None
    generators: tuple = ()          # fields on Q (component tuples) of a symmetry: a relative equilibrium
    xi: tuple | None = None         # its Lie algebra element, or None: solved from q̇ = ξ_Q(q)


@dataclass(frozen=True)
class _Read:
    """The equations as the linearization reads them (stage 1, ``_read_equations``)."""

    q: tuple                        # the coordinates
    u: tuple                        # the speeds
    unknowns: tuple                 # x = (u̇, λ)
    multipliers: int                # k, the number of multipliers λ
    residuals: list                 # r = M x − F
    kinematics: list                # K: q̇ = K(t, q, u)
    holonomic: list                 # f(q) = 0
    velocity: list                  # g = A K + b = 0 (forms whose speeds are not independent)
    memo: dict = field(repr=False, compare=False)   # the symbols_in cache the stages share
    derived: dict = field(default_factory=dict, repr=False, compare=False)  # per-equations results of stages


@dataclass(frozen=True)
class _Given:
    """The values given and the inputs (stage 2, ``_given_point``)."""

    values: Mapping                 # {symbol: sympy value}; inputs and t are 0 unless given
    inputs: tuple                   # the input symbols r
    by_name: Mapping                # {name: symbol} of every symbol of the equations


@dataclass(frozen=True)
class _Retained:
    """Which coordinates stay in the state (stage 3, ``_choose_ignorable``)."""

    speed_rows: frozenset           # coordinates M x = F genuinely depends on
    constraint_rows: frozenset      # coordinates the constraints genuinely depend on
    kinematics_of: tuple            # per coordinate: the coordinates its kinematics depend on
    ignorable: tuple                # coordinates left out of the state (drift allowed)
    retained: tuple                 # indices (into q) of the others
    named: tuple                    # the symbols named ``dependent``, in the order given


@dataclass(frozen=True)
class _AtPoint:
    """Values and first derivatives at the operating point y0 (stage 5, ``_differentiate``)."""

    variables: tuple                # y and r: retained coordinates, speeds, inputs
    K0: list                        # K(y0), retained rows
    dK: list                        # ∂K/∂(q_r, u, r), retained rows
    M0: sp.Matrix                   # M(y0)
    F0: sp.Matrix                   # F(y0)
    x0: sp.Matrix                   # x0 = M(y0)⁻¹ F(y0) = (u̇0, λ0)
    dR: list                        # ∂R/∂(q_r, u, r), R = F − M x0
    f0: list                        # f(y0)
    df: list                        # ∂f/∂(q_r, u, r)
    g0: list                        # g(y0)
    dg: list                        # ∂g/∂(q_r, u, r)
    scale: Any                      # max |entry| of M0, F0 (for relative zero tests)
    K_all: list | None = None       # K(y0), every row (compiled route; else ignorable rows by jets)


@dataclass(frozen=True)
class _Jacobian:
    """The Jacobian of f on (q_r, u, r) in blocks (stage 7, ``_speed_jacobian``)."""

    Rq: sp.Matrix                   # ∂R/∂q_r
    Ru: sp.Matrix                   # ∂R/∂u
    Rr: sp.Matrix                   # ∂R/∂r
    Kq: sp.Matrix                   # ∂K/∂q_r
    Ku: sp.Matrix                   # ∂K/∂u
    Kr: sp.Matrix                   # ∂K/∂r
    Ud: sp.Matrix                   # ∂u̇/∂(q_r, u, r) = (M0⁻¹ [Rq Ru Rr]) rows of u̇


@dataclass(frozen=True)
class _Tangent:
    """The independent variables and the embedding of their deviations (stage 8,
    ``_tangent_space``): δq_r = Eq δq_ind, δu = Euq δq_ind + Euu δu_ind."""

    dq: list                        # dependent coordinates (indices into q_r)
    du: list                        # dependent speeds (indices into u)
    qi: list                        # independent coordinates (indices into q_r)
    ui: list                        # independent speeds (indices into u)
    Eq: sp.Matrix
    Euq: sp.Matrix
    Euu: sp.Matrix


@dataclass(frozen=True)
class _Parts:
    """What :meth:`Linearization.second_order` needs of the stages."""

    mode: _Mode
    qr: list                        # the retained coordinates
    m: int                          # number of speeds
    k: int                          # number of multipliers
    M0: sp.Matrix
    x0: sp.Matrix
    scale: Any
    jacobian: _Jacobian
    tangent: _Tangent


def _linearize(equations: Equations, request: _Request) -> Linearization:
    """The linearization proper, stage by stage (:func:`linearize` adds the retry in a frame
    regular at the point): on compiled code unless ``symbolic`` or ``exact``, or when the
    equations cannot be compiled (:class:`_CompiledUnavailable`: then at PRECISION digits)."""
    if request.generators:
        return _relative_equilibrium(equations, request)
    if not request.symbolic and not request.exact:
        fast = _repeat_point(equations, request)
        if fast is not None:
            return fast
        try:
            return _stages(equations, request, True)
        except _CompiledUnavailable:
            pass
    return _stages(equations, request, False)


def _stages(equations: Equations, request: _Request, compiled: bool, read: _Read | None = None) -> Linearization:
    """The stages of :func:`_linearize`, the derivatives compiled or by jets (``read``: the
    equations as read, default those of ``equations``; the co-moving ones of a relative
    equilibrium)."""
    mode = _Mode.of(request.symbolic, request.tol, compiled)
    read = read if read is not None else _read_cached(equations)
    given = _given_point(equations, read, request)
    jets = _compiled_jets(equations, read, given.inputs) if compiled else None
    kept = _choose_ignorable(read, given, request, jets)
    values = _complete_point(equations, read, given, kept, mode)
    at = _differentiate(equations, read, kept, values, given.inputs, mode, jets)
    drift = _steady_motion(equations, read, kept, at, values, mode)
    jac = _speed_jacobian(equations, read, at, mode)
    tangent = _tangent_space(equations, read, kept, at, mode)
    A, B = _assemble(jac, tangent, len(read.u), bool(given.inputs), request.symbolic, mode)
    qr = [read.q[i] for i in kept.retained]
    u = read.u
    if jets is not None and read is _read_cached(equations):
        _record_plan(equations, read, request, given, jets, kept, values, tangent)
    return Linearization(
        A, B,
        state=tuple(qr[j] for j in tangent.qi) + tuple(u[j] for j in tangent.ui),
        inputs=given.inputs,
        dependent=tuple(qr[j] for j in tangent.dq) + tuple(u[j] for j in tangent.du),
        ignorable=kept.ignorable, drift=drift,
        operating_point={s: v for s, v in values.items() if v is not None},
        equations=equations, symbolic=request.symbolic,
        _parts=_Parts(mode, qr, len(u), read.multipliers, at.M0, at.x0, at.scale, jac, tangent))


# ----------------------------------------------------------------------------------------------
# relative equilibria: the equations seen from the group motion, reduced by the orbit
# ----------------------------------------------------------------------------------------------
def _generator_components(equations: Equations, generators) -> tuple:
    """The generators as component tuples over q, checked to be a symmetry of the system
    (:func:`~geonh.analysis.conserved.check_symmetry`: T, V and the constraint distribution
    invariant), once per equations and generators."""
    system = equations.system
    from ..systems.mechanical import MechanicalSystem as _MS
    if not isinstance(system, _MS):
        raise ParseError(f"a symmetry acts on a MechanicalSystem; these {equations.form} equations are of a "
                         f"{type(system).__name__}")
    fields = check_symmetry(system, as_sequence(generators, "generators"))
    n = len(equations.space.q)
    return tuple(tuple(X.components[:n]) for X in fields)


def state_generator(equations: Equations, components: Sequence) -> tuple[list, list]:
    """The generator X = X^i ∂_{q^i} of a symmetry lifted to the state (q, u) of ``equations``:
    (the q-part X^i(q), the u-part) with, for speeds u = s(t, q, q̇) (``equations.speeds``),

        X_u = ∂s/∂q · X + ∂s/∂q̇ · (∂X/∂q q̇),   q̇ = K(t, q, u)

    — the tangent lift X^T = X^i ∂_{q^i} + ∂_j X^i q̇^j ∂_{q̇^i} (Marsden & Ratiu 1999) written in
    the speeds of the form (for Lagrange's, u = q̇, the lift itself)."""
    S = equations.space
    q, qd = list(S.q), list(S.qd)
    comps = [sympy_of(as_expr(c, S.state_symbols, what="generator component"))
             for c in as_sequence(components, "generator components")]
    if len(comps) != len(q):
        raise DimensionError(f"a generator on Q needs {len(q)} components, got {len(comps)}")
    lift = [sum((sp.diff(c, q[j]) * qd[j] for j in range(len(q))), sp.S.Zero) for c in comps]
    to_u = {a: b for a, b in zip(qd, equations.kinematics) if a != b}
    out = []
    for s in equations.speeds:
        s = sympy_of(s)
        e = sum((sp.diff(s, q[i]) * comps[i] for i in range(len(q)) if comps[i] != 0), sp.S.Zero)
        e += sum((sp.diff(s, qd[i]) * lift[i] for i in range(len(q)) if lift[i] != 0), sp.S.Zero)
        out.append(e.xreplace(to_u) if to_u else e)
    return comps, out


def _co_moving_read(equations: Equations, read: _Read, xi_q: Sequence, xi_u: Sequence) -> _Read:
    """The equations seen from the group motion exp(tξ): q̇ = K − ξ_Q, and the speed rows with
    u̇ replaced by u̇ + ξ_u (M (u̇ + ξ_u) = F, so u̇ = a − ξ_u); the constraints unchanged
    (invariant under the symmetry, so conserved by the co-moving flow too)."""
    shift = {ud: ud + e for ud, e in zip(read.unknowns, xi_u) if e != 0}
    res = [r.xreplace(shift) if shift else r for r in read.residuals]
    kin = [k - x for k, x in zip(read.kinematics, xi_q)]
    return _Read(read.q, read.u, read.unknowns, read.multipliers, res, kin, read.holonomic, read.velocity, {})


def _relative_equilibrium(equations: Equations, request: _Request) -> Linearization:
    """:func:`linearize` with ``generators``: ξ at the point (given or solved from
    K(y0) = ξ^a X_a(q0)), the co-moving equations linearized at y0 (an equilibrium of them),
    then the quotient by the orbit directions V = [X_a lifted to the state] at y0:
    with T = [V W] (W unit vectors of the shape coordinates and speeds that complete V),
    T⁻¹ A T = [[*, *], [0, A_red]] and A_red is the reduced linearization."""
    read = _read_cached(equations)
    mode = _Mode.of(request.symbolic, request.tol, False)
    q, u = read.q, read.u
    gens = request.generators
    lifted = [state_generator(equations, X) for X in gens]
    # the completed point (every coordinate retained; dependent speeds from the constraints)
    given = _given_point(equations, read, request)
    everything = _Retained(frozenset(), frozenset(), tuple(frozenset() for _ in q), (), tuple(range(len(q))), ())
    values = _complete_point(equations, read, given, everything, mode)
    missing = [x.name for x in q if x not in values]
    if missing:
        raise MissingValueError(f"give values for the coordinates {missing} (the point of the relative equilibrium)")
    sub = {s: v for s, v in values.items() if v is not None}
    Xm = sp.Matrix(len(q), len(gens), lambda i, a: sympy_of(gens[a][i]).xreplace(sub))
    K0 = sp.Matrix([sympy_of(k).xreplace(sub) for k in read.kinematics])
    scale = max([abs(_mpf(x)) for x in list(Xm) + list(K0) if not x.free_symbols] + [1])
    if request.xi is not None:
        xi = sp.Matrix([sympy_of(x).xreplace(sub) for x in request.xi])
    else:
        rows = _rank_columns(mode, Xm.T, list(range(len(q))))
        if len(rows) < len(gens):
            raise SingularMapError(f"the generators are dependent at the point (rank {len(rows)} < {len(gens)}): "
                                   "the action is not free there; give xi=[...]")
        xi = mode.solve(Xm.extract(rows, list(range(len(gens)))), K0.extract(rows, [0]), "generators at the point")
    rest = K0 - Xm * xi
    moving = [f"{q[i].name}' = {_show(rest[i])}" for i in range(len(q)) if not mode.zero(rest[i], scale)]
    if moving:
        raise InconsistentStateError(
            "the operating point is not a relative equilibrium of this symmetry: the velocity is not "
            f"ξ_Q(q) = ξ^a X_a(q) for ξ = {[_show(x) for x in xi]} (" + ", ".join(moving)
            + "; the shape must stay constant and the group velocity be the generator of one ξ)")
    xi_q = [sum((xi[a] * sympy_of(gens[a][i]) for a in range(len(gens))), sp.S.Zero) for i in range(len(q))]
    xi_u = [sum((xi[a] * lifted[a][1][j] for a in range(len(gens))), sp.S.Zero) for j in range(len(u))]
    co = _co_moving_read(equations, read, xi_q, xi_u)
    try:
        full = _stages(equations, request, False, read=co)
    except InconsistentStateError as exc:
        raise InconsistentStateError(f"not a relative equilibrium with ξ = {[_show(x) for x in xi]}: in the frame "
                                     f"moving with exp(tξ), {exc}") from None
    return _reduce_by_orbit(full, lifted, q, u, mode, tuple(xi))


def _reduce_by_orbit(full: Linearization, lifted: list, q: tuple, u: tuple, mode: _Mode, xi: tuple) -> Linearization:
    """The quotient of the co-moving linearization by the orbit directions (see
    :func:`_relative_equilibrium`); the state keeps the shape coordinates and the speeds."""
    parts = cast(_Parts, full._parts)
    op = full.operating_point
    state = list(full.state)
    index = {s: i for i, s in enumerate(state)}
    V = sp.zeros(len(state), len(lifted))
    for a, (xq, xu) in enumerate(lifted):
        for s, e in list(zip(q, xq)) + list(zip(u, xu)):
            if s in index:
                V[index[s], a] = sympy_of(e).xreplace(op)
    group = {q[i] for i in range(len(q)) if any(sympy_of(xq[i]) != 0 for xq, _ in lifted)}
    speeds, coords = set(u), set(q)
    order = ([i for i, s in enumerate(state) if s in speeds]
             + [i for i, s in enumerate(state) if s in coords and s not in group]
             + [i for i, s in enumerate(state) if s in group])
    # the orbit directions first, then unit vectors that complete them: speeds and shape first
    k = len(lifted)
    cols = _rank_columns(mode, V.row_join(sp.eye(len(state))), list(range(k)) + [k + i for i in order])
    if len(cols) != len(state) or cols[:k] != list(range(k)):
        raise SingularMapError("the orbit directions are dependent at the point: the action is not free there")
    W = sorted(c - k for c in cols[k:])
    T = V.row_join(sp.Matrix(len(state), len(W), lambda i, c: 1 if i == W[c] else 0))
    AT = mode.solve(T, full.A * T, "orbit directions and their complement")
    BT = mode.solve(T, full.B, "orbit directions and their complement") if full.B.cols else sp.zeros(len(state), 0)
    low = AT[k:, :k]
    if not all(mode.zero(x, parts.scale) for x in low):
        raise SymmetryError("the orbit directions are not invariant under the linear flow at the point: the "
                            "generators are not a symmetry of these equations")
    A, B = AT[k:, k:], BT[k:, :]
    if full.symbolic:
        A, B = A.applyfunc(_cancel_if_small), B.applyfunc(_cancel_if_small)
    else:
        A, B = mode.drop(A), mode.drop(B)
    kept = tuple(state[i] for i in W)
    dropped = tuple(s for s in state if s not in kept)
    drift = {q[i]: sum((xi[a] * sympy_of(lifted[a][0][i]).xreplace(op) for a in range(k)), sp.S.Zero)
             for i in range(len(q)) if q[i] in group}
    drift = {s: v for s, v in drift.items() if not mode.zero(v, 1)}
    return Linearization(A, B, state=kept, inputs=full.inputs, dependent=full.dependent,
                         ignorable=tuple(s for s in dropped if s in set(q)), drift=drift,
                         operating_point=full.operating_point, equations=full.equations, symbolic=full.symbolic,
                         _parts=parts, xi=xi, group=dropped)


def _read_equations(equations: Equations) -> _Read:
    """Stage 1: the equations as residuals r = M(t, q, u) x − F(t, q, u), x = (u̇, λ), square
    in x (N = m + k rows); the kinematics q̇ = K(t, q, u); the holonomic constraints f(q) = 0
    of the system; and, for a form with multipliers, the velocity constraints on the motion,
    g = A(q) K(t, q, u) + b(t, q) (A the constraint matrix, b its time column), which the flow
    conserves (module docstring)."""
    S = equations.space
    q, u = S.q, tuple(equations.u)
    n, m = len(q), len(u)
    k = len(tuple(equations.lam_vec))
    unknowns = tuple(equations.unknowns)
    res = [sympy_of(r) for r in equations.residuals]
    Kin = list(equations.kinematics)
    if len(res) != m + k:
        raise DimensionError(f"linearize needs a square system in (u̇, λ): {len(res)} equations, {m} speeds and "
                             f"{k} multipliers")
    system = equations.system
    hol = [sympy_of(f) for f in getattr(system, "holonomic", ())]
    gexprs: list = []
    if k:
        cod = getattr(system, "constraints", None)
        if cod is not None and getattr(cod, "forms", None):
            Cm = cod.matrix()
            for r in range(Cm.rows):
                e = sum((Cm[r, i] * Kin[i] for i in range(n) if Cm[r, i] != 0), sp.S.Zero)
                if S.t is not None:
                    e += Cm[r, n]
                gexprs.append(e)
    return _Read(q, u, unknowns, k, res, Kin, hol, gexprs, {})


def _given_point(equations: Equations, read: _Read, request: _Request) -> _Given:
    """Stage 2: the values given ({symbol: sympy value}, keys by :meth:`Equations.resolve_values`;
    ``operating_point`` over ``parameters``; a float at its shortest decimal, 0.1 = 1/10), each
    checked against its symbol's assumptions; the inputs r resolved to symbols of the equations
    (not coordinates or speeds), 0 unless given; time 0 unless given."""
    S = equations.space
    q, u = read.q, read.u
    if "universe" not in read.derived:      # depends on the equations only: once per _Read
        universe: set = set(q) | set(u) | set(S.qd) | ({S.t} if S.t is not None else set())
        universe |= symbols_in(read.residuals + read.kinematics + read.holonomic + read.velocity, read.memo)
        universe -= set(read.unknowns)
        read.derived["universe"] = (frozenset(universe), {s.name: s for s in universe})
    universe, by_name = read.derived["universe"]
    values: dict = {}
    given = {**equations.resolve_values(request.parameters, "linearize parameters"),
             **equations.resolve_values(request.operating_point, "operating point")}
    for s, val in given.items():
        # a float (numpy's too) is taken at its shortest decimal: 0.1 is 1/10 (finite only)
        values[s] = (sp.Rational(repr(as_float(val, f"operating-point value of {s}"))) if isinstance(val, float)
                     else as_expr(val, universe, what=f"operating-point value of {s}"))
        check_assumptions(s, values[s], "operating-point value")
    inputs = tuple(x if isinstance(x, sp.Symbol) else by_name.get(str(x), None) for x in request.inputs)
    if any(x is None for x in inputs):
        raise UnknownCoordinateError("an input is not a symbol of the equations")
    for x in inputs:
        if x in set(q) | set(u):
            raise DimensionError(f"input {x} is a coordinate or speed")
        values.setdefault(x, sp.S.Zero)
    if S.t is not None:
        values.setdefault(S.t, sp.S.Zero)
    return _Given(values, inputs, by_name)


def _choose_ignorable(read: _Read, given: _Given, request: _Request, jets: _CompiledJets | None = None) -> _Retained:
    """Stage 3: the coordinates each group of rows genuinely depends on (a non-zero derivative
    at a point near the operating point, :func:`_genuine_dependence`), and the ignorable
    coordinates: named ones must appear in no retained row (M x = F, a constraint, the
    kinematics of a retained coordinate); "auto" takes the largest such set (coordinates no
    row depends on, then removing those a retained kinematics depends on until none is)."""
    q, u, Kin = read.q, read.u, read.kinematics
    n = len(q)
    groups = [read.residuals, read.holonomic + read.velocity] + [[e] for e in Kin]
    dep_sets = (jets.dependence(given.values) if jets is not None
                else _genuine_dependence(groups, q, u, given.values, read.memo))
    speed_rows, cons_rows, kin_syms = dep_sets[0], dep_sets[1], dep_sets[2:]
    fixed = speed_rows | cons_rows
    named = tuple(dict.fromkeys(d if isinstance(d, sp.Symbol) else given.by_name.get(str(d))
                                for d in request.dependent))
    if None in named:
        raise UnknownCoordinateError(f"dependent {list(request.dependent)!r} names a symbol the equations do not have")
    if request.ignorable == "auto":
        ign = {x for x in q if x not in fixed and x not in named}
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
        for x in request.ignorable:
            s = x if isinstance(x, sp.Symbol) else given.by_name.get(str(x))
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
    return _Retained(frozenset(speed_rows), frozenset(cons_rows), tuple(frozenset(s) for s in kin_syms),
                     tuple(x for x in q if x in ign), tuple(i for i in range(n) if q[i] not in ign), named)


def _complete_point(equations: Equations, read: _Read, given: _Given, kept: _Retained, mode: _Mode) -> dict:
    """Stage 4: the operating point completed: ignorable coordinates 0 unless given, missing
    coordinates solved from the holonomic constraints f(q) = 0 (:func:`_solve_coordinates`),
    missing speeds from the coordinate velocities u = speeds(q, q̇) or from the velocity
    constraints g = 0, linear in the speeds (:func:`_solve_speeds`)."""
    q, u = read.q, read.u
    values = dict(given.values)
    for i in kept.retained:
        values.setdefault(q[i], None)
    for x in kept.ignorable:
        values.setdefault(x, sp.S.Zero)
    missing_q = [x for x in q if values.get(x) is None]
    if missing_q:
        values.update(_solve_coordinates(missing_q, read.holonomic, values, mode))
    missing_u = [x for x in u if x not in values]
    if missing_u:
        values.update(_solve_speeds(equations, missing_u, read.velocity, values, mode))
    for x in q:
        if values.get(x) is None:
            values.pop(x, None)
    return values


def _differentiate(equations: Equations, read: _Read, kept: _Retained, values: Mapping, inputs: tuple,
                   mode: _Mode, jets: _CompiledJets | None = None) -> _AtPoint:
    """Stage 5: one pass of jets (:func:`_derivatives`: forward-mode automatic differentiation,
    or sympy derivatives in the symbolic mode) over K (retained rows), r = M x − F, f and g at
    y0 and x = 0, with respect to y = (q_r, u), the inputs r and x: at x = 0 the residual's value
    is −F(y0) and its x-gradient M(y0).  Then x0 = M(y0)⁻¹ F(y0) (one LU solve) and
    ∂R/∂y with R = F − M x0 (the residual differentiated again at x = x0, unless x0 = 0), so
    that M(y0) ∂x/∂y = ∂F/∂y − (∂M/∂y) x0 = ∂R/∂y (module docstring)."""
    q, u, xs, res, hol, gexprs = read.q, read.u, read.unknowns, read.residuals, read.holonomic, read.velocity
    qr = [q[i] for i in kept.retained]
    variables = qr + list(u) + list(inputs)
    nv = len(variables)
    N = len(res)
    Kr = [read.kinematics[i] for i in kept.retained]
    zero_x = {x: sp.S.Zero for x in xs}
    K_all = None
    if jets is not None:
        vals, grads, K_all = jets.at({**values, **zero_x}, kept.retained)
    else:
        vals, grads = _derivatives(Kr + res + hol + gexprs, variables + list(xs), {**values, **zero_x}, mode,
                                   read.memo)
    offs = [0]
    for size in (len(Kr), N, len(hol), len(gexprs)):
        offs.append(offs[-1] + size)
    rows_r = grads[offs[1]:offs[2]]
    M0 = sp.Matrix(N, N, lambda a, b: rows_r[int(a)][nv + int(b)])
    F0 = sp.Matrix([-v for v in vals[offs[1]:offs[2]]])
    scale = max([abs(_mpf(x)) for x in list(M0) + list(F0) if not sympy_of(x).free_symbols] + [1])
    x0 = mode.solve(M0, F0, f"{equations.form} mass matrix")
    if all(sympy_of(v) == 0 for v in x0):
        dR = [[-d for d in row[:nv]] for row in rows_r]
    else:
        at = {**values, **{x: v for x, v in zip(xs, x0)}}
        if jets is not None:
            rows = jets.at(at, kept.retained)[1][offs[1]:offs[2]]
            dR = [[-d for d in row[:nv]] for row in rows]
        else:
            dR = [[-d for d in row] for row in _derivatives(res, variables, at, mode, read.memo)[1]]
    return _AtPoint(
        variables=tuple(variables), K0=vals[:offs[1]], dK=[row[:nv] for row in grads[:offs[1]]],
        M0=M0, F0=F0, x0=x0, dR=dR,
        f0=vals[offs[2]:offs[3]], df=[row[:nv] for row in grads[offs[2]:offs[3]]],
        g0=vals[offs[3]:offs[4]], dg=[row[:nv] for row in grads[offs[3]:offs[4]]],
        scale=scale, K_all=K_all)


def _steady_motion(equations: Equations, read: _Read, kept: _Retained, at: _AtPoint, values: Mapping,
                   mode: _Mode) -> dict:
    """Stage 6: the operating point must be consistent — f(y0) = 0, g(y0) = 0 — and a steady
    motion: u̇0 = 0, and a retained coordinate may move (K ≠ 0 there) only if no row depends on
    it, so that the Jacobian is constant along the motion.  Returns the drift {coordinate:
    rate} of the moving retained coordinates and of the ignorable ones."""
    q, hol, scale = read.q, read.holonomic, at.scale
    for c, (f, val) in enumerate(zip(hol, at.f0)):
        if not mode.zero(val, scale):
            raise InconsistentStateError(f"the operating point violates the holonomic constraint {c + 1}: "
                                         f"f = {_show(val)} (f = {f})")
    for c, val in enumerate(at.g0):
        if not mode.zero(val, scale):
            raise InconsistentStateError(f"the operating point violates velocity constraint {c + 1}: "
                                         f"A q̇ + b = {_show(val)}")
    bad = [f"{ud.name} = {_show(at.x0[j])}" for j, ud in enumerate(equations.ud) if not mode.zero(at.x0[j], scale)]
    if bad:
        raise InconsistentStateError("the operating point is not a steady motion: the speeds are not constant ("
                                     + ", ".join(bad) + ")")
    appearing = kept.speed_rows | kept.constraint_rows | set().union(*(kept.kinematics_of[i] for i in kept.retained))
    drift: dict = {}
    for j, i in enumerate(kept.retained):
        if not mode.zero(at.K0[j], scale):
            drift[q[i]] = at.K0[j]
            if q[i] in appearing:
                raise InconsistentStateError(
                    f"the operating point is not a steady motion: {q[i].name} moves "
                    f"({q[i].name}' = {_show(at.K0[j])}) and the equations depend on it")
    for i in range(len(q)):
        if q[i] in kept.ignorable:
            if at.K_all is not None:
                rate = at.K_all[i]
            else:
                try:
                    rate = _derivatives([read.kinematics[i]], [], values, mode)[0][0]
                except ValueError:
                    continue
            if not mode.zero(rate, scale):
                drift[q[i]] = rate
    return drift


def _block(rows: list, cols: Sequence[int]) -> sp.Matrix:
    """The columns ``cols`` of a list of gradient rows, as a matrix."""
    return sp.Matrix(len(rows), len(cols), lambda a, b: rows[a][cols[b]])


def _speed_jacobian(equations: Equations, read: _Read, at: _AtPoint, mode: _Mode) -> _Jacobian:
    """Stage 7: the Jacobian of the flow in blocks: ∂K/∂(q_r, u, r) as computed, and
    ∂u̇/∂(q_r, u, r) from M(y0) ∂x/∂y = ∂R/∂y — one LU solve at the point, never M⁻¹
    symbolically — keeping the rows of u̇ (the multipliers' rows are dropped)."""
    nq, m = len(at.K0), len(read.u)
    iq, iu, ir = range(nq), range(nq, nq + m), range(nq + m, len(at.variables))
    Rq, Ru, Rr = _block(at.dR, iq), _block(at.dR, iu), _block(at.dR, ir)
    X = mode.solve(at.M0, Rq.row_join(Ru).row_join(Rr), f"{equations.form} mass matrix")
    return _Jacobian(Rq, Ru, Rr, _block(at.dK, iq), _block(at.dK, iu), _block(at.dK, ir), X[:m, :])


def _tangent_space(equations: Equations, read: _Read, kept: _Retained, at: _AtPoint, mode: _Mode) -> _Tangent:
    """Stage 8: the linear flow keeps the tangent space of the constraints,
    ∂f/∂q δq = 0 and ∂g/∂q δq + ∂g/∂u δu = 0 (both conserved by the motion).  Dependent
    coordinates and speeds are chosen by pivoting (:func:`_rank_columns`: the named ones first,
    then the last coordinates, the speeds of dependent or ignorable coordinates, the last
    speeds) and eliminated on it:
    δq_dep = −(∂f/∂q_dep)⁻¹ ∂f/∂q_ind δq_ind, and
    δu_dep = −(∂g/∂u_dep)⁻¹ (∂g/∂q Eq δq_ind + ∂g/∂u_ind δu_ind)."""
    S = equations.space
    q, u, scale = read.q, read.u, at.scale
    m = len(u)
    qr = [q[i] for i in kept.retained]
    iq = list(range(len(qr)))
    iu = list(range(len(qr), len(qr) + m))
    Phf = _block(at.df, iq) if read.holonomic else sp.zeros(0, len(qr))
    Phg_q = _block(at.dg, iq) if read.velocity else sp.zeros(0, len(qr))
    Phg_u = _block(at.dg, iu) if read.velocity else sp.zeros(0, m)
    keep = [c for c in range(Phg_u.rows) if not all(mode.zero(x, scale) for x in Phg_u.row(c))]
    Phg_q, Phg_u = Phg_q.extract(keep, list(range(len(qr)))), Phg_u.extract(keep, list(range(m)))
    named_q = [qr.index(d) for d in kept.named if d in qr]
    named_u = [u.index(d) for d in kept.named if d in u]
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
                 + [j for j in reversed(range(m)) if j not in named_u and speed_of.get(u[j]) in kept.ignorable]
                 + [j for j in reversed(range(m)) if j not in named_u])
        du = _rank_columns(mode, Phg_u, list(dict.fromkeys(order)))
        if len(du) < Phg_u.rows:
            raise SingularMapError("the velocity constraints are dependent at the operating point")
    else:
        du = []
    if named_u and set(named_u) - set(du):
        raise InconsistentStateError(f"the speeds {[u[j].name for j in named_u]} cannot all be dependent")
    qi = [j for j in iq if j not in dq]
    ui = [j for j in range(m) if j not in du]
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
    return _Tangent(dq, du, qi, ui, Eq, Euq, Euu)


def _assemble(jac: _Jacobian, tangent: _Tangent, m: int, has_inputs: bool, symbolic: bool, mode: _Mode):
    """Stage 9: A = P J E and B = P ∂(q̇, u̇)/∂r, with J = ∂(q̇, u̇)/∂(q_r, u) the Jacobian on the
    retained variables, E = [[Eq, 0], [Euq, Euu]] the embedding of the independent deviations
    into the tangent space and P the selection of their rows; symbolic entries tidied, numeric
    round-off set to 0 (:func:`~geonh.kernel.linalg.drop_roundoff`)."""
    nq = jac.Kq.rows
    J = (jac.Kq.row_join(jac.Ku)).col_join(jac.Ud[:, :nq + m])
    Bfull = jac.Kr.col_join(jac.Ud[:, nq + m:])
    E = (tangent.Eq.row_join(sp.zeros(nq, len(tangent.ui)))).col_join(tangent.Euq.row_join(tangent.Euu))
    rows_ind = tangent.qi + [nq + j for j in tangent.ui]
    A = J.extract(rows_ind, list(range(J.cols))) * E
    B = Bfull.extract(rows_ind, list(range(Bfull.cols))) if has_inputs else sp.zeros(len(rows_ind), 0)
    A, B = (X.applyfunc(_cancel_if_small) if symbolic else mode.drop(X) for X in (A, B))
    return A, B


# ----------------------------------------------------------------------------------------------
# repeated operating points of the same equations: the structure decided once, numpy after
# ----------------------------------------------------------------------------------------------
#: a pivot block of the constraint Jacobian (or the mass matrix) with a condition number above
#: this is not trusted on the fast path: the point takes the stages again, which decide anew
ILL_CONDITIONED = 1e8
#: at most this many kinds of request are remembered per equations object
MAX_PLANS = 64


@dataclass
class _Plan:
    """The structural decisions of the compiled stages for one kind of request — which keys are
    given (parameters and operating point, in order), the inputs, ignorable, dependent and tol —
    recorded by :func:`_record_plan` after :func:`_stages` and replayed by
    ``_repeat_point`` at a further point of the same kind: the symbol of every key and its
    argument slot, the domain rules of the symbols, the default argument vector, the retained
    coordinates and the dependence sets (:meth:`_CompiledJets.dependence`, with its random
    offsets drawn once), the dependent coordinates and speeds (pivot columns), the state."""

    jets: Any                       # the _CompiledJets
    mode: Any                       # the _Mode
    keys: tuple                     # the symbol of each key, parameters then operating point
    slots: Any                      # numpy int array: the argument slot of each key (-1: none)
    rules: Any                      # numpy bool (keys × _DOMAINS): the domain assumptions of each symbol
    base: Any                       # argument vector: defaults (x = 0, inputs, t, ignorable), NaN else
    dep_qu: Any                     # numpy bool: the argument is a coordinate or speed
    dep_draw: Any                   # the random offsets (q, u) or generic values (no value given)
    dep_given: Any                  # numpy bool: a value is given for the argument
    dep_matrix: Any                 # the dependence sets decided (_CompiledJets.dependence_matrix)
    defaults: dict                  # {symbol: sympy value} added to the given values (in order)
    kept: _Retained
    dq: list
    du: list
    qi: list
    ui: list
    record: dict                    # state, inputs, dependent, ignorable of the Linearization
    index: dict                     # index lists of the replay (_plan_indices)
    floats: dict = field(default_factory=dict)   # {sympy number: float} seen


def _request_key(request: _Request) -> tuple | None:
    """What the structure depends on besides the values: None when unhashable."""
    key = (tuple(request.parameters or ()), tuple(request.operating_point), request.inputs, request.ignorable,
           request.dependent, request.tol)
    try:
        hash(key)
    except TypeError:
        return None
    return key


def _record_plan(equations: Equations, read: _Read, request: _Request, given: _Given, jets: _CompiledJets,
                 kept: _Retained, values: Mapping, tangent: _Tangent) -> None:
    """Keep the structure of this compiled linearization for further points of its kind
    (:class:`_Plan`), when the fast path can replay it: every key resolves to one symbol, every
    value is a finite number, no coordinate or speed had to be solved for."""
    import numpy as np
    key = _request_key(request)
    if key is None:
        return
    plans = read.derived.setdefault("plans", {})
    plans.pop(key, None)
    if len(plans) >= MAX_PLANS:
        plans.clear()
    params = equations.resolve_values(request.parameters, "linearize parameters")
    point = equations.resolve_values(request.operating_point, "operating point")
    if len(params) != len(request.parameters or ()) or len(point) != len(request.operating_point):
        return
    syms = tuple(params) + tuple(point)
    if len(set(syms)) != len(syms):
        return                                  # a symbol given twice: the stages merge them
    q, u = read.q, read.u
    if any(values.get(x) is None for x in u) or any(values.get(q[i]) is None for i in kept.retained):
        return
    if not set(u) <= set(syms) or not {q[i] for i in kept.retained} <= set(syms):
        return                                  # speeds or coordinates were solved for
    index = {s: i for i, s in enumerate(jets.args)}
    slots = np.array([index.get(s, -1) for s in syms], dtype=np.intp)
    rules = np.array([[getattr(s, f"is_{prop}") is True for prop in _DOMAINS] for s in syms], dtype=bool)
    given_set = set(syms)
    defaults = {s: v for s, v in values.items() if s not in given_set}
    base = np.full(len(jets.args), np.nan)
    for s, v in {**defaults, **{x: 0 for x in read.unknowns}}.items():
        if s in index:
            try:
                base[index[s]] = float(v)
            except (TypeError, ValueError):
                return
    needed = np.isnan(base)
    needed[slots[slots >= 0]] = False
    if needed.any():
        return
    # the dependence test's point: the draws of _CompiledJets.dependence, in its order
    rng = random.Random(20240601)
    has = set(given.values)
    qu = set(q) | set(u)
    dep_qu = np.array([s in qu for s in jets.args])
    dep_given = np.array([s in has for s in jets.args])
    draw = np.zeros(len(jets.args))
    for i, s in enumerate(jets.args):
        if s in qu:
            draw[i] = float(random_values(rng, (s,), span=OFFSET_SPAN)[s])
        elif s not in has:
            draw[i] = float(random_values(rng, (s,), span=GENERIC_SPAN)[s])
    base_dep = [s for s in jets.args if s in has and s not in given_set]   # inputs and t (defaults)
    for s in base_dep:
        draw[index[s]] = float(given.values[s])
    qr = [q[i] for i in kept.retained]
    plans[key] = _Plan(
        jets=jets, mode=_Mode.of(False, request.tol, True), keys=syms, slots=slots, rules=rules, base=base,
        dep_qu=dep_qu, dep_draw=draw, dep_given=dep_given,
        dep_matrix=np.array([[x in g for x in q] for g in [kept.speed_rows, kept.constraint_rows,
                                                            *kept.kinematics_of]], dtype=bool).reshape(2 + len(q), len(q)),
        defaults=defaults, kept=kept, index=_plan_indices(equations, read, jets, kept, tangent),
        dq=list(tangent.dq), du=list(tangent.du), qi=list(tangent.qi), ui=list(tangent.ui),
        record=dict(state=tuple(qr[j] for j in tangent.qi) + tuple(u[j] for j in tangent.ui),
                    inputs=given.inputs,
                    dependent=tuple(qr[j] for j in tangent.dq) + tuple(u[j] for j in tangent.du),
                    ignorable=kept.ignorable))


#: the sign and number-kind assumptions check_assumptions enforces (geonh.kernel.evaluation)
_DOMAINS = ("integer", "even", "odd", "positive", "negative", "nonnegative", "nonpositive", "nonzero")


def _in_domains(f, rules) -> bool:
    """Whether the real values ``f`` satisfy the assumptions ``rules`` (keys × _DOMAINS) of
    their symbols, as :func:`~geonh.kernel.evaluation.check_assumptions` decides them."""
    import numpy as np
    whole = np.floor(f) == f
    ok = np.stack([whole, whole & (f % 2 == 0), whole & (f % 2 == 1), f > 0, f < 0, f >= 0, f <= 0, f != 0],
                  axis=1)
    return bool((ok | ~rules).all())


def _plan_indices(equations: Equations, read: _Read, jets: _CompiledJets, kept: _Retained,
                  tangent: _Tangent) -> dict:
    """The rows and columns :func:`_replay_point` reads (once per plan): of the compiled values
    and Jacobian (rows K, r, f, g; columns q, u, inputs, x) and the pivot orders of
    ``_tangent_space``."""
    q, u, S = read.q, read.u, equations.space
    n, N, nh, ng, m = jets.n, jets.N, jets.nh, jets.ng, jets.m
    R = list(kept.retained)
    qr = [q[i] for i in R]
    appearing = kept.speed_rows | kept.constraint_rows | set().union(*(kept.kinematics_of[i] for i in R))
    named_q = [qr.index(x) for x in kept.named if x in qr]
    named_u = [u.index(x) for x in kept.named if x in u]
    speed_of = {u[j]: q[S.qd.index(u[j])] for j in range(m) if u[j] in S.qd}
    depq = {qr[j] for j in tangent.dq}
    order_u = (named_u
               + [j for j in reversed(range(m)) if j not in named_u and speed_of.get(u[j]) in depq]
               + [j for j in reversed(range(m)) if j not in named_u and speed_of.get(u[j]) in kept.ignorable]
               + [j for j in reversed(range(m)) if j not in named_u])
    return {"R": R, "qr": qr, "ycols": R + list(range(n, n + m + len(jets.inputs))),
            "xcols": list(range(jets.nw - N, jets.nw)), "finite": R + list(range(n, n + N + nh + ng)),
            "moving_ok": [q[i] not in appearing for i in R],
            "ignorable": [i for i in range(n) if q[i] in kept.ignorable],
            "prefer_q": named_q + [j for j in reversed(range(len(R))) if j not in named_q],
            "prefer_u": list(dict.fromkeys(order_u)),
            "rows_ind": list(tangent.qi) + [len(R) + j for j in tangent.ui]}


def _as_float(v, memo: dict) -> float | None:
    """A given value as a double (None: the fast path does not take it — a string, a bool, an
    expression with symbols, a complex or non-finite number)."""
    t = type(v)
    f: float | None
    if t is float or t is int:
        try:
            f = float(v)
        except OverflowError:
            return None
    elif isinstance(v, sp.Basic):
        f = memo.get(v)
        if f is None:
            if not isinstance(v, sp.Expr) or v.free_symbols:
                return None
            try:
                f = float(v)
            except (TypeError, ValueError, OverflowError):
                return None
            if len(memo) < 4096:
                memo[v] = f
    else:
        return None
    return f if math.isfinite(f) else None


def _greedy_columns(M, prefer: Sequence[int], tol: float) -> list[int]:
    """:func:`_rank_columns` on a float array (the algorithm of
    :class:`~geonh.kernel.linalg.Echelon`, exact=False, in double precision)."""
    if M.shape[0] == 0:
        return []
    big = float(abs(M).max()) if M.size else 0.0
    cut = tol * (1 + big)
    kept: list = []
    chosen = []
    for j in prefer:
        v = M[:, j].copy()
        for p, b in kept:
            f = v[p] / b[p]
            if f != 0:
                v = v - f * b
        k = int(abs(v).argmax())
        if abs(v[k]) > cut:
            kept.append((k, v))
            chosen.append(j)
        if len(chosen) == M.shape[0]:
            break
    return chosen


class _NumericParts:
    """What :meth:`Linearization.second_order` needs of the stages, as numpy arrays from the
    fast path (``_repeat_point``); :meth:`parts` builds the sympy :class:`_Parts` the
    stages would have given (on first use), and ``A`` (after round-off dropped) gives the
    eigenvalues without converting back."""

    def __init__(self, mode: _Mode, qr: list, m: int, k: int, arrays: dict, tangent: tuple):
        self.mode, self.qr, self.m, self.k, self.arrays, self.tangent = mode, qr, m, k, arrays, tangent
        self.A = arrays["A"]
        self._built: _Parts | None = None

    def parts(self) -> _Parts:
        if self._built is None:
            a = self.arrays
            mat = _float_matrix
            dq, du, qi, ui = self.tangent
            jac = _Jacobian(mat(a["Rq"]), mat(a["Ru"]), mat(a["Rr"]), mat(a["Kq"]), mat(a["Ku"]), mat(a["Kr"]),
                            mat(a["Ud"]))
            tan = _Tangent(list(dq), list(du), list(qi), list(ui), mat(a["Eq"]), mat(a["Euq"]), mat(a["Euu"]))
            self._built = _Parts(self.mode, self.qr, self.m, self.k, mat(a["M0"]), mat(a["x0"]),
                                 mpmath.mpf(a["scale"]), jac, tan)
        return self._built


def _float_matrix(X) -> sp.Matrix:
    """A float array as a sympy matrix of :func:`_fnum` entries (what the stages build)."""
    r, c = X.shape
    return sp.Matrix(r, c, [_fnum(x) for x in X.ravel().tolist()]) if r and c else sp.zeros(r, c)


def _repeat_point(equations: Equations, request: _Request) -> Linearization | None:
    """:func:`_replay_point`; None where a solve is singular (the stages raise the error)."""
    import numpy as np
    try:
        return _replay_point(equations, request)
    except np.linalg.LinAlgError:
        return None


def _replay_point(equations: Equations, request: _Request) -> Linearization | None:
    """The compiled linearization at a further point of a kind seen before (:class:`_Plan`), in
    numpy: the values parsed to doubles at once, the compiled values and Jacobian evaluated, the
    decisions of the stages checked at this point (the dependence sets, the steady motion and
    constraints, the pivot columns and their conditioning) and the stages' formulas applied
    with the recorded structure.  None — the point takes the stages, which decide anew and
    raise the errors — when the kind is new or any check fails."""
    import numpy as np
    read = _entry(equations)[1]
    plans = read.derived.get("plans")
    if not plans:
        return None
    key = _request_key(request)
    plan = plans.get(key) if key is not None else None
    if plan is None:
        return None
    given = list((request.parameters or {}).values()) + list(request.operating_point.values())
    fl = [_as_float(v, plan.floats) for v in given]
    if None in fl:
        return None
    f = np.array(fl)
    if plan.rules.any() and not _in_domains(f, plan.rules):
        return None                     # check_assumptions in the stages names the value
    jets, mode, kept = plan.jets, plan.mode, plan.kept
    tol = float(mode.tol)
    has = plan.slots >= 0
    a = plan.base.copy()
    a[plan.slots[has]] = f[has]
    # the dependence sets at the offset point (as _CompiledJets.dependence draws it)
    d = np.where(plan.dep_qu, np.where(plan.dep_given, a, 0.0) + plan.dep_draw,
                 np.where(plan.dep_given, a, plan.dep_draw))
    try:
        if not np.array_equal(jets.dependence_matrix(jets.both(d)[1]), plan.dep_matrix):
            return None
        val, J = jets.both(a)
    except Exception:  # noqa: BLE001 - whatever fails here, the stages say it properly
        return None
    n, N, nh, ng, m = jets.n, jets.N, jets.nh, jets.ng, jets.m
    ix = plan.index
    R, ycols, xcols = ix["R"], ix["ycols"], ix["xcols"]
    ni = len(jets.inputs)
    res = slice(n, n + N)
    M0 = J[res, xcols]
    F0 = -val[res]
    if not (np.isfinite(val[ix["finite"]]).all() and np.isfinite(J).all()):
        return None
    scale = max(float(np.abs(M0).max(initial=0.0)), float(np.abs(F0).max(initial=0.0)), 1.0)
    zero_cut = tol * (1 + scale)
    x0 = np.linalg.solve(M0, F0) if N else np.zeros(0)
    if (np.abs(val[n + N:]) > zero_cut).any() or (np.abs(x0[:m]) > zero_cut).any():
        return None                     # inconsistent or not steady: the stages say which
    if (x0 != 0).any():
        a2 = a.copy()
        a2[xcols] = x0
        try:
            J2 = jets.both(a2)[1]
        except Exception:  # noqa: BLE001
            return None
        dR = -J2[res][:, ycols]
    else:
        dR = -J[res][:, ycols]
    q = jets.q
    drift: dict = {}
    K0 = val[R]
    for j in np.flatnonzero(np.abs(K0) > zero_cut):
        if not ix["moving_ok"][j]:
            return None
        drift[q[R[j]]] = _fnum(float(K0[j]))
    for i in ix["ignorable"]:
        if np.isfinite(val[i]) and abs(val[i]) > zero_cut:
            drift[q[i]] = _fnum(float(val[i]))
    nq = len(R)
    Ud = np.linalg.solve(M0, dR)[:m] if N else np.zeros((0, len(ycols)))
    dK = J[R][:, ycols]
    # the tangent space with the recorded pivots, checked
    Phf = J[n + N:n + N + nh][:, R]
    Phg = J[n + N + nh:n + N + nh + ng]
    Phg_q, Phg_u = Phg[:, R], Phg[:, n:n + m]
    if ng:
        keep = (np.abs(Phg_u) > zero_cut).any(axis=1)
        Phg_q, Phg_u = Phg_q[keep], Phg_u[keep]
    dq, du, qi, ui = plan.dq, plan.du, plan.qi, plan.ui
    if len(dq) != Phf.shape[0] or len(du) != Phg_u.shape[0]:
        return None
    qr = ix["qr"]
    if dq and (_greedy_columns(Phf, ix["prefer_q"], tol) != dq or np.linalg.cond(Phf[:, dq]) > ILL_CONDITIONED):
        return None
    if du and (_greedy_columns(Phg_u, ix["prefer_u"], tol) != du
               or np.linalg.cond(Phg_u[:, du]) > ILL_CONDITIONED):
        return None
    Eq = np.zeros((nq, len(qi)))
    Eq[qi, range(len(qi))] = 1
    if dq:
        Eq[dq] = np.linalg.solve(Phf[:, dq], -Phf[:, qi])
    Euq, Euu = np.zeros((m, len(qi))), np.zeros((m, len(ui)))
    Euu[ui, range(len(ui))] = 1
    if du:
        sol = np.linalg.solve(Phg_u[:, du], -np.hstack([Phg_q @ Eq, Phg_u[:, ui]]))
        Euq[du], Euu[du] = sol[:, :len(qi)], sol[:, len(qi):]
    # A = P J E, B (stage 9), round-off dropped as _Mode.drop does
    Jy = np.vstack([dK[:, :nq + m], Ud[:, :nq + m]])
    Bfull = np.vstack([dK[:, nq + m:], Ud[:, nq + m:]])
    E = np.block([[Eq, np.zeros((nq, len(ui)))], [Euq, Euu]])
    rows_ind = ix["rows_ind"]
    A = Jy[rows_ind] @ E
    B = Bfull[rows_ind] if ni else np.zeros((len(rows_ind), 0))
    A, B = (_drop_array(X) for X in (A, B))
    if not (np.isfinite(A).all() and np.isfinite(B).all()):
        return None
    point = dict(zip(plan.keys, (v if isinstance(v, sp.Basic) else
                                 sp.Rational(repr(v)) if isinstance(v, float) else sp.Integer(v) for v in given)))
    point.update(plan.defaults)
    arrays = {"A": A, "M0": M0, "x0": x0.reshape(-1, 1), "scale": scale,
              "Rq": dR[:, :nq], "Ru": dR[:, nq:nq + m], "Rr": dR[:, nq + m:],
              "Kq": dK[:, :nq], "Ku": dK[:, nq:nq + m], "Kr": dK[:, nq + m:], "Ud": Ud,
              "Eq": Eq, "Euq": Euq, "Euu": Euu}
    return Linearization(
        _float_matrix(A), _float_matrix(B), drift=drift, operating_point=point, equations=equations,
        symbolic=False, _parts=_NumericParts(mode, qr, m, read.multipliers, arrays, (dq, du, qi, ui)),
        **plan.record)


def _drop_array(X):
    """:meth:`_Mode.drop` of the compiled route on a float array: entries ≤ COMPILED_TOL ·
    (1 + max |X_ij|) set to 0."""
    if not X.size:
        return X
    cut = COMPILED_TOL * (1 + float(abs(X).max()))
    return X * (abs(X) > cut)


def _regular_frame_equations(equations: Equations, operating_point: Mapping, parameters, exc: SingularMapError):
    """The equations of the same frame form derived again in the same frame, its inverse C = B⁻¹
    computed by LU with the rows pivoted at the operating point (every pivot non-zero there, so
    C and the equations have no singularity there); None when that does not apply (not a
    frame form, or the point does not fix the coordinates).  A frame singular at the point
    raises SingularMapError naming it and a form without a frame."""
    from ..kernel.fields import VectorField
    from ..kernel.frames import Frame
    from ..equations.declaration import Inputs
    from ..equations.registry import FORMS

    entry = FORMS.get(equations.form)
    frame = equations.frame
    if frame is None or entry is None or entry.inputs is not Inputs.FRAME:
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
        done = eliminate(A, exact=False, tol=(1 + big) * mpmath.mpf(10) ** (-(precision() // 2)), largest=True)
        order, rank = done.order, done.rank
        if rank < n:
            raise SingularMapError(
                f"{exc}; the frame {list(frame.names)} itself is singular at the operating point (its "
                f"coframe matrix has rank {rank} < {n} there), so the {equations.form} equations have no "
                "value there: linearize a form without this frame, e.g. derive('lagrange', system)") from None
    rows = list(range(n))
    C = B.extract(order, rows).LUsolve(sp.eye(n).extract(order, rows), iszerofunc=lambda e: e == 0)
    fields = [VectorField(S, list(C[:, a])) for a in range(n)]
    regular = Frame(fields, names=frame.names, coframe=frame.coframe)
    return entry(cast("MechanicalSystem", equations.system), regular, None)  # frame forms take one


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
        jet = Jet.gradient(values, variables)
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


def _solve_coordinates(missing, hol, values: Mapping, mode: _Mode) -> dict:
    """{coordinate: value} for the ``missing`` coordinates: the holonomic constraints f(q) = 0
    that involve them (as many as missing coordinates), solved by Newton's method from 0 in
    the numeric modes, exactly (:func:`_solve_coordinates_exactly`) in the symbolic one."""
    if not hol:
        raise MissingValueError(f"give values for the coordinates {[x.name for x in missing]}")
    eqs = [f for f in hol if f.free_symbols & set(missing)]
    if len(eqs) != len(missing):
        raise MissingValueError(f"give values for the coordinates {[x.name for x in missing]} "
                         f"({len(eqs)} holonomic constraint(s) involve them)")
    known = {s: v for s, v in values.items() if v is not None}
    if mode.symbolic:
        return _solve_coordinates_exactly(missing, [sympy_of(f).xreplace(known) for f in eqs])

    def resid(*z):
        pt = dict(known)
        pt.update({s: sp.Float(v, precision()) for s, v in zip(missing, z)})
        jet = Jet.gradient(pt, ())
        return [jet(f)[0] for f in eqs]

    with mpmath.workdps(precision()):
        try:
            sol = mpmath.findroot(resid, [mpmath.mpf(0)] * len(missing))
        except (ValueError, ZeroDivisionError) as exc:
            raise InconsistentStateError(f"cannot solve the holonomic constraints for {[x.name for x in missing]}: "
                                         f"{exc}") from None
    sol = [sol[i] for i in range(len(missing))] if isinstance(sol, mpmath.matrix) else [sol]
    return {s: _num(v) for s, v in zip(missing, sol)}


def _solve_coordinates_exactly(missing, eqs) -> dict:
    """The one solution of the holonomic constraints ``eqs`` = 0 (the operating point's values
    substituted) for the ``missing`` coordinates, by sympy's ``solve``; refused, naming the
    solutions, when there are several (the operating point must choose: y = ±1 on a circle)
    or none."""
    names = [x.name for x in missing]
    try:
        sols = sp.solve(eqs, missing, dict=True)
    except NotImplementedError:
        sols = []
    sols = [s for s in sols if all(x in s for x in missing)]
    if not sols:
        raise MissingValueError(f"give values for the coordinates {names}: the holonomic constraints "
                                "have no closed-form solution for them")
    if len(sols) > 1:
        shown = "; ".join(", ".join(f"{x.name} = {s[x]}" for x in missing) for s in sols)
        raise MissingValueError(f"give values for the coordinates {names}: the holonomic constraints "
                                f"have {len(sols)} solutions ({shown}); the operating point must choose one")
    return {x: sols[0][x] for x in missing}


def _solve_speeds(equations: Equations, missing, gexprs, values: Mapping, mode: _Mode) -> dict:
    """{speed: value} for the ``missing`` speeds: from given coordinate velocities,
    u = speeds(q, q̇), else from the velocity constraints g = A K + b = 0, linear in the speeds
    (one solve of the coefficient matrix ∂g/∂u_missing at the point)."""
    S = equations.space
    u = list(equations.u)
    if all(v in values for v in S.qd) and not set(missing) & set(S.qd):
        values = dict(values)
        for s in missing:
            e = equations.speeds[u.index(s)]
            values[s] = sympy_of(e).xreplace(values)
        return {s: values[s] for s in missing}
    if not gexprs:
        raise MissingValueError(f"give values for the speeds {[x.name for x in missing]}")
    known = {s: v for s, v in values.items() if v is not None and s not in missing}
    zero = {s: 0 for s in missing}

    def at(e):
        if mode.symbolic:
            return sympy_of(e).xreplace(known)
        return _num(Jet.gradient(known, ())(e)[0])

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
    return dict(zip(missing, sol))


# ----------------------------------------------------------------------------------------------
# the second-order form and eigenvalues
# ----------------------------------------------------------------------------------------------
def _second_order(lin: Linearization, coordinates) -> SecondOrder:
    p = lin._parts.parts() if isinstance(lin._parts, _NumericParts) else lin._parts
    mode = p.mode
    qr, qi, ui, m, k = p.qr, p.tangent.qi, p.tangent.ui, p.m, p.k
    M0, Rq, Ru, Rr = p.M0, p.jacobian.Rq, p.jacobian.Ru, p.jacobian.Rr
    Kq, Ku, Eq, Euq, Euu = p.jacobian.Kq, p.jacobian.Ku, p.tangent.Eq, p.tangent.Euq, p.tangent.Euu
    scale = p.scale
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
    M2, C2, K2, F2 = (X.applyfunc(_cancel_if_small) if lin.symbolic else mode.drop(X) for X in (M2, C2, K2, F2))
    return SecondOrder(M2, C2, K2, F2, tuple(ind[j] for j in sel), tuple(u[ui[c]] for c in ss), lin.inputs)


def _double_eigenvalues(A: sp.Matrix):
    """Eigenvalues of a numeric matrix of the compiled route (double precision: LAPACK),
    sorted and with round-off (≤ COMPILED_TOL of the scale) set to 0 as :func:`eigenvalues` does."""
    import numpy as np
    if A.rows == 0:
        return np.zeros(0, dtype=complex)
    return _eigenvalues_of_array(np.array([[float(A[i, j]) for j in range(A.cols)] for i in range(A.rows)]))


def _eigenvalues_of_array(a):
    """:func:`_double_eigenvalues` of a float array."""
    import numpy as np
    if a.shape[0] == 0:
        return np.zeros(0, dtype=complex)
    ev = np.linalg.eigvals(a).astype(complex)
    tol = COMPILED_TOL * (1 + float(np.max(np.abs(a))))
    ev = np.where(np.abs(ev.real) <= tol, 0, ev.real) + 1j * np.where(np.abs(ev.imag) <= tol, 0, ev.imag)
    return np.array(sorted(ev, key=lambda z: (z.real, z.imag)))


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


#: ``eqs.linearize(operating_point, ...)`` forwards here (:func:`geonh.equations.base.register_method`)
register_method("linearize", linearize)
