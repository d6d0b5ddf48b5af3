"""How often does ``F`` hold the truth? Simulated coverage of the uncertainty sets.

Every robust guarantee is conditional on the true distribution lying in ``F``,
which the default radii promise with probability ``1 - alpha`` only in the
chi-square limit. This module measures the promise on a given table:

1. a *reference* distribution ``P0`` plays the truth: ``Phat`` itself
   (``reference="phat"``), or, per draw, ``P0 ~ Dirichlet(N + 1/2)`` — the
   posterior around the table under the Jeffreys prior ``Dirichlet(1/2)``
   (``reference="dirichlet"``; every cell gets mass, unseen ones included);
   or ``P0 ~ Dirichlet(1/2)``, the Jeffreys prior itself, whatever the table
   (``reference="jeffreys"``: the robust-optimization paper's Section V
   instances, :func:`rldp_models.datasets.jeffreys_instance`);
2. a table of ``n`` records is drawn, ``N* ~ Multinomial(n, P0)``
   (``n`` = the table's own by default);
3. ``F`` is built around ``N*/n`` exactly as the toolkit builds it — the same
   radius and zero-cell rule (:mod:`rldp_models.uncertainty.set_statistics`,
   checked in the tests against each set's own ``contains``) — or with the
   bootstrap radius recalibrated on ``N*`` (``radius_from="bootstrap"``,
   :mod:`rldp_models.uncertainty.calibration`: the coverage of the whole
   procedure);
4. the share of draws with ``P0 in F`` estimates the coverage, reported with
   its Clopper-Pearson (exact binomial) interval.

All sets are judged on the same simulated tables. The draws are cut into fixed
blocks of :data:`DRAWS_PER_TASK`, each seeded by
``SeedSequence([seed, n, reference, block])``, so the numbers depend only on
``(seed, draws)``, never on the executor or the number of workers.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from rldp_models.errors import InputError
from rldp_models.executors import Executor, executor_from_spec
from rldp_models.progress import progress as bar
from rldp_models.uncertainty.calibration import JEFFREYS, bootstrap_radii
from rldp_models.uncertainty.set_statistics import set_statistic, validated_names

REFERENCES = ("phat", "dirichlet", "jeffreys")
"""The reference distributions (module docstring, step 1)."""

RADIUS_SOURCES = ("asymptotic", "bootstrap")
"""How the radius of each simulated table's set is chosen."""

DRAWS_PER_TASK = 2000
"""Simulated tables per task (fixed: the numbers must not depend on the split)."""

MEMBERSHIP_TOL = 1e-12
"""Slack of ``statistic <= radius``: the ``tol`` a set's ``contains`` would be given."""

CONFIDENCE = 0.95
"""Level of the Clopper-Pearson interval."""


@dataclass(frozen=True)
class CoverageSpec:
    """What to simulate (picklable, one per task).

    Attributes
    ----------
    counts : tuple of float
        The table, flattened.
    sets : tuple of str
    alphas : tuple of float
    n : int
        Records per simulated table.
    reference : str
        One of :data:`REFERENCES`.
    radius_from : str
        One of :data:`RADIUS_SOURCES`.
    inner_draws : int
        Bootstrap tables per simulated table when ``radius_from="bootstrap"``.
    """

    counts: tuple[float, ...]
    sets: tuple[str, ...]
    alphas: tuple[float, ...]
    n: int
    reference: str = "phat"
    radius_from: str = "asymptotic"
    inner_draws: int = 500


def reference_draws(counts: np.ndarray, reference: str, draws: int,
                    rng: np.random.Generator) -> np.ndarray:
    """``P0`` per draw, shape ``(draws, k)`` (module docstring, step 1)."""
    counts = np.asarray(counts, dtype=float).ravel()
    if reference == "phat":
        return np.broadcast_to(counts / counts.sum(), (draws, counts.size))
    if reference == "dirichlet":
        return rng.dirichlet(counts + JEFFREYS, size=draws)
    if reference == "jeffreys":
        return rng.dirichlet(np.full(counts.size, JEFFREYS), size=draws)
    raise InputError(f"unknown reference {reference!r}; choose one of {', '.join(REFERENCES)}")


