"""The on-disk cache of compiled functions (geonh.numerics.cache).

A second process builds the same ODEFunction without compiling (it loads the LLVM code);
corrupt, truncated and foreign files are ignored — never unpickled — and rebuilt; different
equations get different keys; GEONH_CACHE=off writes nothing; a directory others can write to
is refused.
"""
from __future__ import annotations

import os
import pickle
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
import sympy as sp

import geonh as g
from geonh.numerics import cache
from geonh.numerics.codegen import llvm_available

pytestmark = pytest.mark.skipif(not llvm_available(), reason="the cache stores LLVM code")

m, l, k = sp.symbols("m l k", positive=True)


def pendulum(V_extra=0):
    S = g.ConfigurationSpace("th")
    (th,), (thd,) = S.q, S.qd
    return g.lagrange(g.MechanicalSystem(S, m * l**2 * thd**2 / 2, V=-m * 9.81 * l * sp.cos(th) + V_extra))


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("GEONH_CACHE_DIR", str(tmp_path / "c"))
    monkeypatch.delenv("GEONH_CACHE", raising=False)
    return tmp_path / "c" / "compiled"


def _files(d: Path) -> list[Path]:
    return sorted(d.glob("*.pkl")) if d.is_dir() else []


def _delta(before: dict) -> dict:
    now = cache.stats()
    return {k: now[k] - before[k] for k in now}


def test_a_second_build_loads_from_disk_and_computes_the_same(cache_dir):
    eq = pendulum()
    s0 = cache.stats()
    f = eq.ode_function({m: 1, l: 2})
    J = f.jacobian(0, [0.3, 0.1])
    assert _delta(s0) == {"hits": 0, "builds": 2, "stores": 2, "rejected": 0}
    assert len(_files(cache_dir)) == 2
    s1 = cache.stats()
    f2 = eq.ode_function({m: 1, l: 2})
    J2 = f2.jacobian(0, [0.3, 0.1])
    assert _delta(s1) == {"hits": 2, "builds": 0, "stores": 0, "rejected": 0}
    y = [0.3, -0.7]
    assert np.array_equal(f(0, y), f2(0, y)) and np.array_equal(J, J2)
    assert np.array_equal(f.batch(0, np.array([y, y])), f2.batch(0, np.array([y, y])))


@pytest.mark.slow
def test_a_fresh_process_starts_without_compiling(cache_dir):
    """The same ODEFunction and linearization in two fresh processes: the second compiles
    nothing (every compiled function comes from the disk)."""
    script = textwrap.dedent("""
        import json, sympy as sp, geonh as g
        from geonh.numerics import cache
        m, l = sp.symbols("m l", positive=True)
        S = g.ConfigurationSpace("th")
        (th,), (thd,) = S.q, S.qd
        eq = g.lagrange(g.MechanicalSystem(S, m * l**2 * thd**2 / 2, V=-m * 9.81 * l * sp.cos(th)))
        f = eq.ode_function({m: 1, l: 2})
        f.jacobian(0, [0.1, 0.2])
        lin = eq.linearize({"th": 0, "th_dot": 0, m: 1, l: 2})
        print(json.dumps({"stats": cache.stats(), "A": [float(x) for x in lin.A], "f": list(f(0, [0.1, 0.2]))}))
    """)
    env = {**os.environ, "GEONH_CACHE_DIR": str(cache_dir.parent)}

    def run():
        import json
        out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=300)
        assert out.returncode == 0, out.stderr[-3000:]
        return json.loads(out.stdout.strip().splitlines()[-1])

    first, second = run(), run()
    # ode_function, its Jacobian, linearize's one jet (values and Jacobian in one function)
    assert first["stats"]["builds"] == 3 and first["stats"]["stores"] == 3
    assert second["stats"] == {"hits": 3, "builds": 0, "stores": 0, "rejected": 0}
    assert first["A"] == second["A"] and first["f"] == second["f"]


