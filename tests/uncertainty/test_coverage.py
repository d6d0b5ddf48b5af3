"""Coverage of the uncertainty sets, the bootstrap radius, and Cochran's sparsity rule.

Seeds here are fresh: none is a seed the library or the reproduction uses to
calibrate (``BOOTSTRAP_SEED = 0``, the reproduction's ``2024 + i``).
"""

from __future__ import annotations

import numpy as np
import pytest

from rldp_models.data import Crosstab
from rldp_models.uncertainty.calibration import JEFFREYS, bootstrap_radius, calibrated_set
from rldp_models.uncertainty.coverage import (
    MEMBERSHIP_TOL,
    clopper_pearson,
    coverage_study,
)
from rldp_models.uncertainty.named import named_set
from rldp_models.uncertainty.set_statistics import registered, set_statistic
from rldp_models.uncertainty.sparsity import sparsity_warning

SPARSE = np.array([[200, 1, 1, 1, 1, 1], [1, 1, 1, 1, 1, 1]])
"""No zero cell, but 11 of 12 cells below 5 records (Cochran's rule fails)."""

UNEVEN = np.array([[1, 2, 5], [10, 20, 30], [40, 50, 42]])
"""No zero cell; small at n = 100, dense at n = 100,000."""


# ---------------------------------------------------------------- statistics vs. contains
@pytest.mark.parametrize("name", registered())
def test_vectorised_membership_is_the_sets_own(name: str) -> None:
    """``statistic <= radius`` decides exactly as ``named_set(...).contains`` (zeros included)."""
    rng = np.random.default_rng(9173)
    rule = set_statistic(name)
    agreed = inside = 0
    for _ in range(30):
        counts = rng.multinomial(40, rng.dirichlet(np.full(6, 0.4))).reshape(2, 3)
        crosstab = Crosstab.from_array(counts)
        built = named_set(name, crosstab, 0.1)
        centre = crosstab.phat.ravel()[None, :]
        radius = rule.default_radius(centre, crosstab.n, 0.1)[0]
        assert radius == pytest.approx(built.radius, rel=1e-12)
        for weight in (0.02, 0.1, 0.3, 0.6, 1.0):
            p = (1 - weight) * centre[0] + weight * rng.dirichlet(np.ones(6))
            p /= p.sum()
            value = rule.statistic(centre, p)[0]
            if abs(value - radius) < 1e-9 * max(1.0, radius):
                continue  # too close to the boundary for two roundings to agree
            ours = value <= radius + MEMBERSHIP_TOL
            assert ours == built.contains(p, tol=MEMBERSHIP_TOL)
            agreed += 1
            inside += ours
    assert 0 < inside < agreed  # both sides of the boundary were tried


def test_a_counted_cell_the_reference_misses_is_outside() -> None:
    centre = np.array([[0.5, 0.5, 0.0]])
    for name in ("chi2", "kl"):
        assert set_statistic(name).statistic(centre, np.array([1.0, 0.0, 0.0]))[0] == np.inf


# ---------------------------------------------------------------- coverage
def test_chi_square_coverage_approaches_the_nominal_level_as_n_grows() -> None:
    """Pearson's X^2 tends to chi-square: off at n = 100, within the interval at n = 1e5."""
    table = coverage_study(UNEVEN, "chi2", (0.05,), draws=20_000, seed=4417,
                           sizes=(100, 100_000), confidence=0.99, progress=False)
    small, large = (table[table["n"] == n].iloc[0] for n in (100, 100_000))
    assert small["high"] < 0.95  # the chi-square limit is not yet reached
    assert large["low"] <= 0.95 <= large["high"]
    assert abs(large["coverage"] - 0.95) < abs(small["coverage"] - 0.95)


def test_balls_containing_the_chi_square_set_cover_at_least_as_often() -> None:
    table = coverage_study(SPARSE, "chi2,tv,box", (0.05,), draws=4000, seed=2718,
                           references=("phat", "dirichlet"), progress=False)
    for _, part in table.groupby("reference"):
        covered = part.set_index("set")["covered"]
        assert covered["tv"] >= covered["chi2"] and covered["box"] >= covered["chi2"]


def test_the_numbers_depend_on_seed_and_draws_only() -> None:
    from rldp_models.executors import executor_from_spec

    serial = coverage_study(SPARSE, "chi2,kl", (0.05, 0.1), draws=4500, seed=31, progress=False)
    pooled = coverage_study(SPARSE, "chi2,kl", (0.05, 0.1), draws=4500, seed=31,
                            executor=executor_from_spec("joblib", 2), progress=False)
    assert serial.equals(pooled)


