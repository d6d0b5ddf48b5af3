"""A radius chosen by parametric bootstrap, so that simulated coverage reaches ``1 - alpha``.

The default radii (:mod:`rldp_models.uncertainty.named`) are quantiles of the
statistic's chi-square *limit*; on a sparse table the limit can be far off
(:mod:`rldp_models.uncertainty.sparsity`). The parametric bootstrap replaces
the limit by the statistic's simulated law near the estimate. It simulates at
the Jeffreys posterior mean ``Ptilde = (N + 1/2) / (n + |X|/2)`` rather than at
``Phat``: draw ``D`` tables ``N*_d ~ Multinomial(n, Ptilde)``, compute the
set's own statistic (:mod:`rldp_models.uncertainty.set_statistics`) of each
``Phat*_d = N*_d / n`` at ``Ptilde``, and take

``r = the ceil((1 - alpha) D)-th smallest of statistic(Phat*_d, Ptilde)``

(``numpy.quantile(..., method="higher")``), so that at least ``(1 - alpha) D``
of the simulated sets ``{P : statistic(Phat*_d, P) <= r}`` contain ``Ptilde``.
The result is a set of the same kind around ``Phat`` (same zero-cell rule)
with this constant radius — for tv and box a plain ball, no longer derived
from the chi-square set — whose ``radius_source`` records the method, the
simulation size and the seed, so the number can be reproduced.

Why ``Ptilde``: simulating at ``Phat`` never puts a record in a cell the table
missed, so the simulated statistic ignores exactly the cells where a sparse
table is most wrong. Measured end to end (recalibrating on every simulated
table, :func:`rldp_models.uncertainty.coverage.coverage_study` with
``radius_from="bootstrap"``) the ``Phat`` bootstrap gave a chi2 coverage of
0.56-0.81 at ``alpha = 0.05`` on tables such as ``(1000, 1 x 40)``, where the
asymptotic radius gives 0.91 and the ``Ptilde`` bootstrap 0.94-0.95.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np

from rldp_models.data import Crosstab
from rldp_models.errors import InputError
from rldp_models.uncertainty.base import UncertaintySet
from rldp_models.uncertainty.named import named_set
from rldp_models.uncertainty.set_statistics import SetStatistic, set_statistic

BOOTSTRAP_DRAWS = 10_000
"""Default number of simulated tables."""

BOOTSTRAP_SEED = 0
"""Default seed of the simulation (recorded in ``radius_source``)."""

JEFFREYS = 0.5
"""The Jeffreys prior's Dirichlet parameter, added to every count (module docstring)."""

BATCH_CELLS = 4_000_000
"""Simulated cells held in memory at once (tables x cells)."""


def bootstrap_radii(rule: SetStatistic, centres: np.ndarray, n: int, alpha: float,
                    draws: int, rng: np.random.Generator) -> np.ndarray:
    """The bootstrap radius (module docstring) around each of ``centres``, shape ``(d,)``.

    Parameters
    ----------
    rule : SetStatistic
    centres : ndarray, shape (d, k)
        Empirical distributions ``Phat`` (counts / ``n``) to calibrate around;
        each is smoothed to ``Ptilde`` first.
    n : int
        Records per simulated table.
    alpha : float
    draws : int
        Simulated tables per centre.
    rng : numpy.random.Generator
    """
    centres = np.atleast_2d(np.asarray(centres, dtype=float))
    centres = (n * centres + JEFFREYS) / (n + JEFFREYS * centres.shape[1])
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
        For an unknown set, ``alpha`` outside (0, 1), fewer than 100 draws or a
        negative seed.
    """
    if not 0.0 < alpha < 1.0:
        raise InputError(f"alpha must lie in (0, 1), got {alpha}")
    if draws < 100:
        raise InputError(f"a bootstrap radius needs at least 100 draws, got {draws}")
    if seed < 0:
        raise InputError(f"the bootstrap seed must be >= 0, got {seed}")
    counts = np.asarray(counts, dtype=float).ravel()
    n = int(round(counts.sum()))
    rule = set_statistic(name)
    rng = np.random.default_rng(seed)
    radius = float(bootstrap_radii(rule, counts / n, n, alpha, draws, rng)[0])
    source = {"method": "parametric bootstrap at the Jeffreys posterior mean",
              "statistic": name, "quantile": 1.0 - alpha, "draws": int(draws),
              "seed": int(seed), "n": n}
    return radius, source


def calibrated_set(name: str, crosstab: Crosstab, alpha: float,
                   draws: int = BOOTSTRAP_DRAWS, seed: int = BOOTSTRAP_SEED) -> UncertaintySet:
    """Set ``name`` around ``crosstab``'s ``Phat``, of the bootstrap radius, with its provenance."""
    radius, source = bootstrap_radius(name, crosstab.counts, alpha, draws, seed)
    built = named_set(name, crosstab, alpha, radius=radius)
    return replace(built, alpha=alpha, radius_source=source)
