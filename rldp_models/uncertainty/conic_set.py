"""Sets from data: a set that is its conic data, and the intersection of any two sets.

:class:`ConicSet` is an uncertainty set given only by conic data
(``A x + s = b``, ``s in K``, ``P = x[columns]``; :mod:`.derived_form`). Everything
the set protocol asks (:mod:`rldp_models.uncertainty.base`) comes from the data
by conic duality, with no closed form: ``support_at_most`` is the derived dual
(:func:`~.derived.derived_support_at_most`), ``certified_support_bound`` the derived
certificate, and the rest is :class:`~.answered_by_data.AnsweredByData` (one primal
solve for the support, one Charnes-Cooper solve per conditional term; capability
``CONDITIONAL_DUAL``).

Two ways to make one (the names a user calls):

* :func:`from_membership` -- membership constraints ``(P, phat) -> [...]``, compiled
  once (:mod:`.set_data`); the record declares the data (``set: "conic"``);
* ``F1 & F2`` or :func:`intersection` -- the data of both memberships together; the
  record declares the two parts (``set: "intersection"``), each rebuilt by
  ``rldp verify`` around the record's counts. A library set keeps its closed
  forms and exact pair projections for itself; the intersection has the data's.

Coverage: a set from data claims none (``coverage: "not claimed"`` in its
declaration): it is what its data say, whatever its ``radius``.
"""

from __future__ import annotations

import warnings
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Callable, ClassVar, Mapping

import mpmath
import numpy as np
import scipy.sparse as sparse

from rldp_models.exact import ExactVector, exact_entries
from rldp_models.uncertainty.base import Capability, UncertaintySet
from rldp_models.uncertainty.answered_by_data import AnsweredByData
from rldp_models.uncertainty.conic_support import ConicSupport
from rldp_models.uncertainty.derived import derived_support_at_most
from rldp_models.uncertainty.derived_certificate import simplex_bound
from rldp_models.uncertainty.derived_form import (
    CANONICAL_SOLVER,
    ConicDescription,
    cone_constraints,
    conic_description,
)
from rldp_models.uncertainty.nonempty import is_member, member_point, phat_is_member
from rldp_models.uncertainty.set_data import Membership, SetData, compile_membership

if TYPE_CHECKING:
    import cvxpy as cp

    from rldp_models.data import Crosstab

CONIC = "conic"
"""The name a record declares a set from membership data under."""

INTERSECTION = "intersection"
"""The name a record declares ``F1 & F2`` under (its parts under ``parts``)."""

NOT_CLAIMED = "not claimed"
"""A set from data's ``coverage``."""


