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
* :func:`~rldp_models.uncertainty.derived_certificate.derived_certified_bound` --
  a rigorous upper bound on the support function from any (floating) ``y``,
  proved in ball arithmetic (the certificate ``rldp verify`` re-checks; a record
  declares a :class:`DerivedSet` as ``derived`` wrapping the named set);
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

import warnings
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Callable, ClassVar, Mapping

import numpy as np
import scipy.sparse as sparse

from rldp_models.exact import ExactVector
from rldp_models.uncertainty.answered_by_data import AnsweredByData
from rldp_models.uncertainty.base import Capability, UncertaintySet
from rldp_models.uncertainty.conic_support import ConicSupport
from rldp_models.uncertainty.derived_certificate import (
    DualCertifier,
    cone_identity,
    private_rows,
)
from rldp_models.uncertainty.derived_form import (
    CANONICAL_SOLVER,
    ConicDescription,
    conic_description,
    dual_cone_constraints,
)
from rldp_models.uncertainty.scalar_search import direct_solver_options

if TYPE_CHECKING:
    import cvxpy as cp


DERIVED = "derived"
"""The name a record declares a :class:`DerivedSet` under (the wrapped set's under ``wraps``)."""

CERTIFIABLE_MARGIN = 1e-9
"""How far inside ``K*`` :func:`certifiable_multipliers`' second solve asks ``y`` to lie."""


def derived_support_at_most(description: ConicDescription, v: cp.Expression, rhs: Any,
                            margin: float = 0.0) -> ConicSupport:
    """``delta*(v[:, k] | F) <= rhs[k]`` for every column, by conic duality (module docstring).

    With ``margin > 0``, ``y`` is asked to lie ``margin`` inside ``K*`` (``y - margin 1_K in
    K*``, :func:`~rldp_models.uncertainty.derived_certificate.cone_identity`): still
    sufficient (``1_K in K*``), it costs at most ``margin b.1_K`` of this one bound and
    leaves the solver's ``y`` room for its own residuals, so that
    :func:`~rldp_models.uncertainty.derived_certificate.derived_certified_bound` proves a
    bound within about the solver's tolerance (:func:`certifiable_multipliers`). The
    default is none: in a program the counterpart is then exactly ``delta*(v | F) <=
    rhs`` (strong duality), so the program compiled is the one its record states (robust
    privacy in product form; issue 34's weak-duality bound is on the compiled program).
    A margin tightens every privacy term by ``margin b.1_K / P(s)`` in its conditional:
    at ``1e-9``, RURP over ``DerivedSet`` of the KL ball on a 3x4 table had its optimum
    raised by 1.4e-6 (the product-form optimum's protocol, mixed with the uniform one at
    1e-7, infeasible) and its record claimed a proven lower bound 1.2e-6 above the
    product-form optimum (``tests/optimality/test_derived_claims.py``).

    An auxiliary column with a private row (a bound ``x_j >= 0``, step (a) of
    :mod:`.derived_certificate`) has its equation ``(A^T y)_j = 0`` solved for that
    row's ``y_i`` (:func:`dual_variable`): the same dual with far fewer variables
    (a transport plan's ``|X|^2`` of them).
    """
    from rldp_models.uncertainty.cvxpy_rows import as_columns, as_row

    v = as_columns(v)
    k = v.shape[1]
    n = description.a_matrix.shape[1]
    y, solved = dual_variable(description, k)
    selection = sparse.csc_matrix((np.ones(description.columns.size),
                                   (description.columns, np.arange(description.columns.size))),
                                  shape=(n, description.columns.size))
    rest = np.setdiff1d(np.arange(n), solved)
    constraints = [description.a_matrix[:, rest].T @ y == (selection @ v)[rest, :],
                   description.b_vector @ y <= as_row(rhs, k),
                   *dual_cone_constraints(description,
                                          y - margin * np.outer(cone_identity(description),
                                                                np.ones(k)))]
    return ConicSupport(constraints, {"y": y})


def dual_variable(description: ConicDescription, k: int) -> tuple[cp.Expression, np.ndarray]:
    """``y`` (``m x k``) as ``T z`` with ``z`` a variable on the rows that are not private, and
    the auxiliary columns whose equations ``T`` solves (each private row's ``y_i`` is
    ``-(sum_{l != i} A_lj y_l) / A_ij``)."""
    import cvxpy as cp  # here, not at the top: rldp solve's default path never needs cvxpy

    a = sparse.csc_matrix(description.a_matrix)
    m, n = a.shape
    private = private_rows(description, a, np.setdiff1d(np.arange(n), description.columns))
    columns = np.array(sorted(private), dtype=int)
    rows = np.array([private[j] for j in columns], dtype=int)
    keep = np.setdiff1d(np.arange(m), rows)
    kept = sparse.csc_matrix((np.ones(keep.size), (keep, np.arange(keep.size))),
                             shape=(m, keep.size))
    transform = kept
    if columns.size:
        own = np.asarray(a[rows, columns]).ravel()
        solved = -sparse.diags(1.0 / own) @ a[keep][:, columns].T
        transform = kept + sparse.csc_matrix((np.ones(rows.size), (rows, np.arange(rows.size))),
                                             shape=(m, rows.size)) @ solved
    z = cp.Variable((keep.size, k), name="y")
    return sparse.csc_matrix(transform) @ z, columns


