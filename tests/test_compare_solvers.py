"""``rldp compare-solvers``: one model, every available solver, one table."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
import pytest

import solvers
from rldp_models.cli import main
from rldp_models.cli.compare_solvers import SolverRow, compare
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
