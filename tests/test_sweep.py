"""The sweep fast path: one compiled model, the same answers as solving each instance alone."""

from __future__ import annotations

import numpy as np
import pytest

from rldp_models.data import Crosstab
from rldp_models.datasets import jeffreys_instance
from rldp_models.programs import preset, sweep


def test_sweep_matches_separate_solves_and_keeps_each_instances_data() -> None:
    crosstabs = [jeffreys_instance(3, 5, 75, seed).crosstab for seed in range(4)]
    zero_row = np.array(crosstabs[0].counts)
    zero_row[1] = 0  # a secret without records changes the model's shape mid-sweep
    crosstabs.insert(2, Crosstab.from_array(zero_row))
    swept = list(sweep("RURP", crosstabs, eps=0.5, alpha=0.05))
    for crosstab, solution in zip(crosstabs, swept):
        alone = preset("RURP", crosstab, 0.5, 0.05).solve()
        assert solution.program.crosstab == crosstab
        assert solution.guarantee_holds
        assert solution.objective == pytest.approx(alone.objective, rel=1e-6)


def test_update_recalibrates_the_set_from_alpha() -> None:
    first, second = (jeffreys_instance(3, 5, n, 3).crosstab for n in (75, 300))
    program = preset("NURP", first, 0.5, 0.05, parametric=True)
    program.solve()
    program.update(second)
    assert program.uncertainty.radius == pytest.approx(
        preset("NURP", second, 0.5, 0.05).uncertainty.radius)
    assert program.solve().objective == pytest.approx(
        preset("NURP", second, 0.5, 0.05).solve().objective, rel=1e-6)


def test_direct_conic_sweep_matches_separate_cvxpy_solves() -> None:
    crosstabs = [jeffreys_instance(3, 4, 60, seed).crosstab for seed in range(2)]
    zero_row = np.array(crosstabs[0].counts)
    zero_row[0] = 0  # a new structure mid-sweep: the conic model is rebuilt, not refilled
    crosstabs.insert(0, Crosstab.from_array(zero_row))
    swept = list(sweep("RURP", crosstabs, eps=0.5, alpha=0.05, solver="clarabel-direct"))
    for crosstab, solution in zip(crosstabs, swept):
        alone = preset("RURP", crosstab, 0.5, 0.05).solve()
        assert solution.guarantee_holds
        assert solution.result.objective == pytest.approx(alone.result.objective, rel=1e-6)
