"""The Adult loader: the paper's attribute pairs, headerless UCI files, missing files."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from rldp_models.datasets import (ADULT_COLUMNS, ADULT_PAIRS, adult_crosstab,
                                        default_adult_path, load_adult)
from rldp_models.errors import InputError
from tests.shared_data import ADULT

needs_adult = pytest.mark.skipif(not ADULT.exists(), reason="the shared Adult data is absent")

RECORDS = [
    "39, State-gov, 77516, Bachelors, 13, Never-married, Adm-clerical, Not-in-family, White, "
    "Male, 2174, 0, 40, United-States, <=50K",
    "50, Self-emp-not-inc, 83311, Bachelors, 13, Married-civ-spouse, Exec-managerial, Husband, "
    "White, Male, 0, 0, 13, ?, <=50K",
    "38, Private, 215646, HS-grad, 9, Divorced, ?, Not-in-family, Black, Female, 0, 0, 40, "
    "United-States, <=50K",
]


@needs_adult
def test_paper_pairs_have_the_papers_sizes() -> None:
    """Sec. VIII-G: n = 32561; Fig. 11 quotes a_1 = 6, a_2 = 42 for relationship/native-country."""
    shapes = {pair: adult_crosstab(ADULT, *pair).shape for pair in ADULT_PAIRS}
    assert shapes == {("sex", "race"): (2, 5), ("education", "occupation"): (16, 15),
                      ("relationship", "native-country"): (6, 42)}
    assert all(adult_crosstab(ADULT, *pair).n == 32561 for pair in ADULT_PAIRS)


@needs_adult
def test_counts_match_a_direct_count() -> None:
    crosstab = adult_crosstab(ADULT, "relationship", "native-country")
    raw = [line.split(", ") for line in ADULT.read_text().splitlines()[1:] if line.strip()]
    husbands_unknown = sum(1 for r in raw if r[7] == "Husband" and r[13] == "?")
    assert husbands_unknown > 0
    assert crosstab.counts[crosstab.s_labels.index("Husband"),
                           crosstab.u_labels.index("?")] == husbands_unknown


def test_headerless_uci_file_reads_like_one_with_a_header(tmp_path: Path) -> None:
    bare = tmp_path / "adult.data"
    bare.write_text("\n".join(RECORDS) + "\n\n")
    headed = tmp_path / "headed.data"
    headed.write_text(", ".join(ADULT_COLUMNS) + "\n" + "\n".join(RECORDS) + "\n")
    pd.testing.assert_frame_equal(load_adult(bare), load_adult(headed))
    crosstab = adult_crosstab(bare, "sex", "native-country")
    assert crosstab.s_labels == ("Female", "Male") and crosstab.u_labels == ("?", "United-States")
    assert crosstab.counts.tolist() == [[0, 1], [1, 1]]


def test_missing_file_is_a_one_line_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="Adult data not found") as info:
        load_adult(tmp_path / "nowhere" / "adult.data")
    assert "\n" not in str(info.value)


def test_unknown_attribute_and_wrong_width(tmp_path: Path) -> None:
    path = tmp_path / "adult.data"
    path.write_text("\n".join(RECORDS) + "\n")
    with pytest.raises(InputError, match="no Adult attribute 'gender'"):
        adult_crosstab(path, "gender", "race")
    path.write_text("a, b\n1, 2\n")
    with pytest.raises(InputError, match="15 Adult columns"):
        load_adult(path)


def test_default_path_from_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("RLDP_ADULT_DATA", str(tmp_path / "x.data"))
    assert default_adult_path() == tmp_path / "x.data"
    monkeypatch.delenv("RLDP_ADULT_DATA")
    monkeypatch.chdir(tmp_path)  # the default does not depend on the working directory
    default = default_adult_path()
    assert default.is_absolute() and default.parts[-4:] == ("shared", "data", "adult",
                                                            "adult.data")
