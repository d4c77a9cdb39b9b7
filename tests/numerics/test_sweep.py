"""Parameter sweeps (geonh.numerics.sweep): in-process rows equal direct simulations, a Dask
LocalCluster gives the same numbers, a worker killed mid-sweep loses no finished result,
failures are recorded per point, bad input is refused."""
import itertools

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


# ----------------------------------------------------------------------------------------------
# issue 20: a sweep loses nothing and stops
# ----------------------------------------------------------------------------------------------
SMALL = {"a": [0.1, 0.2, 0.3], "m": [1.0, 2.0], "I": [1.0, 2.0]}  # 12 points


def _never(params, y0):  # a task that must not run: bad input is refused before the sweep
    raise AssertionError("the sweep started")


@pytest.mark.parametrize("result", [{"point": 0, "a": 99}, {"point": 7}, {"a": 99}, {"m": 1.0, "z": 2},
                                    {"status": "ok"}, {"error": None}, {"y0_index": 3}])
def test_a_task_cannot_overwrite_the_sweeps_columns(sleigh, result):
    res = sweep(sleigh, SMALL, task=lambda params, y0: dict(result))
    assert len(res) == 12 and [r["point"] for r in res.rows] == list(range(12))
    assert all(r["status"] == "error" and "the sweep writes itself" in r["error"] for r in res.rows)
    clash = sorted(set(result) & ({"point", "y0_index", "status", "error"} | set(SMALL)))
    assert all(str(clash) in r["error"] for r in res.rows)
    expected = [dict(zip(SMALL, combo)) for combo in itertools.product(*SMALL.values())]
    assert [{k: r[k] for k in SMALL} for r in res.rows] == expected  # the parameters are intact
    df = res.to_dataframe()
    assert list(df.index) == list(range(12)) and df["a"].tolist() == [e["a"] for e in expected]


@pytest.mark.parametrize("result, match", [(None, "NoneType"), ([1, 2], "list"), (3.0, "float"), ("ok", "str")])
def test_a_task_must_return_a_dict(sleigh, result, match):
    res = sweep(sleigh, {"a": [0.1, 0.2]}, task=lambda params, y0: result)
    assert [r["status"] for r in res.rows] == ["error", "error"]
    assert all(match in r["error"] and "must return a dict" in r["error"] for r in res.rows)


def test_every_task_failure_is_a_row_and_every_finished_row_is_returned(sleigh):
    def task(params, y0):
        a = params["a"]
        if a == 0.2:
            raise ZeroDivisionError("no 0.2 here")
        if a == 0.3:
            return {"point": 1}
        return {"twice": 2 * a, "label": "x", "flag": True, "n": np.int64(3)}

    res = sweep(sleigh, {"a": [0.1, 0.2, 0.3, 0.4]}, task=task)
    assert [r["status"] for r in res.rows] == ["ok", "error", "error", "ok"]
    assert res.rows[1]["error"] == "ZeroDivisionError: no 0.2 here"
    assert res.rows[0]["error"] is None and res.rows[3]["twice"] == 0.8
    assert res.rows[0]["label"] == "x" and res.rows[0]["flag"] is True and res.rows[0]["n"] == 3.0
    assert [r["point"] for r in res.failed] == [1, 2]
    with pytest.raises(GeonhError, match=r"point 1 failed \(error\): ZeroDivisionError"):
        sweep(sleigh, {"a": [0.1, 0.2, 0.3, 0.4]}, task=task, raise_errors=True)


def test_a_hanging_task_times_out_in_this_process(sleigh):
    import time

    def task(params, y0):
        if params["a"] == 0.2:
            time.sleep(60)  # blocked in C: the timer interrupts it
        if params["a"] == 0.3:
            while True:  # a busy loop that even swallows ordinary exceptions
                try:
                    sum(range(1000))
                except Exception:  # noqa: BLE001
                    pass
        return {"a2": params["a"] ** 2}

    seen = []
    start = time.monotonic()
    res = sweep(sleigh, {"a": [0.1, 0.2, 0.3, 0.4]}, task=task, timeout=0.3,
                progress=lambda done, total: seen.append(done))
    assert time.monotonic() - start < 10
    assert [r["status"] for r in res.rows] == ["ok", "timeout", "timeout", "ok"]
    assert "timeout = 0.3 s" in res.rows[1]["error"] and res.rows[3]["a2"] == pytest.approx(0.16)
    assert seen == [1, 2, 3, 4]


