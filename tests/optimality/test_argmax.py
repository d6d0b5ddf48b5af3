"""The maximisers of the pair terms
(:func:`rldp_models.optimality.lagrangian_dual._argmax_members`), batched over terms: against
a general-purpose solver (SLSQP) and against one term at a time."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.optimize import minimize

from rldp_models.optimality.lagrangian_dual import TARGET, _argmax_member, _argmax_members


def _pair_set(seed: int, n_u: int = 4) -> tuple[np.ndarray, float]:
    """Theorem 3's weights ``w = (Phat_s1, Phat_s2)`` and limit of a random 2-secret table."""
    rng = np.random.default_rng(seed)
    counts = rng.integers(1, 30, size=(2, n_u)).astype(float)
    rows = counts / (counts.sum() * 1.5)  # the pair holds two thirds of the records
    return rows, math.sqrt(0.05 + 1) - 1 + rows.sum()


def _constraint(member: np.ndarray, rows: np.ndarray) -> float:
    return float(np.sum(np.sqrt(np.sum(rows**2 / member, axis=-1))))


def _by_slsqp(gains: np.ndarray, rows: np.ndarray, limit: float) -> float:
    """``max gains . (p1, p2)`` over the set, by SLSQP from the conditionals (an inner point)."""
    shape = rows.shape
    start = (rows / rows.sum(axis=1, keepdims=True)).ravel()
    inside = {"type": "ineq", "fun": lambda p: limit - _constraint(p.reshape(shape), rows)}
    simplex = {"type": "eq", "fun": lambda p: p.reshape(shape).sum(axis=1) - 1}
    found = minimize(lambda p: -gains.ravel() @ p, start, method="SLSQP",
                     bounds=[(1e-9, 1.0)] * start.size, constraints=[inside, simplex],
                     options={"ftol": 1e-14, "maxiter": 500})
    assert found.success, found.message
    return -found.fun


@pytest.mark.parametrize("seed", range(5))
def test_the_maximiser_beats_slsqp_and_lies_on_the_boundary(seed: int) -> None:
    rows, limit = _pair_set(seed)
    rng = np.random.default_rng(100 + seed)
    gains = rng.normal(size=(6,) + rows.shape)
    centre = rows / rows.sum(axis=1, keepdims=True)
    found = _argmax_members(np.broadcast_to(centre, gains.shape), gains,
                            np.broadcast_to(rows, gains.shape), np.full(6, limit))
    for member, gain in zip(found, gains):
        assert not np.array_equal(member, centre)  # converged (else the start comes back)
        assert np.allclose(member.sum(axis=1), 1.0, atol=1e-14)
        assert _constraint(member, rows) == pytest.approx(limit - 2 * TARGET, abs=1e-12)
        assert float(np.sum(gain * member)) >= _by_slsqp(gain, rows, limit) - 1e-8


def test_a_batch_of_several_sets_is_each_set_on_its_own() -> None:
    """Terms of different pairs (weights, limits, a cell without records) in one call give
    what each gives alone."""
    sets = [_pair_set(seed) for seed in range(4)]
    sets[2][0][1, 2] = 0.0  # a cell without records: it keeps the start's mass
    rng = np.random.default_rng(7)
    gains = rng.normal(size=(4, 2, 4))
    starts = np.stack([rows / rows.sum(axis=1, keepdims=True) for rows, _ in sets])
    starts[2, 1] = [0.3, 0.3, 0.1, 0.3]
    rows = np.stack([r for r, _ in sets])
    limits = np.array([limit for _, limit in sets])
    together = _argmax_members(starts, gains, rows, limits)
    for k in range(4):
        alone = _argmax_member(starts[k], gains[k], rows[k], float(limits[k]))
        assert np.allclose(together[k], alone, rtol=0, atol=1e-15)
    assert together[2, 1, 2] == 0.1
