"""Extreme rays of PolyOpt's Gamma from its block structure, without double description.

Write a column ``T`` in blocks ``T_s in R^U`` (one per secret). With the simplex
``D_s`` (Theorem 11, ``finer=False``) the vertices are ``l_s + c_s e_u``,
``l_s = P^min_{.|s}`` and ``c_s = 1 - sum_u l_{s,u}``; with
``g_{s,u}(T) = l_s.T_s + c_s T_{s,u}`` eq. (44) reads

``b_{s1} <= R a_{s2}`` for ``s1 != s2``, where ``a_s = min_u g_{s,u}``, ``b_s = max_u g_{s,u}``,

so a block meets the others only through ``(a_s, b_s)``.

**Lemma (block shapes).** If every ``c_s > 0``, each block ``T_s`` of an extreme
ray of Gamma is of one of two shapes:

1. positive, with at most two values: its minimum on ``M``, its maximum on ``H``;
2. zero on ``Z != {}`` and equal to its maximum on ``H``, except on at most one
   coordinate ``m`` with ``0 < T_{s,m} < max T_s`` and ``l_{s,m} > 0``.

*Proof.* Let ``T`` be extreme and ``k`` a coordinate of block ``s`` that is
neither ``0``, nor the block's maximum, nor (in shape 1) its minimum. No row
of Gamma is tight on ``T_{s,k}`` itself (its ``g_{s,k}`` lies strictly
between ``a_s`` and ``b_s``), so the tight rows see ``T_{s,k}`` only through
``L_s = l_s.T_s``. Move ``T_{s,k}`` by ``t`` and, in shape 1, every minimum
and maximum coordinate of the block by ``-dL / c_s`` (``dL`` solves
``dL (1 + l_s(min, max) / c_s) = l_{s,k} t``): every ``g_{s,u}`` of those
coordinates, hence every tight row, is unchanged. In shape 2 take two such
coordinates ``k, k'`` instead and move them by ``t``, ``-t l_{s,k} / l_{s,k'}``
(or ``k`` alone when ``l_{s,k} = 0``), which leaves ``L_s`` unchanged. The
move is not along ``T`` (the other blocks are not zero: a zero block forces
every block to zero), so with the rescaling that keeps ``p.T`` it is a
direction in which ``T`` is not extreme. []

A shape maps its value(s) ``(x, y)`` one-to-one and linearly to
``(a_s, b_s)`` and confines ``theta_s = b_s / a_s`` to an interval whose ends
lie in ``Theta_s = {1} u {1 + c_s / l_s(S) : S subset of U}``. An extreme ray
of Gamma of shapes ``pi`` is thus an extreme ray of ``K n prod_s sector(pi_s)``
with ``K = {b_i <= R a_j}``, where each block either sits at an end
``b_s = t a_s``, ``t in Theta_s``, or is free, and ``n - 1`` independent rows
of ``K`` are tight (``n``: the variables left). :func:`block_extreme_rays`
solves every such system, maps each solution back through every shape it
fits (a block at an end through the shapes ending there, a free block through
the two-value shapes whose range holds its ``theta``, ties within ``1e-9``
kept), and keeps the columns that are extreme rays of Gamma
(:func:`~rldp_models.conelp.double_description.polish_rays` verifies them).
At 3x4 this takes 0.4-1.5 s where double description takes up to minutes
(25,866 rays at eps 0.5: 49 s); ``tests/rldp_protocols/test_polyopt_block_rays.py`` checks it
against double description.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from functools import cached_property
from fractions import Fraction

import numpy as np

from rldp_models.conelp.double_description import RANK_GAP, polish_rays
from rldp_models.conelp.rays import ExplicitRays
from rldp_models.errors import InputError
from rldp_models.conelp.polyopt_gamma import gamma_rows, simplex_vertices

MAX_SYSTEMS = 2_000_000
"""Largest number of small linear systems :func:`block_extreme_rays` will solve."""

END_TOLERANCE = 1e-9
"""Relative distance within which a block's ``theta`` counts as at an interval end."""


