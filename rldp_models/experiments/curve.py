"""The privacy-utility curve of a table: what each program and protocol gives at each eps.

For a crosstab, a grid of eps and a significance level alpha, one row per
(method, eps):

* the programs NUNP, NURP, RUNP and RURP (:func:`rldp_models.programs.preset`,
  over the chi-square set of level ``1 - alpha`` for the robust ones) report
  their optimal **objective**, the expected distortion they minimise (worst
  case over the set for the robust utility programs);
* the RLDP protocols IR, GRR-CR and UE-CR
  (:func:`rldp_models.experiments.rldp_methods.utility_rows`) report the
  normalised utility ``I_Phat(X;Y) / H_Phat(X)`` they maximise.

The two families optimise different measures, so they are kept apart (the
``measure`` column; two panels in the figure). Beside the curve, the
**coverage** of the chi-square set at ``alpha`` on this table is simulated
(:func:`rldp_models.uncertainty.coverage.coverage_study`, tables redrawn from
``Phat``): a robust guarantee is only as good as the set's chance of holding
the truth, and on sparse tables it falls short of ``1 - alpha``.

Every (method, eps) is a task for the executor
(:mod:`rldp_models.executors`); a failed solve is a row with ``nan`` and the
error's first line, not a failed curve.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from rldp_models.data import Crosstab
from rldp_models.errors import InputError
from rldp_models.executors import Executor, executor_from_spec
from rldp_models.progress import progress as bar
from rldp_models.safe_io import save_figure

PROGRAMS = ("NUNP", "NURP", "RUNP", "RURP")
PROTOCOLS = ("ir", "grr-cr", "ue-cr")
DISTORTION = "expected distortion (minimised)"
UTILITY = "I_Phat(X;Y) / H_Phat(X) (maximised)"
COVERAGE_DRAWS = 1000


@dataclass(frozen=True)
class Curve:
    """The curve (one row per method and eps) and the set's simulated coverage.

    Attributes
    ----------
    frame : pandas.DataFrame
        Columns ``method, family, measure, eps, alpha, value, error, seconds``.
    coverage : pandas.DataFrame
        :func:`~rldp_models.uncertainty.coverage.coverage_study`'s row for the chi-square set
        at ``alpha`` (columns ``coverage, low, high, target``, ...); empty when not asked.
    """

    frame: pd.DataFrame
    coverage: pd.DataFrame

    def summary(self) -> str:
        """The curve as a wide table (methods by eps) and the coverage line."""
        wide = self.frame.pivot_table(index=["measure", "method"], columns="eps",
                                      values="value", dropna=False, observed=True,
                                      sort=False).dropna(how="all")
        lines = [wide.to_string(float_format=lambda v: f"{v:.4g}")]
        if len(self.coverage):
            row = self.coverage.iloc[0]
            lines.append(f"coverage of the chi-square set at alpha = {row['alpha']:g}: "
                         f"{row['coverage']:.3f} [{row['low']:.3f}, {row['high']:.3f}] "
                         f"(target {row['target']:.3f}, {int(row['draws'])} tables from Phat)")
        return "\n".join(lines)


@dataclass(frozen=True)
class _Task:
    crosstab: Crosstab
    method: str
    eps: float
    alpha: float
    distortion: str


def curve(crosstab: Crosstab, eps: Sequence[float], alpha: float = 0.05,
          methods: Sequence[str] = PROGRAMS + PROTOCOLS, distortion: str = "hamming",
          executor: Executor | None = None, coverage_draws: int = COVERAGE_DRAWS,
          seed: int = 0, progress: bool = True) -> Curve:
    """The privacy-utility curve of ``crosstab`` (module docstring).

    Parameters
    ----------
    crosstab : Crosstab
    eps : sequence of float
        Privacy levels, each ``>= 0``.
    alpha : float
        Significance level of the chi-square set, in (0, 1).
    methods : sequence of str
        From :data:`PROGRAMS` and :data:`PROTOCOLS`.
    distortion : str
        The programs' distortion (``hamming``, ``squared``, ``absolute``).
    executor : Executor, optional
        Where the tasks run; serial by default.
    coverage_draws : int
        Simulated tables for the coverage (0: none).
    seed : int
        Seed of the coverage simulation.
    progress : bool
        Draw a bar over the tasks.

    Raises
    ------
    InputError
        An unknown method, an eps below 0 or alpha outside (0, 1).
    """
    grid = _validated(eps, alpha, methods)
    tasks = [_Task(crosstab, method, level, alpha, distortion)
             for method in methods for level in grid]
    executor = executor or executor_from_spec("serial")
    ticks = bar(total=len(tasks), desc="curve", unit="point") if progress else None
    try:
        rows = executor.map(run_task, tasks, ticks.update if ticks else None)
    finally:
        if ticks is not None:
            ticks.close()
    return Curve(pd.DataFrame(rows), _coverage(crosstab, alpha, coverage_draws, seed, executor,
                                               progress))


def _validated(eps: Sequence[float], alpha: float, methods: Sequence[str]) -> list[float]:
    unknown = [m for m in methods if m not in PROGRAMS + PROTOCOLS]
    if unknown or not methods:
        raise InputError(f"unknown method {unknown[0]!r}; choose from "
                         f"{', '.join(PROGRAMS + PROTOCOLS)}" if unknown else
                         "no method to compute")
    grid = sorted(set(float(e) for e in eps))
    if not grid or not all(math.isfinite(e) and e >= 0 for e in grid):
        raise InputError("eps must be one or more finite numbers >= 0")
    if not 0 < alpha < 1:
        raise InputError(f"alpha must lie in (0, 1), got {alpha}")
    return grid


def run_task(task: _Task) -> dict[str, Any]:
    """One point of the curve (a module-level function: executors pickle it)."""
    crosstab = task.crosstab
    start = time.process_time()
    family = "program" if task.method in PROGRAMS else "protocol"
    value, error = math.nan, ""
    try:
        value = (_program_objective(crosstab, task) if family == "program" else
                 _protocol_utility(crosstab, task))
    except Exception as exc:  # noqa: BLE001 - one failed point must not end a curve
        error = f"{type(exc).__name__}: {exc}".splitlines()[0]
    return {"method": task.method, "family": family,
            "measure": DISTORTION if family == "program" else UTILITY, "eps": task.eps,
            "alpha": task.alpha, "value": value, "error": error,
            "seconds": time.process_time() - start}


def _program_objective(crosstab: Crosstab, task: _Task) -> float:
    from rldp_models.programs import preset

    solution = preset(task.method, crosstab, task.eps, task.alpha,
                      distortion=task.distortion).solve()
    if solution.protocol is None or solution.objective is None:
        raise RuntimeError(f"solver returned {solution.status.value}")
    return float(solution.objective)


def _protocol_utility(crosstab: Crosstab, task: _Task) -> float:
    from rldp_models.experiments.rldp_methods import utility_rows

    row = utility_rows(crosstab, task.eps, task.alpha, [task.method])[0]
    if row["error"]:
        raise RuntimeError(row["error"])
    return float(row["normalised"])


def _coverage(crosstab: Crosstab, alpha: float, draws: int, seed: int, executor: Executor,
              progress: bool) -> pd.DataFrame:
    if draws == 0:
        return pd.DataFrame()
    from rldp_models.uncertainty.coverage import coverage_study

    return coverage_study(crosstab.counts, ("chi2",), (alpha,), draws, seed, ("phat",),
                          executor=executor, progress=progress)


def plot_curve(result: Curve, path: str, title: str = "") -> None:
    """Two panels: the programs' objective and the protocols' utility against eps; the
    coverage in the title."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    families = [f for f in ("program", "protocol") if (result.frame["family"] == f).any()]
    figure, axes = plt.subplots(1, len(families), figsize=(5.5 * len(families), 4),
                                squeeze=False)
    for axis, family in zip(axes[0], families):
        part = result.frame[result.frame["family"] == family]
        for method, rows in part.groupby("method", sort=False):
            axis.plot(rows["eps"], rows["value"], marker="o", label=method)
        axis.set_xlabel("eps")
        axis.set_ylabel(part["measure"].iloc[0])
        axis.legend()
        axis.grid(alpha=0.3)
    if len(result.coverage):
        row = result.coverage.iloc[0]
        title += (f"  (chi-square set at alpha = {row['alpha']:g}: coverage "
                  f"{row['coverage']:.2f}, target {row['target']:.2f})")
    figure.suptitle(title.strip())
    figure.tight_layout()
    try:  # written whole or not at all (a full disk, an interrupt)
        save_figure(figure, path, dpi=100)
    finally:
        plt.close(figure)
