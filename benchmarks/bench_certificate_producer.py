"""The optimality certificate's producer against its form before this round, same process.

:func:`~rldp_models.results.optimality_dual.solution_optimality` on one solved
RURP, timed as it is today (the re-weighting LP kept across the cutting-plane
round: after the first interior-point solve, the LP with the refined members
is re-solved by the dual simplex from the last basis,
:data:`~rldp_models.results.optimality_reweighting.RESOLVE_FROM_BASIS`) and
with every LP solved from scratch (interior point and crossover each time,
``RESOLVE_FROM_BASIS = False``) as the baseline. The proven gaps must agree
(the two optimal vertices differ; the bounds by LP and rounding noise, ~1e-9
of the objective); the ratio is baseline CPU over today's. Race x education
(5x16) runs by default, the synthetic RURP 10x20 is ``slow``.
"""

from __future__ import annotations

import time
from typing import Any

import pytest

from rldp_models.data import Crosstab
from rldp_models.programs import preset
from rldp_models.results import optimality_reweighting
from rldp_models.results.optimality_dual import solution_optimality

from instances import race_education, synthetic_10x20
from timing import cpu_seconds



def _compare(benchmark: Any, record_ratio: Any, crosstab: Crosstab, monkeypatch: Any) -> None:
    solution = preset("RURP", crosstab, 1.0, 0.05, distortion="hamming").solve(
        solver="clarabel-direct")
    with monkeypatch.context() as patch:
        patch.setattr(optimality_reweighting, "RESOLVE_FROM_BASIS", False)
        start = time.perf_counter()
        before, before_cpu = cpu_seconds(lambda: solution_optimality(solution))
        before_wall = time.perf_counter() - start
    now, now_cpu = benchmark.pedantic(lambda: cpu_seconds(lambda: solution_optimality(solution)),
                                      rounds=1, iterations=1)
    assert before["claimed"] and now["claimed"]
    assert now["relative_gap"] == pytest.approx(before["relative_gap"], rel=1e-4)
    benchmark.extra_info.update(cpu_before=before_cpu, cpu_now=now_cpu,
                                cpu_ratio=before_cpu / now_cpu,
                                gap_before=before["relative_gap"], gap_now=now["relative_gap"])
    record_ratio("every LP from scratch", before_wall)


def test_race_education_5x16(benchmark, record_ratio, monkeypatch) -> None:
    _compare(benchmark, record_ratio, race_education(), monkeypatch)


@pytest.mark.slow
def test_rurp_10x20(benchmark, record_ratio, monkeypatch) -> None:
    _compare(benchmark, record_ratio, synthetic_10x20(), monkeypatch)
