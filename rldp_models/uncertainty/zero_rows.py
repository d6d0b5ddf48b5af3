"""Rows of a support direction that are zero whatever the program's variables.

In a Charnes-Cooper conditional (eq. 23 of :mod:`rldp_models.uncertainty.base`)
the direction ``v`` of a secret ``s`` is zero on every other secret's cells.
A per-cell dual (KL, power divergence) then has one identical cone per such
cell; they can share one cone of weight ``sum Phat_x`` — the same value, and
far fewer cones (clarabel and ecos fail on the unshared form at Adult size).
"""

from __future__ import annotations

import cvxpy as cp
import numpy as np
from cvxpy.atoms.affine.binary_operators import MulExpression


def identically_zero_rows(v: cp.Expression) -> np.ndarray:
    """Rows of ``v`` that are zero whatever the variables (``v = C @ w``, ``C`` with zero rows)."""
    rows = np.zeros(v.shape[0], dtype=bool)
    if isinstance(v, MulExpression) and v.args[0].is_constant() and v.args[0].ndim == 2:
        coefficient = np.asarray(v.args[0].value)
        rows = ~np.any(coefficient != 0, axis=1)
    elif v.is_constant():
        rows = ~np.any(np.asarray(v.value).reshape(v.shape[0], -1) != 0, axis=1)
    return rows
