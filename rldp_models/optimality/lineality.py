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
"""

from __future__ import annotations

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


def implied_columns(A: sp.csc_matrix, c: np.ndarray, columns: np.ndarray) -> np.ndarray:
    """Columns of ``columns`` whose residual is zero whenever the others' is (module
    docstring): one pivot per exact null direction; empty when there is none."""
    if columns.size == 0 or columns.size > LIMIT:
        return np.zeros(0, dtype=np.int64)
    sub = sp.csc_matrix(A[:, columns])
    rows = np.unique(sub.indices)
    dense = sub[rows].toarray()
    _, singular, vt = np.linalg.svd(dense)
    rank = int(np.count_nonzero(singular > NULL_TOLERANCE * singular.max(initial=0.0)))
    null = vt[rank:]
    if null.shape[0] == 0:
        return np.zeros(0, dtype=np.int64)
    _, _, order = scipy.linalg.qr(null, pivoting=True)
    pivots = order[:null.shape[0]]
    reduced = np.linalg.solve(null[:, pivots], null)
    reduced = np.round(reduced * 2.0**DYADIC_BITS) / 2.0**DYADIC_BITS
    reduced[:, pivots] = np.eye(pivots.size)
    exact = [k for k in range(pivots.size)
             if _exactly_null(dense, c[columns], reduced[k])]
    return np.asarray(columns)[pivots[exact]].astype(np.int64)


def _exactly_null(dense: np.ndarray, cost: np.ndarray, d: np.ndarray) -> bool:
    """``A d = 0`` and ``c.d = 0`` in rationals (the doubles taken exactly)."""
    support = np.flatnonzero(d)
    weights = [Fraction(float(d[j])) for j in support]
    for row in (*dense[:, support], cost[support]):
        if sum((Fraction(float(a)) * w for a, w in zip(row, weights) if a), Fraction(0)):
            return False
    return True
