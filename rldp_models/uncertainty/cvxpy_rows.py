"""cvxpy helpers every set's robust counterpart shares: shapes, ``e_s(.)`` and conditionals.

The numeric side of the set protocol (:mod:`rldp_models.uncertainty.base`)
does not need cvxpy; these helpers do, and only the cvxpy builders
(``membership``, ``support_at_most``, blocks' ``build``) call them, so the
default ``rldp solve`` path (the direct conic form) never imports this module.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import cvxpy as cp
import numpy as np

if TYPE_CHECKING:
    from rldp_models.uncertainty.base import UncertaintySet
    from rldp_models.uncertainty.conic_support import ConicSupport


def as_columns(v: cp.Expression) -> cp.Expression:
    """A vector expression as one column, shape (n, 1); matrices are returned as they are."""
    return cp.reshape(v, (v.shape[0], 1), order="F") if v.ndim == 1 else v


def as_row(rhs: Any, columns: int) -> cp.Expression:
    """A scalar or (k,) right-hand side as a (k,) expression."""
    rhs = cp.Constant(rhs) if not isinstance(rhs, cp.Expression) else rhs
    return cp.reshape(rhs, (columns,), order="F") if rhs.size == columns else \
        rhs * np.ones(columns)


def embed_rows(block: cp.Expression, s: int, n_s: int) -> cp.Expression:
    """``e_s(block)``: the (|U|, k) block on row ``s`` of an (|S||U|, k) matrix, zeros elsewhere."""
    n_u = block.shape[0]
    selection = np.zeros((n_s * n_u, n_u))
    selection[s * n_u:(s + 1) * n_u] = np.eye(n_u)
    return selection @ block


def conditional_at_most(uncertainty: UncertaintySet, v: cp.Expression, rhs: cp.Expression,
                        s: int, margin: float = 0.0) -> ConicSupport:
    """``sup_{R in C_s} v[:, k].R <= rhs[k]`` for every column, by (*) of :mod:`.base`:
    ``delta*(e_s(v[:, k] - rhs[k]) | F) <= -margin`` (``margin`` in units of the joint
    distribution, so the bound is conservative by at least ``margin / P(s)``).

    Parameters
    ----------
    v : cvxpy expression, shape (|U|, k)
    rhs : cvxpy expression, shape (k,)
    s : int
        The secret whose conditional is meant.
    margin : float
        The support's right-hand side, negated (default 0).
    """
    n_s = uncertainty.phat.shape[0]
    shifted = v - np.ones((v.shape[0], 1)) @ cp.reshape(rhs, (1, v.shape[1]), order="F")
    return uncertainty.support_at_most(embed_rows(shifted, s, n_s), np.full(v.shape[1], -margin))
