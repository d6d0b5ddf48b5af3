"""The block contract: a user block through every model form, capabilities instead of types,
LP variants on an LP solver, and the program's eps derived from its blocks."""

from __future__ import annotations

import json
import logging
import sys
from dataclasses import dataclass
from pathlib import Path

import cvxpy as cp
import numpy as np
import pytest

import solvers
from rldp_models.cli import main
from rldp_models.data import Crosstab
from rldp_models.errors import InputError
from rldp_models.datasets import jeffreys_instance
from rldp_models.programs import (
    BuildContext,
    NominalDistortion,
    NominalSecretPrivacy,
    ProtocolProgram,
    RobustDistortion,
    RobustSecretPrivacy,
    preset,
)
from rldp_models.programs.contract import ConstraintFamily
from rldp_models.results.program_result import solution_result
from rldp_models.uncertainty import BoxSet, ChiSquareSet
from rldp_models.uncertainty.base import Capability
from rldp_models.uncertainty.named import named_set
from rldp_models.results.files import write_result
from rldp_models.results.record import to_record

EXAMPLES = Path(__file__).resolve().parents[2] / "docs" / "examples"


@pytest.fixture(scope="module")
def crosstab() -> Crosstab:
    return jeffreys_instance(3, 4, 60, seed=2).crosstab


@pytest.fixture
def example(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """The docs' PairPrivacy block, registered as a plug-in (entry point) so verify rebuilds it."""
    site = tmp_path / "site"
    info = site / "rldp_block_contract_example-0.1.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: rldp-block-contract-example\n"
                                   "Version: 0.1\n")
    (info / "entry_points.txt").write_text(
        "[rldp_models.blocks]\nPairPrivacy = block_contract:PairPrivacy\n")
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.syspath_prepend(str(EXAMPLES))
    monkeypatch.delitem(sys.modules, "block_contract", raising=False)
    import importlib

    return importlib.import_module("block_contract")


