"""Benchmark fixtures: record the ratio to a baseline timed in the same process.

Benchmarks run once each as smoke tests in the default test run (pytest's
``--benchmark-disable``); ``python -m pytest benchmarks --benchmark-enable``
measures them, and ``-m slow`` adds the full-size cases. The suite runs on one
worker per core (``-n auto`` in pyproject's addopts); a timed run takes one
process, since two workers would time each other.
"""

from __future__ import annotations

from typing import Any, Callable

import pytest


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
    """``-n auto`` means no workers when benchmarks are timed (``--benchmark-enable``)."""
    return 0 if config.getoption("benchmark_enable", False) else None


@pytest.fixture
def record_ratio(benchmark: Any) -> Callable[..., None]:
    """Store ``baseline seconds / measured seconds`` in the benchmark's extra info."""

    def record(baseline_name: str, baseline_seconds: float, at_least: bool = False) -> None:
        """``at_least``: the baseline was stopped at ``baseline_seconds`` (a lower bound)."""
        stats = getattr(benchmark, "stats", None)
        measured = stats.stats.min if stats is not None else None
        benchmark.extra_info["baseline"] = baseline_name
        benchmark.extra_info["baseline_seconds"] = baseline_seconds
        benchmark.extra_info["baseline_finished"] = not at_least
        if measured:
            key = "speed_up_at_least" if at_least else "speed_up"
            benchmark.extra_info[key] = baseline_seconds / measured

    return record
