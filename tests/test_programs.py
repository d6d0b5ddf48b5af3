"""The four robust protocol programs on a seeded sweep of the paper's setting."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest

from rldp_models.data import Crosstab
from rldp_models.errors import InputError
from rldp_models.datasets import jeffreys_instance
from rldp_models.privacy.guarantees import check_nominal_privacy, check_robust_privacy
from rldp_models.privacy.metrics import distortion_star, epsilon_star
from rldp_models.programs import PRESETS, ProtocolSolution, preset

EPS, ALPHA, SWEEP = 0.5, 0.05, 20


@dataclass
class Outcome:
    crosstab: Crosstab
    p_star: np.ndarray
    solutions: dict[str, ProtocolSolution]


@pytest.fixture(scope="module")
def sweep() -> list[Outcome]:
    outcomes = []
    for seed in range(SWEEP):
        instance = jeffreys_instance(3, 5, 75, seed)
        solutions = {name: preset(name, instance.crosstab, EPS, ALPHA).solve()
                     for name in PRESETS}
        outcomes.append(Outcome(instance.crosstab, instance.p_star, solutions))
    return outcomes


def test_every_program_solves(sweep: list[Outcome]) -> None:
    for outcome in sweep:
        for name, solution in outcome.solutions.items():
            assert solution.status.has_solution, name
            assert solution.guarantee_holds, name


def test_objectives_follow_the_inclusions_of_the_constraint_sets(sweep: list[Outcome]) -> None:
    slack = 1e-6
    for outcome in sweep:
        value = {name: s.objective for name, s in outcome.solutions.items()}
        assert value["NUNP"] <= value["NURP"] + slack
        assert value["NURP"] <= value["RURP"] + slack
        assert value["NUNP"] <= value["RUNP"] + slack
        assert value["RUNP"] <= value["RURP"] + slack


def test_robust_protocols_pass_an_independent_robust_check(sweep: list[Outcome]) -> None:
    for outcome in sweep:
        for name in ("NURP", "RURP"):
            solution = outcome.solutions[name]
            check = check_robust_privacy(solution.protocol, outcome.crosstab.counts,
                                         solution.program.uncertainty, EPS)  # no multipliers
            assert check.holds, (name, check.summary())


def test_nominal_protocols_pass_the_nominal_check(sweep: list[Outcome]) -> None:
    for outcome in sweep:
        for name in ("NUNP", "RUNP"):
            check = check_nominal_privacy(outcome.solutions[name].protocol,
                                          outcome.crosstab.counts, EPS)
            assert check.holds, (name, check.summary())


def test_figure_2a_finding_nominal_privacy_leaks_robust_privacy_does_not(
        sweep: list[Outcome]) -> None:
    """Fig. 2a: NUNP's eps* under P* exceeds eps on most instances; NURP's mostly does not."""
    nunp = [epsilon_star(o.solutions["NUNP"].protocol, o.p_star) for o in sweep]
    nurp = [epsilon_star(o.solutions["NURP"].protocol, o.p_star) for o in sweep]
    assert sum(e > EPS for e in nunp) >= 0.7 * len(sweep)
    assert sum(e <= EPS for e in nurp) >= 0.7 * len(sweep)
    assert np.median(nunp) > 2 * EPS


def test_robust_privacy_costs_more_utility_than_robust_utility(sweep: list[Outcome]) -> None:
    """Section V: NURP and RURP are close in D*; NUNP is far better in D*."""
    d = {name: np.mean([distortion_star(o.solutions[name].protocol, o.p_star,
                                        o.solutions[name].program.distortion_matrix)
                        for o in sweep]) for name in PRESETS}
    assert d["NUNP"] < d["NURP"]
    assert abs(d["RURP"] - d["NURP"]) < d["NURP"] - d["NUNP"]


def test_repairs_are_hair_breadth(sweep: list[Outcome]) -> None:
    weights = [s.repair.weight for o in sweep for s in o.solutions.values() if s.repair]
    assert all(w < 1e-4 for w in weights)


@pytest.mark.parametrize("name", list(PRESETS))
def test_conic_solvers_agree_on_the_objective(name: str, demo_crosstab: Crosstab) -> None:
    values = {solver: preset(name, demo_crosstab, EPS, ALPHA).solve(solver=solver)
              for solver in ("clarabel", "scs", "ecos")}
    reference = values["clarabel"].result.objective
    for solver, solution in values.items():
        assert solution.result.objective == pytest.approx(reference, rel=1e-4, abs=1e-5), solver
        assert solution.guarantee_holds, solver


def test_pyomo_highs_and_cvxpy_agree_on_nunp(demo_crosstab: Crosstab) -> None:
    by_highs = preset("NUNP", demo_crosstab, EPS).solve(solver="highs")
    by_clarabel = preset("NUNP", demo_crosstab, EPS).solve(solver="clarabel")
    assert by_highs.result.objective == pytest.approx(by_clarabel.result.objective, abs=1e-7)
    assert by_highs.guarantee_holds
    stochastic_duals = (by_highs.result.dual["stochastic"], by_clarabel.result.dual["stochastic"])
    np.testing.assert_allclose(*stochastic_duals, atol=1e-6)


def test_robust_programs_have_no_pyomo_form(demo_crosstab: Crosstab) -> None:
    import solvers

    with pytest.raises(solvers.UnsupportedModelError):
        preset("RURP", demo_crosstab, EPS).to_pyomo()


@pytest.mark.parametrize("name", list(PRESETS))
def test_zero_rows_and_cells(name: str, zero_row_crosstab: Crosstab) -> None:
    solution = preset(name, zero_row_crosstab, EPS, ALPHA).solve()
    assert solution.guarantee_holds
    # a secret with no records gets a protocol private against every conditional
    cube = solution.protocol_cube()
    conditional = zero_row_crosstab.counts[0] / zero_row_crosstab.counts[0].sum()
    assert np.all(cube[2] <= np.exp(EPS) * (conditional @ cube[0]) + 1e-12)


@pytest.mark.parametrize("name", list(PRESETS))
def test_eps_zero_gives_outputs_independent_of_the_secret(name: str,
                                                          demo_crosstab: Crosstab) -> None:
    solution = preset(name, demo_crosstab, 0.0, ALPHA).solve()
    assert solution.guarantee_holds
    conditional = np.einsum("su,suy->sy", demo_crosstab.phat / demo_crosstab.phat.sum(1)[:, None],
                            solution.protocol_cube())
    np.testing.assert_allclose(conditional, conditional[[0]].repeat(3, axis=0), atol=1e-9)


def test_hamming_distortion_and_custom_outputs(demo_crosstab: Crosstab) -> None:
    solution = preset("RURP", demo_crosstab, 2.0, distortion="hamming",
                      outputs=["0", "2", "4"]).solve()
    assert solution.protocol.shape == (15, 3)
    assert solution.guarantee_holds


def test_squared_distortion_needs_numeric_labels() -> None:
    crosstab = Crosstab.from_array([[3, 4], [5, 6]], u_labels=["low", "high"])
    with pytest.raises(InputError, match="numeric"):
        preset("NUNP", crosstab, 1.0)
    assert preset("NUNP", crosstab, 1.0, distortion="hamming").solve().guarantee_holds


def test_negative_eps_is_rejected(demo_crosstab: Crosstab) -> None:
    with pytest.raises(InputError):
        preset("NUNP", demo_crosstab, -0.1)


def test_larger_eps_never_costs_utility(demo_crosstab: Crosstab) -> None:
    values = [preset("RURP", demo_crosstab, eps).solve().objective for eps in (0.2, 0.5, 1.0, 3.0)]
    assert all(a >= b - 1e-6 for a, b in zip(values, values[1:]))


def test_stored_multipliers_prove_the_returned_protocol(demo_crosstab: Crosstab) -> None:
    """After a repair the certificate must prove the repaired protocol without refinement."""
    from rldp_models.privacy.guarantees import check_robust_privacy as check

    solution = preset("NURP", demo_crosstab, EPS, ALPHA).solve()
    pairs = {tuple(int(i) for i in name[len("robust_privacy["):-1].split(",")): values
             for name, values in solution.multipliers.items()
             if name.startswith("robust_privacy[")}
    verdict = check(solution.protocol, demo_crosstab.counts, solution.program.uncertainty, EPS,
                    pairs, refine=False)
    assert len(pairs) == 6 and verdict.holds
