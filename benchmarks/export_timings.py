#!/usr/bin/env python
"""Benchmark (issue 27, part 1): the exports of geonh's equations — export time and per-call
cost of each exported function — against ``eq.ode_function`` and against pydy's generated code,
on the same equations.

Systems (Boltzmann–Hamel form, so M is the n_u × n_u matrix of the speeds, which is what pydy's
``generate_ode_function`` takes): the Chaplygin sleigh, the dynamic N-trailer
(``geonh.models.mechanical.dynamic_n_trailer``, N = 4 by default) and the Whipple bicycle.
Every route evaluates ẏ = (K, M⁻¹F) at (t, y, p), all parameters open (p an array).

Routes (build = from the Equations to something callable; compiled C with ``gcc -O2``):

* ``ode_function``   ``eq.ode_function()`` (LLVM), called ``f(t, y, p)`` (fresh array, checked);
* ``casadi SX``      ``eq.to_casadi().rhs`` called ``rhs(t, y, p)`` (CasADi's SX virtual machine);
* ``casadi C``       that Function's ``generate()`` compiled and loaded by ``casadi.external``,
                     called the same way (build = export + generate + gcc);
* ``jax jit``        ``jax.jit(eq.to_jax().rhs)`` on one state (``block_until_ready``; build =
                     export + first call, i.e. tracing and XLA compilation);
* ``jax vmap``       ``jax.jit(jax.vmap(rhs))`` on ``--batch`` states, per state;
* ``C (ctypes)``     ``eq.to_c()`` compiled as a plain shared library, ``<name>_rhs`` through ctypes;
* ``C loop``         the same library's rhs over ``--batch`` states in a C loop (one ctypes
                     call), per state;
* ``pydy lambdify``  ``pydy.codegen.ode_function_generators.generate_ode_function(F, q, u,
                     constants, mass_matrix=M, coordinate_derivatives=K)`` (its default
                     generator, as pydy's documentation sets it up), called ``f(y, t, p)``;
* ``pydy cython``    the same with ``generator="cython"`` (pydy's fastest; skipped, saying so,
                     where Cython or a compiler is missing).

Per call: ``--number`` calls per repeat, ``--repeats`` repeats, the MEDIAN per-call time in µs,
wall (perf_counter) and CPU (process_time) from the same repeats; ratios to ``ode_function``
(CPU).  Build CPU includes the C compiler's (finished children's rusage).  BLAS runs on one
thread (OPENBLAS_NUM_THREADS=1 …, unless set): numpy's solve of a 2 × 2 system otherwise wakes
threads at every call, which a shared machine turns into wall time.  The max relative difference of each route to ``ode_function`` at the timed state is
printed beside it.  GEONH_CACHE is off (compiling is timed, not loading).

Usage:  python benchmarks/export_timings.py [--systems sleigh trailer bicycle] [--N 4]
                                          [--repeats 7] [--number 2000] [--batch 10000] [--no-pydy]
"""
from __future__ import annotations

import os as _os  # noqa: E402
_os.environ.setdefault("GEONH_CACHE", "off")  # time compiling, not loading (geonh.numerics.cache)
for _v in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):  # one thread: no wake-ups per tiny solve
    _os.environ.setdefault(_v, "1")
import argparse
import ctypes
import resource
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

LOOP_C = r"""
#include "%(name)s.h"
int %(name)s_loop(long n, double t, const double *Y, const double *p, double *out)
{
    long i; int bad = 0;
    for (i = 0; i < n; i++) bad |= %(name)s_rhs(t, Y + i * %(N)s_NY, p, out + i * %(N)s_NY);
    return bad;
}
"""


def _cpu() -> float:
    """CPU seconds of this process and of its finished children (the C compiler)."""
    ch = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + ch.ru_utime + ch.ru_stime


def _timed(fn):
    w, c = time.perf_counter(), _cpu()
    out = fn()
    return out, time.perf_counter() - w, _cpu() - c


