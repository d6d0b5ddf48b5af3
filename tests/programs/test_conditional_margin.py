"""The margin on conditional bounds proved by a set's conditional duals
(:data:`~rldp_models.programs.components.CONDITIONAL_MARGIN`): the repair's reference program
has it (:func:`~rldp_models.programs.solution.reference_programs`), the program a record
names does not, and nothing else differs.

Checked on cvxpy's compiled data of both models: the right-hand sides differ on exactly one
row per secret, output and side (``2 |S| |Y|`` rows: the scalar ``b.y <= -margin`` of each
derived dual), by the margin; over a set with a closed form (the KL ball) nothing differs.
"""

from __future__ import annotations

import cvxpy as cp
import numpy as np
import pytest

from rldp_models.data import Crosstab
from rldp_models.programs import ProtocolProgram, RobustDistortion, RobustSecretPrivacy
from rldp_models.programs.components import CONDITIONAL_MARGIN
from rldp_models.programs.solution import TIGHTENING, reference_programs
from rldp_models.uncertainty import ChiSquareSet, KLBallSet
from rldp_models.uncertainty.derived import DerivedSet

COUNTS = np.array([[10, 3, 1], [2, 6, 9]])


def _right_hand_sides(program: ProtocolProgram) -> np.ndarray:
    data = program.to_cvxpy().problem.get_problem_data(cp.CLARABEL)[0]
    return np.asarray(data["b"], dtype=float)


def _program(uncertainty: object, solver_margins: bool = False) -> ProtocolProgram:
    return ProtocolProgram(Crosstab.from_array(COUNTS), RobustDistortion(),
                           [RobustSecretPrivacy(1.0)], uncertainty=uncertainty, eps=1.0,
                           solver_margins=solver_margins)


def test_margin_only_in_the_reference_program() -> None:
    program = _program(DerivedSet(ChiSquareSet.from_counts(COUNTS, 0.05)))
    references = dict(reference_programs(program))
    assert sorted(references) == ["margin", "tightened"]
    reference = references["margin"]
    assert reference.solver_margins and program.eps == reference.eps
    assert not references["tightened"].solver_margins
    solved, named = _right_hand_sides(reference), _right_hand_sides(program)
    assert solved.shape == named.shape
    moved = np.flatnonzero(solved != named)
    n_s, n_y = COUNTS.shape[0], COUNTS.shape[1]
    assert moved.size == 2 * n_s * n_y
    assert np.allclose(np.abs(solved[moved] - named[moved]), CONDITIONAL_MARGIN, rtol=1e-12)


def test_no_margin_over_a_closed_form() -> None:
    """Over the KL ball (product form, bounds from its closed form) the flag changes nothing,
    and the one reference program is the one with eps shrunk."""
    kl = KLBallSet.from_counts(COUNTS, 0.05)
    assert np.array_equal(_right_hand_sides(_program(kl, True)), _right_hand_sides(_program(kl)))
    [(name, reference)] = reference_programs(_program(kl))
    assert name == "tightened" and not reference.solver_margins
    assert reference.eps == pytest.approx(1.0 - TIGHTENING)
