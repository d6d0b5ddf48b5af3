"""Privacy notions and their exact checkers.

:mod:`rldp_models.privacy.matrix_checks` checks a mechanism matrix
``Q[x, y]`` against LDP, (eps, delta)-LDP, RLDP over the whole simplex, LDP
and LIP w.r.t. a secret, SRLIP and ULDP; :mod:`rldp_models.exact`
holds the exact comparisons with ``e^eps`` they rely on.
"""

from rldp_models.privacy.matrix_checks import (Certification, approximate_ldp_delta,
                                               certify_approximate_ldp, certify_ldp,
                                               certify_ldp_wrt_secret, certify_lip,
                                               certify_srlip, certify_uldp, ldp_epsilon,
                                               ldp_wrt_secret_epsilon, lip_epsilon,
                                               protected_outputs, secret_channel,
                                               srlip_epsilon, srlip_epsilons, uldp_epsilon)

__all__ = [
    "Certification", "approximate_ldp_delta", "certify_approximate_ldp", "certify_ldp",
    "certify_ldp_wrt_secret", "certify_lip", "certify_srlip", "certify_uldp", "ldp_epsilon",
    "ldp_wrt_secret_epsilon", "lip_epsilon", "protected_outputs", "secret_channel",
    "srlip_epsilon", "srlip_epsilons", "uldp_epsilon",
]
