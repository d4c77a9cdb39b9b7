#!/usr/bin/env python
"""Benchmark (issue 22, part 4): geonh's compiled right-hand side against numba, symjit and
CasADi-generated C on the very program geonh compiles.

Systems: the Chaplygin sleigh (``geonh.models.mechanical.chaplygin_sleigh`` + Boltzmann–Hamel)
and the dynamic N-trailer of ``n_trailer_dynamics.py`` at N = 4 and 16 (from_mechanics + the
closed-form frame + Boltzmann–Hamel; ``--offaxle`` moves the masses off the axles).  For each,
``eq.ode_function()`` is built (geonh's build time) and its program is taken from
``f._core.main.program``: the symengine expressions geonh hands to LLVM (K, the inline
elimination's x, M, F and its check, after geonh's factoring of sums).  ``symengine.cse`` of
them is the scalar program every peer compiles, all outputs included (so every route does
the same work):

* ``numba``   the program printed as Python source (one line per operation), ``@njit``;
              per call on preallocated arrays, batch by an njit loop over the rows;
* ``symjit``  ``symjit.compile_func`` on the program (if installed);
* ``casadi C`` the program as a CasADi SX graph → ``Function.generate`` → ``gcc -O3 -shared``
              → ``casadi.external``; per call through ``Function.buffer()`` (CasADi's fastest
              Python call), batch through ``map(k, "serial")`` with a buffer;
* ``geonh-C`` ``eq.ode_function(backend="c")`` (:mod:`geonh.numerics.cbackend`: the same program
              printed as C, an extension module): ``f(t, y, p)``, ``f.into``, ``buffer().run``
              (per call), ``f.batch`` (batch column of the ``f(t,y,p)`` row: argument rows
              built from Y and the output copied) and the module's batch on the prebuilt
              argument rows into a preallocated output (batch column of the ``buffer`` row:
              the peers' batch set-up; the module evaluates 4 or 8 states at once on vector
              types, with the scalar libm per lane: the same bits as one state); build =
              ``ode_function(backend="c")`` from the equations, C compiler included;
* ``geonh``   ``f(t, y, p)`` (fresh array, arguments checked), ``f.into(out, t, y, p)`` (caller's
              buffer, checked), ``f.buffer()`` (EvaluationBuffer: no checks, CasADi-style), batch
              ``f.batch(t, Y, P)``.

Per call: median over repeats of µs per call (wall, CPU time beside it).  Batch: µs per state
over 10⁵ states (median of repeats).  Build: seconds from the program to a callable (geonh:
from the equations).  Op-count limit: measured in this run, not estimated — a C loop
(:func:`limit_source`) replaying the C backend's program's own operations (its + and ×
counted per operand pair, ÷, sqrt, each sin/cos pair of one angle as one sincos, per lane on
the scalar libm as the backend must for exact values) on 16 independent vector accumulators
over the same 10⁵ states, compiled with the backend's compiler and flags, at vector widths 4
and 8 (the faster counts): what the program's operations cost when nothing waits for
anything, so no evaluation of the program with these operations can beat it by much.
Ratios are to the fastest peer (numba, symjit, casadi C) of the same column, on
CPU time (on a shared machine wall time counts other processes too).

Usage:  python benchmarks/peer_evaluation.py [--systems sleigh 4 16] [--repeats 7] [--offaxle]
"""
from __future__ import annotations

import os as _os  # noqa: E402
_os.environ.setdefault("GEONH_CACHE", "off")  # time compiling, not loading (geonh.numerics.cache)
import argparse
import gc
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
BATCH = 100_000


def _import_geonh():
    try:
        import geonh  # noqa: F401
    except ImportError:
        sys.path.insert(0, os.path.dirname(HERE))
    import geonh
    return geonh


# -- the systems ------------------------------------------------------------------------------------
def equations(name: str, offaxle: bool):
    _import_geonh()
    from geonh.equations import boltzmann_hamel
    if name == "sleigh":
        from geonh.models import mechanical as mm
        Mo = mm.chaplygin_sleigh()
        return boltzmann_hamel(Mo.system, Mo.frame)
    sys.path.insert(0, HERE)
    import n_trailer_dynamics as base
    base.OFFAXLE = offaxle
    model = base.build_model(int(name))
    system, frame = base._geonh_system_and_frame(model, closed_form=True)
    return boltzmann_hamel(system, frame)


