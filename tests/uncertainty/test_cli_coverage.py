"""``rldp coverage`` and the ``--radius-from`` helper."""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from rldp_models import cli
from rldp_models.api import ProgramSpec
from rldp_models.cli.common import warn_if_sparse
from rldp_models.cli.common import add_radius_arguments
from rldp_models.data import Crosstab
from rldp_models.errors import InputError

COUNTS = np.array([[30, 22, 9, 4], [12, 25, 20, 8], [3, 9, 1, 27]])


@pytest.fixture(autouse=True)
def coverage_registered(monkeypatch: pytest.MonkeyPatch) -> None:
    """Register the subcommand whether or not ``cli.SUBCOMMAND_MODULES`` lists it yet."""
    if "rldp_models.cli.coverage" not in cli.SUBCOMMAND_MODULES:
        monkeypatch.setattr(cli, "SUBCOMMAND_MODULES",
                            (*cli.SUBCOMMAND_MODULES, "rldp_models.cli.coverage"))


@pytest.fixture
def counts_file(tmp_path: Path) -> Path:
    path = tmp_path / "counts.csv"
    Crosstab.from_array(COUNTS).to_csv(path)
    return path


def run(*argv: str) -> int:
    try:
        return cli.main(list(argv))
    except SystemExit as exc:  # argparse's own usage errors
        return int(exc.code)


def test_coverage_prints_a_table_and_writes_csv_and_png(counts_file: Path, tmp_path: Path,
                                                         capsys: pytest.CaptureFixture) -> None:
    out = tmp_path / "coverage.csv"
    code = run("coverage", "--counts", str(counts_file), "--alpha", "0.05,0.1", "--draws", "600",
               "--seed", "77", "--n", "100,1000", "--uncertainty", "chi2,kl", "--out", str(out))
    assert code == 0
    printed = capsys.readouterr()
    table = pd.read_csv(out)
    assert len(table) == 2 * 2 * 2 * 2  # sets x alphas x n x references
    assert len(printed.out.splitlines()) == 1 + len(table)
    assert set(table["set"]) == {"chi2", "kl"} and set(table["n"]) == {100, 1000}
    assert (table["draws"] == 600).all()
    assert ((table["low"] <= table["coverage"]) & (table["coverage"] <= table["high"])).all()
    assert out.with_suffix(".png").stat().st_size > 0
    assert "sparse table" in printed.err  # 4 of 12 cells below 5: Cochran's rule warns


@pytest.mark.parametrize("extra", [
    ["--alpha", "1.5"], ["--alpha", "x"], ["--uncertainty", "chi2,nope"], ["--draws", "0"],
    ["--reference", "truth"], ["--n", "ten"], ["--n", "0"], ["--executor", "mpi"],
    ["--radius-from", "bootstrap", "--inner-draws", "10"], ["--confidence", "2"],
    ["--draws", "many"], ["--seed", "-1"], ["--bootstrap-seed", "1"],
])
def test_bad_input_exits_2_with_one_line(counts_file: Path, capsys: pytest.CaptureFixture,
                                         extra: list[str]) -> None:
    code = run("coverage", "--counts", str(counts_file), "--draws", "50", *extra)
    assert code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len([line for line in err if "error" in line]) == 1
    assert not any("Traceback" in line for line in err)


def test_missing_data_and_unwritable_output_exit_2(tmp_path: Path, counts_file: Path,
                                                   capsys: pytest.CaptureFixture) -> None:
    assert run("coverage", "--counts", str(tmp_path / "absent.csv")) == 2
    assert run("coverage", "--counts", str(counts_file), "--draws", "50",
               "--out", str(tmp_path / "no" / "dir.csv")) == 2
    assert "Traceback" not in capsys.readouterr().err


def parsed(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    parser.add_argument("--alpha", type=float, default=0.05)
    parser.add_argument("--uncertainty", default="chi2")
    parser.add_argument("--radius", type=float, default=None)
    add_radius_arguments(parser)
    return parser.parse_args(list(argv))


def test_radius_option_builds_the_asymptotic_or_the_bootstrap_set() -> None:
    crosstab = Crosstab.from_array(COUNTS)
    asymptotic = spec(parsed()).uncertainty_set(crosstab)
    assert asymptotic.radius_source is None and spec(parsed()).radius_source == "alpha"
    args = parsed("--radius-from", "bootstrap", "--bootstrap-draws", "400",
                  "--bootstrap-seed", "3", "--uncertainty", "kl")
    boot = spec(args).uncertainty_set(crosstab)
    assert boot.name == "kl" and spec(args).radius_source == "bootstrap"
    assert boot.radius_source["draws"] == 400 and boot.radius_source["seed"] == 3
    assert boot.radius != asymptotic.radius
    with pytest.raises(InputError):
        spec(parsed("--radius-from", "bootstrap", "--radius", "0.1")).uncertainty_set(crosstab)
    with pytest.raises(InputError):
        spec(parsed("--radius-from", "bootstrap", "--bootstrap-draws", "5")
             ).uncertainty_set(crosstab)
    with pytest.raises(SystemExit):  # a seed numpy refuses is refused as the argument is read
        parsed("--radius-from", "bootstrap", "--bootstrap-seed", "-2")


def spec(args: argparse.Namespace) -> ProgramSpec:
    """The program the radius options describe (RURP at eps 1)."""
    return ProgramSpec("RURP", 1.0, args.alpha, uncertainty=getattr(args, "uncertainty", "chi2"),
                       radius=getattr(args, "radius", None), radius_from=args.radius_from,
                       bootstrap_draws=args.bootstrap_draws, bootstrap_seed=args.bootstrap_seed)


def test_warn_if_sparse_writes_one_line(capsys: pytest.CaptureFixture) -> None:
    assert warn_if_sparse(Crosstab.from_array(np.full((2, 3), 10))) is None
    assert warn_if_sparse(Crosstab.from_array(COUNTS)) is not None
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("rldp: warning: sparse table")
