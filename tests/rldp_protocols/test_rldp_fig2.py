"""Fig. 2 of ``rldp-privacy-utility-tradeoff.txt`` (Sec. VIII-A/B) on 3x3 synthetic data.

Jeffreys-prior distributions, n = 1000 records each, alpha = 0.05; the
normalised utility ``I_Phat(X;Y) / H(X)`` averaged over the distributions.
Findings (Sec. VIII-B): among the low-complexity protocols UE-CR is ahead of
IR and GRR-CR at small eps, and SRR is the best protocol at large eps.
"""

from __future__ import annotations

from scipy.stats import entropy

from rldp_models.instances import jeffreys_instance
from rldp_models.rldp_protocols import (grr_conditional, grr_protocol, independent_reporting,
                                        srr_protocol, ue_conditional)

BUILDERS = {"ir": independent_reporting, "grr-cr": grr_conditional, "ue-cr": ue_conditional,
            "srr": srr_protocol, "grr": grr_protocol}
SMALL_EPS, LARGE_EPS = 0.5, 5.0


def average_normalised_utility(eps: float, seeds: range) -> dict[str, float]:
    totals = dict.fromkeys(BUILDERS, 0.0)
    for seed in seeds:
        crosstab = jeffreys_instance(3, 3, 1000, seed).crosstab
        entropy_x = entropy(crosstab.phat.ravel())
        for name, build in BUILDERS.items():
            totals[name] += build(crosstab, eps, 0.05).utility_hat / entropy_x
    return {name: total / len(seeds) for name, total in totals.items()}


def test_fig2_findings_on_20_distributions():
    small = average_normalised_utility(SMALL_EPS, range(20))
    assert small["ue-cr"] > max(small["ir"], small["grr-cr"]), small
    large = average_normalised_utility(LARGE_EPS, range(20))
    assert large["srr"] == max(large.values()), large
    assert all(0.0 <= value <= 1.0 for value in [*small.values(), *large.values()])
