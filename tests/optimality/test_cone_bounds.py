"""Weak duality on second-order, exponential and power cone programs with closed-form
optima (evaluated in ``arb``), and the programs where no bound can be proved."""

from __future__ import annotations

import cvxpy as cp
import flint
import numpy as np
import pytest
import scipy.sparse as sp

from rldp_models.optimality import DualCones, cvxpy_lower_bound, proven_lower_bound
from tests.optimality.conftest import clarabel_solve


def _below(bound_lower: float, optimum: flint.arb) -> bool:
    """``bound_lower <= optimum`` proved in ball arithmetic."""
    return bool(flint.arb(bound_lower) <= optimum)


@pytest.mark.parametrize("seed", range(3))
def test_a_linear_objective_over_a_ball(seed: int) -> None:
    """``min c.x, |x - a| <= rho``: optimum ``c.a - rho |c|``; every column free."""
    rng = np.random.default_rng(seed)
    n = 6
    c, a, rho = rng.integers(-4, 5, n).astype(float), rng.integers(-3, 4, n).astype(float), 2.0
    # s = (rho, x - a) in SOC:  A x + s = b  with  A = [0; -I],  b = (rho, -a)
    A = sp.vstack([sp.csr_matrix((1, n)), -sp.eye(n)]).tocsc()
    b = np.concatenate([[rho], -a])
    z = np.asarray(clarabel_solve(c, A, b, soc=(n + 1,)).z)
    bound = proven_lower_bound(c, A, b, DualCones(soc=(n + 1,)), z)
    norm = sum((flint.arb(v) ** 2 for v in c), flint.arb(0)).sqrt()
    optimum = sum((flint.arb(u) * flint.arb(v) for u, v in zip(c, a)), flint.arb(0)) - rho * norm
    assert bound.proved, bound.reason
    assert _below(bound.lower, optimum)
    assert bound.relative_gap(float(optimum.mid())) <= 1e-6


def test_an_exponential_cone_program() -> None:
    """``min t - 2 x, e^x <= t`` ((x, 1, t) in K_exp): optimum ``2 - 2 log 2``."""
    c = np.array([-2.0, 1.0])  # variables (x, t)
    A = sp.csc_matrix(np.array([[-1.0, 0.0], [0.0, 0.0], [0.0, -1.0]]))
    b = np.array([0.0, 1.0, 0.0])
    z = np.asarray(clarabel_solve(c, A, b, exp=1).z)
    bound = proven_lower_bound(c, A, b, DualCones(exp=1), z)
    optimum = 2 - 2 * flint.arb(2).log()
    assert bound.proved, bound.reason
    assert _below(bound.lower, optimum)
    assert bound.relative_gap(float(optimum.mid())) <= 1e-6


@pytest.mark.parametrize("alpha", [0.3, 0.5, 2 / 3])
def test_a_power_cone_program(alpha: float) -> None:
    """``max w, |w| <= u^a v^(1-a), u + v <= 2``: optimum ``(2a)^a (2(1-a))^(1-a)``."""
    c = np.array([0.0, 0.0, -1.0])  # variables (u, v, w), minimise -w
    A = sp.csc_matrix(np.array([[1.0, 1.0, 0.0], [-1.0, 0.0, 0.0], [0.0, -1.0, 0.0],
                                [0.0, 0.0, -1.0]]))
    b = np.array([2.0, 0.0, 0.0, 0.0])
    z = np.asarray(clarabel_solve(c, A, b, nonneg=1, power=(alpha,)).z)
    bound = proven_lower_bound(c, A, b, DualCones(nonneg=1, power=(alpha,)), z)
    a = flint.arb(alpha)
    optimum = -((2 * a) ** a * (2 * (1 - a)) ** (1 - a))
    assert bound.proved, bound.reason
    assert _below(bound.lower, optimum)
    assert bound.relative_gap(float(optimum.mid())) <= 1e-6


def test_cvxpy_problem_data_with_an_exponential_cone() -> None:
    """The same exponential program written in cvxpy, bounded from its Clarabel data."""
    x, t = cp.Variable(), cp.Variable()
    problem = cp.Problem(cp.Minimize(t - 2 * x + 1), [cp.exp(x) <= t])
    data, chain, _ = problem.get_problem_data(cp.CLARABEL)
    solution = chain.solver.solve_via_data(data, False, False, {})
    bound = cvxpy_lower_bound(data, np.asarray(solution.z))
    optimum = 3 - 2 * flint.arb(2).log()
    assert bound.proved, bound.reason
    assert _below(bound.lower, optimum)
    assert bound.relative_gap(float(optimum.mid())) <= 1e-6


def test_a_dual_far_outside_the_ball_program_is_valid_or_refused() -> None:
    rng = np.random.default_rng(3)
    n = 6
    c, a, rho = rng.integers(-4, 5, n).astype(float), np.zeros(n), 2.0
    A = sp.vstack([sp.csr_matrix((1, n)), -sp.eye(n)]).tocsc()
    b = np.concatenate([[rho], -a])
    optimum = -rho * sum((flint.arb(v) ** 2 for v in c), flint.arb(0)).sqrt()
    for _ in range(20):
        z = rng.standard_normal(n + 1) * 3
        bound = proven_lower_bound(c, A, b, DualCones(soc=(n + 1,)), z)
        assert not bound.proved or _below(bound.lower, optimum)


def test_a_free_column_with_a_cost_and_no_row_is_not_proved_by_name() -> None:
    """``min x + y, x >= 0``, ``y`` in no row: unbounded; the reason names ``y``."""
    c = np.array([1.0, 1.0])
    A = sp.csc_matrix(np.array([[-1.0, 0.0]]))
    b = np.zeros(1)
    bound = proven_lower_bound(c, A, b, DualCones(nonneg=1), np.array([1.0]),
                               names={"x": np.array([0]), "y": np.array([1])})
    assert not bound.proved and bound.value is None and bound.lower == -np.inf
    assert bound.reason is not None and bound.reason.startswith("y:")


def test_free_columns_without_moves_enough_are_not_proved_by_name() -> None:
    """``min x1 + 2 x2`` with only ``1 <= x1 + x2 <= 3``: unbounded below (``x2 - x1``
    has cost 1 and no row), so no dual cancels both columns; the reason names ``x``."""
    c = np.array([1.0, 2.0])
    A = sp.csc_matrix(np.array([[-1.0, -1.0], [1.0, 1.0]]))
    b = np.array([-1.0, 3.0])
    bound = proven_lower_bound(c, A, b, DualCones(nonneg=2), np.array([1.0, 0.0]),
                               names={"protocol": np.array([], dtype=int), "x": np.arange(2)})
    assert not bound.proved and bound.reason is not None and bound.reason.startswith("x:")
