"""The record writer's layout: the same JSON value as before, read by today's reader."""

import json

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from rldp_models.results.files import MAX_DEPTH, nesting_depth, read_record, write_record

leaves = st.one_of(st.none(), st.booleans(), st.integers(-10**12, 10**12),
                   st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=5))
values = st.recursive(leaves, lambda inner: st.lists(inner, max_size=4)
                      | st.dictionaries(st.text(max_size=4), inner, max_size=4), max_leaves=30)


@given(st.dictionaries(st.text(max_size=6), values, max_size=5))
def test_written_record_reads_back_as_the_same_value(tmp_path_factory, record):
    path = tmp_path_factory.mktemp("r") / "r.json"
    write_record(record, path)
    assert read_record(path) == json.loads(json.dumps(record))


def test_top_levels_are_indented_and_floats_keep_every_digit(tmp_path):
    duals = np.array([0.1, 1 / 3, 2.0 ** -60, np.inf])
    write_record({"a": 1, "certificate": {"duals": duals, "ok": True}}, tmp_path / "r.json")
    text = (tmp_path / "r.json").read_text()
    assert text.splitlines()[:3] == ['{', ' "a": 1,', ' "certificate": {']
    assert read_record(tmp_path / "r.json")["certificate"]["duals"] == [0.1, 1 / 3, 2.0 ** -60,
                                                                         "inf"]


def test_a_record_written_with_indent_one_still_reads(tmp_path):
    record = {"schema_version": 2, "certificate": {"duals": [0.5, [1, 2]]}}
    (tmp_path / "old.json").write_text(json.dumps(record, indent=1) + "\n")
    assert read_record(tmp_path / "old.json") == record


def _depth_by_loop(text: str) -> int:
    """The character loop nesting_depth replaced (the reference)."""
    depth = deepest = 0
    in_string = escaped = False
    for char in text:
        if in_string:
            escaped, in_string = (False, True) if escaped else (char == "\\", char != '"')
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            deepest = max(deepest, depth)
            if deepest > MAX_DEPTH:
                return deepest
        elif char in "]}":
            depth -= 1
    return deepest


@given(st.text(alphabet='[]{}"\\ab\né', max_size=60))
def test_nesting_depth_is_the_character_loops(text):
    assert nesting_depth(text) == _depth_by_loop(text)


def test_nesting_depth_on_deep_and_escaped_text():
    for text in ["[" * (MAX_DEPTH + 5), "[" * MAX_DEPTH, '"\\"[[', '"\\\\"[[', '"[[[', "]][["]:
        assert nesting_depth(text) == _depth_by_loop(text)
    assert nesting_depth("[" * (MAX_DEPTH + 5)) == MAX_DEPTH + 1
