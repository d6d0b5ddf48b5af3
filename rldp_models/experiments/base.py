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

Claims that a table of random instances may or may not resolve
----------------------------------------------------------------
A claim about random instances is a statement about a population the table
only samples. Each helper returns a :class:`Claim`
whose verdict is ``reproduced`` or ``not reproduced`` only when the sample
decides it, and ``not resolved at this size`` otherwise:

* a sign of a mean (:func:`mean_sign_claim`): resolved when the 95% Student-t
  interval of the mean excludes zero by more than the values' numerical precision;
* a rate against a reference (:func:`rate_claim`): resolved when the 95%
  Clopper-Pearson interval excludes the reference;
* "in every instance at least ``b``" (:func:`universal_claim`) or "in every
  instance" (:func:`every_instance_claim`): one instance that fails refutes it;
  none confirms it only with at least as many instances as the paper drew;
* "sometimes" (:func:`existence_claim`): one instance confirms it; none leaves
  it open, with the Clopper-Pearson upper bound of its rate;
* a ratio against a threshold (:func:`threshold_claim`): measured side by side,
  decided outright.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

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


CONFIDENCE = 0.95
"""Level of every interval a verdict rests on."""


def mean_interval(values: ArrayLike, confidence: float = CONFIDENCE
                  ) -> tuple[float, float, float]:
    """Mean and two-sided Student-t interval of independent ``values`` (nan-free, >= 2)."""
    sample = np.asarray(values, dtype=float)
    mean = float(sample.mean())
    if sample.size < 2:
        return mean, -math.inf, math.inf
    from scipy import stats

    half = float(stats.sem(sample) * stats.t.ppf((1 + confidence) / 2, sample.size - 1))
    if not math.isfinite(half):  # every value equal: the interval is the point
        half = 0.0
    return mean, mean - half, mean + half


def mean_sign_claim(claim: str, values: ArrayLike, negative: bool, what: str,
                    precision: float = 0.0) -> Claim:
    """The claim "the mean of ``values`` is negative" (``negative=True``) or positive.

    ``values`` must be independent (e.g. one per distribution); ``what`` names
    them in the measured text; ``precision`` is their numerical precision (a sign
    is resolved only beyond it, so rounding noise cannot decide a claim).
    """
    sample = np.asarray(values, dtype=float)
    sample = sample[np.isfinite(sample)]
    mean, low, high = mean_interval(sample)
    measured = (f"{what}: mean {mean:.3g}, 95% interval [{low:.3g}, {high:.3g}] over "
                f"{sample.size} independent values")
    return interval_sign_claim(claim, low, high, negative, measured, f"{sample.size} values",
                               precision)


def interval_sign_claim(claim: str, low: float, high: float, negative: bool, measured: str,
                        size: str, precision: float = 0.0) -> Claim:
    """The claim "the quantity is negative" (or positive) from its 95% interval, resolved
    only when the interval lies beyond ``precision`` on one side of 0."""
    sign = "positive" if negative else "negative"
    within = f" (+- {precision:g}, the values' precision)" if precision else ""
    return _side_claim(claim, measured, low, high, 0.0, not negative,
                       f"the interval lies entirely on the {sign} side{within}",
                       f"the interval contains 0{within}: {size} cannot resolve the sign",
                       precision)


def _side_claim(claim: str, measured: str, low: float, high: float, reference: float,
                above: bool, refuted: str, unresolved: str, margin: float = 0.0) -> Claim:
    """Reproduced when ``[low, high]`` lies entirely on the claimed side of
    ``reference +- margin`` (above it when ``above``), not reproduced (``refuted``) when
    entirely on the other side, else not resolved (``unresolved``)."""
    wanted, other = (low > reference + margin, high < reference - margin) if above else \
        (high < reference - margin, low > reference + margin)
    if wanted:
        return Claim(claim, measured, ClaimOutcome.REPRODUCED)
    if other:
        return Claim(claim, measured, ClaimOutcome.NOT_REPRODUCED, refuted)
    return Claim(claim, measured, ClaimOutcome.NOT_RESOLVED, unresolved)


def proportion_interval(successes: int, trials: int, confidence: float = CONFIDENCE
                        ) -> tuple[float, float]:
    """Clopper-Pearson interval of a binomial proportion."""
    if trials == 0:
        return 0.0, 1.0
    from scipy import stats

    interval = stats.binomtest(successes, trials).proportion_ci(confidence, method="exact")
    return float(interval.low), float(interval.high)


