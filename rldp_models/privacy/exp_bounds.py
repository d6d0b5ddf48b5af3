"""Exact comparisons with ``e^t`` and directed rounding of ``e^t * b`` to doubles.

Privacy guarantees are ratio bounds ``Q[x,y] <= e^eps Q[x',y]``. Both sides
involve doubles (exact rationals) and ``e^eps`` (irrational for every double
``eps != 0``, by the Lindemann-Weierstrass theorem). A rational ``r`` can
therefore be compared with ``e^t`` exactly: enclose ``e^t`` in an interval
(:mod:`mpmath.iv`) and tighten the enclosure until ``r`` falls outside it,
which must happen unless ``t = 0``, where ``e^t = 1`` is compared directly.

Mechanisms use :func:`float_at_most_exp_times` and
:func:`float_at_least_exp_times` to set an entry to the double nearest to
``e^{+-eps}`` times another entry *on the safe side*, so that the matrix of
doubles meets its guarantee with exactly the requested ``eps``.
"""

from __future__ import annotations

import math
from fractions import Fraction
from functools import lru_cache

import numpy as np
from mpmath import iv
from mpmath.libmp import to_rational

START_PRECISION = 64
"""Bits of the first enclosure of ``e^t``."""

MAX_PRECISION = 1 << 16
"""Bits after which :func:`compare_with_exp` gives up (never reached in practice)."""

ROUNDING_TOLERANCE = 1e-12
"""Largest relative change :func:`raise_column_minima` may make to an entry."""

UNDERFLOW_TOLERANCE = 1e-300
"""Largest absolute change :func:`raise_column_minima` may make (entries that underflowed)."""


@lru_cache(maxsize=4096)
def exp_enclosure(t: float, precision: int) -> tuple[Fraction, Fraction]:
    """Rationals ``(lo, hi)`` with ``lo <= e^t <= hi``, from ``mpmath.iv`` at ``precision`` bits.

    ``iv.mpf`` holds the double ``t`` exactly (``precision >= 53``); the
    interval exponential encloses ``e^t``; its endpoints are binary fractions,
    converted exactly.
    """
    saved = iv.prec
    try:
        iv.prec = precision
        enclosure = iv.exp(iv.mpf(float(t)))
    finally:
        iv.prec = saved
    low, high = (Fraction(*to_rational(end)) for end in enclosure._mpi_)
    return low, high


def compare_with_exp(r: Fraction, t: float) -> int:
    """Sign of ``r - e^t`` (``-1``, ``0`` or ``1``), decided exactly.

    Raises
    ------
    ArithmeticError
        If ``MAX_PRECISION`` bits do not separate ``r`` from ``e^t`` (impossible
        for a finite double ``t``; kept as a guard against misuse).
    """
    if t == 0:
        return (r > 1) - (r < 1)
    if r <= 0:
        return -1
    precision = START_PRECISION
    while precision <= MAX_PRECISION:
        low, high = exp_enclosure(t, precision)
        if r < low:
            return -1
        if r > high:
            return 1
        precision *= 4
    raise ArithmeticError(f"could not separate {r} from e^{t!r}")


def ratio_at_most_exp(numerator: float, denominator: float, t: float) -> bool:
    """Whether ``numerator <= e^t * denominator`` holds exactly (doubles, ``>= 0``)."""
    if denominator == 0:
        return numerator == 0
    return compare_with_exp(Fraction(numerator) / Fraction(denominator), t) <= 0


def float_at_most_exp_times(t: float, b: float) -> float:
    """The largest double ``d`` with ``d <= e^t * b`` exactly (``b >= 0``)."""
    d = b * math.exp(t)
    while not ratio_at_most_exp(d, b, t):
        d = float(np.nextafter(d, -np.inf))
    while ratio_at_most_exp(float(np.nextafter(d, np.inf)), b, t):
        d = float(np.nextafter(d, np.inf))
    return d


def float_at_least_exp_times(t: float, b: float) -> float:
    """The smallest double ``d`` with ``d >= e^t * b`` exactly (``b >= 0``)."""
    d = b * math.exp(t)
    while not ratio_at_most_exp(b, d, -t):
        d = float(np.nextafter(d, np.inf))
    while d > 0 and ratio_at_most_exp(b, float(np.nextafter(d, -np.inf)), -t):
        d = float(np.nextafter(d, -np.inf))
    return d


def raise_column_minima(Q: np.ndarray, eps: float, columns: np.ndarray | None = None) -> np.ndarray:
    """Repair rounding so that every listed column meets ``max <= e^eps * min`` exactly.

    Entries below the smallest double ``>= e^-eps * max(column)`` are raised to
    it; the column maximum is unchanged (that double is ``<= max``), so every
    pair ``x, x'`` then satisfies ``Q[x,y] <= e^eps Q[x',y]``. Only rounding is
    repaired: a raise of more than ``ROUNDING_TOLERANCE`` (relative) and more
    than ``UNDERFLOW_TOLERANCE`` (absolute, for entries that underflowed) means
    the matrix was not ``eps``-private to begin with, and raises ``ValueError``.

    Parameters
    ----------
    Q : ndarray, shape (k, m)
        The mechanism (not modified).
    eps : float
    columns : ndarray of int or bool, optional
        Columns to repair; all by default.
    """
    repaired = np.array(Q, dtype=float)
    selected = np.arange(repaired.shape[1])
    if columns is not None:
        selected = selected[columns]
    block = repaired[:, selected]
    maxima, where = np.unique(block.max(axis=0), return_inverse=True)
    floors = np.array([float_at_least_exp_times(-eps, float(m)) for m in maxima])[where]
    low = block < floors
    allowed = np.maximum(ROUNDING_TOLERANCE * np.broadcast_to(floors, block.shape),
                         UNDERFLOW_TOLERANCE)
    if np.any((floors - block)[low] > allowed[low]):
        raise ValueError(f"a column violates eps = {eps!r} by more than rounding")
    repaired[:, selected] = np.where(low, floors, block)
    return repaired
