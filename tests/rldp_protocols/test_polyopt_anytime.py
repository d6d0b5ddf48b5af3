"""Anytime PolyOpt: at a time limit the best protocol, exactly certified, with a proven gap
that ``rldp verify`` re-checks (issue 37). The LP optimum comes from enumerating Gamma."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from rldp_models.cli import main
from rldp_models.data import Crosstab
from rldp_models.rldp_protocols.polyopt import PolyOptResult, polyopt_protocol
from rldp_models.utility import MutualInformation

COUNTS = Crosstab.from_array([[30, 5, 12], [4, 25, 9], [11, 14, 20]], ["a", "b", "c"],
                             ["lo", "mid", "hi"])
EPS = 1.0


@pytest.fixture(scope="module")
def optimum() -> float:
    """LP (47)'s optimum over all of Gamma's rays (double description, no pricing)."""
    return polyopt_protocol(COUNTS, EPS, method="enumerate").utility_hat


def test_a_stopped_run_returns_a_private_protocol_and_a_valid_gap(optimum: float) -> None:
    result = polyopt_protocol(COUNTS, EPS, method="column-generation", proof=True,
                              time_limit=0.05)
    assert result.stopped_early
    assert result.rldp_certified_eps <= EPS
    assert np.allclose(result.Q.sum(axis=1), 1.0, atol=0)
    utility = MutualInformation(COUNTS.phat.ravel()).total(result.Q)
    gap = result.certificate.proven_gap
    assert gap is not None and utility <= optimum + 1e-9
    assert result.certificate.upper_bound >= optimum - 1e-9
    assert gap >= optimum - utility - 1e-12


@pytest.fixture(scope="module")
def unlimited() -> PolyOptResult:
    """Column generation with the pricing proof, without a time limit."""
    return polyopt_protocol(COUNTS, EPS, method="column-generation", proof=True)


def test_an_unlimited_run_claims_the_optimum(optimum: float, unlimited: PolyOptResult) -> None:
    result = unlimited
    assert not result.stopped_early
    assert result.utility_hat == pytest.approx(optimum, abs=1e-7)
    assert result.certificate.upper_bound - result.utility_hat <= 1e-6


def _verify(record: Path, counts: Path) -> int:
    return main(["verify", str(record), "--counts", str(counts), "-q"])


def test_cli_writes_the_gap_and_verify_rechecks_it(tmp_path: Path, capsys) -> None:
    counts, out = tmp_path / "counts.csv", tmp_path / "po.json"
    COUNTS.to_csv(counts)
    code = main(["protocol", "polyopt", "--counts", str(counts), "--eps", str(EPS),
                 "--method", "column-generation", "--time-limit", "0.05", "--out", str(out)])
    assert code == 0
    captured = capsys.readouterr()
    assert "proven within" in captured.out and "round 1" in captured.err
    record = json.loads(out.read_text())
    claimed = record["certificate"]["proven_gap"]
    assert claimed > 0
    assert _verify(out, counts) == 0
    record["certificate"]["proven_gap"] = claimed / 4
    tampered = tmp_path / "tampered.json"
    tampered.write_text(json.dumps(record))
    assert _verify(tampered, counts) == 1
    del record["certificate"]["pricing_proof"]
    record["certificate"]["proven_gap"] = claimed
    missing = tmp_path / "missing.json"
    missing.write_text(json.dumps(record))
    assert _verify(missing, counts) == 1


def test_quiet_hides_the_round_lines(tmp_path: Path, capsys) -> None:
    counts, out = tmp_path / "counts.csv", tmp_path / "po.json"
    COUNTS.to_csv(counts)
    assert main(["protocol", "polyopt", "--counts", str(counts), "--eps", str(EPS), "-q",
                 "--method", "column-generation", "--time-limit", "0.05",
                 "--out", str(out)]) == 0
    assert "round" not in capsys.readouterr().err


def test_the_estimate_is_within_3x_of_held_out_measurements() -> None:
    """``benchmarks/polyopt_estimate.json`` holds CPU seconds measured on Jeffreys draws; the
    estimate was fitted on seed 0 only."""
    from rldp_models.cli.preflight import polyopt_seconds

    measured = json.loads((Path(__file__).parents[2] / "benchmarks" /
                           "polyopt_estimate.json").read_text())["runs"]
    held_out = [r for r in measured if r["seed"] == 1 and not r["stopped"]]
    assert len(held_out) >= 10
    for run in held_out:
        ratio = run["cpu_seconds"] / polyopt_seconds(run["cells"], run["eps"])
        assert 1 / 3 <= ratio <= 3, run
    assert polyopt_seconds(16, 2.0) == float("inf")


def test_cli_says_unknown_beyond_its_estimates(tmp_path: Path, capsys) -> None:
    counts, out = tmp_path / "counts.csv", tmp_path / "po.json"
    Crosstab.from_array([[5, 3, 2, 4], [2, 6, 3, 1], [1, 2, 7, 3], [4, 1, 2, 6]]).to_csv(counts)
    assert main(["protocol", "polyopt", "--counts", str(counts), "--eps", "2",
                 "--time-limit", "0.05", "--out", str(out)]) == 0
    err = capsys.readouterr().err
    assert "time unknown: may take hours" in err and "round 1" in err


def test_an_outer_deadline_is_the_anytime_limit(monkeypatch) -> None:
    # a Python caller's deadline (solvers.deadline.limited) is PolyOpt's time limit:
    # column generation gets its share of the seconds the deadline leaves
    from rldp_models.rldp_protocols import polyopt
    from solvers import deadline

    given = []

    class Recording(polyopt.RoundWatch):
        def __init__(self, label, shown, seconds=None, **kwargs) -> None:
            given.append(seconds)
            super().__init__(label, shown, seconds, **kwargs)

    monkeypatch.setattr(polyopt, "RoundWatch", Recording)
    with deadline.limited(60.0):
        result = polyopt_protocol(COUNTS, EPS, method="column-generation", proof=True)
    assert given[0] is not None and given[0] <= polyopt.PRICING_SHARE * 60.0
    assert all(seconds is not None and seconds <= 60.0 for seconds in given)
    assert result.rldp_certified_eps <= EPS


def test_a_deadline_after_the_first_protocol_raises_with_it(
        optimum: float, unlimited: PolyOptResult, monkeypatch) -> None:
    # the deadline passes in the second stage (Q^2): the exception carries Q^1, certified,
    # with its claim (optimal, or its proven gap), not None
    from rldp_models.rldp_protocols import polyopt
    from solvers import deadline

    def late(*args, **kwargs):
        raise deadline.TimeLimitReached(1.0, "highspy solve")

    monkeypatch.setattr(polyopt, "_second_stage", late)
    with pytest.raises(deadline.TimeLimitReached) as raised:
        polyopt_protocol(COUNTS, EPS, method="column-generation", proof=True)
    best = raised.value.best
    assert isinstance(best, polyopt.PolyOptResult)
    assert np.array_equal(best.Q, unlimited.Q) and np.array_equal(best.Q2, best.Q)
    assert best.lower_bound == 0.0 and best.rldp_certified_eps <= EPS
    assert np.array_equal(best.certificate.dual, unlimited.certificate.dual)
    assert best.certificate.proven_gap == unlimited.certificate.proven_gap  # Q^1's claim
    utility = MutualInformation(COUNTS.phat.ravel()).total(best.Q)
    assert utility <= optimum + 1e-9 <= best.certificate.upper_bound + 2e-9
    claimed = best.certificate.proven_gap
    assert (claimed if claimed is not None else 1e-6) >= optimum - utility - 1e-12
