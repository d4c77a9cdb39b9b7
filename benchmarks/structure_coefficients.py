"""Benchmark: all structure coefficients c^d_ab of random polynomial frames and trailer frames.

Two families of frames, for each dimension n:

* ``poly``: a random polynomial frame from a fixed seed, C = (1 + N) K with N strictly lower
  triangular (sparse, entries polynomials of degree ≤ 2 with ≤ 2 terms and small integer
  coefficients) and K a constant unipotent integer matrix, so det C = 1 everywhere;
* ``trailer``: the adapted frame of the kinematic (N = n − 3)-trailer,
  ``geonh.models.kinematic.n_trailer(N).frame`` (its field matrix C is the input; trigonometric).

Every implementation starts from the same sympy field matrix C (columns = fields X_a) and
returns all c^d_ab with [X_a, X_b] = c^d_ab X_d; side by side in one run:

* ``geonh-sympy``: ``Frame(fields).structure_coefficients()`` with ``set_backend("sympy")`` —
  generic-point rank check, LU inverse with generic-point pivoting, Jacobians computed once
  per field, antisymmetry, zero brackets skipped; a sympy ``Array`` out.
* ``geonh-symengine``: the same call with ``set_backend("symengine")`` (geonh's default): C is
  converted once to symengine, the inverse is computed (functions: LU with generic-point
  pivots in symengine; polynomial frames: sympy's exact fraction-field LU, its cancelled
  numerators and denominators taken straight to symengine), Jacobians, brackets and
  products run in symengine, and a sympy ``Array`` (``geonh.kernel.backend.LazyArray``) is
  returned whose entries are converted to sympy on first access.
* ``geonh-se+read``: ``geonh-symengine`` followed by reading every entry as a sympy
  expression (``c.tolist()``): what a caller pays who needs all n³ coefficients in sympy.
* ``sympy`` (raw): what a plain-sympy user writes: ``B = C.inv()`` (sympy's default method),
  and for every pair a < b the bracket [X_a, X_b] = J(X_b) X_a − J(X_a) X_b with both
  Jacobians recomputed (``Matrix.jacobian``), c_{·ab} = B · bracket, c_{·ba} = −c_{·ab}.
* ``symengine`` (raw): the same in symengine: ``symengine.sympify(C)``, ``C.inv()``
  (symengine's default), Jacobians once per field, the products in symengine; symengine
  objects out (no conversion back).

Reported per case: median wall time and median CPU time (``time.process_time`` in the child)
over repeats (5 at n ≤ 6, 3 up to n = 16, 1 beyond; sympy's
cache cleared before every repeat), each wall time over geonh-symengine's, and the largest
difference of all n³ coefficients from raw symengine's at one random point (float).  Each
case runs in a child process with a time limit; a case over the limit prints "> X" and larger
dimensions of that family are skipped for that implementation.  Below the table: the scaling
exponents d log t / d log n (least squares) per family and implementation, and the load
average of the machine before and after the run.

Run:  python benchmarks/structure_coefficients.py [--poly 6 7 8 9 10] [--trailer 8 12 16] [--timeout 60]
"""
from __future__ import annotations

import argparse
import math
import multiprocessing as mp
import os
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.append(str(Path(__file__).resolve().parents[1]))  # an installed geonh or PYTHONPATH comes first

import sympy as sp  # noqa: E402
from sympy.core.cache import clear_cache  # noqa: E402

SEED = 20240601


# -- inputs -----------------------------------------------------------------------------------
def poly_frame_matrix(n: int, seed: int = SEED):
    """(coords, C): a random unimodular polynomial frame matrix of size n (fixed seed)."""
    rng = random.Random(seed * 100 + n)
    q = sp.symbols(f"q1:{n + 1}", real=True)

    def poly():
        terms = []
        for _ in range(rng.randint(1, 2)):
            c = rng.choice([-2, -1, 1, 2])
            m = sp.S.One
            for _ in range(rng.randint(1, 2)):
                m *= rng.choice(q)
            terms.append(c * m)
        return sp.Add(*terms)

    L = sp.eye(n)
    for i in range(n):
        for j in range(i):
            if rng.random() < 0.35:
                L[i, j] = poly()
    K = sp.eye(n)
    for i in range(n):
        for j in range(i + 1, n):
            if rng.random() < 0.3:
                K[i, j] = rng.choice([-1, 1, 2])
    return q, L * K


def trailer_frame_matrix(n: int):
    from geonh.models import kinematic as catalog
    m = catalog.n_trailer(n - 3)
    return m.space.coords, m.frame.C


