"""Data helpers the tests import (kept out of conftest.py, whose module name is not unique)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
ADULT = SHARED / "data" / "adult" / "adult.data"


def random_counts(rng: np.random.Generator, n_s: int, n_u: int, n: int) -> np.ndarray:
    """Counts of ``n`` records from a Jeffreys-random distribution (zero cells likely)."""
    return rng.multinomial(n, rng.dirichlet(np.full(n_s * n_u, 0.5))).reshape(n_s, n_u)
