"""Verdicts do not depend on the backend (geonh issue 20, "decide a verdict once and carry it").

Rank, independence, zero and definiteness decisions give the same answer on the symengine
and the sympy backend: the fast route proves what it returns or defers to the reference
route (generic_point.regular_pivot_order / generic_rank), a refusal always states the rank
generic_rank finds, functions of time are sampled as symbols, and the backend choice is
scoped to a thread / asyncio task.  Exact examples from the issue first, then variations,
then property tests over random dependent and independent frames, distributions,
codistributions, constraints and kinetic energies whose structure hides behind
trigonometric identities and unexpanded products and quotients."""
import asyncio
import random
import re
import threading

import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from geonh.errors import DependentFieldsError, NotPositiveDefiniteError, RankError, SingularMapError
from geonh.kernel import backend as be
from geonh.kernel import generic_point as gp
from geonh.kernel import linalg
from geonh.kernel.distributions import Codistribution, Distribution
from geonh.kernel.fields import VectorField
from geonh.kernel.forms import OneForm
from geonh.kernel.frames import Frame
from geonh.kernel.generic_point import generic_rank, is_zero
from geonh.kernel.space import ConfigurationSpace
from geonh.systems import MechanicalSystem
from geonh.testing import strategies as gst

needs_symengine = pytest.mark.skipif(not be.SYMENGINE_AVAILABLE, reason="symengine not installed")
BACKENDS = ("symengine", "sympy")


def _outcome(fn, backend):
    """(error class name or "ok", the rank a refusal states or None, the result)."""
    with be.using_backend(backend):
        try:
            out = fn()
        except (DependentFieldsError, SingularMapError, RankError, NotPositiveDefiniteError) as exc:
            m = re.search(r"rank (\d+)", str(exc))
            return type(exc).__name__, int(m.group(1)) if m else None, str(exc)
    return "ok", None, out


def _same_verdict(fn):
    """Run ``fn`` on both backends; both outcomes (error class and stated rank) must agree."""
    a, b = (_outcome(fn, name) for name in BACKENDS)
    assert a[:2] == b[:2], (a, b)
    return a, b


def _finite(M) -> bool:
    return not any(e.has(sp.zoo, sp.nan, sp.oo, -sp.oo) for e in M)


def _states_no_false_rank(message: str, n: int) -> None:
    """A refusal never says "rank r < r"."""
    m = re.search(r"rank (\d+) < (\d+)", message)
    if m:
        assert int(m.group(1)) < int(m.group(2)) == n


# -- the examples of the issue ----------------------------------------------------------------------
@needs_symengine
def test_issue_example_third_field_a_function_combination_is_refused_on_both_backends():
    S = ConfigurationSpace("x y z")
    x, y, z = S.coords
    X1, X2 = VectorField(S, [1, 0, z]), VectorField(S, [0, 1, x])
    X3 = sp.sin(x) * X1 + X2                                   # X3 = sin(x)·X1 + X2
    for backend in BACKENDS:
        with be.using_backend(backend), pytest.raises(DependentFieldsError, match=r"rank 2\)"):
            Frame([X1, X2, X3])
    # the same matrix as a coframe, and through the backend's own primitives
    forms = [OneForm(S, list(X.components)) for X in (X1, X2, X3)]
    for backend in BACKENDS:
        with be.using_backend(backend):
            with pytest.raises(SingularMapError, match=r"rank 2\)"):
                Frame.from_coframe(forms)
            C = be.to_native(sp.Matrix([list(X.components) for X in (X1, X2, X3)]).T)
            for call in (lambda: be.inverse(C, "C"), lambda: be.lu_inverse(C, what="C")):
                with pytest.raises(SingularMapError, match=r"rank 2 < 3"):
                    call()


@needs_symengine
def test_issue_example_hidden_constant_factor_is_refused_on_both_backends():
    S = ConfigurationSpace("x y")
    x, y = S.coords
    k = sp.sin(x) ** 2 + sp.cos(x) ** 2
    fields = [VectorField(S, [1, y]), VectorField(S, [k, k * y])]
    (name, rank, _), _ = _same_verdict(lambda: Frame(fields))
    assert (name, rank) == ("DependentFieldsError", 1)


