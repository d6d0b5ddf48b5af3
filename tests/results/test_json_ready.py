"""``jsonable``: its C-speed paths for number lists and float arrays give what the entry-by-entry
walk gives, including non-finite floats written as strings and numpy scalars as Python numbers."""

import dataclasses
import json
import math
from typing import Any

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from rldp_models.results.files import write_record
from rldp_models.results.json_ready import jsonable


def _walked(value: Any) -> Any:
    """The rule in the docstring, applied entry by entry (the reference)."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return _walked(dataclasses.asdict(value))
    if isinstance(value, dict):
        return {str(k): _walked(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_walked(v) for v in value]
    if isinstance(value, np.ndarray):
        return _walked(value.tolist())
    if isinstance(value, (np.floating, float)):
        return float(value) if math.isfinite(float(value)) else str(float(value))
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.bool_):
        return bool(value)
    return value


@dataclasses.dataclass
class _Pair:
    first: Any
    second: Any


NUMPY_SCALARS = [np.float64(np.nan), np.float64(-np.inf), np.float32(2.5), np.float32(np.inf),
                 np.int64(-3), np.uint8(7), np.bool_(True), np.float64(1e-7)]
ARRAYS = [np.array([1.0, np.inf, -np.inf, np.nan]), np.array([[1, 2], [3, 4]]),
          np.array([True, False]), np.array([[np.nan, 0.5], [2.0, -0.0]]), np.zeros(0),
          np.array([1e308, 1e308])]
floats = st.floats(allow_nan=True, allow_infinity=True)
leaves = st.one_of(st.none(), st.booleans(), st.integers(-10**30, 10**30), floats,
                   st.text(max_size=3), st.sampled_from(NUMPY_SCALARS + ARRAYS))
values = st.recursive(
    leaves,
    lambda inner: st.lists(inner, max_size=5) | st.tuples(inner, inner)
    | st.lists(st.one_of(floats, st.integers(-10**30, 10**30)), max_size=8)
    | st.dictionaries(st.one_of(st.text(max_size=3), st.integers(0, 9)), inner, max_size=4)
    | st.builds(_Pair, inner, inner),
    max_leaves=30)


def _text(value: Any) -> str:
    return json.dumps(value, allow_nan=False)


@given(values)
def test_jsonable_writes_what_the_entry_by_entry_walk_writes(value):
    assert _text(jsonable(value)) == _text(_walked(value))


def test_non_finite_floats_become_their_names_and_numpy_scalars_python_numbers():
    value = {"duals": [0.5, float("inf"), 2], "array": np.array([[1.0, np.nan], [-np.inf, 3.0]]),
             "scalars": [np.float64(-np.inf), np.int64(4), np.bool_(False), np.float32(0.25)],
             1: (1e308, 1e308)}
    assert jsonable(value) == {"duals": [0.5, "inf", 2], "array": [[1.0, "nan"], ["-inf", 3.0]],
                               "scalars": ["-inf", 4, False, 0.25], "1": [1e308, 1e308]}
    assert [type(v) for v in jsonable(value)["scalars"]] == [str, int, bool, float]


def test_a_finite_list_whose_sum_overflows_is_kept_as_numbers():
    assert jsonable([1e308, 1e308, -1.0]) == [1e308, 1e308, -1.0]


def test_an_integer_too_large_for_a_double_beside_floats_is_kept():
    assert jsonable([10**400, 0.5, float("nan")]) == [10**400, 0.5, "nan"]


def test_a_number_list_is_copied_not_shared():
    duals = [0.5, 1.5]
    converted = jsonable(duals)
    converted.append(2.5)
    assert duals == [0.5, 1.5]


def test_the_written_record_spells_non_finite_values_as_strings(tmp_path):
    write_record({"certificate": {"duals": np.array([0.1, np.inf]), "gap": float("nan"),
                                  "rows": [[1.0, -np.inf]]}}, tmp_path / "r.json")
    assert (tmp_path / "r.json").read_text() == (
        '{\n "certificate": {\n  "duals": [0.1, "inf"],\n  "gap": "nan",\n'
        '  "rows": [[1.0, "-inf"]]\n }\n}\n')
