"""Free columns along which the program does not change (``A d = 0``, ``c.d = 0``): the
residual on one of them follows from the others', so the bound is proved without a move
for it (:mod:`rldp_models.optimality.lineality`).

The program: ``min t + sum_i x_i`` over the simplex ``x`` with ``t >= (u_i - w) - a_i``
for each ``i``, ``u_i - w = g_i`` (free ``u``, ``w``: only their differences matter, the
epigraph of a support function with a free constant as cvxpy writes it). Its optimum,
``1 + min_x max_i (g_i - a_i x_i)``, is found by brute force on a grid of the simplex.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import scipy.sparse as sp

from rldp_models.optimality import DualCones, proven_lower_bound, weak_duality
from rldp_models.optimality.lineality import implied_columns
from tests.optimality.conftest import clarabel_solve


def _program(g: np.ndarray, a: np.ndarray) -> tuple[np.ndarray, sp.csc_matrix, np.ndarray,
                                                    int, int]:
    """Columns ``t, u_1..u_k, w, x_1..x_k``; rows: ``k`` zero rows ``u_i - w = g_i`` and
    ``sum x = 1``, then ``k`` rows ``(u_i - w) - a_i x_i - t <= 0`` and ``x >= 0``."""
    k = g.size
    n = 1 + k + 1 + k
    t, u, w, x = 0, 1 + np.arange(k), 1 + k, 2 + k + np.arange(k)
    A = np.zeros((k + 1 + k + k, n))
    b = np.zeros(A.shape[0])
    for i in range(k):
        A[i, u[i]], A[i, w], b[i] = 1.0, -1.0, g[i]
    A[k, x], b[k] = 1.0, 1.0
    for i in range(k):
        row = k + 1 + i
        A[row, u[i]], A[row, w], A[row, x[i]], A[row, t] = 1.0, -1.0, -a[i], -1.0
    A[2 * k + 1 + np.arange(k), x] = -1.0
    c = np.zeros(n)
    c[t] = 1.0
    c[x] = 1.0
    return c, sp.csc_matrix(A), b, k + 1, 2 * k


def _brute_force(g: np.ndarray, a: np.ndarray) -> float:
    """``1 + min_x max_i (g_i - a_i x_i)`` over a grid of the simplex (k = 3): at least
    the optimum, within the grid's resolution of it."""
    best = np.inf
    steps = 200
    for i in range(steps + 1):
        for j in range(steps + 1 - i):
            x = np.array([i, j, steps - i - j]) / steps
            best = min(best, float(np.max(g - a * x)) + 1.0)
    return best


def test_the_lineality_is_found_exactly() -> None:
    c, A, _, _, _ = _program(np.array([1.0, 2.0, 0.5]), np.array([1.0, 3.0, 2.0]))
    free = np.arange(5)  # t, u, w
    implied, fixed = implied_columns(A, c, free)
    assert implied.size == 1 and implied[0] in range(1, 5)  # one of u, w; never t (cost)
    assert fixed.size == 0


def _bound() -> tuple:
    g, a = np.array([1.0, 2.0, 0.5]), np.array([1.0, 3.0, 2.0])
    c, A, b, zero, nonneg = _program(g, a)
    z = np.asarray(clarabel_solve(c, A, b, zero=zero, nonneg=nonneg).z)
    n = c.size
    lower, upper = np.full(n, -np.inf), np.full(n, np.inf)
    simplex = np.array([[5, 6, 7]])
    return proven_lower_bound(c, A, b, DualCones(zero, nonneg), z, lower, upper,
                              simplices=simplex), _brute_force(g, a)


def test_the_bound_is_proved_and_below_the_brute_force_optimum() -> None:
    bound, optimum = _bound()
    assert bound.proved, bound.reason
    assert bound.lower <= optimum
    assert optimum - bound.lower <= 2e-2  # the grid's resolution, not the bound's


def test_without_the_lineality_the_moves_are_rank_deficient(monkeypatch) -> None:
    """The same program is not proved when no implied column is dropped: the lineality
    is what makes it provable."""
    monkeypatch.setattr(weak_duality, "implied_columns",
                        lambda A, c, columns, exact: (np.zeros(0, dtype=np.int64),) * 2)
    bound, _ = _bound()
    assert not bound.proved and "rank deficient" in str(bound.reason)


def test_a_lineality_of_the_rationals_is_fixed_not_implied() -> None:
    """Potentials ``u_1 = u_2 = u_3`` and an epigraph row ``sum_i p_i u_i - w`` with
    ``p_i = 1/3``: shifting ``u`` and ``w`` together is free for the rationals
    (``sum p_i = 1``), not for the doubles of ``1/3`` (their sum is not 1). So the
    direction is not implied on the doubles, and is found to be fixed when told the
    doubles round ``1/3``."""
    third = 1.0 / 3.0
    A = sp.csc_matrix(np.array([[1.0, -1.0, 0.0, 0.0], [0.0, 1.0, -1.0, 0.0],
                                [third, third, third, -1.0]]))
    c, columns = np.zeros(4), np.arange(4)
    assert 3 * Fraction(third) != 1  # the premise: the doubles do not sum to 1
    implied, fixed = implied_columns(A, c, columns)
    assert implied.size == 0 and fixed.size == 0
    implied, fixed = implied_columns(A, c, columns, {third: Fraction(1, 3)})
    assert implied.size == 0 and fixed.size == 1
