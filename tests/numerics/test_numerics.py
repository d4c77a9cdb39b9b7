"""From equations to numbers: compiled right-hand sides (Equations.ode_function, kernel.codegen)
and simulation (geonh.simulate, Trajectory).

* ode_function equals the exact (60-digit) solve_point / accelerations at random consistent
  states for every registered form that applies, on four models, with both the LLVM and the
  numpy backend;
* parameters bound at build time or passed at call time agree; time-dependent forcing
  (rheonomic model; an expression in t given as a parameter value);
* batch = row by row; every call returns a fresh array; the Jacobian against central
  differences;
* simulate: inconsistent initial data refused naming the constraint, projection, NaN
  parameters and a singular mass matrix refused with geonh errors, the Lagrange form kept on
  the constraints to 1e-12 over 100 s by projection, multipliers and reactions along the
  motion (Lagrange's λ = Maggi's Λ for the same constraint form: the sign of CONVENTIONS.md).
"""
from __future__ import annotations

import math
import random

import mpmath
import numpy as np
import pytest
import sympy as sp

import geonh as g
from geonh import models
from geonh.equations import FORMS
from geonh.numerics.codegen import compile_function, llvm_available
from geonh.kernel.evaluation import to_sympy, value_at
from geonh.numerics import Trajectory, first_order_function

BACKENDS = ["llvm", "numpy"] if llvm_available() else ["numpy"]
MODELS = ["chaplygin-sleigh", "vertical-disk", "rotating-knife-edge", "dynamic-1-trailer"]
SEEDS = {"chaplygin-sleigh": (1, 2), "vertical-disk": (1, 2), "rotating-knife-edge": (1, 2), "dynamic-1-trailer": (1,)}


def _mp(x) -> mpmath.mpf:
    if isinstance(x, sp.Basic):
        return mpmath.mpf(sp.N(x, 60)) if not x.is_Rational else mpmath.mpf(x.p) / x.q
    return mpmath.mpf(x)


def _numeric_state(eq, model, seed):
    """A random rational consistent state {t, q, q̇, u, parameters} and its float (t, y)."""
    rng = random.Random(seed)
    st = model.system.sample_state(rng, extra_symbols=model.parameters)
    for u, s in zip(eq.u, eq.speeds):
        if u not in st:
            st[u] = to_sympy(value_at(s, st))
    S = eq.space
    t = float(st[S.t]) if S.t is not None else 0.0
    y = np.array([float(st[q]) for q in S.q] + [float(st[u]) for u in eq.u])
    return st, t, y


def _close(a, b, tol=1e-12):
    a, b = float(a), float(b)
    return abs(a - b) <= tol * max(1.0, abs(b))


# ----------------------------------------------------------------------------------------------
# ode_function against exact values, every applicable form, both backends
# ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", [n if n != "dynamic-1-trailer" else pytest.param(n, marks=pytest.mark.slow)
                                  for n in MODELS])
def test_ode_function_matches_exact_accelerations_every_form(name):
    Mo = models.get(name)
    S = Mo.space
    forms = [f for f, entry in FORMS.items() if entry.applies(Mo.system, Mo.dependent)]
    assert len(forms) >= 9
    for form in forms:
        eq = Mo.equations(form)
        fs = {be: eq.ode_function(backend=be) for be in BACKENDS}
        assert all(f.backend == be for be, f in fs.items())
        for seed in SEEDS[name]:
            st, t, y = _numeric_state(eq, Mo, seed)
            outs = {}
            for be, f in fs.items():
                p = [float(st[s]) for s in f.parameters]
                out = f(t, y, p)
                assert out.dtype == np.float64 and out.shape == (S.n + len(eq.u),)
                outs[be] = out
            out = outs[BACKENDS[0]]
            for be in BACKENDS[1:]:   # the backends agree
                assert np.allclose(outs[be], out, rtol=1e-12, atol=1e-12), (form, be)
            # q̇ = K(t, q, u) and u̇ against the exact solve of M x = F
            for i, qd in enumerate(S.qd):
                assert _close(out[i], _mp(st[qd])), (form, "K", i)
            if seed == 1 and name != "dynamic-1-trailer":   # (the trailer's exact solves take seconds)
                exact = eq.solve_point(st)
                for k in range(len(eq.u)):
                    assert _close(out[S.n + k], _mp(exact[k])), (form, "u̇", k)
            # q̈ = d/dt K with u̇ from the compiled function equals the exact accelerations()
            rates = [sp.Float(float(v), 30) for v in out[S.n:]]
            acc = eq.accelerations(st)
            for i, k in enumerate(eq.kinematics):
                qdd = value_at(S.total_derivative(k, along=eq.kinematics, speeds=eq.u, rates=rates), st)
                assert _close(_mp(qdd), _mp(acc[i])), (form, "q̈", i)


