"""Exports of the equations of motion (geonh.numerics.export): CasADi, JAX and C.

Each export is evaluated against ``ode_function`` at 100 random consistent states of the
Whipple bicycle, the dynamic 3-trailer (Boltzmann–Hamel and Lagrange with multipliers) and
the Chaplygin ball: max relative difference ≤ 1e-12 · max(1, κ(M)) for ẏ (κ(M) the condition
number of the mass matrix at the state: two double-precision solves differ by that much; it is
1 to 1e3 on the trailer and the ball, up to 4e5 at random Whipple-bicycle states), and the outputs map (unknowns,
multipliers, reactions, energy, constraint residuals) against geonh's own observables.

Consistent states: parameters and a base state from ``system.sample_state`` (as the other
numerics tests draw them), then 100 states y = (q, u) around it.  For the frame forms
(Boltzmann–Hamel) u are independent speeds, so q̇ = K(t, q, u) satisfies the velocity
constraints for every (q, u); for the Lagrange form (u = q̇) the free velocities are drawn and
the dependent ones solved from the constraints numerically (the projection of
:class:`~geonh.numerics.ConstraintSet`), so every state is on the constraints.

CasADi and JAX are in the test extra (``pip install -e '.[test]'``); the C export needs a C
compiler (skipped, saying so, where there is none).
"""
from __future__ import annotations

import ctypes
import random
import subprocess

import numpy as np
import pytest

import geonh as g
from geonh import models
from geonh.models import mechanical
from geonh.numerics import ConstraintSet
from geonh.numerics.cbackend import find_compiler
from geonh.kernel.evaluation import to_sympy, value_at

casadi = pytest.importorskip("casadi", reason="casadi is in the test extra: pip install -e '.[test]'")
jax = pytest.importorskip("jax", reason="jax is in the test extra: pip install -e '.[test]'")

N_STATES = 100
REL = 1e-12


def _rel(a, b) -> float:
    a, b = np.asarray(a, dtype=float).ravel(), np.asarray(b, dtype=float).ravel()
    assert a.shape == b.shape
    if not a.size:
        return 0.0
    return float(np.max(np.abs(a - b) / np.maximum(1.0, np.abs(b))))


def _within(got, f, t, Y, p, tol=REL) -> float:
    """The worst ratio of the relative difference of ``got`` (rows at the states Y) to
    ``ode_function``'s batch over tol · max(1, κ(M)) at each state: both are double-precision
    solves of M x = F (LU without and with pivoting, LAPACK, XLA), which differ by round-off
    amplified by the condition number κ(M); at the random Whipple-bicycle states κ reaches 4e5.
    ≤ 1 passes."""
    got = np.asarray(got, dtype=float).reshape(len(Y), -1)
    want = f.batch(t, Y, p)
    err = np.max(np.abs(got - want) / np.maximum(1.0, np.abs(want)), axis=1)
    kappa = np.array([np.linalg.cond(f.mass_matrix(t, y, p)[0]) if f.unknown_symbols else 1.0 for y in Y])
    return float(np.max(err / (tol * np.maximum(1.0, kappa))))


def _states(model, eq, f, seed: int, k: int = N_STATES):
    """(t, Y, p): k random consistent states (module doc) and the parameter vector."""
    rng = random.Random(seed)
    st = model.system.sample_state(rng, extra_symbols=model.parameters)
    for u, s in zip(eq.u, eq.speeds):
        if u not in st:
            st[u] = to_sympy(value_at(s, st, tree=True))
    p = np.array([float(st[s]) if s in st else 0.3 for s in f.parameters])
    S = eq.space
    t = float(st[S.t]) if S.t is not None else 0.0
    y0 = np.array([float(st[q]) for q in S.q] + [float(st[u]) for u in eq.u])
    nprng = np.random.default_rng(seed)
    Y = y0 + nprng.uniform(-0.5, 0.5, size=(k, len(y0)))
    Y[0] = y0
    cons = ConstraintSet(f.bind(dict(zip(f.parameters, p))))
    if cons.r and cons.keeps_velocities:
        Y = np.array([cons.project(t, y) for y in Y])
        assert max(np.max(np.abs(cons.residuals(t, y))) for y in Y) < 1e-10
    return t, Y, p