# -- the scalar program -----------------------------------------------------------------------------
class Program:
    """cse of the symengine expressions: ``steps`` (name, op, operands) in order, operands
    being step names, argument names or float constants; ``outputs`` the names of the results."""

    def __init__(self, se_args, se_exprs):
        import symengine as se
        self.nargs = len(se_args)
        reps, red = se.cse(list(se_exprs))
        self.steps: list[tuple] = []
        memo: dict = {a: f"a[{i}]" for i, a in enumerate(se_args)}
        self.counts = {"flop": 0, "sqrt": 0, "trig": 0, "other": 0}
        self._k = 0

        def new(op, ops):
            name = f"t{self._k}"
            self._k += 1
            self.steps.append((name, op, ops))
            if op in ("+", "*", "/", "neg"):
                self.counts["flop"] += 1
            elif op == "sqrt":
                self.counts["sqrt"] += 1
            elif op in ("sin", "cos"):
                self.counts["trig"] += 1
            else:
                self.counts["other"] += 1
            return name

        def chain(op, xs):
            acc = xs[0]
            for x in xs[1:]:
                acc = new(op, (acc, x))
            return acc

        def power(b, e):
            if e.is_Integer:
                k = int(e)
                if k == 0:
                    return 1.0
                r = chain("*", [b] * abs(k))
                return new("/", (1.0, r)) if k < 0 else r
            if e == se.Rational(1, 2):
                return new("sqrt", (b,))
            if e == se.Rational(-1, 2):
                return new("/", (1.0, new("sqrt", (b,))))
            return new("pow", (b, float(e)))

        def conv(e):
            if e in memo:
                return memo[e]
            if e.is_Number:
                return float(e)
            ch = [conv(x) for x in e.args]
            if e.is_Add:
                r = chain("+", ch)
            elif e.is_Mul:
                coef = [c for c in ch if isinstance(c, float)]
                rest = [c for c in ch if not isinstance(c, float)]
                if coef == [-1.0]:
                    r = new("neg", (chain("*", rest),))
                else:
                    r = chain("*", coef + rest)
            elif e.is_Pow:
                r = power(ch[0], e.args[1])
            else:
                fname = type(e).__name__.lower()
                if fname not in ("sin", "cos", "tan", "exp", "log", "atan2", "abs"):
                    raise NotImplementedError(f"{fname} in the program")
                r = new(fname, tuple(ch))
            memo[e] = r
            return r

        for sym, e in reps:
            memo[sym] = conv(e)
        self.outputs = [conv(e) for e in red]

    # Python/numba source ----------------------------------------------------------------------
    def python_lines(self) -> list[str]:
        fmt = {"+": "{} + {}", "*": "{} * {}", "/": "{} / {}", "neg": "-{}", "sqrt": "math.sqrt({})",
               "sin": "math.sin({})", "cos": "math.cos({})", "tan": "math.tan({})", "exp": "math.exp({})",
               "log": "math.log({})", "abs": "abs({})", "atan2": "math.atan2({}, {})", "pow": "{} ** {}"}
        lines = [f"{n} = " + fmt[op].format(*(repr(x) if isinstance(x, float) else x for x in ops))
                 for n, op, ops in self.steps]
        lines += [f"out[{i}] = {o!r}" if isinstance(o, float) else f"out[{i}] = {o}"
                  for i, o in enumerate(self.outputs)]
        return lines

    def casadi(self, ca):
        a = ca.SX.sym("a", self.nargs)
        val: dict = {f"a[{i}]": a[i] for i in range(self.nargs)}

        def v(x):
            return x if isinstance(x, float) else val[x]

        fn = {"+": lambda x, y: x + y, "*": lambda x, y: x * y, "/": lambda x, y: x / y, "neg": lambda x: -x,
              "sqrt": ca.sqrt, "sin": ca.sin, "cos": ca.cos, "tan": ca.tan, "exp": ca.exp, "log": ca.log,
              "abs": ca.fabs, "atan2": ca.atan2, "pow": lambda x, y: x ** y}
        for n, op, ops in self.steps:
            val[n] = fn[op](*(v(x) for x in ops))
        out = ca.vertcat(*[v(o) if not isinstance(o, float) else ca.SX(o) for o in self.outputs])
        return a, out


