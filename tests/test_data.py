"""Crosstab counts from CSV and from raw records: labels kept, bad input refused."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from shared_data import ADULT
from rldp_models.cli import main
from rldp_models.data import Crosstab, RecordsWarning
from rldp_models.errors import InputError


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "counts.csv"
    path.write_text(text)
    return path


def test_reads_what_pandas_crosstab_writes(tmp_path: Path) -> None:
    frame = pd.DataFrame({"s": ["b", "a", "b", "c", "a", "a"], "u": [3, 1, 1, 3, 2, 3]})
    path = tmp_path / "crosstab.csv"
    pd.crosstab(frame.s, frame.u).to_csv(path)
    crosstab = Crosstab.from_csv(path)
    assert crosstab.s_labels == ("a", "b", "c") and crosstab.u_labels == ("1", "2", "3")
    np.testing.assert_array_equal(crosstab.counts, [[1, 1, 1], [1, 0, 1], [0, 0, 1]])
    assert crosstab.n == 6
    np.testing.assert_allclose(crosstab.phat.sum(), 1.0)


def test_label_order_is_kept(tmp_path: Path) -> None:
    crosstab = Crosstab.from_csv(write(tmp_path, "s,z,a,m\nsecond,1,2,3\nfirst,4,5,6\n"))
    assert crosstab.s_labels == ("second", "first") and crosstab.u_labels == ("z", "a", "m")


def test_round_trip(tmp_path: Path) -> None:
    original = Crosstab.from_array([[0, 3], [5, 1]], ["x", "y"], ["10", "20"])
    original.to_csv(tmp_path / "t.csv")
    again = Crosstab.from_csv(tmp_path / "t.csv")
    assert again == original


@pytest.mark.parametrize("text, message", [
    ("s,0,1\na,1,-2\n", "nonnegative"),
    ("s,0,1\na,1\n", "ragged"),
    ("s,0,1\na,1,2.5\n", "integers"),
    ("s,0,1\na,1,x\n", "not a number"),
    ("s,0,1\na,0,0\n", "at least one record"),
    ("s,0,0\na,1,2\n", "duplicate"),
    ("s,0,1\n", "at least one S row"),
])
def test_bad_counts_are_refused_with_one_line(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(InputError, match=message) as raised:
        Crosstab.from_csv(write(tmp_path, text))
    assert "\n" not in str(raised.value)


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="cannot read"):
        Crosstab.from_csv(tmp_path / "absent.csv")


def test_records_are_counted_in_natural_label_order(tmp_path: Path) -> None:
    path = tmp_path / "records.csv"
    path.write_text("sex, age\nM, 10\nF, 2\nM, 2\nF, 10\nF, 2\n")
    crosstab = Crosstab.from_records(path, "sex", "age")
    assert crosstab.s_labels == ("F", "M") and crosstab.u_labels == ("2", "10")
    np.testing.assert_array_equal(crosstab.counts, [[2, 1], [1, 1]])


def test_records_with_an_unknown_column(tmp_path: Path) -> None:
    path = tmp_path / "records.csv"
    path.write_text("a,b\n1,2\n")
    with pytest.raises(InputError, match="no column 'c'"):
        Crosstab.from_records(path, "a", "c")


@pytest.mark.skipif(not ADULT.exists(), reason="the shared Adult data is not beside the project")
def test_adult_sex_by_race() -> None:
    crosstab = Crosstab.from_records(ADULT, "sex", "race")
    assert crosstab.n == 32561
    assert crosstab.s_labels == ("Female", "Male")
    assert "White" in crosstab.u_labels and len(crosstab.u_labels) == 5
    frame = pd.read_csv(ADULT, skipinitialspace=True)
    assert crosstab.counts[1, crosstab.u_labels.index("White")] == \
        ((frame.sex == "Male") & (frame.race == "White")).sum()


def test_records_with_an_extra_field_are_not_shifted(tmp_path):
    # a trailing comma gives every record one field more than the header: pandas would take
    # the first column as an index and read S from U's column
    path = tmp_path / "records.csv"
    path.write_text("s,u\na,x,\nb,y,\na,y,\n")
    crosstab = Crosstab.from_records(path, "s", "u")
    assert crosstab.s_labels == ("a", "b") and crosstab.u_labels == ("x", "y")
    assert crosstab.counts.tolist() == [[1, 1], [0, 1]]
    path.write_text("s,u\na,x,\nb,y,5\na,y,\n")  # a field beyond the header's is said, not lost
    with pytest.warns(RecordsWarning, match="more fields than the header"):
        crosstab = Crosstab.from_records(path, "s", "u")
    assert crosstab.counts.tolist() == [[1, 1], [0, 1]]
    path.write_text("s,u\na,x\nb,y,5\n")  # ragged rows: refused in one line
    with pytest.raises(InputError, match="cannot read records"):
        Crosstab.from_records(path, "s", "u")


def test_na_is_a_label_and_empty_fields_are_counted_out_with_a_warning(tmp_path):
    path = tmp_path / "records.csv"
    path.write_text("s,u\nNA,x\nb,None\n,x\nb,\nb,x\n")
    with pytest.warns(RecordsWarning, match="2 of 5 records"):
        crosstab = Crosstab.from_records(path, "s", "u")
    assert crosstab.s_labels == ("NA", "b") and crosstab.u_labels == ("None", "x")
    assert crosstab.counts.tolist() == [[0, 1], [1, 1]]


def test_cli_prints_the_incomplete_records_warning_as_one_line(tmp_path, capsys):
    path = tmp_path / "records.csv"
    path.write_text("s,u\na,x\nb,y\na,\n")
    code = main(["protocol", "grr", "--data", str(path), "--sensitive", "s", "--public", "u",
                 "--eps", "1", "--out", str(tmp_path / "o.json")])
    err = capsys.readouterr().err
    assert code == 0
    assert "rldp: warning: " in err and "1 of 3 records have an empty 's' or 'u' field" in err
