"""A C backend for compiled functions: the scalar program as a CPython extension module.

:func:`c_program` takes the program geonh hands to symengine's compilers — the symengine
arguments and expressions of :class:`~geonh.numerics.codegen.CompiledFunction` (after
geonh's factoring of sums) — and :func:`build` turns it into a loaded extension module:

* ``symengine.cse`` over the whole program, so a subexpression (the sine and the cosine of one
  angle among them) is computed once;
* every node of the cse'd graph printed as one C statement ``const double vN = …;`` in static
  single assignment form, by the small printer here — only operations (+, ×, ÷, integer
  powers by squaring, ``sqrt`` for exponent ½, and the C99 math functions), numbers printed as
  ``repr(float)`` (shortest round-trip, exact) and names generated here (``in[i]``,
  ``out[i]``, ``vN``).  No symbol name, user string or expression text ever reaches the C
  compiler, so a parameter called ``int``, ``a'b`` or ``x[0]`` compiles as any other;
* entries of the module (``geonh_eval(const double *in, double *out)`` is the program):
  ``into(x, out)`` (buffers checked at every call), ``batch(X, O, layout)`` (C-contiguous
  (k, nargs) in, (k, nout) out, looping over the rows in C with the GIL released, WIDTH rows
  at a time through ``geonh_eval_w``, the rows left over one by one through ``geonh_eval``) and
  ``bind(x, out, layout, error, message)``, which takes the two buffers once (through the
  buffer protocol, held until the entry dies) and returns a zero-argument builtin
  (``METH_NOARGS``) that evaluates into them: the per-call entry of
  :class:`~geonh.numerics.compiled.EvaluationBuffer`;
* ``bind_call(x, out, layout, error, message, copy, ny, pidx)`` returns the entry of
  ``f(t, y, p)`` (``METH_FASTCALL``): t, y (a float64 contiguous array or a list/tuple of
  floats and ints of length ny) and p (the same, written at the argument positions
  ``pidx``) go straight into the bound argument buffer, and the entry returns ``copy()`` of
  the result — or fills a fourth argument ``out`` —; anything off that path (another type,
  a wrong length, p missing) returns ``NotImplemented``, and the caller takes its checked
  route, which raises the proper error;
* ``layout`` = (n, nu, k, iM, ichk) describes the output of an
  :class:`~geonh.numerics.compiled.ODEFunction` ([K (n), x (k), M (k × k), F (k), check]); with
  it the entry finishes the solve of M x = F in C: where the compiled elimination's check
  value ``out[ichk]`` is not finite (or there is none, ichk < 0), x is computed by Gaussian
  elimination with partial pivoting (the first largest |entry| of the column as pivot, as
  LAPACK's ``dgetf2``; for k ≤ 2 the very operations of the Python solver of the LLVM route,
  so the same bits) and written to out[n:n + k]; an exactly zero pivot raises ``error(message)``
  (``bind``) or returns the row (``batch``).  ``layout`` None: evaluation only.

``geonh_eval_w`` is the same program printed a second time (``_lanes``) on GCC/Clang
vector types of WIDTH doubles (``_width``: 4, or 8 for programs of 1000 steps or more),
state j in lane j: +, × and ÷ are vector instructions, whose every lane IEEE 754 rounds as the
scalar operation (and no fused multiply-add, below), and every math.h function is called per
lane on the scalar libm (the compiler still merges the sine and the cosine of one lane's angle
into one ``sincos``), so each row gets the bits of ``geonh_eval`` — no vector math library,
whose functions are accurate to a few ulp, not to the bit.

Compilation: the system C compiler (:func:`find_compiler`: sysconfig's ``CC``, else ``cc``,
``gcc``, ``clang`` on PATH) with ``-O2 -fno-math-errno -ffp-contract=off`` (IEEE results
unchanged: no ``-ffast-math``; ``-fno-math-errno`` only lets ``sqrt`` be one instruction and
sin/cos of one angle share a ``sincos`` call; ``-ffp-contract=off`` forbids fused
multiply-adds, which would round differently from the program as written) and Python's
include directory, into a private temporary directory; loaded with
:class:`importlib.machinery.ExtensionFileLoader` under a module name made from the hash of
the source.  ``-march=native`` is added where the compiler reports what it resolves to
(:func:`native_target`, gcc): measured on the dynamic 16-trailer it makes the batch 17 %
faster (1.87 → 1.55 µs/state CPU, same bits; −O3 and −O1 change nothing), and the resolved
target is part of the cache key.  No compiler → :class:`~geonh.errors.MissingDependencyError`.

Built modules are kept on disk by the compile cache (:class:`geonh.numerics.cache.ModuleFiles`,
in ``GEONH_CACHE_DIR``; off with ``GEONH_CACHE=off``), so a second process loads them without
compiling, and per process (same source → same module, compiled once).  :data:`so_cache` may
name another store, an object with ``get(key) -> path or None`` and ``put(key, path)``;
``key`` is the sha256 of the source, the compiler command and flags, the native target and
the Python extension suffix.
"""
from __future__ import annotations

import atexit
import hashlib
import importlib.machinery
import importlib.util
import math
import os
import re
import shlex
import shutil
import subprocess
import sysconfig
import tempfile
import threading
from functools import lru_cache
from typing import Any, Protocol, Sequence

from ..errors import MissingDependencyError, NotFoundError, ParseError
from .cache import module_files

