"""The Whipple bicycle: four rigid bodies, two knife-edge wheels rolling without slipping.

Meijaard, Papadopoulos, Ruina & Schwab (2007), *Linearized dynamics equations for the balance
and steer of a bicycle: a benchmark and review*, Proc. R. Soc. A 463, 1955–1982 ("MPRS").
Axes and signs are theirs: x forward, y to the right, z down; lean φ about the forward axis
(positive to the right), steer δ about the steering axis pointing down (positive to the
right), the steering axis tilted back by λ from the vertical.

Coordinates (8): the rear contact point (x, y), yaw ψ, lean φ, steer δ, rear-frame pitch θ
(θ = 0 in the upright reference configuration of MPRS, so the upright state is exact), the
rear-wheel angle θ_R relative to the rear frame and the front-wheel angle θ_F relative to the
front frame.  Constraints (5): the front wheel touches the ground — a holonomic constraint
f(φ, δ, θ) = 0 that fixes the pitch — and four rolling conditions (the material contact points
of both wheels have no horizontal velocity).  3 degrees of freedom: φ̇, δ̇, θ̇_R.

The model is written out through the public API: rotation matrices give the positions of the
mass centres and the angular velocities in the lean frame, the mass matrix of T is assembled
from partial velocities (T written as its velocity monomials), the rolling constraints are
handed over as one-forms (a :class:`~geonh.Codistribution`), the holonomic contact condition
as ``holonomic=[f]``.  The recommended frame is the Voronets frame of the free coordinates
(φ, δ, θ_R) with the dependent velocities in closed form; derive equations with
``model.equations(form)``, which uses it.  (A form's default frame, e.g.
``FORMS["boltzmann-hamel"](model.system)``, LU-solves the raw rolling conditions symbolically:
minutes instead of seconds.)  Parameters are the symbols of MPRS Table 1; :data:`BENCHMARK`
holds their benchmark values (exact decimals, λ = π/10).

:func:`benchmark_matrices` reproduces the published linear model
M q̈ + v C1 q̇ + (g K0 + v² K2) q = f (q = (φ, δ), f = (T_φ, T_δ)) with
:meth:`geonh.Equations.linearize`; :func:`eigenvalues_at`, :func:`weave_speed` and
:func:`capsize_speed` give the benchmark's eigenvalues and stability boundaries.
"""
from __future__ import annotations

from typing import Mapping, cast

import mpmath
import sympy as sp

from ..errors import DimensionError, InconsistentStateError, MissingValueError, ParseError, SelfCheckError, SpaceMismatchError
from ..kernel.distributions import Codistribution
from ..kernel.evaluation import precision, to_mp, value_at
from ..kernel.linalg import drop_roundoff
from ..kernel.fields import VectorField
from ..kernel.forms import OneForm
from ..kernel.frames import Frame
from ..kernel.parsing import as_expr, as_mapping, as_matrix, as_sequence, as_values, expr_of, sympy_of
from ..kernel.space import ConfigurationSpace
from .arguments import flag
from ..systems.mechanical import MechanicalSystem
from .mechanical import MechanicalModel

__all__ = ["whipple_bicycle", "BENCHMARK", "benchmark_parameters", "benchmark_operating_point",
           "benchmark_matrices", "state_matrix", "eigenvalues_at", "weave_speed", "capsize_speed", "weave_onset_speed",
           "BASU_MANDAL_STATE", "BASU_MANDAL_ACCELERATIONS", "basu_coordinates", "basu_to_geonh", "basu_mandal_state",
           "basu_mandal_accelerations", "constraint_residuals"]

#: Parameter names of MPRS Table 1, in their order, with the benchmark values (exact decimals).
BENCHMARK: dict[str, object] = {
    "w": "1.02", "c": "0.08", "lambda": sp.pi / 10, "g": "9.81",
    "r_R": "0.3", "m_R": "2", "I_Rxx": "0.0603", "I_Ryy": "0.12",
    "x_B": "0.3", "z_B": "-0.9", "m_B": "85", "I_Bxx": "9.2", "I_Byy": "11", "I_Bzz": "2.8", "I_Bxz": "2.4",
    "x_H": "0.9", "z_H": "-0.7", "m_H": "4", "I_Hxx": "0.05892", "I_Hyy": "0.06", "I_Hzz": "0.00708",
    "I_Hxz": "-0.00756",
    "r_F": "0.35", "m_F": "3", "I_Fxx": "0.1405", "I_Fyy": "0.28",
}

_POSITIVE = {"w", "c", "lambda", "g", "r_R", "m_R", "I_Rxx", "I_Ryy", "m_B", "I_Bxx", "I_Byy", "I_Bzz",
             "m_H", "I_Hxx", "I_Hyy", "I_Hzz", "r_F", "m_F", "I_Fxx", "I_Fyy"}


def _symbols() -> dict[str, sp.Symbol]:
    return {k: sp.Symbol(k, positive=True) if k in _POSITIVE else sp.Symbol(k, real=True) for k in BENCHMARK}


def _roty(a):
    c, s = sp.cos(a), sp.sin(a)
    return sp.Matrix([[c, 0, s], [0, 1, 0], [-s, 0, c]])


