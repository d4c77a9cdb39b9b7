"""Compiled right-hand sides: :meth:`Equations.ode_function` and what it returns.

An :class:`ODEFunction` is the explicit first-order system ẏ = f(t, y), y = (q, u), of an
:class:`~geonh.equations.Equations`, compiled once (:mod:`geonh.numerics.codegen`):

* one compiled function gives the kinematics K(t, q, u), the mass matrix M and the forcing F
  at a state, and the unknowns x (u̇, and λ for the multiplier forms) of M x = F — M is never
  inverted symbolically.  When M is symmetric, of size ≤ 6 and without a structurally zero
  diagonal entry (the frame forms' kinetic-energy matrices), the compiled code also runs an
  unrolled LU elimination without pivoting in placeholders for M's entries (Gaussian
  elimination in the natural order, the pivots generic) and a check value
  Σ x + Σ √pivot; a call accepts that x only if the check is finite, i.e. every pivot is
  positive (M positive definite there, where elimination without pivoting is stable) and x is
  finite.  Otherwise — and for every other M — x comes from M and F numerically at the call
  (partial-pivot elimination for 1 × 1 and 2 × 2 in Python floats, ``numpy.linalg.solve``
  beyond), which also raises :class:`~geonh.errors.SingularMapError` for a singular M;
* ``f(t, y)`` (``f(t, y, p)`` when parameters are left open) returns a fresh array
  (K, u̇); ``f.batch(t, Y)`` does the same for the rows of Y, shape (k, n);
* ``f.jacobian(t, y)`` is ∂f/∂y: ∂K/∂y from the symbolic Jacobian, and for u̇ the implicit
  derivative of M x = F,  ∂x/∂y = M⁻¹(∂F/∂y − ∂M/∂y · x) = −M⁻¹ ∂(M x − F)/∂y|ₓ, with the
  symbolic ∂(M x − F)/∂y compiled in (t, y, p, x) and solved numerically;
* ``f.unknowns(t, y)`` gives all of x (u̇, λ); ``f.observable(exprs)`` compiles further
  expressions in (t, q, u, parameters [, x]) with the same parameter binding (reactions,
  energies, constraint residuals along a trajectory: :func:`geonh.simulate`).

Parameters.  Every symbol of M, F, K other than time, q and u is a parameter.  A value given
at build time (``params={symbol or name: value}``) is bound; the others are
the ``parameters`` of the :class:`ODEFunction` (sorted by name), passed at call time as an array ``p`` in that
order: ``f(t, y, p)`` — what ``solve_ivp(f, ..., args=(p,))`` does.  Parameters are arguments
of the compiled code either way, so binding later (:meth:`ODEFunction.bind`) costs no
recompilation.  A value that is an expression (e.g. a forcing ``F: sin(t)``) is substituted
before compiling.  On a space without time, a symbol named ``t`` is the time.

Pickling.  An ODEFunction (and an :class:`Observable`) holds machine code, which does not
travel between processes: ``pickle.dumps(f)`` raises :class:`~geonh.errors.NotPicklableError`
saying what to ship instead — the :class:`Equations` (plain sympy data), compiled on the other
side once per process with ``equations.ode_function(params)``, which is what
:func:`geonh.sweep` does on Dask.  Recompiling silently at every unpickling would hide a cost
of seconds per task.  ``copy.copy``/``copy.deepcopy`` work (the same compiled code, a fresh
argument buffer).  A :class:`~geonh.numerics.Trajectory` pickles: it keeps its numbers and the
recipe of its function (``ODEFunction._recipe``), recompiled only if asked for.

The hot path ``f(t, y[, p])`` writes t, y and p into an argument buffer owned by the function
(no allocation), runs the compiled code (LLVM: through a ctypes entry bound once to the
function's argument and output buffers) and returns a fresh copy of the first n_q + n_u
outputs: the result is never reused.  ``f.into(out, t, y, p)`` writes the same values into
the caller's array ``out`` (checked: shape (n_q + n_u,), float64, contiguous, writable);
``f.buffer()`` gives an :class:`EvaluationBuffer` — argument and result arrays owned by it
and a call ``b()`` without any check or allocation, as CasADi's ``Function.buffer()``.  The buffer belongs to the thread that
built the function; a call from any other thread (a thread pool, a Dask worker) builds its
arguments in a fresh array instead, so one ODEFunction is safe to share between threads.
"""
from __future__ import annotations

import threading

import math
from functools import partial
from typing import Any, Mapping, Sequence

import numpy as np
import sympy as sp

from ..equations.base import Equations, register_method
from ..errors import (DimensionError, InconsistentStateError, NotPicklableError, ParseError, SingularMapError,
                      UnknownCoordinateError)
from .cache import cached_compile
from .codegen import CompiledFunction, compile_function, expression_atoms
from ..kernel.evaluation import check_assumptions
from ..kernel.parsing import as_expr, as_exprs, as_float, as_floats, sympy_of

_isfinite = math.isfinite
_get_ident = threading.get_ident

__all__ = ["EquationsParts", "EvaluationBuffer", "ODEFunction", "Observable", "equations_parts", "ode_function"]


def _is_number(v) -> bool:
    if isinstance(v, (bool, np.bool_)):
        return False
    if isinstance(v, (int, float, np.integer, np.floating)):
        return True
    if isinstance(v, sp.Basic):
        return v.is_number and not v.free_symbols
    return False


def _float(v, name: str) -> float:
    try:
        x = complex(v)
    except (TypeError, ValueError):
        raise InconsistentStateError(f"parameter {name} = {v!r} is not a number") from None
    if x.imag != 0:
        raise InconsistentStateError(f"parameter {name} = {v!r} is not real")
    if not math.isfinite(x.real):
        raise InconsistentStateError(f"parameter {name} = {v!r} is not finite: parameters must be finite numbers")
    return x.real


