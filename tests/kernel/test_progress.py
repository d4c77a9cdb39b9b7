"""The progress hook (geonh.kernel.progress): listeners, steps, phases, and what reports to it."""
from __future__ import annotations

import pytest

import geonh as g
from geonh.errors import GeonhError
from geonh.kernel import progress as P
from geonh.analysis.certificate import certify_forms
from geonh.kernel.budget import check


def test_nobody_listening_costs_nothing_and_steps_hands_back_the_items():
    items = [1, 2, 3]
    assert not P.has_listeners()
    assert P.steps("x", items) is items
    P.report("x", 0, 3, "a")  # no listener: nothing happens


def test_listeners_receive_step_count_and_label_then_stop():
    seen = []
    with P.listening(seen.append):
        assert P.has_listeners()
        out = list(P.steps("forms", ["lagrange", "maggi"], label=str.upper))
        check("rows", 1, 4, "equations", label="row 2")
    assert out == ["lagrange", "maggi"]
    assert [(e.step, e.done, e.total, e.label) for e in seen] == [
        ("forms", 0, 2, "LAGRANGE"), ("forms", 1, 2, "MAGGI"), ("forms", 2, 2, ""), ("rows", 1, 4, "row 2")]
    assert seen[2].finished and not seen[0].finished
    P.report("after", 0, 1)
    assert len(seen) == 4 and not P.has_listeners()


def test_phase_reports_its_start_and_its_end_even_on_error():
    seen = []
    with P.listening(seen.append), pytest.raises(KeyError):
        with P.phase("deriving"):
            raise KeyError("x")
    assert [(e.done, e.total) for e in seen] == [(0, None), (1, 1)]


@pytest.mark.parametrize("call", [lambda: P.listening("print").__enter__(), lambda: P.steps(3, []),
                                  lambda: P.steps("x", [], label="upper")])
def test_bad_input_is_a_geonh_error(call):
    with pytest.raises(GeonhError):
        call()


def test_bad_report_with_a_listener_is_a_geonh_error():
    with P.listening(lambda e: None):
        for args in [(None, 0), ("x", 1.5), ("x", 0, "3"), ("x", 0, 3, 7), ("x", True)]:
            with pytest.raises(GeonhError):
                P.report(*args)


def test_certificate_names_each_form_it_compares():
    model = g.models.get("chaplygin-sleigh")
    seen = []
    with P.listening(seen.append):
        certify_forms(model.system, frame=model.frame, forms=["maggi", "kane"])
    forms = [(e.done, e.total, e.label) for e in seen if e.step == "certify forms"]
    assert forms == [(0, 2, "lagrange (the reference)"), (0, 2, "maggi"), (1, 2, "kane"), (2, 2, "")]
    assert any(e.step == "certificate" for e in seen)  # the states of each comparison, inside
    # every step that opened also ends (done == total), so a display closes its bar
    for step in {e.step for e in seen}:
        assert [e for e in seen if e.step == step][-1].finished, step


def test_audit_reports_each_formula():
    from geonh.sources import audit
    seen = []
    with P.listening(seen.append):
        rep = audit("hamel1924", "1")
    assert [(e.step, e.done, e.total) for e in seen if e.step == "audit formulas"] == [
        ("audit formulas", 0, 1), ("audit formulas", 1, 1)]
    assert seen[0].label == "hamel1924 (1)" and len(rep) == 1


def test_an_event_is_an_immutable_value():
    e = P.ProgressEvent("forms", 1, 2, "maggi")
    assert e == P.ProgressEvent("forms", 1, 2, "maggi") and hash(e) == hash(P.ProgressEvent("forms", 1, 2, "maggi"))
    assert e != P.ProgressEvent("forms", 2, 2, "maggi") and "maggi" in repr(e)
    with pytest.raises(GeonhError):
        e.done = 2
    with pytest.raises(GeonhError):
        del e.step
