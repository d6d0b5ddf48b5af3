"""The concave-minimisation pricing oracle against enumerated rays.

Grounding: the rays of each small cone are listed by double description
(cdd with verification, :func:`extreme_rays`) and the largest reduced cost
``(mu(v) - lam.v) / (1.v)`` is taken over all of them by numpy with
``mu`` from :class:`MutualInformation`; the oracle's bound must cover it and,
run to the end, come within tolerance of it. Column generation through the
oracle must reach the LP optimum over the enumerated rays.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from rldp_models.conelp import ConeLP, extreme_rays, inner_ratio
from rldp_models.conelp.column_generation import solve_by_pricing
from rldp_models.conelp import concave_pricing
from rldp_models.conelp.concave_pricing import ConcavePricing
from rldp_models.conelp.cones import pairwise_ratio_rows
from rldp_models.conelp.engine import CERTIFICATE_TOLERANCE, PRICING_TOLERANCE
from rldp_models.errors import InputError
from rldp_models.conelp.polyopt_gamma import gamma_vertices
from rldp_models.conelp.polyopt_gamma import gamma_rows
from rldp_models.uncertainty.chi_square import ChiSquareSet
from rldp_models.utility import MutualInformation


def secret_cone(seed: int, c: int, a: int, eps: float) -> tuple[np.ndarray, np.ndarray]:
    """Rows of the LDP-w.r.t.-S cone of a random joint, and the data prior."""
    joint = np.random.default_rng(seed).random((c, a))
    joint /= joint.sum()
    given_s = joint / joint.sum(axis=1, keepdims=True)
    return pairwise_ratio_rows(given_s, inner_ratio(eps)), joint.sum(axis=0)


def gamma_cone(eps: float) -> tuple[np.ndarray, np.ndarray]:
    """Rows of PolyOpt's Gamma for a 2x3 table (one zero cell), and ``Phat``."""
    counts = np.array([[30, 0, 5], [15, 45, 20]])
    rows = gamma_rows(gamma_vertices(ChiSquareSet.from_counts(counts, 0.05), False),
                      Fraction(inner_ratio(eps)))
    return rows.astype(float), (counts / counts.sum()).ravel()


CONES = {"secret-3x5": lambda: secret_cone(0, 3, 5, 1.0),
         "secret-2x6": lambda: secret_cone(1, 2, 6, 0.3),
         "gamma-2x3": lambda: gamma_cone(1.5)}


def reduced_costs(rows: np.ndarray, prior: np.ndarray, dual: np.ndarray) -> np.ndarray:
    V = extreme_rays(rows).matrix
    return (MutualInformation(prior).columns(V) - dual @ V) / V.sum(axis=0)


@pytest.mark.parametrize("name", sorted(CONES))
def test_bound_covers_every_ray_and_rays_lie_in_the_cone(name: str) -> None:
    rows, prior = CONES[name]()
    oracle = ConcavePricing(rows, prior)
    rng = np.random.default_rng(3)
    for _ in range(4):
        dual = 0.4 * rng.random(prior.size)
        best = reduced_costs(rows, prior, dual).max()
        result = oracle.price(dual, 4)
        assert result.upper_bound >= best - 1e-12
        assert np.all(result.rays >= 0) and np.all(rows @ result.rays >= -1e-12)
        reduced = (result.utilities - dual @ result.rays) / result.rays.sum(axis=0)
        assert reduced.max() <= best + 1e-12
        assert result.utilities == pytest.approx(MutualInformation(prior).columns(result.rays))


@pytest.mark.parametrize("name", sorted(CONES))
def test_tight_bound_meets_the_best_ray(name: str) -> None:
    rows, prior = CONES[name]()
    oracle = ConcavePricing(rows, prior)
    dual = 0.2 * np.random.default_rng(5).random(prior.size)
    best = reduced_costs(rows, prior, dual).max()
    low, high = oracle.tight_bound(dual)
    assert low - 1e-12 <= best <= high + 1e-12 and high - low <= 1e-9
    found = oracle.price(dual, 1)
    assert found.upper_bound >= best - 1e-12


@pytest.mark.parametrize("name", sorted(CONES))
def test_column_generation_reaches_the_enumerated_optimum(name: str) -> None:
    rows, prior = CONES[name]()
    utility = MutualInformation(prior)
    reference = ConeLP.from_utility(extreme_rays(rows), utility, np.ones(prior.size)).solve()
    solution = solve_by_pricing(ConcavePricing(rows, prior), utility, np.ones(prior.size))
    assert solution.value == pytest.approx(reference.value, rel=1e-9, abs=1e-12)
    assert solution.certificate.verified
    # the final dual is feasible over every enumerated ray, not only the generated ones
    assert reduced_costs(rows, prior, solution.certificate.dual).max() <= 1e-9


