"""The staircase pricing oracles and the choice of method, against brute force.

Grounding: every one of the 2^k - 2 patterns written out here and evaluated by
the utility's own ``columns`` (rldp_models.utility), at random duals and at
the near-optimal duals where pricing is hardest; the enumerating LP of the
engine for the optimum; the exact LDP checker for the mechanism.
"""

from __future__ import annotations
from tests.shared_data import result_fields


import numpy as np
import pytest

import solvers
from rldp_models.conelp import ConeLP, inner_ratio, staircase_mechanism, staircase_rays
from rldp_models.conelp.staircase import choose_method
from rldp_models.conelp.staircase_pricing import (KLDivergencePricing, MutualInformationPricing,
                                                  TotalVariationPricing, patterns,
                                                  staircase_oracle)
from rldp_models.errors import InputError
from rldp_models.privacy import certify_ldp
from rldp_models.utility import (ChiSquareDivergence, KLDivergence, MutualInformation,
                                 TotalVariation)


def all_subsets(k: int) -> np.ndarray:
    masks = np.arange(1, 2**k - 1)
    return ((masks[None, :] >> np.arange(k)[:, None]) & 1).astype(bool)


def instance(kind: str, k: int, eps: float, seed: int) -> tuple[object, object]:
    rng = np.random.default_rng(seed)
    p0, p1 = rng.dirichlet(np.ones(k)), rng.dirichlet(np.ones(k))
    ratio = inner_ratio(eps)
    if kind == "mi":
        return MutualInformation(p0), MutualInformationPricing(p0, ratio)
    if kind == "mi-uniform":
        return MutualInformation(np.full(k, 1 / k)), MutualInformationPricing(np.full(k, 1 / k),
                                                                              ratio)
    if kind == "kl":
        return KLDivergence(p0, p1), KLDivergencePricing(p0, p1, ratio)
    return TotalVariation(p0, p1), TotalVariationPricing(p0, p1, ratio)


KINDS = ["mi", "mi-uniform", "kl", "tv"]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("eps", [0.2, 1.5, 5.0])
def test_pattern_utility_is_the_utility_on_the_written_out_pattern(kind: str, eps: float) -> None:
    utility, oracle = instance(kind, 7, eps, 1)
    subsets = all_subsets(7)
    direct = utility.columns(patterns(subsets, oracle.ratio))
    np.testing.assert_allclose(oracle.pattern_utility(subsets), direct, rtol=1e-11,
                               atol=1e-13 * oracle.ratio)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("k, eps", [(3, 0.5), (6, 2.0), (10, 1.0), (12, 0.3)])
def test_bound_covers_every_pattern_and_the_best_is_found(kind: str, k: int, eps: float) -> None:
    utility, oracle = instance(kind, k, eps, k)
    subsets = all_subsets(k)
    rays = patterns(subsets, oracle.ratio)
    values = utility.columns(rays)
    lp = ConeLP(staircase_rays(k, oracle.ratio), values, np.ones(k))
    optimal = lp.solve().certificate.dual
    rng = np.random.default_rng(k)
    for dual in (0.3 * rng.normal(size=k), optimal, 0.99 * optimal, 1.01 * optimal,
                 optimal + 1e-4 * rng.normal(size=k)):
        exact = float(((values - rays.T @ dual) / rays.sum(axis=0)).max())
        result = staircase_oracle(utility, oracle.ratio).price(dual, 5)
        assert result.upper_bound >= exact
        if exact <= 1e-10:  # the proof that ends column generation must be tight
            assert result.upper_bound <= 2e-10
            continue
        found = (result.utilities - result.rays.T @ dual) / result.rays.sum(axis=0)
        assert found.max() > 1e-10
        if kind != "mi":  # mi answers with its local search when it finds a ray
            assert found.max() == pytest.approx(exact, rel=1e-9, abs=1e-14)
            assert result.upper_bound <= exact + 1e-10
        np.testing.assert_allclose(result.utilities, utility.columns(result.rays),
                                   rtol=1e-11, atol=1e-13 * oracle.ratio)


@pytest.mark.parametrize("kind", KINDS)
def test_column_generation_equals_enumeration(kind: str) -> None:
    k, eps = 9, 1.2
    utility, _ = instance(kind, k, eps, 4)
    prior = getattr(utility, "prior", None)
    prior = utility.prior0 if prior is None else prior
    enumerated = staircase_mechanism(prior, eps, utility, method="enumerate")
    generated = staircase_mechanism(prior, eps, utility, method="column-generation")
    assert generated.solution.rays is None and enumerated.solution.rays is not None
    assert generated.solution.value == pytest.approx(enumerated.solution.value, rel=1e-9)
    certificate = generated.solution.certificate
    assert certificate.verified and generated.solution.status is solvers.Status.OPTIMAL
    rays = patterns(all_subsets(k), inner_ratio(eps))
    dual = certificate.dual + max(certificate.max_violation, 0.0)
    assert np.all(utility.columns(rays) - rays.T @ dual <= 1e-9 * rays.sum(axis=0))
    assert generated.certification.holds and certify_ldp(generated.Q, eps).holds


