"""Anytime column generation: a report per pricing round, a cooperative deadline.

Column generation (:func:`~rldp_models.conelp.engine.generate_columns`) holds
after every round a protocol (the master's optimum, a lower bound on the cone
LP) and a proven upper bound (the master's dual plus the pricing's proven
bound, :class:`~rldp_models.conelp.engine.DualCertificate`). A
:class:`RoundWatch` receives both as a :class:`Round` after every round, may
print it as one line on standard error, and says when to stop: at a deadline
(``time.monotonic``) or when asked to (:meth:`RoundWatch.stop_now`). The
check is cooperative: the engine asks between rounds and the branch and bound
of :class:`~rldp_models.conelp.concave_pricing.ConcavePricing` between its
batches of boxes (its bound stays valid wherever it stops), so a caller always
gets the best result found and never a killed interpreter.
"""

from __future__ import annotations

import contextlib
import math
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TextIO

HEARTBEAT_SECONDS = 2.0
"""Longest silence of a shown watch: a long pricing round prints a line this often."""

LINE_SECONDS = 1.0
"""Rounds faster than this are summarised: at most one round line per second (the last
round of a run is always printed)."""


@dataclass(frozen=True)
class Round:
    """The state of column generation after one pricing round.

    Attributes
    ----------
    number : int
        Master LPs solved so far.
    columns : int
        Rays in the master.
    value : float
        The master's optimum: the utility of a protocol with columns in the cone.
    bound : float
        The best proven upper bound on the cone LP so far.
    seconds : float
        Since the watch started.
    """

    number: int
    columns: int
    value: float
    bound: float
    seconds: float

    @property
    def gap(self) -> float:
        """``(bound - value) / bound``: relative gap (``inf`` when the bound is not positive)."""
        return (self.bound - self.value) / self.bound if self.bound > 0 else math.inf


class RoundWatch:
    """Reports rounds on ``stream`` (when ``shown``) and decides when column generation stops.

    Parameters
    ----------
    label : str
        Prefix of every line.
    shown : bool
        Print the lines (the command line's ``--quiet`` turns this off).
    seconds : float, optional
        Stop once this many seconds have passed since the watch started.
    stream : file, optional
        Where lines go (standard error by default).
    activity : str, optional
        What a heartbeat line says is going on (default: the round being priced).
    """

    def __init__(self, label: str, shown: bool, seconds: float | None = None,
                 stream: TextIO | None = None, activity: str | None = None) -> None:
        self.label = label
        self.activity = activity
        self.shown = shown
        self.started = time.monotonic()
        self.deadline = math.inf if seconds is None else self.started + seconds
        self.stream = stream if stream is not None else sys.stderr
        self.rounds: list[Round] = []
        self._printed = -math.inf
        self._stopped = False

    def elapsed(self) -> float:
        return time.monotonic() - self.started

    def stop_now(self) -> None:
        """Stop at the next check."""
        self._stopped = True

    def stopping(self) -> bool:
        """Whether the deadline has passed (or :meth:`stop_now` was called); prints a
        heartbeat line when nothing was printed for :data:`HEARTBEAT_SECONDS`."""
        now = time.monotonic()
        if self.shown and now - self._printed >= HEARTBEAT_SECONDS:
            doing = self.activity or f"round {len(self.rounds) + 1}: pricing"
            self.say(f"{doing} ({self.elapsed():.0f} s)")
        return self._stopped or now >= self.deadline

    @property
    def stopped_early(self) -> bool:
        """Whether the deadline (or :meth:`stop_now`) ended the run."""
        return self._stopped or time.monotonic() >= self.deadline

    def round(self, number: int, columns: int, value: float, bound: float,
              last: bool = False) -> Round:
        """Record a round (its bound is kept as the best so far); print it if due."""
        best = min([bound] + [r.bound for r in self.rounds[-1:]])
        report = Round(number, columns, value, best, self.elapsed())
        self.rounds.append(report)
        if self.shown and (last or time.monotonic() - self._printed >= LINE_SECONDS):
            self.say(describe(report))
        return report

    @contextlib.contextmanager
    def stage(self, activity: str) -> Iterator[None]:
        """Announce ``activity`` and, while it runs (a step that cannot check in, e.g.
        double description), print a line every :data:`HEARTBEAT_SECONDS` from a
        thread that only prints."""
        self.say(activity)
        if not self.shown:
            yield
            return
        started, done = time.monotonic(), threading.Event()

        def beat() -> None:
            while not done.wait(HEARTBEAT_SECONDS):
                self.say(f"{activity} ({time.monotonic() - started:.0f} s)")

        thread = threading.Thread(target=beat, daemon=True)
        thread.start()
        try:
            yield
        finally:
            done.set()
            thread.join()

    def say(self, text: str) -> None:
        """One line on the stream (when shown)."""
        if self.shown:
            self.stream.write(f"{self.label}: {text}\n")
            self.stream.flush()
            self._printed = time.monotonic()


def describe(report: Round) -> str:
    """``round 12: 96 columns, utility 0.1234, bound 0.1250, gap 1.3%, 4.2 s``."""
    gap = f"{100 * report.gap:.3g}%" if math.isfinite(report.gap) else "unbounded"
    return (f"round {report.number}: {report.columns} columns, utility {report.value:.6g}, "
            f"bound {report.bound:.6g}, gap {gap}, {report.seconds:.1f} s")