def test_the_callers_own_alarm_survives_a_sweep_with_a_timeout(sleigh):
    import signal
    import time
    fired = []
    old = signal.signal(signal.SIGALRM, lambda signum, frame: fired.append(signum))
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.6)
        res = sweep(sleigh, {"a": [0.1, 0.2]}, task=lambda params, y0: {"b": params["a"]}, timeout=5)
        assert not res.failed and signal.getsignal(signal.SIGALRM) is not signal.SIG_DFL
        left = signal.getitimer(signal.ITIMER_REAL)[0]
        assert 0 < left <= 0.6
        time.sleep(left + 0.1)
        assert fired == [signal.SIGALRM]
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def test_a_hanging_task_times_out_off_the_main_thread(sleigh):
    """Run from a thread (as in a Dask worker or a GUI), the task runs in a helper thread that
    gets the timeout raised into it."""
    import threading
    import time

    def task(params, y0):
        if params["a"] == 0.2:
            while True:
                pass
        return {"a2": params["a"] ** 2}

    out = {}
    th = threading.Thread(target=lambda: out.setdefault("res", sweep(sleigh, {"a": [0.1, 0.2, 0.3]}, task=task,
                                                                       timeout=0.3)))
    th.start()
    th.join(20)
    assert not th.is_alive()
    assert [r["status"] for r in out["res"].rows] == ["ok", "timeout", "ok"]
    time.sleep(0.5)  # the busy loop got the exception: its thread is gone
    assert not [t for t in threading.enumerate() if t.name == "geonh-sweep-task"]


def test_a_simulation_that_runs_too_long_times_out(damped):
    import time
    start = time.monotonic()
    # RK23 has no stiffness test: the stiff point crawls until the timeout stops it
    res = sweep(damped, {"c": [1.0, 1e5], "k": [1.0]}, [1.0, 0.0], (0, 100), method="RK23", timeout=0.5)
    assert time.monotonic() - start < 10
    assert [r["status"] for r in res.rows] == ["ok", "timeout"]
    assert "time_limit = 0.5 s" in res.rows[1]["error"] and "Radau" in res.rows[1]["error"]


@pytest.mark.parametrize("grid, err, match", [
    ({"a": ["abc"]}, DimensionError, "grid value a = 'abc' is not a number"),
    ({"a": ["3"]}, DimensionError, "grid value a = '3' is not a number"),
    ({"a": "0.1"}, DimensionError, "the grid of a is '0.1'"),
    ({"a": [0.1, None]}, DimensionError, "grid value a = None"),
    ({"a": [True]}, DimensionError, "a = True is a bool"),
    ({"a": [1j]}, DimensionError, "a = 1j is not a number"),
    ({"a": [sp.I]}, DimensionError, "not real"),
    ({"a": [sp.Symbol("b")]}, DimensionError, "a = b is not a number"),
    ({"a": [float("inf")]}, DimensionError, "not finite"),
    ({"a": np.ones((2, 2))}, DimensionError, "shape"),
    ({"a": {0.1, 0.2}}, DimensionError, "the grid of a"),
    ({"a": {"x": 1}}, DimensionError, "the grid of a"),
    ({"a": [0.1, -0.2]}, g.InconsistentStateError, r"grid value a = -0.2 is outside the domain of a \(declared pos"),
    ({"m": [0]}, g.InconsistentStateError, "grid value m = 0 is outside"),
])
def test_bad_grid_values_fail_before_the_sweep_starts(sleigh, grid, err, match):
    with pytest.raises(err, match=match):
        sweep(sleigh, grid, task=_never)
    with pytest.raises(err, match=match):
        sweep(sleigh, grid, Y0[0], (0, 1))


def test_grid_values_that_are_numbers_of_any_kind(sleigh):
    res = sweep(sleigh, {"a": [sp.Rational(1, 4), np.float32(0.5), 1], "m": 2, "I": np.array([1.5])},
                task=lambda params, y0: {"s": sum(params.values())})
    assert [r["a"] for r in res.rows] == [0.25, 0.5, 1.0] and not res.failed
    assert all(type(r["a"]) is float for r in res.rows)


@pytest.mark.parametrize("sampler, n, match", [
    (lambda rng: [0.1], 2, "must return"),
    (lambda rng: {"a": "0.1"}, 2, "sampled value a = '0.1'"),
    (lambda rng: {"a": -rng.random()}, 2, "sampled value a = .* outside the domain"),
    (lambda rng: {"a": 0.1}, 0, "n_samples"),
    (lambda rng: {"a": 0.1}, True, "n_samples"),
    (lambda rng: {"a": 0.1}, 2.5, "n_samples"),
])
def test_bad_samplers_fail_before_the_sweep_starts(sleigh, sampler, n, match):
    with pytest.raises(GeonhError, match=match):
        sweep(sleigh, sampler, task=_never, n_samples=n)


