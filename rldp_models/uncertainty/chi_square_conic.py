"""Conic epigraphs of the chi-square support functions, for the model builders.

Each function returns cvxpy constraints that hold iff a support function is
at most a right-hand side, together with the multipliers that certify it.
The data (``phat``, ``B + 1``, ``rho``) are passed in as cvxpy constants or
parameters, so a model can be built once and re-solved for new data.

Both forms use the reduction ``w = t`` (all cells of one block equal), which
loses nothing: in Theorems 2 and 4 raising every ``w_x`` to ``max_x w_x``
keeps the max and only helps the square-root terms.

Theorem 2 (eq. 21):  ``t + c (B+1) - 2 phat.r <= rhs``, ``t >= v_x``,
``r_x^2 <= c (t - v_x)``.

Theorem 4 (eq. 29), per column: ``t_1 + t_2 + c rho - K (q_1 + q_2) <= rhs``,
``t_i >= v_i(u)``, ``r_{i,u}^2 <= c (t_i - v_i(u))``,
``h_i = sum_u Phat_{s_i,u} r_{i,u}``, ``q_i^3 <= h_i^2 c`` written as the two
rotated cones ``q_i^2 <= h_i b_i`` and ``b_i^2 <= c q_i`` (so every solver
with second-order cones can take it).
"""

from __future__ import annotations

from typing import Any

import cvxpy as cp
import numpy as np

from rldp_models import symbolic_values
from rldp_models.uncertainty.conic_support import ConicSupport


def rotated_cone(x: cp.Expression, y: cp.Expression, z: cp.Expression) -> cp.Constraint:
    """Elementwise ``x^2 <= y z`` with ``y, z >= 0`` as one vectorised second-order cone."""
    x, y, z = cp.vec(x, order="C"), cp.vec(y, order="C"), cp.vec(z, order="C")
    return cp.SOC(y + z, cp.vstack([2 * x, y - z]), axis=0)


def _columns(vector: cp.Expression, rows: int) -> cp.Expression:
    """Repeat a length-n expression as ``rows`` identical rows, shape (rows, n)."""
    return np.ones((rows, 1)) @ cp.reshape(vector, (1, vector.shape[0]), order="C")


def support_at_most(v: cp.Expression, rhs: cp.Expression, phat: Any,
                    b_plus_one: Any) -> ConicSupport:
    """``delta*(v | F) <= rhs`` for the chi-square set (Theorem 2).

    Parameters
    ----------
    v : cvxpy expression, shape (|X|,)
    rhs : cvxpy expression, scalar
    phat : constant or parameter, shape (|X|,)
    b_plus_one : constant or parameter, scalar
    """
    size = v.shape[0]
    t = cp.Variable(name="t")
    c = cp.Variable(nonneg=True, name="c")
    r = cp.Variable(size, nonneg=True, name="r")
    gap = t - v
    constraints = [
        gap >= 0,
        rotated_cone(r, c * np.ones(size), gap),
        t + c * b_plus_one - 2 * (phat @ r) <= rhs,
    ]
    return ConicSupport(constraints, {"t": t, "c": c})


def pair_support_at_most(v1: cp.Expression, v2: cp.Expression, rhs: Any, rows: Any,
                         rho: Any, empty: tuple[bool, bool] = (False, False)) -> ConicSupport:
    """``delta*(v1[:, y], v2[:, y] | F_{U|s1,s2}) <= rhs[y]`` for every column y (Theorem 4).

    Parameters
    ----------
    v1, v2 : cvxpy expressions, shape (|U|, |Y|)
    rhs : cvxpy expression of shape (|Y|,), or 0
    rows : constant or parameter, shape (2, |U|): ``Phat_{s1,u}``, ``Phat_{s2,u}``
    rho : constant or parameter, scalar: ``sqrt(B+1) - 1 + Phat_{s1} + Phat_{s2}``
    empty : pair of bool
        Whether a secret has no records. Its term ``h_i`` is then identically
        zero, so ``q_i = 0`` and only ``t_i >= max_u v_i(u)`` remains; leaving
        out the degenerate cones keeps the problem strictly feasible.
    """
    n_u, n_y = v1.shape
    k = symbolic_values.THEOREM4_CONSTANT
    c = cp.Variable(n_y, nonneg=True, name="c")
    t = cp.Variable((2, n_y), name="t")
    q = cp.Variable((2, n_y), nonneg=True, name="q")
    b = cp.Variable((2, n_y), nonneg=True, name="b")
    c_grid = _columns(c, n_u)
    constraints = [t[0] + t[1] + rho * c - k * (q[0] + q[1]) <= rhs]
    for i, v in enumerate((v1, v2)):
        gap = _columns(t[i], n_u) - v
        constraints.append(gap >= 0)
        if empty[i]:
            constraints.append(q[i] == 0)
            continue
        r = cp.Variable((n_u, n_y), nonneg=True, name=f"r{i + 1}")
        constraints += [
            rotated_cone(r, c_grid, gap),
            rotated_cone(q[i], rows[i] @ r, b[i]),
            rotated_cone(b[i], c, q[i]),
        ]
    return ConicSupport(constraints, {"t": t, "c": c})
