"""The staircase LP (Theorem 4 of extremal-mechanisms-ldp.txt) against independent optima.

Grounding: brute force over mechanisms (a grid for k = 2; for k = 2, 3 the
vertices of the whole-mechanism polytope D_{eps,l} with l = k + 1 outputs,
see conelp_brute_force.py); the
closed-form binary, randomized-response and geometric mechanisms; Theorems 5,
8, 12 and 14; privacy checked by a ratio check written here and by the exact
checker of rldp_models.privacy.
"""

from __future__ import annotations

import numpy as np
import pytest
from conelp_brute_force import mechanism_polytope_optimum, mutual_information

from rldp_models.conelp import inner_ratio, staircase_mechanism
from rldp_models.conelp.rays import StaircaseRays
from rldp_models.conelp.staircase import pattern_utilities
from rldp_models.errors import InputError
from rldp_models.mechanisms import BinaryMechanism, randomized_response, truncated_geometric
from rldp_models.privacy import certify_ldp
from rldp_models.utility import KLDivergence, MutualInformation, TotalVariation

MARGIN_RTOL = 1e-8  # the inward margin costs about 2e-9 relative utility


def assert_ldp(Q: np.ndarray, eps: float) -> None:
    """Every ratio Q[x,y] / Q[x',y] at most e^eps, rows stochastic (written here)."""
    assert np.all(Q >= 0)
    np.testing.assert_allclose(Q.sum(axis=1), 1.0, atol=1e-12)
    assert np.all(Q[:, None, :] <= np.exp(eps) * Q[None, :, :])
    assert certify_ldp(Q, eps).holds


@pytest.mark.parametrize("eps", [0.3, 1.0, 2.5])
def test_equals_grid_search_for_two_inputs(eps: float) -> None:
    """Q = [[a, 1-a], [b, 1-b]]: a on a fine grid, b at the ends of its feasible interval.

    I(X;Y) is convex in b, so for fixed a its maximum over the interval
    allowed by eps-LDP is at an end; the grid in a leaves an error of order
    (step x slope), about 1e-5 relative here.
    """
    prior = np.array([0.3, 0.7])
    r = np.exp(eps)
    a = np.linspace(0, 1, 100_001)
    low = np.maximum(a / r, 1 - r * (1 - a))
    high = np.minimum(r * a, 1 - (1 - a) / r)
    candidates = [np.stack([np.stack([a, 1 - a], -1), np.stack([b, 1 - b], -1)], -2)
                  for b in (low, high)]
    grid = max(mutual_information(prior, Q).max() for Q in candidates)
    lp = staircase_mechanism(prior, eps).utility
    assert grid <= lp * (1 + MARGIN_RTOL)
    assert lp - grid < 1e-4 * lp


@pytest.mark.parametrize("k", [2, 3])
@pytest.mark.parametrize("eps", [0.5, 1.5])
def test_equals_brute_force_over_mechanism_polytope(k: int, eps: float) -> None:
    rng = np.random.default_rng(10 * k + int(eps * 10))
    prior = rng.dirichlet(np.ones(k))
    ldp_rows = [np.exp(eps) * np.eye(k)[j] - np.eye(k)[i]
                for i in range(k) for j in range(k) if i != j]
    brute = mechanism_polytope_optimum(prior, np.array(ldp_rows), k + 1)
    assert staircase_mechanism(prior, eps).utility == pytest.approx(brute, rel=MARGIN_RTOL)


@pytest.mark.parametrize("eps", [0.05, 0.5, 1.0, 2.0, 4.0, 8.0])
def test_never_below_binary_rr_geometric(eps: float) -> None:
    rng = np.random.default_rng(int(eps * 100))
    for k in (3, 5, 7):
        prior = rng.dirichlet(np.ones(k))
        mi = MutualInformation(prior)
        optimum = staircase_mechanism(prior, eps).utility
        for Q in (BinaryMechanism.for_mutual_information(eps, prior).matrix(),
                  randomized_response(eps, k), truncated_geometric(eps, k)):
            assert optimum >= mi.total(Q) * (1 - MARGIN_RTOL)


