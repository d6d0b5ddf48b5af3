"""``LinearConstraints``: rows read from a cvxpy statement, a binding cap kept exactly through
the finish (rounding and repair), the optimum of an independent plain-cvxpy model."""

from __future__ import annotations

from fractions import Fraction

import cvxpy as cp
import numpy as np
import pytest

from rldp_models.data import Crosstab
from rldp_models.errors import InputError
from rldp_models.programs import (
    LinearConstraints,
    NominalDistortion,
    NominalSecretPrivacy,
    ProtocolProgram,
)

COUNTS = np.array([[9, 4, 0, 12], [3, 8, 6, 2], [1, 0, 7, 15]])
CAP = 0.2


def _plain_optimum(counts: np.ndarray, eps: float, cap: float) -> float:
    """NURP's nominal program (eqs. 6, 7) with the cap, in plain cvxpy."""
    n_s, n_u = counts.shape
    phat = counts / counts.sum()
    conditional = phat / phat.sum(axis=1, keepdims=True)
    d = np.subtract.outer(np.arange(n_u), np.arange(n_u)) ** 2.0
    P = cp.Variable((n_s * n_u, n_u), nonneg=True)
    given = [conditional[s] @ P[s * n_u:(s + 1) * n_u, :] for s in range(n_s)]
    constraints = [cp.sum(P, axis=1) == 1, P[:, -1] <= cap]
    constraints += [given[a] <= np.exp(eps) * given[b]
                    for a in range(n_s) for b in range(n_s) if a != b]
    value = cp.sum(cp.multiply(P, np.tile(d, (n_s, 1))), axis=1) @ phat.ravel()
    problem = cp.Problem(cp.Minimize(value), constraints)
    problem.solve(solver="CLARABEL")
    return float(problem.value)


def test_the_rows_of_a_statement_are_its_coefficients() -> None:
    crosstab = Crosstab.from_array(COUNTS)
    block = LinearConstraints.from_statement("cap", lambda P: P[:, -1] <= CAP, crosstab)
    assert block.rows == tuple(((x, 3, 1.0),) for x in range(12))
    assert block.bounds == (CAP,) * 12 and block.sense == "<="
    floor = LinearConstraints.from_statement("floor", lambda P: P[0, 0] + P[1, 0] >= 0.1,
                                             crosstab)
    assert floor.rows == (((0, 0, -1.0), (1, 0, -1.0)),) and floor.bounds == (-0.1,)


def test_a_binding_cap_is_kept_exactly_and_the_value_is_the_optimum() -> None:
    """eps = 3 lets the nominal optimum release u3 as itself; the cap binds on those rows."""
    crosstab = Crosstab.from_array(COUNTS)
    eps = 3.0
    d = np.subtract.outer(np.arange(4), np.arange(4)) ** 2.0
    cap = LinearConstraints.from_statement("cap", lambda P: P[:, -1] <= CAP, crosstab)
    program = ProtocolProgram(crosstab, NominalDistortion(), [NominalSecretPrivacy(eps), cap],
                              distortion=d)
    solution = program.solve()
    assert solution.guarantee_holds
    last = [Fraction(float(p)) for p in solution.protocol[:, -1]]
    assert max(last) <= Fraction(CAP) and max(last) > Fraction(CAP) - Fraction(1, 10**6)
    expected = _plain_optimum(COUNTS, eps, CAP)
    assert -1e-6 <= (solution.objective - expected) / expected <= 1e-5


def test_the_uniform_protocol_repairs_only_a_cap_it_meets() -> None:
    """The repair mixes with 1/|Y|: slack for a cap above 1/4, none for one below."""
    rows = (((0, 3, 1.0),),)
    assert LinearConstraints("cap", rows, (0.3,)).uniform_margin(4) == pytest.approx(-0.05)
    assert LinearConstraints("cap", rows, (0.2,)).uniform_margin(4) == pytest.approx(0.05)


@pytest.mark.parametrize("rows, bounds, sense", [
    ((((0, 0, 1.0),),), (0.5,), "<"),
    ((((0, 0, 1.0),),), (), "<="),
    ((((0, 0, float("nan")),),), (0.5,), "<="),
])
def test_malformed_rows_are_bad_input(rows, bounds, sense) -> None:
    with pytest.raises(InputError):
        LinearConstraints("cap", rows, bounds, sense)
