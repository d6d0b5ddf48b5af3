"""Finishing a robust solve: the predicted repair weight against the exact Theorem-4 bounds."""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pytest

import solvers
from rldp_models.exact import exact_stochastic_rows, interval, iv, upper
from rldp_models.datasets import jeffreys_instance
from rldp_models.privacy.guarantees import theorem4_upper_bound
from rldp_models.programs import RobustSecretPrivacy, preset
from rldp_models.programs.solution import PREDICTION_SAFETY, finish_solution
from solvers import SolveResult, Status

EPS = 0.7


@pytest.fixture(scope="module")
def solved() -> tuple:
    program = preset("RURP", jeffreys_instance(3, 4, 60, seed=2).crosstab, EPS, 0.05)
    return program, solvers.solve(program, solver="clarabel-direct")


def _multipliers(result: SolveResult) -> dict:
    groups: dict = {}
    for name, value in result.primal.items():
        group, _, key = name.rpartition(".")
        if group.startswith("robust_privacy[") and key in ("c", "t"):
            groups.setdefault(group, {})[key] = value
    return groups


def _exact_worst(program, protocol: np.ndarray, multipliers: dict) -> float:
    """Largest Theorem-4 bound at the given multipliers, in interval arithmetic."""
    counts = program.crosstab.counts
    n = int(counts.sum())
    n_s, n_u = counts.shape
    blocks = protocol.reshape(n_s, n_u, -1)
    rows = [[Fraction(int(c), n) for c in row] for row in counts]
    root = iv.sqrt(interval(program.uncertainty.radius) + 1)
    worst = -np.inf
    for s1, s2 in itertools.permutations(range(n_s), 2):
        rho = root - 1 + interval(sum(rows[s1], Fraction(0)) + sum(rows[s2], Fraction(0)))
        group = multipliers[f"robust_privacy[{s1},{s2}]"]
        for y in range(blocks.shape[2]):
            bound = theorem4_upper_bound(blocks[s1, :, y], iv.exp(interval(EPS)),
                                         blocks[s2, :, y], [rows[s1], rows[s2]], rho,
                                         float(group["c"][y]), tuple(group["t"][:, y]))
            worst = max(worst, upper(bound))
    return worst


def _leaky(protocol: np.ndarray, n_s: int, weight: float) -> np.ndarray:
    """Mix towards the protocol that outputs the secret's index: it violates privacy."""
    leak = np.zeros_like(protocol)
    n_u = protocol.shape[0] // n_s
    leak[np.arange(protocol.shape[0]), np.repeat(np.arange(n_s), n_u)] = 1.0
    return (1 - weight) * protocol + weight * leak


def test_estimate_equals_the_interval_bound(solved) -> None:
    program, result = solved
    multipliers = _multipliers(result)
    protocol = exact_stochastic_rows(_leaky(np.clip(result.primal["protocol"], 0, None),
                                            program.crosstab.shape[0], 1e-3))
    family = program.constraints[0]
    assert isinstance(family, RobustSecretPrivacy)
    estimate = family.estimated_worst_margin(protocol, program, multipliers)
    assert estimate == pytest.approx(_exact_worst(program, protocol, multipliers), abs=1e-12)


def test_predicted_repair_needs_one_exact_check(solved, monkeypatch) -> None:
    program, result = solved
    raw = _leaky(np.clip(result.primal["protocol"], 0, None), program.crosstab.shape[0], 1e-3)
    multipliers = _multipliers(result)
    margin = _exact_worst(program, exact_stochastic_rows(raw), multipliers)
    uniform_margin = (1 - np.exp(EPS)) / len(program.outputs)
    needed = margin / (margin - uniform_margin)
    calls = []
    original = RobustSecretPrivacy.check
    monkeypatch.setattr(RobustSecretPrivacy, "check",
                        lambda self, *args: calls.append(1) or original(self, *args))
    leaky = SolveResult(Status.OPTIMAL, result.objective,
                        primal={**result.primal, "protocol": raw}, solver="test")
    solution = finish_solution(program, leaky)
    assert margin > 0 and solution.guarantee_holds and len(calls) == 1
    assert needed < solution.repair.weight <= PREDICTION_SAFETY * needed * (1 + 1e-6)