def test_numeric_multipliers_match_exact_solve():
    Mo = models.get("dynamic-1-trailer")
    eq = Mo.equations("lagrange")
    f = eq.ode_function()
    st, t, y = _numeric_state(eq, Mo, 5)
    p = [float(st[s]) for s in f.parameters]
    x = f.unknowns(t, y, p)
    exact = eq.solve_point(st)
    assert len(x) == len(eq.unknowns) == len(exact)
    for a, b in zip(x, exact):
        assert _close(a, _mp(b))


# ----------------------------------------------------------------------------------------------
# parameters, time
# ----------------------------------------------------------------------------------------------
def test_parameters_at_build_time_and_call_time_agree():
    Mo = models.get("chaplygin-sleigh")
    m, a, I = Mo.parameters
    eq = Mo.equations("boltzmann-hamel")
    vals = {m: 1.3, a: 0.4, I: 0.7}
    late = eq.ode_function()
    assert late.parameters == (I, a, m)       # sorted by name: the order of p
    early = eq.ode_function(vals)
    assert early.parameters == () and early.bound == {I: 0.7, a: 0.4, m: 1.3}
    by_name = eq.ode_function({"m": 1.3, "a": 0.4, "I": 0.7})
    partial = eq.ode_function({m: 1.3})
    assert partial.parameters == (I, a)
    y = np.array([0.1, -0.2, 0.3, 0.8, -0.5])
    ref = late(0.0, y, [0.7, 0.4, 1.3])
    for f, args in ((early, ()), (by_name, ()), (partial, ([0.7, 0.4],)), (late.bind(vals), ())):
        assert np.array_equal(f(0.0, y, *args), ref)
    with pytest.raises(g.UnknownCoordinateError, match="I, a, m"):
        late(0.0, y)
    with pytest.raises(g.DimensionError):
        late(0.0, y, [1.0])
    with pytest.raises(g.DimensionError):
        late(0.0, y[:3], [0.7, 0.4, 1.3])


def test_time_dependent_forcing():
    # an expression in t as a parameter value (scleronomic space: the symbol named t is time)
    Mo = models.mechanical.vertical_rolling_disk(torques=True)
    m, I, J, R, tt, tp = Mo.parameters
    eq = Mo.equations("boltzmann-hamel")
    t = sp.Symbol("t")
    par = {m: 1.0, I: 0.5, J: 0.2, R: 0.3, tt: sp.sin(2 * t), tp: 0}
    f = eq.ode_function(par)
    assert f.parameters == ()
    assert [s.name for s in eq.u] == ["w_theta", "w_phi"]
    y = np.array([0.0, 0.0, 0.1, 0.0, 0.0, 0.0])
    for tv in (0.0, 0.4, 1.3):
        assert math.isclose(f(tv, y)[4], math.sin(2 * tv) / 0.5, rel_tol=1e-13, abs_tol=1e-15)
    # integrated: I θ̈ = sin 2t from rest gives θ̇ = (1 − cos 2t) / (2 I)
    tr = g.simulate(eq, y, (0.0, 2.0), par, t_eval=[0.5, 1.0, 2.0])
    thd = tr.qdot[:, 2]
    assert np.allclose(thd, (1 - np.cos(2 * tr.t)) / (2 * 0.5), rtol=1e-9, atol=1e-12)


def test_rheonomic_model_simulated_against_closed_form():
    # rotating knife edge: m v̇ = F cos ωt (the blade turns with θ = ωt)
    Mo = models.get("rotating-knife-edge")
    m, w, F = Mo.parameters
    eq = Mo.equations("boltzmann-hamel")
    par = {m: 2.0, w: 1.5, F: 0.7}
    tr = g.simulate(eq, [0.0, 0.0, 0.3], (0.0, 4.0), par, t_eval=np.linspace(0, 4, 9))
    assert tr.u_names == ("v",)
    v = tr["v"]
    assert np.allclose(v, 0.3 + 0.7 / (2.0 * 1.5) * np.sin(1.5 * tr.t), rtol=1e-9, atol=1e-11)
    # the same motion in Lagrange's form (u = q̇): the velocities must start on the blade
    lag = Mo.equations("lagrange")
    with pytest.raises(g.InconsistentStateError, match="constraint 1"):
        g.simulate(lag, [0.0, 0.0, 0.0, 0.3], (0.0, 1.0), par)
    trl = g.simulate(lag, [0.0, 0.0, 0.3, 0.0], (0.0, 4.0), par, t_eval=tr.t, project=True)
    assert np.allclose(trl.q, tr.q, rtol=1e-8, atol=1e-9)