def test_corrupt_truncated_and_foreign_files_are_rebuilt(cache_dir):
    eq = pendulum()
    eq.ode_function({m: 1, l: 2})
    (main,) = _files(cache_dir)
    good = main.read_bytes()
    other = pendulum(k * sp.cos(eq.space.q[0]) ** 2)
    other.ode_function({m: 1, l: 2, k: 1})
    (foreign,) = [p for p in _files(cache_dir) if p != main]
    for bad in (good[:-1] + bytes([good[-1] ^ 1]),          # a flipped bit in the payload
                good[: len(good) // 2],                      # truncated
                b"garbage",                                  # not ours
                foreign.read_bytes()):                       # a valid file of another key
        main.write_bytes(bad)
        s = cache.stats()
        f = eq.ode_function({m: 1, l: 2})
        assert _delta(s) == {"hits": 0, "builds": 1, "stores": 1, "rejected": 1}
        assert np.allclose(f(0, [0.5, 0.0]), [0.0, -9.81 / 2 * np.sin(0.5)])
        assert main.read_bytes() == good                     # rewritten
    s = cache.stats()
    eq.ode_function({m: 1, l: 2})
    assert _delta(s)["hits"] == 1


def test_a_file_that_fails_its_digest_is_never_unpickled(cache_dir, tmp_path):
    """A payload whose unpickling would run code (create a marker file) under a right header
    but a wrong digest: ignored, the marker never appears."""
    eq = pendulum()
    eq.ode_function({m: 1, l: 2})
    (main,) = _files(cache_dir)
    marker = tmp_path / "unpickled"

    class Evil:
        def __reduce__(self):
            return (Path.touch, (marker,))

    data = main.read_bytes()
    head = data[: data.index(b"\n", len(cache.MAGIC)) + 1]
    main.write_bytes(head + b"\0" * 32 + pickle.dumps(Evil()))
    s = cache.stats()
    eq.ode_function({m: 1, l: 2})
    assert _delta(s)["rejected"] == 1 and not marker.exists()


def test_different_equations_or_expression_parameters_get_different_keys(cache_dir):
    a, b = pendulum(), pendulum(k * sp.cos(pendulum().space.q[0]))
    eq_a = a.ode_function({m: 1, l: 2})
    names = set(_files(cache_dir))
    b.ode_function({m: 1, l: 2, k: 3})
    assert len(set(_files(cache_dir)) - names) == 1
    names = set(_files(cache_dir))
    a.ode_function({m: 3})          # numbers are arguments of the compiled code: the same function
    assert set(_files(cache_dir)) == names
    a.ode_function({l: 2 * m})      # an expression is substituted before compiling: another function
    assert len(set(_files(cache_dir)) - names) == 1
    assert eq_a.parameters == ()
    key = cache.key_of(("x", [sp.Symbol("x")]))
    assert key == cache.key_of(("x", [sp.Symbol("x")])) and key != cache.key_of(("x", [sp.Symbol("y")]))


def test_opt_out_writes_nothing(cache_dir, monkeypatch):
    monkeypatch.setenv("GEONH_CACHE", "off")
    assert cache.cache_dir() is None
    s = cache.stats()
    pendulum().ode_function({m: 1, l: 2})
    assert not cache_dir.exists() and _delta(s)["builds"] == 1 and _delta(s)["stores"] == 0


@pytest.mark.skipif(os.name != "posix", reason="POSIX permissions")
def test_a_directory_others_can_write_is_not_used(cache_dir):
    cache_dir.mkdir(parents=True)
    cache_dir.chmod(0o777)
    with pytest.warns(RuntimeWarning, match="writable by others"):
        pendulum().ode_function({m: 1, l: 2})
    assert _files(cache_dir) == []


def test_default_location_and_clear(cache_dir, monkeypatch):
    assert cache.cache_dir() == cache_dir
    monkeypatch.delenv("GEONH_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache_dir.parent.parent / "xdg"))
    if sys.platform.startswith("linux"):
        assert cache.cache_dir() == cache_dir.parent.parent / "xdg" / "geonh" / "compiled"
    monkeypatch.setenv("GEONH_CACHE_DIR", str(cache_dir.parent))
    pendulum().ode_function({m: 1, l: 2})
    assert cache.clear() == 1 and _files(cache_dir) == []
