"""Unary-Encoding Conditional Reporting, UE-CR (``rldp-privacy-utility-tradeoff.txt`` Sec. VII-B).

``S~ = UE^{kappa, lambda}(s)`` (a subset of ``S``, eq. 90); for every
``t in S~`` report ``Y_t = R^t(u)`` if ``t = s`` and ``Y_t = R^t(U~)`` with a
fresh ``U~ ~ Phat_{U|t}`` otherwise; output ``(S~, (Y_t)_{t in S~})``, with
``R^t = GRR^{delta_t}`` on ``U``. The outputs are all such pairs:
``sum_T |U|^|T| = (|U| + 1)^|S|`` of them, ordered by the UE bit pattern of ``T``
(:mod:`rldp_models.mechanisms.unary_encoding`) and then row-major in the reports.

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
from rldp_models.errors import InputError
from rldp_models.mechanisms import UnaryEncoding, bit_labels, index_to_bits
from rldp_models.rldp_protocols.components import (RLDPProtocol, chi_square_set,
                                                   conditional_information, conditional_radii,
                                                   dummy_conditionals, grr, protocol_result,
                                                   theorem17_levels, with_privacy_margin)
from rldp_models.rldp_protocols.factored_form import DEFAULT_MAX_DENSE_BYTES
from rldp_models.validation import as_epsilon

GRID = (21, 41, 21)
"""Grid sizes over ``(eps_2 / (eps/2), kappa, position of lambda in [lambda_min, kappa])``."""

COARSE_GRID = (11, 21, 11)
"""The grid when ``2^|S|`` patterns times :data:`GRID` would exceed :data:`GRID_WORK`."""

GRID_WORK = 2 * 10**8
"""Largest ``2^|S| x`` grid points the grid search evaluates before coarsening."""

DENSE_PEAK_FACTOR = 6
"""Peak memory of the dense build over the matrix's own size (5.8 GB for 0.9 GB at 5 x 16)."""

PATTERN_BUDGET = 2**22
"""Pattern-by-parameter entries :func:`ue_information` holds at once."""


def lambda_floor(kappa: np.ndarray | float, eps1: float) -> np.ndarray:
    """Smallest ``lambda`` with ``kappa (1-lambda) <= e^eps_1 lambda (1-kappa)`` (Theorem 19)."""
    return kappa / (kappa + np.exp(eps1) * (1.0 - kappa))


