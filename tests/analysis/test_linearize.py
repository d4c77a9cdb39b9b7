"""Linearization about equilibria and steady motions (geonh.analysis.linearize).

Hand-derived cases (pendulum, a bead on a parabola with a holonomic constraint, the Chaplygin
sleigh's straight motion, the upright rolling disk and its classical critical speed
Ω² = g/(3r)), agreement with central finite differences of the compiled right-hand side,
agreement between a frame form and Lagrange's form with multipliers, and the errors.
"""
from __future__ import annotations

import mpmath
import numpy as np
import pytest
import sympy as sp

import geonh
from geonh import ConfigurationSpace, MechanicalSystem, models
from geonh.analysis import eigenvalues, linearize
from geonh.analysis.linearize import jacobian_at
from geonh.equations import FORMS, lagrange
from geonh.errors import InconsistentStateError, NotAdaptedError, UnknownCoordinateError
from geonh.numerics import first_order_function

m, l, g = sp.symbols("m l g", positive=True)
tau = sp.Symbol("tau", real=True)  # a torque of either sign (0 in the operating points)


def close(a, b, tol=1e-45) -> bool:
    """Entries equal to ``tol`` (numbers or matrices of numbers)."""
    a, b = sp.Matrix([a]) if not isinstance(a, sp.MatrixBase) else a, sp.Matrix([b]) if not isinstance(
        b, sp.MatrixBase) else b
    return a.shape == b.shape and all(abs(sp.N(x - y, 60)) <= tol for x, y in zip(a, b))


def pendulum():
    S = ConfigurationSpace("th")
    (th,), (thd,) = S.q, S.qd
    return MechanicalSystem(S, m * l**2 * thd**2 / 2, V=-m * g * l * sp.cos(th), forces={th: tau})


def bead_on_parabola():
    """A bead on y = 1 + x² (y up) under gravity: ẍ = −2g x at the bottom."""
    S = ConfigurationSpace("x y")
    (x, y), (xd, yd) = S.q, S.qd
    return MechanicalSystem(S, m * (xd**2 + yd**2) / 2, V=m * g * y, holonomic=[y - 1 - x**2])


# ----------------------------------------------------------------------------------------------
# hand-derived
# ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("form", ["lagrange", "boltzmann-hamel", "maggi", "kane"])
def test_pendulum_symbolic(form):
    eq = FORMS[form](pendulum())
    lin = eq.linearize({"th": 0, "th_dot": 0}, inputs=[tau], symbolic=True)
    assert lin.state == (sp.Symbol("th", real=True), sp.Symbol("th_dot", real=True))
    assert sp.simplify(lin.A - sp.Matrix([[0, 1], [-g / l, 0]])) == sp.zeros(2, 2)
    assert sp.simplify(lin.B - sp.Matrix([0, 1 / (m * l**2)])) == sp.zeros(2, 1)
    so = lin.second_order()
    assert sp.simplify(so.M[0, 0] - m * l**2) == 0 and so.C[0, 0] == 0
    assert sp.simplify(so.K[0, 0] - m * g * l) == 0 and sp.simplify(so.F[0, 0] - 1) == 0


def test_pendulum_numeric_up_and_down():
    eq = lagrange(pendulum())
    vals = {m: 1, l: 2, g: 9.81, tau: 0}
    down = eq.linearize({"th": 0, "th_dot": 0, **vals}, exact=True)
    up = eq.linearize({"th": sp.pi, "th_dot": 0, **vals}, inputs=["tau"], exact=True)
    w = np.sqrt(9.81 / 2)
    assert np.allclose(down.eigenvalues(), [-1j * w, 1j * w], atol=1e-14)
    assert np.allclose(up.eigenvalues(), [-w, w], atol=1e-14)
    assert close(up.A[1, 0], sp.Rational("4.905")) and close(up.B[1, 0], sp.Rational(1, 4))
    # 60 digits: the float 9.81 is read as the decimal 9.81
    hp = down.eigenvalues(high_precision=True)
    with mpmath.workdps(60):
        assert abs(hp[1] - mpmath.mpc(0, mpmath.sqrt(mpmath.mpf("4.905")))) < mpmath.mpf(10) ** -50


