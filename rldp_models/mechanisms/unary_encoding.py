"""Mechanisms that release a vector of independent bits, and unary encoding
``UE^{kappa, lambda}`` (``rldp-privacy-utility-tradeoff.txt`` eq. (90)), the one every
bit-vector mechanism here builds on (uRAP, :mod:`rldp_models.mechanisms.utility_optimized`,
is unary encoding on the sensitive symbols).

Bit vectors
-----------
Input ``x`` yields bits ``E_0, ..., E_{d-1}``, independent, with
``P(E_j = 1 | x) = B1[x, j]`` and ``P(E_j = 0 | x) = B0[x, j]``. Both are kept:
``B0 = 1 - B1`` computed in doubles loses all relative precision when ``B1``
is close to 1, and the matrix entries (products of the ``B``) must be
relatively accurate for their ratios to meet the privacy level.

As a matrix the output alphabet is ``{0,1}^d``; output ``y`` is the bit
vector read as a binary number with ``E_0`` the most significant bit (so
``y = 2^(d-1)`` is ``(1, 0, ..., 0)`` and the labels
``"10...0"`` sort in index order). The matrix has ``2^d`` columns and is only
offered for ``d <= MAX_MATRIX_BITS``; the per-bit sampler works for any ``d``.

Unary encoding
--------------
Input ``s in 0..k-1`` yields ``k`` independent bits with
``P(E_s' = 1) = kappa`` if ``s' = s`` and ``lambda`` otherwise,
``0 <= lambda <= kappa <= 1``. The RLDP paper's UE-CR (Protocol 3) uses UE
with free ``(kappa, lambda)``, optimised jointly with ``eps_2`` (Sec. VII-B,
end; Sec. VIII-C); it quotes three popular settings from Wang et al. (2017):

* ``symmetric`` -- ``(e^(eps/2) / (e^(eps/2) + 1), 1 / (e^(eps/2) + 1))``:
  symmetric unary encoding (SUE), the basic one-time RAPPOR; each bit is
  flipped with the same probability.
* ``optimized`` -- ``(1/2, 1 / (e^eps + 1))``: optimised unary encoding (OUE),
  the variance-minimising choice of Wang et al.; the own bit is a fair coin.
* ``fair-others`` -- ``(e^eps / (e^eps + 1), 1/2)``: OUE's parameters mirrored,
  ``(1 - lambda_OUE, 1 - kappa_OUE)``; every other bit is a fair coin and the
  own bit is binary randomized response. The paper lists it without a name.

Privacy guarantee: eps-LDP with ``e^eps = kappa (1 - lambda) / (lambda (1 - kappa))`` (Sec. VII-B),
and no smaller level; all three settings give exactly the requested ``eps``.

Proof sketch: the bit vectors of inputs ``s`` and ``s'`` differ only in bits
``s`` and ``s'``, so ``Q(y|s) / Q(y|s')`` is the product of the ratios of those
two bits, at most ``kappa/lambda * (1-lambda)/(1-kappa)``, attained when
``E_s = 1`` and ``E_s' = 0``. In doubles, ``1 - kappa`` and ``1 - lambda`` are kept
to full relative precision (not formed by subtraction), the product matrix is
rounded, and each column's entries below the smallest double
``>= e^-eps max(column)`` (a rounding-level deficit) are raised to it, so the
stored matrix is eps-LDP exactly; the sampler draws each bit with
``rng.random() < p``.
"""

from __future__ import annotations

from abc import abstractmethod
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from rldp_models.errors import InputError
from rldp_models.mechanisms.base import (Mechanism, as_generator, as_input_indices,
                                         as_mechanism_epsilon)
from rldp_models.exact import raise_column_minima
from rldp_models.validation import as_probability, as_size


MAX_MATRIX_BITS = 16
"""Largest number of bits for which :meth:`BitVectorMechanism.matrix` builds ``2^d`` columns."""


