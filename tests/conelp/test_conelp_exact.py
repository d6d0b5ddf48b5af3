"""Every cone-LP mechanism meets its stated guarantee exactly, repaired if it had to be.

Grounding: the exact certifiers of :mod:`rldp_models.privacy.matrix_checks`
(independent of the solver) on random small instances with zero cells,
inputs and secrets of zero mass; for SRLIP's per-attribute conditions
(15)-(16) of ``privacy-funnel-ldp-lip.txt`` a brute force in rationals
written here. A forced violation (the LP solved for a cone just outside the
stated one) must be repaired by mixing with the uniform mechanism, and every
reported utility must be ``U`` of the returned ``Q``.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from fractions import Fraction

import numpy as np
import pytest

from rldp_models.conelp import (ConeLP, OptimalMechanism, ldp_wrt_secret_mechanism,
                                lip_mechanism, srlip_mechanism, staircase_mechanism)
from rldp_models.conelp import lip, secret_ldp, srlip, staircase  # modules, to patch
from rldp_models.conelp.cones import pairwise_ratio_rows
from rldp_models.conelp.exact_dd import exact_extreme_rays
from rldp_models.errors import InputError
from rldp_models.privacy import (certify_ldp, certify_ldp_wrt_secret, certify_lip,
                                 certify_srlip)
from rldp_models.exact import compare_with_exp
from rldp_models.utility import MutualInformation

EPSILONS = [0.0, 1e-8, 0.1, 1.0, 5.0, 20.0]
SIZES = (2, 3)
"""Attribute sizes of the SRLIP instances."""

OUTWARD = 1e-7
"""A forced violation: the LP's cone uses ``e^eps (1 + OUTWARD)`` instead of an inner ratio."""


def random_joint(rng: np.random.Generator, c: int, *sizes: int) -> np.ndarray:
    """``P(S, X)`` with zero cells, often an input and sometimes a secret of zero mass."""
    shape = (c, *sizes)
    p = rng.random(shape) * (rng.random(shape) > 0.3)
    flat = p.reshape(c, -1)
    if rng.random() < 0.6:
        flat[:, rng.integers(flat.shape[1])] = 0.0
    if c > 1 and rng.random() < 0.3:
        flat[rng.integers(c)] = 0.0
    flat[rng.integers(c), rng.integers(flat.shape[1])] += 0.1
    return p / p.sum()


def instances(seed: int, count: int = 3) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [random_joint(rng, int(rng.integers(1, 4)), int(rng.integers(2, 6)))
            for _ in range(count)]


def assert_reported(result: OptimalMechanism, utility: MutualInformation) -> None:
    """The utility and repair record describe the returned ``Q``."""
    repair = result.repair
    assert result.certification.holds
    assert result.utility == repair.value_after == float(np.sum(utility.columns(result.Q)))
    assert repair.method in ("none", "mix", "fallback")
    if repair.method == "none":
        assert repair.weight == 0.0 and repair.value_before == repair.value_after
    elif repair.method == "fallback":
        assert repair.weight == 1.0 and np.array_equal(result.Q, np.ones((result.Q.shape[0], 1)))
    else:
        assert 0.0 < repair.weight < 1.0


@pytest.mark.parametrize("eps", EPSILONS)
def test_staircase_certifies(eps: float) -> None:
    for joint in instances(1):
        prior = joint.sum(axis=0)
        result = staircase_mechanism(prior, eps)
        assert certify_ldp(result.Q, eps).holds
        assert_reported(result, MutualInformation(prior))


@pytest.mark.parametrize("eps", EPSILONS)
@pytest.mark.parametrize("solve, certify", [(ldp_wrt_secret_mechanism, certify_ldp_wrt_secret),
                                            (lip_mechanism, certify_lip)])
def test_secret_notions_certify(solve: Callable[..., OptimalMechanism], certify: Callable,
                                eps: float) -> None:
    for joint in instances(2):
        result = solve(joint, eps)
        assert certify(result.Q, joint, eps).holds
        assert_reported(result, MutualInformation(joint.sum(axis=0)))


def test_eps_zero_with_two_secrets_falls_back_to_one_output() -> None:
    """The LP's conditionals agree only to rounding; generic doubles allow no exact equality."""
    joint = random_joint(np.random.default_rng(3), 2, 5)
    joint[1, 0] += 0.2
    joint /= joint.sum()
    for solve in (ldp_wrt_secret_mechanism, lip_mechanism):
        result = solve(joint, 0.0)
        assert result.repair.method == "fallback" and result.repair.value_before > 1e-3
        assert result.Q.shape == (5, 1)


def attribute_conditions_hold(Q_j: np.ndarray, joint: np.ndarray, j: int, eps: float) -> bool:
    """(15)-(16): ``e^-eps <= P(y|s, x^J) / P(y|x^J) <= e^eps`` for ``Q^j``, in rationals."""
    c, sizes = joint.shape[0], joint.shape[1:]
    p = {index: Fraction(value) for index, value in np.ndenumerate(joint)}
    q = [[Fraction(value) for value in row] for row in Q_j.tolist()]
    others = [i for i in range(len(sizes)) if i != j]
    for size in range(len(others) + 1):
        for J in itertools.combinations(others, size):
            for value in itertools.product(*(range(sizes[i]) for i in J)):
                inputs = [x for x in np.ndindex(*sizes) if all(x[i] == v for i, v in zip(J, value))]
                mass = [sum(p[(s, *x)] for x in inputs) for s in range(c)]
                for y in range(Q_j.shape[1]):
                    joint_y = [sum(p[(s, *x)] * q[x[j]][y] for x in inputs) for s in range(c)]
                    for s in range(c):
                        if mass[s] == 0 or sum(joint_y) == 0:
                            continue
                        ratio = joint_y[s] * sum(mass) / (mass[s] * sum(joint_y))
                        if ratio == 0 or compare_with_exp(max(ratio, 1 / ratio), eps) > 0:
                            return False
    return True


