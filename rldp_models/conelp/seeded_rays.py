"""An explicit ray set whose column generation starts from a few rays, not all.

:class:`~rldp_models.conelp.rays.ExplicitRays` seeds the master LP with every
ray, so a large set becomes one big LP: at 25,866 rays of PolyOpt's cone
Gamma (``3 x 4``, ``eps = 0.5``) HiGHS spent about 100 s on it. Seeded with the
support of a nonnegative least-squares fit of the right-hand side (at most
``d`` rays), the engine's column generation prices all rays with one
matrix-vector product per iteration and keeps the master at a few dozen
columns.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy.optimize import nnls

from rldp_models.conelp.rays import ExplicitRays
from rldp_models.errors import InputError

FEW_RAYS = 64
"""Ray sets up to this size keep :class:`ExplicitRays`' full seed."""

RESIDUAL_TOLERANCE = 1e-9
"""Largest relative residual of the fit for its support to seed the master."""


@dataclass(frozen=True)
class SeededRays(ExplicitRays):
    """:class:`ExplicitRays` with a chosen seed (ray indices whose cone holds the rhs)."""

    start: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))

    def seed(self) -> np.ndarray:
        return self.start

    @classmethod
    def around(cls, rays: ExplicitRays, rhs: np.ndarray) -> ExplicitRays:
        """``rays`` seeded with the support of ``nnls(V, rhs)``, or unchanged if small or unfit.

        Raises
        ------
        InputError
            If ``rhs`` has the wrong length.
        """
        rhs = np.asarray(rhs, dtype=float)
        if rhs.shape != (rays.dimension,):
            raise InputError(f"rhs must have length {rays.dimension}")
        if rays.count <= FEW_RAYS:
            return rays
        weights, residual = nnls(rays.matrix, rhs)
        if residual > RESIDUAL_TOLERANCE * max(float(np.linalg.norm(rhs)), 1.0):
            return rays
        return cls(rays.matrix, rays.exact, np.flatnonzero(weights > 0))
