"""The independent certificate check against brute force over all 2^k - 2 patterns.

Grounding: the brute force writes out every pattern and evaluates the utility
by its own ``columns``; the cutting-plane MILP must agree with it on accepted
certificates and on perturbed duals, and a violation it reports must be the
value of an actual pattern.
"""

from __future__ import annotations

import numpy as np
import pytest

from rldp_models.conelp import inner_ratio, staircase_mechanism
from rldp_models.conelp.certificate_check import check_certificate, check_staircase_dual
from rldp_models.conelp.rays import StaircaseRays
from rldp_models.errors import InputError
from rldp_models.utility import KLDivergence, MutualInformation


def worst_ratio(dual: np.ndarray, utility: MutualInformation, ratio: float) -> float:
    rays = StaircaseRays(dual.size, ratio)
    patterns = rays.columns(np.arange(rays.count))
    return float(((utility.columns(patterns) - patterns.T @ dual) / patterns.sum(axis=0)).max())


@pytest.mark.parametrize("method", ["column-generation", "enumerate"])
def test_both_checks_accept_the_certificate_and_reject_a_perturbed_dual(method: str) -> None:
    k, eps = 7, 1.0
    prior = np.random.default_rng(7).dirichlet(np.ones(k))
    utility, ratio = MutualInformation(prior), inner_ratio(eps)
    solution = staircase_mechanism(prior, eps, method=method).solution
    for check in ("brute-force", "milp"):
        assert check_certificate(solution, utility, ratio, method=check).accepted
    dual = solution.certificate.dual.copy()
    dual[2] -= 1e-3
    exact = worst_ratio(dual, utility, ratio)
    assert exact > 1e-9
    brute = check_staircase_dual(dual, utility, ratio, method="brute-force")
    milp = check_staircase_dual(dual, utility, ratio, method="milp")
    assert not brute.accepted and not milp.accepted
    assert brute.bound == pytest.approx(exact - 1e-9, rel=1e-12)
    # the MILP's violation is N - tol D at one real pattern: at most the best, per unit mass
    assert 0 < milp.bound / (k + (ratio - 1) * (k - 1)) <= exact


def test_milp_accepts_a_strictly_feasible_dual_at_k_40() -> None:
    k = 40
    utility = MutualInformation(np.random.default_rng(40).dirichlet(np.ones(k)))
    ratio = inner_ratio(1.0)
    # lam = mu(1 + (r-1) 1_A) bounds: max_A g(P(A)) <= max_t g(t); spread it over the mass
    t = np.linspace(0, 1, 10_001)
    top = (ratio * np.log(ratio) * t - (1 + (ratio - 1) * t) * np.log1p((ratio - 1) * t)).max()
    dual = np.full(k, top / k + 1e-6)
    result = check_staircase_dual(dual, utility, ratio)
    assert result.method == "milp" and result.accepted


def test_bad_requests() -> None:
    with pytest.raises(InputError):
        check_staircase_dual(np.zeros(17), MutualInformation(np.full(17, 1 / 17)), 2.0,
                             method="brute-force")
    with pytest.raises(InputError):
        check_staircase_dual(np.zeros(20), KLDivergence(np.full(20, 0.05), np.full(20, 0.05)),
                             2.0)


def test_a_milp_stopped_at_its_round_limit_is_undecided(monkeypatch) -> None:
    """Two first tangents overestimate the pattern utility, so one round neither proves a
    feasible dual (checked by brute force here) nor finds a violating pattern."""
    from rldp_models.conelp import certificate_check

    k, eps = 7, 1.0
    prior = np.random.default_rng(7).dirichlet(np.ones(k))
    utility, ratio = MutualInformation(prior), inner_ratio(eps)
    dual = staircase_mechanism(prior, eps).solution.certificate.dual + 1e-6
    assert worst_ratio(dual, utility, ratio) < 0
    monkeypatch.setattr(certificate_check, "INITIAL_TANGENTS", 2)
    monkeypatch.setattr(certificate_check, "MAX_CUT_ROUNDS", 1)
    result = check_staircase_dual(dual, utility, ratio, method="milp")
    assert (result.accepted, result.decided, result.rounds) == (False, False, 1)
    monkeypatch.setattr(certificate_check, "MAX_CUT_ROUNDS", 400)
    again = check_staircase_dual(dual, utility, ratio, method="milp")
    assert again.decided and again.accepted