def _solver(k: int, n: int, nu: int, iM: int, form: str):
    """fill(out): solve M x = F read from the flat output [K, x, M, F, ...] (M at iM) and write
    u̇ = x[:nu] into out[n:n + nu]; also returns x.  1 × 1 and 2 × 2 by partial-pivot
    elimination in Python floats (a LAPACK call costs more than the arithmetic), larger by
    numpy; a singular M raises SingularMapError."""
    iF = iM + k * k
    msg = f"the {form} mass matrix is singular at this state"
    if k == 0:
        def fill(out):
            return []
    elif k == 1:
        def fill(out):
            m, f = out[iM:iM + 2].tolist()
            if m == 0.0:
                raise SingularMapError(msg)
            x = f / m
            if nu:
                out[n] = x
            return [x]
    elif k == 2:
        def fill(out):
            a, b, c, d, e, f = out[iM:iM + 6].tolist()
            if abs(c) > abs(a):
                a, b, e, c, d, f = c, d, f, a, b, e
            if a == 0.0:
                raise SingularMapError(msg)
            r = c / a
            d -= r * b
            if d == 0.0:
                raise SingularMapError(msg)
            x2 = (f - r * e) / d
            x1 = (e - b * x2) / a
            if nu == 2:
                out[n:n + 2] = (x1, x2)
            elif nu == 1:
                out[n] = x1
            return [x1, x2]
    else:
        shape = (k, k)

        def fill(out):
            try:
                x = np.linalg.solve(out[iM:iF].reshape(shape), out[iF:iF + k])
            except np.linalg.LinAlgError:
                raise SingularMapError(msg) from None
            out[n:n + nu] = x[:nu]
            return x
    return fill


#: largest mass matrix whose LU elimination is generated into the compiled code
INLINE_SOLVE_MAX = 6


def _inline_lu(M: sp.Matrix) -> tuple[list, list, sp.Expr] | None:
    """Unrolled elimination of M x = F without pivoting, in placeholders: fraction-free
    Gaussian elimination (Bareiss) in the natural order, then back substitution.

    Step j replaces, for i, c > j, a_ic by (a_jj a_ic − a_ij a_jc) / a_(j−1)(j−1) (and the
    right-hand side alike); the diagonal ends as the leading principal minors D_1 … D_k of M.
    Every sum in these formulas is a sum of products, so an entry of M or F never becomes a
    term of a larger sum (symengine would flatten it in and evaluate it twice), and back
    substitution is written x_i = b_i / D_i − Σ (a_ic / D_i) x_c for the same reason.

    Returns (definitions, x, check): ``definitions`` are (placeholder, expression) pairs, in
    order — first the placeholders of the nonzero M[i, j] (row-major) and of F[i], with the
    value None (the caller fills in their expressions), then the eliminated entries —, ``x``
    the solution, ``check`` = Σ x_i + Σ √D_i (finite exactly when x is finite and every
    leading principal minor is ≥ 0, which with finite x means > 0: M positive definite, by
    Sylvester's criterion, where elimination without pivoting is stable).  None when M is
    not symmetric (structurally), larger than INLINE_SOLVE_MAX, or has a structurally zero
    diagonal entry."""
    k = M.rows
    if k == 0 or k > INLINE_SOLVE_MAX:
        return None
    for i in range(k):
        if M[i, i] == 0:
            return None
        for j in range(i):
            if M[i, j] != M[j, i]:
                return None
    defs: list = []

    def define(name, e):
        if e.is_Number:
            return e
        d = sp.Dummy(name)
        defs.append((d, e))
        return d

    A: list[list[Any]] = [[None] * k for _ in range(k)]
    for i in range(k):
        for j in range(k):
            A[i][j] = sp.Dummy(f"m{i}{j}") if M[i, j] != 0 else sp.S.Zero
            if A[i][j] != 0:
                defs.append((A[i][j], None))
    b = [sp.Dummy(f"f{i}") for i in range(k)]
    defs.extend((d, None) for d in b)
    prev = sp.S.One
    for j in range(k - 1):
        p = A[j][j]
        for i in range(j + 1, k):
            r = A[i][j]
            for c in range(j + 1, k):
                A[i][c] = define(f"a{i}{c}_{j}", (p * A[i][c] - r * A[j][c]) / prev)
            b[i] = define(f"b{i}_{j}", (p * b[i] - r * b[j]) / prev)
            A[i][j] = sp.S.Zero
        prev = p
    x = [sp.S.Zero] * k
    for i in reversed(range(k)):
        d = A[i][i]
        x[i] = define(f"x{i}", b[i] / d - sp.Add(*[(A[i][c] / d) * x[c] for c in range(i + 1, k)]))
    check = sp.Add(*x) + sp.Add(*[sp.sqrt(A[j][j]) for j in range(k)])
    return defs, x, check


