"""``forall(F, expr <= 0)``, its recordable block, and robust privacy on chosen outputs/pairs."""

from __future__ import annotations

import json

import cvxpy as cp
import numpy as np
import pytest

from rldp_models.data import Crosstab
from rldp_models.programs import (
    NominalDistortion,
    ProtocolProgram,
    RobustDistortion,
    RobustSecretPrivacy,
)
from rldp_models.cli import main
from rldp_models.programs.forall import ForAll, affine_in_protocol, affine_parts, forall
from rldp_models.results.program_result import solution_result
from rldp_models.uncertainty import BoxSet, ChiSquareSet, KLBallSet
from rldp_models.uncertainty.derived import direct_worst_case
from rldp_models.uncertainty.power_divergence import PowerDivergenceSet
from rldp_models.results.files import write_result

COUNTS = np.array([[30, 22, 9, 4], [12, 25, 0, 8], [3, 9, 14, 27]])


def test_coefficients_of_an_affine_expression_are_read_exactly() -> None:
    p = cp.Variable(4)
    parts = affine_parts(np.array([1.0, -2.0, 0.5, 3.0]) @ p - 0.25 + 2 * p[1], p)
    assert np.allclose(parts.coefficients.value, [1.0, 0.0, 0.5, 3.0])
    assert float(parts.constant.value) == pytest.approx(-0.25)
    with pytest.raises(ValueError, match="not affine"):
        affine_parts(cp.sum_squares(p), p)


def test_forall_of_a_constant_statement_is_the_support_function() -> None:
    uncertainty = KLBallSet.from_counts(COUNTS, 0.05)
    v = np.random.default_rng(0).normal(size=COUNTS.size)
    p, bound = cp.Variable(COUNTS.size), cp.Variable()
    group = forall(uncertainty, v @ p <= bound, p)
    problem = cp.Problem(cp.Minimize(bound), group.constraints)
    problem.solve(solver="CLARABEL")
    assert problem.value == pytest.approx(uncertainty.support(v), abs=1e-6)


@pytest.mark.parametrize("uncertainty", [ChiSquareSet.from_counts(COUNTS, 0.05),
                                         PowerDivergenceSet.from_counts(COUNTS, 0.05, 2.0)])
def test_forall_block_holds_at_the_protocol_by_an_independent_solve(uncertainty) -> None:
    crosstab = Crosstab.from_array(COUNTS)
    # P(Y = 0) <= 0.2 for every P in F: binding, since Phat(U = 0) is about 0.28
    block = ForAll.from_statement("first_output_rare",
                                  lambda context, P: context.P[:, 0] @ P <= 0.2, crosstab)
    solution = ProtocolProgram(crosstab, NominalDistortion(), [block],
                               uncertainty=uncertainty).solve()
    assert all(check.holds for check in solution.checks)
    _, worst = direct_worst_case(uncertainty, solution.protocol[:, 0])
    assert worst <= 0.2 + 1e-9 and worst > 0.2 - 1e-4


@pytest.mark.parametrize("uncertainty", [ChiSquareSet.from_counts(COUNTS, 0.05),
                                         KLBallSet.from_counts(COUNTS, 0.05)])
def test_privacy_on_every_output_and_pair_is_robust_privacy(uncertainty) -> None:
    crosstab = Crosstab.from_array(COUNTS)

    def objective(privacy) -> float:
        program = ProtocolProgram(crosstab, RobustDistortion(), [privacy],
                                  uncertainty=uncertainty, eps=1.0)
        solution = program.solve()
        assert all(check.holds for check in solution.checks)
        return solution.result.objective

    full = objective(RobustSecretPrivacy(1.0))
    every = RobustSecretPrivacy(1.0, outputs=range(COUNTS.shape[1]),
                                pairs=[(a, b) for a in range(3) for b in range(3) if a != b])
    assert objective(every) == pytest.approx(full, rel=1e-6)
    assert objective(RobustSecretPrivacy(1.0, outputs=[0], pairs=[(0, 1)])) < full


def test_coefficients_in_the_protocol_are_read_row_major() -> None:
    """``J q + e0`` with ``q`` the protocol row-major, against hand-made coefficients."""
    protocol = cp.Variable((3, 2))
    weights = np.arange(6.0).reshape(3, 2)
    jacobian, at_zero = affine_in_protocol(
        cp.hstack([cp.sum(cp.multiply(weights, protocol)) + 1.0, protocol[2, 0]]), protocol)
    assert np.array_equal(jacobian, [np.arange(6.0), [0, 0, 0, 0, 1, 0]])
    assert np.array_equal(at_zero, [1.0, 0.0])


def _forall_record(tmp_path, uncertainty_of, given=None):
    """A RUNP-like program with a ForAll block, solved and written as a record."""
    crosstab = Crosstab.from_array(COUNTS)
    if given is None:
        block = ForAll.from_statement("first_output_rare",
                                      lambda context, P: context.P[:, 0] @ P <= 0.2, crosstab)
    else:
        block = ForAll.from_statement("first_output_rare_given",
                                      lambda context, R: context.block(given)[:, 0] @ R <= 0.3,
                                      crosstab, given=given)
    program = ProtocolProgram(crosstab, NominalDistortion(), [block],
                              uncertainty=uncertainty_of(COUNTS), name="NUNP+forall")
    result = solution_result(program.solve())
    path = tmp_path / "forall.json"
    write_result(result, path)
    return path, json.loads(path.read_text())


