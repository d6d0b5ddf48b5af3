"""Unary encoding ``UE^{kappa, lambda}`` (``rldp-privacy-utility-tradeoff.txt`` eq. (90)).

Input ``s in 0..k-1`` yields ``k`` independent bits with
``P(E_s' = 1) = kappa`` if ``s' = s`` and ``lambda`` otherwise,
``0 <= lambda <= kappa <= 1``. The RLDP paper's UE-CR (Protocol 3) uses UE
with free ``(kappa, lambda)``, optimised jointly with ``eps_2`` (Sec. VII-B,
end; Sec. VIII-C); it quotes three popular settings from Wang et al. (2017):

* ``symmetric`` -- ``(e^(eps/2) / (e^(eps/2) + 1), 1 / (e^(eps/2) + 1))``:
  symmetric unary encoding (SUE), the basic one-time RAPPOR; each bit is
  flipped with the same probability.
* ``optimized`` -- ``(1/2, 1 / (e^eps + 1))``: optimised unary encoding (OUE),
  the variance-minimising choice of Wang et al.; the own bit is a fair coin.
* ``fair-others`` -- ``(e^eps / (e^eps + 1), 1/2)``: OUE's parameters mirrored,
  ``(1 - lambda_OUE, 1 - kappa_OUE)``; every other bit is a fair coin and the
  own bit is binary randomized response. The paper lists it without a name.

Privacy guarantee
-----------------
eps-LDP with ``e^eps = kappa (1 - lambda) / (lambda (1 - kappa))`` (Sec. VII-B),
and no smaller level; all three settings give exactly the requested ``eps``.

Proof sketch: the bit vectors of inputs ``s`` and ``s'`` differ only in bits
``s`` and ``s'``, so ``Q(y|s) / Q(y|s')`` is the product of the ratios of those
two bits, at most ``kappa/lambda * (1-lambda)/(1-kappa)``, attained when
``E_s = 1`` and ``E_s' = 0``. In doubles, ``1 - kappa`` and ``1 - lambda`` are kept
to full relative precision (not formed by subtraction), the product matrix is
rounded, and each column's entries below the smallest double
``>= e^-eps max(column)`` (a rounding-level deficit) are raised to it, so the
stored matrix is eps-LDP exactly; the sampler draws each bit with
``rng.random() < p``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rldp_models.errors import InputError
from rldp_models.mechanisms.base import as_mechanism_epsilon
from rldp_models.mechanisms.bit_vectors import BitVectorMechanism
from rldp_models.privacy.exp_bounds import raise_column_minima
from rldp_models.validation import as_probability, as_size

SETTINGS = ("symmetric", "optimized", "fair-others")
"""Named ``(kappa, lambda)`` settings of Sec. VII-B."""

LEVEL_TOLERANCE = 1e-9
"""Slack (relative and absolute) allowed between a given ``eps`` and the parameters' level."""


@dataclass(frozen=True, eq=False)
class UnaryEncoding(BitVectorMechanism):
    """``UE^{kappa, lambda}`` on ``k`` symbols.

    Parameters
    ----------
    kappa, lam : float
        ``P(own bit = 1)`` and ``P(other bit = 1)``, ``0 <= lam <= kappa <= 1``.
    k : int
        Number of symbols, ``>= 2``.
    eps : float, optional
        The privacy level; by default :func:`encoding_level` of the parameters.
        A given ``eps`` must not be below that level (beyond rounding).
    complements : (float, float), optional
        ``(1 - kappa, 1 - lam)`` computed without cancellation (the named
        settings pass them); by default ``1 - kappa`` and ``1 - lam``.
    """

    kappa: float
    lam: float
    k: int
    eps: float | None = None
    complements: tuple[float, float] | None = None

    def __post_init__(self) -> None:
        kappa, lam = as_probability(self.kappa, "kappa"), as_probability(self.lam, "lambda")
        if lam > kappa:
            raise InputError(f"unary encoding needs lambda <= kappa, got {lam} > {kappa}")
        complements = (1 - kappa, 1 - lam) if self.complements is None else tuple(
            as_probability(c, "complement") for c in self.complements)
        if abs(complements[0] - (1 - kappa)) > 1e-12 or abs(complements[1] - (1 - lam)) > 1e-12:
            raise InputError(f"complements {complements} are not (1 - kappa, 1 - lambda)")
        level = encoding_level(kappa, lam, *complements)
        eps = level if self.eps is None else as_mechanism_epsilon(self.eps)
        if level > eps * (1 + LEVEL_TOLERANCE) + LEVEL_TOLERANCE:
            raise InputError(f"kappa = {kappa}, lambda = {lam} give level {level:.12g} "
                             f"> eps = {eps}")
        object.__setattr__(self, "kappa", kappa)
        object.__setattr__(self, "lam", lam)
        object.__setattr__(self, "complements", complements)
        object.__setattr__(self, "k", as_size(self.k))
        object.__setattr__(self, "eps", eps)

    @classmethod
    def from_setting(cls, setting: str, eps: float, k: int) -> "UnaryEncoding":
        """One of the :data:`SETTINGS` at level ``eps``."""
        eps = as_mechanism_epsilon(eps)
        if setting == "symmetric":
            high, low = _binary_rr(eps / 2)
            return cls(high, low, k, eps, (low, high))
        if setting == "optimized":
            high, low = _binary_rr(eps)
            return cls(0.5, low, k, eps, (0.5, high))
        if setting == "fair-others":
            high, low = _binary_rr(eps)
            return cls(high, 0.5, k, eps, (low, 0.5))
        raise InputError(f"unknown unary-encoding setting {setting!r}; choose from {SETTINGS}")

    @property
    def n_inputs(self) -> int:
        return self.k

    def bit_probabilities(self) -> tuple[np.ndarray, np.ndarray]:
        own = np.eye(self.k, dtype=bool)
        assert self.complements is not None  # __post_init__ always fills it
        kappa_bar, lam_bar = self.complements
        return np.where(own, self.kappa, self.lam), np.where(own, kappa_bar, lam_bar)

    def matrix(self) -> np.ndarray:
        Q = self.product_matrix()
        assert self.eps is not None  # __post_init__ always fills it (the level when not given)
        return Q if np.isinf(self.eps) else raise_column_minima(Q, self.eps)


def encoding_level(kappa: float, lam: float, kappa_bar: float | None = None,
                   lam_bar: float | None = None) -> float:
    """``log(kappa (1-lambda) / (lambda (1-kappa)))``: 0 when ``kappa = lambda``, inf if unbounded.

    ``kappa_bar`` and ``lam_bar`` are ``1 - kappa`` and ``1 - lambda`` when known
    more accurately than the subtraction gives.
    """
    kappa_bar = 1 - kappa if kappa_bar is None else kappa_bar
    lam_bar = 1 - lam if lam_bar is None else lam_bar
    if kappa == lam:
        return 0.0
    if lam == 0 or kappa_bar == 0:
        return float("inf")
    return float(np.log(kappa) + np.log(lam_bar) - np.log(lam) - np.log(kappa_bar))


def _binary_rr(eps: float) -> tuple[float, float]:
    """``(e^eps / (e^eps + 1), 1 / (e^eps + 1))``, each to full relative precision."""
    return 1 / (1 + np.exp(-eps)), 1 / (1 + np.exp(eps))


def unary_encoding(eps: float, k: int, setting: str = "optimized") -> np.ndarray:
    """The ``2^k``-column matrix of a named unary encoding; see :class:`UnaryEncoding`."""
    return UnaryEncoding.from_setting(setting, eps, k).matrix()
