#!/usr/bin/env python
"""Benchmark (issue 4): explicit equations of the dynamic N-trailer, geonh vs sympy.

The model is built once per case in sympy.physics.mechanics and handed to these routes:

* ``kane``     "Kane (careful)": sympy KanesMethod with geonh's adapted speeds: independent
               (v, w), dependent (lateral speed of the tractor, θ̇1..θ̇N), kd_eqs q̇ = C u;
               ``kanes_equations`` then ``rhs()``.
* ``kane-tb``  "Kane (textbook)": KanesMethod as set up from the sympy docs: u_i = q̇_i for
               every coordinate (kd_eqs q̇_i − u_i), the N + 1 no-slip constraints as
               ``velocity_constraints`` in those u (msubs, nothing simplified), independent
               u_x, u_θ0, dependent u_y, u_θ1..u_θN (constraint i contains u_x, u_y and
               u_θ1..u_θi, so the dependent block is lower triangular with diagonal
               cos θ0, −d1, …, −dN: the natural solvable choice; it is singular at
               cos θ0 = 0, which the adapted speeds are not); ``kanes_equations`` then
               ``rhs()`` (LU solve of the n × n ``mass_matrix``).  Also counted, untimed:
               ops of ``kane.mass_matrix`` after cse ("M ops"), also when rhs() times out.
* ``lagrange`` sympy LagrangesMethod with ``nonhol_coneqs``; ``form_lagranges_equations``
               then ``rhs()``.
* ``bh``       geonh: ``MechanicalSystem.from_mechanics`` on the same bodies/loads/constraints,
               the adapted frame ``Frame.from_quasi_velocities`` (v, w, then the constraint
               quasi-velocities of ``geonh.models.kinematic.n_trailer``), ``boltzmann_hamel``, then
               ``rhs()`` (kinematics + 2×2 LU solve).
* ``maggi``    the same with ``maggi``.
* ``bh-cf``    (extra column) Boltzmann–Hamel with the frame given by its fields in closed
               form, q̇ = C(q) ω (``Frame(fields)``), instead of ``from_quasi_velocities``
               (which inverts B by an unsimplified LU).  Shows what the frame inverse costs.
* ``gm-bh``    geonh's own model builder ``geonh.models.mechanical.dynamic_n_trailer(N)`` (timed)
               + boltzmann_hamel + rhs() (on-axle model only).
* ``bh-ode``   model → runnable RHS: from_mechanics + closed-form frame + boltzmann_hamel +
               ``Equations.ode_function()`` (compiled, symengine LLVM by default).
* ``kane-pydy`` model → runnable RHS the pydy way: careful Kane (``kanes_equations``) + pydy's
               ``generate_ode_function(forcing_full, q, u, constants, mass_matrix=mass_matrix_full,
               generator="cython")``.

``--construction`` runs kane, kane-tb, bh-cf, maggi-cf, gm-bh, bh-ode and kane-pydy at
N = 4 8 16 in one run (issue 10 item 2, issue 9's model → runnable RHS) and prints the
ratios; ``--offaxle`` moves every mass centre off its axle, G_i = P_i + e_i b_i^x (the inertia
I_i about G_i; constraints and loads unchanged), the variant where Kane's expressions grow
fastest; ``--no-ops`` skips the cse operation counts.  Every module a route imports is
imported before the clock starts.

Model.  Coordinates x, y (tractor axle midpoint P0), θ0 … θN (headings).  Trailer i's axle
midpoint is P_i = P_{i-1} − d_i b_i^x (hitched at the axle midpoint of the body in front).
Each body is a RigidBody with mass m_i and inertia I_i about the vertical axis, both AT ITS
AXLE MIDPOINT (mass centre = axle midpoint; I_i is the yaw inertia there).  Constraints: the
lateral velocity of every axle midpoint vanishes, P_i.vel(N)·b_i^y = 0 (N + 1 of them).
Loads: driving force F·b0^x at P0 and steering torque τ·n^z on the tractor body.

Timed (wall clock, ``time.perf_counter``, with the worker's CPU time, ``time.process_time``,
beside it; each repeat in a fresh Python process so sympy's cache starts cold; the mechanics
model itself is built before the clock starts, then ``gc.collect()`` so that every route
starts from the same garbage-collector state; the
derivation is stopped by SIGALRM at --timeout seconds, the whole process with its cse counts
is killed at 2·timeout + 30 s):
  kane     KanesMethod(...) with kd_eqs q̇ = C u and the velocity constraints in u
           (coefficients trigsimp'ed, included in the time) + kanes_equations + rhs()
  kane-tb  msubs of the constraints + KanesMethod(...) + kanes_equations + rhs()
  lagrange LagrangesMethod(...) + form_lagranges_equations + rhs()
  geonh    from_mechanics + frame + boltzmann_hamel/maggi + Equations.rhs()

Operation count ("ops"): the route's explicit right-hand side, kinematics + accelerations,
is put through ``sympy.cse(exprs, order="none")``; ops = Σ count_ops(rhs of each
replacement) + Σ count_ops(reduced expr), with sympy's default count_ops (each binary
+, −, ×, ÷, power, negation and each function call counts 1).  Dynamicsymbols are replaced by
plain symbols first.  The expressions counted:
  kane     all of kane.rhs(): q̇ (N+3) and u̇ for all N+3 speeds (Kane's state includes the
           dependent speeds); the same for kane-tb (there q̇ = u is trivial and u̇ = q̈)
  lagrange q̇ (trivial) and q̈ (N+3) rows of lm.rhs() (the N+1 multiplier rows are left out)
  geonh    eq.rhs(): q̇ = K(q, v, w) (N+3) and (v̇, ẇ)

Agreement: every route evaluates its (v̇, ẇ) at one random constraint-consistent state
(float, same seed for all routes); Kane: (u̇1, u̇2); Lagrange and textbook Kane (u = q̇):
(cos θ0 ẍ + sin θ0 ÿ, θ̈0) (equal to v̇, ẇ on the constraint).  The max abs difference to
careful Kane (to geonh-BH where it did not finish) is printed; and all of q̈, textbook Kane
against Lagrange.

Usage:  python benchmarks/n_trailer_dynamics.py [--N 1 2 4 8] [--timeout 240]
                                                [--routes kane kane-tb ...] [--geonh-only-N 12]
        python benchmarks/n_trailer_dynamics.py --profile 4 8     (cProfile of geonh BH + rhs)
        python benchmarks/n_trailer_dynamics.py --construction [--offaxle] [--no-ops]
        python benchmarks/n_trailer_dynamics.py --target [--N 4 8] [--no-ops]
                  (issue 22 part 6: both models in one run; Kane*/route = the faster of the
                  two Kane set-ups over the route, wall and CPU; the >= 3x verdict)
        python benchmarks/n_trailer_dynamics.py --stages 4 8 [--routes bh bh-cf] [--repeats 3]
                  (exclusive CPU time per stage of geonh's derivation, validation share)
Progress goes to stderr, the table to stdout.  See benchmarks/README.md.
"""
from __future__ import annotations

import os as _os  # noqa: E402
_os.environ.setdefault("GEONH_CACHE", "off")  # time compiling, not loading (geonh.numerics.cache)
import argparse
import json
import math
import os
import random
import statistics
import subprocess
import sys
import time