def _rotz(a):
    c, s = sp.cos(a), sp.sin(a)
    return sp.Matrix([[c, -s, 0], [s, c, 0], [0, 0, 1]])


def _v(*a) -> sp.Matrix:
    return sp.Matrix(a)


def whipple_bicycle(torques: bool = True) -> MechanicalModel:
    """The Whipple bicycle of MPRS (module docstring), all 26 parameters symbolic.

    With ``torques=True`` a lean torque T_phi (between the ground and the rear frame, about the
    forward axis) and a steer torque T_delta (between the rear and the front frame, about the
    steering axis) act; their generalized forces are Q_φ = T_φ, Q_δ = T_δ.
    """
    torques = flag(torques, "whipple_bicycle: torques")
    S = ConfigurationSpace("x y psi phi delta theta theta_R theta_F")
    x, y, psi, phi, delta, theta, thR, thF = S.q
    xd, yd, psid, phid, deltad, thetad, thRd, thFd = S.qd
    P = _symbols()
    w, c, lam, g, rR, rF = (P[k] for k in ("w", "c", "lambda", "g", "r_R", "r_F"))
    mR, mB, mH, mF = (P[k] for k in ("m_R", "m_B", "m_H", "m_F"))

    # orientations, as matrices whose columns are a frame's axes in lean-frame (B) components:
    # C = rear frame (pitch θ about B.y), D = steering-axis frame (D.z = steering axis, pitched
    # by θ + λ), E = front frame (steer δ about D.z); the front body's own axes (MPRS's global
    # axes at δ = 0) are E turned back by λ about E.y (``back``).
    RC = _roty(theta)
    RD = _roty(theta + lam)
    RE = RD * _rotz(delta)
    back = _roty(-lam)
    # positions relative to the rear contact point, in B components (z down)
    rRc = _v(0, 0, -rR)
    rS0 = rRc + RC * _v(w + c, 0, rR)                      # steering axis meets the ground (upright)
    rBc = rRc + RC * _v(P["x_B"], 0, P["z_B"] + rR)
    rFc = rS0 + RE * (back * _v(-c, 0, -rF))
    rHc = rS0 + RE * (back * _v(P["x_H"] - w - c, 0, P["z_H"]))
    cphi, sphi = sp.cos(phi), sp.sin(phi)
    Ax, Ay, Az = _v(1, 0, 0), _v(0, cphi, -sphi), _v(0, sphi, cphi)   # yaw-frame axes in B
    Fy = RE[:, 1]                                          # front-wheel axle
    s = Az.dot(Fy)
    root = sp.sqrt(1 - s**2)
    rQ = rF * (Az - s * Fy) / root                         # front-wheel centre -> contact point
    hol = rFc.dot(Az) + rF * root                          # height of the front contact = 0

    # angular velocities (B components); velocities of points
    omB = _v(phid, sphi * psid, cphi * psid)
    omC = omB + thetad * _v(0, 1, 0)
    omF = omC + deltad * RD[:, 2]
    vx, vy = sp.Dummy("v_x"), sp.Dummy("v_y")              # yaw-frame components of the contact velocity
    vP = vx * Ax + vy * Ay

    def d(M, s):
        return M.applyfunc(lambda e: sp.diff(e, s))

    def vel(r):
        return vP + d(r, theta) * thetad + d(r, delta) * deltad + omB.cross(r)

    def tensor(k):
        return sp.Matrix([[P[f"I_{k}xx"], 0, P[f"I_{k}xz"]], [0, P[f"I_{k}yy"], 0], [P[f"I_{k}xz"], 0, P[f"I_{k}zz"]]])

    IR = sp.diag(P["I_Rxx"], P["I_Ryy"], P["I_Rxx"])
    IF = sp.diag(P["I_Fxx"], P["I_Fyy"], P["I_Fxx"])
    bodies = [(mR, vel(rRc), RC.T * (omC + thRd * _v(0, 1, 0)), IR),
              (mB, vel(rBc), RC.T * omC, tensor("B")),
              (mH, vel(rHc), RE.T * omF, back * tensor("H") * back.T),
              (mF, vel(rFc), RE.T * (omF + thFd * Fy), back * IF * back.T)]
    n, qd = S.n, S.qd
    Mq = sp.zeros(n, n)
    Mq[0, 0] = Mq[1, 1] = mR + mB + mH + mF
    cps, sps = sp.cos(psi), sp.sin(psi)
    for m, v, om, I in bodies:
        om = om.applyfunc(lambda e: sp.collect(sp.expand(e), qd[2:]))
        vp = [None, None] + [d(v, u) for u in qd[2:]]
        op = [None, None] + [d(om, u) for u in qd[2:]]
        for j in range(2, n):
            if any(e != 0 for e in vp[j]):
                ax, ay = vp[j][0], Ay.dot(vp[j])
                Mq[0, j] += m * (cps * ax - sps * ay)
                Mq[1, j] += m * (sps * ax + cps * ay)
            for k in range(j, n):
                Mq[j, k] += m * vp[j].dot(vp[k]) + op[j].dot(I * op[k])
    half = sp.Rational(1, 2)
    T = sp.Add(*[Mq[j, k] * qd[j] * qd[k] * (half if j == k else 1)
                 for j in range(n) for k in range(j, n) if Mq[j, k] != 0])
    V = -g * (mR * rRc.dot(Az) + mB * rBc.dot(Az) + mH * rHc.dot(Az) + mF * rFc.dot(Az))

    # rolling: the rear material contact point moves with v_P + r_R (θ̇ + θ̇_R) A.x, so
    # v_P = −r_R (θ̇ + θ̇_R) A.x; the front one with v(F_c) + ω_FW × r_Q
    vfor = -rR * (thetad + thRd)
    vQ = (vel(rFc) + (omF + thFd * Fy).cross(rQ)).xreplace({vx: vfor, vy: 0})
    ix = {u: i for i, u in enumerate(qd)}

    def row(e):
        return [sp.S.Zero, sp.S.Zero] + [e.diff(u) for u in qd[2:]]

    rows = [[sp.S.One, sp.S.Zero] + [sp.S.Zero] * (n - 2), [sp.S.Zero, sp.S.One] + [sp.S.Zero] * (n - 2)]
    for r, f in ((rows[0], cps), (rows[1], sps)):
        r[ix[thetad]] = rR * f
        r[ix[thRd]] = rR * f
    # front: the lateral component (along the axle; free of θ̇_F) and the rolling one; their
    # span with the contact condition's differential is that of the horizontal components
    rows += [row(Fy.dot(vQ)), row(Fy.cross(Az).dot(vQ))]
    forces = None
    params = [P[k] for k in BENCHMARK]
    if torques:
        Tphi, Tdel = sp.symbols("T_phi T_delta", real=True)
        forces = {phi: Tphi, delta: Tdel}
        params += [Tphi, Tdel]
    system = MechanicalSystem(S, T, V=V, forces=forces, constraints=Codistribution([OneForm(S, r) for r in rows], S),
                              holonomic=[hol], name="Whipple bicycle")
    frame = _voronets_closed_form(S, hol, rows, rR)
    return MechanicalModel(
        "whipple-bicycle", "Whipple bicycle, Meijaard et al. 2007 benchmark (8 coordinates, 1 holonomic and 4 "
        "rolling constraints)", system, frame, ("x", "y", "psi", "theta", "theta_F"), tuple(params),
        notes="Upright steady motion: phi = delta = theta = 0, phi_dot = delta_dot = 0, theta_R_dot = -v/r_R; "
              "benchmark_matrices() gives MPRS's M, C1, K0, K2.",
        extra={"holonomic": hol, "parameters": P})


