"""The cone-LP engine: dual sign convention, model forms, column generation, certificates.

Grounding: an LP small enough to solve by hand (optimum 2 r_1 + 2 r_2 for
rhs = (r_1, r_2) with r_1 < r_2, so the dual is d(optimum)/d(rhs) = (2, 2)); the
full LP in three model forms against column generation; the repair step
against a mechanism perturbed out of its cone; the master LP at tiny eps,
where its rows are ill conditioned, and at large eps, where rays span 1 to 5e8.
"""

from __future__ import annotations

import numpy as np

from rldp_models.finish import dyadic_rows
import pytest

import solvers
from rldp_models.conelp import ConeLP, ExplicitRays, inner_ratio, staircase_rays
from rldp_models.conelp.cones import pairwise_ratio_rows
from rldp_models.conelp.engine import ROW_BLOCK
from rldp_models.conelp.mechanism import guaranteed_mechanism
from rldp_models.conelp.staircase import pattern_utilities
from rldp_models.errors import InputError
from rldp_models.privacy import certify_ldp
from rldp_models.utility import MutualInformation


def hand_lp() -> ConeLP:
    """Rays (1,0), (0,1), (1,1) with mu = 1, 2, 4 and rhs (1, 2): optimum 6 at theta = (0, 1, 1)."""
    rays = ExplicitRays(np.array([[1.0, 0.0, 1.0], [0.0, 1.0, 1.0]]))
    return ConeLP(rays, np.array([1.0, 2.0, 4.0]), np.array([1.0, 2.0]))


@pytest.mark.parametrize("solver", ["highspy", "highs", "clarabel"])
def test_dual_is_the_gradient_of_the_optimum_in_every_backend(solver: str) -> None:
    solution = hand_lp().solve(solver)
    assert solution.value == pytest.approx(6.0, abs=1e-7)
    np.testing.assert_allclose(solution.certificate.dual, [2.0, 2.0], atol=1e-6)
    np.testing.assert_allclose(solution.columns, [[0.0, 1.0], [1.0, 1.0]], atol=1e-7)


@pytest.mark.parametrize("form, solver", [("to_linear_program", "highspy"),
                                          ("to_pyomo", "highs"), ("to_cvxpy", "clarabel")])
def test_full_lp_forms_agree_with_column_generation(form: str, solver: str) -> None:
    prior = np.random.default_rng(0).dirichlet(np.ones(5))
    rays = staircase_rays(5, inner_ratio(1.0))
    lp = ConeLP(rays, pattern_utilities(rays, MutualInformation(prior)), np.ones(5))
    reference = lp.solve()
    result = solvers.solve(getattr(lp, form)(), solver=solver)
    assert result.objective == pytest.approx(reference.value, rel=1e-7)
    dual = result.dual[ROW_BLOCK]
    assert dual.sum() == pytest.approx(reference.value, rel=1e-7)
    assert np.all(rays.transpose_dot(dual) >= lp.utilities - 1e-7)


def test_column_generation_prices_every_ray() -> None:
    prior = np.random.default_rng(1).dirichlet(np.ones(9))
    rays = staircase_rays(9, inner_ratio(0.7))
    utilities = pattern_utilities(rays, MutualInformation(prior))
    implicit = ConeLP(rays, utilities, np.ones(9)).solve(batch=3)
    explicit = ConeLP(ExplicitRays(rays.columns(np.arange(rays.count))), utilities,
                      np.ones(9)).solve()
    assert implicit.iterations > 1 and explicit.iterations == 1
    assert implicit.value == pytest.approx(explicit.value, rel=1e-12)
    for solution in (implicit, explicit):
        certificate = solution.certificate
        assert certificate.verified
        assert certificate.dual.sum() == pytest.approx(solution.value, rel=1e-12)
        assert np.all(rays.transpose_dot(certificate.dual) >= utilities - 1e-9)
        assert certificate.upper_bound >= solution.value - 1e-15
        np.testing.assert_allclose(solution.columns.sum(axis=1), 1.0, atol=1e-14)