def test_binary_for_small_eps_and_rr_for_large_eps_mutual_information() -> None:
    """Theorems 12 and 14 on random priors."""
    rng = np.random.default_rng(3)
    for k in (3, 4, 6):
        prior = rng.dirichlet(np.ones(k))
        mi = MutualInformation(prior)
        small = BinaryMechanism.for_mutual_information(0.01, prior).matrix()
        assert staircase_mechanism(prior, 0.01).utility == pytest.approx(mi.total(small),
                                                                        rel=MARGIN_RTOL)
        assert staircase_mechanism(prior, 10.0).utility == pytest.approx(
            mi.total(randomized_response(10.0, k)), rel=MARGIN_RTOL)


def test_binary_for_small_eps_and_rr_for_large_eps_kl_divergence() -> None:
    """Theorems 5 and 8 (KL divergence between the output marginals)."""
    rng = np.random.default_rng(4)
    for k in (3, 5):
        p0, p1 = rng.dirichlet(np.ones(k)), rng.dirichlet(np.ones(k))
        kl = KLDivergence(p0, p1)
        small = BinaryMechanism.for_hypothesis_testing(0.01, p0, p1).matrix()
        assert staircase_mechanism(p0, 0.01, kl).utility == pytest.approx(kl.total(small),
                                                                         rel=MARGIN_RTOL)
        assert staircase_mechanism(p0, 12.0, kl).utility == pytest.approx(
            kl.total(randomized_response(12.0, k)), rel=MARGIN_RTOL)


def test_binary_is_optimal_for_total_variation_at_every_eps() -> None:
    """Theorem 6."""
    rng = np.random.default_rng(5)
    p0, p1 = rng.dirichlet(np.ones(5)), rng.dirichlet(np.ones(5))
    tv = TotalVariation(p0, p1)
    for eps in (0.2, 1.0, 3.0):
        binary = BinaryMechanism.for_hypothesis_testing(eps, p0, p1).matrix()
        assert staircase_mechanism(p0, eps, tv).utility == pytest.approx(tv.total(binary),
                                                                        rel=MARGIN_RTOL)


@pytest.mark.parametrize("eps", [0.0, 1e-7, 0.1, 1.0, 6.0, 15.0, 50.0])
def test_mechanism_is_private_and_certified(eps: float) -> None:
    prior = np.random.default_rng(6).dirichlet(np.ones(8))
    result = staircase_mechanism(prior, eps)
    if eps > 0:
        assert_ldp(result.Q, eps)
    else:
        assert np.ptp(result.Q, axis=0).max() == 0.0
    certificate = result.solution.certificate
    assert certificate.verified
    assert result.Q.shape[1] <= prior.size
    assert result.utility == pytest.approx(result.solution.value, abs=1e-12)
    assert result.utility <= certificate.upper_bound + 1e-12
    # rounding to dyadic rows may break a constraint the LP meets with 2^-46 room (at
    # eps = 1e-7, where Q is nearly constant); the finish path then mixes, at no real cost
    assert (result.repair.method == "none" and result.repair.weight == 0.0) or \
        (result.repair.method == "mix" and result.repair.cost <= 1e-15)
    assert result.certification.holds


def test_mutual_information_pattern_closed_form_matches_generic_evaluation() -> None:
    prior = np.random.default_rng(7).dirichlet(np.ones(6))
    rays = StaircaseRays(6, inner_ratio(1.3))
    generic = MutualInformation(prior).columns(rays.columns(np.arange(rays.count)))
    np.testing.assert_allclose(pattern_utilities(rays, MutualInformation(prior)), generic,
                               rtol=1e-12, atol=1e-15)


def test_bad_parameters() -> None:
    with pytest.raises(InputError):
        staircase_mechanism([0.5, 0.5], -1.0)
    with pytest.raises(InputError):
        staircase_mechanism([0.5, 0.6], 1.0)
    with pytest.raises(InputError):
        staircase_mechanism([0.5, 0.5], 1.0, MutualInformation([0.2, 0.3, 0.5]))