def covered(spec: CoverageSpec, draws: int, rng: np.random.Generator) -> dict[tuple, int]:
    """Simulate ``draws`` tables; how many of them have ``P0 in F``, per ``(set, alpha)``."""
    truths = reference_draws(np.array(spec.counts), spec.reference, draws, rng)
    centres = rng.multinomial(spec.n, truths) / spec.n
    hits = {}
    for name in spec.sets:
        rule = set_statistic(name)
        values = rule.statistic(centres, truths)
        for alpha in spec.alphas:
            if spec.radius_from == "bootstrap":
                radii = bootstrap_radii(rule, centres, spec.n, alpha, spec.inner_draws, rng)
            else:
                radii = rule.default_radius(centres, spec.n, alpha)
            hits[name, alpha] = int(np.sum(values <= radii + MEMBERSHIP_TOL))
    return hits


def task_seed(seed: int, n: int, reference: str, block: int) -> np.random.SeedSequence:
    """The seed of one block of draws (module docstring)."""
    return np.random.SeedSequence([seed, n, REFERENCES.index(reference), block])


def coverage_tasks(spec: CoverageSpec, draws: int, seed: int) -> list[dict[str, Any]]:
    """The blocks of ``draws`` draws of ``spec``, as picklable tasks."""
    return [{"spec": spec, "draws": min(DRAWS_PER_TASK, draws - first), "seed": seed,
             "block": first // DRAWS_PER_TASK}
            for first in range(0, draws, DRAWS_PER_TASK)]


def run_coverage_task(task: dict[str, Any]) -> list[dict[str, Any]]:
    """One block: rows ``set, alpha, n, reference, radius_from, covered, draws``."""
    spec = task["spec"]
    rng = np.random.default_rng(task_seed(task["seed"], spec.n, spec.reference, task["block"]))
    hits = covered(spec, task["draws"], rng)
    return [{"set": name, "alpha": alpha, "n": spec.n, "reference": spec.reference,
             "radius_from": spec.radius_from, "covered": count, "draws": task["draws"]}
            for (name, alpha), count in hits.items()]


def clopper_pearson(successes: int, trials: int,
                    confidence: float = CONFIDENCE) -> tuple[float, float]:
    """The exact (Clopper-Pearson) binomial interval, by ``scipy.stats.binomtest``."""
    from scipy.stats import binomtest

    interval = binomtest(int(successes), int(trials)).proportion_ci(confidence, "exact")
    return float(interval.low), float(interval.high)


def summarise_blocks(rows: list[dict[str, Any]] | pd.DataFrame,
                     confidence: float = CONFIDENCE) -> pd.DataFrame:
    """Add up the blocks per ``([setting,] set, alpha, n, reference, radius_from)``.

    Adds ``coverage`` (the share covered), its Clopper-Pearson interval
    ``low, high`` and ``target = 1 - alpha``.
    """
    table = pd.DataFrame(rows)
    keys = [key for key in ("setting", "set", "alpha", "n", "reference", "radius_from")
            if key in table.columns]
    table = table.groupby(keys, sort=False, as_index=False)[["covered", "draws"]] \
        .sum()
    intervals = [clopper_pearson(k, d, confidence)
                 for k, d in zip(table["covered"], table["draws"])]
    table["coverage"] = table["covered"] / table["draws"]
    table["low"] = [low for low, _ in intervals]
    table["high"] = [high for _, high in intervals]
    table["target"] = 1.0 - table["alpha"]
    return table


def coverage_study(counts: np.ndarray, sets: str | Sequence[str] = ("chi2",),
                   alphas: Sequence[float] = (0.05,), draws: int = 10_000, seed: int = 0,
                   references: Sequence[str] = ("phat",), sizes: Sequence[int] | None = None,
                   radius_from: str = "asymptotic", inner_draws: int = 500,
                   executor: Executor | None = None, confidence: float = CONFIDENCE,
                   progress: bool = True) -> pd.DataFrame:
    """The coverage of each set around ``counts`` (module docstring), one row per combination.

    Parameters
    ----------
    counts : ndarray
        The table (any shape; flattened).
    sets : str or sequence of str
        Registered set names, e.g. ``"chi2,kl,tv,box"``.
    alphas : sequence of float
    draws : int
        Simulated tables per ``(n, reference)``.
    seed : int
    references : sequence of str
        From :data:`REFERENCES`.
    sizes : sequence of int, optional
        Records per simulated table (default: the table's ``n``).
    radius_from : {"asymptotic", "bootstrap"}
    inner_draws : int
        Bootstrap tables per simulated table (``radius_from="bootstrap"``).
    executor : Executor, optional
        From :func:`rldp_models.executors.executor_from_spec`; default serial.
    confidence : float
        Level of the Clopper-Pearson interval.
    progress : bool
        Draw a bar (:func:`rldp_models.progress.progress`) over the blocks.

    Returns
    -------
    pandas.DataFrame
        Columns ``set, alpha, n, reference, radius_from, covered, draws,
        coverage, low, high, target``.
    """
    counts = validated_counts(counts)
    names = validated_names(sets)
    alphas = validated_alphas(alphas)
    sizes = tuple(sizes) if sizes else (int(round(counts.sum())),)
    validate_study(draws, seed, references, sizes, radius_from, inner_draws)
    tasks = [task for n in sizes for reference in references
             for task in coverage_tasks(CoverageSpec(tuple(counts.ravel()), names, alphas, n,
                                                     reference, radius_from, inner_draws),
                                        draws, seed)]
    executor = executor or executor_from_spec("serial")
    ticks = bar(total=len(tasks), desc="coverage", unit="block") if progress else None
    try:
        per_task = executor.map(run_coverage_task, tasks, ticks.update if ticks else None)
    finally:
        if ticks is not None:
            ticks.close()
    return summarise_blocks([row for rows in per_task for row in rows], confidence)


def validated_counts(counts: np.ndarray) -> np.ndarray:
    """Nonnegative integer counts with at least two cells and one record."""
    counts = np.asarray(counts, dtype=float)
    if counts.size < 2 or not np.all(np.isfinite(counts)) or np.any(counts < 0) \
            or np.any(counts != np.round(counts)) or counts.sum() <= 0:
        raise InputError("counts must be nonnegative integers, at least two cells, one record")
    return counts


def validated_alphas(alphas: Sequence[float]) -> tuple[float, ...]:
    """Each alpha in (0, 1)."""
    alphas = tuple(float(a) for a in alphas)
    if not alphas or not all(0.0 < a < 1.0 for a in alphas):
        raise InputError(f"every alpha must lie in (0, 1), got {list(alphas)}")
    return alphas


def validate_study(draws: int, seed: int, references: Sequence[str], sizes: Sequence[int],
                   radius_from: str, inner_draws: int) -> None:
    """One-line errors for the simulation's sizes and choices."""
    if draws < 1:
        raise InputError(f"--draws must be >= 1, got {draws}")
    if seed < 0:
        raise InputError(f"--seed must be >= 0, got {seed}")
    for reference in references:
        if reference not in REFERENCES:
            raise InputError(f"unknown reference {reference!r}; "
                             f"choose from {', '.join(REFERENCES)}")
    if not references:
        raise InputError("name at least one reference")
    if any(int(n) < 1 for n in sizes):
        raise InputError(f"every --n must be >= 1, got {list(sizes)}")
    if radius_from not in RADIUS_SOURCES:
        raise InputError(f"unknown radius source {radius_from!r}; "
                         f"choose from {', '.join(RADIUS_SOURCES)}")
    if radius_from == "bootstrap" and inner_draws < 100:
        raise InputError(f"a bootstrap radius needs at least 100 inner draws, got {inner_draws}")