@needs_symengine
@pytest.mark.parametrize("columns", [
    lambda x, y: ([1, y], [sp.sin(x) ** 2 + sp.cos(x) ** 2, y]),        # det y − y·k: not 0 in symengine
    lambda x, y: ([sp.sin(2 * x), y * sp.sin(2 * x)], [2 * sp.sin(x) * sp.cos(x), 2 * y * sp.sin(x) * sp.cos(x)]),
    lambda x, y: ([x + 1, (x + 1) * y], [(x ** 2 - 1) / (x - 1), y * (x + 1)]),       # a quotient that cancels
    lambda x, y: ([sp.cos(2 * x), y * sp.cos(2 * x)], [sp.cos(x) ** 2 - sp.sin(x) ** 2, y * (1 - 2 * sp.sin(x) ** 2)]),
    lambda x, y: ([sp.exp(x), sp.sin(y)], [sp.exp(x) * (sp.sin(y) ** 2 + sp.cos(y) ** 2), sp.sin(y) * sp.tan(x) / sp.tan(x)]),
], ids=["k", "double-angle", "quotient", "cos2x", "exp-tan"])
def test_variations_hidden_dependence_refused_with_the_generic_rank(columns):
    S = ConfigurationSpace("x y")
    x, y = S.coords
    fields = [VectorField(S, list(c)) for c in columns(x, y)]
    C = sp.Matrix([X.components for X in fields]).T
    assert generic_rank(C) == 1
    (name, rank, _), _ = _same_verdict(lambda: Frame(fields))
    assert (name, rank) == ("DependentFieldsError", 1)
    for backend in BACKENDS:
        with be.using_backend(backend):
            for call in (lambda: be.inverse(be.to_native(C), "C"), lambda: be.lu_inverse(be.to_native(C), what="C"),
                         lambda: be.lu_solve(be.to_native(C), be.to_native(sp.ones(2, 1)), what="C")):
                with pytest.raises(SingularMapError, match=r"rank 1 < 2"):
                    call()


def test_sympy_inverse_no_longer_divides_by_a_hidden_zero_determinant():
    x, y = sp.symbols("x y", real=True)
    M = sp.Matrix([[1, sp.sin(x) ** 2 + sp.cos(x) ** 2], [y, y]])   # det = y − y(sin² + cos²) ≡ 0
    with pytest.raises(SingularMapError, match=r"rank 1 < 2"):
        gp.inverse(M, "M")
    with pytest.raises(SingularMapError, match=r"rank 1 < 2"):
        gp.lu_solve(M, sp.eye(2), what="M")


@needs_symengine
def test_structure_coefficients_never_come_from_a_dependent_frame():
    S = ConfigurationSpace("x y")
    x, y = S.coords
    k = sp.sin(x) ** 2 + sp.cos(x) ** 2
    fields = [VectorField(S, [1, y]), VectorField(S, [k, k * y])]
    with be.using_backend("symengine"):
        with pytest.raises(DependentFieldsError):
            Frame(fields).structure_coefficients()
    # an independent frame with the same disguise is accepted, with a finite inverse, on both
    good = [VectorField(S, [1, y]), VectorField(S, [k, k * y + k])]
    B = {}
    for backend in BACKENDS:
        with be.using_backend(backend):
            F = Frame(good)
            B[backend] = F.B
            assert _finite(F.B) and _finite(sp.flatten(F.structure_coefficients().tolist()))
    assert all(is_zero(e) for e in B["symengine"] - B["sympy"])


# -- the fast route defers, never returns what it cannot prove ----------------------------------------
@needs_symengine
def test_a_structurally_zero_pivot_is_redecided_not_returned():
    T = be.Translation()
    for M in (sp.Matrix([[0, 1], [1, 0]]), sp.Matrix([[1, 1, 0], [1, 1, 1], [0, 1, 1]])):
        n = M.rows
        # a wrong row order (pivot 0 at once, or 1 − 1 after one step) must not give zoo
        X = T.to_sympy(be.lu_solve(T.to_symengine(M), be.se.eye(n), order=list(range(n))))
        assert _finite(X) and X * M == sp.eye(n)
    x = sp.Symbol("x", real=True)
    S = sp.Matrix([[1, x], [1, x]])
    with pytest.raises(SingularMapError, match=r"rank 1 < 2"):
        be.lu_solve(T.to_symengine(S), be.se.eye(2), order=[0, 1])


