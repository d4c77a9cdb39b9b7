"""Compiled numerical functions: sympy expressions → a fast callable, built once.

:func:`compile_function` turns a list (or matrix) of sympy expressions in given argument
symbols into a :class:`CompiledFunction`.  Backends:

* ``"llvm"`` — symengine's ``Lambdify(args, exprs, backend="llvm", cse=True)``: machine code
  through LLVM, no C compiler needed;
* ``"lambda"`` — symengine's lambda backend (a tree of C++ closures, no LLVM; builds faster,
  runs slower);
* ``"numpy"`` — ``sympy.lambdify`` with ``cse=True`` on numpy;
* ``"auto"`` (default) — ``"llvm"`` where symengine with LLVM is installed and converts the
  expressions, else ``"numpy"``.

Every call returns a **fresh** array (pydy's generated functions hand back the same output
array at every call, which silently corrupts results kept by ``solve_ivp`` callers);
:meth:`CompiledFunction.batch` evaluates at many argument vectors at once (shape (k, nargs)
→ (k, *shape)).  Expressions with symbols that are not arguments are refused
(:class:`~geonh.errors.UnknownCoordinateError` naming them), an unknown backend too
(:class:`~geonh.errors.NotFoundError`).
"""
from __future__ import annotations

from functools import lru_cache
from typing import Iterable, Sequence

import numpy as np
import sympy as sp

from ..errors import DimensionError, NotFoundError, UnknownCoordinateError

__all__ = ["BACKENDS", "CompiledFunction", "compile_function", "expression_atoms", "llvm_available",
           "symengine_available"]

#: the backends :func:`compile_function` knows ("auto" picks llvm where it works, else numpy)
BACKENDS = ("auto", "llvm", "lambda", "numpy")


@lru_cache(maxsize=None)
def symengine_available() -> bool:
    """Is symengine importable here?"""
    try:
        import symengine  # noqa: F401
    except ImportError:
        return False
    return True


@lru_cache(maxsize=None)
def llvm_available() -> bool:
    """Is symengine with its LLVM backend importable and working here?"""
    if not symengine_available():
        return False
    try:
        import symengine as se
        x = se.Symbol("x")
        f = se.Lambdify([x], [x + 1], backend="llvm")
        return float(f([1.0])[0]) == 2.0
    except Exception:  # noqa: BLE001 - any failure means: not available
        return False


def _flatten(exprs) -> tuple[list[sp.Expr], tuple[int, ...]]:
    if isinstance(exprs, sp.MatrixBase):
        return [sp.sympify(e) for e in exprs], (exprs.rows, exprs.cols)
    if isinstance(exprs, np.ndarray):
        return [sp.sympify(e) for e in exprs.ravel()], exprs.shape
    if isinstance(exprs, sp.Basic):
        return [exprs], ()
    flat = [sp.sympify(e) for e in exprs]
    return flat, (len(flat),)


def _check_args(args: Sequence) -> tuple[sp.Symbol, ...]:
    out = tuple(sp.sympify(a) for a in args)
    for a in out:
        if not isinstance(a, sp.Symbol):
            raise DimensionError(f"arguments must be sympy Symbols, got {a!r}")
    if len(set(out)) != len(out):
        seen, rep = set(), []
        for a in out:
            if a in seen:
                rep.append(str(a))
            seen.add(a)
        raise DimensionError(f"repeated argument symbol(s): {', '.join(rep)}")
    return out


def expression_atoms(exprs: Iterable[sp.Basic]) -> tuple[set, set]:
    """(symbols, undefined functions and derivatives) of the expressions, each shared
    subexpression visited once (``free_symbols`` walks the tree, which for equations of
    motion can be a hundred times the size of their expression graph)."""
    seen: set = set()
    syms: set = set()
    undef: set = set()
    stack = list(exprs)
    while stack:
        e = stack.pop()
        if e in seen:
            continue
        seen.add(e)
        if e.is_Symbol:
            syms.add(e)
        elif isinstance(e, (sp.core.function.AppliedUndef, sp.Derivative)):
            undef.add(e)
        else:
            stack.extend(e.args)
    return syms, undef


