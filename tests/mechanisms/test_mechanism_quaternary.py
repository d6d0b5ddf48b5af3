"""Quaternary mechanism against eq. (24) and the error region of Theorem 19."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from rldp_models.mechanisms import quaternary
from rldp_models.privacy import approximate_ldp_delta, ldp_epsilon


@pytest.mark.parametrize("eps, delta", [(0.5, 0.1), (2.0, 0.0), (1.0, 0.3)])
def test_entries_follow_eq_24(eps: float, delta: float) -> None:
    Q = quaternary(eps, delta)
    e = np.exp(eps)
    expected = np.array([[delta, 0, (1 - delta) / (1 + e), (1 - delta) * e / (1 + e)],
                         [0, delta, (1 - delta) * e / (1 + e), (1 - delta) / (1 + e)]])
    np.testing.assert_allclose(Q, expected, rtol=1e-15)
    assert approximate_ldp_delta(Q, eps) == pytest.approx(delta, abs=1e-15)


def test_positive_delta_is_not_pure_ldp() -> None:
    assert ldp_epsilon(quaternary(1.0, 0.01)) == np.inf


@pytest.mark.parametrize("eps, delta", [(0.5, 0.1), (1.5, 0.25)])
def test_error_region_is_that_of_eps_delta_ldp(eps: float, delta: float) -> None:
    """Theorem 19: P_FA + e^eps P_MD >= 1 - delta (and symmetrically) for all tests; equality."""
    Q = quaternary(eps, delta)
    gaps = []
    for decide_one in itertools.product([False, True], repeat=4):
        decide_one = np.array(decide_one)
        false_alarm = Q[0, decide_one].sum()
        miss = Q[1, ~decide_one].sum()
        gaps += [false_alarm + np.exp(eps) * miss - (1 - delta),
                 np.exp(eps) * false_alarm + miss - (1 - delta)]
    assert min(gaps) == pytest.approx(0.0, abs=1e-14)
