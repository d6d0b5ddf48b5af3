"""A floating point correction of the dual toward exact feasibility on the free columns.

The solver's dual leaves a residual ``r_F = (c + A^T y)_F`` of the order of its
tolerance on the free columns. Cancelling it exactly with one pivot move per column
(:mod:`~rldp_models.optimality.cancellation`) takes steps of that size on moves that may
have no room for them. First, in floating point, the residual is spread over all moves
(:mod:`~rldp_models.optimality.moves`) by the least change relative to their room:

    ``min sum_k (theta_k / w_k)^2  s.t.  E theta = -r_F``,  ``E = A_F^T V``,

whose solution is ``theta = W phi`` with ``phi`` the minimum-norm solution of
``E W phi = -r_F``, found from the augmented system ``[[I, (E W)^T], [E W, 0]]``
(better conditioned than the normal equations when the rooms span many orders of
magnitude; Björck, *Numerical Methods for Least Squares Problems*, 1996, Sections
1.1.4 and 2.5.3), ``w_k`` the room of move ``k``
(moves without room are left out; a zero-cone row's infinite room is capped). What is
left is a residual at rounding level, which the exact cancellation then removes with
steps that fit in almost any move's room.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg

from rldp_models.optimality.moves import Moves

ROOM_CAP = 1e6
"""Infinite room (zero-cone rows) counts as this many times the largest finite room."""


def least_change(A: sp.csc_matrix, free: np.ndarray, moves: Moves,
                 residual: np.ndarray) -> np.ndarray:
    """``V theta``: the correction of the dual described in the module docstring
    (zero when nothing is free or the weighted system is singular)."""
    if free.size == 0:
        return np.zeros(A.shape[0])
    finite = moves.room[np.isfinite(moves.room)]
    cap = ROOM_CAP * float(finite.max(initial=1.0))
    weight = np.minimum(moves.room, cap)
    keep = np.flatnonzero(weight > 0)
    effect = sp.csr_matrix(sp.csr_matrix(A[:, free]).T @ moves.V[:, keep])
    scaled = effect @ sp.diags(weight[keep])
    k = keep.size
    augmented = sp.csc_matrix(sp.bmat([[sp.eye(k), scaled.T], [scaled, None]]))
    rhs = np.concatenate([np.zeros(k), -residual[free]])
    try:
        phi = scipy.sparse.linalg.splu(augmented).solve(rhs)[:k]
    except RuntimeError:  # singular: leave the work to the exact cancellation
        return np.zeros(A.shape[0])
    if not np.all(np.isfinite(phi)):
        return np.zeros(A.shape[0])
    return np.asarray(moves.V[:, keep] @ (weight[keep] * phi)).ravel()
