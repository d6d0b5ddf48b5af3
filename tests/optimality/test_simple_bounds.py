"""Rows on one column become a box, and rows of positive entries over columns bounded
below by 0 close it (:mod:`rldp_models.optimality.simple_bounds`), checked against the
bounds worked out by hand in rationals."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import scipy.sparse as sp

from rldp_models.optimality.cones import ConeBlocks, DualCones
from rldp_models.optimality.simple_bounds import implied_box


def _box(A: np.ndarray, b: np.ndarray, zero: int, nonneg: int):
    blocks = ConeBlocks.of(DualCones(zero, nonneg))
    n = A.shape[1]
    return implied_box(sp.csc_matrix(A), b, blocks, np.full(n, -np.inf), np.full(n, np.inf))


def test_a_plan_gets_its_box_from_its_sign_rows_and_its_row_sum() -> None:
    """``x_0 + 3 x_1 = 1`` (zero cone), ``-x_0 <= 0``, ``-x_1 <= 0``: ``0 <= x_0 <= 1``
    and ``0 <= x_1 <= 1/3``, the upper ends rounded up by at most one step past the
    double nearest them (``1/3`` has no double)."""
    A = np.array([[1.0, 3.0], [-1.0, 0.0], [0.0, -1.0]])
    lower, upper, held = _box(A, np.array([1.0, 0.0, 0.0]), zero=1, nonneg=2)
    assert list(lower) == [0.0, 0.0]
    for value, exact in zip(upper, (Fraction(1), Fraction(1, 3))):
        assert exact <= Fraction(value) <= Fraction(np.nextafter(float(exact), np.inf))
    assert list(held) == [False, True, True]


def test_a_bound_from_an_inexact_quotient_is_rounded_outward() -> None:
    """``-3 x <= -1``: ``x >= 1/3`` rounded down; ``10 x <= 1``: ``x <= 1/10`` rounded up."""
    A = np.array([[-3.0], [10.0]])
    lower, upper, held = _box(A, np.array([-1.0, 1.0]), zero=0, nonneg=2)
    assert Fraction(lower[0]) <= Fraction(1, 3) and Fraction(upper[0]) >= Fraction(1, 10)
    assert held.all()


def test_mixed_signs_or_an_unbounded_column_give_no_upper_bound() -> None:
    """``x_0 - x_1 = 1`` with both ``>= 0`` bounds neither above; ``x_0 + x_1 = 1`` with
    ``x_1`` free below bounds neither either."""
    A = np.array([[1.0, -1.0], [-1.0, 0.0], [0.0, -1.0]])
    _, upper, _ = _box(A, np.array([1.0, 0.0, 0.0]), zero=1, nonneg=2)
    assert np.isinf(upper).all()
    A = np.array([[1.0, 1.0], [-1.0, 0.0]])
    lower, upper, _ = _box(A, np.array([1.0, 0.0]), zero=1, nonneg=1)
    assert lower[0] == 0.0 and np.isinf(lower[1]) and np.isinf(upper).all()
