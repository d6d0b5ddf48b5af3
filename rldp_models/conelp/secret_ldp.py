"""The optimal eps-LDP protocol w.r.t. a secret ``S`` (``privacy-funnel-ldp-lip.txt``, Theorem 1).

Condition (5), ``(Q p_{X|s})_y <= e^eps (Q p_{X|s'})_y``, constrains each
column ``q = Q_y`` separately, so the feasible mechanisms are those whose
columns lie in the cone ``C = {q >= 0 : p_{X|s}.q <= e^eps p_{X|s'}.q}`` of
``R^a`` with ``sum_y Q_y = 1``: a cone LP over the rays of ``C``. The paper
instead enumerates the vertices of the ``a(a-1)``-dimensional polytope
``Gamma`` of whole mechanisms (133 s at ``a = 5``); ``C`` has dimension ``a``.
"""

from __future__ import annotations

from fractions import Fraction
from functools import partial
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike

from rldp_models.conelp.cones import inner_ratio, pairwise_ratio_rows
from rldp_models.conelp.double_description import extreme_rays
from rldp_models.conelp.engine import ColumnUtility, ConeLP
from rldp_models.conelp.joint import as_joint_distribution, data_given_secret, exact
from rldp_models.conelp.mechanism import OptimalMechanism, guaranteed_mechanism
from rldp_models.errors import InputError
from rldp_models.privacy import certify_ldp_wrt_secret
from rldp_models.utility import MutualInformation
from rldp_models.validation import as_epsilon


def ldp_wrt_secret_mechanism(p_sx: ArrayLike, eps: float, utility: ColumnUtility | None = None,
                             *, solver: str = "highspy",
                             method: Literal["auto", "float", "exact"] = "auto"
                             ) -> OptimalMechanism:
    """The eps-LDP-w.r.t.-``S`` mechanism maximising ``U(Q)`` (Definition 1, Problem 2).

    Parameters
    ----------
    p_sx : array_like, shape (c, a)
        Joint distribution ``P(S=s, X=x)``.
    eps : float
        Privacy level, ``>= 0``.
    utility : ColumnUtility, optional
        Sublinear utility on columns of length ``a`` (default ``I(X;Y)``).
    solver : str
        Registry name for the LP.
    method : {"auto", "float", "exact"}
        Double-description arithmetic (see
        :func:`~rldp_models.conelp.double_description.extreme_rays`).

    Returns
    -------
    OptimalMechanism
        Certified exactly by
        :func:`~rldp_models.privacy.matrix_checks.certify_ldp_wrt_secret`,
        repaired if needed (:mod:`rldp_models.conelp.mechanism`). At
        ``eps = 0`` that is usually the one-output mechanism: the LP's columns
        meet ``P(y|s) = P(y|s')`` only to rounding, and generic doubles admit
        no other exactly equal conditionals.
    """
    joint = as_joint_distribution(p_sx)
    eps = as_epsilon(eps)
    a = joint.shape[1]
    utility = MutualInformation(joint.sum(axis=0)) if utility is None else utility
    if utility.size != a:
        raise InputError(f"the utility is for {utility.size} inputs, p_sx has {a}")
    inner = pairwise_ratio_rows(data_given_secret(exact(joint)), Fraction(inner_ratio(eps)))
    rays = extreme_rays(inner, method=method)
    solution = ConeLP.from_utility(rays, utility, np.ones(a)).solve(solver)
    stated = pairwise_ratio_rows(data_given_secret(joint), np.exp(eps))
    certify = partial(certify_ldp_wrt_secret, p_sx=joint, eps=eps)
    return guaranteed_mechanism(solution.columns, stated, certify, utility, eps, solution)
