"""Privacy checkers against brute-force evaluations of each definition.

References are independent: explicit loops over pairs, subsets and
conditionings, with ratios taken as exact fractions and ``e^eps`` evaluated by
mpmath at 60 significant digits.
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import mpmath
import numpy as np
import pytest

from rldp_models.errors import InputError
from rldp_models.privacy import (approximate_ldp_delta, certify_approximate_ldp, certify_ldp,
                                 certify_uldp, ldp_epsilon, ldp_wrt_secret_epsilon, lip_epsilon,
                                 protected_outputs, srlip_epsilon, srlip_epsilons, uldp_epsilon)
from rldp_models.exact import (compare_with_exp, float_at_least_exp_times,
                                            float_at_most_exp_times, raise_column_minima)

RNG = np.random.default_rng(11)


def random_mechanism(k: int, m: int, zero_fraction: float = 0.0) -> np.ndarray:
    Q = RNG.random((k, m)) + 0.05
    Q[RNG.random((k, m)) < zero_fraction] = 0.0
    Q[:, 0] += 0.01
    return Q / Q.sum(axis=1, keepdims=True)


def brute_ldp(Q: np.ndarray, groups: np.ndarray | None = None) -> float:
    worst = 0.0
    for x, x2, y in itertools.product(range(Q.shape[0]), range(Q.shape[0]), range(Q.shape[1])):
        if groups is not None and groups[x] == groups[x2]:
            continue
        if Q[x, y] > 0:
            worst = max(worst, np.inf if Q[x2, y] == 0 else np.log(Q[x, y] / Q[x2, y]))
    return worst


def brute_certify(Q: np.ndarray, eps: float, groups: np.ndarray | None = None) -> bool:
    with mpmath.workdps(60):
        bound = mpmath.exp(mpmath.mpf(eps))
        return all(mpmath.mpf(Q[x, y]) <= bound * mpmath.mpf(Q[x2, y])
                   for x, x2, y in itertools.product(*map(range, (Q.shape[0], Q.shape[0],
                                                                  Q.shape[1])))
                   if groups is None or groups[x] != groups[x2])


# --- eps-LDP -------------------------------------------------------------------------

@pytest.mark.parametrize("zero_fraction", [0.0, 0.3])
def test_ldp_epsilon_matches_brute_force(zero_fraction: float) -> None:
    for _ in range(30):
        Q = random_mechanism(4, 5, zero_fraction)
        groups = RNG.integers(0, 2, size=4)
        assert ldp_epsilon(Q) == pytest.approx(brute_ldp(Q), rel=1e-13)
        if len(set(groups)) > 1:
            assert ldp_epsilon(Q, groups) == pytest.approx(brute_ldp(Q, groups), rel=1e-13)


def test_zero_conventions() -> None:
    Q = np.array([[0.5, 0.5, 0.0], [0.5, 0.5, 0.0]])
    assert ldp_epsilon(Q) == 0.0  # 0/0 constrains nothing
    assert certify_ldp(Q, 0.0).holds
    Q = np.array([[0.5, 0.5], [1.0, 0.0]])
    assert ldp_epsilon(Q) == np.inf
    assert certify_ldp(Q, 50.0) == (False, (0, 1, 1))


def test_certify_ldp_agrees_with_high_precision_brute_force_at_the_boundary() -> None:
    for _ in range(40):
        Q = random_mechanism(3, 4, 0.2)
        groups = np.array([0, 0, 1])
        for g in (None, groups):
            level = ldp_epsilon(Q, g)
            if not np.isfinite(level):
                continue
            for eps in (level, np.nextafter(level, 0), np.nextafter(level, np.inf), level * 1.01):
                assert certify_ldp(Q, eps, g).holds == brute_certify(Q, eps, g)


def test_certify_ldp_reports_the_exact_worst_pair() -> None:
    for _ in range(20):
        Q = random_mechanism(4, 3)
        ratios = {(x, x2, y): Fraction(Q[x, y]) / Fraction(Q[x2, y])
                  for x, x2, y in itertools.product(range(4), range(4), range(3))}
        best = max(ratios.values())
        holds, pair = certify_ldp(Q, 1.0)
        assert ratios[pair] == best


def test_certify_ldp_at_eps_zero_is_exact() -> None:
    assert certify_ldp(np.full((3, 2), 0.5), 0.0).holds
    assert not certify_ldp(np.array([[0.5, 0.5], [np.nextafter(0.5, 1), np.nextafter(0.5, 0)]]),
                           0.0).holds


# --- (eps, delta)-LDP -------------------------------------------------------------------

def brute_delta(Q: np.ndarray, eps: float) -> float:
    m = Q.shape[1]
    return max(Q[x, list(A)].sum() - np.exp(eps) * Q[x2, list(A)].sum()
               for x, x2 in itertools.product(range(Q.shape[0]), repeat=2)
               for r in range(m + 1) for A in itertools.combinations(range(m), r))


def test_approximate_delta_matches_subset_enumeration() -> None:
    for _ in range(20):
        Q = random_mechanism(3, 5, 0.2)
        eps = RNG.uniform(0, 2)
        assert approximate_ldp_delta(Q, eps) == pytest.approx(brute_delta(Q, eps), abs=1e-14)


def test_certify_approximate_ldp_at_the_boundary() -> None:
    for _ in range(20):
        Q = random_mechanism(3, 4, 0.2)
        eps = RNG.uniform(0, 2)
        delta = approximate_ldp_delta(Q, eps)
        assert certify_approximate_ldp(Q, eps, delta * (1 + 1e-9)).holds
        assert not certify_approximate_ldp(Q, eps, delta * (1 - 1e-9)).holds


# --- LDP and LIP w.r.t. a secret ------------------------------------------------------------

def random_joint(c: int, a: int) -> np.ndarray:
    return RNG.dirichlet(np.ones(c * a)).reshape(c, a)


def brute_secret_quantities(Q: np.ndarray, p_sx: np.ndarray) -> tuple[float, float]:
    """(LDP w.r.t. S, LIP) by explicit sums over x for every (s, y)."""
    c, a = p_sx.shape
    p_s = [sum(p_sx[s, x] for x in range(a)) for s in range(c)]
    p_y = [sum(p_sx[s, x] * Q[x, y] for s in range(c) for x in range(a)) for y in range(Q.shape[1])]
    given = [[sum(p_sx[s, x] * Q[x, y] for x in range(a)) / p_s[s] for y in range(Q.shape[1])]
             for s in range(c)]
    ldp = max(np.log(given[s][y] / given[s2][y]) for s in range(c) for s2 in range(c)
              for y in range(Q.shape[1]))
    posterior = [[p_sx[s] @ Q[:, y] / p_y[y] for y in range(Q.shape[1])] for s in range(c)]
    lip = max(abs(np.log(posterior[s][y] / p_s[s])) for s in range(c) for y in range(Q.shape[1]))
    return ldp, lip


def test_secret_ldp_and_lip_match_definitions_and_lemma_1() -> None:
    for _ in range(20):
        Q = random_mechanism(4, 3)
        p_sx = random_joint(3, 4)
        ldp, lip = brute_secret_quantities(Q, p_sx)
        assert ldp_wrt_secret_epsilon(Q, p_sx) == pytest.approx(ldp, rel=1e-12)
        assert lip_epsilon(Q, p_sx) == pytest.approx(lip, rel=1e-12)
        assert lip <= ldp + 1e-12 and ldp <= 2 * lip + 1e-12  # Lemma 1


def test_secret_equal_to_input_and_independent_secret() -> None:
    Q = random_mechanism(4, 3)
    prior = RNG.dirichlet(np.ones(4))
    assert ldp_wrt_secret_epsilon(Q, np.diag(prior)) == pytest.approx(ldp_epsilon(Q), rel=1e-13)
    independent = np.outer([0.3, 0.7], prior)
    assert ldp_wrt_secret_epsilon(Q, independent) == pytest.approx(0.0, abs=1e-14)
    assert lip_epsilon(Q, independent) == pytest.approx(0.0, abs=1e-14)


def test_lip_is_infinite_when_an_output_is_impossible_for_a_secret() -> None:
    Q = np.array([[1.0, 0.0], [0.0, 1.0]])
    p_sx = np.array([[0.5, 0.0], [0.25, 0.25]])  # s = 0 never produces y = 1
    assert lip_epsilon(Q, p_sx) == np.inf


# --- SRLIP -----------------------------------------------------------------------------------

def brute_srlip(Q: np.ndarray, p_sx: np.ndarray, sizes: tuple[int, ...]) -> float:
    """Eq. (12) by conditioning on every (J, x^J) with explicit loops."""
    points = list(itertools.product(*map(range, sizes)))
    worst = 0.0
    for r in range(len(sizes) + 1):
        for J in itertools.combinations(range(len(sizes)), r):
            for value in itertools.product(*(range(sizes[j]) for j in J)):
                match = [i for i, x in enumerate(points)
                         if all(x[j] == v for j, v in zip(J, value))]
                p_xj = p_sx[:, match].sum()
                if p_xj == 0:
                    continue
                for y in range(Q.shape[1]):
                    p_y = sum(p_sx[s, i] * Q[i, y]
                              for s in range(p_sx.shape[0]) for i in match) / p_xj
                    for s in range(p_sx.shape[0]):
                        p_s = p_sx[s, match].sum()
                        if p_s > 0 and p_y > 0:
                            p_y_s = sum(p_sx[s, i] * Q[i, y] for i in match) / p_s
                            worst = max(worst, abs(np.log(p_y_s / p_y)))
    return worst


def test_srlip_matches_eq_12_and_lemma_2() -> None:
    sizes = (2, 3)
    for _ in range(5):
        Q = random_mechanism(6, 3)
        p_sx = random_joint(2, 6)
        level = srlip_epsilon(Q, p_sx, sizes)
        assert level == pytest.approx(brute_srlip(Q, p_sx, sizes), rel=1e-12)
        assert level >= lip_epsilon(Q, p_sx) - 1e-15  # Lemma 2


def test_srlip_product_mechanism_obeys_theorem_3() -> None:
    sizes = (2, 2, 3)
    for _ in range(5):
        parts = [random_mechanism(a, 2) for a in sizes]
        p_sx = random_joint(2, int(np.prod(sizes)))
        budgets = srlip_epsilons(parts, p_sx)
        product = np.kron(np.kron(parts[0], parts[1]), parts[2])
        assert srlip_epsilon(product, p_sx, sizes) <= budgets.sum() + 1e-12
        for j, part in enumerate(parts):  # J = {} is among the conditionings
            marginal = p_sx.reshape(2, *sizes).sum(axis=tuple(1 + i for i in range(3) if i != j))
            assert budgets[j] >= lip_epsilon(part, marginal) - 1e-15


def test_srlip_rejects_inconsistent_sizes() -> None:
    with pytest.raises(InputError):
        srlip_epsilon(random_mechanism(6, 2), random_joint(2, 6), (2, 2))


# --- ULDP ------------------------------------------------------------------------------------

def test_mangat_randomized_response_is_uldp_but_not_ldp() -> None:
    """ULDP paper Sec. 3.1: the sensitive x_0 always reports y_0; x_1 reports y_0 w.p. 1 - q."""
    q = 0.4
    Q = np.array([[1.0, 0.0], [1 - q, q]])
    sensitive = np.array([True, False])
    np.testing.assert_array_equal(protected_outputs(Q, sensitive), [True, False])
    assert uldp_epsilon(Q, sensitive) == pytest.approx(-np.log(1 - q))
    assert ldp_epsilon(Q) == np.inf
    assert certify_uldp(Q, sensitive, -np.log(1 - q) * (1 + 1e-12)).holds
    assert not certify_uldp(Q, sensitive, -np.log(1 - q) * (1 - 1e-12)).holds


def test_output_reached_from_a_sensitive_input_is_protected() -> None:
    Q = np.array([[0.0, 1.0], [0.5, 0.5]])
    np.testing.assert_array_equal(protected_outputs(Q, np.array([True, False])), [False, True])
    np.testing.assert_array_equal(protected_outputs(Q, np.array([False, True])), [True, True])


def test_bad_inputs_raise() -> None:
    Q = np.array([[0.5, 0.5], [0.2, 0.8]])
    for call in (lambda: ldp_epsilon([[0.5, 0.6], [0.5, 0.5]]), lambda: certify_ldp(Q, -1.0),
                 lambda: ldp_epsilon(Q, [0, 1, 2]), lambda: uldp_epsilon(Q, [1, 0]),
                 lambda: lip_epsilon(Q, np.full((2, 3), 1 / 6)),
                 lambda: certify_approximate_ldp(Q, 1.0, 2.0)):
        with pytest.raises(InputError):
            call()


# --- exact rounding helpers ----------------------------------------------------------------

@pytest.mark.parametrize("t", [-3.0, -0.1, 1e-12, 0.7, 5.0])
def test_directed_rounding_brackets_e_t_b(t: float) -> None:
    for b in (0.3, 1 / 7, 2.5e-9):
        low, high = float_at_most_exp_times(t, b), float_at_least_exp_times(t, b)
        with mpmath.workdps(60):
            exact = mpmath.exp(mpmath.mpf(t)) * mpmath.mpf(b)
            assert mpmath.mpf(low) <= exact <= mpmath.mpf(high)
        assert high == np.nextafter(low, np.inf)  # e^t b is never a double for t != 0


def test_compare_with_exp_and_column_repair() -> None:
    assert compare_with_exp(Fraction(1), 0.0) == 0
    assert compare_with_exp(Fraction(2718281828, 10 ** 9), 1.0) == -1
    assert compare_with_exp(Fraction(2718281829, 10 ** 9), 1.0) == 1
    column = np.array([[0.6], [0.6 / np.exp(0.5) * (1 - 1e-15)]])
    repaired = raise_column_minima(column, 0.5)
    assert repaired[0, 0] == 0.6 and 0 < repaired[1, 0] - column[1, 0] < 1e-15
    with mpmath.workdps(60):
        assert mpmath.mpf(0.6) <= mpmath.exp(mpmath.mpf(0.5)) * mpmath.mpf(repaired[1, 0])
    with pytest.raises(ValueError):
        raise_column_minima(np.array([[0.9, 0.1], [0.1, 0.9]]), 0.5)