# -- timing -----------------------------------------------------------------------------------------
def per_call(fn, repeats: int, target: float = 0.2) -> tuple[float, float]:
    """Median µs per call (wall, CPU) over ``repeats`` repeats of about ``target`` seconds."""
    fn()
    t0 = time.perf_counter()
    for _ in range(100):
        fn()
    one = (time.perf_counter() - t0) / 100
    number = max(50, int(target / max(one, 1e-9)))
    walls, cpus = [], []
    gc.disable()
    try:
        for _ in range(repeats):
            c0, w0 = time.process_time(), time.perf_counter()
            for _ in range(number):
                fn()
            walls.append(time.perf_counter() - w0)
            cpus.append(time.process_time() - c0)
    finally:
        gc.enable()
    return statistics.median(walls) / number * 1e6, statistics.median(cpus) / number * 1e6


def per_state(fn, repeats: int) -> tuple[float, float]:
    fn()
    walls, cpus = [], []
    for _ in range(repeats):
        c0, w0 = time.process_time(), time.perf_counter()
        fn()
        walls.append(time.perf_counter() - w0)
        cpus.append(time.process_time() - c0)
    return statistics.median(walls) / BATCH * 1e6, statistics.median(cpus) / BATCH * 1e6


def limit_source(steps, nin: int, nout: int, width: int, chains: int = 16) -> str:
    """C source of ``limit(in, out, rows)``: the program's own operation mix at best throughput
    (module doc).  Every operation of the C backend's program (``steps``, in program order) is
    replayed on one of ``chains`` independent vector accumulators of ``width`` states (round
    robin, so no operation waits on its predecessor's result): an n-ary + or × as n − 1
    vector additions / multiplications (a product with −1 as a sign flip and the other
    factors' multiplications, as the compiler does), ÷ as a vector division, sqrt and the other
    math.h functions per lane on the scalar libm; the sines and cosines first, per state, each
    pair of one angle on an argument of its own (so the compiler merges it into one sincos, as
    in the program) summed into two scalar accumulators (two additions more per angle), so no
    vector register is live across the calls; the accumulators start from the state's first
    arguments and every state's ``nout`` outputs are stored."""
    ops = []
    trig: dict = {}
    for name, kind, args in steps:
        if kind == "*" and "(-1.0)" in args:    # a negation: the compiler flips the sign bit
            ops += ["neg"] + ["*"] * (len(args) - 2)
        elif kind in ("+", "*"):
            ops += [kind] * (len(args) - 1)
        elif kind in ("sin", "cos"):
            trig.setdefault(args[0], set()).add(kind)
        else:
            ops.append(kind)
    for kinds in trig.values():          # in the program's order of first appearance
        ops.append("sincos" if len(kinds) == 2 else next(iter(kinds)))
    lines = [f"#include <math.h>", f"typedef double vd __attribute__((vector_size({width * 8})));",
             "void limit(const double *restrict in, double *restrict out, long rows)", "{",
             f"  for (long r = 0; r + {width} <= rows; r += {width}) {{",
             f"    const double *x = in + r * {nin};", f"    double *o = out + r * {nout};"]
    for c in range(chains):
        lines.append(f"    vd a{c} = {{{', '.join(f'x[{j * nin + c % nin}]' for j in range(width))}}};")
    for i, kind in enumerate(ops):
        c, d = i % chains, (i + 1) % chains
        if kind == "*":
            lines.append(f"    a{c} = a{c} * 1.0000001;")
        elif kind == "+":
            lines.append(f"    a{c} = a{c} + 1e-7;")
        elif kind == "/":
            lines.append(f"    a{c} = a{c} / 1.0000001;")
        elif kind == "neg":
            lines.append(f"    a{c} = -a{c};")
        elif kind == "sincos":
            lines.append(f"    for (int j = 0; j < {width}; j++) {{ double t = a{c}[j]; a{c}[j] = sin(t); "
                         f"a{d}[j] = cos(t); }}")
        elif kind in ("sqrt", "log"):
            lines.append(f"    for (int j = 0; j < {width}; j++) a{c}[j] = {kind}(fabs(a{c}[j]) + 0.5);")
        elif kind in ("atan2", "pow", "fmax", "fmin"):
            lines.append(f"    for (int j = 0; j < {width}; j++) a{c}[j] = {kind}(a{c}[j], 0.75);")
        elif kind == "sign":
            lines.append(f"    a{c} = a{c} + 1e-7;")
        else:
            lines.append(f"    for (int j = 0; j < {width}; j++) a{c}[j] = {kind}(a{c}[j]);")
    for i in range(nout):
        lines += [f"    o[{j * nout + i}] = a{i % chains}[{j}];" for j in range(width)]
    lines += ["  }", "}"]
    return "\n".join(lines) + "\n"


