"""Safe parsing: strings become sympy expressions without ever reaching eval."""
from __future__ import annotations

import pytest
import sympy as sp
from hypothesis import given, settings, strategies as st

import geonh as g
from geonh.kernel.parsing import as_expr, parse, parse_condition


def test_formulas_over_the_space_symbols():
    S = g.ConfigurationSpace("x y theta", time=True)
    x, y, th = S.q
    e = parse("sin(theta)*x_dot - cos(theta)*y_dot + t/2", S.state_symbols)
    assert e == sp.sin(th) * S.qd[0] - sp.cos(th) * S.qd[1] + S.t / 2
    assert parse("0.1*x", S.q) == sp.Rational(1, 10) * x
    assert parse("m*g*l", ()) == sp.Symbol("m", real=True) * sp.Symbol("g", real=True) * sp.Symbol("l", real=True)
    assert parse("2**-1 + pi", ()) == sp.Rational(1, 2) + sp.pi


def test_a_formula_may_span_lines():
    """Line breaks and indentation inside a formula are whitespace (a TOML multi-line string),
    and a # comment ends with its line; parentheses that do not close inside the formula are
    still errors."""
    S = g.ConfigurationSpace("x y theta")
    x, y, th = S.q
    one_line = parse("sin(theta)*x_dot - cos(theta)*y_dot + x/2", S.state_symbols)
    for text in ("\n    sin(theta)*x_dot\n    - cos(theta)*y_dot\n    + x/2\n",
                 "sin(theta)*x_dot -\n\tcos(theta)*y_dot  # the knife edge\n  + x/2",
                 "sin(theta)*x_dot - cos(theta)*y_dot +\r\n x/2"):
        assert parse(text, S.state_symbols) == one_line
    assert parse_condition("x +\n  y > 1", S.q) == parse_condition("x + y > 1", S.q)
    for text, words in (("sin)(x\n", "unmatched"), ("x) + (y\n", "unmatched"), ("x +\n", "not a formula"),
                        ("x\n)(", "unmatched"), ("x +\n y.real", "Attribute")):
        with pytest.raises(g.ParseError, match=words):
            parse(text, S.q, what="test input")


@pytest.mark.parametrize("text, words", [
    ("__import__('os').system('touch /tmp/geonh_pwned')", "not allowed"),
    ("__import__('os')", "__import__"),
    ("().__class__.__bases__[0].__subclasses__()", r"calling '\(\)\.__class__\.__bases__\[0\]\.__subclasses__' is not allowed"),
    ("x.__class__", "Attribute"),
    ("[x for x in ()]", "ListComp"),
    ("lambda: 0", "Lambda"),
    ("open('/etc/passwd')", "open"),
    ("sin(x, evaluate=False)", "keyword"),
    ("x == 1", "Compare"),
    ("x[0]", "Subscript"),
    ("sin", "without arguments"),
    ("True", "not a number"),
    ("1 +", "not a formula"),
    ("_x + 1", "leading underscore"),
    ("9**9**9**9", "too large"),
])
def test_refused_constructs(text, words, tmp_path):
    with pytest.raises(g.ParseError, match=words) as info:
        parse(text, (), what="test input")
    assert "test input" in str(info.value)


def test_injection_executes_nothing(tmp_path):
    marker = tmp_path / "pwned"
    with pytest.raises(g.ParseError):
        parse(f"__import__('os').system('touch {marker}')")
    with pytest.raises(g.ParseError):
        parse(f"exec(\"open('{marker}', 'w')\")")
    assert not marker.exists()


@pytest.mark.parametrize("value", [True, False, None, sp.true, {"x": 1}, [1, 2], object(), float("nan"), float("inf")])
def test_as_expr_refuses_non_expressions(value):
    with pytest.raises(g.ParseError):
        as_expr(value, what="a component")


def test_as_expr_passes_numbers_and_sympy():
    x = sp.Symbol("x")
    assert as_expr(x) is x
    assert as_expr(3) == 3 and isinstance(as_expr(3), sp.Integer)
    assert isinstance(as_expr(0.5), sp.Float)
    assert as_expr(sp.Rational(2, 3)) == sp.Rational(2, 3)


