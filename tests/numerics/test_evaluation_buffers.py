"""ODEFunction.into (the caller's result buffer) and ODEFunction.buffer (EvaluationBuffer)."""
import threading

import numpy as np
import pytest

from geonh.equations import boltzmann_hamel
from geonh.errors import DimensionError, GeonhError, SingularMapError
from geonh.models import mechanical as mm


def _c_param():
    from geonh.numerics.cbackend import find_compiler
    return pytest.param("c", marks=[pytest.mark.slow,
                                    pytest.mark.skipif(find_compiler() is None, reason="no C compiler")])


@pytest.fixture(scope="module", params=["auto", _c_param()])
def sleigh_f(request):
    # every test here runs on the default backend and on backend="c" (its own C entries)
    Mo = mm.chaplygin_sleigh()
    return boltzmann_hamel(Mo.system, Mo.frame).ode_function(backend=request.param)


@pytest.fixture(scope="module")
def bound_f(sleigh_f):
    return sleigh_f.bind({"a": 0.5})


def _state(seed):
    rng = np.random.default_rng(seed)
    return rng.uniform(-1, 1, 5), rng.uniform(0.5, 2.0, 3)


@pytest.mark.parametrize("seed", range(5))
def test_into_writes_the_values_of_call(sleigh_f, seed):
    y, p = _state(seed)
    out = np.full(5, np.nan)
    res = sleigh_f.into(out, 0.3, y, p)
    assert res is out
    np.testing.assert_array_equal(out, sleigh_f(0.3, y, p))


def test_into_and_call_agree_with_the_closed_form(sleigh_f):
    # v' = a w², w' = −m a v w / (I + m a²), parameters ordered (I, a, m)
    y = np.array([0.1, 0.2, 0.3, 0.4, 0.5])
    I, a, m = 1.0, 0.5, 2.0
    out = sleigh_f.into(np.empty(5), 0.0, y, [I, a, m])
    v, w = y[3], y[4]
    np.testing.assert_allclose(out[3:], [a * w**2, -m * a * v * w / (I + m * a**2)], rtol=1e-14)


def test_call_returns_fresh_arrays(sleigh_f):
    y, p = _state(1)
    r1 = sleigh_f(0.0, y, p)
    keep = r1.copy()
    sleigh_f(0.0, -y, p)
    np.testing.assert_array_equal(r1, keep)


@pytest.mark.parametrize("bad", [np.empty(4), np.empty(6), np.empty((5, 1)), np.empty(5, dtype=np.float32),
                                 np.empty(5, dtype=int), np.empty(10)[::2], [0.0] * 5, None,
                                 np.empty(5, dtype=">f8")])
def test_into_refuses_a_wrong_buffer(sleigh_f, bad):
    y, p = _state(2)
    with pytest.raises(DimensionError, match="into: out must be"):
        sleigh_f.into(bad, 0.0, y, p)


def test_into_refuses_a_read_only_buffer(sleigh_f):
    y, p = _state(3)
    out = np.zeros(5)
    out.flags.writeable = False
    with pytest.raises(DimensionError, match="read-only"):
        sleigh_f.into(out, 0.0, y, p)
    assert not out.any()


def test_into_checks_state_and_parameters(sleigh_f):
    y, p = _state(4)
    with pytest.raises(DimensionError):
        sleigh_f.into(np.empty(5), 0.0, y[:4], p)
    with pytest.raises(GeonhError):
        sleigh_f.into(np.empty(5), 0.0, y)
    with pytest.raises(DimensionError):
        sleigh_f.into(np.empty(5), 0.0, y, p[:2])


@pytest.mark.parametrize("bad", [__import__("sympy").Symbol("x"), 1.5, object()], ids=["symbol", "float", "object"])
def test_a_state_without_a_length_gets_a_geonh_error(sleigh_f, bad):
    """The fast paths read len(y): an object without one is refused by the checked route with a
    geonh error, never numpy's or Python's bare TypeError."""
    y, p = _state(4)
    with pytest.raises(GeonhError):
        sleigh_f(0.0, bad, p)
    with pytest.raises(GeonhError):
        sleigh_f.into(np.empty(5), 0.0, bad, p)
    with pytest.raises(GeonhError):
        sleigh_f(0.0, y, bad)


def test_into_from_another_thread(sleigh_f):
    y, p = _state(5)
    out = np.empty(5)
    th = threading.Thread(target=lambda: sleigh_f.into(out, 0.0, y, p))
    th.start()
    th.join()
    np.testing.assert_array_equal(out, sleigh_f(0.0, y, p))


@pytest.mark.parametrize("seed", range(5))
def test_buffer_evaluates_what_its_args_hold(sleigh_f, seed):
    y, p = _state(seed)
    b = sleigh_f.buffer()
    b.args[0] = 0.7
    b.y[:] = y
    b.p[:] = p
    assert b() is None
    np.testing.assert_array_equal(b.out, sleigh_f(0.7, y, p))
    b.y[:] = -y
    b()
    np.testing.assert_array_equal(b.out, sleigh_f(0.7, -y, p))


def test_buffer_with_bound_parameters(bound_f):
    y, p = _state(6)
    b = bound_f.buffer()
    assert len(bound_f.parameters) == 2
    b.y[:] = y
    b.args[b.param_index] = p[[0, 2]]
    b()
    np.testing.assert_array_equal(b.out, bound_f(0.0, y, p[[0, 2]]))


def test_buffers_are_independent(sleigh_f):
    y, p = _state(7)
    b1, b2 = sleigh_f.buffer(), sleigh_f.buffer()
    b1.y[:], b1.p[:] = y, p
    b2.y[:], b2.p[:] = -y, p
    b1()
    b2()
    np.testing.assert_array_equal(b1.out, sleigh_f(0.0, y, p))
    np.testing.assert_array_equal(b2.out, sleigh_f(0.0, -y, p))


def test_buffer_falls_back_to_the_pivoting_solve_and_reports_singularity(sleigh_f):
    # I + m a² = 0: the 2 × 2 mass matrix diag(m, I + m a²) is singular (the inline check fails)
    b = sleigh_f.buffer()
    b.y[:] = [0.0, 0.0, 0.0, 1.0, 1.0]
    b.p[:] = [-2.0, 1.0, 2.0]
    with pytest.raises(SingularMapError):
        b()
    # a negative pivot (not positive definite) but regular: the fallback solves it
    b.p[:] = [-4.0, 1.0, 2.0]
    b()
    np.testing.assert_allclose(b.out[3:], [1.0, -2.0 * 1.0 / (-4.0 + 2.0)], rtol=1e-14)


def test_buffer_is_not_picklable(sleigh_f):
    import pickle
    with pytest.raises(GeonhError):
        pickle.dumps(sleigh_f.buffer())
