"""Compiled numerical functions: sympy expressions → a fast callable, built once.

:func:`compile_function` turns a list (or matrix) of sympy expressions in given argument
symbols into a :class:`CompiledFunction`.  Backends:

* ``"llvm"`` — symengine's ``Lambdify(args, exprs, backend="llvm", cse=True)``: machine code
  through LLVM, no C compiler needed;
* ``"lambda"`` — symengine's lambda backend (a tree of C++ closures, no LLVM; builds faster,
  runs slower);
* ``"numpy"`` — ``sympy.lambdify`` with ``cse=True`` on numpy;
* ``"c"`` — the same program as for LLVM printed as C and compiled by the system C compiler
  into an extension module (:mod:`geonh.numerics.cbackend`; needs a C compiler);
* ``"auto"`` (default) — ``"llvm"`` where symengine with LLVM is installed and converts the
  expressions, else ``"numpy"``.

Before symengine compiles them, the expressions go through ``cse`` and a greedy factoring of
sums: in every sum of products the factor shared by the most terms is taken out,
a·b + a·c → a·(b + c), repeatedly (:func:`factor_sums`; two rounds; plain distributivity, no
expansion, no simplification).  On the equations of motion of the dynamic 16-trailer this cuts
the floating-point operations after cse by a third (like terms that meet inside a factored sum
cancel exactly).  ``definitions`` — (placeholder symbol, expression) pairs — are substituted
on the expression graph before compiling, so formulas written in placeholders (e.g. an
unrolled LU solve in the entries of a mass matrix) share the entries' code.

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

from ..errors import DimensionError, NotFoundError, ParseError, UnknownCoordinateError
from ..kernel.parsing import as_floats, as_sequence, expr_of, sympy_of

__all__ = ["BACKENDS", "CompiledFunction", "compile_function", "expression_atoms", "factor_sums",
           "llvm_available", "symengine_available"]

#: the backends :func:`compile_function` knows ("auto" picks llvm where it works, else numpy)
BACKENDS = ("auto", "llvm", "lambda", "numpy", "c")


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
    what = "the expressions to compile"
    if isinstance(exprs, sp.MatrixBase):
        return [expr_of(e, what=what) for e in exprs], (exprs.rows, exprs.cols)
    if isinstance(exprs, np.ndarray):
        return [expr_of(e, what=what) for e in exprs.ravel()], exprs.shape
    if isinstance(exprs, sp.Basic):
        return [exprs], ()
    flat = [expr_of(e, what=what) for e in as_sequence(exprs, what)]
    return flat, (len(flat),)


def _check_args(args: Iterable) -> tuple[sp.Symbol, ...]:
    out = tuple(expr_of(a, what="argument") for a in as_sequence(args, "arguments"))
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
    stack = [expr_of(e, what="expression") for e in as_sequence(exprs, "expressions")]
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


def _to_symengine(flat: list[sp.Expr], args: tuple[sp.Symbol, ...], definitions: Sequence = ()):
    """symengine images of ``flat`` and ``args``, converting each shared subexpression once
    (symengine's own ``sympify`` converts the tree).  Arguments get unique names (symengine
    tells symbols apart by name only).  ``definitions`` (placeholder, expression) are converted
    in order and each placeholder stands for its converted expression from then on."""
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

    def convert(root):
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
        return memo[root]

    for sym, e in definitions:
        memo[sym] = convert(sympy_of(e))
    return se_args, [convert(root) for root in flat]


def _split_term(term, one):
    """(numeric coefficient, [other factors]) of one term of a symengine sum."""
    if term.is_Mul:
        c, fs = one, []
        for x in term.args:
            if x.is_Number:
                c = c * x
            else:
                fs.append(x)
        return c, fs
    if term.is_Number:
        return term, []
    return one, [term]


def _factor_terms(terms, se):
    """Σ c·Π factors with shared factors taken out greedily: the factor present in the most
    terms (≥ 2) multiplies the sum of those terms' remainders (factored in turn); repeated on
    the other terms until no factor is shared."""
    parts = []
    while True:
        count: dict = {}
        for _, fs in terms:
            for x in set(fs):
                count[x] = count.get(x, 0) + 1
        best, k = None, 1
        for x, c in count.items():
            if c > k:
                best, k = x, c
        if best is None:
            break
        shared, rest = [], []
        for c, fs in terms:
            if best in fs:
                fs = list(fs)
                fs.remove(best)
                shared.append((c, fs))
            else:
                rest.append((c, fs))
        parts.append(se.Mul(best, _factor_terms(shared, se)))
        terms = rest
    parts.extend(se.Mul(c, *fs) for c, fs in terms)
    return se.Add(*parts)


def factor_sums(exprs, rounds: int = 2):
    """symengine expressions with common factors taken out of their sums, on the cse form.

    Each round: ``symengine.cse``; every sum among the replacements and reduced expressions
    becomes :func:`_factor_terms` of its terms (a·b + a·c + d → a·(b + c) + d, the most shared
    factor first); the replacements are substituted back, each once, so the result is an
    expression graph of the same values (exact algebra: distributivity only, which lets like
    terms inside a factored sum cancel).  Returns the new list of expressions."""
    import symengine as se
    exprs = [e if isinstance(e, se.Basic) else expr_of(e, what="expression") for e in as_sequence(exprs, "expressions")]
    one = se.Integer(1)

    def fac(e):
        if e.is_Add:
            return _factor_terms([_split_term(t, one) for t in e.args], se)
        return e

    for _ in range(rounds):
        reps, red = se.cse(list(exprs))
        memo: dict = {}

        def sub(e):
            hit = {s: memo[s] for s in e.free_symbols if s in memo}
            return e.xreplace(hit) if hit else e

        for sym, e in reps:
            memo[sym] = sub(fac(e))
        exprs = [sub(fac(e)) for e in red]
    return exprs


class CompiledFunction:
    """Expressions compiled once in ``args``; call with one argument vector.

    Attributes: ``args`` (the argument symbols, in order), ``shape`` (of one result),
    ``size`` (number of expressions), ``backend`` (the one actually used).

    * ``f(x)`` — x of length ``len(args)`` → a fresh float array of shape ``shape``;
    * ``f.batch(X)`` — X of shape (k, len(args)) → fresh array (k, *shape);
    * ``f.into(x, out)`` — the hot path for callers that own their buffers: x must be a
      C-contiguous float64 array of length ``len(args)`` and out a float64 array of length
      ``size``; nothing is checked.

    ``program``: (symengine arguments, symengine expressions) exactly as handed to the
    symengine compiler (after :func:`factor_sums`), or None (numpy backend): what
    ``benchmarks/peer_evaluation.py`` compiles with other tools.
    """

    def __init__(self, args, shape, size, backend, single, batch, into, program=None):
        self.args = args
        self.shape = shape
        self.size = size
        self.backend = backend
        self._single = single
        self._batch = batch
        self.into = into
        self.program = program

    def __call__(self, x) -> np.ndarray:
        x = _floats(x, "the argument values")
        if x.shape != (len(self.args),):
            raise DimensionError(f"expected {len(self.args)} argument values, got shape {x.shape}")
        return self._single(x).reshape(self.shape)

    def batch(self, X) -> np.ndarray:
        X = _floats(X, "the argument vectors")
        if X.ndim != 2 or X.shape[1] != len(self.args):
            raise DimensionError(f"expected argument vectors of shape (k, {len(self.args)}), got {X.shape}")
        return self._batch(X).reshape((X.shape[0],) + self.shape)

    def __repr__(self) -> str:
        return f"CompiledFunction({self.size} expressions in {len(self.args)} arguments, backend={self.backend!r})"


def _se_program(args, flat, wrt, definitions, factor):
    """(symengine arguments, expressions) to compile: converted, differentiated or factored."""
    se_args, se_exprs = _to_symengine(flat, args, definitions)
    if wrt is not None:
        pos = {a: i for i, a in enumerate(args)}
        se_wrt = [se_args[pos[w]] for w in wrt]
        se_exprs = [e.diff(w) for e in se_exprs for w in se_wrt]
    elif factor:
        se_exprs = factor_sums(se_exprs)
    return se_args, se_exprs


def _symengine(args, flat, backend, opt_level, wrt, definitions, factor):
    import symengine as se
    se_args, se_exprs = _se_program(args, flat, wrt, definitions, factor)
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

    return single, batch, lam.unsafe_real, (se_args, se_exprs)


def _numpy(args, flat, wrt, definitions):
    for sym, e in reversed(list(definitions)):
        flat = [x.xreplace({sym: e}) for x in flat]
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


def _definition(pair) -> tuple:
    """One (placeholder symbol, expression) pair of ``definitions``, converted."""
    if not isinstance(pair, (list, tuple)) or len(pair) != 2:
        raise ParseError(f"definitions are (placeholder symbol, expression) pairs, not {str(pair)[:60]}")
    d, e = (expr_of(x, what="definition") for x in pair)
    if not isinstance(d, sp.Symbol):
        raise ParseError(f"a definition's placeholder must be a Symbol, not {str(d)[:60]}")
    return d, e


def _floats(x, what: str) -> np.ndarray:
    """``x`` as a C-contiguous float array; anything not numeric is refused with ParseError."""
    if type(x) is np.ndarray and x.dtype == np.float64:  # the hot path
        return np.ascontiguousarray(x)
    return np.ascontiguousarray(as_floats(x, what))


def compile_function(exprs, args: Iterable, *, backend: str = "auto", what: str = "the expressions",
                     opt_level: int | None = None, wrt: Sequence | None = None, definitions: Sequence = (),
                     factor: bool = True) -> CompiledFunction:
    """Compile ``exprs`` (an expression, a list, or a sympy/numpy matrix) as a function of the
    symbols ``args``, once (see the module doc for the backends).  ``what`` names the
    expressions in error messages; ``opt_level`` is LLVM's optimization level (symengine's
    default 3 when None; 0 builds large functions several times faster and runs them about
    1.5 times slower).  With ``wrt`` (some of the ``args``) the Jacobian ∂exprs/∂wrt is
    compiled instead, shape (len(exprs), len(wrt)): differentiated by symengine on the
    expression graph (by sympy for the numpy backend).  ``definitions``: (placeholder symbol,
    expression) pairs, in order, each expression in ``args`` and earlier placeholders;
    ``exprs`` may use the placeholders.  ``factor``: take common factors out of sums before
    compiling (:func:`factor_sums`; symengine backends, not with ``wrt``)."""
    if backend not in BACKENDS:
        raise NotFoundError(f"unknown backend {backend!r}; backends: {', '.join(BACKENDS)}")
    args = _check_args(args)
    flat, shape = _flatten(exprs)
    definitions = [_definition(pair) for pair in as_sequence(definitions, "definitions")]
    known = list(args)
    for d, e in definitions:
        _check_free([e], tuple(known), what)
        known.append(d)
    _check_free(flat, tuple(known), what)
    if wrt is not None:
        wrt = tuple(expr_of(w, what="wrt") for w in as_sequence(wrt, "wrt"))
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
                return CompiledFunction(args, shape, size, "llvm", *_symengine(args, flat, "llvm", opt_level, wrt,
                                                                                     definitions, factor))
            except Exception:  # noqa: BLE001 - symengine cannot take these expressions: use numpy
                pass
        return CompiledFunction(args, shape, size, "numpy", *_numpy(args, flat, wrt, definitions))
    if backend == "c":  # the C backend (geonh.numerics.cbackend) on the program LLVM would get
        if not symengine_available():
            raise NotFoundError("backend 'c' needs symengine (pip install symengine); use backend='numpy'")
        from .cbackend import c_function
        se_args, se_exprs = _se_program(args, flat, wrt, definitions, factor)
        return CompiledFunction(args, shape, size, "c", *c_function(se_args, se_exprs, opt_level))
    if backend in ("llvm", "lambda"):
        if backend == "lambda" and not symengine_available():
            raise NotFoundError("backend 'lambda' needs symengine (pip install symengine); use backend='numpy'")
        if backend == "llvm" and not llvm_available():
            raise NotFoundError("backend 'llvm' needs symengine built with LLVM (pip install symengine); "
                                "use backend='numpy'")
        return CompiledFunction(args, shape, size, backend, *_symengine(args, flat, backend, opt_level, wrt,
                                                                                 definitions, factor))
    return CompiledFunction(args, shape, size, "numpy", *_numpy(args, flat, wrt, definitions))
