"""Independent Reporting, IR (``rldp-privacy-utility-tradeoff.txt`` Sec. VI, Protocol 1).

``IR(s, u) = (R^1(s), R^2(u))`` with ``R^1 = GRR^{eps_1}`` on ``S`` and
``R^2 = GRR^{delta_2}`` on ``U``; outputs ``Y = S x U`` (row-major).

Privacy guarantee
-----------------
``(eps_1 + eps_2, F)``-RLDP (Theorem 15) with
``delta_2 = log(1 + 2 (e^eps_2 - 1) / d)``,
``d = min{2, max_s 2 d_s + max_{s,s'} ||Phat_{U|s} - Phat_{U|s'}||_1}`` (eq. 66),
``d_s`` of eq. (65). Sketch: ``||P_{U|s} - P_{U|s'}||_1 <= d`` on ``F``
(Proposition 10 and the triangle inequality), so Lemma 3 bounds the ``U``
part's ratio by ``e^eps_2``; ``R^1`` contributes ``e^eps_1``. A secret
without records has ``d_s = 2``, hence ``d = 2``.

Utility (Theorem 16): ``I(IR(X); X) = I(R^1(S); S) + I(R^2(U); U | R^1(S))``.
With ``eps_1 = eps - eps_2`` the only free parameter is ``eps_2``: a 1-D search.
"""

from __future__ import annotations

import itertools

import numpy as np

from rldp_models.data import Crosstab
from rldp_models.rldp_protocols.components import (RLDPProtocol, chi_square_set,
                                                   conditional_radii, dummy_conditionals, grr,
                                                   grr_information, maximise_on_interval,
                                                   protocol_result, with_privacy_margin)
from rldp_models.validation import as_epsilon


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
