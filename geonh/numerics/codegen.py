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

Before symengine compiles them, the expressions go through a greedy factoring of sums on
their expression graph: in every sum of products the factor shared by the most terms is taken
out, a·b + a·c → a·(b + c), repeatedly (:func:`factor_sums`; one pass over the distinct nodes,
linear in the graph; plain distributivity, no expansion, no simplification).  On the equations of motion of the dynamic 16-trailer this cuts
the floating-point operations after cse by a third (like terms that meet inside a factored sum
cancel exactly).  ``definitions`` — (placeholder symbol, expression) pairs — are substituted
on the expression graph before compiling, so formulas written in placeholders (e.g. an
unrolled LU solve in the entries of a mass matrix) share the entries' code.

Large programs are compiled in blocks (``_blocks``, above :data:`BLOCK_THRESHOLD`): symengine's
cse matches common arguments of sums and products pairwise, and LLVM optimizes one function,
both in time growing faster than linearly with the program (N^3.5 to N^4 on the dynamic
N-trailer).  The (factored) expression graph is cut, children first, into blocks of bounded
size; each block is cse'd and compiled on its own, reading the values of earlier blocks it
needs from a scratch buffer, so the build time grows linearly with the number of blocks.  A
program below the threshold is compiled as one function.

Every call returns a **fresh** array (pydy's generated functions hand back the same output
array at every call, which silently corrupts results kept by ``solve_ivp`` callers);
:meth:`CompiledFunction.batch` evaluates at many argument vectors at once (shape (k, nargs)
→ (k, *shape)).  Expressions with symbols that are not arguments are refused
(:class:`~geonh.errors.UnknownCoordinateError` naming them), an unknown backend too
(:class:`~geonh.errors.NotFoundError`).
"""
from __future__ import annotations

import math
import threading
from collections import Counter
from functools import lru_cache
from itertools import chain
from typing import Iterable, Sequence

import numpy as np
import sympy as sp

from ..errors import DimensionError, NotFoundError, ParseError, UnknownCoordinateError
from ..kernel.budget import gc_paused as _gc_paused
from ..kernel.parsing import as_floats, as_sequence, expr_of, sympy_of
from .forward import jet_program

__all__ = ["BACKENDS", "CompiledFunction", "compile_function", "expression_atoms", "factor_sums",
           "llvm_available", "symengine_available", "symengine_program"]

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
    if (len(set(names)) != len(names) or any(isinstance(a, sp.Dummy) for a in args)
            or any(nm.startswith("_geonh_") for nm in names)):  # the block buffers' names (_blocks)
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
    the other terms until no factor is shared.  The factors are numbered once (one dict look-up
    each); the greedy search then counts integers."""
    ids: dict = {}
    val: list = []
    return _factor_keyed([(c, _numbered(fs, ids, val)) for c, fs in terms], val, se)


def _numbered(factors, number: dict, val: list) -> list:
    """The numbers of ``factors`` in ``number`` ({factor: number}, ``val`` its inverse list),
    new factors numbered on first sight."""
    ks = []
    for x in factors:
        k = number.get(x)
        if k is None:
            k = number[x] = len(val)
            val.append(x)
        ks.append(k)
    return ks


