"""Releasing records: order, coverage refusal, kept columns, the design-data warning, the CLI."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy.stats import chisquare

from rldp_models import progress as progress_module
from rldp_models.cli import main
from rldp_models.errors import InputError
from rldp_models.disclosure.channel import (GuaranteeNotVerified, load_result, ReleaseChannel,
                                            verified_result)
from rldp_models.data import Crosstab
from rldp_models.disclosure import records
from rldp_models.disclosure.records import ReleaseWarning, release_csv, release_frame
from rldp_models.disclosure.sampling import seeded_random_words
from tests.disclosure.adult_results import PUBLIC, SENSITIVE





@pytest.mark.parametrize("name", ["ir", "grr-cr", "ue-cr"])
def test_product_draws_from_the_factors_fit_the_dense_rows(adult, name) -> None:
    result, _ = load_result(adult.results[name])
    channel = ReleaseChannel.from_result(result)
    dense = channel.protocol.dense()
    words = seeded_random_words(11)
    for s, u in [(0, 0), (1, 3)]:
        codes = channel.draw(np.full(100_000, s), np.full(100_000, u), words)
        index = np.zeros(len(codes), dtype=np.int64)
        for k, size in enumerate(channel.protocol.coordinate_sizes):
            index = index * size + codes[:, k]
        observed = np.bincount(index, minlength=channel.output_count)
        row = dense[channel.row_of[s, u]]
        support = row > 0
        assert observed[~support].sum() == 0
        assert chisquare(observed[support], 100_000 * row[support]).pvalue > 1e-3


def test_release_frame_keeps_order_and_drops_columns(adult) -> None:
    result, _ = load_result(adult.results["srr"])
    frame = pd.read_csv(adult.records, dtype=str).head(500)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        released = release_frame(result, frame, SENSITIVE, PUBLIC, keep=["age"], seed=1)
    assert list(released.columns) == ["age", "Y"]
    assert list(released["age"]) == list(frame["age"])
    messages = " ".join(str(w.message) for w in caught if w.category is ReleaseWarning)
    assert "outside the guarantee" in messages and "NOT FOR RELEASE" in messages
    with pytest.warns(ReleaseWarning, match="NOT FOR RELEASE"):
        again = release_frame(result, frame, SENSITIVE, PUBLIC, seed=1)
    assert list(again["Y"]) == list(released["Y"])


def test_uncovered_records_are_refused_naming_them(adult) -> None:
    result, _ = load_result(adult.results["ir"])
    frame = pd.DataFrame({SENSITIVE: ["Male", "Robot", "Female"],
                          PUBLIC: ["Husband", "Husband", "Alien"]})
    with pytest.raises(InputError, match="Robot.*Alien|Alien.*Robot"):
        release_frame(result, frame, SENSITIVE, PUBLIC)


def test_cli_release_writes_marked_seeded_output_in_order(adult, tmp_path, capsys) -> None:
    out = tmp_path / "released.csv"
    assert main(["release", str(adult.results["grr-cr"]), "--data", str(adult.records),
                 "--sensitive", SENSITIVE, "--public", PUBLIC, "--out", str(out),
                 "--seed", "5"]) == 0
    lines = out.read_text().splitlines()
    assert lines[0].startswith("# NOT FOR RELEASE")
    assert lines[1].startswith("# result sha256:")  # tests/disclosure/test_provenance.py
    assert lines[2] == "Y" and len(lines) == 3 + len(pd.read_csv(adult.records))
    assert "NOT FOR RELEASE" in capsys.readouterr().err


def test_cli_release_refuses_uncovered_records_before_writing(adult, tmp_path, capsys) -> None:
    data = tmp_path / "bad.csv"
    pd.DataFrame({SENSITIVE: ["Male", "Robot"], PUBLIC: ["Husband", "Wife"]}).to_csv(
        data, index=False)
    out = tmp_path / "released.csv"
    code = main(["release", str(adult.results["ir"]), "--data", str(data), "--sensitive",
                 SENSITIVE, "--public", PUBLIC, "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 2 and not out.exists() and list(tmp_path.iterdir()) == [data]
    assert len(err.strip().splitlines()) == 1 and "Robot" in err


def test_cli_release_warns_when_releasing_the_design_records(adult, tmp_path, capsys) -> None:
    out = tmp_path / "released.csv"
    assert main(["release", str(adult.results["ir"]), "--data", str(adult.design), "--sensitive",
                 SENSITIVE, "--public", PUBLIC, "--out", str(out)]) == 0
    assert "designed on exactly these records" in capsys.readouterr().err


def test_release_streams_in_chunks_like_one_pass(adult, tmp_path) -> None:
    # a dense result uses one word per record in record order, whatever the chunks
    result, _ = load_result(adult.results["srr"])
    small, large = tmp_path / "small.csv", tmp_path / "large.csv"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        release_csv(result, adult.records, SENSITIVE, PUBLIC, small, seed=3, chunk_records=1000)
        release_csv(result, adult.records, SENSITIVE, PUBLIC, large, seed=3)
    assert small.read_text() == large.read_text()


@pytest.mark.parametrize("args", [["--sensitive", "nope", "--public", PUBLIC],
                                  ["--sensitive", SENSITIVE, "--public", SENSITIVE]])
def test_cli_release_bad_input_is_one_line_exit_2(adult, tmp_path, capsys, args) -> None:
    code = main(["release", str(adult.results["ir"]), "--data", str(adult.records), *args, "--out",
                 str(tmp_path / "x.csv")])
    err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1


def test_cli_release_refuses_a_tampered_matrix_on_re_verifying(adult, tmp_path, capsys) -> None:
    # rows swapped to the identity: still exact dyadic rows, "holds" still claimed, no privacy
    record = json.loads(adult.results["srr"].read_text())
    size = len(record["matrix"]["rows"])
    record["matrix"]["rows"] = np.eye(size).tolist()
    tampered = tmp_path / "tampered.json"
    tampered.write_text(json.dumps(record))
    out = tmp_path / "released.csv"
    code = main(["release", str(tampered), "--data", str(adult.records), "--sensitive",
                 SENSITIVE, "--public", PUBLIC, "--out", str(out)])
    assert code == 1 and not out.exists()
    assert "does not hold on re-checking" in capsys.readouterr().err


def test_cli_release_refuses_keeping_an_input_column_named_like_the_output(adult, tmp_path,
                                                                          capsys) -> None:
    # a kept input column "Y" was silently overwritten by the released values
    data = tmp_path / "with_y.csv"
    pd.DataFrame({SENSITIVE: ["Male", "Female"], PUBLIC: ["Husband", "Wife"],
                  "Y": ["raw-1", "raw-2"]}).to_csv(data, index=False)
    out = tmp_path / "released.csv"
    code = main(["release", str(adult.results["srr"]), "--no-verify", "--data", str(data),
                 "--sensitive", SENSITIVE, "--public", PUBLIC, "--out", str(out), "--keep", "Y"])
    err = capsys.readouterr().err
    assert code == 2 and not out.exists()
    assert len(err.strip().splitlines()) == 1 and "'Y'" in err


def test_release_reads_rows_with_a_trailing_field_without_shifting_columns(adult,
                                                                           tmp_path) -> None:
    # one field more than the header made pandas take the first column as an index, so every
    # column shifted one place: S was read from U's column
    result, _ = load_result(adult.results["srr"])
    data = tmp_path / "trailing.csv"
    pairs = [("Female", "Wife"), ("Male", "Husband"), ("Male", "Own-child")]
    data.write_text(f"id,{SENSITIVE},{PUBLIC}\n"
                    + "".join(f"{k},{s},{u},\n" for k, (s, u) in enumerate(pairs)))
    channel = ReleaseChannel.from_result(result)
    read = pd.concat(list(records._chunks(data, [SENSITIVE, PUBLIC], 10)))
    assert list(zip(read[SENSITIVE], read[PUBLIC])) == pairs
    assert records._header(data) == ["id", SENSITIVE, PUBLIC]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        summary = release_csv(result, data, SENSITIVE, PUBLIC, tmp_path / "out.csv", seed=0)
    assert summary.records == len(pairs) and channel.output_count > 0


def test_a_mechanism_record_is_re_verified_without_counts(adult, tmp_path) -> None:
    # a mechanism's LDP needs no counts, yet release skipped re-checking it with a warning
    counts = tmp_path / "counts.csv"
    Crosstab.from_records(adult.design, SENSITIVE, PUBLIC).to_csv(counts)
    mechanism = tmp_path / "rr.json"
    assert main(["mechanism", "rr", "--eps", "1", "--counts", str(counts), "--out",
                 str(mechanism), "-q"]) == 0
    _, _, checked = verified_result(mechanism)
    assert checked.startswith("guarantee re-verified")
    record = json.loads(mechanism.read_text())
    record["matrix"]["rows"] = np.eye(len(record["matrix"]["rows"])).tolist()
    tampered = tmp_path / "tampered.json"
    tampered.write_text(json.dumps(record))
    with pytest.raises(GuaranteeNotVerified):
        verified_result(tampered)


def test_a_long_release_shows_progress_up_to_the_record_count(adult, tmp_path, capsys,
                                                              monkeypatch) -> None:
    # release had no progress bar: a million records ran silently
    monkeypatch.setattr(progress_module, "shown", lambda: True)
    result, _ = load_result(adult.results["srr"])
    total = len(pd.read_csv(adult.records, dtype=str))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        release_csv(result, adult.records, SENSITIVE, PUBLIC, tmp_path / "out.csv", seed=0,
                    chunk_records=1000)
    err = capsys.readouterr().err
    assert "checking records" in err and "releasing" in err
    assert f"/{total / 1000:.1f}k" in err  # the bar knows the total from the first pass
