"""Estimators against exact recovery, an independent solver, KKT conditions and asymptotic theory.

The accuracy tests compare errors with the covariance computed from the
channel: the inverse Fisher information on the simplex (the asymptotic
covariance of the maximum-likelihood estimate that EM converges to), which
for an invertible square channel equals the covariance of the inversion
estimator ``Q^-T f`` (checked below). With that covariance ``C``, the error
``e`` of one estimate (last coordinate dropped, as coordinates sum to 0) has
``e^T C^-1 e`` approximately chi-square with ``k - 1`` degrees of freedom;
the seeds are fixed and each threshold is a 0.999 quantile, so a correct
estimator fails a test with probability about 1e-3.
"""

from __future__ import annotations

import cvxpy as cp
import numpy as np
import pytest
from scipy.stats import chi2

from rldp_models.errors import InputError
from rldp_models.estimators import (EMNotConverged, em_estimate, empirical_estimate,
                                    fisher_covariance, inversion_covariance, output_frequencies,
                                    project_to_simplex)
from rldp_models.mechanisms import (Mechanism, RandomizedResponse, UnaryEncoding,
                                    UtilityOptimizedRAPPOR, UtilityOptimizedRR)

PRIOR = np.array([0.35, 0.25, 0.2, 0.12, 0.08])
N = 100_000
MECHANISMS = {
    "rr": RandomizedResponse(1.0, 5),
    "urr": UtilityOptimizedRR(1.0, [True, True, False, False, False]),
    "oue": UnaryEncoding.from_setting("optimized", 1.0, 5),
    "urap": UtilityOptimizedRAPPOR(1.0, [True, True, False, False, False]),
}


def mahalanobis(error: np.ndarray, covariance: np.ndarray) -> float:
    e, C = error[:-1], covariance[:-1, :-1]
    return float(e @ np.linalg.solve(C, e))


# --- empirical inversion -----------------------------------------------------------------

@pytest.mark.parametrize("name", MECHANISMS)
@pytest.mark.parametrize("correction", ["project", "clip", "none"])
def test_inversion_is_exact_on_noise_free_frequencies(name: str, correction: str) -> None:
    Q = MECHANISMS[name].matrix()
    np.testing.assert_allclose(empirical_estimate(Q, PRIOR @ Q, correction), PRIOR, atol=1e-12)


def test_corrections_on_a_negative_solution() -> None:
    Q = RandomizedResponse(0.5, 3).matrix()
    raw = np.array([0.7, 0.4, -0.1])
    f = raw @ Q
    np.testing.assert_allclose(empirical_estimate(Q, f, "none"), raw, atol=1e-12)
    np.testing.assert_allclose(empirical_estimate(Q, f, "clip"), [0.7 / 1.1, 0.4 / 1.1, 0],
                               atol=1e-12)
    np.testing.assert_allclose(empirical_estimate(Q, 1000 * f, "project"), [0.65, 0.35, 0],
                               atol=1e-12)


def test_projection_matches_a_convex_solver() -> None:
    rng = np.random.default_rng(0)
    for _ in range(10):
        v = rng.normal(size=6)
        p = cp.Variable(6)
        cp.Problem(cp.Minimize(cp.sum_squares(p - v)), [p >= 0, cp.sum(p) == 1]).solve()
        np.testing.assert_allclose(project_to_simplex(v), p.value, atol=1e-6)
    np.testing.assert_array_equal(project_to_simplex([0.2, 0.3, 0.5]), [0.2, 0.3, 0.5])


def test_raw_inversion_is_unbiased_with_the_predicted_covariance() -> None:
    Q = MECHANISMS["rr"].matrix()
    rng = np.random.default_rng(1)
    replicates = 400
    covariance = inversion_covariance(Q, PRIOR, N)
    estimates = [empirical_estimate(Q, rng.multinomial(N, PRIOR @ Q), "none")
                 for _ in range(replicates)]
    statistic = sum(mahalanobis(estimate - PRIOR, covariance) for estimate in estimates)
    dof = replicates * (PRIOR.size - 1)
    assert chi2.ppf(5e-4, dof) < statistic < chi2.ppf(1 - 5e-4, dof)


# --- EM -------------------------------------------------------------------------------------

