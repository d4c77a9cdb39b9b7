"""A removable singularity of a frame form at an operating point where its frame is regular.

A differential-drive robot (two wheels on an axle, heading θ, centre of mass off the axle,
damped wheels driven at a steady speed, a heading spring) in Boltzmann–Hamel form with the
quasi-velocities v (forward speed) and ω = r (φ̇_R − φ̇_L)/(2b) (= θ̇ on the constraints).  With ω
written through the wheels no row of the coframe has a single entry, so its inverse is computed
by LU with pivots chosen at random points, and it divides by sin θ (with ω = θ̇ that row is a
singleton pivot, ``geonh.kernel.generic_point.singleton_pivots``, and the 4×4 rest is inverted
by adjugate: no 1/sin θ arises); at θ = 0 the frame is regular and so are the
equations, but on main ``linearize`` refused: "sin(theta)**(-2) is singular at the operating
point".  Now the form is derived again with its pivots chosen at the point, and its eigenvalues
agree with the Voronets and Lagrange forms there."""
import pytest
import sympy as sp

import geonh as g
from geonh.errors import SingularMapError


def drive():
    S = g.ConfigurationSpace("y x theta phi_R phi_L")     # this order gives the sin θ pivot
    y, x, th, pR, pL = S.q
    yd, xd, thd, pRd, pLd = S.qd
    m, I, r, b, J, d, c, k, tau0 = sp.symbols("m I r b J d c k tau0", positive=True)
    vG = (xd - d * sp.sin(th) * thd, yd + d * sp.cos(th) * thd)
    T = m / 2 * (vG[0] ** 2 + vG[1] ** 2) + I / 2 * thd**2 + J / 2 * (pRd**2 + pLd**2)
    cons = [sp.sin(th) * xd - sp.cos(th) * yd,                        # no side slip
            sp.cos(th) * xd + sp.sin(th) * yd - r / 2 * (pRd + pLd),   # rolling
            thd - r / (2 * b) * (pRd - pLd)]
    sysm = g.MechanicalSystem(S, T, forces={th: -k * th, pR: tau0 - c * pRd, pL: tau0 - c * pLd},
                              constraints=cons)
    v = sp.cos(th) * xd + sp.sin(th) * yd
    omega = r / (2 * b) * (pRd - pLd)                                   # θ̇ on D, through the wheels
    frame = g.Frame.from_quasi_velocities(S, [v, omega] + cons, names=["v", "omega", "c1", "c2", "c3"])
    return sysm, frame


PAR = {"m": 2, "I": sp.Rational(1, 2), "r": sp.Rational(1, 4), "b": sp.Rational(1, 3), "J": sp.Rational(1, 10),
       "d": sp.Rational(1, 5), "c": sp.Rational(3, 10), "k": 4}
V0 = 2
PAR["tau0"] = PAR["c"] * V0 / PAR["r"]                                  # drive balances damping: steady
AT = {"y": 0, "x": 0, "theta": 0, "phi_R": 0, "phi_L": 0} | PAR
WHEEL = V0 / PAR["r"]


def _eig(lin):
    return sorted((complex(z) for z in lin.eigenvalues()), key=lambda z: (round(z.real, 12), z.imag))


@pytest.mark.slow
def test_boltzmann_hamel_at_theta_zero_agrees_with_voronets_and_lagrange():
    sysm, frame = drive()
    bh = g.boltzmann_hamel(sysm, frame)
    assert any(sp.sin(sysm.space.q[2]) ** -2 in e.atoms(sp.Pow) or 1 / sp.sin(sysm.space.q[2]) in e.atoms(sp.Pow)
               for e in bh.mass_matrix)                                  # the removable 1/sin θ is there
    lin = bh.linearize(AT | {"v": V0, "omega": 0}, ignorable="auto", exact=True)
    assert [s.name for s in lin.state] == ["theta", "v", "omega"]
    assert lin.equations.form == "boltzmann-hamel" and lin.equations is not bh
    vo = g.derive("voronets", sysm, dependent=["y", "x", "theta"]).linearize(
        AT | {"phi_R_dot": WHEEL, "phi_L_dot": WHEEL}, ignorable="auto", exact=True)
    la = g.lagrange(sysm).linearize(AT | {"x_dot": V0, "y_dot": 0, "theta_dot": 0, "phi_R_dot": WHEEL,
                                          "phi_L_dot": WHEEL}, ignorable="auto", exact=True)
    e_bh, e_vo, e_la = _eig(lin), _eig(vo), _eig(la)
    assert len(e_bh) == len(e_vo) == len(e_la) == 3
    assert any(abs(z.imag) > 0.1 for z in e_bh)                         # a damped heading oscillation
    for z1, z2, z3 in zip(e_bh, e_vo, e_la):
        assert abs(z1 - z2) < 1e-20 and abs(z1 - z3) < 1e-20


@pytest.mark.slow
def test_a_frame_singular_at_the_point_is_named():
    """Where the frame itself is singular (its first quasi-velocity sin θ · v vanishes at θ = 0)
    nothing can be resolved: the error says the frame is singular there and names a form
    without it."""
    sysm, frame = drive()
    S = sysm.space
    th = S.q[2]
    yd, xd, thd = S.qd[:3]
    cons = frame.quasi_velocities()[2:]
    bad = g.Frame.from_quasi_velocities(S, [sp.sin(th) * (sp.cos(th) * xd + sp.sin(th) * yd), thd] + cons,
                                        names=["sv", "omega", "c1", "c2", "c3"])
    bh = g.boltzmann_hamel(sysm, bad)
    with pytest.raises(SingularMapError, match=r"frame .* itself is singular at the operating point.*lagrange"):
        bh.linearize(AT | {"sv": 0, "omega": 0}, ignorable="auto")
