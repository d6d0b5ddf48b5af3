"""PolyOpt (``rldp-privacy-utility-tradeoff.txt``, Sec. V: Theorems 11-12, Lemma 13).

Every column of the protocol is confined to the cone Gamma of eq. (44)
(:mod:`.polyopt_gamma`), which makes it ``(eps, F)``-RLDP (Theorem 11).
Maximising ``I_Phat(X;Y)`` over such protocols is the cone LP (47) over the
extreme rays of Gamma, solved by :class:`rldp_models.conelp.ConeLP` with its
dual certificate (``Q^1``); the same LP with the rigorous lower bounds on
``mu^2`` of :mod:`.polyopt_robust` gives ``Q^2`` and the robust bound ``L``.
The rays are those of Gamma at ``inner_ratio(eps) <= e^eps`` from exact
rational rows (:func:`rldp_models.conelp.extreme_rays`: verified float cdd,
exact fallback). The returned ``Q`` is checked by
:func:`rldp_models.privacy.worst_case.worst_case_epsilon` and mixed with the
uniform protocol on its outputs if the proven level exceeded ``eps``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from rldp_models.conelp import ConeLP, DualCertificate, extreme_rays, inner_ratio
from rldp_models.conelp.rays import ExplicitRays
from rldp_models.data import Crosstab
from rldp_models.errors import InputError
from rldp_models.privacy.worst_case import worst_case_epsilon
from rldp_models.rldp_protocols.polyopt_gamma import (box_simplex_vertices, conditional_bounds,
                                                      gamma_rows, safe_coordinate_bounds,
                                                      simplex_vertices)
from rldp_models.rldp_protocols.polyopt_robust import robust_utility_lower_bounds
from rldp_models.uncertainty.chi_square import ChiSquareSet
from rldp_models.utility import MutualInformation
from rldp_models.validation import as_epsilon

FIRST_MIX_WEIGHT = 1e-9
"""First weight of the uniform protocol when a proven level exceeds ``eps``."""


@dataclass(frozen=True)
class PolyOptResult:
    """Output of :func:`polyopt_protocol`.

    Attributes
    ----------
    Q : ndarray, shape (|X|, |Y|)
        ``Q^1[x, y]``, ``x = (s, u)`` row-major; rows sum to 1 within 1e-15.
    utility_hat : float
        ``I_Phat(X; Y)`` recomputed from ``Q``.
    lower_bound : float
        ``L`` of Theorem 12(2), ``sum_v theta^2_v mu^2(v)``, with each ``mu^2(v)``
        replaced by the rigorous lower bound of :mod:`.polyopt_robust` (so
        ``L`` is at most the paper's): ``inf_{P in F} I_P(X; Q^2(X)) >= L``.
        0 (trivially valid) if ``Q^2`` had to be mixed with the uniform protocol.
    Q2 : ndarray
        ``Q^2`` (columns in Gamma as well).
    certificate : DualCertificate
        The LP dual of (47) for ``Q^1`` (one multiplier per ``x``) and its
        largest violation over all rays of Gamma; ``upper_bound`` bounds
        ``I_Phat`` of every protocol with columns in Gamma.
    rldp_certified_eps : float
        Proven ``(eps, F)``-RLDP level of ``Q`` (``<= eps``).
    rldp_certified_eps_q2 : float
        The same for ``Q2``.
    labels : dict
        ``S``, ``U``, ``X`` (``"s|u"``) and ``Y`` (``"ray<r>"``, the ray of Gamma used).
    rays : int
        Number of extreme rays of Gamma.
    exact_rays : bool
        Whether the exact double description produced them.
    mixing_weight : float
        Weight of the uniform protocol mixed into ``Q`` (0 when none was needed).
    """

    Q: np.ndarray
    utility_hat: float
    lower_bound: float
    Q2: np.ndarray
    certificate: DualCertificate
    rldp_certified_eps: float
    rldp_certified_eps_q2: float
    labels: dict[str, list[str]] = field(default_factory=dict)
    rays: int = 0
    exact_rays: bool = False
    mixing_weight: float = 0.0


def gamma_vertices(uncertainty: ChiSquareSet, finer: bool) -> list[list[list[Fraction]]]:
    """Vertices of each ``D_s``: the simplex of Theorem 11, or Remark 14's box-simplex."""
    lower, upper = conditional_bounds(uncertainty)
    if finer:
        return [box_simplex_vertices(lo, hi) for lo, hi in zip(lower, upper)]
    return [simplex_vertices(lo) for lo in lower]


def gamma_extreme_rays(uncertainty: ChiSquareSet, eps: float, *, finer: bool = False
                       ) -> ExplicitRays:
    """Extreme rays of Gamma (eq. 44) at ``inner_ratio(eps)``, scaled to sum 1."""
    rows = gamma_rows(gamma_vertices(uncertainty, finer), Fraction(inner_ratio(eps)))
    return extreme_rays(rows)


def polyopt_protocol(crosstab: Crosstab, eps: float, alpha: float = 0.05, *,
                     finer: bool = False, solver: str = "highspy") -> PolyOptResult:
    """PolyOpt: the protocol maximising ``I_Phat(X;Y)`` with columns in Gamma (Theorem 12).

    Parameters
    ----------
    crosstab : Crosstab
        Counts over ``S x U`` with at least two secrets.
    eps : float
        Privacy level, ``> 0``.
    alpha : float
        Significance level of the chi-square set ``F`` (eq. 3).
    finer : bool
        Use Remark 14's finer polyhedra ``P^min <= R <= P^max`` per conditional.
    solver : str
        Registry name for the LP (47).

    Raises
    ------
    InputError
        On a table with one secret, ``eps <= 0`` or ``alpha`` outside (0, 1).
    """
    eps = as_epsilon(eps)
    if eps <= 0:
        raise InputError(f"PolyOpt needs eps > 0, got {eps}")
    if crosstab.shape[0] < 2:
        raise InputError("PolyOpt needs at least two secret values")
    uncertainty = ChiSquareSet.from_counts(crosstab.counts, alpha)
    rays = gamma_extreme_rays(uncertainty, eps, finer=finer)
    phat = crosstab.phat.ravel()
    utility = MutualInformation(phat)
    ones = np.ones(phat.size)
    first = ConeLP.from_utility(rays, utility, ones).solve(solver)
    Q, level, weight = _certified(first.columns, crosstab.counts, uncertainty, eps)
    lower, upper = safe_coordinate_bounds(phat, uncertainty.radius)
    robust = robust_utility_lower_bounds(rays.matrix, lower, upper)
    second = ConeLP(rays, robust, ones).solve(solver)
    Q2, level2, weight2 = _certified(second.columns, crosstab.counts, uncertainty, eps)
    return PolyOptResult(
        Q=Q, utility_hat=utility.total(Q), lower_bound=second.value if weight2 == 0.0 else 0.0,
        Q2=Q2, certificate=first.certificate, rldp_certified_eps=level,
        rldp_certified_eps_q2=level2, labels=_labels(crosstab, first.rays), rays=rays.count,
        exact_rays=rays.exact, mixing_weight=weight)


def _certified(Q: np.ndarray, counts: np.ndarray, uncertainty: ChiSquareSet,
               eps: float) -> tuple[np.ndarray, float, float]:
    """``Q`` (mixed with the uniform protocol if needed), its proven level, the weight."""
    weight = 0.0
    candidate = Q
    while True:
        level = worst_case_epsilon(candidate, counts, uncertainty).certified
        if level <= eps:
            return candidate, level, weight
        weight = FIRST_MIX_WEIGHT if weight == 0.0 else min(1.0, 2 * weight)
        candidate = (1 - weight) * Q + weight / Q.shape[1]


def _labels(crosstab: Crosstab, rays: np.ndarray) -> dict[str, list]:
    """Labels as the other RLDP protocols give them: X as ``[s, u]`` pairs, row-major."""
    return {"S": list(crosstab.s_labels), "U": list(crosstab.u_labels),
            "X": [[s, u] for s in crosstab.s_labels for u in crosstab.u_labels],
            "Y": [f"ray{int(r)}" for r in rays]}
