"""A rigorous lower bound on ``mu^2(v)`` of eq. (46) for every ray at once.

``mu^2(v) = min_{P in F} mu_P(v)`` with ``mu_P(v) = sum_x P_x v_x log v_x + phi(v.P)``,
``phi(t) = -t log t``. ``mu_P(v)`` is *concave* in ``P`` (mutual information
is concave in the input law), so the minimum over ``F`` is not a convex
problem. Following the remark after Theorem 12 we relax twice:

1. ``F`` is replaced by the polytope ``G = {P in simplex : P^min <= P <= P^max}``
   with the safe Lemma 9 bounds (eqs. 36-37), which contains ``F``;
2. ``phi`` is replaced on ``[t_lo, t_hi] = [min_G v.P, max_G v.P]`` by its
   secant ``sigma``, which lies below the concave ``phi`` there.

What is minimised is then the *linear* function
``sum_x P_x (v_x log v_x + sigma' v_x) + sigma(0)`` over ``G`` (a convex
problem: an LP, solved exactly by the greedy fill of a box-constrained
simplex). Its value is ``<= mu^2(v)``, and ``mu^2(v) >= 0`` (log-sum
inequality), so ``max(value, 0)`` minus a rounding allowance is a valid
lower bound; Theorem 12's ``L`` computed from it stays a valid lower bound on
``inf_{P in F} I_P(X; Q^2(X))``.
"""

from __future__ import annotations

import numpy as np
from scipy.special import xlogy

ROUNDING_ALLOWANCE = 1e-12
"""Subtracted from each bound for the float evaluation (terms are O(1))."""


def box_simplex_min(costs: np.ndarray, lower: np.ndarray, upper: np.ndarray) -> np.ndarray:
    """``min c.P`` over ``{lower <= P <= upper, sum P = 1}`` for each row ``c`` of ``costs``.

    Greedy: start at ``lower`` and pour the remaining mass into the cheapest
    coordinates first, each up to its cap.
    """
    order = np.argsort(costs, axis=1)
    caps = (upper - lower)[order]
    before = np.cumsum(caps, axis=1) - caps
    fill = np.clip(1.0 - lower.sum() - before, 0.0, caps)
    return costs @ lower + np.sum(np.take_along_axis(costs, order, axis=1) * fill, axis=1)


def robust_utility_lower_bounds(rays: np.ndarray, lower: np.ndarray,
                                upper: np.ndarray) -> np.ndarray:
    """Lower bounds on ``mu^2(v_r)`` (eq. 46) for the columns ``v_r`` of ``rays``.

    Parameters
    ----------
    rays : ndarray, shape (a, count)
    lower, upper : ndarray, shape (a,)
        Safe bounds ``P^min <= P <= P^max`` of every ``P`` in ``F`` (Lemma 9).
    """
    v = rays.T
    t_lo = box_simplex_min(v, lower, upper)
    t_hi = -box_simplex_min(-v, lower, upper)
    phi_lo, phi_hi = -xlogy(t_lo, t_lo), -xlogy(t_hi, t_hi)
    width = t_hi - t_lo
    slope = np.divide(phi_hi - phi_lo, width, out=np.zeros_like(width), where=width > 1e-300)
    intercept = phi_lo - slope * t_lo
    costs = xlogy(v, v) + slope[:, None] * v
    bound = box_simplex_min(costs, lower, upper) + intercept
    return np.maximum(bound - ROUNDING_ALLOWANCE, 0.0)
