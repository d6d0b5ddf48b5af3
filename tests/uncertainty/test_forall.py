"""``forall(F, expr <= 0)`` and robust privacy restricted to chosen outputs and pairs."""

from __future__ import annotations

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
from rldp_models.programs.forall import ForAll, RobustPrivacyOn, affine_parts, forall
from rldp_models.uncertainty import ChiSquareSet, KLBallSet
from rldp_models.uncertainty.derived import direct_worst_case
from rldp_models.uncertainty.power_divergence import PowerDivergenceSet

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
    block = ForAll("first_output_rare", lambda context, P: context.P[:, 0] @ P <= 0.2)
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
    assert objective(RobustPrivacyOn(1.0)) == pytest.approx(full, rel=1e-6)
    assert objective(RobustPrivacyOn(1.0, outputs=[0], pairs=[(0, 1)])) < full
