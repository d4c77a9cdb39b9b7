"""backend="c" (geonh.numerics.cbackend): the LLVM program compiled as a CPython extension.

The C backend must give the LLVM backend's values (1e-13 relative) on every route — f(t, y, p),
into, buffer, batch, unknowns, jacobian — on every model the numerics tests compile, refuse
cleanly without a compiler, and never let a symbol name reach the C source."""
import os
import re

import numpy as np

import pytest
import sympy as sp

from geonh import models
from geonh.equations import FORMS
from geonh.errors import MissingDependencyError, NotFoundError, SingularMapError
from geonh.numerics import cbackend
from geonh.numerics.codegen import compile_function, llvm_available

pytestmark = pytest.mark.skipif(cbackend.find_compiler() is None or not llvm_available(),
                                reason="needs a C compiler and symengine's LLVM backend")

MODELS = ["chaplygin-sleigh", "vertical-disk", "rotating-knife-edge", "dynamic-1-trailer", "dynamic-2-trailer"]


def _close(c, ref, rtol=1e-13):
    c, ref = np.asarray(c, dtype=float), np.asarray(ref, dtype=float)
    assert c.shape == ref.shape
    scale = max(1.0, float(np.max(np.abs(ref)))) if ref.size else 1.0
    assert np.all(np.abs(c - ref) <= rtol * np.maximum(np.abs(ref), scale)), np.max(np.abs(c - ref))


def test_odd_names_never_reach_the_c_source_and_compile():
    # the fast smoke test: symbol names that are not C identifiers (or are C keywords)
    names = ["a'b", "x[0]", "θ₁", "int", "out", "in", "v0", "x0", "/*", "\"; system(\"ls"]
    syms = [sp.Symbol(n) for n in names]
    a, b, th, kw = syms[:4]
    exprs = [sp.sin(th) * sp.cos(th) + a * b ** 3, sp.sqrt(kw ** 2 + 1) / (1 + b ** 2) + sum(syms[4:]),
             sp.exp(a) - sp.Abs(b) + sp.atan2(a, kw) + sp.Rational(1, 3) * th ** -2, sp.pi * a]
    c = compile_function(exprs, syms, backend="c")
    ref = compile_function(exprs, syms, backend="llvm")
    assert c.backend == "c"
    x = np.linspace(0.3, 1.2, len(syms))
    _close(c(x), ref(x))
    X = np.random.default_rng(0).uniform(0.2, 2.0, (7, len(syms)))
    _close(c.batch(X), ref.batch(X))
    se_args, se_exprs = c.program
    lines, outputs = cbackend.c_program(se_args, se_exprs)
    body = "\n".join(lines + outputs)
    for n in names:
        if n not in ("int", "out", "in", "v0"):     # these are also generated identifiers / a C keyword
            assert n not in body
    # every statement is `const double vN = <operands and operators>;` over generated names only
    allowed = {"in", "const", "double", "sin", "cos", "sqrt", "exp", "fabs", "atan2", "pow", "tan", "log"}
    for line in lines:
        m = re.fullmatch(r"  const double v\d+ = ([^;]*);", line)
        assert m, line
        for ident in re.findall(r"[A-Za-z_][A-Za-z_0-9]*", m.group(1)):
            assert ident in allowed or re.fullmatch(r"v\d+|e", ident), (ident, line)
        assert re.fullmatch(r"[A-Za-z0-9_\[\]\.\+\-\*/(), <>=?:]*", m.group(1)), line


def test_a_missing_compiler_raises_missing_dependency(monkeypatch):
    monkeypatch.setattr(cbackend, "find_compiler", lambda: None)
    x = sp.Symbol("x")
    with pytest.raises(MissingDependencyError, match="C compiler"):
        compile_function([x + 12345.5], [x], backend="c")
    eq = models.get("chaplygin-sleigh").equations("boltzmann-hamel")
    with pytest.raises(MissingDependencyError):
        eq.ode_function(backend="c")
    with pytest.raises(ImportError):   # MissingDependencyError is also an ImportError
        eq.ode_function(backend="c")


def test_an_operation_the_printer_does_not_know_is_refused():
    x = sp.Symbol("x")
    with pytest.raises(NotFoundError, match="backend 'c'"):
        compile_function([sp.gamma(x)], [x], backend="c")


def test_find_compiler_finds_the_system_compiler():
    cc = cbackend.find_compiler()
    assert cc is not None and cc[0]