def test_large_uniform_prior_by_column_generation() -> None:
    """k = 40 is beyond enumeration; a uniform prior has the optimum of randomized response
    at large eps (Theorem 14) and is bounded by it from below at every eps."""
    k = 40
    prior = np.full(k, 1 / k)
    result = staircase_mechanism(prior, 1.0)
    mi = MutualInformation(prior)
    rr = np.full((k, k), 1.0) + (np.e - 1.0) * np.eye(k)
    assert result.solution.rays is None and result.solution.certificate.verified
    assert result.utility >= mi.total(rr / rr.sum(axis=1, keepdims=True)) * (1 - 1e-8)
    assert result.certification.holds and result.Q.shape[1] <= k


def test_choice_of_method() -> None:
    mi = MutualInformation(np.full(30, 1 / 30))
    chi2 = ChiSquareDivergence(np.full(30, 1 / 30), np.full(30, 1 / 30))
    assert choose_method(20, 2.0, MutualInformation(np.full(20, 0.05)), "auto") == "enumerate"
    assert choose_method(30, 2.0, mi, "auto") == "column-generation"
    assert choose_method(30, 1.0, mi, "enumerate") == "enumerate"  # eps = 0: one ray
    assert choose_method(5, 2.0, MutualInformation(np.full(5, 0.2)),
                         "column-generation") == "column-generation"
    for size, utility, method in [(30, chi2, "auto"), (30, mi, "enumerate"), (30, mi, "fast"),
                                  (65, mi, "column-generation")]:
        with pytest.raises(InputError):
            choose_method(size, 2.0, utility, method)
    with pytest.raises(InputError):
        staircase_oracle(chi2, 2.0)


def test_eps_zero_at_large_k_is_the_one_output_mechanism() -> None:
    result = staircase_mechanism(np.full(40, 1 / 40), 0.0)
    assert result.Q.shape == (40, 1) and result.utility == pytest.approx(0.0, abs=1e-12)


@pytest.mark.slow
def test_dirichlet_prior_k30_by_column_generation() -> None:
    prior = np.random.default_rng(30).dirichlet(np.ones(30))
    result = staircase_mechanism(prior, 1.0)
    assert result.solution.rays is None and result.solution.certificate.verified
    assert result.certification.holds


def test_command_line_method(tmp_path) -> None:
    """``rldp mechanism staircase --method``: both methods give the same utility; other
    mechanisms refuse the option (exit code 2)."""
    from rldp_models.cli import main

    prior = np.random.default_rng(8).dirichlet(np.ones(8))
    path = tmp_path / "prior.csv"
    path.write_text("label,p\n" + "".join(f"x{i},{p!r}\n" for i, p in enumerate(prior.tolist())))
    utilities = []
    for method in ("enumerate", "column-generation"):
        out = tmp_path / f"{method}.json"
        assert main(["mechanism", "staircase", "--prior", str(path), "--eps", "1",
                     "--method", method, "--out", str(out)]) == 0
        utilities.append(result_fields(out)["utility"])
    assert utilities[0] == pytest.approx(utilities[1], rel=1e-9)
    assert utilities[0] == pytest.approx(staircase_mechanism(prior, 1.0).utility, rel=1e-9)
    assert main(["mechanism", "lip", "--joint", str(path), "--eps", "1", "--method", "auto",
                 "--out", str(tmp_path / "lip.json")]) == 2


@pytest.mark.parametrize("seed", range(4))
def test_subset_sum_pricing_equals_brute_force(seed: int) -> None:
    """The subset-sum pricing of a prior from counts finds the largest reduced cost per unit
    mass over every pattern, checked against all 2^10 - 2 patterns written out, at a random
    dual and at one affine in the prior (the ties that stop branch and bound)."""
    rng = np.random.default_rng(seed)
    counts = rng.integers(1, 100, size=10)
    prior = counts / counts.sum()
    oracle = MutualInformationPricing(prior, inner_ratio(1.0))
    subsets = np.array([[(mask >> x) & 1 for x in range(10)] for mask in range(1, 2**10 - 1)],
                       dtype=bool).T
    for dual in (rng.normal(0.0, 0.05, 10), 0.01 - 0.3 * prior):
        brute = oracle.ratios(subsets, dual)
        found, pattern = oracle.subset_sum_pricing(dual)
        assert found == pytest.approx(brute.max(), abs=1e-12)
        assert oracle.ratios(pattern[:, None], dual)[0] == pytest.approx(found, abs=1e-12)