class BitVectorMechanism(Mechanism):
    """A mechanism releasing independent bits with probabilities :meth:`bit_probabilities`."""

    @abstractmethod
    def bit_probabilities(self) -> tuple[np.ndarray, np.ndarray]:
        """``(B1, B0)``: ``P(E_j = 1 | x)`` and ``P(E_j = 0 | x)``, each ``(n_inputs, n_bits)``."""

    @property
    def n_bits(self) -> int:
        return self.bit_probabilities()[0].shape[1]

    def product_matrix(self) -> np.ndarray:
        """``Q[x, y] = prod_j P(E_j = bit_j(y) | x)`` in floating point, before any repair.

        Raises
        ------
        InputError
            If ``n_bits > MAX_MATRIX_BITS``.
        """
        ones, zeros = self.bit_probabilities()
        if ones.shape[1] > MAX_MATRIX_BITS:
            raise InputError(f"the matrix has 2^{ones.shape[1]} columns; use the per-bit "
                             f"sampler beyond {MAX_MATRIX_BITS} bits")
        patterns = index_to_bits(np.arange(2 ** ones.shape[1]), ones.shape[1])
        Q = np.ones((ones.shape[0], patterns.shape[0]))
        for j in range(ones.shape[1]):
            Q *= np.where(patterns[None, :, j], ones[:, j, None], zeros[:, j, None])
        return Q

    def sample_bits(self, x: ArrayLike, rng: np.random.Generator | int) -> np.ndarray:
        """Independent bits for each input: boolean array of shape ``x.shape + (n_bits,)``."""
        x = as_input_indices(x, self.n_inputs)
        rng = as_generator(rng)
        ones = self.bit_probabilities()[0]
        return rng.random(x.shape + (ones.shape[1],)) < ones[x]

    def sample(self, x: ArrayLike, rng: np.random.Generator | int) -> np.ndarray:
        """Output indices (columns of :meth:`matrix`): :meth:`sample_bits` packed by
        :func:`bits_to_index`."""
        return bits_to_index(self.sample_bits(x, rng))


def bits_to_index(bits: ArrayLike) -> np.ndarray:
    """Output index of bit vectors (last axis), ``E_0`` most significant."""
    bits = np.asarray(bits, dtype=bool)
    if bits.shape[-1] > 62:
        raise InputError(f"{bits.shape[-1]} bits do not fit an int64 index")
    weights = 2 ** np.arange(bits.shape[-1] - 1, -1, -1, dtype=np.int64)
    return bits.astype(np.int64) @ weights


def index_to_bits(y: ArrayLike, n_bits: int) -> np.ndarray:
    """Bit vectors (last axis) of output indices, inverse of :func:`bits_to_index`."""
    y = np.asarray(y, dtype=np.int64)
    return (y[..., None] >> np.arange(n_bits - 1, -1, -1)) & 1 == 1


def bit_labels(n_bits: int) -> list[str]:
    """Labels ``"00..0", ..., "11..1"`` of the ``2^n_bits`` outputs, in index order."""
    return [format(y, f"0{n_bits}b") for y in range(2 ** n_bits)]


SETTINGS = ("symmetric", "optimized", "fair-others")
"""Named ``(kappa, lambda)`` settings of Sec. VII-B."""

LEVEL_TOLERANCE = 1e-9
"""Slack (relative and absolute) allowed between a given ``eps`` and the parameters' level."""


