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

from typing import Any, Callable, ClassVar, Mapping

import cvxpy as cp
import numpy as np
import scipy.sparse as sparse

from rldp_models.exact import ExactVector
from rldp_models.uncertainty.base import Capability, UncertaintySet, as_columns, as_row
from rldp_models.uncertainty.chi_square_conic import ConicSupport
from rldp_models.uncertainty.derived_certificate import (
    cone_identity,
    derived_certified_bound,
    interior_direction,
)
from rldp_models.uncertainty.derived_form import (
    ConicDescription,
    conic_description,
    dual_cone_constraints,
)
from rldp_models.uncertainty.scalar_search import direct_solver_options


CERTIFIABLE_MARGIN = 1e-9
"""How far inside ``K*`` the derived counterpart asks ``y`` to lie (see below)."""


def derived_support_at_most(description: ConicDescription, v: cp.Expression, rhs: Any,
                            margin: float = CERTIFIABLE_MARGIN) -> ConicSupport:
    """``delta*(v[:, k] | F) <= rhs[k]`` for every column, by conic duality (module docstring).

    ``y`` is asked to lie ``margin`` inside ``K*`` (``y - margin 1_K in K*``,
    :func:`~rldp_models.uncertainty.derived_certificate.cone_identity`): still
    sufficient (``1_K in K*``), it costs at most ``margin b.1_K`` and leaves the
    solver's ``y`` room for its own residuals, so that
    :func:`~rldp_models.uncertainty.derived_certificate.derived_certified_bound`
    proves a bound within about the solver's tolerance.
    """
    v = as_columns(v)
    k = v.shape[1]
    m, n = description.a_matrix.shape
    y = cp.Variable((m, k), name="y")
    selection = sparse.csc_matrix((np.ones(description.columns.size),
                                   (description.columns, np.arange(description.columns.size))),
                                  shape=(n, description.columns.size))
    constraints = [description.a_matrix.T @ y == selection @ v,
                   description.b_vector @ y <= as_row(rhs, k),
                   *dual_cone_constraints(description,
                                          y - margin * np.outer(cone_identity(description),
                                                                np.ones(k)))]
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
    """A maximiser of ``v.P`` over the set's membership constraints (the cvxpy primal)."""
    v = np.asarray(v, dtype=float).ravel()
    p = cp.Variable(v.size)
    problem = cp.Problem(cp.Maximize(v @ p), uncertainty.membership(p))
    problem.solve(solver=solver.upper(), **direct_solver_options(solver))
    return np.asarray(p.value, dtype=float), float(problem.value)


class DerivedSet:
    """A set whose robust counterpart is the derived one; everything else is the set's own.

    ``support_at_most`` is :func:`derived_support_at_most` of the set's
    membership (its multipliers are ``{"y": ...}``); ``support``,
    ``support_multipliers`` and the rest are delegated to the wrapped set.
    ``certified_support_bound`` at the derived multipliers ``{"y": ...}`` is proved
    from them alone (:mod:`.derived_certificate`); at any other multipliers it is
    the wrapped set's own.

    It declares no capability: the wrapped set's (e.g. chi-square's exact pair
    form or direct rows) are those of its closed form, not of the derived one.
    """

    capabilities: ClassVar[frozenset[Capability]] = frozenset()

    def __init__(self, uncertainty: UncertaintySet) -> None:
        self.wrapped = uncertainty
        self.description = conic_description(uncertainty)
        self._interior: np.ndarray | None = None

    def __getattr__(self, name: str) -> Any:
        return getattr(self.wrapped, name)

    def support_at_most(self, v: cp.Expression, rhs: Any,
                        value: Callable[[str], Any] | None = None) -> ConicSupport:
        return derived_support_at_most(self.description, v, rhs)

    def certified_support_bound(self, v: ExactVector, multipliers: Mapping[str, Any]) -> Any:
        """A proved upper bound on ``sup_{P in F} v.P``.

        With the derived dual's multipliers (``{"y": ...}``, one column), the bound is
        :func:`~rldp_models.uncertainty.derived_certificate.derived_certified_bound`
        (no per-set code); otherwise the wrapped set's at its own multipliers.
        """
        if "y" in multipliers:
            if self._interior is None:
                self._interior = interior_direction(self.description)
            return derived_certified_bound(self.description, v, np.asarray(multipliers["y"]),
                                           self._interior)
        floats = np.asarray(v, dtype=float)  # what every set's support_multipliers reads
        return self.wrapped.certified_support_bound(v, self.wrapped.support_multipliers(floats))
