"""eps-SRLIP protocols attribute by attribute (Theorem 3 of ``privacy-funnel-ldp-lip.txt``).

For data ``X = (X^1, ..., X^m)`` Theorem 3 composes per-attribute protocols
``Q^j``: if each ``Q^j`` is ``eps^j``-LIP w.r.t. ``p_{S,X|x^J}`` for every set
``J`` of *other* attributes and every value ``x^J``, then ``prod_j Q^j`` is
``(sum_j eps^j)``-SRLIP. Conditions (15)-(16) constrain each column of
``Q^j`` separately, so the feasible ``Q^j`` are those with columns in the cone

    ``C_j = {q >= 0 : e^-eps^j p_{X^j|x^J}.q <= p_{X^j|s,x^J}.q <= e^eps^j p_{X^j|x^J}.q}``

of ``R^{a_j}`` (over all ``J``, ``x^J`` and ``s`` with positive probability),
and ``Q^j`` maximising ``I(X^j; Y^j)`` is a cone LP over its rays. The paper
enumerates vertices of the ``a_j (a_j - 1)``-dimensional polytope (13)-(16)
instead. The budget is split evenly, ``eps^j = eps / m``, unless ``split``
says otherwise; as the paper notes, the result is not the optimal eps-SRLIP
protocol, only the best product of per-attribute protocols for that split.

Exactness: each ``Q^j`` is certified exactly against (15)-(16) at ``eps^j``
and the product against Definition 3 at ``eps`` (the product's entries are
rounded, and an even split may sum to ``eps`` plus an ulp, so Theorem 3
alone does not make the stored doubles exact); either is repaired as in
:mod:`rldp_models.conelp.mechanism` if its check fails.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import partial, reduce
from itertools import combinations
from typing import Literal, Sequence

import numpy as np
from numpy.typing import ArrayLike

from rldp_models.conelp.cones import inner_ratio, two_sided_ratio_rows
from rldp_models.conelp.double_description import extreme_rays
from rldp_models.conelp.engine import ConeLP
from rldp_models.conelp.joint import as_joint_distribution, exact
from rldp_models.conelp.exact_basis import ExactCone
from rldp_models.conelp.mechanism import (Certifier, OptimalMechanism, certified,
                                          guaranteed_mechanism, utility_after)
from rldp_models.errors import InputError
from rldp_models.finish import Repair
from rldp_models.privacy import Certification, certify_srlip
from rldp_models.utility import MutualInformation
from rldp_models.validation import as_epsilon

SPLIT_TOLERANCE = 1e-12
"""Relative slack allowed when checking ``sum(split) <= eps``."""


@dataclass(frozen=True)
class SRLIPMechanism:
    """A product protocol ``Q = Q^1 x ... x Q^m`` meeting eps-SRLIP by Theorem 3.

    Attributes
    ----------
    Q : ndarray
        ``Q[x, y]`` with ``x = (x^1, ..., x^m)`` and ``y = (y^1, ..., y^m)`` in
        row-major order (the order of ``p_joint[s].ravel()``): the product of
        the attributes' ``Q^j`` unless ``repair.method`` is not ``"none"``.
    utility : float
        ``I(X;Y)`` of ``Q``.
    eps : float
    split : tuple of float
        The budgets ``eps^j``.
    attributes : tuple of OptimalMechanism
        The per-attribute protocols ``Q^j`` (each optimal for ``I(X^j;Y^j)``),
        each certified exactly against (15)-(16) at ``eps^j``; the worst pair
        of ``Q^j`` is that of :func:`~rldp_models.privacy.matrix_checks.certify_srlip`
        for the mechanism applying ``Q^j`` to ``x^j`` and ignoring the rest.
    certification : Certification
        Exact eps-SRLIP verdict on ``Q``
        (:func:`~rldp_models.privacy.matrix_checks.certify_srlip`).
    repair : Repair
        How ``Q`` was obtained from the product.
    """

    Q: np.ndarray
    utility: float
    eps: float
    split: tuple[float, ...]
    attributes: tuple[OptimalMechanism, ...]
    certification: Certification
    repair: Repair


def srlip_mechanism(p_joint: ArrayLike, eps: float, split: Sequence[float] | None = None, *,
                    solver: str = "highspy",
                    method: Literal["auto", "float", "exact"] = "auto") -> SRLIPMechanism:
    """An eps-SRLIP protocol from per-attribute cone LPs (Theorem 3, eqs. (13)-(16)).

    Parameters
    ----------
    p_joint : array_like, shape (c, a_1, ..., a_m)
        ``P(S=s, X^1=x^1, ..., X^m=x^m)``.
    eps : float
        Total privacy level, ``>= 0``.
    split : sequence of float, optional
        Per-attribute budgets ``eps^j >= 0`` with ``sum <= eps`` (default ``eps / m`` each).
    solver : str
        Registry name for the LPs.
    method : {"auto", "float", "exact"}
        Double-description arithmetic.
    """
    joint = as_joint_distribution(p_joint, ndim=None, name="p_joint")
    eps = as_epsilon(eps)
    budgets = split_budgets(eps, joint.ndim - 1, split)
    attributes = tuple(_attribute_mechanism(joint, j, budget, solver, method)
                       for j, budget in enumerate(budgets))
    product = reduce(np.kron, (attribute.Q for attribute in attributes))
    flat = joint.reshape(joint.shape[0], -1)
    certify = partial(certify_srlip, p_sx=flat, attribute_sizes=joint.shape[1:], eps=eps)
    Q, certification, repair = certified(product, srlip_rows(joint, np.exp(eps)), certify,
                                         MutualInformation(flat.sum(axis=0)), eps)
    return SRLIPMechanism(Q=Q, utility=utility_after(repair), eps=eps, split=budgets,
                          attributes=attributes, certification=certification, repair=repair)


def split_budgets(eps: float, m: int, split: Sequence[float] | None) -> tuple[float, ...]:
    """The per-attribute budgets ``eps^j`` of :func:`srlip_mechanism` (``split`` checked)."""
    if split is None:
        return (eps / m,) * m
    budgets = tuple(as_epsilon(value) for value in split)
    if len(budgets) != m:
        raise InputError(f"split needs one budget per attribute ({m}), got {len(budgets)}")
    if sum(budgets) > eps * (1.0 + SPLIT_TOLERANCE):
        raise InputError(f"the split sums to {sum(budgets)}, more than eps = {eps}")
    return budgets


def _attribute_mechanism(joint: np.ndarray, j: int, eps_j: float, solver: str,
                         method: Literal["auto", "float", "exact"]) -> OptimalMechanism:
    """``Q^j`` maximising ``I(X^j;Y^j)`` over the cone ``C_j``."""
    a_j = joint.shape[1 + j]
    prior = joint.sum(axis=tuple(axis for axis in range(joint.ndim) if axis != 1 + j))
    inner = attribute_rows(exact(joint), j, Fraction(inner_ratio(eps_j)))
    rays = extreme_rays(inner, method=method)
    utility = MutualInformation(prior)
    solution = ConeLP.from_utility(rays, utility, np.ones(a_j)).solve(solver)
    stated = attribute_rows(joint, j, np.exp(eps_j))
    return guaranteed_mechanism(solution.columns, stated, _attribute_certifier(joint, j, eps_j),
                                utility, eps_j, solution, ExactCone(inner))


def _attribute_certifier(joint: np.ndarray, j: int, eps_j: float) -> Certifier:
    """Exact check of (15)-(16) for ``Q^j``: eps^j-SRLIP of ``Q^j`` applied to ``x^j`` alone.

    That mechanism, ``Q[x, y] = Q^j[x^j, y]``, has ``P(y | s, x^J)`` equal to
    ``Q^j``'s under ``p_{S,X^j | x^J}`` for ``J`` not containing ``j``, which is
    (15)-(16); for ``J`` containing ``j``, ``P(y | s, x^J) = Q^j[x^j, y] = P(y | x^J)``
    exactly. So :func:`~rldp_models.privacy.matrix_checks.certify_srlip`
    decides the conditions in exact rationals, marginals included.
    """
    sizes = joint.shape[1:]
    flat = joint.reshape(joint.shape[0], -1)

    def certify(Q_j: np.ndarray) -> Certification:
        factors = [Q_j if i == j else np.ones((size, 1)) for i, size in enumerate(sizes)]
        return certify_srlip(reduce(np.kron, factors), flat, sizes, eps_j)

    return certify


def srlip_rows(joint: np.ndarray, ratio: float | Fraction) -> np.ndarray:
    """Definition 3, eq. (12), as rows ``a.q >= 0`` on a column of a mechanism on all of ``X``.

    The rows of :func:`attribute_rows` for an extra attribute that copies
    ``X``: given ``x^J`` (``J`` any set of the real attributes) the copy is
    distributed as ``p_{X|s,x^J}``.
    """
    c, sizes = joint.shape[0], joint.shape[1:]
    a = int(np.prod(sizes))
    copied = np.zeros((c, a, a), dtype=joint.dtype)
    copied[:, np.arange(a), np.arange(a)] = joint.reshape(c, a)
    return attribute_rows(copied.reshape(c, *sizes, a), len(sizes), ratio)


def attribute_rows(joint: np.ndarray, j: int, ratio: float | Fraction) -> np.ndarray:
    """Conditions (15)-(16) for attribute ``j`` as rows ``a.q >= 0`` on a column of ``Q^j``.

    One pair of rows per set ``J`` of other attributes (``J`` empty included),
    value ``x^J`` with ``P(x^J) > 0`` and secret ``s`` with ``P(s, x^J) > 0``.
    ``joint`` may be a float or an exact (``Fraction``) array.
    """
    others = [axis for axis in range(1, joint.ndim) if axis != 1 + j]
    rows = [_conditioned_rows(joint, 1 + j, list(J), ratio)
            for size in range(len(others) + 1) for J in combinations(others, size)]
    return np.vstack(rows)


def _conditioned_rows(joint: np.ndarray, axis: int, J: list[int],
                      ratio: float | Fraction) -> np.ndarray:
    """Rows comparing ``p_{X^j|s,x^J}`` with ``p_{X^j|x^J}`` for every ``x^J`` and ``s``."""
    dropped = tuple(a for a in range(1, joint.ndim) if a != axis and a not in J)
    marginal = np.moveaxis(joint.sum(axis=dropped), axis - sum(d < axis for d in dropped), 1)
    c, a_j = marginal.shape[:2]
    table = marginal.reshape(c, a_j, -1)  # [s, x^j, x^J]
    p_s_xJ = table.sum(axis=1)  # [s, x^J]
    p_xJ = table.sum(axis=(0, 1))  # [x^J]
    s, t = np.nonzero(p_s_xJ > 0)
    conditionals = table[s, :, t] / p_s_xJ[s, t, None]
    references = table.sum(axis=0)[:, t].T / p_xJ[t, None]
    return two_sided_ratio_rows(conditionals, references, ratio)
