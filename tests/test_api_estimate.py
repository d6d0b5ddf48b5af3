"""``rldp_models.estimate`` is what ``rldp estimate`` wraps (issue 36 items 1, 2 and 5): the same
table from the function and the command, DataFrames in and out, and a figure that is never an
empty panel."""

from __future__ import annotations

import warnings
from pathlib import Path

import matplotlib.image
import numpy as np
import pandas as pd
import pytest

import rldp_models as rldp
from rldp_models.api import EstimateWarning
from rldp_models.cli import main
from rldp_models.data import Crosstab
from rldp_models.errors import InputError
from rldp_models.disclosure.channel import load_result

HAIR = ["Black", "Brown", "Red", "Blond"]
EYES = ["Brown", "Blue", "Hazel", "Green"]
COUNTS = np.array([[68, 20, 15, 5], [119, 84, 54, 29], [26, 17, 14, 14], [7, 94, 10, 16]])


@pytest.fixture(scope="module")
def records() -> pd.DataFrame:
    rows = [(h, e) for i, h in enumerate(HAIR) for j, e in enumerate(EYES)
            for _ in range(COUNTS[i, j])]
    return pd.DataFrame(rows, columns=["hair", "eye"]).sample(frac=1, random_state=1)


@pytest.fixture(scope="module")
def files(records: pd.DataFrame, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """An SRR protocol on the hair x eye table (its channel has full rank: every target is
    estimable) and the records released with it (seeded)."""
    work = tmp_path_factory.mktemp("estimate_api")
    records.to_csv(work / "records.csv", index=False)
    Crosstab.from_array(COUNTS, HAIR, EYES).to_csv(work / "counts.csv")
    assert main(["protocol", "srr", "--counts", str(work / "counts.csv"), "--eps", "2",
                 "--out", str(work / "srr.json"), "-q"]) == 0
    assert main(["release", str(work / "srr.json"), "--data", str(work / "records.csv"),
                 "--sensitive", "hair", "--public", "eye", "--out", str(work / "released.csv"),
                 "--seed", "4", "-q"]) == 0
    return {"records": work / "records.csv", "result": work / "srr.json",
            "released": work / "released.csv", "dir": work}


def estimate_quietly(*args, **kwargs) -> rldp.api.Estimated:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", EstimateWarning)
        return rldp.estimate(*args, **kwargs)


@pytest.mark.parametrize("target", ["U", "S", "X"])
def test_cli_and_function_give_the_same_table(files: dict[str, Path], target: str,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    out = files["dir"] / f"cli_{target}.csv"
    capsys.readouterr()
    code = main(["estimate", str(files["released"]), "--result", str(files["result"]),
                 "--target", target, "--truth", str(files["records"]), "--sensitive", "hair",
                 "--public", "eye", "--out", str(out), "--draws", "60", "--seed", "7"])
    printed = capsys.readouterr()
    with pytest.warns(EstimateWarning, match="NOT FOR RELEASE"):
        called = rldp.estimate(files["released"], files["result"], target=target,
                               truth=files["records"], sensitive="hair", public="eye",
                               draws=60, seed=7)
    assert code == 0 and called.frame["estimable"].all()
    written = pd.read_csv(out).fillna({"reason": ""})  # CSV reads an empty reason as NaN
    pd.testing.assert_frame_equal(written, called.to_frame(), check_dtype=False)
    assert printed.out.splitlines()[:-1] == called.table_text().splitlines()
    assert "NOT FOR RELEASE" in printed.err


def test_the_truth_column_is_the_records_own_marginal(files: dict[str, Path],
                                                      records: pd.DataFrame) -> None:
    """Checked against pandas' own counting, not the channel's distribution."""
    called = estimate_quietly(files["released"], files["result"], target="S", truth=records,
                              sensitive="hair", public="eye", draws=20, seed=0)
    expected = records["hair"].value_counts(normalize=True)
    truth = dict(zip(called.frame["target"], called.frame["truth"]))
    assert truth == pytest.approx({f"P_S({h})": expected[h] for h in HAIR})


def test_a_released_frame_is_estimated_like_its_file(files: dict[str, Path],
                                                     records: pd.DataFrame) -> None:
    solved = load_result(files["result"])[0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        outcome = rldp.release(solved, records, sensitive="hair", public="eye", seed=2)
    released = outcome.to_frame()
    with pytest.warns(EstimateWarning, match="NOT FOR RELEASE"):
        from_frame = rldp.estimate(released, solved, draws=30, seed=1)
    with pytest.warns(EstimateWarning, match="NOT FOR RELEASE"):
        from_outcome = rldp.estimate(outcome, solved, draws=30, seed=1)
    pd.testing.assert_frame_equal(from_frame.to_frame(), from_outcome.to_frame())
    path = files["dir"] / "frame.csv"
    released.to_csv(path, index=False)  # no digest line: read only when accepted unchecked
    with pytest.raises(InputError, match="a result object cannot be checked"):
        rldp.estimate(path, solved, draws=30, seed=1)
    with pytest.warns(EstimateWarning, match="read anyway"):
        from_file = rldp.estimate(path, solved, draws=30, seed=1, unchecked_release=True)
    pd.testing.assert_frame_equal(from_frame.to_frame(), from_file.to_frame())
    assert list(from_frame.frame["target"]) == [f"P_U({e})" for e in EYES]
    assert from_frame.frame["em"].sum() == pytest.approx(1.0)  # P_U, estimated by EM


def test_the_outcome_describes_itself(files: dict[str, Path]) -> None:
    called = estimate_quietly(files["released"], files["result"], target="X", draws=20, seed=0)
    text = called.summary()
    assert "P_X(Blond, Green)" in text and "intervals: 95%" in text
    page = called._repr_html_()
    assert "P_X(Red, Hazel)" in page and "<table" in page
    assert repr(called) == text


def test_a_frame_without_released_values_is_one_line(files: dict[str, Path]) -> None:
    with pytest.raises(InputError, match="no column 'Y'"):
        rldp.estimate(pd.DataFrame({"Z": ["Blue"]}), files["result"])


def dark_fraction(path: Path, box: tuple[slice, slice]) -> float:
    """Share of pixels in ``box`` (rows, columns of the image) that are not near white."""
    image = matplotlib.image.imread(path)[..., :3]
    return float((image[box].min(axis=2) < 0.6).mean())


CENTRE = (slice(100, 380), slice(150, 810))
"""The middle of the axes of an 8 x 4 inch figure at 120 dpi (960 x 480 pixels)."""


def test_the_figure_is_never_an_empty_panel(files: dict[str, Path], records: pd.DataFrame,
                                            tmp_path: Path) -> None:
    """The issue's case: grr-cr on the 4x4 table determines no coordinate of P_U; the figure
    says so in the middle of the panel. An estimable target draws its intervals there."""
    grr = tmp_path / "grr-cr.json"
    assert main(["protocol", "grr-cr", "--counts", str(files["dir"] / "counts.csv"), "--eps",
                 "1", "--out", str(grr), "-q"]) == 0
    figures = {}
    for name, result in (("nothing", grr), ("intervals", files["result"])):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            frame = rldp.release(result, records, sensitive="hair", public="eye",
                                         seed=0).to_frame()
            called = rldp.estimate(frame, result, draws=20, seed=0)
        assert called.estimable == (name == "intervals")
        figures[name] = tmp_path / f"{name}.png"
        called.plot(figures[name])
    assert dark_fraction(figures["nothing"], CENTRE) > 0.002  # the sentence saying why
    image = matplotlib.image.imread(figures["intervals"])[..., :3]
    blue = np.abs(image - np.array([0.12, 0.47, 0.71])).max(axis=2) < 0.05  # EM (tab:blue)
    assert blue[CENTRE].sum() > 50
