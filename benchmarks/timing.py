"""Timing helpers for baselines measured inside a benchmark, and a child process to run them in."""

from __future__ import annotations

import time
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Any, Callable, TypeVar

from joblib.externals.loky import ProcessPoolExecutor

T = TypeVar("T")


def best_of(function: Callable[[], Any], repeats: int = 3) -> float:
    """Fastest of ``repeats`` wall-clock timings of ``function()``, in seconds."""
    timings = []
    for _ in range(repeats):
        start = time.perf_counter()
        function()
        timings.append(time.perf_counter() - start)
    return min(timings)


def cpu_seconds(function: Callable[[], T]) -> tuple[T, float]:
    """``function()`` and the CPU seconds (this process, every thread) it took."""
    start = time.process_time()
    value = function()
    return value, time.process_time() - start


def in_child(function: Callable[[], T], limit: float | None = None) -> T:
    """``function()`` in a fresh child process, its result sent back.

    A spawned (loky) worker, not a fork: forking a process whose solver or BLAS
    thread pools hold a lock deadlocks the child (seen in the full suite). The
    child imports what ``function`` needs (cloudpickle sends lambdas and
    closures by value, module functions by reference) and has its own peak
    memory. Past ``limit`` seconds from the submission the child is killed.

    Raises
    ------
    concurrent.futures.TimeoutError
        When ``function()`` has not returned within ``limit`` seconds.
    """
    executor = ProcessPoolExecutor(max_workers=1)
    try:
        return executor.submit(function).result(timeout=limit)
    finally:  # a worker still busy past the limit is killed, not waited for
        executor.shutdown(wait=False, kill_workers=True)


def seconds_within(function: Callable[[], Any], limit: float) -> float | None:
    """Wall-clock seconds of ``function()`` run in a child process, or ``None`` past ``limit``.

    For baselines that may not finish (full enumeration at sizes no published
    method reaches): the child (:func:`in_child`) is killed at ``limit`` and
    the caller records the ratio as a lower bound. The seconds are the child's
    own timing of the call, without its start-up and imports.
    """
    try:
        return in_child(lambda: best_of(function, repeats=1), limit)
    except FutureTimeout:
        return None
