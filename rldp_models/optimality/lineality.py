"""Free columns whose residual is zero whenever the others' is: the feasible set's lineality.

A direction ``d`` of the free columns with ``A d = 0`` and ``c.d = 0`` exactly (in
rationals) leaves every point's objective and feasibility unchanged: the shift of a
support function's constant and the multiplier of ``sum P = 1`` together (a robust
objective over the chi-square set intersected with a box, cvxpy's epigraph of it). For
any dual ``y`` the residual ``r = c + A^T y`` then satisfies ``r.d = c.d + y.(A d) = 0``,
so once the residual is cancelled exactly on the other columns of ``d``'s support it is
zero on the pivot column of ``d`` too. Such columns need no move of their own: without
them the square system of :mod:`~rldp_models.optimality.cancellation` is no longer
rank deficient.

A basis of the null space of ``A`` on the columns is put in reduced form (identity on
chosen pivot columns, Golub and Van Loan, *Matrix Computations*, 2013, Section 5.4.2),
rounded to dyadic rationals and kept only where ``A d = 0`` and ``c.d = 0`` hold
exactly (:class:`fractions.Fraction`), so nothing rests on the floating point null space.

**Data that are roundings of rationals.** A support function's epigraph row carries
``Phat`` as coefficients; ``Phat = counts / n`` sums to 1, its doubles often do not
(``1 - 5.6e-17`` on a 3x5 table), so the shift of a transport plan's potentials is a
lineality of the program over ``Phat`` but not of its doubles: along it the compiled
program's objective falls by ``5.6e-17`` per unit, without bound, and no dual of the
doubles is feasible. Given the rationals the data round (``exact``: a double to the
rational it is the rounding of), a direction null for the data read as those rationals
is *fixed*: its pivot column is held at 0. That restricts the compiled program (so any
bound on it stands) and loses nothing of the program over the rationals, where every
feasible point moves along ``d`` to one with pivot 0 and the same objective.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from fractions import Fraction

import numpy as np
import scipy.linalg
import scipy.sparse as sp

NULL_TOLERANCE = 1e-9
"""Singular values below this fraction of the largest span the (numerical) null space."""
DYADIC_BITS = 30
"""Bits after the point the reduced null vectors are rounded to."""
LIMIT = 400
"""Most columns searched densely (larger sets are left rank deficient)."""


def implied_columns(A: sp.csc_matrix, c: np.ndarray, columns: np.ndarray,
                    exact: Mapping[float, Fraction] | None = None
                    ) -> tuple[np.ndarray, np.ndarray]:
    """Columns of ``columns`` whose residual is zero whenever the others' is (module
    docstring): one pivot per exact null direction; empty when there is none. Second,
    the pivots of directions null only with the data read as ``exact``'s rationals,
    which are to be fixed at 0."""
    empty = np.zeros(0, dtype=np.int64)
    if columns.size == 0 or columns.size > LIMIT:
        return empty, empty
    sub = sp.csc_matrix(A[:, columns])
    dense = sub[np.unique(sub.indices)].toarray()
    key = _key(dense, c[columns], exact)
    if key not in _FOUND:
        if len(_FOUND) >= KEPT:
            _FOUND.pop(next(iter(_FOUND)))
        _FOUND[key] = _null_pivots(dense, c[columns], exact)
    implied, fixed = _FOUND[key]
    chosen = np.asarray(columns)
    return chosen[implied].astype(np.int64), chosen[fixed].astype(np.int64)


_FOUND: dict[tuple, tuple[np.ndarray, np.ndarray]] = {}
"""The pivots of blocks already searched: a bound's retries (another affordable cost, the
other sign rounds) meet the same blocks again, and each SVD took up to 2 s (V3 on the hair
table: 27 searches, 16 distinct)."""

KEPT = 64
"""Blocks kept in :data:`_FOUND` (the oldest is dropped first)."""


def _key(dense: np.ndarray, cost: np.ndarray,
         exact: Mapping[float, Fraction] | None) -> tuple:
    """What :func:`_null_pivots` reads: the block, its costs and the rationals ``exact``
    gives their entries (digests, not the arrays)."""
    digest = hashlib.sha256(dense.tobytes())
    digest.update(cost.tobytes())
    if exact:
        values = np.unique(np.concatenate([dense.ravel(), cost]))
        digest.update(repr([exact.get(float(v)) for v in values]).encode())
    return dense.shape, digest.hexdigest(), exact is None


def _null_pivots(dense: np.ndarray, cost: np.ndarray,
                 exact: Mapping[float, Fraction] | None) -> tuple[np.ndarray, np.ndarray]:
    """:func:`implied_columns` on one dense block: the local pivots of its exact null
    directions, and of those null only with the data read as ``exact``'s rationals."""
    empty = np.zeros(0, dtype=np.int64)
    # V complete without U's square: rows often outnumber the columns by 10x
    _, singular, vt = np.linalg.svd(dense, full_matrices=dense.shape[0] < dense.shape[1])
    rank = int(np.count_nonzero(singular > NULL_TOLERANCE * singular.max(initial=0.0)))
    null = vt[rank:]
    if null.shape[0] == 0:
        return empty, empty
    _, _, order = scipy.linalg.qr(null, pivoting=True)
    pivots = order[:null.shape[0]]
    reduced = np.linalg.solve(null[:, pivots], null)
    reduced = np.round(reduced * 2.0**DYADIC_BITS) / 2.0**DYADIC_BITS
    reduced[:, pivots] = np.eye(pivots.size)
    implied = [k for k in range(pivots.size) if _exactly_null(dense, cost, reduced[k])]
    fixed = [k for k in range(pivots.size) if k not in implied and exact and
             _exactly_null(dense, cost, reduced[k], exact)]
    return pivots[implied], pivots[fixed]


def _exactly_null(dense: np.ndarray, cost: np.ndarray, d: np.ndarray,
                  exact: Mapping[float, Fraction] | None = None) -> bool:
    """``A d = 0`` and ``c.d = 0`` in rationals: each double taken exactly, or as the
    rational ``exact`` says it rounds."""
    support = np.flatnonzero(d)
    weights = [Fraction(float(d[j])) for j in support]
    read = exact or {}
    for row in (*dense[:, support], cost[support]):
        if sum((read.get(float(a), Fraction(float(a))) * w for a, w in zip(row, weights) if a),
               Fraction(0)):
            return False
    return True
