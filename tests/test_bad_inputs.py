"""Bad inputs get clear geonh errors at the boundary (issue "Trust"); grows case by case."""
from __future__ import annotations

import subprocess
import sys

import pytest
import sympy as sp

import geonh as g
from geonh import models


@pytest.fixture(scope="module")
def sleigh():
    return models.get("chaplygin-sleigh")


@pytest.mark.parametrize("states", [0, -1, 1.5, True, None])
def test_certificate_needs_states(sleigh, states):
    with pytest.raises(g.DimensionError, match="states"):
        g.same_motion(sleigh.equations("voronets"), sleigh.equations("kane"), states=states)


@pytest.mark.slow
def test_cli_pipe_into_head_is_quiet():
    p = subprocess.run(f"{sys.executable} -m geonh list | head -1", shell=True, capture_output=True, text=True)
    assert p.returncode == 0 and "Traceback" not in p.stderr and "BrokenPipe" not in p.stderr
    assert len(p.stdout.splitlines()) == 1


@pytest.mark.slow
def test_cli_version():
    p = subprocess.run([sys.executable, "-m", "geonh", "--version"], capture_output=True, text=True)
    assert p.returncode == 0 and p.stdout.startswith("geonh ")


INJECTION = "__import__('os').system('touch {marker}')"


@pytest.mark.parametrize("build", [
    lambda S, s: g.VectorField(S, [s, 0]),
    lambda S, s: g.OneForm(S, [0, s]),
    lambda S, s: g.VectorField.from_dict(S, {S.q[0]: s}),
    lambda S, s: g.Frame.from_quasi_velocities(S, [s, S.qd[1]]),
    lambda S, s: g.differential(S, s),
])
def test_strings_are_never_run(build, tmp_path):
    S = g.ConfigurationSpace("x y")
    marker = tmp_path / "pwned"
    with pytest.raises(g.ParseError):
        build(S, INJECTION.format(marker=marker))
    assert not marker.exists()


def test_formula_strings_parse_over_the_space():
    S = g.ConfigurationSpace("x y theta")
    X = g.VectorField(S, ["cos(theta)", "sin(theta)", 0])
    th = S.q[2]
    assert X.components[:2] == (sp.cos(th), sp.sin(th))
    F = g.Frame.from_quasi_velocities(S, ["cos(theta)*x_dot + sin(theta)*y_dot", "theta_dot",
                                          "sin(theta)*x_dot - cos(theta)*y_dot"])
    assert F.dim == 3


@pytest.mark.parametrize("bad", [True, None, {"a": 1}, object()])
def test_non_expressions_refused_in_components(bad):
    S = g.ConfigurationSpace("x y")
    with pytest.raises(g.ParseError, match="component"):
        g.VectorField(S, [bad, 0])
    with pytest.raises(g.DimensionError):
        g.VectorField(S, "xy")
