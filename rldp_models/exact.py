"""Exact arithmetic helpers: dyadic rounding of stochastic rows, interval bounds, exact
comparisons with ``e^t``, and the interval precision of certificate checks.

A protocol the toolkit returns is a matrix of doubles whose rows sum to one
*exactly* (as rational numbers): every entry is a multiple of ``2^-52`` and
the rounding deficit is added to the largest entry of the row. Checks of a
privacy guarantee then run in interval arithmetic (:mod:`mpmath.iv`), whose
results enclose the exact values, so "holds" means holds.

The toolkit's own checkers use 120 bits. Certificates are re-evaluated at
:data:`DIGITS` significant digits (>= 50, as issue 5 asks): :func:`high_precision`
raises the precision for the duration of a certificate check; every input double
or fraction is held exactly, so an interval's upper end (:func:`upper_mpf`) is a
rigorous upper bound on the exact value.

Comparisons with ``e^t``
------------------------
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
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from fractions import Fraction
from functools import lru_cache

import flint
import mpmath
import numpy as np
from mpmath.libmp import to_rational

GRID_BITS = 52
_GRID = 2.0**-GRID_BITS

ExactVector = Sequence[float | Fraction] | np.ndarray
"""A vector of doubles or fractions, every entry taken as the exact rational it is."""

iv = mpmath.iv
iv.prec = 120


def exact_stochastic_rows(matrix: np.ndarray) -> np.ndarray:
    """Round a nearly row-stochastic matrix so each row sums to exactly 1.

    Entries are clipped at zero, rows rescaled to sum to one, floored to the
    grid ``2^-52`` and the deficit (a whole number of grid steps) added to the
    largest entry. All entries are then exact doubles and every row sum is 1
    in exact rational arithmetic.
    """
    m = np.clip(np.asarray(matrix, dtype=float), 0.0, None)
    sums = m.sum(axis=1, keepdims=True)
    if np.any(sums <= 0):
        raise ValueError("a row has no positive entry")
    steps = np.floor(m / sums / _GRID)
    deficit = 2**GRID_BITS - steps.sum(axis=1)
    steps[np.arange(m.shape[0]), np.argmax(steps, axis=1)] += deficit
    return steps * _GRID


def is_exactly_stochastic(matrix: np.ndarray) -> tuple[bool, str]:
    """Whether every entry is >= 0 and every row sums to exactly 1 (rationally)."""
    m = np.asarray(matrix, dtype=float)
    if m.ndim != 2 or not np.all(np.isfinite(m)):
        return False, "the protocol is not a finite matrix"
    if np.any(m < 0):
        return False, f"the protocol has a negative entry ({m.min():.3g})"
    for index, row in enumerate(m):
        total = exact_sum(row)
        if total != 1:
            return False, f"row {index} sums to {float(total.p) / float(total.q)!r}, not exactly 1"
    return True, ""


def exact_sum(values: np.ndarray) -> flint.fmpq:
    """The exact rational sum of doubles (python-flint ``fmpq``: 5x ``Fraction``,
    ``benchmarks/bench_exact.py``)."""
    total = flint.fmpq(0)
    for value in values:
        total += flint.fmpq(*float(value).as_integer_ratio())
    return total


def exact_entries(v: ExactVector) -> list[Fraction]:
    """The entries of ``v`` (doubles or fractions) as exact rationals."""
    return [x if isinstance(x, Fraction) else Fraction(float(x))
            for x in np.asarray(v, dtype=object).ravel()]


def interval(value: float | Fraction) -> "mpmath.iv.mpf":
    """A point interval holding a double or a fraction exactly."""
    if isinstance(value, Fraction):
        return iv.mpf(value.numerator) / iv.mpf(value.denominator)
    return iv.mpf(float(value))


def upper(x: "mpmath.iv.mpf") -> float:
    """A double no smaller than every point of the interval ``x``."""
    return mpmath.libmp.to_float(x._mpi_[1], rnd=mpmath.libmp.round_ceiling)


def log_up(ratio: float | Fraction) -> float:
    """The smallest double ``>= log(ratio)`` (up to a 2^-120 enclosure); ``0`` for ``ratio <= 1``.

    Directed rounding makes a float comparison exact: a level ``L`` proven
    this way satisfies ``L <= eps`` for a double ``eps`` whenever the true
    level does (``e^eps`` is transcendental for ``eps != 0``, so equality
    with a rational ratio never occurs).
    """
    if ratio <= 1:
        return 0.0
    if ratio == math.inf:
        return math.inf
    return upper(iv.log(interval(ratio if isinstance(ratio, Fraction) else float(ratio))))


DIGITS = 60
"""Decimal digits of the interval arithmetic that checks certificates."""


@contextmanager
def high_precision(digits: int = DIGITS) -> Iterator[None]:
    """Run the block with :mod:`mpmath.iv` at ``digits`` decimal digits, then restore."""
    saved = iv.prec
    iv.dps = max(digits, 50)
    try:
        yield
    finally:
        iv.prec = saved


def upper_mpf(x: "mpmath.iv.mpf") -> mpmath.mpf:
    """The upper end of an interval as an :class:`mpmath.mpf`, every bit kept (no rounding)."""
    return mpmath.mp.make_mpf(x._mpi_[1])


def digits_text(x: mpmath.mpf, digits: int = 30) -> str:
    """``x`` to ``digits`` significant digits (for reports and JSON)."""
    return mpmath.nstr(x, digits, min_fixed=-4, max_fixed=6) if mpmath.isfinite(x) else str(x)


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