def measure_limit(se_args, se_exprs, A: np.ndarray, nout: int, repeats: int, workdir: str):
    """µs per state (wall, CPU) of :func:`limit_source` over the rows of ``A``: the op-count
    limit, compiled with geonh's C backend's compiler and flags (-march=native included where
    geonh uses it), at vector widths 4 and 8 — the faster counts; None without a compiler."""
    import ctypes
    from geonh.numerics import cbackend
    cc = cbackend.find_compiler()
    if cc is None:
        return None
    steps, _ = cbackend._steps(se_args, se_exprs)
    flags = [f for f in cbackend.compile_flags(native=cbackend.native_target(tuple(cc)) is not None)]
    best = None
    O = np.empty((A.shape[0], nout))
    for width in (4, 8):
        src = os.path.join(workdir, f"limit{width}.c")
        lib = os.path.join(workdir, f"limit{width}.so")
        with open(src, "w") as fh:
            fh.write(limit_source(steps, A.shape[1], nout, width))
        subprocess.run(cc + flags + [src, "-o", lib, "-lm"], check=True)
        fn = ctypes.CDLL(lib).limit
        fn.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_long]
        t = per_state(lambda: fn(A.ctypes.data, O.ctypes.data, A.shape[0]), repeats)
        if best is None or t[1] < best[1]:
            best = t
    return best


# -- the routes -------------------------------------------------------------------------------------
def route_numba(prog: Program, a: np.ndarray, A: np.ndarray, size: int, repeats: int):
    try:
        import numba
    except ImportError:
        return None
    body = "\n    ".join(prog.python_lines())
    src = f"import math\ndef kernel(a, out):\n    {body}\n"
    ns: dict = {}
    t0 = time.perf_counter()
    exec(compile(src, "<peer_evaluation numba>", "exec"), ns)  # our own generated source, not user input
    kernel = numba.njit(fastmath=False)(ns["kernel"])

    @numba.njit
    def batch(A, O):
        for i in range(A.shape[0]):
            kernel(A[i], O[i])

    out = np.empty(size)
    kernel(a, out)
    O = np.empty((A.shape[0], size))
    batch(A, O)
    build = time.perf_counter() - t0
    return {"build": build, "call": per_call(lambda: kernel(a, out), repeats),
            "batch": per_state(lambda: batch(A, O), repeats), "check": out.copy(), "bcheck": O[-1].copy()}


def route_symjit(prog: Program, se_args, se_exprs, a, A, size, repeats):
    try:
        import symjit  # noqa: F401
    except ImportError:
        return None
    import sympy as sp
    t0 = time.perf_counter()
    fn = symjit.compile_func([sp.sympify(x) for x in se_args], [sp.sympify(e) for e in se_exprs])
    build = time.perf_counter() - t0
    out = np.asarray(fn(*a), dtype=float)
    return {"build": build, "call": per_call(lambda: fn(*a), repeats), "batch": None, "check": out}


def route_casadi(prog: Program, a, A, size, repeats, workdir):
    try:
        import casadi as ca
    except ImportError:
        return None
    if shutil.which("gcc") is None:
        return {"note": "no gcc"}
    t0 = time.perf_counter()
    sa, sout = prog.casadi(ca)
    fun = ca.Function("rhs", [sa], [sout])
    cwd = os.getcwd()
    os.chdir(workdir)
    try:
        fun.generate("rhs.c")
        subprocess.run(["gcc", "-O3", "-fPIC", "-shared", "rhs.c", "-o", "rhs.so", "-lm"], check=True)
    finally:
        os.chdir(cwd)
    ext = ca.external("rhs", os.path.join(workdir, "rhs.so"))
    build = time.perf_counter() - t0
    out = np.empty(size)
    buf, trigger = ext.buffer()
    buf.set_arg(0, memoryview(a))
    buf.set_res(0, memoryview(out))
    trigger()
    k = A.shape[0]
    mapped = ext.map(k, "serial")
    AT = np.asfortranarray(A.T)  # column j = state j (CasADi is column-major)
    OT = np.empty((size, k), order="F")
    mbuf, mtrig = mapped.buffer()
    mbuf.set_arg(0, memoryview(AT.ravel(order="K")))
    mbuf.set_res(0, memoryview(OT.ravel(order="K")))
    mtrig()
    return {"build": build, "call": per_call(trigger, repeats), "batch": per_state(mtrig, repeats),
            "check": out.copy(), "bcheck": OT[:, -1].copy()}