def _voronets_closed_form(S: ConfigurationSpace, hol, rows, rR) -> Frame:
    """The Voronets frame of the free coordinates (φ, δ, θ_R): X_s = ∂_s + a_js ∂_j with the
    dependent velocities solved by hand (θ̇ from the contact condition, ψ̇ from the front
    wheel's lateral condition, θ̇_F from its rolling condition, ẋ, ẏ from the rear ones); the coframe is given
    in closed form (:class:`~geonh.Frame` verifies duality)."""
    x, y, psi, phi, delta, theta, thR, thF = S.q
    n = S.n
    free = [3, 4, 6]
    # θ̇ = h_φ φ̇ + h_δ δ̇
    fth = sp.diff(hol, theta)
    h = {3: -sp.diff(hol, phi) / fth, 4: -sp.diff(hol, delta) / fth, 6: sp.S.Zero}

    def eliminate_theta(r):
        return {s: r[s] + r[5] * h[s] for s in free} | {2: r[2], 7: r[7]}

    r0, r1 = eliminate_theta(rows[2]), eliminate_theta(rows[3])
    a = {5: h}
    a[2] = {s: -r0[s] / r0[2] for s in free}                              # ψ̇ (lateral row)
    a[7] = {s: -(r1[s] + r1[2] * a[2][s]) / r1[7] for s in free}          # θ̇_F (rolling row)
    fwd = {s: rR * (h[s] + (1 if s == 6 else 0)) for s in free}          # r_R (θ̇ + θ̇_R)
    a[0] = {s: -sp.cos(psi) * fwd[s] for s in free}
    a[1] = {s: -sp.sin(psi) * fwd[s] for s in free}
    dep = [0, 1, 2, 5, 7]
    C = sp.zeros(n, n)
    B = sp.zeros(n, n)
    for k, s in enumerate(free):
        C[s, k] = 1
        B[k, s] = 1
        for j in dep:
            C[j, k] = a[j][s]
    for k, j in enumerate(dep):
        C[j, 3 + k] = 1
        B[3 + k, j] = 1
        for s in free:
            B[3 + k, s] = -a[j][s]
    names = ["phi_dot", "delta_dot", "theta_R_dot"] + [f"c_{S.q[j].name}" for j in dep]
    return Frame([VectorField(S, list(C[:, k])) for k in range(n)], names=names,
                 coframe=[OneForm(S, list(B[k, :])) for k in range(n)])


# ----------------------------------------------------------------------------------------------
# the benchmark
# ----------------------------------------------------------------------------------------------
def benchmark_parameters(model: MechanicalModel | None = None) -> dict:
    """{parameter symbol: exact value} of MPRS Table 1 (decimals as Rationals, λ = π/10)."""
    P = model.extra["parameters"] if model is not None else _symbols()
    return {P[k]: (v if isinstance(v, sp.Basic) else sp.Rational(v)) for k, v in BENCHMARK.items()}