@settings(deadline=2000, max_examples=200)
@given(st.text(max_size=60))
def test_fuzz_only_parse_errors_escape(text):
    try:
        e = parse(text)
    except g.ParseError:
        return
    except (ZeroDivisionError, OverflowError, ValueError, TypeError, RecursionError) as err:
        # arithmetic on parsed numbers may fail inside sympy (e.g. 0**-1 is zoo, not an error)
        pytest.fail(f"{text!r} raised {type(err).__name__}: {err}")
    assert isinstance(e, sp.Basic)


# -- bounded work (issue 20): every input is refused with a LimitError naming the limit ------------
import sys
import time  # noqa: E402

from geonh.kernel.parsing import Limits, check_size, current_limits  # noqa: E402


def refused(text, limit: str):
    """``parse(text)`` raises a LimitError naming ``limit`` and how to raise it, quickly."""
    t0 = time.perf_counter()
    with pytest.raises(g.LimitError) as info:
        parse(text, what="test input")
    assert time.perf_counter() - t0 < 2.0, text[:60]
    msg = str(info.value)
    assert "test input" in msg and limit in msg and "geonh.limits" in msg, msg
    return msg


@pytest.mark.parametrize("text", [
    "((9**999)**999)**999", "(9**999)**999", "(10**600)*(10**600)", "x*10**600*10**600",
    "(x + 10**600)*10**600", "(10**600 + x)**2", "10**999 * 10**999 / 3", "-(10**800)*10**300",
    "1e999999", "1.5e-999999", "1e400*1e400*1e400", "0." + "0" * 1500 + "1", "1" * 1200,
    "sqrt(10**700*10**700)", "sin(10**999*10**2)",
])
def test_number_size_is_bounded_after_every_operation(text):
    refused(text, "digits")


@pytest.mark.parametrize("text", [
    "10**10**10", "10**(10**10)", "(10)**((10)**(10))", "10.0**1e10", "1e10**1e10", "x**1001",
    "2**-1001", "x**(10**4000)", "9**9**9**9", "1.5**1e300", "*".join(["x"] * 1001), "x**(3001/3)",
])
def test_exponents_are_bounded(text):
    refused(text, "exponent")


@pytest.mark.parametrize("text", [
    "(1+" * 150 + "x" + ")" * 150,                # right-nested sums
    "sin(" * 150 + "x" + ")" * 150,               # nested calls
    "**".join(["x"] * 150),                       # a tower of powers
    "**".join(["2.5"] * 150),                     # with floats
    "x*(1-" * 120 + "x" + ")" * 120,              # products of differences
])
def test_nesting_depth_is_bounded(text):
    refused(text, "depth")


@pytest.mark.parametrize("text", [
    "-" * 15000 + "x",                            # Python's parser runs out of memory
    "+".join(["x"] * 12000),                      # Python's parser recurses too deeply
    "(" * 300 + "x" + ")" * 300,                  # too many nested parentheses for Python
    "sin(" * 250 + "x" + ")" * 250,
])
def test_what_pythons_parser_cannot_take_is_a_limit_error(text):
    t0 = time.perf_counter()
    with g.limits(length=10**6), pytest.raises(g.LimitError, match="nested more deeply than Python's parser allows"):
        parse(text)
    assert time.perf_counter() - t0 < 2.0


def test_length_and_node_limits():
    refused("x+" * 10_001 + "x", "length")
    groups = ["(" + "+".join(f"x{i}_{k}" for k in range(120)) + ")" for i in range(120)]
    with g.limits(length=10**6):
        refused("*".join(groups), "nodes")                               # 28,000 nodes, 240 deep at most
    with g.limits(nodes=50):
        refused("+".join(["x"] * 40), "nodes")