def per_call(call, number: int, repeats: int, per: int = 1) -> tuple[float, float]:
    """(median wall µs, median CPU µs) per call (÷ ``per``: states per call)."""
    call()
    walls, cpus = [], []
    for _ in range(repeats):
        w, c = time.perf_counter(), time.process_time()
        for _ in range(number):
            call()
        walls.append((time.perf_counter() - w) / number / per * 1e6)
        cpus.append((time.process_time() - c) / number / per * 1e6)
    return statistics.median(walls), statistics.median(cpus)


def systems(names, N):
    from geonh import models
    from geonh.models import mechanical
    from geonh.models.bicycle import whipple_bicycle
    out = {}
    for name in names:
        if name == "sleigh":
            out["sleigh"] = models.get("chaplygin-sleigh").equations("boltzmann-hamel")
        elif name == "trailer":
            out[f"{N}-trailer"] = mechanical.dynamic_n_trailer(N).equations("boltzmann-hamel")
        elif name == "bicycle":
            out["bicycle"] = whipple_bicycle().equations("boltzmann-hamel")
    return out


def cc_shared(sources, lib, workdir, extra=()):
    from geonh.numerics.cbackend import find_compiler
    cc = find_compiler()
    if cc is None:
        raise RuntimeError("no C compiler")
    cmd = cc + ["-O2", "-shared", "-fPIC", *map(str, sources), "-o", str(lib), "-lm", *extra]
    res = subprocess.run(cmd, capture_output=True, text=True, cwd=workdir, timeout=1800)
    if res.returncode:
        raise RuntimeError(res.stderr[-2000:])