@needs_symengine
def test_no_pivots_on_the_fast_route_defers_to_the_generic_rank(monkeypatch):
    x, y = sp.symbols("x y", real=True)
    regular = sp.Matrix([[sp.sin(x), y], [1, sp.cos(x)]])
    singular = sp.Matrix([[sp.sin(x), y], [sp.sin(x) * sp.cos(x), y * sp.cos(x)]])
    monkeypatch.setattr(be, "generic_pivot_order", lambda M, symbols=None: None)
    T = be.Translation()
    inv = T.to_sympy(be.lu_inverse(T.to_symengine(regular)))
    assert all(is_zero(e) for e in inv * regular - sp.eye(2))
    inv = T.to_sympy(be.inverse(T.to_symengine(regular)))
    assert all(is_zero(e) for e in inv * regular - sp.eye(2))
    for call in (be.lu_inverse, be.inverse):
        with pytest.raises(SingularMapError, match=r"rank 1 < 2"):
            call(T.to_symengine(singular))


def test_full_generic_rank_is_always_solved_even_without_numeric_pivots(monkeypatch):
    """generic_rank says full rank: the solve finds pivots (or eliminates with is_zero), it
    never refuses with "rank n < n"."""
    x, y = sp.symbols("x y", real=True)
    M = sp.Matrix([[sp.sin(x), y], [1, sp.cos(x)]])
    monkeypatch.setattr(gp, "pivot_rows", lambda M, trials=gp.TRIALS: None)
    assert gp.regular_pivot_order(M) is not None
    monkeypatch.setattr(linalg, "pivot_order_at", lambda exact, rows: None)  # the one pivot rule
    assert gp.regular_pivot_order(M) is None
    sol = gp.lu_solve(M, sp.Matrix([1, 2]))
    assert all(is_zero(e) for e in M * sol - sp.Matrix([1, 2]))


# -- functions of time (dynamicsymbols) ----------------------------------------------------------------
def _rolling_disc():
    """sympy's rolling disc with body-rate speeds (sympy docs, KanesMethod examples)."""
    from sympy.physics.mechanics import KanesMethod, Point, ReferenceFrame, RigidBody, dynamicsymbols, inertia
    q1, q2, q3 = dynamicsymbols("q1 q2 q3")
    u1, u2, u3 = dynamicsymbols("u1 u2 u3")
    r, m, g = sp.symbols("r m g", positive=True)
    N = ReferenceFrame("N")
    Y = N.orientnew("Y", "Axis", [q1, N.z])
    L = Y.orientnew("L", "Axis", [q2, Y.x])
    R = L.orientnew("R", "Axis", [q3, L.y])
    w_qd = R.ang_vel_in(N)
    R.set_ang_vel(N, u1 * L.x + u2 * L.y + u3 * L.z)
    C = Point("C")
    C.set_vel(N, 0)
    Dmc = C.locatenew("Dmc", r * L.z)
    Dmc.v2pt_theory(C, N, R)
    inert = inertia(L, m / 4 * r ** 2, m / 2 * r ** 2, m / 4 * r ** 2)
    kd = [(R.ang_vel_in(N) - w_qd).dot(uv) for uv in L]
    body = RigidBody("BodyD", Dmc, R, m, (inert, Dmc))
    km = KanesMethod(N, q_ind=[q1, q2, q3], u_ind=[u1, u2, u3], kd_eqs=kd, bodies=[body],
                     forcelist=[(Dmc, -m * g * Y.z)])
    return km, N, [q1, q2, q3], [u1, u2, u3]


def test_rolling_disc_kdes_jacobian_is_solved_not_refused():
    km, N, q, u = _rolling_disc()
    kd = km.kindiffdict()
    K = sp.Matrix([qd - rhs for qd, rhs in kd.items()])
    A = K.jacobian(u)
    b = -K.xreplace({s: 0 for s in u})
    assert generic_rank(A) == 3
    assert gp.regular_pivot_order(A, what="∂kdes/∂u") is not None
    sol = gp.generic_solve(A, b, what="∂kdes/∂u")
    assert all(is_zero(e) for e in A * sol - b)
    assert gp.lu_solve is gp.generic_solve
    assert be.generic_pivot_order(A) is not None
    for backend in BACKENDS:
        with be.using_backend(backend):
            assert all(is_zero(e) for e in be.lu_solve(A, b, what="∂kdes/∂u") - sol)