@pytest.mark.parametrize("form", ["lagrange", "boltzmann-hamel"])
def test_holonomic_constraint_eliminates_the_dependent_coordinate(form):
    """Lagrange with multipliers: y and ẏ dependent; the frame form: y dependent."""
    eq = FORMS[form](bead_on_parabola())
    lin = eq.linearize({"x": 0, "y": 1, "x_dot": 0, "y_dot": 0, m: 3, g: 9.81}, dependent=["y"], exact=True)
    x, y = eq.space.q
    assert lin.state == (x, sp.Symbol("x_dot", real=True))
    assert y in lin.dependent
    assert close(lin.A, sp.Matrix([[0, 1], [-2 * sp.Rational("9.81"), 0]]))
    # the dependent coordinate is solved from the constraint when not given
    lin2 = eq.linearize({"x": 0, "x_dot": 0, m: 3, g: 9.81}, dependent=["y"], exact=True)
    assert close(lin2.operating_point[y], 1) and close(lin2.A, lin.A)


def test_holonomic_symbolic():
    eq = lagrange(bead_on_parabola())
    lin = eq.linearize({"x": 0, "y": 1, "x_dot": 0}, symbolic=True)
    assert sp.simplify(lin.A - sp.Matrix([[0, 1], [-2 * g, 0]])) == sp.zeros(2, 2)


def test_sleigh_straight_motion_is_steady_and_drifts():
    M = models.get("chaplygin-sleigh")
    eq = M.equations("boltzmann-hamel")
    ms, a, I = M.parameters
    v0, th0 = sp.symbols("v0 theta0", positive=True)
    lin = eq.linearize({"x": 0, "y": 0, "theta": th0, "v": v0, "w": 0}, ignorable="auto", symbolic=True)
    assert set(lin.ignorable) == set(eq.space.q)
    assert lin.state == tuple(eq.u)
    expect = sp.Matrix([[0, 0], [0, -ms * a * v0 / (I + ms * a**2)]])
    assert sp.simplify(lin.A - expect) == sp.zeros(2, 2)
    x, y, th = eq.space.q
    assert sp.simplify(lin.drift[x] - v0 * sp.cos(th0)) == 0 and sp.simplify(lin.drift[y] - v0 * sp.sin(th0)) == 0
    # numeric: the same numbers
    num = eq.linearize({"x": 0, "y": 0, "theta": 0.3, "v": 2, "w": 0, ms: 1, a: 0.5, I: 0.25}, ignorable="auto")
    assert close(num.A, sp.Matrix([[0, 0], [0, -2]]))


def test_sleigh_turning_is_not_steady():
    M = models.get("chaplygin-sleigh")
    eq = M.equations("boltzmann-hamel")
    ms, a, I = M.parameters
    with pytest.raises(InconsistentStateError, match="not a steady motion.*v_dot"):
        eq.linearize({"x": 0, "y": 0, "theta": 0, "v": 1, "w": 1, ms: 1, a: 1, I: 1}, ignorable="auto")


def test_rolling_disk_critical_speed():
    """Upright rolling of a uniform disk: λ² = (4g − 12 Ω² r)/(5r); stable for Ω² > g/(3r)."""
    M = models.get("tilted-disk")
    eq = M.equations("boltzmann-hamel")
    ms, r, gg, Id, Ia = M.parameters
    Om, s = sp.symbols("Omega s", positive=True)
    op = {"psi": 0, "theta": 0, "phi": 0, "x": 0, "y": 0, "w1": 0, "w2": Om, "w3": 0}
    lin = eq.linearize(op, ignorable="auto", symbolic=True)
    assert [q.name for q in lin.state] == ["theta", "w1", "w2", "w3"]
    poly = sp.factor((s * sp.eye(4) - lin.A).det().subs({Id: ms * r**2 / 4, Ia: ms * r**2 / 2}))
    assert sp.simplify(poly - s**2 * (s**2 - (4 * gg - 12 * Om**2 * r) / (5 * r))) == 0
    # numbers on both sides of the critical speed sqrt(g/(3r)) = 2.5573... for g = 9.81, r = 1/2
    par = {ms: 2, r: sp.Rational(1, 2), gg: 9.81, Id: sp.Rational(1, 8), Ia: sp.Rational(1, 4)}
    for w2, stable in ((2.5, False), (2.6, True)):
        ev = eq.linearize({**op, "w2": w2, **par}, ignorable="auto").eigenvalues()
        assert (max(ev.real) <= 1e-40) == stable, (w2, ev)


