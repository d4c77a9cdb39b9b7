"""One engine for both backends (issue 21): every form on symengine and on sympy gives the
same equations — exactly, not numerically — and a result computed under one backend is never
served under the other.

"The same" is exact: each entry is structurally equal after conversion to sympy, or the
difference of the two entries expands to 0 (in symengine, else in sympy, where, with
quotients, it may also cancel to 0).  No numeric evaluation is involved.
"""
from __future__ import annotations

import pickle
from functools import lru_cache

import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import geonh as g
from geonh import models
from geonh.equations.engine import central_equations, frame_split, lagrange_split
from geonh.kernel import backend as bk
from geonh.kernel.algebra import (Algebra, PerBackend, SymengineAlgebra, SympyAlgebra, algebra_for,
                                  per_backend_property)
from geonh.systems.mechanical import MechanicalSystem, quadratic_form
from geonh.testing import strategies as gst
from geonh.testing.constrained import coefficient_expressions, constrained_settings

pytestmark = pytest.mark.skipif(not bk.SYMENGINE_AVAILABLE, reason="symengine not installed")
se = pytest.importorskip("symengine")


# -- exact comparison --------------------------------------------------------------------------
def exactly_equal(a, b) -> bool:
    """a and b are the same expression: structurally, or their difference expands to exactly 0
    — first in symengine (exact arithmetic too, and on the rattleback's forcing 100-500 times
    faster than sympy's expand and cancel, which took 2 of the 3 minutes of its test), then in
    sympy, where, with quotients, it may also cancel to 0.  Each step is a proof of a − b ≡ 0
    or nothing: a failed symengine expansion (or conversion) falls through to sympy."""
    a, b = sp.sympify(a), sp.sympify(b)
    if a == b:
        return True
    try:
        if se.expand(se.sympify(a) - se.sympify(b)) == 0:
            return True
    except (RuntimeError, TypeError, NotImplementedError, ValueError):   # not convertible: sympy decides
        pass
    d = sp.expand(a - b)
    return d == 0 or sp.cancel(sp.together(d)) == 0


def test_exactly_equal_is_a_proof_or_a_refusal():
    """The comparison accepts an identity only with a proof — expansion in symengine, or in
    sympy expansion or cancellation — and refuses everything else, identities it cannot prove
    by these means included."""
    x, y = sp.symbols("x y", real=True)
    E = x**2 + y**2 + 1
    a, b = (x - y) * (x + y) / sp.sqrt(E), (x**2 - y**2) / sp.sqrt(E)     # expansion proves it
    assert a != b and exactly_equal(a, b)
    assert exactly_equal(1 / (x + 1) + 1 / (x - 1), 2 * x / (x**2 - 1))   # only cancellation does
    assert not exactly_equal(a, b + y / E)
    assert not exactly_equal(a, b + sp.Rational(1, 10**30))
    assert not exactly_equal(sp.sin(x)**2 + sp.cos(x)**2, 1)             # true, not proven by these
    assert not exactly_equal(sp.sqrt(x**2), x)                            # |x| ≠ x


def equation_entries(eq) -> list:
    """Everything an Equations states: M and F of M x = F, the kinematics, the speeds and the
    reactions."""
    return (list(eq.mass_matrix) + list(eq.forcing) + list(eq.kinematics) + list(eq.speeds)
            + list(eq.reactions or []))


def assert_identical(a, b, what: str) -> None:
    xs, ys = equation_entries(a), equation_entries(b)
    assert len(xs) == len(ys), what
    assert (a.mass_matrix.shape, tuple(a.u), tuple(a.ud)) == (b.mass_matrix.shape, tuple(b.u), tuple(b.ud)), what
    for k, (x, y) in enumerate(zip(xs, ys)):
        assert exactly_equal(x, y), f"{what}: entry {k} differs between the backends:\n{x}\n{y}"


def on_both(build):
    """build() under symengine, then under sympy."""
    with bk.using_backend("symengine"):
        a = build()
    with bk.using_backend("sympy"):
        b = build()
    return a, b


