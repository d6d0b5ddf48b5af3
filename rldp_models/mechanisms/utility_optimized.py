"""Utility-optimized RR and RAPPOR (``utility-optimized-ldp.txt`` Definitions 3-4).

The paper copy lacks the formulas; these are the ones of ``DESIGN.md``
("Formulas missing from utility-optimized-ldp.txt"), confirmed there from a
public implementation. ``sensitive[x]`` marks the sensitive inputs ``X_S``
(at least one); the others form ``X_N``.

* uRR (``s = |X_S|``, ``c1 = e^eps / (s + e^eps - 1)``, ``c2 = 1 / (s + e^eps - 1)``,
  ``c3 = (e^eps - 1) / (s + e^eps - 1)``): output alphabet ``X``; a sensitive
  ``x`` goes to itself w.p. ``c1`` and to each other sensitive symbol w.p.
  ``c2``; a non-sensitive ``x`` goes to itself w.p. ``c3`` and to each sensitive
  symbol w.p. ``c2``. Protected outputs ``Y_P = X_S``.
* uRAP (``h = e^(eps/2)``): one bit per symbol, the one-hot encoding of ``x``
  perturbed bitwise; a sensitive bit has ``P(1|1) = h/(h+1)``,
  ``P(1|0) = 1/(h+1)``, a non-sensitive bit ``P(1|1) = 1 - 1/h``, ``P(1|0) = 0``.
  Protected outputs are those with every non-sensitive bit 0 (eq. (7)).

Privacy guarantee
-----------------
``(X_S, Y_P, eps)``-ULDP (Definition 2; Propositions 2-3), with
``uldp_epsilon(Q, sensitive) = eps``.

Proof sketch. Condition (4): an output outside ``Y_P`` (uRR: a non-sensitive
symbol; uRAP: a vector with a non-sensitive bit set) is reached only from the
non-sensitive input it names, since ``P(1|0) = 0`` on non-sensitive bits.
Condition (5), uRR: a protected column takes ``c1`` at ``x = y`` and ``c2``
everywhere else, and ``c1 = e^eps c2``. uRAP: for ``y in Y_P`` the ratio of two
sensitive inputs ``i, i'`` involves bits ``i`` and ``i'`` only, at most
``h * h = e^eps``; a sensitive ``i`` against a non-sensitive ``j`` gives at most
``h`` (bit ``i``) times ``1 / P(0|1) = h`` (bit ``j``); the reverse ratio is at
most ``h / h = 1``. Both bounds are attained. In doubles, uRR's ``c1`` is the
largest double ``<= e^eps c2``; uRAP's protected columns get the rounding
repair of :func:`~rldp_models.exact.raise_column_minima`; so the
stored matrices meet eps exactly.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from rldp_models.errors import InputError
from rldp_models.mechanisms.base import Mechanism, as_mechanism_epsilon
from rldp_models.mechanisms.unary_encoding import BitVectorMechanism, index_to_bits
from rldp_models.exact import float_at_most_exp_times, raise_column_minima


def as_sensitive_mask(sensitive: ArrayLike) -> tuple[bool, ...]:
    """A boolean mask with at least two symbols and at least one sensitive one."""
    mask = np.asarray(sensitive)
    if mask.dtype != bool or mask.ndim != 1:
        raise InputError("sensitive must be a 1-D boolean mask over the symbols")
    if mask.size < 2:
        raise InputError(f"need at least 2 symbols, got {mask.size}")
    if not mask.any():
        raise InputError("at least one symbol must be sensitive")
    return tuple(bool(v) for v in mask)


@dataclass(frozen=True)
class UtilityOptimizedRR(Mechanism):
    """uRR of level ``eps`` with sensitive symbols ``sensitive`` (Definition 3)."""

    eps: float
    sensitive: tuple[bool, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "eps", as_mechanism_epsilon(self.eps))
        object.__setattr__(self, "sensitive", as_sensitive_mask(self.sensitive))

    @property
    def n_inputs(self) -> int:
        return len(self.sensitive)

    def matrix(self) -> np.ndarray:
        sensitive = np.array(self.sensitive)
        denominator = sensitive.sum() + np.expm1(self.eps)
        c2 = 1.0 / denominator
        Q = np.where(np.broadcast_to(sensitive, (sensitive.size, sensitive.size)), c2, 0.0)
        np.fill_diagonal(Q, np.where(sensitive, float_at_most_exp_times(self.eps, c2),
                                     np.expm1(self.eps) / denominator))
        return Q


@dataclass(frozen=True, eq=False)
class UtilityOptimizedRAPPOR(BitVectorMechanism):
    """uRAP of level ``eps`` with sensitive symbols ``sensitive`` (Definition 4)."""

    eps: float
    sensitive: tuple[bool, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "eps", as_mechanism_epsilon(self.eps))
        object.__setattr__(self, "sensitive", as_sensitive_mask(self.sensitive))

    @property
    def n_inputs(self) -> int:
        return len(self.sensitive)

    def bit_probabilities(self) -> tuple[np.ndarray, np.ndarray]:
        h = np.exp(self.eps / 2)
        sensitive = np.array(self.sensitive)
        own = np.eye(self.n_inputs, dtype=bool)
        one_if_one = np.where(sensitive, h / (h + 1), -np.expm1(-self.eps / 2))
        one_if_zero = np.where(sensitive, 1 / (h + 1), 0.0)
        zero_if_one = np.where(sensitive, 1 / (h + 1), np.exp(-self.eps / 2))
        zero_if_zero = np.where(sensitive, h / (h + 1), 1.0)
        return (np.where(own, one_if_one[None, :], one_if_zero[None, :]),
                np.where(own, zero_if_one[None, :], zero_if_zero[None, :]))

    def protected(self) -> np.ndarray:
        """Mask of the protected outputs ``Y_P``: every non-sensitive bit is 0 (eq. (7))."""
        bits = index_to_bits(np.arange(2 ** self.n_bits), self.n_bits)
        return np.logical_not(np.any(bits[:, ~np.array(self.sensitive)], axis=1))

    def matrix(self) -> np.ndarray:
        return raise_column_minima(self.product_matrix(), self.eps, columns=self.protected())


def utility_optimized_rr(eps: float, sensitive: ArrayLike) -> np.ndarray:
    """The matrix of uRR; see :class:`UtilityOptimizedRR`."""
    return UtilityOptimizedRR(eps, as_sensitive_mask(sensitive)).matrix()


def utility_optimized_rappor(eps: float, sensitive: ArrayLike) -> np.ndarray:
    """The ``2^k``-column matrix of uRAP; see :class:`UtilityOptimizedRAPPOR`."""
    return UtilityOptimizedRAPPOR(eps, as_sensitive_mask(sensitive)).matrix()
