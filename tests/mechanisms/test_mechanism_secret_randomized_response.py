"""SRR against eq. (18), Lemma 6 / Proposition 4 and eq. (17)."""

from __future__ import annotations

import numpy as np
import pytest

from rldp_models.mechanisms import SecretRandomizedResponse, secret_randomized_response
from rldp_models.privacy import ldp_epsilon, ldp_wrt_secret_epsilon


@pytest.mark.parametrize("eps, a1, a2", [(0.5, 2, 3), (2.0, 3, 2), (1.0, 2, 1)])
def test_entries_follow_eq_18(eps: float, a1: int, a2: int) -> None:
    Q = secret_randomized_response(eps, a1, a2)
    a = a1 * a2
    denominator = np.exp(eps) + np.exp(-eps) * (a2 - 1) + a - a2
    for s, u, s2, u2 in np.ndindex(a1, a2, a1, a2):
        if (s, u) == (s2, u2):
            expected = np.exp(eps) / denominator
        elif s == s2:
            expected = np.exp(-eps) / denominator
        else:
            expected = 1 / denominator
        assert Q[s * a2 + u, s2 * a2 + u2] == pytest.approx(expected, rel=1e-15)


def test_levels_across_and_within_secrets() -> None:
    eps = 1.3
    mechanism = SecretRandomizedResponse(eps, 3, 4)
    Q = mechanism.matrix()
    assert ldp_epsilon(Q, mechanism.secret_of()) == pytest.approx(eps, rel=1e-13)
    assert ldp_epsilon(Q) == pytest.approx(2 * eps, rel=1e-13)  # eq. (17): e^2eps within a secret


def test_ldp_wrt_secret_under_every_prior() -> None:
    """Lemma 6: eps-LDP w.r.t. S for every prior; Prop. 4's two-point prior attains eps."""
    eps, a1, a2 = 0.8, 3, 3
    Q = secret_randomized_response(eps, a1, a2)
    rng = np.random.default_rng(5)
    for _ in range(50):
        p_sx = np.zeros((a1, a1 * a2))
        for s in range(a1):
            p_sx[s, s * a2:(s + 1) * a2] = rng.dirichlet(np.full(a2, 0.3)) / a1
        assert ldp_wrt_secret_epsilon(Q, p_sx) <= eps * (1 + 1e-12)
    two_point = np.zeros((a1, a1 * a2))
    two_point[0, 0] = two_point[1, a2 + 1] = 0.5
    assert ldp_wrt_secret_epsilon(Q, two_point) == pytest.approx(eps, rel=1e-12)
