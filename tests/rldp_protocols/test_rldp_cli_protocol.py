"""``rldp protocol NAME``: output contract, checker verdict and exit codes, one-line errors."""

from __future__ import annotations
from tests.shared_data import result_fields

from pathlib import Path

import numpy as np
import pytest

from rldp_models.cli import main
from rldp_models.data import Crosstab
from rldp_models.rldp_protocols import checker
from rldp_models.utility import MutualInformation

KEYS = {"Q", "utility_hat", "labels", "eps", "alpha", "n", "radius_B", "parameters", "rldp"}
COUNTS = Crosstab.from_array([[30, 5, 12], [4, 25, 9]], ["f", "m"], ["lo", "mid", "hi"])


@pytest.fixture
def counts_file(tmp_path: Path) -> Path:
    path = tmp_path / "counts.csv"
    COUNTS.to_csv(path)
    return path


def run_protocol(name: str, counts_file: Path, out: Path, *extra: str) -> int:
    return main(["protocol", name, "--counts", str(counts_file), "--eps", "1.5", "--alpha", "0.1",
                 "--out", str(out), *extra])


@pytest.mark.parametrize("name", ["srr", "ir", "grr-cr", "ue-cr", "grr"])
def test_protocol_writes_the_contract_and_passes_its_check(name, counts_file, tmp_path):
    out = tmp_path / "out.json"
    assert run_protocol(name, counts_file, out) == 0
    record = result_fields(out)
    assert KEYS <= set(record)
    Q = np.array(record["Q"])
    assert Q.shape == (6, len(record["labels"]["Y"]))
    assert np.allclose(Q.sum(axis=1), 1.0, atol=1e-12)
    assert record["labels"]["S"] == ["f", "m"] and record["labels"]["U"] == ["lo", "mid", "hi"]
    assert record["labels"]["X"][1] == ["f", "mid"]
    assert record["utility_hat"] == pytest.approx(
        MutualInformation(COUNTS.phat.ravel()).total(Q), rel=1e-12)
    assert (record["eps"], record["alpha"], record["n"]) == (1.5, 0.1, COUNTS.n)
    assert record["radius_B"] > 0
    assert record["rldp"]["attained"] <= record["rldp"]["certified"] <= 1.5


def test_protocol_exits_1_when_the_certified_level_exceeds_eps(counts_file, tmp_path,
                                                               monkeypatch):
    def loose(Q, crosstab, alpha):
        return checker.RLDPLevel(2.0, 1.0, (0, 0, 1), None)

    monkeypatch.setattr(checker, "rldp_epsilon", loose)
    out = tmp_path / "out.json"
    assert run_protocol("grr", counts_file, out) == 1
    assert not out.exists()  # a protocol failing its guarantee is never written


@pytest.mark.parametrize("argv", [
    ["--eps", "-1"],
    ["--eps", "1", "--alpha", "1.5"],
    ["--eps", "1", "--finer"],
    ["--eps", "1", "--solver", "highspy"],
    ["--eps", "1", "--method", "enumerate"],
])
def test_bad_arguments_exit_2_with_one_line(argv, counts_file, tmp_path, capsys):
    with pytest.raises(SystemExit) as stop:
        code = main(["protocol", "ir", "--counts", str(counts_file), "--out",
                     str(tmp_path / "o.json"), *argv])
        raise SystemExit(code)
    assert stop.value.code == 2
    assert len(capsys.readouterr().err.strip().splitlines()) == 1


def test_bad_counts_exit_2_with_one_line(tmp_path, capsys):
    bad = tmp_path / "bad.csv"
    bad.write_text("s,a,b\nx,1,-2\ny,3,4\n")
    assert main(["protocol", "srr", "--counts", str(bad), "--eps", "1", "--out",
                 str(tmp_path / "o.json")]) == 2
    assert len(capsys.readouterr().err.strip().splitlines()) == 1


def test_polyopt_writes_lower_bound_and_certificate(counts_file, tmp_path):
    pytest.importorskip("rldp_models.rldp_protocols.polyopt")
    out = tmp_path / "out.json"
    assert run_protocol("polyopt", counts_file, out) == 0
    record = result_fields(out)
    assert KEYS | {"lower_bound", "certificate"} <= set(record)
    assert record["lower_bound"] <= record["utility_hat"] + 1e-9
    assert record["rldp"]["certified"] <= 1.5


def test_polyopt_methods_agree_and_are_recorded(counts_file, tmp_path):
    """Enumerated and generated rays of Gamma give the same optimum (LP 47 is one LP)."""
    values = {}
    for method in ("enumerate", "column-generation"):
        out = tmp_path / f"{method}.json"
        assert main(["protocol", "polyopt", "--counts", str(counts_file), "--eps", "1.5",
                     "--method", method, "--out", str(out)]) == 0
        record = result_fields(out)
        assert record["parameters"]["method"] == method
        values[method] = record["utility_hat"]
    assert values["enumerate"] == pytest.approx(values["column-generation"], rel=1e-8)
