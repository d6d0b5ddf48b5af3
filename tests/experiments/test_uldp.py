"""``uldp-tv``: the quick form judged from its CSV, and the bit-vector estimators.

The TV findings (uRR/uRAP below RR/RAPPOR; near the non-private error at large
eps) are asserted from the table read back with pandas. The per-bit estimators
used for RAPPOR and uRAP are checked against independent references: exact
expectations (empirical inversion recovers ``p``) and the EM of
:mod:`rldp_models.estimators` on the full ``2^k``-column matrix of a small
mechanism.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from rldp_models.estimators import em_estimate
from rldp_models.experiments.runner import run_experiment
from rldp_models.experiments.uldp import (EXPERIMENTS, bitwise_em, bitwise_empirical,
                                          population, total_variation)
from rldp_models.mechanisms import UnaryEncoding, UtilityOptimizedRAPPOR, bits_to_index

EXPERIMENT = EXPERIMENTS[0]


@pytest.fixture(scope="module")
def table(tmp_path_factory: pytest.TempPathFactory) -> pd.DataFrame:
    result = run_experiment(EXPERIMENT, tmp_path_factory.mktemp("uldp"), quick=True,
                            executor="joblib", workers=2, progress=False)
    return pd.read_csv(result.paths["csv"])


def _mean(table: pd.DataFrame) -> pd.Series:
    return table.groupby(["method", "estimator", "eps"])["tv"].mean()


@pytest.mark.parametrize("estimator", ["empirical", "EM"])
def test_utility_optimized_mechanisms_beat_their_ldp_counterparts(table, estimator) -> None:
    mean = _mean(table)
    for eps in sorted(e for e in table["eps"].unique() if e <= 5):  # high and medium privacy
        assert mean["uRR", estimator, eps] < mean["RR", estimator, eps], eps
        assert mean["uRAP", estimator, eps] < mean["RAPPOR", estimator, eps], eps


def test_low_privacy_regime_is_close_to_no_privacy(table) -> None:
    mean = _mean(table)
    top = table["eps"].max()
    for method in ("uRR", "uRAP"):
        assert mean[method, "EM", top] <= 1.5 * mean["none", "empirical", top]
    assert EXPERIMENT.summarise(table).holds


def test_table_shape(table) -> None:
    """Every eps and repeat has the baseline and 4 mechanisms x 2 estimators."""
    counts = table.groupby(["eps", "repeat"]).size()
    assert (counts == 1 + 4 * 2).all()
    assert table["seed"].nunique() == len(counts)


def test_population_is_zipf_with_ten_percent_sensitive() -> None:
    p, sensitive = population()
    ranked = np.sort(p)[::-1]
    np.testing.assert_allclose(ranked[0] / ranked, np.arange(1, p.size + 1))
    assert sensitive.sum() * 10 == p.size


@pytest.mark.parametrize("mechanism", [
    UnaryEncoding.from_setting("symmetric", 1.0, 5),
    UtilityOptimizedRAPPOR(1.0, (True, False, True, False, False)),
], ids=["RAPPOR", "uRAP"])
def test_bitwise_empirical_inverts_exact_expectations(mechanism) -> None:
    p = np.array([0.1, 0.2, 0.3, 0.15, 0.25])
    ones, _ = mechanism.bit_probabilities()
    expected_bits = p @ ones  # E[bit j] = sum_x p_x P(bit j = 1 | x)
    fake = np.vstack([expected_bits, expected_bits])  # a "sample" whose bit means are exact
    np.testing.assert_allclose(bitwise_empirical(fake, ones), p, atol=1e-12)


@pytest.mark.parametrize("mechanism", [
    UnaryEncoding.from_setting("symmetric", 2.0, 4),
    UtilityOptimizedRAPPOR(2.0, (True, False, True, False)),
], ids=["RAPPOR", "uRAP"])
def test_bitwise_em_matches_em_on_the_full_matrix(mechanism) -> None:
    rng = np.random.default_rng(4)
    x = rng.choice(4, size=400, p=[0.4, 0.3, 0.2, 0.1])
    bits = mechanism.sample_bits(x, rng)
    Q = mechanism.product_matrix()
    counts = np.bincount(bits_to_index(bits), minlength=Q.shape[1])
    reference = em_estimate(Q, counts, tol=1e-12, max_iter=100_000).estimate
    ones, zeros = mechanism.bit_probabilities()
    np.testing.assert_allclose(bitwise_em(bits, ones, zeros), reference, atol=1e-4)


def test_total_variation_is_half_l1() -> None:
    assert total_variation(np.array([0.5, 0.5, 0.0]), np.array([0.0, 0.5, 0.5])) == 0.5


@pytest.mark.slow
def test_full_form(tmp_path) -> None:
    """The full grid (n = 50,000, 10 repetitions, 10 eps values)."""
    result = run_experiment(EXPERIMENT, tmp_path, quick=False, executor="joblib",
                            progress=False)
    full = pd.read_csv(result.paths["csv"])
    assert full["eps"].nunique() == 10 and full["repeat"].nunique() == 10
    assert EXPERIMENT.summarise(full).holds