def _factor_keyed(terms: list, val: list, se):
    """``_factor_terms`` on terms (c, [factor numbers, distinct]); ``val`` maps numbers to
    factors.  The counts (terms containing each factor, kept only above one) fall as terms are
    taken out; no term is counted twice at one level."""
    count: dict = Counter(chain.from_iterable(ks for _, ks in terms))
    if len(terms) > 1:
        # the factors of every term come out at once (greedy would take them one by one,
        # recounting all terms each time: a chain of f common factors cost f passes)
        full = {k for k, c in count.items() if c == len(terms)}
        if full:
            rest = [(c, [k for k in ks if k not in full]) for c, ks in terms]
            return se.Mul(*(val[k] for k in full), _factor_keyed(rest, val, se))
    count = {k: c for k, c in count.items() if c > 1}
    parts = []
    while count:
        best, most = None, 1
        for k, c in count.items():
            if c > most:
                best, most = k, c
        if best is None:
            break
        shared, rest = [], []
        for c, ks in terms:
            if best in ks:
                for k in ks:
                    if k in count:
                        count[k] -= 1
                ks = ks.copy()
                ks.remove(best)
                shared.append((c, ks))
            else:
                rest.append((c, ks))
        count = {k: c for k, c in count.items() if c > 1}
        parts.append(se.Mul(val[best], _factor_keyed(shared, val, se)))
        terms = rest
    parts.extend(se.Mul(c, *(val[k] for k in ks)) for c, ks in terms)
    return se.Add(*parts)


def factor_sums(exprs, rounds: int = 1):
    """symengine expressions with common factors taken out of their sums, on the expression graph.

    Each round walks the distinct nodes of the graph once, children before parents
    (``_postorder``: hash-consing, structurally equal subtrees are one node), and rebuilds
    every node from its rebuilt arguments; a sum becomes ``_factor_terms`` of its terms
    (a·b + a·c + d → a·(b + c) + d, the most shared factor first).  Every node is rebuilt
    once, so the pass is linear in the size of the graph (up to the factoring of each sum),
    and the result is an expression graph of the same values (exact algebra: distributivity
    only, which lets like terms inside a factored sum cancel).  (Before, each round went
    through ``symengine.cse``, whose common-argument matching grows as N^4 on the dynamic
    N-trailer.)  Returns the new list of expressions."""
    import symengine as se
    exprs = [e if isinstance(e, se.Basic) else expr_of(e, what="expression") for e in as_sequence(exprs, "expressions")]
    with _gc_paused():
        for _ in range(rounds):
            exprs = _factor_graph(exprs, se)
    return exprs


def _factor_graph(exprs: list, se) -> list:
    """One round of :func:`factor_sums`: each distinct node rebuilt once from its rebuilt
    arguments, sums factored.  Factors are numbered once for the whole graph and each distinct
    term split once (a long product shared by many sums is not taken apart again in each)."""
    one = se.Integer(1)
    new: dict = {}
    number: dict = {}
    val: list = []
    split: dict = {}

    def keyed(t):
        r = split.get(t)
        if r is None:
            c, fs = _split_term(t, one)
            r = split[t] = (c, _numbered(fs, number, val))
        return r

    for node, args in _postorder_args(exprs):
        got = [new.get(a) for a in args]               # one look-up per edge
        changed = any(g is not None for g in got)
        if changed:
            args = tuple(a if g is None else g for a, g in zip(args, got))
        if node.is_Add:
            if changed:                 # the rebuilt terms may cancel or merge: re-add them first
                total = se.Add(*args)
                if not total.is_Add:
                    new[node] = total
                    continue
                args = total.args
            new[node] = _factor_keyed([keyed(t) for t in args], val, se)
        elif changed:
            new[node] = node.func(*args)
    return [new.get(e, e) for e in exprs]


def _postorder(roots) -> list:
    """The distinct compound nodes (with arguments) of the expression graph of ``roots``,
    children before parents, each once (structurally equal nodes are one node: the dict keys
    hash and compare symengine expressions structurally)."""
    return [node for node, _ in _postorder_args(roots)]


def _postorder_args(roots) -> list:
    """:func:`_postorder` as (node, its arguments) pairs.  A symengine node's ``args`` builds a
    new tuple of Python wrappers at every access (microseconds each), so it is read once per
    distinct node here — leaves included, which are remembered too — and handed on to the
    callers (:func:`_factor_graph`, :func:`_blocks`) instead of being read again."""
    args_of: dict = {}
    order: list = []
    for root in roots:
        if root in args_of:
            continue
        ra = args_of[root] = root.args
        if not ra:
            continue
        stack = [(root, ra, iter(ra))]
        while stack:
            node, nargs, it = stack[-1]
            for a in it:
                if a not in args_of:
                    aa = args_of[a] = a.args
                    if aa:
                        stack.append((a, aa, iter(aa)))
                        break
            else:
                stack.pop()
                order.append((node, nargs))
    return order


