"""Fast by default: the backend chosen from the program's capabilities answers as the cvxpy
path does (Clarabel through cvxpy, the independent side) on the preset sweep, and its records
verify."""

from __future__ import annotations

from pathlib import Path

import pytest

from rldp_models.cli import main
from rldp_models.datasets import jeffreys_instance
from rldp_models.programs import PRESETS, preset
from rldp_models.programs.backend_choice import LARGE_NOMINAL_ENTRIES, default_solver
from rldp_models.results.program_result import solution_result
from rldp_models.results.files import write_result

INSTANCES = [(3, 4, 60, 11), (2, 5, 40, 12), (4, 3, 80, 13)]  # (|S|, |U|, n, seed)
TIGHT = {"tol_gap_abs": 1e-10, "tol_gap_rel": 1e-10, "tol_feas": 1e-10}


@pytest.mark.parametrize("shape", INSTANCES, ids=lambda s: f"{s[0]}x{s[1]}-seed{s[3]}")
@pytest.mark.parametrize("problem", PRESETS)
def test_default_backend_equals_the_cvxpy_path(problem: str, shape: tuple[int, ...]) -> None:
    crosstab = jeffreys_instance(*shape).crosstab
    default = preset(problem, crosstab, 0.8).solve()
    # The reference at the direct path's own accuracy (1e-10 on small programs): at cvxpy's
    # default 1e-8 its exact finish may cost up to ~1e-6 relative through the repair mix.
    reference = preset(problem, crosstab, 0.8).solve(solver="clarabel", **TIGHT)
    assert default.result.solver == "clarabel-direct"  # every preset block has direct rows
    assert default.guarantee_holds and reference.guarantee_holds
    assert default.result.objective == pytest.approx(reference.result.objective, rel=1e-6,
                                                     abs=1e-8)
    assert default.objective == pytest.approx(reference.objective, rel=1e-6, abs=1e-8)


@pytest.mark.parametrize("problem", PRESETS)
def test_records_of_the_default_backend_verify(problem: str, tmp_path: Path) -> None:
    crosstab = jeffreys_instance(3, 4, 60, 11).crosstab
    solution = preset(problem, crosstab, 0.8).solve()
    assert solution.result.solver == "clarabel-direct"
    path = tmp_path / f"{problem}.json"
    write_result(solution_result(solution), path)
    assert main(["verify", str(path)]) == 0


def test_a_large_nominal_program_goes_to_highs_and_agrees_with_the_direct_path() -> None:
    """NUNP is an LP: from LARGE_NOMINAL_ENTRIES protocol entries HiGHS is the default (Adult
    16x15: 4 s against 82 s); the direct path is the independent side."""
    crosstab = jeffreys_instance(8, 16, 4000, 5).crosstab
    assert 8 * 16 * 16 >= LARGE_NOMINAL_ENTRIES
    program = preset("NUNP", crosstab, 1.0)
    assert default_solver(program) == "highs"
    assert default_solver(preset("NURP", crosstab, 1.0)) == "clarabel-direct"  # robust: conic
    default, reference = program.solve(), preset("NUNP", crosstab, 1.0).solve(
        solver="clarabel-direct")
    assert default.result.solver == "highs" and default.guarantee_holds
    assert default.objective == pytest.approx(reference.objective, rel=1e-6, abs=1e-8)
