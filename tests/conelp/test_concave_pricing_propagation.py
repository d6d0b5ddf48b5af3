"""Row propagation in the concave-pricing branch and bound, against exact enumeration.

:meth:`ConcavePricing._propagated` shrinks each child box by the cone's rows
(for PolyOpt's Gamma: the block coupling ``r1.T_{s1} <= e^eps r2.T_{s2}``, the
tightening boxes on the block lemma's ``(min g_s, max g_s)`` would give). Grounding:
Gamma's extreme rays by exact double description (:func:`exact_extreme_rays`,
integer arithmetic) on Jeffreys tables (n = 1000, alpha = 0.05); the largest reduced
cost ``(mu(v) - lam.v) / (1.v)`` over them is computed here from the definition of
``mu``. At 3x4 the rays come from the block lemma (see :func:`gamma`). The search
must find it, no cut may remove a ray, and a recorded proof with cuts must pass the
exact checker, which must reject a cut moved past a ray.
"""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache

import numpy as np
import pytest
from scipy.special import xlogy

from rldp_models.certificates.pricing_proof import check_pricing_proof
from rldp_models.conelp import inner_ratio
from rldp_models.conelp.concave_pricing import ConcavePricing
from rldp_models.conelp.exact_dd import exact_extreme_rays, normalised_float_rays
from rldp_models.conelp.polyopt_block_rays import block_extreme_rays
from rldp_models.conelp.polyopt_gamma import conditional_bounds, gamma_rows
from rldp_models.datasets import jeffreys_instance
from rldp_models.rldp_protocols.polyopt import gamma_vertices
from rldp_models.uncertainty.chi_square import ChiSquareSet


@lru_cache(maxsize=None)
def gamma(n_s: int, n_u: int, eps: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Gamma's exact rows, ``Phat`` and every extreme ray (columns, sum 1) of a Jeffreys table.

    Rays by exact double description up to 9 cells; at 3x4 (where that takes more than
    20 minutes) by the block lemma, which ``test_polyopt_block_rays.py`` checks against
    double description at 3x4.
    """
    table = jeffreys_instance(n_s, n_u, 1000, seed=0).crosstab
    rows = gamma_rows(gamma_vertices(ChiSquareSet.from_counts(table.counts, 0.05), False),
                      Fraction(inner_ratio(eps)))
    dimension = n_s * n_u
    if dimension > 9:
        lower = conditional_bounds(ChiSquareSet.from_counts(table.counts, 0.05))[0]
        rays = block_extreme_rays(lower, Fraction(inner_ratio(eps))).matrix
        return rows, table.phat.ravel(), rays / rays.sum(axis=0)
    rays = normalised_float_rays(exact_extreme_rays(rows.tolist(), dimension), dimension)
    return rows, table.phat.ravel(), rays


def reduced(V: np.ndarray, p: np.ndarray, dual: np.ndarray) -> np.ndarray:
    """``(mu(v) - dual.v) / (1.v)`` per column, ``mu(v) = sum p v log v - (p.v) log(p.v)``."""
    mass = p @ V
    return (p @ xlogy(V, V) - xlogy(mass, mass) - dual @ V) / V.sum(axis=0)


def random_dual(V: np.ndarray, p: np.ndarray, seed: int) -> np.ndarray:
    """A random dual shifted so that the best ray's reduced cost is about ``+0.01`` or less."""
    rng = np.random.default_rng(seed)
    dual = rng.normal(size=p.size) * 0.3
    return dual + np.max(reduced(V, p, dual)) - 0.01 * rng.random()


@pytest.mark.parametrize("shape", [(2, 3), (3, 3), (3, 4)])
@pytest.mark.parametrize("eps", [0.5, 2.0, 8.0])
def test_the_search_finds_the_best_enumerated_ray(shape: tuple[int, int], eps: float) -> None:
    rows, p, V = gamma(*shape, eps)
    dual = random_dual(V, p, seed=shape[1] + int(eps))
    best = np.max(reduced(V, p, dual))
    low, high = ConcavePricing(rows.astype(float), p, propagate=True).tight_bound(dual)
    assert low - 1e-9 <= best <= high + 1e-12
    assert high - low <= 1e-9
    result = ConcavePricing(rows.astype(float), p, propagate=True).price(dual, 1)
    assert result.upper_bound >= best - 1e-12


@pytest.mark.parametrize("eps", [0.5, 2.0, 8.0])
def test_cuts_never_remove_a_ray(eps: float) -> None:
    """Random boxes around each ray of ``P`` (3x3) keep the ray after propagation."""
    rows, p, V = gamma(3, 3, eps)
    oracle = ConcavePricing(rows.astype(float), p, propagate=True)
    points = V / (p @ V)
    rng = np.random.default_rng(7)
    below = points * rng.random(points.shape) ** 4
    above = points + (oracle.root_upper[:, None] - points) * rng.random(points.shape) ** 4
    lower, upper = oracle._propagated(below.T, above.T)
    assert np.any(lower > below.T)
    assert np.all(lower <= points.T) and np.all(points.T <= upper)


@pytest.mark.parametrize("eps", [0.5, 2.0])
def test_a_proof_with_cuts_checks_and_a_moved_cut_does_not(eps: float) -> None:
    """(At eps 8, ``e^eps`` is too loose for any cut to remove 5% of an interval at 2x3.)"""
    rows, p, V = gamma(2, 3, eps)
    dual = random_dual(V, p, seed=3)
    proof = ConcavePricing(rows.astype(float), p, propagate=True).proof(dual)
    prior = [Fraction(float(v)) for v in p]
    check = check_pricing_proof(proof, rows.tolist(), prior, dual.tolist())
    assert check.holds, check.problems
    assert check.per_mass >= np.max(reduced(V, p, dual)) - 1e-12
    cut_split = [k for k, (_, _, left, right) in enumerate(proof["split"])
                 if left in proof["drop"] or right in proof["drop"]]
    assert cut_split
    tampered = {name: value.copy() for name, value in proof.items()}
    k = cut_split[0]
    parent, x, left, right = tampered["split"][k]
    moved = 0.5 * (tampered["upper"][parent][x] + tampered["lower"][parent][x])
    dropped = left if left in tampered["drop"] else right
    if dropped == left:
        tampered["upper"][left][x] = tampered["upper"][parent][x]
    else:
        tampered["lower"][right][x] = tampered["lower"][parent][x]
    tampered["cut"][k] = moved
    assert not check_pricing_proof(tampered, rows.tolist(), prior, dual.tolist()).holds


def test_without_propagation_the_search_finds_the_same_bound() -> None:
    """The bound at a dual (3x3, eps 2) with and without the cuts agrees to the gap tolerance."""
    rows, p, V = gamma(3, 3, 2.0)
    dual = random_dual(V, p, seed=5)
    with_cuts = ConcavePricing(rows.astype(float), p, propagate=True).tight_bound(dual)
    without = ConcavePricing(rows.astype(float), p).tight_bound(dual)
    assert abs(with_cuts[0] - without[0]) <= 1e-9
