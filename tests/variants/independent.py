"""Plain-cvxpy models of the variants, written from the paper's formulas and Lagrange duality
without the toolkit's blocks, sets or conic rows: the values the variants' records must reach
(V3 and V6, in product form, by :func:`independent_optimum`).

Every robust term is its dual (weak duality bounds the worst case; strong duality holds, the
sets having interior points):

* chi-square set ``{P in simplex : sum_x Phat_x^2 / P_x <= B + 1}`` (eq. 2-4): the dual of
  ``max v.P`` is ``min_{l >= 0, m >= v} m + l (B + 1) - 2 sum_x Phat_x sqrt(l (m - v_x))``
  (Lagrange multipliers ``l`` of the divergence and ``m`` of ``sum P = 1``);
* KL ball ``{P : sum Phat log(Phat / P) <= r}``: ``min_{l >= 0, m >= v} m + l (r - 1) +
  sum_x Phat_x rel_entr(l, m - v_x)``;
* robust privacy of an ordered pair over the chi-square set, Theorem 4 (eq. 29) with
  Theorem 3's ``rho = sqrt(B + 1) - 1 + Phat_s1 + Phat_s2``: ``c >= 0``, ``w_i >= v_i`` and
  ``-K c^(1/3) sum_i h_i^(2/3) + sum_i max w_i + c rho <= 0`` with ``h_i = sum_u Phat r_u``,
  ``r_u^2 <= c (w_i(u) - v_i(u))``, ``K = 2^(-2/3) + 2^(1/3)``.
"""

from __future__ import annotations

import itertools

import cvxpy as cp
import numpy as np
from scipy.stats import chi2

K = 2.0 ** (-2.0 / 3.0) + 2.0 ** (1.0 / 3.0)

TIGHT = {"tol_feas": 1e-10, "tol_gap_abs": 1e-10, "tol_gap_rel": 1e-10}
"""Clarabel's tolerances for the optimum (its defaults miss it by up to 1e-5 relative)."""

SHORTER_STEPS = {"max_step_fraction": 0.9}
"""Clarabel's steps to 90% of the way to the cone boundary (its default 99% stalls on V2 with
few records: radii large, the KL dual's exponential cones met near their boundary)."""


def radii(counts: np.ndarray) -> tuple[float, float]:
    """The chi-square set's ``B`` and the KL ball's radius at alpha = 0.05 (the issue's)."""
    n, cells = counts.sum(), counts.size
    quantile = chi2.ppf(0.95, cells - 1)
    return quantile / n, quantile / (2 * n)


def squared_positions(k: int) -> np.ndarray:
    positions = np.arange(k)
    return np.subtract.outer(positions, positions) ** 2.0


def per_cell(P: cp.Variable, d: np.ndarray, n_s: int) -> cp.Expression:
    """``v_x = sum_y P[x, y] d(u_x, y)``."""
    return cp.sum(cp.multiply(P, np.tile(d, (n_s, 1))), axis=1)


# --8<-- [start:duals]
def rotated(a: cp.Expression, b: cp.Expression, r: cp.Expression) -> cp.Constraint:
    """``r_i^2 <= a_i b_i`` with ``a, b >= 0``, entrywise (a rotated second-order cone)."""
    return cp.SOC(a + b, cp.vstack([2 * r, a - b]), axis=0)


def chi2_worst(v: cp.Expression, phat: np.ndarray, B: float) -> tuple[cp.Expression, list]:
    lam, m = cp.Variable(nonneg=True), cp.Variable()
    counted = np.flatnonzero(phat > 0)
    roots = cp.Variable(counted.size)  # roots_x <= sqrt(l (m - v_x))
    constraints = [m >= v, rotated(lam * np.ones(counted.size), m - v[counted], roots)]
    return m + lam * (B + 1) - 2 * phat[counted] @ roots, constraints


def kl_worst(v: cp.Expression, phat: np.ndarray, r: float) -> tuple[cp.Expression, list]:
    lam, m = cp.Variable(nonneg=True), cp.Variable()
    counted = np.flatnonzero(phat > 0)
    terms = cp.rel_entr(lam * np.ones(counted.size), m - v[counted])
    return m + lam * (r - 1) + phat[counted] @ terms, [m >= v]