def rate_claim(claim: str, successes: int, trials: int, reference: float, above: bool,
               what: str) -> Claim:
    """The claim "the rate of ``what`` is above ``reference``" (``above=True``) or below."""
    low, high = proportion_interval(successes, trials)
    measured = (f"{what}: {successes}/{trials} = {successes / max(trials, 1):.1%}, 95% "
                f"Clopper-Pearson [{low:.1%}, {high:.1%}] against {reference:.1%}")
    side = "below" if above else "above"
    return _side_claim(claim, measured, low, high, reference, above,
                       f"the interval lies entirely {side} {reference:.1%}",
                       f"the interval contains {reference:.1%}: {trials} instances cannot "
                       "resolve it")


def universal_claim(claim: str, worst: float, bound: float, instances: int,
                    paper_instances: int, where: str = "") -> Claim:
    """The claim "at least ``bound`` in every instance" given the ``worst`` value seen.

    ``where`` locates the worst value (instance, eps) for the measured text.
    """
    measured = (f"least value {worst:.1%}{' (' + where + ')' if where else ''} over "
                f"{instances} instances, paper's bound {bound:.0%}")
    if worst < bound:
        return Claim(claim, measured, ClaimOutcome.NOT_REPRODUCED,
                     f"an instance falls below the bound by {bound - worst:.1%}; the paper's "
                     f"{paper_instances} instances are not given")
    if instances >= paper_instances:
        return Claim(claim, measured, ClaimOutcome.REPRODUCED)
    return Claim(claim, measured, ClaimOutcome.NOT_RESOLVED,
                 f"{instances} < the paper's {paper_instances} instances: a bound over "
                 f"every instance is confirmed only at the paper's size")


def every_instance_claim(claim: str, failures: int, instances: int, paper_instances: int,
                         detail: str = "",
                         reason: str = "counterexamples among our instances (the paper's are "
                                       "not given)", fails: str = "fails") -> Claim:
    """The claim "``claim`` holds for every instance" given how many ``failures`` were seen;
    ``detail`` (e.g. the first or the worst failure) is quoted when there are failures,
    ``reason`` says why they refute the claim and ``fails`` names a failure in the measured
    text."""
    measured = (f"{fails} in {failures}/{instances} instances"
                + (f" ({detail})" if failures and detail else ""))
    if failures:
        return Claim(claim, measured, ClaimOutcome.NOT_REPRODUCED, reason)
    if instances >= paper_instances:
        return Claim(claim, measured, ClaimOutcome.REPRODUCED)
    return Claim(claim, measured, ClaimOutcome.NOT_RESOLVED,
                 f"{instances} < the paper's {paper_instances} instances: a statement about "
                 f"every instance is confirmed only at the paper's size")


def existence_claim(claim: str, count: int, trials: int, what: str) -> Claim:
    """The claim "``what`` happens in some instances"."""
    low, high = proportion_interval(count, trials)
    measured = f"{what}: {count}/{trials} instances (95% upper bound of the rate {high:.1%})"
    if count > 0:
        return Claim(claim, measured, ClaimOutcome.REPRODUCED)
    return Claim(claim, measured, ClaimOutcome.NOT_RESOLVED,
                 f"not seen in {trials} instances; a rate below {high:.1%} is not excluded")


def threshold_claim(claim: str, value: float, threshold: float, above: bool, what: str,
                    reason: str) -> Claim:
    """The claim "``value`` is above ``threshold``" (or below), decided outright.

    ``reason`` explains a failure (e.g. which method the paper used instead).
    """
    measured = f"{what}: {value:.3g} (threshold {threshold:g})"
    holds = value > threshold if above else value < threshold
    return Claim(claim, measured, ClaimOutcome.REPRODUCED if holds else ClaimOutcome.NOT_REPRODUCED,
                 "" if holds else reason)


def measured_claim(claim: str, holds: bool, measured: str,
                   reason: str = "the measured values lie on the other side of the claim"
                   ) -> Claim:
    """A claim the table decides outright (a median, a mean over the paper's own number of
    instances, an exact certificate), with the numbers it was decided on.

    ``reason`` explains a failure; reproduced claims carry none.
    """
    return Claim(claim, measured, ClaimOutcome.REPRODUCED if holds else ClaimOutcome.NOT_REPRODUCED,
                 "" if holds else reason)