def bench(label, eq, a, work) -> list[dict]:
    import jax
    import sympy as sp
    rows = []
    P = ctypes.POINTER(ctypes.c_double)
    rng = np.random.default_rng(7)
    (f, fw, fc) = _timed(lambda: eq.ode_function())
    n, npar = f.n_q + f.n_u, len(f.parameters)
    y, p = rng.uniform(-0.5, 0.5, n), rng.uniform(0.5, 1.5, npar)
    Y = y + rng.uniform(-0.1, 0.1, (a.batch, n))
    want = f(0.0, y, p)

    def row(route, build_w, build_c, call, per=1, number=a.number, value=None):
        w, c = per_call(call, number, a.repeats, per)
        got = np.asarray(value if value is not None else call(), dtype=float).ravel()[:n]
        err = float(np.max(np.abs(got - want) / np.maximum(1, np.abs(want))))
        rows.append(dict(system=label, route=route, build=build_w, build_cpu=build_c, wall=w, cpu=c, err=err))
        print(f"  {label} {route}: build {build_w:.3g} s, {w:.3g} µs wall, {c:.3g} µs CPU, err {err:.1e}",
              file=sys.stderr, flush=True)

    row("ode_function", fw, fc, lambda: f(0.0, y, p))
    # CasADi
    import casadi as ca
    ex, bw, bc = _timed(lambda: eq.to_casadi())
    rhs = ex.rhs
    row("casadi SX", bw, bc, lambda: rhs(0.0, y, p))

    def casadi_c():
        src = rhs.generate(f"ca_{label.replace('-', '_')}.c", {"with_header": False})
        lib = work / f"libca_{label.replace('-', '_')}.so"
        cc_shared([work / src if not _os.path.isabs(src) else src], lib, work)
        return ca.external("rhs", str(lib))
    old = _os.getcwd()
    _os.chdir(work)
    try:
        ext, gw, gc_ = _timed(casadi_c)
    finally:
        _os.chdir(old)
    row("casadi C", bw + gw, bc + gc_, lambda: ext(0.0, y, p))
    # JAX
    jx, jw, jc = _timed(lambda: eq.to_jax())
    single = jax.jit(jx.rhs)
    _, cw, cc_ = _timed(lambda: single(0.0, y, p).block_until_ready())
    row("jax jit", jw + cw, jc + cc_, lambda: single(0.0, y, p).block_until_ready())
    batched = jax.jit(jax.vmap(jx.rhs, in_axes=(None, 0, None)))
    _, vw, vc = _timed(lambda: batched(0.0, Y, p).block_until_ready())
    row("jax vmap", jw + vw, jc + vc, lambda: batched(0.0, Y, p).block_until_ready(), per=a.batch,
        number=max(1, a.number // 200), value=np.asarray(batched(0.0, np.array([y]), p))[0])
    # C
    name = "x_" + label.replace("-", "_")
    cx, xw, xc = _timed(lambda: eq.to_c(name=name))

    def build_c():
        h, c = cx.write(work)
        (work / f"{name}_loop.c").write_text(LOOP_C % {"name": name, "N": name.upper()})
        lib = work / f"lib{name}.so"
        cc_shared([c, work / f"{name}_loop.c"], lib, work, ["-std=c99", "-ffp-contract=off"])
        return ctypes.CDLL(str(lib))
    dll, lw, lc = _timed(build_c)
    fn = getattr(dll, f"{name}_rhs")
    fn.argtypes = [ctypes.c_double, P, P, P]
    fn.restype = ctypes.c_int
    yc, pc, out = np.ascontiguousarray(y), np.ascontiguousarray(p), np.empty(n)
    yp, pp, op = yc.ctypes.data_as(P), pc.ctypes.data_as(P), out.ctypes.data_as(P)
    row("C (ctypes)", xw + lw, xc + lc, lambda: (fn(0.0, yp, pp, op), out)[1])
    loop = getattr(dll, f"{name}_loop")
    loop.argtypes = [ctypes.c_long, ctypes.c_double, P, P, P]
    loop.restype = ctypes.c_int
    Yc, OUT = np.ascontiguousarray(Y), np.empty_like(Y)
    Yp, OP = Yc.ctypes.data_as(P), OUT.ctypes.data_as(P)
    loop(len(Y), 0.0, Yp, pp, OP)
    row("C loop", xw + lw, xc + lc, lambda: loop(len(Y), 0.0, Yp, pp, OP), per=a.batch,
        number=max(1, a.number // 200), value=(fn(0.0, yp, pp, op), out)[1])
    # pydy
    if not a.no_pydy:
        from pydy.codegen.ode_function_generators import generate_ode_function
        q, u = list(eq.space.q), list(eq.u)
        K = sp.Matrix(list(eq.kinematics))
        consts = list(f.parameters)
        for gen in ("lambdify", "cython"):
            try:
                fp, pw, pc_ = _timed(lambda: generate_ode_function(eq.forcing, q, u, consts, mass_matrix=eq.mass_matrix,
                                                                    coordinate_derivatives=K, generator=gen))
            except Exception as exc:  # noqa: BLE001 - a missing Cython or compiler is reported, not fatal
                print(f"  {label} pydy {gen} skipped: {type(exc).__name__}: {str(exc)[:200]}", file=sys.stderr)
                continue
            row(f"pydy {gen}", pw, pc_, lambda: fp(y, 0.0, p))
    return rows


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--systems", nargs="+", default=["sleigh", "trailer", "bicycle"])
    ap.add_argument("--N", type=int, default=4)
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--number", type=int, default=2000)
    ap.add_argument("--batch", type=int, default=10000)
    ap.add_argument("--no-pydy", action="store_true")
    a = ap.parse_args(argv)
    from pathlib import Path
    import jax
    jax.config.update("jax_enable_x64", True)
    work = Path(tempfile.mkdtemp(prefix="geonh_export_timings_"))
    rows = []
    for label, eq in systems(a.systems, a.N).items():
        print(f"{label} ...", file=sys.stderr, flush=True)
        rows += bench(label, eq, a, work)
    print(f"\nexport timings (median of {a.repeats} repeats; µs per call, per state for 'jax vmap' and 'C loop' "
          f"over {a.batch} states; ratio = CPU time / ode_function's CPU time)")
    print(f"| system | route | export / build s (CPU) | µs wall | µs CPU | × ode_function | max rel. diff |")
    print("|---|---|---|---|---|---|---|")
    base = {r["system"]: r["cpu"] for r in rows if r["route"] == "ode_function"}
    for r in rows:
        print(f"| {r['system']} | {r['route']} | {r['build']:.3g} ({r['build_cpu']:.3g}) | {r['wall']:.3g} | "
              f"{r['cpu']:.3g} | {r['cpu'] / base[r['system']]:.3g} | {r['err']:.1e} |")


if __name__ == "__main__":
    main()