@dataclass(frozen=True)
class BlockShapes:
    """The shapes of one block: masks, their maps ``(x, y) -> (a, b)`` and ``theta`` ranges.

    ``lower`` is the block's ``l_s``; ``high[k]``/``middle[k]`` mark the
    coordinates at ``x`` and at ``y``; a
    one-value shape has an empty ``middle``. ``forward[k]`` is the 2x2 map
    ``(x, y) -> (a, b)`` (its second column zero for one-value shapes);
    ``low[k] <= theta <= top[k]`` on the shape (``top`` may be ``inf``).
    """

    lower: np.ndarray
    high: np.ndarray
    middle: np.ndarray
    forward: np.ndarray
    low: np.ndarray
    top: np.ndarray

    @property
    def two_valued(self) -> np.ndarray:
        return self.middle.any(axis=1)

    def pinned(self, high_side: bool, low_side: bool) -> np.ndarray:
        """Which shapes cannot move inside the block while its tight rows stay tight.

        Tight rows of Gamma keep ``g`` equal across the block's maximum
        coordinates when the block is the high side of a tight pair
        (``high_side``), across its minimum ones when it is a low side, and
        zeros stay zero; the block is pinned when those equations and the
        values ``(a_s, b_s)`` the tight rows see determine ``T_s`` (otherwise
        ``T`` moves with every tight row kept, so it is not extreme). Computed
        once per block and side pattern.
        """
        return self._pinned_table[int(high_side), int(low_side)]

    @cached_property
    def _pinned_table(self) -> np.ndarray:
        """:meth:`pinned` for the four side patterns, ``[high_side, low_side]``."""
        return np.array([[self._pinned(h, lo) for lo in (False, True)] for h in (False, True)])

    def _pinned(self, high_side: bool, low_side: bool) -> np.ndarray:
        lower = self.lower
        size = lower.size
        c = 1.0 - float(lower.sum())
        pinned = np.zeros(self.high.shape[0], bool)
        for k, (high, middle) in enumerate(zip(self.high, self.middle)):
            zero = ~(high | middle)
            minimum = middle if (middle.any() and not zero.any()) else (zero if zero.any()
                                                                        else high)
            equations = [np.eye(size)[z] for z in np.flatnonzero(zero)]
            for side, group in ((high_side, high), (low_side, minimum)):
                members = np.flatnonzero(group)
                if side and members.size:
                    equations += [np.eye(size)[u] - np.eye(size)[members[0]] for u in members[1:]]
                    equations.append(c * np.eye(size)[members[0]] + lower)
            pinned[k] = bool(equations) and np.linalg.matrix_rank(np.array(equations)) == size
        return pinned

    def ends(self) -> np.ndarray:
        """``Theta_s``: the finite ends of every shape's range, distinct and sorted."""
        values = np.concatenate([self.low, self.top[np.isfinite(self.top)]])
        values = np.sort(values)
        keep = np.concatenate([[True], np.diff(values) > END_TOLERANCE * values[1:]])
        return values[keep]


def block_shapes(lower: np.ndarray) -> BlockShapes:
    """Every shape of the lemma for a block with ``l_s = lower`` (``c_s = 1 - sum lower``)."""
    size = lower.size
    c = 1.0 - float(lower.sum())
    high, middle, forward, low, top = [], [], [], [], []

    def add(h: np.ndarray, m: np.ndarray, matrix: list, theta: tuple[float, float]) -> None:
        high.append(h)
        middle.append(m)
        forward.append(matrix)
        low.append(theta[0])
        top.append(theta[1])

    def ratio(mass: float) -> float:
        return (mass + c) / mass if mass > 0 else np.inf

    for mask in itertools.product((False, True), repeat=size):
        h = np.array(mask)
        if not h.any():
            continue
        s_h = float(lower[h].sum())
        rest = ~h
        if not rest.any():
            add(h, rest, [[1.0, 0.0], [1.0, 0.0]], (1.0, 1.0))
            continue
        s_m = float(lower[rest].sum())
        add(h, rest, [[s_h, s_m + c], [s_h + c, s_m]], (1.0, ratio(s_h)))
        if s_h > 0:
            add(h, np.zeros(size, bool), [[s_h, 0.0], [s_h + c, 0.0]],
                (ratio(s_h), ratio(s_h)))
        for m in np.flatnonzero(rest):
            if lower[m] > 0 and rest.sum() > 1:
                one = np.zeros(size, bool)
                one[m] = True
                add(h, one, [[s_h, lower[m]], [s_h + c, lower[m]]],
                    (ratio(s_h + lower[m]), ratio(s_h)))
    return BlockShapes(lower, np.array(high), np.array(middle), np.array(forward),
                       np.array(low), np.array(top))