class _Core:
    """What is compiled once: symbols, layout, the main function and (lazily) the Jacobian."""

    def __init__(self, eqs, exprs_params: Mapping, backend: str, opt_level):
        S = eqs.space
        self.eqs = eqs
        self.backend_request = backend
        self.opt_level = opt_level
        self.t = S.t if S.t is not None else sp.Symbol("t", real=True)
        self.q = tuple(S.q)
        self.u = tuple(eqs.u)
        self.x = tuple(eqs.unknowns)
        self.n, self.nu, self.k = len(self.q), len(self.u), len(self.x)
        if len(eqs.kinematics) != self.n:
            raise DimensionError(f"{len(eqs.kinematics)} kinematic equations for {self.n} coordinates")
        M, F = eqs.mass_matrix, eqs.forcing
        if M.shape != (self.k, self.k) or F.shape != (self.k, 1):
            raise DimensionError(f"mass matrix {M.shape} and forcing {F.shape} do not fit {self.k} unknowns")
        K = list(eqs.kinematics)
        self.exprs_params = dict(exprs_params)
        prepared, free = self.prepare(K + list(M) + list(F))
        n, k2 = self.n, self.k * self.k
        self.K, self.M, self.F = prepared[:n], prepared[n:n + k2], prepared[n + k2:]
        state = set(self.q) | set(self.u) | {self.t}
        bad = free & set(self.x)
        if bad:
            raise DimensionError(f"mass matrix or forcing contain unknowns {sorted(map(str, bad))}")
        self.params = _parameter_order(free - state)
        self.args = (self.t,) + self.q + self.u + self.params
        inline = None
        resolved = backend
        if backend == "auto":
            from .codegen import llvm_available
            resolved = "llvm" if llvm_available() else "numpy"
        if resolved in ("llvm", "lambda", "c"):
            inline = _inline_lu(sp.Matrix(self.k, self.k, self.M))
        if inline is not None:
            defs, xs, check = inline
            values = iter(self.M[i] for i in range(self.k * self.k) if self.M[i] != 0)
            fvals = iter(self.F)
            defs = [(d, e if e is not None else (next(values) if d.name.startswith("m") else next(fvals)))
                    for d, e in defs]
            outputs = self.K + list(xs) + self.M + self.F + [check]
        else:
            defs = []
            outputs = self.K + [sp.S.Zero] * self.k + self.M + self.F
        self.inline = inline is not None
        # compiled once per machine: the on-disk cache (numerics.cache) is keyed by the equations
        self._key = (self.K, self.M, self.F, self.args, self.x, resolved, opt_level) if resolved == "llvm" else None
        self.main = cached_compile(self._key and ("ode-main",) + self._key,
                                   lambda: compile_function(outputs, self.args, backend=backend,
                                                            what=f"the {eqs.form} equations",
                                                            opt_level=opt_level, definitions=defs),
                                   CompiledFunction.of_lambdify)
        self.backend = self.main.backend
        self.iM = self.n + self.k
        self.iF = self.iM + self.k * self.k
        self.size = self.iF + self.k + (1 if self.inline else 0)
        self.ichk = self.size - 1
        self._jac: CompiledFunction | None = None

    def prepare(self, exprs) -> tuple[list, set]:
        """The expressions with expression-valued parameters substituted and every symbol named
        like the time made the time; and their symbols."""
        return _prepared(exprs, self.exprs_params, self.t)

    @property
    def jac(self):
        """[∂K/∂y; ∂(M x − F)/∂y] compiled in (t, y, p, x); differentiated on the expression
        graph by symengine (LLVM at optimization level 0 unless asked otherwise: the Jacobian is
        large and evaluated rarely, and level 0 builds it several times faster)."""
        if self._jac is None:
            y = list(self.q) + list(self.u)
            k = self.k
            R = [sum((self.M[i * k + j] * self.x[j] for j in range(k) if self.M[i * k + j] != 0), sp.S.Zero)
                 - self.F[i] for i in range(k)]
            self._jac = cached_compile(self._key and ("ode-jacobian",) + self._key,
                                       lambda: compile_function(self.K + R, self.args + self.x,
                                                                backend=_aux_backend(self.backend),
                                                                what="the Jacobian", wrt=y,
                                                                opt_level=0 if self.opt_level is None
                                                                else self.opt_level),
                                       CompiledFunction.of_lambdify)
        return self._jac


def _prepared(exprs, exprs_params: Mapping, t: sp.Symbol) -> tuple[list, set]:
    """``exprs`` with the expression-valued parameters substituted and every symbol named like
    the time ``t`` made ``t``; and their symbols (:meth:`_Core.prepare`)."""
    exprs = [sympy_of(e) for e in exprs]
    if exprs_params:
        exprs = [e.xreplace(exprs_params) for e in exprs]
    syms, _ = expression_atoms(exprs)
    odd = {s: t for s in syms if s.name == t.name and s != t}
    if odd:
        exprs = [e.xreplace(odd) for e in exprs]
        syms = (syms - set(odd)) | {t}
    return exprs, syms


def _parameter_order(params) -> tuple:
    """Parameters in the order of ``p`` in ``f(t, y, p)``: by name (then srepr)."""
    return tuple(sorted(params, key=lambda s: (s.name, sp.srepr(s))))


class EquationsParts:
    """The pieces of ẏ = f(t, y, p) of an :class:`Equations` that :func:`ode_function`
    compiles, uncompiled (:func:`equations_parts`): exporters (:mod:`geonh.numerics.export`)
    print the same expressions with the same parameter order.

    Attributes: ``time``, ``q``, ``u``, ``unknowns`` (x = u̇, λ), ``K`` (n_q expressions),
    ``M`` (k × k, row-major list), ``F`` (k), ``parameters`` (the open ones, in the order of
    ``ODEFunction.parameters``), ``bound`` ({symbol: float} given at build time), and
    :meth:`prepare` for further expressions (observables) with the same binding."""

    def __init__(self, eqs: Equations, params: Mapping | None = None):
        if not isinstance(eqs, Equations):
            raise ParseError(f"equations_parts takes Equations, not {type(eqs).__name__}")
        numbers, exprs = _split_params(eqs, params)
        S = eqs.space
        self.equations = eqs
        self.time = S.t if S.t is not None else sp.Symbol("t", real=True)
        self.q, self.u, self.unknowns = tuple(S.q), tuple(eqs.u), tuple(eqs.unknowns)
        n, k = len(self.q), len(self.unknowns)
        if len(eqs.kinematics) != n:
            raise DimensionError(f"{len(eqs.kinematics)} kinematic equations for {n} coordinates")
        self._exprs = dict(exprs)
        self._numbers: dict = {}
        self.bound: dict = {}
        prepared, free = self.prepare(list(eqs.kinematics) + list(eqs.mass_matrix) + list(eqs.forcing))
        bad = free & set(self.unknowns)
        if bad:
            raise DimensionError(f"mass matrix or forcing contain unknowns {sorted(map(str, bad))}")
        params_all = _parameter_order(free - (set(self.q) | set(self.u) | {self.time}))
        by_name: dict[str, list] = {}
        for s in params_all:
            by_name.setdefault(s.name, []).append(s)
        bound: dict = {}
        for key, v in numbers.items():
            sym = _resolve(key, params_all, by_name)
            if sym is not None:
                bound[sym] = _float(v, str(key))
                check_assumptions(sym, bound[sym])
        self._numbers = dict(numbers)
        self.bound = bound
        self.parameters = tuple(s for s in params_all if s not in bound)
        if bound:
            rep = {s: sp.Float(v, 17) for s, v in bound.items()}   # 17 digits: the double exactly
            prepared = [e.xreplace(rep) for e in prepared]
        self.K, self.M, self.F = prepared[:n], prepared[n:n + k * k], prepared[n + k * k:]

    def prepare(self, exprs) -> tuple[list, set]:
        """Further expressions with this binding's expression values substituted and the time
        unified (as ``ODEFunction.observable``), numbers bound at build time substituted too
        (matched by symbol or name); and their symbols."""
        out, syms = _prepared(as_exprs(exprs, what="expressions"), self._exprs, self.time)
        by_name = {(k if isinstance(k, str) else k.name): v for k, v in self._numbers.items()}
        state = set(self.q) | set(self.u) | {self.time}
        rep = {}
        for s in syms - state:
            if s in self.bound:
                rep[s] = sp.Float(self.bound[s], 17)
            elif s in self._numbers or s.name in by_name:
                rep[s] = sp.Float(_float(self._numbers.get(s, by_name.get(s.name)), s.name), 17)
        if rep:
            out = [e.xreplace(rep) for e in out]
            syms = syms - set(rep)
        return out, syms


