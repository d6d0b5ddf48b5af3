"""The cone Gamma of PolyOpt (``rldp-privacy-utility-tradeoff.txt``, eq. (44), Theorem 11).

Each conditional ``F_{U|s}`` (Lemma 8) is enclosed in a polytope
``D_s``: by default the simplex ``{R : R_u >= P^min_{u|s}, sum R = 1}``
(proof of Theorem 11); with ``finer=True`` also ``R_u <= P^max_{u|s}``
(Remark 14). A column ``T`` is private for every ``P`` with conditionals in
``D = prod_s D_s`` iff for all ``s1 != s2`` and vertices ``r1`` of ``D_{s1}``,
``r2`` of ``D_{s2}``: ``r1.T_{s1} <= e^eps r2.T_{s2}``. For the simplex the
vertices are ``P^min_s + (1 - sum_u P^min_{u|s}) e_{u1}``, which turns this
into eq. (44) term by term, so no auxiliary variables are needed (Remark 14's
dual form has them). Eq. (44) ranges over ``s1 != s2`` only: for ``s1 = s2``
condition (2) is void.

Misprints, checked numerically (``tests/rldp_protocols/test_polyopt.py``):
eq. (48)'s entry ``-eps`` must read ``-e^eps`` (only then does Lemma 13's
dual (55) give eq. (64), whose ``-e^eps`` terms lead to (44); with ``-eps``
the condition rejects even the constant column when ``eps < 1``); and
eq. (44) must range over ``s1 != s2`` (its ``s1 = s2`` rows cut off
columns of the optimal, provably private, PolyOpt protocol).

All bounds are *safe*: ``P^min`` is rounded down and ``P^max`` up until a
rigorous interval-arithmetic check of eq. (41) proves them, so ``D`` contains
``F_{U|s}`` exactly. Rows are built from exact rationals.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import mpmath
import numpy as np

from rldp_models.uncertainty.chi_square import ChiSquareSet

iv = mpmath.iv


def conditional_radius_upper(radius: float, mass: float) -> "mpmath.iv.mpf":
    """An interval holding ``B_s = (sqrt(B+1) + Phat_s - 1)^2 / Phat_s^2 - 1`` (Lemma 8)."""
    b, m = iv.mpf(radius), iv.mpf(mass)
    return (iv.sqrt(b + 1) + m - 1) ** 2 / m**2 - 1


def _proves_bound(p: float, phat: float, radius_iv: "mpmath.iv.mpf") -> bool:
    """Eq. (41): ``Phat^2/p + (1-Phat)^2/(1-p) >= B + 1`` proves ``p`` is outside F's interior.

    For ``p <= Phat`` this makes ``p`` a valid lower bound, for ``p >= Phat`` an
    upper bound (the left side is the least ``sum Phat^2/P`` with ``P_x = p``).
    """
    if p <= 0.0 or p >= 1.0:
        return True
    q = iv.mpf(phat)
    value = q**2 / iv.mpf(p) + (1 - q) ** 2 / (1 - iv.mpf(p))
    return bool(value.a >= (radius_iv + 1).b)


def safe_coordinate_bounds(phat: np.ndarray, radius: float,
                           radius_iv: "mpmath.iv.mpf | None" = None
                           ) -> tuple[np.ndarray, np.ndarray]:
    """Lemma 9 bounds ``min/max_{P in F} P_x`` (eqs. 36-37), rounded outward and proven.

    Parameters
    ----------
    phat : ndarray
        Centre of the chi-square set (a probability vector).
    radius : float
        ``B``.
    radius_iv : mpmath interval, optional
        An enclosure of ``B`` (for Lemma 8's ``B_s``); default the point ``B``.
    """
    radius_iv = iv.mpf(radius) if radius_iv is None else radius_iv
    lower, upper = lemma9_roots(np.asarray(phat, dtype=float), float(radius))
    for x, q in enumerate(phat):
        lower[x] = _step_until_proven(min(lower[x], q), q, radius_iv, 0.0)
        upper[x] = _step_until_proven(max(upper[x], q), q, radius_iv, 1.0)
    return lower, upper


def lemma9_roots(phat: np.ndarray, radius: float) -> tuple[np.ndarray, np.ndarray]:
    """The roots of eq. (41), ``(B+1) p^2 - (B + 2 Phat) p + Phat^2 = 0``: eqs. (36)-(37).

    In floating point, without cancellation: the larger root by the quadratic
    formula, the smaller from Vieta's ``p_lo p_hi = Phat^2 / (B+1)``.
    :func:`safe_coordinate_bounds` then proves them outward, so only their
    accuracy, not their safety, rests on rounding.
    """
    a, b, c = radius + 1.0, radius + 2.0 * phat, phat**2
    root = np.sqrt(np.maximum(b * b - 4.0 * a * c, 0.0))
    upper = (b + root) / (2.0 * a)
    lower = np.divide(c, a * upper, out=np.zeros_like(upper), where=upper > 0)
    return np.clip(lower, 0.0, 1.0), np.clip(upper, 0.0, 1.0)


def _step_until_proven(p: float, phat: float, radius_iv: "mpmath.iv.mpf", limit: float) -> float:
    """Move ``p`` towards ``limit`` (doubling steps) until eq. (41) proves it."""
    step = 4 * math.ulp(max(p, 1e-300))
    while not _proves_bound(p, phat, radius_iv):
        p = max(p - step, limit) if limit < p else min(p + step, limit)
        step *= 2
    return p


def conditional_bounds(uncertainty: ChiSquareSet) -> tuple[np.ndarray, np.ndarray]:
    """Safe ``P^min_{u|s}`` and ``P^max_{u|s}`` over ``F_{U|s}`` (Lemmas 8-9), shape ``(|S|, |U|)``.

    Rows with ``Phat_s = 0``: the conditional is the whole simplex, so ``0`` and ``1``.
    """
    phat = uncertainty.phat
    lower, upper = np.zeros(phat.shape), np.ones(phat.shape)
    for s, row in enumerate(phat):
        mass = float(row.sum())
        if mass == 0.0:
            continue
        conditional = uncertainty.conditional(s)
        enclosure = conditional_radius_upper(uncertainty.radius, mass)
        lower[s], upper[s] = safe_coordinate_bounds(conditional.phat, conditional.radius,
                                                    enclosure)
    return lower, upper


def simplex_vertices(lower: np.ndarray) -> list[Fraction]:
    """Vertices ``P^min + (1 - sum P^min) e_u`` of ``{R >= P^min, sum R = 1}``, exact."""
    exact = [Fraction(float(v)) for v in lower]
    rest = 1 - sum(exact, Fraction(0))
    return [[v + (rest if u == w else 0) for w, v in enumerate(exact)] for u in range(len(exact))]


def box_simplex_vertices(lower: np.ndarray, upper: np.ndarray) -> list[list[Fraction]]:
    """Vertices of ``{R : lower <= R <= upper, sum R = 1}`` (Remark 14), exact.

    A vertex has every coordinate but one at a bound; that one is fixed by
    ``sum R = 1`` and must lie within its own bounds.
    """
    lo, hi = [Fraction(float(v)) for v in lower], [Fraction(float(v)) for v in upper]
    size, found = len(lo), set()
    for free in range(size):
        others = [u for u in range(size) if u != free]
        for choice in itertools.product((0, 1), repeat=size - 1):
            point = [Fraction(0)] * size
            for u, top in zip(others, choice):
                point[u] = hi[u] if top else lo[u]
            point[free] = 1 - sum(point, Fraction(0))
            if lo[free] <= point[free] <= hi[free]:
                found.add(tuple(point))
    return [list(v) for v in sorted(found)]


def gamma_rows(vertices: list[list[list[Fraction]]], ratio: Fraction) -> np.ndarray:
    """Rows ``ratio r2 (on block s2) - r1 (on block s1)`` for ``s1 != s2`` (eq. 44).

    Parameters
    ----------
    vertices : list
        ``vertices[s]`` lists the vertices of ``D_s`` (each of length ``|U|``).
    ratio : Fraction
        ``e^eps`` rounded inward (:func:`rldp_models.conelp.inner_ratio`).

    Returns
    -------
    ndarray of Fraction, shape (m, |S| |U|)
        ``T`` lies in Gamma iff ``T >= 0`` and every row gives ``row.T >= 0``.
    """
    n_s, n_u = len(vertices), len(vertices[0][0])
    rows = []
    for s1, s2 in itertools.permutations(range(n_s), 2):
        for r1 in vertices[s1]:
            for r2 in vertices[s2]:
                row = [Fraction(0)] * (n_s * n_u)
                row[s2 * n_u:(s2 + 1) * n_u] = [ratio * v for v in r2]
                row[s1 * n_u:(s1 + 1) * n_u] = [-v for v in r1]
                rows.append(row)
    return np.array(rows, dtype=object)


def eq44_rows(lower: np.ndarray, ratio: float, pairs: str = "distinct") -> np.ndarray:
    """Eq. (44) written out literally in floats, one row per ``(s1, s2, u1, u2)``.

    ``row.T = e^eps T_{s2,u2} - T_{s1,u1} - sum_u Pmin_{u|s1}(T_{s1,u} - T_{s1,u1})
    + e^eps sum_u Pmin_{u|s2}(T_{s2,u} - T_{s2,u2})`` (``>= 0`` on Gamma).
    ``pairs="all"`` includes ``s1 = s2`` as the printed equation does. Used to
    cross-check :func:`gamma_rows` and the misprint analysis.
    """
    n_s, n_u = lower.shape
    chosen = (itertools.permutations(range(n_s), 2) if pairs == "distinct"
              else itertools.product(range(n_s), repeat=2))
    rows = []
    for s1, s2 in chosen:
        for u1, u2 in itertools.product(range(n_u), repeat=2):
            row = np.zeros((n_s, n_u))
            row[s1] -= lower[s1]
            row[s1, u1] -= 1 - lower[s1].sum()
            row[s2] += ratio * lower[s2]
            row[s2, u2] += ratio * (1 - lower[s2].sum())
            rows.append(row.ravel())
    return np.array(rows)


def gamma_vertices(uncertainty: ChiSquareSet, finer: bool) -> list[list[list[Fraction]]]:
    """Vertices of each ``D_s``: the simplex of Theorem 11, or Remark 14's box-simplex."""
    lower, upper = conditional_bounds(uncertainty)
    if finer:
        return [box_simplex_vertices(lo, hi) for lo, hi in zip(lower, upper)]
    return [simplex_vertices(lo) for lo in lower]