def test_fisher_covariance_equals_inversion_covariance_for_square_channels() -> None:
    for name in ("rr", "urr"):
        Q = MECHANISMS[name].matrix()
        np.testing.assert_allclose(fisher_covariance(Q, PRIOR, N),
                                   inversion_covariance(Q, PRIOR, N), rtol=1e-9, atol=1e-18)


@pytest.mark.parametrize("name", MECHANISMS)
def test_em_recovers_the_distribution_from_1e5_samples(name: str) -> None:
    mechanism: Mechanism = MECHANISMS[name]
    Q = mechanism.matrix()
    rng = np.random.default_rng(2024)
    x = rng.choice(PRIOR.size, size=N, p=PRIOR)
    result = em_estimate(Q, output_frequencies(mechanism.sample(x, rng), Q.shape[1]))
    assert result.converged
    covariance = fisher_covariance(Q, PRIOR, N)
    assert mahalanobis(result.estimate - PRIOR, covariance) < chi2.ppf(0.999, PRIOR.size - 1)
    assert np.all(np.abs(result.estimate - PRIOR) < 3.3 * np.sqrt(np.diag(covariance)))


@pytest.mark.parametrize("name", ["rr", "oue"])
def test_em_error_distribution_over_replicates(name: str) -> None:
    """200 estimates: the summed statistic is chi-square with 200 (k-1) degrees of freedom."""
    Q = MECHANISMS[name].matrix()
    rng = np.random.default_rng(7)
    covariance = fisher_covariance(Q, PRIOR, N)
    replicates = 200
    statistic = sum(mahalanobis(em_estimate(Q, rng.multinomial(N, PRIOR @ Q)).estimate - PRIOR,
                                covariance) for _ in range(replicates))
    dof = replicates * (PRIOR.size - 1)
    assert chi2.ppf(5e-4, dof) < statistic < chi2.ppf(1 - 5e-4, dof)


def test_em_equals_inversion_when_inversion_is_interior() -> None:
    Q = MECHANISMS["rr"].matrix()
    counts = np.random.default_rng(3).multinomial(N, PRIOR @ Q)
    inverse = empirical_estimate(Q, counts, "none")
    assert np.all(inverse > 0)
    np.testing.assert_allclose(em_estimate(Q, counts, tol=1e-13).estimate, inverse, atol=1e-8)


def test_em_satisfies_the_likelihood_kkt_conditions_on_the_boundary() -> None:
    """At the simplex MLE, g_x = sum_y f_y Q[x,y] / (pQ)_y is 1 if p_x > 0 and <= 1 if p_x = 0."""
    Q = RandomizedResponse(0.5, 4).matrix()
    truth = np.array([0.5, 0.5, 0.0, 0.0])
    counts = np.random.default_rng(4).multinomial(300, truth @ Q)
    result = em_estimate(Q, counts, tol=1e-14, max_iter=1_000_000)
    assert result.converged
    p = result.estimate
    gradient = Q @ (counts / counts.sum() / (p @ Q))
    support = p > 1e-6
    assert not support.all()  # the MLE lies on the boundary here
    np.testing.assert_allclose(gradient[support], 1.0, atol=1e-6)
    assert np.all(gradient[~support] <= 1 + 1e-6)


def test_em_reports_iterations_and_non_convergence() -> None:
    Q = MECHANISMS["oue"].matrix()
    f = PRIOR @ Q
    with pytest.warns(EMNotConverged, match="without converging"):
        stopped = em_estimate(Q, f, max_iter=3)
    assert stopped == (stopped.estimate, 3, False)
    assert stopped.estimate.sum() == pytest.approx(1.0)
    full = em_estimate(Q, f)
    assert full.converged and full.iterations > 3


def test_bad_inputs_raise() -> None:
    Q = RandomizedResponse(1.0, 3).matrix()
    with pytest.raises(InputError):
        empirical_estimate(Q, [1, 2])
    with pytest.raises(InputError):
        empirical_estimate(Q, [0, 0, 0])
    with pytest.raises(InputError):
        empirical_estimate(Q, [1, 2, 3], correction="round")
    with pytest.raises(InputError):
        em_estimate(np.array([[1.0, 0.0], [1.0, 0.0]]), [3, 1])
    with pytest.raises(InputError):
        em_estimate(Q, [1, 2, 3], tol=0)
    with pytest.raises(InputError):
        output_frequencies([0, 3], 3)
    np.testing.assert_array_equal(output_frequencies([0, 2, 2, 1], 3), [0.25, 0.25, 0.5])
