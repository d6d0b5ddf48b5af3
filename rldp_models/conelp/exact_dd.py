"""Exact double description of a cone inside the nonnegative orthant.

The fallback of :func:`rldp_models.conelp.double_description.extreme_rays`
when floating-point cddlib fails or returns rays that do not pass
verification. ``pycddlib-standalone`` ships no ``cdd.gmp``, so the exact
arithmetic is done here, in Python integers.

Every cone of this package lies in the orthant (mechanism columns are
nonnegative), so the method starts from the orthant's rays ``e_1, ..., e_d``
and adds the rows of ``A`` one at a time (Motzkin's double description with
the combinatorial adjacency test). Rows are scaled to integer vectors, so
all rays stay integer vectors, reduced by their gcd; no rounding occurs.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Sequence

import numpy as np

from rldp_models.errors import TooManyRays


@dataclass(frozen=True)
class _Ray:
    """An integer ray and the bitmask of the constraints it makes tight."""

    vector: tuple[int, ...]
    zeros: int


def exact_extreme_rays(rows: Sequence[Sequence[Fraction]], dimension: int,
                       max_rays: int | None = None) -> list[tuple[int, ...]]:
    """Extreme rays of ``{q in R^d : q >= 0, a.q >= 0 for every row a}``, exactly.

    Parameters
    ----------
    rows : sequence of sequences of Fraction
        The rows ``a`` (each of length ``dimension``), as exact rationals.
    dimension : int
        ``d``.
    max_rays : int, optional
        Give up once the rays of an intermediate cone (after some rows) are
        more than this: each row compares every pair of rays, so the count
        bounds the time (Adult occupation x education, ``15 x 16``, ran more
        than 10 minutes uncapped).

    Returns
    -------
    list of tuple of int
        One primitive integer vector per extreme ray (entries >= 0, gcd 1).
        Empty when the cone is ``{0}``.

    Raises
    ------
    TooManyRays
        If an intermediate cone has more than ``max_rays`` rays.
    """
    rays = [_Ray(tuple(int(i == j) for i in range(dimension)), _orthant_zeros(j, dimension))
            for j in range(dimension)]
    for offset, row in enumerate(rows):
        rays = _add_inequality(rays, _integer_row(row), dimension + offset, dimension)
        if max_rays is not None and len(rays) > max_rays:
            raise TooManyRays(f"the cone has more than {max_rays} rays after {offset + 1} of "
                              f"its {len(rows)} rows")
    return [ray.vector for ray in rays]


def _orthant_zeros(j: int, dimension: int) -> int:
    """Bitmask of the orthant constraints ``q_i >= 0`` tight at ``e_j``."""
    return ((1 << dimension) - 1) & ~(1 << j)


def _integer_row(row: Sequence[Fraction]) -> tuple[int, ...]:
    """A positive multiple of ``row`` with coprime integer entries."""
    fractions = [Fraction(value) for value in row]
    scale = math.lcm(*(f.denominator for f in fractions))
    integers = [int(f * scale) for f in fractions]
    divisor = math.gcd(*integers) or 1
    return tuple(i // divisor for i in integers)


def _add_inequality(rays: list[_Ray], row: tuple[int, ...], index: int,
                    dimension: int) -> list[_Ray]:
    """One double-description step: intersect the cone of ``rays`` with ``row.q >= 0``."""
    values = [sum(a * v for a, v in zip(row, ray.vector)) for ray in rays]
    bit = 1 << index
    positive = [(ray, value) for ray, value in zip(rays, values) if value > 0]
    negative = [(ray, value) for ray, value in zip(rays, values) if value < 0]
    kept = [ray for ray, value in positive]
    kept += [_Ray(ray.vector, ray.zeros | bit) for ray, value in zip(rays, values) if value == 0]
    if positive and negative:
        words = _words([ray.zeros for ray in rays], index)
        for plus, plus_value in positive:
            for minus, minus_value in negative:
                if _adjacent(plus, minus, words, dimension, index):
                    kept.append(_combine(plus, plus_value, minus, minus_value, bit))
    return kept


def _words(masks: list[int], bits: int) -> np.ndarray:
    """Bitmasks as rows of 64-bit words, shape ``(len(masks), ceil(bits / 64))``."""
    count = max(1, -(-bits // 64))
    full = (1 << 64) - 1
    return np.array([[(mask >> (64 * w)) & full for w in range(count)] for mask in masks],
                    dtype=np.uint64).reshape(len(masks), count)


def _adjacent(first: _Ray, second: _Ray, words: np.ndarray, dimension: int, bits: int) -> bool:
    """Combinatorial adjacency: no third ray is tight on every constraint both share.

    ``words`` holds every current ray's tight set (:func:`_words`); exactly two
    rays, ``first`` and ``second``, may contain the common tight set.
    """
    common = first.zeros & second.zeros
    if common.bit_count() < dimension - 2:
        return False
    pattern = _words([common], bits)[0]
    containing = np.all((words & pattern) == pattern, axis=1)
    return int(np.count_nonzero(containing)) == 2


def _combine(plus: _Ray, plus_value: int, minus: _Ray, minus_value: int, bit: int) -> _Ray:
    """The ray on the new hyperplane between ``plus`` and ``minus``, made primitive."""
    vector = [plus_value * m - minus_value * p for p, m in zip(plus.vector, minus.vector)]
    divisor = math.gcd(*vector) or 1
    return _Ray(tuple(v // divisor for v in vector), (plus.zeros & minus.zeros) | bit)


def normalised_float_rays(rays: list[tuple[int, ...]], dimension: int) -> np.ndarray:
    """Integer rays as float columns scaled to sum 1 (each entry correctly rounded)."""
    columns = np.empty((dimension, len(rays)))
    for r, vector in enumerate(rays):
        total = sum(vector)
        columns[:, r] = [float(Fraction(v, total)) for v in vector]
    return columns
