"""A cooperative time limit: solvers are given what is left of it, phases check it.

``with limited(seconds):`` sets a deadline for the code it runs (a context variable,
so threads and nested calls see their own). :func:`solvers.solve` hands every
backend the seconds left (Clarabel ``time_limit``, HiGHS ``time_limit``, SCS
``time_limit_secs``, MOSEK ``MSK_DPAR_OPTIMIZER_MAX_TIME``; ECOS has only an
iteration limit) and refuses to start once the deadline has passed; long loops call
:func:`check` between steps. Nothing kills the process: a caller gets
:class:`TimeLimitReached`, carrying the best certified result the run held (or None).
"""

from __future__ import annotations

import contextlib
import contextvars
import time
from collections.abc import Iterator
from typing import Any

_DEADLINE: contextvars.ContextVar[tuple[float, float] | None] = contextvars.ContextVar(
    "rldp_deadline", default=None)
"""``(monotonic deadline, limit in seconds)`` of the innermost :func:`limited`, or None."""


class TimeLimitReached(Exception):
    """The time limit passed before ``phase`` was done.

    Attributes
    ----------
    limit : float
        The limit in seconds.
    phase : str
        What was running (``"solve"``, a loop's description, ...).
    best : Any
        The best certified result the raising run held, or None where it held
        none: PolyOpt past the exact certification of ``Q^1`` carries its
        :class:`~rldp_models.rldp_protocols.polyopt.PolyOptResult` (with its
        proven gap; PolyOpt otherwise stops itself before the deadline and
        returns that result). A solve refused at the deadline (a solver's
        iterate is not certified; an optimal mechanism's cone LP is written
        only with its proof of optimality), the exact checks of
        :func:`rldp_models.finish.finish` (nothing has passed before the one
        that returns) and the loops of :func:`rldp_models.progress.iterate`
        (a partial curve or coverage table is no result) carry None.
    """

    def __init__(self, limit: float, phase: str, best: Any = None) -> None:
        super().__init__(f"the time limit of {limit:g} s passed during {phase}")
        self.limit, self.phase, self.best = limit, phase, best


@contextlib.contextmanager
def limited(seconds: float | None) -> Iterator[None]:
    """Run the block under a deadline ``seconds`` from now (None: no limit; an outer,
    earlier deadline stays in force)."""
    if seconds is None:
        yield
        return
    deadline = time.monotonic() + seconds
    outer = _DEADLINE.get()
    token = _DEADLINE.set((min(deadline, outer[0]) if outer else deadline,
                           min(seconds, outer[1]) if outer else seconds))
    try:
        yield
    finally:
        _DEADLINE.reset(token)


def remaining() -> float | None:
    """Seconds left before the deadline (0 once passed), None without a limit."""
    current = _DEADLINE.get()
    return None if current is None else max(0.0, current[0] - time.monotonic())


def check(phase: str, best: Any = None) -> None:
    """Raise :class:`TimeLimitReached` (with ``best``) once the deadline has passed."""
    current = _DEADLINE.get()
    if current is not None and time.monotonic() >= current[0]:
        raise TimeLimitReached(current[1], phase, best)