def benchmark_operating_point(model: MechanicalModel, v) -> dict:
    """The upright steady motion at forward speed v — every coordinate 0, lean and steer rates
    0, θ̇_R = −v/r_R — with the benchmark parameters (and zero lean and steer torques), as an
    operating point for :meth:`~geonh.Equations.linearize` (the other speeds of a multiplier
    form follow from the constraints there)."""
    op = benchmark_parameters(model)
    P = model.extra["parameters"]
    op.update({q: sp.S.Zero for q in model.space.q})
    op.update({"phi_dot": 0, "delta_dot": 0, "theta_R_dot": -expr_of(v, what="speed v") / op[P["r_R"]]})
    op.update({x: sp.S.Zero for x in model.parameters if x.name in ("T_phi", "T_delta")})
    return op


def benchmark_matrices(equations=None, *, model: MechanicalModel | None = None,
                       form: str = "boltzmann-hamel") -> dict:
    """MPRS's M, C1, K0, K2 (and g) from geonh's linearization of the Whipple bicycle.

    Two linearizations of the upright steady motion (:meth:`~geonh.Equations.linearize`, the
    second-order form in q = (φ, δ)), at v = 0 and v = 1 m/s: C(v) = v C1 and
    K(v) = g K0 + v² K2, so C1 = C(1), K0 = K(0)/g, K2 = K(1) − K(0); a third at v = 2 checks
    that structure.  Entries are sympy Floats with PRECISION digits (round-off, below
    10^-(2·PRECISION/3) of a matrix's largest entry, set to 0: :func:`~geonh.kernel.linalg.drop_roundoff`); "B" is the input matrix of f = (T_φ, T_δ).
    ``equations``: equations of :func:`whipple_bicycle` in any form (default: derived in
    ``form`` in the model's frame); ``model``: the model they belong to (built if not given).
    """
    if model is None:
        model = whipple_bicycle()
    if equations is None:
        equations = model.equations(form)
    elif equations.space != model.space:
        raise SpaceMismatchError("the equations are not those of geonh.models.bicycle.whipple_bicycle()")
    P = model.extra["parameters"]
    q = ("phi", "delta")
    out = {}
    for v in (0, 1, 2):
        names = {str(s) for s in model.parameters}
        lin = equations.linearize(benchmark_operating_point(model, v), ignorable="auto",
                                  inputs=[x for x in ("T_phi", "T_delta") if x in names],
                                  dependent=("theta",) + _dependent_speeds(equations), exact=True)
        out[v] = lin.second_order(coordinates=q)
    g = benchmark_parameters(model)[P["g"]]
    M = out[0].M
    C1 = out[1].C
    K0 = out[0].K / g
    K2 = out[1].K - out[0].K
    for check, scale in ((out[2].K - out[0].K - 4 * K2, K2), (out[2].C - 2 * C1, C1), (out[2].M - M, M)):
        if max(abs(e) for e in check) > sp.Float(10) ** -20 * (1 + max(abs(e) for e in scale)):
            raise SelfCheckError("the linearization is not M q'' + v C1 q' + (g K0 + v^2 K2) q")  # pragma: no cover
    # round-off of the differences K(1) − K(0) etc. set to 0 (linalg.drop_roundoff)
    return {"M": drop_roundoff(M), "C1": drop_roundoff(C1), "K0": drop_roundoff(K0), "K2": drop_roundoff(K2), "g": g,
            "B": drop_roundoff(out[0].F)}


def _dependent_speeds(equations) -> tuple:
    names = [u.name for u in equations.u]
    if len(names) == 3:
        return ()
    return tuple(n for n in ("x_dot", "y_dot", "psi_dot", "theta_dot", "theta_F_dot") if n in names)


def _as_mp_matrix(A) -> mpmath.matrix:
    return A if isinstance(A, mpmath.matrix) else \
        mpmath.matrix([[mpmath.mpmathify(A[i, j]) for j in range(A.cols)] for i in range(A.rows)])


def _number(x, what: str):
    """A user's number (mpmath, Python, sympy or a formula string) as an mpmath number."""
    if isinstance(x, (mpmath.mpf, mpmath.mpc)):
        return x
    return to_mp(value_at(expr_of(x, what=what)))


def _benchmark(mats: Mapping) -> dict:
    """The matrices M, C1, K0, K2 (2 x 2, numbers) and g of :func:`benchmark_matrices`, checked
    and converted to mpmath once."""
    mats = as_mapping(mats, "benchmark matrices")
    missing = [k for k in ("M", "C1", "K0", "K2", "g") if k not in mats]
    if missing:
        raise MissingValueError(f"the benchmark matrices lack {missing} (see benchmark_matrices)")
    out = {"g": _number(mats["g"], "g")}
    for k in ("M", "C1", "K0", "K2"):
        A = mats[k] if isinstance(mats[k], mpmath.matrix) else as_matrix(mats[k], what=f"benchmark matrix {k}")
        if (A.rows, A.cols) != (2, 2):
            raise DimensionError(f"benchmark matrix {k} must be 2 x 2, got {A.rows} x {A.cols}")
        out[k] = A if isinstance(A, mpmath.matrix) else \
            mpmath.matrix([[_number(A[i, j], k) for j in range(2)] for i in range(2)])
    return out


