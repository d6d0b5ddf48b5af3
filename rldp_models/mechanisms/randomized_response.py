"""Randomized response: k-ary RR (``extremal-mechanisms-ldp.txt`` eq. (15)) and secret RR, SRR
(``rldp-privacy-utility-tradeoff.txt`` Definition 5, eq. (18)).

Both keep the input with a raised probability and spread the rest evenly;
SRR is RR on ``X = S x U`` whose off-diagonal mass also depends on whether the
secret is kept.

k-ary randomized response
-------------------------
``Q(y|x) = e^eps / (k - 1 + e^eps)`` if ``y = x`` and ``1 / (k - 1 + e^eps)``
otherwise; it is the GRR of ``rldp-privacy-utility-tradeoff.txt`` eq. (16) and
the ``(X, eps)``-RR of ``utility-optimized-ldp.txt`` eq. (2).

Privacy guarantee: eps-LDP, and no smaller level: ``ldp_epsilon(Q) = eps``.

Proof sketch: every column ``y`` takes two values, ``a = Q(y|y)`` on the
diagonal and ``b`` elsewhere, with ``a = e^eps b``; so for all ``x, x'``,
``Q(y|x) / Q(y|x') in {e^-eps, 1, e^eps}`` and the bound ``e^eps`` is attained
by ``(x, x') = (y, x')``. In doubles, ``b`` is rounded to nearest and ``a`` is
the largest double ``<= e^eps b`` (exactly), so the stored matrix meets
``eps``-LDP exactly and exceeds no tighter level by more than one ulp. RR is a
staircase mechanism (extremal paper eq. (9)) and is optimal for mutual
information and KL divergence at large ``eps`` (Theorems 8 and 14).

Secret randomized response
--------------------------
On ``X = S x U`` (``a_1 = |S|``, ``a_2 = |U|``, ``a = a_1 a_2``, inputs and
outputs in row-major order ``x = s * a_2 + u``), with
``D = e^eps + e^-eps (a_2 - 1) + a - a_2``:
``Q((s',u')|(s,u)) = e^eps / D`` if ``(s',u') = (s,u)``, ``e^-eps / D`` if
``s' = s, u' != u``, and ``1 / D`` if ``s' != s``.

Privacy guarantee: ``(eps, P_X)``-RLDP, i.e. eps-LDP w.r.t. ``S`` under *every*
distribution on ``X`` (Lemma 6); equivalently (Proposition 4)
``Q(y|s,u) <= e^eps Q(y|s',u')`` for all ``s != s'``:
``ldp_epsilon(Q, groups=s) = eps``. As an ordinary LDP mechanism on ``X`` it is
only ``2 eps``-LDP (when ``a_2 >= 2``).

Proof sketch: column ``y = (s,u)`` takes ``hi = e^eps/D`` at ``x = y``,
``lo = e^-eps/D`` at the other inputs with secret ``s``, and ``mid = 1/D`` at all
inputs with another secret. A pair with different secrets compares ``mid``
with ``hi`` or ``lo`` (or ``mid`` with ``mid``), a ratio in
``{e^-eps, 1, e^eps}``; Proposition 4 (a two-point prior on ``(s,u), (s',u')``
shows necessity, averaging over ``P_{U|s}`` sufficiency) turns this into RLDP
over the whole simplex. In doubles ``mid`` is rounded to nearest, ``hi`` is
the largest double ``<= e^eps mid`` and ``lo`` the smallest double
``>= e^-eps mid``, so the stored matrix meets the bound exactly. SRR is
optimal for mutual information at large ``eps`` (Theorem 7).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rldp_models.mechanisms.base import LevelOnSymbols, Mechanism, as_mechanism_epsilon
from rldp_models.exact import float_at_least_exp_times, float_at_most_exp_times
from rldp_models.validation import as_size


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


@dataclass(frozen=True)
class SecretRandomizedResponse(Mechanism):
    """SRR of level ``eps`` on ``S x U``, ``n_secrets = |S| >= 2``, ``n_public = |U| >= 1``."""

    eps: float
    n_secrets: int
    n_public: int

    def __post_init__(self) -> None:
        object.__setattr__(self, "eps", as_mechanism_epsilon(self.eps))
        object.__setattr__(self, "n_secrets", as_size(self.n_secrets, "n_secrets"))
        object.__setattr__(self, "n_public", as_size(self.n_public, "n_public", minimum=1))

    @property
    def n_inputs(self) -> int:
        return self.n_secrets * self.n_public

    def secret_of(self) -> np.ndarray:
        """The secret ``s`` of each input ``x = s * n_public + u`` (the checker's ``groups``)."""
        return np.repeat(np.arange(self.n_secrets), self.n_public)

    def matrix(self) -> np.ndarray:
        a, a2 = self.n_inputs, self.n_public
        mid = 1.0 / (np.exp(self.eps) + np.exp(-self.eps) * (a2 - 1) + a - a2)
        secret = self.secret_of()
        same_secret = secret[:, None] == secret[None, :]
        Q = np.where(same_secret, float_at_least_exp_times(-self.eps, mid), mid)
        np.fill_diagonal(Q, float_at_most_exp_times(self.eps, mid))
        return Q


def secret_randomized_response(eps: float, n_secrets: int, n_public: int) -> np.ndarray:
    """The matrix of SRR (eq. (18)); see :class:`SecretRandomizedResponse`."""
    return SecretRandomizedResponse(eps, n_secrets, n_public).matrix()