ROUTES = ("kane", "kane-tb", "lagrange", "bh", "maggi", "bh-cf", "maggi-cf", "gm-bh", "bh-ode",
          "kane-pydy")
LABEL = {"kane": "Kane (careful)", "kane-tb": "Kane (textbook)", "lagrange": "sympy Lagrange",
         "bh": "geonh BH", "maggi": "geonh Maggi", "bh-cf": "geonh BH*",
         "maggi-cf": "geonh Maggi*", "gm-bh": "geonh model BH", "bh-ode": "geonh BH* ode",
         "kane-pydy": "Kane+pydy ode"}
# --construction (issue 10 item 2, issue 9 model → RHS): one run, these routes
CONSTRUCTION_ROUTES = ("kane", "kane-tb", "bh-cf", "maggi-cf", "gm-bh", "bh-ode", "kane-pydy")
OFFAXLE = os.environ.get("NTRAILER_OFFAXLE") == "1"   # set by --offaxle for the workers too
REFS = ("kane", "kane-tb")   # the ratio columns: each route against both Kane setups


class DerivationTimeout(BaseException):
    """Raised by SIGALRM inside the timed derivation (BaseException: not swallowed by sympy's
    ``except Exception`` clauses)."""


def _import_geonh():
    try:
        import geonh  # noqa: F401
    except ImportError:  # run from a checkout without installing
        sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        import geonh  # noqa: F401
    return sys.modules["geonh"]


# ----------------------------------------------------------------------------------------------
# the model (built once per process, shared by every route)
# ----------------------------------------------------------------------------------------------
def build_model(N: int) -> dict:
    import sympy as sp
    from sympy.physics.mechanics import (Point, ReferenceFrame, RigidBody, dynamicsymbols,
                                         inertia)
    t = dynamicsymbols._t
    x, y = dynamicsymbols("x y")
    th = list(dynamicsymbols(f"theta0:{N + 1}"))
    q = [x, y, *th]
    m = sp.symbols(f"m0:{N + 1}", positive=True)
    I = sp.symbols(f"I0:{N + 1}", positive=True)
    d = sp.symbols(f"d1:{N + 1}", positive=True)
    F, tau = sp.symbols("F tau", real=True)
    Nf = ReferenceFrame("N")
    O = Point("O")
    O.set_vel(Nf, 0)
    B = [Nf.orientnew(f"B{i}", "Axis", [th[i], Nf.z]) for i in range(N + 1)]
    P = [O.locatenew("P0", x * Nf.x + y * Nf.y)]
    for i in range(1, N + 1):
        P.append(P[-1].locatenew(f"P{i}", -d[i - 1] * B[i].x))
    e = sp.symbols(f"e0:{N + 1}", positive=True)
    if OFFAXLE:   # mass centre G_i = P_i + e_i b_i^x, ahead of the axle; I_i about G_i
        G = [P[i].locatenew(f"G{i}", e[i] * B[i].x) for i in range(N + 1)]
    else:
        G = P
    bodies = [RigidBody(f"body{i}", G[i], B[i], m[i], (inertia(B[i], 0, 0, I[i]), G[i]))
              for i in range(N + 1)]
    constraints = [P[i].vel(Nf).dot(B[i].y) for i in range(N + 1)]   # in q, q̇
    loads = [(P[0], F * B[0].x), (B[0], tau * Nf.z)]
    return dict(N=N, e=e, t=t, q=q, qd=[s.diff(t) for s in q], m=m, I=I, d=d, F=F, tau=tau,
                frame=Nf, bodies=bodies, constraints=constraints, loads=loads)


def random_state(N: int, seed: int = 12345) -> dict:
    """Numbers by name: parameters, q, v, w and the constraint-consistent velocities."""
    rng = random.Random(seed + N)
    s = {}
    for i in range(N + 1):
        s[f"m{i}"] = rng.uniform(1, 3)
        s[f"I{i}"] = rng.uniform(0.5, 2)
    for i in range(1, N + 1):
        s[f"d{i}"] = rng.uniform(0.5, 2)
    for i in range(N + 1):
        s[f"e{i}"] = rng.uniform(0.2, 1)
    s["F"], s["tau"] = rng.uniform(-2, 2), rng.uniform(-2, 2)
    s["x"], s["y"] = rng.uniform(-1, 1), rng.uniform(-1, 1)
    th = [rng.uniform(-0.6, 0.6)]
    for i in range(1, N + 1):
        th.append(th[-1] + rng.uniform(-0.6, 0.6))
    for i, a in enumerate(th):
        s[f"theta{i}"] = a
    v, w = rng.uniform(0.5, 2), rng.uniform(-1, 1)
    s["v"], s["w"] = v, w
    # q̇ on the constraint: ẋ = v cos θ0, ẏ = v sin θ0, d_i θ̇_i = v_{i-1} sin(θ_{i-1} − θ_i)
    s["x_dot"], s["y_dot"], s["theta0_dot"] = v * math.cos(th[0]), v * math.sin(th[0]), w
    vi = v
    for i in range(1, N + 1):
        s[f"theta{i}_dot"] = vi * math.sin(th[i - 1] - th[i]) / s[f"d{i}"]
        vi *= math.cos(th[i - 1] - th[i])
    return s


# ----------------------------------------------------------------------------------------------
# numbers: memoised float evaluation of a sympy DAG (linear in the DAG size; lambdify or
# evalf on LU output re-walk shared subtrees)
# ----------------------------------------------------------------------------------------------
def evaluate(exprs, values: dict) -> list[float]:
    import sympy as sp
    memo: dict = {}
    funcs = {sp.sin: math.sin, sp.cos: math.cos, sp.tan: math.tan, sp.exp: math.exp}

    def ev(e):
        try:
            return memo[e]
        except KeyError:
            pass
        if e.is_Symbol:
            r = values[e.name]
        elif e.is_Number:
            r = float(e)
        elif e.is_Add:
            r = math.fsum(ev(a) for a in e.args)
        elif e.is_Mul:
            r = 1.0
            for a in e.args:
                r *= ev(a)
        elif e.is_Pow:
            r = ev(e.base) ** ev(e.exp)
        elif e.func in funcs:
            r = funcs[e.func](ev(e.args[0]))
        else:
            r = float(e.xreplace({s: values[s.name] for s in e.free_symbols}).evalf())
        memo[e] = r
        return r

    sys.setrecursionlimit(100000)
    return [ev(sp.sympify(e)) for e in exprs]


def count_ops_cse(exprs) -> int:
    import sympy as sp
    reps, red = sp.cse(list(exprs), order="none")
    return int(sum(sp.count_ops(r) for _, r in reps) + sum(sp.count_ops(e) for e in red))


def subs_dag(exprs, rep: dict) -> list:
    """xreplace with a memo: linear in the size of the expression DAG (LU output shares
    subtrees heavily; plain xreplace/atoms walk the tree, exponentially in N)."""
    memo = dict(rep)

    def go(e):
        try:
            return memo[e]
        except KeyError:
            pass
        if e.args and not e.is_Atom:
            args = [go(a) for a in e.args]
            r = e.func(*args) if any(a is not b for a, b in zip(args, e.args)) else e
        else:
            r = e
        memo[e] = r
        return r

    sys.setrecursionlimit(100000)
    return [go(e) for e in exprs]


