"""Pricing oracles: the ray of largest reduced cost without listing the rays.

Column generation (:mod:`rldp_models.conelp.engine`) asks, at a master dual
``lam``, for rays ``v`` of the cone with positive reduced cost per unit mass
``(mu(v) - lam.v) / (1.v)``, and for a proof that none is left. A
:class:`PricingOracle` answers both without enumerating the rays: it returns
a few good rays and a *proven* upper bound on the largest reduced cost over
every ray of the cone. When that bound is ``<= 0`` the master is optimal, and
for any bound ``delta``, ``lam + max(delta, 0) 1`` is dual feasible over all
rays, which is the optimality certificate (``mu(v) - (lam + delta 1).v <= 0``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import numpy as np


@dataclass(frozen=True)
class PricingResult:
    """What one call of a :class:`PricingOracle` proves and proposes.

    Attributes
    ----------
    rays : ndarray, shape (d, m)
        Candidate rays (columns), ``m >= 0``, each a ray of the cone.
    utilities : ndarray, shape (m,)
        ``mu`` of each candidate ray.
    upper_bound : float
        A proven upper bound on ``max_v (mu(v) - lam.v) / (1.v)`` over *all*
        rays ``v`` of the cone (not only the candidates).
    nodes : int
        Branch-and-bound nodes (or other work units) spent, for reporting.
    """

    rays: np.ndarray
    utilities: np.ndarray
    upper_bound: float
    nodes: int = 0


class PricingOracle(Protocol):
    """Finds rays of largest reduced cost and bounds the reduced cost of every ray."""

    @property
    def dimension(self) -> int:
        """Length of a ray (the number of input symbols)."""

    def seed(self) -> np.ndarray:
        """Rays, shape ``(d, m)``, whose cone contains the LP's right-hand side."""

    def price(self, dual: np.ndarray, count: int) -> PricingResult:
        """Up to ``count`` rays of largest reduced cost at ``dual`` and a bound over all rays."""