# ----------------------------------------------------------------------------------------------
# batch, fresh arrays, Jacobian
# ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("form", ["boltzmann-hamel", "lagrange"])
def test_batch_equals_row_by_row(form):
    Mo = models.get("dynamic-1-trailer")
    eq = Mo.equations(form)
    rng = np.random.default_rng(3)
    for be in BACKENDS:
        f = eq.ode_function(backend=be)
        Y = rng.uniform(-1, 1, size=(6, f.n_q + f.n_u))
        p = rng.uniform(0.5, 2.0, size=len(f.parameters))
        ts = rng.uniform(0, 1, size=6)
        B = f.batch(ts, Y, p)
        assert B.shape == Y.shape
        rows = np.array([f(ts[i], Y[i], p) for i in range(6)])
        assert np.allclose(B, rows, rtol=1e-13, atol=1e-14)
        X = f.batch_unknowns(ts, Y, p)
        assert np.allclose(X, [f.unknowns(ts[i], Y[i], p) for i in range(6)], rtol=1e-13, atol=1e-14)


def test_every_call_returns_a_fresh_array():
    Mo = models.get("chaplygin-sleigh")
    eq = Mo.equations("boltzmann-hamel")
    for be in BACKENDS + ["lambda"] * ("llvm" in BACKENDS):
        f = eq.ode_function({"m": 1.0, "a": 0.3, "I": 0.2}, backend=be)
        y = np.array([0.0, 0.0, 0.2, 1.0, 0.5])
        a = f(0.0, y)
        b = f(0.0, y)
        assert a is not b and not np.shares_memory(a, b)
        keep = a.copy()
        f(0.0, y + 1.0)
        assert np.array_equal(a, keep)       # a later call does not overwrite an earlier result
        a[:] = 0.0
        assert np.array_equal(f(0.0, y), b)  # nor does the caller's writing change later results
        x = sp.Symbol("x")
        c = compile_function([x, 2 * x], [x], backend=be)
        r1, r2 = c([1.0]), c([1.0])
        assert not np.shares_memory(r1, r2)


@pytest.mark.parametrize("name, form", [("chaplygin-sleigh", "lagrange"), ("dynamic-1-trailer", "boltzmann-hamel"),
                                        ("rotating-knife-edge", "maggi"), ("vertical-disk", "kane")])
def test_jacobian_against_finite_differences(name, form):
    Mo = models.get(name)
    eq = Mo.equations(form)
    f = eq.ode_function(jacobian=True)
    st, t, y = _numeric_state(eq, Mo, 11)
    p = [float(st[s]) for s in f.parameters]
    J = f.jacobian(t, y, p)
    n = len(y)
    assert J.shape == (n, n)
    h = 1e-6
    fd = np.empty((n, n))
    for j in range(n):
        e = np.zeros(n)
        e[j] = h
        fd[:, j] = (f(t, y + e, p) - f(t, y - e, p)) / (2 * h)
    assert np.allclose(J, fd, rtol=1e-6, atol=1e-7)


# ----------------------------------------------------------------------------------------------
# errors
# ----------------------------------------------------------------------------------------------
def test_codegen_errors_name_what_is_wrong():
    x, y, k = sp.symbols("x y k")
    with pytest.raises(g.NotFoundError, match="backend"):
        compile_function([x], [x], backend="fortran")
    with pytest.raises(g.UnknownCoordinateError, match="k"):
        compile_function([x + k * y], [x, y])
    with pytest.raises(g.DimensionError):
        compile_function([x], [x, x])
    c = compile_function(sp.Matrix([[x, y], [x * y, 1]]), [x, y])
    assert c([2.0, 3.0]).tolist() == [[2.0, 3.0], [6.0, 1.0]]
    assert c.batch(np.array([[2.0, 3.0], [1.0, 1.0]])).shape == (2, 2, 2)
    eq = models.get("chaplygin-sleigh").equations("boltzmann-hamel")
    with pytest.raises(g.NotFoundError):
        eq.ode_function(backend="cobol")


def test_simulate_refuses_inconsistent_initial_velocities_naming_the_constraint():
    Mo = models.get("chaplygin-sleigh")
    eq = Mo.equations("lagrange")
    par = {"m": 1.0, "a": 0.3, "I": 0.2}
    bad = [0.0, 0.0, 0.0, 1.0, 0.25, 0.5]   # θ = 0: the blade forbids ẏ ≠ 0
    with pytest.raises(g.InconsistentStateError) as exc:
        g.simulate(eq, bad, (0.0, 1.0), par)
    msg = str(exc.value)
    assert "constraint 1" in msg and "y_dot" in msg and "0.25" in msg
    tr = g.simulate(eq, bad, (0.0, 1.0), par, project="initial")
    assert abs(tr.constraint_residuals[0, 0]) < 1e-15
    # the projection in the kinetic-energy metric: ẏ removed, ẋ (not coupled to ẏ at θ = 0)
    # kept, and T does not grow (an orthogonal projection onto the constraint subspace)
    assert abs(tr.u[0, 1]) < 1e-15 and tr.u[0, 0] == 1.0
    S = Mo.space
    T0 = float(Mo.system.T.subs(dict(zip(S.q + S.qd, bad))).subs({sp.Symbol(k, positive=True): v
                                                                  for k, v in par.items()}))
    assert tr.energy[0] < T0
    with pytest.raises(g.UnknownCoordinateError, match="I"):
        g.simulate(eq, [0.0] * 6, (0.0, 1.0), {"m": 1.0, "a": 0.3})
    with pytest.raises(g.DimensionError):
        g.simulate(eq, [0.0] * 5, (0.0, 1.0), par)