# --8<-- [end:duals]


# --8<-- [start:privacy]
def pair_privacy(P: cp.Variable, counts: np.ndarray, B: float, eps: float,
                 pairs: list[tuple[int, int]], power_cone: bool) -> list:
    """Theorem 4's constraint (30) for every output of each ordered pair; ``h^(2/3) c^(1/3)``
    as a 3-d power cone or as cvxpy's ``geo_mean`` (second-order cones)."""
    n_s, n_u = counts.shape
    phat = counts / counts.sum()
    constraints = []
    for (s1, s2), y in itertools.product(pairs, range(P.shape[1])):
        rho = np.sqrt(B + 1) - 1 + phat[s1].sum() + phat[s2].sum()
        c = cp.Variable(nonneg=True)
        total = c * rho
        for s, scale in ((s1, 1.0), (s2, -np.exp(eps))):
            v = scale * P[s * n_u:(s + 1) * n_u, y]
            counted = np.flatnonzero(phat[s] > 0)  # an empty cell only bounds w from below
            w, r, t = cp.Variable(n_u), cp.Variable(counted.size), cp.Variable()
            constraints += [t >= w, w >= v,
                            rotated(c * np.ones(counted.size), w[counted] - v[counted], r)]
            h = phat[s, counted] @ r
            if power_cone:
                q = cp.Variable()  # q <= h^(2/3) c^(1/3)
                constraints.append(cp.PowCone3D(h, c, q, 2.0 / 3.0))
            else:
                q = cp.geo_mean(cp.hstack([h, c]), [2, 1])
            total = total + t - K * q
        constraints.append(total <= 0)
    return constraints
# --8<-- [end:privacy]


def optimum(counts: np.ndarray, variant: str, distortion: np.ndarray | None = None) -> float:
    """The optimal value of ``variant`` (V1, V2, V4, V5, V7) on ``counts``, by Clarabel.

    Theorem 4's power term is tried as a power cone, then as second-order cones: Clarabel
    stalls on one form or the other on some 5x11 tables (V2 on the first, V5 on the second).
    Each at tolerances 1e-10 first: at Clarabel's defaults the optimum of V1 on the 4x4
    eye x hair table (n = 592) is 3.4e-6 too high (V2 7.8e-6), more than the window a
    record's value is held to. Last, with :data:`SHORTER_STEPS` (V2 on a 5x14 table of 43
    records stalls at every other setting).
    """
    for options, power_cone in itertools.product((TIGHT, {}, SHORTER_STEPS), (True, False)):
        problem = _problem(counts, variant, distortion, power_cone)
        try:
            problem.solve(solver="CLARABEL", **options)
        except cp.SolverError:
            continue
        if problem.status == cp.OPTIMAL:
            return float(problem.value)
    raise AssertionError(f"the independent model of {variant} did not solve")


# --8<-- [start:program]
def _problem(counts: np.ndarray, variant: str, distortion: np.ndarray | None,
             power_cone: bool) -> cp.Problem:
    n_s, n_u = counts.shape
    phat = (counts / counts.sum()).ravel()
    B, r = radii(counts)
    d = squared_positions(n_u) if distortion is None else distortion
    P = cp.Variable((n_s * n_u, d.shape[1]), nonneg=True)
    v = per_cell(P, d, n_s)
    constraints = [cp.sum(P, axis=1) == 1]
    worst, dual = (kl_worst if variant == "V2" else chi2_worst)(v, phat, r if variant == "V2"
                                                                else B)
    constraints += dual
    pairs = [(0, 1), (1, 0)] if variant == "V1" else \
        [p for p in itertools.permutations(range(n_s), 2)]
    constraints += pair_privacy(P, counts, B, 1.0, pairs, power_cone)
    if variant == "V5":
        constraints.append(P[:, -1] <= 0.3)
    objective = 0.5 * (phat @ v) + 0.5 * worst if variant == "V4" else worst
    return cp.Problem(cp.Minimize(objective), constraints)
# --8<-- [end:program]


