"""Binary mechanisms against eqs. (14), (19)-(20) and the closed forms after Cor. 9, 11, 15."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from rldp_models.errors import InputError
from rldp_models.mechanisms import (BinaryMechanism, balanced_partition, binary_hypothesis_testing,
                                    binary_mutual_information)
from rldp_models.mechanisms.binary import MAX_PARTITION_INPUTS
from rldp_models.utility import MutualInformation, kl_divergence, total_variation

RNG = np.random.default_rng(3)


def test_balanced_partition_is_a_brute_force_minimiser() -> None:
    for _ in range(20):
        prior = RNG.dirichlet(np.ones(6))
        best = min(abs(prior[list(subset)].sum() - 0.5)
                   for r in range(7) for subset in itertools.combinations(range(6), r))
        assert abs(prior[balanced_partition(prior)].sum() - 0.5) == pytest.approx(best, abs=1e-15)


def test_balanced_partition_refuses_huge_alphabets() -> None:
    with pytest.raises(InputError):
        balanced_partition(np.full(MAX_PARTITION_INPUTS + 1, 1 / (MAX_PARTITION_INPUTS + 1)))


@pytest.mark.parametrize("eps", [0.1, 1.0, 3.0])
def test_mutual_information_matches_display_after_corollary_15(eps: float) -> None:
    prior = RNG.dirichlet(np.ones(5))
    mask = balanced_partition(prior)
    pt, pc = prior[mask].sum(), prior[~mask].sum()
    e = np.exp(eps)
    expected = (pt * e * np.log(e / (pc + e * pt)) + pc * np.log(1 / (pc + e * pt))
                + pc * e * np.log(e / (pt + e * pc)) + pt * np.log(1 / (pt + e * pc))) / (e + 1)
    Q = binary_mutual_information(eps, prior)
    assert MutualInformation(prior).total(Q) == pytest.approx(expected, rel=1e-12)
    np.testing.assert_allclose(Q[mask, 0], e / (1 + e), rtol=1e-15)
    np.testing.assert_allclose(Q[~mask, 0], 1 / (1 + e), rtol=1e-15)


def test_mutual_information_small_eps_scaling_eq_21() -> None:
    prior = np.array([0.1, 0.25, 0.3, 0.35])
    mask = balanced_partition(prior)
    scale = 0.5 * prior[mask].sum() * prior[~mask].sum()
    for eps in (1e-2, 1e-3):
        information = MutualInformation(prior).total(binary_mutual_information(eps, prior))
        assert information / (scale * eps ** 2) == pytest.approx(1.0, abs=5 * eps)


@pytest.mark.parametrize("eps", [0.1, 1.0, 3.0])
def test_hypothesis_testing_matches_corollaries_9_and_11(eps: float) -> None:
    p0, p1 = RNG.dirichlet(np.ones(6), size=2)
    Q = binary_hypothesis_testing(eps, p0, p1)
    t = p0 >= p1
    np.testing.assert_array_equal(Q[:, 0] > Q[:, 1], t)
    e = np.exp(eps)

    def term(a: float, b: float) -> float:
        return ((e - 1) * a + 1) / (e + 1) * np.log((1 + (e - 1) * a) / (1 + (e - 1) * b))

    kl = term(p0[t].sum(), p1[t].sum()) + term(p0[~t].sum(), p1[~t].sum())
    assert kl_divergence(p0, p1).total(Q) == pytest.approx(kl, rel=1e-12)
    tv = 0.5 * np.abs(p0 - p1).sum()
    assert total_variation(p0, p1).total(Q) == pytest.approx((e - 1) / (e + 1) * tv, rel=1e-12)


def test_degenerate_set_gives_identical_rows() -> None:
    Q = BinaryMechanism(2.0, [True, True, True]).matrix()
    np.testing.assert_array_equal(Q[0], Q[1])
