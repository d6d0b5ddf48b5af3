"""``rldp solve --uncertainty chi2|kl|tv|box [--radius R]``."""

from __future__ import annotations

import contextlib
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import chi2

from rldp_models.cli import main
from rldp_models.data import Crosstab
from rldp_models.uncertainty import KLBallSet, TotalVariationSet
from tests.shared_data import result_fields, without_warnings

COUNTS = np.array([[30, 22, 9, 4], [12, 25, 20, 8], [3, 9, 0, 27]])


@pytest.fixture
def counts_file(tmp_path: Path) -> Path:
    path = tmp_path / "counts.csv"
    Crosstab.from_array(COUNTS).to_csv(path)
    return path


def solve(counts_file: Path, tmp_path: Path, *extra: str) -> tuple[int, dict]:
    out = tmp_path / "out.json"
    code = main(["solve", "RURP", "--counts", str(counts_file), "--eps", "1",
                 "--out", str(out), *extra])
    return code, result_fields(out) if out.exists() else {}


def test_kl_default_radius_is_wilks_and_is_recorded(counts_file: Path, tmp_path: Path) -> None:
    code, record = solve(counts_file, tmp_path, "--uncertainty", "kl")
    assert code == 0 and record["guarantee"]["holds"]
    n, cells = COUNTS.sum(), COUNTS.size
    assert record["uncertainty"]["set"] == "kl"
    assert record["uncertainty"]["radius"] == pytest.approx(chi2.ppf(0.95, cells - 1) / (2 * n))
    # the objective is the worst case over that ball, recomputed here by direct maximisation
    protocol = np.array(record["protocol"])
    d = np.array(record["distortion_matrix"])
    per_cell = np.einsum("suy,uy->su", protocol, d).ravel()
    ball = KLBallSet(COUNTS / COUNTS.sum(), record["uncertainty"]["radius"])
    assert record["objective"] == pytest.approx(ball.worst_case(per_cell)[1], abs=1e-6)


def test_given_radius_is_used(counts_file: Path, tmp_path: Path) -> None:
    code, record = solve(counts_file, tmp_path, "--uncertainty", "tv", "--radius", "0.05")
    assert code == 0
    stated = record["uncertainty"]  # the record's declaration of the set
    assert (stated["set"], stated["radius"], stated["radius_from"]) == ("tv", 0.05, "--radius")
    protocol = np.array(record["protocol"])
    per_cell = np.einsum("suy,uy->su", protocol, np.array(record["distortion_matrix"])).ravel()
    ball = TotalVariationSet(COUNTS / COUNTS.sum(), 0.05)
    assert record["objective"] == pytest.approx(ball.worst_case(per_cell)[1], abs=1e-6)


@pytest.mark.parametrize("extra", [["--uncertainty", "kl", "--radius", "0"],
                                   ["--uncertainty", "box", "--radius", "-0.1"],
                                   ["--uncertainty", "kl", "--solver", "highs"],
                                   ["--uncertainty", "ellipsoid"]])
def test_bad_requests_are_one_line_errors(counts_file: Path, tmp_path: Path, extra: list[str],
                                          capsys) -> None:
    usage_error = "ellipsoid" in extra  # rejected by argparse itself: SystemExit(2)
    with pytest.raises(SystemExit) if usage_error else contextlib.nullcontext():
        code, _ = solve(counts_file, tmp_path, *extra)
        assert code == 2
    assert len(without_warnings(capsys.readouterr().err).strip().splitlines()) == 1
