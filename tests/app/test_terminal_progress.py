"""The terminal display of progress (geonh.app.terminal_progress): tqdm bars on a terminal only."""
from __future__ import annotations

import io
import time

import pytest

from geonh.app import terminal_progress as T
from geonh.app.cli import main
from geonh.kernel.progress import has_listeners, phase, report, steps


class _TTY(io.StringIO):
    def __init__(self, tty=True):
        super().__init__()
        self.tty = tty

    def isatty(self):
        return self.tty


def test_bars_name_the_step_the_count_and_the_unit_nested_and_vanish():
    out = _TTY()
    display = T.TerminalProgress(out, delay=0, tick=0, mininterval=0)
    display(T.ProgressEvent("certify forms", 3, 10, "maggi"))
    display(T.ProgressEvent("equations of motion", 2, 9, ""))
    assert [s for s, _, _ in display._bars] == ["certify forms", "equations of motion"]
    display(T.ProgressEvent("certify forms", 4, 10, "kane"))  # the outer step moves on: the inner is over
    assert [s for s, _, _ in display._bars] == ["certify forms"]
    display(T.ProgressEvent("certify forms", 10, 10, ""))
    assert display._bars == []
    text = out.getvalue()
    for part in ("certify forms", "3/10", "maggi", "4/10", "kane", "equations of motion", "2/9"):
        assert part in text
    display.close()


def test_quick_work_and_no_terminal_stay_silent(monkeypatch):
    monkeypatch.delenv("GEONH_PROGRESS", raising=False)
    out = _TTY()
    with T.terminal_progress(out) as display:
        assert display is not None and has_listeners()
        for _ in steps("quick", range(5)):
            pass
    assert out.getvalue() == "" and not has_listeners()
    piped = _TTY(tty=False)
    with T.terminal_progress(piped) as display:
        assert display is None and not has_listeners()


def test_the_environment_decides_before_the_terminal(monkeypatch):
    monkeypatch.setenv("GEONH_PROGRESS", "1")
    assert T.wanted(_TTY(tty=False))
    monkeypatch.setenv("GEONH_PROGRESS", "0")
    assert not T.wanted(_TTY(tty=True))


def test_a_phase_without_reports_still_shows_its_clock(monkeypatch):
    out = _TTY()
    with T.terminal_progress(out, delay=0.2):
        with phase("deriving the maggi equations"):
            time.sleep(0.8)
    assert "deriving the maggi equations" in out.getvalue()


@pytest.mark.slow
def test_certify_on_a_terminal_reports_each_form(monkeypatch, capsys):
    monkeypatch.setenv("GEONH_PROGRESS", "1")
    monkeypatch.setattr(T, "DELAY", 0.0)
    monkeypatch.setattr(T, "MININTERVAL", 0.0)
    assert main(["certify", "chaplygin-sleigh"]) == 0
    err = capsys.readouterr().err
    assert "certify forms" in err and "maggi" in err and "/11" in err
    monkeypatch.setenv("GEONH_PROGRESS", "0")
    assert main(["certify", "chaplygin-sleigh"]) == 0
    assert capsys.readouterr().err == ""
