"""Robust counterparts derived from a set's primal description, by conic duality.

Any set that states its membership as cvxpy constraints (``membership(p)``)
gets, with no code of its own:

* :func:`conic_description` -- cvxpy's canonical conic form of
  ``{p : membership(p)}``: ``A x + s = b``, ``s in K`` (zero, nonnegative,
  second-order, exponential and 3-d power cones), with ``p`` among the
  columns of ``x``;
* :func:`derived_support_at_most` -- the robust counterpart of
  ``v.P <= rhs`` for every ``P`` in the set: there is ``y in K*`` with
  ``A^T y = E^T v`` and ``b.y <= rhs`` (``E`` selects ``p`` from ``x``).
  Weak duality gives sufficiency for every ``y``:
  ``v.P = (A^T y).x = y.(b - s) = b.y - y.s <= b.y``; strong duality
  (Slater: ``Phat`` lies strictly inside every divergence ball) gives
  necessity. The multipliers are kept as ``{"y": Y}``, one column per
  column of ``v``;
* :func:`derived_support` -- the support function by solving that dual, and
  :func:`direct_worst_case` -- by maximising ``v.P`` over the set's own
  membership constraints (the primal, independent of the dual).

Dual cones (cvxpy's conventions): ``K_exp* = {(u, v, w) : -u e^(v/u) <= e w,
u <= 0}``, i.e. ``ExpCone(-v, -u, e w)``; the dual of the power cone
``x^a y^(1-a) >= |z|`` is ``(u/a)^a (v/(1-a))^(1-a) >= |w|``. Second-order
and nonnegative cones are self-dual; the zero cone's dual is free.

The hand-written closed forms of each set remain its fast path; this module
is the check that they are the duals of what the sets say they are
(``tests/uncertainty/test_derived_counterparts.py``) and the counterpart of
any set that has only a membership description (:class:`DerivedSet`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, ClassVar, Mapping

import cvxpy as cp
import numpy as np
import scipy.sparse as sparse

from rldp_models.exact import ExactVector
from rldp_models.uncertainty.base import Capability, UncertaintySet, as_columns, as_row
from rldp_models.uncertainty.chi_square_conic import ConicSupport
from rldp_models.uncertainty.scalar_search import direct_solver_options

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
    size = uncertainty.phat.size
    p = cp.Variable(size)
    problem = cp.Problem(cp.Minimize(0), uncertainty.membership(p))
    data, _, _ = problem.get_problem_data(CANONICAL_SOLVER)
    offset = data[cp.settings.PARAM_PROB].var_id_to_col[p.id]
    dims = data["dims"]
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
    if dims.psd or row != data["A"].shape[0]:
        raise NotImplementedError("sets with semidefinite cones are not derived")
    return ConicDescription(sparse.csc_matrix(data["A"]), np.asarray(data["b"], dtype=float),
                            np.arange(offset, offset + size), tuple(cones),
                            tuple(float(a) for a in dims.p3d))


def dual_cone_constraints(description: ConicDescription, y: cp.Variable) -> list[Any]:
    """``y[:, k] in K*`` for every column ``k`` (module docstring)."""
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


def derived_support_at_most(description: ConicDescription, v: cp.Expression,
                            rhs: Any) -> ConicSupport:
    """``delta*(v[:, k] | F) <= rhs[k]`` for every column, by conic duality (module docstring)."""
    v = as_columns(v)
    k = v.shape[1]
    m, n = description.a_matrix.shape
    y = cp.Variable((m, k), name="y")
    selection = sparse.csc_matrix((np.ones(description.columns.size),
                                   (description.columns, np.arange(description.columns.size))),
                                  shape=(n, description.columns.size))
    constraints = [description.a_matrix.T @ y == selection @ v,
                   description.b_vector @ y <= as_row(rhs, k),
                   *dual_cone_constraints(description, y)]
    return ConicSupport(constraints, {"y": y})


def derived_support(description: ConicDescription, v: np.ndarray,
                    solver: str = "clarabel") -> float:
    """``delta*(v | F)`` by solving the derived dual ``min b.y`` numerically."""
    bound = cp.Variable()
    cone = derived_support_at_most(description, cp.Constant(np.asarray(v, dtype=float).ravel()),
                                   bound)
    problem = cp.Problem(cp.Minimize(bound), cone.constraints)
    problem.solve(solver=solver.upper(), **direct_solver_options(solver))
    return float(problem.value)


def direct_worst_case(uncertainty: UncertaintySet, v: np.ndarray,
                      solver: str = "clarabel") -> tuple[np.ndarray, float]:
    """A maximiser of ``v.P`` over the set's membership constraints (the cvxpy primal).

    Tight tolerances first (:func:`direct_solver_options`); when the solver
    gives up at them (clarabel does on Adult race x education conditionals),
    once more at its defaults. Raises ``cvxpy.error.SolverError`` if both fail.
    """
    v = np.asarray(v, dtype=float).ravel()
    p = cp.Variable(v.size)
    problem = cp.Problem(cp.Maximize(v @ p), uncertainty.membership(p))
    try:
        problem.solve(solver=solver.upper(), **direct_solver_options(solver))
    except cp.error.SolverError:
        problem.solve(solver=solver.upper())
    if p.value is None:
        raise cp.error.SolverError(f"{solver}: {problem.status} on the direct worst case")
    return np.asarray(p.value, dtype=float), float(problem.value)


class DerivedSet:
    """A set whose robust counterpart is the derived one; everything else is the set's own.

    ``support_at_most`` is :func:`derived_support_at_most` of the set's
    membership (its multipliers are ``{"y": ...}``); ``support``,
    ``support_multipliers`` and the rest are delegated to the wrapped set, and
    ``certified_support_bound`` is the wrapped set's at its own multipliers,
    so certificates stay the set's exact ones.

    It declares no capability: the wrapped set's (e.g. chi-square's exact pair
    form or direct rows) are those of its closed form, not of the derived one.
    """

    capabilities: ClassVar[frozenset[Capability]] = frozenset()

    def __init__(self, uncertainty: UncertaintySet) -> None:
        self.wrapped = uncertainty
        self.description = conic_description(uncertainty)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.wrapped, name)

    def support_at_most(self, v: cp.Expression, rhs: Any,
                        value: Callable[[str], Any] | None = None) -> ConicSupport:
        return derived_support_at_most(self.description, v, rhs)

    def certified_support_bound(self, v: ExactVector, multipliers: Mapping[str, Any]) -> Any:
        """The wrapped set's certified bound at its own multipliers (the solver's ``y`` is
        not in the set's dual coordinates)."""
        floats = np.asarray(v, dtype=float)  # what every set's support_multipliers reads
        return self.wrapped.certified_support_bound(v, self.wrapped.support_multipliers(floats))
