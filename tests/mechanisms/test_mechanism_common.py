"""Properties every closed-form mechanism must have.

* its matrix is row-stochastic;
* it passes its own privacy checker at exactly the requested level, and the
  level is tight (the exact check fails one part in 10^9 below it);
* its seeded sampler draws from the rows of its matrix (chi-square
  goodness of fit, fixed seed: a correct sampler fails with probability 1e-3);
* the sampler is reproducible and validates its input.
"""

from __future__ import annotations

from typing import Callable

import numpy as np
import pytest
from scipy.stats import chi2

from rldp_models.errors import InputError
from rldp_models.mechanisms import (BinaryMechanism, Mechanism, Quaternary, RandomizedResponse,
                                    SecretRandomizedResponse, TruncatedGeometric, UnaryEncoding,
                                    UtilityOptimizedRAPPOR, UtilityOptimizedRR)
from rldp_models.privacy import (Certification, certify_approximate_ldp, certify_ldp, certify_uldp,
                                 ldp_epsilon, uldp_epsilon)

PRIOR = np.array([0.05, 0.3, 0.1, 0.35, 0.2])
PRIOR1 = np.array([0.3, 0.1, 0.25, 0.15, 0.2])
SENSITIVE = np.array([True, False, True, False, False])
GROUPS = np.repeat(np.arange(3), 2)

Check = Callable[[np.ndarray, float], Certification]


def cases(eps: float) -> list[tuple[str, Mechanism, Check]]:
    ldp: Check = certify_ldp
    return [
        ("rr", RandomizedResponse(eps, 5), ldp),
        ("binary-mi", BinaryMechanism.for_mutual_information(eps, PRIOR), ldp),
        ("binary-ht", BinaryMechanism.for_hypothesis_testing(eps, PRIOR, PRIOR1), ldp),
        ("geometric", TruncatedGeometric(eps, 5), ldp),
        ("srr", SecretRandomizedResponse(eps, 3, 2), lambda Q, e: certify_ldp(Q, e, GROUPS)),
        ("ue-symmetric", UnaryEncoding.from_setting("symmetric", eps, 4), ldp),
        ("ue-optimized", UnaryEncoding.from_setting("optimized", eps, 4), ldp),
        ("ue-fair-others", UnaryEncoding.from_setting("fair-others", eps, 4), ldp),
        ("urr", UtilityOptimizedRR(eps, SENSITIVE), lambda Q, e: certify_uldp(Q, SENSITIVE, e)),
        ("urap", UtilityOptimizedRAPPOR(eps, SENSITIVE[:4]),
         lambda Q, e: certify_uldp(Q, SENSITIVE[:4], e)),
    ]


ALL = [(f"{name}@{eps}", mechanism, check)
       for eps in (0.1, 1.0, 2.5, 7.0) for name, mechanism, check in cases(eps)]
IDS = [case[0] for case in ALL]


@pytest.mark.parametrize("name, mechanism, check", ALL, ids=IDS)
def test_matrix_is_row_stochastic(name: str, mechanism: Mechanism, check: Check) -> None:
    Q = mechanism.matrix()
    assert Q.dtype == np.float64 and Q.shape[0] == mechanism.n_inputs
    assert np.all(Q >= 0)
    np.testing.assert_allclose(Q.sum(axis=1), 1.0, rtol=0, atol=1e-12)


@pytest.mark.parametrize("name, mechanism, check", ALL, ids=IDS)
def test_passes_its_checker_at_exactly_eps(name: str, mechanism: Mechanism, check: Check) -> None:
    Q, eps = mechanism.matrix(), mechanism.eps
    assert check(Q, eps).holds
    assert not check(Q, eps * (1 - 1e-9)).holds


@pytest.mark.parametrize("delta", [0.0, 0.05, 0.5])
@pytest.mark.parametrize("eps", [0.1, 1.0, 7.0])
def test_quaternary_passes_its_checker_at_exactly_eps_delta(eps: float, delta: float) -> None:
    Q = Quaternary(eps, delta).matrix()
    assert certify_approximate_ldp(Q, eps, delta).holds
    assert not certify_approximate_ldp(Q, eps * (1 - 1e-9), delta).holds
    if delta > 0:
        assert not certify_approximate_ldp(Q, eps, delta * (1 - 1e-9)).holds
    np.testing.assert_allclose(Q.sum(axis=1), 1.0, rtol=0, atol=1e-12)


