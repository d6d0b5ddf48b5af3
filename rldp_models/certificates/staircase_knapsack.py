"""The staircase dual check for mutual information from its structure: a knapsack branch and bound.

The dual ``lam'`` of the staircase LP (``extremal-mechanisms-ldp.txt``
Sec. 4) is feasible at tolerance ``tol`` per unit mass iff, over the
patterns ``A`` (``0 < |A| < k``) with ``S_A = 1 + (r-1) z``, ``z = 1_A``,

``N(z) = g(p.z) - L' - tol k - d.z <= 0``,  ``d = (r-1)(lam' + tol)``,

where ``g(t) = r log(r) t - (1 + (r-1) t) log(1 + (r-1) t)`` is ``mu(S_A)``
for the mutual information with prior ``p``: it depends on ``A`` only
through ``t = p(A)`` and is concave. For fixed ``t`` the cheapest ``d.z``
over ``z in [0, 1]^k`` is a fractional knapsack (items by ``d_x / p_x``),
so the relaxation ``max_{z in [0,1]^k} g(p.z) - d.z`` is a concave 1-D
problem solved per linear piece in closed form (``g'(t) = q`` has
``t = (exp((r log r - q)/(r-1) - 1) - 1) / (r-1)``), with at most one
fractional item: branch on it (depth first). A node is closed when its
bound is ``<= 0``; a pattern with ``N > 0`` rejects. Floating point, like
the MILP it precedes (:mod:`rldp_models.conelp.certificate_check`, used when
this search exceeds :data:`MAX_NODES`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

MAX_NODES = 200_000
"""Nodes explored before giving the decision to the MILP."""


@dataclass(frozen=True)
class KnapsackCheck:
    """``decided``: the search finished; then ``accepted`` iff ``max N <= 0`` (``worst``: a bound
    on ``max N`` when accepted, a violating value when not)."""

    decided: bool
    accepted: bool
    worst: float
    nodes: int


def pattern_utility(t: np.ndarray | float, r: float) -> np.ndarray | float:
    """``g(t) = r log(r) t - (1 + (r-1) t) log(1 + (r-1) t)``."""
    t = np.asarray(t, dtype=float)
    mass = 1.0 + (r - 1.0) * t
    return r * math.log(r) * t - mass * np.log(mass)


def _slope_point(q: np.ndarray, r: float) -> np.ndarray:
    """``t`` with ``g'(t) = q`` (``g'`` falls from ``r log r - r + 1`` to ``log r - r + 1``)."""
    with np.errstate(over="ignore"):
        return (np.exp((r * math.log(r) - q) / (r - 1.0) - 1.0) - 1.0) / (r - 1.0)


def _relaxation(fixed_mass: float, fixed_cost: float, p: np.ndarray, d: np.ndarray,
                r: float) -> tuple[float, int | None, np.ndarray]:
    """``max g(fixed_mass + p.z) - fixed_cost - d.z`` over ``z in [0,1]`` (free items).

    Returns the bound, the fractional item (or None) and the rounded-down ``z``.
    """
    free = np.zeros(p.size)
    massless = p <= 0
    free[massless & (d < 0)] = 1.0
    cost = fixed_cost + float(d[massless & (d < 0)].sum())
    items = np.flatnonzero(~massless)
    order = items[np.argsort(d[items] / p[items], kind="stable")]
    masses = np.concatenate([[0.0], np.cumsum(p[order])])
    costs = np.concatenate([[0.0], np.cumsum(d[order])])
    best, where = pattern_utility(fixed_mass, r) - cost, (0, 0.0)
    if order.size:
        slopes = d[order] / p[order]
        target = _slope_point(slopes, r) - fixed_mass
        tau = np.clip(target, masses[:-1], masses[1:])
        values = pattern_utility(fixed_mass + tau, r) - cost - (
            costs[:-1] + slopes * (tau - masses[:-1]))
        j = int(np.argmax(values))
        if values[j] > best:
            best, where = float(values[j]), (j, float(tau[j] - masses[j]))
    j, extra = where
    fractional = None
    if order.size and extra >= p[order[j]]:
        j += 1  # the segment's item is taken whole
    elif order.size and extra > 0:
        fractional = int(order[j])
    free[order[:j]] = 1.0
    return float(best), fractional, free


def check_by_knapsack(dual: np.ndarray, prior: np.ndarray, ratio: float,
                      tolerance: float, max_nodes: int = MAX_NODES) -> KnapsackCheck:
    """Decide ``max_A N(z) <= 0`` (module docstring) by branch and bound, or give up undecided."""
    p = np.asarray(prior, dtype=float)
    k, r = p.size, float(ratio)
    if not r > 1.0:
        return KnapsackCheck(False, False, math.inf, 0)
    d = (r - 1.0) * (np.asarray(dual, dtype=float) + tolerance)
    constant = float(np.sum(dual)) + tolerance * k
    stack = [np.full(k, -1)]  # -1 free, 0 or 1 fixed
    nodes, bound_seen = 0, -math.inf
    while stack:
        nodes += 1
        if nodes > max_nodes:
            return KnapsackCheck(False, False, math.inf, nodes)
        state = stack.pop()
        fixed = state >= 0
        mass = float(p[fixed] @ state[fixed])
        cost = float(d[fixed] @ state[fixed])
        free = ~fixed
        bound, fractional, z_free = _relaxation(mass, cost, p[free], d[free], r)
        bound -= constant
        if bound <= 0.0:
            bound_seen = max(bound_seen, bound)
            continue
        z = np.where(fixed, state, 0)
        z[free] = z_free
        value = float(pattern_utility(p @ z, r)) - float(d @ z) - constant
        if value > 0.0 and 0 < z.sum() < k:
            return KnapsackCheck(True, False, value, nodes)
        if fractional is None:  # the relaxation is integral: only the excluded patterns remain
            branch = _split_excluded(state, z)
            if branch is None:
                bound_seen = max(bound_seen, value)
                continue
            stack.extend(branch)
            continue
        index = np.flatnonzero(free)[fractional]
        for choice in (0, 1):
            child = state.copy()
            child[index] = choice
            stack.append(child)
    return KnapsackCheck(True, True, bound_seen, nodes)


def _split_excluded(state: np.ndarray, z: np.ndarray) -> list[np.ndarray] | None:
    """Children that exclude the empty / full pattern ``z`` when it is the relaxation's optimum."""
    free = np.flatnonzero(state < 0)
    if free.size == 0:
        return None
    if 0 < z.sum() < z.size:
        return None
    index = free[0]
    children = []
    for choice in (0, 1):
        child = state.copy()
        child[index] = choice
        children.append(child)
    return children