def _working_digits(digits) -> int:
    """The decimal digits of the benchmark helpers: ``digits``, or geonh's working precision
    (:func:`geonh.kernel.evaluation.set_precision`, 60 by default) when None — never mpmath's global ``mp.dps``."""
    if digits is None:
        return precision()
    if isinstance(digits, bool) or not isinstance(digits, int) or not 15 <= digits <= 10_000:
        raise ParseError(f"digits must be an integer from 15 to 10000 (or None: geonh's working precision), "
                         f"not {digits!r}")
    return digits


def state_matrix(mats: Mapping, v, *, digits: int | None = None) -> mpmath.matrix:
    """A(v) of the benchmark's lean-steer system, state (φ, δ, φ̇, δ̇), from the matrices of
    :func:`benchmark_matrices`: mpmath numbers with ``digits`` decimal digits (default: geonh's
    working precision, :func:`geonh.kernel.evaluation.set_precision`; mpmath's own ``mp.dps`` plays no part)."""
    with mpmath.workdps(_working_digits(digits)):
        return _state_matrix(_benchmark(mats), _number(v, "speed v"))


def _state_matrix(mats: dict, v) -> mpmath.matrix:
    M = _as_mp_matrix(mats["M"])
    C = _as_mp_matrix(mats["C1"]) * v
    K = _as_mp_matrix(mats["K0"]) * mpmath.mpmathify(mats["g"]) + _as_mp_matrix(mats["K2"]) * v**2
    Mi = mpmath.inverse(M)
    A = mpmath.zeros(4, 4)
    A[0, 2] = A[1, 3] = 1
    lower_K, lower_C = -Mi * K, -Mi * C
    for i in range(2):
        for j in range(2):
            A[2 + i, j] = lower_K[i, j]
            A[2 + i, 2 + j] = lower_C[i, j]
    return A


def eigenvalues_at(mats: Mapping, v, *, digits: int | None = None) -> list:
    """Eigenvalues of the benchmark's lean-steer system at speed v (mpmath, sorted by real part),
    computed with ``digits`` decimal digits (default: geonh's working precision,
    :func:`geonh.kernel.evaluation.set_precision`; mpmath's ``mp.dps`` plays no part)."""
    from ..analysis.linearize import eigenvalues
    with mpmath.workdps(_working_digits(digits)):
        return eigenvalues(state_matrix(mats, v, digits=digits), high_precision=True)


def capsize_speed(mats: Mapping, *, digits: int | None = None):
    """The capsize speed: the real eigenvalue crosses 0 where det(g K0 + v² K2) = 0 (a
    quadratic in v²; the root in the benchmark's stable range, the larger positive one), with
    ``digits`` decimal digits (default: geonh's working precision, :func:`geonh.kernel.evaluation.set_precision`)."""
    with mpmath.workdps(_working_digits(digits)):
        return _capsize(_benchmark(mats))


def _det2(X):
    return X[0, 0] * X[1, 1] - X[0, 1] * X[1, 0]


def _capsize(mats):
    g = mpmath.mpmathify(mats["g"])
    K0, K2 = _as_mp_matrix(mats["K0"]) * g, _as_mp_matrix(mats["K2"])
    # det(K0 + s K2) = a s² + b s + c0 with s = v²
    c0 = _det2(K0)
    a = _det2(K2)
    b = K0[0, 0] * K2[1, 1] + K2[0, 0] * K0[1, 1] - K0[0, 1] * K2[1, 0] - K2[0, 1] * K0[1, 0]
    small = abs(a) <= mpmath.mpf(10) ** -40 * (1 + abs(b) + abs(c0))
    roots = [c0 / -b] if small else list(mpmath.polyroots([a, b, c0], maxsteps=200, extraprec=100))
    vals = sorted(mpmath.sqrt(r) for r in roots if mpmath.im(r) == 0 and mpmath.re(r) > 0)
    return vals[-1]


def _characteristic(mats: dict, v) -> tuple:
    """(a0, a1, a2, a3, a4): det(M s² + v C1 s + g K0 + v² K2) = a0 s⁴ + a1 s³ + a2 s² + a3 s + a4."""
    M = _as_mp_matrix(mats["M"])
    C = _as_mp_matrix(mats["C1"]) * v
    K = _as_mp_matrix(mats["K0"]) * mpmath.mpmathify(mats["g"]) + _as_mp_matrix(mats["K2"]) * v**2

    def d2(X, Y):
        return X[0, 0] * Y[1, 1] + Y[0, 0] * X[1, 1] - X[0, 1] * Y[1, 0] - Y[0, 1] * X[1, 0]
    return _det2(M), d2(M, C), d2(M, K) + _det2(C), d2(C, K), _det2(K)


def _bracket(mats: Mapping, bracket, digits) -> tuple[dict, list]:
    with mpmath.workdps(_working_digits(digits)):
        mats = _benchmark(mats)
        pair = [_number(b, "bracket") for b in as_sequence(bracket, "bracket")]
    if len(pair) != 2:
        raise DimensionError(f"bracket is a pair of speeds, not {len(pair)} values")
    return mats, pair