# -- the two implementations ---------------------------------------------------------------------
def _geonh(coords, C, backend):
    from geonh.kernel.backend import set_backend
    from geonh.kernel.fields import VectorField
    from geonh.kernel.frames import Frame
    from geonh.kernel.space import ConfigurationSpace
    set_backend(backend)
    S = ConfigurationSpace(list(coords))
    F = Frame([VectorField(S, list(C[:, a])) for a in range(C.cols)])
    return F.structure_coefficients()


def geonh_coefficients(coords, C):
    """geonh with the symengine backend (kept under its old name)."""
    return _geonh(coords, C, "symengine")


def geonh_sympy_coefficients(coords, C):
    return _geonh(coords, C, "sympy")


def geonh_read_coefficients(coords, C):
    """geonh with the symengine backend, every coefficient read (converted to sympy)."""
    c = _geonh(coords, C, "symengine")
    c.tolist()
    return c


def naive_coefficients(coords, C):
    n = C.rows
    B = C.inv()
    c = [[[sp.S.Zero] * n for _ in range(n)] for _ in range(n)]
    X = sp.Matrix(list(coords))
    for a in range(n):
        for b in range(a + 1, n):
            Xa, Xb = C[:, a], C[:, b]
            br = Xb.jacobian(X) * Xa - Xa.jacobian(X) * Xb
            comp = B * br
            for d in range(n):
                c[d][a][b] = comp[d]
                c[d][b][a] = -comp[d]
    return [c[d][a][b] for d in range(n) for a in range(n) for b in range(n)]


def symengine_coefficients(coords, C):
    import symengine as se
    n = C.rows
    Cs = se.sympify(C)
    B = Cs.inv()
    X = se.DenseMatrix([se.sympify(s) for s in coords])
    cols = [Cs.col(a) for a in range(n)]
    J = [cols[a].jacobian(X) for a in range(n)]
    c = [[[0] * n for _ in range(n)] for _ in range(n)]
    for a in range(n):
        for b in range(a + 1, n):
            comp = B * (J[b] * cols[a] - J[a] * cols[b])
            for d in range(n):
                c[d][a][b] = comp[d, 0]
                c[d][b][a] = -comp[d, 0]
    return [c[d][a][b] for d in range(n) for a in range(n) for b in range(n)]


IMPLS = {"geonh-sympy": geonh_sympy_coefficients, "geonh-symengine": geonh_coefficients,
         "geonh-se+read": geonh_read_coefficients,
         "sympy": naive_coefficients, "symengine": symengine_coefficients}


def _flat(out) -> list:
    return sp.flatten(out.tolist()) if hasattr(out, "tolist") and not isinstance(out, list) else list(out)


def values_at_point(coords, exprs, seed: int = 7) -> list[float]:
    """Float values of ``exprs`` at one random point of the coordinates (and parameters)."""
    import symengine as se
    rng = random.Random(seed)
    free = set()
    exprs = [se.sympify(e) for e in exprs]
    for e in exprs:
        free |= e.free_symbols
    pt = {s: se.Rational(rng.randint(20, 200), 97) for s in sorted(free, key=str)}
    return [float(e.xreplace(pt).n(real=True)) if e.free_symbols else float(e) for e in exprs]


def cse_ops(exprs) -> int:
    repl, red = sp.cse(exprs)
    return sum(sp.count_ops(e) for _, e in repl) + sum(sp.count_ops(e) for e in red)


def _worker(family, n, impl, repeats, queue):
    coords, C = poly_frame_matrix(n) if family == "poly" else trailer_frame_matrix(n)
    walls, cpus = [], []
    for _ in range(repeats):
        clear_cache()
        c, t = time.process_time(), time.perf_counter()
        out = IMPLS[impl](coords, C)
        walls.append(time.perf_counter() - t)
        cpus.append(time.process_time() - c)
        # partial result if killed later
        queue.put(("time", (statistics.median(walls), statistics.median(cpus))))
    queue.put(("values", values_at_point(coords, _flat(out))))


