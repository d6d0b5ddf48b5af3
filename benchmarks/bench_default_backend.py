"""The default backend (chosen from the blocks' capabilities) against the cvxpy path.

``ProtocolProgram.solve()`` with no solver takes the fastest backend the
program's blocks allow (:mod:`rldp_models.programs.backend_choice`). Each
benchmark times the default (solve and exact finish, end to end) and, in the
same process, the baseline: the same program through cvxpy + Clarabel
(``solver="clarabel"``, the default before). ``extra_info["speed_up"]`` is
baseline / default. For the LP variants without direct rows (RURP over the
box and l1 sets) it also times HiGHS through Pyomo, the LP path, as
``extra_info["highs_seconds"]``: that is the measurement behind keeping the
cvxpy path as their default.

Measure::

    python -m pytest benchmarks/bench_default_backend.py --benchmark-enable \
        -m 'slow or not slow' --benchmark-columns=min,mean,rounds
"""

from __future__ import annotations

import pytest

from rldp_models.datasets import jeffreys_instance
from rldp_models.programs import preset
from rldp_models.uncertainty.named import named_set
from timing import best_of

CASES = [("NUNP", 3, 4), ("NURP", 3, 4), ("RUNP", 3, 4), ("RURP", 3, 4),
         pytest.param("RURP", 5, 10, marks=pytest.mark.slow),
         pytest.param("NUNP", 7, 14, marks=pytest.mark.slow)]


def _crosstab(n_s: int, n_u: int):
    return jeffreys_instance(n_s, n_u, 30 * n_s * n_u, seed=n_s * 100 + n_u).crosstab


@pytest.mark.parametrize(("problem", "n_s", "n_u"), CASES)
def test_default_backend_against_cvxpy(benchmark, record_ratio, problem: str, n_s: int,
                                       n_u: int) -> None:
    crosstab = _crosstab(n_s, n_u)
    solution = benchmark.pedantic(lambda: preset(problem, crosstab, 1.0).solve(),
                                  rounds=3, iterations=1)
    benchmark.extra_info["backend"] = solution.result.solver
    assert solution.guarantee_holds
    baseline = best_of(lambda: preset(problem, crosstab, 1.0).solve(solver="clarabel"))
    record_ratio("cvxpy + clarabel", baseline)


@pytest.mark.parametrize("set_name", ["box", "tv"])
@pytest.mark.parametrize(("n_s", "n_u"), [(3, 4), pytest.param(5, 10, marks=pytest.mark.slow)])
def test_lp_variant_default_against_cvxpy_and_highs(benchmark, record_ratio, set_name: str,
                                                    n_s: int, n_u: int) -> None:
    crosstab = _crosstab(n_s, n_u)
    uncertainty = named_set(set_name, crosstab, 0.05)

    def solve(solver: str | None = None):
        return preset("RURP", crosstab, 1.0, uncertainty=uncertainty).solve(solver=solver)

    solution = benchmark.pedantic(solve, rounds=3, iterations=1)
    benchmark.extra_info["backend"] = solution.result.solver
    assert solution.guarantee_holds
    benchmark.extra_info["highs_seconds"] = best_of(lambda: solve("highs"))
    record_ratio("cvxpy + clarabel", best_of(lambda: solve("clarabel")))
