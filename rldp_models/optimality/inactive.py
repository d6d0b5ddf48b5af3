"""Inactive constraint groups: a negligible dual set to zero, and the columns it frees.

A group of constraints that is slack at the optimum has dual zero; an interior point
solver returns it tiny instead (1e-10 on Theorem 4's rows for a pair of secrets whose
privacy constraint is far from binding), often smaller than its residual, so no
correction of it stays in ``K*``. The free columns are split into groups linked by the
cone blocks they share (connected components; their private multipliers, e.g. one
pair's ``c, t, q, r, b``). Where a group has no cost and every block touching it has
``max |y_block| <= NEGLIGIBLE max |y|`` and zeroing them is affordable
(:data:`AFFORDABLE`), those blocks are set to zero: the group's residual is then
exactly zero, it needs no cancellation, and its rows are *frozen* (no later
correction may touch them). The bound changes by at most the zeroed duals times their
rows' data (their ``b`` and, on boxed columns, their entries).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
import scipy.sparse.csgraph

from rldp_models.optimality.cones import ConeBlocks

NEGLIGIBLE = 1e-6
"""A group's duals are negligible at or below this fraction of the largest dual entry."""
AFFORDABLE = (1e-9, np.inf)
"""What zeroing a negligible group may cost, relative to ``max(1, |b.y|)`` (its duals
times their rows' ``|b|`` and boxed entries);
:func:`~rldp_models.optimality.weak_duality.proven_lower_bound` tries these in order and
keeps the first bound proved. Zeroing every group below 1e-6 costs 1.5e-6 on 5x11 NURP
(3.5e-9 when zeroing only those below 1e-8); 3x5 RURP at n = 15,000 and Clarabel's
defaults needs groups up to 1e-6 zeroed."""


def zero_inactive(A: sp.csc_matrix, b: np.ndarray, c: np.ndarray, blocks: ConeBlocks,
                  y: np.ndarray, free: np.ndarray, reach: np.ndarray, affordable: float
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``y`` with the negligible groups' blocks zeroed, the free columns still to cancel,
    and the frozen rows (a boolean mask over the rows). ``reach`` is ``max(|l_j|, |u_j|)``
    on boxed columns (0 elsewhere); a group is zeroed only if that costs at most
    ``affordable`` relative to ``max(1, |b.y|)``."""
    if free.size == 0:
        return y, free, np.zeros(y.size, dtype=bool)
    incidence = sp.csr_matrix(A[:, free].T)  # free columns x rows
    incidence.data = np.ones(incidence.nnz)
    to_blocks = sp.csr_matrix((np.ones(y.size), (np.arange(y.size), blocks.block)),
                              shape=(y.size, blocks.starts.size))
    column_blocks = sp.csr_matrix(incidence @ to_blocks)  # free columns x blocks
    count, label = scipy.sparse.csgraph.connected_components(
        column_blocks @ column_blocks.T, directed=False)
    block_size = np.maximum.reduceat(np.abs(y), blocks.starts)
    group_blocks = sp.csr_matrix((np.ones(free.size), (label, np.arange(free.size))),
                                 shape=(count, free.size)) @ column_blocks
    group_blocks = sp.csr_matrix(group_blocks)
    largest_in_group = np.zeros(count)
    np.maximum.at(largest_in_group, np.repeat(np.arange(count), np.diff(group_blocks.indptr)),
                  block_size[group_blocks.indices])
    costless = np.bincount(label, weights=np.abs(c[free]), minlength=count) == 0
    absolute = A.copy()
    absolute.data = np.abs(absolute.data)
    row_cost = np.abs(y) * (np.abs(b) + absolute @ reach)
    cost = group_blocks @ np.add.reduceat(row_cost, blocks.starts)
    settled_groups = costless & (largest_in_group <= NEGLIGIBLE * float(np.abs(y).max())) \
        & (cost <= affordable * max(1.0, abs(float(b @ y))))
    zeroed_blocks = np.zeros(blocks.starts.size, dtype=bool)
    zeroed_blocks[group_blocks[np.flatnonzero(settled_groups)].indices] = True
    frozen = zeroed_blocks[blocks.block]
    return np.where(frozen, 0.0, y), free[~settled_groups[label]], frozen