@pytest.mark.parametrize("uncertainty_of, given", [
    (lambda counts: ChiSquareSet.from_counts(counts, 0.05), None),
    (lambda counts: BoxSet.containing(ChiSquareSet.from_counts(counts, 0.05)), None),
    (lambda counts: ChiSquareSet.from_counts(counts, 0.05), 1),
])
def test_a_record_with_a_forall_block_verifies_from_the_record_alone(
        tmp_path, capsys, uncertainty_of, given) -> None:
    path, record = _forall_record(tmp_path, uncertainty_of, given)
    forall_block = record["declaration"]["blocks"][1]
    assert forall_block["block"] == "ForAll" and forall_block["source"] == "library"
    assert main(["verify", str(path)]) == 0
    assert "ForAll first_output_rare" in capsys.readouterr().out


def test_tampered_forall_coefficients_or_protocol_fail_verification(tmp_path, capsys) -> None:
    path, record = _forall_record(tmp_path, lambda counts: ChiSquareSet.from_counts(counts, 0.05))
    stricter = json.loads(json.dumps(record))
    stricter["declaration"]["blocks"][1]["parameters"]["constant"] += 0.01  # now <= 0.19
    tampered = tmp_path / "tampered.json"
    tampered.write_text(json.dumps(stricter))
    assert main(["verify", str(tampered)]) == 1
    assert "ForAll first_output_rare" in capsys.readouterr().out
    # the coefficients A scaled by 1.05: sup_F 1.05 P.Q0 exceeds the binding 0.2
    scaled = json.loads(json.dumps(record))
    parameters = scaled["declaration"]["blocks"][1]["parameters"]
    parameters["coefficients"] = (1.05 * np.array(parameters["coefficients"])).tolist()
    tampered.write_text(json.dumps(scaled))
    assert main(["verify", str(tampered)]) == 1
    assert "ForAll first_output_rare" in capsys.readouterr().out
    # a coefficient matrix of the wrong shape is bad input (one line, exit 2)
    parameters["coefficients"] = parameters["coefficients"][:-1]
    tampered.write_text(json.dumps(scaled))
    assert main(["verify", str(tampered)]) == 2
    assert capsys.readouterr().err.count("\n") == 1
    # output 1's mass moved onto output 0 (exact in doubles; rows stay exactly stochastic)
    moved = json.loads(json.dumps(record))
    rows = moved["matrix"]["rows"]
    for row in rows:
        row[0], row[1] = row[0] + row[1], 0.0
    tampered.write_text(json.dumps(moved))
    assert main(["verify", str(tampered)]) == 1
    out = capsys.readouterr().out
    assert "ForAll first_output_rare" in out and "stochastic" not in out


@pytest.mark.parametrize("uncertainty", [ChiSquareSet.from_counts(COUNTS, 0.05),
                                         KLBallSet.from_counts(COUNTS, 0.05)])
def test_restricted_robust_privacy_is_recorded_and_re_checked(tmp_path, capsys,
                                                              uncertainty) -> None:
    """The record declares outputs and pairs; widening them to all makes verify fail (the
    protocol only protects output 0 between secrets 0 and 1)."""
    crosstab = Crosstab.from_array(COUNTS)
    program = ProtocolProgram(crosstab, RobustDistortion(),
                              [RobustSecretPrivacy(1.0, outputs=[0], pairs=[(0, 1)])],
                              uncertainty=uncertainty, eps=1.0, name="RURP-on-0")
    path = tmp_path / "restricted.json"
    write_result(solution_result(program.solve()), path)
    record = json.loads(path.read_text())
    parameters = record["declaration"]["blocks"][1]["parameters"]
    assert parameters["outputs"] == [0] and parameters["pairs"] == [[0, 1]]
    assert main(["verify", str(path)]) == 0
    parameters["outputs"] = parameters["pairs"] = None
    path.write_text(json.dumps(record))
    assert main(["verify", str(path)]) == 1


def test_forall_over_a_linear_set_is_linear_and_highs_agrees_with_clarabel() -> None:
    crosstab = Crosstab.from_array(COUNTS)
    box = BoxSet.containing(ChiSquareSet.from_counts(COUNTS, 0.05))
    block = ForAll.from_statement("first_output_rare",
                                  lambda context, P: context.P[:, 0] @ P <= 0.2, crosstab)

    def solved(solver: str) -> float:
        program = ProtocolProgram(crosstab, NominalDistortion(), [block], uncertainty=box)
        assert "pyomo" in program.solver_forms()
        solution = program.solve(solver=solver)
        assert all(check.holds for check in solution.checks)
        return solution.result.objective

    assert solved("highs") == pytest.approx(solved("clarabel"), rel=1e-6)
