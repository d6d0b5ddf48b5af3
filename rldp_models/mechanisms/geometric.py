"""Truncated geometric mechanism (``extremal-mechanisms-ldp.txt`` Sec. 3.4).

Inputs are relabelled ``0..k-1`` and two-sided geometric noise with ratio
``r = e^(-eps/(k-1))`` is added, ``P(noise = d) = (1-r)/(1+r) r^|d|``, and the
result is clamped to ``[0, k-1]``. Folding the mass beyond the ends onto them
gives, for ``0 < y < k-1``, ``Q(y|x) = (1-r)/(1+r) r^|y-x|``, and at the ends
``Q(0|x) = r^x / (1+r)``, ``Q(k-1|x) = r^(k-1-x) / (1+r)``.

The paper prints the ratio as ``eps^(1/(k-1))``: that is a misprint, since for
``eps > 1`` it makes ``1 - r < 0`` (negative probabilities) and for ``eps < 1``
the level would be ``-log(eps)``, not ``eps``. The ratio ``e^(-eps/(k-1))`` is
the one that makes the mechanism eps-LDP, as below.

Privacy guarantee
-----------------
eps-LDP, with ``ldp_epsilon(Q) = eps``.

Proof sketch: for an interior column, ``Q(y|x) / Q(y|x') = r^(|y-x| - |y-x'|)``
and ``| |y-x| - |y-x'| | <= |x - x'| <= k-1``, so the ratio is at most
``r^-(k-1) = e^eps``; the end columns are ``r^x / (1+r)`` and ``r^(k-1-x) / (1+r)``,
with the same bound, attained at ``y = 0``, ``x = 0``, ``x' = k-1``. In doubles
the entries are rounded and each column's entries below the smallest double
``>= e^-eps max(column)`` (a rounding-level deficit) are raised to it, so the
stored matrix is eps-LDP exactly.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rldp_models.mechanisms.base import LevelOnSymbols
from rldp_models.exact import raise_column_minima


@dataclass(frozen=True)
class TruncatedGeometric(LevelOnSymbols):
    """Geometric noise of ratio ``e^(-eps/(k-1))`` on ``0..k-1``, clamped to the range."""

    def matrix(self) -> np.ndarray:
        step = self.eps / (self.k - 1)
        r = np.exp(-step)
        x = np.arange(self.k)
        distance = np.abs(x[:, None] - x[None, :])
        Q = -np.expm1(-step) / (1.0 + r) * np.exp(-step * distance)
        Q[:, 0] = np.exp(-step * x) / (1.0 + r)
        Q[:, -1] = np.exp(-step * (self.k - 1 - x)) / (1.0 + r)
        return raise_column_minima(Q, self.eps)


def truncated_geometric(eps: float, k: int) -> np.ndarray:
    """The matrix of the truncated geometric mechanism; see :class:`TruncatedGeometric`."""
    return TruncatedGeometric(eps, k).matrix()