# -- every form of geonh.FORMS on built-in models ----------------------------------------------
#: small built-in models that between them admit every form (heavy-top: Volterra; the sleigh:
#: Chaplygin; the skate on a moving belt is rheonomic)
FAST_MODELS = ("chaplygin-sleigh", "heavy-top", "skate-on-belt")


@lru_cache(maxsize=None)
def model(name: str):
    return models.get(name)


def test_the_fast_models_cover_every_form():
    covered = {form for name in FAST_MODELS for form, f in g.FORMS.items()
               if f.applies(model(name).system, model(name).dependent)}
    assert covered == set(g.FORMS)


@pytest.mark.parametrize("form", list(g.FORMS))
def test_every_form_gives_identical_equations_on_both_backends(form):
    for name in FAST_MODELS:
        Mo = model(name)
        if not g.FORMS[form].applies(Mo.system, Mo.dependent):
            continue
        a, b = on_both(lambda: Mo.equations(form))
        assert_identical(a, b, f"{name} / {form}")


@pytest.mark.slow
@pytest.mark.parametrize("name", [n for n in models.names("mechanical") if n != "whipple-bicycle"])
def test_every_form_on_every_built_in_model(name):
    """Every applicable form on every built-in mechanical model.  (The Whipple bicycle is left
    out: the expanded difference of its two forms exhausts memory.)"""
    Mo = models.get(name)
    for form, f in g.FORMS.items():
        if f.applies(Mo.system, Mo.dependent):
            a, b = on_both(lambda: Mo.equations(form))
            assert_identical(a, b, f"{name} / {form}")


# -- every form of geonh.FORMS on random systems -----------------------------------------------
@st.composite
def mechanical_systems(draw, max_n: int = 3, rheonomic: bool | None = None):
    """A random MechanicalSystem: a random constrained setting (geonh.testing.constrained: m
    free coordinates, random a_js and, when rheonomic, affine terms), T = ½ q̇ᵀ(D + NᵀN)q̇
    (+ bᵀq̇ + T0 when rheonomic) with D a positive diagonal and N random trigonometric and
    polynomial entries (so T is positive definite), random forces and potential."""
    setting = draw(constrained_settings(min_n=2, max_n=max_n, rheonomic=rheonomic, max_terms=1))
    S = setting.space
    n, coords = S.n, list(S.coords)
    expr = lambda p=0.5: draw(coefficient_expressions(coords, zero_probability=p, max_terms=1))  # noqa: E731
    N = sp.Matrix(n, n, lambda i, j: expr(0.6))
    D = sp.diag(*[draw(st.integers(1, 3)) for _ in range(n)])
    b, T0 = None, 0
    if S.t is not None:
        b, T0 = [expr(0.6) for _ in range(n)], expr(0.6)
    T = quadratic_form(S.qd, D + N.T * N, b, T0)
    Q = [expr(0.5) for _ in range(n)]
    V = draw(coefficient_expressions(list(S.q), zero_probability=0.4, max_terms=2))
    qd = dict(zip(S.q, S.qd))
    cons = []
    for j, dep in enumerate(setting.dependent):
        c = qd[dep] - sum((setting.a[j, s] * qd[f] for s, f in enumerate(setting.free)), sp.S.Zero)
        if S.t is not None:
            c -= setting.affine[j]
        cons.append(c)
    return MechanicalSystem(S, T, V=V, forces=Q, constraints=cons)


def _forms_on_both_backends(system):
    for form, f in g.FORMS.items():
        if f.applies(system):
            a, b = on_both(lambda: g.derive(form, system))
            assert_identical(a, b, form)


@settings(deadline=None, max_examples=4)
@given(mechanical_systems(max_n=3, rheonomic=None))
def test_every_form_on_random_systems(system):
    _forms_on_both_backends(system)


@pytest.mark.slow
@settings(deadline=None, max_examples=10)
@given(mechanical_systems(max_n=4, rheonomic=None))
def test_every_form_on_random_systems_sweep(system):
    _forms_on_both_backends(system)


