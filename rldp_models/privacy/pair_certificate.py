"""Robust privacy over the chi-square set (eq. 30) at a record's stored multipliers.

A solve result keeps, per ordered pair of secrets, the group ``<name>[s1,s2]``
of ``certificate.multipliers``: ``c`` (``|Y|``) and ``t`` (``2 x |Y|``) of
Theorem 4 (eq. 29) for ``delta*(P(y|s1,.), -e^eps P(y|s2,.) | F_{U|s1,s2}) <= 0``,
one column per output ``y``. :func:`pair_check` evaluates each expression at
the stored multipliers in interval arithmetic with
:data:`~rldp_models.exact.DIGITS` digits, the protocol's doubles and
``counts / n`` taken exactly (a constraint is certified when its bound is
``<= 0``), and finds per constraint the attained worst case in ``F`` without
the multipliers: the maximisers of every ``(pair, y)`` at once from the
stationarity conditions of Theorem 4
(:func:`~rldp_models.uncertainty.pair_support_batch.pair_support_batch`), and
where that point cannot be realised in ``F``, a direct maximisation over
Theorem 3's pair projection
(:class:`~rldp_models.privacy.worst_case.PairRatioSubproblem`).
"""

from __future__ import annotations

import itertools
from fractions import Fraction
from typing import Any, Sequence

import mpmath
import numpy as np

from rldp_models.exact import high_precision, interval, iv, upper_mpf
from rldp_models.privacy.guarantees import pair_rows, theorem4_upper_bound
from rldp_models.privacy.stored_bounds import AttainedWorstCase, ConstraintBound, StoredCheck, label
from rldp_models.privacy.chi_square_bounds import theorem4_rows, theorem4_upper_bounds
from rldp_models.privacy.worst_case import PairRatioSubproblem, witness_distribution
from rldp_models.progress import progress
from rldp_models.uncertainty.chi_square import ChiSquareSet
from rldp_models.uncertainty.pair_support_batch import pair_support_batch

Key = tuple[int, int, int]
"""``(s1, s2, y)``."""


def pair_check(protocol: np.ndarray, counts: np.ndarray, uncertainty: ChiSquareSet, eps: float,
               multipliers: dict, group: str, secrets: Sequence[Any] | None = None,
               outputs: Sequence[Any] | None = None) -> StoredCheck:
    """Every ``(s1, s2, y)`` of eq. (30) at the stored ``(c, t)`` of ``group[s1,s2]``, and its
    attained worst case; constraints named by the secrets' and outputs' labels."""
    bounds, missing = pair_bounds(protocol, counts, uncertainty.radius, eps, multipliers, group)

    def name(key: Key) -> str:
        s1, s2, y = key
        return f"{group}[{label(secrets, s1)},{label(secrets, s2)}] y={label(outputs, y)}"

    attained = pair_worst_cases(protocol, uncertainty, eps, bounds)
    return StoredCheck(tuple(ConstraintBound(name(k), b, 0.0) for k, b in bounds.items()),
                       tuple(missing),
                       tuple(AttainedWorstCase(name(k), float(bounds[k]), value, p)
                             for k, (value, p) in attained.items()))


