"""A sweep reports its points to the progress hook (geonh.kernel.progress), beside its own
progress= callback."""
from __future__ import annotations

from geonh import models
from geonh.kernel.progress import listening
from geonh.numerics.sweep import sweep


def test_sweep_points_reach_the_progress_listeners():
    sleigh = models.get("chaplygin-sleigh").equations("boltzmann-hamel")
    seen, own = [], []

    def task(params, y0):
        return {"ratio": params["a"] / params["m"]}

    with listening(seen.append):
        sweep(sleigh, {"a": [0.1, 0.2, 0.3], "m": [1.0]}, task=task, progress=lambda d, t: own.append((d, t)))
    points = [(e.done, e.total) for e in seen if e.step == "sweep points"]
    assert points == own == [(1, 3), (2, 3), (3, 3)]
    assert seen[-1].finished and seen[0].label.startswith("point ")