def equations_parts(eqs: Equations, params: Mapping | None = None) -> EquationsParts:
    """The uncompiled pieces of :func:`ode_function` (:class:`EquationsParts`): K, M, F,
    the state, the unknowns and the parameters in ``ODEFunction.parameters``' order, with
    ``params`` ({symbol or name: number or expression}) bound as ``ode_function`` binds them."""
    return EquationsParts(eqs, params)


def _aux_backend(backend: str) -> str:
    """The backend of the Jacobian and of observables: LLVM (where available) beside the C
    backend, whose compiler start-up (Python's headers, ~0.5 s) would dominate these rarely
    evaluated functions; else the main function's backend."""
    if backend == "c":
        from .codegen import llvm_available
        return "llvm" if llvm_available() else "c"
    return backend


class ODEFunction:
    """ẏ = f(t, y) for y = (q, u) of an :class:`Equations`, compiled once (module doc).

    Attributes
    ----------
    equations : the Equations.
    parameters : the parameter symbols left open, in the order of ``p`` in ``f(t, y, p)``.
    bound : {symbol: value} of the parameters given at build time.
    state : the state symbols (q then u); ``state_names`` their names.
    backend : the backend actually used ("llvm", "lambda", "numpy" or "c").
    """

    def __init__(self, eqs, params: Mapping | None = None, *, backend: str = "auto", jacobian: bool = False,
                 opt_level: int | None = None):
        numbers, exprs = _split_params(eqs, params)
        core = _Core(eqs, exprs, backend, opt_level)
        self._init(core, numbers)
        if jacobian:
            core.jac  # noqa: B018 - compile now

    # -- construction -----------------------------------------------------------------------------
    def _init(self, core: _Core, numbers: Mapping) -> None:
        self._core = core
        by_name: dict[str, list] = {}
        for s in core.params:
            by_name.setdefault(s.name, []).append(s)
        values = {}
        self._given = dict(numbers)  # everything given, for observables (resolved by name there)
        for key, v in numbers.items():
            sym = _resolve(key, core.params, by_name)
            if sym is None:
                if isinstance(key, sp.Symbol) and key in (set(core.q) | set(core.u) | {core.t}):
                    raise DimensionError(f"{key} is a state variable (or the time), not a parameter")
                continue
            values[sym] = _float(v, str(key))
            check_assumptions(sym, values[sym])
        self.bound = {s: values[s] for s in core.params if s in values}
        self.parameters = tuple(s for s in core.params if s not in values)
        template = np.zeros(len(core.args))
        idx = {s: i for i, s in enumerate(core.args)}
        for s, v in self.bound.items():
            template[idx[s]] = v
        self._template = template
        self._buf = template.copy()
        self._owner = threading.get_ident()  # the thread whose calls may use _buf
        pidx = np.array([idx[s] for s in self.parameters], dtype=int)
        if len(pidx) and np.all(np.diff(pidx) == 1):
            self._pidx: slice | np.ndarray = slice(int(pidx[0]), int(pidx[-1]) + 1)
            self._pview = self._buf[self._pidx]  # a view: p is copied into the buffer through it
        else:
            self._pidx = pidx
            self._pview = None
        self._np = len(self.parameters)
        self._ny = core.n + core.nu
        self._ny1 = 1 + self._ny
        self._yview = self._buf[1:self._ny1]
        self._oshape = (self._ny,)
        self._into = core.main.into
        self._size = core.size
        self._scratch = np.empty(core.size)  # the compiled code's output for into()
        self._sview = self._scratch[:self._ny]
        self._svals = memoryview(self._scratch.data)  # Python floats on indexing (the check value)
        self._fill = _solver(core.k, core.n, core.nu, core.iM, core.eqs.form)
        # the C backend's module: its entries also solve M x = F (module doc of cbackend)
        self._cmod = _c_module(core.main)
        self._layout = (core.n, core.nu, core.k, core.iM, core.ichk if core.inline else -1)
        self._singular = f"the {core.eqs.form} mass matrix is singular at this state"
        self._raw = _raw_entry(core.main, self._scratch, self._buf, self._layout, self._singular)
        self._csolve = self._cmod is not None
        # f(t, y, p) and into in one C call (arguments off its fast path: NotImplemented)
        self._ccall: Any = None if self._cmod is None else self._cmod.bind_call(
            self._buf, self._scratch, self._layout, SingularMapError, self._singular, self._sview.copy, self._ny,
            tuple(int(i) for i in np.arange(len(core.args))[self._pidx]))
        if self._ccall is not None:
            # the C entries go first at every call: a subclass, so the other backends' calls
            # pay no test for them
            self.__class__ = _CODEFunction
        self._inline = core.inline
        self._ichk = core.ichk
        self.equations = core.eqs
        self.state = core.q + core.u
        self.state_names = tuple(s.name for s in self.state)
        self.backend = core.backend

    def bind(self, params: Mapping) -> "ODEFunction":
        """The same compiled function with more parameters bound (numbers only; no recompilation)."""
        numbers, exprs = _split_params(self.equations, params)
        if exprs:
            raise DimensionError(f"bind takes numbers; expression values {sorted(map(str, exprs))} need a "
                                 "new ode_function")
        out = object.__new__(ODEFunction)
        merged = dict(self._given)
        merged.update(numbers)
        out._init(self._core, merged)
        return out

    def _recipe(self) -> tuple:
        """(equations, params, backend, opt_level) that rebuild this function: what a
        :class:`~geonh.numerics.Trajectory` pickles instead of the compiled code."""
        c = self._core
        return c.eqs, {**c.exprs_params, **self._given}, c.backend_request, c.opt_level

    @classmethod
    def _rebuild(cls, recipe: tuple) -> "ODEFunction":
        eqs, params, backend, opt_level = recipe
        return cls(eqs, params, backend=backend, opt_level=opt_level)

    def __reduce__(self):
        raise _not_picklable("an ODEFunction", self.equations)

    def __copy__(self) -> "ODEFunction":
        return self.bind({})

    def __deepcopy__(self, memo) -> "ODEFunction":
        return self.bind({})

    @property
    def n_q(self) -> int:
        return self._core.n

    @property
    def n_u(self) -> int:
        return self._core.nu

    @property
    def time(self) -> sp.Symbol:
        return self._core.t

    @property
    def unknown_symbols(self) -> tuple:
        """x: u̇ then λ."""
        return self._core.x

    # -- evaluation ----------------------------------------------------------------------------------
    def _args(self, t, y, p) -> np.ndarray:
        a = self._template.copy()
        t = as_float(t, "t")
        y = as_floats(y, "the state y")
        if y.ndim != 1:
            raise DimensionError(f"the state y must be a vector, got shape {y.shape}")
        p = as_floats(p, "the parameter values p") if p is not None else None
        if p is not None and p.ndim != 1:
            raise DimensionError(f"the parameter values p must be a vector, got shape {p.shape}")
        a[0] = t
        if len(y) != self._ny:
            raise DimensionError(f"state of length {len(y)}; expected {self._ny} = (q, u) = {list(self.state_names)}")
        a[1:self._ny1] = y
        if self._np:
            if p is None:
                raise UnknownCoordinateError(
                    f"no values for the parameters {', '.join(s.name for s in self.parameters)}: "
                    "call f(t, y, p) with p in the order of f.parameters, or bind them")
            if len(p) != self._np:
                raise DimensionError(f"{len(p)} parameter values for {self._np} parameters "
                                     f"({', '.join(s.name for s in self.parameters)})")
            a[self._pidx] = p
        return a

    def _solve(self, out: np.ndarray):
        """x = (u̇, λ) from the flat output (u̇ also written into out[n:n + nu]): the compiled
        elimination's x when its check is finite, else the numerical solve."""
        if self._inline and math.isfinite(out[self._ichk]):
            c = self._core
            return out[c.n:c.n + c.k].tolist()
        return self._fill(out)

    def __call__(self, t, y, p=None) -> np.ndarray:
        """(K, u̇) at (t, y): a fresh float array of length n_q + n_u."""
        if _get_ident() != self._owner:
            a = self._args(t, y, p)  # another thread: its own argument array
            out = np.empty(self._size)
            self._into(a, out)
            if not self._inline or not _isfinite(out[self._ichk]):
                self._fill(out)
            return out[:self._ny]
        self._evaluate(t, y, p)
        return self._sview.copy()

    def into(self, out: np.ndarray, t, y, p=None) -> np.ndarray:
        """Write (K, u̇) at (t, y) into ``out`` and return it: the call for a caller that owns
        its result buffer (no allocation).  ``out`` must be a writable C-contiguous float64
        array of shape (n_q + n_u,) — anything else raises :class:`~geonh.errors.DimensionError`
        (checked at every call: it is the caller's array) —; t, y and p as for ``f(t, y, p)``.
        The values are those of ``f(t, y, p)``.  From a thread other than the one that built
        the function, the arguments go through a fresh array (as ``f(t, y, p)`` does)."""
        if type(out) is not np.ndarray or out.shape != self._oshape or out.strides != _STRIDE8 or out.dtype is not _F8:
            raise DimensionError(self._out_message(out))
        if _get_ident() != self._owner:
            out[:] = self(t, y, p)
            return out
        self._evaluate(t, y, p)
        try:
            out[:] = self._sview
        except ValueError:
            raise DimensionError(self._out_message(out)) from None  # read-only
        return out

    def _evaluate(self, t, y, p) -> None:
        """(K, u̇) at (t, y, p) into the owner thread's scratch (``self._sview``): the arguments
        written into the bound argument array (the checked route names what is wrong), the
        program run, the solve completed where the inline elimination's check failed."""
        a = self._buf
        if not self._lengths_fit(y, p):
            self._args(t, y, p)  # raises the error
        try:
            a[0] = t
            self._yview[...] = y
            if self._np:
                if self._pview is not None:
                    self._pview[...] = p
                else:
                    a[self._pidx] = p
        except (TypeError, ValueError):
            self._args(t, y, p)  # raises the error (ParseError, DimensionError, …)
            raise
        res = self._scratch
        if self._raw is not None:
            self._raw()  # (C backend: evaluates and solves; the fill below then repeats the solve)
        else:
            self._into(a, res)
        if not self._inline or not _isfinite(self._svals[self._ichk]):
            self._fill(res)

    def _lengths_fit(self, y, p) -> bool:
        """y (and p, when the function has open parameters) have the expected lengths; False
        also for objects without a length (the checked route then names what is wrong)."""
        try:
            return len(y) == self._ny and not (self._np and (p is None or len(p) != self._np))
        except TypeError:
            return False

    def _out_message(self, out) -> str:
        if not isinstance(out, np.ndarray):
            return f"into: out must be a numpy float64 array of shape {self._oshape}, not {type(out).__name__}"
        return (f"into: out must be a writable C-contiguous float64 array of shape {self._oshape}; got shape "
                f"{out.shape}, dtype {out.dtype}" + ("" if out.flags.writeable else ", read-only")
                + ("" if out.flags.c_contiguous else ", not contiguous"))

    def buffer(self) -> "EvaluationBuffer":
        """A buffer evaluation of this function, as CasADi's ``Function.buffer()``: the returned
        :class:`EvaluationBuffer` owns an argument array ``b.args`` = (t, y, p) (``b.y`` and
        ``b.p`` are views into it) and a result ``b.out`` (K, u̇);
        ``b()`` evaluates at what ``b.args`` holds now into ``b.out`` and returns nothing, with
        no argument checks and no allocation (the fastest call; for loops that own their
        state).  Each buffer is independent: one per thread."""
        return EvaluationBuffer(self)

    def unknowns(self, t, y, p=None) -> np.ndarray:
        """All unknowns x = (u̇, λ) at (t, y)."""
        a = self._args(t, y, p)
        out = np.empty(self._size)
        self._into(a, out)
        return np.array(self._solve(out), dtype=float)

    def mass_matrix(self, t, y, p=None) -> tuple[np.ndarray, np.ndarray]:
        """M at (t, y), and F: (M, F) as fresh arrays."""
        a = self._args(t, y, p)
        out = np.empty(self._size)
        self._into(a, out)
        c = self._core
        return out[c.iM:c.iF].reshape(c.k, c.k).copy(), out[c.iF:c.iF + c.k].copy()

    def _batch_args(self, t, Y, P) -> np.ndarray:
        Y = as_floats(Y, "the states Y")
        t = as_floats(t, "t")
        if Y.ndim != 2 or Y.shape[1] != self._ny:
            raise DimensionError(f"states of shape {Y.shape}; expected (k, {self._ny})")
        k = Y.shape[0]
        if t.ndim > 1 or (t.ndim == 1 and t.shape[0] not in (1, k)):
            raise DimensionError(f"t of shape {t.shape} for {k} states: give one time or one per state")
        A = np.empty((Y.shape[0], len(self._template)))
        A[:] = self._template
        A[:, 0] = t
        A[:, 1:self._ny1] = Y
        if self._np:
            if P is None:
                raise UnknownCoordinateError(
                    f"no values for the parameters {', '.join(s.name for s in self.parameters)}")
            P = as_floats(P, "the parameter values P")
            if P.ndim == 0 or P.shape[-1] != self._np:
                raise DimensionError(f"{P.shape[-1]} parameter values for {self._np} parameters")
            if P.ndim > 2 or (P.ndim == 2 and P.shape[0] not in (1, k)):
                raise DimensionError(f"parameter values P of shape {P.shape} for {k} states: give one parameter "
                                     f"vector ({self._np},) or one per state ({k}, {self._np})")
            A[:, self._pidx] = P
        return A

    def _batch_solve(self, out: np.ndarray) -> np.ndarray:
        """x at every row of the batch output: the compiled elimination's where every row's
        check is finite, else numpy.linalg.solve of the rows' M x = F."""
        c = self._core
        if self._inline and np.isfinite(out[:, self._ichk]).all():
            return out[:, c.n:c.n + c.k].copy()
        kk = out.shape[0]
        M = out[:, c.iM:c.iF].reshape(kk, c.k, c.k)
        F = out[:, c.iF:c.iF + c.k]
        try:
            return np.linalg.solve(M, F[..., None])[..., 0]
        except np.linalg.LinAlgError:
            for i in range(kk):
                try:
                    np.linalg.solve(M[i], F[i])
                except np.linalg.LinAlgError:
                    raise SingularMapError(f"the {c.eqs.form} mass matrix is singular at state row {i}") from None
            raise  # pragma: no cover

    def _c_batch(self, A: np.ndarray) -> np.ndarray:
        """The C backend's batch: evaluation and solve of every row in C (full output rows)."""
        out = np.empty((A.shape[0], self._size))
        bad = self._cmod.batch(A, out, self._layout)
        if bad >= 0:
            raise SingularMapError(f"the {self._core.eqs.form} mass matrix is singular at state row {bad}")
        return out

    def batch(self, t, Y, P=None) -> np.ndarray:
        """(K, u̇) at the rows of Y (shape (k, n_q + n_u)); t a number or k numbers; P one
        parameter vector or one per row.  Returns shape (k, n_q + n_u)."""
        A = self._batch_args(t, Y, P)
        c = self._core
        if self._csolve:
            return self._c_batch(A)[:, :self._ny].copy()
        out = self._core.main.batch(A)
        X = self._batch_solve(out)
        return np.concatenate([out[:, :c.n], X[:, :c.nu]], axis=1)

    def batch_unknowns(self, t, Y, P=None) -> np.ndarray:
        """x = (u̇, λ) at the rows of Y: shape (k, len(unknowns))."""
        A = self._batch_args(t, Y, P)
        if self._csolve:
            c = self._core
            return self._c_batch(A)[:, c.n:c.n + c.k].copy()
        return self._batch_solve(self._core.main.batch(A))

    def jacobian(self, t, y, p=None) -> np.ndarray:
        """∂f/∂y at (t, y), shape (n, n) for n = n_q + n_u (module doc: u̇ by implicit
        differentiation of M u̇ = F, solved numerically)."""
        c = self._core
        a = self._args(t, y, p)
        out = np.empty(self._size)
        self._into(a, out)
        x = np.asarray(self._solve(out), dtype=float)
        J = c.jac(np.concatenate([a, x]))
        JK, Ry = J[:c.n], J[c.n:]
        M = out[c.iM:c.iF].reshape(c.k, c.k)
        try:
            Jx = -np.linalg.solve(M, Ry)
        except np.linalg.LinAlgError:
            raise SingularMapError(f"the {c.eqs.form} mass matrix is singular at this state") from None
        return np.vstack([JK, Jx[:c.nu]])

    # -- further expressions -------------------------------------------------------------------------
    def observable(self, exprs, *, unknowns: bool = False, what: str = "the expressions",
                   backend: str | None = None) -> "Observable":
        """Compile ``exprs`` (a list or matrix) in (t, q, u, parameters) — and the unknowns
        x = (u̇, λ) with ``unknowns=True`` — with this function's parameter binding.  Symbols
        that are not parameters of the equations take their values from the ``params`` given
        at build time (matched by name too)."""
        return Observable(self, exprs, unknowns, what, backend)

    def __repr__(self) -> str:
        open_ = f", parameters {[s.name for s in self.parameters]}" if self.parameters else ""
        return (f"ODEFunction({self.equations.form}: y = {list(self.state_names)}, backend {self.backend!r}"
                f"{open_})")


