"""Unary-Encoding Conditional Reporting, UE-CR (``rldp-privacy-utility-tradeoff.txt`` Sec. VII-B).

``S~ = UE^{kappa, lambda}(s)`` (a subset of ``S``, eq. 90); for every
``t in S~`` report ``Y_t = R^t(u)`` if ``t = s`` and ``Y_t = R^t(U~)`` with a
fresh ``U~ ~ Phat_{U|t}`` otherwise; output ``(S~, (Y_t)_{t in S~})``, with
``R^t = GRR^{delta_t}`` on ``U``. The outputs are all such pairs:
``sum_T |U|^|T| = (|U| + 1)^|S|`` of them, ordered by the UE bit pattern of ``T``
(:mod:`rldp_models.mechanisms.bit_vectors`) and then row-major in the reports.

Protocol 3 as printed draws the dummy from ``Phat_{U|s}`` (the *true* secret);
the proof (eq. 92, the factors ``T^_{s'}``) needs ``Phat_{U|t}``, which is
used here (DESIGN.md, "Suspected misprints"). Likewise Theorem 19's
``delta_s`` "as in Theorem 15" must be Theorem 17's per-secret
``log(1 + 2 (e^eps_2 - 1) / d_s)``: Theorem 15 defines no ``delta_s``, and
the proof's step ``T_s / T^_s <= e^eps_2`` is exactly Theorem 17's.

Privacy guarantee
-----------------
``(max{eps_1 + eps_2, 2 eps_2}, F)``-RLDP (Theorem 19) when
``kappa (1 - lambda) / (lambda (1 - kappa)) <= e^eps_1``. For a target ``eps``
we take ``eps_2 in [0, eps/2]`` and ``eps_1 = eps - eps_2``.

Utility (Theorem 20, exact at ``P = Phat``):
``I(UE(S); S) + kappa I(R^S(U); U | S)``. The search over
``(eps_2, kappa, lambda)`` is 3-D: a grid, then a bounded Powell refinement.
"""

from __future__ import annotations

import itertools

import numpy as np
from scipy.optimize import minimize

from rldp_models.data import Crosstab
from rldp_models.mechanisms import UnaryEncoding, bit_labels, index_to_bits
from rldp_models.rldp_protocols.components import (RLDPProtocol, chi_square_set,
                                                   conditional_information, conditional_radii,
                                                   dummy_conditionals, grr, protocol_result,
                                                   theorem17_levels, with_privacy_margin)
from rldp_models.validation import as_epsilon

GRID = (21, 41, 21)
"""Grid sizes over ``(eps_2 / (eps/2), kappa, position of lambda in [lambda_min, kappa])``."""


def lambda_floor(kappa: np.ndarray, eps1: float) -> np.ndarray:
    """Smallest ``lambda`` with ``kappa (1-lambda) <= e^eps_1 lambda (1-kappa)`` (Theorem 19)."""
    return kappa / (kappa + np.exp(eps1) * (1.0 - kappa))


def ue_information(prior: np.ndarray, kappa: np.ndarray, lam: np.ndarray) -> np.ndarray:
    """``I(UE^{kappa,lambda}(S); S)`` for ``S ~ prior``, vectorised over parameter arrays.

    Column ``T`` of UE is ``kappa^[s in T] (1-kappa)^[s not in T] prod_{t != s} ...``
    (eq. 90); the mutual information is ``sum_T mu(column)`` in nats.
    """
    k = prior.size
    bits = index_to_bits(np.arange(2 ** k), k)  # (T, s)
    kappa, lam = np.asarray(kappa, float)[..., None, None], np.asarray(lam, float)[..., None, None]
    own = np.where(bits, kappa, 1.0 - kappa)
    other = np.where(bits, lam, 1.0 - lam)
    column = own * _product_without(other)  # (..., T, s): P(T | s)
    with np.errstate(divide="ignore", invalid="ignore"):
        marginal = column @ prior
        terms = prior * column * np.log(column / marginal[..., None])
    return np.where(column > 0, terms, 0.0).sum(axis=(-2, -1))


def _product_without(factors: np.ndarray) -> np.ndarray:
    """``prod_{t != s} factors[..., t]`` for every ``s`` (last axis), without division."""
    k = factors.shape[-1]
    return np.stack([np.prod(np.delete(factors, s, axis=-1), axis=-1) for s in range(k)], axis=-1)


def ue_cr_utility(phat: np.ndarray, kappa: float, lam: float, levels: np.ndarray) -> float:
    """Theorem 20 at ``P = Phat`` with ``R^s = GRR^{delta_s}``."""
    secret = phat.sum(axis=1)
    return float(ue_information(secret, kappa, lam)) + kappa * conditional_information(
        phat, levels)


def ue_cr_matrix(phat: np.ndarray, encoding: np.ndarray, levels: np.ndarray
                 ) -> tuple[np.ndarray, list[tuple[int, tuple[int, ...]]]]:
    """Protocol 3's matrix and its outputs ``(T index, reports)``, from UE's matrix."""
    n_s, n_u = phat.shape
    dummies = dummy_conditionals(phat)
    public = [grr(level, n_u) for level in levels]
    decoys = [d @ r for d, r in zip(dummies, public)]
    columns, outputs = [], []
    for index, members in enumerate(index_to_bits(np.arange(2 ** n_s), n_s)):
        chosen = np.flatnonzero(members)
        for reports in itertools.product(range(n_u), repeat=chosen.size):
            column = np.repeat(encoding[:, index], n_u).reshape(n_s, n_u)
            for t, v in zip(chosen, reports):
                factor = np.tile(decoys[t][v], (n_s, n_u))
                factor[t] = public[t][:, v]
                column = column * factor
            columns.append(column.ravel())
            outputs.append((index, reports))
    return np.column_stack(columns), outputs


