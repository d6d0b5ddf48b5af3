"""Running an :class:`~rldp_models.experiments.base.Experiment`: tasks to one table, then files.

:func:`run_experiment` sends the tasks through an executor
(:mod:`rldp_models.executors`), labels every row with the
experiment, the task's index and the seed (a row may carry its own
``"seed"``, e.g. the seed of the instance it describes; otherwise the task's
is used), sorts the rows by task and order within the task, and hands the table
to :func:`rldp_models.experiments.outputs.write_outputs`. The rows depend only
on the tasks, so every executor writes the same CSV.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import Any

import pandas as pd

from rldp_models.errors import InputError
from rldp_models.executors import Executor, executor_from_spec
from rldp_models.experiments.base import Experiment, Row, RunResult, Task
from rldp_models.experiments.outputs import write_outputs

LABEL_COLUMNS = ("experiment", "task", "seed")
"""Columns the runner puts first in every table."""


def run_experiment(experiment: Experiment, out: str | Path, quick: bool = False,
                   executor: Executor | str = "joblib", workers: int | None = None,
                   options: dict[str, Any] | None = None,
                   progress: bool | None = None) -> RunResult:
    """Run every task of ``experiment`` and write ``<id>.csv/.png/.svg/.md`` under ``out``.

    Parameters
    ----------
    experiment : Experiment
    out : str or Path
        Output directory, created if needed.
    quick : bool
        The reduced form (CI) instead of the paper's sizes.
    executor : Executor or str
        An executor or its spec (``serial``, ``joblib``, ``dask-local``, ``dask://HOST:PORT``).
    workers : int, optional
        Worker processes when ``executor`` is a spec (default: the cores).
    options : dict, optional
        Merged into every task, e.g. ``{"data": path}`` for experiments that read data.
    progress : bool, optional
        Force the progress bar on or off; by default it shows on a terminal
        unless ``CI=true``.
    """
    if isinstance(executor, str):
        executor = executor_from_spec(executor, workers)
    tasks = experiment_tasks(experiment, quick, options)
    start = time.perf_counter()
    table = run_tasks(experiment, tasks, executor, progress)
    seconds = time.perf_counter() - start
    finding = experiment.summarise(table)
    result = RunResult(experiment, table, finding, seconds, executor, quick, {})
    paths = write_outputs(result, Path(out))
    return RunResult(experiment, table, finding, seconds, executor, quick, paths)


def experiment_tasks(experiment: Experiment, quick: bool,
                     options: dict[str, Any] | None = None) -> list[Task]:
    """The tasks of ``experiment`` with ``options`` merged in; each must hold a ``"seed"``."""
    tasks = [{**task, **(options or {})} for task in experiment.tasks(quick)]
    for index, task in enumerate(tasks):
        if "seed" not in task:
            raise InputError(f"task {index} of {experiment.id} has no 'seed'")
    return tasks


def run_tasks(experiment: Experiment, tasks: list[Task], executor: Executor,
              progress: bool | None = None) -> pd.DataFrame:
    """Run ``tasks`` with ``executor`` and return the labelled, sorted table."""
    bar = _progress_bar(experiment.id, len(tasks), progress)
    try:
        per_task = executor.map(experiment.run_task, tasks, bar.update)
    finally:
        bar.close()
    return label_rows(experiment.id, tasks, per_task)


def label_rows(experiment_id: str, tasks: list[Task], per_task: list[list[Row]]
               ) -> pd.DataFrame:
    """One table: the label columns first, then each row's own columns.

    Rows are ordered by task index, then by their order within the task,
    which depends only on the tasks.
    """
    records = []
    for index, (task, rows) in enumerate(zip(tasks, per_task)):
        for row in rows:
            labels = {"experiment": experiment_id, "task": index,
                      "seed": row.get("seed", task["seed"])}
            records.append({**labels,
                            **{k: v for k, v in row.items() if k not in LABEL_COLUMNS}})
    table = pd.DataFrame.from_records(records)
    if table.empty:
        return pd.DataFrame(columns=list(LABEL_COLUMNS))
    return table.sort_values("task", kind="stable").reset_index(drop=True)


def progress_enabled(forced: bool | None = None) -> bool:
    """Show a progress bar? ``forced`` wins; else on a terminal unless ``CI=true``."""
    if forced is not None:
        return forced
    return sys.stderr.isatty() and os.environ.get("CI", "").lower() != "true"


def _progress_bar(experiment_id: str, total: int, forced: bool | None) -> Any:
    from tqdm import tqdm

    return tqdm(total=total, desc=experiment_id, unit="task", file=sys.stderr,
                disable=not progress_enabled(forced), dynamic_ncols=True)
