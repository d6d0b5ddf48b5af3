"""The common interface of closed-form mechanisms and their seeded samplers.

A mechanism is a finite channel ``Q[x, y] = P(Y=y | X=x)`` on inputs
``0..k-1``; :meth:`Mechanism.matrix` returns it and :meth:`Mechanism.sample`
draws one output per input, vectorised, from a seeded
:class:`numpy.random.Generator`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from rldp_models.errors import InputError
from rldp_models.validation import as_epsilon, as_size

MAX_EPSILON = 700.0
"""Largest privacy level of a closed-form mechanism (``e^eps`` overflows doubles near 709.8)."""


class Mechanism(ABC):
    """A closed-form mechanism with a matrix and a sampler."""

    @property
    @abstractmethod
    def n_inputs(self) -> int:
        """``|X|``."""

    @abstractmethod
    def matrix(self) -> np.ndarray:
        """``Q[x, y] = P(Y=y | X=x)``, rows summing to 1."""

    def sample(self, x: ArrayLike, rng: np.random.Generator | int) -> np.ndarray:
        """One output index per input index, drawn from the rows of :meth:`matrix`.

        Parameters
        ----------
        x : array_like of int
            Input indices in ``0..n_inputs-1`` (any shape).
        rng : numpy.random.Generator or int
            Generator, or a seed for :func:`numpy.random.default_rng`.

        Returns
        -------
        ndarray of int, same shape as ``x``
        """
        x = as_input_indices(x, self.n_inputs)
        rng = as_generator(rng)
        Q = self.matrix()
        y = np.empty(x.shape, dtype=np.int64)
        for value in np.unique(x):
            at = x == value
            y[at] = rng.choice(Q.shape[1], size=int(at.sum()), p=Q[value])
        return y


@dataclass(frozen=True)
class LevelOnSymbols(Mechanism):
    """A mechanism with privacy level ``eps`` on inputs ``0..k-1``, both checked when made."""

    eps: float
    k: int

    def __post_init__(self) -> None:
        object.__setattr__(self, "eps", as_mechanism_epsilon(self.eps))
        object.__setattr__(self, "k", as_size(self.k))

    @property
    def n_inputs(self) -> int:
        return self.k


def as_mechanism_epsilon(eps: float) -> float:
    """``eps`` checked to be finite, ``>= 0`` and at most :data:`MAX_EPSILON`."""
    eps = as_epsilon(eps)
    if eps > MAX_EPSILON:
        raise InputError(f"eps must be <= {MAX_EPSILON:g} for a closed-form mechanism, got {eps!r}")
    return eps


def as_generator(rng: np.random.Generator | int) -> np.random.Generator:
    """A :class:`numpy.random.Generator` from a generator or an integer seed."""
    if isinstance(rng, np.random.Generator):
        return rng
    if isinstance(rng, (int, np.integer)) and not isinstance(rng, bool):
        return np.random.default_rng(int(rng))
    raise InputError(f"rng must be a numpy Generator or an int seed, got {type(rng).__name__}")


def as_input_indices(x: ArrayLike, k: int) -> np.ndarray:
    """``x`` as an integer array with every entry in ``0..k-1``."""
    x = np.asarray(x)
    if x.size and not np.issubdtype(x.dtype, np.integer):
        raise InputError(f"input indices must be integers, got dtype {x.dtype}")
    x = x.astype(np.int64)
    if x.size and (x.min() < 0 or x.max() >= k):
        raise InputError(f"input indices must lie in 0..{k - 1}")
    return x
