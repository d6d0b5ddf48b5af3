"""Robust LIP and robust LDP w.r.t. a secret (privacy-funnel Thms 1-2) over general sets.

Checked at distributions sampled from the set, independently of the certified bounds.
"""

from __future__ import annotations

import numpy as np
import pytest

from rldp_models.data import Crosstab
from rldp_models.programs import ProtocolProgram, RobustDistortion, RobustSecretPrivacy
from rldp_models.programs.information_privacy import RobustInformationPrivacy, SecretBlind
from rldp_models.uncertainty import KLBallSet, TotalVariationSet

COUNTS = np.array([[9, 5, 1], [3, 8, 6], [0, 4, 11]])
EPS = 0.8


def sets(crosstab: Crosstab):
    return [TotalVariationSet(crosstab.phat, 0.1), KLBallSet.from_counts(crosstab.counts, 0.05)]


def sampled(f, rng: np.random.Generator, count: int) -> list[np.ndarray]:
    points = []
    for _ in range(count):
        point, _ = f.worst_case(rng.normal(size=f.phat.size))
        theta = rng.uniform()
        points.append((theta * point + (1 - theta) * f.phat).reshape(f.phat.shape))
    return points


@pytest.mark.parametrize("index", [0, 1], ids=["tv", "kl"])
def test_robust_lip_holds_at_sampled_distributions(index: int) -> None:
    crosstab = Crosstab.from_array(COUNTS)
    f = sets(crosstab)[index]
    solution = ProtocolProgram(crosstab, RobustDistortion(), [RobustInformationPrivacy(EPS)],
                               uncertainty=f, eps=EPS).solve()
    assert solution.guarantee_holds
    protocol = solution.protocol.reshape(3, 3, -1)
    for p in sampled(f, np.random.default_rng(2), 30):
        conditional = np.einsum("su,suy->sy", p / p.sum(axis=1, keepdims=True), protocol)
        marginal = np.einsum("su,suy->y", p, protocol)
        ratio = conditional / marginal
        assert np.all(ratio <= np.exp(EPS) + 1e-9) and np.all(ratio >= np.exp(-EPS) - 1e-9)


def test_robust_ldp_wrt_secret_ignores_the_secret() -> None:
    crosstab = Crosstab.from_array(COUNTS)
    f = TotalVariationSet(crosstab.phat, 0.1)
    blind = ProtocolProgram(crosstab, RobustDistortion(), [SecretBlind(), RobustSecretPrivacy(EPS)],
                            uncertainty=f, eps=EPS).solve()
    free = ProtocolProgram(crosstab, RobustDistortion(), [RobustSecretPrivacy(EPS)],
                           uncertainty=f, eps=EPS).solve()
    assert blind.guarantee_holds
    rows = blind.protocol.reshape(3, 3, -1)
    assert np.allclose(rows[0], rows[1], atol=1e-6) and np.allclose(rows[0], rows[2], atol=1e-6)
    assert blind.objective >= free.objective - 1e-6
    for p in sampled(f, np.random.default_rng(4), 30):
        conditional = np.einsum("su,suy->sy", p / p.sum(axis=1, keepdims=True), rows)
        assert np.all(conditional.max(axis=0) <= np.exp(EPS) * conditional.min(axis=0) + 1e-9)