SOLVES: tuple[tuple[float, dict[str, Any]], ...] = (
    (0.0, direct_solver_options("clarabel")), (CERTIFIABLE_MARGIN, {}))
"""How :func:`certifiable_multipliers` solves the derived dual: ``(margin, clarabel options)``."""


def certifiable_multipliers(description: ConicDescription, v: np.ndarray,
                            direction: np.ndarray | None = None) -> np.ndarray:
    """The derived dual's ``y`` at ``v`` (one column) whose certified bound is smallest.

    Solved at tight tolerances without margin (best where clarabel converges there) and
    at its defaults with :data:`CERTIFIABLE_MARGIN`; NaNs if neither solve gives a ``y``.
    """
    import cvxpy as cp  # here, not at the top: rldp solve's default path never needs cvxpy

    v = np.asarray(v, dtype=float).ravel()
    found = [np.full((description.a_matrix.shape[0], 1), np.nan)]
    for margin, options in SOLVES:
        bound = cp.Variable()
        cone = derived_support_at_most(description, cp.Constant(v), bound, margin)
        with warnings.catch_warnings():  # an inaccurate solve is judged by its certificate
            warnings.simplefilter("ignore", UserWarning)
            cp.Problem(cp.Minimize(bound), cone.constraints).solve(solver=CANONICAL_SOLVER,
                                                                    **options)
        if cone.multipliers["y"].value is not None:
            found.append(np.asarray(cone.multipliers["y"].value, dtype=float))
    certifier = DualCertifier(description, direction)
    return min(found, key=lambda y: certifier.bound(v, y))


def derived_support(description: ConicDescription, v: np.ndarray,
                    solver: str = "clarabel") -> float:
    """``delta*(v | F)`` by solving the derived dual ``min b.y`` numerically."""
    import cvxpy as cp  # here, not at the top: rldp solve's default path never needs cvxpy

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
    import cvxpy as cp  # here, not at the top: rldp solve's default path never needs cvxpy

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


class DerivedSet(AnsweredByData):
    """A set whose robust counterpart, support and proofs are derived from its membership.

    ``support_at_most`` is :func:`derived_support_at_most` of the set's
    membership; ``support``, ``worst_case``, ``support_multipliers`` and the
    conditional bounds come from the same conic data
    (:class:`~.answered_by_data.AnsweredByData`: no closed form of the wrapped set
    is used); names, radius and the rest are the wrapped set's.
    ``certified_support_bound`` at the derived multipliers ``{"y": ...}`` is proved
    from them alone (:mod:`.derived_certificate`); at any other multipliers it is
    the wrapped set's own.

    Its one capability is ``CONDITIONAL_DUAL`` (robust privacy in product form, each
    conditional bound from one Charnes-Cooper solve): the wrapped set's (e.g.
    chi-square's exact pair form or direct rows) are those of its closed form, not
    of the derived one.
    """

    capabilities: ClassVar[frozenset[Capability]] = frozenset({Capability.CONDITIONAL_DUAL})

    def __init__(self, uncertainty: UncertaintySet) -> None:
        self.wrapped = uncertainty
        self.phat = np.asarray(uncertainty.phat, dtype=float)
        self.name = str(uncertainty.name)
        self.description = conic_description(uncertainty)
        self.exact_b = [Fraction(float(x)) for x in self.description.b_vector]

    def __getattr__(self, name: str) -> Any:
        return getattr(self.wrapped, name)

    def support_at_most(self, v: cp.Expression, rhs: Any,
                        value: Callable[[str], Any] | None = None) -> ConicSupport:
        return derived_support_at_most(self.description, v, rhs)

    def certified_support_bound(self, v: ExactVector, multipliers: Mapping[str, Any]) -> Any:
        """A proved upper bound on ``sup_{P in F} v.P``.

        With the derived dual's multipliers (``{"y": ...}``, one column), the bound is
        :func:`~rldp_models.uncertainty.derived_certificate.derived_certified_bound`
        (no per-set code); with the wrapped set's own (its conditional forms'), the
        wrapped set's, at them or at its own closed-form multipliers, whichever is smaller
        (both are valid).
        """
        if "y" not in multipliers:
            own = self.wrapped.support_multipliers(np.asarray(v, dtype=float))
            return min(self.wrapped.certified_support_bound(v, multipliers or own),
                       self.wrapped.certified_support_bound(v, own))
        return self.data_bound(v, multipliers)
