"""``chi2_ppf`` is ``scipy.stats.chi2.ppf`` to the bit, and the radii built on it did not move."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import chi2

from rldp_models.uncertainty.chi2_quantile import chi2_ppf
from rldp_models.uncertainty.chi_square import chi_square_radius
from rldp_models.uncertainty.kl_ball import kl_radius

DEGREES = [*range(1, 60), 79, 99, 149, 199, 223, 299, 671, 1000, 4095]
ALPHAS = [1e-12, 1e-6, 1e-3, 0.001, 0.01, 0.025, 0.05, 0.1, 0.2, 0.5, 0.9, 0.99, 1 - 1e-9]


@pytest.mark.parametrize("df", DEGREES)
def test_bit_equal_to_scipy_stats(df: int) -> None:
    probabilities = np.concatenate([np.linspace(0.0, 1.0, 201), 1.0 - np.array(ALPHAS),
                                    np.array(ALPHAS)])
    ours = np.array([chi2_ppf(float(q), df) for q in probabilities])
    reference = chi2.ppf(probabilities, df)
    assert np.array_equal(ours, reference), np.flatnonzero(ours != reference)


def test_known_quantiles() -> None:
    """Textbook values: the 95% points for 1 and 10 degrees of freedom."""
    assert chi2_ppf(0.95, 1) == pytest.approx(3.841458820694124, rel=1e-14)
    assert chi2_ppf(0.95, 10) == pytest.approx(18.307038053275146, rel=1e-14)


@pytest.mark.parametrize("cells", [2, 15, 80, 200, 240, 672])
@pytest.mark.parametrize("alpha", [0.01, 0.05, 0.2])
def test_radii_unchanged(cells: int, alpha: float) -> None:
    n = 32561
    assert chi_square_radius(n, cells, alpha) == float(chi2.ppf(1.0 - alpha, cells - 1) / n)
    assert kl_radius(n, cells, alpha) == float(chi2.ppf(1.0 - alpha, cells - 1) / (2 * n))
