"""The whole probability simplex: the uncertainty set when nothing is known.

It is what a chi-square set projects to for a secret value ``s`` with no
records (``Phat_s = 0``): the conditional ``P_{U|s}`` is then unconstrained.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from rldp_models.uncertainty.intersectable import Intersectable


@dataclass(frozen=True)
class Simplex(Intersectable):
    """The probability simplex over ``size`` symbols."""

    size: int

    def contains(self, p: np.ndarray, tol: float = 0.0) -> bool:
        """Whether ``p`` is a probability vector (to ``tol``)."""
        p = np.asarray(p, dtype=float)
        return bool(p.shape == (self.size,) and np.all(p >= -tol) and abs(p.sum() - 1) <= tol)

    def support(self, v: np.ndarray) -> float:
        """``sup_{p in simplex} v.p = max_x v_x``."""
        return float(np.max(v))

    def worst_case(self, v: np.ndarray) -> np.ndarray:
        """A maximiser of ``v.p``: the vertex at ``argmax v``."""
        p = np.zeros(self.size)
        p[int(np.argmax(v))] = 1.0
        return p
