"""The progress of long work drawn on a terminal with tqdm (a listener of :mod:`geonh.kernel.progress`).

:class:`TerminalProgress` keeps one tqdm bar per open step, nested as the steps are: the phase
the command is in ("deriving and comparing every form of whipple-bicycle"), the form in hand
("certify forms 4/10: maggi"), the rows of its equations, the states of its certificate.  A
report on a step closes the bars opened after it (its inner steps are over), a report with
``done == total`` closes its own.  Bars appear only after ``delay`` seconds (quick work stays
silent) and vanish when their step ends; a ticker refreshes the clocks of bars that get no
report for a while.

:func:`terminal_progress` installs one for a ``with`` block when the stream is a terminal
(``GEONH_PROGRESS=1`` forces it, ``GEONH_PROGRESS=0`` turns it off), so the command line shows
progress on stderr only where a person watches.
"""
from __future__ import annotations

import os
import sys
import threading
import time
from contextlib import contextmanager
from typing import IO, Iterator, Optional

from tqdm import tqdm

from ..kernel.progress import ProgressEvent, listening

__all__ = ["TerminalProgress", "terminal_progress", "wanted"]

#: seconds before a bar shows (quicker work stays silent)
DELAY = 1.0
#: seconds between two redraws of a bar
MININTERVAL = 0.2
#: how a bar looks: "certify forms:  30%|███       | 3/10 [00:12, maggi]"
BAR = "{desc}: {percentage:3.0f}%|{bar:16}| {n_fmt}/{total_fmt} [{elapsed}{postfix}]"
#: a step without a count: "deriving the maggi equations of whipple-bicycle [00:05]"
PHASE = "{desc} [{elapsed}{postfix}]"


class TerminalProgress:
    """A progress listener drawing nested tqdm bars on ``stream`` (see the module doc); call
    :meth:`close` at the end (or use :func:`terminal_progress`)."""

    def __init__(self, stream: Optional[IO[str]] = None, delay: Optional[float] = None, tick: float = 0.25,
                 mininterval: Optional[float] = None):
        self.stream = sys.stderr if stream is None else stream
        self.delay, self.tick, self.mininterval = (DELAY if delay is None else delay, tick,
                                                   MININTERVAL if mininterval is None else mininterval)
        self._bars: list[tuple[str, tqdm, float]] = []   # (step, bar, start) innermost last
        self._lock = threading.Lock()
        self._done = threading.Event()
        self._ticker: Optional[threading.Thread] = None

    def __call__(self, event: ProgressEvent) -> None:
        with self._lock:
            where = next((i for i in range(len(self._bars) - 1, -1, -1) if self._bars[i][0] == event.step), None)
            if event.finished:  # the step is over: its bar and those of its inner steps go
                if where is not None:
                    self._close_from(where)
                return
            if where is None:
                bar = tqdm(total=event.total, initial=event.done, desc=event.step, postfix=event.label or None,
                           file=self.stream, leave=False, position=len(self._bars),
                           bar_format=BAR if event.total else PHASE, mininterval=self.mininterval,
                           delay=self.delay)
                self._bars.append((event.step, bar, time.monotonic()))
                self._start_ticker()
                return
            else:
                self._close_from(where + 1)
                bar = self._bars[where][1]
                bar.total = event.total
            bar.set_postfix_str(event.label, refresh=False)
            bar.update(event.done - bar.n)

    def _close_from(self, index: int) -> None:
        while len(self._bars) > index:
            self._bars.pop()[1].close()

    def _start_ticker(self) -> None:
        if self._ticker is None and self.tick > 0:
            self._ticker = threading.Thread(target=self._run_ticker, daemon=True)
            self._ticker.start()

    def _run_ticker(self) -> None:
        while not self._done.wait(self.tick):
            with self._lock:
                now = time.monotonic()
                for _step, bar, start in self._bars:
                    if now - start >= self.delay:
                        bar.refresh()

    def close(self) -> None:
        """Close every bar and stop the ticker."""
        self._done.set()
        if self._ticker is not None:
            self._ticker.join()
        with self._lock:
            self._close_from(0)


def wanted(stream: Optional[IO[str]] = None) -> bool:
    """Whether to draw progress on ``stream`` (default stderr): ``GEONH_PROGRESS=1`` yes,
    ``GEONH_PROGRESS=0`` no, otherwise when it is a terminal."""
    forced = os.environ.get("GEONH_PROGRESS", "").strip()
    if forced in ("0", "1"):
        return forced == "1"
    stream = sys.stderr if stream is None else stream
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError, OSError):
        return False


#: the display :func:`terminal_progress` has installed (at most one: an inner block reuses it)
_ACTIVE: list[TerminalProgress] = []


@contextmanager
def terminal_progress(stream: Optional[IO[str]] = None, delay: Optional[float] = None) -> Iterator[Optional[TerminalProgress]]:
    """Draw the progress reported inside the ``with`` block on ``stream`` (default stderr) when
    :func:`wanted`, each bar after ``delay`` seconds (default :data:`DELAY`); yields the :class:`TerminalProgress`, or None when nothing is drawn.  Inside
    another such block the display in place is reused."""
    if _ACTIVE:
        yield _ACTIVE[-1]
        return
    if not wanted(stream):
        yield None
        return
    display = TerminalProgress(stream, delay=delay)
    _ACTIVE.append(display)
    try:
        with listening(display):
            yield display
    finally:
        _ACTIVE.remove(display)
        display.close()
