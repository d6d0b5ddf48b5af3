"""Shared fixtures: seeded instances of the paper's setting and small count tables."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from rldp_models.data import Crosstab
from rldp_models.instances import jeffreys_instance

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
ADULT = SHARED / "data" / "adult" / "adult.data"


@pytest.fixture
def demo_crosstab() -> Crosstab:
    """A 3x5 instance of the paper's setting (n = 75) with all rows populated."""
    return jeffreys_instance(3, 5, 75, seed=1).crosstab


@pytest.fixture
def zero_row_crosstab() -> Crosstab:
    """A 3x5 table whose last secret has no records and with zero cells elsewhere."""
    counts = np.array([[1, 8, 8, 1, 4], [1, 2, 34, 16, 0], [0, 0, 0, 0, 0]])
    return Crosstab.from_array(counts)


def random_counts(rng: np.random.Generator, n_s: int, n_u: int, n: int) -> np.ndarray:
    """Counts of ``n`` records from a Jeffreys-random distribution (zero cells likely)."""
    return rng.multinomial(n, rng.dirichlet(np.full(n_s * n_u, 0.5))).reshape(n_s, n_u)
