"""The Whipple bicycle against the benchmark of Meijaard, Papadopoulos, Ruina & Schwab (2007).

Reference values: the published linear matrices (their section 5.3) and Table 2 (eigenvalues
for v = 0 … 10 m/s, weave and capsize speeds), as transcribed in several independent public
sources (bicycle test suites of Moore and Peterson, the NLEVP "bicycle" problem, others) that
agree digit for digit; the paper prints 14 decimals.  Where the transcriptions differ in the
last printed digits (the castering eigenvalues at 3–6 m/s: …245920 / …24592, …576450 /
…576447), the 15-significant-digit form they all round to is used.  Tolerances: 1e-12
relative, or the rounding of the printed decimals (5e-15) where that is larger.
"""
from __future__ import annotations

import mpmath
import numpy as np
import pytest
import sympy as sp

from geonh import models
from geonh.errors import InconsistentStateError
from geonh.models.bicycle import (benchmark_matrices, benchmark_operating_point, benchmark_parameters,
                                  capsize_speed, eigenvalues_at, weave_speed, whipple_bicycle)
from geonh.numerics import first_order_function
from geonh.transposition import check_adapted

PUBLISHED = {
    "M": [["80.81722", "2.31941332208709"], ["2.31941332208709", "0.29784188199686"]],
    "C1": [["0", "33.86641391492494"], ["-0.85035641456978", "1.68540397397560"]],
    "K0": [["-80.95", "-2.59951685249872"], ["-2.59951685249872", "-0.80329488458618"]],
    "K2": [["0", "76.59734589573222"], ["0", "2.65431523794604"]],
}
# Table 2: v -> eigenvalues (real, or (re, im) for a complex pair)
TABLE2 = {
    0: ["-5.53094371765393", "-3.13164324790656", "3.13164324790656", "5.53094371765393"],
    1: ["-7.11008014637442", "-3.13423125066578", ("3.52696170990070", "0.80774027519930")],
    2: ["-8.67387984831735", "-3.07158645641514", ("2.68234517512745", "1.68066296590675")],
    3: ["-10.3510146724592", "-2.63366137253667", ("1.70675605663975", "2.31582447384325")],
    4: ["-12.1586142657645", "-1.42944427361326", ("0.41325331521125", "3.07910818603206")],
    5: ["-14.0783896927982", "-0.32286642900409", ("-0.77534188219585", "4.46486771378823")],
    6: ["-16.0853712309803", "-0.00406690076970", ("-1.52644486584142", "5.87673060598709")],
    7: ["-18.15788466125262", "0.10268170574766", ("-2.13875644258362", "7.19525913329805")],
    8: ["-20.27940894394569", "0.14327879765713", ("-2.69348683581097", "8.46037971396931")],
    9: ["-22.43788559040858", "0.15790184030917", ("-3.21675402252485", "9.69377351531791")],
    10: ["-24.62459635017404", "0.16105338653172", ("-3.72016840437287", "10.90681139476287")],
}
WEAVE, CAPSIZE, WEAVE_FREQUENCY = "4.29238253634111", "6.02426201538837", "3.43503384866144"


def _close(got, want: str, rel=mpmath.mpf("1e-12")):
    with mpmath.workdps(60):
        w = mpmath.mpf(want)
        return abs(mpmath.mpf(got) - w) <= max(rel * abs(w), mpmath.mpf("5e-15"))


@pytest.fixture(scope="module")
def bike():
    model = whipple_bicycle()
    eq = model.equations("boltzmann-hamel")
    return model, eq, benchmark_matrices(eq, model=model)


# ----------------------------------------------------------------------------------------------
# the model
# ----------------------------------------------------------------------------------------------
def test_registered():
    assert "whipple-bicycle" in models.names("mechanical")
    assert models.kind("whipple-bicycle") == "mechanical"


def test_model_shape(bike):
    model, eq, _ = bike
    S = model.system
    assert (S.n, S.n_constraints, S.dof, len(S.holonomic)) == (8, 5, 3, 1)
    assert check_adapted(S, model.frame) == 3
    assert [u.name for u in eq.u] == ["phi_dot", "delta_dot", "theta_R_dot"]
    # the upright reference configuration satisfies the contact condition exactly
    hol = model.extra["holonomic"]
    assert sp.simplify(hol.xreplace({q: 0 for q in model.space.q})) == 0


