"""velocity_form reads the coefficients of an expression linear in the velocities off its
terms (one pass) instead of differentiating the whole expression once per velocity; the
result must be exactly (srepr-equal) what differentiation gives."""
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from geonh.errors import NotLinearError
from geonh.kernel import forms
from geonh.kernel.forms import velocity_form
from geonh.kernel.space import ConfigurationSpace

S = ConfigurationSpace(["x", "y", "th", "ph"])
ST = ConfigurationSpace(["x", "y", "th", "ph"], time=True)
x, y, th, ph = S.coords
xd, yd, thd, phd = S.qd
a, b, c = sp.symbols("a b c", positive=True)


def by_differentiation(space, ex):
    """The coefficients as velocity_form computed them before: sp.diff per velocity and the
    expanded remainder."""
    row = [sp.diff(ex, v) for v in space.qd]
    rest = sp.expand(ex - sum(cv * v for cv, v in zip(row, space.qd)))
    return row + ([rest] if space.t is not None else [])


TRAILER = ConfigurationSpace(["x", "y", "q0", "q1", "q2", "q3"])


def trailer_constraint(k):
    """The no-slip constraint of trailer k of a 3-trailer written as sympy.physics.mechanics
    writes it (products of sines and cosines of the angles, angle rates as factors)."""
    angles, rates = TRAILER.q[2:], TRAILER.qd[2:]
    ex = -TRAILER.qd[0] * sp.sin(angles[k]) + TRAILER.qd[1] * sp.cos(angles[k])
    for j in range(1, k + 1):
        ex += -sp.Symbol(f"d{j}", positive=True) * rates[j] * (
            sp.sin(angles[j]) * sp.sin(angles[k]) + sp.cos(angles[j]) * sp.cos(angles[k]))
    return ex


EXAMPLES = [
    xd - a * sp.cos(th) * phd,
    -sp.sin(th) * xd + sp.cos(th) * yd,
    3 * xd,
    xd,
    -xd,
    a * b * (sp.sin(th) * sp.sin(ph) + sp.cos(th) * sp.cos(ph)) * thd - c * phd + yd / 2,
    (xd + yd) * sp.cos(th),            # a velocity inside a factor: the differentiating route
    sp.sqrt(2) * xd * a + sp.Rational(1, 3) * a * yd,
    sp.Eq(xd, a * sp.cos(th) * phd),
    xd * a + yd * a - xd * a,          # cancels on construction
]


@pytest.mark.parametrize("ex", EXAMPLES, ids=range(len(EXAMPLES)))
def test_same_as_differentiation(ex):
    e = ex.lhs - ex.rhs if isinstance(ex, sp.Equality) else ex
    assert sp.srepr(velocity_form(S, ex).covector) == sp.srepr(tuple(by_differentiation(S, e)))


@pytest.mark.parametrize("ex", [xd - ST.t, a * xd + sp.cos(x) * sp.sin(y) + ST.t * (a + b), yd],
                         ids=range(3))
def test_same_as_differentiation_with_time(ex):
    ex = ex.subs({s: t for s, t in zip(S.state_symbols, ST.state_symbols)})
    assert sp.srepr(velocity_form(ST, ex).covector) == sp.srepr(tuple(by_differentiation(ST, ex)))


def test_trailer_constraints_same_and_not_differentiated(monkeypatch):
    """Constraints of the N-trailer's shape are read off without one call of sympy's diff
    (before: one per velocity and constraint), and equal the differentiated coefficients."""
    space = TRAILER
    cons = [trailer_constraint(k) for k in range(4)]
    expected = [sp.srepr(tuple(by_differentiation(space, e))) for e in cons]
    calls = []
    real = sp.Expr.diff

    def spy(self, *args, **kw):
        calls.append(self)
        return real(self, *args, **kw)

    monkeypatch.setattr(sp.Expr, "diff", spy)
    monkeypatch.setattr(forms.sp, "diff", lambda *a, **k: calls.append(a) or real(*a, **k))
    got = [sp.srepr(velocity_form(space, e).covector) for e in cons]
    assert calls == []
    assert got == expected


def test_nonlinear_and_affine_errors():
    with pytest.raises(NotLinearError):
        velocity_form(S, xd * yd)
    with pytest.raises(NotLinearError):
        velocity_form(S, xd ** 2)
    with pytest.raises(NotLinearError):
        velocity_form(S, xd * sp.sin(yd))
    with pytest.raises(NotLinearError, match="velocity-free part"):
        velocity_form(S, xd + sp.cos(th))


terms = st.tuples(st.integers(-3, 3), st.sampled_from([sp.S.One, a, sp.cos(th), sp.sin(th) * sp.cos(ph), a * b,
                                                        sp.sin(th) * sp.sin(ph) + sp.cos(th) * sp.cos(ph)]),
                  st.sampled_from([xd, yd, thd, phd]))


@settings(deadline=None, max_examples=60)
@given(st.lists(terms, min_size=1, max_size=6))
def test_random_linear_combinations(ts):
    ex = sp.Add(*[k * f * v for k, f, v in ts])
    assert sp.srepr(velocity_form(S, ex).covector) == sp.srepr(tuple(by_differentiation(S, ex)))
