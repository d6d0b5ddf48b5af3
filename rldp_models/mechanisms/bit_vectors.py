"""Mechanisms that release a vector of independent bits (unary encoding, uRAP).

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
"""

from __future__ import annotations

from abc import abstractmethod

import numpy as np
from numpy.typing import ArrayLike

from rldp_models.errors import InputError
from rldp_models.mechanisms.base import Mechanism, as_generator, as_input_indices

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
