"""One repair record (:class:`rldp_models.finish.Repair`): written in one spelling, every
spelling records have used read back, and the records already written still verify."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rldp_models.cli import main
from rldp_models.errors import InputError
from rldp_models.finish import Repair
from rldp_models.results.record import from_record
from rldp_models.results.repair_record import repair_from_json, repair_to_json

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
WRITTEN_KEYS = {"method", "weight", "cost", "value_before", "value_after", "reference",
                "uniform_weight"}

OLD_BLOCKS = [
    # rldp solve, round 1 and ProtocolSolution's own record before unification
    ({"method": "mix-uniform", "mixing_weight": 2e-8, "objective_before": 1.0,
      "objective_after": 1.5, "utility_cost": 0.5},
     Repair("mix", 2e-8, 1.0, 1.5, "uniform")),
    ({"method": "mix-tightened", "mixing_weight": 0.03, "objective_before": 1.0,
      "objective_after": 1.25, "uniform_weight": 1e-9, "utility_cost": 0.25},
     Repair("mix", 0.03, 1.0, 1.25, "tightened", 1e-9)),
    ({"method": "best-constant", "mixing_weight": 1.0, "objective_before": 0.5,
      "objective_after": 2.0, "utility_cost": 1.5},
     Repair("fallback", 1.0, 0.5, 2.0)),
    # cone-LP mechanisms (their repair_method / repair_weight)
    ({"method": "mix-uniform", "weight": 1e-6, "utility_before": 0.75, "utility_after": 0.5},
     Repair("mix", 1e-6, 0.75, 0.5, "uniform")),
    ({"method": "constant", "weight": 1.0}, Repair("fallback", 1.0)),
    # schema 2 before uniform_weight: the two-stage mix as one total weight
    ({"method": "mix", "weight": 3e-5, "cost": 4e-8, "value_before": 1.25,
      "value_after": 1.25 + 4e-8, "reference": "tightened+uniform"},
     Repair("mix", 3e-5, 1.25, 1.25 + 4e-8, "tightened+uniform")),
    (None, Repair("none", 0.0)),
]


@pytest.mark.parametrize("block, expected", OLD_BLOCKS)
def test_every_old_spelling_reads_as_the_one_record(block, expected: Repair) -> None:
    assert repair_from_json(block) == expected


@pytest.mark.parametrize("repair", [
    Repair("none", 0.0, 1.0, 1.0), Repair("mix", 2e-8, 1.0, 1.5, "uniform"),
    Repair("mix", 0.03, 1.0, 1.25, "tightened", 1e-9), Repair("fallback", 1.0, 0.5, 2.0)])
def test_one_spelling_is_written_and_read_back(repair: Repair) -> None:
    block = repair_to_json(repair)
    assert set(block) <= WRITTEN_KEYS and block["method"] in ("none", "mix", "fallback")
    assert block["cost"] == abs(repair.value_after - repair.value_before)
    assert ("uniform_weight" in block) == (repair.uniform_weight > 0)
    assert repair_from_json(json.loads(json.dumps(block))) == repair


def test_the_total_weight_is_that_of_the_two_mixes() -> None:
    # P = (1 - b)((1 - a) Q + a R) + b U keeps (1 - a)(1 - b) of Q
    assert Repair("mix", 0.5, reference="tightened", uniform_weight=0.5).total_weight == 0.75
    assert Repair("mix", 0.25, reference="uniform").total_weight == 0.25


def test_an_unknown_method_is_bad_input() -> None:
    with pytest.raises(InputError, match="unknown repair method"):
        repair_from_json({"method": "mix-magic", "weight": 0.1})


OLD_RECORDS = [
    # (file, counts, the repair it must read as, verify's exit code)
    ("round1/solve_RURP_box.json", "round1/counts_2x3.csv",
     Repair("mix", 8.712960744527947e-08, 0.8395466394970634, 0.8395467077795, "uniform"), 0),
    ("schema2/solve_chi2.json", "schema2/counts_3x5_seed2.csv",
     Repair("mix", 0.03170086516887029, 0.6737771111887803, 0.6737774888007264, "tightened"),
     0),
    ("schema2/solve_box.json", "schema2/counts_3x5_seed2.csv",
     Repair("mix", 3.4101394051799794e-05, 1.275423151684953, 1.2754231915345629,
            "tightened+uniform"), 0),
    # the old writer fell back to the constant at eps 0 and its verify passed the certificate
    # through ``inf <= inf``; the guarantee holds but the LP bound (0.748) is far above U(Q) = 0
    ("schema2/mechanism_lip_eps0.json", None,
     Repair("fallback", 1.0, 0.748311860733038, 0.0), 1),
]


@pytest.mark.parametrize("fixture, counts, expected, verify_code", OLD_RECORDS)
def test_records_already_written_read_and_verify(capsys, fixture: str, counts: str | None,
                                                 expected: Repair, verify_code: int) -> None:
    """The expected repairs are the numbers in the files (written by the old code)."""
    record = json.loads((FIXTURES / fixture).read_text())
    assert from_record(record).repair == expected
    details = record.get("details", {})
    if "repair_method" in details:  # a mechanism's own spelling ("constant") agrees
        assert repair_from_json({"method": details["repair_method"],
                                 "weight": details["repair_weight"]}).method == expected.method
    args = ["verify", str(FIXTURES / fixture)]
    if counts is not None:
        args += ["--counts", str(FIXTURES / counts)]
    code = main(args)
    output = capsys.readouterr().out
    assert code == verify_code, output
    assert "guarantee: holds" in output
