"""Fig. 2 of ``robust-optimization-ldp.txt``: quick forms judged from their CSVs.

The paper's statements (Section V) are asserted from the tables read back with
pandas, with the 1.5 IQR rule re-implemented here from its definition; every
protocol in the tables passed the exact privacy check of its program. Fig. 2c
and 2d have the same tasks, so 2d is judged from 2c's CSV.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from rldp_models.experiments.base import ClaimOutcome
from rldp_models.experiments.robust_opt import (EXPERIMENTS, SETTING, iqr_inliers,
                                               robust_leak_claims, summarise_scatter)
from rldp_models.experiments.runner import run_experiment

BY_ID = {experiment.id: experiment for experiment in EXPERIMENTS}
EPS = 0.5  # Section V


def _run(ids: tuple[str, ...], out, quick: bool) -> dict[str, pd.DataFrame]:
    tables = {}
    for experiment_id in ids:
        result = run_experiment(BY_ID[experiment_id], out, quick=quick, executor="joblib",
                                workers=2, progress=False)
        assert all(result.paths[s].stat().st_size > 0 for s in ("csv", "png", "svg", "md"))
        tables[experiment_id] = pd.read_csv(result.paths["csv"])
    return tables


@pytest.fixture(scope="module")
def tables(tmp_path_factory: pytest.TempPathFactory) -> dict[str, pd.DataFrame]:
    """Quick forms of Fig. 2a, 2b and 2c, read back from disk."""
    return _run(("robust-opt-fig2a", "robust-opt-fig2b", "robust-opt-fig2c"),
                tmp_path_factory.mktemp("robust_opt"), quick=True)


def _median(table: pd.DataFrame, program: str, metric: str) -> float:
    return float(table.loc[table["method"] == program, metric].median())


def _iqr_mean(values: pd.Series) -> float:
    """Mean after Tukey's fences: drop non-finite values, then values beyond 1.5 IQR."""
    finite = np.sort(values[np.isfinite(values)].to_numpy())
    q1, q3 = np.percentile(finite, [25, 75])
    low, high = q1 - 1.5 * (q3 - q1), q3 + 1.5 * (q3 - q1)
    return float(finite[(finite >= low) & (finite <= high)].mean())


def _curve(table: pd.DataFrame, metric: str) -> pd.DataFrame:
    """Mean of ``metric`` after the 1.5 IQR rule, one column per program, one row per n."""
    return table.groupby(["n", "method"])[metric].apply(_iqr_mean).unstack("method")


def assert_scatter_findings(table: pd.DataFrame) -> None:
    """Fig. 2a/2b: NUNP and RUNP leak beyond eps, NURP and RURP keep it; robustness costs."""
    assert _median(table, "NUNP", "eps_star") > EPS
    assert _median(table, "RUNP", "eps_star") > EPS
    assert _median(table, "NURP", "eps_star") <= EPS
    assert _median(table, "RURP", "eps_star") <= EPS
    nominal_cost = _median(table, "NUNP", "D_star")
    assert _median(table, "NURP", "D_star") > nominal_cost
    assert _median(table, "RURP", "D_star") > _median(table, "RUNP", "D_star")


@pytest.mark.parametrize("experiment_id, n", [("robust-opt-fig2a", 75),
                                              ("robust-opt-fig2b", 15_000)])
def test_scatter_findings(tables, experiment_id: str, n: int) -> None:
    table = tables[experiment_id]
    assert set(table["n"]) == {n}
    assert (table["status"] == "optimal").all() and table["guarantee_holds"].all()
    assert_scatter_findings(table)
    assert BY_ID[experiment_id].summarise(table).holds


def test_eps_against_n(tables) -> None:
    """Fig. 2c: NUNP leaks at every n; RURP keeps eps, very conservatively at small n."""
    curve = _curve(tables["robust-opt-fig2c"], "eps_star")
    small, large = curve.index.min(), curve.index.max()
    assert (curve["NUNP"] > EPS).all()
    assert (curve["RURP"] <= EPS).all()
    assert curve.loc[small, "RURP"] < EPS / 2
    assert curve.loc[large, "RURP"] > curve.loc[small, "RURP"]
    assert BY_ID["robust-opt-fig2c"].summarise(tables["robust-opt-fig2c"]).holds


def test_distortion_against_n(tables) -> None:
    """Fig. 2d, judged from 2c's table (same tasks): robust privacy costs less as n grows."""
    assert BY_ID["robust-opt-fig2d"].tasks(True) == BY_ID["robust-opt-fig2c"].tasks(True)
    table = tables["robust-opt-fig2c"]
    curve = _curve(table, "D_star")
    small, large = curve.index.min(), curve.index.max()
    assert (curve["NURP"] > curve["NUNP"]).all()
    assert (curve["RURP"] > curve["RUNP"]).all()
    assert curve.loc[large, "RURP"] - curve.loc[large, "NUNP"] < \
        curve.loc[small, "RURP"] - curve.loc[small, "NUNP"]
    assert BY_ID["robust-opt-fig2d"].summarise(table).holds
    import matplotlib.pyplot as plt

    plt.close(BY_ID["robust-opt-fig2d"].plot(table))