@pytest.mark.parametrize("eps", EPSILONS)
def test_srlip_attributes_and_product_certify(eps: float) -> None:
    rng = np.random.default_rng(4)
    for _ in range(2):
        joint = random_joint(rng, int(rng.integers(1, 4)), *SIZES)
        flat = joint.reshape(joint.shape[0], -1)
        result = srlip_mechanism(joint, eps)
        assert certify_srlip(result.Q, flat, SIZES, eps).holds and result.certification.holds
        assert result.utility == result.repair.value_after == MutualInformation(
            flat.sum(axis=0)).total(result.Q)
        for j, attribute in enumerate(result.attributes):
            assert attribute_conditions_hold(attribute.Q, joint, j, result.split[j])
            prior = joint.sum(axis=tuple(a for a in range(joint.ndim) if a != 1 + j))
            assert_reported(attribute, MutualInformation(prior))


def test_srlip_product_is_repaired_when_theorem_3_does_not_carry_over() -> None:
    """With zero cells the attributes' conditions hold but the product exceeds eps.

    Pairs with ``P(s, x^J) = 0`` constrain nothing, and then the product of
    two 0.5-LIP attributes has SRLIP level 1.12 here; its exact check fails and
    the mix restores eps = 1.
    """
    joint = np.array([[[0.0, 0.0, 0.0], [0.0, 0.0, 0.03217891]],
                      [[0.27083092, 0.222876, 0.15144851], [0.12861439, 0.0, 0.19405126]]])
    joint /= joint.sum()
    result = srlip_mechanism(joint, 1.0)
    assert all(attribute.repair.method == "none" for attribute in result.attributes)
    assert result.repair.method == "mix" and 0 < result.repair.weight < 0.2
    assert certify_srlip(result.Q, joint.reshape(2, -1), SIZES, 1.0).holds
    assert result.repair.value_after < result.repair.value_before


@pytest.fixture
def outward(monkeypatch: pytest.MonkeyPatch) -> list[np.ndarray]:
    """Cone LPs solved for ``e^eps (1 + OUTWARD)``, just outside the stated cone; their columns.

    Wherever a privacy constraint is tight at the LP's optimum, its mechanism
    then misses the stated guarantee by a hair.
    """
    for module in (staircase, secret_ldp, lip, srlip):
        monkeypatch.setattr(module, "inner_ratio", lambda eps: math.exp(eps) * (1.0 + OUTWARD))
    solve, solved = ConeLP.solve, []

    def recorded(self: ConeLP, *args, **kwargs):
        solution = solve(self, *args, **kwargs)
        solved.append(solution.columns)
        return solution

    monkeypatch.setattr(ConeLP, "solve", recorded)
    return solved


@pytest.mark.parametrize("eps", [0.1, 0.5, 1.0])
def test_forced_violation_is_repaired_and_certified(outward: list[np.ndarray],
                                                    eps: float) -> None:
    """S and X so dependent that revealing X breaks all three notions at these eps."""
    joint = np.array([[0.3, 0.15, 0.03, 0.02], [0.02, 0.03, 0.15, 0.3]])
    prior = joint.sum(axis=0)
    utility = MutualInformation(prior)
    checks = [(staircase_mechanism(prior, eps), lambda Q: certify_ldp(Q, eps)),
              (ldp_wrt_secret_mechanism(joint, eps),
               lambda Q: certify_ldp_wrt_secret(Q, joint, eps)),
              (lip_mechanism(joint, eps), lambda Q: certify_lip(Q, joint, eps))]
    solved = [outward[0], outward[1], outward[2] / prior[:, None]]  # LIP's LP is in joint form
    for (result, certify), before in zip(checks, solved):
        assert not certify(before).holds
        assert result.repair.method == "mix" and result.repair.weight < 1e-5
        assert certify(result.Q).holds
        assert result.repair.value_before == pytest.approx(utility.total(before), abs=1e-15)
        assert_reported(result, utility)


def test_forced_violation_of_srlip_attributes_is_repaired(outward: list[np.ndarray]) -> None:
    joint = np.random.default_rng(6).random((2, *SIZES)) + 0.05  # full support
    joint /= joint.sum()
    result = srlip_mechanism(joint, 1.0)
    assert [attribute.repair.method for attribute in result.attributes] == ["mix"] * 2
    for j, attribute in enumerate(result.attributes):
        assert attribute.repair.weight < 1e-5
        assert attribute_conditions_hold(attribute.Q, joint, j, result.split[j])
    assert certify_srlip(result.Q, joint.reshape(2, -1), SIZES, 1.0).holds


def test_exact_double_description_gives_up_past_its_ray_cap() -> None:
    """The LDP cone on 4 inputs has the 2^4 - 2 = 14 staircase patterns as rays (Theorem 2 of
    extremal-mechanisms-ldp.txt); capped below that, the enumeration refuses instead."""
    rows = [list(row) for row in pairwise_ratio_rows(np.eye(4, dtype=object) * Fraction(1),
                                                     Fraction(2))]
    assert len(exact_extreme_rays(rows, 4)) == 14
    assert len(exact_extreme_rays(rows, 4, max_rays=14)) == 14
    with pytest.raises(InputError, match="more than 5 rays"):
        exact_extreme_rays(rows, 4, max_rays=5)