def route_geonh_c(eq, f, a, A, y, p, Y, repeats):
    """geonh's C backend (``backend="c"``): build, f(t, y, p), buffer().run, f.batch and the
    module's batch on the prebuilt argument rows (what the peers' batch columns time)."""
    from geonh.numerics import cbackend
    if cbackend.find_compiler() is None:
        return {"note": "no C compiler"}
    k0, c0, t0 = os.times(), time.process_time(), time.perf_counter()
    fc = eq.ode_function(backend="c")
    build, build_cpu = time.perf_counter() - t0, time.process_time() - c0
    k1 = os.times()  # the C compiler runs in a child process: its CPU time counts too
    build_cpu += (k1.children_user - k0.children_user) + (k1.children_system - k0.children_system)
    b = fc.buffer()
    b.args[:] = a
    b.run()
    ny = f.n_q + f.n_u
    O = np.empty((A.shape[0], fc._size))
    mod, layout = fc._cmod, fc._layout
    ref = f(0.0, y, p)
    out = np.empty(ny)
    return {"build": build, "build_cpu": build_cpu,
            "call": per_call(lambda: fc(0.0, y, p), repeats),
            "into": per_call(lambda: fc.into(out, 0.0, y, p), repeats),
            "buffer": per_call(b.run, repeats),
            "batch": per_state(lambda: fc.batch(0.0, Y, p), repeats),
            "batch_raw": per_state(lambda: mod.batch(A, O, layout), repeats),
            "agree": float(np.max(np.abs(b.out - ref) / (1 + np.abs(ref)))),
            "agree_batch": float(np.max(np.abs(O[-1, :ny] - f(0.0, A[-1, 1:1 + ny], p))
                                        / (1 + np.abs(O[-1, :ny]))))}


def run_system(name: str, repeats: int, offaxle: bool) -> dict:
    geonh = _import_geonh()  # noqa: F841
    t0 = time.perf_counter()
    eq = equations(name, offaxle)
    t_eq = time.perf_counter() - t0
    c0, t0 = time.process_time(), time.perf_counter()
    f = eq.ode_function()
    build, build_cpu = time.perf_counter() - t0, time.process_time() - c0
    se_args, se_exprs = f._core.main.program
    prog = Program(se_args, se_exprs)
    size = len(se_exprs)
    rng = np.random.default_rng(7)
    ny, npar = f.n_q + f.n_u, len(f.parameters)
    y = rng.uniform(-1, 1, ny)
    p = rng.uniform(0.5, 2.0, npar)
    a = np.concatenate([[0.0], y, p])
    Y = rng.uniform(-1, 1, (BATCH, ny))
    A = np.empty((BATCH, len(a)))
    A[:, 0] = 0.0
    A[:, 1:1 + ny] = Y
    A[:, 1 + ny:] = p
    res: dict = {"name": name, "eq_s": t_eq, "ops": prog.counts, "size": size, "nargs": len(a)}
    ref = f._core.main(a)
    # geonh
    out = np.empty(ny)
    b = f.buffer()
    b.args[:] = a
    g = {"build": build, "build_cpu": build_cpu,
         "call": per_call(lambda: f(0.0, y, p), repeats),
         "into": per_call(lambda: f.into(out, 0.0, y, p), repeats),
         "buffer": per_call(b, repeats),
         "batch": per_state(lambda: f.batch(0.0, Y, p), repeats) if hasattr(f, "batch") else None}
    b()
    res["geonh"] = g
    res["agree_geonh"] = float(np.max(np.abs(b.out - f(0.0, y, p))))
    res["geonh-C"] = route_geonh_c(eq, f, a, A, y, p, Y, repeats)
    with tempfile.TemporaryDirectory() as wd:
        for peer, fn in (("numba", lambda: route_numba(prog, a, A, size, repeats)),
                         ("symjit", lambda: route_symjit(prog, se_args, se_exprs, a, A, size, repeats)),
                         ("casadi C", lambda: route_casadi(prog, a, A, size, repeats, wd))):
            print(f"  {name}: {peer} ...", file=sys.stderr, flush=True)
            r = fn()
            if r is not None and "check" in r:
                r["agree"] = float(np.max(np.abs(r["check"][:size] - ref) / (1 + np.abs(ref))))
                if "bcheck" in r:
                    rb = f._core.main(A[-1])
                    r["agree_batch"] = float(np.max(np.abs(r["bcheck"] - rb) / (1 + np.abs(rb))))
            res[peer] = r
        lim = measure_limit(se_args, se_exprs, A, size, repeats, wd)
    if lim is not None:
        res["limit_wall"], res["limit"] = lim
    return res