# ----------------------------------------------------------------------------------------------
# finite differences, other forms
# ----------------------------------------------------------------------------------------------
def test_agrees_with_finite_differences_of_the_right_hand_side():
    """The full state (every coordinate kept, x and φ drifting) of the rolling disk."""
    M = models.get("tilted-disk")
    eq = M.equations("boltzmann-hamel")
    ms, r, gg, Id, Ia = M.parameters
    par = {ms: 2, r: sp.Rational(1, 2), gg: sp.Rational(981, 100), Id: sp.Rational(1, 8), Ia: sp.Rational(1, 4)}
    op = {"psi": sp.Rational(3, 10), "theta": 0, "phi": 1, "x": 2, "y": -1, "w1": 0, "w2": 3, "w3": 0, **par}
    lin = eq.linearize(op)
    assert lin.state == tuple(eq.space.q) + tuple(eq.u)
    assert set(lin.drift) == {eq.space.q[2], eq.space.q[3], eq.space.q[4]}
    f = first_order_function(eq, {k: float(v) for k, v in par.items()})
    y0 = np.array([float(lin.operating_point[s]) for s in lin.state])
    h = 1e-6
    J = np.column_stack([(f(0, y0 + h * e) - f(0, y0 - h * e)) / (2 * h) for e in np.eye(len(y0))])
    A, _ = lin.numpy()
    assert np.max(np.abs(J - A)) < 1e-8 * (1 + np.max(np.abs(A)))


def test_frame_form_and_lagrange_have_the_same_spectrum():
    """Lagrange's state keeps the velocities of every coordinate, the dependent ones eliminated
    on the constraints (they depend on δq too); the frame form has independent speeds."""
    M = models.get("tilted-disk")
    ms, r, gg, Id, Ia = M.parameters
    par = {ms: 2, r: sp.Rational(1, 2), gg: 9.81, Id: sp.Rational(1, 8), Ia: sp.Rational(1, 4)}
    bh = M.equations("boltzmann-hamel").linearize(
        {"psi": 0, "theta": 0, "phi": 0, "x": 0, "y": 0, "w1": 0, "w2": 3, "w3": 0, **par}, ignorable="auto")
    lg = lagrange(M.system).linearize(
        {"psi": 0, "theta": 0, "phi": 0, "x": 0, "y": 0, "psi_dot": 0, "theta_dot": 0, "phi_dot": 3, **par},
        ignorable="auto", dependent=["x_dot", "y_dot"])
    assert {s.name for s in lg.dependent} == {"x_dot", "y_dot"}
    e1 = [complex(z) for z in bh.eigenvalues() if abs(z) > 1e-30]
    e2 = [complex(z) for z in lg.eigenvalues() if abs(z) > 1e-30]
    assert np.allclose(sorted(e1, key=lambda z: z.imag), sorted(e2, key=lambda z: z.imag), atol=1e-40)


def test_symbolic_and_numeric_agree():
    M = models.get("tilted-disk")
    eq = M.equations("boltzmann-hamel")
    ms, r, gg, Id, Ia = M.parameters
    par = {ms: 2, r: sp.Rational(1, 2), gg: sp.Rational(981, 100), Id: sp.Rational(1, 8), Ia: sp.Rational(1, 4)}
    op = {"psi": 0, "theta": 0, "phi": 0, "x": 0, "y": 0, "w1": 0, "w2": 3, "w3": 0}
    sym = eq.linearize(op, ignorable="auto", symbolic=True)
    num = eq.linearize({**op, **par}, ignorable="auto", exact=True)
    assert close(sym.A.xreplace(par), num.A)


def test_jacobian_at_and_eigenvalues_helpers():
    x, y = sp.symbols("x y")
    vals, rows = jacobian_at([x * sp.sin(y), sp.sqrt(x) * y], [x, y], {x: 4, y: 0})
    assert vals == [0, 0] and rows == [[0, 4], [0, 2]]
    assert np.allclose(eigenvalues(sp.Matrix([[0, -1], [1, 0]])), [-1j, 1j])
    assert eigenvalues(np.diag([3.0, -1.0]), high_precision=True) == [-1, 3]