def block_extreme_rays(lower: np.ndarray, ratio: Fraction) -> ExplicitRays:
    """Extreme rays of Gamma (eq. 44, simplex ``D_s``) by the block lemma, scaled to sum 1.

    Parameters
    ----------
    lower : ndarray, shape (|S|, |U|)
        ``P^min_{u|s}`` as :func:`~.polyopt_gamma.conditional_bounds` gives them
        (each row must sum to less than 1).
    ratio : Fraction
        ``R``, the inner-rounded ``e^eps`` of :func:`~.polyopt_gamma.gamma_rows`.

    Returns
    -------
    ExplicitRays
        The rays, verified extreme in Gamma's rows (``gamma_rows`` in floats)
        by :func:`~rldp_models.conelp.double_description.polish_rays`.

    Raises
    ------
    InputError
        If a row of ``lower`` sums to 1 or more, or the enumeration would
        solve more than :data:`MAX_SYSTEMS` systems.
    rldp_models.conelp.double_description.FloatDoubleDescriptionError
        If a column found fails verification.
    """
    lower = np.asarray(lower, dtype=float)
    if not _valid_blocks(lower):
        raise InputError("each block's lower bounds must be nonnegative and sum to less than 1")
    rows = gamma_rows([simplex_vertices(row) for row in lower], ratio).astype(float)
    rows /= np.linalg.norm(rows, axis=1, keepdims=True)
    shapes = [block_shapes(row) for row in lower]
    a, b, fixed = _block_level_rays(shapes, float(ratio))
    pairs = _tight_pairs(a, b, float(ratio))
    ray, columns = _columns(shapes, a, b, fixed, pairs)
    columns = columns / columns.sum(axis=0)
    _, first = np.unique(np.round(columns, 11), axis=1, return_index=True)
    first = np.sort(first)
    tight = _tight_rows(columns[:, first], pairs[ray[first]], lower.shape)
    return ExplicitRays(polish_rays(rows, columns[:, first], keep_extreme=True, tight=tight))


def _tight_pairs(a: np.ndarray, b: np.ndarray, ratio: float) -> np.ndarray:
    """``(N, n, n)``: whether ``b_i = R a_j`` (to 1e-9 relative), per ray and pair ``(i, j)``."""
    n = a.shape[1]
    high, low = b[:, :, None], ratio * a[:, None, :]
    tight = np.abs(low - high) <= 1e-9 * np.maximum(low, high)
    tight[:, np.arange(n), np.arange(n)] = False
    return tight


def _tight_rows(columns: np.ndarray, pairs: np.ndarray, shape: tuple[int, int]) -> np.ndarray:
    """``(m, N)``: the rows of :func:`~.polyopt_gamma.gamma_rows` tight at each column.

    Row ``(s1, s2, u1, u2)`` reads ``R g_{s2,u2} - g_{s1,u1} >= 0`` and
    ``g_{s1,u1} <= b_{s1} <= R a_{s2} <= R g_{s2,u2}``, so it is tight exactly
    when the pair is and ``u1`` is a largest, ``u2`` a smallest coordinate of
    its block (compared within the block, relative to its largest value).
    """
    n_s, n_u = shape
    blocks = columns.T.reshape(-1, n_s, n_u)
    top = blocks.max(axis=2, keepdims=True)
    largest = blocks >= top * (1 - 1e-9)
    smallest = blocks <= blocks.min(axis=2, keepdims=True) * (1 + 1e-9)
    tight = [pairs[:, s1, s2, None, None] & largest[:, s1, :, None] & smallest[:, s2, None, :]
             for s1, s2 in itertools.permutations(range(n_s), 2)]
    return np.concatenate([t.reshape(len(blocks), -1) for t in tight], axis=1).T


