"""Exact sampling: every bit string against the cumulative thresholds, goodness of fit, seeds."""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pytest
from scipy.stats import chisquare

from rldp_models.errors import InputError
from rldp_models.exact import exact_stochastic_rows
from rldp_models.disclosure.sampling import (DyadicRows, dyadic_numerators, os_random_words,
                                          seeded_random_words)

SMALL_ROWS = np.array([[1 / 8, 0, 3 / 8, 1 / 2], [1 / 4, 1 / 4, 1 / 4, 1 / 4],
                       [0, 0, 0, 1], [5 / 8, 1 / 8, 1 / 8, 1 / 8]])


def brute_force_output(row: np.ndarray, r: int, bits: int) -> int:
    """The output whose interval [sum_{j<i} p_j, sum_{j<=i} p_j) holds r / 2^bits (Fractions)."""
    point, low = Fraction(r, 2**bits), Fraction(0)
    for i, p in enumerate(row):
        high = low + Fraction(p)
        if low <= point < high:
            return i
        low = high
    raise AssertionError("no interval holds the point")


@pytest.mark.parametrize("method", ["select", "search"])
def test_every_bit_string_selects_the_output_of_its_threshold_interval(method) -> None:
    rows = DyadicRows.from_rows(SMALL_ROWS)
    assert rows.bits == 3
    for row_index, r in itertools.product(range(len(SMALL_ROWS)), range(2**rows.bits)):
        # the word whose top 3 bits are r, the low bits arbitrary (all ones)
        word = np.array([(r << 61) | (2**61 - 1)], dtype=np.uint64)
        chosen = getattr(rows, method)(np.array([row_index]), rows.integers(word))[0]
        assert chosen == brute_force_output(SMALL_ROWS[row_index], r, 3)


def test_every_bit_string_of_a_wide_row_selects_its_interval() -> None:
    # 32 outputs (the searchsorted path) with numerators over 2^7, zeros included
    numerators = np.random.default_rng(5).multinomial(2**7, np.ones(32) / 32, size=3)
    matrix = numerators / 2**7
    rows = DyadicRows.from_rows(matrix)
    r = np.arange(2**rows.bits, dtype=np.uint64)
    for row_index, row in enumerate(matrix):
        chosen = rows.select(np.full(r.size, row_index), r)
        assert list(chosen) == [brute_force_output(row, int(v), rows.bits) for v in r]


def test_bit_strings_cover_each_output_exactly_its_numerator_times() -> None:
    rows = DyadicRows.from_rows(SMALL_ROWS)
    r = np.arange(2**rows.bits, dtype=np.uint64)
    for row_index, row in enumerate(SMALL_ROWS):
        chosen = rows.select(np.full(r.size, row_index), r)
        counts = np.bincount(chosen, minlength=row.size)
        assert list(counts) == [int(Fraction(p) * 2**rows.bits) for p in row]


def test_rows_beyond_one_offset_block_are_selected_exactly() -> None:
    # 5000 rows at 52 bits exceed one uint64 offset block (4095 rows)
    rng = np.random.default_rng(0)
    matrix = exact_stochastic_rows(rng.dirichlet(np.ones(3), size=5000))
    rows = DyadicRows.from_rows(matrix)
    which = rng.integers(0, 5000, size=20000)
    r = seeded_random_words(1)(which.size) >> np.uint64(64 - rows.bits)
    expected = np.array([np.searchsorted(rows.cumulative[w], v, side="right")
                         for w, v in zip(which, r)])
    assert np.array_equal(rows.search(which, r), expected)
    assert np.array_equal(rows.select(which, r), expected)


@pytest.mark.parametrize("bad", [[[0.5, 0.5 + 2**-53]], [[0.3, 0.7 - 2**-60, 2**-60]],
                                 [[1.5, -0.5]]])
def test_rows_that_are_not_exact_dyadic_distributions_are_refused(bad) -> None:
    with pytest.raises(InputError):
        dyadic_numerators(np.array(bad))


def test_a_hundred_thousand_seeded_draws_per_row_fit_the_row() -> None:
    matrix = exact_stochastic_rows(np.random.default_rng(3).dirichlet(np.ones(6), size=4))
    rows = DyadicRows.from_rows(matrix)
    words = seeded_random_words(2022)
    for row_index, row in enumerate(matrix):
        chosen = rows.draw(np.full(100_000, row_index), words)
        observed = np.bincount(chosen, minlength=row.size)
        assert chisquare(observed, 100_000 * row).pvalue > 1e-3


def test_seeded_draws_repeat_and_os_draws_differ() -> None:
    rows = DyadicRows.from_rows(np.full((1, 16), 1 / 16))
    which = np.zeros(1000, dtype=int)
    first = rows.draw(which, seeded_random_words(7))
    assert np.array_equal(first, rows.draw(which, seeded_random_words(7)))
    assert not np.array_equal(rows.draw(which, os_random_words),
                              rows.draw(which, os_random_words))