def test_nan_and_singular_data_give_geonh_errors():
    Mo = models.get("chaplygin-sleigh")
    eq = Mo.equations("boltzmann-hamel")
    y0 = [0.0, 0.0, 0.0, 1.0, 0.5]
    with pytest.raises(g.InconsistentStateError, match="m"):
        g.simulate(eq, y0, (0.0, 1.0), {"m": float("nan"), "a": 0.3, "I": 0.2})
    with pytest.raises(g.InconsistentStateError):
        g.simulate(eq, y0, (0.0, 1.0), {"m": 1.0, "a": math.inf, "I": 0.2})
    with pytest.raises(g.InconsistentStateError, match="v"):
        g.simulate(eq, [0.0, 0.0, 0.0, float("nan"), 0.5], (0.0, 1.0), {"m": 1.0, "a": 0.3, "I": 0.2})
    # m = I = 0 lies outside the declared domain (m, I positive): refused before anything runs
    with pytest.raises(g.InconsistentStateError, match="m = 0 is outside the domain of m"):
        g.simulate(eq, y0, (0.0, 1.0), {"m": 0.0, "a": 0.3, "I": 0.0})
    # a mass matrix x² that vanishes at x = 0
    S = g.ConfigurationSpace("x")
    eqx = g.derive("lagrange", g.MechanicalSystem(S, S.q[0] ** 2 * S.qd[0] ** 2 / 2))
    with pytest.raises(g.SingularMapError, match="singular"):
        g.simulate(eqx, [0.0, 1.0], (0.0, 1.0))
    with pytest.raises(g.SingularMapError):
        eqx.ode_function()(0.0, [0.0, 1.0])


# ----------------------------------------------------------------------------------------------
# simulation: projection, trajectory, reactions
# ----------------------------------------------------------------------------------------------
def test_projection_keeps_lagrange_form_on_the_constraints_over_100_s():
    Mo = models.get("vertical-disk")
    m, I, J, R = Mo.parameters
    par = {m: 1.0, I: 0.3, J: 0.5, R: 0.4}
    eq = Mo.equations("lagrange")
    th, thd, phd = 0.3, 0.7, 2.0
    y0 = [0.0, 0.0, th, 0.0, 0.4 * math.cos(th) * phd, 0.4 * math.sin(th) * phd, thd, phd]
    te = np.linspace(0.0, 100.0, 1001)
    tr = g.simulate(eq, y0, (0.0, 100.0), par, project=True, t_eval=te)
    assert tr.success and tr.projected and np.array_equal(tr.t, te)
    assert np.max(np.abs(tr.constraint_residuals)) <= 1e-12
    # the closed form: θ̇, φ̇ constant, x, y on a circle
    assert np.allclose(tr["theta"], th + thd * te, rtol=1e-9)
    assert np.allclose(tr["phi"], phd * te, rtol=1e-9)
    assert np.ptp(tr.energy) < 1e-10


def test_trajectory_columns_multipliers_and_reaction_sign():
    Mo = models.get("chaplygin-sleigh")
    m, a, I = Mo.parameters
    par = {m: 1.0, a: 0.3, I: 0.2}
    th, v, w = 0.3, 1.0, 2.5
    te = np.linspace(0.0, 5.0, 11)
    lag = g.simulate(Mo.equations("lagrange"), [0.0, 0.0, th, v * math.cos(th), v * math.sin(th), w],
                     (0.0, 5.0), par, t_eval=te, project=True)
    assert isinstance(lag, Trajectory) and lag.success
    assert lag.q_names == ("x", "y", "theta") and lag.u_names == ("x_dot", "y_dot", "theta_dot")
    assert lag.q.shape == (11, 3) and lag.y.shape == (6, 11)
    assert np.array_equal(lag["theta"], lag.q[:, 2])
    assert np.allclose(lag.qdot, lag.u)
    with pytest.raises(AttributeError):
        lag.t = None
    with pytest.raises(ValueError):
        lag.y[0, 0] = 1.0                      # read-only arrays
    lam = lag.multipliers[:, 0]
    assert lag.multipliers.dtype == np.float64 and np.array_equal(lag["lambda1"], lam)
    # R_i = +λ A_i with A = (sin θ, −cos θ, 0) (CONVENTIONS.md; sympy stores −λ)
    thv = lag["theta"]
    assert np.allclose(lag.reactions, np.column_stack([lam * np.sin(thv), -lam * np.cos(thv), 0 * lam]),
                       rtol=1e-12, atol=1e-14)
    # Maggi's Λ of the same constraint form sin θ ẋ − cos θ ẏ equals λ along the same motion
    mg = g.simulate(Mo.equations("maggi"), [0.0, 0.0, th, v, w], (0.0, 5.0), par, t_eval=te)
    assert np.allclose(mg.q, lag.q, rtol=1e-8, atol=1e-9)
    assert np.allclose(mg.reactions[:, 0], lam, rtol=1e-7, atol=1e-9)
    assert np.ptp(lag.energy) < 1e-9 and np.ptp(mg.energy) < 1e-9
    assert mg.multipliers.shape == (11, 0)
    assert mg.raw.t is not None and mg.sol is None