#: a program heavier than this (operations, roughly: ``_blocks``' weights of the factored
#: graph) is compiled in blocks; lighter ones as one function.  Blocks cost per call (one compiled
#: call each, values that cross blocks go through memory, LLVM optimizes each alone), so only
#: programs whose single-function build grows out of reach are split: the dynamic 32-trailer
#: (about 63,000 after factoring) is one function, the 64-trailer (about 300,000) is split.
BLOCK_THRESHOLD = 250_000
#: the size of one block (same weights) when a program is split.  symengine's cse of one block
#: grows superlinearly with its size (the whole 64-trailer program at once: 75 s), so small
#: blocks build faster; each block costs ~0.5 µs per call (one compiled call, values through
#: memory).  Measured on the 64-trailer (weight 301,539; CPU, loaded machine, one run): blocks
#: of 80,000 built in 41.7 s and ran 78 µs per call, of 20,000 in 24.6 s and 66 µs, of 10,000
#: in 17.9 s and 75 µs; a second run, the calls timed interleaved: 20,000 in 18.5 s and 61.5 µs,
#: 80,000 in 28.4 s and 59.1 µs.  (The call is bound by fetching ~1.6 MB of straight-line machine code,
#: more than the 1 MB L2 cache of a core here, whatever the split.)
BLOCK_OPS = 20_000


def _blocks(roots: list, block_ops: int, threshold: int = 0) -> list | None:
    """Split the expression graph of ``roots`` into blocks of about ``block_ops`` operations,
    or None when it is one block or weighs at most ``threshold`` in all.

    The distinct nodes are taken children first (``_postorder``) and cut into consecutive
    runs of about ``block_ops`` (a node with k arguments weighs k − 1, at least 1).  A node
    used by a later block (or an output computed before the last block) is a *cut* node: its
    block writes it into a buffer, and later blocks read it as an input symbol.  Returns, per
    block, (cut nodes computed there, their expressions in the inputs), the last block's
    "cut nodes" being the outputs ``roots``.  Each block is one graph walk (a memoized
    ``xreplace`` of the earlier cut nodes by their symbols), so the split is linear in the
    size of the graph, and every block's own cse and compilation see a program of bounded
    size: their superlinear costs stay bounded per block."""
    import symengine as se
    pairs = _postorder_args(roots)
    order = [node for node, _ in pairs]
    weights = [max(1, len(args) - 1) for _, args in pairs]
    if sum(weights) <= threshold:
        return None
    weight = 0
    block: dict = {}
    b = 0
    for node, w in zip(order, weights):
        block[node] = b
        weight += w
        if weight >= block_ops:
            b, weight = b + 1, 0
    nblocks = b + 1 if weight else b
    if nblocks <= 1:
        return None
    last = nblocks - 1
    cut: list[list] = [[] for _ in range(nblocks)]
    is_cut: set = set()

    def mark(x, used_in):
        bx = block.get(x)
        if bx is not None and bx < used_in and x not in is_cut:
            is_cut.add(x)
            cut[bx].append(x)

    for node, args in pairs:
        bn = block[node]
        for a in args:
            mark(a, bn)
    for r in roots:
        mark(r, last)
    out = []
    rep: dict = {}
    k = 0
    for bi in range(nblocks):
        nodes = roots if bi == last else cut[bi]
        wrapped = se.function_symbol("_geonh_block", *nodes) if nodes else None
        exprs = list(wrapped.xreplace(rep).args) if rep and wrapped is not None else list(nodes)
        out.append((nodes, exprs))
        if bi != last:
            for x in cut[bi]:
                rep[x] = se.Symbol(f"_geonh_t{k}")
                k += 1
    return out


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

    @classmethod
    def of_lambdify(cls, args, shape, size: int, lam) -> "CompiledFunction":
        """The function of a symengine LLVM Lambdify of ``size`` outputs in ``args`` (one
        read from the compile cache, :mod:`geonh.numerics.cache`).  Checked: ``args`` distinct
        sympy Symbols, ``shape`` a tuple of non-negative ints whose product is ``size``, ``lam``
        a symengine Lambdify (else :class:`~geonh.errors.DimensionError` /
        :class:`~geonh.errors.ParseError`)."""
        args = _check_args(args)
        if (not isinstance(shape, tuple) or not all(type(k) is int and k >= 0 for k in shape)
                or type(size) is not int or math.prod(shape) != size):
            raise DimensionError(f"of_lambdify: shape {shape!r} and size {size!r} do not match")
        if type(lam).__name__ not in ("LLVMDouble", "LambdaDouble", "Lambdify") \
                or not type(lam).__module__.startswith("symengine"):
            raise ParseError(f"of_lambdify: expected a symengine Lambdify, got {type(lam).__name__}")

        def single(x):
            out = np.empty(size)
            lam.unsafe_real(x, out)
            return out

        def batch(X):
            return np.asarray(lam(X), dtype=float).reshape(X.shape[0], size)

        return cls(args, shape, size, "llvm", single, batch, lam.unsafe_real)

    def __repr__(self) -> str:
        return f"CompiledFunction({self.size} expressions in {len(self.args)} arguments, backend={self.backend!r})"


