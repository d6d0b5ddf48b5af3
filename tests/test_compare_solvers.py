"""``rldp compare-solvers``: one model, every available solver, one table."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
import pytest

import solvers
from rldp_models.cli import main
from rldp_models.api.solver_comparison import SolverRow, compare
from rldp_models.data import Crosstab
from rldp_models.programs import preset
from tests.shared_data import without_warnings

COUNTS = np.array([[30, 22, 9, 4], [12, 25, 20, 8], [3, 9, 0, 27]])


@pytest.fixture
def counts_file(tmp_path: Path) -> Path:
    path = tmp_path / "counts.csv"
    Crosstab.from_array(COUNTS).to_csv(path)
    return path


def test_nunp_table_agrees_across_solvers(counts_file: Path, tmp_path: Path, capsys) -> None:
    out = tmp_path / "table.csv"
    code = main(["compare-solvers", "NUNP", "--counts", str(counts_file), "--eps", "1",
                 "--out", str(out)])
    assert code == 0
    rows = {row["solver"]: row for row in csv.DictReader(out.open())}
    assert set(rows) == set(solvers.registered())
    # independent reference: the same program solved here, outside the command
    expected = preset("NUNP", Crosstab.from_array(COUNTS), 1.0).solve("ecos").result.objective
    solved = [name for name, row in rows.items() if row["status"] == "optimal"]
    assert {"clarabel", "highs"} <= set(solved)
    for name in solved:
        assert float(rows[name]["objective"]) == pytest.approx(expected, abs=1e-6)
        assert abs(float(rows[name]["objective_diff"])) <= 1e-6
    assert float(rows["clarabel"]["max_primal_diff"]) == 0.0
    for name, status in solvers.describe().items():
        if not status.ok:
            assert rows[name]["status"] == "unavailable" and rows[name]["note"] == status.reason
    assert "differences against clarabel" in capsys.readouterr().out


def test_registry_duals_follow_cvxpys_sign_convention(counts_file: Path) -> None:
    """Privacy rows are ``<=`` constraints: their multipliers must be >= 0 for every solver."""
    for name in ("clarabel", "highs", "ecos"):
        result = solvers.solve(preset("NUNP", Crosstab.from_array(COUNTS), 1.0), solver=name)
        assert np.all(result.dual["privacy"] >= -1e-7), name
        assert float(result.dual["privacy"].sum()) > 0, name  # some privacy row binds


def test_a_flipped_dual_is_detected_and_reported() -> None:
    base = SolverRow("a", "optimal", objective=1.0, primal=np.zeros(2),
                     dual={"privacy": np.array([0.5, 0.0, 2.0])})
    other = SolverRow("b", "optimal", objective=1.0, primal=np.zeros(2),
                      dual={"privacy": np.array([-0.5, 0.0, -2.0])})
    assert compare([base, other], "a") == "a"
    assert other.max_dual_diff == pytest.approx(0.0)
    assert "privacy" in other.note


def test_robust_kl_model_skips_lp_solvers_with_a_reason(counts_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "table.json"
    assert main(["compare-solvers", "RUNP", "--counts", str(counts_file), "--eps", "1",
                 "--uncertainty", "kl", "--out", str(out)]) == 0
    table = json.loads(out.read_text())
    rows = {row["solver"]: row for row in table["rows"]}
    assert rows["highs"]["status"] == "skipped" and "conic" in rows["highs"]["note"]
    assert table["uncertainty"] == "kl"


@pytest.mark.parametrize("extra", [["--out", "table.txt"], ["--reference", "nosuchsolver"]])
def test_bad_arguments_are_one_line_errors(counts_file: Path, extra: list[str], capsys) -> None:
    assert main(["compare-solvers", "NUNP", "--counts", str(counts_file), "--eps", "1",
                 *extra]) == 2
    assert len(without_warnings(capsys.readouterr().err).strip().splitlines()) == 1


class SilentFailure:
    """A backend that fails and says nothing (as scs-direct's 'error' did: an empty note)."""

    name, form, description = "silent-failure", "cvxpy", "fails without a message"

    def availability(self) -> solvers.Availability:
        return solvers.Availability(True)

    def solve(self, model, /, **options) -> solvers.SolveResult:  # type: ignore[no-untyped-def]
        return solvers.SolveResult(solvers.Status.ERROR, None, solver=self.name)


def test_every_row_without_a_solution_says_why(counts_file: Path, tmp_path: Path,
                                               capsys) -> None:
    out = tmp_path / "table.json"
    solvers.register(SilentFailure(), replace=True)
    try:
        assert main(["compare-solvers", "RURP", "--counts", str(counts_file), "--eps", "1",
                     "--out", str(out)]) == 0
    finally:
        solvers.registry._BACKENDS.pop("silent-failure")
    rows = {row["solver"]: row for row in json.loads(out.read_text())["rows"]}
    assert rows["silent-failure"]["status"] == "error"
    assert "silent-failure returned error" in rows["silent-failure"]["note"]
    assert "solvers that also take this model: " in rows["silent-failure"]["note"]
    for row in rows.values():
        if row["objective"] is None:
            assert row["note"], row
    err = capsys.readouterr().err
    assert "compare-solvers: clarabel-direct (the default) took" in err  # the fast path first


def test_a_solver_stopped_by_its_budget_says_so_and_is_still_checked(counts_file: Path,
                                                                     tmp_path: Path) -> None:
    """--budget reaches SCS as its time limit: with a budget far below one iteration's
    convergence check it stops with an inaccurate iterate, which is finished exactly."""
    out = tmp_path / "table.json"
    assert main(["compare-solvers", "RURP", "--counts", str(counts_file), "--eps", "1",
                 "--budget", "1e-6", "--out", str(out)]) == 0
    rows = {row["solver"]: row for row in json.loads(out.read_text())["rows"]}
    for name in ("scs", "scs-direct"):
        assert rows[name]["status"] == "optimal_inaccurate", rows[name]
        assert "stopped at its budget" in rows[name]["note"]
        assert rows[name]["exact"] == "passes"
    assert rows["clarabel-direct"]["status"] == "optimal"  # the default runs unbounded
    assert "budget" not in rows["clarabel-direct"]["note"]


def test_scs_direct_stopped_at_its_iteration_limit_returns_its_iterate() -> None:
    """SCS's status text varies ('solved (inaccurate - reached max_iters)'); its integer
    status 2 is 'solved inaccurate' (what cvxpy's SCS interface reads), not an error."""
    program = preset("RURP", Crosstab.from_array(COUNTS), 1.0)
    result = solvers.solve(program, solver="scs-direct", max_iters=5)
    assert result.status is solvers.Status.OPTIMAL_INACCURATE, result.log
    assert "reached max_iters" in result.log and "protocol" in result.primal
