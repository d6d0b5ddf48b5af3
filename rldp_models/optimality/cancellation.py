"""Make a dual exactly feasible on the unbounded columns: ``(c + A^T y)_j = 0`` for ``j`` free.

A column ``x_j`` without a finite box contributes ``r_j x_j`` to the Lagrangian, which is
unbounded below unless the residual ``r_j`` is exactly zero. Following Jansson
("Rigorous lower and upper bounds in linear programming", SIAM J. Optim. 14, 2004,
Section 4) the residual is cancelled by a correction ``y + V theta`` along chosen moves
(:mod:`~rldp_models.optimality.moves`), one pivot move per free column, and the exact
solution of that square system ``E theta = -r_F`` (``E = A_F^T V``, enclosed entrywise
by :class:`~rldp_models.optimality.enclosure.IntervalMatrix`) is enclosed. Whether the
corrected dual stays in ``K*`` is proved afterwards
(:mod:`rldp_models.optimality.weak_duality`).

Pivots (:func:`choose_pivots`). Moves touching one free column not yet pivoted are
peeled round by round (a singleton ordering, as in sparse LU: Duff, Erisman and Reid,
*Direct Methods for Sparse Matrices*, 2017, Section 8.3); within a round a column takes
the move with the most room relative to the step ``-r_j / E_jk`` it would take alone
(infinite for a rising move taking a step up). The system is then block triangular:
the columns that never become singletons (the *core*, e.g. Theorem 2's ``t`` and
``c``, which share every move) are solved first, densely
(:func:`~rldp_models.optimality.dense.dense_solve`), then the rounds in reverse order
by one interval division per column. Each step encloses the exact solution for every
residual and matrix entry in the input enclosures, so no bound on an inverse is needed.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.linalg
import scipy.sparse as sp
import scipy.sparse.csgraph

from rldp_models.optimality.dense import SingularCore, dense_solve
from rldp_models.optimality.enclosure import Enclosure, IntervalMatrix, divide
from rldp_models.optimality.moves import Moves

CORE_LIMIT = 1500
"""Most free columns solved together densely (one core); a larger one is reported, not
solved."""
GOOD_RATIO = 4.0
"""A round peels only the columns whose move has this much room per step, while there
are any; the others wait for moves that appear once their neighbours are peeled."""
CORE_RANK_TOLERANCE = 1e-10
"""A core is rejected when its last QR pivot is below this fraction of the first."""


@dataclass(frozen=True)
class Pivots:
    """The square system: the effect ``E`` of the moves on the free columns (rows of ``E``
    are the free columns in the order of ``free``), each core's columns and moves (local
    indices; a core is a connected component of what peeling left), then each peeling
    round's."""

    free: np.ndarray
    effect: IntervalMatrix
    cores: tuple["Core", ...]
    rounds: tuple[tuple[np.ndarray, np.ndarray], ...]

    @property
    def core_columns(self) -> np.ndarray:
        """All core columns (local indices), the cores' concatenated."""
        return np.concatenate([core.columns for core in self.cores]) if self.cores \
            else np.zeros(0, dtype=np.int64)


@dataclass(frozen=True)
class Core:
    """One connected core: its columns and chosen moves (local indices) and the dense
    enclosure ``mid +- rad`` of ``E`` on them."""

    columns: np.ndarray
    moves: np.ndarray
    mid: np.ndarray
    rad: np.ndarray


class NoPivots(ValueError):
    """The free columns admit no square system (``columns`` names the culprits)."""

    def __init__(self, message: str, columns: np.ndarray) -> None:
        super().__init__(message)
        self.columns = columns