@dataclass(frozen=True, eq=False)
class UnaryEncoding(BitVectorMechanism):
    """``UE^{kappa, lambda}`` on ``k`` symbols.

    Parameters
    ----------
    kappa, lam : float
        ``P(own bit = 1)`` and ``P(other bit = 1)``, ``0 <= lam <= kappa <= 1``.
    k : int
        Number of symbols, ``>= 2``.
    eps : float, optional
        The privacy level; by default :func:`encoding_level` of the parameters.
        A given ``eps`` must not be below that level (beyond rounding).
    complements : (float, float), optional
        ``(1 - kappa, 1 - lam)`` computed without cancellation (the named
        settings pass them); by default ``1 - kappa`` and ``1 - lam``.
    """

    kappa: float
    lam: float
    k: int
    eps: float | None = None
    complements: tuple[float, float] | None = None

    def __post_init__(self) -> None:
        kappa, lam = as_probability(self.kappa, "kappa"), as_probability(self.lam, "lambda")
        if lam > kappa:
            raise InputError(f"unary encoding needs lambda <= kappa, got {lam} > {kappa}")
        complements = (1 - kappa, 1 - lam) if self.complements is None else tuple(
            as_probability(c, "complement") for c in self.complements)
        if abs(complements[0] - (1 - kappa)) > 1e-12 or abs(complements[1] - (1 - lam)) > 1e-12:
            raise InputError(f"complements {complements} are not (1 - kappa, 1 - lambda)")
        level = encoding_level(kappa, lam, *complements)
        eps = level if self.eps is None else as_mechanism_epsilon(self.eps)
        if level > eps * (1 + LEVEL_TOLERANCE) + LEVEL_TOLERANCE:
            raise InputError(f"kappa = {kappa}, lambda = {lam} give level {level:.12g} "
                             f"> eps = {eps}")
        object.__setattr__(self, "kappa", kappa)
        object.__setattr__(self, "lam", lam)
        object.__setattr__(self, "complements", complements)
        object.__setattr__(self, "k", as_size(self.k))
        object.__setattr__(self, "eps", eps)

    @classmethod
    def from_setting(cls, setting: str, eps: float, k: int) -> "UnaryEncoding":
        """One of the :data:`SETTINGS` at level ``eps``."""
        eps = as_mechanism_epsilon(eps)
        if setting == "symmetric":
            high, low = _binary_rr(eps / 2)
            return cls(high, low, k, eps, (low, high))
        if setting == "optimized":
            high, low = _binary_rr(eps)
            return cls(0.5, low, k, eps, (0.5, high))
        if setting == "fair-others":
            high, low = _binary_rr(eps)
            return cls(high, 0.5, k, eps, (low, 0.5))
        raise InputError(f"unknown unary-encoding setting {setting!r}; choose from {SETTINGS}")

    @property
    def n_inputs(self) -> int:
        return self.k

    def bit_probabilities(self) -> tuple[np.ndarray, np.ndarray]:
        own = np.eye(self.k, dtype=bool)
        assert self.complements is not None  # __post_init__ always fills it
        kappa_bar, lam_bar = self.complements
        return np.where(own, self.kappa, self.lam), np.where(own, kappa_bar, lam_bar)

    def matrix(self) -> np.ndarray:
        Q = self.product_matrix()
        assert self.eps is not None  # __post_init__ always fills it (the level when not given)
        return Q if np.isinf(self.eps) else raise_column_minima(Q, self.eps)


def encoding_level(kappa: float, lam: float, kappa_bar: float | None = None,
                   lam_bar: float | None = None) -> float:
    """``log(kappa (1-lambda) / (lambda (1-kappa)))``: 0 when ``kappa = lambda``, inf if unbounded.

    ``kappa_bar`` and ``lam_bar`` are ``1 - kappa`` and ``1 - lambda`` when known
    more accurately than the subtraction gives.
    """
    kappa_bar = 1 - kappa if kappa_bar is None else kappa_bar
    lam_bar = 1 - lam if lam_bar is None else lam_bar
    if kappa == lam:
        return 0.0
    if lam == 0 or kappa_bar == 0:
        return float("inf")
    return float(np.log(kappa) + np.log(lam_bar) - np.log(lam) - np.log(kappa_bar))


def _binary_rr(eps: float) -> tuple[float, float]:
    """``(e^eps / (e^eps + 1), 1 / (e^eps + 1))``, each to full relative precision."""
    return 1 / (1 + np.exp(-eps)), 1 / (1 + np.exp(eps))


def unary_encoding(eps: float, k: int, setting: str = "optimized") -> np.ndarray:
    """The ``2^k``-column matrix of a named unary encoding; see :class:`UnaryEncoding`."""
    return UnaryEncoding.from_setting(setting, eps, k).matrix()