class _CODEFunction(ODEFunction):
    """An :class:`ODEFunction` of the C backend: ``f(t, y, p)`` and ``f.into`` try the
    module's one-call entry first (``bind_call``, :mod:`geonh.numerics.cbackend`); arguments
    off its fast path (NotImplemented) and calls from other threads take the checked route."""

    def __call__(self, t, y, p=None) -> np.ndarray:
        if _get_ident() == self._owner:
            r = self._ccall(t, y, p)
            if r is not NotImplemented:
                return r
        return ODEFunction.__call__(self, t, y, p)

    def into(self, out: np.ndarray, t, y, p=None) -> np.ndarray:
        if (type(out) is np.ndarray and out.shape == self._oshape and out.strides == _STRIDE8
                and out.dtype is _F8 and out.flags.writeable and _get_ident() == self._owner):
            r = self._ccall(t, y, p, out)
            if r is not NotImplemented:
                return r
        return ODEFunction.into(self, out, t, y, p)


class EvaluationBuffer:
    """Buffers for the fastest evaluation of an :class:`ODEFunction` (:meth:`ODEFunction.buffer`).

    ``args``: the argument vector (t, q, u, parameters; bound parameters already filled in),
    ``y`` and ``p`` views of its state and open-parameter parts (p None when every parameter
    is bound or the open ones are not contiguous: then write ``args`` at ``param_index``),
    ``out``: (K, u̇), a view of the full compiled output.  ``b()`` runs the compiled code on
    ``args`` into the output and solves M x = F where the inline elimination's check fails
    (exactly as ``f(t, y, p)``); a singular M raises :class:`~geonh.errors.SingularMapError`.
    Nothing is validated at the call: the arrays are this object's, of the right shape and
    type by construction (validated once); write numbers into them, never rebind them.
    ``b.run`` is the same call as a plain function (the fastest: no method dispatch)."""

    def __init__(self, f: ODEFunction):
        self.args = f._template.copy()
        self._full = np.empty(f._size)
        self.out = self._full[:f._ny]
        self.y = self.args[1:f._ny1]
        self.param_index = f._pidx
        self.p = self.args[f._pidx] if isinstance(f._pidx, slice) else None
        self._raw = _raw_entry(f._core.main, self._full, self.args, f._layout, f._singular)
        self._slow = f._into
        self._inline = f._inline
        self._ichk = f._ichk
        self._fill = f._fill
        self._f = f
        raw = self._raw
        full, ichk, fill, slow, args = self._full, self._ichk, self._fill, self._slow, self.args
        values = full.data  # indexing gives Python floats: cheaper than a numpy scalar
        if f._csolve:
            run = raw  # the C entry evaluates and solves (a builtin: no Python frame)
        elif raw is None:
            def run() -> None:
                slow(args, full)
                if not self._inline or not _isfinite(values[ichk]):
                    fill(full)
        elif self._inline:
            def run() -> None:
                raw()
                if not _isfinite(values[ichk]):
                    fill(full)
        else:
            def run() -> None:
                raw()
                fill(full)
        #: ``b.run()`` is ``b()`` as a plain function (no method dispatch): the fastest call
        self.run = run

    def __call__(self) -> None:
        """Evaluate at ``args`` into ``out``."""
        self.run()

    def __reduce__(self):
        raise _not_picklable("an EvaluationBuffer", self._f.equations)

    def __repr__(self) -> str:
        return f"EvaluationBuffer({self._f!r})"


