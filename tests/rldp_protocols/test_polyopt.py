"""PolyOpt (Theorems 11-12) against independent references.

Grounding: Gamma's vertices and the LP (47) are recomputed by brute force
(:mod:`polyopt_brute_force`, numpy + scipy.linprog, no package code);
privacy by :func:`worst_case_epsilon`; the robust bound ``L`` against a
direct scipy minimisation of ``I_P(X;Y)`` over ``F``; GRR and SRR by their
closed forms.
"""

from __future__ import annotations

from functools import lru_cache

import mpmath
import numpy as np
import pytest
from polyopt_brute_force import (eq44_matrix, gamma_polytope_vertices, lemma9_min,
                                 mutual_information, ray_lp_value)
from scipy.optimize import linprog, minimize
from scipy.stats import chi2

from rldp_models.data import Crosstab
from rldp_models.errors import InputError
from rldp_models.datasets import jeffreys_instance
from rldp_models.mechanisms import SecretRandomizedResponse, randomized_response
from rldp_models.privacy.worst_case import worst_case_epsilon
from rldp_models.rldp_protocols import polyopt_protocol
from rldp_models.conelp.polyopt_gamma import conditional_bounds, eq44_rows
from rldp_models.uncertainty.chi_square import ChiSquareSet

SMALL = {"2x2": [[30, 10], [15, 45]], "2x3": [[30, 10, 5], [15, 45, 20]]}


@lru_cache(maxsize=None)
def jeffreys(n_s: int, n_u: int, seed: int = 0) -> Crosstab:
    return jeffreys_instance(n_s, n_u, 1000, seed=seed).crosstab


@lru_cache(maxsize=None)
def solved(n_s: int, n_u: int, eps: float):
    return polyopt_protocol(jeffreys(n_s, n_u), eps, 0.05)


@pytest.mark.parametrize("name", sorted(SMALL))
@pytest.mark.parametrize("eps", [0.2, 2.0, 8.0])
def test_value_equals_brute_force_enumeration(name: str, eps: float) -> None:
    counts = np.array(SMALL[name])
    result = polyopt_protocol(Crosstab.from_array(counts), eps)
    vertices = gamma_polytope_vertices(lemma9_min(counts, 0.05), np.exp(eps))
    reference = ray_lp_value(vertices, (counts / counts.sum()).ravel())
    assert result.utility_hat == pytest.approx(reference, rel=1e-7, abs=1e-9)
    assert result.certificate.upper_bound >= reference - 1e-9
    assert result.certificate.max_violation <= 1e-9


@pytest.mark.parametrize("name", sorted(SMALL))
@pytest.mark.parametrize("eps", [0.2, 8.0])
def test_column_generation_equals_brute_force_enumeration(name: str, eps: float) -> None:
    counts = np.array(SMALL[name])
    result = polyopt_protocol(Crosstab.from_array(counts), eps, method="column-generation")
    vertices = gamma_polytope_vertices(lemma9_min(counts, 0.05), np.exp(eps))
    reference = ray_lp_value(vertices, (counts / counts.sum()).ravel())
    assert result.method == "column-generation" and result.certificate.verified
    assert result.utility_hat == pytest.approx(reference, rel=1e-7, abs=1e-9)
    assert result.certificate.upper_bound >= reference - 1e-9
    assert result.rldp_certified_eps <= eps and result.rldp_certified_eps_q2 <= eps
    assert 0 < result.lower_bound <= result.utility_hat


def test_unknown_method_is_rejected() -> None:
    with pytest.raises(InputError, match="method"):
        polyopt_protocol(Crosstab.from_array(SMALL["2x2"]), 1.0, method="simplex")


def test_safe_bounds_enclose_lemma9() -> None:
    """The package's P^min lies below eq. (36) evaluated at 50 digits, and within 1e-12."""
    counts = np.array(SMALL["2x3"])
    F = ChiSquareSet.from_counts(counts, 0.05)
    lower, _ = conditional_bounds(F)
    mpmath.mp.dps = 50
    b = mpmath.mpf(F.radius)
    for s, row in enumerate(counts):
        ps = mpmath.mpf(int(row.sum())) / int(counts.sum())
        bs = (mpmath.sqrt(b + 1) + ps - 1) ** 2 / ps**2 - 1
        for u, c in enumerate(row):
            q = mpmath.mpf(int(c)) / int(row.sum())
            exact = (bs + 2 * q - mpmath.sqrt(bs**2 + 4 * bs * q - 4 * bs * q**2)) / (2 * bs + 2)
            assert lower[s, u] <= exact and float(exact) - lower[s, u] <= 1e-12


