"""A released file records the digest of the result it was drawn with; estimate checks it."""

from __future__ import annotations

import hashlib

import pandas as pd

from rldp_models.cli import main
from rldp_models.release.provenance import released_header
from tests.release.adult_results import PUBLIC, SENSITIVE
from tests.shared_data import without_warnings


def release(adult, name: str, out, *extra: str) -> None:
    assert main(["release", str(adult.results[name]), "--data", str(adult.records),
                 "--sensitive", SENSITIVE, "--public", PUBLIC, "--out", str(out), "-q",
                 *extra]) == 0


def test_release_records_the_sha256_of_the_result_file(adult, tmp_path) -> None:
    out = tmp_path / "released.csv"
    release(adult, "grr-cr", out, "--seed", "0")
    expected = hashlib.sha256(adult.results["grr-cr"].read_bytes()).hexdigest()  # sha256sum
    lines = out.read_text().splitlines()
    assert lines[0].startswith("# NOT FOR RELEASE")
    assert lines[1] == f"# result sha256:{expected} (grr-cr.json)"
    assert lines[2] == "Y" and len(lines) == 3 + len(pd.read_csv(adult.records))
    header = released_header(out)
    assert (header.lines, header.not_for_release) == (2, True)
    assert header.result_digest == f"sha256:{expected}"


def test_estimate_refuses_another_result_in_one_line(adult, tmp_path, capsys) -> None:
    # grr-cr and ir both release [s~, u~] pairs: through ir's channel, grr-cr's values were
    # estimated without a word (exit 0, wrong numbers)
    released = tmp_path / "released.csv"
    release(adult, "grr-cr", released)
    capsys.readouterr()
    code = main(["estimate", str(released), "--result", str(adult.results["ir"]), "--out",
                 str(tmp_path / "estimate.csv"), "--draws", "20"])
    err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert "was released with result sha256:" in err and "ir.json" in err
    assert not (tmp_path / "estimate.csv").exists()


def test_estimate_refuses_a_changed_copy_of_the_result(adult, tmp_path, capsys) -> None:
    """The digest is of the file's bytes (what sha256sum prints): any change is another file."""
    released = tmp_path / "released.csv"
    release(adult, "srr", released)
    edited = tmp_path / "srr.json"
    edited.write_bytes(adult.results["srr"].read_bytes() + b"\n")
    capsys.readouterr()
    code = main(["estimate", str(released), "--result", str(edited), "--out",
                 str(tmp_path / "estimate.csv"), "--draws", "20"])
    assert code == 2 and "give --result the file it was released with" in capsys.readouterr().err


def test_estimate_with_the_right_result_runs_and_an_old_file_is_read_with_a_warning(
        adult, tmp_path, capsys) -> None:
    released = tmp_path / "released.csv"
    release(adult, "srr", released, "--seed", "1")
    capsys.readouterr()
    args = ["--result", str(adult.results["srr"]), "--out", str(tmp_path / "estimate.csv"),
            "--draws", "20", "--seed", "0"]
    assert main(["estimate", str(released), *args]) == 0
    assert "does not record" not in capsys.readouterr().err
    old = tmp_path / "old.csv"  # as released before the digest line: the seeded mark only
    old.write_text("".join(line for line in released.read_text().splitlines(keepends=True)
                           if not line.startswith("# result")))
    assert main(["estimate", str(old), *args]) == 0
    assert "does not record the result it was released with" in capsys.readouterr().err


def test_a_released_file_given_as_records_is_named_for_what_it_is(adult, tmp_path,
                                                                  capsys) -> None:
    """Its comment lines were read as a header: "no column 'sex'; columns are # result ..."."""
    released = tmp_path / "released.csv"
    release(adult, "srr", released)
    capsys.readouterr()
    commands = [
        ["compare", str(adult.results["srr"]), "--data", str(released), "--sensitive",
         SENSITIVE, "--public", PUBLIC],
        ["release", str(adult.results["srr"]), "--data", str(released), "--sensitive",
         SENSITIVE, "--public", PUBLIC, "--out", str(tmp_path / "again.csv")],
        ["estimate", str(released), "--result", str(adult.results["srr"]), "--out",
         str(tmp_path / "estimate.csv"), "--truth", str(released), "--sensitive", SENSITIVE,
         "--public", PUBLIC]]
    for command in commands:
        assert main(command) == 2, command
        err = without_warnings(capsys.readouterr().err).strip().splitlines()
        assert len(err) == 1 and "is a file rldp release wrote" in err[0], err


def test_a_record_of_another_kind_is_refused_naming_the_file(adult, tmp_path, capsys) -> None:
    table = tmp_path / "table.json"
    table.write_text('{"problem": "NURP", "rows": []}')  # a compare-solvers table
    assert main(["compare", str(table), "--data", str(adult.records), "--sensitive", SENSITIVE,
                 "--public", PUBLIC]) == 2
    err = without_warnings(capsys.readouterr().err).strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"rldp: error: {table}: ")