# ----------------------------------------------------------------------------------------------
# the published matrices
# ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["M", "C1", "K0", "K2"])
def test_benchmark_matrices(bike, name):
    mats = bike[2]
    for i in range(2):
        for j in range(2):
            got, want = mats[name][i, j], PUBLISHED[name][i][j]
            assert _close(got, want), (name, i, j, got, want)
    assert mats["g"] == sp.Rational("9.81")
    assert max(abs(x) for x in mats["B"] - sp.eye(2)) < 1e-50  # f = (T_phi, T_delta) enter the lean and steer rows as they are


def test_published_zeros_are_exact(bike):
    mats = bike[2]
    assert mats["C1"][0, 0] == 0 and mats["K2"][0, 0] == 0
    assert abs(mats["K2"][1, 0]) < 1e-50


# ----------------------------------------------------------------------------------------------
# eigenvalues, weave and capsize speeds
# ----------------------------------------------------------------------------------------------
def _expected(v):
    out = []
    for e in TABLE2[v]:
        if isinstance(e, tuple):
            out += [(e[0], "-" + e[1]), (e[0], e[1])]
        else:
            out.append((e, "0"))
    return out


@pytest.mark.parametrize("v", sorted(TABLE2))
def test_table2_eigenvalues(bike, v):
    got = eigenvalues_at(bike[2], v)
    want = _expected(v)
    assert len(got) == 4
    for re, im in want:
        assert any(_close(mpmath.re(z), re) and _close(mpmath.im(z), im) for z in got), (v, re, im, got)


def test_weave_and_capsize_speeds(bike):
    mats = bike[2]
    vw, vc = weave_speed(mats), capsize_speed(mats)
    assert _close(vw, WEAVE) and _close(vc, CAPSIZE)
    ev = eigenvalues_at(mats, vw)
    pair = [z for z in ev if mpmath.im(z) != 0]
    assert len(pair) == 2 and all(abs(mpmath.re(z)) < 1e-40 for z in pair)
    assert _close(abs(mpmath.im(pair[0])), WEAVE_FREQUENCY)
    # self-stable between the two speeds, unstable outside
    for v, stable in ((4.2, False), (4.4, True), (6.0, True), (6.1, False)):
        assert (max(mpmath.re(z) for z in eigenvalues_at(mats, v)) < 0) == stable, v


def test_direct_linearization_at_5(bike):
    """A of the reduced state (φ, δ, φ̇, δ̇, θ̇_R): the Table 2 spectrum plus the rolling speed's 0."""
    model, eq, _ = bike
    lin = eq.linearize(benchmark_operating_point(model, 5), ignorable="auto", dependent=["theta"],
                       inputs=["T_phi", "T_delta"])
    assert [s.name for s in lin.state] == ["phi", "delta", "phi_dot", "delta_dot", "theta_R_dot"]
    assert {q.name for q in lin.ignorable} == {"x", "y", "psi", "theta_R", "theta_F"}
    assert [s.name for s in lin.dependent] == ["theta"]
    ev = lin.eigenvalues(high_precision=True)
    assert sum(1 for z in ev if z == 0) == 1
    for re, im in _expected(5):
        assert any(_close(mpmath.re(z), re) and _close(mpmath.im(z), im) for z in ev)
    drift = {q.name: float(r) for q, r in lin.drift.items()}
    assert drift == pytest.approx({"x": 5.0, "theta_R": -5 / 0.3, "theta_F": -5 / 0.35})


def test_pitch_is_solved_and_steer_violates_the_contact(bike):
    model, eq, _ = bike
    op = benchmark_operating_point(model, 3)
    theta = model.space.q[5]
    op.pop(theta)
    lin = eq.linearize(op, ignorable="auto")
    assert abs(lin.operating_point[theta]) < 1e-50 and theta in lin.dependent
    bad = benchmark_operating_point(model, 3)
    bad[model.space.q[4]] = sp.Rational(1, 10)  # steer 0.1 with the upright pitch (lean alone keeps contact)
    with pytest.raises(InconsistentStateError, match="holonomic constraint 1"):
        eq.linearize(bad, ignorable="auto")


