"""The direct conic form against the cvxpy model: same optimum, same multipliers, exact finish."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import cvxpy as cp
import numpy as np
import pytest
import scipy.sparse as sp

import solvers
from solvers.backends import clarabel_direct
from rldp_models.data import Crosstab
from rldp_models.datasets import jeffreys_instance
from rldp_models.programs import (
    BuildContext,
    NominalDistortion,
    NominalSecretPrivacy,
    ProtocolProgram,
    preset,
)
from rldp_models.programs.conic_form import conic_program
from rldp_models.programs.contract import Objective
from tests.shared_data import ADULT


@pytest.fixture(scope="module")
def crosstab() -> Crosstab:
    return jeffreys_instance(3, 4, 60, seed=2).crosstab


@pytest.fixture(scope="module", params=[[2], [1, 2]], ids=["one", "two"])
def zero_row_crosstab(request: pytest.FixtureRequest) -> Crosstab:
    counts = np.array(jeffreys_instance(3, 4, 60, seed=5).crosstab.counts)
    counts[request.param] = 0  # secrets without records: the empty sides of Theorem 4
    return Crosstab.from_array(counts)


@pytest.mark.parametrize("problem", ["NUNP", "NURP", "RUNP", "RURP"])
def test_direct_optimum_equals_the_cvxpy_models(crosstab: Crosstab, problem: str) -> None:
    cvxpy_result = solvers.solve(preset(problem, crosstab, 0.7, 0.05), solver="clarabel")
    direct = preset(problem, crosstab, 0.7, 0.05).solve(solver="clarabel-direct")
    assert direct.result.objective == pytest.approx(cvxpy_result.objective, rel=1e-6)
    assert direct.guarantee_holds


def test_record_less_secret_and_both_linkings(zero_row_crosstab: Crosstab) -> None:
    reference = solvers.solve(preset("RURP", zero_row_crosstab, 1.0, 0.1), solver="clarabel")
    for linking in ("mixed", "plain"):
        program = conic_program(preset("RURP", zero_row_crosstab, 1.0, 0.1), linking)
        result = solvers.solve(program, solver="clarabel-direct")
        assert result.objective == pytest.approx(reference.objective, rel=1e-6)


def test_multipliers_have_the_cvxpy_names_and_shapes(crosstab: Crosstab) -> None:
    cvxpy_program = preset("RURP", crosstab, 0.7, 0.05)
    cvxpy_program.solve(solver="clarabel")  # the cvxpy path (the default is the direct one)
    expected = {group: {k: np.shape(v.value) for k, v in named.items()}
                for group, named in cvxpy_program.multipliers().items()}
    direct = preset("RURP", crosstab, 0.7, 0.05).solve(solver="clarabel-direct")
    assert direct.repair is None or direct.repair.weight < 1e-5
    got = {group: {k: np.shape(v) for k, v in named.items()}
           for group, named in direct.multipliers.items() if group in expected}
    assert got == expected


def test_worst_case_distortion_matches_theorem_2_closed_form(crosstab: Crosstab) -> None:
    program = preset("RUNP", crosstab, 0.7, 0.05)
    result = solvers.solve(program, solver="clarabel-direct")
    protocol = result.primal["protocol"]
    assert float(result.primal["worst_case_distortion"]) == pytest.approx(
        program.objective.evaluate(protocol, program), rel=1e-6)


def test_scs_direct_reaches_the_optimum_approximately(crosstab: Crosstab) -> None:
    reference = solvers.solve(preset("RURP", crosstab, 0.7, 0.05), solver="clarabel")
    solution = preset("RURP", crosstab, 0.7, 0.05).solve(solver="scs-direct", eps_abs=1e-6,
                                                          eps_rel=1e-6)
    assert solution.result.objective == pytest.approx(reference.objective, rel=1e-3)
    assert solution.guarantee_holds


@dataclass(frozen=True)
class _CustomObjective(Objective):
    """A user-written block that declares no direct conic form (the contract's default)."""

    robust: bool = False

    def build(self, context: BuildContext) -> cp.Expression:
        return NominalDistortion().build(context)

    def evaluate(self, protocol: np.ndarray, program: ProtocolProgram) -> float:
        return NominalDistortion().evaluate(protocol, program)


@dataclass(frozen=True)
class _InheritedObjective(NominalDistortion):
    """A user block that inherits the library block's direct rows (and says so by inheriting)."""


def test_user_blocks_are_refused_with_a_pointer_to_cvxpy(crosstab: Crosstab) -> None:
    program = ProtocolProgram(crosstab, _CustomObjective(), [], eps=1.0)
    with pytest.raises(solvers.UnsupportedModelError, match="cvxpy"):
        solvers.solve(program, solver="clarabel-direct")


def test_a_user_block_with_direct_rows_is_served(crosstab: Crosstab) -> None:
    blocks = [NominalSecretPrivacy(1.0)]
    direct = solvers.solve(ProtocolProgram(crosstab, _InheritedObjective(), blocks),
                           solver="clarabel-direct")
    reference = solvers.solve(ProtocolProgram(crosstab, NominalDistortion(), blocks),
                              solver="clarabel")
    assert direct.objective == pytest.approx(reference.objective, rel=1e-6)


def test_inconsistent_conic_program_is_rejected() -> None:
    with pytest.raises(ValueError, match="inconsistent"):
        solvers.ConicProgram(np.zeros(2), sp.csc_matrix((3, 2)), np.zeros(3),
                             solvers.ConeDims(zero=1))


@pytest.mark.parametrize("problem", ["NUNP", "RURP"])
def test_refilled_model_equals_a_fresh_build(problem: str) -> None:
    first, second = (jeffreys_instance(3, 4, 60, seed).crosstab for seed in (2, 3))
    program = preset(problem, first, 0.7, 0.05, parametric=True)
    kept = conic_program(program)
    program.update(second)
    refilled = conic_program(program)
    fresh = conic_program(preset(problem, second, 0.7, 0.05, parametric=True))
    assert refilled is kept
    np.testing.assert_array_equal(refilled.A.toarray(), fresh.A.toarray())
    np.testing.assert_array_equal(refilled.c, fresh.c)
    np.testing.assert_array_equal(refilled.b, fresh.b)


def test_stochastic_rows_dual_is_reported_unmixed(crosstab: Crosstab) -> None:
    reference = solvers.solve(preset("NURP", crosstab, 0.7, 0.05), solver="clarabel")
    direct = solvers.solve(preset("NURP", crosstab, 0.7, 0.05), solver="clarabel-direct")
    np.testing.assert_allclose(direct.dual["stochastic"], reference.dual["stochastic"],
                               rtol=1e-4, atol=1e-6)


def test_hamming_distortion_is_defined_by_one_entry_rows_with_declared_duals(
        crosstab: Crosstab) -> None:
    """``v_x = 1 - P[x, u_x]`` (Hamming, with ``sum_y P = 1``): plain two-entry rows, and the
    duals of ``stochastic`` still those of ``sum_y P[x, y] = 1`` as the cvxpy model states it."""
    program = preset("RURP", crosstab, 0.7, 0.05, distortion="hamming")
    conic = conic_program(program)
    rows = conic.A.tocsr()[conic.row_blocks["robust_utility.v"]]
    assert np.all(np.diff(rows.indptr) == 2)
    np.testing.assert_array_equal(conic.b[conic.row_blocks["robust_utility.v"]], 1.0)
    reference = solvers.solve(preset("RURP", crosstab, 0.7, 0.05, distortion="hamming"),
                              solver="clarabel")
    direct = solvers.solve(program, solver="clarabel-direct")
    assert direct.objective == pytest.approx(reference.objective, rel=1e-6)
    np.testing.assert_allclose(direct.dual["stochastic"], reference.dual["stochastic"],
                               rtol=1e-4, atol=1e-5)


def test_cells_without_records_get_linear_rows_not_cones() -> None:
    counts = np.array(jeffreys_instance(3, 4, 60, seed=2).crosstab.counts)
    counts[0, 1] = counts[2, 3] = 0
    crosstab = Crosstab.from_array(counts)
    plain, kept = (conic_program(preset("RURP", crosstab, 0.7, 0.05, parametric=parametric))
                   for parametric in (False, True))
    pairs, outputs = 3 * 2, kept.variable_blocks["protocol"].shape[1]
    # each empty cell sits on one side of 2 * (|S| - 1) ordered pairs, at every output
    assert len(kept.cones.soc) - len(plain.cones.soc) == \
        np.count_nonzero(counts == 0) * 2 * 2 * outputs
    assert plain.variable_blocks["robust_privacy[0,1].r1"].shape == \
        (np.count_nonzero(counts[0]), outputs)
    reference = solvers.solve(preset("RURP", crosstab, 0.7, 0.05), solver="clarabel")
    for conic in (plain, kept):
        result = solvers.solve(conic, solver="clarabel-direct")
        assert result.objective == pytest.approx(reference.objective, rel=1e-6)
    assert pairs == len([g for g in plain.row_blocks if g.startswith("robust_privacy[")])


def test_unchanged_program_reuses_its_form_and_new_counts_rebuild_it() -> None:
    first, second = (jeffreys_instance(3, 4, 60, seed).crosstab for seed in (2, 3))
    program = preset("RURP", first, 0.7, 0.05)
    built = conic_program(program)
    assert conic_program(program) is built
    program.update(second)
    rebuilt = conic_program(program)
    assert rebuilt is not built
    fresh = conic_program(preset("RURP", second, 0.7, 0.05))
    np.testing.assert_array_equal(rebuilt.A.toarray(), fresh.A.toarray())
    np.testing.assert_array_equal(rebuilt.b, fresh.b)


def test_boost_maps_the_second_order_cone_onto_itself() -> None:
    """Points on and inside ``u >= sqrt(v^2 + w^2)`` stay there; points outside stay outside."""
    conic = conic_program(preset("RURP", jeffreys_instance(3, 4, 60, seed=2).crosstab, 0.7,
                                 0.05))
    rows, lam = conic.soc_boosts
    assert rows.size and np.all(lam > 1.0)  # every side's mass is below 1.4^2
    boost = conic.boost()
    rng = np.random.default_rng(0)
    s = rng.normal(size=conic.A.shape[0])
    triples = np.stack([rows, rows + 1, rows + 2], axis=1)
    margin = s[triples[:, 0]] - np.hypot(s[triples[:, 1]], s[triples[:, 2]])
    boosted = boost @ s
    boosted_margin = boosted[triples[:, 0]] - np.hypot(boosted[triples[:, 1]],
                                                       boosted[triples[:, 2]])
    np.testing.assert_array_equal(np.sign(boosted_margin), np.sign(margin))
    np.testing.assert_allclose(boost @ boost @ s, boost @ (boost @ s))  # symmetric map
    np.testing.assert_allclose((boost - boost.T).toarray(), 0.0)


def _assert_same_answer(result: solvers.SolveResult, reference: solvers.SolveResult,
                        objective_rtol: float, dual_rtol: float, dual_atol: float) -> None:
    """``result`` has ``reference``'s objective and the duals of every declared row group."""
    assert result.objective == pytest.approx(reference.objective, rel=objective_rtol)
    for group, dual in reference.dual.items():
        np.testing.assert_allclose(result.dual[group], dual, rtol=dual_rtol, atol=dual_atol,
                                   err_msg=group)


def test_boosted_solve_reports_the_declared_rows_duals(
        crosstab: Crosstab, monkeypatch: pytest.MonkeyPatch) -> None:
    """The side cones handed to Clarabel boosted give the same optimum and, after the map
    back, the same duals of every declared row group as the unboosted form (RURP's dual is
    unique here; NURP's is not: its boosted solve gives another dual of the declared rows,
    residual 4e-11, whose ``protocol>=0`` entries differ by up to 1%)."""
    monkeypatch.setattr(clarabel_direct, "BOOST_FROM_NNZ", 0)  # boost this small program
    boosted = conic_program(preset("RURP", crosstab, 0.7, 0.05, distortion="hamming"))
    assert boosted.boost() is not None
    plain = dataclasses.replace(boosted, soc_boosts=None, solver_cache={})
    with_boost, without = (solvers.solve(conic, solver="clarabel-direct")
                           for conic in (boosted, plain))
    _assert_same_answer(with_boost, without, objective_rtol=1e-7, dual_rtol=1e-3, dual_atol=1e-6)


def test_mixing_blocks_unmix_to_the_declared_rows_dual() -> None:
    """``named_dual`` of rows written ``(I + B) G x = (I + B) h`` is ``(I + B) z``, with ``B``
    block diagonal of all-ones blocks (the last one shorter), checked against the matrix."""
    z = np.arange(1.0, 8.0)
    conic = solvers.ConicProgram(np.zeros(1), sp.csc_matrix((7, 1)), np.zeros(7),
                                 solvers.ConeDims(zero=7), row_blocks={"g": np.arange(7)},
                                 mixed_groups=(("g", 3),))
    B = sp.block_diag([np.ones((3, 3)), np.ones((3, 3)), np.ones((1, 1))]).toarray()
    np.testing.assert_array_equal(conic.named_dual(z)["g"], (np.eye(7) + B) @ z)
    assert conic.grouped_linking
    assert not dataclasses.replace(conic, mixed_groups=(("g", 7),)).grouped_linking


def test_grouped_rows_touch_twice_as_many_variables_as_there_are_rows() -> None:
    program = preset("RURP", jeffreys_instance(3, 4, 60, seed=2).crosstab, 0.7, 0.05,
                     distortion="hamming")
    conic = conic_program(program, "grouped")
    rows = conic.A.tocsr()[conic.row_blocks["stochastic"]]
    n_x, n_y = conic.variable_blocks["protocol"].shape  # 12 rows of 4 entries: blocks of 6
    assert conic.mixed_groups == (("stochastic", 6),)
    np.testing.assert_array_equal(np.diff(rows.indptr), 6 * n_y)
    assert 6 * n_y == 2 * n_x


@pytest.mark.parametrize("distortion", ["hamming", "squared"])
def test_grouped_linking_gives_the_mixed_forms_optimum_and_declared_duals(
        crosstab: Crosstab, distortion: str) -> None:
    """The grouped form has the fully mixed form's optimum and, for every declared row group,
    its duals, both solved as declared (no boost) with the same settings and no refinement;
    with squared distortion the ``v`` rows are grouped as well. (With squared distortion the
    duals of ``protocol>=0`` are not determined to better than ~1%: the plain form's differ by
    1.4% at the same optimum, and one late refinement step that trips in one form only moves
    its dual by 5e-4.)"""
    mixed, grouped = (conic_program(preset("RURP", crosstab, 0.7, 0.05, distortion=distortion),
                                    linking) for linking in ("mixed", "grouped"))
    assert grouped.grouped_linking and not mixed.grouped_linking
    assert len(grouped.mixed_groups) == (2 if distortion == "squared" else 1)
    settings = {**clarabel_direct.GROUPED_PROGRAM_SETTINGS, "tol_gap_abs": 1e-10,
                "tol_gap_rel": 1e-10, "tol_feas": 1e-10, "iterative_refinement_enable": False}
    reference, result = (solvers.solve(dataclasses.replace(conic, soc_boosts=None,
                                                           solver_cache={}),
                                       solver="clarabel-direct", **settings)
                         for conic in (mixed, grouped))
    _assert_same_answer(result, reference, objective_rtol=1e-9, dual_rtol=1e-4, dual_atol=1e-7)


def test_large_robust_programs_default_to_grouped_linking() -> None:
    small = preset("RURP", jeffreys_instance(3, 4, 60, seed=2).crosstab, 0.7, 0.05)
    large = preset("RURP", jeffreys_instance(5, 16, 2000, seed=2).crosstab, 0.7, 0.05)
    nominal = preset("NUNP", jeffreys_instance(5, 16, 2000, seed=2).crosstab, 0.7, 0.05)
    assert conic_program(small).mixed_groups == (("stochastic", 12),  # fully mixed
                                                 ("robust_utility.v", 12))
    assert conic_program(large).grouped_linking
    assert conic_program(nominal).mixed_groups == ()


@pytest.mark.slow
@pytest.mark.skipif(not ADULT.exists(), reason="the shared Adult data is absent")
@pytest.mark.parametrize("problem", ["RURP", "NURP"])
def test_education_occupation_ends_solved(problem: str) -> None:
    """Adult education x occupation (16 x 15, boosted side cones) ends Clarabel ``Solved``:
    its unrefined KKT solves stalled the dual residual at ~1.2e-8 against 1e-9, and the
    run ended ``AlmostSolved`` (``GROUPED_PROGRAM_SETTINGS``' late refinement)."""
    program = preset(problem, Crosstab.from_records(ADULT, "education", "occupation"), 1.0,
                     0.05, distortion="hamming")
    conic = conic_program(program)
    assert conic.grouped_linking and conic.boost() is not None
    result = solvers.solve(conic, solver="clarabel-direct")
    assert result.status is solvers.Status.OPTIMAL, result.log


@pytest.mark.parametrize("outputs, nnz, method", [(42, 600_000, "faer"), (20, 600_000, "qdldl"),
                                                  (42, 100_000, "qdldl")])
def test_grouped_programs_factor_with_faer_only_when_wide_and_large(
        outputs: int, nnz: int, method: str) -> None:
    """Grouped programs keep qdldl unless their protocol has WIDE_GROUPED_OUTPUTS columns or
    more and A has WIDE_GROUPED_FROM_NNZ nonzeros or more (measured thresholds; see the
    backend's comment)."""
    program = solvers.ConicProgram(
        np.zeros(nnz), sp.identity(nnz, format="csc"), np.zeros(nnz), solvers.ConeDims(nonneg=nnz),
        variable_blocks={"protocol": np.arange(10 * outputs).reshape(10, outputs)})
    assert clarabel_direct._grouped_settings(program)["direct_solve_method"] == method
