"""The mechanism a cone LP returns, certified exactly against its stated guarantee.

The rays are computed for a cone slightly inside the stated one
(:func:`rldp_models.conelp.cones.inner_ratio`), so the LP's ``Q`` normally
meets the guarantee with room to spare. Whether it does is decided exactly
and independently of the solver by the notion's certifier from
:mod:`rldp_models.privacy.matrix_checks` (the doubles of ``Q`` taken as exact
rationals, ``e^eps`` enclosed by interval arithmetic). When the check fails,
``Q`` is repaired (``rldp-models`` design, core idea 4):

* ``eps > 0``: ``Q`` is mixed with the uniform mechanism ``U`` on its
  outputs. Every privacy constraint is linear in each column of ``Q``, hence
  convex in ``Q``, and ``U`` meets each one with slack ``> 0``. The first
  weight is the smallest giving every stated constraint a slack of
  :data:`ROUNDING_ROOM` in floating point; the mixture is rounded to dyadic
  rows, certified exactly and the weight doubled until it passes (the one
  finish path, :func:`rldp_models.finish.finish`).
* When mixing was needed and the caller gives the LP's cone exactly
  (:class:`~rldp_models.conelp.exact_basis.ExactCone`), the LP's basic
  solution recomputed in exact rationals
  (:func:`~rldp_models.conelp.exact_basis.exact_basis_mechanism`) is returned
  instead, with method ``"none"``, when it passes the exact check and has at
  least the repaired mechanism's utility: its columns lie on the LP's exact
  rays, so it meets even the equalities of ``eps = 0`` exactly.
* ``eps = 0``, or when the weight reaches 1: mixing cannot help (``U`` meets
  the equalities of ``eps = 0`` with no slack, so mixing only scales a
  violation). The mechanism falls back to the one-output mechanism, which
  ignores its input and is exactly private for every notion here. Every
  mechanism with equal rows has utility ``mu(1)`` (``mu`` is positively
  homogeneous), so no other input-ignoring mechanism does better.

The returned mechanism always passes its exact check; the method
(``"none"``, ``"mix"`` with ``reference`` ``"uniform"``, or ``"fallback"``: the
one-output mechanism), the weight and the utility before and after are reported
in the one repair record, :class:`rldp_models.finish.Repair`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from rldp_models.conelp.engine import ColumnUtility, ConeLPSolution
from rldp_models.conelp.exact_basis import ExactCone, exact_basis_mechanisms
from rldp_models.finish import GuaranteeError as NoResult
from rldp_models.finish import Repair, dyadic_rows, finish
from rldp_models.privacy import Certification

Certifier = Callable[[np.ndarray], Certification]
"""Decides exactly whether a mechanism ``Q`` meets the stated guarantee."""

ROUNDING_ROOM = 2.0**-46
"""Slack, relative to ``|a|.q``, that the first mixing weight gives each stated row ``a``."""

MIN_WEIGHT = 2.0**-52
"""Least first mixing weight."""


class GuaranteeError(ArithmeticError):
    """Even the one-output mechanism fails its exact check (a certifier bug)."""


@dataclass(frozen=True)
class OptimalMechanism:
    """An optimal mechanism from a cone LP, certified exactly.

    Attributes
    ----------
    Q : ndarray, shape (|X|, |Y|)
        ``Q[x, y] = P(Y=y | X=x)``.
    utility : float
        ``U(Q)`` recomputed from the returned ``Q``.
    eps : float
        The privacy level the mechanism meets exactly.
    solution : ConeLPSolution
        The LP solution, with its dual certificate (it bounds the utility of
        every mechanism in the LP's cone, whatever the repair).
    certification : Certification
        The exact verdict on ``Q`` (``holds`` is true) and its worst pair.
    repair : Repair
        How ``Q`` was obtained from the LP's mechanism (:class:`rldp_models.finish.Repair`;
        ``value_before`` and ``value_after`` are the utilities ``U(Q)``).
    """

    Q: np.ndarray
    utility: float
    eps: float
    solution: ConeLPSolution
    certification: Certification
    repair: Repair


def guaranteed_mechanism(Q: np.ndarray, rows: np.ndarray, certify: Certifier,
                         utility: ColumnUtility, eps: float,
                         solution: ConeLPSolution, exact: ExactCone | None = None
                         ) -> OptimalMechanism:
    """Certify the LP's mechanism exactly, repairing it if needed (see the module docstring).

    Parameters
    ----------
    Q : ndarray
        Row-stochastic mechanism from the LP.
    rows : ndarray
        The stated privacy constraints ``a.q >= 0`` on each column, in floating
        point; they only set the first mixing weight.
    certify : Certifier
        The exact check of the stated guarantee at ``eps``.
    utility : ColumnUtility
        Used to report ``U(Q)`` before and after.
    eps : float
    solution : ConeLPSolution
    exact : ExactCone, optional
        The LP's cone in exact rationals: when ``Q`` needs a repair, the
        exact basic solution on ``solution.vectors`` is tried first.
    """
    Q, certification, repair = certified(Q, rows, certify, utility, eps)
    if repair.method != "none" and exact is not None:
        Q, certification, repair = _better_exact(Q, certification, repair, solution.vectors,
                                                 exact, certify, utility)
    return OptimalMechanism(Q=Q, utility=utility_after(repair), eps=eps, solution=solution,
                            certification=certification, repair=repair)


def certified(Q: np.ndarray, rows: np.ndarray, certify: Certifier, utility: ColumnUtility,
              eps: float) -> tuple[np.ndarray, Certification, Repair]:
    """``Q`` or its repair, the exact verdict on it, and the :class:`Repair` record.

    Parameters are those of :func:`guaranteed_mechanism`.

    Raises
    ------
    GuaranteeError
        If the one-output mechanism fails ``certify``.
    """
    try:
        finished = finish(Q, lambda matrix, weight: certify(matrix), lambda v: v.holds,
                          value=lambda matrix: _utility(utility, matrix),
                          first_weight=first_weight(rows, Q) if eps > 0 else None,
                          fallback=np.ones((Q.shape[0], 1)))
    except NoResult:
        raise GuaranteeError("the one-output mechanism fails its exact privacy check") from None
    return finished.matrix, finished.verdict, finished.repair


def _better_exact(Q: np.ndarray, certification: Certification, repair: Repair,
                  vectors: np.ndarray, exact: ExactCone, certify: Certifier,
                  utility: ColumnUtility) -> tuple[np.ndarray, Certification, Repair]:
    """The best exact-basis candidate that passes and beats the repaired ``Q``, else the latter."""
    best = (Q, certification, repair)
    for candidate in exact_basis_mechanisms(vectors, exact):
        rounded = dyadic_rows(candidate)
        verdict = certify(rounded)
        value = _utility(utility, rounded)
        if verdict.holds and value > utility_after(best[2]):
            best = (rounded, verdict, Repair("none", 0.0, value, value))
    return best


def utility_after(repair: Repair) -> float:
    """The utility of the returned mechanism (:func:`certified` always gives ``value=``)."""
    if repair.value_after is None:
        raise TypeError("finish returned a repair without the utilities")
    return repair.value_after


def first_weight(rows: np.ndarray, Q: np.ndarray) -> float:
    """Smallest ``t`` giving ``(1-t) Q + t U`` slack ``ROUNDING_ROOM |a|.q`` on every row ``a``.

    The rows are the stated ones and ``q >= 0``, in floating point; the slack
    of a mixture is the same mixture of slacks. Returns at least
    :data:`MIN_WEIGHT`, and 1 when ``U`` itself lacks that slack on a row
    ``Q`` falls short of.
    """
    constraints = np.vstack([np.eye(Q.shape[0]), rows])
    room = ROUNDING_ROOM * np.abs(constraints)
    slack = (constraints - room) @ Q
    uniform = ((constraints - room).sum(axis=1) / Q.shape[1])[:, None]
    short = slack < 0
    if np.any(short & (uniform <= 0)):
        return 1.0
    needed = np.where(short, -slack / np.where(short, uniform - slack, 1.0), 0.0)
    return float(np.clip(needed.max(initial=0.0), MIN_WEIGHT, 1.0))


def _utility(utility: ColumnUtility, Q: np.ndarray) -> float:
    return float(np.sum(utility.columns(Q)))