def test_reduced_A_agrees_with_finite_differences(bike):
    """Perturb (φ, δ, u) on the constraint manifold (pitch solved from the contact condition),
    differentiate the compiled right-hand side centrally."""
    from scipy.optimize import brentq
    model, eq, _ = bike
    lin = eq.linearize(benchmark_operating_point(model, 5), ignorable="auto", dependent=["theta"])
    par = {k: float(v) for k, v in benchmark_parameters(model).items()}
    par.update({x: 0.0 for x in model.parameters if x.name.startswith("T_")})
    f = first_order_function(eq, par)
    S = model.space
    hol = sp.lambdify(list(S.q), model.extra["holonomic"].xreplace(benchmark_parameters(model)))

    def rhs(z):
        phi, delta, *u = z
        th = brentq(lambda t: hol(0, 0, 0, phi, delta, t, 0, 0), -0.3, 0.3, xtol=1e-15)
        dy = f(0, np.array([0, 0, 0, phi, delta, th, 0, 0, *u]))
        return np.concatenate([dy[3:5], dy[8:]])

    z0 = np.array([0, 0, 0, 0, -5 / 0.3])
    h = 1e-6
    J = np.column_stack([(rhs(z0 + h * e) - rhs(z0 - h * e)) / (2 * h) for e in np.eye(5)])
    A, _ = lin.numpy()
    assert np.max(np.abs(J - A)) < 1e-7 * np.max(np.abs(A))


@pytest.mark.parametrize("form", ["lagrange", "maggi", "kane"])
def test_other_forms_give_the_same_matrices(bike, form):
    """Lagrange with multipliers (dependent speeds and multipliers eliminated on the tangent
    space of the constraints), Maggi and Kane (rows of the opposite sign) in the model's frame."""
    model, _, mats = bike
    other = benchmark_matrices(model.equations(form), model=model)
    for name in ("M", "C1", "K0", "K2"):
        assert max(abs(x) for x in (other[name] - mats[name])) < 1e-40, (form, name)


# ----------------------------------------------------------------------------------------------
# the nonlinear benchmark: Basu-Mandal, Chatterjee & Papadopoulos (2007), Table 1
# ----------------------------------------------------------------------------------------------
_QQ = lambda model: set(model.space.q) | set(model.space.qd)  # noqa: E731


def _max_residual(model, basu):
    from geonh.models.bicycle import basu_mandal_state, constraint_residuals
    state = basu_mandal_state(model, basu, on_constraints=False)
    return max(abs(r) for r in constraint_residuals(model, {k: v for k, v in state.items() if k in _QQ(model)}))


def test_basu_mandal_state_lies_on_the_constraints(bike):
    """The coordinate map is confirmed by the published state: mapped into geonh's
    coordinates it satisfies the front-contact condition and the rolling constraints to the
    rounding of its 13 printed decimals; a wrong sign in the map leaves large residuals."""
    from geonh.models.bicycle import BASU_MANDAL_STATE
    model = bike[0]
    assert _max_residual(model, BASU_MANDAL_STATE) < 1e-13
    for key in ("psif", "thetad", "psid", "betard"):
        wrong = dict(BASU_MANDAL_STATE)
        wrong[key] = "-" + wrong[key]
        assert _max_residual(model, wrong) > 0.1, key


def test_basu_mandal_state_on_constraints_to_60_digits(bike):
    from geonh.models.bicycle import basu_mandal_state, constraint_residuals
    model = bike[0]
    state = basu_mandal_state(model)
    res = constraint_residuals(model, {k: v for k, v in state.items() if k in _QQ(model)})
    assert max(abs(r) for r in res) < mpmath.mpf(10) ** -50


@pytest.mark.slow
def test_basu_mandal_nonlinear_accelerations(bike):
    """geonh's nonlinear accelerations at the general state of Basu-Mandal et al. (2007),
    Table 1, agree with the published 13-decimal values (relative 1e-12, or their rounding)."""
    from geonh.models.bicycle import BASU_MANDAL_ACCELERATIONS, basu_mandal_accelerations
    model, eq, _ = bike
    got = basu_mandal_accelerations(model, eq)
    for name, want in BASU_MANDAL_ACCELERATIONS.items():
        assert isinstance(got[name], sp.Float)
        assert _close(got[name], want), (name, got[name], want)