def choose_pivots(A: sp.csc_matrix, free: np.ndarray, moves: Moves,
                  residual: np.ndarray) -> Pivots:
    """Pivot moves for the columns ``free`` (module docstring) at a dual whose residual
    ``c + A^T y`` is ``residual`` (floats)."""
    effect = IntervalMatrix.product_of(sp.csr_matrix(A[:, free].T), sp.csc_matrix(moves.V))
    touches = sp.csc_matrix(effect.rad)  # the pattern: free columns x moves
    remaining = np.ones(free.size, dtype=bool)
    count = np.diff(touches.indptr).astype(np.int64)
    used = np.zeros(count.size, dtype=bool)
    by_column = sp.csr_matrix(effect.rad)
    rounds = []
    while True:
        candidates, local = _singletons(touches, remaining, count, used)
        if candidates.size == 0:
            break
        chosen, local, ratio = _best_per_column(candidates, local, effect, moves,
                                                residual[free])
        if (ratio >= GOOD_RATIO).any():
            chosen, local = chosen[ratio >= GOOD_RATIO], local[ratio >= GOOD_RATIO]
        if chosen.size == 0:
            break
        used[chosen] = True
        remaining[local] = False
        count -= np.bincount(by_column[local].indices, minlength=count.size)
        rounds.append((local, chosen))
    cores = tuple(_core(*block, moves, free)
                  for block in _components(effect, np.flatnonzero(remaining), used))
    return Pivots(free, effect, cores, tuple(rounds))


def _components(effect: IntervalMatrix, core: np.ndarray, used: np.ndarray
                ) -> list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]]:
    """The core split into columns connected through unused moves (each solved alone: a
    move touches columns of one component only, and peeled moves touch none), each with
    its candidate moves and the dense ``mid``, ``rad`` of ``E`` on them (gathered in one
    pass: a 10x20 robust program has 1,800 components)."""
    if core.size == 0:
        return []
    unused = np.flatnonzero(~used)
    rad = sp.coo_matrix(effect.rad[core][:, unused])
    mid = sp.coo_matrix(effect.mid[core][:, unused])
    pattern = sp.csr_matrix((np.ones(rad.nnz), (rad.row, rad.col)), shape=rad.shape)
    count, label = scipy.sparse.csgraph.connected_components(pattern @ pattern.T,
                                                             directed=False)
    rad_order, rad_bounds = _by_component(label[rad.row], count)
    mid_order, mid_bounds = _by_component(label[mid.row], count)
    rows_of = np.split(np.argsort(label, kind="stable"),
                       np.cumsum(np.bincount(label, minlength=count))[:-1])
    blocks = []
    for k in range(count):
        entries = rad_order[rad_bounds[k]:rad_bounds[k + 1]]
        candidates, local_cols = np.unique(rad.col[entries], return_inverse=True)
        dense_rad = np.zeros((rows_of[k].size, candidates.size))
        dense_rad[np.searchsorted(rows_of[k], rad.row[entries]), local_cols] = rad.data[entries]
        entries = mid_order[mid_bounds[k]:mid_bounds[k + 1]]
        dense_mid = np.zeros_like(dense_rad)
        dense_mid[np.searchsorted(rows_of[k], mid.row[entries]),
                  np.searchsorted(candidates, mid.col[entries])] = mid.data[entries]
        blocks.append((core[rows_of[k]], unused[candidates], dense_mid, dense_rad))
    return blocks


def _by_component(labels: np.ndarray, count: int) -> tuple[np.ndarray, np.ndarray]:
    """Entries sorted by component, and where each component's run starts and ends."""
    order = np.argsort(labels, kind="stable")
    return order, np.searchsorted(labels[order], np.arange(count + 1))


