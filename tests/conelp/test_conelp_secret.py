"""LDP w.r.t. a secret, LIP and SRLIP (privacy-funnel-ldp-lip.txt, Theorems 1-3).

Grounding: brute force over the whole-mechanism polytope (conelp_brute_force.py) for
small alphabets; the staircase LP when S = X; Lemma 1 and Lemma 2 orderings;
the posterior form of LIP against its mechanism form; privacy checked by
ratio checks written here (Definitions 1-3) and by rldp_models.privacy.
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pytest
from conelp_brute_force import mechanism_polytope_optimum

from rldp_models.conelp import (ConeLP, extreme_rays, inner_ratio, ldp_wrt_secret_mechanism,
                                lip_mechanism, srlip_mechanism, staircase_mechanism)
from rldp_models.errors import InputError
from rldp_models.privacy import (ldp_wrt_secret_epsilon, lip_epsilon, srlip_epsilon,
                                 srlip_epsilons)
from rldp_models.utility import KLDivergence, MutualInformation

RTOL = 1e-8  # the inward privacy margin costs about 2e-9 relative utility


def random_joint(rng: np.random.Generator, *shape: int) -> np.ndarray:
    p = rng.random(shape)
    return p / p.sum()


def channel(Q: np.ndarray, joint: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """P(Y=y | S=s) for secrets of positive mass, and P(Y=y)."""
    p_s = joint.sum(axis=1)
    keep = p_s > 0
    return (joint[keep] @ Q) / p_s[keep, None], joint.sum(axis=0) @ Q


def assert_ldp_wrt_secret(Q: np.ndarray, joint: np.ndarray, eps: float) -> None:
    """Definition 1: P(y|s) <= e^eps P(y|s') for all s, s', y."""
    given_s, _ = channel(Q, joint)
    assert np.all(given_s[:, None, :] <= np.exp(eps) * given_s[None, :, :])
    assert ldp_wrt_secret_epsilon(Q, joint) <= eps


def assert_lip(Q: np.ndarray, joint: np.ndarray, eps: float) -> None:
    """Definition 2: e^-eps P(y) <= P(y|s) <= e^eps P(y)."""
    given_s, p_y = channel(Q, joint)
    assert np.all(given_s <= np.exp(eps) * p_y)
    assert np.all(p_y <= np.exp(eps) * given_s)
    assert lip_epsilon(Q, joint) <= eps


def assert_stochastic(Q: np.ndarray) -> None:
    assert np.all(Q >= 0)
    np.testing.assert_allclose(Q.sum(axis=1), 1.0, atol=1e-12)


@pytest.mark.parametrize("eps", [0.0, 0.4, 1.0, 3.0])
def test_ldp_wrt_secret_equals_staircase_when_secret_is_data(eps: float) -> None:
    prior = np.random.default_rng(1).dirichlet(np.ones(5))
    assert ldp_wrt_secret_mechanism(np.diag(prior), eps).utility == pytest.approx(
        staircase_mechanism(prior, eps).utility, rel=RTOL, abs=1e-15)


@pytest.mark.parametrize("c", [2, 3])
@pytest.mark.parametrize("eps", [0.3, 1.2])
def test_ldp_wrt_secret_equals_brute_force(c: int, eps: float) -> None:
    joint = random_joint(np.random.default_rng(c * 7 + int(10 * eps)), c, 3)
    given_s = joint / joint.sum(axis=1, keepdims=True)
    rows = [np.exp(eps) * given_s[t] - given_s[s] for s in range(c) for t in range(c) if s != t]
    brute = mechanism_polytope_optimum(joint.sum(axis=0), np.array(rows), 4)
    assert ldp_wrt_secret_mechanism(joint, eps).utility == pytest.approx(brute, rel=RTOL)
    generated = ldp_wrt_secret_mechanism(joint, eps, method="column-generation")
    assert generated.utility == pytest.approx(brute, rel=RTOL)
    assert_ldp_wrt_secret(generated.Q, joint, eps)


def test_ldp_wrt_secret_method_choice() -> None:
    joint = random_joint(np.random.default_rng(4), 5, 12)  # 20 ratio rows: auto prices
    auto = ldp_wrt_secret_mechanism(joint, 1.0)
    assert auto.utility == pytest.approx(
        ldp_wrt_secret_mechanism(joint, 1.0, method="enumerate").utility, rel=RTOL)
    assert_ldp_wrt_secret(auto.Q, joint, 1.0)
    with pytest.raises(InputError, match="method"):
        ldp_wrt_secret_mechanism(joint, 1.0, method="simplex")
    with pytest.raises(InputError, match="mutual information"):
        ldp_wrt_secret_mechanism(joint, 1.0, utility=KLDivergence(joint[0] / joint[0].sum(),
                                                                   joint[1] / joint[1].sum()),
                                 method="column-generation")


@pytest.mark.parametrize("c", [2, 3])
@pytest.mark.parametrize("eps", [0.3, 1.2])
def test_lip_equals_brute_force(c: int, eps: float) -> None:
    joint = random_joint(np.random.default_rng(c * 11 + int(10 * eps)), c, 3)
    given_s = joint / joint.sum(axis=1, keepdims=True)
    p_x = joint.sum(axis=0)
    rows = [row for s in range(c)
            for row in (np.exp(eps) * p_x - given_s[s], np.exp(eps) * given_s[s] - p_x)]
    brute = mechanism_polytope_optimum(p_x, np.array(rows), 4)
    assert lip_mechanism(joint, eps).utility == pytest.approx(brute, rel=RTOL)


@pytest.mark.parametrize("eps", [0.0, 0.5, 1.0, 2.0])
def test_lemma_1_orderings_and_privacy(eps: float) -> None:
    """eps-LDP => eps-LIP => 2 eps-LDP (w.r.t. S), so the optima are ordered."""
    rng = np.random.default_rng(int(10 * eps))
    for c, a in ((2, 5), (3, 6)):
        joint = random_joint(rng, c, a)
        ldp = ldp_wrt_secret_mechanism(joint, eps)
        lip = lip_mechanism(joint, eps)
        assert lip.utility >= ldp.utility * (1 - RTOL) - 1e-15
        assert (ldp_wrt_secret_mechanism(joint, 2 * eps).utility
                >= lip.utility * (1 - RTOL) - 1e-15)
        for result in (ldp, lip):
            assert_stochastic(result.Q)
            assert result.solution.certificate.verified
            assert result.Q.shape[1] <= a
        if eps > 0:
            assert_ldp_wrt_secret(ldp.Q, joint, eps)
            assert_lip(lip.Q, joint, eps)


def test_lip_posterior_form_equals_mechanism_form() -> None:
    """Theorem 2's LP over the vertices of Delta (rhs p_X) against the cone of Q-columns (rhs 1)."""
    joint = random_joint(np.random.default_rng(2), 3, 6)
    eps = 0.7
    given_s = joint / joint.sum(axis=1, keepdims=True)
    p_x = joint.sum(axis=0)
    ratio = inner_ratio(eps)
    rows = np.vstack([ratio * given_s - p_x, ratio * p_x - given_s])
    mechanism_form = ConeLP.from_utility(extreme_rays(rows), MutualInformation(p_x),
                                         np.ones(6)).solve()
    assert lip_mechanism(joint, eps).utility == pytest.approx(mechanism_form.value, rel=1e-10)


def test_exact_double_description_gives_the_same_optimum() -> None:
    joint = random_joint(np.random.default_rng(3), 3, 5)
    for eps in (0.0, 0.8):
        for solve in (ldp_wrt_secret_mechanism, lip_mechanism):
            exact = solve(joint, eps, method="exact")
            assert exact.solution.certificate.verified
            assert exact.utility == pytest.approx(solve(joint, eps, method="float").utility,
                                                  rel=1e-10, abs=1e-14)


def test_inputs_and_secrets_of_zero_probability() -> None:
    joint = random_joint(np.random.default_rng(4), 3, 5)
    joint[:, 2] = 0.0  # an input that never occurs
    joint[1] = 0.0  # a secret that never occurs
    joint /= joint.sum()
    for solve, check in ((ldp_wrt_secret_mechanism, assert_ldp_wrt_secret),
                         (lip_mechanism, assert_lip)):
        result = solve(joint, 0.6)
        assert_stochastic(result.Q)
        check(result.Q, joint, 0.6)
        assert result.solution.certificate.verified


def srlip_levels(Q: np.ndarray, joint: np.ndarray) -> float:
    """The SRLIP level of Definition 3, eq. (12), over every J and x^J (written here)."""
    c, *sizes = joint.shape
    m = len(sizes)
    flat = joint.reshape(c, -1)
    coordinates = np.array(list(itertools.product(*(range(n) for n in sizes))))
    worst = 0.0
    for size in range(m + 1):
        for J in itertools.combinations(range(m), size):
            for value in itertools.product(*(range(sizes[j]) for j in J)):
                mask = np.all(coordinates[:, list(J)] == value, axis=1) if J else np.ones(
                    len(coordinates), bool)
                sub = flat * mask
                p_s = sub.sum(axis=1)
                p_y = sub.sum(axis=0) @ Q
                given = (sub[p_s > 0] @ Q) / p_s[p_s > 0, None]
                total = sub.sum()
                if total == 0:
                    continue
                ratio = given[:, p_y > 0] / (p_y[p_y > 0] / total)
                worst = max(worst, float(np.abs(np.log(ratio)).max()))
    return worst


@pytest.mark.parametrize("split", [None, (0.2, 0.5, 0.3)])
def test_srlip_product_meets_definition_3(split: tuple[float, ...] | None) -> None:
    joint = random_joint(np.random.default_rng(5), 2, 3, 3, 4)
    eps = 1.0
    result = srlip_mechanism(joint, eps, split)
    assert result.split == (split or (eps / 3,) * 3)
    assert_stochastic(result.Q)
    assert srlip_levels(result.Q, joint) <= eps
    flat = joint.reshape(2, -1)
    assert srlip_epsilon(result.Q, flat, (3, 3, 4)) <= eps
    assert np.all(srlip_epsilons([m.Q for m in result.attributes], flat)
                  <= np.array(result.split))
    assert all(m.solution.certificate.verified for m in result.attributes)
    assert result.utility == pytest.approx(MutualInformation(flat.sum(axis=0)).total(result.Q))
    # Lemma 2: SRLIP implies LIP, so no SRLIP protocol beats the LIP optimum.
    assert result.utility <= lip_mechanism(flat, eps).utility * (1 + RTOL)


def test_srlip_with_one_attribute_is_lip_in_mechanism_form() -> None:
    joint = random_joint(np.random.default_rng(6), 2, 5)
    for eps in (0.3, 1.5):
        assert srlip_mechanism(joint, eps).utility == pytest.approx(
            lip_mechanism(joint, eps).utility, rel=1e-10)


def test_srlip_split_validation() -> None:
    joint = random_joint(np.random.default_rng(7), 2, 2, 3)
    with pytest.raises(InputError):
        srlip_mechanism(joint, 1.0, (0.6, 0.6))
    with pytest.raises(InputError):
        srlip_mechanism(joint, 1.0, (1.0,))
    with pytest.raises(InputError):
        srlip_mechanism(joint, 1.0, (-0.1, 0.5))


def test_bad_joint_distributions() -> None:
    with pytest.raises(InputError):
        lip_mechanism(np.array([0.5, 0.5]), 1.0)
    with pytest.raises(InputError):
        ldp_wrt_secret_mechanism(np.array([[0.5, 0.6], [0.0, 0.0]]), 1.0)
    with pytest.raises(InputError):
        lip_mechanism(np.array([[0.5, -0.1], [0.3, 0.3]]), 1.0)
    with pytest.raises(InputError):
        ldp_wrt_secret_mechanism(np.array([[0.5, 0.5]]), float("nan"))


def test_exact_rows_keep_eps_zero_consistent() -> None:
    """With three secrets at eps = 0, q = 1 must stay in the cone (rows built exactly).

    The LP then finds a mechanism of positive utility; its conditionals agree
    only to rounding, so the exact check sends it to the one-output mechanism.
    """
    joint = random_joint(np.random.default_rng(8), 3, 6)
    result = ldp_wrt_secret_mechanism(joint, 0.0, method="exact")
    given_s, _ = channel(result.solution.columns, joint)
    np.testing.assert_allclose(given_s - given_s[0], 0.0, atol=1e-14)
    assert result.solution.value > 0 and result.repair.value_before > 0
    assert result.repair.method == "fallback" and result.certification.holds
    assert Fraction(inner_ratio(0.0)) == 1


def test_eps_zero_column_generation_master_is_feasible() -> None:
    """5 secrets x 11 inputs at eps 0 (column generation): the seed holds ``1``, so the master
    is feasible; its optimum equals the one over all rays enumerated by double description,
    and its certificate holds. (Before, the master LP was Infeasible: the rows are 0 on ``1``
    exactly but about -3e-17 in doubles, and ``1`` was left out of the seed.)"""
    counts = np.random.default_rng(2).integers(1, 60, size=(5, 11)).astype(float)
    joint = counts / counts.sum()
    generated = ldp_wrt_secret_mechanism(joint, 0.0, method="column-generation")
    enumerated = ldp_wrt_secret_mechanism(joint, 0.0, method="enumerate")
    assert generated.solution.certificate.verified
    assert generated.solution.value > 0.5  # the one-output mechanism has 0
    assert generated.solution.value == pytest.approx(enumerated.solution.value, abs=1e-8)