@pytest.mark.parametrize("chunk", [concave_pricing.REBOUND_CHUNK, 3])
@pytest.mark.parametrize("name", sorted(CONES))
def test_the_frontier_kept_between_calls_bounds_every_later_dual(
        name: str, chunk: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Duals as column generation sends them (converging, with jumps): each call resumes
    from the boxes the last one left open, re-bounded from old multipliers (a few boxes
    at a time, or all at once); every bound must still cover every enumerated ray, and
    the complete search must find the best."""
    monkeypatch.setattr(concave_pricing, "REBOUND_CHUNK", chunk)
    rows, prior = CONES[name]()
    lp = ConeLP.from_utility(extreme_rays(rows), MutualInformation(prior), np.ones(prior.size))
    optimal = lp.solve().certificate.dual
    oracle = ConcavePricing(rows, prior)
    rng = np.random.default_rng(11)
    for step in range(8):
        dual = optimal - 0.3 * 0.4**step * rng.random(prior.size)
        best = reduced_costs(rows, prior, dual).max()
        assert oracle.price(dual, 2).upper_bound >= best - 1e-12
        low, high = oracle.tight_bound(dual)
        assert low - 1e-12 <= best <= high + 1e-12 and high - low <= 1e-9


def test_compressed_multipliers_expand_to_the_same_rows() -> None:
    rng = np.random.default_rng(5)
    dense = rng.normal(size=(6, 9)) * (rng.random((6, 9)) < 0.3)
    dense[2] = 0.0
    kept = [concave_pricing.compressed(row) for row in dense]
    assert all(index.size == np.count_nonzero(row) for (index, _), row in zip(kept, dense))
    assert np.array_equal(concave_pricing.expanded(kept, 9), dense)
    assert concave_pricing.expanded([], 9).shape == (0, 9)


def test_at_the_optimal_dual_the_bound_proves_optimality() -> None:
    rows, prior = CONES["secret-3x5"]()
    lp = ConeLP.from_utility(extreme_rays(rows), MutualInformation(prior), np.ones(prior.size))
    dual = lp.solve().certificate.dual
    result = ConcavePricing(rows, prior).price(dual, 3)
    assert reduced_costs(rows, prior, dual).max() - 1e-12 <= result.upper_bound <= 1e-9


def test_a_ray_on_inputs_of_zero_prior_is_rejected() -> None:
    with pytest.raises(InputError, match="unbounded"):
        ConcavePricing(np.array([[1.0, 0.0, 0.0]]), np.array([0.0, 0.5, 0.5]))
    with pytest.raises(InputError, match="columns"):
        ConcavePricing(np.ones((2, 3)), np.ones(4) / 4)


@pytest.mark.parametrize("name", sorted(CONES))
def test_boxes_split_and_bounded_together_match_one_at_a_time(name: str) -> None:
    """The search splits and bounds a batch of boxes in one numpy pass: each box must get
    the children and bounds it gets alone, and its two children must meet on one coordinate."""
    rows, prior = CONES[name]()
    lp = ConeLP.from_utility(extreme_rays(rows), MutualInformation(prior), np.ones(prior.size))
    dual = lp.solve().certificate.dual - 0.01
    oracle = ConcavePricing(rows, prior, max_nodes=40)
    oracle.price(dual, 1)
    nodes = [n for n in oracle._frontier if n.fresh][:5]
    assert len(nodes) >= 2
    lower, upper = oracle._split(nodes)
    for k, node in enumerate(nodes):
        alone = oracle._split([node])
        assert np.array_equal(alone[0], lower[2 * k:2 * k + 2])
        assert np.array_equal(alone[1], upper[2 * k:2 * k + 2])
        assert np.all(lower[2 * k:2 * k + 2] >= node.lower)
        assert np.all(upper[2 * k:2 * k + 2] <= node.upper)
        assert np.any(upper[2 * k] <= lower[2 * k + 1] + 1e-12)
    parent = np.full(len(lower), np.inf)
    together = oracle._nodes(dual, lower, upper, parent, [None] * len(lower))
    singly = [oracle._node(dual, lo, hi, np.inf) for lo, hi in zip(lower, upper)]
    assert [n.priority for n in together] == pytest.approx(
        [n.priority for n in singly if n is not None], abs=1e-12)


@pytest.mark.parametrize("entering", [PRICING_TOLERANCE, 1e-6])
@pytest.mark.parametrize("name", sorted(CONES))
def test_a_ray_under_the_entering_threshold_does_not_stop_the_search(name: str,
                                                                     entering: float) -> None:
    """At a dual where the best ray's reduced cost is positive but under column
    generation's threshold, that ray cannot enter the master, so pricing must run on to
    the end instead of stopping early with a loose bound. Run to the end, the bound is
    ``max h / min 1.v`` on the slice ``p.v = 1`` (the per-mass bound of a positive ``h``),
    here taken over the enumerated rays."""
    rows, prior = CONES[name]()
    lp = ConeLP.from_utility(extreme_rays(rows), MutualInformation(prior), np.ones(prior.size))
    optimal = lp.solve().certificate.dual
    best = reduced_costs(rows, prior, optimal).max()
    dual = optimal - (0.6 * entering - best)
    assert reduced_costs(rows, prior, dual).max() == pytest.approx(0.6 * entering, abs=1e-13)
    V = extreme_rays(rows).matrix
    on_slice = (MutualInformation(prior).columns(V) - dual @ V) / (prior @ V)
    least_mass = (V.sum(axis=0) / (prior @ V)).min()
    result = ConcavePricing(rows, prior, entering=entering).price(dual, 1)
    assert result.upper_bound <= on_slice.max() / least_mass + CERTIFICATE_TOLERANCE


def test_a_negative_entering_threshold_is_refused() -> None:
    rows, prior = CONES["gamma-2x3"]()
    with pytest.raises(InputError, match="entering"):
        ConcavePricing(rows, prior, entering=-1e-9)
