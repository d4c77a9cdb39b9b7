"""The equation engine: every form agrees with Lagrange-with-multipliers, on random systems.

Random systems: T = ½ q̇ᵀ(D + NᵀN)q̇ with D a positive constant diagonal and N a random
polynomial matrix (so T is positive definite by construction), random polynomial forces and
potential, one or two random linear constraints (optionally rheonomic), and random adapted
frames obtained from the Voronets frame by a block-triangular change (which keeps it adapted).
"""
import random

import pytest
import sympy as sp
from hypothesis import given, settings, strategies as st

import geonh as g
from geonh import equations as E
from geonh.numerics import first_order_function
from geonh import transposition as T
from geonh.analysis.certificate import same_motion
from geonh.systems.mechanical import MechanicalSystem


def _poly(rng, syms, deg=1, k=2):
    e = sp.Integer(rng.randint(-2, 2))
    for _ in range(k):
        mono = sp.Integer(rng.choice([-2, -1, 1, 2]))
        for _ in range(rng.randint(1, deg)):
            mono *= rng.choice(syms)
        e += mono
    return e


def random_system(seed, n=3, r=1, time=False):
    rng = random.Random(seed)
    S = g.ConfigurationSpace([f"q{i}" for i in range(n)], time=time)
    q, qd = S.q, S.qd
    N = sp.Matrix(n, n, lambda i, j: _poly(rng, q, 1, 1) if rng.random() < 0.5 else 0)
    D = sp.diag(*[rng.randint(1, 3) for _ in range(n)])
    M = D + N.T * N
    v = sp.Matrix(qd)
    T = (v.T * M * v)[0] / 2
    if time:
        T += qd[0] * S.t / 3  # a gyroscopic, time-dependent linear term
    Q = [_poly(rng, q, 1, 1) for _ in range(n)]
    V = _poly(rng, q, 2, 2)
    cons = []
    for k in range(r):
        row = [_poly(rng, q, 1, 1) for _ in range(n)]
        row[n - 1 - k] = rng.choice([1, 2, -1])  # solvable for a dependent velocity
        c = sum(a * b for a, b in zip(row, qd))
        if time:
            c += S.t * q[0] / 2
        cons.append(c)
    return MechanicalSystem(S, T, V=V, forces=Q, constraints=cons)


def random_adapted_frame(system, seed):
    rng = random.Random(seed + 7)
    F = T.voronets_frame(system)
    S = system.space
    N, n, m = S.dim, S.n, system.dof
    A = sp.eye(N)
    for i in range(N):
        for j in range(i + 1, N):
            if j >= n and i < n:
                continue  # the time field keeps θ^t = dt
            if i < m <= j or (i < m and j < m) or (m <= i < n and m <= j < n):
                if rng.random() < 0.6:
                    A[i, j] = _poly(rng, list(S.q), 1, 1)
    return F.change(A)


@pytest.mark.slow
@settings(deadline=None, max_examples=6)
@given(st.integers(0, 10_000), st.booleans())
def test_all_forms_agree_on_random_systems(seed, rheonomic):
    system = random_system(seed, n=3, r=1, time=rheonomic)
    ref = E.lagrange(system)
    frame = random_adapted_frame(system, seed)
    forms = [f(system) for f in E.FORMS.values() if f.applies(system)]
    forms += [E.boltzmann_hamel(system, frame), E.maggi(system, frame),
              E.gibbs_appell(system, frame), E.kane(system, frame)]
    for eq in forms:
        cert = same_motion(ref, eq)
        assert cert.same, (eq.form, str(cert))


@pytest.mark.slow
@settings(deadline=None, max_examples=3)
@given(st.integers(0, 10_000))
def test_two_constraints_four_coordinates(seed):
    system = random_system(seed, n=4, r=2)
    ref = E.lagrange(system)
    for eq in (E.boltzmann_hamel(system, random_adapted_frame(system, seed)), E.voronets(system),
               E.gibbs_appell(system), E.tzenoff(system, 1)):
        assert same_motion(ref, eq).same, eq.form


