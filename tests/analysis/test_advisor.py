"""The frame advisor (geonh.analysis.advisor): its choice is at least as small as every
built-in frame, the chosen frame gives the same motion, failures are reported, not dropped."""
import pytest
import sympy as sp

from geonh import models, same_motion
from geonh.analysis import advise_frame, equation_size
from geonh.equations import FORMS, Inputs, boltzmann_hamel, lagrange
from geonh.errors import NotFoundError
from geonh.kernel.fields import coordinate_fields
from geonh.kernel.frames import Frame
from geonh.transposition import voronets_frame


@pytest.mark.parametrize("name", ["tilted-disk", "dynamic-2-trailer", "chaplygin-sleigh"])
def test_choice_is_at_least_as_small_as_every_built_in_frame(name):
    m = models.get(name)
    adv = advise_frame(m.system, {"model": m.frame})
    built_in = [boltzmann_hamel(m.system, m.frame), boltzmann_hamel(m.system, voronets_frame(m.system))]
    assert adv.best.ops <= min(equation_size(e) for e in built_in)
    assert [c.ops for c in adv.table if c.ok] == sorted(c.ops for c in adv.table if c.ok)
    # the chosen frame is adapted and gives the motion of Lagrange's equations
    cert = same_motion(boltzmann_hamel(m.system, adv.best.frame), lagrange(m.system), states=1)
    assert cert.same, cert


def test_rolling_disk_prefers_a_voronets_frame_over_the_model_frame():
    m = models.get("tilted-disk")
    adv = advise_frame(m.system, {"model": m.frame})
    model_row = next(c for c in adv.table if c.name == "model")
    assert adv.best.name.startswith("voronets(") and adv.best.ops < model_row.ops


def test_a_frame_that_is_not_adapted_is_reported_with_its_error():
    m = models.get("chaplygin-sleigh")
    S = m.system.space
    coords = Frame(coordinate_fields(S))  # ∂x, ∂y, ∂θ: not adapted to the knife edge
    adv = advise_frame(m.system, {"coordinates": coords, "model": m.frame}, voronets=False)
    bad = [c for c in adv.table if c.name == "coordinates"]
    assert bad and not bad[0].ok and "NotAdaptedError" in bad[0].error
    assert adv.table[-1].name == "coordinates" and adv.best.name == "model"
    assert "coordinates" in str(adv) and "best (boltzmann-hamel): model" in str(adv)


def test_no_candidate_and_non_frame_forms_raise():
    m = models.get("chaplygin-sleigh")
    with pytest.raises(NotFoundError, match="no candidate"):
        advise_frame(m.system, {}, voronets=False)
    not_frame = next(k for k, v in FORMS.items() if v.inputs is not Inputs.FRAME)
    with pytest.raises(NotFoundError, match="not a frame form"):
        advise_frame(m.system, form=not_frame)


def test_equation_size_counts_after_cse():
    m = models.get("chaplygin-sleigh")
    eqs = boltzmann_hamel(m.system, m.frame)
    exprs = list(eqs.kinematics) + list(eqs.mass_matrix) + list(eqs.forcing)
    plain = sum(sp.count_ops(e) for e in exprs)
    assert 0 < equation_size(eqs) <= plain
