"""Benchmark: all structure coefficients c^d_ab of frames of dimension 3..12.

Two families of frames, for each dimension n:

* ``poly``: a random polynomial frame from a fixed seed, C = (1 + N) K with N strictly lower
  triangular (sparse, entries polynomials of degree ≤ 2 with ≤ 2 terms and small integer
  coefficients) and K a constant unipotent integer matrix, so det C = 1 everywhere;
* ``trailer``: the adapted frame of the kinematic (N = n − 3)-trailer,
  ``geonh.models.kinematic.n_trailer(N).frame`` (its field matrix C is the input; trigonometric).

Both implementations start from the same field matrix C (columns = fields X_a) and return all
c^d_ab with [X_a, X_b] = c^d_ab X_d:

* ``geonh``: ``Frame(fields).structure_coefficients()`` — generic-point rank check, LU inverse
  with generic-point pivoting, Jacobians computed once per field, antisymmetry, zero brackets
  skipped.
* ``naive``: what a plain-sympy user writes: ``B = C.inv()`` (sympy's default method, i.e.
  Gauss-Jordan elimination with its default zero test and simplification of pivots), and for
  every pair a < b the bracket [X_a, X_b] = J(X_b) X_a − J(X_a) X_b with both Jacobians
  recomputed (``Matrix.jacobian``) for the pair, then c_{·ab} = B · bracket and c_{·ba} = −c_{·ab}.
  No ``simplify`` of the results, no reuse across pairs.

Reported per case: median wall time over repeats (5, 3 from n = 7, 1 from n = 10; sympy's
cache cleared before every repeat), the ratio naive/geonh, and the operation count of the
result after common-subexpression elimination (``count_ops`` of the ``sympy.cse`` output:
replacements plus reduced expressions) for both.  Each case runs in a child process with a
time limit; a naive case over the limit is printed as "skipped (> X s)" and larger dimensions
of that family are skipped for it too.

Run:  python benchmarks/structure_coefficients.py [--max-dim 12] [--timeout 40]
"""
from __future__ import annotations

import argparse
import multiprocessing as mp
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

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
def geonh_coefficients(coords, C):
    from geonh.kernel.fields import VectorField
    from geonh.kernel.frames import Frame
    from geonh.kernel.space import ConfigurationSpace
    S = ConfigurationSpace(list(coords))
    F = Frame([VectorField(S, list(C[:, a])) for a in range(C.cols)])
    return list(F.structure_coefficients())


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


IMPLS = {"geonh": geonh_coefficients, "naive": naive_coefficients}


def cse_ops(exprs) -> int:
    repl, red = sp.cse(exprs)
    return sum(sp.count_ops(e) for _, e in repl) + sum(sp.count_ops(e) for e in red)


def _worker(family, n, impl, repeats, queue):
    coords, C = poly_frame_matrix(n) if family == "poly" else trailer_frame_matrix(n)
    times = []
    for _ in range(repeats):
        clear_cache()
        t = time.perf_counter()
        out = IMPLS[impl](coords, C)
        times.append(time.perf_counter() - t)
        queue.put(("time", statistics.median(times)))  # partial result if killed later
    queue.put(("ops", cse_ops(out)))


def run_case(family, n, impl, repeats, timeout):
    """(median seconds or None if over the limit, cse op count or None)."""
    ctx = mp.get_context("fork")
    q = ctx.Queue()
    p = ctx.Process(target=_worker, args=(family, n, impl, repeats, q))
    p.start()
    p.join(timeout)
    if p.is_alive():
        p.kill()
        p.join()
    med = ops = None
    while not q.empty():
        kind, val = q.get()
        if kind == "time":
            med = val
        else:
            ops = val
    return med, ops


def repeats_for(n: int) -> int:
    return 5 if n <= 6 else 3 if n <= 9 else 1


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--min-dim", type=int, default=3)
    ap.add_argument("--max-dim", type=int, default=12)
    ap.add_argument("--timeout", type=float, default=40.0, help="seconds per case (all repeats)")
    ap.add_argument("--families", default="poly,trailer")
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    head = f"{'family':8} {'n':>3} {'geonh [s]':>11} {'naive [s]':>22} {'naive/geonh':>12} {'cse ops geonh':>14} {'cse ops naive':>14}"
    print(head)
    print("-" * len(head))
    for family in args.families.split(","):
        naive_dead = geonh_dead = False
        for n in range(args.min_dim, args.max_dim + 1):
            r = repeats_for(n)
            g = (None, None) if geonh_dead else run_case(family, n, "geonh", r, args.timeout)
            nv = (None, None) if naive_dead else run_case(family, n, "naive", r, args.timeout)
            geonh_dead = geonh_dead or g[0] is None or g[1] is None
            naive_dead = naive_dead or nv[0] is None or nv[1] is None
            gs = f"{g[0]:.3f}" if g[0] is not None and g[1] is not None else f"skipped (> {args.timeout:.0f} s)"
            ns = f"{nv[0]:.3f}" if nv[0] is not None and nv[1] is not None else f"skipped (> {args.timeout:.0f} s)"
            ratio = (f"{nv[0] / g[0]:.1f}x" if None not in (g[0], g[1], nv[0], nv[1]) else "-")
            print(f"{family:8} {n:>3} {gs:>11} {ns:>22} {ratio:>12} "
                  f"{g[1] if g[1] is not None else '-':>14} {nv[1] if nv[1] is not None else '-':>14}",
                  flush=True)
    print(f"total {time.perf_counter() - t0:.0f} s; repeats 5 (n ≤ 6), 3 (n ≤ 9), 1 (n ≥ 10); "
          f"median wall time; sympy {sp.__version__}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
