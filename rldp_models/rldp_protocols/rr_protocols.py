"""The RLDP protocols built from randomized response alone (``rldp-privacy-utility-tradeoff.txt``).

SRR and GRR, the references that ignore ``F``; Independent Reporting (IR,
Sec. VI) and GRR Conditional Reporting (GRR-CR, Sec. VII-A), which spend part
of the budget on ``S`` and the rest on ``U`` through GRRs whose levels the
chi-square set ``F`` fixes. Each returns its full matrix over ``Y = S x U``
(row-major) as an :class:`~rldp_models.rldp_protocols.components.RLDPProtocol`.
UE-CR, the one built on unary encoding, is
:mod:`rldp_models.rldp_protocols.ue_conditional`.

SRR and GRR
-----------
* SRR (Definition 5, eq. 18) is ``(eps, P_X)``-RLDP (Lemma 6), hence
  ``(eps, F)``-RLDP for every ``F``; optimal for large ``eps`` (Theorem 7).
* GRR on ``X`` (eq. 16) is ``eps``-LDP, hence ``(eps, F)``-RLDP for every ``F``.

Independent Reporting, IR (Sec. VI, Protocol 1)
-----------------------------------------------
``IR(s, u) = (R^1(s), R^2(u))`` with ``R^1 = GRR^{eps_1}`` on ``S`` and
``R^2 = GRR^{delta_2}`` on ``U``.

Privacy guarantee: ``(eps_1 + eps_2, F)``-RLDP (Theorem 15) with
``delta_2 = log(1 + 2 (e^eps_2 - 1) / d)``,
``d = min{2, max_s 2 d_s + max_{s,s'} ||Phat_{U|s} - Phat_{U|s'}||_1}`` (eq. 66),
``d_s`` of eq. (65). Sketch: ``||P_{U|s} - P_{U|s'}||_1 <= d`` on ``F``
(Proposition 10 and the triangle inequality), so Lemma 3 bounds the ``U``
part's ratio by ``e^eps_2``; ``R^1`` contributes ``e^eps_1``. A secret
without records has ``d_s = 2``, hence ``d = 2``.

Utility (Theorem 16): ``I(IR(X); X) = I(R^1(S); S) + I(R^2(U); U | R^1(S))``.
With ``eps_1 = eps - eps_2`` the only free parameter is ``eps_2``: a 1-D search.

GRR Conditional Reporting, GRR-CR (Sec. VII-A, Protocol 2)
----------------------------------------------------------
``S~ = GRR^{eps_1}(s)``; if ``S~ = s`` output ``(s, R^s(u))``, otherwise draw
``U~ ~ Phat_{U|S~}`` and output ``(S~, R^{S~}(U~))``, with
``R^s = GRR^{delta_s}`` on ``U``:
``Q[(s,u), (t,v)] = GRR^{eps_1}(t|s) * (R^t(v|u) if t = s else (Phat_{U|t} R^t)(v))``.
A secret without records gets the uniform dummy law (any law works: ``d_s = 2``).

Privacy guarantee: ``(eps_1 + eps_2, F)``-RLDP (Theorem 17) with
``delta_s = log(1 + 2 (e^eps_2 - 1) / d_s)``, ``d_s`` of eq. (65). Sketch
(eqs. 79-85): the ratio is ``e^{+-eps_1}`` times ``T_t / T^_t`` or its inverse,
where ``T_t, T^_t`` are ``P(R^t(U) = v)`` under ``P_{U|t}`` and ``Phat_{U|t}``;
Lemma 3 with ``||P_{U|t} - Phat_{U|t}||_1 <= d_t`` bounds it by ``e^eps_2``.

Utility (Theorem 18, exact at ``P = Phat``):
``I(GRR^{eps_1}(S); S) + e^eps_1 / (e^eps_1 + a_1 - 1) I(R^S(U); U | S)``.
With ``eps_1 = eps - eps_2`` the search is 1-D.
"""

from __future__ import annotations

import itertools

import numpy as np

from rldp_models.data import Crosstab
from rldp_models.mechanisms import SecretRandomizedResponse
from rldp_models.rldp_protocols.components import (RLDPProtocol, chi_square_set,
                                                   conditional_information, conditional_radii,
                                                   dummy_conditionals, grr, grr_information,
                                                   maximise_on_interval, protocol_result,
                                                   theorem17_levels, with_privacy_margin)
from rldp_models.validation import as_epsilon


def _x_labels(crosstab: Crosstab) -> list[list[str]]:
    return [[s, u] for s in crosstab.s_labels for u in crosstab.u_labels]