# -- the engine itself on random d and δ fields ---------------------------------------------------
@st.composite
def engine_inputs(draw):
    """(system, V, W, on_motion, u, K): a random system, a random d field V holding a constant
    symbol c (its value on the motion given by on_motion), random δ fields W, speeds u and
    kinematics K linear in u.  The central equation is an identity for any such fields."""
    system = draw(mechanical_systems(max_n=3, rheonomic=None))
    S = system.space
    c = sp.Symbol("c_engine", real=True)
    m = draw(st.integers(1, 2))
    u = sp.symbols(f"u1:{m + 1}", real=True)
    coords = list(S.coords)
    V = draw(gst.vector_fields(S, zero_probability=0.3))
    V = g.VectorField(S, [V.components[0] + c] + list(V.components[1:]))
    W = [draw(gst.vector_fields(S, zero_probability=0.4)) for _ in range(m)]
    K = [sum((draw(coefficient_expressions(coords, zero_probability=0.5, max_terms=1)) * us for us in u),
             draw(coefficient_expressions(coords, zero_probability=0.6, max_terms=1))) for _ in range(S.n)]
    on = {c: u[0] * draw(coefficient_expressions(coords, zero_probability=0.3, max_terms=1))}
    return system, V, W, on, u, K


@settings(deadline=None, max_examples=12)
@given(engine_inputs())
def test_central_equation_identical_on_both_backends(data):
    system, V, W, on, u, K = data
    (M1, F1), (M2, F2) = on_both(lambda: central_equations(system, V, W, on, u, K))
    assert M1.shape == M2.shape == (len(W), len(u)) and F1.shape == F2.shape
    for x, y in zip(list(M1) + list(F1), list(M2) + list(F2)):
        assert exactly_equal(x, y)


@settings(deadline=None, max_examples=8)
@given(engine_inputs())
def test_lagrange_split_and_primitives_identical_on_both_backends(data):
    system, V, W, on, u, K = data
    a, b = on_both(lambda: lagrange_split(system, K, u))
    assert (a.algebra, b.algebra) == ("symengine", "sympy")
    for key in ("MdK", "LQ0", "p", "pdot", "dTdq", "Q"):
        xs, ys = sp.flatten(getattr(a, key)), sp.flatten(getattr(b, key))
        assert len(xs) == len(ys) and all(exactly_equal(x, y) for x, y in zip(xs, ys)), key
    pa, pb = on_both(lambda: system.primitives)
    assert (pa.algebra, pb.algebra) == ("symengine", "sympy")
    for key in ("M", "p", "pdot0", "dTdq"):
        xs, ys = sp.flatten(getattr(pa, key)), sp.flatten(getattr(pb, key))
        assert len(xs) == len(ys) and all(exactly_equal(x, y) for x, y in zip(xs, ys)), key


def test_central_equation_is_lagranges_split_along_w():
    """The engine's (M, F) on the motion equal W·(L − Q) from Lagrange's split: the identity (*)
    of the engine's module doc, on both algebras."""
    Mo = models.get("skate-on-belt")
    d = g.equations.in_frame("boltzmann-hamel", Mo.system, Mo.frame)
    for backend in ("symengine", "sympy"):
        with bk.using_backend(backend):
            M, F = central_equations(d.system, d.V, d.W, list(d.on_motion), d.u, d.kinematics)
            sl = lagrange_split(d.system, d.kinematics, d.u)
            fs = frame_split(d.system, d.frame, d.kinematics, d.u)
        n = Mo.system.n
        for r, Wf in enumerate(d.W):
            for s in range(len(d.u)):
                assert exactly_equal(M[r, s], sum(Wf.components[i] * sl.MdK[i][s] for i in range(n)))
                assert exactly_equal(M[r, s], fs.rows[r][s])
            assert exactly_equal(-F[r], sum(Wf.components[i] * sl.LQ0[i] for i in range(n)))
            assert exactly_equal(-F[r], fs.rests[r])