def test_simulate_reuses_a_compiled_function_and_implicit_methods_get_the_jacobian():
    Mo = models.get("chaplygin-sleigh")
    eq = Mo.equations("boltzmann-hamel")
    f = eq.ode_function()
    y0 = [0.0, 0.0, 0.0, 1.0, 0.5]
    a = g.simulate(f, y0, (0.0, 3.0), {"m": 1.0, "a": 0.3, "I": 0.2}, t_eval=[3.0])
    b = g.simulate(f, y0, (0.0, 3.0), {"m": 1.0, "a": 0.3, "I": 0.2}, t_eval=[3.0], method="Radau")
    assert b.raw.njev > 0
    assert np.allclose(a.y, b.y, rtol=1e-6, atol=1e-8)
    c = first_order_function(eq, {"m": 1.0, "a": 0.3, "I": 0.2})
    assert np.array_equal(c(0.0, y0), f(0.0, y0, [0.2, 0.3, 1.0]))
    with pytest.raises(g.UnknownCoordinateError):
        first_order_function(eq)


# ----------------------------------------------------------------------------------------------
# the compiled elimination of small mass matrices, and the factoring of sums before compiling
# ----------------------------------------------------------------------------------------------
def _spd_symbolic(k: int, seed: int):
    """A symmetric k × k matrix M = Aᵀ A + s·1 in symbols (A's entries a_ij·cos(q_j) and the
    shift s are arguments), a right-hand side F, the argument symbols."""
    rng = random.Random(seed)
    q = sp.symbols(f"q0:{k}")
    a = sp.symbols(f"a0:{k * k}")
    s = sp.Symbol("s")
    A = sp.Matrix(k, k, lambda i, j: a[i * k + j] * sp.cos(q[j]) + rng.randint(-2, 2))
    M = A.T * A + s * sp.eye(k)
    F = sp.Matrix(k, 1, lambda i, j: sp.sin(q[i]) * a[i] + q[(i + 1) % k])
    return M, F, list(q) + list(a) + [s]


@pytest.mark.skipif("llvm" not in BACKENDS, reason="symengine LLVM")
@pytest.mark.parametrize("k", [1, 2, 3, 4, 6])
def test_compiled_elimination_solves_and_its_check_detects_non_positive_definite(k):
    from geonh.numerics.compiled import _inline_lu
    M, F, args = _spd_symbolic(k, k)
    defs, xs, check = _inline_lu(M)
    vals = iter([M[i] for i in range(k * k) if M[i] != 0] + list(F))
    defs = [(d, e if e is not None else next(vals)) for d, e in defs]
    for be in ("llvm", "lambda"):
        c = compile_function(list(xs) + [check], args, backend=be, definitions=defs)
        rng = np.random.default_rng(k)
        for shift, positive in [(0.5, True), (-50.0 - 20 * k, False)]:
            for _ in range(3):
                z = rng.uniform(-1, 1, len(args))
                z[-1] = shift
                Mn = np.array(sp.lambdify(args, M)(*z), dtype=float)
                Fn = np.array(sp.lambdify(args, F)(*z), dtype=float).ravel()
                out = c(z)
                assert math.isfinite(out[-1]) == positive       # Sylvester: every leading minor > 0
                assert np.all(np.linalg.eigvalsh(Mn) > 0) == positive
                if positive:
                    x = np.linalg.solve(Mn, Fn)
                    assert np.allclose(out[:k], x, rtol=1e-10, atol=1e-12)
    assert _inline_lu(sp.Matrix([[1, sp.Symbol("b")], [2, 1]])) is None     # not symmetric
    assert _inline_lu(sp.Matrix([[0, 1], [1, 0]])) is None                  # zero diagonal
    assert _inline_lu(sp.eye(7)) is None                                    # too large


@pytest.mark.skipif("llvm" not in BACKENDS, reason="symengine LLVM")
def test_ode_function_falls_back_when_the_compiled_elimination_does_not_apply():
    Mo = models.get("chaplygin-sleigh")
    eq = Mo.equations("boltzmann-hamel")
    f = eq.ode_function(backend="llvm")
    assert f._inline and not eq.ode_function(backend="numpy")._inline
    assert not Mo.equations("lagrange").ode_function(backend="llvm")._inline    # saddle-point M
    y = np.array([0.1, -0.2, 0.3, 0.7, -0.4])
    names = [s.name for s in f.parameters]
    for m, I in [(1.3, 0.4), (-1.3, 0.9), (-1.0, -0.5)]:      # M positive definite, indefinite, negative
        p = [dict(m=m, a=0.25, I=I)[n] for n in names]
        Mn, Fn = f.mass_matrix(0.0, y, p)
        x = np.linalg.solve(Mn, Fn)
        r = f(0.0, y, p)
        assert np.allclose(r[3:], x, rtol=1e-13, atol=1e-15)
        assert np.allclose(f.unknowns(0.0, y, p), x, rtol=1e-13, atol=1e-15)
        assert np.allclose(f.batch(0.0, np.array([y, y]), p)[:, 3:], [x, x], rtol=1e-13, atol=1e-15)
    with pytest.raises(g.SingularMapError):
        f(0.0, y, [dict(m=0.0, a=0.25, I=0.0)[n] for n in names])


