"""A set per robust term: each block robust over its own set (``over=``), the program's set
the default; recorded per block and rebuilt by ``rldp verify``."""

from __future__ import annotations

import json

import numpy as np
import pytest

from rldp_models.cli import main
from rldp_models.data import Crosstab
from rldp_models.errors import InputError
from rldp_models.programs import ProtocolProgram, RobustDistortion, RobustSecretPrivacy
from rldp_models.programs.forall import ForAll
from rldp_models.results.files import write_result
from rldp_models.results.program_result import solution_result
from rldp_models.uncertainty import BoxSet, ChiSquareSet

COUNTS = np.array([[30, 22, 9, 4], [12, 25, 0, 8], [3, 9, 14, 27]])


def test_which_set_is_the_program_s_does_not_change_the_program(tmp_path) -> None:
    """Utility over F(0.05) and privacy over F(0.2), written with either as the program's set
    and the other as the block's own: one optimum, and both records verify."""
    crosstab = Crosstab.from_array(COUNTS)
    wide, narrow = (ChiSquareSet.from_counts(COUNTS, a) for a in (0.05, 0.2))
    first = ProtocolProgram(crosstab, RobustDistortion(), [RobustSecretPrivacy(1.0, over=narrow)],
                            uncertainty=wide, name="own-privacy-set")
    second = ProtocolProgram(crosstab, RobustDistortion(over=wide), [RobustSecretPrivacy(1.0)],
                             uncertainty=narrow, name="own-utility-set")
    values = []
    for program in (first, second):
        solution = program.solve()
        path = tmp_path / f"{program.name}.json"
        write_result(solution_result(solution), path)
        assert main(["verify", str(path)]) == 0
        values.append(solution.objective)
    assert values[0] == pytest.approx(values[1], rel=1e-6)
    record = json.loads((tmp_path / "own-privacy-set.json").read_text())
    own = record["declaration"]["blocks"][1]["parameters"]["over"]
    assert own["set"] == "chi2" and own["alpha"] == 0.2 and own["radius"] == narrow.radius


def test_the_privacy_set_is_stricter_than_the_utility_set() -> None:
    """Privacy over the wider F(0.05) costs more utility than over F(0.2) (same objective)."""
    crosstab = Crosstab.from_array(COUNTS)
    wide, narrow = (ChiSquareSet.from_counts(COUNTS, a) for a in (0.05, 0.2))
    values = [ProtocolProgram(crosstab, RobustDistortion(), [RobustSecretPrivacy(1.0, over=s)],
                              uncertainty=wide).solve().objective for s in (narrow, wide)]
    assert values[0] < values[1]


def test_a_forall_block_over_its_own_box(tmp_path) -> None:
    """``forall(box, ...)`` inside a program whose set is the chi-square set."""
    crosstab = Crosstab.from_array(COUNTS)
    chi2 = ChiSquareSet.from_counts(COUNTS, 0.05)
    box = BoxSet.containing(chi2)
    rare = ForAll.from_statement("first_output_rare", lambda context, P: context.P[:, 0] @ P
                                 <= 0.2, crosstab, over=box)
    program = ProtocolProgram(crosstab, RobustDistortion(), [RobustSecretPrivacy(1.0), rare],
                              uncertainty=chi2, name="RURP+forall-box")
    solution = program.solve()
    path = tmp_path / "forall-box.json"
    write_result(solution_result(solution), path)
    record = json.loads(path.read_text())
    assert record["declaration"]["blocks"][2]["parameters"]["over"]["set"] == "box"
    assert main(["verify", str(path)]) == 0
    # the box is wider than the chi-square set: over the box the constraint is stricter
    loose = ForAll.from_statement("first_output_rare", lambda context, P: context.P[:, 0] @ P
                                  <= 0.2, crosstab)
    looser = ProtocolProgram(crosstab, RobustDistortion(), [RobustSecretPrivacy(1.0), loose],
                             uncertainty=chi2).solve()
    assert looser.objective <= solution.objective + 1e-9


def test_update_refuses_blocks_with_their_own_sets() -> None:
    crosstab = Crosstab.from_array(COUNTS)
    program = ProtocolProgram(crosstab, RobustDistortion(
        over=ChiSquareSet.from_counts(COUNTS, 0.05)), [], name="own")
    with pytest.raises(InputError, match="over="):
        program.update(Crosstab.from_array(COUNTS + 1))


def test_a_robust_block_needs_a_set_of_its_own_or_the_program_s() -> None:
    with pytest.raises(InputError, match="uncertainty set"):
        ProtocolProgram(Crosstab.from_array(COUNTS), RobustDistortion(), [])
