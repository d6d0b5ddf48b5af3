"""Proven bounds over a chi-square set for many rows at once, in doubles rounded outwards.

Two vectorised proofs share the outward rounding here: the ranges of ``R.c`` over
one conditional ``F_{U|s}`` (Lemma 8 with Theorem 2's dual, in ball arithmetic),
and Theorem 4's expression (eq. 29) at given multipliers (IEEE doubles stepped
outwards).

Ranges over one conditional
---------------------------
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

Theorem 4's expression at given multipliers
-------------------------------------------
:func:`rldp_models.privacy.guarantees.theorem4_upper_bound` evaluates one
constraint in 120-bit interval arithmetic (:mod:`mpmath.iv`): ~4 ms each, so
the exact check of RURP on education x occupation (240 pairs x 15 outputs)
spent 15 s there. :func:`theorem4_upper_bounds` evaluates the same expression for every
``(pair, y)`` row at once in numpy doubles with *outward rounding*:

IEEE 754 rounds ``+``, ``-``, ``*``, ``/`` and ``sqrt`` to the nearest double
(numpy uses the hardware operations), so the exact result of each operation
lies between the two neighbours of the computed one. Stepping every
intermediate one double down (:func:`down`) or up (:func:`up`), in the
direction that makes the final value larger, gives a proven upper bound. The
cube root (not correctly rounded in libm) is bounded from below by
``z = cbrt(w) (1 - 2^-48)``, kept only where ``z^3 <= w`` is proven by
rounding up (else ``z = 0``, still a lower bound).

The result is a valid upper bound on the constraint's value at these
multipliers — a few ulps looser than the 120-bit one. A caller that needs
the tighter value (a bound within rounding of 0) evaluates those few rows
with :func:`~rldp_models.privacy.guarantees.theorem4_upper_bound`.
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


CUBE_ROOT_SHRINK = 1.0 - 2.0**-48
"""Factor that puts ``cbrt``'s double below the true cube root (checked by cubing up)."""


def down(x: np.ndarray) -> np.ndarray:
    """The next double towards ``-inf``: a lower bound of a correctly rounded result."""
    return np.nextafter(x, -np.inf)


def up(x: np.ndarray) -> np.ndarray:
    """The next double towards ``+inf``: an upper bound of a correctly rounded result."""
    return np.nextafter(x, np.inf)


def cube_root_lower(w: np.ndarray) -> np.ndarray:
    """A double ``z <= w^(1/3)`` for ``w >= 0`` (proven: ``z^3 <= w`` rounded up)."""
    z = np.cbrt(w) * CUBE_ROOT_SHRINK
    proven = up(up(z * z) * z) <= w
    return np.where(proven & (z >= 0), z, 0.0)


@dataclass(frozen=True)
class Theorem4Rows:
    """Theorem 4's data for ``T`` constraints (rows), as doubles with proven enclosures.

    Attributes
    ----------
    v1 : ndarray, shape (T, |U|)
        ``P(y | s1, u)``: exact doubles.
    p2 : ndarray, shape (T, |U|)
        ``P(y | s2, u)``: exact doubles; the second block is ``-e^eps p2``.
    factor : (float, float)
        Doubles ``lo <= e^eps <= hi``.
    weights : ndarray, shape (2, T, |U|)
        Doubles ``<= Phat_{s_i, u}`` (0 exactly where the count is 0).
    rho : ndarray, shape (T,)
        Doubles ``>= sqrt(B+1) - 1 + Phat_{s1} + Phat_{s2}``.
    k : float
        A double ``<= 2^(-2/3) + 2^(1/3)`` (Theorem 4's constant).
    """

    v1: np.ndarray
    p2: np.ndarray
    factor: tuple[float, float]
    weights: np.ndarray
    rho: np.ndarray
    k: float

    def second_block(self) -> tuple[np.ndarray, np.ndarray]:
        """``(lo, hi)`` enclosing ``v2 = -e^eps p2`` entrywise."""
        lo, hi = self.factor
        return -up(hi * self.p2), -down(lo * self.p2)


