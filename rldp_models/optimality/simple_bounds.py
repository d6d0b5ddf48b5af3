"""Inequality rows on one column are bounds on it, not duals to cancel.

cvxpy writes a variable declared ``nonneg=True`` (a transport plan, a multiplier) as
rows ``-x_j <= 0`` of the nonnegative cone, one per entry, and leaves ``x_j`` free. Such a
row's dual is the multiplier of a simple bound; at the optimum of an entry that stays
at 0 it is positive, and where the entry is slack it is tiny (5e-10 at Clarabel's
defaults), so the cancellation of the free column's residual
(:mod:`~rldp_models.optimality.cancellation`) has no room but in those tiny duals and
pushes them out of ``K*`` (V3 on a 3x5 table: 415 such rows outside after every inward
move). Following Neumaier and Shcherbina ("Safe bounds in linear and mixed-integer
linear programming", Math. Program. 99, 2004, Section 2), simple bounds are kept as a
box instead: a row ``a x_j <= b_i`` of the nonnegative cone gives ``x_j <= b_i / a``
(``a > 0``) or ``x_j >= b_i / a`` (``a < 0``), rounded outward from the exact quotient
of the doubles, every feasible point satisfies it, and its dual is set to 0. A column
bounded on one side then needs only a residual of the right sign, not an exact zero
(:func:`~rldp_models.optimality.weak_duality.proven_lower_bound`).

Where that sign is not proved (a slack entry's bound dual, 5e-10, below the solver's
residual), an upper bound closes the box, so a residual of either sign costs only
``r_j u_j``: a row ``sum_k a_k x_k <= b`` (or ``= b``) with every ``a_k > 0`` on
columns bounded below by 0 gives ``x_j <= b / a_j`` (a transport plan's entries from its
row sums, Phat's; the bound propagation of Neumaier and Shcherbina's Section 2 in its
simplest case), the quotient rounded up (IEEE division is correctly rounded, so one
step up covers the exact quotient).
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import scipy.sparse as sp

from rldp_models.optimality.cones import NONNEG, ZERO, ConeBlocks


def implied_box(A: sp.csc_matrix, b: np.ndarray, blocks: ConeBlocks, lower: np.ndarray,
                upper: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``lower`` and ``upper`` tightened by every nonnegative-cone row with one entry, on a
    column not boxed on both sides, and then by the positive rows over columns bounded
    below by 0 (module docstring); with the rows of the first kind (a boolean mask: their
    duals are replaced by the box)."""
    rows = sp.csr_matrix(A)
    single = (np.diff(rows.indptr) == 1) & (blocks.kind == NONNEG)
    index = np.flatnonzero(single)
    columns, coefficients = rows.indices[rows.indptr[index]], rows.data[rows.indptr[index]]
    open_column = ~(np.isfinite(lower) & np.isfinite(upper))
    keep = open_column[columns]
    index, columns, coefficients = index[keep], columns[keep], coefficients[keep]
    lower, upper = lower.copy(), upper.copy()
    for row, column, a in zip(index, columns, coefficients):
        quotient = Fraction(float(b[row])) / Fraction(float(a))
        if a > 0:
            upper[column] = min(upper[column], _rounded(quotient, np.inf))
        else:
            lower[column] = max(lower[column], _rounded(quotient, -np.inf))
    mask = np.zeros(A.shape[0], dtype=bool)
    mask[index] = True
    return lower, _propagated_upper(rows, b, blocks, lower, upper), mask


def _propagated_upper(rows: sp.csr_matrix, b: np.ndarray, blocks: ConeBlocks,
                      lower: np.ndarray, upper: np.ndarray) -> np.ndarray:
    """``upper`` tightened to ``b_i / a_ij`` (rounded up) by each zero or nonnegative-cone
    row whose entries are all positive, on columns all bounded below by exactly 0."""
    count = np.diff(rows.indptr)
    usable = (count > 1) & ((blocks.kind == ZERO) | (blocks.kind == NONNEG))
    entry_row = np.repeat(np.arange(rows.shape[0]), count)
    bad = (rows.data <= 0) | (lower[rows.indices] != 0)
    usable &= np.bincount(entry_row, weights=bad, minlength=rows.shape[0]) == 0
    usable &= b >= 0
    take = usable[entry_row]
    columns = rows.indices[take]
    with np.errstate(divide="ignore"):
        quotient = np.nextafter(b[entry_row[take]] / rows.data[take], np.inf)
    upper = upper.copy()
    np.minimum.at(upper, columns, quotient)
    return upper


def _rounded(value: Fraction, toward: float) -> float:
    """The double nearest ``value`` on the side of ``toward`` (outward rounding)."""
    double = float(value)
    if (Fraction(double) < value) if toward > 0 else (Fraction(double) > value):
        double = float(np.nextafter(double, toward))
    return double
