"""Directions along which a dual may be corrected while it stays in ``K*``.

Each move is a column of a sparse matrix ``V`` (rows of the program); a correction is
``y + V theta``. Its *room* says how far ``theta`` may go (in units of ``theta``) before
``y`` leaves ``K*`` to first order, and ``rising`` marks moves that lie in ``K*``
themselves (any ``theta >= 0`` keeps ``y`` in ``K*``, as ``K*`` is a convex cone):

* a zero-cone row: its unit vector, infinite room;
* an orthant row: its unit vector, room ``y_i``, rising;
* a second-order cone ``z = (h, t)`` well inside (``h - |t| >= INSIDE h``): the unit
  vector of each row, room ``h - |t|`` (the head's is rising); near its boundary: the
  cone's own dual ``z`` (scaling it by ``1 + theta`` keeps it in the cone for
  ``theta >= -1``: room 1, rising), rotations of the tail ``t_a e_b - t_b e_a`` (exactly
  orthogonal to ``t``, so they leave the cone only to second order) and the head
  (rising); the tangent space of the cone's boundary at ``z`` is spanned by the first
  two (Alizadeh and Goldfarb, "Second-order cone programming", Math. Program. 95, 2003,
  Section 4), so first-order corrections along it cost only a second-order move inward;
* an exponential or power cone: its own dual (room 1, rising), the tangent of the
  boundary through it that is orthogonal to it (``grad f x z`` for the cone's defining
  function ``f``; it leaves the cone only to second order) and an interior direction
  (rising).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from rldp_models.optimality.cones import EXP, NONNEG, POWER, SOC, ZERO, ConeBlocks, \
    interior_direction, tail_norms

INSIDE = 1e-3
"""A second-order cone's dual is treated as interior when ``h - |t| >= INSIDE h``."""
ROTATION_ROOM = 0.1
"""Room of a tail rotation, as a fraction of ``|t| / |w|`` (its second-order cost)."""


@dataclass(frozen=True)
class Moves:
    """``V`` (rows x moves, exact floats), ``room`` and ``rising`` per move."""

    V: sp.csc_matrix
    room: np.ndarray
    rising: np.ndarray


def moves(blocks: ConeBlocks, y: np.ndarray, frozen: np.ndarray | None = None) -> Moves:
    """The moves at the dual ``y`` (module docstring), none touching a ``frozen`` row."""
    parts = [_unit_rows(blocks, y), _soc_moves(blocks, y), _three_d_moves(blocks, y)]
    rows, cols, vals, room, rising = [], [], [], [], []
    offset = 0
    for part_rows, part_cols, part_vals, part_room, part_rising in parts:
        rows.append(part_rows)
        cols.append(part_cols + offset)
        vals.append(part_vals)
        room.append(part_room)
        rising.append(part_rising)
        offset += part_room.size
    V = sp.csc_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))),
                      shape=(y.size, offset))
    keep = np.ones(offset, dtype=bool)
    if frozen is not None and frozen.any():  # no move may touch a frozen row
        keep &= np.asarray(sp.csc_matrix((np.ones(V.nnz), V.indices, V.indptr),
                                         shape=V.shape).T @ frozen.astype(float)).ravel() == 0
    return Moves(sp.csc_matrix(V[:, keep]), np.concatenate(room)[keep],
                 np.concatenate(rising)[keep])


_Part = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]


def _unit_rows(blocks: ConeBlocks, y: np.ndarray) -> _Part:
    """Unit moves: zero and orthant rows, and every row of well-inside second-order cones."""
    head = blocks.starts
    norms = tail_norms(blocks, y)
    margin = y[head] - norms
    inside = (blocks.block_kind == SOC) & (margin >= INSIDE * y[head]) & (y[head] > 0)
    unit = np.flatnonzero((blocks.kind == ZERO) | (blocks.kind == NONNEG) |
                          inside[blocks.block])
    block = blocks.block[unit]
    room = np.where(blocks.kind[unit] == ZERO, np.inf,
                    np.where(blocks.kind[unit] == NONNEG, np.maximum(y[unit], 0.0),
                             margin[block]))
    rising = (blocks.kind[unit] == NONNEG) | (unit == head[block])
    index = np.arange(unit.size)
    return unit, index, np.ones(unit.size), room, rising


