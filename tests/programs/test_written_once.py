"""Written once (issue 32, item 3): the cvxpy and Pyomo models are emitted from the blocks'
one conic statement, and agree with models written independently here."""

from __future__ import annotations

import cvxpy as cp
import numpy as np
import pytest

import solvers
from rldp_models.data import Crosstab
from rldp_models.datasets import jeffreys_instance
from rldp_models.programs import preset
from rldp_models.programs.context import ordered_secret_pairs
from rldp_models.programs.linear_form import canonicalised, stated
from rldp_models.uncertainty.named import named_set

EPS = 0.8


@pytest.fixture(scope="module")
def crosstab() -> Crosstab:
    return jeffreys_instance(3, 4, 80, seed=11).crosstab


def _hand_written(crosstab: Crosstab, robust_utility: bool) -> float:
    """NUNP or RUNP written directly in cvxpy (eqs. 6-9): row-stochastic, eq. (6) at the
    empirical conditionals, and the expected or worst-case (the chi-square set's own
    Theorem 2 cones) Hamming distortion."""
    program = preset("RUNP" if robust_utility else "NUNP", crosstab, EPS, 0.05,
                     distortion="hamming")
    n_s, n_u = crosstab.shape
    P = cp.Variable((n_s * n_u, n_u), nonneg=True)
    conditional = crosstab.phat / crosstab.phat.sum(axis=1, keepdims=True)
    rows = [cp.sum(P, axis=1) == 1]
    for s1, s2 in ordered_secret_pairs(n_s):
        rows.append(conditional[s1] @ P[s1 * n_u:(s1 + 1) * n_u]
                    <= np.exp(EPS) * (conditional[s2] @ P[s2 * n_u:(s2 + 1) * n_u]))
    per_cell = cp.sum(cp.multiply(P, np.tile(1 - np.eye(n_u), (n_s, 1))), axis=1)
    if robust_utility:
        assert program.uncertainty is not None
        worst = cp.Variable()
        rows += program.uncertainty.support_at_most(per_cell, worst).constraints
        objective = worst
    else:
        objective = crosstab.phat.ravel() @ per_cell
    problem = cp.Problem(cp.Minimize(objective), rows)
    problem.solve(solver=cp.CLARABEL)
    return float(problem.value)


@pytest.mark.parametrize("robust_utility", [False, True], ids=["NUNP", "RUNP"])
def test_emitted_cvxpy_model_matches_a_hand_written_one(crosstab: Crosstab,
                                                        robust_utility: bool) -> None:
    name = "RUNP" if robust_utility else "NUNP"
    emitted = solvers.solve(preset(name, crosstab, EPS, 0.05, distortion="hamming"),
                            solver="clarabel")
    assert emitted.objective == pytest.approx(_hand_written(crosstab, robust_utility),
                                              rel=1e-6)


def test_rurp_through_cvxpy_reaches_the_proven_optimum(crosstab: Crosstab) -> None:
    """The emitted RURP model's optimum lies in the exact certificate's proven interval
    [lower, upper] of the optimum (weak duality, checked in rationals), up to Clarabel's
    tolerance; its own protocol is certified exactly."""
    from rldp_models.optimality.best_claim import solution_optimality

    cvxpy_path = preset("RURP", crosstab, EPS, 0.05, distortion="hamming").solve(
        solver="clarabel")
    assert cvxpy_path.guarantee_holds
    claim = solution_optimality(preset("RURP", crosstab, EPS, 0.05, distortion="hamming")
                                .solve(solver="clarabel-direct"))
    assert claim["claimed"] and claim["relative_gap"] < 1e-6
    assert claim["lower"] * (1 - 1e-7) <= cvxpy_path.result.objective \
        <= claim["upper"] * (1 + 1e-7)


def test_multipliers_and_duals_are_read_by_the_statements_names(crosstab: Crosstab) -> None:
    program = preset("RURP", crosstab, EPS, 0.05)
    result = solvers.solve(program, solver="clarabel")
    multipliers = program.multipliers()
    assert set(multipliers) == {"robust_utility"} | {
        f"robust_privacy[{a},{b}]" for a, b in ordered_secret_pairs(3)}
    assert np.shape(multipliers["robust_privacy[0,1]"]["t"].value) == (2, 4)
    assert np.shape(multipliers["robust_privacy[0,1]"]["c"].value) == (4,)
    direct = solvers.solve(preset("RURP", crosstab, EPS, 0.05), solver="clarabel-direct")
    # the stochastic rows' dual: the same rows, so the same multipliers up to the solvers'
    # tolerance and the direct form's sign convention
    np.testing.assert_allclose(np.abs(result.dual["stochastic"]),
                               np.abs(direct.dual["stochastic"]), rtol=1e-3, atol=1e-5)


def test_a_parametric_model_updates_its_parameters(crosstab: Crosstab) -> None:
    other = jeffreys_instance(3, 4, 80, seed=12).crosstab
    program = preset("RURP", crosstab, EPS, 0.05, parametric=True)
    solvers.solve(program, solver="clarabel")
    model = program.to_cvxpy()
    program.update(other)
    assert program.to_cvxpy() is model  # kept: only the parameters changed
    updated = solvers.solve(program, solver="clarabel")
    fresh = solvers.solve(preset("RURP", other, EPS, 0.05), solver="clarabel-direct")
    assert updated.objective == pytest.approx(fresh.objective, rel=1e-5)


def test_the_lp_statement_is_the_direct_rows_or_cvxpys_canonicalisation(
        crosstab: Crosstab) -> None:
    nominal = stated(preset("NUNP", crosstab, EPS, 0.05))
    assert set(nominal.groups) == {"stochastic", "privacy"}
    assert nominal.columns["protocol"].shape == (12, 4)
    robust = preset("RURP", crosstab, EPS, uncertainty=named_set("tv", crosstab, 0.05))
    statement = canonicalised(robust)
    model = robust.to_cvxpy()
    for group, constraints in model.constraints.items():
        assert statement.groups[group].size == sum(c.size for c in constraints)
    highs = solvers.solve(robust, solver="highs")
    assert highs.objective == pytest.approx(solvers.solve(robust, solver="clarabel").objective,
                                            rel=1e-6)
