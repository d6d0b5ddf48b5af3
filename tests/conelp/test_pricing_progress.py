"""Anytime column generation: the watch sees every round, its bound is proven, it stops."""

from __future__ import annotations

import io

import numpy as np

from rldp_models.conelp.column_generation import solve_by_pricing
from rldp_models.conelp.concave_pricing import ConcavePricing
from rldp_models.conelp.cones import pairwise_ratio_rows
from rldp_models.conelp.pricing_progress import RoundWatch
from rldp_models.utility import MutualInformation


def _problem(seed: int = 0, size: int = 4) -> tuple[np.ndarray, np.ndarray]:
    joint = np.random.default_rng(seed).random((2, size))
    joint /= joint.sum()
    rows = pairwise_ratio_rows(joint / joint.sum(axis=1, keepdims=True), np.e)
    return rows, joint.sum(axis=0)


def test_watched_run_solves_the_same_lp_and_reports_every_round() -> None:
    rows, prior = _problem()
    utility = MutualInformation(prior)
    plain = solve_by_pricing(ConcavePricing(rows, prior), utility, np.ones(4))
    stream = io.StringIO()
    watch = RoundWatch("test", True, stream=stream)
    watched = solve_by_pricing(ConcavePricing(rows, prior), utility, np.ones(4), watch=watch)
    assert len(watch.rounds) == watched.iterations
    assert watched.value == plain.value
    assert np.allclose(watched.certificate.dual, plain.certificate.dual)
    # every reported bound is above the optimum (the bound is proven), the last one closes
    assert all(r.bound >= plain.value - 1e-9 for r in watch.rounds)
    assert watch.rounds[-1].gap <= 1e-8
    assert "round" in stream.getvalue() and "gap" in stream.getvalue()


def test_stopped_run_returns_a_feasible_protocol_and_a_valid_bound() -> None:
    rows, prior = _problem(1, 6)
    utility = MutualInformation(prior)
    optimum = solve_by_pricing(ConcavePricing(rows, prior), utility, np.ones(6)).value
    watch = RoundWatch("test", False, seconds=0.0)
    stopped = solve_by_pricing(ConcavePricing(rows, prior, stop=watch.stopping), utility,
                               np.ones(6), watch=watch)
    assert watch.stopped_early and stopped.iterations == 1
    assert np.allclose(stopped.columns.sum(axis=1), 1.0)
    assert stopped.value <= optimum + 1e-12
    assert stopped.certificate.upper_bound >= optimum - 1e-12
