"""The mechanism a cone LP returns, checked against its stated guarantee.

The rays are computed for a cone slightly inside the stated one
(:func:`rldp_models.conelp.cones.inner_ratio`), so the returned ``Q``
normally meets the guarantee with room to spare. It is still checked against
the *stated* constraints (``e^eps`` itself). Should a column violate them by
more than :data:`CHECK_TOLERANCE` (relative), ``Q`` is mixed with the uniform
mechanism, which is strictly private for ``eps > 0``: every privacy
constraint is convex in ``Q``, so the smallest mixing weight restoring all of
them is found row by row (``rldp-models`` design, core idea 4). The weight and
the utility before and after are reported.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rldp_models.conelp.cones import cone_violation
from rldp_models.conelp.engine import ColumnUtility, ConeLPSolution

CHECK_TOLERANCE = 1e-12
"""Relative violation ``-a.q / (|a| |q|)`` accepted as rounding (it covers ``eps = 0``)."""


class GuaranteeError(ArithmeticError):
    """A mechanism misses its guarantee and mixing with the uniform one cannot repair it."""


@dataclass(frozen=True)
class OptimalMechanism:
    """An optimal mechanism from a cone LP.

    Attributes
    ----------
    Q : ndarray, shape (|X|, |Y|)
        ``Q[x, y] = P(Y=y | X=x)``.
    utility : float
        ``U(Q)`` recomputed from the returned ``Q``.
    eps : float
        The privacy level the mechanism meets.
    solution : ConeLPSolution
        The LP solution, with its dual certificate.
    privacy_violation : float
        Largest relative violation of the stated constraints by ``Q``
        (``<= CHECK_TOLERANCE``).
    repair_weight : float
        Weight of the uniform mechanism mixed in (0 when none was needed).
    """

    Q: np.ndarray
    utility: float
    eps: float
    solution: ConeLPSolution
    privacy_violation: float
    repair_weight: float


def guaranteed_mechanism(Q: np.ndarray, rows: np.ndarray, utility: ColumnUtility, eps: float,
                         solution: ConeLPSolution) -> OptimalMechanism:
    """Check ``Q``'s columns against ``{q >= 0 : rows q >= 0}``; repair by mixing if needed.

    Parameters
    ----------
    Q : ndarray
        Row-stochastic mechanism.
    rows : ndarray
        The stated privacy constraints ``a.q >= 0`` on each column (with ``e^eps``).
    utility : ColumnUtility
        Used to report ``U(Q)``.
    eps : float
    solution : ConeLPSolution

    Raises
    ------
    GuaranteeError
        If ``Q`` violates the constraints and the uniform mechanism is not
        strictly inside them (only possible for ``eps = 0``).
    """
    weight = 0.0
    if cone_violation(rows, Q) > CHECK_TOLERANCE:
        weight = _mixing_weight(rows, Q)
        Q = (1.0 - weight) * Q + weight / Q.shape[1]
    violation = cone_violation(rows, Q)
    if violation > CHECK_TOLERANCE:
        raise GuaranteeError(f"the mechanism violates its guarantee by {violation:.3g} (relative)")
    return OptimalMechanism(Q=Q, utility=float(np.sum(utility.columns(Q))), eps=eps,
                            solution=solution, privacy_violation=violation,
                            repair_weight=weight)


def _mixing_weight(rows: np.ndarray, Q: np.ndarray) -> float:
    """Smallest ``t`` (with a 1e-6 relative safety factor) putting ``(1-t) Q + t/b`` in the cone."""
    constraints = np.vstack([np.eye(Q.shape[0]), rows])
    slack = constraints @ Q
    uniform = (constraints @ np.full(Q.shape[0], 1.0 / Q.shape[1]))[:, None]
    violated = slack < 0
    if np.any(violated & (uniform <= 0)):
        raise GuaranteeError("the mechanism violates a constraint that the uniform one meets "
                             "only with equality; it cannot be repaired by mixing")
    needed = np.where(violated, -slack / np.where(violated, uniform - slack, 1.0), 0.0)
    return min(1.0, float(needed.max()) * (1.0 + 1e-6))