def test_rows_are_eq44_for_distinct_secrets() -> None:
    counts = np.array(SMALL["2x3"])
    pmin = lemma9_min(counts, 0.05)
    ours = eq44_rows(pmin, np.exp(1.0))
    assert np.allclose(np.sort(ours, axis=0), np.sort(-eq44_matrix(pmin, np.exp(1.0)), axis=0))


@pytest.mark.parametrize("eps", [0.5, 2.0, 5.0])
def test_beats_grr_and_srr(eps: float) -> None:
    crosstab = jeffreys(3, 3)
    p = crosstab.phat.ravel()
    result = solved(3, 3, eps)
    grr = randomized_response(eps, p.size)
    srr = SecretRandomizedResponse(eps, 3, 3).matrix()
    assert result.utility_hat >= mutual_information(grr, p) - 1e-9
    assert result.utility_hat >= mutual_information(srr, p) - 1e-9


@pytest.mark.parametrize("eps", [0.2, 0.5, 2.0, 5.0, 8.0])
def test_3x3_sweep_is_private(eps: float) -> None:
    crosstab = jeffreys(3, 3)
    result = solved(3, 3, eps)
    for Q in (result.Q, result.Q2):
        assert np.all(Q >= 0) and np.max(np.abs(Q.sum(axis=1) - 1)) <= 1e-15
    assert result.rldp_certified_eps <= eps and result.rldp_certified_eps_q2 <= eps
    if eps in (0.2, 8.0):  # the extremes: re-run the checker on the returned matrix
        F = ChiSquareSet.from_counts(crosstab.counts, 0.05)
        assert worst_case_epsilon(result.Q, crosstab.counts, F).certified <= eps
    assert result.utility_hat == pytest.approx(mutual_information(result.Q, crosstab.phat.ravel()))
    assert result.certificate.verified
    assert len(result.labels["Y"]) == result.Q.shape[1] <= result.Q.shape[0]


@pytest.mark.slow
@pytest.mark.parametrize("eps", [0.2, 0.5, 2.0, 5.0, 8.0])
def test_3x4_sweep_is_private(eps: float) -> None:
    result = solved(3, 4, eps)
    assert result.method == "enumerate"  # the block lemma lists Gamma's rays at every eps
    assert result.rldp_certified_eps <= eps and result.certificate.verified


@pytest.mark.parametrize("eps", [0.5, 2.0])
def test_3x4_block_enumeration_matches_column_generation(eps: float) -> None:
    """Rays listed by the block lemma and rays priced by branch and bound: one optimum."""
    listed = solved(3, 4, eps)
    priced = polyopt_protocol(jeffreys(3, 4), eps, method="column-generation")
    assert listed.method == "enumerate" and priced.method == "column-generation"
    assert listed.certificate.verified and priced.certificate.verified
    assert listed.utility_hat == pytest.approx(priced.utility_hat, rel=1e-8)
    assert listed.certificate.upper_bound >= priced.utility_hat - 1e-9


@pytest.mark.slow
@pytest.mark.parametrize("eps", [0.2, 8.0])
def test_3x3_column_generation_matches_enumeration(eps: float) -> None:
    generated = polyopt_protocol(jeffreys(3, 3), eps, method="column-generation")
    assert generated.certificate.verified and generated.rldp_certified_eps <= eps
    assert generated.utility_hat == pytest.approx(solved(3, 3, eps).utility_hat, rel=1e-8)


def _direct_robust_mi(Q: np.ndarray, counts: np.ndarray, alpha: float, starts: int = 6) -> float:
    """``min_{P in F} I_P(X;Y)`` by SLSQP over ``P = softmax(z)`` from several starts."""
    phat = (counts / counts.sum()).ravel()
    radius = chi2.ppf(1 - alpha, phat.size - 1) / counts.sum()
    mask = phat > 0

    def law(z: np.ndarray) -> np.ndarray:
        w = np.exp(z - z.max())
        return w / w.sum()

    def in_set(z: np.ndarray) -> float:
        return radius + 1 - np.sum(phat[mask] ** 2 / law(z)[mask])

    best = mutual_information(Q, phat)
    rng = np.random.default_rng(0)
    for _ in range(starts):
        z0 = np.log(np.maximum(phat, 1e-6)) + 0.05 * rng.standard_normal(phat.size)
        res = minimize(lambda z: mutual_information(Q, law(z)), z0, method="SLSQP",
                       constraints=[{"type": "ineq", "fun": in_set}])
        if in_set(res.x) >= 0:
            best = min(best, mutual_information(Q, law(res.x)))
    return best