def _routes_agree(eq, seed):
    fl = eq.ode_function(backend="llvm")
    fc = eq.ode_function(backend="c")
    assert fc.backend == "c" and fc._inline == fl._inline
    rng = np.random.default_rng(seed)
    n = fc.n_q + fc.n_u
    npar = len(fc.parameters)
    assert [s.name for s in fc.parameters] == [s.name for s in fl.parameters]
    for _ in range(3):
        y = rng.uniform(-1, 1, n)
        p = rng.uniform(0.5, 2.0, npar)
        t = float(rng.uniform(0, 1))
        ref = fl(t, y, p)
        _close(fc(t, y, p), ref)
        _close(fc.into(np.empty(n), t, y, p), ref)
        b = fc.buffer()
        b.args[0] = t
        b.y[:] = y
        if npar:
            b.args[b.param_index] = p
        b.run()
        _close(b.out, ref)
        _close(fc.unknowns(t, y, p), fl.unknowns(t, y, p))
        J = fl.jacobian(t, y, p)
        _close(fc.jacobian(t, y, p), J, rtol=1e-12)
    Y = rng.uniform(-1, 1, (50, n))
    P = rng.uniform(0.5, 2.0, npar)
    _close(fc.batch(0.2, Y, P), fl.batch(0.2, Y, P))
    _close(fc.batch_unknowns(0.2, Y, P), fl.batch_unknowns(0.2, Y, P))


@pytest.mark.slow
@pytest.mark.parametrize("name", MODELS)
def test_c_backend_gives_the_llvm_values_every_form(name):
    Mo = models.get(name)
    forms = [f for f, entry in FORMS.items() if entry.applies(Mo.system, Mo.dependent)]
    assert forms
    for i, form in enumerate(forms):
        _routes_agree(Mo.equations(form), seed=i)


@pytest.fixture(scope="module")
def sleigh_pair():
    eq = models.get("chaplygin-sleigh").equations("boltzmann-hamel")
    return eq.ode_function(backend="c"), eq.ode_function(backend="llvm")


@pytest.mark.slow
def test_c_solve_falls_back_and_reports_singularity_like_llvm(sleigh_pair):
    fc, fl = sleigh_pair
    y = np.array([0.0, 0.0, 0.0, 1.0, 1.0])
    # parameters (I, a, m): I + m a² = 0 makes M = diag(m, I + m a²) singular
    for f in (fc, fl):
        with pytest.raises(SingularMapError):
            f(0.0, y, [-2.0, 1.0, 2.0])
        b = f.buffer()
        b.y[:] = y
        b.p[:] = [-2.0, 1.0, 2.0]
        with pytest.raises(SingularMapError):
            b()
        with pytest.raises(SingularMapError, match="row 1"):
            f.batch(0.0, np.array([y, y]), np.array([[1.0, 1.0, 1.0], [-2.0, 1.0, 2.0]]))
    # not positive definite but regular: the inline check fails and the pivoting solve in C
    # gives the very bits of the Python solve of the LLVM route
    p = [-4.0, 1.0, 2.0]
    np.testing.assert_array_equal(fc(0.0, y, p), fl(0.0, y, p))
    np.testing.assert_array_equal(fc.batch(0.0, np.array([y, -y]), p), fl.batch(0.0, np.array([y, -y]), p))
    b = fc.buffer()
    b.y[:], b.p[:] = y, p
    b()
    np.testing.assert_array_equal(b.out, fl(0.0, y, p))


@pytest.mark.slow
def test_c_buffers_are_independent_and_bound_parameters_work(sleigh_pair):
    fc, fl = sleigh_pair
    rng = np.random.default_rng(3)
    y, p = rng.uniform(-1, 1, 5), rng.uniform(0.5, 2.0, 3)
    b1, b2 = fc.buffer(), fc.buffer()
    b1.y[:], b1.p[:] = y, p
    b2.y[:], b2.p[:] = -y, p
    b1()
    b2()
    _close(b1.out, fl(0.0, y, p))
    _close(b2.out, fl(0.0, -y, p))
    bc, bl = fc.bind({"a": 0.5}), fl.bind({"a": 0.5})
    _close(bc(0.0, y, p[[0, 2]]), bl(0.0, y, p[[0, 2]]))
    del b1
    import gc
    gc.collect()
    b2()   # the other buffer's entry still holds its arrays
    _close(b2.out, fl(0.0, -y, p))


@pytest.mark.slow
def test_c_module_entries_check_their_buffers(sleigh_pair):
    fc, _ = sleigh_pair
    mod = fc._cmod
    with pytest.raises(ValueError):
        mod.into(np.empty(3), np.empty(mod.nout))
    with pytest.raises(ValueError):
        mod.into(np.empty(mod.nin), np.empty(mod.nout, dtype=np.float32))
    with pytest.raises((ValueError, BufferError)):
        mod.batch(np.empty((4, mod.nin))[:, ::1].T, np.empty((mod.nin, mod.nout)), None)
    with pytest.raises(ValueError):
        mod.batch(np.empty((4, mod.nin)), np.empty((3, mod.nout)), None)
    shared = np.zeros(mod.nin + mod.nout)
    with pytest.raises(ValueError, match="overlap"):
        mod.into(shared[:mod.nin], shared[1:1 + mod.nout])
    ro = np.empty(mod.nout)
    ro.flags.writeable = False
    with pytest.raises((ValueError, BufferError)):
        mod.into(np.empty(mod.nin), ro)


@pytest.mark.slow
def test_same_program_is_compiled_once_per_process(monkeypatch):
    x = sp.Symbol("x")
    compile_function([x * 7.25 + 1], [x], backend="c")
    calls = []
    monkeypatch.setattr(cbackend.subprocess, "run", lambda *a, **k: calls.append(a))
    c = compile_function([x * 7.25 + 1], [x], backend="c")
    assert calls == [] and c([2.0])[0] == 15.5


