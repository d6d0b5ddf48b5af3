"""The optimal eps-LIP protocol (Theorem 2 of ``privacy-funnel-ldp-lip.txt``).

Posterior form, eqs. (6)-(11): the protocol is a pair ``(R, q)`` with the
posteriors ``R_{X|y}`` in the polytope ``Delta`` of eq. (11) and
``sum_y q_y R_{X|y} = p_X`` (7). Writing ``w_y = q_y R_{X|y}`` (the joint
``P(X=x, Y=y)``), the ``w_y`` lie in the cone over ``Delta`` and sum to
``p_X``: a cone LP whose rays are the vertices of ``Delta`` and whose
right-hand side is ``p_X``. Mutual information in this form is
``mu(w) = sum_x w_x log(w_x / (p_x 1.w))``, i.e. ``I(X;Y) = sum_y q_y D(R_{X|y} || p_X)``.

Inputs with ``p_x = 0`` carry no posterior mass and are dropped from the LP;
their rows of ``Q`` are set to the output distribution ``P(Y)``, which leaves
every ``P(Y=y | S=s)`` unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import partial
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike

from rldp_models.conelp.cones import inner_ratio, two_sided_ratio_rows
from rldp_models.conelp.double_description import extreme_rays
from rldp_models.conelp.engine import ConeLP
from rldp_models.conelp.exact_basis import ExactCone
from rldp_models.conelp.joint import as_joint_distribution, data_given_secret, exact
from rldp_models.conelp.mechanism import OptimalMechanism, guaranteed_mechanism
from rldp_models.privacy import certify_lip
from rldp_models.utility import MutualInformation
from rldp_models.validation import as_epsilon


@dataclass(frozen=True)
class JointForm:
    """A utility on mechanism columns ``q`` evaluated on joint columns ``w = p * q``."""

    utility: MutualInformation
    prior: np.ndarray

    @property
    def size(self) -> int:
        return self.prior.size

    def columns(self, W: np.ndarray) -> np.ndarray:
        return self.utility.columns(W / self.prior[:, None])


def lip_mechanism(p_sx: ArrayLike, eps: float, *, solver: str = "highspy",
                  method: Literal["auto", "float", "exact"] = "auto") -> OptimalMechanism:
    """The eps-LIP-w.r.t.-``S`` mechanism maximising ``I(X;Y)`` (Definition 2, Theorem 2).

    Parameters
    ----------
    p_sx : array_like, shape (c, a)
        Joint distribution ``P(S=s, X=x)``.
    eps : float
        Privacy level, ``>= 0``.
    solver : str
        Registry name for the LP.
    method : {"auto", "float", "exact"}
        Double-description arithmetic for the vertices of ``Delta``.

    Returns
    -------
    OptimalMechanism
        Certified exactly by :func:`~rldp_models.privacy.matrix_checks.certify_lip`,
        repaired if needed (:mod:`rldp_models.conelp.mechanism`); at
        ``eps = 0`` the exact basic solution or the one-output mechanism, as for
        :func:`~rldp_models.conelp.secret_ldp.ldp_wrt_secret_mechanism`.
    """
    joint = as_joint_distribution(p_sx)
    eps = as_epsilon(eps)
    p_x = joint.sum(axis=0)
    seen = p_x > 0
    exact_joint = exact(joint[:, seen])
    inner = _delta_rows(exact_joint, Fraction(inner_ratio(eps)))
    rays = extreme_rays(inner, method=method)
    utility = JointForm(MutualInformation(p_x[seen]), p_x[seen])
    solution = ConeLP.from_utility(rays, utility, p_x[seen]).solve(solver)
    Q = np.empty((p_x.size, solution.columns.shape[1]))
    Q[seen] = solution.columns / p_x[seen, None]
    Q[~seen] = solution.columns.sum(axis=0)
    stated = two_sided_ratio_rows(data_given_secret(joint), p_x[None, :], np.exp(eps))
    mechanism_form = ExactCone(inner * exact_joint.sum(axis=0)[None, :], p_x[seen], seen)
    return guaranteed_mechanism(Q, stated, partial(certify_lip, p_sx=joint, eps=eps),
                                MutualInformation(p_x), eps, solution, mechanism_form)


def _delta_rows(joint: np.ndarray, ratio: Fraction) -> np.ndarray:
    """Condition (10) on the cone over ``Delta``: ``p_s 1.w / r <= p_{s|X}.w <= r p_s 1.w``."""
    p_s = joint.sum(axis=1) / joint.sum()  # exactly normalised, so sum_s of the rows is 0
    posterior = joint[p_s > 0] / joint.sum(axis=0)
    prior_s = np.repeat(p_s[p_s > 0, None], joint.shape[1], axis=1)  # exact when joint is
    return two_sided_ratio_rows(posterior, prior_s, ratio)