__all__ = ["GAUSS_C", "SoCache", "build", "c_function", "c_program", "c_source", "c_statement", "compile_flags",
           "find_compiler", "native_target", "program_steps", "so_cache"]


class SoCache(Protocol):
    """Where built extension modules may be kept between processes (module doc)."""

    def get(self, key: str) -> str | None: ...

    def put(self, key: str, path: str) -> None: ...


#: an on-disk store for built modules (module doc); None: the compile cache's
#: (:func:`geonh.numerics.cache.module_files`, itself None when the cache is off)
so_cache: SoCache | None = None

#: states per vector step of the batch loop (module doc): None chooses by the program's length
_WIDTH: int | None = None


def _width(nsteps: int, native: bool = True) -> int:
    """States per vector step of the batch loop: 4, and 8 for programs of 1000 steps or more
    (measured on an AMD EPYC with AVX-512, CPU µs/state: the 4-trailer, 550 steps, 0.113 at 4
    against 0.120 at 8; the 16-trailer, 6021 steps, 0.78 at 4 against 0.66 at 8).  Without
    ``-march=native`` (``native`` False: the compiler cannot say what the machine has) 2, the
    baseline x86-64 vector of two doubles: wider generic vectors the target cannot hold made gcc
    take 281 s CPU at -O0 on the bicycle's linearization program, against 0.88 s with -march=native."""
    if _WIDTH:
        return _WIDTH
    if not native:
        return 2
    return 8 if nsteps >= 1000 else 4

_LOCK = threading.Lock()
_MODULES: dict[str, Any] = {}
_WORKDIR: list[str] = []


def find_compiler() -> list[str] | None:
    """The C compiler command (a list for subprocess): sysconfig's ``CC`` when its program is
    on PATH, else the first of ``cc``, ``gcc``, ``clang`` found; None when there is none."""
    cc = sysconfig.get_config_var("CC")
    if cc:
        parts = shlex.split(cc)
        if parts and shutil.which(parts[0]):
            return parts
    for name in ("cc", "gcc", "clang"):
        path = shutil.which(name)
        if path:
            return [path]
    return None


