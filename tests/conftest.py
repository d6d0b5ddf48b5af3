"""Shared fixtures: seeded instances of the paper's setting and small count tables."""

from __future__ import annotations

import numpy as np
import pytest

from rldp_models.data import Crosstab
from rldp_models.datasets import jeffreys_instance


@pytest.fixture
def demo_crosstab() -> Crosstab:
    """A 3x5 instance of the paper's setting (n = 75) with all rows populated."""
    return jeffreys_instance(3, 5, 75, seed=1).crosstab


@pytest.fixture
def zero_row_crosstab() -> Crosstab:
    """A 3x5 table whose last secret has no records and with zero cells elsewhere."""
    counts = np.array([[1, 8, 8, 1, 4], [1, 2, 34, 16, 0], [0, 0, 0, 0, 0]])
    return Crosstab.from_array(counts)