def _soc_moves(blocks: ConeBlocks, y: np.ndarray) -> _Part:
    """Near-boundary second-order cones: head, scaling, tail rotations (module docstring)."""
    head = blocks.starts
    norms = tail_norms(blocks, y)
    near = (blocks.block_kind == SOC) & ~((y[head] - norms >= INSIDE * y[head]) & (y[head] > 0))
    parts = [(head[near][:, None], np.ones((int(near.sum()), 1)), np.zeros(int(near.sum())),
              np.ones(int(near.sum()), dtype=bool))]
    for size in np.unique(blocks.sizes[near]):
        cones = np.flatnonzero(near & (blocks.sizes == size) & (norms > 0))
        span = head[cones][:, None] + np.arange(size)
        parts.append((span, y[span], np.ones(cones.size), np.ones(cones.size, dtype=bool)))
        parts += _rotations(span[:, 1:], y[span[:, 1:]], norms[cones])
    rows = [part[0] for part in parts]
    vals = [part[1] for part in parts]
    return _stack_rectangular(rows, vals, np.concatenate([part[2] for part in parts]),
                              np.concatenate([part[3] for part in parts]))


def _rotations(rows: np.ndarray, tails: np.ndarray, norms: np.ndarray
               ) -> list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]]:
    """``t_big e_a - t_a e_big`` for each tail entry ``a`` but the largest ``big``."""
    big = np.argmax(np.abs(tails), axis=1)
    cones = np.arange(tails.shape[0])
    parts = []
    for a in range(tails.shape[1]):
        which = cones[big != a]
        pair_rows = np.stack([rows[which, a], rows[which, big[which]]], axis=1)
        pair_vals = np.stack([tails[which, big[which]], -tails[which, a]], axis=1)
        room = ROTATION_ROOM * norms[which] / np.hypot(pair_vals[:, 0], pair_vals[:, 1])
        parts.append((pair_rows, pair_vals, room, np.zeros(which.size, dtype=bool)))
    return parts


def _stack_rectangular(rows: list[np.ndarray], vals: list[np.ndarray], room: np.ndarray,
                       rising: np.ndarray) -> _Part:
    """Moves given as equal-length rows per array (one move per row of each array)."""
    counts = np.concatenate([np.full(r.shape[0], r.shape[1]) for r in rows])
    cols = np.repeat(np.arange(counts.size), counts)
    return (np.concatenate([r.ravel() for r in rows]), cols,
            np.concatenate([v.ravel() for v in vals]), room, rising)


def _three_d_moves(blocks: ConeBlocks, y: np.ndarray) -> _Part:
    """Exponential and power cones: their own dual (room 1), a tangent of the boundary
    through it, and an interior direction (rising)."""
    inward = interior_direction(blocks)
    rows: list[np.ndarray] = []
    vals: list[np.ndarray] = []
    room: list[float] = []
    rising: list[bool] = []
    for b in np.flatnonzero((blocks.block_kind == EXP) | (blocks.block_kind == POWER)):
        span = np.arange(blocks.starts[b], blocks.starts[b] + 3)
        rows += [span, span]
        vals += [y[span], inward[span]]
        room += [1.0, 0.0]
        rising += [True, True]
        tangent = _tangent(y[span], blocks.block_kind[b],
                           float(blocks.alpha[np.searchsorted(blocks.of_kind(POWER), b)])
                           if blocks.block_kind[b] == POWER else 0.0)
        if tangent is not None:
            rows.append(span)
            vals.append(tangent)
            room.append(ROTATION_ROOM * float(np.linalg.norm(y[span]) /
                                              np.linalg.norm(tangent)))
            rising.append(False)
    return _stack(rows, vals, np.array(room), np.array(rising, dtype=bool))


def _tangent(z: np.ndarray, kind: int, alpha: float) -> np.ndarray | None:
    """``grad f x z``: orthogonal to the gradient of the cone's defining function ``f``
    (so tangent to the boundary through ``z``) and to ``z`` (so not a scaling); ``None``
    where ``f`` has no gradient (``u >= 0`` for the exponential cone's dual, ``u, v, w``
    not all nonzero for the power cone's)."""
    u, v, w = z
    if kind == EXP:
        if u >= 0:
            return None
        grad = np.array([np.exp(v / u) * (1 - v / u), np.exp(v / u), math.e])
    else:
        if u <= 0 or v <= 0 or w == 0:
            return None
        grad = np.array([alpha / u, (1 - alpha) / v, -1.0 / w])
    tangent = np.cross(grad, z)
    return tangent if np.all(np.isfinite(tangent)) and np.any(tangent) else None


def _stack(rows: list[np.ndarray], vals: list[np.ndarray], room: np.ndarray,
           rising: np.ndarray) -> _Part:
    if not rows:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, np.zeros(0), np.zeros(0), np.zeros(0, dtype=bool)
    cols = np.repeat(np.arange(len(rows)), [r.size for r in rows])
    return np.concatenate(rows), cols, np.concatenate(vals), room, rising
