"""Truncated geometric mechanism against brute-force clamping of two-sided geometric noise."""

from __future__ import annotations

import numpy as np
import pytest

from rldp_models.mechanisms import truncated_geometric
from rldp_models.privacy import ldp_epsilon


@pytest.mark.parametrize("eps, k", [(0.3, 2), (1.0, 4), (4.0, 6)])
def test_matrix_equals_clamped_noise(eps: float, k: int) -> None:
    r = np.exp(-eps / (k - 1))
    noise = np.arange(-2000, 2001)
    p_noise = (1 - r) / (1 + r) * r ** np.abs(noise)
    expected = np.zeros((k, k))
    for x in range(k):
        np.add.at(expected[x], np.clip(x + noise, 0, k - 1), p_noise)
    np.testing.assert_allclose(truncated_geometric(eps, k), expected, rtol=1e-12, atol=1e-15)


def test_level_is_attained_at_the_end_columns() -> None:
    Q = truncated_geometric(2.0, 5)
    assert np.log(Q[0, 0] / Q[4, 0]) == pytest.approx(2.0, rel=1e-13)
    assert ldp_epsilon(Q) == pytest.approx(2.0, rel=1e-13)
    interior = np.log(Q[:, 1:-1].max(axis=0) / Q[:, 1:-1].min(axis=0))
    assert np.all(interior < 2.0 - 0.1)


def test_printed_ratio_eps_to_the_1_over_k_minus_1_is_a_misprint() -> None:
    """Sec. 3.4 prints r = eps^(1/(k-1)): for eps > 1 that gives negative probabilities."""
    eps, k = 2.0, 4
    printed_r = eps ** (1 / (k - 1))
    assert (1 - printed_r) / (1 + printed_r) < 0
    assert np.all(truncated_geometric(eps, k) >= 0)
