"""Proven ranges of ``R.c`` over one conditional ``F_{U|s}`` of a chi-square set, for many columns.

Lemma 8 of ``rldp-privacy-utility-tradeoff.txt``: the projection of ``F``
onto ``P_{U|s}`` is ``{R : sum_u w_u^2 / R_u <= K}`` with
``w = Phat_{U|s}`` (exact: counts over the row total) and
``K = (sqrt(B+1) - 1 + Phat_s)^2 / Phat_s^2``; the whole simplex when
``Phat_s = 0``. Theorem 2's dual gives, for every ``c >= 0`` and
``t >= max c_u``,

``max_R R.column <= t + c K - 2 sqrt(c) sum_u w_u sqrt(t - column_u)``,

and ``min_R R.column = -max_R R.(-column)``. The multipliers are found for
all columns at once (``c = (S(t)/K)^2``, ``t`` by bisection on the
derivative of ``t - S(t)^2/K``, in floats: any value is valid), and the
expression is evaluated in ball arithmetic (python-flint ``arb``, which
benchmarks faster than ``mpmath.iv`` here: ``benchmarks/bench_exact.py``)
from the exact counts and rounded outwards to doubles.

Dividing a proven upper range by a proven lower range bounds a ratio
``P(y|s1) / P(y|s2)`` over ``F`` without Theorem 3's coupling: an upper
bound that the RLDP checkers use to skip work and the product-form
protocols use as their whole proof.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import flint
import numpy as np

BISECTION_STEPS = 80
"""Bisection steps for Theorem 2's ``t`` (any ``t >= max c`` is valid; this is for tightness)."""

BALL_PRECISION = 120
"""Working precision (bits) of the ball arithmetic."""


@dataclass(frozen=True)
class ColumnRanges:
    """``high[s, j] >= max_{R in F_{U|s}} R.c_j`` and ``low[s, j] <= min`` (doubles)."""

    high: np.ndarray
    low: np.ndarray


def float_up(x: flint.arb) -> float:
    """The smallest double no smaller than every point of the ball ``x``."""
    top = x.upper()
    value = float(top.mid())
    return value if flint.arb(value) >= top else math.nextafter(value, math.inf)


def conditional_k(counts: np.ndarray, radius: float, s: int) -> flint.arb:
    """``K = B_s + 1 = (sqrt(B+1) - 1 + Phat_s)^2 / Phat_s^2`` of Lemma 8, as a ball."""
    mass = flint.arb(flint.fmpq(int(counts[s].sum()), int(counts.sum())))
    return ((flint.arb(float(radius)) + 1).sqrt() - 1 + mass) ** 2 / mass ** 2


def theorem2_multipliers(w: np.ndarray, k: float, columns: np.ndarray
                         ) -> tuple[np.ndarray, np.ndarray]:
    """``(t, c)`` near the minimiser of Theorem 2's dual for every column (``columns[:, j]``)."""
    top = columns.max(axis=0)
    support = w > 0

    def slope(t: np.ndarray) -> np.ndarray:
        gap = np.maximum(t[None, :] - columns, 0.0)[support]
        root = np.sqrt(gap)
        s = w[support] @ root
        with np.errstate(divide="ignore"):
            ds = (w[support, None] / (2 * np.where(root > 0, root, 0.0))).sum(axis=0)
        with np.errstate(invalid="ignore"):
            return np.where(s > 0, 1.0 - 2.0 * s * ds / k, 1.0)  # s = 0: minimum at t = max

    low = top.copy()
    span = np.maximum(np.ptp(columns, axis=0), 1.0) * max(1.0, 1.0 / (k - 1.0 + 1e-300))
    high = top + span
    for _ in range(200):
        rising = slope(high) > 0
        if rising.all():
            break
        high = np.where(rising, high, top + 2 * (high - top))
    for _ in range(BISECTION_STEPS):
        middle = 0.5 * (low + high)
        rising = slope(middle) > 0
        high, low = np.where(rising, middle, high), np.where(rising, low, middle)
    t = high
    s = w[support] @ np.sqrt(np.maximum(t[None, :] - columns, 0.0)[support])
    return t, (s / k) ** 2


def theorem2_upper(weights: list[flint.arb], k: flint.arb, column: np.ndarray, t: float,
                   c: float) -> float:
    """``t + c K - 2 sqrt(c) sum_u w_u sqrt(t - column_u)`` rounded up (valid for any ``c, t``).

    ``c`` is clipped to ``>= 0`` and ``t`` raised to ``max column``.
    """
    t_ball = flint.arb(max(float(t), float(np.max(column))))
    c_ball = flint.arb(max(float(c), 0.0))
    total = flint.arb(0)
    for weight, value in zip(weights, column):
        if weight != 0:
            total += weight * (t_ball - float(value)).nonnegative_part().sqrt()
    return float_up(t_ball + c_ball * k - 2 * c_ball.sqrt() * total)


def column_ranges(counts: np.ndarray, radius: float, channels: np.ndarray) -> ColumnRanges:
    """:class:`ColumnRanges` of ``channels[s][:, j]`` over ``F_{U|s}`` for every ``s`` and ``j``.

    Parameters
    ----------
    counts : ndarray, shape (|S|, |U|)
        The exact counts (integers).
    radius : float
        ``B`` of eq. (3) (the double is the definition).
    channels : ndarray, shape (|S|, |U|, m)
        ``channels[s][u, j]``: the columns to bound for secret ``s``.
    """
    counts = np.asarray(counts)
    channels = np.asarray(channels, dtype=float)
    high, low = channels.max(axis=1), channels.min(axis=1)  # the simplex's own bounds
    previous = flint.ctx.prec
    flint.ctx.prec = BALL_PRECISION
    try:
        for s in range(counts.shape[0]):
            total = int(counts[s].sum())
            if total == 0:
                continue
            weights = [flint.arb(flint.fmpq(int(x), total)) for x in counts[s]]
            k = conditional_k(counts, radius, s)
            w, k_float = counts[s] / total, float(k.mid())
            for sign, bound in ((1.0, high), (-1.0, low)):
                signed = sign * channels[s]
                t, c = theorem2_multipliers(w, k_float, signed)
                for j in range(signed.shape[1]):
                    value = sign * theorem2_upper(weights, k, signed[:, j], t[j], c[j])
                    bound[s, j] = min(bound[s, j], value) if sign > 0 else max(bound[s, j],
                                                                               value)
    finally:
        flint.ctx.prec = previous
    return ColumnRanges(high, low)


def quotient_up(top: np.ndarray, bottom: np.ndarray) -> np.ndarray:
    """``top / bottom`` rounded up, elementwise: ``inf`` for ``x / 0``, NaN for ``0 / .``.

    NaN marks an output released with probability 0 under the numerator (no
    constraint). IEEE division is correctly rounded, so the next double up
    bounds the exact quotient.
    """
    top, bottom = np.broadcast_arrays(np.asarray(top, float), np.asarray(bottom, float))
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.nextafter(top / np.where(bottom > 0, bottom, 1.0), np.inf)
    return np.where(top <= 0, np.nan, np.where(bottom > 0, ratio, np.inf))


def product_up(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """``x y`` rounded up for nonnegative factors (NaN stays NaN)."""
    with np.errstate(invalid="ignore"):
        return np.nextafter(np.asarray(x) * np.asarray(y), np.inf)