def _plain(model, exprs, extra=()):
    """dynamicsymbols q(t), q'(t) (and ``extra`` speeds) → plain symbols named like geonh's."""
    import sympy as sp
    rep = {}
    for f, fd in zip(model["q"], model["qd"]):
        rep[fd] = sp.Symbol(f.func.__name__ + "_dot")
        rep[f] = sp.Symbol(f.func.__name__)
    for f in extra:
        rep[f] = sp.Symbol(f.func.__name__)
    return subs_dag(exprs, rep)


# ----------------------------------------------------------------------------------------------
# the routes: generators; the first next() derives the explicit rhs (timed), the second
# returns (exprs to count, (v̇, ẇ) exprs, names to alias in the numerical state)
# ----------------------------------------------------------------------------------------------
def route_kane(model, want_km: bool = False):
    import sympy as sp
    from sympy.physics.mechanics import KanesMethod, dynamicsymbols, msubs
    N, q, qd, th = model["N"], model["q"], model["qd"], model["q"][2:]
    u = list(dynamicsymbols(f"u1:{N + 4}"))   # u1 = v, u2 = w, u3 = lateral, u(3+i) = θ̇_i
    c0, s0 = sp.cos(th[0]), sp.sin(th[0])
    kin = [u[0] * c0 - u[2] * s0, u[0] * s0 + u[2] * c0, u[1]] + [u[3 + i] for i in range(N)]
    kd_eqs = [a - b for a, b in zip(qd, kin)]
    qdot_u = dict(zip(qd, kin))
    # constraints in u: coefficients of each u, trigsimp'ed (a careful Kane user would do this)
    vc = []
    for c in model["constraints"]:
        cu = sp.expand(msubs(c, qdot_u))
        vc.append(sum(sp.trigsimp(cu.coeff(uk)) * uk for uk in u))
    km = KanesMethod(model["frame"], q_ind=q, u_ind=u[:2], u_dependent=u[2:], kd_eqs=kd_eqs,
                     velocity_constraints=vc)
    km.kanes_equations(model["bodies"], model["loads"])
    if want_km:
        yield km
        return None
    rhs = km.rhs()
    yield
    exprs = _plain(model, list(rhs), extra=u)
    n = len(q)
    return exprs, [exprs[n], exprs[n + 1]], {"u1": "v", "u2": "w", "u3": "_zero"} | {
        f"u{4 + i}": f"theta{1 + i}_dot" for i in range(N)}


def route_kane_textbook(model):
    """KanesMethod as the sympy docs set it up: u_i = q̇_i for every coordinate, the N + 1
    no-slip constraints as velocity_constraints in those u (as msubs gives them, nothing
    simplified), independent speeds u_x, u_θ0, dependent u_y, u_θ1..u_θN (constraint i
    involves u_x, u_y, u_θ1..u_θi only, so this dependent block is lower triangular with
    diagonal cos θ0, −d1, …, −dN: the natural solvable choice; singular at cos θ0 = 0).
    The first next() yields after kanes_equations (so the mass matrix can be counted if
    rhs() then runs out of time)."""
    import sympy as sp
    from sympy.physics.mechanics import KanesMethod, dynamicsymbols, msubs
    N, q, qd = model["N"], model["q"], model["qd"]
    u = list(dynamicsymbols(f"u1:{N + 4}"))   # u1 = ẋ, u2 = ẏ, u3 = θ̇0, u(4+i) = θ̇_(1+i)
    kd_eqs = [a - b for a, b in zip(qd, u)]
    vc = [msubs(c, dict(zip(qd, u))) for c in model["constraints"]]
    km = KanesMethod(model["frame"], q_ind=q, u_ind=[u[0], u[2]], u_dependent=[u[1], *u[3:]],
                     kd_eqs=kd_eqs, velocity_constraints=vc)
    km.kanes_equations(model["bodies"], model["loads"])
    yield km
    rhs = km.rhs()
    yield
    exprs = _plain(model, list(rhs), extra=u)
    n = len(q)
    # rhs order: q̇ (in q order), then u̇ in km.u order (independent first)
    udot = {s.func.__name__: e for s, e in zip(km.u, exprs[n:])}
    qdd = [udot[f"u{k + 1}"] for k in range(n)]             # = q̈ in q order
    th0 = sp.Symbol("theta0")
    acc = [sp.cos(th0) * qdd[0] + sp.sin(th0) * qdd[1], qdd[2]]   # v̇ (on the constraint), ẇ
    ren = {f"u{k + 1}": f"{model['q'][k].func.__name__}_dot" for k in range(n)}
    return exprs, acc, ren, qdd


def mass_matrix_ops(model, km) -> int:
    """count_ops after cse of KanesMethod.mass_matrix (dynamic + constraint rows, n × n)."""
    return count_ops_cse(_plain(model, list(km.mass_matrix), extra=km.u))


def route_lagrange(model):
    import sympy as sp
    from sympy.physics.mechanics import Lagrangian, LagrangesMethod
    q = model["q"]
    L = Lagrangian(model["frame"], *model["bodies"])
    lm = LagrangesMethod(L, q, forcelist=model["loads"], bodies=model["bodies"],
                         frame=model["frame"], nonhol_coneqs=model["constraints"])
    lm.form_lagranges_equations()
    rhs = lm.rhs()
    yield
    n = len(q)
    exprs = _plain(model, list(rhs[:2 * n]))   # q̇, q̈ (multipliers left out)
    xdd, ydd, th0dd = exprs[n], exprs[n + 1], exprs[n + 2]
    th0 = sp.Symbol("theta0")
    return exprs, [sp.cos(th0) * xdd + sp.sin(th0) * ydd, th0dd], {}, exprs[n:]


def _geonh_system_and_frame(model, closed_form: bool):
    """from_mechanics on the shared model, and the adapted frame of the kinematic N-trailer.

    closed_form=False: ``geonh.models.kinematic.n_trailer(N).frame`` as it is, i.e.
    ``Frame.from_quasi_velocities`` (C = B⁻¹ by an unsimplified LU).
    closed_form=True: ``Frame(fields, coframe=...)`` with the same coframe and the fields
    q̇ = C ω written out (geonh verifies θ^a(X_b) = δ^a_b at the generic point)."""
    import sympy as sp
    from geonh.models import kinematic as catalog
    from geonh.kernel.fields import VectorField
    from geonh.kernel.forms import OneForm
    from geonh.kernel.frames import Frame
    from geonh.systems.mechanical import MechanicalSystem
    N, d = model["N"], list(model["d"])
    system = MechanicalSystem.from_mechanics(model["q"], model["bodies"], model["frame"],
                                             model["loads"], model["constraints"])
    S = system.space
    if not closed_form:
        kin = catalog.n_trailer(N, lengths=d)
        if kin.space != S:
            raise RuntimeError(f"catalog space {kin.space!r} differs from {S!r}")
        return system, kin.frame
    x, y, *th = S.q
    n = N + 3
    B = sp.zeros(n, n)   # the coframe of catalog.n_trailer
    C = sp.zeros(n, n)   # its inverse, q̇ = C ω
    c0, s0 = sp.cos(th[0]), sp.sin(th[0])
    B[0, 0], B[0, 1], B[1, 2], B[2, 0], B[2, 1] = c0, s0, 1, s0, -c0
    C[0, 0], C[0, 2], C[1, 0], C[1, 2], C[2, 1] = c0, s0, s0, -c0, 1
    speed = sp.S.One
    for i in range(1, N + 1):
        f = speed * sp.sin(th[i - 1] - th[i]) / d[i - 1]
        B[2 + i, 2 + i], B[2 + i, 0], B[2 + i, 1] = 1, -f * c0, -f * s0
        C[2 + i, 0], C[2 + i, 2 + i] = f, 1
        speed = speed * sp.cos(th[i - 1] - th[i])
    names = ["v", "w"] + [f"c{i}" for i in range(N + 1)]
    return system, Frame([VectorField(S, list(C[:, a])) for a in range(n)],
                         coframe=[OneForm(S, list(B[a, :])) for a in range(n)], names=names)