def test_certificate_detects_a_different_motion():
    system = random_system(3)
    other = MechanicalSystem(system.space, system.T * 2, V=system.V, forces=system.Q,
                             constraints=system.constraints)
    assert not same_motion(E.lagrange(system), E.lagrange(other)).same
    assert not same_motion(E.lagrange(system), E.boltzmann_hamel(other)).same


@pytest.mark.parametrize("rheonomic", [False, True])
def test_boltzmann_hamel_transposition_term_is_hamel_beta(rheonomic):
    """The engine equals Hamel's (19') built from Frame.hamel_beta:
    d/dt ∂T*/∂ω^r + β_{r,b,d} ω^b ∂T*/∂ω^d − X_r(T*) = K_r, constraints ω^α = 0 and ω^t = 1
    substituted after differentiation; with time this contains Hamel's (V) term
    β_{i,n+k+1,n+m} J_{n+m} (the time index b = t)."""
    system = random_system(11, time=rheonomic)
    frame = random_adapted_frame(system, 11)
    S = system.space
    n, N, m = S.n, S.dim, system.dof
    w = sp.symbols(f"w0:{N}", real=True)
    qdot = frame.C * sp.Matrix(w)
    Tstar = system.T.xreplace(dict(zip(S.qd, qdot[:n, :])))
    if rheonomic:
        Tstar = Tstar.xreplace({w[N - 1]: 1})
    beta = frame.hamel_beta()  # beta[a, b, d] = c^d_ab
    eq = E.boltzmann_hamel(system, frame)
    on = {w[a]: (eq.u[a] if a < m else (1 if a == n else 0)) for a in range(N)}
    K = eq.kinematics
    wv = [w[b] if b < n else 1 for b in range(N)]
    for r in range(m):
        J = [sp.diff(Tstar, w[d]) for d in range(n)]
        dJ = system.space.total_derivative(J[r].xreplace(on), along=K, speeds=eq.u, rates=eq.ud)
        cterm = sum(beta[r, b, d] * wv[b] * J[d] for b in range(N) for d in range(n))
        XT = sum(frame.C[i, r] * sp.diff(Tstar, S.coords[i]) for i in range(N))
        Kr = sum(frame.C[i, r] * system.Q[i] for i in range(n)).xreplace(dict(zip(S.qd, K)))
        printed = dJ + cterm.xreplace(on) - XT.xreplace(on) - Kr
        assert g.is_zero(sp.expand(printed - eq.residuals[r]))


def test_voronets_printed_form_corrected():
    """Seed 004 eq. (2.7) with the missing −∂T°/∂q_l restored and (∂T/∂q̇_j)° in the B term:
    d/dt ∂T°/∂q̇_l − ∂T°/∂q_l − a_jl ∂T°/∂q_j − B^j_rl (∂T/∂q̇_j)° q̇_r = Π_l."""
    system = random_system(5, n=3, r=1)
    S = system.space
    free, dep, a, a0 = T.solve_constraints(system)
    eq = E.voronets(system)
    qd = S.qd
    K = list(eq.kinematics)
    to_u = dict(zip([qd[s] for s in free], eq.u))
    Kq = list(qd)
    for k, j in enumerate(dep):
        Kq[j] = sum(a[k, c] * qd[s] for c, s in enumerate(free))
    T0 = system.T.xreplace(dict(zip(qd, Kq)))
    pj = {j: sp.diff(system.T, qd[j]).xreplace(dict(zip(qd, Kq))) for j in dep}

    def D(expr, s):  # ∂_s + a_js ∂_j on functions of q
        c = free.index(s)
        return sp.diff(expr, S.q[s]) + sum(a[k, c] * sp.diff(expr, S.q[j]) for k, j in enumerate(dep))

    for c, l in enumerate(free):
        lhs = system.space.total_derivative(sp.diff(T0, qd[l]).xreplace(to_u), along=K, speeds=eq.u, rates=eq.ud)
        lhs -= sp.diff(T0, S.q[l]).xreplace(to_u)
        lhs -= sum(a[k, c] * sp.diff(T0, S.q[j]) for k, j in enumerate(dep)).xreplace(to_u)
        for k, j in enumerate(dep):
            for cr, r_ in enumerate(free):
                B = D(a[k, c], r_) - D(a[k, cr], l)
                lhs -= (B * pj[j] * qd[r_]).xreplace(to_u)
        Pi = (system.Q[l] + sum(a[k, c] * system.Q[j] for k, j in enumerate(dep))).xreplace(dict(zip(qd, K)))
        assert g.is_zero(sp.expand(lhs - Pi - eq.residuals[c]))