def weave_speed(mats: Mapping, bracket=(3, 5), *, digits: int | None = None):
    """The weave speed: the oscillatory pair crosses the imaginary axis, where the Hurwitz
    determinant a1 a2 a3 − a0 a3² − a1² a4 of det(M s² + v C1 s + g K0 + v² K2) vanishes
    (found by mpmath's root finder inside ``bracket``), with ``digits`` decimal digits
    (default: geonh's working precision, :func:`geonh.kernel.evaluation.set_precision`).  The weave pair itself
    is born at :func:`weave_onset_speed`."""
    mats, pair = _bracket(mats, bracket, digits)

    def hurwitz(v):
        a0, a1, a2, a3, a4 = _characteristic(mats, v)
        return a1 * a2 * a3 - a0 * a3**2 - a1**2 * a4
    with mpmath.workdps(_working_digits(digits)):
        return mpmath.findroot(hurwitz, tuple(mpmath.mpf(b) for b in pair), solver="anderson")


def _quartic_discriminant(a, b, c, d, e):
    """The discriminant of a s⁴ + b s³ + c s² + d s + e (the classical formula, e.g. the
    Wikipedia article "Quartic function"): > 0 for four distinct real roots or two complex pairs,
    < 0 for two real roots and one complex pair, 0 where two roots meet."""
    return (256 * a**3 * e**3 - 192 * a**2 * b * d * e**2 - 128 * a**2 * c**2 * e**2 + 144 * a**2 * c * d**2 * e
            - 27 * a**2 * d**4 + 144 * a * b**2 * c * e**2 - 6 * a * b**2 * d**2 * e - 80 * a * b * c**2 * d * e
            + 18 * a * b * c * d**3 + 16 * a * c**4 * e - 4 * a * c**3 * d**2 - 27 * b**4 * e**2
            + 18 * b**3 * c * d * e - 4 * b**3 * d**3 - 4 * b**2 * c**3 * e + b**2 * c**2 * d**2)


def weave_onset_speed(mats: Mapping, bracket=(0.1, 3), *, digits: int | None = None):
    """The speed where two real eigenvalues of the lean-steer system meet and become the
    complex weave pair: the zero, inside ``bracket``, of the discriminant of the characteristic
    quartic det(M s² + v C1 s + g K0 + v² K2) (``_quartic_discriminant``: four real roots
    below it, a complex pair above), found by mpmath's root finder with ``digits`` decimal digits
    (default: geonh's working precision, :func:`geonh.kernel.evaluation.set_precision`).  For the benchmark
    bicycle ≈ 0.684 m/s (Meijaard, Papadopoulos, Ruina & Schwab 2007, Proc. R. Soc. A 463,
    1955–1982, §7: the weave mode appears at v_d ≈ 0.684 m/s, and becomes stable at the
    weave speed, :func:`weave_speed`).  A bracket over which the discriminant keeps its sign
    raises :class:`~geonh.errors.InconsistentStateError`."""
    mats, pair = _bracket(mats, bracket, digits)

    def discriminant(v):
        return _quartic_discriminant(*_characteristic(mats, v))
    with mpmath.workdps(_working_digits(digits)):
        lo, hi = (mpmath.mpf(b) for b in pair)
        if discriminant(lo) * discriminant(hi) > 0:
            raise InconsistentStateError(f"no real pair meets between {mpmath.nstr(lo, 6)} and {mpmath.nstr(hi, 6)} "
                                         "m/s (the discriminant of the characteristic polynomial keeps its sign)")
        return mpmath.findroot(discriminant, (lo, hi), solver="anderson")


# ----------------------------------------------------------------------------------------------
# the nonlinear benchmark of Basu-Mandal, Chatterjee & Papadopoulos (2007)
# ----------------------------------------------------------------------------------------------
#: The general state of Basu-Mandal, Chatterjee & Papadopoulos (2007), *Hands-free circular
#: motions of a benchmark bicycle*, Proc. R. Soc. A 463, 1983–2003, Table 1 (benchmark
#: parameters), in their coordinates (see :func:`basu_coordinates`): coordinates, then their
#: rates (suffix ``d``), as the printed decimals.
BASU_MANDAL_STATE: dict[str, str] = {
    "x": "0", "y": "0", "z": "0.2440472102925", "theta": "0", "psi": "0.9501292851472",
    "phi": "3.1257073014894", "psif": "0.2311385135743", "betar": "0", "betaf": "0",
    "xd": "-2.8069345714545", "yd": "-0.1480982396001", "zd": "0.1058778746261", "thetad": "0.7830033527065",
    "psid": "0.6068425835418", "phid": "-0.0119185528069", "psifd": "0.4859824687093",
    "betard": "8.9129896614890", "betafd": "8.0133620584155",
}

_BASU = ("x", "y", "z", "theta", "psi", "phi", "psif", "betar", "betaf")


