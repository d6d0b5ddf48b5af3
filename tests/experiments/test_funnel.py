"""Figs. 3-5 of ``privacy-funnel-ldp-lip.txt``: the quick forms, judged from their CSVs.

Each quick form runs through the runner once (serial) and its CSV is read
back. The utilities are checked against facts independent of the solvers:
the order of the optimal utilities implied by Lemmas 1-2 (feasible-set
containments), ``I(X;Y) <= H(X)``, monotonicity in ``eps``, and ``I(X;Y) =
H(X)`` whenever the identity protocol already meets the guarantee (decided
here from ``p_{S,X}`` directly). Times are data, never asserted (the time
checks of the findings are skipped here; they compare ratios in the summary).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.stats import entropy

from rldp_models.experiments.base import ClaimOutcome
from rldp_models.experiments.funnel import EXPERIMENTS, UTILITY_TOLERANCE
from rldp_models.experiments.runner import get, run_experiment
from tests.shared_data import quick_tables

BY_ID = {experiment.id: experiment for experiment in EXPERIMENTS}

MARGIN = 1e-6
"""Relative room when deciding that the identity protocol meets a guarantee."""


@pytest.fixture(scope="module")
def tables(tmp_path_factory: pytest.TempPathFactory) -> dict[str, pd.DataFrame]:
    """Every quick form run once; the CSVs as read back from disk."""
    return quick_tables(EXPERIMENTS, tmp_path_factory.mktemp("funnel"))


def _joint(row: pd.Series) -> np.ndarray:
    """``p_{S,X}`` (attributes flattened) drawn again from the seed: uniform entries, rescaled."""
    shape = tuple(int(size) for size in row["shape"].split("x"))
    table = np.random.default_rng(int(row["seed"])).uniform(size=shape)
    return (table / table.sum()).reshape(shape[0], -1)


def _identity_is_lip(p_sx: np.ndarray, eps: float) -> bool:
    """Definition 2 for ``Y = X``: ``P(s|x) / P(s)`` within ``[e^-eps, e^eps]``."""
    ratio = (p_sx / p_sx.sum(axis=0)) / p_sx.sum(axis=1, keepdims=True)
    bound = np.exp(eps) * (1 - MARGIN)
    return bool(ratio.max() <= bound and 1 / ratio.min() <= bound)


def _identity_is_ldp(p_sx: np.ndarray, eps: float) -> bool:
    """Definition 1 for ``Y = X``: ``P(x|s) / P(x|s')`` at most ``e^eps``."""
    given = p_sx / p_sx.sum(axis=1, keepdims=True)
    return bool((given.max(axis=0) / given.min(axis=0)).max() <= np.exp(eps) * (1 - MARGIN))


def _paired(table: pd.DataFrame) -> pd.DataFrame:
    return table.pivot_table(index=["instance", "eps"], columns="method",
                             values="mutual_information")


def _without_time(checks: dict[str, bool]) -> dict[str, bool]:
    timing = ("time", "slower", "faster")
    return {name: ok for name, ok in checks.items() if not any(w in name for w in timing)}


def test_registered() -> None:
    for experiment_id in ("funnel-fig3", "funnel-fig4", "funnel-fig5"):
        assert get(experiment_id) is BY_ID[experiment_id]
        assert not BY_ID[experiment_id].needs_data  # Sec. VI uses synthetic data only
    full = BY_ID["funnel-fig5"].tasks(False)
    assert len(full) == 10 and all(task["eps"] == [0.5, 1.0, 1.5, 2.0] for task in full)


@pytest.mark.parametrize(("experiment_id", "richer", "poorer"), [
    ("funnel-fig3", "eps-LIP (Thm 2)", "eps-LDP (Thm 1)"),      # Lemma 1 (1)
    ("funnel-fig4", "eps-LDP (Thm 1)", "eps/2-LIP (Thm 2)"),    # Lemma 1 (2)
    ("funnel-fig5", "eps-LIP (Thm 2)", "eps-SRLIP (Thm 3)"),    # Lemma 2
])
def test_utility_order(tables: dict[str, pd.DataFrame], experiment_id: str, richer: str,
                       poorer: str) -> None:
    utility = _paired(tables[experiment_id])
    assert (utility[richer] >= utility[poorer] - UTILITY_TOLERANCE).all()
    finding = BY_ID[experiment_id].summarise(tables[experiment_id])
    assert all(_without_time(finding.checks).values()), finding.text


@pytest.mark.parametrize("experiment_id", sorted(BY_ID))
def test_bounds_and_monotonicity(tables: dict[str, pd.DataFrame], experiment_id: str) -> None:
    table = tables[experiment_id]
    assert table["certified"].all()
    assert (np.isfinite(table["seconds"]) & (table["seconds"] > 0)).all()
    for _, row in table.iterrows():
        p_sx = _joint(row)
        assert row["mutual_information"] <= entropy(p_sx.sum(axis=0)) + UTILITY_TOLERANCE
        assert row["outputs"] <= p_sx.shape[1]  # Theorems 1 (1) and 2 (1): b <= a
    for _, curve in table.groupby(["instance", "method"]):
        values = curve.sort_values("eps")["mutual_information"].to_numpy()
        assert (np.diff(values) >= -UTILITY_TOLERANCE).all()  # feasible sets grow with eps


def test_identity_when_feasible(tables: dict[str, pd.DataFrame]) -> None:
    """When ``Y = X`` meets the guarantee, the optimum keeps all of ``H(X)``."""
    feasible = 0
    for experiment_id in ("funnel-fig3", "funnel-fig4"):
        for _, row in tables[experiment_id].iterrows():
            p_sx = _joint(row)
            meets = _identity_is_ldp if "LDP" in row["method"] else _identity_is_lip
            if meets(p_sx, row["level"]):
                feasible += 1
                assert row["mutual_information"] == pytest.approx(entropy(p_sx.sum(axis=0)),
                                                                  rel=1e-6)
    assert feasible > 0


def test_srlip_gap_is_sizable(tables: dict[str, pd.DataFrame]) -> None:
    """Fig. 5: SRLIP keeps clearly less than LIP, least so at the largest eps."""
    utility = _paired(tables["funnel-fig5"])
    share = (utility["eps-SRLIP (Thm 3)"] / utility["eps-LIP (Thm 2)"]).groupby(level="eps").mean()
    assert share.max() < 0.9
    assert share.iloc[-1] > share.iloc[0]


def test_summary_can_fail(tables: dict[str, pd.DataFrame]) -> None:
    """Swapping the two protocols' utilities breaks the order the finding checks."""
    table = tables["funnel-fig3"].copy()
    first = table["method"] == "eps-LDP (Thm 1)"
    table.loc[first, "mutual_information"] += 0.5
    checks = BY_ID["funnel-fig3"].summarise(table).checks
    assert not checks["eps-LIP (Thm 2) has at least the utility of eps-LDP (Thm 1) everywhere"]


def _time_claim(table: pd.DataFrame, ldp_over_lip: float):
    """Fig. 3's time claim after setting every LDP time to ``ldp_over_lip`` times LIP's."""
    scaled = table.copy()
    ldp = scaled["method"] == "eps-LDP (Thm 1)"
    scaled.loc[ldp, "seconds"] = scaled.loc[~ldp, "seconds"].to_numpy() * ldp_over_lip
    claims = BY_ID["funnel-fig3"].summarise(scaled).claims
    return next(c for c in claims if "much faster" in c.claim)


def test_time_claim_states_the_finding(tables: dict[str, pd.DataFrame]) -> None:
    """The paper's "LIP much faster" is judged on the measured ratio, with the reason."""
    slower = _time_claim(tables["funnel-fig3"], 0.85)
    assert slower.verdict is ClaimOutcome.NOT_REPRODUCED
    assert "0.85" in slower.measured and "vertex enumeration" in slower.reason
    assert _time_claim(tables["funnel-fig3"], 6500.0).verdict is ClaimOutcome.REPRODUCED


@pytest.mark.slow
@pytest.mark.parametrize("experiment_id", sorted(BY_ID))
def test_full_form(tmp_path, experiment_id: str) -> None:
    """The paper's sizes: 10 instances, eps in {0.5, 1, 1.5, 2}; the same utility findings."""
    result = run_experiment(BY_ID[experiment_id], tmp_path, quick=False, progress=False)
    table = pd.read_csv(result.paths["csv"])
    assert table["instance"].nunique() == 10
    finding = BY_ID[experiment_id].summarise(table)
    assert all(_without_time(finding.checks).values()), finding.text