# V3 and V6: product-form privacy over chi2 & box and the Wasserstein-1 ball
def chi2_box_support(w: cp.Expression, phat: np.ndarray, radius: float):
    """``delta*(w | chi2 & box)`` by its Lagrangian dual: a convex expression and constraints.

    ``sup_P w.P`` over ``P >= 0, sum P = 1, sum Phat^2 / P <= B + 1, Phat/2 <= P <= 3 Phat/2``;
    per cell with ``Phat_x > 0`` the inner supremum of ``(w_x - mu - a_x + b_x) P_x - c Phat_x^2
    / P_x`` is ``-2 Phat_x sqrt(c g_x)`` with ``g_x = mu + a_x - b_x - w_x >= 0``; cells with
    ``Phat_x = 0`` are pinned to 0 by the box.
    """
    cells = np.flatnonzero(phat > 0)
    mu, c = cp.Variable(), cp.Variable(nonneg=True)
    a, b = cp.Variable(cells.size, nonneg=True), cp.Variable(cells.size, nonneg=True)
    gap = mu + a - b - w[cells]
    value = mu + c * (radius + 1) + 1.5 * phat[cells] @ a - 0.5 * phat[cells] @ b \
        - 2 * cp.sum(cp.hstack([phat[x] * cp.geo_mean(cp.hstack([c, gap[k]]))
                                for k, x in enumerate(cells)]))
    return value, [gap >= 0]


def wasserstein_support(w: cp.Expression, phat: np.ndarray, cost: np.ndarray, radius: float):
    """``delta*(w | W1 ball)``: ``min phat.alpha + lam r`` s.t. ``alpha_x + lam c_xx' >= w_x'``."""
    alpha, lam = cp.Variable(phat.size), cp.Variable(nonneg=True)
    ones = np.ones(phat.size)
    return phat @ alpha + lam * radius, [cp.reshape(alpha, (phat.size, 1), order="C") @ ones[None]
                                         + lam * cost >= ones[:, None] @ cp.reshape(
                                             w, (1, phat.size), order="C")]


def independent_optimum(counts: np.ndarray, support) -> float:
    """RURP in product form (V3, V6) over the set whose support dual is ``support``:
    ``sup_{C_s} q.R <= kappa`` iff ``delta*(e_s(q - kappa) | F) <= 0``, the same dual at an
    argument affine in ``(Q, kappa)``."""
    n_s, n_u = counts.shape
    positions = np.arange(n_u)
    distortion = (positions[:, None] - positions[None, :]) ** 2.0
    q = cp.Variable((n_s * n_u, n_u), nonneg=True)
    per_cell = cp.sum(cp.multiply(q, np.tile(distortion, (n_s, 1))), axis=1)
    worst, constraints = support(per_cell)
    constraints = [*constraints, cp.sum(q, axis=1) == 1]
    hi, lo = cp.Variable((n_s, n_u)), cp.Variable((n_s, n_u))
    for s, y in itertools.product(range(n_s), range(n_u)):
        rows = q[s * n_u:(s + 1) * n_u, y]
        for shifted in (rows - hi[s, y], lo[s, y] - rows):
            embedded = cp.hstack([shifted if t == s else np.zeros(n_u) for t in range(n_s)])
            value, dual = support(embedded)
            constraints += [value <= 0, *dual]
    constraints += [hi[s1] <= np.exp(1.0) * lo[s2]
                    for s1, s2 in itertools.permutations(range(n_s), 2)]
    problem = cp.Problem(cp.Minimize(worst), constraints)
    problem.solve(solver="CLARABEL", **TIGHT)
    # the solver's optimum: the objective re-evaluated at its point is NaN where a geo_mean's
    # argument is a rounding below 0 (V3 on a 4x4 table with an empty column of U)
    return float(problem.solution.opt_val)


def v3_support(counts: np.ndarray):
    phat = (counts / counts.sum()).ravel()
    radius = chi2.ppf(0.95, counts.size - 1) / counts.sum()
    return lambda w: chi2_box_support(w, phat, radius)


def v6_support(counts: np.ndarray):
    phat = (counts / counts.sum()).ravel()
    s, u = np.indices(counts.shape).reshape(2, -1)
    cost = np.abs(u[:, None] - u[None, :]) + (s[:, None] != s[None, :])
    return lambda w: wasserstein_support(w, phat, cost, 0.1)
