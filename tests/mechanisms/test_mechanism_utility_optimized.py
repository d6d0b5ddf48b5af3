"""uRR and uRAP against the DESIGN.md formulas and Definition 2 of ULDP."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from rldp_models.mechanisms import (UtilityOptimizedRAPPOR, randomized_response,
                                    utility_optimized_rappor, utility_optimized_rr)
from rldp_models.privacy import ldp_epsilon, protected_outputs, uldp_epsilon

SENSITIVE = np.array([False, True, False, True, False])


@pytest.mark.parametrize("eps", [0.2, 1.0, 4.0])
def test_urr_entries_follow_the_formulas(eps: float) -> None:
    Q = utility_optimized_rr(eps, SENSITIVE)
    s, e = SENSITIVE.sum(), np.exp(eps)
    c1, c2, c3 = e / (s + e - 1), 1 / (s + e - 1), (e - 1) / (s + e - 1)
    for x, y in np.ndindex(Q.shape):
        if SENSITIVE[y]:
            expected = c1 if x == y else c2
        else:
            expected = c3 if x == y else 0.0
        assert Q[x, y] == pytest.approx(expected, rel=1e-14, abs=0)
    np.testing.assert_array_equal(protected_outputs(Q, SENSITIVE), SENSITIVE)
    assert uldp_epsilon(Q, SENSITIVE) == pytest.approx(eps, rel=1e-13)
    assert ldp_epsilon(Q) == np.inf  # not LDP: non-sensitive outputs are invertible


def test_urr_with_every_symbol_sensitive_is_rr() -> None:
    np.testing.assert_allclose(utility_optimized_rr(1.5, np.ones(4, dtype=bool)),
                               randomized_response(1.5, 4), rtol=1e-15)


@pytest.mark.parametrize("eps", [0.2, 1.0, 4.0])
def test_urap_entries_follow_the_formulas(eps: float) -> None:
    sensitive = SENSITIVE[:4]
    Q = utility_optimized_rappor(eps, sensitive)
    h = np.exp(eps / 2)
    for x in range(4):
        for y, bits in enumerate(itertools.product([0, 1], repeat=4)):
            probability = 1.0
            for j, bit in enumerate(bits):
                if sensitive[j]:
                    p_one = h / (h + 1) if j == x else 1 / (h + 1)
                else:
                    p_one = 1 - 1 / h if j == x else 0.0
                probability *= p_one if bit else 1 - p_one
            assert Q[x, y] == pytest.approx(probability, rel=1e-13, abs=1e-300)
    assert uldp_epsilon(Q, sensitive) == pytest.approx(eps, rel=1e-13)


def test_urap_protected_outputs_are_eq_7_and_invertible_outputs_reveal_the_input() -> None:
    sensitive = SENSITIVE[:4]
    mechanism = UtilityOptimizedRAPPOR(1.0, sensitive)
    Q = mechanism.matrix()
    reached = Q.max(axis=0) > 0  # outputs with two non-sensitive bits set never occur
    np.testing.assert_array_equal(protected_outputs(Q, sensitive)[reached],
                                  mechanism.protected()[reached])
    invertible = ~mechanism.protected()
    reachable = Q[:, invertible] > 0
    assert np.all(reachable.sum(axis=0) <= 1)
    assert not np.any(reachable[sensitive])