def test_large_but_legitimate_formulas_still_parse():
    x = sp.Symbol("x", real=True)
    assert parse("+".join(["x"] * 1000)) == 1000 * x                     # a sum of 1000 terms
    assert parse("*".join(["x"] * 1000)) == x**1000                       # a long product
    assert parse("+".join(f"x{k}" for k in range(2000))).is_Add           # many distinct terms
    assert parse("1e308*1e308") == sp.Integer(10) ** 616                  # exact, no float overflow
    assert parse("(10**10)**10") == sp.Integer(10) ** 100
    assert parse("9**999") == sp.Integer(9) ** 999
    assert parse("2**1000") == sp.Integer(2) ** 1000
    assert parse("-" * 99 + "x") == -x and parse("+-" * 500 + "x") == x   # chains of signs
    assert parse("(" * 150 + "x" + ")" * 150) == x                        # parentheses alone nest nothing
    assert parse("(" * 150 + "x" + "+1)" * 150) == x + 150                # a left-nested sum is flat
    assert parse("sin(" * 90 + "x" + ")" * 90).count(sp.sin) == 90
    assert parse("2.5**2.5**2.5") == sp.Rational(5, 2) ** (sp.Rational(5, 2) ** sp.Rational(5, 2))
    assert parse("0.1 - 1e-3") == sp.Rational(99, 1000)
    assert parse("x - y + z - 1") == x - sp.Symbol("y", real=True) + sp.Symbol("z", real=True) - 1
    assert parse("a/b/c*d") == sp.Symbol("a", real=True) * sp.Symbol("d", real=True) / (
        sp.Symbol("b", real=True) * sp.Symbol("c", real=True))


def test_limits_can_be_raised_for_a_block():
    with pytest.raises(g.LimitError, match="digits"):
        parse("(10**999)*(10**999)")
    with g.limits(digits=5000) as lim:
        assert lim.digits == 5000 and current_limits().digits == 5000
        assert parse("(10**999)*(10**999)") == sp.Integer(10) ** 1998
    assert current_limits() == Limits()                                   # restored after the block
    with g.limits(exponent=5000):
        assert parse("x**4000") == sp.Symbol("x", real=True) ** 4000
    with pytest.raises(g.ParseError, match="unknown limit"):
        with g.limits(digit=5):
            pass
    with pytest.raises(g.ParseError, match="positive integer"):
        with g.limits(digits=0):
            pass
    assert issubclass(g.LimitError, g.ParseError) and issubclass(g.LimitError, ValueError)


# -- sympy objects passed in are checked by one bounded walk ----------------------------------------
def test_huge_sympy_inputs_are_refused_cheaply():
    x = sp.Symbol("x", real=True)
    cases = {
        "nodes": sp.Add(*sp.symbols("a0:30000", real=True)),
        "digits": sp.Integer(10) ** (10**5),
        "exponent": sp.Pow(x, 10**6, evaluate=False),
    }
    cases["digits "] = sp.factorial(sp.Integer(10**8), evaluate=False)
    cases["digits  "] = sp.Pow(sp.Integer(10), sp.Integer(999), evaluate=False) * sp.Pow(7, 999, evaluate=False)
    cases["digits    "] = sp.Pow(sp.Integer(10)**900, sp.Integer(3), evaluate=False)
    cases["digits   "] = sp.Float("1.5", 5000)
    deep = x
    for _ in range(150):
        deep = sp.sin(deep)
    cases["depth"] = deep
    for limit, expr in cases.items():
        t0 = time.perf_counter()
        with pytest.raises(g.LimitError, match=limit.strip()):
            as_expr(expr, what="a component")
        assert time.perf_counter() - t0 < 2.0, limit
    assert check_size(x + 1) == x + 1


@pytest.mark.slow
def test_a_frame_from_a_huge_sum_fails_fast():
    """A 10^5-term quasi-velocity: a clear LimitError at the boundary, not a computation that
    runs for ever."""
    S = g.ConfigurationSpace("x y theta")
    big = sp.Add(*sp.symbols("c0:100000", real=True)) * S.qd[0]
    t0 = time.perf_counter()
    with pytest.raises(g.LimitError, match="nodes"):
        g.Frame.from_quasi_velocities(S, [big, S.qd[1], S.qd[2]])
    assert time.perf_counter() - t0 < 5.0


# -- fuzzing: random strings and random formulas give ParseErrors, in bounded time ----------------
_atoms = st.one_of(
    st.integers(min_value=-10**6, max_value=10**6).map(str),
    st.integers(min_value=0, max_value=4000).map(lambda k: "9" * k or "0"),               # long literals
    st.tuples(st.integers(0, 999), st.integers(-10**7, 10**7)).map(lambda t: f"{t[0]}.5e{t[1]}"),
    st.sampled_from(["x", "y", "pi", "E", "t", "x_dot", "_x", "sin", "1j", "True", "None", "''"]),
)


