"""The outward-rounded Theorem 4 bounds against the 120-bit interval evaluation and exact cubes."""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pytest

from rldp_models.exact import interval, iv, upper
from rldp_models.privacy.guarantees import theorem4_upper_bound
from rldp_models.privacy.chi_square_bounds import (
    cube_root_lower,
    theorem4_rows,
    theorem4_upper_bounds,
)

EPS = 0.7
RADIUS = 0.31


def _reference(protocol, counts, pairs, c, t):
    """Theorem 4's expression per (pair, y) by the existing mpmath evaluation."""
    n_s, n_u = counts.shape
    n = int(counts.sum())
    blocks = protocol.reshape(n_s, n_u, -1)
    joint = [[Fraction(int(x), n) for x in row] for row in counts]
    factor, root = iv.exp(interval(EPS)), iv.sqrt(interval(RADIUS) + 1)
    found = []
    for i, (s1, s2) in enumerate(pairs):
        rows = [joint[s1], joint[s2]]
        rho = root - 1 + interval(sum(rows[0], Fraction(0)) + sum(rows[1], Fraction(0)))
        for y in range(blocks.shape[2]):
            j = i * blocks.shape[2] + y
            found.append(upper(theorem4_upper_bound(blocks[s1, :, y], factor, blocks[s2, :, y],
                                                    rows, rho, c[j], tuple(t[:, j]))))
    return np.array(found)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("raised", [False, True])
def test_bounds_are_upper_bounds_of_the_120_bit_values_and_close(seed, raised) -> None:
    """Close to 1e-12 when every ``t_i`` is above ``max_u v_i``; when ``t_i`` is raised to it,
    a gap of one rounding under a square root costs up to ~1e-8 (still an upper bound)."""
    rng = np.random.default_rng(seed)
    n_s, n_u, n_y = 3, 4, 3
    counts = rng.integers(0, 20, (n_s, n_u))
    counts[0, 1] = 0  # a cell without records: its weight is exactly 0
    protocol = rng.dirichlet(np.ones(n_y), n_s * n_u)
    pairs = list(itertools.permutations(range(n_s), 2))
    size = len(pairs) * n_y
    c = rng.uniform(0, 2, size) * (rng.random(size) > 0.2)  # some c = 0
    blocks = protocol.reshape(n_s, n_u, n_y)
    highest = np.stack([[blocks[a, :, y].max() for (a, _) in pairs for y in range(n_y)],
                        [-np.exp(EPS) * blocks[b, :, y].min() for (_, b) in pairs
                         for y in range(n_y)]])
    t = rng.uniform(-0.5, 1.0, (2, size)) if raised else highest + rng.uniform(1e-3, 0.5,
                                                                               (2, size))
    fast = theorem4_upper_bounds(theorem4_rows(protocol, counts, RADIUS, EPS, pairs), c, t)
    reference = _reference(protocol, counts, pairs, c, t)
    assert np.all(fast >= reference)
    tolerance = 1e-7 if raised else 1e-12
    assert np.max(fast - reference) <= tolerance * (1 + np.max(np.abs(reference)))


def test_non_finite_multipliers_prove_nothing() -> None:
    counts = np.array([[3, 1], [2, 5]])
    protocol = np.full((4, 2), 0.5)
    rows = theorem4_rows(protocol, counts, RADIUS, EPS, [(0, 1), (1, 0)])
    c = np.array([np.nan, 1.0, 1.0, 1.0])
    t = np.array([[0.5, 0.5, np.inf, 0.5], [0.0, 0.0, 0.0, 0.0]])
    bounds = theorem4_upper_bounds(rows, c, t)
    assert np.isinf(bounds[0]) and np.isinf(bounds[2]) and np.all(np.isfinite(bounds[[1, 3]]))


def test_cube_root_lower_is_below_the_exact_cube_root() -> None:
    w = np.concatenate([[0.0, 1.0, 8.0, 2.0**-1074, 1e300],
                        np.random.default_rng(1).uniform(0, 10, 200)])
    z = cube_root_lower(w)
    assert np.all(z >= 0)
    assert all(Fraction(float(a)) ** 3 <= Fraction(float(b)) for a, b in zip(z, w))
    normal = w > 1e-290  # below, z^3 underflows and cannot be proven: z = 0 (still valid)
    assert np.all(z[normal] >= np.cbrt(w[normal]) * (1 - 1e-13))