def route_geonh(model, form: str, closed_form: bool = False):
    from geonh.equations import boltzmann_hamel, maggi
    system, frame = _geonh_system_and_frame(model, closed_form)
    eq = (boltzmann_hamel if form == "bh" else maggi)(system, frame)
    rhs = eq.rhs()
    yield
    exprs = list(rhs)
    n = system.space.n
    return exprs, [exprs[n], exprs[n + 1]], {}


def route_geonh_model(model):
    """geonh's own model builder ``geonh.models.mechanical.dynamic_n_trailer(N)`` (on-axle
    masses; its frame is the closed-form one of the kinematic N-trailer) + boltzmann_hamel +
    rhs().  Its symbols are named like the mechanics model's (J_i for I_i)."""
    import sympy as sp
    from geonh.models import mechanical as mm
    from geonh.equations import boltzmann_hamel
    Mo = mm.dynamic_n_trailer(model["N"])
    eq = boltzmann_hamel(Mo.system, Mo.frame)
    rhs = eq.rhs()
    yield
    ren = {s: sp.Symbol("I" + s.name[1:]) for s in Mo.parameters if s.name.startswith("J")}
    exprs = [e.xreplace(ren) for e in rhs]
    n = Mo.space.n
    return exprs, [exprs[n], exprs[n + 1]], {}


def route_geonh_ode(model):
    """from_mechanics + closed-form frame + boltzmann_hamel + ``Equations.ode_function()`` (a
    compiled f(t, y, p), symengine LLVM by default): model → runnable RHS."""
    from geonh.equations import boltzmann_hamel
    system, frame = _geonh_system_and_frame(model, True)
    eq = boltzmann_hamel(system, frame)
    f = eq.ode_function()
    yield
    return None


def route_kane_pydy(model):
    """Careful Kane (route ``kane``) + pydy's ``generate_ode_function`` of
    ``mass_matrix_full``/``forcing_full`` with the Cython generator: model → runnable RHS the
    pydy way."""
    from pydy.codegen.ode_function_generators import generate_ode_function
    gen = route_kane(model, want_km=True)
    km = next(gen)
    consts = sorted(set(model["m"]) | set(model["I"]) | set(model["d"]) | {model["F"], model["tau"]}
                    | (set(model["e"]) if OFFAXLE else set()), key=lambda x: x.name)
    f = generate_ode_function(km.forcing_full, km.q, km.u, consts, mass_matrix=km.mass_matrix_full,
                              generator="cython")
    yield
    return None


def worker(route: str, N: int, count: bool, limit: float) -> None:
    """One case in this (fresh) process; JSON lines on stdout as results become available.
    The derivation runs under SIGALRM at ``limit`` seconds; on expiry it emits
    ``derivation_timeout`` (and, for textbook Kane, still counts the mass matrix)."""
    import signal
    _import_geonh()
    import sympy  # noqa: F401  (import outside the clock)
    import sympy.physics.mechanics  # noqa: F401
    # every module a route uses is imported before the clock starts (import time is not
    # derivation time): geonh's equations, models, backend (symengine) and code generation
    import importlib
    for mod in ("geonh.equations", "geonh.models.mechanical", "geonh.kernel.backend", "symengine",
                "geonh.numerics.compiled"):
        try:
            importlib.import_module(mod)
        except ImportError:   # an older geonh (e.g. a baseline checkout) or no symengine
            pass
    if route == "kane-pydy":
        import pydy.codegen.ode_function_generators  # noqa: F401
    model = build_model(N)

    def emit(**kw):
        print(json.dumps(kw), flush=True)

    def alarm(signum, frame):
        raise DerivationTimeout

    if route == "kane":
        gen = route_kane(model)
    elif route == "kane-tb":
        gen = route_kane_textbook(model)
    elif route == "lagrange":
        gen = route_lagrange(model)
    elif route == "gm-bh":
        gen = route_geonh_model(model)
    elif route == "bh-ode":
        gen = route_geonh_ode(model)
    elif route == "kane-pydy":
        gen = route_kane_pydy(model)
    else:
        gen = route_geonh(model, "bh" if route.startswith("bh") else "maggi",
                          closed_form=route.endswith("-cf"))
    km = None
    # every route starts from the same collector state: the cyclic GC's debt from imports and
    # the model build is paid here, not by whichever derivation happens to trigger the next
    # full collection (20–50 ms with sympy's heap); collections the derivation causes count
    import gc
    gc.collect()
    signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, limit)
    t0, c0 = time.perf_counter(), time.process_time()
    try:
        if route == "kane-tb":
            km = next(gen)                 # KanesMethod + kanes_equations
            emit(time_kanes=time.perf_counter() - t0)
        next(gen)   # the derivation, up to the explicit rhs as the route returns it
        t, c = time.perf_counter() - t0, time.process_time() - c0
        signal.setitimer(signal.ITIMER_REAL, 0)
        emit(time=t, cpu=c)
    except DerivationTimeout:
        emit(derivation_timeout=time.perf_counter() - t0)
        if km is not None:
            emit(m_ops=mass_matrix_ops(model, km))
        return
    if not count:
        return
    try:
        next(gen)
    except StopIteration as stop:
        if stop.value is None:   # a route that builds a function, not expressions
            return
        exprs, acc, ren, *qdd = stop.value
    vals = random_state(N)
    vals["_zero"] = 0.0
    for k, v in ren.items():
        vals[k] = vals[v]
    emit(acc=evaluate(acc, vals))
    if qdd:
        emit(qdd=evaluate(qdd[0], vals))
    if km is not None:
        emit(m_ops=mass_matrix_ops(model, km))
    if os.environ.get("NTRAILER_NO_OPS") == "1":
        return
    t1 = time.perf_counter()
    emit(ops=count_ops_cse(exprs), cse_time=time.perf_counter() - t1)