def srr_protocol(crosstab: Crosstab, eps: float, alpha: float) -> RLDPProtocol:
    """SRR of level ``eps`` on the crosstab's ``S x U`` (``alpha`` only labels the record)."""
    n_s, n_u = crosstab.shape
    Q = SecretRandomizedResponse(eps, n_s, n_u).matrix()
    return protocol_result("srr", crosstab, eps, alpha, Q, _x_labels(crosstab),
                           {"uncertainty": "all distributions (Lemma 6)"}, None)


def grr_protocol(crosstab: Crosstab, eps: float, alpha: float) -> RLDPProtocol:
    """GRR of level ``eps`` on ``X = S x U`` (eq. 16; ``alpha`` only labels the record)."""
    n_s, n_u = crosstab.shape
    Q = grr(eps, n_s * n_u)
    return protocol_result("grr", crosstab, eps, alpha, Q, _x_labels(crosstab),
                           {"uncertainty": "all distributions (eps-LDP)"}, None)


def theorem15_spread(crosstab: Crosstab, alpha: float) -> float:
    """``d`` of eq. (66)."""
    phat = crosstab.phat
    radii = conditional_radii(chi_square_set(crosstab, alpha))
    rows = dummy_conditionals(phat)[phat.sum(axis=1) > 0]
    spread = max((float(np.abs(r1 - r2).sum()) for r1, r2 in itertools.combinations(rows, 2)),
                 default=0.0)
    return float(min(2.0, 2.0 * radii.max() + spread))


def theorem15_level(eps2: float, spread: float) -> float:
    """``delta_2 = log(1 + 2 (e^eps_2 - 1) / d)`` of Theorem 15."""
    return float(np.log1p(2.0 * np.expm1(eps2) / spread))


def ir_utility(phat: np.ndarray, eps1: float, delta2: float) -> float:
    """Theorem 16: ``I(R^1(S); S) + E_r I_{P_{U|R^1(S)=r}}(R^2(U); U)`` with GRR components.

    Computed from the laws of ``S`` and of ``U`` given ``R^1(S)``, not from
    IR's matrix.
    """
    secret = phat.sum(axis=1)
    r1 = grr(eps1, secret.size)
    joint_ru = r1.T @ phat  # P(R^1(S) = r, U = u)
    released = joint_ru.sum(axis=1)
    conditional = sum(p_r * grr_information(delta2, row / p_r)
                      for p_r, row in zip(released, joint_ru) if p_r > 0)
    return grr_information(eps1, secret) + float(conditional)


def ir_matrix(eps1: float, delta2: float, n_s: int, n_u: int) -> np.ndarray:
    """``Q[(s,u), (r,v)] = GRR^{eps_1}(r|s) GRR^{delta_2}(v|u)`` (Protocol 1)."""
    return np.kron(grr(eps1, n_s), grr(delta2, n_u))


def ir_protocol(crosstab: Crosstab, alpha: float, eps1: float, eps2: float) -> RLDPProtocol:
    """IR at given ``(eps_1, eps_2)``: ``(eps_1 + eps_2, F)``-RLDP by Theorem 15."""
    eps1, eps2 = as_epsilon(eps1), as_epsilon(eps2)
    spread = theorem15_spread(crosstab, alpha)
    delta2 = theorem15_level(eps2, spread)
    Q, mix = with_privacy_margin(ir_matrix(eps1, delta2, *crosstab.shape), eps1 + eps2)
    y_labels = [[s, u] for s in crosstab.s_labels for u in crosstab.u_labels]
    parameters = {"eps_1": eps1, "eps_2": eps2, "delta_2": delta2, "d": spread,
                  "uniform_mix": mix}
    return protocol_result("ir", crosstab, eps1 + eps2, alpha, Q, y_labels, parameters,
                           ir_utility(crosstab.phat, eps1, delta2))


def independent_reporting(crosstab: Crosstab, eps: float, alpha: float) -> RLDPProtocol:
    """The ``(eps, F)``-RLDP IR maximising ``I_Phat(X;Y)`` over ``eps_2 in [0, eps]``.

    Parameters
    ----------
    crosstab : Crosstab
        Counts over ``S x U``; ``F`` is their chi-square set (eq. 3).
    eps : float
        Privacy level.
    alpha : float
        Significance level of ``F``.
    """
    return ir_protocol(crosstab, alpha, *ir_parameters(crosstab, eps, alpha))


def ir_parameters(crosstab: Crosstab, eps: float, alpha: float) -> tuple[float, float]:
    """``(eps_1, eps_2)`` of the best ``(eps, F)``-RLDP IR (Theorem 16, a 1-D search)."""
    eps = as_epsilon(eps)
    spread = theorem15_spread(crosstab, alpha)
    phat = crosstab.phat

    def utility(eps2: float) -> float:
        return ir_utility(phat, eps - eps2, theorem15_level(eps2, spread))

    eps2 = maximise_on_interval(utility, eps)
    return eps - eps2, eps2


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
