"""Running a registered :class:`~rldp_models.experiments.base.Experiment`: tasks to one
table, then its files.

:func:`experiments` lists every registered experiment, one module per paper
(:data:`EXPERIMENT_MODULES`, imported on first use); :func:`get` finds one by id.
:func:`run_experiment` sends the tasks through an executor
(:mod:`rldp_models.executors`), labels every row with the
experiment, the task's index and the seed (a row may carry its own
``"seed"``, e.g. the seed of the instance it describes; otherwise the task's
is used), sorts the rows by task and order within the task, and hands the table
to :func:`write_outputs`. The rows depend only on the tasks, so every executor
writes the same CSV.

The files of one run are ``<id>.csv``, ``<id>.png``, ``<id>.svg``, ``<id>.md``.
The CSV holds the raw table (one row per instance and method, with its seed);
the PNG (100 dpi, small enough to commit) and SVG are the experiment's figure,
saved without time stamps so reruns give the same files; the Markdown summary
states the paper's claim, the finding, each claim with what was measured and its verdict
(reproduced, not reproduced, not resolved at this size), the sizes,
the wall time, the executor and the versions of the main packages.
"""

from __future__ import annotations

import os
import platform
import sys
import time
from importlib import import_module
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

import pandas as pd

from rldp_models import safe_io
from rldp_models.errors import InputError
from rldp_models.executors import Executor, executor_from_spec
from rldp_models.experiments.base import Experiment, Finding, Row, RunResult, Task


EXPERIMENT_MODULES = (
    "rldp_models.experiments.robust_opt",
    "rldp_models.experiments.rldp_paper",
    "rldp_models.experiments.extremal",
    "rldp_models.experiments.extremal_scaling",
    "rldp_models.experiments.funnel",
    "rldp_models.experiments.uldp",
    "rldp_models.experiments.coverage",
)
"""Modules that define ``EXPERIMENTS: tuple[Experiment, ...]``."""


def experiments() -> dict[str, Experiment]:
    """Every registered experiment by id, in registration order."""
    found: dict[str, Experiment] = {}
    for name in EXPERIMENT_MODULES:
        for experiment in import_module(name).EXPERIMENTS:
            found[experiment.id] = experiment
    return found


def get(experiment_id: str) -> Experiment:
    """The experiment ``experiment_id``; a one-line :class:`InputError` if unknown."""
    registered = experiments()
    if experiment_id not in registered:
        raise InputError(f"unknown experiment {experiment_id!r}; "
                         f"'rldp reproduce --list' shows the {len(registered)} known ones")
    return registered[experiment_id]


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


PNG_DPI = 100
"""Resolution of the PNG figures (the gallery commits them)."""

VERSIONED_PACKAGES = ("rldp-models", "numpy", "scipy", "pandas", "cvxpy", "clarabel",
                      "matplotlib")
"""Packages whose versions the summary records."""


def write_outputs(result: RunResult, out: Path) -> dict[str, Path]:
    """Write the four files of ``result`` under ``out`` and return their paths by suffix."""
    out.mkdir(parents=True, exist_ok=True)
    stem = out / result.experiment.id
    paths = {suffix: stem.with_suffix(f".{suffix}") for suffix in ("csv", "png", "svg", "md")}
    with safe_io.atomic_output(paths["csv"], newline="") as handle:
        result.table.to_csv(handle, index=False)
    save_figure(result, paths["png"], paths["svg"])
    safe_io.write_text(paths["md"], summary_markdown(result))
    return paths


def save_figure(result: RunResult, png: Path, svg: Path) -> None:
    """Draw ``experiment.plot(table)`` and save it as PNG and SVG without time stamps."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    with plt.rc_context({"svg.hashsalt": result.experiment.id}):
        figure = result.experiment.plot(result.table)
        try:
            safe_io.save_figure(figure, png, dpi=PNG_DPI, metadata={"Software": None})
            safe_io.save_figure(figure, svg, metadata={"Date": None})
        finally:
            plt.close(figure)


def summary_markdown(result: RunResult) -> str:
    """The Markdown summary of a run."""
    experiment, finding = result.experiment, result.finding
    form = "quick (CI)" if result.quick else "full (paper's sizes)"
    lines = [
        f"# {experiment.id}: {experiment.title}",
        "",
        f"- Paper: {experiment.paper}",
        f"- Paper's claim: {experiment.claim}",
        f"- Verdicts: {verdict_counts(finding)}",
        "",
        "## Finding",
        "",
        finding.text,
        "",
        "## Claims",
        "",
        *claims_table(finding),
        "",
        "## Run",
        "",
        f"- Form: {form}",
        f"- Sizes: {result.table['task'].nunique() if len(result.table) else 0} tasks, "
        f"{len(result.table)} rows",
        f"- Wall time of the tasks: {result.seconds:.1f} s",
        f"- Executor: {result.executor.label}",
        f"- Versions: {versions()}",
        "",
    ]
    return "\n".join(lines)


def verdict_counts(finding: Finding) -> str:
    """``3 reproduced, 1 not reproduced, 0 not resolved at this size``."""
    return ", ".join(f"{count} {verdict}" for verdict, count in finding.counts.items())


def claims_table(finding: Finding) -> list[str]:
    """Markdown rows: the paper's claim, what was measured, the verdict and its reason."""
    def cell(text: str) -> str:
        return text.replace("|", r"\|")

    return ["| paper's claim | measured | verdict |", "|---|---|---|",
            *[f"| {cell(c.claim)} | {cell(c.measured) or 'see the finding'} | "
              f"**{c.verdict.value}**{': ' + cell(c.reason) if c.reason else ''} |"
              for c in finding.claims]]


def versions() -> str:
    """``python 3.x, rldp-models 0.1.0, numpy ...`` for the packages that are installed."""
    found = [f"python {platform.python_version()}"]
    for package in VERSIONED_PACKAGES:
        try:
            found.append(f"{package} {version(package)}")
        except PackageNotFoundError:
            continue
    return ", ".join(found)