# ----------------------------------------------------------------------------------------------
# driver
# ----------------------------------------------------------------------------------------------
def run_case(route: str, N: int, timeout: float, count: bool, retries: int = 2,
             offaxle: bool | None = None) -> dict:
    """Run one case in a subprocess; collect what it printed.  The derivation is limited to
    ``timeout`` s inside the worker (SIGALRM); the whole process (derivation, numbers, cse
    counts) is killed after 2·timeout + 30 s.  A crash before the clock started (e.g. geonh
    mid-edit in a working tree) is retried after 60 s.  ``offaxle``: the model of the worker
    (True: masses off the axles; None: this process's model, :data:`OFFAXLE`)."""
    cmd = [sys.executable, os.path.abspath(__file__), "--worker", route, str(N),
           "--limit", str(timeout)]
    if not count:
        cmd.append("--no-count")
    env = dict(os.environ)
    if offaxle is not None:
        env.pop("NTRAILER_OFFAXLE", None)
        if offaxle:
            env["NTRAILER_OFFAXLE"] = "1"
    out: dict = {}
    start = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        so, se = p.communicate(timeout=2 * timeout + 30)
        out["timed_out"] = False
    except subprocess.TimeoutExpired:
        p.kill()
        so, se = p.communicate()
        out["timed_out"] = True
    out["wall"] = time.perf_counter() - start
    for line in so.splitlines():
        try:
            out.update(json.loads(line))
        except json.JSONDecodeError:
            pass
    if "derivation_timeout" in out:
        out["timed_out"] = True
    if p.returncode not in (0, None) and not out["timed_out"]:
        out["error"] = (se.strip().splitlines() or ["?"])[-1]
        if retries and "time" not in out and "time_kanes" not in out:
            print(f"  N={N} {LABEL[route]}: {out['error']}; retrying in 60 s", file=sys.stderr,
                  flush=True)
            time.sleep(60)
            return run_case(route, N, timeout, count, retries - 1, offaxle)
    return out


def _fmt_time(r: dict, timeout: float) -> str:
    if not r:
        return "not run"
    if "time" in r:
        return f"{r['time']:.2f}"
    if r.get("error"):
        return "error"
    return f"> {timeout:.0f}"


def _fmt_ops(r: dict, key: str = "ops") -> str:
    if key in r:
        return str(r[key])
    if key == "ops" and "time" in r and r.get("timed_out"):
        return "(cse t/o)"
    return "—"


def _slope(Ns, ys):
    pts = [(math.log(n), math.log(y)) for n, y in zip(Ns, ys) if y is not None and y > 0]
    if len(pts) < 2:
        return None
    mx = sum(p[0] for p in pts) / len(pts)
    my = sum(p[1] for p in pts) / len(pts)
    sxx = sum((p[0] - mx) ** 2 for p in pts)
    return sum((p[0] - mx) * (p[1] - my) for p in pts) / sxx if sxx else None


def main_table(Ns, routes, timeout, repeats_small, small_max, geonh_only_Ns=(), offaxle=None):
    geonh = _import_geonh()
    import sympy
    log = lambda *a: print(*a, file=sys.stderr, flush=True)  # noqa: E731
    log(f"geonh from {os.path.dirname(geonh.__file__)}, sympy {sympy.__version__}, "
        f"timeout {timeout:.0f} s per case")
    res: dict = {}
    t_all = time.perf_counter()
    for N in sorted(set(Ns) | set(geonh_only_Ns)):
        reps = repeats_small if N <= small_max else 1
        for route in routes:
            if N not in Ns and not route.startswith(("bh", "maggi")):
                continue
            runs = []
            for k in range(reps):
                r = run_case(route, N, timeout, count=(k == 0), offaxle=offaxle)
                runs.append(r)
                log(f"  N={N:<2} {LABEL[route]:<15}{' off-axle' if offaxle else ''} repeat {k + 1}/{reps}: time "
                    f"{_fmt_time(r, timeout)} s, ops {_fmt_ops(r)}"
                    + (f", M ops {_fmt_ops(r, 'm_ops')}" if route == "kane-tb" else "")
                    + (f"  [{r['error']}]" if r.get("error") else "")
                    + f"  (process {r['wall']:.1f} s; total {time.perf_counter() - t_all:.0f} s)")
                if "time" not in r:
                    break
            first = dict(runs[0])
            times = [r["time"] for r in runs if "time" in r]
            if times and len(times) == len(runs):
                first["time"] = statistics.median(times)
                cpus = [r["cpu"] for r in runs if "cpu" in r]
                if len(cpus) == len(runs):
                    first["cpu"] = statistics.median(cpus)
            res[(route, N)] = first
    return res


def _ratio(ref: dict, x: dict, key: str, timeout: float) -> str:
    """ref/x; a timed-out reference gives a lower bound '> timeout/x'."""
    if key in x and key in ref:
        return f"{ref[key] / x[key]:.2f}"
    if key == "time" and "time" in x and ref.get("timed_out") and "error" not in ref:
        return f"> {timeout / x['time']:.1f}"
    return "—"


def print_table(res, Ns, routes, timeout, slope_Ns=None):
    """One table: a block of rows per N, one row per route run at that N; then growth
    exponents over ``slope_Ns`` (the N every route ran at), and for the geonh routes also
    over all N (row "slope all N") when that differs."""
    slope_Ns = list(slope_Ns or Ns)
    refs = [r for r in REFS if r in routes]
    short = {"kane": "KaneC", "kane-tb": "KaneT"}
    star = len(refs) == 2   # the Kane* columns: the faster of the two Kane set-ups
    cols = ["N", "route", "time [s]", "CPU [s]", "ops", "M ops"]
    for r in refs:
        cols += [f"{short[r]}/route time", f"{short[r]}/route ops"]
    if star:
        cols += ["Kane*/route time", "Kane*/route CPU"]
    rows = []
    for N in Ns:
        kstar = kane_star(res, N)
        for r in routes:
            if (r, N) not in res:
                continue
            x = res[(r, N)]
            row = [str(N), LABEL[r], _fmt_time(x, timeout), f"{x['cpu']:.2f}" if "cpu" in x else "—", _fmt_ops(x),
                   _fmt_ops(x, "m_ops") if r == "kane-tb" else ""]
            for ref in refs:
                if r == ref:
                    row += ["1", "1"]
                else:
                    k = res.get((ref, N), {})
                    row += [_ratio(k, x, "time", timeout), _ratio(k, x, "ops", timeout)]
            if star:
                row += [_ratio(kstar, x, "time", timeout), _ratio(kstar, x, "cpu", timeout)]
            rows.append(row)
        rows.append(None)
    f = lambda v: "—" if v is None else f"{v:.2f}"
    for tag, ns in (("slope", slope_Ns), ("slope all N", Ns)):
        if tag != "slope" and ns == slope_Ns:
            continue
        for r in routes:
            if tag != "slope" and not any((r, N) in res for N in ns if N not in slope_Ns):
                continue
            t = [res.get((r, N), {}).get("time") for N in ns]
            o = [res.get((r, N), {}).get("ops") for N in ns]
            mo = [res.get((r, N), {}).get("m_ops") for N in ns]
            st, so, sm = _slope(ns, t), _slope(ns, o), _slope(ns, mo)
            rows.append([tag, LABEL[r], f(st), "", f(so), f(sm) if r == "kane-tb" else ""]
                        + [""] * (2 * len(refs) + 2 * star))
    w = [max(len(c), *(len(rw[i]) for rw in rows if rw)) for i, c in enumerate(cols)]

    def fmt(rw):
        return "  ".join(c.rjust(w[i]) if i != 1 else c.ljust(w[i]) for i, c in enumerate(rw))
    line = fmt(cols)
    print(line)
    print("-" * len(line))
    for rw in rows:
        print() if rw is None else print(fmt(rw))
    print("time: wall seconds to the explicit equations, median over repeats (fresh process each); "
          "CPU: the same\nderivation's CPU seconds in the worker (time.process_time), median; ops: count_ops after cse\nof kinematics + accelerations (module docstring); "
          "M ops: count_ops after cse of textbook Kane's kane.mass_matrix;\n"
          "KaneC/route, KaneT/route: careful / textbook Kane over the route, > 1 means the "
          "route is faster / smaller;\nKane*/route: the faster of the two Kane set-ups (wall "
          "time, resp. CPU time, taken separately) over the route;\nslope: least-squares d log / d log N over the N that "
          "finished (a time-out makes a slope a lower bound);\n*: frame given in closed form "
          "(Frame(fields, coframe=...)) instead of catalog.n_trailer's from_quasi_velocities.")


