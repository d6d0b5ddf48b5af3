"""Crosstabs from pandas (issue 36 item 1): the same table through a records CSV, a crosstab
CSV, a DataFrame and ``pandas.crosstab`` is the same crosstab, label order included."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from rldp_models.data import Crosstab, RecordsWarning
from rldp_models.errors import InputError

RECORDS = pd.DataFrame({
    "eye": ["Brown", "Blue", "Hazel", "Blue", "Brown", "Green", "Brown", "Blue", "Hazel"],
    "age": [10, 2, 30, 2, 10, 2, 30, 30, 10],
})


def brute_counts(frame: pd.DataFrame, s: str, u: str, rows, columns, weights=None):
    """Counts by a loop over the records: independent of pandas' grouping."""
    counts = np.zeros((len(rows), len(columns)), dtype=int)
    for _, record in frame.iterrows():
        counts[rows.index(str(record[s])), columns.index(str(record[u]))] += \
            1 if weights is None else int(record[weights])
    return counts


def test_four_routes_give_one_crosstab(tmp_path: Path) -> None:
    path = tmp_path / "records.csv"
    RECORDS.to_csv(path, index=False)
    from_records = Crosstab.from_records(path, "eye", "age")
    from_frame = Crosstab.from_frame(RECORDS, "eye", "age")
    from_crosstab = Crosstab.from_crosstab(pd.crosstab(RECORDS.eye, RECORDS.age))
    from_frame.to_csv(tmp_path / "counts.csv")
    from_csv = Crosstab.from_csv(tmp_path / "counts.csv")
    rows, columns = ["Blue", "Brown", "Green", "Hazel"], ["2", "10", "30"]  # numeric-aware
    expected = Crosstab.from_array(brute_counts(RECORDS, "eye", "age", rows, columns),
                                   rows, columns)
    assert from_records == from_frame == from_crosstab == from_csv == expected


def test_categorical_order_is_kept_unobserved_categories_included() -> None:
    frame = RECORDS.assign(eye=pd.Categorical(RECORDS.eye, ["Hazel", "Green", "Brown", "Blue",
                                                            "Grey"]))
    crosstab = Crosstab.from_frame(frame, "eye", "age")
    assert crosstab.s_labels == ("Hazel", "Green", "Brown", "Blue", "Grey")
    assert crosstab.counts[-1].sum() == 0
    table = pd.crosstab(frame.eye, frame.age, dropna=False)
    assert Crosstab.from_crosstab(table) == crosstab


def test_weights_count_records() -> None:
    frame = RECORDS.assign(w=[1, 2, 3, 4, 5, 6, 7, 8, 9])
    crosstab = Crosstab.from_frame(frame, "eye", "age", weights="w")
    expected = brute_counts(frame, "eye", "age", list(crosstab.s_labels),
                            list(crosstab.u_labels), "w")
    np.testing.assert_array_equal(crosstab.counts, expected)
    assert crosstab.n == 45


def test_float_column_with_missing_values_keeps_integer_labels() -> None:
    frame = pd.DataFrame({"s": ["a", "b", "a", None], "u": [1.0, 2.0, np.nan, 2.0]})
    with pytest.warns(RecordsWarning, match="2 of 4 records"):
        crosstab = Crosstab.from_frame(frame, "s", "u")
    assert crosstab.u_labels == ("1", "2")


@pytest.mark.parametrize("call, message", [
    (lambda: Crosstab.from_frame(RECORDS, "eye", "hair"), "no column 'hair'"),
    (lambda: Crosstab.from_frame(RECORDS, "eye", "eye"), "same column"),
    (lambda: Crosstab.from_frame(RECORDS.assign(w=0.5), "eye", "age", "w"), "integers"),
    (lambda: Crosstab.from_crosstab(pd.crosstab(RECORDS.eye, RECORDS.age, margins=True)),
     "margins"),
    (lambda: Crosstab.from_crosstab(pd.crosstab(RECORDS.eye, RECORDS.age, normalize=True)),
     "integers"),
    (lambda: Crosstab.from_frame([[1, 2]], "a", "b"), "DataFrame"),
])
def test_bad_frames_are_one_line_errors(call, message: str) -> None:
    with pytest.raises(InputError, match=message) as raised:
        call()
    assert "\n" not in str(raised.value)


def test_to_frame_round_trips() -> None:
    crosstab = Crosstab.from_frame(RECORDS, "eye", "age")
    frame = crosstab.to_frame()
    assert list(frame.index) == list(crosstab.s_labels)
    assert Crosstab.from_crosstab(frame) == crosstab