def test_classic_error_is_never_made():
    """Substituting the constraints into T before differentiating changes the equations."""
    system = random_system(2)
    S = system.space
    free, dep, a, a0 = T.solve_constraints(system)
    Kq = list(S.qd)
    for k, j in enumerate(dep):
        Kq[j] = sum(a[k, c] * S.qd[s] for c, s in enumerate(free))
    T_naive = system.T.xreplace(dict(zip(S.qd, Kq)))
    eq = E.voronets(system)
    # naive Lagrange equations of T° in the free coordinates (no correction term)
    to_u = dict(zip([S.qd[s] for s in free], eq.u))
    naive = []
    for c, l in enumerate(free):
        e = system.space.total_derivative(sp.diff(T_naive, S.qd[l]).xreplace(to_u), along=eq.kinematics, speeds=eq.u, rates=eq.ud)
        e -= sp.diff(T_naive, S.q[l]).xreplace(to_u)
        e -= (system.Q[l] + sum(a[k, c] * system.Q[j] for k, j in enumerate(dep))).xreplace(
            dict(zip(S.qd, eq.kinematics)))
        naive.append(e)
    wrong = E.Equations("naive", system, eq.u, eq.ud, eq.kinematics, eq.speeds, naive)
    ref = E.lagrange(system)
    assert same_motion(ref, eq).same
    assert not same_motion(ref, wrong).same
    # the naive Hamilton principle (geonh.equations.hamilton, δq_j = a_js δq_s kept in δT°) is a second,
    # different version of the error when T depends on the dependent coordinates
    from geonh.equations.hamilton import hamilton_equations
    naive_h = hamilton_equations(system, "naive", dependent=[system.space.q[j] for j in dep])
    assert not same_motion(ref, naive_h).same


def test_frame_not_adapted_is_refused():
    system = random_system(4)
    with pytest.raises(g.NotAdaptedError):
        E.boltzmann_hamel(system, g.Frame.coordinate(system.space))


def test_rheonomic_frame_needs_dt_last():
    system = random_system(4, time=True)
    F = T.voronets_frame(system)
    n = system.space.n
    bad = [F.coframe[i] for i in range(n)] + [F.coframe[n] + F.coframe[0]]
    with pytest.raises(g.NotAdaptedError, match="dt"):
        E.boltzmann_hamel(system, g.Frame.from_coframe(bad))


def test_dependent_choice_must_be_solvable():
    S = g.ConfigurationSpace("x y z")
    x, y, z = S.q
    xd, yd, zd = S.qd
    system = MechanicalSystem(S, (xd**2 + yd**2 + zd**2) / 2, constraints=[zd - y * xd])
    with pytest.raises(g.SingularMapError):
        E.voronets(system, dependent=["y"])
    assert E.voronets(system, dependent=["z"]).u == (sp.Symbol("x_dot", real=True), sp.Symbol("y_dot", real=True))


def test_numeric_rhs_matches_exact_accelerations():
    system = random_system(8)
    eq = E.boltzmann_hamel(system)
    f = first_order_function(eq)
    vals = {s: sp.Rational(1, 3) + i for i, s in enumerate(system.space.q)}
    y = [float(vals[s]) for s in system.space.q] + [0.5, -0.25]
    out = f(0.0, y)
    exact = eq.solve_point({**vals, eq.u[0]: sp.Rational(1, 2), eq.u[1]: sp.Rational(-1, 4)})
    assert abs(out[-2] - float(exact[0])) < 1e-9 and abs(out[-1] - float(exact[1])) < 1e-9