def run_case(family, n, impl, repeats, timeout):
    """(median wall seconds, median CPU seconds, values at the random point); the first two
    None if the case ran over the time limit (or died), the values None then too.

    The queue is drained *before* the child is joined: a ``multiprocessing.Queue`` hands its
    data to the pipe from a feeder thread, and a child does not exit until that thread has
    written everything, so with a result larger than the pipe buffer (the n³ values, from
    n ≈ 20) a ``join`` before ``get`` waits for ever (the "joining processes that use queues"
    rule of the multiprocessing docs).  Reads use a timeout, so a blown-up case is still
    killed at the limit.
    """
    import queue as queue_mod
    ctx = mp.get_context("fork")
    q = ctx.Queue()
    p = ctx.Process(target=_worker, args=(family, n, impl, repeats, q))
    deadline = time.monotonic() + timeout
    p.start()
    med = cpu = vals = None
    while vals is None:
        left = deadline - time.monotonic()
        if left <= 0:
            break
        try:
            kind, val = q.get(timeout=min(left, 1.0))
        except queue_mod.Empty:
            if not p.is_alive() and q.empty():
                break  # the child died without its values
            continue
        if kind == "time":
            med, cpu = val
        else:
            vals = val
    if vals is None:
        p.kill()
    p.join()
    q.close()
    q.join_thread()
    if vals is None:
        return None, None, None
    return med, cpu, vals


def repeats_for(n: int) -> int:
    return 5 if n <= 6 else 3 if n <= 11 else 1 if n > 16 else 3


def slope(ns, ts) -> float | None:
    pts = [(math.log(n), math.log(t)) for n, t in zip(ns, ts) if t]
    if len(pts) < 2:
        return None
    mx = sum(x for x, _ in pts) / len(pts)
    my = sum(y for _, y in pts) / len(pts)
    return sum((x - mx) * (y - my) for x, y in pts) / sum((x - mx) ** 2 for x, _ in pts)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--poly", type=int, nargs="*", default=[6, 7, 8, 9, 10])
    ap.add_argument("--trailer", type=int, nargs="*", default=[8, 12, 16])
    ap.add_argument("--impls", nargs="*", default=list(IMPLS))
    ap.add_argument("--timeout", type=float, default=60.0, help="seconds per case (all repeats)")
    args = ap.parse_args(argv)
    import symengine as se
    t0 = time.perf_counter()
    load0 = os.getloadavg()
    ref = "geonh-symengine"
    head = f"{'family':8} {'n':>3} " + " ".join(f"{i + ' wall/CPU [s]':>27}" for i in args.impls) + \
        "  " + " ".join(f"{i + '/' + ref:>26}" for i in args.impls if i != ref) + f"  {'max |Δ| vs symengine':>22}"
    print(head)
    print("-" * len(head))
    times: dict = {}
    for family, dims in (("poly", args.poly), ("trailer", args.trailer)):
        dead = set()
        for n in dims:
            r = repeats_for(n)
            res = {}
            for impl in args.impls:
                res[impl] = (None, None, None) if impl in dead else run_case(family, n, impl, r, args.timeout)
                if res[impl][0] is None:
                    dead.add(impl)
                times.setdefault((family, impl), []).append((n, res[impl][0]))
            cells = " ".join(f"{res[i][0]:>13.4f}/{res[i][1]:<13.4f}" if res[i][0] is not None
                             else f"{'> %.0f' % args.timeout:>13}/{'':<13}" for i in args.impls)
            g = res.get(ref, (None, None, None))[0]
            ratios = " ".join(
                (f"{res[i][0] / g:>26.2f}" if res[i][0] is not None and g else f"{'-':>26}")
                for i in args.impls if i != ref)
            base = res.get("symengine", (None, None, None))[2]
            diff = "-"
            if base is not None:
                ds = [max((abs(a - b) for a, b in zip(res[i][2], base)), default=0.0)
                      for i in args.impls if res[i][2] is not None]
                diff = f"{max(ds):.1e}"
            print(f"{family:8} {n:>3} {cells}  {ratios}  {diff:>22}", flush=True)
    print()
    print("scaling exponents d log t / d log n (least squares over the dimensions that finished):")
    for family, dims in (("poly", args.poly), ("trailer", args.trailer)):
        if len(dims) < 2:
            continue
        parts = []
        for impl in args.impls:
            pts = [(n, t) for n, t in times.get((family, impl), []) if t is not None]
            e = slope([n for n, _ in pts], [t for _, t in pts])
            parts.append(f"{impl} {e:.1f}" if e is not None else f"{impl} -")
        print(f"  {family:8} n = {dims[0]}…{dims[-1]}: " + ", ".join(parts), flush=True)
    load1 = os.getloadavg()
    print(f"total {time.perf_counter() - t0:.0f} s; median wall time / median CPU time of the child (process_time); "
          f"ratios and exponents from wall time; repeats 5 (n ≤ 6), 3 (7 ≤ n ≤ 16); "
          f"sympy {sp.__version__}, symengine {se.__version__}, Python {sys.version.split()[0]}, "
          f"{os.cpu_count()} CPUs, load average {load0[0]:.1f} before, {load1[0]:.1f} after")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
