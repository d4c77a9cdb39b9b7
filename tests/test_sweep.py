"""Parameter sweeps (geonh.numerics.sweep): in-process rows equal direct simulations, a Dask
LocalCluster gives the same numbers, a worker killed mid-sweep loses no finished result,
failures are recorded per point, bad input is refused."""
import numpy as np
import pytest
import sympy as sp

import geonh as g
from geonh import models, simulate
from geonh.errors import DimensionError, GeonhError, UnknownCoordinateError
from geonh.numerics.sweep import sweep

Y0 = [[0, 0, 0, 1.0, 0.5], [0, 0, 0, 0.5, 0.1]]
GRID = {"a": [0.1, 0.3], "m": [1.0, 2.0], "I": [1.0]}


@pytest.fixture(scope="module")
def sleigh():
    return models.get("chaplygin-sleigh").equations("boltzmann-hamel")


def test_in_process_rows_equal_direct_simulations(sleigh):
    res = sweep(sleigh, GRID, Y0, (0, 1.5), rtol=1e-10, atol=1e-12)
    assert len(res) == 8 and not res.failed
    names = [s.name for s in sleigh.space.q] + [u.name for u in sleigh.u]
    for row in res.rows:
        params = {k: row[k] for k in GRID}
        tr = simulate(sleigh, Y0[row["y0_index"]], (0, 1.5), params, rtol=1e-10, atol=1e-12)
        assert np.allclose([row[n] for n in names], tr.states[-1], rtol=0, atol=1e-14)
        assert row["energy_change"] < 1e-8 and row["max_constraint_residual"] < 1e-12
    df = res.to_dataframe()
    assert list(df.index) == list(range(8)) and set(GRID) <= set(df.columns)
    ds = res.to_xarray()
    assert dict(ds.sizes) == {"a": 2, "m": 2, "I": 1, "y0_index": 2}


def test_sampler_callable_task_and_progress(sleigh):
    seen = []

    def task(params, y0):
        return {"ratio": params["a"] / params["m"]}

    res = sweep(sleigh, lambda rng: {"a": rng.uniform(0.1, 1), "m": rng.uniform(1, 2)}, task=task,
                n_samples=5, seed=3, progress=lambda done, total: seen.append((done, total)))
    assert [r["ratio"] for r in res.rows] == pytest.approx([r["a"] / r["m"] for r in res.rows])
    assert seen[-1] == (5, 5)
    again = sweep(sleigh, lambda rng: {"a": rng.uniform(0.1, 1), "m": rng.uniform(1, 2)}, task=task,
                  n_samples=5, seed=3)
    assert [r["a"] for r in again.rows] == [r["a"] for r in res.rows]
    with pytest.raises(DimensionError, match="axes"):
        res.to_xarray()


@pytest.fixture(scope="module")
def damped():
    """x'' = -k x - c x': stiff for large c (eigenvalues ≈ -c and -k/c)."""
    S = g.ConfigurationSpace("x")
    c, k = sp.symbols("c k", positive=True)
    x, xd = S.q[0], S.qd[0]
    return g.derive("lagrange", g.MechanicalSystem(S, xd**2 / 2, k * x**2 / 2, forces={x: -c * xd}))


def test_a_failing_point_is_recorded_not_raised(damped):
    # c = 1e5 is stiff: DOP853 stops at once (the run would need > step_limit steps), naming Radau
    res = sweep(damped, {"c": [1.0, 1e5], "k": [1.0]}, [1.0, 0.0], (0, 100))
    assert [r["status"] for r in res.rows] == ["ok", "error"]
    assert res.rows[0]["error"] is None and "Radau" in res.rows[1]["error"]
    assert len(res.failed) == 1
    with pytest.raises(GeonhError, match="point 1 failed"):
        sweep(damped, {"c": [1.0, 1e5], "k": [1.0]}, [1.0, 0.0], (0, 100), raise_errors=True)
    ok = sweep(damped, {"c": [1.0, 1e5], "k": [1.0]}, [1.0, 0.0], (0, 100), method="Radau")
    assert not ok.failed


@pytest.mark.parametrize("kw, err, match", [
    (dict(grid={"b": [1.0]}), UnknownCoordinateError, "not a parameter"),
    (dict(grid={"a": []}), DimensionError, "empty"),
    (dict(grid={"a": [float("nan")]}), DimensionError, "not finite"),
    (dict(grid={"a": [1.0]}, y0s=[[[1.0]]]), DimensionError, "y0s"),
    (dict(grid={"a": [1.0]}, t_span=None), DimensionError, "t_span"),
    (dict(grid={"a": [1.0]}, task="linearise"), DimensionError, "task"),
    (dict(grid=[1, 2]), DimensionError, "mapping"),
])
def test_bad_input(sleigh, kw, err, match):
    args = dict(grid=GRID, y0s=Y0, t_span=(0, 1))
    args.update(kw)
    with pytest.raises(err, match=match):
        sweep(sleigh, args.pop("grid"), args.pop("y0s"), args.pop("t_span"), **args)


@pytest.mark.slow
def test_local_cluster_gives_the_same_numbers(sleigh):
    pytest.importorskip("distributed")
    here = sweep(sleigh, GRID, Y0, (0, 1.5))
    there = sweep(sleigh, GRID, Y0, (0, 1.5), client="local")
    a, b = here.to_dataframe(), there.to_dataframe()
    assert list(a.columns) == list(b.columns)
    num = a.select_dtypes("number").columns
    assert np.array_equal(a[num].to_numpy(), b[num].to_numpy())


@pytest.mark.slow
def test_a_killed_worker_loses_no_finished_result(sleigh):
    distributed = pytest.importorskip("distributed")
    import os
    import signal
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None)
    client = distributed.Client(cluster)
    killed = []

    def task(params, y0):
        import time
        time.sleep(0.25)
        return {"square": params["a"] ** 2}

    def progress(done, total):
        if done == 4 and not killed:
            pids = client.run(os.getpid)
            victim = sorted(pids)[0]
            killed.append(victim)
            os.kill(pids[victim], signal.SIGKILL)

    try:
        res = sweep(sleigh, {"a": list(np.linspace(0.1, 1, 16))}, task=task, client=client, progress=progress)
    finally:
        client.close()
        cluster.close()
    assert killed
    assert len(res) == 16 and not res.failed
    assert [r["square"] for r in res.rows] == pytest.approx([x**2 for x in np.linspace(0.1, 1, 16)])
