"""Verdicts of the papers' claims that a table of random instances may or may not resolve.

A claim about random instances is a statement about a population the table
only samples. Each helper returns a :class:`~rldp_models.experiments.base.Claim`
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
import numpy as np
from numpy.typing import ArrayLike
from scipy import stats

from rldp_models.experiments.base import Claim, ClaimOutcome

CONFIDENCE = 0.95
"""Level of every interval a verdict rests on."""


def mean_interval(values: ArrayLike, confidence: float = CONFIDENCE
                  ) -> tuple[float, float, float]:
    """Mean and two-sided Student-t interval of independent ``values`` (nan-free, >= 2)."""
    sample = np.asarray(values, dtype=float)
    mean = float(sample.mean())
    if sample.size < 2:
        return mean, -math.inf, math.inf
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