@pytest.mark.slow
def test_rolling_disc_gets_past_its_speeds_and_comes_in_with_its_contact_position():
    """The speeds (∂kdes/∂u, full rank) come in; the contact point declared at rest without
    coordinates (a constraint built into the velocities, which a T(q, q̇) in q1, q2, q3 alone
    cannot carry) was refused by name; now its position C_x, C_y is added, the rolling kept as two
    velocity constraints, and Kane's form in u1, u2, u3 gives sympy's u̇ at random states (1e-12)."""
    from geonh import kane
    from geonh.models.interop import from_kanes_method, kane_frame
    km, N, q, u = _rolling_disc()
    ms = from_kanes_method(km)
    assert [s.name for s in ms.space.q] == ["q1", "q2", "q3", "C_x", "C_y"] and ms.n_constraints == 2
    eqs = kane(ms, kane_frame(km, ms))
    km.kanes_equations()
    kd = km.kindiffdict()
    Ms, Fs = km.mass_matrix.xreplace(kd), km.forcing.xreplace(kd)
    params = {s for s in Ms.free_symbols | Fs.free_symbols if isinstance(s, sp.Symbol) and s.name in ("r", "m", "g")}
    rng = random.Random(11)
    for _ in range(3):
        st = {x: sp.Rational(rng.randint(-9, 9), 7) for x in q + u}
        st |= {s: sp.Rational(rng.randint(2, 12), 4) for s in params}
        want = Ms.xreplace(st).evalf(30).LUsolve(Fs.xreplace(st).evalf(30))
        by = {x.func.__name__ if x in q + u else x.name: v for x, v in st.items()}
        sub = {s: by.get(s.name, 0) for s in eqs.mass_matrix.free_symbols | eqs.forcing.free_symbols}
        got = eqs.mass_matrix.xreplace(sub).evalf(30).LUsolve(eqs.forcing.xreplace(sub).evalf(30))
        assert max(abs(a - b) for a, b in zip(got, want)) <= 1e-12 * max(1, max(abs(b) for b in want))


def test_functions_of_time_singular_refusal_agrees_with_generic_rank():
    from sympy.physics.mechanics import dynamicsymbols
    q, p = dynamicsymbols("q p")
    t = dynamicsymbols._t
    k = sp.sin(q) ** 2 + sp.cos(q) ** 2
    qd = q.diff(t)
    singular = sp.Matrix([[1, k, p], [qd, qd, qd * p], [0, 1, qd]])     # row 2 = q' · row 1 (hidden)
    assert generic_rank(singular) == 2
    for call in (lambda: gp.lu_solve(singular, sp.ones(3, 1), what="A"), lambda: gp.inverse(singular, "A"),
                 lambda: gp.lu_inverse(singular, what="A")):
        with pytest.raises(SingularMapError, match=r"rank 2 < 3"):
            call()
    regular = sp.Matrix([[qd, 1], [1, q.diff(t, 2) * sp.sin(q)]])
    sol = gp.lu_solve(regular, sp.Matrix([p, 1]), what="A")
    assert all(is_zero(e) for e in regular * sol - sp.Matrix([p, 1]))
    assert is_zero(k - 1) and not is_zero(qd) and not is_zero(qd * k - q.diff(t, 2))
    assert gp.generic_symbols(sp.Derivative(q ** 2, t)) == sp.Derivative(q ** 2, t)   # left alone


# -- the backend choice is scoped --------------------------------------------------------------------
@needs_symengine
def test_using_backend_in_one_thread_does_not_switch_another():
    before = be.get_backend()
    inside, release, seen = threading.Event(), threading.Event(), []

    def worker():
        with be.using_backend("sympy" if before == "symengine" else "symengine"):
            inside.set()
            release.wait(30)

    th = threading.Thread(target=worker)
    th.start()
    assert inside.wait(30)
    seen.append(be.get_backend())
    reader = threading.Thread(target=lambda: seen.append(be.get_backend()))
    reader.start()
    reader.join(30)
    release.set()
    th.join(30)
    assert seen == [before, before]


@needs_symengine
def test_new_threads_start_from_the_process_default():
    before, default = be.get_backend(), be.set_default_backend("symengine")
    try:
        got = []
        be.set_backend("sympy")              # the current context only
        th = threading.Thread(target=lambda: got.append(be.get_backend()))
        th.start()
        th.join(30)
        assert got == ["symengine"] and be.get_backend() == "sympy"
        be.set_default_backend("sympy")      # the process default: new threads follow
        th = threading.Thread(target=lambda: got.append(be.get_backend()))
        th.start()
        th.join(30)
        assert got[-1] == "sympy"
    finally:
        be.set_default_backend(default)
        be.set_backend(before)


@needs_symengine
def test_concurrent_asyncio_tasks_keep_their_own_backend():
    async def task(name, out):
        with be.using_backend(name):
            await asyncio.sleep(0.01)
            out.append((name, be.get_backend()))

    async def main():
        out = []
        await asyncio.gather(task("sympy", out), task("symengine", out))
        return out

    before = be.get_backend()
    assert sorted(asyncio.run(main())) == [("symengine", "symengine"), ("sympy", "sympy")]
    assert be.get_backend() == before