@pytest.fixture(scope="module")
def cases():
    """(label, model, equations) of the three systems of the issue."""
    from geonh.models.bicycle import whipple_bicycle
    bike = whipple_bicycle()
    trailer = mechanical.dynamic_n_trailer(3)
    ball = models.get("chaplygin-ball")
    return [("bicycle", bike, bike.equations("boltzmann-hamel")),
            ("3-trailer", trailer, trailer.equations("boltzmann-hamel")),
            ("3-trailer lagrange", trailer, g.lagrange(trailer.system)),
            ("chaplygin-ball", ball, ball.equations("boltzmann-hamel"))]


# ----------------------------------------------------------------------------------------------
# CasADi
# ----------------------------------------------------------------------------------------------
@pytest.mark.slow
@pytest.mark.parametrize("symbolic", ["SX", "MX"])
def test_casadi_rhs_agrees_with_ode_function_at_100_states(cases, symbolic):
    for seed, (label, model, eq) in enumerate(cases, 1):
        f = eq.ode_function()
        ex = eq.to_casadi(symbolic=symbolic)
        assert ex.parameter_names == tuple(s.name for s in f.parameters)
        assert ex.state_names == f.state_names
        t, Y, p = _states(model, eq, f, seed)
        got = np.array(ex.rhs.map(len(Y))(t, Y.T, np.tile(p, (len(Y), 1)).T)).T
        assert _within(got, f, t, Y, p) <= 1, (label, symbolic, _within(got, f, t, Y, p))
        # the outputs map: unknowns and multipliers against f.unknowns
        for y in Y[:10]:
            o = ex.outputs(t=t, y=y, p=p)
            x = f.unknowns(t, y, p)
            kappa = max(1.0, np.linalg.cond(f.mass_matrix(t, y, p)[0]))
            assert _rel(o["unknowns"], x) <= REL * kappa, label
            assert _rel(o["multipliers"], x[len(eq.ud):]) <= REL * kappa, label


@pytest.mark.slow
def test_casadi_jacobians_agree_with_ode_function_and_differences(cases):
    for seed, (label, model, eq) in enumerate(cases, 1):
        f = eq.ode_function()
        ex = eq.to_casadi()
        t, Y, p = _states(model, eq, f, seed, k=5)
        for y in Y:
            Jy = np.array(ex.jacobian_y(t, y, p))
            kappa = max(1.0, np.linalg.cond(f.mass_matrix(t, y, p)[0]))
            assert _rel(Jy, f.jacobian(t, y, p)) <= 1e-10 * kappa, label
            Jp = np.array(ex.jacobian_p(t, y, p))
            h = 1e-6
            for j in range(min(len(p), 4)):
                dp = np.zeros_like(p)
                dp[j] = h * max(1.0, abs(p[j]))
                fd = (f(t, y, p + dp) - f(t, y, p - dp)) / (2 * dp[j])
                assert np.allclose(Jp[:, j], fd, rtol=1e-4, atol=1e-5 * kappa), (label, j)


