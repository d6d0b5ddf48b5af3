"""Timing helper for baselines measured inside a benchmark."""

from __future__ import annotations

import time
from typing import Any, Callable


def best_of(function: Callable[[], Any], repeats: int = 3) -> float:
    """Fastest of ``repeats`` wall-clock timings of ``function()``, in seconds."""
    timings = []
    for _ in range(repeats):
        start = time.perf_counter()
        function()
        timings.append(time.perf_counter() - start)
    return min(timings)


def seconds_within(function: Callable[[], Any], limit: float) -> float | None:
    """Wall-clock seconds of ``function()`` run in a child process, or ``None`` past ``limit``.

    For baselines that may not finish (full enumeration at sizes no published
    method reaches): the child is killed at ``limit`` and the caller records
    the ratio as a lower bound.
    """
    import multiprocessing

    context = multiprocessing.get_context("fork")
    child = context.Process(target=function)
    start = time.perf_counter()
    child.start()
    child.join(limit)
    if child.is_alive():
        child.kill()
        child.join()
        return None
    return time.perf_counter() - start
