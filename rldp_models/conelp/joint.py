"""Joint distributions ``p_{S,X}`` of a secret and the data: validation and conditionals."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
from numpy.typing import ArrayLike

from rldp_models.errors import InputError
from rldp_models.validation import as_nonnegative_array, as_probability_vector


def as_joint_distribution(p: ArrayLike, ndim: int | None = 2, name: str = "p_sx") -> np.ndarray:
    """``p`` as a float array of probabilities summing to 1, axis 0 the secret ``S``.

    Parameters
    ----------
    p : array_like
        ``p[s, x]`` (or ``p[s, x^1, ..., x^m]``) ``= P(S=s, X=x)``.
    ndim : int or None
        Required number of axes; ``None`` accepts any number ``>= 2``.
    name : str
        Used in error messages.
    """
    array = np.asarray(p, dtype=float)
    if array.ndim < 2 or (ndim is not None and array.ndim != ndim):
        wanted = f"{ndim}-D" if ndim is not None else "at least 2-D"
        raise InputError(f"{name} must be {wanted} (axis 0 = secret), got shape {array.shape}")
    as_nonnegative_array(array, array.ndim, name)
    as_probability_vector(array.ravel(), name)
    return array


def exact(array: np.ndarray) -> np.ndarray:
    """``array`` as an object array of :class:`~fractions.Fraction` (each double exactly).

    The privacy rows built from it (:mod:`rldp_models.conelp.cones`) are then
    exact, so the exact double description sees consistent constraints: at
    ``eps = 0``, ``p_{X|1}.q = p_{X|2}.q = p_{X|3}.q`` stays satisfiable by
    ``q = 1``, which independently rounded float rows need not be.
    """
    return np.vectorize(Fraction, otypes=[object])(array)


def data_given_secret(joint: np.ndarray) -> np.ndarray:
    """Rows ``p_{X|s}`` for the secrets with ``p_s > 0`` (others cannot be observed).

    Works on float arrays and on :func:`exact` arrays alike.
    """
    p_s = joint.sum(axis=1)
    return joint[p_s > 0] / p_s[p_s > 0, None]