def _check_free(flat: list[sp.Expr], args: tuple[sp.Symbol, ...], what: str) -> None:
    free, undef = expression_atoms(flat)
    if undef:
        raise UnknownCoordinateError(
            f"{what} contain undefined functions or derivatives: {sorted(map(str, undef))}; "
            "write them as plain symbols (ConfigurationSpace.from_dynamic)")
    left = free - set(args)
    if left:
        names = sorted(map(str, left))
        raise UnknownCoordinateError(
            f"{what} contain symbols that are neither arguments nor given values: {', '.join(names)}")


_SE_FUNCTIONS = ("sin", "cos", "tan", "cot", "sec", "csc", "asin", "acos", "atan", "atan2", "sinh", "cosh",
                 "tanh", "asinh", "acosh", "atanh", "exp", "log", "Abs", "sign", "floor", "ceiling", "Max", "Min")


def _to_symengine(flat: list[sp.Expr], args: tuple[sp.Symbol, ...]):
    """symengine images of ``flat`` and ``args``, converting each shared subexpression once
    (symengine's own ``sympify`` converts the tree).  Arguments get unique names (symengine
    tells symbols apart by name only)."""
    import symengine as se
    names = [a.name for a in args]
    if len(set(names)) != len(names) or any(isinstance(a, sp.Dummy) for a in args):
        names = [f"_geonh_arg{k}" for k in range(len(args))]
        rename = {a: sp.Symbol(nm) for a, nm in zip(args, names)}
    else:
        rename = {}
    se_args = [se.Symbol(nm) for nm in names]
    memo: dict = dict(zip(args, se_args))
    funcs = {name: getattr(se, name) for name in _SE_FUNCTIONS if hasattr(se, name)}

    def node(e, ch):
        if e.is_Add:
            return se.Add(*ch)
        if e.is_Mul:
            return se.Mul(*ch)
        if e.is_Pow:
            return se.Pow(*ch)
        if not e.args:
            return se.sympify(e)
        fn = funcs.get(type(e).__name__) if isinstance(e, sp.Function) else None
        if fn is not None:
            return fn(*ch)
        return se.sympify(e.xreplace(rename) if rename else e)

    out = []
    for root in flat:
        stack = [(root, False)]
        while stack:
            e, ready = stack.pop()
            if e in memo:
                continue
            if ready:
                memo[e] = node(e, [memo[a] for a in e.args])
                continue
            stack.append((e, True))
            stack.extend((a, False) for a in e.args if a not in memo)
        out.append(memo[root])
    return se_args, out


class CompiledFunction:
    """Expressions compiled once in ``args``; call with one argument vector.

    Attributes: ``args`` (the argument symbols, in order), ``shape`` (of one result),
    ``size`` (number of expressions), ``backend`` (the one actually used).

    * ``f(x)`` — x of length ``len(args)`` → a fresh float array of shape ``shape``;
    * ``f.batch(X)`` — X of shape (k, len(args)) → fresh array (k, *shape);
    * ``f.into(x, out)`` — the hot path for callers that own their buffers: x must be a
      C-contiguous float64 array of length ``len(args)`` and out a float64 array of length
      ``size``; nothing is checked.
    """

    def __init__(self, args, shape, size, backend, single, batch, into):
        self.args = args
        self.shape = shape
        self.size = size
        self.backend = backend
        self._single = single
        self._batch = batch
        self.into = into

    def __call__(self, x) -> np.ndarray:
        x = np.ascontiguousarray(x, dtype=float)
        if x.shape != (len(self.args),):
            raise DimensionError(f"expected {len(self.args)} argument values, got shape {x.shape}")
        return self._single(x).reshape(self.shape)

    def batch(self, X) -> np.ndarray:
        X = np.ascontiguousarray(X, dtype=float)
        if X.ndim != 2 or X.shape[1] != len(self.args):
            raise DimensionError(f"expected argument vectors of shape (k, {len(self.args)}), got {X.shape}")
        return self._batch(X).reshape((X.shape[0],) + self.shape)

    def __repr__(self) -> str:
        return f"CompiledFunction({self.size} expressions in {len(self.args)} arguments, backend={self.backend!r})"


