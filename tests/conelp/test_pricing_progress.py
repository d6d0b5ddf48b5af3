"""The progress wrapper forwards every pricing call unchanged and counts the rounds."""

from __future__ import annotations

import numpy as np

from rldp_models.conelp.column_generation import solve_by_pricing
from rldp_models.conelp.concave_pricing import ConcavePricing
from rldp_models.conelp.cones import pairwise_ratio_rows
from rldp_models.conelp.pricing_progress import ProgressOracle
from rldp_models.utility import MutualInformation


def test_wrapped_oracle_solves_the_same_lp_and_counts_its_rounds() -> None:
    joint = np.random.default_rng(0).random((2, 4))
    joint /= joint.sum()
    rows = pairwise_ratio_rows(joint / joint.sum(axis=1, keepdims=True), np.e)
    prior = joint.sum(axis=0)
    utility = MutualInformation(prior)
    plain = solve_by_pricing(ConcavePricing(rows, prior), utility, np.ones(4))
    with ProgressOracle(ConcavePricing(rows, prior), "test", enabled=False) as shown:
        wrapped = solve_by_pricing(shown, utility, np.ones(4))
        assert shown.rounds == wrapped.iterations
    assert wrapped.value == plain.value
    assert np.array_equal(wrapped.certificate.dual, plain.certificate.dual)
