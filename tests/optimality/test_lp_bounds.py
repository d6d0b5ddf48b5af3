"""Weak duality on linear programs with an exactly known optimum.

Each LP is built from integer data around a KKT pair (``x*`` feasible, ``y* >= 0``
dual feasible, complementary), so its optimum is ``c.x*`` exactly; HiGHS (a second,
simplex-based solver) must find the same value, which checks the construction.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
import scipy.optimize
import scipy.sparse as sp

from rldp_models.optimality import DualCones, proven_lower_bound
from tests.optimality.conftest import clarabel_solve


def _kkt_lp(rng: np.random.Generator, n: int, m: int, boxed: bool
            ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(c, G, h, x*)`` of ``min c.x, G x <= h`` (plus ``0 <= x <= 1`` when ``boxed``,
    stacked into ``G`` and ``h``) with optimum ``c.x*``."""
    G = rng.integers(-5, 6, size=(m, n)).astype(float)
    x_star = rng.choice([0.0, 0.5, 1.0], size=n) if boxed else \
        rng.integers(-3, 4, size=n).astype(float)
    if boxed:
        G = np.vstack([G, -np.eye(n), np.eye(n)])
    active = rng.random(G.shape[0]) < 0.5
    if not boxed:  # a vertex: n active rows make x* the unique optimum
        active[:] = False
        active[rng.choice(m, size=n, replace=False)] = True
    slack = np.where(active, 0.0, rng.integers(1, 4, size=G.shape[0]))
    h = G @ x_star + slack
    y_star = np.where(active, rng.integers(0, 4, size=G.shape[0]), 0).astype(float)
    if boxed:  # box rows are active only where x* sits on the bound
        y_star[m:m + n] *= x_star == 0.0
        y_star[m + n:] *= x_star == 1.0
    c = -G.T @ y_star
    return c, G, h, x_star


def _exact_optimum(c: np.ndarray, x_star: np.ndarray) -> Fraction:
    return sum((Fraction(a) * Fraction(b) for a, b in zip(c, x_star)), Fraction(0))


@pytest.mark.parametrize("boxed", [True, False])
@pytest.mark.parametrize("seed", range(4))
def test_the_bound_is_below_the_exact_optimum_and_within_1e6(boxed: bool, seed: int) -> None:
    rng = np.random.default_rng(seed)
    n, m = 12, 30
    c, G, h, x_star = _kkt_lp(rng, n, m, boxed)
    optimum = _exact_optimum(c, x_star)
    highs = scipy.optimize.linprog(c, A_ub=G, b_ub=h, bounds=(None, None), method="highs")
    assert highs.status == 0 and abs(highs.fun - float(optimum)) <= 1e-9 * max(1, abs(highs.fun))
    solution = clarabel_solve(c, G, h, nonneg=G.shape[0])
    box = (np.zeros(n), np.ones(n)) if boxed else (None, None)
    bound = proven_lower_bound(c, sp.csc_matrix(G), h, DualCones(nonneg=G.shape[0]),
                               np.asarray(solution.z), *box)
    assert bound.proved, bound.reason
    assert Fraction(bound.lower) <= optimum
    assert bound.relative_gap(float(optimum)) <= 1e-6


@pytest.mark.parametrize("noise", [1e-6, 1e-3, 1e-1, 1.0])
def test_a_perturbed_dual_never_bounds_above_the_optimum(noise: float) -> None:
    rng = np.random.default_rng(7)
    n, m = 12, 30
    for boxed in (True, False):
        c, G, h, x_star = _kkt_lp(rng, n, m, boxed)
        optimum = _exact_optimum(c, x_star)
        z = np.asarray(clarabel_solve(c, G, h, nonneg=G.shape[0]).z)
        box = (np.zeros(n), np.ones(n)) if boxed else (None, None)
        for _ in range(5):
            moved = z + noise * rng.standard_normal(z.size) * np.maximum(np.abs(z), 1.0)
            bound = proven_lower_bound(c, sp.csc_matrix(G), h, DualCones(nonneg=G.shape[0]),
                                       moved, *box)
            assert not bound.proved or Fraction(bound.lower) <= optimum


def test_a_foreign_dual_gives_a_valid_bound_or_none() -> None:
    """The dual of another instance of the same shape: valid (below) or not proved."""
    rng = np.random.default_rng(11)
    n, m = 12, 30
    for boxed in (True, False):
        c, G, h, x_star = _kkt_lp(rng, n, m, boxed)
        other_c, other_G, other_h, _ = _kkt_lp(rng, n, m, boxed)
        foreign = np.asarray(clarabel_solve(other_c, other_G, other_h, nonneg=G.shape[0]).z)
        box = (np.zeros(n), np.ones(n)) if boxed else (None, None)
        bound = proven_lower_bound(c, sp.csc_matrix(G), h, DualCones(nonneg=G.shape[0]),
                                   foreign, *box)
        assert not bound.proved or Fraction(bound.lower) <= _exact_optimum(c, x_star)


def test_equality_rows_are_free_in_the_dual() -> None:
    """``min x1 + x2`` with ``x1 - x2 = 0`` (zero cone) and ``x >= 1``: optimum 2."""
    c = np.array([1.0, 1.0])
    A = sp.csc_matrix(np.array([[1.0, -1.0], [-1.0, 0.0], [0.0, -1.0]]))
    b = np.array([0.0, -1.0, -1.0])
    z = np.asarray(clarabel_solve(c, A, b, zero=1, nonneg=2).z)
    bound = proven_lower_bound(c, A, b, DualCones(zero=1, nonneg=2), z)
    assert bound.proved and bound.lower <= 2.0 and bound.relative_gap(2.0) <= 1e-6