@pytest.mark.skipif("llvm" not in BACKENDS, reason="symengine LLVM")
def test_factor_sums_keeps_values_and_takes_out_shared_factors():
    import symengine as se
    from geonh.numerics.codegen import factor_sums
    a, b, c, d, e = se.symbols("a b c d e")
    out = factor_sums([a * b + a * c + d * e - a * d * e])
    assert out[0].is_Add and any(t.is_Mul and a in t.args for t in out[0].args)
    assert sum(1 for t in out[0].args if t.has(a)) == 1                      # a taken out once
    x, y, z, w = sp.symbols("x y z w")
    rng = random.Random(5)
    exprs = []
    for _ in range(6):
        terms = [rng.choice([-2, -1, 1, 3]) * rng.choice([x, y, sp.sin(z), w ** 2]) * rng.choice([y, z, sp.cos(x), w])
                 * rng.choice([1, x, y + z]) for _ in range(8)]
        exprs.append(sp.Add(*terms) / (2 + sp.cos(w)))
    args = [x, y, z, w]
    plain = compile_function(exprs, args, backend="llvm", factor=False)
    factored = compile_function(exprs, args, backend="llvm")
    for _ in range(5):
        v = np.array([rng.uniform(-2, 2) for _ in args])
        exact = [float(e.subs(dict(zip(args, v)))) for e in exprs]
        assert np.allclose(factored(v), exact, rtol=1e-13, atol=1e-13)
        assert np.allclose(plain(v), exact, rtol=1e-13, atol=1e-13)


@pytest.mark.skipif("llvm" not in BACKENDS, reason="symengine LLVM")
def test_factor_sums_works_on_the_graph_without_symengine_cse(monkeypatch):
    """factor_sums is geonh's own pass over the hash-consed graph (linear, no symengine.cse,
    whose common-argument matching grows as N^4); each node keeps its value, also where
    factoring the inner sums makes two terms of an outer sum cancel (the outer sum is then
    no sum at all)."""
    import symengine as se
    from geonh.numerics import codegen

    def no_cse(*a, **k):
        raise AssertionError("symengine.cse called")

    monkeypatch.setattr(se, "cse", no_cse)
    a, b, c, e, s, v, w = se.symbols("a b c e s v w")
    inner = v * a * b + v * c * e                       # → v·(a·b + c·e)
    outer = s * inner - v * s * (a * b + c * e) + w * s   # the first two terms cancel once factored
    assert outer.is_Add and len(outer.args) == 3
    out = codegen.factor_sums([outer, inner * outer + a])
    assert out[0] == w * s
    x, y, z, u = sp.symbols("x y z u")
    exprs = _graph_exprs(random.Random(21), [x, y, z, u], n_out=10, depth=40)
    se_args, se_exprs = codegen._to_symengine(exprs, (x, y, z, u))
    fac = codegen.factor_sums(se_exprs)
    rng = random.Random(4)
    for _ in range(4):
        vals = {sym: se.RealDouble(rng.uniform(-1.5, 1.5)) for sym in se_args}
        for e0, e1 in zip(se_exprs, fac):
            v0, v1 = float(e0.subs(vals)), float(e1.subs(vals))
            assert abs(v1 - v0) <= 1e-12 * max(1.0, abs(v0))
    pts = {sym: se.RealDouble(0.3 + 0.1 * k) for k, sym in enumerate([a, b, c, e, s, v, w])}
    assert abs(float(out[1].subs(pts)) - float((inner * outer + a).subs(pts))) < 1e-12


def test_definitions_are_substituted_for_every_backend():
    x, y = sp.symbols("x y")
    d1, d2 = sp.Dummy("d1"), sp.Dummy("d2")
    for be in BACKENDS:
        c = compile_function([d2 + x, d1 * d2], [x, y], backend=be, definitions=[(d1, x + y), (d2, d1 ** 2)])
        assert np.allclose(c([1.0, 2.0]), [10.0, 27.0])
    with pytest.raises(g.UnknownCoordinateError):
        compile_function([d1], [x], definitions=[(d1, y)])