def basu_coordinates(model: MechanicalModel) -> dict[str, sp.Expr]:
    """The nine coordinates of Basu-Mandal et al. (2007) as functions of geonh's q.

    Derivation.  Basu-Mandal et al. use a ground frame with z up, the rear-wheel centre
    (x, y, z), the rear frame's orientation by a 3-1-3 sequence — θ about the vertical, ψ about
    the line of nodes (the wheel plane makes the angle ψ with the ground: z = r_R sin ψ, upright
    ψ = π/2), φ about the rear axle (upright φ = π) — the steer ψ_f of the front frame
    relative to the rear frame and the wheel rotations β_r, β_f relative to their frames.
    geonh's ground frame (x forward, y right, z down) is theirs turned by π about their y axis:
    P = diag(−1, 1, −1).  Conjugating their rear-frame rotation by P,
    P R_z(θ) R_x(ψ) R_z(φ) P = R_z(−θ) R_x(−ψ) R_z(−φ)
                            = R_z(−θ) R_x(π/2 − ψ) R_y(π − φ) · R_y(−π) R_x(−π/2),
    (R_x(−π/2) R_z(a) = R_y(a) R_x(−π/2)) which is geonh's R_z(ψ_g) R_x(φ_g) R_y(θ_g) times a
    constant relabelling of the body axes: yaw ψ_g = −θ, lean φ_g = π/2 − ψ, pitch
    θ_g = π − φ; their rear axle (body z) is −C.y, so θ_R = −β_r, and likewise θ_F = −β_f;
    their steering axis points up the head tube, MPRS's down, so δ = −ψ_f.  The rear-wheel
    centre is the contact point (x_g, y_g) plus r_R (−sin ψ_g sin φ_g, cos ψ_g sin φ_g, −cos φ_g)
    in geonh's frame; P gives their (x, y, z) = (−c_x, c_y, −c_z) (up to a horizontal
    translation, which no rate sees).

    Check.  The map is confirmed by the published state itself (tests/models/test_bicycle.py): mapped
    into geonh's coordinates, Table 1 satisfies the front-contact condition, z = r_R cos φ_g,
    its rate, and the four rolling conditions to the rounding of the printed digits
    (|residual| ≤ 5·10⁻¹⁴), while a wrong sign of the steer, the yaw rate, the lean rate or
    the rear wheel rate leaves residuals of 0.3 or more; and the accelerations it gives agree
    with the published ones (:func:`basu_mandal_accelerations`, to 10⁻¹²).
    """
    S = model.space
    x, y, psi, phi, delta, theta, thR, thF = S.q
    rR = model.extra["parameters"]["r_R"]
    return {"x": -(x - rR * sp.sin(psi) * sp.sin(phi)), "y": y + rR * sp.cos(psi) * sp.sin(phi),
            "z": rR * sp.cos(phi), "theta": -psi, "psi": sp.pi / 2 - phi, "phi": sp.pi - theta,
            "psif": -delta, "betar": -thR, "betaf": -thF}


def basu_to_geonh(model: MechanicalModel, basu: Mapping) -> dict:
    """geonh's coordinates and rates {q: value, q̇: value} (exact sympy numbers: π, rationals)
    of a state in the coordinates of Basu-Mandal et al. (keys as :data:`BASU_MANDAL_STATE`;
    values numbers or decimal strings), by the inverse of :func:`basu_coordinates`.  Their z
    and ż are not used (z = r_R cos φ_g is a consequence; :func:`constraint_residuals`)."""
    S = model.space
    x, y, psi, phi, delta, theta, thR, thF = S.q
    b = {k: as_expr(v, what=f"Basu-Mandal value {k}") for k, v in as_mapping(basu, "basu").items()}
    missing = [k for k in BASU_MANDAL_STATE if k not in b and k not in ("z", "zd")]
    if missing:
        raise MissingValueError(f"the Basu-Mandal state lacks {missing}")
    rR = model.extra["parameters"]["r_R"]
    q = {psi: -b["theta"], phi: sp.pi / 2 - b["psi"], theta: sp.pi - b["phi"], delta: -b["psif"],
         thR: -b["betar"], thF: -b["betaf"]}
    qd = {psi: -b["thetad"], phi: -b["psid"], theta: -b["phid"], delta: -b["psifd"], thR: -b["betard"],
          thF: -b["betafd"]}
    # contact = centre − r_R (−sψ sφ, cψ sφ); centre = (−x_B, y_B)
    off = (-rR * sp.sin(psi) * sp.sin(phi), rR * sp.cos(psi) * sp.sin(phi))
    for k, (c, cd) in enumerate(((-b["x"], -b["xd"]), (b["y"], b["yd"]))):
        q[(x, y)[k]] = c - off[k].xreplace(q)
        qd[(x, y)[k]] = cd - sum(sp.diff(off[k], s) * qd[s] for s in (psi, phi)).xreplace(q)
    out = {s: q[s] for s in S.q}
    out.update({S.qd[i]: qd[s] for i, s in enumerate(S.q)})
    return {k: v.xreplace(benchmark_parameters(model)) for k, v in out.items()}