# -- the fallback is the same code on the sympy algebra ------------------------------------------
def test_an_input_symengine_cannot_take_runs_the_same_code_on_sympy():
    """Abs has no faithful symengine image (geonh.kernel.backend): under the symengine backend the
    engine and the primitives run on the sympy algebra — the same code, so the very same
    expressions as under the sympy backend."""
    S = g.ConfigurationSpace("x y theta")
    x, y, th = S.q
    xd, yd, thd = S.qd
    T = (xd**2 + yd**2) / 2 + (2 + sp.Abs(sp.sin(th))) * thd**2 / 2
    system = MechanicalSystem(S, T, constraints=[sp.sin(th) * xd - sp.cos(th) * yd])
    a, b = on_both(lambda: system.primitives)
    assert a.algebra == b.algebra == "sympy" and a == b
    e1, e2 = on_both(lambda: g.derive("boltzmann-hamel", system))
    assert list(e1.mass_matrix) == list(e2.mass_matrix) and list(e1.forcing) == list(e2.forcing)
    s1, s2 = on_both(lambda: lagrange_split(system, e1.kinematics, e1.u))
    assert s1 == s2 and s1.algebra == "sympy"


def test_algebra_for_chooses_by_backend_and_inputs():
    S = g.ConfigurationSpace("x y", time=True)
    x = S.q[0]
    with bk.using_backend("symengine"):
        assert isinstance(algebra_for(S.coords, [sp.sin(x)]), SymengineAlgebra)
        assert isinstance(algebra_for(S.coords, [sp.Abs(x)]), SympyAlgebra)
    with bk.using_backend("sympy"):
        assert isinstance(algebra_for(S.coords, [sp.sin(x)]), SympyAlgebra)


@pytest.mark.parametrize("cls", [SympyAlgebra, SymengineAlgebra])
def test_the_algebra_contract(cls):
    """Each algebra meets the contract of geonh.kernel.algebra.Algebra, with the same answers."""
    S = g.ConfigurationSpace("x y", time=True)
    x, y, t = S.coords
    k = sp.Symbol("k", positive=True)
    A = cls(S.coords)
    assert isinstance(A, Algebra) and A.name == cls.name
    f = A.native(k * x**2 * sp.sin(y) + t * y)
    assert A.sympy(A.gradient(f)[0]) == 2 * k * x * sp.sin(y)
    assert [A.sympy(e) for e in A.gradient(f)] == [2 * k * x * sp.sin(y), k * x**2 * sp.cos(y) + t, y]
    assert A.gradient(A.native(k)) is None and A.gradient(A.zero) is None
    # X(f) for X = ∂_x + x ∂_y, and the gradient applied to the same field
    X = [A.one, A.native(x), A.zero]
    Xf = A.sympy(A.derivative(X, f))
    assert sp.expand(Xf - (2 * k * x * sp.sin(y) + x * (k * x**2 * sp.cos(y) + t))) == 0
    assert A.sympy(A.along(A.gradient(f), X)) == Xf and A.along(None, X) == A.zero
    assert A.sympy(A.diff(f, A.native(t))) == y
    assert A.sympy(A.subs(f, {A.native(y): A.native(2 * x)})) == (k * x**2 * sp.sin(2 * x) + 2 * t * x)
    assert A.sympy(A.add([A.native(x), A.zero, A.native(y)])) == x + y and A.add([]) == A.zero
    assert A.sympy(A.native("x*y")) == x * y                       # a formula string is parsed
    assert k in A.sympy(A.native(k * x)).free_symbols               # assumptions come back
    with pytest.raises(g.GeonhError):
        A.along([A.one], X)                                         # wrong length
    with pytest.raises(g.GeonhError):
        A.native("__import__('os')")


# -- caches: a result computed under one backend is never served under the other ---------------
def _system_whose_backends_differ_in_form() -> MechanicalSystem:
    """A system whose Lagrange operator comes out in different forms on the two backends
    (symengine distributes 2 over x + y), so that serving the wrong one is visible."""
    S = g.ConfigurationSpace("x y")
    x, y = S.q
    xd, yd = S.qd
    return MechanicalSystem(S, (1 + (x + y)**2 * sp.sin(x)**2) * xd**2 / 2 + yd**2 / 2)