def test_a_user_block_works_through_cvxpy_direct_and_pyomo_and_verifies(
        example, crosstab: Crosstab, tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    solutions = {solver: example.program(crosstab, 1.0, 0.1).solve(solver=solver)
                 for solver in ("clarabel", "clarabel-direct", "highs")}
    nominal_only = preset("NUNP", crosstab, 1.0).solve(solver="clarabel")
    reference = solutions["clarabel"].objective
    assert reference > nominal_only.objective + 1e-4  # the user block binds
    for solver, solution in solutions.items():
        assert solution.result.solver == solver
        assert solution.guarantee_holds
        assert [check.eps for check in solution.checks] == [1.0, 0.1]
        assert solution.objective == pytest.approx(reference, rel=1e-6)
        path = tmp_path / f"{solver}.json"
        write_result(solution_result(solution), path)
        assert main(["verify", str(path)]) == 0
        out = capsys.readouterr().out
        assert "PairPrivacy (plugin:rldp-block-contract-example)" in out


def test_the_user_blocks_verdict_fails_a_protocol_that_breaks_it(
        example, crosstab: Crosstab, tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    record = to_record(solution_result(example.program(crosstab, 1.0, 0.1).solve()))
    record["declaration"]["blocks"][2]["parameters"]["eps"] = 0.01
    path = tmp_path / "stricter.json"
    path.write_text(json.dumps(record))
    assert main(["verify", str(path)]) == 1
    assert "FAILS: PairPrivacy" in capsys.readouterr().out


def test_direct_rows_of_the_user_block_refill_like_a_fresh_build(example) -> None:
    from rldp_models.programs.conic_form import conic_program

    first, second = (jeffreys_instance(3, 4, 60, seed).crosstab for seed in (2, 3))
    program = example.program(first, 1.0, 0.1)
    program.parametric = True
    kept = conic_program(program)
    program.update(second)
    refilled = conic_program(program)
    fresh = conic_program(example.program(second, 1.0, 0.1))
    assert refilled is kept
    np.testing.assert_array_equal(refilled.A.toarray(), fresh.A.toarray())


@pytest.mark.parametrize("set_name", ["box", "tv"])
@pytest.mark.parametrize("problem", ["RURP", "NURP", "RUNP"])
def test_robust_programs_over_linear_sets_solve_on_highs_and_agree_with_clarabel(
        crosstab: Crosstab, problem: str, set_name: str) -> None:
    uncertainty = named_set(set_name, crosstab, 0.05)
    by_highs = preset(problem, crosstab, 1.0, uncertainty=uncertainty).solve(solver="highs")
    by_clarabel = preset(problem, crosstab, 1.0, uncertainty=uncertainty).solve(solver="clarabel")
    assert by_highs.result.solver == "highs"
    assert by_highs.result.objective == pytest.approx(by_clarabel.result.objective, rel=1e-6)
    assert by_highs.objective == pytest.approx(by_clarabel.objective, rel=1e-6)
    assert by_highs.guarantee_holds and by_clarabel.guarantee_holds


def test_rurp_over_box_with_highs_from_the_command_line_verifies(tmp_path: Path,
                                                                  capsys) -> None:
    counts = tmp_path / "counts.csv"
    counts.write_text("s,0,1,2,3\na,30,22,9,4\nb,12,25,20,8\nc,3,9,21,27\n")
    objectives = {}
    for solver in ("highs", "clarabel"):
        out = tmp_path / f"{solver}.json"
        assert main(["solve", "RURP", "--counts", str(counts), "--eps", "1", "--uncertainty",
                     "box", "--solver", solver, "--out", str(out)]) == 0
        record = json.loads(out.read_text())
        assert record["solver"]["name"] == solver
        objectives[solver] = record["value"]["value"]
        assert main(["verify", str(out)]) == 0
    assert objectives["highs"] == pytest.approx(objectives["clarabel"], rel=1e-6)


def test_a_polyhedral_set_has_the_linear_form(crosstab: Crosstab) -> None:
    box = BoxSet.containing(ChiSquareSet.from_counts(crosstab.counts, 0.05))
    from rldp_models.uncertainty.polyhedral import PolyhedralSet

    general = PolyhedralSet(box.phat, box.a_matrix, box.b_vector, box.radius)
    by_highs = preset("RURP", crosstab, 1.0, uncertainty=general).solve(solver="highs")
    by_box = preset("RURP", crosstab, 1.0, uncertainty=box).solve(solver="clarabel")
    assert by_highs.objective == pytest.approx(by_box.objective, rel=1e-6)


def test_capabilities_decide_the_forms_not_types(crosstab: Crosstab) -> None:
    chi2 = preset("RURP", crosstab, 1.0)
    box = preset("RURP", crosstab, 1.0, uncertainty=named_set("box", crosstab, 0.05))
    kl = preset("RURP", crosstab, 1.0, uncertainty=named_set("kl", crosstab, 0.05))
    nominal = preset("NUNP", crosstab, 1.0)
    assert chi2.solver_forms() == {"cvxpy", "conic"}
    assert box.solver_forms() == {"cvxpy", "pyomo"}
    assert kl.solver_forms() == {"cvxpy"}
    assert nominal.solver_forms() == {"cvxpy", "conic", "pyomo"}
    with pytest.raises(solvers.UnsupportedModelError, match="RobustDistortion"):
        kl.to_pyomo()
    with pytest.raises(solvers.UnsupportedModelError, match="cvxpy"):
        box.to_conic()


@dataclass(frozen=True)
class _AnyOutputFloor(ConstraintFamily):
    """A user family with no optional hook: ``P(y | x) >= floor`` (the contract's defaults)."""

    floor: float
    name: str = "floor"
    robust: bool = False

    def build(self, context: BuildContext) -> None:
        context.add(self.name, [context.P >= self.floor])


def test_a_block_with_defaults_only_falls_back_to_cvxpy_with_a_note(
        crosstab: Crosstab, caplog: pytest.LogCaptureFixture) -> None:
    program = ProtocolProgram(crosstab, NominalDistortion(),
                              [NominalSecretPrivacy(1.0), _AnyOutputFloor(0.01)])
    assert program.solver_forms() == {"cvxpy"}
    with caplog.at_level(logging.WARNING, logger="rldp_models"):
        solution = program.solve()
    assert solution.result.solver == "clarabel"
    assert [r.getMessage() for r in caplog.records] == [
        "rldp: note: custom: no direct conic form for _AnyOutputFloor; solving with clarabel"]
    # no exact check for the floor (it states no guarantee): enforced to solver tolerance
    assert solution.guarantee_holds and solution.protocol.min() >= 0.01 - 1e-7


@dataclass(frozen=True)
class _DuckCap:
    """A block with the contract's method names but not its base class: rejected."""

    eps: float
    name: str = "duck"
    robust: bool = False

    def build(self, context: BuildContext) -> None:
        NominalSecretPrivacy(self.eps, name=self.name).build(context)


def test_a_block_outside_the_contract_is_bad_input(crosstab: Crosstab) -> None:
    with pytest.raises(InputError, match="_DuckCap is not a constraint family: derive it"):
        ProtocolProgram(crosstab, NominalDistortion(), [_DuckCap(0.5)])
    with pytest.raises(InputError, match="_DuckCap is not an objective: derive it"):
        ProtocolProgram(crosstab, _DuckCap(0.5), [NominalSecretPrivacy(0.5)])  # type: ignore[arg-type]


def test_the_programs_eps_is_its_blocks(crosstab: Crosstab) -> None:
    blocks = [RobustSecretPrivacy(0.7)]
    uncertainty = ChiSquareSet.from_counts(crosstab.counts, 0.05)
    assert ProtocolProgram(crosstab, RobustDistortion(), blocks, uncertainty).eps == 0.7
    assert ProtocolProgram(crosstab, NominalDistortion(), []).eps == 0.0
    with pytest.raises(InputError, match="states eps = 1 but its guarantee blocks are at"):
        ProtocolProgram(crosstab, RobustDistortion(), blocks, uncertainty, eps=1.0)


def test_sets_declare_capabilities() -> None:
    from rldp_models.uncertainty import KLBallSet, TotalVariationSet
    from rldp_models.uncertainty.polyhedral import PolyhedralSet

    assert Capability.EXACT_PAIR in ChiSquareSet.capabilities
    assert Capability.DIRECT_CONIC in ChiSquareSet.capabilities
    for linear in (BoxSet, PolyhedralSet, TotalVariationSet):
        assert linear.capabilities == {Capability.LINEAR}
    assert KLBallSet.capabilities == frozenset()


def test_the_pyomo_rows_are_the_cvxpy_rows(crosstab: Crosstab) -> None:
    """Every group's Pyomo rows evaluate like the cvxpy constraints at a random point."""
    import pyomo.environ as pyo

    from rldp_models.programs.linear_form import variable_key

    program = preset("RURP", crosstab, 1.0, uncertainty=named_set("tv", crosstab, 0.05))
    pyomo = program.to_pyomo()
    rng = np.random.default_rng(0)
    for variable in program.to_cvxpy().problem.variables():
        value = rng.normal(size=variable.shape)
        variable.value = np.abs(value) if variable.attributes["nonneg"] else value
        component = pyomo.variables[variable_key(variable)]
        values = np.atleast_1d(variable.value)
        for index in component:
            component[index].value = float(values[index] if index is not None else values[0])
    for name, group in program.to_cvxpy().constraints.items():
        expected = np.concatenate([np.ravel(_lhs_minus_rhs(c)) for c in group])
        got = np.array([pyo.value(pyomo.constraints[name][i].body)
                        - (pyo.value(pyomo.constraints[name][i].upper) or 0.0)
                        for i in pyomo.constraints[name]])
        np.testing.assert_allclose(got, expected, rtol=1e-9, atol=1e-9)


def _lhs_minus_rhs(constraint: cp.Constraint) -> np.ndarray:
    sign = -1.0 if type(constraint).__name__ == "NonNeg" else 1.0
    return sign * np.asarray(constraint.expr.value, dtype=float)


def test_secret_blind_has_direct_rows_and_lip_a_linear_form(crosstab: Crosstab) -> None:
    from rldp_models.programs.information_privacy import RobustInformationPrivacy, SecretBlind

    chi2 = ChiSquareSet.from_counts(crosstab.counts, 0.05)
    blind = [SecretBlind(), RobustSecretPrivacy(1.0)]
    direct = ProtocolProgram(crosstab, RobustDistortion(), blind, chi2).solve()
    reference = ProtocolProgram(crosstab, RobustDistortion(), blind, chi2).solve(
        solver="clarabel")
    assert direct.result.solver == "clarabel-direct" and direct.guarantee_holds
    assert direct.objective == pytest.approx(reference.objective, rel=1e-6)
    box = named_set("box", crosstab, 0.05)
    lip = [RobustInformationPrivacy(1.0)]
    by_highs = ProtocolProgram(crosstab, RobustDistortion(), lip, box).solve(solver="highs")
    by_clarabel = ProtocolProgram(crosstab, RobustDistortion(), lip, box).solve(
        solver="clarabel")
    assert by_highs.guarantee_holds and by_clarabel.guarantee_holds
    assert by_highs.objective == pytest.approx(by_clarabel.objective, rel=1e-6)
