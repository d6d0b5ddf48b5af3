"""The fast estimate (Newton from the point estimate, tables in one batch) against plain EM run
to convergence, written here independently: the iterative Bayesian update of DESIGN.md."""

from __future__ import annotations

import numpy as np
import pytest

from rldp_models.disclosure.channel import load_result, ReleaseChannel
from rldp_models.disclosure.estimation import estimate
from rldp_models.disclosure.identifiability import identifiability, target

RECORDS = 10**6
DRAWS = 400


def plain_ibu(Q: np.ndarray, f: np.ndarray, updates: int) -> np.ndarray:
    """``p <- p * A^T (f / (A p))`` normalised, ``A = Q^T``, from the uniform ``p``, a fixed
    number of times, for every row of ``f`` (no tolerance: run long enough to converge)."""
    A = Q.T
    p = np.full((f.shape[0], Q.shape[0]), 1.0 / Q.shape[0])
    for _ in range(updates):
        predicted = p @ A.T
        ratio = np.divide(f, predicted, out=np.zeros_like(f), where=predicted > 0)
        p = p * (ratio @ A)
        p /= p.sum(axis=1, keepdims=True)
    return p


def reference(Q: np.ndarray, counts: np.ndarray, seed: int, updates: int):
    """Today's estimate run to convergence: the point fit by plain IBU, the parametric
    bootstrap tables drawn from its law as rldp estimate draws them, each refitted by IBU."""
    n = counts.sum()
    point = plain_ibu(Q, counts[None] / n, updates)[0]
    again = plain_ibu(Q, (counts[None] / n), updates + 1000)[0]
    assert 0.5 * np.abs(again - point).sum() < 1e-9  # converged: 1000 more barely move it
    law = np.clip(point @ Q, 0.0, None)
    tables = np.random.default_rng(seed).multinomial(n, law / law.sum(), size=DRAWS) / n
    return point, plain_ibu(Q, tables, updates)


@pytest.mark.parametrize(("name", "spec"), [("srr", "X"), ("grr-cr", "X"), ("ir", "U")])
def test_fast_estimate_matches_converged_em_on_a_million_records(adult, name, spec) -> None:
    """P_X for full-rank channels; P_U for IR (rank 6 of 12: its P_X is not determined, and
    EM's P_X depends on the path, but every fixed point has the same P_U)."""
    result = load_result(adult.results[name])[0]
    channel = ReleaseChannel.from_result(result)
    Q = channel.matrix()
    truth = channel.distribution(result.crosstab)
    counts = np.random.default_rng(7).multinomial(RECORDS, truth @ Q / (truth @ Q).sum())
    goal = target(spec, channel.input_labels)
    verdict = identifiability(channel, goal.rows, goal.names)
    assert all(verdict.estimable)  # the TV below is of a determined estimate
    table = estimate(Q, counts, goal, verdict, draws=DRAWS, seed=3)
    point, boot = reference(Q, counts, seed=3, updates=30_000)
    assert table.converged
    assert 0.5 * np.abs(table.frame["em"].to_numpy() - goal.of(point)).sum() <= 1e-6
    low, high = np.quantile(goal.of(boot), [0.025, 0.975], axis=0)
    for mine, theirs in ((table.frame["em_low"], low), (table.frame["em_high"], high)):
        # 1e-9 absolute: an empty cell's endpoint is 0 here and 1e-48 after IBU's updates,
        # which shrink a vanishing coordinate geometrically and never reach 0
        assert np.all(np.abs(mine.to_numpy() - theirs) <= 0.1 * np.abs(theirs) + 1e-9)
