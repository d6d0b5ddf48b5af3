"""What one reproducible experiment is: tasks, a task runner, a plot and a verdict.

An :class:`Experiment` splits a paper figure into independent *tasks* (one per
instance, seed and parameter point, each a small picklable ``dict`` holding a
``"seed"``). ``run_task`` is a module-level function, so any executor (a
process pool, a Dask cluster) can run the tasks and the results depend only on
the task, never on the order or the worker. The runner
(:mod:`rldp_models.experiments.runner`) collects the rows every task returns
into one table, writes it as CSV, draws the figure with ``plot`` and judges the
paper's statement with ``summarise``, from the table alone, so a test can
re-judge a CSV written earlier.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

Task = dict[str, Any]
"""One unit of work: parameters and a ``"seed"``; picklable."""

Row = dict[str, Any]
"""One row of raw results: one instance and one method."""


@dataclass(frozen=True)
class Finding:
    """How a result compares with the paper.

    Attributes
    ----------
    text : str
        A few sentences: what the paper states, what was measured, agreement.
    checks : dict of str to bool
        Named qualitative findings, each True when it holds in the table.
    """

    text: str
    checks: dict[str, bool] = field(default_factory=dict)

    @property
    def holds(self) -> bool:
        """True when every check holds."""
        return all(self.checks.values())


@dataclass(frozen=True)
class Experiment:
    """One paper figure as a set of tasks.

    Attributes
    ----------
    id : str
        Registry name, e.g. ``"robust-opt-fig2a"``.
    title : str
        One line for ``rldp reproduce --list`` and the gallery.
    paper : str
        File name under ``shared/papers`` and the figure, e.g.
        ``"rldp-privacy-utility-tradeoff.txt, Fig. 2"``.
    claim : str
        The paper's statement being reproduced, in one or two sentences.
    tasks : callable
        ``tasks(quick) -> list[Task]``; ``quick=True`` is the reduced form that
        runs in CI, ``False`` the paper's sizes.
    run_task : callable
        ``run_task(task) -> list[Row]``; module level, deterministic in the task.
    plot : callable
        ``plot(table) -> matplotlib.figure.Figure`` drawn like the paper's figure.
    summarise : callable
        ``summarise(table) -> Finding``.
    needs_data : bool
        True when the experiment reads a data file (``options["data"]``).
    """

    id: str
    title: str
    paper: str
    claim: str
    tasks: Callable[[bool], list[Task]]
    run_task: Callable[[Task], list[Row]]
    plot: Callable[[pd.DataFrame], Any]
    summarise: Callable[[pd.DataFrame], Finding]
    needs_data: bool = False