_F8 = np.dtype(np.float64)
_STRIDE8 = (8,)  # a C-contiguous float64 vector


def _c_module(fn: CompiledFunction):
    """The extension module of a C-backend function (:mod:`geonh.numerics.cbackend`), or None."""
    if fn.backend != "c":
        return None
    return getattr(fn.into, "__self__", None)


def _raw_entry(fn: CompiledFunction, out: np.ndarray, inp: np.ndarray, layout=None, singular: str = ""):
    """A zero-argument entry bound to ``inp`` (the argument vector) and ``out`` (the outputs):
    a call writes fn(inp) into out, nothing checked (the caller keeps both arrays alive and
    never reallocates them); None where there is none (numpy, lambda).

    C backend: the module's ``bind`` (buffers taken once through the buffer protocol; with
    ``layout`` the entry also solves M x = F in C, raising SingularMapError(``singular``)).
    LLVM: a ctypes entry into symengine's machine code, bound to its user data and to the
    arrays' addresses — a ctypes call with pre-built pointer arguments costs less than
    symengine's ``unsafe_real``, which acquires two buffers at every call."""
    module = _c_module(fn)
    if module is not None:
        return module.bind(inp, out, layout, SingularMapError, singular)
    owner = getattr(fn.into, "__self__", None)
    as_ctypes = getattr(owner, "as_ctypes", None)
    if as_ctypes is None:
        return None
    try:
        import ctypes
        cfn, user = as_ctypes()
        addr = ctypes.cast(cfn, ctypes.c_void_p).value
        if not addr:
            return None
        proto = ctypes.CFUNCTYPE(None)(addr)  # no argtypes: the pointers are passed as they are
    except Exception:  # noqa: BLE001 - no ctypes entry here: the caller uses unsafe_real
        return None
    call = partial(proto, ctypes.c_void_p(out.ctypes.data), ctypes.c_void_p(inp.ctypes.data), user)
    call.keep = (owner, cfn)  # type: ignore[attr-defined]  # the machine code lives as long as its owner
    return call


