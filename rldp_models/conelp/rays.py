"""Sets of extreme rays ``v_r`` of a cone, explicit or implicit.

The cone LP (:mod:`rldp_models.conelp.engine`) touches its rays only through
the :class:`RaySet` protocol: the products ``V^T y`` (pricing), the columns
it asks for (the master LP), and a few seed columns. So a ray set with
``2^k`` members need not be stored: :class:`StaircaseRays` computes ``V^T y``
for all ``2^k - 2`` staircase patterns from subset sums in ``O(2^k)``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from rldp_models.errors import InputError

MAX_STAIRCASE_SIZE = 24
"""Largest ``k`` for :class:`StaircaseRays`: pricing holds ``2^k`` floats (128 MB at 24)."""


class RaySet(Protocol):
    """What the cone-LP engine needs from a set of rays ``V[x, r]``."""

    @property
    def dimension(self) -> int:
        """Length of a ray (the number of input symbols)."""

    @property
    def count(self) -> int:
        """Number of rays."""

    def columns(self, index: np.ndarray) -> np.ndarray:
        """``V[:, index]`` as a dense ``(dimension, len(index))`` array."""

    def transpose_dot(self, y: np.ndarray) -> np.ndarray:
        """``V^T y`` for all rays, a vector of length :attr:`count`."""

    def seed(self) -> np.ndarray:
        """Indices of rays whose cone contains the LP's right-hand side (a feasible start)."""


@dataclass(frozen=True)
class ExplicitRays:
    """Rays stored as the columns of a dense matrix.

    Attributes
    ----------
    matrix : ndarray, shape (d, n)
        ``V[x, r]``.
    exact : bool
        True when the rays come from exact (rational) arithmetic.
    """

    matrix: np.ndarray
    exact: bool = field(default=False)

    @property
    def dimension(self) -> int:
        return self.matrix.shape[0]

    @property
    def count(self) -> int:
        return self.matrix.shape[1]

    def columns(self, index: np.ndarray) -> np.ndarray:
        return self.matrix[:, index]

    def transpose_dot(self, y: np.ndarray) -> np.ndarray:
        return self.matrix.T @ y

    def seed(self) -> np.ndarray:
        """All rays: an explicit set is small enough to start from in full."""
        return np.arange(self.count)


@dataclass(frozen=True)
class StaircaseRays:
    """The ``2^k - 2`` non-constant staircase patterns (Definition 3, Theorem 4).

    Ray ``r`` is ``S_A = 1 + (ratio - 1) 1_A`` for the subset ``A`` whose
    bitmask is ``r + 1`` (bit ``x`` set when ``x`` is in ``A``); the empty and
    the full set are left out (see :func:`staircase_rays`).

    Attributes
    ----------
    size : int
        ``k = |X|``, at least 2.
    ratio : float
        The pattern's high value, ``> 1`` (``e^eps`` rounded inward).
    """

    size: int
    ratio: float

    @property
    def dimension(self) -> int:
        return self.size

    @property
    def count(self) -> int:
        return 2**self.size - 2

    def columns(self, index: np.ndarray) -> np.ndarray:
        masks = np.asarray(index, dtype=np.int64) + 1
        bits = (masks[None, :] >> np.arange(self.size)[:, None]) & 1
        return 1.0 + (self.ratio - 1.0) * bits

    def transpose_dot(self, y: np.ndarray) -> np.ndarray:
        """``S_A . y = sum(y) + (ratio - 1) y(A)`` for every ``A``, via subset sums."""
        return np.sum(y) + (self.ratio - 1.0) * subset_sums(y)[1:-1]

    def seed(self) -> np.ndarray:
        """The singletons ``{x}``: randomized response, eq. (15), is their mix."""
        return (1 << np.arange(self.size)) - 1


def subset_sums(values: np.ndarray) -> np.ndarray:
    """``sums[mask] = sum of values[x] over the bits x of mask``, for all ``2^k`` masks."""
    sums = np.zeros(1)
    for value in np.asarray(values, dtype=float):
        sums = np.concatenate([sums, sums + value])
    return sums


def staircase_rays(size: int, ratio: float) -> ExplicitRays | StaircaseRays:
    """Extreme rays of the LDP cone ``{q >= 0 : q_x <= ratio q_x' for all x, x'}``.

    For ``ratio > 1`` and ``k >= 2`` these are the staircase patterns with
    entries in ``{1, ratio}`` (Definition 3) other than the two constant ones:
    ``1`` and ``ratio * 1`` are the same direction, and it is not extreme,
    since ``S_A + S_{A^c} = (1 + ratio) 1``. Dropping them leaves the LP of
    Theorem 4 unchanged, because ``mu(1) <= (mu(S_A) + mu(S_{A^c})) / (1 + ratio)``
    by sublinearity. For ``ratio == 1`` (``eps = 0``) or ``k == 1`` the cone is
    the single ray ``1``.

    Parameters
    ----------
    size : int
        ``k = |X| >= 1``.
    ratio : float
        ``>= 1``; pass ``inner_ratio(eps)`` for a guarantee-safe cone.
    """
    if size < 1:
        raise InputError(f"the input alphabet needs at least one symbol, got {size}")
    if not ratio >= 1.0:
        raise InputError(f"the staircase ratio must be >= 1, got {ratio}")
    if ratio == 1.0 or size == 1:
        return ExplicitRays(np.ones((size, 1)))
    if size > MAX_STAIRCASE_SIZE:
        raise InputError(f"the staircase LP enumerates 2^k patterns; k = {size} exceeds "
                         f"{MAX_STAIRCASE_SIZE} (use column generation)")
    return StaircaseRays(size, float(ratio))