def test_iteration_limit_is_reported() -> None:
    prior = np.random.default_rng(2).dirichlet(np.ones(8))
    rays = staircase_rays(8, inner_ratio(1.0))
    lp = ConeLP(rays, pattern_utilities(rays, MutualInformation(prior)), np.ones(8))
    solution = lp.solve(batch=1, max_iterations=2)
    assert solution.status is solvers.Status.ITERATION_LIMIT
    full = lp.solve()
    assert solution.value <= full.value + 1e-12
    assert solution.certificate.upper_bound >= full.value - 1e-12
    assert not solution.certificate.verified


def test_repair_mixes_in_the_uniform_mechanism() -> None:
    eps = 1.0
    r = np.exp(eps)
    stated = pairwise_ratio_rows(np.eye(2), r)
    Q = np.array([[r / (1 + r) + 1e-6, 1 / (1 + r) - 1e-6], [1 / (1 + r), r / (1 + r)]])
    utility = MutualInformation([0.5, 0.5])
    result = guaranteed_mechanism(Q, stated, lambda M: certify_ldp(M, eps), utility, eps,
                                  hand_lp().solve())
    assert result.repair.method == "mix" and 0 < result.repair.weight < 1e-5
    assert result.certification.holds and certify_ldp(result.Q, eps).holds
    # "before" is the LP's mechanism rounded to dyadic rows (the finish path's first step)
    assert result.repair.value_before == utility.total(dyadic_rows(Q)) > result.utility
    assert np.all(result.Q[:, None, :] <= r * result.Q[None, :, :])


def test_at_eps_zero_the_repair_is_the_one_output_mechanism() -> None:
    Q = np.array([[0.5, 0.5], [0.5 + 1e-12, 0.5 - 1e-12]])
    result = guaranteed_mechanism(Q, pairwise_ratio_rows(np.eye(2), 1.0),
                                  lambda M: certify_ldp(M, 0.0), MutualInformation([0.5, 0.5]),
                                  0.0, hand_lp().solve())
    assert result.repair.method == "fallback" and result.repair.weight == 1.0
    assert np.array_equal(result.Q, np.ones((2, 1))) and result.certification.holds


@pytest.mark.parametrize("eps", [1e-13, 1e-10, 1e-9, 1e-8])
def test_master_lp_at_tiny_eps_is_feasible(eps: float) -> None:
    """The rays' condition number is about 2 / eps; HiGHS called such masters infeasible."""
    prior = np.random.default_rng(6).dirichlet(np.ones(8))
    rays = staircase_rays(8, inner_ratio(eps))
    solution = ConeLP(rays, pattern_utilities(rays, MutualInformation(prior)),
                      np.ones(8)).solve()
    assert solution.certificate.verified and solution.columns.shape[1] > 1
    np.testing.assert_allclose(solution.columns.sum(axis=1), 1.0, atol=1e-15)


def test_master_lp_with_a_zero_prior_input_at_large_eps() -> None:
    """Patterns differing only at an input of zero prior have equal utilities; at eps = 20
    (entries up to 5e8) HiGHS failed on them unless the master's columns have unit mass."""
    prior = np.array([0.29669382066759065, 0.14748356709987104, 0.11915677642091085,
                      0.43666583581162743, 0.0])
    rays = staircase_rays(5, inner_ratio(20.0))
    solution = ConeLP(rays, pattern_utilities(rays, MutualInformation(prior)),
                      np.ones(5)).solve()
    assert solution.iterations > 1 and solution.certificate.verified


def test_bad_engine_input() -> None:
    rays = ExplicitRays(np.eye(2))
    with pytest.raises(InputError):
        ConeLP(rays, np.ones(3), np.ones(2))
    with pytest.raises(InputError):
        ConeLP(rays, np.ones(2), np.array([1.0, -1.0]))
    with pytest.raises(solvers.SolverError):
        ConeLP(ExplicitRays(np.array([[1.0], [1.0]])), np.ones(1), np.array([1.0, 2.0])).solve()
