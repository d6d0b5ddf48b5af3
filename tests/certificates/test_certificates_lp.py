"""LP dual certificates of cone-LP mechanisms, against a second LP solver over the same rays."""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import linprog

from rldp_models import conelp
from rldp_models.conelp.exact_lp_dual import (
    check_lp_dual,
    corrected_dual,
    interval_utility,
    joint_cone_rays,
    outer_ratio,
    staircase_rays,
)
from rldp_models.utility import MutualInformation, kl_divergence


def _linprog_optimum(rays, mu) -> float:
    """``max sum theta_r mu(v_r)  s.t.  V theta = 1, theta >= 0`` by scipy's HiGHS wrapper.

    Rays are scaled to unit mass first (``mu`` is positively homogeneous).
    """
    masses = [sum(ray) for ray in rays]
    V = np.array([[float(x / m) for x in ray] for ray, m in zip(rays, masses)]).T
    values = [float(mu(ray).mid) / float(m) for ray, m in zip(rays, masses)]
    result = linprog(-np.asarray(values), A_eq=V, b_eq=np.ones(V.shape[0]), method="highs")
    assert result.status == 0
    return -result.fun


@pytest.mark.parametrize("eps", [0.0, 1e-6, 0.7, 5.0, 30.0])
def test_outer_ratio_is_the_least_double_not_below_e_to_the_eps(eps: float) -> None:
    ratio = outer_ratio(eps)
    with mpmath.workdps(80):
        exact = mpmath.exp(mpmath.mpf(eps))
        assert mpmath.mpf(ratio.numerator) / ratio.denominator >= exact
        below = math.nextafter(float(ratio), 0.0)
        assert mpmath.mpf(below) < exact


def test_staircase_rays_are_the_patterns() -> None:
    ratio = Fraction(3)
    rays = staircase_rays(4, ratio)
    assert len(rays) == 2**4 - 2 == len(set(rays))
    assert all(set(ray) == {1, 3} for ray in rays)
    assert staircase_rays(4, Fraction(1)) == [(1, 1, 1, 1)]


priors = st.lists(st.integers(0, 9), min_size=2, max_size=5).filter(lambda w: sum(w) > 0)


@settings(max_examples=6, deadline=None)
@given(weights=priors, eps=st.sampled_from([0.0, 0.3, 1.0, 12.0]))
def test_staircase_certificate_matches_a_second_lp_solver(weights: list[int], eps: float) -> None:
    """Zero-prior inputs, eps = 0 and large eps included; the bound is the LP optimum."""
    prior = np.array(weights, dtype=float) / sum(weights)
    result = conelp.staircase_mechanism(prior, eps, MutualInformation(prior))
    rays = staircase_rays(prior.size, outer_ratio(eps))
    mu = interval_utility("mi", {"prior": prior})
    dual = corrected_dual(result.solution.certificate.dual, rays, mu)
    check = check_lp_dual(dual, rays, mu, np.ones(prior.size), result.Q)
    assert check.feasible and check.holds, (check.violation, check.gap)
    optimum = _linprog_optimum(rays, mu)
    assert float(check.bound) >= optimum - 1e-9
    assert float(check.bound) <= optimum + 1e-7


def test_a_tampered_dual_is_rejected() -> None:
    prior = np.array([0.1, 0.2, 0.3, 0.4])
    result = conelp.staircase_mechanism(prior, 1.0, MutualInformation(prior))
    rays = staircase_rays(4, outer_ratio(1.0))
    mu = interval_utility("mi", {"prior": prior})
    dual = corrected_dual(result.solution.certificate.dual, rays, mu)
    assert check_lp_dual(dual, rays, mu, np.ones(4), result.Q).holds
    tampered = dual.copy()
    tampered[0] -= 1e-3
    check = check_lp_dual(tampered, rays, mu, np.ones(4), result.Q)
    assert not check.feasible and not check.holds
    lowered = dual - 1e-6  # feasible after correction, but the gap opens
    assert check_lp_dual(lowered, rays, mu, np.ones(4), result.Q).violation > 1e-9


def test_divergence_utility_and_secret_cone() -> None:
    p0, p1 = np.array([0.5, 0.3, 0.2]), np.array([0.2, 0.3, 0.5])
    result = conelp.staircase_mechanism(p0, 0.8, kl_divergence(p0, p1))
    rays = staircase_rays(3, outer_ratio(0.8))
    mu = interval_utility("kl", {"prior0": p0, "prior1": p1})
    dual = corrected_dual(result.solution.certificate.dual, rays, mu)
    assert check_lp_dual(dual, rays, mu, np.ones(3), result.Q).holds
    joint = np.array([[0.3, 0.1, 0.1, 0.0], [0.05, 0.2, 0.1, 0.15]])
    secret = conelp.ldp_wrt_secret_mechanism(joint, 1.0)
    rays = joint_cone_rays("ldp-wrt-secret", joint, outer_ratio(1.0))
    mu = interval_utility("mi", {"prior": joint.sum(axis=0)})
    dual = corrected_dual(secret.solution.certificate.dual, rays, mu)
    check = check_lp_dual(dual, rays, mu, np.ones(4), secret.Q)
    assert check.holds
    optimum = _linprog_optimum(rays, mu)
    assert abs(float(check.bound) - optimum) <= 1e-7
