"""Scale-out of the experiment sweeps (two joblib workers against one) and the cost of one
RLDP table row (UE-CR in product form against the dense builder).

Issue 6 asks for the speed-up of the ``robust-opt-fig2c``/``fig2d`` sweep with
2 workers. The benchmark times a fixed slice of the full sweep's tasks (the
first blocks of instances at every ``n``) with 2 workers and records the ratio
to 1 worker timed in the same process. The default run times two quick-form
tasks once (a smoke test); ``-m slow`` times ``SLOW_BLOCKS`` blocks per ``n``.

Figs. 7-9 of the RLDP paper spend most of their time building UE-CR at 5x5
(``6^5`` outputs). The experiments build it in product form
(:func:`~rldp_models.rldp_protocols.factored_builders.ue_cr_factored`); the
benchmark times one such row with ``I_P*`` and records the ratio to the dense
builder's protocol (:func:`~rldp_models.rldp_protocols.ue_conditional`) and its
``I_P*``, timed in the same process.
"""

from __future__ import annotations

from typing import Any

import pytest

from benchmarks.timing import best_of
from rldp_models.executors import executor_from_spec
from rldp_models.experiments.runner import get
from rldp_models.experiments.rldp_methods import utility_rows
from rldp_models.experiments.robust_opt import curve_tasks
from rldp_models.datasets import jeffreys_instance
from rldp_models.rldp_protocols import ue_conditional
from rldp_models.utility import MutualInformation

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


def _dense_ue_cr_row(instance: Any, eps: float) -> float:
    protocol = ue_conditional(instance.crosstab, eps, 0.05)
    return MutualInformation(instance.p_star.ravel()).total(protocol.Q)


def test_ue_cr_row_in_product_form_against_the_dense_builder(benchmark, record_ratio) -> None:
    instance = jeffreys_instance(5, 5, 100, 0)
    dense = best_of(lambda: _dense_ue_cr_row(instance, 4.0), repeats=1)
    benchmark.pedantic(utility_rows, args=(instance.crosstab, 4.0, 0.05, ["ue-cr"],
                                           instance.p_star), rounds=1, iterations=1)
    record_ratio("dense UE-CR builder and its I_P*", dense)