def test_one_ode_function_is_safe_to_share_between_threads():
    """The argument buffer belongs to the building thread; calls from other threads use their
    own arrays, so concurrent calls at different states give each caller its own answer."""
    from concurrent.futures import ThreadPoolExecutor

    eqs = models.get("chaplygin-sleigh").equations("voronets")
    f = eqs.ode_function({"I": 0.5, "a": 0.3, "m": 2.0})
    rng = np.random.default_rng(3)
    Y = rng.uniform(-1, 1, size=(400, 5))
    expected = np.array([f(0.0, y) for y in Y])
    with ThreadPoolExecutor(max_workers=4) as pool:
        got = np.array(list(pool.map(lambda y: f(0.0, y), Y)))
    assert np.array_equal(got, expected)
    # deterministic part: another thread's call leaves the owner's argument buffer untouched
    before = f._buf.copy()
    with ThreadPoolExecutor(max_workers=1) as pool:
        pool.submit(f, 1.5, Y[0] + 7.0).result()
    assert np.array_equal(f._buf, before)


def _graph_exprs(rng, syms, n_out=12, depth=30):
    """Random expressions with much sharing (each new node reuses earlier ones)."""
    pool = list(syms)
    for k in range(depth):
        a, b, c = (rng.choice(pool) for _ in range(3))
        pool.append(rng.choice([a * b + c, a - b * c / (2 + b ** 2), sp.sin(a) * b + sp.cos(c), a * b * c + 3]))
    return pool[-n_out:] + [sp.S.Zero, syms[0]]      # an atom and a constant among the outputs


@pytest.mark.skipif("llvm" not in BACKENDS, reason="symengine LLVM")
def test_blocked_compilation_agrees_with_one_function(monkeypatch):
    """Compiled in many small blocks (codegen._blocks) the program computes what the single
    function computes: call, into and batch, llvm and lambda backends."""
    from geonh.numerics import codegen
    x, y, z, w = sp.symbols("x y z w")
    rng = random.Random(11)
    exprs = _graph_exprs(rng, [x, y, z, w])
    one = {be: compile_function(exprs, [x, y, z, w], backend=be) for be in ("llvm", "lambda")}
    monkeypatch.setattr(codegen, "BLOCK_OPS", 3)
    monkeypatch.setattr(codegen, "BLOCK_THRESHOLD", 0)
    se_args, se_exprs = codegen._to_symengine(exprs, (x, y, z, w))
    blocks = codegen._blocks(se_exprs, 3)
    assert blocks is not None and len(blocks) > 3
    for be in ("llvm", "lambda"):
        many = compile_function(exprs, [x, y, z, w], backend=be)
        V = np.array([[rng.uniform(-1, 1) for _ in range(4)] for _ in range(5)])
        for v in V:
            ref = one[be](v)
            assert np.allclose(many(v), ref, rtol=1e-13, atol=1e-14)
            out = np.empty(len(exprs))
            many.into(np.ascontiguousarray(v), out)
            assert np.allclose(out, ref, rtol=1e-13, atol=1e-14)
        assert np.allclose(many.batch(V), one[be].batch(V), rtol=1e-13, atol=1e-14)


@pytest.mark.skipif("llvm" not in BACKENDS, reason="symengine LLVM")
def test_blocks_read_only_arguments_and_earlier_blocks():
    """Every block's expressions are in the arguments and the cut values of earlier blocks
    (never a later one), and a small program is one block (None)."""
    import symengine as se
    from geonh.numerics import codegen
    x, y, z, w = sp.symbols("x y z w")
    exprs = _graph_exprs(random.Random(3), [x, y, z, w])
    se_args, se_exprs = codegen._to_symengine(exprs, (x, y, z, w))
    assert codegen._blocks(se_exprs, 10 ** 6) is None
    assert codegen._blocks(se_exprs, 4, threshold=10 ** 6) is None     # light: one function
    blocks = codegen._blocks(se_exprs, 4)
    known = set(se_args)
    for nodes, bexprs in blocks:
        assert len(nodes) == len(bexprs)
        for e in bexprs:
            assert e.free_symbols <= known
        known |= {se.Symbol(f"_geonh_t{k}") for k in range(len(known) - 4, len(known) - 4 + len(nodes))}
    assert len(blocks[-1][1]) == len(exprs)


@pytest.mark.skipif("llvm" not in BACKENDS, reason="symengine LLVM")
@pytest.mark.parametrize("N", [2, 4])
def test_n_trailer_rhs_in_blocks_agrees(monkeypatch, N):
    """The dynamic N-trailer's compiled right-hand side, built in blocks, agrees with the one
    built as a single function to 1e-12 relative at random states."""
    from geonh.models import mechanical as mm
    from geonh.equations import boltzmann_hamel
    from geonh.numerics import codegen
    Mo = mm.dynamic_n_trailer(N)
    eq = boltzmann_hamel(Mo.system, Mo.frame)
    f1 = eq.ode_function()
    monkeypatch.setattr(codegen, "BLOCK_OPS", 25)
    monkeypatch.setattr(codegen, "BLOCK_THRESHOLD", 0)
    f2 = eq.ode_function()
    rng = np.random.default_rng(N)
    for _ in range(5):
        y = rng.uniform(-1, 1, len(f1.state))
        p = rng.uniform(0.5, 2.0, len(f1.parameters))
        a, b = f1(0.0, y, p), f2(0.0, y, p)
        assert np.allclose(b, a, rtol=1e-12, atol=1e-14 * np.max(np.abs(a)))
        assert np.allclose(f2.batch(0.0, np.array([y, y]), p), [a, a], rtol=1e-12, atol=1e-14 * np.max(np.abs(a)))


