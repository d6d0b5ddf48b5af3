"""``rldp verify``: round-1 files, hostile records, Python-made results, plug-in blocks,
exit codes 2/3/4 (issue 16)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from rldp_models.cli import main
from rldp_models.cli import ExitCode
from rldp_models.data import Crosstab
from rldp_models.results.files import write_result

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "round1"
SLOW_FIXTURES = {"protocol_ue-cr.json"}


def _counts_of(fixture: str) -> list[str]:
    if fixture.startswith("mechanism"):
        return []
    if "3x3" in fixture or "polyopt_cg" in fixture:
        return ["--counts", str(FIXTURES / "counts_3x3.csv")]
    if fixture.startswith("solve") or fixture == "protocol_polyopt.json":
        return ["--counts", str(FIXTURES / "counts_2x3.csv")]
    return ["--counts", str(FIXTURES / "counts_3x5.csv")]


def rldp(capsys, *args) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.mark.parametrize("fixture", [
    pytest.param(path.name, marks=pytest.mark.slow) if path.name in SLOW_FIXTURES else path.name
    for path in sorted(FIXTURES.glob("*.json"))])
def test_round1_files_still_verify(capsys, fixture: str) -> None:
    code, out, err = rldp(capsys, "verify", FIXTURES / fixture, *_counts_of(fixture))
    assert code == 0, out + err


def test_round1_solve_files_verify_with_their_embedded_counts(capsys) -> None:
    code, out, _ = rldp(capsys, "verify", FIXTURES / "solve_RURP_kl.json")
    assert code == 0 and "embedded" in out


HOSTILE = {
    "deep": "[" * 100_000 + "]" * 100_000,
    "deep-object": '{"a":' * 50_000 + "1" + "}" * 50_000,
    "huge-integer": '{"schema_version": ' + "9" * 5000 + "}",
    "infinity": '{"schema_version": 2, "x": Infinity}',
    "nan": '{"schema_version": NaN}',
    "overflow": '{"schema_version": 1e999}',
    "not-utf8": b"\xff\xfe{}".decode("latin-1"),
    "array": "[1, 2]",
    "empty-object": "{}",
    "truncated": '{"schema_version": 2',
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_files_exit_2_with_one_line(capsys, tmp_path, name: str) -> None:
    path = tmp_path / "hostile.json"
    path.write_bytes(HOSTILE[name].encode("latin-1"))
    code, out, err = rldp(capsys, "verify", path)
    assert code == ExitCode.BAD_INPUT and err.count("\n") == 1 and "Traceback" not in err
    assert out == ""


def _solve_record(tmp_path: Path) -> dict:
    out = tmp_path / "r.json"
    assert main(["solve", "NURP", "--counts", str(FIXTURES / "counts_2x3.csv"), "--eps", "1",
                 "--out", str(out)]) == 0
    return json.loads(out.read_text())


WRONG = {
    "rows-as-text": lambda r: r["matrix"].__setitem__("rows", "0.5"),
    "eps-as-text": lambda r: r["guarantees"][0].__setitem__("eps", "1"),
    "negative-count": lambda r: r["counts"]["table"][0].__setitem__(0, -1),
    "big-count": lambda r: r["counts"]["table"][0].__setitem__(0, 2**60),
    "unknown-version": lambda r: r.__setitem__("schema_version", 3),
    "unknown-key": lambda r: r.__setitem__("Q", [[1.0]]),
    "entry-above-one": lambda r: r["matrix"]["rows"][0].__setitem__(0, 1.5),
    "bad-digest": lambda r: r["counts"].__setitem__("digest", "sha256:00"),
    "labels-not-list": lambda r: r["matrix"].__setitem__("inputs", {"a": 1}),
}


@pytest.mark.parametrize("name", sorted(WRONG))
def test_records_of_wrong_types_exit_2_with_one_line(capsys, tmp_path, name: str) -> None:
    record = _solve_record(tmp_path)
    WRONG[name](record)
    path = tmp_path / "wrong.json"
    path.write_text(json.dumps(record))
    code, _, err = rldp(capsys, "verify", path)
    assert code == ExitCode.BAD_INPUT and err.count("\n") == 1, err


def test_tampered_embedded_counts_are_refused(capsys, tmp_path) -> None:
    record = _solve_record(tmp_path)
    record["counts"]["table"][0][0] += 1
    path = tmp_path / "tampered.json"
    path.write_text(json.dumps(record))
    code, _, err = rldp(capsys, "verify", path)
    assert code == ExitCode.BAD_INPUT and "digest" in err


def test_huge_files_are_refused_before_reading(capsys, tmp_path, monkeypatch) -> None:
    path = tmp_path / "big.json"
    path.write_text(" " * 5000 + "{}")
    monkeypatch.setenv("RLDP_MAX_RECORD_BYTES", "4096")
    code, _, err = rldp(capsys, "verify", path)
    assert code == ExitCode.BAD_INPUT and "RLDP_MAX_RECORD_BYTES" in err


def test_a_bug_is_an_internal_error_not_bad_input(capsys, tmp_path, monkeypatch) -> None:
    from rldp_models.certificates import guarantee

    path = tmp_path / "r.json"
    path.write_text(json.dumps(_solve_record(tmp_path)))

    def broken(*args, **kwargs):
        raise IndexError("index 7 is out of bounds")

    monkeypatch.setattr(guarantee, "declared_guarantee", broken)
    code, out, err = rldp(capsys, "verify", path)
    assert code == ExitCode.INTERNAL_ERROR and err.count("\n") == 1
    assert "internal error" in err and "not in the input" in err and "malformed" not in err


def test_a_failed_inner_solve_is_inconclusive(capsys, tmp_path, monkeypatch) -> None:
    from solvers import SolverError

    from rldp_models.certificates import guarantee

    path = tmp_path / "r.json"
    path.write_text(json.dumps(_solve_record(tmp_path)))

    def failing(*args, **kwargs):
        raise SolverError("Solver 'CLARABEL' failed")

    monkeypatch.setattr(guarantee, "declared_guarantee", failing)
    code, _, err = rldp(capsys, "verify", path)
    assert code == ExitCode.INCONCLUSIVE and "inconclusive" in err and err.count("\n") == 1


def test_a_python_polyopt_result_verifies_from_the_command_line(capsys, tmp_path) -> None:
    from rldp_models.results.protocol_result import polyopt_result
    from rldp_models.rldp_protocols.polyopt import polyopt_protocol

    crosstab = Crosstab.from_csv(FIXTURES / "counts_3x3.csv")
    result = polyopt_result(polyopt_protocol(crosstab, 2.0, method="column-generation",
                                             proof=True), crosstab, 2.0)
    path = tmp_path / "python-polyopt.json"
    write_result(result, path)
    assert (tmp_path / "python-polyopt.proof.npz").exists()
    code, out, err = rldp(capsys, "verify", path)
    assert code == 0, out + err


def test_a_python_lip_result_verifies_from_the_command_line(capsys, tmp_path) -> None:
    from rldp_models.conelp import lip_mechanism
    from rldp_models.results.mechanism_result import lip_result

    joint = np.array([[10, 20, 5, 15], [5, 10, 25, 10]], dtype=float)
    joint /= joint.sum()
    path = tmp_path / "python-lip.json"
    write_result(lip_result(lip_mechanism(joint, 1.0), joint, 1.0), path)
    code, out, err = rldp(capsys, "verify", path)
    assert code == 0 and "certificate: holds" in out, out + err


def test_a_failing_result_is_not_written(tmp_path) -> None:
    from rldp_models.results.files import GuaranteeFailed
    from rldp_models.results.record import migrate
    from rldp_models.results.record import from_record

    record = migrate(json.loads((FIXTURES / "mechanism_rr.json").read_text()))
    record["guarantees"][0]["holds"] = False
    result = from_record(record)
    with pytest.raises(GuaranteeFailed):
        write_result(result, tmp_path / "never.json")
    assert not (tmp_path / "never.json").exists()


def test_schema_command_prints_the_shipped_schema(capsys) -> None:
    from rldp_models.results.schema import schema

    code, out, _ = rldp(capsys, "schema")
    assert code == 0 and json.loads(out) == schema()
    assert schema()["properties"]["schema_version"] == {"const": 2}


JUNK = [None, 5, "x", [], {}, [1, "a"], {"a": 1}, -1, 1e300, True, [[1.0, 0.0]], 0.5]


@pytest.mark.parametrize("fixture", ["solve_RURP.json", "protocol_polyopt.json",
                                     "mechanism_srlip.json", "mechanism_staircase.json"])
def test_records_with_a_field_replaced_by_junk_are_refused_not_crashed(capsys, tmp_path,
                                                                        fixture) -> None:
    """Seeded mutations of (migrated) records: every outcome is a verdict or exit 2, never an
    internal error or a traceback."""
    import copy
    import random

    from rldp_models.results.record import migrate

    base = migrate(json.loads((FIXTURES / fixture).read_text()))
    base.pop("migrated_from")  # a file may not carry it (tested below)
    rng = random.Random(fixture)
    path = tmp_path / "mutated.json"
    for _ in range(15):
        record = copy.deepcopy(base)
        part = record if rng.random() < 0.4 else record[rng.choice(["details", "certificate",
                                                                   "matrix", "declaration"])]
        part[rng.choice(sorted(part))] = rng.choice(JUNK)
        path.write_text(json.dumps(record))
        code, _, err = rldp(capsys, "verify", path, *_counts_of(fixture))
        assert code in (ExitCode.OK, ExitCode.FAILED, ExitCode.BAD_INPUT), err
        if code == ExitCode.BAD_INPUT:
            assert err.count("\n") == 1


def test_a_stored_record_may_not_claim_to_be_a_converted_round1_file(capsys, tmp_path) -> None:
    """``migrated_from`` relaxes the row checks, so only the reader of a round-1 file sets it:
    a current-schema file carrying it is refused, while its round-1 original verifies."""
    from rldp_models.results.record import migrate

    original = FIXTURES / "solve_RURP.json"
    claimed = tmp_path / "claimed.json"
    claimed.write_text(json.dumps(migrate(json.loads(original.read_text()))))
    code, _, err = rldp(capsys, "verify", claimed, *_counts_of("solve_RURP.json"))
    assert code == ExitCode.BAD_INPUT and "migrated_from" in err and err.count("\n") == 1
    code, out, err = rldp(capsys, "verify", original, *_counts_of("solve_RURP.json"))
    assert code == ExitCode.OK, out + err
