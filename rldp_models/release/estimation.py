"""Estimating ``M P_X`` from released records: EM and projected inversion, bootstrap intervals.

Only the identifiable rows of ``M`` are estimated
(:mod:`rldp_models.release.identifiability`); the others are reported with why.

* **EM / iterative Bayesian update** (:func:`rldp_models.estimators.em_batch`;
  ``utility-optimized-ldp.txt`` Sec. 2.5):
  ``p <- p * A^T (f / (A p))``, normalised, ``A[y, x] = Q[x, y]`` (``A^T``,
  not ``A``), from the uniform ``p``, until the predicted law of ``Y`` moves by
  at most :data:`EM_TOLERANCE` in L1 (the law converges even where ``P_X``
  is not identified; identifiable targets are functions of it).
* **Projected inversion**: the minimum-norm solution of ``Q^T p = f``
  (pseudo-inverse), projected onto the simplex in Euclidean norm.

Intervals: **parametric bootstrap, percentile method**. ``B`` tables of ``n``
outputs are drawn from the multinomial law ``Q^T p_EM`` fitted by EM, both
estimators are rerun on each, and the ``(1 - level)/2`` and ``(1 + level)/2``
quantiles of ``M p*`` are each coordinate's interval. All replicates run
as one batch (matrix products over ``B`` rows).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from rldp_models.estimators import em_batch, project_rows_to_simplex
from rldp_models.release.identifiability import Identifiability
from rldp_models.release.targets import Target

EM_TOLERANCE = 1e-9
EM_MAX_ITERATIONS = 20_000
BOOTSTRAP_DRAWS = 400
LEVEL = 0.95
METHOD = "parametric bootstrap (multinomial from the EM fit), percentile intervals"


def projected_inversion(Q: np.ndarray, frequencies: np.ndarray) -> np.ndarray:
    """``pinv(Q^T) f`` projected onto the simplex, for every row of ``frequencies``."""
    raw = np.atleast_2d(frequencies) @ np.linalg.pinv(Q.T).T
    return project_rows_to_simplex(raw)


@dataclass(frozen=True)
class EstimateTable:
    """The estimate of every target coordinate, with intervals and what was not estimable."""

    frame: pd.DataFrame
    converged: bool
    iterations: int
    draws: int
    level: float


def estimate(Q: np.ndarray, counts: np.ndarray, target: Target, verdict: Identifiability,
             draws: int = BOOTSTRAP_DRAWS, level: float = LEVEL,
             seed: int | None = None) -> EstimateTable:
    """Estimate the identifiable coordinates of ``target`` from output ``counts``.

    Parameters
    ----------
    Q : ndarray, shape (|X|, |Y|)
        The channel.
    counts : ndarray, shape (|Y|,)
        Released outputs' counts.
    target, verdict
        The target and its identifiability verdict.
    draws, level, seed
        Bootstrap tables, interval level and the bootstrap's seed.
    """
    n = int(counts.sum())
    used = Q.sum(axis=0) > 0
    Q, counts = Q[:, used], counts[used]
    fit = em_batch(Q, counts / n, EM_TOLERANCE, EM_MAX_ITERATIONS)
    inversion = projected_inversion(Q, counts / n)
    rng = np.random.default_rng(seed)
    law = np.clip(fit.estimates[0] @ Q, 0.0, None)
    tables = rng.multinomial(n, law / law.sum(), size=draws) / n
    boot_em = em_batch(Q, tables, EM_TOLERANCE, EM_MAX_ITERATIONS)
    boot_inv = projected_inversion(Q, tables)
    quantiles = [(1 - level) / 2, (1 + level) / 2]
    em_low, em_high = np.quantile(target.of(boot_em.estimates), quantiles, axis=0)
    inv_low, inv_high = np.quantile(target.of(boot_inv), quantiles, axis=0)
    ok = np.array(verdict.estimable)
    hide = np.where(ok, 1.0, np.nan)
    frame = pd.DataFrame({
        "target": target.names, "estimable": ok,
        "em": target.of(fit.estimates[0]) * hide, "em_low": em_low * hide,
        "em_high": em_high * hide,
        "inversion": target.of(inversion[0]) * hide, "inversion_low": inv_low * hide,
        "inversion_high": inv_high * hide, "reason": list(verdict.reasons)})
    converged = bool(fit.converged.all() and boot_em.converged.mean() >= 0.99)
    return EstimateTable(frame, converged, fit.iterations, draws, level)
