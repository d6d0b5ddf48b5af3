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

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

if TYPE_CHECKING:
    from rldp_models.executors import Executor

Task = dict[str, Any]
"""One unit of work: parameters and a ``"seed"``; picklable."""

Row = dict[str, Any]
"""One row of raw results: one instance and one method."""


class ClaimOutcome(str, Enum):
    """How a paper's claim fares in a table: the three outcomes a check may have.

    (A certificate's verdict is :class:`rldp_models.certificates.verdict.Verdict`.)
    """

    REPRODUCED = "reproduced"
    NOT_REPRODUCED = "not reproduced"
    NOT_RESOLVED = "not resolved at this size"


@dataclass(frozen=True)
class Claim:
    """One statement of the paper, what the toolkit measured, and the verdict.

    Attributes
    ----------
    claim : str
        The paper's statement, in its own terms (with its numbers where it gives them).
    measured : str
        What the table shows, with numbers; empty when the finding's text holds them.
    verdict : ClaimOutcome
    reason : str
        Why a claim is not reproduced or not resolved (e.g. "our cone LP is faster
        than the paper's vertex enumeration"); empty when reproduced.
    """

    claim: str
    measured: str
    verdict: ClaimOutcome
    reason: str = ""


@dataclass(frozen=True)
class Finding:
    """How a result compares with the paper.

    Attributes
    ----------
    text : str
        A few sentences: what the paper states, what was measured, agreement.
    claims : tuple of Claim
        The paper's statements checked in the table, each with its verdict.
    """

    text: str
    claims: tuple[Claim, ...] = ()

    @classmethod
    def from_checks(cls, text: str, checks: Mapping[str, "bool | Claim"]) -> "Finding":
        """A finding from named checks: a ``bool`` is a claim the table decides outright
        (``reproduced`` or ``not reproduced``, its numbers in ``text``), a :class:`Claim`
        is kept as it is."""
        claims = tuple(
            check if isinstance(check, Claim)
            else Claim(name, "", ClaimOutcome.REPRODUCED if check else ClaimOutcome.NOT_REPRODUCED,
                       "" if check else "see the finding's numbers")
            for name, check in checks.items())
        return cls(text, claims)

    @property
    def checks(self) -> dict[str, bool]:
        """``{claim: reproduced?}``; an unresolved claim counts as not reproduced here."""
        return {c.claim: c.verdict is ClaimOutcome.REPRODUCED for c in self.claims}

    def count(self, verdict: ClaimOutcome) -> int:
        """How many claims have ``verdict``."""
        return sum(c.verdict is verdict for c in self.claims)

    @property
    def counts(self) -> dict[str, int]:
        """Claims per verdict, in the order of :class:`ClaimOutcome`."""
        return {v.value: self.count(v) for v in ClaimOutcome}

    @property
    def holds(self) -> bool:
        """True when no claim is ``not reproduced`` (unresolved claims do not fail a run)."""
        return self.count(ClaimOutcome.NOT_REPRODUCED) == 0


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


@dataclass(frozen=True)
class RunResult:
    """What one run produced.

    Attributes
    ----------
    experiment : Experiment
    table : pandas.DataFrame
        All rows, labelled and sorted, as written to ``<id>.csv``.
    finding : Finding
        ``experiment.summarise(table)``.
    seconds : float
        Wall time of the tasks (not of the plotting).
    executor : Executor
    quick : bool
    paths : dict of str to Path
        ``csv``, ``png``, ``svg`` and ``md``.
    """

    experiment: Experiment
    table: pd.DataFrame
    finding: Finding
    seconds: float
    executor: Executor
    quick: bool
    paths: dict[str, Path]
