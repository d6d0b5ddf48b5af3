"""The block-decomposition pricing oracle against full enumeration of Gamma and cdd.

References: Gamma's extreme rays by the block lemma
(:func:`~rldp_models.conelp.polyopt_block_rays.block_extreme_rays`, itself
checked against exact double description in ``test_polyopt_block_rays.py``), the
reduced cost computed here from its definition, and float cdd for the vertices of
one block's polytope. The oracle is a measured negative result (slow to close), so
its searches here are capped: what is asserted is that every bound it returns is
valid, its rays lie in Gamma, and its bound is exact on a point box (the lemma).
"""

from __future__ import annotations

from fractions import Fraction

import cdd
import numpy as np
import pytest
from scipy.special import xlogy

from rldp_models.conelp import inner_ratio
from rldp_models.errors import InputError
from rldp_models.datasets import jeffreys_instance
from rldp_models.conelp.polyopt_block_rays import block_extreme_rays
from rldp_models.conelp.polyopt_gamma import conditional_bounds, gamma_rows
from rldp_models.conelp.polyopt_gamma import simplex_vertices
from rldp_models.rldp_protocols.polyopt_lemma_pricing import BlockVertices, LemmaPricing
from rldp_models.uncertainty.chi_square import ChiSquareSet


def instance(n_s: int, n_u: int) -> tuple[np.ndarray, np.ndarray]:
    table = jeffreys_instance(n_s, n_u, 1000, seed=0).crosstab
    lower = conditional_bounds(ChiSquareSet.from_counts(table.counts, 0.05))[0]
    return lower, table.phat.ravel()


def mutual_information_utility(V: np.ndarray, p: np.ndarray) -> np.ndarray:
    """``mu(v) = sum_x p_x v_x log v_x - (p.v) log(p.v)`` per column, from its definition."""
    mass = p @ V
    return p @ xlogy(V, V) - xlogy(mass, mass)


def random_dual(V: np.ndarray, p: np.ndarray, seed: int) -> np.ndarray:
    """A random dual shifted so that the best ray's reduced cost is slightly positive."""
    rng = np.random.default_rng(seed)
    dual = rng.normal(size=p.size) * 0.3
    worst = np.max((mutual_information_utility(V, p) - dual @ V) / V.sum(axis=0))
    return dual + worst - 0.01 * rng.random()


@pytest.mark.parametrize("n_s, n_u", [(2, 3), (3, 3), (3, 4)])
@pytest.mark.parametrize("eps", [0.5, 2.0, 8.0])
def test_bound_valid_and_rays_in_gamma(n_s: int, n_u: int, eps: float) -> None:
    """Against every extreme ray: the bound is at least the largest reduced cost."""
    lower, p = instance(n_s, n_u)
    ratio = Fraction(inner_ratio(eps))
    V = block_extreme_rays(lower, ratio).matrix
    dual = random_dual(V, p, seed=1)
    best = np.max((mutual_information_utility(V, p) - dual @ V) / V.sum(axis=0))
    found = LemmaPricing(lower, ratio, p, max_nodes=400).bound(dual)
    assert found.upper_bound >= best - 1e-12
    rows = gamma_rows([simplex_vertices(row) for row in lower], ratio).astype(float)
    rays = found.rays
    assert np.all(rays >= 0) and np.all(rows @ rays >= -1e-9 * np.abs(rows) @ rays)
    reduced = (mutual_information_utility(rays, p) - dual @ rays) / rays.sum(axis=0)
    assert reduced.max() <= best + 1e-12
    if n_s == 2:
        assert reduced.max() == pytest.approx(best, abs=1e-12)


@pytest.mark.parametrize("eps", [0.5, 8.0])
def test_point_box_bound_is_exact(eps: float) -> None:
    """Lemma (2): at the ``(a, b, m)`` of a ray the bound is attained in Gamma.

    So it is at least ``h`` of that ray and at most the largest ``h`` over all rays.
    """
    lower, p = instance(3, 3)
    ratio = Fraction(inner_ratio(eps))
    V = block_extreme_rays(lower, ratio).matrix
    dual = random_dual(V, p, seed=2)
    V = V / (p @ V)
    h = p @ xlogy(V, V) - dual @ V
    oracle = LemmaPricing(lower, ratio, p)
    g = oracle._g(V.T)
    masses = (V.T * p).reshape(-1, *lower.shape).sum(axis=2)
    point = np.hstack([g.min(axis=2), g.max(axis=2), masses])
    for k in np.argsort(-h)[:20]:
        _, _, bound, _ = oracle._bounded(point[k][None], point[k][None], dual)
        assert bound.size == 1
        assert h[k] - 1e-9 <= bound[0] <= h.max() + 1e-9


def test_vertex_maps_give_every_vertex() -> None:
    """The maps' feasible points are exactly the vertices cdd finds for ``B_s``."""
    lower, p = instance(3, 4)
    block = BlockVertices(lower[1], p[4:8])
    theta = np.array([0.3, 0.9, 0.2 * p[4:8].sum(), 0.6 * p[4:8].sum()])
    points = np.einsum("kun,n->ku", block.maps, theta)
    feasible = np.all(points @ block.G.T >= block.E @ theta - 1e-12, axis=1)
    ours = np.unique(np.round(points[feasible], 9), axis=0)
    matrix = cdd.matrix_from_array(np.hstack([-(block.E @ theta)[:, None], block.G]).tolist(),
                                   rep_type=cdd.RepType.INEQUALITY)
    generators = np.array(cdd.copy_generators(cdd.polyhedron_from_matrix(matrix)).array)
    assert np.all(generators[:, 0] == 1)
    reference = np.unique(np.round(generators[:, 1:], 9), axis=0)
    assert ours.shape == reference.shape and np.allclose(ours, reference, atol=1e-9)


def test_bad_input_refused() -> None:
    lower, p = instance(2, 3)
    with pytest.raises(InputError):
        LemmaPricing(np.full((2, 3), 0.4), Fraction(2), p)
    with pytest.raises(InputError):
        LemmaPricing(lower, Fraction(2), -p)
