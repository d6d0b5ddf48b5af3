"""A program over ``DerivedSet(F)`` records ``derived`` and ``rldp verify`` re-checks it;
with the derived dual's ``y`` stored for the robust objective, through the derived
certificate (:mod:`rldp_models.uncertainty.derived_certificate`)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from rldp_models.cli import main
from rldp_models.data import Crosstab
from rldp_models.distortion import expected_distortion
from rldp_models.programs import ProtocolProgram, RobustDistortion, RobustSecretPrivacy
from rldp_models.results.program_result import solution_result
from rldp_models.uncertainty import KLBallSet
from rldp_models.uncertainty.derived import DerivedSet, certifiable_multipliers
from rldp_models.uncertainty.power_divergence import PowerDivergenceSet
from rldp_models.results.files import write_result

COUNTS = np.array([[30, 22, 9, 4], [12, 25, 0, 8], [3, 9, 14, 27]])


@pytest.fixture(scope="module", params=["kl", pytest.param("power2", marks=pytest.mark.slow)])
def record(request, tmp_path_factory):
    wrapped = (KLBallSet.from_counts(COUNTS, 0.05) if request.param == "kl"
               else PowerDivergenceSet.from_counts(COUNTS, 0.05, 2.0))
    program = ProtocolProgram(Crosstab.from_array(COUNTS), RobustDistortion(),
                              [RobustSecretPrivacy(1.0)], uncertainty=DerivedSet(wrapped),
                              eps=1.0, name="RURP-derived")
    solution = program.solve()
    folder = tmp_path_factory.mktemp("derived")
    write_result(solution_result(solution), folder / "as-written.json")
    stored = json.loads((folder / "as-written.json").read_text())
    # the robust objective's multipliers: the derived dual's y at the protocol (the solver's
    # own y, or the closed form's if those certify lower, is what the program stores)
    v = expected_distortion(solution.protocol, program.distortion_matrix, COUNTS.shape[0])
    derived = DerivedSet(wrapped)
    y = certifiable_multipliers(derived.description, np.asarray(v, dtype=float))
    stored["certificate"]["multipliers"]["robust_utility"] = {"y": y.tolist()}
    path = folder / "derived.json"
    path.write_text(json.dumps(stored))
    return path, stored, wrapped.name


def written(tmp_path, record: dict) -> str:
    path = tmp_path / "tampered.json"
    path.write_text(json.dumps(record))
    return str(path)


def test_the_record_declares_the_derived_set_and_verifies(record) -> None:
    path, stored, wrapped = record
    declared = stored["declaration"]["uncertainty"]
    assert declared["set"] == "derived" and declared["wraps"] == wrapped
    assert main(["verify", str(path)]) == 0


def test_the_record_as_the_program_wrote_it_verifies(record) -> None:
    path, _, wrapped = record
    as_written = path.parent / "as-written.json"
    assert json.loads(as_written.read_text())["declaration"]["uncertainty"]["wraps"] == wrapped
    assert main(["verify", str(as_written)]) == 0


def test_scaled_multipliers_or_a_lowered_objective_fail(record, tmp_path) -> None:
    _, stored, _ = record
    scaled = json.loads(json.dumps(stored))
    utility = scaled["certificate"]["multipliers"]["robust_utility"]
    utility["y"] = (1.5 * np.asarray(utility["y"])).tolist()
    assert main(["verify", written(tmp_path, scaled)]) == 1
    lowered = json.loads(json.dumps(stored))
    for stated in (lowered["value"], lowered["details"]):  # the objective claimed lower
        stated["value" if "value" in stated else "objective"] *= 0.999
    assert main(["verify", written(tmp_path, lowered)]) == 1


def test_a_tampered_protocol_fails(record, tmp_path) -> None:
    _, stored, _ = record
    tampered = json.loads(json.dumps(stored))
    rows = tampered["matrix"]["rows"]
    rows[0], rows[1] = rows[1], rows[0]  # two cells of secret 0 swap their releases
    assert main(["verify", written(tmp_path, tampered)]) == 1


@pytest.mark.parametrize("wraps", ["derived", "nonsense"])
def test_a_derived_set_must_wrap_a_named_set(record, tmp_path, capsys, wraps: str) -> None:
    _, stored, _ = record
    bad = json.loads(json.dumps(stored))
    bad["declaration"]["uncertainty"]["wraps"] = wraps
    assert main(["verify", written(tmp_path, bad)]) == 2
    assert capsys.readouterr().err.count("\n") == 1
