"""``rldp verify`` on every result type: both verdicts, exit codes, tampering, bad input."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from rldp_models.cli import main
from rldp_models.data import Crosstab
from rldp_models.programs import preset
from rldp_models.results.migration import producer_fields
from tests.shared_data import rewritten_copy, without_warnings


def rldp(capsys: pytest.CaptureFixture, *args: str) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    captured = capsys.readouterr()
    return code, captured.out, without_warnings(captured.err)


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    work = tmp_path_factory.mktemp("verify")
    paths = {"prior": work / "prior.csv", "counts": work / "counts.csv"}
    paths["prior"].write_text("x,p\na,1\nb,2\nc,3\nd,4\n")
    Crosstab.from_array(np.array([[5, 0, 3], [2, 6, 1]]), ["A", "B"],
                        ["1", "2", "3"]).to_csv(paths["counts"])
    for name, extra in (("staircase", ["--prior", paths["prior"]]), ("rr", ["--k", "3"])):
        paths[name] = work / f"{name}.json"
        assert main(["mechanism", name, "--eps", "1", *map(str, extra),
                     "--out", str(paths[name])]) == 0
    paths["srr"] = work / "srr.json"
    assert main(["protocol", "srr", "--counts", str(paths["counts"]), "--eps", "1",
                 "--out", str(paths["srr"])]) == 0
    paths["NURP"] = work / "NURP.json"
    assert main(["solve", "NURP", "--counts", str(paths["counts"]), "--eps", "1",
                 "--out", str(paths["NURP"])]) == 0
    paths["NURP-digest"] = work / "NURP-digest.json"
    assert main(["solve", "NURP", "--counts", str(paths["counts"]), "--eps", "1",
                 "--no-embed-counts", "--out", str(paths["NURP-digest"])]) == 0
    paths["srr-digest"] = work / "srr-digest.json"
    assert main(["protocol", "srr", "--counts", str(paths["counts"]), "--eps", "1",
                 "--no-embed-counts", "--out", str(paths["srr-digest"])]) == 0
    return paths


def test_writers_state_their_result_type(files: dict[str, Path]) -> None:
    for name, kind in (("staircase", "mechanism"), ("rr", "mechanism"), ("srr", "protocol"),
                       ("NURP", "solve")):
        assert json.loads(files[name].read_text())["result_type"] == kind


@pytest.mark.parametrize("name", ["staircase", "rr"])
def test_mechanisms_verify_without_counts(files, capsys, name: str) -> None:
    code, out, _ = rldp(capsys, "verify", files[name])
    assert code == 0, out
    lines = out.splitlines()
    assert lines[0].startswith("guarantee: holds")
    assert any(line.startswith("certificate: holds") for line in lines)


def test_a_tampered_lp_dual_is_rejected(files, capsys, tmp_path: Path) -> None:
    def lower(record: dict) -> None:
        record["certificate"]["dual"][0] -= 1e-3

    code, out, _ = rldp(capsys, "verify", rewritten_copy(files["staircase"], tmp_path, lower))
    assert code == 1
    assert "guarantee: holds" in out and "certificate: FAILS" in out
    assert "FAIL: the certificate check failed" in out


def test_a_leaky_mechanism_fails_its_guarantee(files, capsys, tmp_path: Path) -> None:
    def identity(record: dict) -> None:
        record["matrix"]["rows"] = np.eye(3).tolist()

    code, out, _ = rldp(capsys, "verify", rewritten_copy(files["rr"], tmp_path, identity))
    assert code == 1 and "guarantee: FAILS" in out and "FAIL: the guarantee check" in out


def test_protocol_results(files, capsys, tmp_path: Path) -> None:
    code, out, _ = rldp(capsys, "verify", files["srr"], "--counts", files["counts"])
    assert code == 0, out

    def moved_witness(record: dict) -> None:  # a point mass: outside F
        witness = np.zeros((2, 3))
        witness[0, 0] = 1.0
        record["details"]["rldp"]["witness"] = witness.tolist()

    code, out, _ = rldp(capsys, "verify", rewritten_copy(files["srr"], tmp_path, moved_witness),
                        "--counts", files["counts"])
    assert code == 1 and "guarantee: holds" in out and "certificate: FAILS" in out


def test_a_protocol_private_only_at_phat_is_rejected(files, capsys, tmp_path: Path) -> None:
    """NUNP's protocol meets eps at Phat but not over F: as an RLDP protocol it must fail."""
    crosstab = Crosstab.from_csv(files["counts"])
    nominal = preset("NUNP", crosstab, 1.0).solve(solver="clarabel").protocol

    def replaced(record: dict) -> None:
        record["matrix"]["rows"] = nominal.tolist()
        record["matrix"]["outputs"] = record["details"]["labels"]["Y"] = list(crosstab.u_labels)
        record["details"].pop("rldp")

    code, out, _ = rldp(capsys, "verify", rewritten_copy(files["srr"], tmp_path, replaced),
                        "--counts", files["counts"])
    assert code == 1 and "guarantee: FAILS" in out


def test_solve_result_with_tampered_multipliers(files, capsys, tmp_path: Path) -> None:
    def older(record: dict) -> None:  # as written before result_type and kind existed
        flat = producer_fields(record)
        del flat["result_type"], flat["certificate"]["kind"], flat["certificate"]["version"]
        record.clear()
        record.update(flat)

    code, out, _ = rldp(capsys, "verify", rewritten_copy(files["NURP"], tmp_path, older),
                        "--counts", files["counts"])
    assert code == 0, out

    def scaled(record: dict) -> None:
        for values in record["certificate"]["multipliers"].values():
            values["t"] = (np.asarray(values["t"]) + 1.0).tolist()

    code, out, _ = rldp(capsys, "verify", rewritten_copy(files["NURP"], tmp_path, scaled),
                        "--counts", files["counts"])
    assert code == 1 and "guarantee: holds" in out and "certificate: FAILS" in out


@pytest.mark.parametrize("content, args, message", [
    ("{}", [], "not a result"),
    ("[1, 2]", [], "JSON object"),
    ("not json", [], "not JSON"),
])
def test_bad_input_is_one_line_exit_2(capsys, tmp_path: Path, content: str, args, message) -> None:
    path = tmp_path / "bad.json"
    path.write_text(content)
    code, _, err = rldp(capsys, "verify", path, *args)
    assert code == 2 and message in err and err.count("\n") == 1


def test_records_without_embedded_counts_need_them(files, capsys) -> None:
    for name in ("srr-digest", "NURP-digest"):
        code, _, err = rldp(capsys, "verify", files[name])
        assert code == 2 and "--counts" in err and err.count("\n") == 1
        code, out, _ = rldp(capsys, "verify", files[name], "--counts", files["counts"])
        assert code == 0 and "counts: sha256:" in out and "(given)" in out


def test_embedded_counts_are_used_and_their_digest_printed(files, capsys) -> None:
    for name in ("srr", "NURP"):
        code, out, _ = rldp(capsys, "verify", files[name])
        assert code == 0 and "counts: sha256:" in out and "embedded" in out


def test_counts_other_than_the_results_are_refused(files, capsys, tmp_path: Path) -> None:
    other = tmp_path / "other.csv"
    Crosstab.from_array(np.array([[5, 1, 3], [2, 6, 1]]), ["A", "B"], ["1", "2", "3"]).to_csv(other)
    code, _, err = rldp(capsys, "verify", files["NURP"], "--counts", other)
    assert code == 2 and "not the ones the result was made from" in err