@pytest.mark.slow
@settings(deadline=None, max_examples=4)
@given(st.integers(0, 10_000), st.booleans())
def test_neimark_fufaev_every_k_agrees(seed, rheonomic):
    system = random_system(seed, n=4, r=2, time=rheonomic)
    ref = E.lagrange(system)
    for k in range(0, 3):
        eq = E.neimark_fufaev(system, k)
        assert same_motion(ref, eq).same, (k, str(same_motion(ref, eq)))


def test_neimark_fufaev_extremes_are_hamel_and_voronets():
    """k = 0 with π = q gives exactly Voronets's equations; k = n − m the Boltzmann–Hamel ones."""
    system = random_system(21, n=3, r=1)
    v = E.voronets(system)
    nf0 = E.neimark_fufaev(system, 0)
    for a, b in zip(v.residuals, nf0.residuals):
        assert g.is_zero(sp.expand(a - b))
    assert same_motion(E.boltzmann_hamel(system), E.neimark_fufaev(system, 1)).same


def test_neimark_fufaev_k_out_of_range():
    system = random_system(1)
    with pytest.raises(g.DimensionError, match="k must satisfy"):
        E.neimark_fufaev(system, 2)


def _chaplygin_system(seed):
    rng = random.Random(seed)
    S = g.ConfigurationSpace("q0 q1 q2")
    q0, q1, q2 = S.q
    v = sp.Matrix(S.qd)
    N = sp.Matrix(3, 3, lambda i, j: _poly(rng, [q0, q1], 1, 1) if rng.random() < 0.5 else 0)
    M = sp.diag(1, 2, 1) + N.T * N
    T = (v.T * M * v)[0] / 2
    a0, a1 = _poly(rng, [q0, q1], 1, 2), _poly(rng, [q0, q1], 1, 2)
    cons = [S.qd[2] - a0 * S.qd[0] - a1 * S.qd[1]]
    return MechanicalSystem(S, T, forces=[_poly(rng, [q0, q1]), 0, 0], constraints=cons), (a0, a1)


@pytest.mark.slow
@settings(deadline=None, max_examples=4)
@given(st.integers(0, 10_000))
def test_chaplygin_equations_close_in_free_coordinates(seed):
    """Chaplygin's classical form: d/dt ∂T°/∂q̇_l − ∂T°/∂q_l − (∂T/∂q̇_j)° (∂_r a_jl − ∂_l a_jr) q̇_r = Π_l,
    and the equations do not contain the cyclic coordinate."""
    system, (a0, a1) = _chaplygin_system(seed)
    S = system.space
    assert E.is_chaplygin(system)
    eq = E.chaplygin(system)
    assert eq.reduced_coordinates == S.q[:2]
    q2 = S.q[2]
    assert all(q2 not in e.free_symbols for e in list(eq.mass_matrix) + list(eq.forcing))
    a = [a0, a1]
    qd = S.qd
    sub = {qd[2]: a0 * qd[0] + a1 * qd[1]}
    T0 = system.T.xreplace(sub)
    pj = sp.diff(system.T, qd[2]).xreplace(sub)
    to_u = dict(zip(qd[:2], eq.u))
    for l in range(2):
        e = system.space.total_derivative(sp.diff(T0, qd[l]).xreplace(to_u), along=eq.kinematics, speeds=eq.u, rates=eq.ud)
        e -= sp.diff(T0, S.q[l]).xreplace(to_u)
        e -= sum((sp.diff(a[l], S.q[r]) - sp.diff(a[r], S.q[l])) * pj * qd[r] for r in range(2)).xreplace(to_u)
        e -= (system.Q[l] + a[l] * system.Q[2])
        assert g.is_zero(sp.expand(e - eq.residuals[l]))


def test_not_chaplygin_gives_a_reason():
    system, _ = _chaplygin_system(3)
    S = system.space
    T = system.T + S.q[2] ** 2 * S.qd[0] ** 2
    other = MechanicalSystem(S, T, constraints=system.constraints)
    assert not E.is_chaplygin(other)
    with pytest.raises(g.NotAdaptedError, match="kinetic energy"):
        E.chaplygin(other)
