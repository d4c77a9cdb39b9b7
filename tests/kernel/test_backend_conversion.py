"""Translation.to_sympy builds sums and products in sympy's canonical order without sympy's
flattening: the order comes from memoized tuple keys (no ``Basic.compare`` calls), and
factors that sympy turned into products (sin(−θ₁ + θ₂) → −sin(θ₁ − θ₂)) are merged without
re-flattening.  The results must be exactly (srepr) what sympy's constructors build."""
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from geonh.kernel import backend
from geonh.kernel.backend import Translation

se = pytest.importorskip("symengine")

a, b, c, x, y = sp.symbols("a b c x y")
# symengine keeps sin(θ₂ − θ₁) as sin(−θ₁ + θ₂), which sympy's sin turns into −sin(θ₁ − θ₂): a
# product factor that comes back as a product
t1, t2 = sp.symbols("theta1 theta2")
F = sp.Function("F")

EXAMPLES = [
    x * sp.sin(t2 - t1) * y,                                    # comes back as −sin(θ₁ − θ₂)
    x * sp.sin(t2 - t1) ** 2 * sp.cos(t1 - t2) / c,
    3 * x * sp.sin(t2 - t1) * sp.sin(a - c),
    -x * sp.sin(t2 - t1) + y * sp.cos(a) ** 2 * sp.sin(t2 - t1) - sp.sqrt(2) * x / 3,
    sp.sin(t2 - t1) * sp.sin(t1 - t2),                             # the same base twice: flattening decides
    2 * sp.sin(t2 - t1) * (x + y),
    sp.sin(t2 - t1) * (x + y),
    sp.exp(x) * sp.sin(t2 - t1) * sp.exp(t1 - t2),
    sp.sqrt(3) * sp.sin(t2 - t1) * sp.sqrt(2),
    (x + sp.sin(t2 - t1) * y) * (a * b - c * sp.cos(x - y)) + sp.Rational(1, 2) * x ** 3 * y ** -2,
    F(x) * y + x * F(y) * sp.sin(t2 - t1),                      # an undefined function: compare's own sort
    sp.Float("1.5", 30) * x * sp.sin(t2 - t1) + sp.pi * y,
    sp.I * x * sp.sin(t2 - t1) + sp.I * y,
]


def _conversion(ex):
    """(geonh's conversion of ex's symengine form, sympy's own conversion of it)."""
    e = se.sympify(ex)
    return Translation().to_sympy(e), sp.sympify(e)


@pytest.mark.parametrize("ex", EXAMPLES, ids=range(len(EXAMPLES)))
def test_same_as_sympy_constructors(ex):
    got, ref = _conversion(ex)
    assert sp.srepr(got) == sp.srepr(ref)


def test_no_compare_calls(monkeypatch):
    """The canonical order of the arguments is read off memoized keys: Basic.compare is not
    called (before: every sum and product was sorted with it)."""
    ex = sum((sp.Symbol(f"m{i}") * sp.cos(x - sp.Symbol(f"t{i}")) * sp.sin(sp.Symbol(f"t{i}"))
              for i in range(8)), y * c)
    e = se.sympify(ex)
    ref = sp.sympify(e)
    calls = []
    real = sp.Basic.compare
    monkeypatch.setattr(sp.Basic, "compare", lambda s, o: calls.append(1) or real(s, o))
    got = Translation().to_sympy(e)
    assert calls == []
    assert sp.srepr(got) == sp.srepr(ref)


def test_nested_products_not_reflattened(monkeypatch):
    """A product with a factor that came back as a product (−sin(θ₁ − θ₂)) is merged, not
    given to Mul.flatten again (before: the whole product was re-flattened)."""
    ex = x * y * c * sp.sin(t2 - t1) * sp.cos(a) ** 2
    e = se.sympify(ex)
    assert any(isinstance(sp.sympify(f), sp.Mul) for f in e.args)   # the case at hand
    ref = sp.sympify(e)
    nested = []
    real = sp.Mul.flatten.__func__

    def spy(cls, seq):
        if any(isinstance(s, sp.Mul) for s in seq):
            nested.append(seq)
        return real(cls, seq)

    monkeypatch.setattr(sp.Mul, "flatten", classmethod(spy))
    got = Translation().to_sympy(e)
    assert nested == []
    assert sp.srepr(got) == sp.srepr(ref)


def test_sort_key_falls_back_for_unrankable_classes():
    keys: dict = {}
    with pytest.raises(backend._Unsortable):
        backend._sort_key(F(x), keys)
    d = sp.Dummy("d")
    rest = [d, x, sp.sin(x), F(y)]
    assert backend._sorted(rest, keys) == sorted(rest, key=sp.core.basic._args_sortkey)


atoms = st.sampled_from([x, y, a, sp.sin(t2 - t1), sp.cos(a - c), sp.sin(x) ** 2, sp.Rational(-2, 3), 3, sp.sqrt(2),
                         c ** -1, sp.exp(y)])


@settings(deadline=None, max_examples=80)
@given(st.lists(st.lists(atoms, min_size=1, max_size=4), min_size=1, max_size=5))
def test_random_sums_of_products(terms):
    ex = sp.Add(*[sp.Mul(*t) for t in terms])
    got, ref = _conversion(ex)
    assert sp.srepr(got) == sp.srepr(ref)
