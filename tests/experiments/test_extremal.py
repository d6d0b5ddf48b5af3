"""Figs. 3, 4, 6, 7 of ``extremal-mechanisms-ldp.txt``: the quick forms, judged from their CSVs.

Each quick form runs through the runner once (serial), its CSV is read back,
and the paper's qualitative findings are asserted from the table. The
utilities in the table are also checked against closed forms derived
independently of :mod:`rldp_models.utility`: the binary mechanism's KL
divergence (display after Corollary 9) and mutual information (display after
Corollary 15), and RR's behaviour at large ``eps``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.stats import entropy

from rldp_models.experiments.base import ClaimOutcome
from rldp_models.experiments.extremal import EXPERIMENTS, OPTIMAL_TOLERANCE, best_of_two
from rldp_models.experiments.runner import get, run_experiment
from tests.shared_data import quick_tables

BY_ID = {experiment.id: experiment for experiment in EXPERIMENTS}


@pytest.fixture(scope="module")
def tables(tmp_path_factory: pytest.TempPathFactory) -> dict[str, pd.DataFrame]:
    """Every quick form run once; the CSVs as read back from disk."""
    return quick_tables(EXPERIMENTS, tmp_path_factory.mktemp("extremal"))


def _distributions(row: pd.Series) -> np.ndarray:
    """The instance's distributions, drawn again from its seed (Dirichlet(1), as documented)."""
    rng = np.random.default_rng(int(row["seed"]))
    size = 2 if row["utility"] == "kl" else 1
    return rng.dirichlet(np.ones(int(row["k"])), size=size)


def _rows(table: pd.DataFrame, method: str) -> pd.DataFrame:
    return table[table["method"] == method]


def test_registered() -> None:
    for experiment_id in ("extremal-fig3", "extremal-fig4", "extremal-fig6", "extremal-fig7"):
        assert get(experiment_id) is BY_ID[experiment_id]
        assert not BY_ID[experiment_id].needs_data


def test_tasks_are_seeded_and_distinct() -> None:
    tasks = BY_ID["extremal-fig4"].tasks(True)
    assert len({(task["k"], task["seed"]) for task in tasks}) == len(tasks)
    assert len(BY_ID["extremal-fig3"].tasks(False)) == 100


@pytest.mark.parametrize("experiment_id", ["extremal-fig3", "extremal-fig6"])
def test_regimes(tables: dict[str, pd.DataFrame], experiment_id: str) -> None:
    """Binary optimal at the smallest eps, RR at the largest, the optimum the best everywhere."""
    table = tables[experiment_id]
    low, high = table["eps"].min(), table["eps"].max()
    binary, rr = _rows(table, "binary"), _rows(table, "randomized response")
    assert (binary[binary["eps"] == low]["ratio"] >= 1 - OPTIMAL_TOLERANCE).all()
    assert (rr[rr["eps"] == high]["ratio"] >= 1 - OPTIMAL_TOLERANCE).all()
    assert (table["ratio"] <= 1 + OPTIMAL_TOLERANCE).all()  # nothing beats the LP optimum
    assert (table["normalized"] <= 1 + 1e-9).all()  # data processing inequality
    # the mismatched regimes are costly (paper: down to 10-40% of the optimum)
    assert rr[rr["eps"] == low]["ratio"].max() < 0.8
    assert binary[binary["eps"] == high]["ratio"].min() < 0.8
    finding = BY_ID[experiment_id].summarise(table)
    assert finding.holds, finding.checks


def test_reference_is_the_input_divergence(tables: dict[str, pd.DataFrame]) -> None:
    for experiment_id in ("extremal-fig3", "extremal-fig6"):
        for _, row in _rows(tables[experiment_id], "optimal").drop_duplicates("seed").iterrows():
            p = _distributions(row)
            expected = entropy(p[0], p[1]) if row["utility"] == "kl" else entropy(p[0])
            assert row["reference"] == pytest.approx(expected, rel=1e-12)


def test_binary_kl_closed_form(tables: dict[str, pd.DataFrame]) -> None:
    """Display after Corollary 9: D(M0||M1) of the binary mechanism from P0(T), P1(T)."""
    for _, row in _rows(tables["extremal-fig3"], "binary").iterrows():
        p0, p1 = _distributions(row)
        t = p0 >= p1
        grow = np.expm1(row["eps"])
        expected = sum((grow * a + 1) / (grow + 2) * np.log((1 + grow * a) / (1 + grow * b))
                       for a, b in ((p0[t].sum(), p1[t].sum()), (p0[~t].sum(), p1[~t].sum())))
        assert row["value"] == pytest.approx(expected, rel=1e-9)


def test_binary_mutual_information_closed_form(tables: dict[str, pd.DataFrame]) -> None:
    """Display after Corollary 15, with T from eq. (20) found by brute force here."""
    for _, row in _rows(tables["extremal-fig6"], "binary").iterrows():
        (p,) = _distributions(row)
        masses = [p[[bool(mask >> x & 1) for x in range(p.size)]].sum()
                  for mask in range(2 ** p.size)]
        mass = min(masses, key=lambda m: abs(m - 0.5))
        e = np.exp(row["eps"])
        expected = sum((a * e * np.log(e / (b + e * a)) + b * np.log(1 / (b + e * a))) / (e + 1)
                       for a, b in ((mass, 1 - mass), (1 - mass, mass)))
        assert row["value"] == pytest.approx(expected, rel=1e-9)