# -- property tests: random hidden dependences, both backends ----------------------------------------
def _disguises(q):
    """(function, its equal disguises): sin² + cos², double angles, unexpanded products and
    quotients that cancel."""
    one = sp.sin(q) ** 2 + sp.cos(q) ** 2
    return [
        (sp.S.One, [one, sp.cos(q) ** 2 + sp.sin(q) ** 2 * one]),
        (sp.sin(2 * q), [2 * sp.sin(q) * sp.cos(q), sp.sin(2 * q) * one]),
        (sp.cos(2 * q), [sp.cos(q) ** 2 - sp.sin(q) ** 2, 1 - 2 * sp.sin(q) ** 2]),
        (q ** 2 - 1, [(q - 1) * (q + 1), (q - 1) * (q + 1) * one]),
        (q + 2, [(q ** 2 - 4) / (q - 2), (q + 2) * one]),
        (sp.Rational(3, 2) * q, [3 * q * one / 2, q * (sp.sin(2 * q) / sp.sin(q)) * 3 / (4 * sp.cos(q))]),
    ]


@st.composite
def _hidden(draw, space):
    """A list of equal forms of one non-zero function (a plain one first)."""
    q = draw(st.sampled_from(list(space.coords)))
    plain, forms = draw(st.sampled_from(_disguises(q)))
    c = draw(gst.coefficients())
    return [c * plain] + [c * f for f in forms]


@st.composite
def _dependent_columns(draw, lo=2, hi=3):
    """(space, n columns of which the inserted one is Σ gᵢ Xᵢ over the others, rank n − 1):
    each component of the dependent column writes the gᵢ in its own disguise."""
    S = draw(gst.configuration_spaces(lo, hi))
    n = S.dim
    C = draw(gst.invertible_matrices(S, kind="any", zero_probability=0.5))
    cols = [list(C[:, a]) for a in range(n - 1)]
    gs = [draw(_hidden(S)) for _ in range(n - 1)]
    dep = [sp.Add(*[draw(st.sampled_from(gs[i])) * cols[i][k] for i in range(n - 1)]) for k in range(n)]
    cols.insert(draw(st.integers(0, n - 1)), dep)
    return S, cols


@st.composite
def _disguised_invertible(draw, lo=2, hi=3):
    """(space, n independent columns, everywhere invertible) with entries rewritten in equal
    disguises (a factor sin² + cos², an added sin 2q − 2 sin q cos q)."""
    S = draw(gst.configuration_spaces(lo, hi))
    C = draw(gst.invertible_matrices(S, kind="any", zero_probability=0.5))
    n = S.dim
    cols = []
    for a in range(n):
        col = []
        for k in range(n):
            e = C[k, a]
            q = draw(st.sampled_from(list(S.coords)))
            how = draw(st.sampled_from(["as is", "factor", "zero"]))
            if how == "factor":
                e = e * (sp.sin(q) ** 2 + sp.cos(q) ** 2)
            elif how == "zero":
                e = e + sp.sin(2 * q) - 2 * sp.sin(q) * sp.cos(q)
            col.append(e)
        cols.append(col)
    return S, cols


@needs_symengine
@pytest.mark.slow
@settings(deadline=None, max_examples=12)
@given(_dependent_columns())
def test_property_dependent_frames_refused_alike_on_both_backends(data):
    S, cols = data
    n = S.dim
    fields = [VectorField(S, c) for c in cols]
    C = sp.Matrix(cols).T
    r = generic_rank(C)
    assert r == n - 1
    (name, rank, msg), _ = _same_verdict(lambda: Frame(fields))
    assert (name, rank) == ("DependentFieldsError", r)
    forms = [OneForm(S, c) for c in cols]
    (name, rank, msg), _ = _same_verdict(lambda: Frame.from_coframe(forms))
    assert (name, rank) == ("SingularMapError", r)
    for backend in BACKENDS:
        with be.using_backend(backend):
            for call in (lambda: be.inverse(be.to_native(C), "C"), lambda: be.lu_inverse(be.to_native(C), what="C")):
                with pytest.raises(SingularMapError) as err:
                    call()
                _states_no_false_rank(str(err.value), n)
                assert f"rank {r} < {n}" in str(err.value)
            assert Distribution(fields, S).rank == r
            assert Codistribution(forms, S).rank == r