@pytest.mark.slow
def test_casadi_outputs_energy_reactions_residuals_lagrange():
    """Lagrange's multipliers and reactions, the energy and the constraint residuals of the
    exported outputs equal geonh's Trajectory columns (the sleigh with multipliers)."""
    M = models.get("chaplygin-sleigh")
    eq = g.lagrange(M.system)
    params = {"m": 2.0, "a": 0.3, "I": 0.7}
    f = eq.ode_function(params)
    y0 = [0.1, 0.2, 0.3, 0.5 * np.cos(0.3), 0.5 * np.sin(0.3), 0.4]   # on the constraint
    traj = g.simulate(eq, y0, (0, 0.5), params=params, rtol=1e-10, atol=1e-12)
    ex = eq.to_casadi(params)
    jx = eq.to_jax(params)
    assert ex.parameter_names == () and len(ex.output_names["multipliers"]) == 1
    for i in (0, len(traj.t) // 2, -1):
        t, y = traj.t[i], traj.states[i]
        o = ex.outputs(t=t, y=y, p=[])
        oj = jx.outputs(t, y, np.zeros(0))
        for name, want in (("multipliers", traj.multipliers[i]), ("reactions", traj.reactions[i]),
                           ("energy", [traj.energy[i]]), ("constraint_residuals", traj.constraint_residuals[i]),
                           ("unknowns", f.unknowns(t, y))):
            assert _rel(o[name], want) <= REL, name
            assert _rel(oj[name], want) <= REL, name
    assert len(traj.multipliers[0]) == 1 and abs(traj.multipliers[0][0]) > 1e-3   # a real force


# ----------------------------------------------------------------------------------------------
# JAX
# ----------------------------------------------------------------------------------------------
@pytest.mark.slow
def test_jax_rhs_jit_and_vmap_agree_with_ode_function_at_100_states(cases):
    for seed, (label, model, eq) in enumerate(cases, 1):
        f = eq.ode_function()
        ex = eq.to_jax()
        assert ex.parameter_names == tuple(s.name for s in f.parameters)
        t, Y, p = _states(model, eq, f, seed)
        batched = jax.jit(jax.vmap(ex.rhs, in_axes=(None, 0, None)))
        got = np.asarray(batched(t, Y, p))
        assert got.dtype == np.float64
        assert _within(got, f, t, Y, p) <= 1, (label, _within(got, f, t, Y, p))
        # one state through jit alone, and the Jacobian by jax.jacfwd against f.jacobian
        y = Y[1]
        kappa = max(1.0, np.linalg.cond(f.mass_matrix(t, y, p)[0]))
        assert _rel(jax.jit(ex.rhs)(t, y, p), f(t, y, p)) <= REL * kappa, label
        assert _rel(jax.jacfwd(ex.rhs, argnums=1)(t, y, p), f.jacobian(t, y, p)) <= 1e-10 * kappa, label


@pytest.mark.slow
def test_jax_rhs_is_pure_on_the_sleigh():
    eq = models.get("chaplygin-sleigh").equations("boltzmann-hamel")
    ex = eq.to_jax()
    f = eq.ode_function()
    y, p = np.array([0.1, 0.2, 0.3, 0.4, -0.5]), np.array([0.7, 0.3, 2.0])
    a = np.asarray(jax.jit(ex.rhs)(0.0, y, p))
    assert _rel(a, f(0.0, y, p)) <= REL and _rel(jax.jit(ex.rhs)(0.0, y, p), a) == 0.0


# ----------------------------------------------------------------------------------------------
# C
# ----------------------------------------------------------------------------------------------
def _compiler():
    cc = find_compiler()
    if cc is None:
        pytest.skip("no C compiler (cc, gcc or clang) on this machine: the C export cannot be compiled here")
    return cc


def _load_c(export, tmp_path):
    """The export compiled by the system compiler as a shared library (plain C: no Python
    headers), its functions typed for ctypes."""
    cc = _compiler()
    h, c = export.write(tmp_path)
    lib = tmp_path / f"lib{export.name}.so"
    res = subprocess.run(cc + ["-std=c99", "-O2", "-ffp-contract=off", "-Wall", "-Werror", "-shared", "-fPIC",
                               str(c), "-o", str(lib), "-lm"], capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, res.stderr[-3000:]
    dll = ctypes.CDLL(str(lib))
    P = ctypes.POINTER(ctypes.c_double)
    for fn in ("rhs", "unknowns", "outputs"):
        entry = getattr(dll, f"{export.name}_{fn}")
        entry.argtypes = [ctypes.c_double, P, P, P]
        entry.restype = ctypes.c_int
    return dll


def _ptr(a):
    return a.ctypes.data_as(ctypes.POINTER(ctypes.c_double))


@pytest.mark.slow
def test_c_export_compiles_and_agrees_with_ode_function_at_100_states(cases, tmp_path):
    _compiler()
    for seed, (label, model, eq) in enumerate(cases, 1):
        f = eq.ode_function()
        name = "m" + label.replace("-", "_").replace(" ", "_")
        ex = eq.to_c(name=name)
        assert f"int {name}_rhs(double t, const double *y, const double *p, double *dy);" in ex.header
        for i, s in enumerate(f.state_names):
            assert f" *   y[{i}] = {s}" in ex.header
        dll = _load_c(ex, tmp_path)
        t, Y, p = _states(model, eq, f, seed)
        p = np.ascontiguousarray(p)
        got = np.empty_like(Y)
        for i, y in enumerate(Y):
            y = np.ascontiguousarray(y)
            out = np.empty(len(y))
            assert getattr(dll, f"{name}_rhs")(t, _ptr(y), _ptr(p), _ptr(out)) == 0
            got[i] = out
        assert _within(got, f, t, Y, p) <= 1, (label, _within(got, f, t, Y, p))
        # unknowns and the outputs map
        y = np.ascontiguousarray(Y[3])
        x = np.empty(len(eq.unknowns))
        assert getattr(dll, f"{name}_unknowns")(t, _ptr(y), _ptr(p), _ptr(x)) == 0
        assert _rel(x, f.unknowns(t, y, p)) <= REL * max(1.0, np.linalg.cond(f.mass_matrix(t, y, p)[0]))
        out = np.empty(max(ex_size(ex), 1))
        assert getattr(dll, f"{name}_outputs")(t, _ptr(y), _ptr(p), _ptr(out)) == 0
        assert _rel(out[:len(x)], x) == 0.0   # the outputs' unknowns are the very solve of _unknowns


def ex_size(ex) -> int:
    return sum(len(v) for v in ex.output_names.values())


def test_c_export_of_the_sleigh_with_multipliers_and_a_singular_mass_matrix(tmp_path):
    """Lagrange's form of the sleigh in C: multipliers and reactions as geonh's; a zero mass
    gives a singular M and the functions return 1."""
    _compiler()
    eq = g.lagrange(models.get("chaplygin-sleigh").system)
    f = eq.ode_function()
    ex = eq.to_c(name="sleigh")
    dll = _load_c(ex, tmp_path)
    y = np.array([0.1, 0.2, 0.3, 0.5 * np.cos(0.3), 0.5 * np.sin(0.3), 0.4])
    p = np.array([0.7, 0.3, 2.0])
    assert ex.parameter_names == tuple(s.name for s in f.parameters) == ("I", "a", "m")
    dy = np.empty(6)
    assert dll.sleigh_rhs(0.0, _ptr(y), _ptr(p), _ptr(dy)) == 0
    assert _rel(dy, f(0.0, y, p)) <= REL
    out = np.empty(ex_size(ex))
    assert dll.sleigh_outputs(0.0, _ptr(y), _ptr(p), _ptr(out)) == 0
    x = f.unknowns(0.0, y, p)
    assert _rel(out[:len(x)], x) <= REL
    zero = np.zeros(3)
    assert dll.sleigh_rhs(0.0, _ptr(y), _ptr(zero), _ptr(dy)) == 1


def test_c_names_never_reach_the_code():
    """A C function name must be an identifier; symbol names go only into escaped comments."""
    S = g.ConfigurationSpace("x")
    import sympy as sp
    weird = sp.Symbol("k*/ x[0]\n", positive=True)
    eq = g.lagrange(g.MechanicalSystem(S, S.qd[0] ** 2 / 2, V=weird * S.q[0] ** 2 / 2))
    ex = eq.to_c(name="osc")
    assert "*/ x[0]" not in ex.source and "k*\\/ x[0]\\u000a" in ex.header
    for bad in ("1abc", "int", "a-b", "", 3):
        with pytest.raises(g.ParseError):
            eq.to_c(name=bad)


# ----------------------------------------------------------------------------------------------
# parameters, time, Linearization
# ----------------------------------------------------------------------------------------------
@pytest.mark.slow
def test_bound_parameters_and_time_dependent_forcing(tmp_path):
    """params= binds as ode_function does; a forcing in t (rheonomic) takes t as the input."""
    import sympy as sp
    S = g.ConfigurationSpace("x", time=True)
    (x,), (xd,), t = S.q, S.qd, S.t
    k, a = sp.symbols("k a", positive=True)
    eq = g.lagrange(g.MechanicalSystem(S, xd**2 / 2, V=k * x**2 / 2 - a * x * sp.sin(t)))
    f = eq.ode_function({"k": 2.0})
    ex, jx = eq.to_casadi({"k": 2.0}), eq.to_jax({"k": 2.0})
    assert ex.parameter_names == jx.parameter_names == ("a",)
    for tt in (0.0, 0.7, 2.0):
        y, p = np.array([0.3, -0.2]), np.array([1.5])
        want = f(tt, y, p)
        assert _rel(np.array(ex.rhs(tt, y, p)), want) <= REL
        assert _rel(jx.rhs(tt, y, p), want) <= REL
        assert abs(want[1] - (-2.0 * 0.3 + 1.5 * np.sin(tt))) < 1e-14


@pytest.mark.slow
def test_linearization_exports_A_and_B_as_functions_of_the_parameters():
    M = models.get("chaplygin-sleigh")
    eq = M.equations("boltzmann-hamel")
    lin = eq.linearize({"v": 1, "w": 0, "theta": 0, "x": 0, "y": 0}, symbolic=True)
    fn, names = lin.to_casadi()
    jfn, jnames = lin.to_jax()
    assert names == jnames == tuple(sorted(s.name for s in lin.A.free_symbols | lin.B.free_symbols))
    vals = {"I": 0.7, "a": 0.3, "m": 2.0}
    p = np.array([vals[n] for n in names])
    A = np.array(lin.A.subs({s: vals[s.name] for s in lin.A.free_symbols}).evalf(), dtype=float)
    assert _rel(np.array(fn(p)[0] if isinstance(fn(p), (list, tuple)) else fn(p)), A) <= REL
    assert _rel(jfn(p)["A"], A) <= REL


def test_exports_refuse_bad_input():
    eq = models.get("chaplygin-sleigh").equations("boltzmann-hamel")
    with pytest.raises(g.ParseError):
        eq.to_casadi(symbolic="DM")
    with pytest.raises(g.ParseError):
        eq.to_jax(enable_x64="yes")
    with pytest.raises(g.GeonhError):
        eq.to_casadi({"nonsense": 1.0})
    from geonh.numerics.export import to_c
    with pytest.raises(g.ParseError):
        to_c("not equations")


def test_c_statement_prints_only_steps_of_a_program():
    """The shared C printer of one step refuses kinds and operands program_steps never emits
    (so no text reaches a C source unchecked), and prints those it does."""
    from geonh.numerics.cbackend import c_statement
    assert c_statement("+", ["v0", "in[1]", "(-1.5)"]) == "v0 + in[1] + (-1.5)"
    assert c_statement("/", ["1.0", "v3"]) == "1.0 / v3"
    assert c_statement("atan2", ["in[0]", "1e-05"]) == "atan2(in[0], 1e-05)"
    assert c_statement("fmax", ["NAN", "(-INFINITY)"]) == "fmax(NAN, (-INFINITY))"
    for kind, ops in (("system", ["v0"]), ("+", ["v0); system(\"x\""]), ("+", "v0"), ("sin", ["v0", "v1"]),
                      ("/", ["v0"]), ("+", []), (3, ["v0"]), ("cos", [0.5])):
        with pytest.raises(g.ParseError):
            c_statement(kind, ops)
