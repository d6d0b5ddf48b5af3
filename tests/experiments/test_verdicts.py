"""The three verdicts: a claim that holds, one that fails (with its numbers), one left open."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from rldp_models.experiments.base import (Claim, ClaimOutcome, Finding, existence_claim,
                                          mean_interval, mean_sign_claim, measured_claim,
                                          proportion_interval, rate_claim, threshold_claim,
                                          universal_claim)



def test_mean_interval_matches_the_t_formula() -> None:
    values = np.array([1.0, 2.0, 4.0, 7.0])
    mean, low, high = mean_interval(values)
    half = stats.t.ppf(0.975, 3) * values.std(ddof=1) / 2.0  # sqrt(4) = 2
    assert mean == pytest.approx(3.5)
    assert (low, high) == pytest.approx((3.5 - half, 3.5 + half))


def test_sign_reproduced_refuted_and_unresolved() -> None:
    clearly_negative = np.linspace(-1.5, -0.5, 40)
    clearly_positive = -clearly_negative
    noisy = np.array([-0.3, 0.4, -0.2, 0.1])
    assert mean_sign_claim("c", clearly_negative, True, "x").verdict is ClaimOutcome.REPRODUCED
    refuted = mean_sign_claim("c", clearly_positive, True, "x")
    assert refuted.verdict is ClaimOutcome.NOT_REPRODUCED
    assert "positive side" in refuted.reason and "mean 1," in refuted.measured
    open_claim = mean_sign_claim("c", noisy, True, "x")
    assert open_claim.verdict is ClaimOutcome.NOT_RESOLVED and "contains 0" in open_claim.reason


def test_sign_is_not_decided_by_rounding_noise_below_the_precision() -> None:
    rounding = np.full(200, 1e-17)  # a zero-width interval at 1e-17: "positive" without it
    assert mean_sign_claim("c", rounding, False, "x").verdict is ClaimOutcome.REPRODUCED
    within = mean_sign_claim("c", rounding, False, "x", precision=1e-9)
    assert within.verdict is ClaimOutcome.NOT_RESOLVED and "1e-09" in within.reason
    beyond = mean_sign_claim("c", np.linspace(2e-9, 4e-9, 50), False, "x", precision=1e-9)
    assert beyond.verdict is ClaimOutcome.REPRODUCED
    refuted = mean_sign_claim("c", -np.linspace(2e-9, 4e-9, 50), False, "x", precision=1e-9)
    assert refuted.verdict is ClaimOutcome.NOT_REPRODUCED


def test_proportion_interval_is_clopper_pearson() -> None:
    low, high = proportion_interval(0, 30)
    assert low == 0.0 and high == pytest.approx(1 - 0.025 ** (1 / 30))  # closed form at 0


def test_rate_reproduced_refuted_and_unresolved() -> None:
    assert rate_claim("c", 200, 1000, 0.05, True, "x").verdict is ClaimOutcome.REPRODUCED
    refuted = rate_claim("c", 3, 1000, 0.05, True, "x")
    assert refuted.verdict is ClaimOutcome.NOT_REPRODUCED and "3/1000" in refuted.measured
    assert rate_claim("c", 0, 30, 0.05, True, "x").verdict is ClaimOutcome.NOT_RESOLVED


def test_universal_bound() -> None:
    assert universal_claim("c", 0.72, 0.70, 100, 100).verdict is ClaimOutcome.REPRODUCED
    refuted = universal_claim("c", 0.636, 0.70, 100, 100, "k = 6, eps = 2.52")
    assert refuted.verdict is ClaimOutcome.NOT_REPRODUCED
    assert "63.6%" in refuted.measured and "eps = 2.52" in refuted.measured
    assert universal_claim("c", 0.72, 0.70, 12, 100).verdict is ClaimOutcome.NOT_RESOLVED
    # a counterexample refutes at any size
    assert universal_claim("c", 0.5, 0.70, 12, 100).verdict is ClaimOutcome.NOT_REPRODUCED


def test_existence() -> None:
    assert existence_claim("c", 2, 1000, "x").verdict is ClaimOutcome.REPRODUCED
    unseen = existence_claim("c", 0, 30, "x")
    assert unseen.verdict is ClaimOutcome.NOT_RESOLVED and "0/30" in unseen.measured


def test_threshold_states_the_reason() -> None:
    slower = threshold_claim("LIP much faster", 0.85, 10, True, "time ratio LDP / LIP",
                             "our cone LP is faster than the paper's vertex enumeration")
    assert slower.verdict is ClaimOutcome.NOT_REPRODUCED
    assert "0.85" in slower.measured and "vertex enumeration" in slower.reason
    assert threshold_claim("c", 476, 10, True, "r", "").verdict is ClaimOutcome.REPRODUCED


def test_finding_counts_and_holds() -> None:
    finding = Finding.from_checks("t", {
        "a": True, "b": False,
        "c": Claim("c", "m", ClaimOutcome.NOT_RESOLVED, "too small")})
    assert finding.counts == {"reproduced": 1, "not reproduced": 1,
                              "not resolved at this size": 1}
    assert not finding.holds
    assert finding.checks == {"a": True, "b": False, "c": False}
    unresolved_only = Finding("t", (Claim("c", "m", ClaimOutcome.NOT_RESOLVED, "r"),))
    assert unresolved_only.holds


def test_measured_claim_keeps_the_numbers_and_explains_a_failure() -> None:
    """An outright claim states what it was decided on either way; only a failure has a
    reason."""
    held = measured_claim("median eps* <= eps", True, "median eps* 0.41 (eps = 0.5)")
    assert (held.verdict, held.measured, held.reason) == (
        ClaimOutcome.REPRODUCED, "median eps* 0.41 (eps = 0.5)", "")
    failed = measured_claim("median eps* <= eps", False, "median eps* 0.62 (eps = 0.5)",
                            "leaks")
    assert (failed.verdict, failed.measured, failed.reason) == (
        ClaimOutcome.NOT_REPRODUCED, "median eps* 0.62 (eps = 0.5)", "leaks")
    assert measured_claim("c", False, "m").reason  # a default reason, never empty