def _block_level_rays(shapes: list[BlockShapes], ratio: float
                      ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every ``(a, b)`` solving a system of the lemma's enumeration, and which blocks sat at an end.

    Returns ``a``, ``b`` and ``fixed`` (bool), each ``(N, |S|)``.
    """
    n = len(shapes)
    ends = [s.ends() for s in shapes]
    pairs = [(i, j) for i in range(n) for j in range(n) if i != j]
    _check_size(ends)
    found_a, found_b, found_fixed = [], [], []
    for free in itertools.product((False, True), repeat=n):
        free = np.array(free)
        theta = _end_combinations(ends, free)
        extra = {s: n + k for k, s in enumerate(np.flatnonzero(free))}
        width = n + len(extra)
        for tight in itertools.combinations(pairs, width - 1):
            system = np.zeros((theta.shape[0], width - 1, width))
            for r, (i, j) in enumerate(tight):
                system[:, r, j] += ratio
                if free[i]:
                    system[:, r, extra[i]] -= 1.0
                else:
                    system[:, r, i] -= theta[:, i]
            a, b = _null_rays(system, theta, extra)
            keep = _feasible(a, b, ratio)
            found_a.append(a[keep])
            found_b.append(b[keep])
            found_fixed.append(np.broadcast_to(~free, a[keep].shape))
    return np.vstack(found_a), np.vstack(found_b), np.vstack(found_fixed)


def block_enumeration_applies(lower: np.ndarray) -> bool:
    """Whether :func:`block_extreme_rays` takes ``lower``: valid blocks, few enough systems."""
    lower = np.asarray(lower, dtype=float)
    if not _valid_blocks(lower):
        return False
    return _system_count([block_shapes(row).ends() for row in lower]) <= MAX_SYSTEMS


def _valid_blocks(lower: np.ndarray) -> bool:
    """A 2-D array of nonnegative lower bounds, each row summing to less than 1 (``c_s > 0``)."""
    return lower.ndim == 2 and bool(np.all(lower >= 0)) and bool(np.all(lower.sum(axis=1) < 1.0))


def _system_count(ends: list[np.ndarray]) -> int:
    """How many systems the enumeration solves for blocks with these ``Theta_s``."""
    n = len(ends)
    total = 0
    for free in itertools.product((False, True), repeat=n):
        combos = int(np.prod([e.size for e, f in zip(ends, free) if not f]))
        total += combos * math.comb(n * (n - 1), n + sum(free) - 1)
    return total


def _check_size(ends: list[np.ndarray]) -> None:
    """Refuse an enumeration beyond :data:`MAX_SYSTEMS` systems."""
    total = _system_count(ends)
    if total > MAX_SYSTEMS:
        raise InputError(f"the block enumeration of Gamma would solve {total} systems "
                         f"(limit {MAX_SYSTEMS})")


def _end_combinations(ends: list[np.ndarray], free: np.ndarray) -> np.ndarray:
    """Every choice of an end ``theta_s`` for the blocks not free, one row each (1 if free)."""
    choices = [ends[s] if not free[s] else np.ones(1) for s in range(len(ends))]
    grids = np.meshgrid(*choices, indexing="ij")
    return np.stack([g.ravel() for g in grids], axis=1)


def _null_rays(system: np.ndarray, theta: np.ndarray, extra: dict[int, int]
               ) -> tuple[np.ndarray, np.ndarray]:
    """Null vectors of the systems as ``(a, b)``, signed so that ``sum a >= 0``.

    ``extra`` maps each free block to its ``b`` variable's column; the other
    blocks have ``b = theta a``. Systems without full row rank get ``a = 0``
    (which :func:`_feasible` rejects): their solutions are not rays.
    """
    _, singular, vh = np.linalg.svd(system)
    null = vh[:, -1, :]
    n = theta.shape[1]
    sign = np.where(null[:, :n].sum(axis=1, keepdims=True) < 0, -1.0, 1.0)
    a = null[:, :n] * sign
    b = theta * a
    for s, column in extra.items():
        b[:, s] = null[:, column] * sign[:, 0]
    a[singular[:, -1] <= RANK_GAP * np.maximum(singular[:, 0], 1.0)] = 0.0
    return a, b


def _feasible(a: np.ndarray, b: np.ndarray, ratio: float) -> np.ndarray:
    """Rays with every ``a_s > 0``, ``b_i <= R a_j`` and ``b_s >= a_s``, each to 1e-9 relative.

    The slack keeps rays on ties (a superset is harmless: what is not an
    extreme ray of Gamma is dropped when the columns are polished).
    """
    scale = np.abs(a).max(axis=1, initial=0.0)
    positive = np.all(a > 1e-14 * scale[:, None], axis=1) & (scale > 0)
    high, low = b[:, :, None], ratio * a[:, None, :]
    within = (low - high >= -1e-9 * np.maximum(np.abs(low), np.abs(high))) | np.eye(a.shape[1],
                                                                                  dtype=bool)
    ordered = np.all(b >= a * (1 - 1e-9), axis=1)
    return positive & within.all(axis=(1, 2)) & ordered


def _columns(shapes: list[BlockShapes], a: np.ndarray, b: np.ndarray, fixed: np.ndarray,
             pairs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Columns ``T`` for every ``(a, b)`` and every combination of shapes it fits.

    Returns the index of each column's ``(a, b)`` and the columns.
    """
    high_side, low_side = pairs.any(axis=2), pairs.any(axis=1)
    ray = np.arange(a.shape[0])
    partial = np.zeros((a.shape[0], 0))
    for s, shape in enumerate(shapes):
        owner, vectors = _block_candidates(shape, a[:, s], b[:, s], fixed[:, s],
                                           high_side[:, s], low_side[:, s])
        ray, partial = _extended(ray, partial, owner, vectors)
    return ray, partial.T


def _extended(ray: np.ndarray, partial: np.ndarray, owner: np.ndarray, vectors: np.ndarray
              ) -> tuple[np.ndarray, np.ndarray]:
    """Each partial column (of ``ray``) followed by each block vector of the same ray.

    ``owner`` (sorted) names the ray of each row of ``vectors``.
    """
    start = np.searchsorted(owner, ray, side="left")
    counts = np.searchsorted(owner, ray, side="right") - start
    first = np.repeat(np.arange(ray.size), counts)
    offset = np.arange(first.size) - np.repeat(np.cumsum(counts) - counts, counts)
    chosen = np.repeat(start, counts) + offset
    return ray[first], np.hstack([partial[first], vectors[chosen]])


def _block_candidates(shape: BlockShapes, a: np.ndarray, b: np.ndarray,
                      fixed: np.ndarray, high_side: np.ndarray, low_side: np.ndarray
                      ) -> tuple[np.ndarray, np.ndarray]:
    """The distinct block vectors of the pinned shapes each ``(a_s, b_s)`` fits, per the lemma.

    Returns the ray index of each vector (sorted) and the vectors, one per row.
    """
    theta = b / a

    def near(end: np.ndarray) -> np.ndarray:
        return np.abs(end[None, :] - theta[:, None]) <= END_TOLERANCE * theta[:, None]

    two = shape.two_valued[None, :]
    at_end = near(shape.low) | (two & near(np.where(np.isfinite(shape.top), shape.top, -1.0)))
    within = ((theta[:, None] >= shape.low[None, :] * (1 - END_TOLERANCE))
              & (theta[:, None] <= shape.top[None, :] * (1 + END_TOLERANCE)))
    fits = np.where(fixed[:, None], at_end, within & two)
    for h in (False, True):
        for lo in (False, True):
            fits[(high_side == h) & (low_side == lo)] &= shape.pinned(h, lo)
    x, y = _values(shape, a, b)
    fits &= (x > 0) & (y >= -1e-12 * x) & (y <= x * (1 + 1e-12))
    y = np.where(y <= 1e-12 * x, 0.0, np.where(y >= x * (1 - 1e-12), x, y))
    owner, which = np.nonzero(fits)
    vectors = (x[owner, which, None] * shape.high[which]
               + y[owner, which, None] * shape.middle[which])
    _, keep = np.unique(np.column_stack([owner, np.round(vectors / a[owner, None], 11)]), axis=0,
                        return_index=True)
    keep = np.sort(keep)
    return owner[keep], vectors[keep]


def _values(shape: BlockShapes, a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(x, y)`` with ``forward (x, y) = (a, b)``, per ray and shape (``y = 0`` on one value)."""
    two = shape.two_valued
    inverse = np.zeros_like(shape.forward)
    inverse[two] = np.linalg.inv(shape.forward[two])
    inverse[~two, 0, 0] = 1.0 / shape.forward[~two, 0, 0]
    x = np.multiply.outer(a, inverse[:, 0, 0]) + np.multiply.outer(b, inverse[:, 0, 1])
    y = np.multiply.outer(a, inverse[:, 1, 0]) + np.multiply.outer(b, inverse[:, 1, 1])
    return x, y
