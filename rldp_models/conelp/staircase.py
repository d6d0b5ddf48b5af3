"""The optimal eps-LDP mechanism by the staircase LP (Theorem 4 of ``extremal-mechanisms-ldp.txt``).

The LDP cone ``{q >= 0 : q_x <= e^eps q_x'}`` has the staircase patterns as
its extreme rays (Theorem 2 (b), Definition 3), known in closed form, so the
cone LP needs no vertex enumeration; column generation prices all ``2^k - 2``
patterns by subset sums and keeps the master LP at ``k`` rows.
"""

from __future__ import annotations

from functools import partial

import numpy as np
from numpy.typing import ArrayLike
from scipy.special import xlogy

from rldp_models.conelp.cones import inner_ratio, pairwise_ratio_rows
from rldp_models.conelp.engine import ColumnUtility, ConeLP
from rldp_models.conelp.mechanism import OptimalMechanism, guaranteed_mechanism
from rldp_models.conelp.rays import RaySet, StaircaseRays, staircase_rays, subset_sums
from rldp_models.errors import InputError
from rldp_models.privacy import certify_ldp
from rldp_models.utility import MutualInformation
from rldp_models.validation import as_epsilon, as_probability_vector


def staircase_mechanism(prior: ArrayLike, eps: float, utility: ColumnUtility | None = None, *,
                        solver: str = "highspy") -> OptimalMechanism:
    """The eps-LDP mechanism maximising ``U(Q) = sum_y mu(Q_y)``.

    Parameters
    ----------
    prior : array_like, shape (k,)
        Distribution of ``X``; fixes ``k`` and the default utility.
    eps : float
        Privacy level, ``>= 0``.
    utility : ColumnUtility, optional
        A sublinear utility on columns of length ``k`` (default: mutual
        information ``I(X;Y)`` under ``prior``, Sec. 4).
    solver : str
        Registry name for the master LPs.

    Returns
    -------
    OptimalMechanism
        ``Q`` (at most ``k`` outputs, Theorem 2 (a)), its utility, the LP
        certificate, and the exact eps-LDP verdict
        (:func:`~rldp_models.privacy.matrix_checks.certify_ldp`) with the repair
        it needed (:mod:`rldp_models.conelp.mechanism`).
    """
    prior = as_probability_vector(prior, "prior")
    eps = as_epsilon(eps)
    utility = MutualInformation(prior) if utility is None else utility
    if utility.size != prior.size:
        raise InputError(f"the utility is for {utility.size} inputs, the prior has {prior.size}")
    rays = staircase_rays(prior.size, inner_ratio(eps))
    lp = ConeLP(rays, pattern_utilities(rays, utility), np.ones(prior.size))
    solution = lp.solve(solver)
    stated = pairwise_ratio_rows(np.eye(prior.size), np.exp(eps))
    return guaranteed_mechanism(solution.columns, stated, partial(certify_ldp, eps=eps), utility,
                                eps, solution)


def pattern_utilities(rays: RaySet, utility: ColumnUtility) -> np.ndarray:
    """``mu`` of every staircase pattern.

    For mutual information ``mu(S_A)`` depends on ``A`` only through ``P(A)``
    (Sec. 4, display after eq. (18), with ``S_A`` in ``{1, r}``):
    ``mu(S_A) = r log(r) P(A) - (1 + (r-1) P(A)) log(1 + (r-1) P(A))``,
    evaluated for all ``A`` from subset sums. Other utilities are evaluated
    column by column.
    """
    if isinstance(rays, StaircaseRays) and type(utility) is MutualInformation:
        mass = subset_sums(utility.prior)[1:-1]
        ratio = rays.ratio
        level = 1.0 + (ratio - 1.0) * mass
        return xlogy(ratio, ratio) * mass - xlogy(level, level)
    return ConeLP.from_utility(rays, utility, np.ones(rays.dimension)).utilities
