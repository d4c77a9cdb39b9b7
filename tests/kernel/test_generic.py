"""The generic-point decisions: is_zero, generic_rank, LU inverse."""
import pytest
import sympy as sp

from geonh.errors import SingularMapError
from geonh.kernel.generic_point import (
    generic_rank,
    independent_rows,
    is_zero,
    lu_inverse,
    sample_points,
)

x, y = sp.symbols("x y", real=True)
s = sp.sin(x)


def test_is_zero_decides_trig_identities_and_unexpanded_zeros():
    assert is_zero(sp.sin(x)**2 + sp.cos(x)**2 - 1)
    assert is_zero((-s - 1) * s + (s + 1) * s)
    assert is_zero((x + y)**2 - x**2 - 2 * x * y - y**2)
    assert not is_zero(sp.sin(x)**2 + sp.cos(x)**2)
    assert not is_zero(x - y)
    assert not is_zero(sp.Rational(1, 10**40))
    assert is_zero(sp.tan(x) - sp.sin(x) / sp.cos(x), certify=True)


def test_rank_of_numerically_cancelling_matrix_is_zero():
    """Regression: a matrix whose entries are all cancelling (round-off ~1e-190 at 60 digits)
    had 'full' rank, because the rank tolerance was only relative to the largest singular
    value."""
    z = (-s - 1) * s + (s + 1) * s
    assert generic_rank(sp.Matrix([[z]])) == 0
    assert generic_rank(sp.Matrix([[z, 2 * z], [z, z]])) == 0
    assert generic_rank(sp.Matrix([[z, 1], [1, s]])) == 2
    assert generic_rank(sp.Matrix([[z, 1], [z, s]])) == 1
    assert generic_rank(sp.Matrix([[s, sp.cos(x)], [2 * s, 2 * sp.cos(x) + z]])) == 1
    assert independent_rows(sp.Matrix([[z, z], [s, 1], [2 * s, 2]])) == [1]


def test_generic_rank_and_lu_inverse():
    M = sp.Matrix([[1, x], [y, x * y]])
    assert generic_rank(M) == 1
    with pytest.raises(SingularMapError):
        lu_inverse(M, what="M")
    N = sp.Matrix([[sp.cos(x), -sp.sin(x)], [sp.sin(x), sp.cos(x)]])
    assert all(is_zero(e) for e in lu_inverse(N) * N - sp.eye(2))
    assert generic_rank(sp.zeros(0, 3)) == 0


def test_sample_points_reproducible():
    assert sample_points([x, y]) == sample_points([y, x])
    assert all(v > 0 for pt in sample_points([x]) for v in pt.values())


# -- the float screen: only verdicts double precision proves ----------------------------------------
def test_float_screen_never_takes_round_off_for_a_value():
    """Identically zero entries written unexpanded evaluate to round-off in floats; their
    error bound (the size of their terms) keeps the screen from calling them non-zero."""
    from geonh.kernel.generic_point import float_values, generic_rank, independent_rows
    x, y = sp.symbols("x y")
    z = sp.sin(x) ** 2 + sp.cos(x) ** 2 - 1
    assert generic_rank(sp.Matrix([[z]])) == 0
    assert generic_rank(sp.Matrix([[z * y, (x + y) ** 2 - x**2 - 2 * x * y - y**2]])) == 0
    assert independent_rows(sp.Matrix([[1, y], [sp.exp(x) * z, z], [x, 1]])) == [0, 2]
    (vals, err), = float_values([z * y, x + y], [{x: sp.Rational(1, 3), y: sp.Rational(7, 5)}])
    assert abs(vals[0]) <= err[0] and err[0] < 1e-9 and abs(vals[1]) > err[1]


def test_semidefinite_kinetic_energy_written_unexpanded_is_refused():
    from geonh import ConfigurationSpace, MechanicalSystem
    from geonh.errors import NotPositiveDefiniteError
    S = ConfigurationSpace("x y")
    x, y = S.q
    xd, yd = S.qd
    # (xd + sin(x) yd)² + (cos²x + sin²x − 1)·yd²: rank one everywhere
    T = sp.Rational(1, 2) * ((xd + sp.sin(x) * yd) ** 2 + (sp.cos(x) ** 2 + sp.sin(x) ** 2 - 1) * yd**2)
    with pytest.raises(NotPositiveDefiniteError):
        MechanicalSystem(S, T)