def ue_information(prior: np.ndarray, kappa: np.ndarray | float, lam: np.ndarray | float
                   ) -> np.ndarray:
    """``I(UE^{kappa,lambda}(S); S) = H(T) - H(T|S)`` for ``S ~ prior``, vectorised over parameters.

    ``P(T|s) = kappa lambda^{|T|-1} (1-lambda)^{k-|T|}`` if ``s in T`` and
    ``(1-kappa) lambda^{|T|} (1-lambda)^{k-1-|T|}`` otherwise (eq. 90), so
    ``P(T) = m_T A_{|T|} + (1 - m_T) B_{|T|}`` with ``m_T = P(S in T)``, and
    ``H(T|S) = h(kappa) + (k-1) h(lambda)``. The ``2^k`` patterns are
    summed in chunks of parameters (memory ``O(2^k)`` per chunk).
    """
    prior = np.asarray(prior, dtype=float)
    k = prior.size
    size, mass = _pattern_sizes(k), _pattern_masses(prior)
    kappa, lam = np.broadcast_arrays(np.asarray(kappa, float), np.asarray(lam, float))
    flat_kappa, flat_lam = kappa.ravel(), lam.ravel()
    out = np.empty(flat_kappa.size)
    chunk = max(1, PATTERN_BUDGET // 2 ** k)
    for start in range(0, out.size, chunk):
        part = slice(start, start + chunk)
        out[part] = _pattern_entropy(flat_kappa[part, None], flat_lam[part, None], size, mass, k)
    conditional = prior.sum() * (_binary_entropy(flat_kappa) + (k - 1) * _binary_entropy(flat_lam))
    return (out - conditional).reshape(kappa.shape)


def _pattern_sizes(k: int) -> np.ndarray:
    """``|T|`` of every pattern ``T``, in the order of :func:`_pattern_masses`."""
    sizes = np.zeros(1, dtype=int)
    for _ in range(k):
        sizes = np.concatenate([sizes, sizes + 1])
    return sizes


def _pattern_masses(prior: np.ndarray) -> np.ndarray:
    """``P(S in T)`` of every pattern ``T`` (bit ``s`` of the index: ``s in T``), by doubling."""
    masses = np.zeros(1)
    for p in prior:
        masses = np.concatenate([masses, masses + p])
    return masses


def _power(base: np.ndarray, exponent: np.ndarray) -> np.ndarray:
    """``base^exponent`` with ``0^0 = 1`` and 0 for negative exponents (terms of weight 0)."""
    return np.where(exponent >= 0, base ** np.maximum(exponent, 0), 0.0)


def _pattern_entropy(kappa: np.ndarray, lam: np.ndarray, size: np.ndarray, mass: np.ndarray,
                     k: int) -> np.ndarray:
    """``H(T)`` for parameter columns ``kappa, lam`` (shape ``(m, 1)``) over all patterns."""
    sizes = np.arange(k + 1)
    inside = (kappa * _power(lam, sizes - 1) * _power(1 - lam, k - sizes))[:, size]
    outside = ((1 - kappa) * _power(lam, sizes) * _power(1 - lam, k - 1 - sizes))[:, size]
    p = outside + mass * (inside - outside)
    with np.errstate(divide="ignore", invalid="ignore"):
        return -np.where(p > 0, p * np.log(p), 0.0).sum(axis=1)


def _binary_entropy(p: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(p > 0, -p * np.log(p), 0.0) + np.where(p < 1, -(1 - p) * np.log1p(-p),
                                                                  0.0)
    return terms


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
    n_s, n_u = crosstab.shape
    _refuse_if_too_large(n_s, n_u)
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


def _refuse_if_too_large(n_s: int, n_u: int) -> None:
    """One-line refusal before materialising ``(|U|+1)^|S|`` columns that would not fit."""
    size = DENSE_PEAK_FACTOR * 8 * n_s * n_u * (n_u + 1) ** n_s
    if size > DEFAULT_MAX_DENSE_BYTES:
        raise InputError(f"the dense UE-CR matrix has {n_s * n_u} x {(n_u + 1) ** n_s} entries "
                         f"(about {size / 2**30:.3g} GiB to build), over the limit of "
                         f"{DEFAULT_MAX_DENSE_BYTES / 2**30:.3g} GiB; use the factored form "
                         "(rldp_models.rldp_protocols.factored_builders.ue_cr_factored)")


def ue_conditional(crosstab: Crosstab, eps: float, alpha: float) -> RLDPProtocol:
    """The ``(eps, F)``-RLDP UE-CR maximising ``I_Phat(X;Y)`` over ``(eps_2, kappa, lambda)``.

    The parameters come from :func:`ue_cr_parameters`; the protocol from
    :func:`ue_cr_protocol`. Refuses (one line) a dense matrix over
    :data:`~rldp_models.rldp_protocols.factored_form.DEFAULT_MAX_DENSE_BYTES`.
    """
    _refuse_if_too_large(*crosstab.shape)
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

    def loss(point: np.ndarray) -> float:
        return -utility(point)

    start = _grid_start(secret, phat, eps, radii)
    refined = minimize(loss, start, method="Powell",
                       bounds=[(0.0, 1.0)] * 3, options={"xtol": 1e-8, "ftol": 1e-12})
    best = refined.x if -refined.fun >= utility(start) else start
    return decode(best)


def _grid_start(secret: np.ndarray, phat: np.ndarray, eps: float,
                radii: np.ndarray) -> np.ndarray:
    """Best grid point ``(t, kappa, r)``; UE's information is evaluated vectorised per ``t``."""
    best_value, best_point = -np.inf, np.zeros(3)
    grid = GRID if 2 ** secret.size * np.prod(GRID) <= GRID_WORK else COARSE_GRID
    kappas = np.linspace(0.0, 1.0, grid[1])
    positions = np.linspace(0.0, 1.0, grid[2])
    for t in np.linspace(0.0, 1.0, grid[0]):
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
