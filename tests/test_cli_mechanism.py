"""``rldp mechanism``: output contract, utilities, privacy verdicts and one-line input errors."""

from __future__ import annotations

import json
from fractions import Fraction
from tests.shared_data import result_fields

import argparse
from pathlib import Path

import numpy as np

from rldp_models.privacy import certify_ldp
from rldp_models.finish import dyadic_rows
import pytest

from rldp_models.cli import mechanism as command
from rldp_models.errors import InputError
from rldp_models.mechanisms import randomized_response
from rldp_models.utility import MutualInformation


def run(argv: list[str]) -> int:
    parser = argparse.ArgumentParser()
    command.register(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["mechanism", *argv])
    return args.func(args)


@pytest.fixture
def prior_file(tmp_path: Path) -> Path:
    path = tmp_path / "prior.csv"
    path.write_text("label,count\na,10\nb,30\nc,60\n")
    return path


@pytest.fixture
def counts_file(tmp_path: Path) -> Path:
    path = tmp_path / "counts.csv"
    path.write_text("s,u1,u2\nyes,5,15\nno,30,50\n")
    return path


def test_rr_with_prior(tmp_path: Path, prior_file: Path) -> None:
    out = tmp_path / "rr.json"
    assert run(["rr", "--eps", "1.5", "--prior", str(prior_file), "--out", str(out)]) == 0
    record = result_fields(out)
    Q = np.array(record["Q"])
    # the closed form, finished: dyadic rows, mixed with the uniform mechanism by the recorded
    # weight when rounding broke eps (e^1.5 is irrational; rr sits exactly on the boundary)
    weight = json.loads(out.read_text())["repair"]["weight"]
    assert weight < 1e-11
    expected = dyadic_rows((1 - weight) * randomized_response(1.5, 3) + weight / 3)
    np.testing.assert_array_equal(Q, expected)
    assert all(sum(Fraction(x) for x in row) == 1 for row in Q.tolist())
    assert certify_ldp(Q, 1.5).holds
    assert record["labels"] == {"X": ["a", "b", "c"], "Y": ["a", "b", "c"]}
    assert record["utility"] == pytest.approx(MutualInformation([0.1, 0.3, 0.6]).total(Q))
    assert record["privacy_check"]["holds"] and record["eps"] == 1.5


@pytest.mark.parametrize("argv, notion, n_outputs", [
    (["binary", "--k", "4"], "LDP", 2),
    (["geometric", "--k", "5"], "LDP", 5),
    (["quaternary", "--k", "2", "--delta", "0.1"], "(eps, delta)-LDP", 4),
    (["ue", "--k", "3", "--setting", "symmetric"], "LDP", 8),
    (["urr", "--k", "4", "--sensitive", "0,2"], "ULDP", 4),
    (["urap", "--k", "3", "--sensitive", "1"], "ULDP", 8),
])
def test_every_name_writes_a_checked_mechanism(tmp_path: Path, argv: list[str], notion: str,
                                               n_outputs: int) -> None:
    out = tmp_path / "m.json"
    assert run([*argv, "--eps", "0.7", "--out", str(out)]) == 0
    record = result_fields(out)
    assert record["privacy_check"]["notion"] == notion and record["privacy_check"]["holds"]
    assert len(record["labels"]["Y"]) == n_outputs == len(record["Q"][0])
    assert record["utility"] is None


def test_srr_and_urr_on_a_crosstab(tmp_path: Path, counts_file: Path) -> None:
    out = tmp_path / "srr.json"
    assert run(["srr", "--eps", "1", "--counts", str(counts_file), "--out", str(out)]) == 0
    record = result_fields(out)
    assert record["labels"]["X"] == [["yes", "u1"], ["yes", "u2"], ["no", "u1"], ["no", "u2"]]
    assert record["S"] == ["yes", "no"] and record["privacy_check"]["level"] == pytest.approx(1.0)
    out = tmp_path / "urr.json"
    assert run(["urr", "--eps", "1", "--counts", str(counts_file), "--sensitive", "yes",
                "--out", str(out)]) == 0
    Q = np.array(result_fields(out)["Q"])
    assert np.all(Q[2:, 2:] == np.diag(np.diag(Q[2:, 2:])))  # non-sensitive outputs invertible


@pytest.mark.parametrize("argv", [
    ["rr", "--eps", "1"],
    ["rr", "--eps", "1", "--k", "3", "--prior", "p.csv"],
    ["rr", "--eps", "1", "--k", "1"],
    ["quaternary", "--eps", "1", "--k", "3", "--delta", "0.1"],
    ["quaternary", "--eps", "1", "--k", "2"],
    ["rr", "--eps", "1", "--k", "3", "--delta", "0.1"],
    ["srr", "--eps", "1", "--k", "4"],
    ["urr", "--eps", "1", "--k", "3"],
    ["urr", "--eps", "1", "--k", "3", "--sensitive", "7"],
    ["rr", "--eps", "1", "--prior", "missing.csv"],
])
def test_bad_input_raises_input_error(tmp_path: Path, argv: list[str]) -> None:
    with pytest.raises(InputError):
        run([*argv, "--out", str(tmp_path / "x.json")])


@pytest.mark.parametrize("text", ["label,p\na,0.5\n", "label,p\na,1\nb,x\n",
                                  "label,p\na,1\na,2\n", "label,p\na,-1\nb,2\n",
                                  "label,p\na,1,2\nb,1\n", "label,p\na,0\nb,0\n"])
def test_malformed_priors_are_rejected(tmp_path: Path, text: str) -> None:
    path = tmp_path / "bad.csv"
    path.write_text(text)
    with pytest.raises(InputError):
        command.read_prior(path)


def test_through_the_rldp_entry_point(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    import rldp_models.cli as cli

    monkeypatch.setattr(cli, "SUBCOMMAND_MODULES", ("rldp_models.cli.mechanism",))
    out = tmp_path / "rr.json"
    assert cli.main(["mechanism", "rr", "--eps", "1", "--k", "3", "--out", str(out)]) == 0
    assert cli.main(["mechanism", "rr", "--eps", "1", "--k", "1", "--out", str(out)]) == 2
    error = capsys.readouterr().err
    assert error.startswith("rldp: error:") and error.count("\n") == 1
