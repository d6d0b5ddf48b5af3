"""The instances several benchmarks share.

The Adult data is read from ``../shared/data/adult/adult.data`` beside the
project (as the tests do); a benchmark on it is skipped where it is absent.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from rldp_models.data import Crosstab
from rldp_models.datasets import jeffreys_instance

ADULT = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "adult" / "adult.data"


def adult_pair(sensitive: str, public: str) -> Crosstab:
    """The Adult crosstab of ``sensitive`` x ``public``; skips the benchmark without the data."""
    if not ADULT.exists():
        pytest.skip("Adult data not available")
    return Crosstab.from_records(ADULT, sensitive, public)


def race_education() -> Crosstab:
    """Adult race x education (5 x 16), issue 22's smallest real-data target."""
    return adult_pair("race", "education")


def synthetic_10x20() -> Crosstab:
    """The synthetic 10 x 20 table of issue 22 (Jeffreys draw, n = 10,000, seed 7)."""
    return jeffreys_instance(10, 20, 10_000, seed=7).crosstab
