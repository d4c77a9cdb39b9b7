#!/usr/bin/env python
"""Benchmark: the Whipple bicycle from its model to the linear matrices, geonh vs sympy.

Both routes start from the same bicycle — the benchmark geometry of Meijaard, Papadopoulos,
Ruina & Schwab (2007) with all 26 parameters symbolic — and end with the numbers of the
linearized lean-and-steer dynamics about the upright steady motion at every speed v:

* ``geonh-<form>``  ``geonh.models.bicycle.whipple_bicycle()`` (the model: frames as rotation
  matrices, T from partial velocities, rolling and contact constraints), the equations in
  ``<form>`` (``lagrange``, ``maggi``, ``boltzmann-hamel`` …, in the model's frame), then
  ``benchmark_matrices``: three ``Equations.linearize`` calls (v = 0, 1, 2 m/s, benchmark
  parameter values, numeric: automatic differentiation at the operating point, no symbolic
  inversion) and the second-order form in (φ, δ) → MPRS's M, C1, K0, K2, hence A(v) for every v.
* ``sympy-kane``  ``sympy.physics.mechanics.KanesMethod`` on the same bicycle built with
  frames, points and ``v2pt_theory`` (coordinates yaw, lean, steer, pitch — pitch dependent
  through the contact condition as a ``configuration_constraint``; speeds: lean, rear-wheel
  and steer rates independent, yaw, pitch and front-wheel rates dependent through the front
  contact's three velocity components; the rear contact is the material point with zero
  velocity), ``kanes_equations``, then ``KanesMethod.linearize(A_and_B=True,
  linear_solver="CRAMER")`` at the upright steady motion with v symbolic — the route of sympy's
  own bicycle test — and the benchmark values substituted: A(v) for every v.
* ``sympy-test``  for reference, sympy's own test ``test_kane3.test_bicycle`` run as it is (its
  parametrization of the same benchmark, the same KanesMethod route, numbers checked inside).

Timed: CPU seconds (``time.process_time``; in the sweep plus the CPU of child processes, e.g. a C
compiler, ``os.times``) and wall seconds of the child process from the
first model statement to the numbers; ``import sympy`` / ``import geonh`` are not timed
(reported separately).  Each repeat runs in a fresh Python process (sympy's cache cold), killed
after ``--timeout`` seconds.  Reported: median over repeats, the ratio sympy / geonh (CPU), and
the agreement of the routes: the largest difference of A(5) (state φ, δ, φ̇, δ̇) between them,
and their eigenvalues at v = 5 against the published Table 2.

The eigenvalue sweep (``--sweep``): the model, the Boltzmann–Hamel equations and the
eigenvalues of A at 50 speeds v = 0 … 10 m/s (``Equations.linearize`` + ``eigenvalues``), then
the time of one more operating point (median of 200; ``Equations.linearize`` then
``Linearization.eigenvalues``, and the call alone) — before (``--before``: a checkout of the
code before the compiled route, put first on PYTHONPATH: the 60-digit route) and after (the
default compiled route, in a process with an empty on-disk cache, ``sweep-cold``, and in a
second process that finds the compiled code on disk, ``sweep-warm``; and ``exact=True``,
``sweep-exact``), each in fresh processes, CPU beside wall, and the largest eigenvalue
difference between the routes; ``--main`` adds the compiled route of another checkout (e.g.
main before this branch), cold and warm cache (a cache directory of its own), for the ratios.  Targets (issue 22): the sweep, model included, ≤ 1.5 s; one
more point ≤ 0.5 ms.

Usage:  python benchmarks/bicycle_linearize.py [--routes geonh-lagrange sympy-kane ...]
                                               [--repeats 3] [--sympy-repeats 1] [--timeout 900]
        python benchmarks/bicycle_linearize.py --sweep [--before /path/to/old/checkout] [--main /path/to/main]
                                                       [--repeats 3]
Progress goes to stderr, the table to stdout.  See benchmarks/README.md.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

ROUTES = ("geonh-lagrange", "geonh-maggi", "geonh-boltzmann-hamel", "geonh-kane", "sympy-kane", "sympy-test")
TABLE2_V5 = [(-14.0783896927982, 0.0), (-0.77534188219585, -4.46486771378823),
             (-0.77534188219585, 4.46486771378823), (-0.32286642900409, 0.0)]


# ----------------------------------------------------------------------------------------------
# the routes (run in a child process)
# ----------------------------------------------------------------------------------------------
def route_geonh(form: str) -> dict:
    t_imp = time.process_time()
    import mpmath
    from geonh.models.bicycle import benchmark_matrices, state_matrix, whipple_bicycle
    imported = time.process_time() - t_imp
    c0, w0 = time.process_time(), time.perf_counter()
    model = whipple_bicycle()
    c1 = time.process_time()
    eq = model.equations(form)
    c2 = time.process_time()
    mats = benchmark_matrices(eq, model=model)
    c3, w3 = time.process_time(), time.perf_counter()
    with mpmath.workdps(30):
        A5 = state_matrix(mats, 5)
        A5 = [[float(A5[i, j]) for j in range(4)] for i in range(4)]
    return {"cpu": c3 - c0, "wall": w3 - w0, "import": imported,
            "parts": {"model": c1 - c0, "equations": c2 - c1, "linearize": c3 - c2}, "A5": A5}


def sympy_bicycle():
    """The bicycle of geonh.models.bicycle, for KanesMethod: the same frames and points
    (MPRS axes: x forward, z down; pitch 0 in the upright reference configuration)."""
    import sympy as sp
    from sympy.physics.mechanics import (KanesMethod, Point, ReferenceFrame, RigidBody, dynamicsymbols,
                                         inertia)
    yaw, lean, pitch, steer = dynamicsymbols("psi phi theta delta")
    u_yaw, u_lean, u_rear, u_pitch, u_steer, u_front = dynamicsymbols("u_psi u_phi u_R u_theta u_delta u_F")
    names = ("w c lambda g r_R m_R I_Rxx I_Ryy x_B z_B m_B I_Bxx I_Byy I_Bzz I_Bxz x_H z_H m_H I_Hxx I_Hyy "
             "I_Hzz I_Hxz r_F m_F I_Fxx I_Fyy").split()
    p = {k: sp.Symbol(k) for k in names}
    N = ReferenceFrame("N")
    A = N.orientnew("A", "Axis", [yaw, N.z])
    B = A.orientnew("B", "Axis", [lean, A.x])
    C = B.orientnew("C", "Axis", [pitch, B.y])
    D = C.orientnew("D", "Axis", [p["lambda"], C.y])        # D.z: the steering axis
    E = D.orientnew("E", "Axis", [steer, D.z])
    F = E.orientnew("F", "Axis", [-p["lambda"], E.y])       # front-frame axes (C at zero steer)
    RW, FW = ReferenceFrame("RW"), ReferenceFrame("FW")
    A.set_ang_vel(N, u_yaw * N.z)
    B.set_ang_vel(A, u_lean * A.x)
    C.set_ang_vel(B, u_pitch * B.y)
    E.set_ang_vel(D, u_steer * D.z)
    RW.set_ang_vel(C, u_rear * C.y)
    FW.set_ang_vel(F, u_front * F.y)
    P = Point("P")                                          # rear contact, material point
    P.set_vel(N, 0)
    Rc = P.locatenew("Rc", -p["r_R"] * B.z)
    Rc.v2pt_theory(P, N, RW)
    Bc = Rc.locatenew("Bc", p["x_B"] * C.x + (p["z_B"] + p["r_R"]) * C.z)
    Bc.v2pt_theory(Rc, N, C)
    S0 = Rc.locatenew("S0", (p["w"] + p["c"]) * C.x + p["r_R"] * C.z)
    S0.v2pt_theory(Rc, N, C)
    Fc = S0.locatenew("Fc", -p["c"] * F.x - p["r_F"] * F.z)
    Fc.v2pt_theory(S0, N, F)
    Hc = S0.locatenew("Hc", (p["x_H"] - p["w"] - p["c"]) * F.x + p["z_H"] * F.z)
    Hc.v2pt_theory(S0, N, F)
    s = F.y.dot(A.z)
    Q = Fc.locatenew("Q", p["r_F"] * (A.z - s * F.y) / sp.sqrt(1 - s**2))   # front contact
    Q.v2pt_theory(Fc, N, FW)
    bodies = [RigidBody("rear wheel", Rc, RW, p["m_R"], (inertia(C, p["I_Rxx"], p["I_Ryy"], p["I_Rxx"]), Rc)),
              RigidBody("rear frame", Bc, C, p["m_B"],
                        (inertia(C, p["I_Bxx"], p["I_Byy"], p["I_Bzz"], 0, 0, p["I_Bxz"]), Bc)),
              RigidBody("front frame", Hc, F, p["m_H"],
                        (inertia(F, p["I_Hxx"], p["I_Hyy"], p["I_Hzz"], 0, 0, p["I_Hxz"]), Hc)),
              RigidBody("front wheel", Fc, FW, p["m_F"], (inertia(F, p["I_Fxx"], p["I_Fyy"], p["I_Fxx"]), Fc))]
    loads = [(b.masscenter, b.mass * p["g"] * A.z) for b in bodies]          # z down
    kd = [yaw.diff() - u_yaw, lean.diff() - u_lean, pitch.diff() - u_pitch, steer.diff() - u_steer]
    vQ = Q.vel(N)
    km = KanesMethod(N, q_ind=[yaw, lean, steer], u_ind=[u_lean, u_rear, u_steer], kd_eqs=kd,
                     q_dependent=[pitch], configuration_constraints=[Q.pos_from(P).dot(A.z)],
                     u_dependent=[u_yaw, u_pitch, u_front],
                     velocity_constraints=[vQ.dot(A.x), vQ.dot(A.y), vQ.dot(A.z)], constraint_solver="CRAMER")
    speeds = dict(yaw=u_yaw, lean=u_lean, rear=u_rear, pitch=u_pitch, steer=u_steer, front=u_front)
    return km, bodies, loads, p, (yaw, lean, pitch, steer), speeds


def route_sympy() -> dict:
    t_imp = time.process_time()
    import sympy as sp
    import sympy.physics.mechanics  # noqa: F401
    imported = time.process_time() - t_imp
    c0, w0 = time.process_time(), time.perf_counter()
    km, bodies, loads, p, qs, u = sympy_bicycle()
    km.kanes_equations(bodies, loads)
    c1 = time.process_time()
    v = sp.Symbol("v")
    op = {q: 0 for q in qs}
    op.update({u["yaw"]: 0, u["lean"]: 0, u["pitch"]: 0, u["steer"]: 0,
               u["rear"]: -v / p["r_R"], u["front"]: -v / p["r_F"]})
    op.update({x.diff(): 0 for x in u.values()})
    A, _, _ = km.linearize(A_and_B=True, op_point=op, linear_solver="CRAMER")
    c2 = time.process_time()
    vals = {p[k]: sp.Rational(x) if isinstance(x, str) else x for k, x in BENCHMARK.items()}
    vals[p["lambda"]] = sp.pi / 10
    A = A.xreplace(vals)
    # state of the linearizer: q_ind (yaw, lean, steer), then u_ind (lean, rear, steer rates)
    A4 = A.extract([1, 2, 3, 5], [1, 2, 3, 5]).xreplace({v: 5}).evalf(30)
    c3, w3 = time.process_time(), time.perf_counter()
    return {"cpu": c3 - c0, "wall": w3 - w0, "import": imported,
            "parts": {"kanes_equations": c1 - c0, "linearize": c2 - c1, "substitute": c3 - c2},
            "A5": [[float(A4[i, j]) for j in range(4)] for i in range(4)]}


BENCHMARK = {"w": "1.02", "c": "0.08", "lambda": None, "g": "9.81", "r_R": "0.3", "m_R": "2", "I_Rxx": "0.0603",
             "I_Ryy": "0.12", "x_B": "0.3", "z_B": "-0.9", "m_B": "85", "I_Bxx": "9.2", "I_Byy": "11",
             "I_Bzz": "2.8", "I_Bxz": "2.4", "x_H": "0.9", "z_H": "-0.7", "m_H": "4", "I_Hxx": "0.05892",
             "I_Hyy": "0.06", "I_Hzz": "0.00708", "I_Hxz": "-0.00756", "r_F": "0.35", "m_F": "3",
             "I_Fxx": "0.1405", "I_Fyy": "0.28"}


def route_sympy_test() -> dict:
    """sympy's own bicycle test (``sympy.physics.mechanics.tests.test_kane3.test_bicycle``: the
    same benchmark with its own parametrization, KanesMethod + linearize, values substituted,
    A compared with stored numbers), run as it is, for reference."""
    t_imp = time.process_time()
    from sympy.physics.mechanics.tests.test_kane3 import test_bicycle
    imported = time.process_time() - t_imp
    c0, w0 = time.process_time(), time.perf_counter()
    test_bicycle()
    c1, w1 = time.process_time(), time.perf_counter()
    return {"cpu": c1 - c0, "wall": w1 - w0, "import": imported, "parts": {"test_bicycle": c1 - c0}, "A5": None}


SWEEP_SPEEDS = 50


def route_sweep(exact: bool) -> dict:
    """The 50-speed eigenvalue sweep, model included, and one more operating point."""
    import inspect
    t_imp = time.process_time()
    import numpy as np
    import geonh
    from geonh.models.bicycle import benchmark_operating_point, whipple_bicycle
    imported = time.process_time() - t_imp
    t0 = os.times()                # child processes (a C compiler) count too: CPU = self + children
    c0, w0 = time.process_time(), time.perf_counter()
    model = whipple_bicycle()
    eq = model.equations("boltzmann-hamel")
    c1 = time.process_time()
    names = {str(s) for s in model.parameters}
    kw = {"ignorable": "auto", "inputs": [x for x in ("T_phi", "T_delta") if x in names], "dependent": ("theta",)}
    if exact and "exact" in inspect.signature(geonh.linearize).parameters:
        kw["exact"] = True                     # (the code before has only the 60-digit route)
    speeds = np.linspace(0, 10, SWEEP_SPEEDS)
    eigs = []
    for v in speeds:
        lin = eq.linearize(benchmark_operating_point(model, float(v)), **kw)
        eigs.append(sorted((complex(z) for z in lin.eigenvalues()), key=lambda z: (round(z.real, 6), round(z.imag, 6))))
    c2, w2 = time.process_time(), time.perf_counter()
    t2 = os.times()
    children = (t2.children_user + t2.children_system) - (t0.children_user + t0.children_system)
    c2 += children
    one_cpu, one_wall, lin_cpu, lin_wall = [], [], [], []
    ops = [benchmark_operating_point(model, 5.0 + 0.01 * k) for k in range(200 if not exact else 3)]
    for op in ops:                     # the normal call: Equations.linearize, then its eigenvalues
        a, b = time.process_time(), time.perf_counter()
        eq.linearize(op, **kw).eigenvalues()
        one_cpu.append(time.process_time() - a)
        one_wall.append(time.perf_counter() - b)
    for op in ops:                     # Equations.linearize alone (the record with sympy A, B)
        a, b = time.process_time(), time.perf_counter()
        eq.linearize(op, **kw)
        lin_cpu.append(time.process_time() - a)
        lin_wall.append(time.perf_counter() - b)
    cache = {}
    try:
        from geonh.numerics import cache as _cache
        cache = _cache.stats()
    except ImportError:
        pass
    return {"cpu": c2 - c0, "children": children, "wall": w2 - w0, "import": imported,
            "parts": {"model+equations": c1 - c0, "50 speeds": c2 - c1},
            "one_cpu": statistics.median(one_cpu), "one_wall": statistics.median(one_wall),
            "lin_cpu": statistics.median(lin_cpu), "lin_wall": statistics.median(lin_wall),
            "eigs": [[[z.real, z.imag] for z in e] for e in eigs], "cache": cache, "A5": None}


def worker(route: str) -> None:
    if route.startswith("sweep-"):
        print("RESULT " + json.dumps(route_sweep(route == "sweep-exact")), flush=True)
        return
    if route == "sympy-kane":
        out = route_sympy()
    elif route == "sympy-test":
        out = route_sympy_test()
    else:
        out = route_geonh(route[len("geonh-"):])
    print("RESULT " + json.dumps(out), flush=True)


# ----------------------------------------------------------------------------------------------
# driver
# ----------------------------------------------------------------------------------------------
def run(route: str, timeout: float, env: dict | None = None) -> dict | None:
    cmd = [sys.executable, os.path.abspath(__file__), "--worker", route]
    try:
        res = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        return None
    for line in res.stdout.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[len("RESULT "):])
    sys.stderr.write(res.stderr[-2000:])
    return None


def eig(A):
    import numpy as np
    return sorted(np.linalg.eigvals(np.array(A)), key=lambda z: (round(z.real, 9), z.imag))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--routes", nargs="+", default=["geonh-lagrange", "geonh-maggi", "geonh-boltzmann-hamel",
                                                    "sympy-kane", "sympy-test"], choices=ROUTES)
    ap.add_argument("--repeats", type=int, default=3, help="fresh processes per geonh route (median)")
    ap.add_argument("--sympy-repeats", type=int, default=1, help="fresh processes per sympy route (median)")
    ap.add_argument("--timeout", type=float, default=900.0)
    ap.add_argument("--sweep", action="store_true", help="the 50-speed eigenvalue sweep, before and after")
    ap.add_argument("--before", help="a checkout of geonh before the compiled route (PYTHONPATH for 'before')")
    ap.add_argument("--main", help="a checkout of geonh to compare the compiled route with (PYTHONPATH; e.g. main "
                                   "before the replay of repeated points)")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        worker(args.worker)
        return
    if args.sweep:
        sweep_main(args)
        return
    import platform

    import numpy as np
    import sympy
    results: dict = {}
    for route in args.routes:
        reps = args.sympy_repeats if route.startswith("sympy") else args.repeats
        runs = []
        for k in range(reps):
            sys.stderr.write(f"{route} run {k + 1}/{reps} ...\n")
            r = run(route, args.timeout)
            if r is None:
                sys.stderr.write(f"  {route}: failed or > {args.timeout:.0f} s\n")
                break
            sys.stderr.write(f"  cpu {r['cpu']:.2f} s, wall {r['wall']:.2f} s {r['parts']}\n")
            runs.append(r)
        results[route] = runs
    print(f"Whipple bicycle -> linear matrices.  sympy {sympy.__version__}, Python {platform.python_version()}, "
          f"{os.cpu_count()} CPUs; median of fresh processes (imports not timed).\n")
    print(f"{'route':24s} {'runs':>4s} {'CPU [s]':>9s} {'wall [s]':>9s} {'import':>7s}  parts (CPU, median)")
    print("-" * 100)
    med = {}
    for route, runs in results.items():
        if not runs:
            print(f"{route:24s} {'0':>4s} {'> ' + str(int(args.timeout)):>9s}")
            continue
        cpu = statistics.median(r["cpu"] for r in runs)
        wall = statistics.median(r["wall"] for r in runs)
        imp = statistics.median(r["import"] for r in runs)
        parts = {k: statistics.median(r["parts"][k] for r in runs) for k in runs[0]["parts"]}
        med[route] = cpu
        print(f"{route:24s} {len(runs):4d} {cpu:9.2f} {wall:9.2f} {imp:7.2f}  "
              + ", ".join(f"{k} {x:.2f}" for k, x in parts.items()))
    for ref in ("sympy-kane", "sympy-test"):
        if ref in med:
            print()
            for route, cpu in med.items():
                if route.startswith("geonh"):
                    print(f"{ref} / {route}: {med[ref] / cpu:.1f}x (CPU)")
    print("\nAgreement, A(v = 5 m/s) on (phi, delta, phi', delta'):")
    ref = None
    for route, runs in results.items():
        if not runs or runs[0]["A5"] is None:
            continue
        A = np.array(runs[0]["A5"])
        if ref is None:
            ref, refname = A, route
        ev = eig(A)
        table = max(min(abs(z - complex(*t)) for z in ev) for t in TABLE2_V5)
        print(f"  {route:24s} max|A - A[{refname}]| = {np.max(np.abs(A - ref)):.1e}; eigenvalues vs Table 2: "
              f"max error {table:.1e}")


def sweep_main(args) -> None:
    """Before/after of the eigenvalue sweep, fresh processes, one run (module doc)."""
    import tempfile

    import numpy as np
    base_env = {k: v for k, v in os.environ.items() if k not in ("GEONH_CACHE", "GEONH_CACHE_DIR", "PYTHONPATH")}
    cases = []
    if args.before:
        cases.append(("before (60 digits)", "sweep-before", {**base_env, "PYTHONPATH": args.before,
                                                             "GEONH_CACHE": "off"}, True))
    import shutil
    tmp = tempfile.mkdtemp(prefix="geonh-bench-cache-")
    if args.main:                      # main's compiled route, cold and warm, in a cache of its own
        tmp_main = tempfile.mkdtemp(prefix="geonh-bench-cache-main-")
        main_env = {**base_env, "PYTHONPATH": args.main, "GEONH_CACHE_DIR": tmp_main}
        cases += [("main, compiled, cold cache", "sweep-main-cold", main_env, False),
                  ("main, compiled, warm cache", "sweep-main", main_env, False)]
    cases += [("after, exact=True", "sweep-exact", {**base_env, "GEONH_CACHE": "off"}, True),
              ("after, compiled, cold cache", "sweep-cold", {**base_env, "GEONH_CACHE_DIR": tmp}, False),
              ("after, compiled, warm cache", "sweep-warm", {**base_env, "GEONH_CACHE_DIR": tmp}, False)]
    results = {}
    for label, route, env, once in cases:
        runs = []
        reps = 1 if once else args.repeats
        for k in range(reps):
            if route.endswith("-cold"):            # an empty cache before every cold run
                shutil.rmtree(env["GEONH_CACHE_DIR"], ignore_errors=True)
            sys.stderr.write(f"{label} run {k + 1}/{reps} ...\n")
            r = run(route, args.timeout, env)
            if r is None:
                sys.stderr.write(f"  {label}: failed or > {args.timeout:.0f} s\n")
                break
            sys.stderr.write(f"  cpu {r['cpu']:.2f} s (children {r.get('children', 0.0):.2f}), wall {r['wall']:.2f} s, one more point {r['one_cpu'] * 1e3:.2f} ms"
                             f" {r['parts']} cache {r['cache']}\n")
            runs.append(r)
        results[label] = runs
    print(f"Whipple bicycle: eigenvalues at {SWEEP_SPEEDS} speeds (0..10 m/s), model and equations included; "
          f"{os.cpu_count()} CPUs, fresh processes, medians (imports not timed).\n")
    print("+1 point: Equations.linearize + Linearization.eigenvalues at one more speed (median of 200); "
          "linearize: the call alone.")
    print(f"{'route':30s} {'runs':>4s} {'CPU [s]':>8s} {'wall [s]':>8s} {'model+eqs':>9s} {'sweep':>7s} "
          f"{'+1 point CPU [ms]':>17s} {'wall [ms]':>9s} {'linearize CPU':>13s} {'wall [ms]':>9s}")
    print("-" * 126)
    med = {}
    for label, runs in results.items():
        if not runs:
            print(f"{label:30s} {'0':>4s}")
            continue
        def m(key, sub=None):
            return statistics.median(r[key][sub] if sub else r[key] for r in runs)
        med[label] = (m("cpu"), m("one_cpu"))
        print(f"{label:30s} {len(runs):4d} {m('cpu'):8.2f} {m('wall'):8.2f} {m('parts', 'model+equations'):9.2f} "
              f"{m('parts', '50 speeds'):7.2f} {m('one_cpu') * 1e3:17.3f} {m('one_wall') * 1e3:9.3f} "
              + (f"{m('lin_cpu') * 1e3:13.3f} {m('lin_wall') * 1e3:9.3f}" if "lin_cpu" in runs[0] else ""))
    ref = "before (60 digits)" if "before (60 digits)" in med else "after, exact=True"
    if ref in med:
        print()
        for label, (cpu, one) in med.items():
            if label != ref:
                print(f"{ref} / {label}: sweep {med[ref][0] / cpu:.1f}x, one more point {med[ref][1] / one:.0f}x (CPU)")
    for cache in ("cold", "warm"):
        main, after = f"main, compiled, {cache} cache", f"after, compiled, {cache} cache"
        if main in med and after in med:
            print(f"{main} / {after}: sweep {med[main][0] / med[after][0]:.2f}x, one more point "
                  f"{med[main][1] / med[after][1]:.1f}x (CPU)")
    exact = results.get(ref) or []
    if exact:
        E = np.array(exact[0]["eigs"])
        for label, runs in results.items():
            if runs and label != ref:
                D = np.array(runs[0]["eigs"])
                scale = max(1.0, float(np.max(np.abs(E))))
                print(f"  max |eig - eig[{ref}]| / scale, {label}: {np.max(np.abs(D - E)) / scale:.1e}")


if __name__ == "__main__":
    main()
