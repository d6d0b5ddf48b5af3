"""The optimality certificate's producer against its form before this round, same process.

:func:`~rldp_models.optimality.best_claim.solution_optimality` on one solved
RURP, timed as it is today (every member moved to its term's maximiser at the
solver's protocol, batched, before one re-weighting LP) and as it was at commit
:data:`BASELINE` (the LP solved on the solver's members, the maximisers of the
terms it used added, the LP re-solved from its basis), that module's source read
from the repository's history and run on the same solution. The ratio is baseline
CPU over today's; today's proven gap must be at least as tight (up to LP and
rounding noise, 1e-9 relative). Race x education (5x16) runs by default, the
synthetic RURP 10x20 is ``slow``. Without the history (a shallow clone, no git)
the benchmark is skipped.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import time
from pathlib import Path
from types import ModuleType
from typing import Any
from unittest import mock

import pytest

from rldp_models.data import Crosstab
from rldp_models.optimality import lagrangian, set_members
from rldp_models.programs import preset
from rldp_models.optimality.best_claim import solution_optimality
import solvers.registry

from instances import race_education, synthetic_10x20
from timing import cpu_seconds

BASELINE = "227962b"
"""The commit whose producer is the baseline (the last with the second LP round)."""
ROOT = Path(__file__).resolve().parents[1]


def _baseline_producer() -> ModuleType:
    """The producer as it was at :data:`BASELINE` (``rldp_models.results.optimality_dual``
    then, :mod:`rldp_models.optimality.lagrangian_dual` and ``best_claim`` now), with the
    re-weighting LP of that commit (which re-solved its second round from the first basis)."""
    reweighting = _baseline_module("rldp_models/results/optimality_reweighting.py")
    # its other siblings as they are today, under the names they had at BASELINE
    with mock.patch.dict(sys.modules,
                         {"rldp_models.results.optimality_reweighting": reweighting,
                          "rldp_models.results.optimality_bounds": lagrangian,
                          "rldp_models.results.optimality_members": set_members,
                          # the registry's errors were solvers.errors then, since folded
                          # into solvers.registry
                          "solvers.errors": solvers.registry}):
        return _baseline_module("rldp_models/results/optimality_dual.py")


def _baseline_module(path: str) -> ModuleType:
    """The module at ``path`` as it was at :data:`BASELINE`, executed under a name of its own."""
    try:
        source = subprocess.run(["git", "show", f"{BASELINE}:{path}"], cwd=ROOT,
                                capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip(f"the repository's history at {BASELINE} is not available")
    name = "baseline_" + Path(path).stem
    spec = importlib.util.spec_from_loader(name, loader=None)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up while being defined
    exec(compile(source, f"{BASELINE}:{path}", "exec"), module.__dict__)
    return module


def _compare(benchmark: Any, record_ratio: Any, crosstab: Crosstab) -> None:
    baseline = _baseline_producer()
    solution = preset("RURP", crosstab, 1.0, 0.05, distortion="hamming").solve(
        solver="clarabel-direct")
    start = time.perf_counter()
    before, before_cpu = cpu_seconds(lambda: baseline.solution_optimality(solution))
    before_wall = time.perf_counter() - start
    now, now_cpu = benchmark.pedantic(lambda: cpu_seconds(lambda: solution_optimality(solution)),
                                      rounds=1, iterations=1)
    assert before["claimed"] and now["claimed"]
    assert now["relative_gap"] <= before["relative_gap"] * (1 + 1e-4) + 1e-9
    benchmark.extra_info.update(cpu_before=before_cpu, cpu_now=now_cpu,
                                cpu_ratio=before_cpu / now_cpu,
                                gap_before=before["relative_gap"], gap_now=now["relative_gap"])
    record_ratio(f"the producer at {BASELINE} (two LP rounds)", before_wall)


def test_race_education_5x16(benchmark, record_ratio) -> None:
    _compare(benchmark, record_ratio, race_education())


@pytest.mark.slow
def test_rurp_10x20(benchmark, record_ratio) -> None:
    _compare(benchmark, record_ratio, synthetic_10x20())
