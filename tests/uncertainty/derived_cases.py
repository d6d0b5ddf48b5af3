"""Random tables and one set of every kind, shared by the derived-counterpart tests."""

from __future__ import annotations

import numpy as np

from rldp_models.uncertainty import (
    BoxSet,
    ChiSquareSet,
    KLBallSet,
    PolyhedralSet,
    TotalVariationSet,
)
from rldp_models.uncertainty.power_divergence import PowerDivergenceSet

LAMBDAS = (-2.0, -1.0, -0.5, 0.0, 2.0 / 3.0, 1.0, 2.0)


def random_phat(seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    counts = rng.integers(0, 15, size=(3, 4)).astype(float)
    counts[0, 1] = 0.0  # a cell without records
    if seed % 2:
        counts[2] = 0.0  # a secret without records
    counts[1, 2] += 1.0
    return counts / counts.sum()


def sets(phat: np.ndarray, lambdas: tuple[float, ...] = LAMBDAS) -> list:
    flat = phat.ravel()
    # a polyhedron: P_x <= Phat_x + 0.1 on every cell, and P(first row) >= 0.2
    rows = np.vstack([np.eye(flat.size), -np.repeat([[1.0, 0.0, 0.0]], 4, axis=1)])
    bounds = np.concatenate([flat + 0.1, [-0.2]])
    return [ChiSquareSet(phat, 0.4), KLBallSet(phat, 0.15), TotalVariationSet(phat, 0.3),
            BoxSet.around(phat, 0.05), PolyhedralSet(phat, rows, bounds),
            *(PowerDivergenceSet(phat, 0.12, lam) for lam in lambdas)]
