"""Bad inputs get clear geonh errors at the boundary (issue "Trust"); grows case by case."""
from __future__ import annotations

import subprocess
import sys

import pytest

import geonh as g
from geonh import models


@pytest.fixture(scope="module")
def sleigh():
    return models.get("chaplygin-sleigh")


@pytest.mark.parametrize("states", [0, -1, 1.5, True, None])
def test_certificate_needs_states(sleigh, states):
    with pytest.raises(g.DimensionError, match="states"):
        g.same_motion(sleigh.equations("voronets"), sleigh.equations("kane"), states=states)


def test_cli_pipe_into_head_is_quiet():
    p = subprocess.run(f"{sys.executable} -m geonh list | head -1", shell=True, capture_output=True, text=True)
    assert p.returncode == 0 and "Traceback" not in p.stderr and "BrokenPipe" not in p.stderr
    assert len(p.stdout.splitlines()) == 1


def test_cli_version():
    p = subprocess.run([sys.executable, "-m", "geonh", "--version"], capture_output=True, text=True)
    assert p.returncode == 0 and p.stdout.startswith("geonh ")
