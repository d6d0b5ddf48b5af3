"""k-ary randomized response against eq. (15) and the information expansion behind eq. (22)."""

from __future__ import annotations

import numpy as np
import pytest

from rldp_models.mechanisms import RandomizedResponse, randomized_response
from rldp_models.privacy import ldp_epsilon
from rldp_models.utility import MutualInformation


@pytest.mark.parametrize("eps, k", [(0.5, 2), (1.0, 3), (3.0, 7)])
def test_entries_follow_eq_15(eps: float, k: int) -> None:
    Q = randomized_response(eps, k)
    denominator = k - 1 + np.exp(eps)
    np.testing.assert_allclose(np.diag(Q), np.exp(eps) / denominator, rtol=1e-15)
    np.testing.assert_allclose(Q[~np.eye(k, dtype=bool)], 1 / denominator, rtol=1e-15)
    assert ldp_epsilon(Q) == pytest.approx(eps, rel=1e-13)


def test_is_the_identity_in_the_limit_and_uniform_at_zero() -> None:
    np.testing.assert_allclose(randomized_response(0.0, 4), np.full((4, 4), 0.25))
    np.testing.assert_allclose(randomized_response(40.0, 4), np.eye(4), atol=1e-16)


def test_mutual_information_expansion_at_large_eps() -> None:
    """I(X;Y) = H - e^-eps [(k-1)(eps+1) + k H + sum_x log P(x)] + O(eps e^-2eps).

    Derived from the posterior P(x|y) ~ P(x) e^-eps / P(y) for x != y. Eq. (22)
    keeps only the (k-1) eps e^-eps term and claims an O(e^-2eps) remainder; the
    dropped terms are of order e^-eps, which the last assertion shows.
    """
    prior = np.array([0.1, 0.2, 0.3, 0.4])
    k = prior.size
    entropy = -np.sum(prior * np.log(prior))
    residuals, paper_residuals = [], []
    for eps in (8.0, 10.0, 12.0):
        information = MutualInformation(prior).total(RandomizedResponse(eps, k).matrix())
        expansion = entropy - np.exp(-eps) * ((k - 1) * (eps + 1) + k * entropy
                                              + np.log(prior).sum())
        residuals.append(abs(information - expansion) / (eps * np.exp(-2 * eps)))
        paper_residuals.append(abs(information - (entropy - (k - 1) * eps * np.exp(-eps)))
                               / np.exp(-eps))
    assert max(residuals) < 20 and residuals[-1] == pytest.approx(residuals[-2], rel=0.01)
    assert paper_residuals[-1] == pytest.approx(paper_residuals[-2], rel=0.01)  # Theta(e^-eps)