def _symengine(args, flat, backend, opt_level, wrt):
    import symengine as se
    se_args, se_exprs = _to_symengine(flat, args)
    if wrt is not None:
        pos = {a: i for i, a in enumerate(args)}
        se_wrt = [se_args[pos[w]] for w in wrt]
        se_exprs = [e.diff(w) for e in se_exprs for w in se_wrt]
    kw = {"backend": backend, "cse": True, "real": True}
    if backend == "llvm" and opt_level is not None:
        kw["opt_level"] = opt_level
    lam = se.Lambdify(se_args, se_exprs, **kw)
    size = len(se_exprs)

    def single(x):
        out = np.empty(size)
        lam.unsafe_real(x, out)
        return out

    def batch(X):
        return np.asarray(lam(X), dtype=float).reshape(X.shape[0], size)

    return single, batch, lam.unsafe_real


def _numpy(args, flat, wrt):
    if wrt is not None:
        flat = list(sp.Matrix(flat).jacobian(list(wrt)))
    f = sp.lambdify(list(args), flat, modules="numpy", cse=True)
    size = len(flat)

    def into(x, out):
        out[:] = f(*x)

    def single(x):
        out = np.empty(size)
        out[:] = f(*x)
        return out

    def batch(X):
        vals = f(*X.T)
        out = np.empty((X.shape[0], size))
        for j, v in enumerate(vals):
            out[:, j] = v
        return out

    return single, batch, into


def compile_function(exprs, args: Iterable, *, backend: str = "auto", what: str = "the expressions",
                     opt_level: int | None = None, wrt: Sequence | None = None) -> CompiledFunction:
    """Compile ``exprs`` (an expression, a list, or a sympy/numpy matrix) as a function of the
    symbols ``args``, once (see the module doc for the backends).  ``what`` names the
    expressions in error messages; ``opt_level`` is LLVM's optimization level (symengine's
    default 3 when None; 0 builds large functions several times faster and runs them about
    1.5 times slower).  With ``wrt`` (some of the ``args``) the Jacobian ∂exprs/∂wrt is
    compiled instead, shape (len(exprs), len(wrt)): differentiated by symengine on the
    expression graph (by sympy for the numpy backend)."""
    if backend not in BACKENDS:
        raise NotFoundError(f"unknown backend {backend!r}; backends: {', '.join(BACKENDS)}")
    args = _check_args(list(args))
    flat, shape = _flatten(exprs)
    _check_free(flat, args, what)
    if wrt is not None:
        wrt = tuple(sp.sympify(w) for w in wrt)
        missing = [str(w) for w in wrt if w not in args]
        if missing:
            raise UnknownCoordinateError(f"cannot differentiate with respect to {', '.join(missing)}: "
                                         "not among the arguments")
        shape = (len(flat), len(wrt))
        size = len(flat) * len(wrt)
    else:
        size = len(flat)
    if size == 0:
        def single(x):
            return np.empty(0)

        def batch(X):
            return np.empty((X.shape[0], 0))

        return CompiledFunction(args, shape, 0, "numpy" if backend == "auto" else backend, single, batch,
                                lambda x, out: None)
    if backend == "auto":
        if llvm_available():
            try:
                return CompiledFunction(args, shape, size, "llvm", *_symengine(args, flat, "llvm", opt_level, wrt))
            except Exception:  # noqa: BLE001 - symengine cannot take these expressions: use numpy
                pass
        return CompiledFunction(args, shape, size, "numpy", *_numpy(args, flat, wrt))
    if backend in ("llvm", "lambda"):
        if backend == "lambda" and not symengine_available():
            raise NotFoundError("backend 'lambda' needs symengine (pip install symengine); use backend='numpy'")
        if backend == "llvm" and not llvm_available():
            raise NotFoundError("backend 'llvm' needs symengine built with LLVM (pip install symengine); "
                                "use backend='numpy'")
        return CompiledFunction(args, shape, size, backend, *_symengine(args, flat, backend, opt_level, wrt))
    return CompiledFunction(args, shape, size, "numpy", *_numpy(args, flat, wrt))