# ----------------------------------------------------------------------------------------------
# errors
# ----------------------------------------------------------------------------------------------
def test_operating_point_off_the_constraint_is_named():
    eq = lagrange(bead_on_parabola())
    with pytest.raises(InconsistentStateError, match="holonomic constraint 1: f = -0.5"):
        eq.linearize({"x": 0, "y": 0.5, "x_dot": 0, "y_dot": 0, m: 1, g: 1})
    with pytest.raises(InconsistentStateError, match="velocity constraint"):
        eq.linearize({"x": 1, "y": 2, "x_dot": 1, "y_dot": 0, m: 1, g: 1})


def test_bad_names_and_missing_values():
    eq = lagrange(pendulum())
    with pytest.raises(UnknownCoordinateError, match="nosuch"):
        eq.linearize({"th": 0, "th_dot": 0, "nosuch": 1})
    with pytest.raises(ValueError, match="tau"):
        eq.linearize({"th": 0, "th_dot": 0, m: 1, l: 1, g: 1})


def test_not_ignorable_and_moving_coordinates():
    M = models.get("chaplygin-sleigh")
    eq = M.equations("boltzmann-hamel")
    ms, a, I = M.parameters
    with pytest.raises(InconsistentStateError, match="theta is not ignorable"):
        eq.linearize({"x": 0, "y": 0, "theta": 0, "v": 1, "w": 0, ms: 1, a: 1, I: 1}, ignorable=["theta"])
    pend = lagrange(pendulum())
    with pytest.raises(InconsistentStateError, match="th moves"):
        pend.linearize({"th": 0, "th_dot": 1, m: 1, l: 1, g: 1, tau: 0})


def test_second_order_that_does_not_close():
    M = models.get("tilted-disk")
    eq = M.equations("boltzmann-hamel")
    ms, r, gg, Id, Ia = M.parameters
    lin = eq.linearize({"psi": 0, "theta": 0, "phi": 0, "x": 0, "y": 0, "w1": 0, "w2": 3, "w3": 0, ms: 2, r: 1,
                        gg: 9.81, Id: 1, Ia: 2}, ignorable="auto")
    with pytest.raises(NotAdaptedError, match="w3 enters the equations"):
        lin.second_order(["theta"])


def test_public_names():
    assert geonh.linearize is linearize and geonh.Linearization is geonh.analysis.Linearization


def test_eigenvalues_of_a_symbolic_A_with_values():
    M = models.get("tilted-disk")
    eq = M.equations("boltzmann-hamel")
    ms, r, gg, Id, Ia = M.parameters
    Om = sp.Symbol("Omega", positive=True)
    lin = eq.linearize({"psi": 0, "theta": 0, "phi": 0, "x": 0, "y": 0, "w1": 0, "w2": Om, "w3": 0, ms: 2,
                        r: sp.Rational(1, 2), gg: 9.81, Id: sp.Rational(1, 8), Ia: sp.Rational(1, 4)},
                       ignorable="auto", symbolic=True)
    ev = lin.eigenvalues({"Omega": 3})
    assert np.allclose(sorted(ev, key=lambda z: z.imag), [-2.42981481j, 0, 0, 2.42981481j], atol=1e-8)
    with pytest.raises(ValueError, match="Omega"):
        lin.eigenvalues()


def test_nonsmooth_potentials_linearize_where_smooth_and_refuse_clearly_where_not():
    """V = |x| − x: a force with sign(x), whose derivatives (DiracDelta, DiracDelta(x, 1), …)
    never end — the jet took them all (RecursionError); at x = 0.5 the linearization is the
    free particle's, at x = 0 a clear SingularMapError."""
    import geonh as g
    from geonh.errors import SingularMapError
    S = g.ConfigurationSpace("x")
    m = sp.Symbol("m", positive=True)
    eq = g.lagrange(g.MechanicalSystem(S, m * S.qd[0] ** 2 / 2, V=sp.Abs(S.q[0]) - S.q[0]))
    A = eq.linearize({"x": 0.5, "x_dot": 0, "m": 1}).A
    assert float((A - sp.Matrix([[0, 1], [0, 0]])).norm()) < 1e-30
    with pytest.raises(SingularMapError, match="operating point"):
        eq.linearize({"x": 0, "x_dot": 0, "m": 1})