def kane_star(res: dict, N: int) -> dict:
    """The faster of the two Kane set-ups at N, per measure: {"time": min wall, "cpu": min CPU}
    over the set-ups that finished (issue 22: the reference is the faster Kane); when neither
    finished, ``timed_out`` (the ratio is then a lower bound)."""
    ks = [res.get((r, N), {}) for r in REFS]
    out: dict = {}
    for key in ("time", "cpu"):
        vals = [k[key] for k in ks if key in k]
        if vals:
            out[key] = min(vals)
    if "time" not in out and ks and all(k.get("timed_out") for k in ks):
        out["timed_out"] = True
    return out


def print_agreement(res, Ns, routes):
    print()
    print("Agreement of (v̇, ẇ) at a random constraint-consistent state (max abs difference):")
    for N in Ns:
        ref = next((r for r in ("kane", "bh", "kane-tb") if "acc" in res.get((r, N), {})), None)
        if ref is None:
            print(f"  N={N}: no reference")
            continue
        a0 = res[(ref, N)]["acc"]
        parts = []
        for r in routes:
            if r == ref or (r, N) not in res:
                continue
            a = res.get((r, N), {}).get("acc")
            parts.append(f"{LABEL[r]} {max(abs(p - q) for p, q in zip(a, a0)):.1e}" if a else
                         f"{LABEL[r]} n/a")
        print(f"  N={N} vs {LABEL[ref]} (v̇={a0[0]:+.6f}, ẇ={a0[1]:+.6f}): " + ", ".join(parts))
    if "kane-tb" in routes and "lagrange" in routes:
        print("All of q̈ (x, y, θ0..θN), textbook Kane (u̇ with u = q̇) vs Lagrange "
              "(max abs difference / max |q̈|):")
        for N in Ns:
            a = res.get(("kane-tb", N), {}).get("qdd")
            b = res.get(("lagrange", N), {}).get("qdd")
            if a and b:
                print(f"  N={N}: {max(abs(p - q) for p, q in zip(a, b)):.1e} / "
                      f"{max(abs(p) for p in b):.3f}")
            elif ("kane-tb", N) in res:
                print(f"  N={N}: n/a")


def profile(Ns, top: int = 25):
    """cProfile of geonh's boltzmann_hamel + rhs() (the frame and the system
    built outside), and separately of MechanicalSystem.from_mechanics."""
    import cProfile
    import pstats
    _import_geonh()
    from geonh.models import kinematic as catalog
    from geonh.equations import boltzmann_hamel
    from geonh.systems.mechanical import MechanicalSystem
    for N in Ns:
        model = build_model(N)
        pm = cProfile.Profile()
        t0 = time.perf_counter()
        pm.enable()
        system = MechanicalSystem.from_mechanics(model["q"], model["bodies"], model["frame"],
                                                 model["loads"], model["constraints"])
        pm.disable()
        t1 = time.perf_counter()
        frame = catalog.n_trailer(N, lengths=list(model["d"])).frame
        t2 = time.perf_counter()
        pr = cProfile.Profile()
        pr.enable()
        eq = boltzmann_hamel(system, frame)
        t3 = time.perf_counter()
        eq.rhs()
        t4 = time.perf_counter()
        pr.disable()
        print(f"\n=== N = {N} (times under the profiler): from_mechanics {t1 - t0:.2f} s, "
              f"catalog frame {t2 - t1:.2f} s (not profiled), boltzmann_hamel {t3 - t2:.2f} s, "
              f"rhs() {t4 - t3:.2f} s")
        print(f"--- boltzmann_hamel + rhs(), N = {N}")
        st = pstats.Stats(pr, stream=sys.stdout)
        st.sort_stats("cumulative").print_stats(top)
        st.sort_stats("tottime").print_stats(12)
        print(f"--- MechanicalSystem.from_mechanics, N = {N}")
        pstats.Stats(pm, stream=sys.stdout).sort_stats("cumulative").print_stats(r"geonh|mechanics", 15)


# (module, attribute, stage label, is validation); functions imported by name elsewhere are
# patched where they are called (the second module of a pair)
STAGES = (
    ("geonh.systems.mechanical:MechanicalSystem", "__init__", "MechanicalSystem.__init__ checks", True),
    ("geonh.kernel.frames:Frame", "__init__", "Frame.__init__ (duality)", True),
    ("geonh.transposition.adapted", "check_adapted", "check_adapted", True),
    ("geonh.equations.declaration", "verify", "declaration verify", True),
    ("geonh.systems.mechanical:MechanicalSystem", "from_mechanics", "from_mechanics (loads, conversion)", False),
    ("geonh.systems.mechanical", "body_quadratic_parts", "body_quadratic_parts (components)", False),
    ("geonh.systems.mechanical", "velocity_quadratic_parts", "velocity_quadratic_parts (M, b, T0)", False),
    ("sympy.physics.vector.point:Point", "vel", "sympy Point.vel (velocities)", False),
    ("geonh.equations.engine", "central_equations", "engine central_equations (+ to sympy)", False),
    ("geonh.transposition.adapted", "frame_kinematics", "frame_kinematics", False),
    ("geonh.equations.declaration", "in_frame", "in_frame, solve (rest)", False),
    ("geonh.equations.declaration", "solve", "in_frame, solve (rest)", False),
    ("geonh.equations.base:Equations", "rhs", "Equations.rhs (rest)", False),
    ("geonh.kernel.generic_point", "lu_solve", "lu_solve (pivot verdict + solve)", False),
)
# where a function is called through a name imported into another module
STAGE_ALIASES = {"check_adapted": ("geonh.equations.declaration",),
                 "frame_kinematics": ("geonh.equations.declaration",),
                 "central_equations": ("geonh.equations.declaration",),
                 "in_frame": ("geonh.equations.frame_forms",), "solve": ("geonh.equations.frame_forms",),
                 "lu_solve": ("geonh.equations.base",)}
REST = "route (frame, other)"