def constraint_residuals(model: MechanicalModel, values: Mapping) -> list:
    """Residuals of the constraints at a state {q, q̇} with the benchmark parameters (mpmath,
    PRECISION digits): the front-contact condition f, the rows A q̇ of the velocity constraints
    (four rolling conditions and df/dt)."""
    par = benchmark_parameters(model)
    A, _ = model.system.constraint_matrix
    vals = dict(par) | as_values(values, model.space.state_symbols, what="state")
    missing = [s for s in model.space.q + model.space.qd if s not in vals]
    if missing:
        raise MissingValueError(f"no value given for {[s.name for s in missing]}")
    with mpmath.workdps(precision()):
        out = [mpmath.mpmathify(sp.N(model.extra["holonomic"].xreplace(vals), precision()))]
        qd = sp.Matrix([vals[s] for s in model.space.qd])
        out += [mpmath.mpmathify(sp.N(e.xreplace(vals), precision())) for e in (A * qd)]
    return out


def basu_mandal_state(model: MechanicalModel, basu: Mapping | None = None, *, on_constraints: bool = True) -> dict:
    """The state of Basu-Mandal et al.'s Table 1 (or ``basu``) in geonh's coordinates with the
    benchmark parameters and zero torques, ready for :meth:`~geonh.Equations.accelerations`:
    {parameter, q, q̇: value}.

    ``on_constraints=True``: the pitch θ is solved from the front-contact condition at
    PRECISION digits (Newton from the published value) and the dependent rates (ẋ, ẏ, ψ̇, θ̇,
    θ̇_F) follow from the model's constraints, given the free rates φ̇, δ̇, θ̇_R; so the state
    lies on the constraints to 60 digits.  ``False``: every value is the published one, mapped
    (:func:`basu_to_geonh`) — the state on which :func:`constraint_residuals` measures the
    published digits."""
    vals = basu_to_geonh(model, BASU_MANDAL_STATE if basu is None else basu)
    out = benchmark_parameters(model)
    out.update({s: 0 for s in model.parameters if s.name in ("T_phi", "T_delta")})
    if not on_constraints:
        return out | vals
    S = model.space
    theta = S.q[5]
    f = model.extra["holonomic"].xreplace(out).xreplace({s: v for s, v in vals.items() if s != theta})
    fd = sp.diff(f, theta)
    with mpmath.workdps(precision() + 10):
        th = mpmath.findroot(lambda t: mpmath.mpmathify(sp.N(f.xreplace({theta: sp.Float(t, precision() + 10)}),
                                                              precision() + 10)),
                             mpmath.mpmathify(sp.N(vals[theta], precision() + 10)),
                             df=lambda t: mpmath.mpmathify(sp.N(fd.xreplace({theta: sp.Float(t, precision() + 10)}),
                                                                precision() + 10)),
                             solver="newton", tol=mpmath.mpf(10) ** (-2 * precision()))
    vals[theta] = sp.Float(th, precision())
    frame = cast(Frame, model.frame)  # whipple_bicycle's models carry their frame
    # q̇ = K(q, u) for the frame's speeds (φ̇, δ̇, θ̇_R): the frame's first three fields
    u = [vals[S.qd[i]] for i in (3, 4, 6)]
    with mpmath.workdps(precision()):
        for i, s in enumerate(S.qd):
            e = sum((frame.fields[k].components[i] * u[k] for k in range(3)), sp.S.Zero)
            vals[s] = sp.Float(sp.N(sympy_of(e).xreplace(out).xreplace({q: vals[q] for q in S.q}), precision()),
                               precision())
    return out | vals


#: Table 1 of Basu-Mandal et al. (2007): the second derivatives of their coordinates at
#: :data:`BASU_MANDAL_STATE` (benchmark parameters, no torques), as printed.
BASU_MANDAL_ACCELERATIONS: dict[str, str] = {
    "x": "-0.5041626315047", "y": "-0.3449706619454", "z": "-1.4604528332980", "theta": "0.8353281706379",
    "psi": "-7.8555281128244", "phi": "0.1205543897884", "psif": "-4.6198904039403",
    "betar": "1.8472554144217", "betaf": "2.4548072904550",
}


def basu_mandal_accelerations(model: MechanicalModel, eqs=None, basu: Mapping | None = None) -> dict:
    """The second derivatives of Basu-Mandal et al.'s nine coordinates at their Table 1 state
    (or ``basu``), computed by geonh: q̈ from ``eqs`` (default: the model's Boltzmann–Hamel
    equations; :meth:`~geonh.Equations.accelerations`, PRECISION digits) at
    :func:`basu_mandal_state`, mapped by the chain rule through :func:`basu_coordinates`,
    c̈ = ∂c/∂q · q̈ + q̇ᵀ ∂²c/∂q² q̇.  Returns {name: sympy Float}."""
    eqs = model.equations("boltzmann-hamel") if eqs is None else eqs
    state = basu_mandal_state(model, basu)
    qdd = eqs.accelerations(state, exact=True)
    S = model.space
    out = {}
    for name, c in basu_coordinates(model).items():
        grad = [sp.diff(c, q) for q in S.q]
        first = sum((g * qd for g, qd in zip(grad, S.qd)), sp.S.Zero)
        second = sum((sp.diff(first, q) * qd for q, qd in zip(S.q, S.qd)), sp.S.Zero)
        value = second.xreplace(state) + sum((g.xreplace(state) * a for g, a in zip(grad, qdd)), sp.S.Zero)
        out[name] = sp.Float(sp.N(value, precision()), precision())
    return out
