"""GRR Conditional Reporting, GRR-CR (``rldp-privacy-utility-tradeoff.txt`` Sec. VII-A, Protocol 2).

``S~ = GRR^{eps_1}(s)``; if ``S~ = s`` output ``(s, R^s(u))``, otherwise draw
``U~ ~ Phat_{U|S~}`` and output ``(S~, R^{S~}(U~))``, with
``R^s = GRR^{delta_s}`` on ``U``. Outputs ``Y = S x U`` (row-major):
``Q[(s,u), (t,v)] = GRR^{eps_1}(t|s) * (R^t(v|u) if t = s else (Phat_{U|t} R^t)(v))``.
A secret without records gets the uniform dummy law (any law works: ``d_s = 2``).

Privacy guarantee
-----------------
``(eps_1 + eps_2, F)``-RLDP (Theorem 17) with
``delta_s = log(1 + 2 (e^eps_2 - 1) / d_s)``, ``d_s`` of eq. (65). Sketch
(eqs. 79-85): the ratio is ``e^{+-eps_1}`` times ``T_t / T^_t`` or its inverse,
where ``T_t, T^_t`` are ``P(R^t(U) = v)`` under ``P_{U|t}`` and ``Phat_{U|t}``;
Lemma 3 with ``||P_{U|t} - Phat_{U|t}||_1 <= d_t`` bounds it by ``e^eps_2``.

Utility (Theorem 18, exact at ``P = Phat``):
``I(GRR^{eps_1}(S); S) + e^eps_1 / (e^eps_1 + a_1 - 1) I(R^S(U); U | S)``.
With ``eps_1 = eps - eps_2`` the search is 1-D.
"""

from __future__ import annotations

import numpy as np

from rldp_models.data import Crosstab
from rldp_models.rldp_protocols.components import (RLDPProtocol, chi_square_set,
                                                   conditional_information, conditional_radii,
                                                   dummy_conditionals, grr, grr_information,
                                                   maximise_on_interval, protocol_result,
                                                   theorem17_levels, with_privacy_margin)
from rldp_models.validation import as_epsilon


def grr_cr_utility(phat: np.ndarray, eps1: float, levels: np.ndarray) -> float:
    """Theorem 18 at ``P = Phat`` with ``R^s = GRR^{delta_s}``."""
    n_s = phat.shape[0]
    keep = 1.0 / (1.0 + (n_s - 1) * np.exp(-eps1))  # e^eps1 / (e^eps1 + a_1 - 1)
    return grr_information(eps1, phat.sum(axis=1)) + keep * conditional_information(phat, levels)


def grr_cr_matrix(phat: np.ndarray, eps1: float, levels: np.ndarray) -> np.ndarray:
    """The ``|X| x |S||U|`` matrix of Protocol 2 (see the module docstring)."""
    n_s, n_u = phat.shape
    secret = grr(eps1, n_s)
    dummies = dummy_conditionals(phat)
    blocks = np.empty((n_s, n_u, n_s, n_u))
    for t, level in enumerate(levels):
        public = grr(level, n_u)
        decoy = dummies[t] @ public
        for s in range(n_s):
            blocks[s, :, t, :] = secret[s, t] * (public if s == t else decoy[None, :])
    return blocks.reshape(n_s * n_u, n_s * n_u)


def grr_cr_protocol(crosstab: Crosstab, alpha: float, eps1: float, eps2: float) -> RLDPProtocol:
    """GRR-CR at given ``(eps_1, eps_2)``: ``(eps_1 + eps_2, F)``-RLDP by Theorem 17."""
    eps1, eps2 = as_epsilon(eps1), as_epsilon(eps2)
    levels = theorem17_levels(eps2, conditional_radii(chi_square_set(crosstab, alpha)))
    phat = crosstab.phat
    Q, mix = with_privacy_margin(grr_cr_matrix(phat, eps1, levels), eps1 + eps2)
    y_labels = [[s, u] for s in crosstab.s_labels for u in crosstab.u_labels]
    parameters = {"eps_1": eps1, "eps_2": eps2, "delta": levels.tolist(),
                  "uniform_mix": mix}
    return protocol_result("grr-cr", crosstab, eps1 + eps2, alpha, Q, y_labels, parameters,
                           grr_cr_utility(phat, eps1, levels))


def grr_conditional(crosstab: Crosstab, eps: float, alpha: float) -> RLDPProtocol:
    """The ``(eps, F)``-RLDP GRR-CR maximising ``I_Phat(X;Y)`` over ``eps_2 in [0, eps]``.

    Parameters
    ----------
    crosstab : Crosstab
        Counts over ``S x U``; ``F`` is their chi-square set (eq. 3).
    eps : float
        Privacy level.
    alpha : float
        Significance level of ``F``.
    """
    return grr_cr_protocol(crosstab, alpha, *grr_cr_parameters(crosstab, eps, alpha))


def grr_cr_parameters(crosstab: Crosstab, eps: float, alpha: float) -> tuple[float, float]:
    """``(eps_1, eps_2)`` of the best ``(eps, F)``-RLDP GRR-CR (Theorem 18, a 1-D search)."""
    eps = as_epsilon(eps)
    radii = conditional_radii(chi_square_set(crosstab, alpha))
    phat = crosstab.phat

    def utility(eps2: float) -> float:
        return grr_cr_utility(phat, eps - eps2, theorem17_levels(eps2, radii))

    eps2 = maximise_on_interval(utility, eps)
    return eps - eps2, eps2