def _se_program(args, flat, wrt, definitions, factor, jet=False):
    """(symengine arguments, expressions) to compile: converted, differentiated (``wrt``;
    with ``jet`` the values and the Jacobian by forward mode, :func:`~.forward.jet_program`) or
    factored (:func:`factor_sums`)."""
    se_args, se_exprs = _to_symengine(flat, args, definitions)
    if wrt is not None:
        pos = {a: i for i, a in enumerate(args)}
        se_wrt = [se_args[pos[w]] for w in wrt]
        if jet:
            return se_args, jet_program(factor_sums(se_exprs) if factor else se_exprs, se_wrt)
        se_exprs = [e.diff(w) for e in se_exprs for w in se_wrt]
    elif factor:
        se_exprs = factor_sums(se_exprs)
    return se_args, se_exprs


def _symengine(args, flat, backend, opt_level, wrt, definitions, factor, block_ops=None, jet=False):
    """(single, batch, into, program) compiled by symengine: one function, or blocks for a
    heavy program; factored once, on the whole graph (linear, :func:`factor_sums`), before
    any split."""
    import symengine as se
    se_args, se_exprs = _se_program(args, flat, wrt, definitions, factor, jet)
    kw = {"backend": backend, "cse": True, "real": True}
    if backend == "llvm" and opt_level is not None:
        kw["opt_level"] = opt_level
    size = len(se_exprs)
    blocks = _blocks(se_exprs, BLOCK_OPS if block_ops is None else block_ops, BLOCK_THRESHOLD)
    if blocks is None:
        lam = se.Lambdify(se_args, se_exprs, **kw)

        def single(x):
            out = np.empty(size)
            lam.unsafe_real(x, out)
            return out

        def batch(X):
            return np.asarray(lam(X), dtype=float).reshape(X.shape[0], size)

        return single, batch, lam.unsafe_real, (se_args, se_exprs)
    return (*_chained(se_args, blocks, size, kw), (se_args, se_exprs))