def test_zero_eps_gives_level_zero() -> None:
    for name, mechanism, check in cases(0.0):
        Q = mechanism.matrix()
        assert check(Q, 0.0).holds, name
        level = uldp_epsilon(Q, SENSITIVE[:Q.shape[0]]) if name.startswith("u") else (
            ldp_epsilon(Q, GROUPS) if name == "srr" else ldp_epsilon(Q))
        assert level == 0.0, name


@pytest.mark.parametrize("eps", [1e-12, 40.0, 300.0])
def test_extreme_levels_still_certify(eps: float) -> None:
    """Near 0 the named parameters round to nearly equal values; at large eps products underflow."""
    for name, mechanism, check in cases(eps):
        Q = mechanism.matrix()
        assert check(Q, eps).holds, name
        np.testing.assert_allclose(Q.sum(axis=1), 1.0, rtol=0, atol=1e-12)


SAMPLED = [case for case in ALL if case[0].endswith("@1.0")] + [
    ("quaternary@1.0", Quaternary(1.0, 0.2), None)]


@pytest.mark.parametrize("name, mechanism, check", SAMPLED, ids=[c[0] for c in SAMPLED])
def test_sampler_matches_matrix(name: str, mechanism: Mechanism, check: Check) -> None:
    Q = mechanism.matrix()
    per_input = 4000
    x = np.repeat(np.arange(Q.shape[0]), per_input)
    y = mechanism.sample(x, np.random.default_rng(12345))
    counts = np.zeros_like(Q)
    np.add.at(counts, (x, y), 1)
    assert np.all(counts[Q == 0] == 0), "sampled an output of probability 0"
    expected = per_input * Q
    positive = Q > 0
    statistic = np.sum((counts[positive] - expected[positive]) ** 2 / expected[positive])
    dof = int(positive.sum() - Q.shape[0])
    assert chi2.sf(statistic, dof) > 1e-3


@pytest.mark.parametrize("name, mechanism, check", SAMPLED[:3] + SAMPLED[5:6], ids=[
    c[0] for c in SAMPLED[:3] + SAMPLED[5:6]])
def test_sampler_is_seeded_and_validates(name: str, mechanism: Mechanism, check: Check) -> None:
    x = np.arange(mechanism.n_inputs).repeat(5).reshape(-1, 5)
    first = mechanism.sample(x, 7)
    assert first.shape == x.shape
    np.testing.assert_array_equal(first, mechanism.sample(x, np.random.default_rng(7)))
    with pytest.raises(InputError):
        mechanism.sample([mechanism.n_inputs], 0)
    with pytest.raises(InputError):
        mechanism.sample([0.5], 0)
    with pytest.raises(InputError):
        mechanism.sample([0], "seed")


@pytest.mark.parametrize("make", [
    lambda: RandomizedResponse(-0.1, 3), lambda: RandomizedResponse(1.0, 1),
    lambda: RandomizedResponse(float("nan"), 3), lambda: RandomizedResponse(float("inf"), 3),
    lambda: RandomizedResponse(1.0, 2.5), lambda: RandomizedResponse(701.0, 3),
    lambda: TruncatedGeometric(1.0, 1),
    lambda: Quaternary(1.0, 1.5), lambda: SecretRandomizedResponse(1.0, 1, 3),
    lambda: SecretRandomizedResponse(1.0, 2, 0), lambda: BinaryMechanism(1.0, [True]),
    lambda: BinaryMechanism.for_mutual_information(1.0, [0.5, 0.6]),
    lambda: BinaryMechanism.for_hypothesis_testing(1.0, [0.5, 0.5], [0.2, 0.3, 0.5]),
    lambda: UnaryEncoding(0.3, 0.6, 4), lambda: UnaryEncoding(0.9, 0.1, 4, eps=1.0),
    lambda: UnaryEncoding.from_setting("rappor", 1.0, 4),
    lambda: UnaryEncoding(0.7, 0.2, 3, complements=(0.5, 0.8)),
    lambda: UtilityOptimizedRR(1.0, [False, False]), lambda: UtilityOptimizedRR(1.0, [1, 0]),
    lambda: UtilityOptimizedRAPPOR(1.0, [True]),
])
def test_bad_parameters_raise_input_error(make: Callable[[], Mechanism]) -> None:
    with pytest.raises(InputError):
        make()