def stage_worker(route: str, N: int) -> None:
    """One derivation of a geonh route in this (fresh) process with the :data:`STAGES`
    functions wrapped: the CPU time of each, exclusive of the wrapped functions it calls
    (a stack), printed as one JSON line {label: seconds, "total": s, "validation": s}."""
    import functools
    import importlib
    _import_geonh()
    import sympy.physics.mechanics  # noqa: F401
    import geonh.equations  # noqa: F401
    for mod in ("geonh.kernel.backend", "symengine"):
        try:
            importlib.import_module(mod)
        except ImportError:
            pass
    excl: dict = {}
    stack: list = [REST]

    def wrapped(fn, label):
        @functools.wraps(fn)
        def g(*a, **k):
            t0 = time.process_time()
            stack.append(label)
            try:
                return fn(*a, **k)
            finally:
                dt = time.process_time() - t0
                stack.pop()
                excl[label] = excl.get(label, 0.0) + dt
                excl[stack[-1]] = excl.get(stack[-1], 0.0) - dt
        return g

    done = set()
    for where, name, label, _ in STAGES:
        modname, _, cls = where.partition(":")
        try:
            owner = importlib.import_module(modname)
        except ImportError:
            continue
        if cls:
            owner = getattr(owner, cls, None)
        raw = getattr(owner, "__dict__", {}).get(name) if cls else getattr(owner, name, None)
        if raw is None or (where, name) in done:
            continue
        done.add((where, name))
        if isinstance(raw, classmethod):
            setattr(owner, name, classmethod(wrapped(raw.__func__, label)))
            continue
        g = wrapped(raw, label)
        setattr(owner, name, g)
        for alias in STAGE_ALIASES.get(name, ()):
            m = importlib.import_module(alias)
            if getattr(m, name, None) is raw:
                setattr(m, name, g)
    import gc
    gcs = {"on": False, "t": 0.0, "full": 0, "full_t": 0.0}

    def gc_clock(phase, info):   # the collector's pauses inside the derivation (all stages)
        if not gcs["on"]:
            return
        if phase == "start":
            gcs["t0"] = time.process_time()
            return
        dt = time.process_time() - gcs["t0"]
        gcs["t"] += dt
        if info.get("generation") == 2:
            gcs["full"] += 1
            gcs["full_t"] += dt
    gc.callbacks.append(gc_clock)
    model = build_model(N)   # (its velocity calls are not the derivation's)
    excl.clear()
    gen = route_geonh(model, "bh" if route.startswith("bh") else "maggi", closed_form=route.endswith("-cf"))
    gc.collect()   # as in worker(): the same collector state for every route
    gcs["on"] = True
    c0 = time.process_time()
    next(gen)
    total = time.process_time() - c0
    gcs["on"] = False
    excl[REST] = excl.get(REST, 0.0) + total
    valid = {label for _, _, label, v in STAGES if v}
    print(json.dumps(dict(excl, total=total, validation=sum(excl.get(x, 0.0) for x in valid),
                          gc=gcs["t"], gc_full=gcs["full"], gc_full_t=gcs["full_t"])), flush=True)


def stages(Ns, routes, repeats: int) -> None:
    """Where geonh's derivation spends its CPU time (issue 22 part 6): for each route, N and
    model, the median over ``repeats`` fresh processes of each stage's exclusive CPU time
    (:func:`stage_worker`), the validation share, and the rest — what the derivation would
    cost if validation were free — beside the faster Kane's CPU time when ``kane_cpu`` is
    known (run ``--target`` for that)."""
    print(_header(0).split(", time limit")[0] + ".  CPU seconds, exclusive per stage.")
    valid = {label for _, _, label, v in STAGES if v}
    for N in Ns:
        for off in (False, True):
            for route in routes:
                runs = []
                for _ in range(repeats):
                    env = dict(os.environ)
                    env.pop("NTRAILER_OFFAXLE", None)
                    if off:
                        env["NTRAILER_OFFAXLE"] = "1"
                    p = subprocess.run([sys.executable, os.path.abspath(__file__), "--stage-worker", route, str(N)],
                                       capture_output=True, text=True, env=env, timeout=900)
                    for line in p.stdout.splitlines():
                        try:
                            runs.append(json.loads(line))
                        except json.JSONDecodeError:
                            pass
                    if p.returncode:
                        print(f"  {route} N={N}: {(p.stderr.strip().splitlines() or ['?'])[-1]}")
                        break
                if not runs:
                    continue
                extra = {"total", "validation", "gc", "gc_full", "gc_full_t"}
                keys = sorted({k for r in runs for k in r} - extra,
                              key=lambda k: -statistics.median(r.get(k, 0.0) for r in runs))
                med = {k: statistics.median(r.get(k, 0.0) for r in runs) for k in keys + sorted(extra)}
                tot = med["total"]
                print(f"\n{LABEL[route]}, N = {N}, masses {'off' if off else 'on'} the axles: CPU {tot:.3f} s "
                      f"(median of {len(runs)}), validation {med['validation']:.3f} s "
                      f"({100 * med['validation'] / tot:.0f} %), the rest {tot - med['validation']:.3f} s; "
                      f"cyclic GC inside: {med['gc']:.3f} s, {med['gc_full']:.0f} full collection(s) "
                      f"{med['gc_full_t']:.3f} s (spread over the stages)")
                for k in keys:
                    print(f"  {med[k]:8.4f} s  {100 * med[k] / tot:5.1f} %  {'[validation] ' if k in valid else ''}{k}")


def _header(timeout: float) -> str:
    import platform
    import sympy
    geonh = _import_geonh()
    where = os.path.dirname(os.path.dirname(os.path.abspath(geonh.__file__)))
    try:
        commit = subprocess.run(["git", "-C", where, "rev-parse", "--short", "HEAD"],
                                capture_output=True, text=True, timeout=10).stdout.strip()
        dirty = subprocess.run(["git", "-C", where, "status", "--porcelain", "geonh"],
                               capture_output=True, text=True, timeout=10).stdout.strip()
        commit = (commit + (" (modified)" if dirty else "")) if commit else "not a git checkout"
    except (OSError, subprocess.SubprocessError):
        commit = "?"
    return (f"Dynamic N-trailer, explicit equations.  geonh {where} [{commit}], sympy "
            f"{sympy.__version__}, Python {platform.python_version()}, {os.cpu_count()} CPUs, "
            f"time limit {timeout:.0f} s per case.\n")


def construction(a) -> None:
    """One run: model → explicit reduced equations (Kane careful / textbook ``rhs()``, geonh
    BH* / Maggi* ``rhs()``, geonh's own model builder + BH ``rhs()``) and model → runnable RHS
    (geonh ``ode_function()`` vs KanesMethod + pydy Cython) at each N; medians, ratios."""
    Ns = a.N if a.N != [1, 2, 4, 8] else [4, 8, 16]
    routes = [r for r in (a.routes if a.routes != list(ROUTES) else CONSTRUCTION_ROUTES)
              if not (OFFAXLE and r == "gm-bh")]
    res = main_table(Ns, routes, a.timeout, a.repeats, a.small)
    print(_header(a.timeout) + ("Masses OFF the axles (G_i = P_i + e_i b_i^x).\n" if OFFAXLE
                                else "Masses on the axles (the model of the tables above).\n"))
    print_table(res, Ns, routes, a.timeout)
    print("\nmodel → runnable RHS (pydy = careful Kane + pydy generate_ode_function, Cython):")
    for N in Ns:
        pyd, geo = res.get(("kane-pydy", N), {}), res.get(("bh-ode", N), {})
        cpu = lambda r: f" (CPU {r['cpu']:.2f} s)" if "cpu" in r else ""  # noqa: E731
        print(f"  N={N:<3} geonh BH* ode {_fmt_time(geo, a.timeout)} s{cpu(geo)}, Kane+pydy "
              f"{_fmt_time(pyd, a.timeout)} s{cpu(pyd)}, geonh/pydy (wall) "
              + (f"{geo['time'] / pyd['time']:.3f}" if "time" in geo and "time" in pyd else "—"))
    print_agreement(res, Ns, routes)
    try:
        load = os.getloadavg()
        print(f"\nload average at the end: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} "
              f"({os.cpu_count()} CPUs)")
    except OSError:
        pass


