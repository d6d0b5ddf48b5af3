"""rldp protocol --target says at design time what rldp estimate will find afterwards."""

from __future__ import annotations

import matplotlib.image
import pytest
import sympy

from rldp_models.cli import main
from rldp_models.disclosure.identifiability import exact_channel, target_identifiability
from rldp_models.disclosure.channel import load_result, ReleaseChannel

EYE_HAIR = """eye,Black,Brown,Red,Blond
Brown,68,119,26,7
Blue,20,84,17,94
Hazel,15,54,14,10
Green,5,29,14,16
"""


@pytest.fixture
def eye_hair(tmp_path):
    counts = tmp_path / "eyehair.csv"
    counts.write_text(EYE_HAIR)
    records = tmp_path / "records.csv"
    rows = [line.split(",") for line in EYE_HAIR.splitlines()]
    hair = rows[0][1:]
    records.write_text("eye,hair\n" + "".join(f"{row[0]},{h}\n" for row in rows[1:]
                                             for h, c in zip(hair, row[1:])
                                             for _ in range(int(c))))
    return counts, records


def test_the_issue_table_is_warned_at_design_and_refused_after(eye_hair, tmp_path,
                                                               capsys) -> None:
    """grr-cr -> release -> estimate exited 1 'nothing estimable' (rank 13 of 16) on the 4x4
    eye x hair table, and nothing had warned; the figure was an empty panel."""
    counts, records = eye_hair
    result = tmp_path / "grr-cr.json"
    assert main(["protocol", "grr-cr", "--counts", str(counts), "--eps", "1", "--out",
                 str(result), "--target", "U", "-q"]) == 0
    err = capsys.readouterr().err
    assert "target U: nothing will be estimable from the release (channel rank 13 of 16" in err
    numerators = exact_channel(ReleaseChannel.from_result(load_result(result)[0]))
    assert sympy.Matrix(numerators).rank() == 13  # independently of flint's kernel
    released = tmp_path / "released.csv"
    assert main(["release", str(result), "--data", str(records), "--sensitive", "eye",
                 "--public", "hair", "--out", str(released), "--seed", "0", "-q"]) == 0
    out = tmp_path / "estimate.csv"
    assert main(["estimate", str(released), "--result", str(result), "--target", "U",
                 "--out", str(out), "--draws", "20"]) == 1
    image = matplotlib.image.imread(tmp_path / "estimate.png")
    assert image[..., :3].std() > 0  # a panel that says so, not an empty page


def test_an_estimable_target_is_said_so_and_agrees_with_the_rank_test(eye_hair, tmp_path,
                                                                       capsys) -> None:
    counts, _ = eye_hair
    result = tmp_path / "srr.json"
    assert main(["protocol", "srr", "--counts", str(counts), "--eps", "2", "--out",
                 str(result), "--target", "X", "-q"]) == 0
    out = capsys.readouterr().out
    verdict = target_identifiability(load_result(result)[0], "X")
    numerators = exact_channel(ReleaseChannel.from_result(load_result(result)[0]))
    assert all(verdict.estimable) == (sympy.Matrix(numerators).rank() == 16)
    assert ("every coordinate will be estimable" in out) == all(verdict.estimable)


def test_a_bad_target_is_refused_before_building(eye_hair, tmp_path, capsys) -> None:
    counts, _ = eye_hair
    code = main(["protocol", "grr-cr", "--counts", str(counts), "--eps", "1", "--out",
                 str(tmp_path / "g.json"), "--target", "hair"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "--target hair" in err[0]
    assert not (tmp_path / "g.json").exists()
