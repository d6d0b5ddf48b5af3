"""Exact sampling from dyadic rows with uniform random bits (DESIGN.md, "Exact release").

A row of a result is ``k_i / 2^m`` with integers ``k_i`` summing to ``2^m``
(every matrix the toolkit writes has ``m <= 52``,
:func:`rldp_models.exact.exact_stochastic_rows`). With ``r`` the integer of
``m`` uniform random bits, output ``i`` is chosen iff
``K_{i-1} <= r < K_i`` for the cumulative numerators ``K_i = k_1 + ... + k_i``,
which happens with probability exactly ``k_i / 2^m``: the guarantee proven for
the matrix is the guarantee of the released value, with no floating point on
the way.

Bits come in 64-bit words: from the operating system's cryptographic source
(:func:`os_random_words`, the source of :mod:`secrets`) for a release, or from
a seeded PCG64 generator (:func:`seeded_random_words`) for tests and
reproductions only. ``r`` is a word's top ``m`` bits. Selection counts the
thresholds ``K_j <= r`` of each record's row (few outputs), or is one
:func:`numpy.searchsorted` over the cumulative numerators of all rows laid end
to end, each row offset by ``row * 2^m`` (exact in ``uint64``).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from rldp_models.errors import InputError

MAX_BITS = 52
"""Denominator exponent of every row the toolkit writes (``k / 2^52``)."""

COUNTING_OUTPUTS = 24
"""Up to this many outputs, counting thresholds column by column beats ``searchsorted``
(``benchmarks/bench_release.py``)."""

RandomWords = Callable[[int], np.ndarray]
"""``words(n)``: ``n`` independent uniform 64-bit words (``uint64``)."""


def os_random_words(count: int) -> np.ndarray:
    """``count`` uniform 64-bit words from the OS's cryptographic source (``os.urandom``,
    what :func:`secrets.token_bytes` reads)."""
    return np.frombuffer(os.urandom(8 * count), dtype=np.uint64)


def seeded_random_words(seed: int) -> RandomWords:
    """A reproducible source of words (PCG64 raw output): for tests, never for a release."""
    generator = np.random.PCG64(seed)
    return lambda count: generator.random_raw(count).astype(np.uint64)


def dyadic_numerators(rows: np.ndarray, what: str = "the matrix") -> tuple[np.ndarray, int]:
    """The integer numerators ``k`` of rows ``k / 2^m``, with the smallest such ``m``.

    Raises
    ------
    InputError
        If an entry is negative, not a multiple of ``2^-52``, or a row does not sum
        to exactly one.
    """
    rows = np.atleast_2d(np.asarray(rows, dtype=float))
    scaled = rows * 2.0**MAX_BITS  # exact: a power-of-two scaling
    if not np.all(np.isfinite(scaled)) or np.any(scaled < 0) or np.any(scaled != np.floor(scaled)):
        raise InputError(f"{what}: an entry is not a nonnegative multiple of 2^-{MAX_BITS}, "
                         "so it cannot be sampled exactly")
    numerators = scaled.astype(np.uint64)
    sums = numerators.sum(axis=1, dtype=np.uint64)
    bad = np.flatnonzero(sums != np.uint64(2**MAX_BITS))
    if bad.size:
        raise InputError(f"{what}: row {int(bad[0])} does not sum to exactly 1")
    nonzero = numerators[numerators > 0]
    shift = min(_trailing_zeros(nonzero), MAX_BITS)
    return numerators >> np.uint64(shift), MAX_BITS - shift


def _trailing_zeros(values: np.ndarray) -> int:
    """The fewest trailing zero bits among positive ``uint64`` values."""
    lowest = values & (~values + np.uint64(1))  # the lowest set bit of each
    return int(np.log2(lowest.min().astype(float)))


@dataclass(frozen=True)
class DyadicRows:
    """Rows ``k / 2^bits`` ready to sample, as cumulative numerators.

    Attributes
    ----------
    cumulative : ndarray of uint64, shape (rows, outputs)
        ``K[j, i] = k[j, 0] + ... + k[j, i]``; the last column is ``2^bits``.
    bits : int
        The random bits one draw uses.
    """

    cumulative: np.ndarray
    bits: int

    @classmethod
    def from_rows(cls, rows: np.ndarray, what: str = "the matrix") -> "DyadicRows":
        numerators, bits = dyadic_numerators(rows, what)
        return cls(np.cumsum(numerators, axis=1, dtype=np.uint64), bits)

    @property
    def shape(self) -> tuple[int, int]:
        rows, outputs = self.cumulative.shape
        return rows, outputs

    def draw(self, which: np.ndarray, words: RandomWords) -> np.ndarray:
        """One output index per entry of ``which`` (row indices), from ``words``' bits."""
        which = np.asarray(which, dtype=np.int64)
        return self.select(which, self.integers(words(which.size)))

    def integers(self, words: np.ndarray) -> np.ndarray:
        """The top :attr:`bits` bits of each word: uniform on ``0 .. 2^bits - 1``."""
        if self.bits == 0:
            return np.zeros(words.shape, dtype=np.uint64)
        return words >> np.uint64(64 - self.bits)

    def select(self, which: np.ndarray, r: np.ndarray) -> np.ndarray:
        """Output ``i`` with ``K[which, i-1] <= r < K[which, i]`` for each record (exact):
        the number of thresholds ``K[which, j] <= r``, counted column by column for few
        outputs, else found by :meth:`search`."""
        if self.shape[1] > COUNTING_OUTPUTS:
            return self.search(which, r)
        columns = np.ascontiguousarray(self.cumulative[:, :-1].T)
        chosen = np.zeros(which.size, dtype=np.int64)
        for column in columns:
            chosen += column[which] <= r
        return chosen

    def search(self, which: np.ndarray, r: np.ndarray) -> np.ndarray:
        """:meth:`select` by one ``searchsorted`` over the offset rows (any number of outputs)."""
        n_rows, n_outputs = self.shape
        block = max(1, (2**64 - 1) // 2**self.bits - 1)  # rows whose offsets fit uint64
        out = np.empty(which.size, dtype=np.int64)
        for first in range(0, n_rows, block):
            mask = (which >= first) & (which < first + block)
            local = which - first if n_rows <= block else (which - first)[mask]
            rows = self.cumulative[first:first + block]
            offsets = np.arange(rows.shape[0], dtype=np.uint64) << np.uint64(self.bits)
            flat = (rows + offsets[:, None]).ravel()
            values = (r if n_rows <= block else r[mask]) + \
                (local.astype(np.uint64) << np.uint64(self.bits))
            chosen = np.searchsorted(flat, values, side="right") - local * n_outputs
            if n_rows <= block:
                return chosen
            out[mask] = chosen
        return out