class Observable:
    """Expressions in (t, q, u, parameters[, x]) evaluated with an :class:`ODEFunction`'s
    parameters: ``g(t, y, p=None)`` and ``g.batch(t, Y, P=None)`` (see
    :meth:`ODEFunction.observable`)."""

    def __init__(self, f: ODEFunction, exprs, unknowns: bool, what: str, backend: str | None):
        if not isinstance(f, ODEFunction):
            raise ParseError(f"an Observable is built on an ODEFunction, not {type(f).__name__}")
        core = f._core
        flat = as_exprs(exprs, what=what)
        self.shape = exprs.shape if isinstance(exprs, sp.MatrixBase) else (len(flat),)
        flat, syms = core.prepare(flat)
        known = set(core.args) | (set(core.x) if unknowns else set())
        extra = syms - known
        if extra:
            given_by_name = {}
            for key, v in f._given.items():
                given_by_name[key if isinstance(key, str) else key.name] = v
            rep = {}
            for s in extra:
                if s in f._given:
                    rep[s] = _float(f._given[s], s.name)
                elif s.name in given_by_name:
                    rep[s] = _float(given_by_name[s.name], s.name)
            flat = [e.xreplace(rep) for e in flat]
        args = core.args + (core.x if unknowns else ())
        self._f = f
        self._unknowns = unknowns
        self._fn = compile_function(flat, args, backend=backend or _aux_backend(core.backend), what=what,
                                    opt_level=core.opt_level)

    def __reduce__(self):
        raise _not_picklable("an Observable", self._f.equations)

    def __call__(self, t, y, p=None) -> np.ndarray:
        f = self._f
        a = f._args(t, y, p)
        if self._unknowns:
            out = np.empty(f._size)
            f._into(a, out)
            a = np.concatenate([a, np.asarray(f._solve(out), dtype=float)])
        return self._fn(a).reshape(self.shape)

    def batch(self, t, Y, P=None) -> np.ndarray:
        f = self._f
        A = f._batch_args(t, Y, P)
        if self._unknowns:
            X = f._batch_solve(f._core.main.batch(A))
            A = np.concatenate([A, X], axis=1)
        return self._fn.batch(A).reshape((A.shape[0],) + self.shape)