@pytest.mark.parametrize("eps", [0.5, 2.0])
def test_robust_utility_of_q2_exceeds_lower_bound(eps: float) -> None:
    crosstab = jeffreys(3, 3)
    result = solved(3, 3, eps)
    assert 0 < result.lower_bound <= _direct_robust_mi(result.Q2, crosstab.counts, 0.05)


def test_finer_polyhedra_help_and_stay_private() -> None:
    crosstab = Crosstab.from_array(SMALL["2x3"])
    coarse = polyopt_protocol(crosstab, 0.5)
    fine = polyopt_protocol(crosstab, 0.5, finer=True)
    assert fine.utility_hat >= coarse.utility_hat - 1e-12
    assert fine.rldp_certified_eps <= 0.5


def test_eq48_needs_exp_eps() -> None:
    """Lemma 13 with ``B^{s1,s2}`` of eq. (48): only ``-e^eps`` reproduces eq. (64).

    ``max_{R in D} (B^T T).R`` is solved as an LP over ``D`` (product of the
    simplices ``R >= P^min``). With the entry ``-e^eps`` it equals eq. (64)
    and is ``<= 0`` on Gamma's rays; with ``-eps`` it is positive even for the
    constant column, which is private at every level.
    """
    counts = np.array(SMALL["2x3"])
    pmin = lemma9_min(counts, 0.05)
    eps = 0.5
    ray = polyopt_protocol(Crosstab.from_array(counts), eps).Q[:, 0]
    for column in (ray, np.ones(6)):
        t1, t2 = column[:3], column[3:]
        eq64 = ((1 - pmin[0].sum()) * t1.max() - np.exp(eps) * (1 - pmin[1].sum()) * t2.min()
                + pmin[0] @ t1 - np.exp(eps) * pmin[1] @ t2)
        lemma13 = {kappa: _max_over_d(np.concatenate([t1, -kappa * t2]), pmin)
                   for kappa in (np.exp(eps), eps)}
        assert lemma13[np.exp(eps)] == pytest.approx(eq64, abs=1e-12) and eq64 <= 1e-12
        assert lemma13[eps] > 1e-3  # Lemma 13 would reject a private column


def _max_over_d(c: np.ndarray, pmin: np.ndarray) -> float:
    a_eq = np.kron(np.eye(2), np.ones(3))
    res = linprog(-c, A_eq=a_eq, b_eq=np.ones(2), bounds=list(zip(pmin.ravel(), [1] * 6)),
                  method="highs")
    return float(-res.fun)


def test_eq44_with_equal_secrets_is_stricter() -> None:
    """Including ``s1 = s2`` in eq. (44) removes private protocols (value drops)."""
    counts = np.array(SMALL["2x2"])
    pmin = lemma9_min(counts, 0.05)
    p = (counts / counts.sum()).ravel()
    distinct = ray_lp_value(gamma_polytope_vertices(pmin, np.exp(0.2)), p)
    all_rows = eq44_rows(pmin, np.exp(0.2), pairs="all")
    result = polyopt_protocol(Crosstab.from_array(counts), 0.2)
    violated = np.min(all_rows @ result.Q, axis=0)
    assert distinct == pytest.approx(result.utility_hat, rel=1e-7)
    assert np.min(violated) < -1e-6  # a private PolyOpt column breaks an s1 = s2 row


@pytest.mark.parametrize("kwargs,message", [
    ({"eps": 0.0}, "eps > 0"), ({"eps": -1.0}, "eps"), ({"eps": 1.0, "alpha": 1.5}, "alpha")])
def test_bad_input(kwargs: dict, message: str) -> None:
    with pytest.raises(InputError, match=message):
        polyopt_protocol(Crosstab.from_array(SMALL["2x2"]), **kwargs)


def test_one_secret_is_rejected() -> None:
    with pytest.raises(InputError, match="two secret"):
        polyopt_protocol(Crosstab.from_array([[3, 4, 5]]), 1.0)


def test_zero_row_secret_gets_the_whole_simplex() -> None:
    """``Phat_s = 0``: ``P^min_{U|s} = 0`` (Lemma 8 undefined), and the protocol stays private."""
    crosstab = Crosstab.from_array([[30, 10], [0, 0], [15, 45]])
    lower, upper = conditional_bounds(ChiSquareSet.from_counts(crosstab.counts, 0.05))
    assert np.all(lower[1] == 0) and np.all(upper[1] == 1)
    result = polyopt_protocol(crosstab, 1.0)
    assert result.rldp_certified_eps <= 1.0 and result.lower_bound > 0