def theorem4_upper_bounds(rows: Theorem4Rows, c: np.ndarray, t: np.ndarray) -> np.ndarray:
    """Proven upper bounds on eq. (29) at ``(c, t_1, t_2)`` for every row.

    ``c < 0`` is taken as 0 and ``t_i`` raised to ``max_u v_i(u)`` (so the
    point is feasible and the value bounds the support function), as in
    :func:`~rldp_models.privacy.guarantees.theorem4_upper_bound`. Rows with
    non-finite multipliers get ``+inf`` (nothing proven).

    Parameters
    ----------
    rows : Theorem4Rows
    c : ndarray, shape (T,)
    t : ndarray, shape (2, T)

    Returns
    -------
    ndarray, shape (T,)
    """
    c = np.maximum(np.asarray(c, dtype=float), 0.0)
    t = np.asarray(t, dtype=float)
    finite = np.isfinite(c) & np.isfinite(t[0]) & np.isfinite(t[1])
    c = np.where(finite, c, 0.0)
    v2_lo, v2_hi = rows.second_block()
    total = up(c * rows.rho)
    for i, v_hi in enumerate((rows.v1, v2_hi)):
        t_i = np.maximum(np.where(finite, t[i], 0.0), v_hi.max(axis=1))
        term = t_i
        if np.any(c > 0):
            roots = down(np.sqrt(np.maximum(down(t_i[:, None] - v_hi), 0.0)))
            h = np.zeros_like(t_i)
            for u in range(v_hi.shape[1]):
                h = down(h + down(rows.weights[i][:, u] * roots[:, u]))
                h = np.maximum(h, 0.0)
            z = cube_root_lower(down(c * h))
            term = np.where(c > 0, up(t_i - down(rows.k * down(z * z))), t_i)
        total = up(total + term)
    return np.where(finite, total, np.inf)


def _enclosure(x: flint.arb) -> tuple[float, float]:
    """Doubles ``lo <= x <= hi`` for every point of the ball ``x``."""
    return -float_up(-x), float_up(x)


def theorem4_rows(protocol: np.ndarray, counts: np.ndarray, radius: float, eps: float,
                  pairs: list[tuple[int, int]]) -> Theorem4Rows:
    """The rows of every ``(pair, y)``, pair-major, from the exact counts.

    ``Phat = counts / n`` and ``rho = sqrt(B+1) - 1 + Phat_{s1} + Phat_{s2}`` are
    enclosed in ball arithmetic (python-flint ``arb``) and rounded outwards;
    ``B`` is the radius as the exact double it is.
    """
    n_s, n_u = counts.shape
    blocks = protocol.reshape(n_s, n_u, -1)
    n_y = blocks.shape[2]
    first = np.repeat([p[0] for p in pairs], n_y)
    second = np.repeat([p[1] for p in pairs], n_y)
    y = np.tile(np.arange(n_y), len(pairs))
    return ratio_rows(blocks[first, :, y], blocks[second, :, y],
                      _enclosure(flint.arb(float(eps)).exp()), counts, radius,
                      list(zip(first.tolist(), second.tolist())))


def ratio_rows(a: np.ndarray, b: np.ndarray, factor: tuple[float, float], counts: np.ndarray,
               radius: float, pairs: list[tuple[int, int]]) -> Theorem4Rows:
    """Rows ``delta*(a, -factor b | F_{U|s1,s2})`` for row-wise pairs ``(s1, s2)`` (shape (T, |U|)).

    ``factor`` is ``(lo, hi)`` enclosing the ratio (``(tau, tau)`` for a double ``tau``).
    """
    n = int(counts.sum())
    weight = np.where(counts > 0, down(counts / n), 0.0)
    root = (flint.arb(float(radius)) + 1).sqrt() - 1
    mass = counts.sum(axis=1)
    rho = {pair: float_up(root + flint.arb(flint.fmpq(int(mass[pair[0]]) + int(mass[pair[1]]),
                                                      n)))
           for pair in set(pairs)}
    constant = flint.arb(2) ** flint.arb(flint.fmpq(-2, 3)) + \
        flint.arb(2) ** flint.arb(flint.fmpq(1, 3))
    first, second = np.array(pairs, dtype=int).reshape(-1, 2).T
    return Theorem4Rows(np.asarray(a, dtype=float), np.asarray(b, dtype=float), factor,
                        np.stack([weight[first], weight[second]]),
                        np.array([rho[pair] for pair in pairs], dtype=float),
                        _enclosure(constant)[0])