@pytest.mark.parametrize("first", ["symengine", "sympy"])
def test_system_caches_are_per_backend(first):
    other = "sympy" if first == "symengine" else "symengine"
    system = _system_whose_backends_differ_in_form()
    fresh = {}
    for backend in (first, other):
        with bk.using_backend(backend):
            s = _system_whose_backends_differ_in_form()
            fresh[backend] = (s.primitives, s.lagrange_operator)
    assert fresh["symengine"][1] != fresh["sympy"][1]      # the two forms differ: the test can see
    for backend in (first, other, first):
        with bk.using_backend(backend):
            P, L = system.primitives, system.lagrange_operator
        assert P.algebra == backend and P == fresh[backend][0]
        assert L == fresh[backend][1], backend
    system2 = pickle.loads(pickle.dumps(system))           # caches are not pickled with the system
    with bk.using_backend(other):
        assert system2.lagrange_operator == fresh[other][1]


@pytest.mark.parametrize("first", ["symengine", "sympy"])
def test_frame_structure_coefficients_are_per_backend(first):
    other = "sympy" if first == "symengine" else "symengine"
    from geonh.models import kinematic
    fields = list(kinematic.n_trailer(1).frame.fields)
    F = g.Frame(fields)
    with bk.using_backend(first):
        c1 = F.structure_coefficients()
        assert F.structure_coefficients() is c1                        # cached within a backend
    with bk.using_backend(other):
        c2 = F.structure_coefficients()
        G = g.Frame(fields)
        ref = G.structure_coefficients()
    assert c2 is not c1
    assert isinstance(c2, bk.LazyArray) == (other == "symengine") == isinstance(ref, bk.LazyArray)
    assert c2 == ref and c2.tolist() == ref.tolist()


def test_lazy_flag_brackets_are_per_backend():
    """The last level of a derived flag holds brackets formed on first use: their components,
    too, are computed per backend."""
    S = g.ConfigurationSpace("x y z")
    x, y, z = S.q
    X, Y = g.VectorField(S, [1, 0, 0]), g.VectorField(S, [0, 1, (x + y)**2 * sp.sin(x)])
    with bk.using_backend("symengine"):
        ref_se = X.bracket(Y).components
    with bk.using_backend("sympy"):
        ref_sp = X.bracket(Y).components
    assert ref_se != ref_sp                                              # the forms differ
    for order in (("symengine", "sympy"), ("sympy", "symengine")):
        Z = g.Distribution([X, Y], S).derived_flag()[-1].fields[-1]      # [X, Y], not formed yet
        for backend in order + order:
            with bk.using_backend(backend):
                assert Z.components == (ref_se if backend == "symengine" else ref_sp)


def test_transpositional_relations_caches_are_per_backend():
    setting = g.ConstrainedSetting(g.ConfigurationSpace("x y z"), ["z"], sp.Matrix([[0, 0]]))
    S = setting.space
    x, y, z = S.q
    setting = g.ConstrainedSetting(S, [z], sp.Matrix([[(x + y)**2 * sp.sin(x), 1]]))
    fresh = {}
    for backend in ("symengine", "sympy"):
        with bk.using_backend(backend):
            rel = setting.transposition(0)
            fresh[backend] = (rel.bracket().components, rel.B, rel.gamma)
    assert fresh["symengine"][0] != fresh["sympy"][0]                    # the forms differ
    rel = setting.transposition(0)
    for backend in ("symengine", "sympy", "symengine"):
        with bk.using_backend(backend):
            assert (rel.bracket().components, rel.B, rel.gamma) == fresh[backend]


def test_per_backend_cache_helpers():
    calls = []

    class Thing:
        @per_backend_property
        def value(self):
            """A value that says which backend computed it."""
            calls.append(bk.get_backend())
            return bk.get_backend()

    t = Thing()
    for backend in ("sympy", "symengine", "sympy", "symengine"):
        with bk.using_backend(backend):
            assert t.value == backend
    assert calls == ["sympy", "symengine"] and Thing.value.__doc__.startswith("A value")
    cache = PerBackend()
    with bk.using_backend("sympy"):
        assert cache.get(lambda: 1) == 1 and cache.get(lambda: 2) == 1
    assert cache.backends() == ("sympy",)
    assert pickle.loads(pickle.dumps(cache)).backends() == ()
    cache.clear()
    assert cache.backends() == ()