def ue_cr_protocol(crosstab: Crosstab, alpha: float, eps1: float, eps2: float,
                   kappa: float, lam: float) -> RLDPProtocol:
    """UE-CR at given parameters: ``(max{eps_1 + eps_2, 2 eps_2}, F)``-RLDP (Theorem 19)."""
    eps1, eps2 = as_epsilon(eps1), as_epsilon(eps2)
    n_s = crosstab.shape[0]
    encoding = UnaryEncoding(kappa, lam, n_s, eps1).matrix()
    levels = theorem17_levels(eps2, conditional_radii(chi_square_set(crosstab, alpha)))
    phat = crosstab.phat
    Q, outputs = ue_cr_matrix(phat, encoding, levels)
    level = max(eps1 + eps2, 2 * eps2)
    Q, mix = with_privacy_margin(Q, level)
    names = bit_labels(n_s)
    y_labels = [[names[index], [[crosstab.s_labels[t], crosstab.u_labels[v]]
                                for t, v in zip(np.flatnonzero(index_to_bits(index, n_s)),
                                                reports)]]
                for index, reports in outputs]
    parameters = {"eps_1": eps1, "eps_2": eps2, "kappa": kappa, "lambda": lam,
                  "delta": levels.tolist(), "uniform_mix": mix}
    return protocol_result("ue-cr", crosstab, level, alpha, Q, y_labels,
                           parameters, ue_cr_utility(phat, kappa, lam, levels))


def ue_conditional(crosstab: Crosstab, eps: float, alpha: float) -> RLDPProtocol:
    """The ``(eps, F)``-RLDP UE-CR maximising ``I_Phat(X;Y)`` over ``(eps_2, kappa, lambda)``.

    The parameters come from :func:`ue_cr_parameters`; the protocol from
    :func:`ue_cr_protocol`.
    """
    return ue_cr_protocol(crosstab, alpha, *ue_cr_parameters(crosstab, eps, alpha))


def ue_cr_parameters(crosstab: Crosstab, eps: float,
                     alpha: float) -> tuple[float, float, float, float]:
    """``(eps_1, eps_2, kappa, lambda)`` of the best ``(eps, F)``-RLDP UE-CR (Theorems 19–20).

    ``eps_2 = t eps / 2``, ``eps_1 = eps - eps_2``,
    ``lambda = lambda_min + r (kappa - lambda_min)`` with ``(t, kappa, r)`` in the
    unit cube, so every point meets Theorem 19's conditions at level ``eps``.

    Parameters
    ----------
    crosstab : Crosstab
        Counts over ``S x U``; ``F`` is their chi-square set (eq. 3).
    eps : float
        Privacy level.
    alpha : float
        Significance level of ``F``.
    """
    eps = as_epsilon(eps)
    phat = crosstab.phat
    secret = phat.sum(axis=1)
    radii = conditional_radii(chi_square_set(crosstab, alpha))

    def decode(point: np.ndarray) -> tuple[float, float, float, float]:
        t, kappa, r = np.clip(point, 0.0, 1.0)
        eps2 = t * eps / 2
        floor = float(lambda_floor(kappa, eps - eps2))
        return eps - eps2, eps2, float(kappa), float(min(kappa, floor + r * (kappa - floor)))

    def utility(point: np.ndarray) -> float:
        _, eps2, kappa, lam = decode(point)
        return ue_cr_utility(phat, kappa, lam, theorem17_levels(eps2, radii))

    start = _grid_start(secret, phat, eps, radii)
    refined = minimize(lambda p: -utility(p), start, method="Powell",
                       bounds=[(0.0, 1.0)] * 3, options={"xtol": 1e-8, "ftol": 1e-12})
    best = refined.x if -refined.fun >= utility(start) else start
    return decode(best)


def _grid_start(secret: np.ndarray, phat: np.ndarray, eps: float,
                radii: np.ndarray) -> np.ndarray:
    """Best grid point ``(t, kappa, r)``; UE's information is evaluated vectorised per ``t``."""
    best_value, best_point = -np.inf, np.zeros(3)
    kappas = np.linspace(0.0, 1.0, GRID[1])
    positions = np.linspace(0.0, 1.0, GRID[2])
    for t in np.linspace(0.0, 1.0, GRID[0]):
        eps2 = t * eps / 2
        kappa, r = np.meshgrid(kappas, positions, indexing="ij")
        floor = lambda_floor(kappa, eps - eps2)
        lam = np.minimum(kappa, floor + r * (kappa - floor))
        values = ue_information(secret, kappa, lam) + kappa * conditional_information(
            phat, theorem17_levels(eps2, radii))
        at = np.unravel_index(int(np.argmax(values)), values.shape)
        if values[at] > best_value:
            best_value, best_point = values[at], np.array([t, kappas[at[0]], positions[at[1]]])
    return best_point
