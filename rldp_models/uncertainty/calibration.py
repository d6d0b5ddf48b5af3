"""A radius chosen by parametric bootstrap, so that simulated coverage reaches ``1 - alpha``.

The default radii (:mod:`rldp_models.uncertainty.named`) are quantiles of the
statistic's chi-square *limit*; on a sparse table the limit can be far off
(:mod:`rldp_models.uncertainty.sparsity`). The parametric bootstrap replaces
the limit by the statistic's simulated law at the estimate: draw ``D`` tables
``N*_d ~ Multinomial(n, Phat)``, compute the set's own statistic
(:mod:`rldp_models.uncertainty.set_statistics`) of each ``Phat*_d = N*_d / n``
at ``Phat``, and take

``r = the ceil((1 - alpha) D)-th smallest of statistic(Phat*_d, Phat)``

(``numpy.quantile(..., method="higher")``), so that at least ``(1 - alpha) D``
of the simulated tables' sets ``{P : statistic(Phat*_d, P) <= r}`` contain
``Phat``. The result is a set of the same kind around ``Phat`` with this
constant radius (for tv and box a plain ball, no longer derived from the
chi-square set), whose ``radius_source`` records the method, the simulation
size and the seed, so the number can be reproduced.

This calibrates the coverage *when the truth is Phat*; on a sparse table the
truth may put mass where ``Phat`` has none, which the bootstrap cannot see.
:func:`rldp_models.uncertainty.coverage.coverage_study` measures the coverage
of the whole procedure (recalibrating on every simulated table) against any
reference.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from rldp_models.data import Crosstab
from rldp_models.errors import InputError
from rldp_models.uncertainty.base import UncertaintySet
from rldp_models.uncertainty.set_statistics import SetStatistic, set_statistic

BOOTSTRAP_DRAWS = 10_000
"""Default number of simulated tables."""

BOOTSTRAP_SEED = 0
"""Default seed of the simulation (recorded in ``radius_source``)."""

BATCH_CELLS = 4_000_000
"""Simulated cells held in memory at once (tables x cells)."""


def bootstrap_radii(rule: SetStatistic, centres: np.ndarray, n: int, alpha: float,
                    draws: int, rng: np.random.Generator) -> np.ndarray:
    """The bootstrap radius (module docstring) around each of ``centres``, shape ``(d,)``.

    Parameters
    ----------
    rule : SetStatistic
    centres : ndarray, shape (d, k)
        Distributions to calibrate around (each ``Phat``).
    n : int
        Records per simulated table.
    alpha : float
    draws : int
        Simulated tables per centre.
    rng : numpy.random.Generator
    """
    centres = np.atleast_2d(np.asarray(centres, dtype=float))
    batch = max(1, BATCH_CELLS // (draws * centres.shape[1]))
    radii = []
    for first in range(0, centres.shape[0], batch):
        block = centres[first:first + batch]
        tables = rng.multinomial(n, block[:, None, :], size=(block.shape[0], draws)) / n
        flat = tables.reshape(-1, block.shape[1])
        values = rule.statistic(flat, np.repeat(block, draws, axis=0)).reshape(-1, draws)
        radii.append(np.quantile(values, 1.0 - alpha, axis=1, method="higher"))
    return np.concatenate(radii)


def bootstrap_radius(name: str, counts: np.ndarray, alpha: float,
                     draws: int = BOOTSTRAP_DRAWS,
                     seed: int = BOOTSTRAP_SEED) -> tuple[float, dict[str, Any]]:
    """The bootstrap radius of set ``name`` around ``counts / n`` and its provenance.

    Returns
    -------
    (float, dict)
        The radius and ``radius_source``: ``method``, ``statistic`` (the set),
        ``quantile`` (``1 - alpha``), ``draws``, ``seed``, ``n``.

    Raises
    ------
    InputError
        For an unknown set, ``alpha`` outside (0, 1), fewer than 100 draws, or
        a radius of 0 (a table with one occupied cell: every simulated table
        equals it).
    """
    if not 0.0 < alpha < 1.0:
        raise InputError(f"alpha must lie in (0, 1), got {alpha}")
    if draws < 100:
        raise InputError(f"a bootstrap radius needs at least 100 draws, got {draws}")
    counts = np.asarray(counts, dtype=float).ravel()
    n = int(round(counts.sum()))
    rule = set_statistic(name)
    rng = np.random.default_rng(seed)
    radius = float(bootstrap_radii(rule, counts / n, n, alpha, draws, rng)[0])
    if not radius > 0:
        raise InputError(f"the bootstrap radius of {name} is 0 (every simulated table equals "
                         "the data); use the asymptotic radius")
    source = {"method": "parametric bootstrap", "statistic": name, "quantile": 1.0 - alpha,
              "draws": int(draws), "seed": int(seed), "n": n}
    return radius, source


def calibrated_set(name: str, crosstab: Crosstab, alpha: float,
                   draws: int = BOOTSTRAP_DRAWS, seed: int = BOOTSTRAP_SEED) -> UncertaintySet:
    """Set ``name`` around ``crosstab``'s ``Phat``, of the bootstrap radius, with its provenance."""
    from dataclasses import replace

    from rldp_models.uncertainty.named import named_set

    radius, source = bootstrap_radius(name, crosstab.counts, alpha, draws, seed)
    built = named_set(name, crosstab, alpha, radius=radius)
    return replace(built, alpha=alpha, radius_source=source)
