"""Exact arithmetic helpers: dyadic rounding of stochastic rows, interval bounds, and the
interval precision of certificate checks.

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
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from fractions import Fraction

import flint
import mpmath
import numpy as np

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
