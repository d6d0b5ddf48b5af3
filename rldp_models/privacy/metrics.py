"""Performance of a protocol under a given distribution: D* (eq. 31) and eps* (eq. 32).

Both take the protocol as ``P[x, y]`` with ``x = (s, u)`` in row-major order
and a joint distribution ``joint[s, u]`` (e.g. the true ``P*``).
"""

from __future__ import annotations

import numpy as np


def output_given_secret(protocol: np.ndarray, joint: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``P(Y=y | S=s)`` for secrets with positive mass, and which secrets those are.

    Returns
    -------
    (ndarray, ndarray)
        ``conditional[s, y]`` (rows of zero-mass secrets are NaN) and a boolean mask
        of the secrets with positive mass.
    """
    n_s, n_u = joint.shape
    blocks = protocol.reshape(n_s, n_u, -1)
    mass = joint.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        conditional = np.einsum("su,suy->sy", joint, blocks) / mass[:, None]
    return conditional, mass > 0


def distortion_star(protocol: np.ndarray, joint: np.ndarray, distortion: np.ndarray) -> float:
    """``D* = E_{(S,U) ~ joint} d(U, Y)`` (eq. 31); ``distortion[u, y]``."""
    n_s, n_u = joint.shape
    blocks = protocol.reshape(n_s, n_u, -1)
    return float(np.einsum("su,suy,uy->", joint, blocks, distortion))


def epsilon_star(protocol: np.ndarray, joint: np.ndarray) -> float:
    """``eps* = log max_{y,s1,s2} P(y|s1) / P(y|s2)`` (eq. 32).

    ``0/0`` counts as 1 and ``positive/0`` as ``inf``. A secret with zero
    mass has no conditional under ``joint``; as in the nominal guarantee, its
    conditional is then any distribution on U, so its ``P(y|s)`` ranges over
    ``[min_u P(y|s,u), max_u P(y|s,u)]`` and the worst case is taken.
    """
    n_s, n_u = joint.shape
    blocks = protocol.reshape(n_s, n_u, -1)
    conditional, positive = output_given_secret(protocol, joint)
    high = np.where(positive[:, None], conditional, blocks.max(axis=1))
    low = np.where(positive[:, None], conditional, blocks.min(axis=1))
    worst = 0.0
    for s1 in range(n_s):
        for s2 in range(n_s):
            if s1 == s2:
                continue
            worst = max(worst, _log_ratio_max(high[s1], low[s2]))
    return worst


def _log_ratio_max(numerator: np.ndarray, denominator: np.ndarray) -> float:
    if np.any((denominator <= 0) & (numerator > 0)):
        return float("inf")
    keep = denominator > 0
    if not np.any(keep):
        return 0.0
    with np.errstate(divide="ignore"):
        return float(np.max(np.log(numerator[keep] / denominator[keep]), initial=0.0))
