"""Shared pieces of the low-complexity RLDP protocols (``rldp-privacy-utility-tradeoff.txt``).

* :class:`RLDPProtocol` -- the one result type: the full matrix over the
  protocol's own output alphabet, its labels, the chosen parameters and the
  utility ``I_Phat(X;Y)`` computed from the matrix beside the theorem's formula.
* :func:`conditional_radii` -- ``d_s`` of eq. (65), the l1 radius of
  ``F_{U|s}`` (Lemma 8 + Proposition 10); ``2`` for a secret without records.
* :func:`theorem17_levels` -- ``delta_s = log(1 + 2 (e^eps2 - 1) / d_s)`` (Thm 17).
* :func:`maximise_on_interval` -- the 1-D search over ``eps_2`` (Secs. VI-VII).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np
from scipy.optimize import minimize_scalar

from rldp_models.data import Crosstab
from rldp_models.mechanisms import RandomizedResponse
from rldp_models.uncertainty.chi_square import ChiSquareSet
from rldp_models.uncertainty.simplex import Simplex
from rldp_models.utility import MutualInformation
from rldp_models.validation import as_epsilon

GRID_POINTS = 101
"""Grid points of the 1-D search before the bounded local refinement."""

LOG_RATIO_MARGIN = 1e-10
"""Log-ratio slack bought by :func:`with_privacy_margin`: above the ulps of the
products that build the matrices and the checker's bisection resolution (1e-12)."""

MAX_UNIFORM_MIX = 1e-6
"""Largest weight of the uniform protocol in :func:`with_privacy_margin`."""


@dataclass(frozen=True)
class RLDPProtocol:
    """A release protocol ``Q: X -> Y`` on ``X = S x U`` with the parameters that built it.

    Attributes
    ----------
    name : str
        ``"ir"``, ``"grr-cr"``, ``"ue-cr"``, ``"srr"`` or ``"grr"``.
    Q : ndarray, shape (|X|, |Y|)
        ``Q[x, y] = P(Y=y | X=x)``, ``x = (s, u)`` in row-major order.
    labels : dict
        ``S``, ``U``, ``X`` (``[s, u]`` pairs) and ``Y`` (the protocol's outputs).
    eps, alpha : float
        Requested level and significance of ``F`` (``F`` is ignored by SRR and GRR).
    n : int
        Records in the crosstab.
    radius_B : float
        ``B`` of eq. (3).
    parameters : dict
        The chosen parameters (``eps_1``, ``eps_2``, per-secret ``delta``, ...).
    utility_hat : float
        ``I_Phat(X;Y)`` in nats, computed from ``Q``.
    utility_theorem : float or None
        The same quantity by the protocol's utility theorem (16, 18 or 20);
        ``None`` for SRR and GRR, which have no separate formula.
    """

    name: str
    Q: np.ndarray
    labels: dict[str, list[Any]]
    eps: float
    alpha: float
    n: int
    radius_B: float
    parameters: dict[str, Any]
    utility_hat: float
    utility_theorem: float | None


def chi_square_set(crosstab: Crosstab, alpha: float) -> ChiSquareSet:
    """``F`` of eq. (3) for the crosstab, keeping its ``(|S|, |U|)`` shape."""
    return ChiSquareSet.from_counts(crosstab.counts, alpha)


def grr(eps: float, k: int) -> np.ndarray:
    """``GRR^eps`` on ``k`` symbols (eq. 16); the identity for a single symbol."""
    return np.ones((1, 1)) if k == 1 else RandomizedResponse(eps, k).matrix()


def conditional_radii(uncertainty: ChiSquareSet) -> np.ndarray:
    """``d_s`` of eq. (65) for every ``s``, capped at the simplex diameter 2.

    ``d_s`` is Proposition 10 applied to ``F_{U|s}`` of Lemma 8; a secret
    with ``Phat_s = 0`` has an unconstrained conditional, so ``d_s = 2``.
    """
    radii = []
    for s in range(uncertainty.phat.shape[0]):
        conditional = uncertainty.conditional(s)
        radius = 2.0 if isinstance(conditional, Simplex) else conditional.l1_radius()[0]
        radii.append(min(2.0, radius))
    return np.array(radii)