@pytest.mark.skipif("llvm" not in BACKENDS, reason="symengine LLVM")
def test_n_trailer_rhs_factored_on_the_graph_agrees_with_unfactored(monkeypatch):
    """The dynamic 3-trailer's compiled right-hand side with the graph factoring pass agrees
    with the one compiled without it (the program symengine's cse alone gives) to 1e-12
    relative at random states, and the factored program has fewer operations."""
    import symengine as se
    from geonh.models import mechanical as mm
    from geonh.equations import boltzmann_hamel
    from geonh.numerics import codegen
    Mo = mm.dynamic_n_trailer(3)
    eq = boltzmann_hamel(Mo.system, Mo.frame)
    seen: list = []
    real = codegen.factor_sums

    def spy(exprs, rounds=1):
        out = real(exprs, rounds)
        seen.append((list(exprs), out))
        return out

    monkeypatch.setattr(codegen, "factor_sums", spy)
    f1 = eq.ode_function()
    assert len(seen) == 1
    monkeypatch.setattr(codegen, "factor_sums", lambda exprs, rounds=1: list(exprs))
    f0 = eq.ode_function()

    def ops(exprs):
        reps, red = se.cse(exprs)
        return int(se.count_ops(*[e for _, e in reps], *red))

    assert ops(seen[0][1]) < ops(seen[0][0])
    rng = np.random.default_rng(3)
    for _ in range(5):
        y = rng.uniform(-1, 1, len(f1.state))
        p = rng.uniform(0.5, 2.0, len(f1.parameters))
        a, b = f0(0.0, y, p), f1(0.0, y, p)
        assert np.allclose(b, a, rtol=1e-12, atol=1e-14 * np.max(np.abs(a)))


@pytest.mark.skipif("llvm" not in BACKENDS, reason="symengine LLVM")
def test_blocked_function_is_safe_to_share_between_threads(monkeypatch):
    """The blocks' scratch buffer is per thread: calls from several threads at once give each
    its own values."""
    from concurrent.futures import ThreadPoolExecutor
    from geonh.numerics import codegen
    x, y, z, w = sp.symbols("x y z w")
    rng = random.Random(7)
    exprs = _graph_exprs(rng, [x, y, z, w], depth=60)
    one = compile_function(exprs, [x, y, z, w], backend="llvm")
    monkeypatch.setattr(codegen, "BLOCK_OPS", 3)
    monkeypatch.setattr(codegen, "BLOCK_THRESHOLD", 0)
    many = compile_function(exprs, [x, y, z, w], backend="llvm")
    V = np.random.default_rng(0).uniform(-1, 1, (4, 4))
    refs = [one(v) for v in V]

    def work(i):
        return all(np.allclose(many(V[i]), refs[i], rtol=1e-13, atol=1e-14) for _ in range(3000))

    with ThreadPoolExecutor(4) as ex:
        assert all(ex.map(work, range(4)))


@pytest.mark.skipif("llvm" not in BACKENDS, reason="symengine LLVM")
def test_graph_passes_run_with_the_collector_paused(monkeypatch):
    """Code generation's graph passes (factor_sums here) run with Python's cyclic garbage
    collector paused (codegen._gc_paused: it rescanned the passes' many short-lived containers,
    ~1 s of the 32-trailer's code generation), and compile_function leaves the collector as
    it found it, enabled or disabled, also when it fails."""
    import gc
    from geonh.errors import NotFoundError
    from geonh.numerics import codegen
    x, y = sp.symbols("x y")
    seen: list = []
    real = codegen._factor_graph

    def spy(exprs, se):
        seen.append(gc.isenabled())
        return real(exprs, se)

    monkeypatch.setattr(codegen, "_factor_graph", spy)
    try:
        for state in (True, False):
            (gc.enable if state else gc.disable)()
            f = compile_function([x * y + x * 3, sp.sin(y) * x], [x, y], backend="llvm")
            assert gc.isenabled() is state
            assert np.allclose(f([2.0, 0.5]), [2.0 * 0.5 + 6.0, math.sin(0.5) * 2.0], rtol=1e-15)
            with pytest.raises(NotFoundError):
                compile_function([x], [x], backend="nonsense")
            assert gc.isenabled() is state
            codegen.factor_sums([x])
            assert gc.isenabled() is state
    finally:
        gc.enable()
    assert seen and not any(seen)
