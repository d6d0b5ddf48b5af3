"""Tests of rldp_models.utility against textbook formulas and sublinearity."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from scipy.stats import entropy

from rldp_models.errors import InputError
from rldp_models.utility import (FDivergence, MutualInformation, chi_square_divergence,
                                 kl_divergence, total_variation)

K = 4


def random_mechanism(rng: np.random.Generator, k: int, m: int) -> np.ndarray:
    Q = rng.random((k, m)) ** 3  # cubing makes some entries tiny
    Q[rng.random((k, m)) < 0.2] = 0.0
    Q[:, 0] += 1e-3  # no all-zero row
    return Q / Q.sum(axis=1, keepdims=True)


def mutual_information_from_entropies(prior: np.ndarray, Q: np.ndarray) -> float:
    """I(X;Y) = H(X) + H(Y) - H(X,Y), computed by scipy."""
    joint = prior[:, None] * Q
    return entropy(prior) + entropy(joint.sum(axis=0)) - entropy(joint.ravel())


# --- closed forms and library values ---------------------------------------------

def test_mutual_information_matches_entropy_identity() -> None:
    rng = np.random.default_rng(0)
    for _ in range(20):
        prior = rng.dirichlet(np.ones(K))
        Q = random_mechanism(rng, K, 6)
        mi = MutualInformation(prior)
        assert mi.total(Q) == pytest.approx(mutual_information_from_entropies(prior, Q),
                                            rel=1e-10, abs=1e-12)
        assert mi.total(Q) == pytest.approx(sum(mi(Q[:, y]) for y in range(6)), rel=1e-12)


def test_mutual_information_known_values() -> None:
    prior = np.array([0.5, 0.25, 0.125, 0.125])
    mi = MutualInformation(prior)
    assert mi.total(np.eye(K)) == pytest.approx(1.75 * np.log(2))  # H(X) = 1.75 bits
    assert mi.total(np.full((K, 3), 1 / 3)) == pytest.approx(0.0, abs=1e-15)
    # Binary symmetric channel, uniform input: I = log 2 - h(0.1).
    bsc = np.array([[0.9, 0.1], [0.1, 0.9]])
    h = -(0.9 * np.log(0.9) + 0.1 * np.log(0.1))
    assert MutualInformation([0.5, 0.5]).total(bsc) == pytest.approx(np.log(2) - h)


def test_mutual_information_zero_conventions() -> None:
    prior = np.array([0.0, 0.5, 0.5])
    mi = MutualInformation(prior)
    assert mi(np.zeros(3)) == 0.0
    assert mi(np.array([1.0, 0.0, 0.0])) == 0.0  # mass only where p_x = 0
    # q = (1, 1, 0): p.q = 0.5, mu = 0.5 * 1 * log(1/0.5) = 0.5 log 2
    assert mi(np.array([1.0, 1.0, 0.0])) == pytest.approx(0.5 * np.log(2))


def test_divergences_match_direct_formulas() -> None:
    rng = np.random.default_rng(1)
    for _ in range(20):
        p0, p1 = rng.dirichlet(np.ones(K), size=2)
        Q = random_mechanism(rng, K, 5)
        m0, m1 = p0 @ Q, p1 @ Q
        assert kl_divergence(p0, p1).total(Q) == pytest.approx(entropy(m0, m1), rel=1e-10)
        assert total_variation(p0, p1).total(Q) == pytest.approx(0.5 * np.abs(m0 - m1).sum())
        assert chi_square_divergence(p0, p1).total(Q) == pytest.approx(
            np.sum((m0 - m1) ** 2 / m1), rel=1e-10)


def test_identity_mechanism_gives_divergence_of_priors() -> None:
    p0, p1 = np.array([0.7, 0.2, 0.1]), np.array([0.2, 0.3, 0.5])
    expected = 0.7 * np.log(0.7 / 0.2) + 0.2 * np.log(0.2 / 0.3) + 0.1 * np.log(0.1 / 0.5)
    assert kl_divergence(p0, p1).total(np.eye(3)) == pytest.approx(expected)
    assert total_variation(p0, p1).total(np.eye(3)) == pytest.approx(0.5)


def test_general_f_agrees_with_builtins_including_zero_support() -> None:
    p0 = np.array([0.5, 0.5, 0.0])
    p1 = np.array([0.0, 0.5, 0.5])  # column (1, 0, 0) has p1.q = 0 < p0.q
    Q = np.array([[0.6, 0.4], [0.3, 0.7], [0.1, 0.9]])
    Q3 = np.eye(3)
    tv_general = FDivergence(p0, p1, lambda t: abs(t - 1) / 2, slope_at_infinity=0.5)
    kl_general = FDivergence(p0, p1, lambda t: t * np.log(t) if t > 0 else 0.0)
    for M in (Q, Q3):
        assert tv_general.total(M) == pytest.approx(total_variation(p0, p1).total(M))
        assert kl_general.total(M) == pytest.approx(kl_divergence(p0, p1).total(M))
    assert kl_general(np.array([1.0, 0.0, 0.0])) == np.inf
    assert chi_square_divergence(p0, p1)(np.array([1.0, 0.0, 0.0])) == np.inf
    assert tv_general(np.array([1.0, 0.0, 0.0])) == pytest.approx(0.25)


def test_data_processing_inequality() -> None:
    """Prop. 17: post-processing Q by a channel W never increases U."""
    rng = np.random.default_rng(2)
    for _ in range(10):
        prior, p1 = rng.dirichlet(np.ones(K), size=2)
        Q = random_mechanism(rng, K, 5)
        W = random_mechanism(rng, 5, 3)
        for utility in (MutualInformation(prior), kl_divergence(prior, p1),
                        total_variation(prior, p1), chi_square_divergence(prior, p1)):
            assert utility.total(Q @ W) <= utility.total(Q) + 1e-12


# --- input errors ----------------------------------------------------------------

def test_f_must_vanish_at_one() -> None:
    with pytest.raises(InputError, match="f\\(1\\) = 0"):
        FDivergence([0.5, 0.5], [0.3, 0.7], lambda t: t ** 2)


@pytest.mark.parametrize("prior", [[0.5, 0.6], [-0.1, 1.1], [[0.5, 0.5]], [np.nan, 1.0], []])
def test_bad_priors_rejected(prior: list) -> None:
    with pytest.raises(InputError):
        MutualInformation(prior)


def test_bad_columns_rejected() -> None:
    mi = MutualInformation([0.5, 0.5])
    with pytest.raises(InputError):
        mi([0.5, -0.1])
    with pytest.raises(InputError):
        mi([0.5, 0.2, 0.3])
    with pytest.raises(InputError):
        total_variation([0.5, 0.5], [0.2, 0.8]).total(np.ones((3, 2)))
    with pytest.raises(InputError):
        kl_divergence([0.5, 0.5], [0.2, 0.3, 0.5])


# --- sublinearity (Definition 1), property-based ----------------------------------

columns = arrays(np.float64, K, elements=st.floats(0.0, 1.0))
weights = arrays(np.float64, K, elements=st.floats(0.01, 1.0))
scales = st.floats(0.0, 100.0)


def utilities(w0: np.ndarray, w1: np.ndarray) -> list:
    p0, p1 = w0 / w0.sum(), w1 / w1.sum()
    hellinger = FDivergence(p0, p1, lambda t: (np.sqrt(t) - 1.0) ** 2, slope_at_infinity=1.0)
    return [MutualInformation(p0), kl_divergence(p0, p1), total_variation(p0, p1),
            chi_square_divergence(p0, p1), hellinger]


@settings(max_examples=60, deadline=None)
@given(w0=weights, w1=weights, q=columns, a=scales)
def test_positive_homogeneity(w0: np.ndarray, w1: np.ndarray, q: np.ndarray, a: float) -> None:
    for mu in utilities(w0, w1):
        assert mu(a * q) == pytest.approx(a * mu(q), rel=1e-9, abs=1e-12)


def test_tiny_columns_do_not_underflow() -> None:
    # p1 . q underflows to 0 for q = 5e-324 (the smallest subnormal) while p0 . q does not;
    # homogeneity says mu(q) = 5e-324 mu(1), which is finite (found by hypothesis in CI)
    w0, w1 = np.array([1.0, 0.25, 0.25, 0.25]), np.ones(4)
    for mu in utilities(w0, w1):
        assert mu(np.full(4, 5e-324)) == pytest.approx(5e-324 * mu(np.ones(4)), abs=1e-300)


@settings(max_examples=60, deadline=None)
@given(w0=weights, w1=weights, q1=columns, q2=columns)
def test_subadditivity(w0: np.ndarray, w1: np.ndarray, q1: np.ndarray, q2: np.ndarray) -> None:
    for mu in utilities(w0, w1):
        assert mu(q1 + q2) <= mu(q1) + mu(q2) + 1e-9 * (1.0 + abs(mu(q1)) + abs(mu(q2)))