def test_instances_follow_the_papers_setting(tables) -> None:
    """Four programs per instance, |S||U| = 15 cells, n = N * 15 on the 2c grid."""
    table = tables["robust-opt-fig2c"]
    programs = table.groupby(["n", "instance"])["method"].apply(lambda m: tuple(sorted(m)))
    assert set(programs) == {("NUNP", "NURP", "RUNP", "RURP")}
    assert all(n % (SETTING["n_s"] * SETTING["n_u"]) == 0 for n in table["n"].unique())


def test_iqr_rule_on_a_hand_example() -> None:
    values = pd.Series([1.0, 2.0, 3.0, 4.0, 100.0, np.inf])
    # finite: 1, 2, 3, 4, 100 -> Q1 = 2, Q3 = 4, fences [-1, 7]: 100 goes, so does inf.
    assert iqr_inliers(values).tolist() == [1.0, 2.0, 3.0, 4.0]


def _leak_table(nurp_leaks: int, instances: int) -> pd.DataFrame:
    """NURP and RURP rows at n = 75 with ``nurp_leaks`` NURP instances at eps* = 2 eps."""
    rows = [{"method": m, "n": 75, "instance": k,
             "eps_star": 2 * EPS if m == "NURP" and k < nurp_leaks else EPS / 2}
            for k in range(instances) for m in ("NURP", "RURP")]
    return pd.DataFrame(rows)


def test_robust_leak_claims_three_ways() -> None:
    """"More outliers than alpha": held at 10%, refuted at 0.3%, open at 0 of 30."""
    def verdicts(leaks: int, instances: int) -> tuple[ClaimOutcome, ClaimOutcome]:
        claims = robust_leak_claims(_leak_table(leaks, instances), 75)
        return (claims["robust privacy does not always keep eps* <= eps"].verdict,
                claims["NURP has more outliers than expected"].verdict)

    assert verdicts(100, 1000) == (ClaimOutcome.REPRODUCED, ClaimOutcome.REPRODUCED)
    assert verdicts(3, 1000) == (ClaimOutcome.REPRODUCED, ClaimOutcome.NOT_REPRODUCED)
    assert verdicts(0, 30) == (ClaimOutcome.NOT_RESOLVED, ClaimOutcome.NOT_RESOLVED)
    measured = robust_leak_claims(_leak_table(3, 1000), 75)[
        "NURP has more outliers than expected"].measured
    assert "3/1000" in measured


@pytest.mark.slow
def test_full_scatter_forms(tmp_path) -> None:
    """Fig. 2a/2b at the paper's size (K = 30)."""
    tables = _run(("robust-opt-fig2a", "robust-opt-fig2b"), tmp_path, quick=False)
    for table in tables.values():
        assert table["instance"].nunique() == 30
        assert_scatter_findings(table)


@pytest.mark.slow
def test_full_curve_form(tmp_path) -> None:
    """Fig. 2c/2d at the paper's size (K = 1000 per n; about an hour on 2 cores)."""
    table = _run(("robust-opt-fig2c",), tmp_path, quick=False)["robust-opt-fig2c"]
    assert table.groupby("n")["instance"].nunique().eq(1000).all()
    finding = BY_ID["robust-opt-fig2c"].summarise(table)
    assert finding.count(ClaimOutcome.NOT_RESOLVED) == 0, finding.claims
    assert BY_ID["robust-opt-fig2d"].summarise(table).holds


def test_scatter_claims_state_their_medians_and_fail_on_a_planted_leak() -> None:
    """A table where NURP's median eps* exceeds eps: that claim is not reproduced and its
    measured text quotes the median; the others keep theirs."""
    eps = SETTING["eps"]
    values = {"NUNP": (3 * eps, 0.1), "RUNP": (3 * eps, 0.1), "NURP": (2 * eps, 0.5),
              "RURP": (eps / 2, 0.5)}
    table = pd.DataFrame([{"method": m, "n": 15_000, "instance": k, "eps_star": e, "D_star": d}
                          for m, (e, d) in values.items() for k in range(5)])
    claims = {c.claim: c for c in summarise_scatter(table).claims}
    leak = claims["NURP median eps* <= eps"]
    assert leak.verdict is ClaimOutcome.NOT_REPRODUCED
    assert f"median eps* {2 * eps:.3g}" in leak.measured
    assert claims["RURP median eps* <= eps"].verdict is ClaimOutcome.REPRODUCED
    assert all(c.measured for c in claims.values())
