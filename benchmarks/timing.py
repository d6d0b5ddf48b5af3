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