def _chained(se_args: list, blocks: list, size: int, kw: dict):
    """(single, batch, into) of a program compiled in blocks (``_blocks``): block i is
    compiled in (args, the cut values of the blocks before it) and writes its cut values into
    a scratch buffer laid out as [args, block 0's, block 1's, …]; the last block writes the
    outputs.  The scratch buffer (and its views) is kept per thread (a fresh buffer at every
    call costs page faults: 8 µs per call on the 64-trailer), so the functions are safe to
    share between threads."""
    import symengine as se
    nargs = len(se_args)
    inputs = list(se_args)
    stages, lams = [], []
    start = nargs
    for nodes, exprs in blocks[:-1]:
        lam = se.Lambdify(list(inputs), exprs, **kw)
        stages.append((lam.unsafe_real, start, start + len(exprs)))
        lams.append(lam)
        inputs.extend(se.Symbol(f"_geonh_t{k}") for k in range(start - nargs, start - nargs + len(exprs)))
        start += len(exprs)
    total = start
    final = se.Lambdify(list(inputs), blocks[-1][1], **kw)
    final_into = final.unsafe_real

    local = threading.local()

    def scratch():
        buf = np.empty(total)
        local.plan = plan = (buf, buf[:nargs], [(run, buf[:i0], buf[i0:i1]) for run, i0, i1 in stages])
        return plan

    def into(x, out):
        try:
            buf, head, steps = local.plan
        except AttributeError:
            buf, head, steps = scratch()
        head[:] = x
        for run, inp, res in steps:
            run(inp, res)
        final_into(buf, out)

    def single(x):
        out = np.empty(size)
        into(x, out)
        return out

    chunk = max(1, 4_000_000 // total)   # rows per pass: at most ~32 MB of scratch

    def batch(X):
        k = X.shape[0]
        res = np.empty((k, size))
        for r0 in range(0, k, chunk):
            r1 = min(k, r0 + chunk)
            B = np.empty((r1 - r0, total))
            B[:, :nargs] = X[r0:r1]
            for lam, (run, i0, i1) in zip(lams, stages):
                B[:, i0:i1] = np.asarray(lam(np.ascontiguousarray(B[:, :i0])), dtype=float).reshape(r1 - r0, i1 - i0)
            res[r0:r1] = np.asarray(final(B), dtype=float).reshape(r1 - r0, size)
        return res

    return single, batch, into


def _numpy(args, flat, wrt, definitions, jet=False):
    for sym, e in reversed(list(definitions)):
        flat = [x.xreplace({sym: e}) for x in flat]
    if wrt is not None:
        flat = (list(flat) if jet else []) + list(sp.Matrix(flat).jacobian(list(wrt)))
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
                     factor: bool = True, jet: bool = False) -> CompiledFunction:
    """Compile ``exprs`` (an expression, a list, or a sympy/numpy matrix) as a function of the
    symbols ``args``, once (see the module doc for the backends).  ``what`` names the
    expressions in error messages; ``opt_level`` is LLVM's optimization level (symengine's
    default 3 when None; 0 builds large functions several times faster and runs them about
    1.5 times slower).  With ``wrt`` (some of the ``args``) the Jacobian ∂exprs/∂wrt is
    compiled instead, shape (len(exprs), len(wrt)): differentiated by symengine on the
    expression graph (by sympy for the numpy backend).  ``definitions``: (placeholder symbol,
    expression) pairs, in order, each expression in ``args`` and earlier placeholders;
    ``exprs`` may use the placeholders.  ``factor``: take common factors out of sums before
    compiling (:func:`factor_sums`; symengine backends, not with ``wrt``).  ``jet`` (with
    ``wrt``): the values and the Jacobian in one function, shape (len(exprs) · (1 + len(wrt)),):
    the values, then ∂exprs/∂wrt row-major, by forward mode on the expression graph
    (:func:`geonh.numerics.forward.jet_program`; the values factored unless ``factor`` is
    False) — one compile instead of two."""
    with _gc_paused():   # graph passes over large programs: see _gc_paused
        return _compile_function(exprs, args, backend, what, opt_level, wrt, definitions, factor, jet)