TARGET_ROUTES = ("kane", "kane-tb", "bh", "maggi", "bh-cf", "maggi-cf")
TARGET_RATIO = 3.0   # issue 22 part 6: geonh ≥ 3× faster than the faster Kane set-up


def target(a) -> None:
    """Issue 22 part 6 in one run: Kane (careful), Kane (textbook) and geonh's explicit
    equations (bh, maggi, bh-cf, maggi-cf) at N = 4 8 (``--N``) on the on-axle AND the
    off-axle model; one table per model (all columns, with Kane*/route), then the verdict:
    Kane*/route ≥ 3 in wall and CPU time for every geonh route, N and model."""
    Ns = a.N if a.N != [1, 2, 4, 8] else [4, 8]
    routes = [r for r in (a.routes if a.routes != list(ROUTES) else TARGET_ROUTES)]
    for r in REFS:
        if r not in routes:
            routes.insert(0, r)
    res = {off: main_table(Ns, routes, a.timeout, a.repeats, a.small, offaxle=off)
           for off in (False, True)}
    print(_header(a.timeout))
    for off in (False, True):
        print("Masses OFF the axles (G_i = P_i + e_i b_i^x, I_i about G_i)." if off else
              "Masses ON the axles (mass centre = axle midpoint).")
        print_table(res[off], Ns, routes, a.timeout)
        print_agreement(res[off], Ns, routes)
        print()
    geo = [r for r in routes if r not in REFS]
    print(f"Verdict: Kane*/route (the faster Kane over the route; wall / CPU), target ≥ {TARGET_RATIO:g}:")
    head = ["route"] + [f"N={N} {'off' if off else 'on'}" for N in Ns for off in (False, True)]
    body = []
    met = True
    for r in geo:
        row = [LABEL[r]]
        for N in Ns:
            for off in (False, True):
                x, k = res[off].get((r, N), {}), kane_star(res[off], N)
                rt = k["time"] / x["time"] if "time" in x and "time" in k else None
                rc = k["cpu"] / x["cpu"] if "cpu" in x and "cpu" in k else None
                ok = rt is not None and rc is not None and rt >= TARGET_RATIO and rc >= TARGET_RATIO
                met &= ok
                row.append(("—" if rt is None else f"{rt:.2f}") + " / "
                           + ("—" if rc is None else f"{rc:.2f}") + (" ok" if ok else " NO"))
        body.append(row)
    w = [max(len(head[i]), *(len(b[i]) for b in body)) for i in range(len(head))]
    print("  ".join(h.ljust(w[i]) if i == 0 else h.rjust(w[i]) for i, h in enumerate(head)))
    for b in body:
        print("  ".join(c.ljust(w[i]) if i == 0 else c.rjust(w[i]) for i, c in enumerate(b)))
    print(f"target {'MET' if met else 'NOT met'} on every geonh route, N and model"
          + ("" if met else " (see the NO cells)"))
    try:
        load = os.getloadavg()
        print(f"load average at the end: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} "
              f"({os.cpu_count()} CPUs)")
    except OSError:
        pass


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--N", type=int, nargs="+", default=[1, 2, 4, 8])
    ap.add_argument("--routes", nargs="+", default=list(ROUTES), choices=ROUTES,
                    help="routes to run (default: all): " + ", ".join(
                        f"{r} = {LABEL[r]}" for r in ROUTES))
    ap.add_argument("--geonh-only-N", type=int, nargs="*", default=[], metavar="N",
                    help="extra N run for the geonh routes only")
    ap.add_argument("--timeout", type=float, default=240.0,
                    help="seconds per derivation (the process, with its cse counts, is killed "
                         "after 2*timeout + 30)")
    ap.add_argument("--repeats", type=int, default=3, help="repeats for N <= --small (else 1)")
    ap.add_argument("--small", type=int, default=8)
    ap.add_argument("--profile", type=int, nargs="+", metavar="N")
    ap.add_argument("--stages", type=int, nargs="+", metavar="N",
                    help="exclusive CPU time per stage of geonh's derivation (validation, "
                         "from_mechanics, engine, rhs), routes --routes (default bh bh-cf), both "
                         "models, median of --repeats fresh processes")
    ap.add_argument("--stage-worker", nargs=2, metavar=("ROUTE", "N"), help=argparse.SUPPRESS)
    ap.add_argument("--construction", action="store_true",
                    help="model -> explicit equations and model -> runnable RHS (issue 10 item 2, "
                         "issue 9): routes " + " ".join(CONSTRUCTION_ROUTES) + ", default --N 4 8 16")
    ap.add_argument("--target", action="store_true",
                    help="issue 22 part 6: routes " + " ".join(TARGET_ROUTES) + " at --N (default "
                         "4 8) on the on-axle and the off-axle model in one run; Kane*/route "
                         f"(the faster Kane) and the >= {TARGET_RATIO:g}x verdict")
    ap.add_argument("--offaxle", action="store_true",
                    help="mass centres off the axles (G_i = P_i + e_i b_i^x)")
    ap.add_argument("--no-ops", action="store_true", help="skip the cse operation counts")
    ap.add_argument("--worker", nargs=2, metavar=("ROUTE", "N"), help=argparse.SUPPRESS)
    ap.add_argument("--no-count", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--limit", type=float, default=240.0, help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    global OFFAXLE
    if a.offaxle:
        os.environ["NTRAILER_OFFAXLE"] = "1"
        OFFAXLE = True
    if a.no_ops:
        os.environ["NTRAILER_NO_OPS"] = "1"
    if a.construction:
        construction(a)
        return
    if a.target:
        target(a)
        return
    if a.worker:
        worker(a.worker[0], int(a.worker[1]), count=not a.no_count, limit=a.limit)
        return
    if a.stage_worker:
        stage_worker(a.stage_worker[0], int(a.stage_worker[1]))
        return
    if a.stages:
        routes = [r for r in a.routes if r in ("bh", "maggi", "bh-cf", "maggi-cf")]
        stages(a.stages, routes if a.routes != list(ROUTES) else ["bh", "bh-cf"], a.repeats)
        return
    if a.profile:
        profile(a.profile)
        return
    res = main_table(a.N, a.routes, a.timeout, a.repeats, a.small, a.geonh_only_N)
    Ns = sorted(set(a.N) | set(a.geonh_only_N))
    print(_header(a.timeout))
    print_table(res, Ns, a.routes, a.timeout, slope_Ns=sorted(a.N))
    print_agreement(res, Ns, a.routes)


if __name__ == "__main__":
    main()
