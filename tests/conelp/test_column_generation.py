"""Oracle-driven column generation against the engine's full pricing.

Grounding: an oracle written here that prices an explicit list of staircase
patterns by brute force (its bound is the exact maximum), compared with
:meth:`ConeLP.solve` over the same rays and with the full LP in highspy; the
certificate is re-checked over every ray here.
"""

from __future__ import annotations

import numpy as np
import pytest

import solvers
from rldp_models.conelp import ConeLP, inner_ratio, staircase_rays
from rldp_models.conelp.column_generation import solve_by_pricing
from rldp_models.conelp.pricing import PricingResult
from rldp_models.errors import InputError
from rldp_models.utility import MutualInformation


class BruteForceOracle:
    """Prices every ray of an explicit matrix; the bound is the exact maximum."""

    def __init__(self, rays: np.ndarray, utilities: np.ndarray, seed: np.ndarray) -> None:
        self.rays, self.utilities, self._seed = rays, utilities, seed
        self.calls = 0

    @property
    def dimension(self) -> int:
        return self.rays.shape[0]

    def seed(self) -> np.ndarray:
        return self.rays[:, self._seed]

    def price(self, dual: np.ndarray, count: int) -> PricingResult:
        self.calls += 1
        reduced = (self.utilities - self.rays.T @ dual) / self.rays.sum(axis=0)
        best = np.argsort(-reduced)[:count]
        return PricingResult(self.rays[:, best], self.utilities[best], float(reduced.max()),
                             nodes=self.rays.shape[1])


def staircase_instance(k: int, eps: float, seed: int) -> tuple[BruteForceOracle, ConeLP,
                                                              MutualInformation]:
    utility = MutualInformation(np.random.default_rng(seed).dirichlet(np.ones(k)))
    rays = staircase_rays(k, inner_ratio(eps))
    matrix = rays.columns(np.arange(rays.count))
    lp = ConeLP.from_utility(rays, utility, np.ones(k))
    return BruteForceOracle(matrix, lp.utilities, rays.seed()), lp, utility


@pytest.mark.parametrize("k, eps, batch", [(4, 0.5, None), (7, 1.3, 2), (9, 3.0, 1)])
def test_oracle_column_generation_matches_full_pricing(k: int, eps: float, batch: int) -> None:
    oracle, lp, utility = staircase_instance(k, eps, k)
    solution = solve_by_pricing(oracle, utility, np.ones(k), batch=batch)
    reference = lp.solve()
    full = solvers.solve(lp.to_linear_program(), solver="highspy")
    assert solution.status is solvers.Status.OPTIMAL and solution.rays is None
    assert solution.value == pytest.approx(full.objective, rel=1e-9)
    assert solution.value == pytest.approx(reference.value, rel=1e-12)
    certificate = solution.certificate
    assert certificate.verified and solution.pricing_nodes == oracle.calls * lp.rays.count
    dual = certificate.dual + max(certificate.max_violation, 0.0)
    assert np.all(oracle.rays.T @ dual >= oracle.utilities - 1e-12)
    np.testing.assert_allclose(solution.columns, solution.vectors * solution.theta, rtol=1e-12)
    np.testing.assert_allclose(solution.columns.sum(axis=1), 1.0, atol=1e-14)


def test_iteration_limit_keeps_a_valid_bound() -> None:
    oracle, lp, utility = staircase_instance(8, 1.0, 3)
    solution = solve_by_pricing(oracle, utility, np.ones(8), batch=1, max_iterations=2)
    assert solution.status is solvers.Status.ITERATION_LIMIT
    assert not solution.certificate.verified
    assert solution.certificate.upper_bound >= lp.solve().value - 1e-12 >= solution.value


def test_bad_input() -> None:
    oracle, _, utility = staircase_instance(3, 1.0, 0)
    with pytest.raises(InputError):
        solve_by_pricing(oracle, utility, np.ones(4))
    with pytest.raises(InputError):
        solve_by_pricing(oracle, utility, np.ones(3), max_iterations=0)


def test_warm_started_highspy_master_agrees_with_the_registry_path() -> None:
    """highspy keeps one master and adds columns; 'highs' (Pyomo) rebuilds it each round."""
    oracle, lp, utility = staircase_instance(5, 0.8, 5)
    warm = solve_by_pricing(oracle, utility, np.ones(5), "highspy", batch=1)
    cold = solve_by_pricing(oracle, utility, np.ones(5), "highs", batch=1)
    assert warm.iterations > 2 and cold.iterations > 2
    assert warm.value == pytest.approx(cold.value, rel=1e-9)
    assert warm.certificate.verified and cold.certificate.verified


class _DualInfeasibleOnce:
    """A HiGHS stand-in that reports its first optimum with a column still dual infeasible
    (as HiGHS did on a warm-started PolyOpt master), and a clean one once cleared."""

    def __init__(self, highs: object) -> None:
        self.highs, self.cleared, self.runs = highs, False, 0

    def __getattr__(self, name: str) -> object:
        return getattr(self.highs, name)

    def run(self) -> object:
        self.runs += 1
        return self.highs.run()

    def clearSolver(self) -> object:  # noqa: N802 (HiGHS's name)
        self.cleared = True
        return self.highs.clearSolver()

    def getInfo(self) -> object:  # noqa: N802
        info = self.highs.getInfo()
        if not self.cleared:
            info.num_dual_infeasibilities = 1
        return info


def test_a_master_reported_dual_infeasible_is_solved_again_from_scratch() -> None:
    from rldp_models.conelp.engine import _WarmHighs

    patterns = staircase_rays(3, inner_ratio(1.0))
    rays = patterns.columns(np.arange(patterns.count))
    warm = _WarmHighs(np.ones(3), {})
    warm.add(rays, MutualInformation(np.ones(3) / 3).columns(rays))
    stand_in = _DualInfeasibleOnce(warm.highs)
    warm.highs = stand_in
    primal, dual = warm.solve()
    assert stand_in.cleared and stand_in.runs == 2
    assert np.allclose(rays @ primal, np.ones(3))
