"""Distortion measures ``d(u, y)`` between a public value and a released one."""

from __future__ import annotations

from fractions import Fraction
from typing import Sequence

import numpy as np

from rldp_models.data import Crosstab
from rldp_models.errors import InputError

NAMED_DISTORTIONS = ("squared", "absolute", "hamming")


def distortion_matrix(kind: str | np.ndarray, crosstab: Crosstab,
                      outputs: Sequence[str] | None = None) -> np.ndarray:
    """The matrix ``d[u, y]`` for the U labels of ``crosstab`` and the outputs ``Y``.

    Parameters
    ----------
    kind : {"squared", "absolute", "hamming"} or ndarray
        ``(u - y)^2``, ``|u - y|`` (numeric labels), ``1[u != y]``, or a
        user matrix of shape ``(|U|, |Y|)`` with nonnegative finite entries.
    crosstab : Crosstab
        Supplies the U labels.
    outputs : sequence of str, optional
        Output labels; default the U labels.
    """
    outputs = tuple(crosstab.u_labels if outputs is None else (str(y) for y in outputs))
    if not isinstance(kind, str):
        return _user_matrix(kind, len(crosstab.u_labels), len(outputs))
    if kind == "hamming":
        return np.array([[float(u != y) for y in outputs] for u in crosstab.u_labels])
    if kind in ("squared", "absolute"):
        u = crosstab.numeric_u()
        y = _numeric(outputs, "output")
        gap = u[:, None] - y[None, :]
        return gap**2 if kind == "squared" else np.abs(gap)
    raise InputError(f"unknown distortion {kind!r}; choose one of {', '.join(NAMED_DISTORTIONS)}"
                     " or give a matrix")


def _numeric(labels: Sequence[str], what: str) -> np.ndarray:
    try:
        return np.array([float(label) for label in labels])
    except ValueError:
        raise InputError(f"{what} labels must be numeric for this distortion, "
                         f"got {list(labels)}") from None


def _user_matrix(matrix: np.ndarray, rows: int, cols: int) -> np.ndarray:
    d = np.asarray(matrix, dtype=float)
    if d.shape != (rows, cols):
        raise InputError(f"a distortion matrix must have shape ({rows}, {cols}), got {d.shape}")
    if not np.all(np.isfinite(d)) or np.any(d < 0):
        raise InputError("a distortion matrix must have nonnegative finite entries")
    return d


def expected_distortion(protocol: np.ndarray, distortion: np.ndarray,
                        n_s: int) -> list[Fraction]:
    """``v_x = sum_y P(y|x) d(u(x), y)`` per cell ``x = (s, u)`` (eq. 22), exactly."""
    d = np.tile(np.asarray(distortion, dtype=float), (n_s, 1))
    return [sum((Fraction(float(p)) * Fraction(float(w)) for p, w in zip(row, weights)),
                Fraction(0)) for row, weights in zip(protocol, d)]