def test_rr_large_eps_expansions(tables: dict[str, pd.DataFrame]) -> None:
    """RR at the largest eps against first-order expansions in t = e^-eps, derived here.

    ``H(X) - I(X;Y) = t ((k-1) eps + (k-1)(1 + H) + sum_y (1 - p_y) log p_y) + O(eps t^2)``;
    eq. (22) of the paper keeps only ``(k-1) eps t``, and its remainder is
    ``O(t)``, not ``O(t^2)``. ``D(P0||P1) - D(M0||M1) = t (k D(P0||P1) +
    sum log(P1/P0) + sum P0/P1 - k) + O(t^2)``; Corollary 10's ``G(P0, P1)`` does
    not match this coefficient.
    """
    for experiment_id in ("extremal-fig3", "extremal-fig6"):
        table = _rows(tables[experiment_id], "randomized response")
        for _, row in table[table["eps"] == table["eps"].max()].iterrows():
            p, k, t = _distributions(row), int(row["k"]), np.exp(-row["eps"])
            if row["utility"] == "mi":
                h = entropy(p[0])
                slope = (k - 1) * (row["eps"] + 1 + h) + np.sum((1 - p[0]) * np.log(p[0]))
            else:
                kl = entropy(p[0], p[1])
                slope = k * kl + np.sum(np.log(p[1] / p[0])) + np.sum(p[0] / p[1]) - k
            loss = row["reference"] - row["value"]
            assert loss == pytest.approx(slope * t, rel=1e-3)


@pytest.mark.parametrize(("experiment_id", "bounds"), [
    ("extremal-fig4", {3: 0.55, 4: 0.55, 6: 0.70, 12: 0.55}),
    ("extremal-fig7", {3: 0.65, 4: 0.65, 6: 0.75, 12: 0.65}),
])
def test_better_of_two(tables: dict[str, pd.DataFrame], experiment_id: str,
                       bounds: dict[int, float]) -> None:
    """Figs. 4 and 7: the better of binary and RR keeps the paper's share of the optimum."""
    table = tables[experiment_id]
    assert set(table["k"]) == set(bounds)
    worst = best_of_two(table).groupby(level="k").min()
    for k, bound in bounds.items():
        assert worst[k] >= bound
    # binary is one of the two: at the smallest eps the better one is optimal for k <= 6
    # (Theorems 5, 12); for k = 12, eps* < 0.01 for some P, binary keeps > 99.99%
    small = best_of_two(table[table["eps"] == table["eps"].min()])
    assert (small.drop(12, level="k") >= 1 - OPTIMAL_TOLERANCE).all()
    assert (small >= 1 - 1e-4).all()
    finding = BY_ID[experiment_id].summarise(table)
    assert finding.holds, finding.checks


def test_summary_can_fail(tables: dict[str, pd.DataFrame]) -> None:
    """A table where binary loses at small eps fails the regime check."""
    table = tables["extremal-fig3"].copy()
    low = (table["method"] == "binary") & (table["eps"] == table["eps"].min())
    table.loc[low, "ratio"] = 0.5
    checks = BY_ID["extremal-fig3"].summarise(table).checks
    assert not checks[f"binary optimal at eps = {table['eps'].min():g} in every instance"]


def test_quick_bounds_are_not_resolved(tables: dict[str, pd.DataFrame]) -> None:
    """Fewer instances than the paper's 100 cannot confirm a bound over every instance."""
    claims = BY_ID["extremal-fig4"].summarise(tables["extremal-fig4"]).claims
    assert claims and all(c.verdict is ClaimOutcome.NOT_RESOLVED for c in claims)
    assert all("instances" in c.reason for c in claims)


def test_bound_refuted_with_its_numbers(tables: dict[str, pd.DataFrame]) -> None:
    """One instance below the paper's 70% at k = 6 refutes the bound, at any size."""
    table = tables["extremal-fig4"].copy()
    rows = (table["k"] == 6) & (table["instance"] == 3) & (table["eps"] == 2.0) \
        & table["method"].isin(["binary", "randomized response"])
    table.loc[rows, "ratio"] = 0.636
    claim = next(c for c in BY_ID["extremal-fig4"].summarise(table).claims
                 if c.claim.startswith("k = 6"))
    assert claim.verdict is ClaimOutcome.NOT_REPRODUCED
    assert "63.6%" in claim.measured and "instance 3, eps = 2" in claim.measured


@pytest.mark.slow
@pytest.mark.parametrize("experiment_id", [
    "extremal-fig3", "extremal-fig4", "extremal-fig6", "extremal-fig7"])
def test_full_form(tmp_path, experiment_id: str) -> None:
    """The paper's sizes: 100 instances per k; every claim resolved from the CSV.

    Fig. 4's k = 6 bound is not reproduced (an instance with P1 near 0 where P0
    is not keeps less than 70%); the other bounds hold.
    """
    result = run_experiment(BY_ID[experiment_id], tmp_path, quick=False, progress=False)
    table = pd.read_csv(result.paths["csv"])
    assert table.groupby("k")["instance"].nunique().eq(100).all()
    finding = BY_ID[experiment_id].summarise(table)
    assert finding.count(ClaimOutcome.NOT_RESOLVED) == 0, finding.text
    failed = [c.claim for c in finding.claims if c.verdict is ClaimOutcome.NOT_REPRODUCED]
    assert all(c.startswith("k = 6") for c in failed) and \
        (bool(failed) == (experiment_id == "extremal-fig4")), finding.text