@pytest.mark.slow
def test_so_cache_hook_is_consulted(monkeypatch):
    x = sp.Symbol("x")
    store = {}

    class Store:
        def get(self, key):
            return store.get(key)

        def put(self, key, path):
            store[key] = path

    monkeypatch.setattr(cbackend, "so_cache", Store())
    c = compile_function([x * 3.5 - 2], [x], backend="c")
    assert len(store) == 1 and c([2.0])[0] == 5.0


@pytest.mark.slow
def test_built_modules_are_kept_in_the_compile_cache(monkeypatch, tmp_path):
    """Without a store of the caller's, a built module goes to the compile cache (a .so and its
    digest); built again (another process: the per-process table emptied) it is loaded from
    there, the compiler never started; a file that no longer matches its digest is rebuilt."""
    from geonh.numerics import cache
    monkeypatch.setenv("GEONH_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("GEONH_CACHE", raising=False)
    x = sp.Symbol("x")
    c = compile_function([x * 2.75 + 0.5], [x], backend="c")
    files = sorted(p.suffix for p in (tmp_path / "compiled").iterdir())
    assert files == [".sha256", ".so"] and c([2.0])[0] == 6.0
    monkeypatch.setattr(cbackend, "_MODULES", {})

    def no_compiler(*a, **k):
        raise AssertionError("compiled again")
    monkeypatch.setattr(cbackend.subprocess, "run", no_compiler)
    assert compile_function([x * 2.75 + 0.5], [x], backend="c")([2.0])[0] == 6.0
    so = next((tmp_path / "compiled").glob("*.so"))
    # a damaged file, put in place as a new file: the loaded module maps the old one (truncating
    # a mapped library in place would crash this process with SIGBUS at its next page fault)
    damaged = tmp_path / "damaged.so"
    damaged.write_bytes(so.read_bytes()[:100])
    os.replace(damaged, so)
    assert cache.ModuleFiles(tmp_path / "compiled").get(so.stem) is None
    monkeypatch.setattr(cbackend, "_MODULES", {})
    with pytest.raises(AssertionError, match="compiled again"):
        compile_function([x * 2.75 + 0.5], [x], backend="c")


def test_flags_keep_ieee_rounding():
    for native in (False, True):
        flags = cbackend.compile_flags(native=native)
        assert "-ffp-contract=off" in flags and "-ffast-math" not in flags
        assert ("-march=native" in flags) == native
    assert "-O0" in cbackend.compile_flags(0) and "-O3" in cbackend.compile_flags(7)


@pytest.mark.slow
def test_c_call_takes_arrays_lists_and_refuses_what_llvm_refuses(sleigh_pair):
    from geonh.errors import GeonhError
    fc, fl = sleigh_pair
    y = [0.1, -0.2, 0.3, 0.4, -0.5]
    p = [1.5, 0.5, 2]
    ref = fl(0.0, np.array(y), np.array(p, dtype=float))
    for yy in (y, tuple(y), np.array(y), [np.float64(v) for v in y]):
        for pp in (p, np.array(p, dtype=float), tuple(p)):
            _close(fc(0, yy, pp), ref)
            _close(fc.into(np.empty(5), 0.0, yy, pp), ref)
    assert fc._ccall(0.0, y, p) is not NotImplemented                 # the one-C-call path is taken
    assert fc._ccall(0.0, np.array(y), np.array(p, dtype=float)) is not NotImplemented
    assert fc._ccall(0.0, [True] * 5, p) is NotImplemented            # off the fast path
    r1 = fc(0.0, y, p)
    r2 = fc(0.0, y, p)
    assert r1 is not r2 and r1.base is None or r1.base is not r2.base   # fresh arrays
    for bad in ((0.0, y[:4], p), (0.0, y, p[:2]), (0.0, y), (0.0, y + [1.0], p), ("zero", y, p),
                (0.0, ["a", 0, 0, 0, 0], p), (0.0, np.array(y)[::-1][::2], p)):
        errs = []
        for f in (fc, fl):
            try:
                f(*bad)
                errs.append(None)
            except GeonhError as e:
                errs.append(type(e))
        assert errs[0] == errs[1], (bad, errs)


@pytest.mark.slow
def test_c_call_with_parameters_bound_in_the_middle(sleigh_pair):
    # parameters (I, a, m); binding a leaves open ones at non-contiguous argument positions
    fc, fl = sleigh_pair
    bc, bl = fc.bind({"a": 0.7}), fl.bind({"a": 0.7})
    assert not isinstance(bc._pidx, slice)
    y = np.array([0.3, 0.1, -0.2, 0.5, 0.9])
    _close(bc(0.0, y, [1.2, 3.0]), bl(0.0, y, [1.2, 3.0]))
    _close(bc.into(np.empty(5), 0.0, y, np.array([1.2, 3.0])), bl(0.0, y, [1.2, 3.0]))