class ConicSet(AnsweredByData):
    """A set that is its conic data (module docstring).

    Parameters
    ----------
    phat : ndarray, shape (|S|, |U|)
    description : ConicDescription
        The data at ``phat``.
    name : str
    radius : float
        Informational (the set is its data): the radius the user states, else 0.
    declaration : dict
        How a record declares the set (:func:`from_membership`, :func:`intersection`).
    parts : tuple of sets
        An intersection's two sets (declared by
        :func:`~rldp_models.uncertainty.declared.set_declaration`).
    exact_b : list of Fraction, optional
        ``b`` in rationals (data at ``Phat = counts / n`` exactly); default the doubles of
        ``description``. The set certified and proved non-empty is the one of ``exact_b``.
    exact_phat : list of Fraction, optional
        ``counts / n`` when the counts are known: the member tried first
        (:meth:`stored_member`).
    """

    capabilities: ClassVar[frozenset[Capability]] = frozenset({Capability.CONDITIONAL_DUAL})
    alpha = None

    def __init__(self, phat: np.ndarray, description: ConicDescription, name: str,
                 radius: float, declaration: dict[str, Any],
                 parts: tuple[UncertaintySet, ...] = (),
                 exact_b: list[Fraction] | None = None,
                 exact_phat: list[Fraction] | None = None) -> None:
        self.phat, self.exact_phat = np.asarray(phat, dtype=float), exact_phat
        self.exact_b = [Fraction(float(x)) for x in description.b_vector] \
            if exact_b is None else exact_b
        self.description, self.name, self.radius = description, name, float(radius)
        self.declaration, self.parts = declaration, parts

    def __and__(self, other: Any) -> "ConicSet":
        return intersection(self, other)

    def __rand__(self, other: Any) -> "ConicSet":
        return intersection(other, self)

    def proved_nonempty(self, counts: np.ndarray) -> bool:
        """Whether ``Phat = counts / n`` is proved a member in rationals (:mod:`.nonempty`)."""
        flat = np.asarray(counts).ravel()
        total = int(flat.sum())
        if total <= 0:
            return False
        return phat_is_member(self.description, self.exact_b,
                              [Fraction(int(c), total) for c in flat])

    def stored_member(self) -> list[Fraction] | None:
        """The member a record stores (:mod:`.nonempty`): None when ``Phat = counts / n`` is
        proved one, else a rational point ``x`` of the data proved in the set (None if none
        is found: the record then cannot prove the set non-empty, and verify refuses it)."""
        if self.exact_phat is not None and \
                phat_is_member(self.description, self.exact_b, self.exact_phat):
            return None
        return member_point(self.description, self.exact_b)

    def proved_member(self, stored: Any) -> bool:
        """Whether ``stored`` (a record's ``member``: rationals as strings, one per column of
        the data) is proved a point of the set in rationals."""
        try:
            x = [Fraction(str(value)) for value in stored]
        except (TypeError, ValueError, ZeroDivisionError):
            return False
        return is_member(self.description, self.exact_b, x)

    def membership(self, p: cp.Expression) -> list[Any]:
        """``b - A x in K`` with ``x[columns] = p``: the data as cvxpy constraints."""
        import cvxpy as cp  # here, not at the top: rldp solve's default path never needs cvxpy

        x = cp.Variable(self.description.a_matrix.shape[1])
        return [x[self.description.columns] == cp.reshape(p, (p.size,), order="C"),
                *cone_constraints(self.description, x)]

    def support_at_most(self, v: cp.Expression, rhs: Any,
                        value: Callable[[str], Any] | None = None) -> ConicSupport:
        """The derived dual's counterpart (:func:`~.derived.derived_support_at_most`), with no
        margin inside ``K*``: nothing proves this set's bounds with the solver's ``y`` alone
        (conditional bounds are proved from (CC), a worst case also from the primal's cone
        duals, :meth:`support_multipliers`, strictly inside ``K*``), so the margin would only
        make the protocol conservative (V3 at 5x11: ``1e-9 b.1_K`` per term, 2e-6 of the
        objective at Clarabel's 1e-10 tolerances)."""
        return derived_support_at_most(self.description, v, rhs, margin=0.0)

    def certified_support_bound(self, v: ExactVector,
                                multipliers: Mapping[str, Any]) -> mpmath.mpf:
        """The derived certificate at ``{"y": ...}``; ``max v`` at anything else."""
        if "y" not in multipliers:
            return simplex_bound(exact_entries(v))
        return self.data_bound(v, multipliers)

    def contains(self, p: np.ndarray, tol: float = 0.0) -> bool:
        """Membership by a feasibility solve over the data (``tol``: the solver's)."""
        import cvxpy as cp  # here, not at the top: rldp solve's default path never needs cvxpy

        problem = cp.Problem(cp.Minimize(0), self.membership(
            cp.Constant(np.asarray(p, dtype=float).ravel())))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            problem.solve(solver=CANONICAL_SOLVER)
        return problem.status == cp.OPTIMAL

def from_membership(crosstab: "Crosstab | np.ndarray", membership: Membership,
                    name: str = "conic", radius: float = 0.0) -> ConicSet:
    """A set declared by ``membership(P, phat)`` (:mod:`.set_data`), around the table's Phat.

    Parameters
    ----------
    crosstab : Crosstab or ndarray
        The table (its ``phat``), or ``Phat`` itself, shape ``(|S|, |U|)``.
    membership : callable
        ``(P, phat) -> list of cvxpy constraints``; ``P`` a Variable of ``|X|``
        entries (row-major ``(s, u)``), ``phat`` a Parameter holding ``Phat``
        flattened the same way. ``P >= 0`` and ``sum P = 1`` are added.
    name : str
        How records and reports name the set.
    radius : float
        Informational: the radius the user states (0: none).
    """
    phat = np.asarray(getattr(crosstab, "phat", crosstab), dtype=float)
    data = compile_membership(phat, membership)
    return from_data(phat, data, name, radius, getattr(crosstab, "counts", None))


