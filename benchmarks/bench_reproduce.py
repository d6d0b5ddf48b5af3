"""Scale-out of the experiment sweeps: two joblib workers against one.

Issue 6 asks for the speed-up of the ``robust-opt-fig2c``/``fig2d`` sweep with
2 workers. The benchmark times a fixed slice of the full sweep's tasks (the
first blocks of instances at every ``n``) with 2 workers and records the ratio
to 1 worker timed in the same process. The default run times two quick-form
tasks once (a smoke test); ``-m slow`` times ``SLOW_BLOCKS`` blocks per ``n``.
"""

from __future__ import annotations

from typing import Any

import pytest

from benchmarks.timing import best_of
from rldp_models.executors import executor_from_spec
from rldp_models.experiments.registry import get
from rldp_models.experiments.robust_opt import curve_tasks

SLOW_BLOCKS = 3
"""Blocks of 25 instances per ``n`` in the slow case: 600 of the full sweep's 8,000 instances."""


def _slice(quick: bool, blocks: int) -> list[dict[str, Any]]:
    tasks = curve_tasks(quick)
    return [task for task in tasks if task["first"] < blocks * tasks[0]["count"]]


def _sweep(tasks: list[dict[str, Any]], workers: int) -> None:
    from rldp_models.experiments.runner import run_tasks

    run_tasks(get("robust-opt-fig2c"), tasks, executor_from_spec("joblib", workers),
              progress=False)


def test_sweep_two_workers_quick(benchmark) -> None:
    tasks = curve_tasks(quick=True)[:2]  # one task per worker: a smoke test of the pool
    benchmark.pedantic(_sweep, args=(tasks, 2), rounds=1, iterations=1)


@pytest.mark.slow
def test_sweep_two_workers_against_one(benchmark, record_ratio) -> None:
    tasks = _slice(quick=False, blocks=SLOW_BLOCKS)
    one_worker = best_of(lambda: _sweep(tasks, 1), repeats=1)
    benchmark.pedantic(_sweep, args=(tasks, 2), rounds=1, iterations=1)
    record_ratio("1 joblib worker", one_worker)