@lru_cache(maxsize=None)
def native_target(cc: tuple[str, ...]) -> str | None:
    """What ``-march=native`` means for the compiler ``cc`` on this machine — the sha256 of
    gcc's ``-march=native -Q --help=target`` report (the resolved CPU and every target option) —,
    or None where the compiler cannot say (e.g. clang): then ``-march=native`` is not used.
    Part of the cache key, so a ``.so`` built for one CPU is never loaded on another."""
    try:
        res = subprocess.run([*cc, "-march=native", "-Q", "--help=target"], capture_output=True, text=True,
                             timeout=60, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    if res.returncode != 0 or "-march=" not in res.stdout:
        return None
    return hashlib.sha256(res.stdout.encode()).hexdigest()


def compile_flags(opt_level: int | None = None, native: bool = False) -> list[str]:
    """Flags for the module's compilation (module doc): -O2 (or -O``opt_level``),
    -fno-math-errno, -ffp-contract=off (no fused multiply-add: every operation rounded as
    written, as LLVM's code), position-independent shared object; -march=native if ``native``."""
    level = 2 if opt_level is None else max(0, min(3, int(opt_level)))
    flags = [f"-O{level}", "-fno-math-errno", "-ffp-contract=off", "-fPIC", "-shared"]
    return flags + ["-march=native"] if native else flags


# -- the printer ------------------------------------------------------------------------------------
_FUNCS = {"sin": "sin", "cos": "cos", "tan": "tan", "asin": "asin", "acos": "acos", "atan": "atan",
          "sinh": "sinh", "cosh": "cosh", "tanh": "tanh", "asinh": "asinh", "acosh": "acosh", "atanh": "atanh",
          "log": "log", "Abs": "fabs", "floor": "floor", "ceiling": "ceil", "atan2": "atan2"}
_RECIPROCAL = {"cot": "tan", "sec": "cos", "csc": "sin"}


def _number(x: float) -> str:
    if math.isnan(x):
        return "NAN"
    if math.isinf(x):
        return "INFINITY" if x > 0 else "(-INFINITY)"
    s = repr(float(x))
    return f"({s})" if s.startswith("-") else s


def _program(se_args, se_exprs) -> tuple[list, list]:
    """The program checked at the boundary: a sequence of distinct symengine symbols and a
    sequence of symengine expressions (what :func:`~geonh.numerics.codegen.compile_function`
    hands over); anything else — strings included, which are never parsed — raises
    :class:`~geonh.errors.ParseError` naming it."""
    import symengine as se

    def seq(x, what):
        if isinstance(x, (str, bytes)) or not isinstance(x, Sequence):
            raise ParseError(f"backend 'c': {what} must be a list of symengine objects, got {type(x).__name__}")
        return list(x)
    args, exprs = seq(se_args, "se_args"), seq(se_exprs, "se_exprs")
    bad = [a for a in args if not isinstance(a, se.Symbol)]
    if bad or len(set(args)) != len(args):
        raise ParseError(f"backend 'c': se_args must be distinct symengine Symbols, got {bad[0] if bad else args!r:.80}")
    bad = [e for e in exprs if not isinstance(e, se.Basic)]
    if bad:
        raise ParseError(f"backend 'c': se_exprs must be symengine expressions, got {type(bad[0]).__name__}")
    return args, exprs


def c_program(se_args: Sequence, se_exprs: Sequence) -> tuple[list[str], list[str]]:
    """(statements, outputs) of the program in C: statements ``const double vN = …;`` and for
    each expression the C operand holding its value (module doc).  An operation the printer
    does not know raises :class:`~geonh.errors.NotFoundError` naming it."""
    steps, outputs = _steps(se_args, se_exprs)
    return [f"  const double {name} = {_scalar(kind, ops)};" for name, kind, ops in steps], outputs


# one step of the program: (name, kind, operands); kind "+" / "*" (n-ary, left to right), "/"
# (binary), "sign", or a C function name (math.h); operands are step names vN, in[i] or numbers
Step = tuple[str, str, tuple[str, ...]]


def program_steps(se_args: Sequence, se_exprs: Sequence) -> tuple[list[Step], list[str]]:
    """The program as steps (name, kind, operands) in static single assignment form — after
    ``symengine.cse`` over the whole program, so shared subexpressions are computed once — and
    the operand of each output (see ``Step`` and the module doc): what the C printer here
    prints, and what :mod:`geonh.numerics.export` prints for C and replays on CasADi and JAX
    symbols.  Operands are step names ``vN``, arguments ``in[i]`` or numbers (``repr(float)``,
    parenthesized when negative; ``NAN``, ``INFINITY``)."""
    return _steps(se_args, se_exprs)


#: the kinds of step :func:`program_steps` emits besides "+", "*", "/" and "sign": math.h functions
_KINDS = frozenset(_FUNCS.values()) | frozenset(_RECIPROCAL.values()) | {"exp", "sqrt", "pow", "fmax", "fmin"}
#: an operand of a step: a step name, an argument, a number as :func:`_number` prints it
_OPERAND = re.compile(r"v\d+|in\[\d+\]|\(?-?(?:\d+\.?\d*(?:e[-+]?\d+)?|INFINITY)\)?|NAN")


def c_statement(kind: str, ops: Sequence[str]) -> str:
    """The C expression of one step (:func:`program_steps`) on doubles.  Only what
    :func:`program_steps` emits is printed: a known kind and operands that are step names,
    arguments or numbers (anything else raises :class:`~geonh.errors.ParseError`: no text
    reaches the C source unchecked)."""
    if not isinstance(kind, str) or kind not in _KINDS | {"+", "*", "/", "sign"}:
        raise ParseError(f"c_statement: unknown kind of step {kind!r:.60}")
    if isinstance(ops, (str, bytes)) or not isinstance(ops, Sequence) or not ops:
        raise ParseError(f"c_statement: operands must be a non-empty list of strings, got {type(ops).__name__}")
    ops = list(ops)
    bad = [o for o in ops if not isinstance(o, str) or not _OPERAND.fullmatch(o)]
    if bad:
        raise ParseError(f"c_statement: not an operand of a step: {bad[0]!r:.60}")
    need = {"/": 2, "atan2": 2, "pow": 2, "fmax": 2, "fmin": 2}.get(kind, 0 if kind in ("+", "*") else 1)
    if (need and len(ops) != need) or (not need and len(ops) < 2):
        raise ParseError(f"c_statement: {len(ops)} operands for a step {kind!r}")
    return _scalar(kind, ops)


def _scalar(kind: str, ops: Sequence[str]) -> str:
    """The C expression of one step on doubles."""
    if kind in ("+", "*", "/"):
        return f" {kind} ".join(ops)
    if kind == "sign":
        x = ops[0]
        return f"({x} > 0.0) ? 1.0 : (({x} < 0.0) ? -1.0 : {x})"
    return f"{kind}({', '.join(ops)})"


def _steps(se_args: Sequence, se_exprs: Sequence) -> tuple[list[Step], list[str]]:
    """The program as steps (see :data:`Step`) and the operand of each output (module doc)."""
    import symengine as se
    se_args, se_exprs = _program(se_args, se_exprs)
    reps, red = se.cse(list(se_exprs))
    names: dict = {}
    for i, a in enumerate(se_args):
        names[a] = f"in[{i}]"
    steps: list[Step] = []
    E = se.E

    def emit(kind: str, *ops: str) -> str:
        v = f"v{len(steps)}"
        steps.append((v, kind, tuple(ops)))
        return v

    def power(b: str, k: int) -> str:
        # b**k for an integer k ≥ 1 by repeated squaring
        result = None
        sq = b
        while True:
            if k & 1:
                result = sq if result is None else emit("*", result, sq)
            k >>= 1
            if not k:
                break
            sq = emit("*", sq, sq)
        assert result is not None
        return result

    def node(e, ops: list[str]) -> str:
        if e.is_Add:
            return emit("+", *ops)
        if e.is_Mul:
            return emit("*", *ops)
        name = type(e).__name__
        if e.is_Pow:
            base, ex = e.args
            if base == E:
                return emit("exp", ops[1])
            if ex.is_Integer:
                k = int(ex)
                if k == 0:
                    return "1.0"
                r = power(ops[0], abs(k))
                return emit("/", "1.0", r) if k < 0 else r
            if ex == se.Rational(1, 2):
                return emit("sqrt", ops[0])
            if ex == se.Rational(-1, 2):
                return emit("/", "1.0", emit("sqrt", ops[0]))
            return emit("pow", ops[0], ops[1])
        if name in _FUNCS and len(ops) == (2 if name == "atan2" else 1):
            return emit(_FUNCS[name], *ops)
        if name in _RECIPROCAL and len(ops) == 1:
            return emit("/", "1.0", emit(_RECIPROCAL[name], ops[0]))
        if name == "sign" and len(ops) == 1:
            return emit("sign", ops[0])
        if name in ("Max", "Min"):
            fn = "fmax" if name == "Max" else "fmin"
            acc = ops[0]
            for o in ops[1:]:
                acc = emit(fn, acc, o)
            return acc
        raise NotFoundError(f"backend 'c' cannot compile the operation {name} (use backend='llvm')")

    def convert(root) -> str:
        stack = [(root, False)]
        while stack:
            e, ready = stack.pop()
            if e in names:
                continue
            if ready:
                names[e] = node(e, [names[a] for a in e.args])
                continue
            if not e.args and not e.is_Symbol:  # a number or a named constant (pi, E, …)
                try:
                    value = complex(e)
                except (TypeError, ValueError, RuntimeError):
                    value = None
                if value is not None and value.imag == 0:
                    names[e] = _number(value.real)
                    continue
                if value is not None:
                    raise NotFoundError("backend 'c' compiles real expressions only; got a complex constant")
            if e.is_Symbol:
                raise NotFoundError("backend 'c': a symbol that is not an argument")  # checked before
            stack.append((e, True))
            stack.extend((a, False) for a in e.args if a not in names)
        return names[root]

    for sym, e in reps:
        if sym in names:
            raise NotFoundError("backend 'c': a cse symbol coincides with an argument")
        names[sym] = convert(e)
    outputs = [convert(e) for e in red]
    return steps, outputs


_IN = re.compile(r"in\[(\d+)\]")


def _lanes(steps: Sequence[Step], outputs: Sequence[str], width: int) -> list[str]:
    """The body of ``geonh_eval_w``: the program on ``width`` states at once (GCC/Clang vector
    extensions, type ``vd``), reading state j's arguments at ``in[j * NIN + i]`` and writing its
    outputs at ``out[j * NOUT + i]``.  +, × and ÷ are vector operations — each lane rounded as
    the scalar operation (IEEE 754; no fused multiply-add under -ffp-contract=off), so every
    lane gets the scalar program's bits —; the math.h functions are called per lane on the
    scalar libm, so their values are the scalar ones too."""
    vec: set[str] = set()

    def v(o: str) -> str:                       # operand as a vector (numbers broadcast)
        m = _IN.fullmatch(o)
        return f"x{m.group(1)}" if m else o

    def lane(o: str, j: int) -> str:            # operand in lane j
        m = _IN.fullmatch(o)
        if m:
            return f"in[{j} * NIN + {m.group(1)}]"
        return f"{o}[{j}]" if o in vec else o

    used = sorted({int(m.group(1)) for _, _, ops in steps for o in ops for m in [_IN.fullmatch(o)] if m})
    body = ["  const vd x%d = {%s};" % (i, ", ".join(f"in[{j} * NIN + {i}]" for j in range(width)))
            for i in used]
    for name, kind, ops in steps:
        if kind in ("+", "*", "/") and any(o in vec or _IN.fullmatch(o) for o in ops):
            code = f" {kind} ".join(v(o) for o in ops)
        else:
            code = "{" + ", ".join(_scalar(kind, [lane(o, j) for o in ops]) for j in range(width)) + "}"
        vec.add(name)
        body.append(f"  const vd {name} = {code};")
    body += [f"  out[{j} * NOUT + {i}] = {lane(o, j)};" for i, o in enumerate(outputs) for j in range(width)]
    return body


#: Gaussian elimination with partial pivoting in plain C (no Python): x of M x = F, M row-major
#: k × k, ``a`` a work array of k (k + 1) doubles; returns 1 when a pivot is exactly zero (M
#: singular; x then unwritten), else 0.  The pivot is the first largest |entry| of the column
#: (LAPACK's ``dgetf2``).  Used by the extension modules here (``geonh_solve``) and by the
#: self-contained sources of :mod:`geonh.numerics.export`.
GAUSS_C = r"""/* x of M x = F (M row-major k x k) by Gaussian elimination with partial pivoting, the first
   largest |entry| of each column as pivot; a: work array of k (k + 1) doubles.  Returns 1 when
   a pivot is exactly zero (M singular; x unwritten), else 0. */
static int geonh_gauss(long k, const double *M, const double *F, double *x, double *a)
{
    long i, j, c, p;
    for (i = 0; i < k; i++) {
        for (j = 0; j < k; j++) a[i * (k + 1) + j] = M[i * k + j];
        a[i * (k + 1) + k] = F[i];
    }
    for (j = 0; j < k; j++) {
        double *rj;
        p = j;
        for (i = j + 1; i < k; i++)
            if (fabs(a[i * (k + 1) + j]) > fabs(a[p * (k + 1) + j])) p = i;
        if (p != j)
            for (c = 0; c <= k; c++) {
                double t = a[j * (k + 1) + c];
                a[j * (k + 1) + c] = a[p * (k + 1) + c];
                a[p * (k + 1) + c] = t;
            }
        rj = a + j * (k + 1);
        if (rj[j] == 0.0) return 1;
        for (i = j + 1; i < k; i++) {
            double *ri = a + i * (k + 1);
            double r = ri[j] / rj[j];
            for (c = j + 1; c <= k; c++) ri[c] -= r * rj[c];
            ri[j] = 0.0;
        }
    }
    for (i = k - 1; i >= 0; i--) {
        double *ri = a + i * (k + 1);
        double s = ri[k];
        for (c = i + 1; c < k; c++) s -= ri[c] * x[c];
        x[i] = s / ri[i];
    }
    return 0;
}
"""


_TEMPLATE = r"""/* generated by geonh.numerics.cbackend: the compiled program of one function */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NIN @NIN@
#define NOUT @NOUT@
#define WIDTH @WIDTH@

static void geonh_eval(const double *restrict in, double *restrict out)
{
@BODY@
}

/* the program on WIDTH consecutive rows at once (states j = 0 .. WIDTH-1 at in + j * NIN, their
   outputs at out + j * NOUT): vector +, *, / (lane by lane the scalar operations' bits), math.h
   per lane */
typedef double vd __attribute__((vector_size(WIDTH * sizeof(double))));

static void geonh_eval_w(const double *restrict in, double *restrict out)
{
@BODYW@
}

@GAUSS@
typedef struct { Py_ssize_t n, nu, k, iM, ichk; int solve; } Layout;

/* x of M x = F read from out = [K (n), x (k), M (k*k), F (k), check], written to out[n:n+k]:
   nothing when the compiled elimination's check is finite; else geonh_gauss (below).
   Returns 1 when a pivot is exactly zero (M singular), else 0. */
static int geonh_solve(double *out, const Layout *L)
{
    if (!L->solve || L->k == 0) return 0;
    if (L->ichk >= 0 && isfinite(out[L->ichk])) return 0;
    Py_ssize_t k = L->k;
    double small[16 * 17];
    double *a = small;
    if (k > 16) {
        a = (double *)malloc((size_t)(k * (k + 1)) * sizeof(double));
        if (a == NULL) return 2;
    }
    int singular = geonh_gauss((long)k, out + L->iM, out + L->iM + k * k, out + L->n, a);
    if (a != small) free(a);
    return singular;
}

static int geonh_layout(PyObject *obj, Layout *L)
{
    memset(L, 0, sizeof(Layout));
    if (obj == Py_None) return 0;
    if (!PyArg_ParseTuple(obj, "nnnnn", &L->n, &L->nu, &L->k, &L->iM, &L->ichk)) return -1;
    if (L->k < 0 || L->n < 0 || L->iM < 0 || L->n + L->k > NOUT || L->iM + L->k * (L->k + 1) > NOUT
        || L->ichk >= NOUT) {
        PyErr_SetString(PyExc_ValueError, "layout does not fit the outputs");
        return -1;
    }
    L->solve = 1;
    return 0;
}

/* a float64 C-contiguous buffer of at least `count` doubles */
static int geonh_buffer(PyObject *obj, Py_buffer *view, Py_ssize_t count, int writable, const char *what)
{
    int flags = PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0);
    if (PyObject_GetBuffer(obj, view, flags) < 0) return -1;
    if (view->itemsize != 8 || view->format == NULL || strcmp(view->format, "d") != 0
        || view->len < count * 8) {
        PyBuffer_Release(view);
        PyErr_Format(PyExc_ValueError, "%s must be a C-contiguous float64 buffer of at least %zd values",
                     what, count);
        return -1;
    }
    return 0;
}

/* the program reads `in` and writes `out` as distinct arrays (restrict): refuse overlapping
   buffers (releasing both) */
static int geonh_overlap(Py_buffer *in, Py_buffer *out)
{
    const char *a = (const char *)in->buf, *b = (const char *)out->buf;
    if (a < b + out->len && b < a + in->len) {
        PyBuffer_Release(in);
        PyBuffer_Release(out);
        PyErr_SetString(PyExc_ValueError, "the arguments and the outputs must not overlap");
        return 1;
    }
    return 0;
}

typedef struct {
    Py_buffer in, out;
    Layout layout;
    PyObject *error, *message;
} Bound;

static void geonh_bound_free(PyObject *capsule)
{
    Bound *b = (Bound *)PyCapsule_GetPointer(capsule, NULL);
    if (b == NULL) return;
    PyBuffer_Release(&b->in);
    PyBuffer_Release(&b->out);
    Py_XDECREF(b->error);
    Py_XDECREF(b->message);
    PyMem_Free(b);
}

static PyObject *geonh_run(PyObject *capsule, PyObject *unused)
{
    Bound *b = (Bound *)PyCapsule_GetPointer(capsule, NULL);
    if (b == NULL) return NULL;
    geonh_eval((const double *)b->in.buf, (double *)b->out.buf);
    if (b->layout.solve) {
        int s = geonh_solve((double *)b->out.buf, &b->layout);
        if (s) {
            if (s == 2) return PyErr_NoMemory();
            PyErr_SetObject(b->error, b->message);
            return NULL;
        }
    }
    Py_RETURN_NONE;
}

static PyMethodDef geonh_run_def = {"run", (PyCFunction)geonh_run, METH_NOARGS,
                                    "evaluate the bound arguments into the bound outputs"};

static PyObject *geonh_bind(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 5) {
        PyErr_SetString(PyExc_TypeError, "bind(x, out, layout, error, message)");
        return NULL;
    }
    Bound *b = (Bound *)PyMem_Calloc(1, sizeof(Bound));
    if (b == NULL) return PyErr_NoMemory();
    if (geonh_layout(args[2], &b->layout) < 0) { PyMem_Free(b); return NULL; }
    if (geonh_buffer(args[0], &b->in, NIN, 0, "the arguments") < 0) { PyMem_Free(b); return NULL; }
    if (geonh_buffer(args[1], &b->out, NOUT, 1, "the outputs") < 0) {
        PyBuffer_Release(&b->in);
        PyMem_Free(b);
        return NULL;
    }
    Py_INCREF(args[3]);
    Py_INCREF(args[4]);
    b->error = args[3];
    b->message = args[4];
    PyObject *capsule = PyCapsule_New(b, NULL, geonh_bound_free);
    if (capsule == NULL) {
        PyBuffer_Release(&b->in);
        PyBuffer_Release(&b->out);
        Py_DECREF(b->error);
        Py_DECREF(b->message);
        PyMem_Free(b);
        return NULL;
    }
    PyObject *fn = PyCFunction_New(&geonh_run_def, capsule);
    Py_DECREF(capsule);
    return fn;
}

/* f(t, y, p[, out]) of an ODEFunction: t, y and p written into the bound argument buffer, the
   program run and M x = F solved into the bound output; returns copy() (a fresh array of the
   first ny outputs) or, with out, out filled with them.  Arguments off the fast path (other
   types, wrong lengths, p missing) return NotImplemented: the caller takes its checked path. */
typedef struct {
    Bound b;
    PyObject *copy;
    Py_ssize_t ny, np;
    Py_ssize_t *pidx;
} Caller;

/* 1: written, 0: not on the fast path (nothing raised) */
static int geonh_fill(PyObject *obj, double *dst, const Py_ssize_t *idx, Py_ssize_t count)
{
    Py_ssize_t i;
    if (PyList_CheckExact(obj) || PyTuple_CheckExact(obj)) {
        PyObject **items;
        if (PySequence_Fast_GET_SIZE(obj) != count) return 0;
        items = PySequence_Fast_ITEMS(obj);
        for (i = 0; i < count; i++) {
            PyObject *x = items[i];
            double v;
            if (PyFloat_Check(x)) v = PyFloat_AS_DOUBLE(x);
            else if (PyLong_CheckExact(x)) {
                v = PyLong_AsDouble(x);
                if (v == -1.0 && PyErr_Occurred()) { PyErr_Clear(); return 0; }
            }
            else return 0;
            dst[idx ? idx[i] : i] = v;
        }
        return 1;
    }
    if (PyObject_CheckBuffer(obj)) {
        Py_buffer view;
        int ok;
        if (PyObject_GetBuffer(obj, &view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) { PyErr_Clear(); return 0; }
        ok = view.ndim == 1 && view.itemsize == 8 && view.format != NULL && strcmp(view.format, "d") == 0
             && view.shape[0] == count;
        if (ok) {
            const double *src = (const double *)view.buf;
            if (idx) for (i = 0; i < count; i++) dst[idx[i]] = src[i];
            else memcpy(dst, src, (size_t)count * sizeof(double));
        }
        PyBuffer_Release(&view);
        return ok;
    }
    return 0;
}

static void geonh_caller_release(Caller *c)
{
    PyBuffer_Release(&c->b.in);
    PyBuffer_Release(&c->b.out);
    Py_XDECREF(c->b.error);
    Py_XDECREF(c->b.message);
    Py_XDECREF(c->copy);
    PyMem_Free(c->pidx);
    PyMem_Free(c);
}

static void geonh_caller_free(PyObject *capsule)
{
    Caller *c = (Caller *)PyCapsule_GetPointer(capsule, NULL);
    if (c != NULL) geonh_caller_release(c);
}

static PyObject *geonh_call(PyObject *capsule, PyObject *const *args, Py_ssize_t nargs)
{
    Caller *c = (Caller *)PyCapsule_GetPointer(capsule, NULL);
    double *in, *res;
    PyObject *t;
    if (c == NULL) return NULL;
    if (nargs < 2 || nargs > 4) Py_RETURN_NOTIMPLEMENTED;
    in = (double *)c->b.in.buf;
    res = (double *)c->b.out.buf;
    t = args[0];
    if (PyFloat_Check(t)) in[0] = PyFloat_AS_DOUBLE(t);
    else if (PyLong_CheckExact(t)) {
        in[0] = PyLong_AsDouble(t);
        if (in[0] == -1.0 && PyErr_Occurred()) { PyErr_Clear(); Py_RETURN_NOTIMPLEMENTED; }
    }
    else Py_RETURN_NOTIMPLEMENTED;
    if (!geonh_fill(args[1], in + 1, NULL, c->ny)) Py_RETURN_NOTIMPLEMENTED;
    if (c->np) {
        if (nargs < 3 || !geonh_fill(args[2], in, c->pidx, c->np)) Py_RETURN_NOTIMPLEMENTED;
    }
    geonh_eval(in, res);
    if (c->b.layout.solve) {
        int s = geonh_solve(res, &c->b.layout);
        if (s) {
            if (s == 2) return PyErr_NoMemory();
            PyErr_SetObject(c->b.error, c->b.message);
            return NULL;
        }
    }
    if (nargs == 4 && args[3] != Py_None) {
        Py_buffer view;
        if (geonh_buffer(args[3], &view, c->ny, 1, "out") < 0) return NULL;
        memcpy(view.buf, res, (size_t)c->ny * sizeof(double));
        PyBuffer_Release(&view);
        Py_INCREF(args[3]);
        return args[3];
    }
    return PyObject_CallNoArgs(c->copy);
}

static PyMethodDef geonh_call_def = {"call", (PyCFunction)(void (*)(void))geonh_call, METH_FASTCALL,
                                     "call(t, y, p=None, out=None)"};

/* bind_call(x, out, layout, error, message, copy, ny, pidx) */
static PyObject *geonh_bind_call(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    Caller *c;
    Py_ssize_t i, np;
    PyObject *capsule, *fn;
    if (nargs != 8 || !PyTuple_Check(args[7])) {
        PyErr_SetString(PyExc_TypeError, "bind_call(x, out, layout, error, message, copy, ny, pidx: tuple)");
        return NULL;
    }
    c = (Caller *)PyMem_Calloc(1, sizeof(Caller));
    if (c == NULL) return PyErr_NoMemory();
    np = PyTuple_GET_SIZE(args[7]);
    c->np = np;
    c->pidx = (Py_ssize_t *)PyMem_Calloc(np ? (size_t)np : 1, sizeof(Py_ssize_t));
    if (c->pidx == NULL) { PyMem_Free(c); return PyErr_NoMemory(); }
    c->ny = PyLong_AsSsize_t(args[6]);
    if ((c->ny == -1 && PyErr_Occurred()) || c->ny < 0 || 1 + c->ny > NIN || c->ny > NOUT) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "ny does not fit");
        geonh_caller_release(c);
        return NULL;
    }
    for (i = 0; i < np; i++) {
        c->pidx[i] = PyLong_AsSsize_t(PyTuple_GET_ITEM(args[7], i));
        if (c->pidx[i] < 0 || c->pidx[i] >= NIN) {
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "a parameter index does not fit");
            geonh_caller_release(c);
            return NULL;
        }
    }
    if (geonh_layout(args[2], &c->b.layout) < 0) { geonh_caller_release(c); return NULL; }
    if (geonh_buffer(args[0], &c->b.in, NIN, 1, "the arguments") < 0) { geonh_caller_release(c); return NULL; }
    if (geonh_buffer(args[1], &c->b.out, NOUT, 1, "the outputs") < 0) { geonh_caller_release(c); return NULL; }
    Py_INCREF(args[3]);
    Py_INCREF(args[4]);
    Py_INCREF(args[5]);
    c->b.error = args[3];
    c->b.message = args[4];
    c->copy = args[5];
    capsule = PyCapsule_New(c, NULL, geonh_caller_free);
    if (capsule == NULL) { geonh_caller_release(c); return NULL; }
    fn = PyCFunction_New(&geonh_call_def, capsule);
    Py_DECREF(capsule);
    return fn;
}

static PyObject *geonh_into(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    Py_buffer in, out;
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "into(x, out)");
        return NULL;
    }
    if (geonh_buffer(args[0], &in, NIN, 0, "the arguments") < 0) return NULL;
    if (geonh_buffer(args[1], &out, NOUT, 1, "the outputs") < 0) { PyBuffer_Release(&in); return NULL; }
    if (geonh_overlap(&in, &out)) return NULL;
    geonh_eval((const double *)in.buf, (double *)out.buf);
    PyBuffer_Release(&in);
    PyBuffer_Release(&out);
    Py_RETURN_NONE;
}

/* batch(X, O, layout): rows of X (k, NIN) into rows of O (k, NOUT); returns -1, or the first
   row whose M is singular (its solve stopped there) */
static PyObject *geonh_batch(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    Py_buffer in, out;
    Layout L;
    Py_ssize_t rows, r, bad = -1;
    int nomem = 0;
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "batch(X, O, layout)");
        return NULL;
    }
    if (geonh_layout(args[2], &L) < 0) return NULL;
    if (PyObject_GetBuffer(args[0], &in, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | PyBUF_ND) < 0) return NULL;
    if (PyObject_GetBuffer(args[1], &out, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | PyBUF_ND | PyBUF_WRITABLE) < 0) {
        PyBuffer_Release(&in);
        return NULL;
    }
    if (in.ndim != 2 || out.ndim != 2 || in.itemsize != 8 || out.itemsize != 8 || strcmp(in.format, "d")
        || strcmp(out.format, "d") || in.shape[1] != NIN || out.shape[1] != NOUT || in.shape[0] != out.shape[0]) {
        PyBuffer_Release(&in);
        PyBuffer_Release(&out);
        PyErr_Format(PyExc_ValueError, "batch: C-contiguous float64 arrays of shapes (k, %d) and (k, %d)",
                     NIN, NOUT);
        return NULL;
    }
    if (geonh_overlap(&in, &out)) return NULL;
    rows = in.shape[0];
    Py_BEGIN_ALLOW_THREADS
    for (r = 0; r < rows && bad < 0; r += WIDTH) {
        Py_ssize_t j, w = rows - r < WIDTH ? rows - r : WIDTH;
        double *o = (double *)out.buf + r * NOUT;
        if (w == WIDTH) geonh_eval_w((const double *)in.buf + r * NIN, o);
        else for (j = 0; j < w; j++) geonh_eval((const double *)in.buf + (r + j) * NIN, o + j * NOUT);
        if (L.solve)
            for (j = 0; j < w; j++) {
                int s;
                if (L.ichk >= 0 && isfinite(o[j * NOUT + L.ichk])) continue;  /* solved inline */
                s = geonh_solve(o + j * NOUT, &L);
                if (s) { bad = r + j; nomem = (s == 2); break; }
            }
    }
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&in);
    PyBuffer_Release(&out);
    if (nomem) return PyErr_NoMemory();
    return PyLong_FromSsize_t(bad);
}

static PyMethodDef geonh_methods[] = {
    {"into", (PyCFunction)(void (*)(void))geonh_into, METH_FASTCALL, "into(x, out): out = f(x)"},
    {"batch", (PyCFunction)(void (*)(void))geonh_batch, METH_FASTCALL, "batch(X, O, layout)"},
    {"bind", (PyCFunction)(void (*)(void))geonh_bind, METH_FASTCALL, "bind(x, out, layout, error, message)"},
    {"bind_call", (PyCFunction)(void (*)(void))geonh_bind_call, METH_FASTCALL,
     "bind_call(x, out, layout, error, message, copy, ny, pidx)"},
    {NULL, NULL, 0, NULL}
};

static struct PyModuleDef geonh_module = {PyModuleDef_HEAD_INIT, "@NAME@", NULL, -1, geonh_methods};

PyMODINIT_FUNC PyInit_@NAME@(void)
{
    PyObject *m = PyModule_Create(&geonh_module);
    if (m == NULL) return NULL;
    if (PyModule_AddIntConstant(m, "nin", NIN) < 0 || PyModule_AddIntConstant(m, "nout", NOUT) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
"""


def c_source(se_args: Sequence, se_exprs: Sequence, name: str = "@NAME@", native: bool = True) -> str:
    """The module's C source (module doc); ``name`` the module name (generated by
    :func:`build` from the hash of the source); ``native``: compiled with ``-march=native``
    (the batch loop's vector width, ``_width``)."""
    steps, outputs = _steps(se_args, se_exprs)
    body = [f"  const double {v} = {_scalar(kind, ops)};" for v, kind, ops in steps]
    body += [f"  out[{i}] = {o};" for i, o in enumerate(outputs)]
    width = _width(len(steps), native)
    return (_TEMPLATE.replace("@NIN@", str(max(len(se_args), 0))).replace("@NOUT@", str(len(outputs)))
            .replace("@WIDTH@", str(width)).replace("@BODYW@", "\n".join(_lanes(steps, outputs, width)))
            .replace("@BODY@", "\n".join(body)).replace("@GAUSS@", GAUSS_C).replace("@NAME@", name))


def _workdir() -> str:
    if not _WORKDIR:
        d = tempfile.mkdtemp(prefix="geonh-c-")
        _WORKDIR.append(d)
        atexit.register(shutil.rmtree, d, True)
    return _WORKDIR[0]


def build(se_args: Sequence, se_exprs: Sequence, opt_level: int | None = None):
    """The loaded extension module of the program (module doc): compiled once per process (and
    per :data:`so_cache`, when set).  Raises :class:`~geonh.errors.MissingDependencyError`
    without a C compiler."""
    cc = find_compiler()
    if cc is None:
        raise MissingDependencyError(
            "backend 'c' needs a C compiler (cc, gcc or clang on PATH, or sysconfig's CC) and the Python "
            "headers; install one (e.g. apt-get install gcc python3-dev) or use backend='llvm'")
    target = native_target(tuple(cc))
    source = c_source(se_args, se_exprs, native=target is not None)
    flags = compile_flags(opt_level, native=target is not None)
    suffix = sysconfig.get_config_var("EXT_SUFFIX") or ".so"
    key = hashlib.sha256("\0".join([source, " ".join(cc + flags), target or "", suffix]).encode()).hexdigest()
    name = f"_geonh_c_{key[:24]}"
    with _LOCK:
        if key in _MODULES:
            return _MODULES[key]
        store = so_cache if so_cache is not None else module_files()   # the user's compile cache
        path = store.get(key) if store is not None else None
        if path is None or not os.path.exists(path):
            d = _workdir()
            src = os.path.join(d, name + ".c")
            path = os.path.join(d, name + suffix)
            with open(src, "w", encoding="ascii") as fh:
                fh.write(source.replace("@NAME@", name))
            include = sysconfig.get_paths()["include"]
            cmd = cc + flags + [f"-I{include}", src, "-o", path, "-lm"]
            res = subprocess.run(cmd, capture_output=True, text=True, check=False)
            if res.returncode != 0:
                raise MissingDependencyError(
                    f"backend 'c': the C compiler failed ({' '.join(cmd[:1])}); are the Python headers "
                    f"installed (python3-dev)?  Compiler output:\n{res.stderr[-2000:]}")
            if store is not None:
                store.put(key, path)
        loader = importlib.machinery.ExtensionFileLoader(name, path)
        spec = importlib.util.spec_from_file_location(name, path, loader=loader)
        assert spec is not None
        module = importlib.util.module_from_spec(spec)
        loader.exec_module(module)
        _MODULES[key] = module
        return module


def c_function(se_args: Sequence, se_exprs: Sequence, opt_level: int | None = None):
    """(single, batch, into, program) of a :class:`~geonh.numerics.codegen.CompiledFunction`
    on the C module of the program: ``single(x)`` and ``batch(X)`` return fresh arrays,
    ``into(x, out)`` is the module's checked entry (its ``__self__`` is the module, whose
    ``bind`` gives the per-call entry of an evaluation buffer)."""
    import numpy as np
    module = build(se_args, se_exprs, opt_level)
    size = len(se_exprs)
    into = module.into
    run_batch = module.batch

    def single(x):
        out = np.empty(size)
        into(x, out)
        return out

    def batch(X):
        out = np.empty((X.shape[0], size))
        run_batch(X, out, None)
        return out

    return single, batch, into, (list(se_args), list(se_exprs))
