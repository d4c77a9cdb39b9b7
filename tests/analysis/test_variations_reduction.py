"""Variations on the reduction API (issue 26) that a newcomer tries: routes beyond the
shipped examples, each checked against an independent derivation."""
import numpy as np
import pytest
import sympy as sp
from scipy.integrate import solve_ivp

from geonh import models
from geonh.analysis import nonholonomic_connection, phase_integral, reduced_equations


def _sleigh_se2():
    sleigh = models.get("chaplygin-sleigh")
    x, y, _ = sleigh.space.q
    return sleigh, [[1, 0, 0], [0, 1, 0], [-y, x, 1]]


def test_sleigh_reduced_by_se2_has_no_shape_and_gives_the_euler_poincare_suslov_equations():
    """The sleigh's own symmetry SE(2) moves every coordinate: the shape space is a point and
    the reduced equations are the momentum equations alone.  Before the fix ξ = −𝒜ṙ + Γp
    failed with sympy's bare ShapeError ((3, 0) + (3, 1)).  Check: p1 = m v, p2 = (I + m a²) w
    with v̇ = a w², ẇ = −m a v w/(I + m a²) (Neimark & Fufaev 1972; Bloch 2003, § 1.7)."""
    sleigh, gens = _sleigh_se2()
    red = reduced_equations(sleigh.system, gens)
    c = red.connection
    assert c.shape == () and red.shape_rates == ()
    m, a, I = sleigh.parameters
    p1, p2 = c.momenta
    v, w = p1 / m, p2 / (I + m * a**2)
    assert sp.simplify(red.momentum_rates[0] - m * a * w**2) == 0
    assert sp.simplify(red.momentum_rates[1] - (I + m * a**2) * (-m * a * v * w / (I + m * a**2))) == 0
    assert [sp.simplify(e - f) for e, f in zip(red.reconstruction, (v, 0, w))] == [0, 0, 0]
    assert c.xi().shape == (3, 1)
    assert nonholonomic_connection(sleigh.system, gens).velocity()  # no ShapeError on the way


def test_sleigh_reconstruction_without_a_gait_matches_a_direct_simulation():
    """`reconstruct({}, ...)` with no shape: the group motion from the momentum and
    reconstruction equations equals the sleigh integrated in (x, y, θ, v, w) directly."""
    sleigh, gens = _sleigh_se2()
    red = reduced_equations(sleigh.system, gens)
    vals = {"m": 1.0, "a": 0.5, "I": 0.2}
    m, a, I = 1.0, 0.5, 0.2
    v0, w0 = 1.0, 0.8
    rec = red.reconstruct({}, (0, 2), momenta0=[m * v0, (I + m * a**2) * w0], values=vals)

    def rhs(t, s):
        x, y, th, v, w = s
        return [v * np.cos(th), v * np.sin(th), w, a * w**2, -m * a * v * w / (I + m * a**2)]

    ref = solve_ivp(rhs, (0, 2), [0, 0, 0, v0, w0], method="DOP853", rtol=1e-12, atol=1e-12)
    assert np.allclose(rec.phase, ref.y[:3, -1], atol=1e-9)


def _vertical_disk(order):
    """The vertical rolling disk ẋ = R cos θ φ̇, ẏ = R sin θ φ̇ on a space with the
    coordinates in ``order``, and its translations."""
    import geonh as g
    S = g.ConfigurationSpace(order)
    q = {s.name: s for s in S.q}
    qd = {s.name: v for s, v in zip(S.q, S.qd)}
    m, J, K, R = sp.symbols("m J K R", positive=True)
    T = m / 2 * (qd["x"]**2 + qd["y"]**2) + J / 2 * qd["phi"]**2 + K / 2 * qd["theta"]**2
    system = g.MechanicalSystem(S, T, constraints=[qd["x"] - R * sp.cos(q["theta"]) * qd["phi"],
                                                   qd["y"] - R * sp.sin(q["theta"]) * qd["phi"]])
    gens = [[1 if s.name == n else 0 for s in S.q] for n in ("x", "y")]
    return system, gens, R


@pytest.mark.parametrize("order", ["x y theta phi", "x y phi theta", "phi theta x y"])
def test_phase_integral_is_oriented_by_the_region_not_by_the_coordinate_order(order):
    """The rectangle θ ∈ [θ0, θ1], φ ∈ [0, 1] traversed counter-clockwise in the (θ, φ) plane
    moves the disk by R (cos θ1 − cos θ0, sin θ1 − sin θ0) (∮ R cos θ dφ; docs/reduction.md).
    Before the fix, with φ before θ among the coordinates the sign flipped, and the closed
    form disagreed with the reconstruction along that very loop."""
    system, gens, R = _vertical_disk(order)
    red = reduced_equations(system, gens)
    a, b = 0.2, 1.1
    closed = phase_integral(red.connection, {"theta": (a, b), "phi": (0, 1)})
    expect = [np.cos(b) - np.cos(a), np.sin(b) - np.sin(a)]
    assert np.allclose([float(e.subs(R, 1)) for e in closed], expect, atol=1e-14)
    swapped = phase_integral(red.connection, {"phi": (0, 1), "theta": (a, b)})   # clockwise in (θ, φ)
    assert np.allclose([float(e.subs(R, 1)) for e in swapped], [-x for x in expect], atol=1e-14)
    t = sp.Symbol("t", real=True)
    sides = [{"theta": a + (b - a) * t, "phi": 0}, {"theta": b, "phi": t},
             {"theta": b - (b - a) * t, "phi": 1}, {"theta": a, "phi": 1 - t}]
    g0 = {"x": 0.0, "y": 0.0}
    for side in sides:
        g0 = dict(zip(["x", "y"], red.reconstruct(side, (0, 1), group0=g0,
                                                  values={"R": 1, "m": 1, "J": 1, "K": 1}).group[-1]))
    assert np.allclose([g0["x"], g0["y"]], expect, atol=1e-10)


def test_phase_integral_refuses_one_coordinate_named_twice():
    system, gens, _ = _vertical_disk("x y theta phi")
    c = nonholonomic_connection(system, gens)
    theta = system.space.q[2]
    import geonh as g
    with pytest.raises(g.DimensionError, match="twice"):
        phase_integral(c, {"theta": (0, 1), theta: (0, 1)})


def test_string_generators_with_a_parameter_give_one_symbol():
    """Before, the "a" of string generators was another symbol than the model's positive a,
    and the reconstruction mixed the two (p1/(a m) with two different a's)."""
    sleigh = models.get("chaplygin-sleigh")
    red = reduced_equations(sleigh.system, [["a", 0, 0], [0, "a", 0], ["-a*y", "a*x", "a"]])
    names = [s.name for e in red.reconstruction + red.momentum_rates for s in e.free_symbols]
    symbols = {s for e in red.reconstruction + red.momentum_rates for s in e.free_symbols}
    assert len(symbols) == len(set(names))
    rec = red.reconstruct({}, (0, 1), momenta0=[0.5, 0.2], values={"m": 1, "a": 0.5, "I": 0.2})
    assert np.all(np.isfinite(rec.phase))
