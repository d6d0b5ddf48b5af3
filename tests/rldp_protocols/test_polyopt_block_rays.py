"""Gamma's extreme rays by the block lemma against double description and brute force.

References: the vertices of ``{T >= 0, eq. (44), sum T = 1}`` by brute force
over active sets (:mod:`polyopt_brute_force`, no package code) on 2-secret
tables, exact integer double description
(:func:`rldp_models.conelp.extreme_rays` with ``method="exact"``) elsewhere.
The lemma itself is checked on double description's rays.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from polyopt_brute_force import gamma_polytope_vertices, lemma9_min
from scipy.spatial import cKDTree

from rldp_models.conelp import extreme_rays, inner_ratio
from rldp_models.errors import InputError
from rldp_models.datasets import jeffreys_instance
from rldp_models.conelp.polyopt_gamma import gamma_vertices
from rldp_models.conelp.polyopt_block_rays import (block_enumeration_applies,
                                                           block_extreme_rays)
from rldp_models.conelp.polyopt_gamma import conditional_bounds, gamma_rows
from rldp_models.uncertainty.chi_square import ChiSquareSet


def same_rays(first: np.ndarray, second: np.ndarray, tolerance: float) -> bool:
    """Equal counts and every ray of each within ``tolerance`` of one of the other."""
    if first.shape != second.shape:
        return False
    there, _ = cKDTree(second.T).query(first.T)
    back, _ = cKDTree(first.T).query(second.T)
    return bool(there.max() <= tolerance and back.max() <= tolerance)


def uncertainty(n_s: int, n_u: int, seed: int = 0) -> ChiSquareSet:
    return ChiSquareSet.from_counts(jeffreys_instance(n_s, n_u, 1000, seed=seed).crosstab.counts,
                                    0.05)


@pytest.mark.parametrize("counts, eps", [([[30, 10], [15, 45]], 0.2), ([[30, 10], [15, 45]], 2.0),
                                         ([[30, 10, 5], [15, 45, 20]], 2.0),
                                         ([[30, 0, 5], [15, 45, 20]], 0.2)])
def test_two_secrets_match_brute_force(counts: list, eps: float) -> None:
    """(At eps 8 the brute force's ``1e-10`` feasibility slack admits non-vertices.)"""
    counts = np.array(counts)
    lower, _ = conditional_bounds(ChiSquareSet.from_counts(counts, 0.05))
    found = block_extreme_rays(lower, Fraction(inner_ratio(eps))).matrix
    reference = gamma_polytope_vertices(lemma9_min(counts, 0.05), np.exp(eps))
    assert same_rays(found, reference / reference.sum(axis=0), 1e-7)


@pytest.mark.parametrize("n_s, n_u, eps", [(3, 3, 0.5), (3, 3, 2.0), (3, 3, 8.0), (2, 4, 0.5),
                                          (2, 4, 8.0), (4, 2, 8.0)])
def test_match_exact_double_description(n_s: int, n_u: int, eps: float) -> None:
    """Eps 8 spans rays whose entries differ by 10^7 (where a tolerance on |a.v| misreads)."""
    check_against_exact(uncertainty(n_s, n_u), eps)


@pytest.mark.parametrize("counts", [[[30, 10, 5], [15, 45, 20]], [[30, 0, 5], [15, 45, 20]]])
def test_two_secrets_at_eps_8_match_exact_double_description(counts: list) -> None:
    check_against_exact(ChiSquareSet.from_counts(np.array(counts), 0.05), 8.0)


def check_against_exact(sets: ChiSquareSet, eps: float) -> None:
    ratio = Fraction(inner_ratio(eps))
    found = block_extreme_rays(conditional_bounds(sets)[0], ratio)
    reference = extreme_rays(gamma_rows(gamma_vertices(sets, False), ratio), method="exact")
    assert same_rays(found.matrix, reference.matrix, 1e-9)


@pytest.mark.slow
@pytest.mark.parametrize("eps", [0.2, 0.5])
def test_3x4_matches_double_description(eps: float) -> None:
    sets = uncertainty(3, 4)
    ratio = Fraction(inner_ratio(eps))
    found = block_extreme_rays(conditional_bounds(sets)[0], ratio)
    reference = extreme_rays(gamma_rows(gamma_vertices(sets, False), ratio))
    assert same_rays(found.matrix, reference.matrix, 1e-9)


@pytest.mark.parametrize("n_s, n_u, eps", [(3, 3, 2.0), (3, 3, 8.0), (2, 5, 2.0)])
def test_lemma_holds_on_double_description(n_s: int, n_u: int, eps: float) -> None:
    """Each block of a ray: positive entries take at most two values, and a block with a
    zero has at most one positive entry below its maximum (the module's lemma)."""
    sets = uncertainty(n_s, n_u)
    rays = extreme_rays(gamma_rows(gamma_vertices(sets, False), Fraction(inner_ratio(eps))),
                        method="exact").matrix
    for block in rays.T.reshape(-1, n_s, n_u).reshape(-1, n_u):
        relative = block / block.max()
        positive = relative[relative > 1e-12]
        assert np.unique(np.round(positive, 9)).size <= 2
        if positive.size < n_u:
            assert np.sum(positive < 1 - 1e-9) <= 1


def test_rays_lie_in_gamma_and_sum_to_one() -> None:
    sets = uncertainty(3, 3)
    ratio = Fraction(inner_ratio(1.0))
    rays = block_extreme_rays(conditional_bounds(sets)[0], ratio).matrix
    rows = gamma_rows(gamma_vertices(sets, False), ratio).astype(float)
    assert np.all(rays >= 0) and np.allclose(rays.sum(axis=0), 1.0)
    assert (rows @ rays).min() >= -1e-12


def test_bad_blocks_are_refused() -> None:
    full = np.array([[0.5, 0.5], [0.2, 0.3]])
    assert not block_enumeration_applies(full)
    with pytest.raises(InputError, match="sum to less than 1"):
        block_extreme_rays(full, Fraction(2))
    assert not block_enumeration_applies(np.array([[-0.1, 0.2], [0.1, 0.1]]))


def test_large_enumerations_are_refused() -> None:
    lower = np.tile(np.linspace(0.01, 0.06, 6), (5, 1)) + np.arange(5)[:, None] * 1e-3
    assert not block_enumeration_applies(lower)
    with pytest.raises(InputError, match="systems"):
        block_extreme_rays(lower, Fraction(3))
