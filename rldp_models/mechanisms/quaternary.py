"""Quaternary mechanism: (eps, delta)-LDP on a binary input (``extremal-mechanisms-ldp.txt`` (24)).

``X = {0, 1}``, ``Y = {0, 1, 2, 3}``: with probability ``delta`` the input is
released in the clear (``Y = X``), otherwise the binary mechanism is applied
(``Y = 2`` w.p. ``1/(1+e^eps)`` from ``x = 0`` and ``e^eps/(1+e^eps)`` from ``x = 1``;
``Y = 3`` the reverse). Theorem 18: it maximises every utility obeying the
data processing inequality over all (eps, delta)-LDP mechanisms on a binary
input.

Privacy guarantee
-----------------
(eps, delta)-LDP (eq. (23)), with ``approximate_ldp_delta(Q, eps) = delta``;
for ``delta > 0`` it is not eps'-LDP for any finite ``eps'``.

Proof sketch: for ``x != x'`` the set maximising ``Q(A|x) - e^eps Q(A|x')`` is
``A = {x}`` (the clear-text output, ``Q(x|x') = 0``) plus the outputs with
``Q(y|x) > e^eps Q(y|x')``; on outputs 2 and 3 the ratio is at most ``e^eps``,
so the maximum is ``delta``, attained by ``A = {x}``. In doubles ``b =
(1-delta)/(1+e^eps)`` is rounded to nearest and the large entry is the largest
double ``<= e^eps b``, so outputs 2 and 3 add exactly nothing and the stored
matrix is (eps, delta)-LDP exactly. The error region of the mechanism equals
that of (eps, delta)-LDP (Theorem 19), which is why it dominates (Theorem 20).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rldp_models.mechanisms.base import Mechanism, as_mechanism_epsilon
from rldp_models.privacy.exp_bounds import float_at_most_exp_times
from rldp_models.validation import as_probability


@dataclass(frozen=True)
class Quaternary(Mechanism):
    """The quaternary mechanism of eq. (24) with levels ``eps`` and ``delta``."""

    eps: float
    delta: float

    def __post_init__(self) -> None:
        object.__setattr__(self, "eps", as_mechanism_epsilon(self.eps))
        object.__setattr__(self, "delta", as_probability(self.delta, "delta"))

    @property
    def n_inputs(self) -> int:
        return 2

    def matrix(self) -> np.ndarray:
        low = (1.0 - self.delta) / (1.0 + np.exp(self.eps))
        high = float_at_most_exp_times(self.eps, low)
        return np.array([[self.delta, 0.0, low, high],
                         [0.0, self.delta, high, low]])


def quaternary(eps: float, delta: float) -> np.ndarray:
    """The matrix of the quaternary mechanism (eq. (24)); see :class:`Quaternary`."""
    return Quaternary(eps, delta).matrix()
