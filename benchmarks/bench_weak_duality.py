"""What the weak-duality bound (:mod:`rldp_models.optimality`) costs beside the solve.

Each benchmark times :func:`~rldp_models.optimality.conic_lower_bound` on the dual of a
``clarabel-direct`` solve of the same program (the toolkit's settings), and stores in
the same process the solve it certifies (Clarabel on the conic form, timed once after
the form is built) as the baseline: ``extra_info["cost_over_solve"]`` is the bound's
best time over the solve's (issue 34's target on RURP 10x20: at most 0.5), with the
proven relative gap ``(UB - LB) / max(1, |UB|)``, UB the solver's objective.

Measure::

    python -m pytest benchmarks/bench_weak_duality.py --benchmark-enable \\
        -m 'slow or not slow' --benchmark-columns=min,mean,rounds
"""

from __future__ import annotations

import time

import pytest

from instances import synthetic_10x20
from rldp_models.data import Crosstab
from rldp_models.datasets import jeffreys_instance
from rldp_models.optimality import conic_lower_bound, declared_rows_dual
from rldp_models.programs import preset
from rldp_models.programs.conic_form import conic_program
from solvers.backends.clarabel_direct import ClarabelDirectBackend


def _bound_over_solve(benchmark, problem: str, crosstab: Crosstab, eps: float,
                      rounds: int, must_prove: bool = True) -> None:
    conic = conic_program(preset(problem, crosstab, eps, 0.05, distortion="hamming"))
    start = time.perf_counter()
    result = ClarabelDirectBackend().solve(conic)
    solve_seconds = time.perf_counter() - start
    z = declared_rows_dual(conic, result.dual)
    bound = benchmark.pedantic(lambda: conic_lower_bound(conic, z, simplices=("protocol",)),
                               rounds=rounds, iterations=1)
    assert bound.proved or not must_prove, bound.reason
    stats = benchmark.stats
    benchmark.extra_info.update(
        solve_seconds=solve_seconds, relative_gap=bound.relative_gap(result.objective),
        cost_over_solve=None if stats is None else stats.stats.min / solve_seconds,
        free_columns=bound.free, core_columns=bound.core, inward_rounds=bound.moves,
        proved=bound.proved, reason=bound.reason)


@pytest.mark.parametrize("problem", ["NURP", "RURP"])
def test_bound_3x5(benchmark, problem: str) -> None:
    _bound_over_solve(benchmark, problem, jeffreys_instance(3, 5, 15_000, 3).crosstab, 0.5, 3)


@pytest.mark.slow
def test_bound_rurp_10x20(benchmark) -> None:
    """Issue 34's target: at most 0.5x the solve. Not proved yet (docs/optimality.md,
    profiled: 199 s against a 20.4 s solve, 9.7x, 463 cones outside K*; about 9 s a
    round, so a first-round proof would be 0.45x), so the outcome is recorded, not
    asserted."""
    _bound_over_solve(benchmark, "RURP", synthetic_10x20(), 1.0, 1, must_prove=False)
