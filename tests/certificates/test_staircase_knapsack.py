"""The knapsack branch and bound for the staircase dual against every pattern written out."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from rldp_models.certificates.staircase_knapsack import check_by_knapsack


def brute_force_worst(dual, prior, ratio, tolerance):
    """``max N(z)`` over every pattern ``0 < |A| < k``, mu written from its definition."""
    k = prior.size
    worst = -math.inf
    for bits in itertools.product((0, 1), repeat=k):
        z = np.array(bits, dtype=float)
        if not 0 < z.sum() < k:
            continue
        column = 1 + (ratio - 1) * z
        marginal = prior @ column
        mu = float(np.sum(prior * column * np.log(column / marginal)))
        worst = max(worst, mu - float(dual @ column) - tolerance * float(column.sum()))
    return worst


OUTCOMES: set[bool] = set()


@pytest.mark.parametrize("seed", range(12))
def test_knapsack_decides_like_brute_force(seed):
    rng = np.random.default_rng(seed)
    k = int(rng.integers(3, 11))
    prior = rng.dirichlet(np.ones(k))
    ratio = math.exp(float(rng.uniform(0.2, 3.0)))
    base = rng.uniform(0, 0.05, size=k) * prior
    for target in (-1e-6, 1e-6):
        # the constant shift of the dual that puts the worst pattern at ``target`` (bisection)
        low, high = -1.0, 1.0
        for _ in range(60):
            middle = 0.5 * (low + high)
            if brute_force_worst(base + middle, prior, ratio, 1e-9) > target:
                low = middle
            else:
                high = middle
        dual = base + 0.5 * (low + high)
        truth = brute_force_worst(dual, prior, ratio, 1e-9)
        check = check_by_knapsack(dual, prior, ratio, 1e-9)
        assert check.decided
        assert check.accepted == (truth <= 0), (truth, check)
        OUTCOMES.add(check.accepted)
        if not check.accepted:
            assert 0 < check.worst <= truth + 1e-12


def test_both_verdicts_were_exercised():
    assert OUTCOMES == {True, False}