@pytest.mark.parametrize("y0s, match", [
    ([0, 0, 0, 1.0], r"y0s has 4 entries; the state \(q, u\) = \['x', 'y', 'theta', 'v', 'w'\] has 5"),
    ([[0, 0, 0, 1.0, 0.5], [0, 0, 1.0]], r"y0s\[1\] has 3 entries"),
    ([[0, 0, 0, 1.0, 0.5], 3.0], r"y0s\[1\] = 3.0 is not a state"),
    ([0, 0, 0, "1", 0.5], r"y0s\[3\] = '1' is not a number"),
    ([0, 0, 0, float("nan"), 0.5], r"y0s\[3\] = nan is not finite"),
    ([[[0, 0, 0, 1.0, 0.5]]], r"y0s\[0\]\[0\] = \[0, 0, 0, 1.0, 0.5\] is not a number"),
    ([], "y0s is empty"),
    ("00010", "y0s must be one state"),
    (np.zeros((2, 4)), r"y0s\[0\] has 4 entries"),
])
def test_wrong_initial_states_fail_before_the_sweep_starts(sleigh, y0s, match):
    with pytest.raises(DimensionError, match=match):
        sweep(sleigh, SMALL, y0s, (0, 1))


def test_sweep_takes_equations(sleigh):
    model = models.get("chaplygin-sleigh")
    with pytest.raises(DimensionError, match="task='simulate' needs Equations"):
        sweep(model, {"a": [0.1]}, Y0[0], (0, 1))
    assert not sweep(model, {"a": [0.1]}, task=lambda params, y0: {"b": 1}).failed  # names the parameters
    for bad in (None, "chaplygin-sleigh", 3):
        with pytest.raises(DimensionError, match="sweep takes Equations"):
            sweep(bad, {"a": [0.1]}, task=lambda params, y0: {"b": 1})


@pytest.mark.parametrize("kw, err, match", [
    (dict(t_span=(0,)), DimensionError, "t_span"),
    (dict(t_span=(0, "1")), DimensionError, "t_span"),
    (dict(t_span=(0, float("nan"))), DimensionError, "t_span"),
    (dict(method="Bogus"), g.NotFoundError, "unknown method 'Bogus'"),
    (dict(step_limit=0), DimensionError, "step_limit"),
    (dict(timeout=0), DimensionError, "timeout"),
    (dict(timeout=-1), DimensionError, "timeout"),
    (dict(timeout="5"), DimensionError, "timeout"),
    (dict(timeout=float("inf")), DimensionError, "timeout"),
])
def test_bad_options_fail_before_the_sweep_starts(sleigh, kw, err, match):
    args = dict(t_span=(0, 1))
    args.update(kw)
    with pytest.raises(err, match=match):
        sweep(sleigh, SMALL, Y0, args.pop("t_span"), **args)


# -- on Dask: a hang, an exception, a clash and a task that kills its worker --------------------------
def _dask_task(params, y0):
    import os
    import time
    a = params["a"]
    if a == 0.2:
        time.sleep(30)
    if a == 0.3:
        raise RuntimeError("boom")
    if a == 0.4:
        return {"point": 0, "a": 99}
    if a == 0.5:
        os._exit(1)  # kills a worker process every time it runs
    return {"a2": a * a}


def _check_dask_rows(res, killed: bool):
    want = {0.1: "ok", 0.2: "timeout", 0.3: "error", 0.4: "error", 0.5: "killed" if killed else None, 0.6: "ok"}
    assert [r["point"] for r in res.rows] == list(range(len(res)))
    for r in res.rows:
        assert r["status"] == want[round(r["a"], 10)], r
    errors = {round(r["a"], 10): r["error"] for r in res.rows}
    assert "timeout = 1 s" in errors[0.2] and errors[0.3] == "RuntimeError: boom"
    assert "the sweep writes itself" in errors[0.4]
    assert res.rows[0]["a2"] == pytest.approx(0.01)


@pytest.mark.slow
def test_dask_threads_time_out_and_record_failures(sleigh):
    distributed = pytest.importorskip("distributed")
    import time
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster, distributed.Client(cluster) as client:
        start = time.monotonic()
        res = sweep(sleigh, {"a": [0.1, 0.2, 0.3, 0.4, 0.6]}, task=_dask_task, client=client, timeout=1)
        assert time.monotonic() - start < 15
    _check_dask_rows(res, killed=False)


@pytest.mark.slow
def test_dask_processes_a_task_that_kills_its_worker_is_a_row(sleigh):
    distributed = pytest.importorskip("distributed")
    import dask
    # one death is enough to call the task a killer (default: 3 reruns), and each worker gets
    # one task at a time, so no innocent task dies with it
    with dask.config.set({"distributed.scheduler.allowed-failures": 0,
                          "distributed.scheduler.worker-saturation": 1.0}):
        with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                      dashboard_address=None) as cluster, distributed.Client(cluster) as client:
            res = sweep(sleigh, {"a": [0.1, 0.2, 0.3, 0.4, 0.5, 0.6]}, task=_dask_task, client=client, timeout=1)
    _check_dask_rows(res, killed=True)
    assert "KilledWorker" in res.rows[4]["error"] and len(res) == 6