def fmt(x) -> str:
    return "—" if x is None else f"{x:.3g}"


def report(results, repeats: int) -> None:
    print(f"\nPeer evaluation (issue 22 part 4): µs wall (CPU) medians of {repeats} repeats; batch over "
          f"{BATCH:,} states; ratios (CPU time) to the fastest peer of the column and to the op-count limit")
    print("op-count limit: the program's own operation mix at best throughput, a C loop compiled as geonh's "
          "C backend (limit_source)")
    peers = ("numba", "symjit", "casadi C")
    for r in results:
        c = r["ops"]
        print(f"\n== {r['name']}: {c['flop']} flops, {c['trig']} sin/cos, {c['sqrt']} sqrt, {c['other']} other; "
              f"{r['size']} outputs, {r['nargs']} arguments; op-count limit "
              f"{fmt(r.get('limit_wall'))} ({fmt(r.get('limit'))}) µs/state; equations {r['eq_s']:.2f} s")
        rows = []
        for peer in peers:
            x = r.get(peer)
            if x is None:
                print(f"  {peer:<16} not installed")
                continue
            if "note" in x:
                print(f"  {peer:<16} {x['note']}")
                continue
            rows.append((peer, x["call"], x.get("batch"), x["build"], x.get("agree")))
        # ratios on CPU time: on a shared machine wall time also counts other processes
        best_call = min((x[1][1] for x in rows), default=None)
        best_batch = min((x[2][1] for x in rows if x[2]), default=None)
        g = r["geonh"]
        rows.append(("geonh f(t,y,p)", g["call"], g["batch"], g["build"], None))
        rows.append(("geonh f.into", g["into"], None, None, None))
        rows.append(("geonh f.buffer()", g["buffer"], None, None, r["agree_geonh"]))
        gc_ = r.get("geonh-C")
        if gc_ and "note" not in gc_:
            rows.append(("geonh-C f(t,y,p)", gc_["call"], gc_["batch"], gc_["build"], None))
            rows.append(("geonh-C f.into", gc_["into"], None, None, None))
            rows.append(("geonh-C buffer", gc_["buffer"], gc_["batch_raw"], None, gc_["agree"]))
        elif gc_:
            print(f"  {'geonh-C':<16} {gc_['note']}")
        print(f"  {'route':<16} {'per call µs':>16} {'×best':>6} {'batch µs/state':>16} {'×best':>6} "
              f"{'×limit':>6} {'build s':>8} {'agree':>8}")
        line = f"  build s wall (CPU): geonh {g['build']:.3g} ({g['build_cpu']:.3g})"
        if gc_ and "note" not in gc_:
            line += f", geonh-C {gc_['build']:.3g} ({gc_['build_cpu']:.3g}, C compiler included)"
        for peer, _, _, build_, _ in rows[:len(rows)]:
            if not peer.startswith("geonh"):
                line += f", {peer} {build_:.3g}"
        print(line)
        for name, call, batch, build, agree in rows:
            rc = f"{call[1] / best_call:.2f}" if best_call else "—"
            rb = f"{batch[1] / best_batch:.2f}" if batch and best_batch else "—"
            rl = f"{batch[1] / r['limit']:.2f}" if batch and r.get("limit") else "—"
            bs = f"{batch[0]:.3g} ({batch[1]:.3g})" if batch else "—"
            print(f"  {name:<16} {call[0]:>7.3g} ({call[1]:>6.3g}) {rc:>6} {bs:>16} {rb:>6} {rl:>6} "
                  f"{fmt(build):>8} {fmt(agree):>8}")


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--systems", nargs="+", default=["sleigh", "4", "16"])
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--offaxle", action="store_true")
    args = ap.parse_args(argv)
    results = []
    for name in args.systems:
        print(f"system {name} ...", file=sys.stderr, flush=True)
        results.append(run_system(name, args.repeats, args.offaxle))
    report(results, args.repeats)


if __name__ == "__main__":
    main()