def test_clopper_pearson_matches_the_beta_quantiles() -> None:
    from scipy.stats import beta

    low, high = clopper_pearson(45, 50, 0.95)
    assert low == pytest.approx(beta.ppf(0.025, 45, 6))
    assert high == pytest.approx(beta.ppf(0.975, 46, 5))


# ---------------------------------------------------------------- bootstrap radius
@pytest.mark.parametrize("name", ["chi2", "kl"])
def test_bootstrap_radius_reaches_coverage_where_the_asymptotic_one_does_not(name: str) -> None:
    """Calibrated with one seed, measured with another at the bootstrap's own truth."""
    counts = SPARSE.ravel().astype(float)
    n, cells = int(counts.sum()), counts.size
    radius, source = bootstrap_radius(name, counts, 0.05, draws=200_000, seed=1)
    assert source["draws"] == 200_000 and source["seed"] == 1
    truth = (counts + JEFFREYS) / (n + JEFFREYS * cells)
    tables = np.random.default_rng(86_243).multinomial(n, truth, size=50_000) / n
    rule = set_statistic(name)
    values = rule.statistic(tables, truth)
    asymptotic = rule.default_radius(truth[None, :], n, 0.05)[0]
    boot_low, boot_high = clopper_pearson(int(np.sum(values <= radius)), values.size, 0.99)
    _, asym_high = clopper_pearson(int(np.sum(values <= asymptotic)), values.size, 0.99)
    assert asym_high < 0.95
    assert boot_high >= 0.95 and boot_low <= 0.96


@pytest.mark.slow
def test_recalibrating_on_every_table_repairs_sparse_coverage() -> None:
    """End to end (a double bootstrap): truth Phat, the radius recalibrated per simulated table."""
    counts = np.array([[1000] + [1] * 20, [1] * 21])
    asymptotic = coverage_study(counts, "chi2", (0.05,), draws=4000, seed=5501, progress=False)
    boot = coverage_study(counts, "chi2", (0.05,), draws=4000, seed=5501,
                          radius_from="bootstrap", inner_draws=1000, progress=False)
    assert asymptotic["high"].iloc[0] < 0.95
    assert boot["high"].iloc[0] >= 0.95 - 0.01
    assert boot["coverage"].iloc[0] > asymptotic["high"].iloc[0]


def test_calibrated_set_records_its_provenance() -> None:
    crosstab = Crosstab.from_array(SPARSE)
    built = calibrated_set("tv", crosstab, 0.1, draws=500, seed=7)
    assert built.name == "tv" and built.alpha == 0.1
    assert built.radius_source == {"method": "parametric bootstrap at the Jeffreys posterior mean",
                                   "statistic": "tv", "quantile": 0.9, "draws": 500, "seed": 7,
                                   "n": crosstab.n}
    assert built.radius == bootstrap_radius("tv", SPARSE, 0.1, draws=500, seed=7)[0]
    assert built.contains(crosstab.phat.ravel())


# ---------------------------------------------------------------- Cochran's rule
@pytest.mark.parametrize("counts, warned", [
    ([[5, 5, 5, 5, 5], [5, 5, 5, 5, 5]], False),          # nothing small
    ([[4, 1, 5, 5, 5], [5, 5, 5, 5, 5]], False),          # 2 of 10 small (exactly 20%), none < 1
    ([[4, 1, 4, 5, 5], [5, 5, 5, 5, 5]], True),           # 3 of 10 small: more than 20%
    ([[0, 50, 50, 50, 50], [50, 50, 50, 50, 50]], True),  # one cell below 1
    ([[1, 9], [9, 9], [9, 9], [9, 9], [9, 9]], False),    # 1 of 10 small, a count of 1 is allowed
])
def test_the_warning_appears_exactly_when_cochrans_rule_says(counts: list, warned: bool) -> None:
    warning = sparsity_warning(Crosstab.from_array(counts))
    assert (warning is not None) is warned
    if warned:
        assert "\n" not in warning and "Cochran" in warning


def test_the_education_occupation_table_of_the_issue_is_sparse() -> None:
    counts = np.full((16, 15), 50)
    counts.flat[:60] = 3  # the issue's 60 of 240 cells below 5 (25%) ...
    assert sparsity_warning(counts) is not None
    counts.flat[:60] = 5
    counts.flat[:23] = 0  # ... or its 23 empty cells alone
    assert sparsity_warning(counts) is not None
