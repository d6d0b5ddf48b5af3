"""cvxpy's canonical conic form of a set's membership, and its dual cone (eq. (1) of
:mod:`rldp_models.uncertainty.derived_certificate`; conventions in :mod:`.derived`).

``{p : membership(p)}`` is read as ``A x + s = b``, ``s in K`` with ``p`` among the
columns of ``x``: zero, nonnegative, second-order, exponential and 3-d power cones.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import scipy.sparse as sparse

from rldp_models.uncertainty.base import UncertaintySet

if TYPE_CHECKING:
    import cvxpy as cp

CANONICAL_SOLVER = "CLARABEL"
"""The solver whose standard form ``A x + s = b, s in K`` the description is read in."""


@dataclass(frozen=True)
class ConicDescription:
    """``{p : A x + s = b, s in K}`` with ``p = x[columns]`` (module docstring).

    ``cones`` lists ``(kind, rows)`` blocks in row order; ``kind`` is one of
    ``"zero"``, ``"nonneg"``, ``"soc"``, ``"exp"``, ``"pow"``; ``alphas`` holds
    the exponent of each power-cone block in order.
    """

    a_matrix: sparse.csc_matrix
    b_vector: np.ndarray
    columns: np.ndarray
    cones: tuple[tuple[str, np.ndarray], ...]
    alphas: tuple[float, ...]


def conic_description(uncertainty: UncertaintySet) -> ConicDescription:
    """The canonical conic form of the set's ``membership`` (module docstring)."""
    import cvxpy as cp  # here, not at the top: rldp solve's default path never needs cvxpy

    size = uncertainty.phat.size
    p = cp.Variable(size)
    problem = cp.Problem(cp.Minimize(0), uncertainty.membership(p))
    data, _, _ = problem.get_problem_data(CANONICAL_SOLVER)
    offset = data[cp.settings.PARAM_PROB].var_id_to_col[p.id]
    cones = cone_blocks(data["dims"], data["A"].shape[0])
    return ConicDescription(sparse.csc_matrix(data["A"]), np.asarray(data["b"], dtype=float),
                            np.arange(offset, offset + size), cones,
                            tuple(float(a) for a in data["dims"].p3d))


def cone_blocks(dims: Any, rows: int) -> tuple[tuple[str, np.ndarray], ...]:
    """The ``(kind, rows)`` blocks of cvxpy's cone dimensions ``dims``, in row order.

    Raises
    ------
    NotImplementedError
        For semidefinite cones, or dimensions that do not cover the ``rows``.
    """
    cones: list[tuple[str, np.ndarray]] = []
    row = 0
    for kind, sizes in (("zero", [dims.zero] if dims.zero else []),
                        ("nonneg", [dims.nonneg] if dims.nonneg else []),
                        ("soc", list(dims.soc)),
                        ("exp", [3 * dims.exp] if dims.exp else []),
                        ("pow", [3] * len(dims.p3d))):
        for block in sizes:
            cones.append((kind, np.arange(row, row + block)))
            row += block
    if dims.psd or row != rows:
        raise NotImplementedError("sets with semidefinite cones are not derived")
    return tuple(cones)


def dual_cone_constraints(description: ConicDescription, y: cp.Expression) -> list[Any]:
    """``y[:, k] in K*`` for every column ``k`` (module docstring)."""
    import cvxpy as cp  # here, not at the top: rldp solve's default path never needs cvxpy

    constraints: list[Any] = []
    alphas = iter(description.alphas)
    for kind, rows in description.cones:
        if kind == "nonneg":
            constraints.append(y[rows, :] >= 0)
        elif kind == "soc":
            constraints.append(cp.SOC(y[rows[0], :], y[rows[1:], :], axis=0))
        elif kind == "exp":
            u, v, w = (y[rows[i::3], :] for i in range(3))
            constraints.append(cp.ExpCone(-cp.vec(v, order="F"), -cp.vec(u, order="F"),
                                          np.e * cp.vec(w, order="F")))
        elif kind == "pow":
            alpha = next(alphas)
            constraints.append(cp.PowCone3D(y[rows[0], :] / alpha, y[rows[1], :] / (1 - alpha),
                                            y[rows[2], :], alpha))
    return constraints


def cone_constraints(description: ConicDescription, x: cp.Expression,
                     scale: cp.Expression | float = 1.0) -> list[Any]:
    """``b scale - A x in K``, one constraint per cone block: the set's own membership read
    back from its data (``scale``: Charnes-Cooper's ``t``, else 1)."""
    import cvxpy as cp  # here, not at the top: rldp solve's default path never needs cvxpy

    slack = description.b_vector * scale - description.a_matrix @ x
    constraints: list[Any] = []
    alphas = iter(description.alphas)
    for kind, rows in description.cones:
        if kind == "zero":
            constraints.append(slack[rows] == 0)
        elif kind == "nonneg":
            constraints.append(slack[rows] >= 0)
        elif kind == "soc":
            constraints.append(cp.SOC(slack[rows[0]], slack[rows[1:]]))
        elif kind == "exp":
            constraints.append(cp.ExpCone(*(slack[rows[i::3]] for i in range(3))))
        elif kind == "pow":
            constraints.append(cp.PowCone3D(slack[rows[0]], slack[rows[1]], slack[rows[2]],
                                            next(alphas)))
    return constraints
