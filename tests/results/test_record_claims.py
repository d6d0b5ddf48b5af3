"""A record's statements are held to what ``rldp verify`` re-derives (issue 32 item 1,
issue 35 item 1): an edited guarantee eps, stated value or output labels fail (exit 1);
the record as written passes (exit 0)."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from rldp_models.cli import main

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "round1"
COUNTS = FIXTURES / "counts_2x3.csv"
PRIOR = FIXTURES / "prior.csv"

COMMANDS = {
    "solve-RURP": ["solve", "RURP", "--counts", COUNTS, "--eps", "1"],
    "solve-NUNP": ["solve", "NUNP", "--counts", COUNTS, "--eps", "1"],
    "solve-RURP-box": ["solve", "RURP", "--counts", COUNTS, "--eps", "1", "--uncertainty", "box"],
    "mechanism-rr": ["mechanism", "rr", "--eps", "1", "--prior", PRIOR],
    "mechanism-staircase": ["mechanism", "staircase", "--eps", "1", "--prior", PRIOR],
    "mechanism-lip": ["mechanism", "lip", "--eps", "1", "--joint", FIXTURES / "joint.csv"],
    "protocol-grr": ["protocol", "grr", "--counts", COUNTS, "--eps", "2"],
    "protocol-ir": ["protocol", "ir", "--counts", COUNTS, "--eps", "2"],
    "protocol-polyopt": ["protocol", "polyopt", "--counts", COUNTS, "--eps", "2"],
}


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict]:
    work = tmp_path_factory.mktemp("claims")
    records = {}
    for name, argv in COMMANDS.items():
        path = work / f"{name}.json"
        assert main([*map(str, argv), "--out", str(path), "-q"]) == 0, name
        records[name] = json.loads(path.read_text())
    return records


def _verify(record: dict, tmp_path: Path) -> int:
    path = tmp_path / "edited.json"
    path.write_text(json.dumps(record))
    return main(["verify", str(path)])


def _eps(record: dict) -> float:
    """The one eps the record states: a program block's, else the declaration's or the
    details' (a protocol's)."""
    stated = [b["parameters"]["eps"] for b in record["declaration"]["blocks"]
              if "eps" in b["parameters"]]
    stated += [record["declaration"]["parameters"].get("eps"), record["details"].get("eps")]
    return float(next(eps for eps in stated if eps is not None))


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_the_record_as_written_verifies(written, name: str, tmp_path: Path) -> None:
    assert _verify(written[name], tmp_path) == 0


@pytest.mark.parametrize("factor", [0.5, 2.0])
@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_an_edited_guarantee_eps_fails(written, name: str, factor: float,
                                       tmp_path: Path) -> None:
    """Stricter (0.5) or looser (2): either way not the eps its declaration states."""
    record = copy.deepcopy(written[name])
    record["guarantees"][0]["eps"] = _eps(record) * factor
    assert _verify(record, tmp_path) == 1


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_an_edited_stated_value_fails(written, name: str, tmp_path: Path) -> None:
    record = copy.deepcopy(written[name])
    value = record["value"]["value"]
    if value is None:
        pytest.skip(f"{name} states no value (a closed form claims no utility)")
    record["value"]["value"] = value / 2 if value else 1.0
    assert _verify(record, tmp_path) == 1


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_reversed_output_labels_fail(written, name: str, tmp_path: Path) -> None:
    """A release would label Y wrongly: the matrix's labels must be the declared ones."""
    record = copy.deepcopy(written[name])
    outputs = record["matrix"].get("outputs")
    if outputs is None:
        pytest.skip(f"{name} writes no dense outputs (a large product)")
    assert outputs != outputs[::-1]
    record["matrix"]["outputs"] = outputs[::-1]
    assert _verify(record, tmp_path) == 1


def _eps_leaves(node, path: str = "") -> list[str]:
    """Every numeric leaf named eps (an SRLIP attribute's own level excepted)."""
    if isinstance(node, dict):
        return [*([path + ".eps"] if isinstance(node.get("eps"), (int, float))
                  and not path.startswith(".details.attributes") else []),
                *(leaf for k, v in node.items() for leaf in _eps_leaves(v, f"{path}.{k}"))]
    if isinstance(node, list):
        return [leaf for i, v in enumerate(node) for leaf in _eps_leaves(v, f"{path}[{i}]")]
    return []


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_eps_is_stated_once(written, name: str) -> None:
    """A program's eps lives in its guarantee block, a producer's in its declaration or
    details: one number, which every guarantee is read back with."""
    from rldp_models.results.record import from_record

    record = written[name]
    assert len(_eps_leaves(record)) == 1, _eps_leaves(record)
    eps = {float(g.eps) for g in from_record(record).guarantees}
    assert eps == {_eps(record)}


def test_a_string_where_a_multiplier_belongs_is_bad_input(written, tmp_path: Path) -> None:
    """The schema types every multiplier as a number (issue 35: this was exit 4)."""
    record = copy.deepcopy(written["solve-RURP"])
    values = next(iter(record["certificate"]["multipliers"].values()))
    key = next(iter(values))
    values[key] = "abc"
    assert _verify(record, tmp_path) == 2