def symengine_program(exprs, args: Iterable, *, what: str = "the expressions", definitions: Sequence = (),
                      factor: bool = True) -> tuple[list, list]:
    """(symengine arguments, symengine expressions) of ``exprs`` in ``args``: the very program
    :func:`compile_function` hands to symengine's compilers and to the C backend — checked as
    there (unknown symbols refused, :class:`~geonh.errors.UnknownCoordinateError`), converted
    with each shared subexpression once, ``definitions`` substituted on the graph and sums
    factored (:func:`factor_sums`) — for printers of the same program in other languages
    (:mod:`geonh.numerics.export`).  Needs symengine
    (:class:`~geonh.errors.NotFoundError` without it)."""
    if not symengine_available():
        raise NotFoundError("symengine_program needs symengine (pip install symengine)")
    args, flat, _, definitions = _checked_inputs(exprs, args, definitions, what)
    with _gc_paused():
        return _se_program(args, flat, None, definitions, factor)


def _checked_inputs(exprs, args, definitions, what):
    """The arguments, the flat expressions with their shape, and the definitions (d, e), each
    definition's e and every expression free only of the arguments and earlier definitions."""
    args = _check_args(args)
    flat, shape = _flatten(exprs)
    definitions = [_definition(pair) for pair in as_sequence(definitions, "definitions")]
    known = list(args)
    for d, e in definitions:
        _check_free([e], tuple(known), what)
        known.append(d)
    _check_free(flat, tuple(known), what)
    return args, flat, shape, definitions


def _compile_function(exprs, args, backend, what, opt_level, wrt, definitions, factor, jet) -> CompiledFunction:
    """:func:`compile_function`'s work (its arguments, positionally)."""
    if backend not in BACKENDS:
        raise NotFoundError(f"unknown backend {backend!r}; backends: {', '.join(BACKENDS)}")
    args, flat, shape, definitions = _checked_inputs(exprs, args, definitions, what)
    if wrt is not None:
        wrt = tuple(expr_of(w, what="wrt") for w in as_sequence(wrt, "wrt"))
        missing = [str(w) for w in wrt if w not in args]
        if missing:
            raise UnknownCoordinateError(f"cannot differentiate with respect to {', '.join(missing)}: "
                                         "not among the arguments")
        shape = (len(flat) * (1 + len(wrt)),) if jet else (len(flat), len(wrt))
        size = math.prod(shape)
    elif jet:
        raise ParseError("jet=True needs wrt (the variables of the Jacobian)")
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
                                                                                     definitions, factor, jet=jet))
            except Exception:  # noqa: BLE001 - symengine cannot take these expressions: use numpy
                pass
        return CompiledFunction(args, shape, size, "numpy", *_numpy(args, flat, wrt, definitions, jet))
    if backend == "c":  # the C backend (geonh.numerics.cbackend) on the program LLVM would get
        if not symengine_available():
            raise NotFoundError("backend 'c' needs symengine (pip install symengine); use backend='numpy'")
        from .cbackend import c_function
        se_args, se_exprs = _se_program(args, flat, wrt, definitions, factor, jet)
        return CompiledFunction(args, shape, size, "c", *c_function(se_args, se_exprs, opt_level))
    if backend in ("llvm", "lambda"):
        if backend == "lambda" and not symengine_available():
            raise NotFoundError("backend 'lambda' needs symengine (pip install symengine); use backend='numpy'")
        if backend == "llvm" and not llvm_available():
            raise NotFoundError("backend 'llvm' needs symengine built with LLVM (pip install symengine); "
                                "use backend='numpy'")
        return CompiledFunction(args, shape, size, backend, *_symengine(args, flat, backend, opt_level, wrt,
                                                                                 definitions, factor, jet=jet))
    return CompiledFunction(args, shape, size, "numpy", *_numpy(args, flat, wrt, definitions, jet))
