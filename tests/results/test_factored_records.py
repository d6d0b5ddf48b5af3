"""Factored protocol records (IR, GRR-CR, UE-CR): written by ``rldp protocol``, verified
from their factors alone (issue 22 item 3, issue 16's ``product`` representation)."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from rldp_models.cli import main
from rldp_models.data import Crosstab
from rldp_models.results.files import write_result
from rldp_models.results.record import from_record, to_record
from rldp_models.results.schema import validate
from rldp_models.results.files import read_record
from rldp_models.rldp_protocols import independent_reporting
from rldp_models.rldp_protocols.checker import RLDPLevel
from rldp_models.results.factored_result import DENSE_ENTRY_BUDGET
from rldp_models.results.protocol_result import rldp_protocol_result

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "round1"
SMALL = FIXTURES / "counts_3x5.csv"


@pytest.fixture(scope="module")
def wide_counts(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 3 x 30 table: IR's dense matrix (90 x 90 = 8100 entries) is over the dense budget."""
    rng = np.random.default_rng(20261125)
    counts = rng.integers(20, 200, size=(3, 30))
    path = tmp_path_factory.mktemp("wide") / "wide.csv"
    rows = [",".join(["S"] + [f"u{j}" for j in range(30)])]
    rows += [",".join([f"s{i}", *map(str, row)]) for i, row in enumerate(counts)]
    path.write_text("\n".join(rows) + "\n")
    return path


def _protocol(tmp_path: Path, name: str, counts: Path, eps: str = "2") -> Path:
    out = tmp_path / f"{name}.json"
    assert main(["protocol", name, "--counts", str(counts), "--eps", eps, "--out", str(out)]) == 0
    return out


def _verify(path: Path) -> int:
    return main(["verify", str(path)])


def _rewrite(path: Path, change) -> Path:
    record = json.loads(path.read_text())
    change(record)
    out = path.with_name("changed-" + path.name)
    out.write_text(json.dumps(record))
    return out


def _leak(row: list[float]) -> None:
    """Move one entry's mass onto another: the row stays exactly stochastic, a zero appears."""
    row[0], row[1] = row[0] + row[1], 0.0
    assert sum(map(Fraction, row)) == 1


@pytest.mark.parametrize("name", ["ir", "grr-cr", "ue-cr"])
def test_small_product_record_round_trips_validates_verifies(tmp_path: Path, name: str) -> None:
    path = _protocol(tmp_path, name, SMALL)
    record = read_record(path)
    validate(record)
    matrix = record["matrix"]
    assert matrix["representation"] == "product" and matrix["kind"] == name
    assert "rows" in matrix  # 15 inputs: within the dense budget, rows written beside
    assert len(matrix["rows"]) * len(matrix["outputs"]) <= DENSE_ENTRY_BUDGET
    for factor in matrix["factors"].values():
        rows = np.asarray(factor, dtype=float).reshape(-1, np.shape(factor)[-1])
        assert all(sum(map(Fraction, row)) == 1 for row in rows.tolist())
    assert to_record(from_record(record)) == record
    assert _verify(path) == 0


def test_large_product_record_has_factors_only_and_verifies(tmp_path: Path,
                                                            wide_counts: Path) -> None:
    path = _protocol(tmp_path, "ir", wide_counts)
    record = read_record(path)
    validate(record)
    assert "rows" not in record["matrix"] and "outputs" not in record["matrix"]
    assert to_record(from_record(record)) == record
    assert _verify(path) == 0


def test_leaky_factor_fails(tmp_path: Path, wide_counts: Path,
                            capsys: pytest.CaptureFixture) -> None:
    path = _protocol(tmp_path, "ir", wide_counts)
    leaky = _rewrite(path, lambda r: _leak(r["matrix"]["factors"]["secret"][0]))
    capsys.readouterr()
    assert _verify(leaky) == 1
    assert "guarantee: FAILS" in capsys.readouterr().out


def test_leaky_factor_fails_even_with_dense_rows_untouched(tmp_path: Path) -> None:
    path = _protocol(tmp_path, "grr-cr", SMALL)
    assert _verify(_rewrite(path, lambda r: _leak(r["matrix"]["factors"]["own"][0][0]))) == 1


def test_dense_rows_not_the_product_fail(tmp_path: Path) -> None:
    path = _protocol(tmp_path, "ir", SMALL)
    assert _verify(_rewrite(path, lambda r: _leak(r["matrix"]["rows"][0]))) == 1


def test_factor_row_not_summing_to_one_fails(tmp_path: Path, wide_counts: Path,
                                             capsys: pytest.CaptureFixture) -> None:
    """Exit 1 (not 2): the record is well formed but breaks its promise of exact rows,
    as inexact dense rows do."""
    path = _protocol(tmp_path, "ir", wide_counts)

    def inexact(record: dict) -> None:
        record["matrix"]["factors"]["public"][3][0] += 2.0**-40

    capsys.readouterr()
    assert _verify(_rewrite(path, inexact)) == 1
    assert "factor public" in capsys.readouterr().out


def test_structured_and_dense_records_agree(tmp_path: Path) -> None:
    """The same small table written densely (round-1 builder) and in product form: both
    verify, and both fail when the same secret row is made leaky."""
    crosstab = Crosstab.from_csv(SMALL)
    dense = tmp_path / "dense.json"
    write_result(rldp_protocol_result(independent_reporting(crosstab, 2.0, 0.05), crosstab), dense)
    product = _protocol(tmp_path, "ir", SMALL)
    assert _verify(dense) == 0 and _verify(product) == 0

    def leak_dense(record: dict) -> None:
        for row in record["matrix"]["rows"][:5]:  # every u of the first secret
            _leak(row)
    assert _verify(_rewrite(dense, leak_dense)) == 1
    assert _verify(_rewrite(product, lambda r: _leak(r["matrix"]["factors"]["secret"][0]))) == 1


def test_unprovable_level_is_inconclusive(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                          capsys: pytest.CaptureFixture) -> None:
    """A checker that cannot prove any finite level (certified inf, with its note): exit 3."""
    path = _protocol(tmp_path, "ir", SMALL)
    record = read_record(path)
    witness = np.asarray(record["details"]["rldp"]["witness"], dtype=float)

    def unprovable(Q, crosstab, alpha):
        return RLDPLevel(float("inf"), 0.1, (0, 0, 1), witness, "ratio (0, 1) not proven")

    monkeypatch.setattr("rldp_models.rldp_protocols.checker.rldp_epsilon", unprovable)
    capsys.readouterr()
    assert _verify(path) == 3
    assert "inconclusive" in capsys.readouterr().err
