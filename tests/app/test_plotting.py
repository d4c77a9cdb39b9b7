"""Plots (matplotlib, Agg): the figures carry the expected lines and labels."""
import pytest

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")

from geonh import models, simulate
from geonh.app import plotting  # after the backend choice

PARAMS = {"m": 1, "a": 0.5, "I": 0.2}


@pytest.fixture(scope="module")
def bh_traj():
    eqs = models.get("chaplygin-sleigh").equations()
    return simulate(eqs, [0, 0, 0.3, 1.0, 0.8], (0, 2), PARAMS, t_eval=[i / 20 for i in range(41)])


@pytest.fixture(scope="module")
def lagrange_traj():
    eqs = models.get("chaplygin-sleigh").equations("lagrange")
    return simulate(eqs, [0, 0, 0.3, 1.0, 0.0, 0.8], (0, 1), PARAMS, project=True,
                    t_eval=[i / 10 for i in range(11)])


def labels(ax):
    return [ln.get_label() for ln in ax.get_lines()]


def test_trajectory_figure(bh_traj):
    fig = plotting.trajectory_figure(bh_traj)
    ax = fig.axes[0]
    assert labels(ax) == ["x", "y", "theta", "v", "w"]
    assert ax.get_xlabel() == "t" and len(ax.get_lines()[0].get_xdata()) == 41
    fig = plotting.trajectory_figure(bh_traj, which="q")
    assert labels(fig.axes[0]) == ["x", "y", "theta"]
    fig = plotting.trajectory_figure(bh_traj, names=["w"])
    assert labels(fig.axes[0]) == ["w"]


def test_phase_figure(bh_traj):
    fig = plotting.phase_figure(bh_traj, "v", "w")
    ax = fig.axes[0]
    assert ax.get_xlabel() == "$v$" and ax.get_ylabel() == "$w$"   # mathtext labels (issue 23)
    assert labels(ax) == ["w(v)", "start"]


def test_reactions_figure(lagrange_traj):
    fig = plotting.reactions_figure(lagrange_traj)
    assert labels(fig.axes[0]) == ["R_x", "R_y", "R_theta"]
    assert "lagrange" in fig.axes[0].get_title()


def test_invariants_and_overview(lagrange_traj, bh_traj):
    fig = plotting.invariants_figure(lagrange_traj)
    res, en = fig.axes
    assert res.get_yscale() == "log" and len(res.get_lines()) == 1
    assert "residual" in res.get_ylabel() and "energy" in en.get_ylabel()
    assert labels(en) == ["$T + V - E(0)$"]   # mathtext, so the minus is a real one (issue 23)
    ydata = en.get_lines()[0].get_ydata()
    assert abs(ydata).max() < 1e-8  # the sleigh conserves energy
    fig = plotting.overview(bh_traj, title="sleigh")
    assert len(fig.axes) == 4 and fig.axes[0].get_title() == "sleigh"   # q and u on separate axes (issue 23)


def test_invariants_without_constraints():
    eqs = models.get("free-rigid-body").equations("lagrange")
    f = eqs.ode_function()
    params = {p.name: 1 for p in f.parameters}
    params.update({"I_1": 1, "I_2": 2, "I_3": 3})
    traj = simulate(eqs, [0.3] * 3 + [0.5] * 3, (0, 0.2), {k: v for k, v in params.items()
                                                           if k in {p.name for p in f.parameters}})
    fig = plotting.invariants_figure(traj)
    texts = [t.get_text() for t in fig.axes[0].texts]
    assert "no velocity constraints" in texts


def test_eigenvalues_figure():
    vals = [0.0, 1.0, 2.0]
    eigs = [[-1, 1j, -1j], [-2, 0.5 + 1j, 0.5 - 1j], [-3, 1, 2]]
    fig = plotting.eigenvalues_figure(vals, eigs, parameter="g")
    ax = fig.axes[0]
    assert labels(ax)[:2] == ["Re λ", "|Im λ|"] and ax.get_xlabel() == "g"
    assert len(ax.get_lines()[0].get_xdata()) == 9


def test_bicycle_figure():
    # synthetic spectra shaped like the benchmark's: castor, capsize and a weave pair
    speeds = [1.0, 5.0, 9.0]
    eigs = [[-10, 0.1, 3 + 0.5j, 3 - 0.5j], [-14, -0.2, -0.7 + 4.5j, -0.7 - 4.5j],
            [-20, 0.05, -2 + 6j, -2 - 6j]]
    fig = plotting.bicycle_figure(speeds, eigs, weave_speed=4.29, capsize_speed=6.02)
    ax = fig.axes[0]
    names = labels(ax)
    for want in ("weave (Re)", "weave frequency (Im)", "capsize", "castor"):
        assert want in names
    assert any(n.startswith("v_w = 4.29") for n in names) and any(n.startswith("v_c = 6.02") for n in names)
    weave = ax.get_lines()[names.index("weave (Re)")].get_ydata()
    assert list(weave) == [3, -0.7, -2]
    assert list(ax.get_lines()[names.index("castor")].get_ydata()) == [-10, -14, -20]


def test_growth_vector_figure():
    fig = plotting.growth_vector_figure((2, 3, 4), 4)
    ax = fig.axes[0]
    assert [p.get_height() for p in ax.patches] == [2, 3, 4]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["$D^{1}$", "$D^{2}$", "$D^{3}$"]   # mathtext (issue 23)
    assert "n = 4" in labels(ax)


def test_figures_save_png(bh_traj, tmp_path):
    p = tmp_path / "o.png"
    plotting.overview(bh_traj).savefig(p)
    assert p.read_bytes()[:4] == b"\x89PNG"


def test_mathtext_legends_keep_line_names(bh_traj):
    ax = plotting.trajectory_figure(bh_traj).axes[0]
    assert labels(ax) == ["x", "y", "theta", "v", "w"]            # the lines keep the data names
    texts = [t.get_text() for t in ax.get_legend().get_texts()]
    assert texts == ["$x$", "$y$", r"$\theta$", "$v$", "$w$"]
    assert plotting.mathtext("phiR") == r"$\phi_{R}$"


def test_overview_separates_coordinates_and_speeds(bh_traj):
    fig = plotting.overview(bh_traj)
    assert labels(fig.axes[0]) == ["x", "y", "theta"] and labels(fig.axes[1]) == ["v", "w"]


def test_growth_vector_integer_ticks():
    ax = plotting.growth_vector_figure((1, 2), 2).axes[0]   # matplotlib alone would tick 0, 0.5, 1, …
    ax.figure.canvas.draw()
    assert all(float(t).is_integer() for t in ax.get_yticks())


def test_figures_join_pyplot_in_a_notebook(bh_traj, monkeypatch):
    import sys
    import types
    import matplotlib.pyplot as plt
    fig = plotting.overview(bh_traj)
    assert fig not in [plt.figure(n) for n in plt.get_fignums()]   # outside a notebook: no pyplot state
    kernel_shell = types.SimpleNamespace(kernel=object())
    with monkeypatch.context() as mp:
        mp.setitem(sys.modules, "IPython", types.SimpleNamespace(get_ipython=lambda: kernel_shell))
        assert plotting.in_notebook()
    monkeypatch.setattr(plotting, "in_notebook", lambda: True)
    fig = plotting.overview(bh_traj)
    try:
        assert fig in [plt.figure(n) for n in plt.get_fignums()]   # shown at the end of the cell
    finally:
        plt.close("all")
