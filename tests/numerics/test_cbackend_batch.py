"""The C backend's batch loop evaluates several states at once (geonh.numerics.cbackend,
``geonh_eval_w``): vector +, ×, ÷ lane by lane and math.h per lane must give the scalar path's
values (1e-13 relative; IEEE makes them the same bits) for every row, the rows left over by the
vector width included, and the vector statements must hold generated identifiers only."""
import re

import numpy as np

import pytest
import sympy as sp

from geonh import models
from geonh.models import mechanical
from geonh.numerics import cbackend
from geonh.numerics.codegen import compile_function

pytestmark = pytest.mark.skipif(cbackend.find_compiler() is None, reason="needs a C compiler")


def _rel(c, ref) -> float:
    c, ref = np.asarray(c, dtype=float), np.asarray(ref, dtype=float)
    return float(np.max(np.abs(c - ref) / np.maximum(np.abs(ref), 1e-300), initial=0.0))


def _rows_agree(f, seed: int) -> None:
    """Every row of the module's batch (full outputs, with and without the solve) and of
    f.batch equals the scalar entries' value of that row."""
    mod, layout = f._cmod, f._layout
    assert "geonh_eval_w" in cbackend.c_source(*f._core.main.program)
    rng = np.random.default_rng(seed)
    ny, npar = f.n_q + f.n_u, len(f.parameters)
    width = cbackend._width(len(cbackend.c_program(*f._core.main.program)[0]))
    for rows in (1, width - 1, width, width + 1, 3 * width + 3):
        Y = rng.uniform(-3.0, 3.0, (rows, ny))           # angles beyond ±π/4: libm's other branches
        P = rng.uniform(0.5, 2.0, (rows, npar))
        t = rng.uniform(0.0, 1.0, rows)
        A = np.ascontiguousarray(np.column_stack([t, Y, P]))
        for lay in (None, layout):
            O = np.full((rows, mod.nout), np.nan)
            assert mod.batch(A, O, lay) == -1
            for r in range(rows):
                o = np.empty(mod.nout)
                mod.into(A[r], o)
                if lay is not None:       # the scalar solve: the per-call entry of a bound buffer
                    b = f.buffer()
                    b.args[:] = A[r]
                    b.run()
                    o[:ny] = b.out
                    assert _rel(O[r, :ny], o[:ny]) <= 1e-13, (rows, r)
                else:
                    assert _rel(O[r], o) <= 1e-13, (rows, r)
        got = f.batch(t, Y, P)
        for r in range(rows):
            assert _rel(got[r], f(float(t[r]), Y[r], P[r])) <= 1e-13, (rows, r)


@pytest.fixture(scope="module")
def sleigh():
    return models.get("chaplygin-sleigh").equations("boltzmann-hamel").ode_function(backend="c")


def test_batch_rows_give_the_scalar_values_sleigh(sleigh):
    _rows_agree(sleigh, seed=1)


@pytest.mark.slow
def test_batch_rows_give_the_scalar_values_4_trailer():
    eq = mechanical.dynamic_n_trailer(4).equations("boltzmann-hamel")
    _rows_agree(eq.ode_function(backend="c"), seed=2)


@pytest.mark.slow
@pytest.mark.parametrize("width", [2, 8])
def test_every_width_gives_the_scalar_values(monkeypatch, width):
    # a different width is a different source, so a module of its own
    monkeypatch.setattr(cbackend, "_WIDTH", width)
    x, y, z = sp.symbols("x y z")
    exprs = [sp.sin(x) * sp.cos(x) + y ** 3 / z, sp.sqrt(z ** 2 + 1) - sp.Abs(y) + sp.exp(-x),
             sp.atan2(y, z) + sp.cos(x - y) * 2.5, x]
    c = compile_function(exprs, [x, y, z], backend="c")
    assert f"#define WIDTH {width}" in cbackend.c_source(*c.program)
    X = np.random.default_rng(width).uniform(-4.0, 4.0, (2 * width + 1, 3))
    B = c.batch(X)
    for r in range(X.shape[0]):
        assert _rel(B[r], c(X[r])) <= 1e-13


def test_width_grows_with_the_program():
    assert cbackend._width(10) == 4 and cbackend._width(5000) == 8


def test_width_without_native_target_is_the_baseline_vector():
    # generic vectors wider than the target holds made gcc's build take minutes on large programs
    assert cbackend._width(10, native=False) == 2 and cbackend._width(5000, native=False) == 2
    se = pytest.importorskip("symengine")
    x, y = se.symbols("x y")
    assert "#define WIDTH 2" in cbackend.c_source([x, y], [x * y + 1], native=False)
    assert "#define WIDTH 4" in cbackend.c_source([x, y], [x * y + 1])


@pytest.mark.slow
def test_vector_statements_hold_generated_identifiers_only():
    names = ["a'b", "x[0]", "θ₁", "int", "/*", "\"; system(\"ls"]
    syms = [sp.Symbol(n) for n in names]
    a, b, th, kw = syms[:4]
    exprs = [sp.sin(th) * sp.cos(th) + a * b ** 3, sp.sqrt(kw ** 2 + 1) / (1 + b ** 2) + sum(syms[4:]),
             sp.sign(a) + sp.Max(a, b) + sp.cot(th)]
    c = compile_function(exprs, syms, backend="c")
    steps, outputs = cbackend._steps(*c.program)
    lines = cbackend._lanes(steps, outputs, 4)
    allowed = {"in", "NIN", "NOUT", "out", "vd", "const", "sin", "cos", "sqrt", "tan", "fmax", "fabs"}
    for line in lines:
        m = re.fullmatch(r"  const vd [vx]\d+ = ([^;]*);|  out\[\d \* NOUT \+ \d+\] = ([^;]*);", line)
        assert m, line
        for ident in re.findall(r"[A-Za-z_][A-Za-z_0-9]*", m.group(1) or m.group(2)):
            assert ident in allowed or re.fullmatch(r"[vx]\d+|e", ident), (ident, line)
    for n in names:
        if n not in ("int",):
            assert n not in "\n".join(lines)


def test_vector_rows_solve_and_report_singularity_like_one_row(sleigh):
    # parameters (I, a, m) of the sleigh: I + m a² = 0 makes M singular; I + m a² < 0 is regular
    # but not positive definite, so the inline elimination's check fails and the pivoting solve
    # in C runs — on rows evaluated in a vector block too
    from geonh.errors import SingularMapError
    width = cbackend._width(len(cbackend.c_program(*sleigh._core.main.program)[0]))
    rows = 2 * width + 1
    Y = np.random.default_rng(5).uniform(-1.0, 1.0, (rows, 5))
    P = np.tile([-4.0, 1.0, 2.0], (rows, 1))
    got = sleigh.batch(0.0, Y, P)
    for r in range(rows):
        np.testing.assert_array_equal(got[r], sleigh(0.0, Y[r], P[r]))
    P[width + 1] = [-2.0, 1.0, 2.0]
    with pytest.raises(SingularMapError, match=f"row {width + 1}"):
        sleigh.batch(0.0, Y, P)