@needs_symengine
@pytest.mark.slow
@settings(deadline=None, max_examples=8)
@given(_disguised_invertible())
def test_property_disguised_independent_frames_accepted_alike_on_both_backends(data):
    S, cols = data
    n = S.dim
    fields = [VectorField(S, c) for c in cols]
    out = {}
    for backend in BACKENDS:
        with be.using_backend(backend):
            F = Frame(fields)
            c = sp.flatten(F.structure_coefficients().tolist())
            assert _finite(F.B) and _finite(c)
            out[backend] = (F.B, [is_zero(e) for e in c])
            assert Distribution(fields, S).rank == n
            assert Frame.from_coframe([OneForm(S, c_) for c_ in cols]).dim == n
    assert all(is_zero(e) for e in out["symengine"][0] - out["sympy"][0])
    assert out["symengine"][1] == out["sympy"][1]
    # involutivity of the first n − 1 fields: a verdict on backend-computed brackets
    verdicts = []
    for backend in BACKENDS:
        with be.using_backend(backend):
            verdicts.append(Distribution(fields[:-1], S).is_involutive())
    assert verdicts[0] == verdicts[1]


@needs_symengine
@pytest.mark.slow
@settings(deadline=None, max_examples=10)
@given(_dependent_columns(2, 3))
def test_property_dependent_constraints_raise_rank_error_on_both_backends(data):
    S, cols = data
    qd = sp.Matrix(S.qd)
    T = sum(v ** 2 for v in S.qd) / 2
    rows = [(sp.Matrix([c]) * qd)[0] for c in cols]
    # all n constraints: one is a hidden combination of the others (rank n − 1)
    (name, rank, _), _ = _same_verdict(lambda: MechanicalSystem(S, T, constraints=rows))
    assert (name, rank) == ("RankError", S.dim - 1)
    # any n − 1 of them are independent (every gᵢ of the combination is non-zero)
    (name, _, _), _ = _same_verdict(lambda: MechanicalSystem(S, T, constraints=rows[:-1]))
    assert name == "ok"


@st.composite
def _redundant_distribution(draw):
    """(space, rank-2 fields X1, X2 on a 3-space, a third field Σ gᵢ Xᵢ in disguise)."""
    S = draw(gst.configuration_spaces(3, 3))
    C = draw(gst.invertible_matrices(S, kind="any", zero_probability=0.5))
    cols = [list(C[:, a]) for a in draw(st.permutations([0, 1, 2]))[:2]]
    gs = [draw(_hidden(S)) for _ in range(2)]
    dep = [sp.Add(*[draw(st.sampled_from(gs[i])) * cols[i][k] for i in range(2)]) for k in range(3)]
    return S, [VectorField(S, c) for c in cols], VectorField(S, dep)


@needs_symengine
@pytest.mark.slow
@settings(deadline=None, max_examples=8)
@given(_redundant_distribution())
def test_property_distributions_with_a_hidden_redundant_field_agree(data):
    S, (X1, X2), X3 = data
    verdicts = []
    for backend in BACKENDS:
        with be.using_backend(backend):
            D = Distribution([X1, X3, X2], S)
            forms = Codistribution([OneForm(S, list(X.components)) for X in (X1, X3, X2)], S)
            verdicts.append((D.rank, X3 in Distribution([X1, X2], S), D.is_involutive(),
                             D.growth_vector(), forms.rank))
    assert verdicts[0] == verdicts[1]
    assert verdicts[0][0] == 2 and verdicts[0][1] and verdicts[0][4] == 2


@needs_symengine
@settings(deadline=None, max_examples=8)
@given(st.data())
def test_property_definiteness_verdicts_agree(data):
    S = ConfigurationSpace("x y")
    x, y = S.coords
    A = data.draw(gst.invertible_matrices(S, kind="trigonometric", zero_probability=0.5))
    hidden0 = sp.sin(2 * x) - 2 * sp.sin(x) * sp.cos(x)          # ≡ 0
    one = sp.sin(y) ** 2 + sp.cos(y) ** 2                        # ≡ 1
    singular = data.draw(st.booleans())
    D = sp.diag(one, hidden0 if singular else one)
    M = A.T * D * A
    v = sp.Matrix(S.qd)
    T = (v.T * M * v)[0] / 2
    (name, _, _), _ = _same_verdict(lambda: MechanicalSystem(S, T))
    assert name == ("NotPositiveDefiniteError" if singular else "ok")
