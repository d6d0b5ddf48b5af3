"""The optimality certificate's producer against its settings before this round, same process.

:func:`~rldp_models.results.optimality_dual.solution_optimality` on one solved
RURP, timed with today's settings (clearly-outside shrink weights skipped before
the ball-arithmetic proof, ``CLEARLY_OUTSIDE``; the conic dual's re-weighting LP
by HiGHS's interior point, ``CONIC_LP_METHOD``) and with both switched back
(no skip, the simplex) as the baseline. The proven gaps must agree; the ratio
is baseline CPU over today's. Race x education (5x16) runs by default, the
synthetic RURP 10x20 is ``slow``.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from rldp_models.data import Crosstab
from rldp_models.instances import jeffreys_instance
from rldp_models.programs import preset
from rldp_models.results import optimality_dual
from rldp_models.results.optimality_dual import solution_optimality

ADULT = Path("/work/shared/data/adult/adult.data")


def _cpu(function: Any) -> tuple[Any, float]:
    start = time.process_time()
    value = function()
    return value, time.process_time() - start


def _compare(benchmark: Any, record_ratio: Any, crosstab: Crosstab, monkeypatch: Any) -> None:
    solution = preset("RURP", crosstab, 1.0, 0.05, distortion="hamming").solve(
        solver="clarabel-direct")
    with monkeypatch.context() as patch:
        patch.setattr(optimality_dual, "CLEARLY_OUTSIDE", np.inf)
        patch.setattr(optimality_dual, "CONIC_LP_METHOD", "highs")
        start = time.perf_counter()
        before, before_cpu = _cpu(lambda: solution_optimality(solution))
        before_wall = time.perf_counter() - start
    now, now_cpu = benchmark.pedantic(lambda: _cpu(lambda: solution_optimality(solution)),
                                      rounds=1, iterations=1)
    assert before["claimed"] and now["claimed"]
    assert now["relative_gap"] == pytest.approx(before["relative_gap"], rel=1e-4)
    benchmark.extra_info.update(cpu_before=before_cpu, cpu_now=now_cpu,
                                cpu_ratio=before_cpu / now_cpu,
                                gap_before=before["relative_gap"], gap_now=now["relative_gap"])
    record_ratio("no skip, simplex LP", before_wall)


def test_race_education_5x16(benchmark, record_ratio, monkeypatch) -> None:
    if not ADULT.exists():
        pytest.skip("Adult data not available")
    _compare(benchmark, record_ratio, Crosstab.from_records(ADULT, "race", "education"),
             monkeypatch)


@pytest.mark.slow
def test_rurp_10x20(benchmark, record_ratio, monkeypatch) -> None:
    _compare(benchmark, record_ratio, jeffreys_instance(10, 20, 10_000, seed=7).crosstab,
             monkeypatch)