def ode_function(eqs: Equations, params: Mapping | None = None, *, backend: str = "auto",
                 jacobian: bool = False) -> ODEFunction:
    """ẏ = f(t, y), y = (q, u), of ``eqs`` compiled once (:class:`ODEFunction`; also
    ``eqs.ode_function(params, ...)``): ``f(t, y)`` — or ``f(t, y, p)`` with the parameters left
    open, in the order of ``f.parameters`` — for ``scipy.integrate.solve_ivp``;
    ``f.batch(t, Y)``; ``f.jacobian(t, y)`` (compiled now with ``jacobian=True``, else at its
    first call).  M x = F is solved numerically at every call, never inverted symbolically.
    ``params``: {symbol or name: number or expression}; ``backend``: "auto" (LLVM where
    symengine has it, else numpy), "llvm", "lambda" or "numpy" (:mod:`geonh.numerics.codegen`)."""
    return ODEFunction(eqs, params, backend=backend, jacobian=jacobian)


register_method("ode_function", ode_function)


def _not_picklable(what: str, eqs) -> NotPicklableError:
    return NotPicklableError(
        f"{what} of the {eqs.form} equations holds compiled machine code and cannot be pickled (for "
        "Dask, multiprocessing or a file): ship the Equations instead (or the model's name) and call "
        "equations.ode_function(params) on the other side, once per process; geonh.sweep does this for "
        "you.  A Trajectory pickles as it is")


def _resolve(key, params: Sequence[sp.Symbol], by_name: Mapping):
    if isinstance(key, sp.Symbol) and key in params:
        return key
    name = key if isinstance(key, str) else getattr(key, "name", None)
    if name is not None and len(by_name.get(name, ())) == 1:
        return by_name[name][0]
    return None


def _split_params(eqs, params: Mapping | None) -> tuple[dict, dict]:
    """(numbers, expressions) of a params mapping keyed by symbols or names, resolved to the
    equations' symbols (:meth:`~geonh.equations.base.Equations.resolve_values`)."""
    numbers: dict = {}
    exprs: dict = {}
    if params is None:
        return numbers, exprs
    if not isinstance(params, Mapping):
        raise DimensionError("params must be a mapping {symbol or name: value}; an array of values goes "
                             "to the call, f(t, y, p)")
    for key in params:
        if not isinstance(key, (str, sp.Symbol)):
            raise DimensionError(f"parameter keys are symbols or names, got {key!r}")
    # the one rule of every value mapping: names, symbols, symbols differing only in their
    # assumptions (matched by name); a key that names nothing of the equations is refused
    params = eqs.resolve_values(params, "params")
    for key, v in params.items():
        if isinstance(v, str):
            raise DimensionError(f"parameter {key} = {v!r}: give a number or a sympy expression")
        if _is_number(v) or isinstance(v, (complex, np.complexfloating)):
            numbers[key] = v
            continue
        e = as_expr(v, what=f"parameter {key}")
        if e.is_number:
            numbers[key] = e
            continue
        exprs[key] = e
    return numbers, exprs