def from_data(phat: np.ndarray, data: SetData, name: str, radius: float,
              counts: np.ndarray | None = None) -> ConicSet:
    """The set of conic data ``data`` at ``phat`` (what ``rldp verify`` rebuilds); with
    ``counts``, its rational ``b`` at ``Phat = counts / n`` exactly."""
    declaration = {"set": CONIC, "name": name, "radius": float(radius), "alpha": None,
                   "coverage": NOT_CLAIMED, "data": data.to_json()}
    flat = None if counts is None else np.asarray(counts).ravel()
    exact = [Fraction(float(p)) for p in np.ravel(phat)] if flat is None else \
        [Fraction(int(c), int(flat.sum())) for c in flat]
    return ConicSet(phat, data.description(phat), name, radius, declaration,
                    exact_b=data.exact_b(exact), exact_phat=None if flat is None else exact)


def _part_data(part: UncertaintySet) -> tuple[ConicDescription, list[Fraction]]:
    """A part's conic data and its ``b`` in rationals: a set from data's own (exact at
    ``counts / n``), else cvxpy's form of its membership and the doubles as they are."""
    if isinstance(part, AnsweredByData):
        return part.description, list(part.exact_b)
    description = conic_description(part)
    return description, [Fraction(float(x)) for x in description.b_vector]


def _stacked(first: tuple[ConicDescription, list[Fraction]],
             second: tuple[ConicDescription, list[Fraction]]
             ) -> tuple[ConicDescription, list[Fraction]]:
    """The data of both sets together: the second's rows below the first's, its ``P``
    columns mapped onto the first's, its other columns appended; ``b`` stacked exactly.

    Stacking, not compiling both memberships again, keeps each part's ``b`` exact: a
    transport plan's marginal rows tie the plan to ``Phat``, and with ``Phat``'s doubles
    (not ``counts / n``) they disagree with an exact ``P = Phat`` in the last bit, so no
    member could be proved.
    """
    (one, one_b), (two, two_b) = first, second
    rows, n_one = one.a_matrix.shape
    n_two = two.a_matrix.shape[1]
    mapping = np.empty(n_two, dtype=int)
    others = np.setdiff1d(np.arange(n_two), two.columns)
    mapping[two.columns] = one.columns
    mapping[others] = n_one + np.arange(others.size)
    upper, lower = sparse.coo_matrix(one.a_matrix), sparse.coo_matrix(two.a_matrix)
    a = sparse.csc_matrix((np.concatenate([upper.data, lower.data]),
                           (np.concatenate([upper.row, rows + lower.row]),
                            np.concatenate([upper.col, mapping[lower.col]]))),
                          shape=(rows + lower.shape[0], n_one + others.size))
    cones = (*one.cones, *((kind, block + rows) for kind, block in two.cones))
    description = ConicDescription(a, np.concatenate([one.b_vector, two.b_vector]),
                                   one.columns, cones, (*one.alphas, *two.alphas))
    return description, [*one_b, *two_b]


def intersection(first: UncertaintySet, second: UncertaintySet) -> ConicSet:
    """``first & second`` as a set from data (module docstring; data by :func:`_stacked`).

    Raises
    ------
    ValueError
        If the two sets are not around the same ``Phat``.
    """
    if np.shape(first.phat) != np.shape(second.phat) or \
            not np.array_equal(first.phat, second.phat):
        raise ValueError("an intersection needs two sets around the same Phat")
    name = f"{first.name} & {second.name}"
    declaration = {"set": INTERSECTION, "name": name, "radius": float(first.radius),
                   "alpha": None, "coverage": NOT_CLAIMED}
    description, exact_b = _stacked(_part_data(first), _part_data(second))
    counted = [getattr(part, "exact_phat", None) for part in (first, second)]
    return ConicSet(first.phat, description, name, first.radius, declaration,
                    (first, second), exact_b, next((p for p in counted if p is not None), None))