# -- verdicts asked from one module, one call down ------------------------------------------------------
def test_positive_definiteness_is_a_verdict_of_the_generic_point():
    from geonh.kernel.generic_point import not_positive_definite_at
    J, J0 = sp.symbols("J J0", positive=True)
    m = sp.Symbol("m", positive=True)
    M = sp.Matrix([[m, 0], [0, J - J0]])
    assert not_positive_definite_at(M, (J > J0,)) is None
    point, values = not_positive_definite_at(M)
    assert point[J] <= point[J0] and values[3] == point[J] - point[J0]
    # symbols without a sign take either sign
    a = sp.Symbol("a", real=True)
    assert not_positive_definite_at(sp.Matrix([[a]])) is not None
    assert not_positive_definite_at(sp.Matrix([[1 + a ** 2]])) is None


def _calls(fn):
    """(caller module, callee module, callee function) of every call between geonh modules."""
    import sys
    stack, out = [], []

    def prof(frame, event, arg):
        if event == "call":
            mod = frame.f_globals.get("__name__", "")
            mod = mod if mod.startswith("geonh") else None
            caller = next((m for m in reversed(stack) if m is not None), None)
            if mod and caller and caller != mod:
                out.append((caller, mod, frame.f_code.co_name))
            stack.append(mod)
        elif event == "return" and stack:
            stack.pop()

    sys.setprofile(prof)
    try:
        fn()
    finally:
        sys.setprofile(None)
    return out


def test_a_verdict_is_one_call_down_not_a_ping_pong():
    """generic_rank on a 4×4 trigonometric matrix: the values come from evaluation in one call
    per sample point (not one per entry), and nothing below generic_point calls back into it."""
    t = sp.symbols("t0:4", real=True)
    row = [sp.sin(t[0]) * sp.cos(t[1]), sp.cos(t[2]) + t[3], sp.sin(t[1] + t[2]), t[0] * t[3]]
    M = sp.Matrix([row, [2 * e for e in row], [sp.cos(t[i]) * t[(i + 1) % 4] for i in range(4)],
                   [sp.sin(t[i]) ** 2 + sp.cos(t[i]) ** 2 - 1 + t[i] for i in range(4)]])
    calls = _calls(lambda: generic_rank(M))
    assert generic_rank(M) == 3
    below = {"geonh.kernel.evaluation", "geonh.kernel.linalg", "geonh.kernel.sampling", "geonh.kernel.parsing"}
    assert not [c for c in calls if c[0] in below and c[1] == "geonh.kernel.generic_point"]
    evaluations = [c for c in calls if c[0] == "geonh.kernel.generic_point" and c[1] == "geonh.kernel.evaluation"
                   and c[2] not in ("precision", "term_scale")]
    points = len([c for c in calls if c[2] == "values_at"])
    assert points and len(evaluations) == points <= 6     # values_at once per point, for all 16 entries


def test_rref_never_takes_an_unexpanded_zero_as_pivot():
    from geonh.kernel.generic_point import rref
    z = (-s - 1) * s + (s + 1) * s
    R, piv = rref(sp.Matrix([[z, 1, x], [1, 0, y], [2 * z, 2, 2 * x]]))
    assert piv == (0, 1)
    assert all(is_zero(e) for e in R - sp.Matrix([[1, 0, y], [0, 1, x], [0, 0, 0]]))


def test_free_symbols_walk_each_shared_subexpression_once():
    """generic_point._free is sympy's free_symbols (bound variables of derivatives, integrals
    and substitutions left out, indexed objects and applied functions as sympy has them), but
    visits each distinct subexpression once: a 60-fold nested e ↦ sin(e) + cos(e) (2^60 paths,
    60 distinct nodes), which sympy's recursion would walk for ever, takes no time."""
    import signal
    from geonh.kernel.generic_point import _free
    a, b, n = sp.symbols("a b n")
    f = sp.Function("f")
    F = sp.IndexedBase("F")
    cases = [sp.Derivative(f(a) * b, a), sp.Integral(a * b, (a, 0, n)), sp.Subs(f(a) + b, a, n),
             F[n] + a, sp.Dummy("d") * sp.sin(a), sp.Lambda(a, a + b)(n), sp.S(3)]
    ref: set = set()
    for e in cases:
        assert _free([e]) == e.free_symbols, e
        ref |= e.free_symbols
    assert _free(cases) == ref
    e = a + b
    for _ in range(60):
        e = sp.sin(e) + sp.cos(e)

    def too_long(signum, frame):
        raise AssertionError("_free walked the shared subexpressions again")
    old = signal.signal(signal.SIGALRM, too_long)
    signal.setitimer(signal.ITIMER_REAL, 20)
    try:
        assert _free([e, a * e]) == {a, b}
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)