def pair_bounds(protocol: np.ndarray, counts: np.ndarray, radius: float, eps: float,
                multipliers: dict, group: str) -> tuple[dict[Key, mpmath.mpf], list[str]]:
    """Theorem 4 bounds of eq. (30) for every ``(s1, s2, y)`` at the stored ``(c, t)``."""
    n_s, n_u = counts.shape
    n = int(counts.sum())
    blocks = protocol.reshape(n_s, n_u, -1)
    joint = [[Fraction(int(c), n) for c in row] for row in counts]
    bounds: dict[Key, mpmath.mpf] = {}
    missing = []
    with high_precision():
        factor = iv.exp(interval(eps))
        root = iv.sqrt(interval(radius) + 1)
        pairs = list(itertools.permutations(range(n_s), 2))
        for s1, s2 in progress(pairs, desc="rldp verify: privacy bounds", unit="pair"):
            stored = _pair_multipliers(multipliers.get(f"{group}[{s1},{s2}]"), blocks.shape[2])
            if stored is None:
                missing.append(f"{group}[{s1},{s2}]")
                continue
            c, t = stored
            rows = [joint[s1], joint[s2]]
            rho = root - 1 + interval(sum(rows[0], Fraction(0)) + sum(rows[1], Fraction(0)))
            fast = theorem4_upper_bounds(theorem4_rows(protocol, counts, radius, eps, [(s1, s2)]),
                                         c, t)  # outward-rounded doubles; 60 digits if not <= 0
            for y in range(blocks.shape[2]):
                bounds[s1, s2, y] = mpmath.mpf(fast[y]) if fast[y] <= 0 else upper_mpf(
                    theorem4_upper_bound(blocks[s1, :, y], factor, blocks[s2, :, y], rows, rho,
                                         float(c[y]), (float(t[0, y]), float(t[1, y]))))
    return bounds, missing


def _pair_multipliers(values: Any, n_y: int) -> tuple[np.ndarray, np.ndarray] | None:
    """A pair's stored ``c`` (one per output) and ``t`` (two per output), or None when they
    are absent or not of that shape (a ragged or short list proves nothing)."""
    if not isinstance(values, dict) or not {"c", "t"} <= set(values):
        return None
    try:
        c = np.asarray(values["c"], dtype=float).reshape(-1)
        t = np.asarray(values["t"], dtype=float)
    except (TypeError, ValueError):
        return None
    if c.size != n_y or t.size != 2 * n_y:
        return None
    return c, t.reshape(2, -1)


def pair_worst_cases(protocol: np.ndarray, uncertainty: ChiSquareSet, eps: float,
                     bounds: dict[Key, Any]) -> dict[Key, tuple[float, np.ndarray | None]]:
    """Maximise ``P(y|s1,.).R1 - e^eps P(y|s2,.).R2`` over ``F_{U|s1,s2}`` for every bound:
    the value attained and the member of ``F`` attaining it (NaN, None: none found)."""
    n_s, n_u = uncertainty.phat.shape
    n_y = protocol.shape[1]
    pairs = list(itertools.permutations(range(n_s), 2))
    rows = pair_rows(protocol, uncertainty, eps, pairs)
    batch = pair_support_batch(rows.v1, rows.v2, rows.p1, rows.p2, rows.rho)
    sub = None
    found = {}
    for index, ((s1, s2), y) in enumerate(itertools.product(pairs, range(n_y))):
        if (s1, s2, y) not in bounds:
            continue
        a, b = rows.v1[index], -rows.v2[index]
        p = _realised(uncertainty, s1, s2, batch.r1[index], batch.r2[index])
        if p is None:
            if sub is None:
                sub = PairRatioSubproblem(n_u)
            pair = uncertainty.pair(s1, s2)
            sub.set_pair(pair.rows, pair.rho)
            maximiser = sub.maximise(a, b)
            p = None if maximiser is None else witness_distribution(uncertainty, s1, s2,
                                                                    *maximiser)
        found[s1, s2, y] = (np.nan if p is None else _pair_value(p, s1, s2, a, b), p)
    return found


def _realised(uncertainty: ChiSquareSet, s1: int, s2: int, r1: np.ndarray,
              r2: np.ndarray) -> np.ndarray | None:
    """``(r1, r2)`` as a distribution in ``F``, or None (not finite, empty, or not realisable)."""
    if not (np.all(np.isfinite(r1)) and np.all(np.isfinite(r2)) and r1.sum() > 0
            and r2.sum() > 0):
        return None
    return witness_distribution(uncertainty, s1, s2, np.clip(r1, 0, None),
                                np.clip(r2, 0, None))


def _pair_value(p: np.ndarray, s1: int, s2: int, a: np.ndarray, b: np.ndarray) -> float:
    q1, q2 = p[s1] / p[s1].sum(), p[s2] / p[s2].sum()
    return float(a @ q1 - b @ q2)
