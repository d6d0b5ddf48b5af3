"""SCIP as a guide of the pricing search (issue 37, item 4): its ray is a ray of Gamma,
checked in exact rationals, and its reduced cost is what it claims, recomputed from the
definition of mutual information; its dual bound is never used as a proof."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from rldp_models.conelp import extreme_rays, inner_ratio
from rldp_models.conelp.concave_pricing import ConcavePricing
from rldp_models.conelp.exact_lp_dual import outer_ratio
from rldp_models.conelp.polyopt_gamma import gamma_rows, gamma_vertices
from rldp_models.data import Crosstab
from rldp_models.uncertainty.chi_square import ChiSquareSet

from rldp_models.conelp import concave_pricing
from rldp_models.conelp.scip_pricing import scip_available, scip_point

needs_scip = pytest.mark.skipif(not scip_available(), reason="pyscipopt (the scip extra)")

COUNTS = np.array([[30, 5, 12], [4, 25, 9], [11, 14, 20]])


@pytest.fixture(scope="module")
def gamma() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Gamma's exact rational rows at eps 1 (3x3) at the ratio priced (``inner_ratio``)
    and at the one certified (``outer_ratio``, the cone PolyOpt's proofs cover), and the
    empirical prior."""
    table = Crosstab.from_array(COUNTS, ["a", "b", "c"], ["lo", "mid", "hi"])
    vertices = gamma_vertices(ChiSquareSet.from_counts(table.counts, 0.05), False)
    return (gamma_rows(vertices, Fraction(inner_ratio(1.0))),
            gamma_rows(vertices, outer_ratio(1.0)), table.phat.ravel())


def _reduced(v: np.ndarray, prior: np.ndarray, dual: np.ndarray) -> float:
    """``(I-column utility - dual.v) / (1.v)`` from the definition, term by term."""
    mass = sum(p * x for p, x in zip(prior, v))
    mu = sum(p * x * math.log(x) for p, x in zip(prior, v) if x > 0) - mass * math.log(mass)
    return (mu - float(np.dot(dual, v))) / float(np.sum(v))


def _dual(prior: np.ndarray) -> np.ndarray:
    """A master-like dual: the utility of the uniform column spread unevenly."""
    return np.linspace(-0.2, 0.3, prior.size)


@needs_scip
def test_scip_point_is_feasible_and_its_value_is_h(gamma) -> None:
    rows, outer, prior = gamma
    dual = _dual(prior)
    found = scip_point(rows.astype(float), prior, dual, seconds=5.0)
    assert found is not None
    v = found.point
    assert float(prior @ v) == pytest.approx(1.0, abs=1e-6)
    assert np.min(rows.astype(float) @ v) >= -1e-6 * np.abs(rows.astype(float)).max()
    h = sum(p * x * math.log(x) for p, x in zip(prior, v) if x > 0) - float(dual @ v)
    assert found.value == pytest.approx(h, abs=1e-5)
    assert found.dual_bound >= found.value - 1e-6


@needs_scip
def test_guided_ray_is_in_gamma_exactly_with_the_reduced_cost_claimed(gamma) -> None:
    rows, outer, prior = gamma
    dual = _dual(prior)
    guided = ConcavePricing(rows.astype(float), prior, scip_seconds=5.0)
    result = guided.price(dual, 3)
    assert result.rays.shape[1] >= 1
    for ray, utility in zip(result.rays.T, result.utilities):
        exact = [Fraction(x) for x in ray]
        assert all(x >= 0 for x in exact) and any(x > 0 for x in exact)
        assert all(sum(Fraction(a) * x for a, x in zip(row, exact)) >= 0 for row in outer)
        claimed = (utility - dual @ ray) / ray.sum()
        assert claimed == pytest.approx(_reduced(ray, prior, dual), abs=1e-10)
        assert claimed <= result.upper_bound + 1e-12
    best_scip = scip_point(rows.astype(float), prior, dual, seconds=5.0)
    assert best_scip is not None
    scip_reduced = _reduced(best_scip.point, prior, dual)
    best = max((u - dual @ r) / r.sum() for u, r in zip(result.utilities, result.rays.T))
    assert best >= scip_reduced - 1e-6


@needs_scip
def test_guided_proof_bound_covers_the_brute_force_maximum(gamma) -> None:
    rows, outer, prior = gamma
    dual = _dual(prior)
    plain = ConcavePricing(rows.astype(float), prior)
    guided = ConcavePricing(rows.astype(float), prior, scip_seconds=5.0)
    low, high = guided.tight_bound(dual)
    plain_low, plain_high = plain.tight_bound(dual)
    truth = max(_reduced(v, prior, dual) for v in extreme_rays(rows).matrix.T)
    assert high >= truth - 1e-12 >= low - 1e-9
    assert plain_high >= truth - 1e-12 >= plain_low - 1e-9


def test_without_pyscipopt_the_oracle_prices_unguided(gamma, monkeypatch) -> None:
    rows, _, prior = gamma
    monkeypatch.setattr(concave_pricing, "scip_available", lambda: False)
    oracle = ConcavePricing(rows.astype(float), prior, scip_seconds=5.0)
    assert oracle.scip_seconds == 0.0
    low, high = oracle.tight_bound(_dual(prior))
    assert low <= high