def dummy_conditionals(phat: np.ndarray) -> np.ndarray:
    """``Phat_{U|s}`` per row (the dummy law of Protocols 2-3); uniform for empty rows."""
    mass = phat.sum(axis=1, keepdims=True)
    uniform = np.full_like(phat, 1.0 / phat.shape[1])
    return np.divide(phat, mass, out=uniform, where=mass > 0)


def theorem17_levels(eps2: float, radii: np.ndarray) -> np.ndarray:
    """``delta_s = log(1 + 2 (e^eps2 - 1) / d_s)`` of Theorem 17, per secret."""
    return np.log1p(2.0 * np.expm1(eps2) / radii)


def grr_information(eps: float, prior: np.ndarray) -> float:
    """``I(GRR^eps(Z); Z)`` for ``Z ~ prior``, in nats."""
    return MutualInformation(prior).total(grr(eps, prior.size))


def conditional_information(phat: np.ndarray, levels: np.ndarray) -> float:
    """``I(R^S(U); U | S) = sum_s Phat_s I_{Phat_{U|s}}(GRR^{delta_s}(U); U)`` (Thms 18, 20)."""
    mass = phat.sum(axis=1)
    dummies = dummy_conditionals(phat)
    return float(sum(m * grr_information(level, row)
                     for m, level, row in zip(mass, levels, dummies) if m > 0))


def with_privacy_margin(Q: np.ndarray, eps: float) -> tuple[np.ndarray, float]:
    """Mix ``Q`` with the uniform protocol so its guarantee holds strictly in doubles.

    The theorems' guarantees can be tight (e.g. ``eps_2 = 0``, or Lemma 3 and
    Proposition 10 both tight), and then the rounded products may exceed
    ``e^eps`` by ulps and no finite-precision proof can close the gap. A
    convex combination with a perfectly private protocol keeps
    ``(eps, F)``-RLDP and lowers a column's ratio ``r = a/b = e^eps`` by about
    ``theta (1 - e^-eps) / (m b) >= theta (1 - e^-eps) / m`` in log scale
    (``m`` outputs), so ``theta = LOG_RATIO_MARGIN m / (1 - e^-eps)``, capped
    at :data:`MAX_UNIFORM_MIX`, buys the margin. Returns the matrix and ``theta``.
    """
    if eps == 0.0:
        return Q, 0.0
    theta = min(MAX_UNIFORM_MIX, LOG_RATIO_MARGIN * Q.shape[1] / -np.expm1(-eps))
    return (1.0 - theta) * Q + theta / Q.shape[1], float(theta)


def maximise_on_interval(objective: Callable[[float], float], high: float) -> float:
    """A maximiser of ``objective`` on ``[0, high]``: grid search, then a bounded refinement.

    The utilities of IR and GRR-CR as functions of ``eps_2`` are not unimodal
    in general (the optimum often sits at an end point, Sec. VIII-C), so the
    grid locates the basin and Brent's method polishes inside it.
    """
    if high == 0.0:
        return 0.0
    grid = np.linspace(0.0, high, GRID_POINTS)
    values = [objective(t) for t in grid]
    best = int(np.argmax(values))
    low_end, high_end = grid[max(best - 1, 0)], grid[min(best + 1, GRID_POINTS - 1)]
    refined = minimize_scalar(lambda t: -objective(t), bounds=(low_end, high_end),
                              method="bounded", options={"xatol": 1e-10})
    return float(refined.x) if -refined.fun > values[best] else float(grid[best])


def protocol_result(name: str, crosstab: Crosstab, eps: float, alpha: float, Q: np.ndarray,
                    y_labels: list[Any], parameters: dict[str, Any],
                    utility_theorem: float | None) -> RLDPProtocol:
    """Package ``Q`` with its labels and ``I_Phat(X;Y)`` computed from the matrix."""
    uncertainty = chi_square_set(crosstab, alpha)
    labels: dict[str, list[Any]] = {
        "S": list(crosstab.s_labels), "U": list(crosstab.u_labels),
        "X": [[s, u] for s in crosstab.s_labels for u in crosstab.u_labels], "Y": y_labels}
    return RLDPProtocol(name=name, Q=Q, labels=labels, eps=as_epsilon(eps), alpha=alpha,
                        n=crosstab.n, radius_B=uncertainty.radius, parameters=parameters,
                        utility_hat=MutualInformation(crosstab.phat.ravel()).total(Q),
                        utility_theorem=utility_theorem)
