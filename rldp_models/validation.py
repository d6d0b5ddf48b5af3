"""Validation of user parameters: privacy levels, sizes, distributions, mechanisms.

Every public function that takes a distribution, a mechanism or a privacy
parameter passes it through here, so that bad input raises one
:class:`~rldp_models.errors.InputError` with a one-line message instead of a
numpy warning or a silent wrong answer.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from rldp_models.errors import InputError

MAX_EPSILON = 700.0
"""Largest privacy level any command accepts: ``e^eps`` stays finite in double precision
(``e^709.78`` is the largest double), with room for the ratios the checks form."""

SUM_TOLERANCE = 1e-9
"""Largest accepted deviation of a probability vector's (or row's) sum from 1."""


def as_epsilon(eps: float, name: str = "eps") -> float:
    """Return ``eps`` as a float, checking that it is finite and ``>= 0``."""
    try:
        value = float(eps)
    except (TypeError, ValueError):
        raise InputError(f"{name} must be a number, got {eps!r}") from None
    if not np.isfinite(value) or value < 0:
        raise InputError(f"{name} must be finite and >= 0, got {eps!r}")
    return value


def as_probability(value: float, name: str) -> float:
    """Return ``value`` as a float, checking that it lies in ``[0, 1]``."""
    try:
        result = float(value)
    except (TypeError, ValueError):
        raise InputError(f"{name} must be a number, got {value!r}") from None
    if not 0.0 <= result <= 1.0:
        raise InputError(f"{name} must lie in [0, 1], got {value!r}")
    return result


def as_size(k: int, name: str = "k", minimum: int = 2) -> int:
    """Return ``k`` as an int, checking that it is an integer ``>= minimum``."""
    try:
        integral = not isinstance(k, bool) and float(k).is_integer()
    except (TypeError, ValueError):
        integral = False
    if not integral:
        raise InputError(f"{name} must be an integer, got {k!r}")
    if int(k) < minimum:
        raise InputError(f"{name} must be >= {minimum}, got {k!r}")
    return int(k)


def as_probability_vector(p: ArrayLike, name: str = "p") -> np.ndarray:
    """Return ``p`` as a float vector, checking that it is a distribution.

    Raises
    ------
    InputError
        If ``p`` is not a nonempty 1-D finite nonnegative vector summing to 1
        (within :data:`SUM_TOLERANCE`).
    """
    p = np.asarray(p, dtype=float)
    if p.ndim != 1 or p.size == 0:
        raise InputError(f"{name} must be a nonempty 1-D vector, got shape {p.shape}")
    _check_finite_nonnegative(p, name)
    if abs(p.sum() - 1.0) > SUM_TOLERANCE:
        raise InputError(f"{name} must sum to 1, sums to {p.sum():.12g}")
    return p


def as_nonnegative_array(a: ArrayLike, ndim: int, name: str) -> np.ndarray:
    """Return ``a`` as a finite nonnegative float array with ``ndim`` dimensions."""
    a = np.asarray(a, dtype=float)
    if a.ndim != ndim or a.size == 0:
        raise InputError(f"{name} must be a nonempty {ndim}-D array, got shape {a.shape}")
    _check_finite_nonnegative(a, name)
    return a


def as_stochastic_matrix(Q: ArrayLike, name: str = "Q") -> np.ndarray:
    """Return ``Q`` as a float matrix whose rows are distributions.

    ``Q[x, y] = P(Y=y | X=x)``: rows index inputs, columns outputs.

    Raises
    ------
    InputError
        If ``Q`` is not 2-D, has a negative or non-finite entry, or a row whose
        sum differs from 1 by more than :data:`SUM_TOLERANCE`.
    """
    Q = as_nonnegative_array(Q, 2, name)
    worst = np.max(np.abs(Q.sum(axis=1) - 1.0))
    if worst > SUM_TOLERANCE:
        raise InputError(f"rows of {name} must sum to 1 (largest deviation {worst:.3g})")
    return Q


def _check_finite_nonnegative(a: np.ndarray, name: str) -> None:
    if not np.all(np.isfinite(a)):
        raise InputError(f"{name} has a non-finite entry")
    if np.any(a < 0):
        raise InputError(f"{name} has a negative entry")
