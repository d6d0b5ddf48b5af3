"""A released file records the digest of the result it was drawn with; estimate checks it."""

from __future__ import annotations

import hashlib
import json

import pandas as pd

from rldp_models.cli import main
from rldp_models.disclosure.records import released_header
from tests.disclosure.adult_results import PUBLIC, SENSITIVE
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


def test_a_file_without_the_digest_is_refused_unless_unchecked(adult, tmp_path, capsys) -> None:
    """Deleting the '# result sha256:' line turned the refusal of a foreign result into a
    warning (issue 35): now nothing binds such a file to any result, so it is refused too."""
    released = tmp_path / "released.csv"
    release(adult, "srr", released, "--seed", "1")
    capsys.readouterr()
    args = ["--out", str(tmp_path / "estimate.csv"), "--draws", "20", "--seed", "0"]
    assert main(["estimate", str(released), "--result", str(adult.results["srr"]), *args]) == 0
    assert "digest" not in capsys.readouterr().err
    (tmp_path / "estimate.csv").unlink()
    stripped = tmp_path / "stripped.csv"  # the seeded mark only, the digest line deleted
    stripped.write_text("".join(line for line in released.read_text().splitlines(keepends=True)
                                if not line.startswith("# result")))
    for result in ("srr", "ir"):  # its own result and a foreign one alike
        code = main(["estimate", str(stripped), "--result", str(adult.results[result]), *args])
        err = without_warnings(capsys.readouterr().err).strip().splitlines()
        assert code == 2 and len(err) == 1 and "records no result digest" in err[0], err
        assert "--unchecked-release" in err[0]
        assert not (tmp_path / "estimate.csv").exists()
    assert main(["estimate", str(stripped), "--result", str(adult.results["srr"]), *args,
                 "--unchecked-release"]) == 0
    assert "read anyway (--unchecked-release)" in capsys.readouterr().err


def test_unchecked_release_accepts_a_mismatching_digest_with_a_warning(adult, tmp_path,
                                                                     capsys) -> None:
    released = tmp_path / "released.csv"
    release(adult, "grr-cr", released)
    capsys.readouterr()
    args = ["estimate", str(released), "--result", str(adult.results["ir"]), "--out",
            str(tmp_path / "estimate.csv"), "--draws", "20", "--seed", "0"]
    assert main(args) == 2
    capsys.readouterr()
    assert main([*args, "--unchecked-release"]) == 0
    err = capsys.readouterr().err
    assert "was released with result sha256:" in err and "--unchecked-release" in err


def test_the_digest_covers_the_output_labels_and_their_order(adult, tmp_path, capsys) -> None:
    """A result whose outputs are permuted (rows permuted alike: the same channel up to labels)
    would label every released value wrongly; its file differs, so estimate refuses it."""
    released = tmp_path / "released.csv"
    release(adult, "srr", released)
    record = json.loads(adult.results["srr"].read_text())
    matrix = record["matrix"]
    order = list(reversed(range(len(matrix["outputs"]))))
    matrix["outputs"] = [matrix["outputs"][k] for k in order]
    matrix["rows"] = [[row[k] for k in order] for row in matrix["rows"]]
    permuted = tmp_path / "srr-permuted.json"
    permuted.write_text(json.dumps(record))
    assert released_header(released).result_digest != \
        "sha256:" + hashlib.sha256(permuted.read_bytes()).hexdigest()
    capsys.readouterr()
    code = main(["estimate", str(released), "--result", str(permuted), "--out",
                 str(tmp_path / "estimate.csv"), "--draws", "20"])
    err = without_warnings(capsys.readouterr().err).strip().splitlines()
    assert code == 2 and len(err) == 1 and "give --result the file it was released with" in err[0]


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