def _singletons(touches: sp.csc_matrix, remaining: np.ndarray, count: np.ndarray,
                used: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Unused moves touching exactly one remaining free column, and that column."""
    candidates = np.flatnonzero((count == 1) & ~used)
    if candidates.size == 0:
        return candidates, candidates
    sub = touches[:, candidates]
    keep = remaining[sub.indices]
    move_of_entry = np.repeat(np.arange(candidates.size), np.diff(sub.indptr))[keep]
    return candidates[move_of_entry], sub.indices[keep]


def _best_per_column(candidates: np.ndarray, local: np.ndarray, effect: IntervalMatrix,
                     moves: Moves, residual: np.ndarray
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One move per column: the largest ratio of room to the step it would take alone
    (returned with the moves and columns)."""
    entries = np.asarray(effect.mid[local, candidates]).ravel()
    radii = np.asarray(effect.rad[local, candidates]).ravel()
    usable = np.abs(entries) > 2.0 * radii
    with np.errstate(divide="ignore", invalid="ignore"):
        step = np.where(usable, -residual[local] / entries, np.inf)
        ratio = np.where(moves.rising[candidates] & (step >= 0), np.inf,
                         moves.room[candidates] / np.abs(step))
    ratio = np.where(usable, np.nan_to_num(ratio, nan=np.inf), -1.0)
    order = np.lexsort((-np.abs(entries), -ratio, local))
    first = np.ones(order.size, dtype=bool)
    first[1:] = local[order][1:] != local[order][:-1]
    first &= usable[order]
    return candidates[order][first], local[order][first], ratio[order][first]


def _core(columns: np.ndarray, candidates: np.ndarray, mid: np.ndarray, rad: np.ndarray,
          moves: Moves, free: np.ndarray) -> Core:
    """Moves for one core: column-pivoted QR of its block of ``E``, columns weighted by
    room, picks a well-conditioned square set (Golub and Van Loan, *Matrix
    Computations*, 2013, Section 5.4.2)."""
    if columns.size > CORE_LIMIT:
        raise NoPivots(f"{columns.size} unbounded columns are linked through all their "
                       f"moves (more than {CORE_LIMIT}: no triangular order)", free[columns])
    if candidates.size < columns.size:
        raise NoPivots("unbounded columns with fewer moves than columns to cancel",
                       free[columns])
    weight = np.clip(moves.room[candidates], 1e-6, 1.0)
    r, order = scipy.linalg.qr(mid * weight, mode="r", pivoting=True)  # Q is never used
    diagonal = np.abs(np.diag(r))
    if diagonal.size < columns.size or diagonal[-1] <= CORE_RANK_TOLERANCE * diagonal[0]:
        raise NoPivots("the residual on these unbounded columns cannot be cancelled: their "
                       "moves are rank deficient", free[columns])
    chosen = order[:columns.size]
    return Core(columns, candidates[chosen], mid[:, chosen], rad[:, chosen])


def solve(pivots: Pivots, residual: Enclosure) -> Enclosure:
    """An enclosure of ``theta`` (zero off the pivot moves) with ``residual + E theta = 0``
    on every free column (``residual`` in the order of the free columns)."""
    effect = pivots.effect
    theta = Enclosure.exact(np.zeros(effect.mid.shape[1]))
    for core in pivots.cores:
        theta = _with(theta, core.moves, _core_solve(pivots, core, residual))
    for local, chosen in reversed(pivots.rounds):
        rows = IntervalMatrix(effect.mid[local], effect.rad[local])
        current = residual[local] + rows.times(theta)
        pivot = Enclosure(np.asarray(effect.mid[local, chosen]).ravel(),
                          np.asarray(effect.rad[local, chosen]).ravel())
        theta = _with(theta, chosen, divide(Enclosure(-current.mid, current.rad), pivot))
    return theta


def _with(theta: Enclosure, index: np.ndarray, values: Enclosure) -> Enclosure:
    mid, rad = theta.mid.copy(), theta.rad.copy()
    mid[index], rad[index] = values.mid, values.rad
    return Enclosure(mid, rad)


def _core_solve(pivots: Pivots, core: Core, residual: Enclosure) -> Enclosure:
    """``E[core, core moves] theta = -r[core]``, enclosed (:func:`dense_solve`)."""
    target = residual[core.columns]
    try:
        return dense_solve(core.mid, core.rad, Enclosure(-target.mid, target.rad))
    except (SingularCore, np.linalg.LinAlgError) as error:
        raise NoPivots(f"the core of the unbounded columns is not proved invertible "
                       f"({error})", pivots.free[core.columns]) from error