def _combine(children):
    op = st.sampled_from(["+", "-", "*", "/", "**", "%", "//", "<", "and", "."])
    fn = st.sampled_from(["sin", "cos", "exp", "log", "sqrt", "atan2", "eval", "open", "__import__"])
    return st.one_of(
        st.tuples(children, op, children).map(lambda t: f"({t[0]}){t[1]}({t[2]})"),
        st.tuples(st.sampled_from(["-", "+", "~", "not "]), children).map(lambda t: t[0] + t[1]),
        st.tuples(fn, st.lists(children, min_size=0, max_size=2)).map(lambda t: f"{t[0]}({', '.join(t[1])})"),
        st.tuples(children, st.integers(1, 400)).map(lambda t: "(" * t[1] + t[0] + ")" * t[1]),
        st.tuples(children, st.integers(1, 300)).map(lambda t: "-" * t[1] + t[0]),
        st.tuples(children, st.integers(2, 300), st.sampled_from(["+", "*", "**"])).map(
            lambda t: t[2].join([t[0]] * t[1])),
    )


formulas = st.recursive(_atoms, _combine, max_leaves=12)


@pytest.mark.slow
@settings(deadline=None, max_examples=120)
@given(formulas)
def test_fuzz_random_formulas_only_parse_errors_in_bounded_time(text):
    t0 = time.perf_counter()
    try:
        e = parse(text)
    except g.ParseError:
        pass
    else:
        assert isinstance(e, sp.Basic)
    assert time.perf_counter() - t0 < 5.0, text[:80]


@settings(deadline=None, max_examples=100)
@given(st.text(alphabet=st.sampled_from("0123456789.e+-*/()x_ sinpE"), max_size=200))
def test_fuzz_operator_soup(text):
    t0 = time.perf_counter()
    try:
        parse(text)
    except g.ParseError:
        pass
    assert time.perf_counter() - t0 < 5.0, text[:80]


@pytest.mark.parametrize("n", [2_000, 3_000, 4_000])
def test_long_sums_within_the_length_limit_parse_in_any_thread(n):
    """Python's parser nests a sum of n terms n deep and stops near 2,900 terms; within the
    length limit geonh retries with a raised recursion limit (restored after), so such a sum
    is an expression, in the main thread and in another one."""
    import threading
    text = "+".join(["x"] * n) + f" - {n}*x"
    assert g.is_zero(text)
    out = []
    t = threading.Thread(target=lambda: out.append(g.is_zero(text)))
    t.start()
    t.join()
    assert out == [True]
    assert sys.getrecursionlimit() < 5_000          # restored


def test_name_map_of_symbols_seen_is_found_by_identity(monkeypatch):
    """The check of every expression against a space's symbols finds their name map without
    comparing symbols with sympy's ``__eq__`` (issue 22, fixed costs): a space built again
    after sympy's cache is cleared has equal but new symbols, and the lru cache compared them
    one by one on every expression of a frame (half of its input checks)."""
    from sympy.core.cache import clear_cache

    from geonh.errors import ParseError
    from geonh.kernel import parsing
    from geonh.kernel.space import ConfigurationSpace

    S1 = ConfigurationSpace("x y")
    parsing._name_map(S1.state_symbols)
    clear_cache()
    S2 = ConfigurationSpace("x y")
    assert S2.qd[0] == S1.qd[0] and S2.qd[0] is not S1.qd[0]
    first = parsing._name_map(S2.state_symbols)
    calls = []
    eq = sp.Basic.__eq__

    def counting(self, other):
        calls.append(1)
        return eq(self, other)

    monkeypatch.setattr(sp.Basic, "__eq__", counting)
    again = parsing._name_map(S2.state_symbols)   # a new tuple of the same symbols
    monkeypatch.undo()
    assert again == first and calls == []
    with pytest.raises(ParseError):
        parsing._name_map((S2.q[0], 3))
