"""The inversion estimate: least squares over the simplex, checked against the truth, EM,
the plain inverse and a second solver (SLSQP)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.optimize import minimize

from rldp_models.cli import main
from rldp_models.estimators import project_to_simplex, simplex_least_squares
from rldp_models.disclosure.estimation import point_estimate
from tests.shared_data import ADULT

MARKOV = 10.0
"""``P(||f - m|| > MARKOV / sqrt(n)) <= 1 / MARKOV^2``, since ``E ||f - m||^2 <= 1 / n``."""


def grr(k: int, eps: float) -> np.ndarray:
    """Generalised randomised response on ``k`` values."""
    return (np.exp(eps) - 1) * np.eye(k) / (np.exp(eps) + k - 1) + 1 / (np.exp(eps) + k - 1)


def rank_deficient_channel() -> tuple[np.ndarray, np.ndarray]:
    """GRR on 3 values of S times a rank-2 channel on 4 values of U (rank 6 of 12), and the
    S-marginal ``M``, which lies in the row space of ``Q^T`` (``M = B Q^T`` below)."""
    mixing = np.array([[1.0, 0.0], [0.5, 0.5], [0.0, 1.0], [0.0, 1.0]])
    Q = np.kron(grr(3, 1.0), mixing)
    M = np.kron(np.eye(3), np.ones((1, 4)))
    return Q, M


def sparse_truth(inputs: int) -> np.ndarray:
    """A distribution with empty cells, as on Adult's sparse tables (where the projection
    of ``pinv(Q^T) f`` onto the simplex moved ``P_S``)."""
    p = np.random.default_rng(3).dirichlet(np.full(inputs, 0.3))
    p[[1, 4, 5, 10]] = 0.0
    return p / p.sum()


def test_identifiable_target_converges_to_the_truth_on_a_rank_deficient_channel() -> None:
    Q, M = rank_deficient_channel()
    assert np.linalg.matrix_rank(Q) == 6
    B = M @ np.linalg.pinv(Q.T)
    np.testing.assert_allclose(B @ Q.T, M, atol=1e-12)  # M is identifiable
    p = sparse_truth(Q.shape[0])
    m = p @ Q
    rng = np.random.default_rng(0)
    for n in (10**3, 10**4, 10**6, 10**8):
        f = rng.multinomial(n, m) / n
        fit = simplex_least_squares(Q, f)[0]
        assert fit.min() >= 0 and abs(fit.sum() - 1) < 1e-12
        # The fitted law is the Euclidean projection of f onto {Q^T p : p in the simplex},
        # a convex set holding m, so ||Q^T fit - m|| <= ||f - m||, and M fit = B Q^T fit.
        tolerance = np.linalg.norm(B, 2) * MARKOV / np.sqrt(n)
        assert np.abs(M @ fit - M @ p).max() <= tolerance
        em = M @ point_estimate(Q, f).estimates[0]
        assert np.abs(M @ fit - em).max() <= 2 * tolerance


def test_least_squares_attains_the_minimum_of_a_second_solver() -> None:
    """SLSQP's minimum of ||Q^T p - f||^2 over the simplex: the same value, the same ``Q^T p``
    (unique) and ``M p``, while the minimisers themselves may differ (rank 6 of 12)."""
    Q, M = rank_deficient_channel()
    f = np.random.default_rng(1).multinomial(500, sparse_truth(12) @ Q) / 500
    fit = simplex_least_squares(Q, f)[0]
    reference = minimize(lambda x: np.sum((Q.T @ x - f) ** 2), np.full(12, 1 / 12),
                         jac=lambda x: 2 * Q @ (Q.T @ x - f), method="SLSQP",
                         bounds=[(0.0, None)] * 12,
                         constraints=[{"type": "eq", "fun": lambda x: x.sum() - 1}],
                         options={"ftol": 1e-15, "maxiter": 1000})
    assert reference.success
    assert np.sum((Q.T @ fit - f) ** 2) <= reference.fun + 1e-12
    np.testing.assert_allclose(Q.T @ fit, Q.T @ reference.x, atol=1e-6)
    np.testing.assert_allclose(M @ fit, M @ reference.x, atol=1e-5)


def test_projecting_the_minimum_norm_solution_would_move_the_target() -> None:
    """The estimate this replaces: on the same table, ``pinv(Q^T) f`` projected onto the
    simplex is off the truth by far more than the fit (the regression this module fixes)."""
    Q, M = rank_deficient_channel()
    p = sparse_truth(12)
    f = np.random.default_rng(2).multinomial(10**6, p @ Q) / 10**6
    projected = project_to_simplex(np.linalg.pinv(Q.T) @ f)
    fit = simplex_least_squares(Q, f)[0]
    assert np.abs(M @ projected - M @ p).max() > 10 * np.abs(M @ fit - M @ p).max()


@pytest.mark.parametrize("k", [2, 5, 12])
def test_full_rank_fit_is_the_plain_inverse_inside_the_simplex(k: int) -> None:
    Q = grr(k, 1.0)
    rng = np.random.default_rng(k)
    p = rng.dirichlet(np.full(k, 5.0))
    f = rng.multinomial(10**7, p @ Q) / 10**7
    inverse = np.linalg.solve(Q.T, f)
    assert inverse.min() > 0
    np.testing.assert_allclose(simplex_least_squares(Q, f)[0], inverse, atol=1e-10)


def test_full_rank_fit_outside_the_simplex_is_on_its_boundary() -> None:
    """When the plain inverse has a negative entry the fit has a zero there and is no
    worse than any vertex or the clipped inverse."""
    Q = grr(4, 1.0)
    f = np.array([0.2, 0.3, 0.36, 0.14])
    inverse = np.linalg.solve(Q.T, f)
    assert inverse.min() < 0
    fit = simplex_least_squares(Q, f)[0]
    assert fit.min() == 0.0 and abs(fit.sum() - 1) < 1e-12
    clipped = np.clip(inverse, 0, None) / np.clip(inverse, 0, None).sum()
    for other in [*np.eye(4), clipped]:
        assert np.sum((Q.T @ fit - f) ** 2) <= np.sum((Q.T @ other - f) ** 2) + 1e-15


def test_rows_are_fitted_independently() -> None:
    Q, _ = rank_deficient_channel()
    tables = np.random.default_rng(4).dirichlet(np.ones(Q.shape[1]), size=3)
    batch = simplex_least_squares(Q, tables)
    for row, f in enumerate(tables):
        np.testing.assert_array_equal(batch[row], simplex_least_squares(Q, f)[0])


def test_cli_inversion_of_p_s_on_adult_race_by_native_country(tmp_path) -> None:
    """The reported case: GRR-CR at eps 1 has rank 5 for 210 inputs there; the projected
    minimum-norm solution gave P_S = (1, 0, 0, 0, 0). The inversion now agrees with EM
    within a quarter of EM's 95% interval (about half a standard error) per coordinate."""
    if not ADULT.exists():
        pytest.skip("Adult data not available")
    data = ["--data", str(ADULT), "--sensitive", "race", "--public", "native-country"]
    result, released, out = tmp_path / "r.json", tmp_path / "rel.csv", tmp_path / "est.csv"
    assert main(["protocol", "grr-cr", *data, "--eps", "1", "--out", str(result), "-q"]) == 0
    assert main(["release", str(result), *data, "--out", str(released), "--seed", "1",
                 "-q"]) == 0
    assert main(["estimate", str(released), "--result", str(result), "--target", "S",
                 "--out", str(out), "--draws", "40", "--seed", "0"]) == 0
    frame = pd.read_csv(out)
    assert frame["estimable"].all() and frame["inversion"].max() < 0.95
    noise = (frame["em_high"] - frame["em_low"]) / 4
    assert ((frame["inversion"] - frame["em"]).abs() <= noise).all()
