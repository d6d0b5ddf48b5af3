"""k-ary randomized response (``extremal-mechanisms-ldp.txt`` eq. (15)).

``Q(y|x) = e^eps / (k - 1 + e^eps)`` if ``y = x`` and ``1 / (k - 1 + e^eps)``
otherwise; it is the GRR of ``rldp-privacy-utility-tradeoff.txt`` eq. (16) and
the ``(X, eps)``-RR of ``utility-optimized-ldp.txt`` eq. (2).

Privacy guarantee
-----------------
eps-LDP, and no smaller level: ``ldp_epsilon(Q) = eps``.

Proof sketch: every column ``y`` takes two values, ``a = Q(y|y)`` on the
diagonal and ``b`` elsewhere, with ``a = e^eps b``; so for all ``x, x'``,
``Q(y|x) / Q(y|x') in {e^-eps, 1, e^eps}`` and the bound ``e^eps`` is attained
by ``(x, x') = (y, x')``. In doubles, ``b`` is rounded to nearest and ``a`` is
the largest double ``<= e^eps b`` (exactly), so the stored matrix meets
``eps``-LDP exactly and exceeds no tighter level by more than one ulp. RR is a
staircase mechanism (extremal paper eq. (9)) and is optimal for mutual
information and KL divergence at large ``eps`` (Theorems 8 and 14).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rldp_models.mechanisms.base import LevelOnSymbols
from rldp_models.privacy.exp_bounds import float_at_most_exp_times


@dataclass(frozen=True)
class RandomizedResponse(LevelOnSymbols):
    """k-ary randomized response with privacy level ``eps`` on ``k >= 2`` symbols."""

    def matrix(self) -> np.ndarray:
        off = 1.0 / (self.k - 1 + np.exp(self.eps))
        Q = np.full((self.k, self.k), off)
        np.fill_diagonal(Q, float_at_most_exp_times(self.eps, off))
        return Q


def randomized_response(eps: float, k: int) -> np.ndarray:
    """The matrix of k-ary randomized response (eq. (15)); see :class:`RandomizedResponse`."""
    return RandomizedResponse(eps, k).matrix()
