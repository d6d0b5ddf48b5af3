"""A statistical audit of the release sampler: goodness of fit and empirical privacy ratios.

The exact checkers prove a matrix's guarantee; this module tests that the
values actually *released* follow that matrix, as LDP-Auditor (Arcolezi &
Gambs, "Revealing the True Cost of Locally Differentially Private Protocols:
An Auditing Perspective", PETS 2024) and Google's DP Stochastic Tester
(``google/differential-privacy``, ``cc/testing``; Wilson et al., "Differentially
Private SQL with Bounded User Contribution", PoPETs 2020, section 5.3: output
histograms on neighbouring inputs against ``e^eps``) do for their libraries.
Draws go through the release path itself (a ``draw`` function of input rows,
e.g. :meth:`~rldp_models.disclosure.sampling.DyadicRows.draw` or a release
channel's, :func:`channel_sampler`), with a seeded source of words.

Two tests, each with a stated false-alarm level:

* :func:`goodness_of_fit`: per input ``x``, Pearson's chi-square statistic of
  the released outputs against ``n Q(.|x)``. Outputs ``Q(y|x) = 0`` that occur
  fail outright; outputs with expectation below :data:`MIN_EXPECTED` are pooled
  (smallest first) so the chi-square approximation holds (Cochran's rule).
* :func:`ratio_audit`: per secret ``s``, ``n`` records with ``x`` drawn from a
  mixture (the secret's ``Phat_{U|s}`` over its inputs ``(s, u)``, or any
  distribution a guarantee covers), so the count of ``y`` is
  ``Binomial(n, P(y|s))``. One-sided Clopper-Pearson bounds (exact binomial
  tails) at level ``beta = level / (2 |S| |Y|)`` give, for every ordered pair
  ``(s1, s2)`` and output ``y``, ``LB_{s1}(y) / UB_{s2}(y)``; a violation of
  ``P(y|s1) <= e^eps P(y|s2)`` is declared when this exceeds ``e^eps``. All
  ``2 |S| |Y|`` bounds hold together with probability at least ``1 - level``
  (Bonferroni), and then no pair is flagged under the guarantee: the family-wise
  false-alarm rate over all pairs and outputs is at most ``level``. The largest
  ``log(LB / UB)`` is LDP-Auditor's empirical lower bound on eps.

A statistical audit only sees the distributions it samples: it tests the
ratio at the mixtures given (``P = Phat`` for RLDP), not the worst case over a
set ``F``, which stays the exact checkers' job.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from scipy.stats import beta as beta_distribution
from scipy.stats import chi2

from rldp_models.disclosure.sampling import DyadicRows, RandomWords

if TYPE_CHECKING:
    from rldp_models.disclosure.channel import ReleaseChannel

MIN_EXPECTED = 5.0
"""Cells expected to hold fewer records are pooled before the chi-square test (Cochran)."""

Sampler = Callable[[np.ndarray], np.ndarray]
"""``draw(rows)``: one released output column per entry of ``rows`` (input indices)."""


def dense_sampler(rows: np.ndarray, words: RandomWords) -> Sampler:
    """Draws from dyadic ``rows`` exactly, as a release does (:class:`DyadicRows`)."""
    dyadic = DyadicRows.from_rows(rows)
    return lambda which: dyadic.draw(which, words)


def channel_sampler(channel: "ReleaseChannel", words: RandomWords) -> Sampler:
    """Draws through a release channel (dense rows or product factors), as ``rldp release``
    does; a product output's coordinates become its dense column (row-major)."""
    s_of, u_of = np.nonzero(channel.row_of >= 0)
    order = np.argsort(channel.row_of[s_of, u_of])
    s_of, u_of = s_of[order], u_of[order]

    def draw(which: np.ndarray) -> np.ndarray:
        codes = channel.draw(s_of[which], u_of[which], words)
        if codes.ndim == 1:
            return codes
        assert channel.protocol is not None
        index = np.zeros(codes.shape[0], dtype=np.int64)
        for k, size in enumerate(channel.protocol.coordinate_sizes):
            index = index * size + codes[:, k]
        return index
    return draw


# ---------------------------------------------------------------------- goodness of fit
@dataclass(frozen=True)
class GoodnessOfFit:
    """Per input: the chi-square p-value of its released outputs (0: an impossible output).

    Attributes
    ----------
    p_values : ndarray, shape (|X|,)
    cells : ndarray of int, shape (|X|,)
        Cells left after pooling (1: nothing to test beyond the support).
    level : float
    """

    p_values: np.ndarray
    cells: np.ndarray
    level: float

    @property
    def rejected(self) -> np.ndarray:
        """Inputs whose outputs do not follow their row at :attr:`level`."""
        return np.flatnonzero(self.p_values < self.level)

    @property
    def holds(self) -> bool:
        return self.rejected.size == 0


def pooled_chi_square(observed: np.ndarray, probabilities: np.ndarray) -> tuple[float, int]:
    """Pearson's p-value of ``observed`` counts against ``probabilities``, and the cells tested.

    An observation where the probability is 0 gives p = 0. Every cell expected
    below :data:`MIN_EXPECTED` goes into one pool, and the next smallest cells
    join it until it reaches :data:`MIN_EXPECTED` (one cell left: p = 1).
    """
    observed = np.asarray(observed, dtype=float)
    probabilities = np.asarray(probabilities, dtype=float)
    support = probabilities > 0
    if observed[~support].sum() > 0:
        return 0.0, int(support.sum())
    n = observed.sum()
    expected, counts = n * probabilities[support], observed[support]
    order = np.argsort(expected, kind="stable")
    expected, counts = expected[order], counts[order]
    small = int(np.sum(expected < MIN_EXPECTED))
    if small:
        reach = int(np.searchsorted(np.cumsum(expected), MIN_EXPECTED)) + 1
        small = min(max(small, reach), expected.size)
        expected = np.concatenate([[expected[:small].sum()], expected[small:]])
        counts = np.concatenate([[counts[:small].sum()], counts[small:]])
    if expected.size < 2:
        return 1.0, int(expected.size)
    statistic = float(np.sum((counts - expected) ** 2 / expected))
    return float(chi2.sf(statistic, expected.size - 1)), int(expected.size)


def goodness_of_fit(draw: Sampler, matrix: np.ndarray, draws: int,
                    level: float = 1e-6) -> GoodnessOfFit:
    """``draws`` releases of every input through ``draw``, each tested against its row."""
    matrix = np.asarray(matrix, dtype=float)
    p_values, cells = np.ones(matrix.shape[0]), np.zeros(matrix.shape[0], dtype=np.int64)
    for x, row in enumerate(matrix):
        observed = np.bincount(draw(np.full(draws, x, dtype=np.int64)), minlength=row.size)
        if observed.size > row.size:  # an output past the last column
            p_values[x], cells[x] = 0.0, row.size
            continue
        p_values[x], cells[x] = pooled_chi_square(observed, row)
    return GoodnessOfFit(p_values, cells, level)


# ---------------------------------------------------------------------- privacy ratios
@dataclass(frozen=True)
class RatioAudit:
    """The empirical privacy level of released outputs (module docstring).

    Attributes
    ----------
    eps : float
        The level audited.
    lower_bound : float
        ``max log(LB_{s1}(y) / UB_{s2}(y))`` over ordered pairs and outputs: with
        probability at least ``1 - level`` the true level is at least this.
    worst : tuple of int
        ``(s1, s2, y)`` where :attr:`lower_bound` is reached.
    level : float
        The family-wise false-alarm level.
    counts : ndarray of int, shape (|S|, |Y|)
        Released outputs per secret.
    """

    eps: float
    lower_bound: float
    worst: tuple[int, int, int]
    level: float
    counts: np.ndarray

    @property
    def violated(self) -> bool:
        """The released values prove (at :attr:`level`) a ratio above ``e^eps``."""
        return self.lower_bound > self.eps


def clopper_pearson(counts: np.ndarray, n: int, beta: float) -> tuple[np.ndarray, np.ndarray]:
    """One-sided Clopper-Pearson bounds, each holding with probability ``>= 1 - beta``:
    ``P(p < lower) <= beta`` and ``P(p > upper) <= beta`` for ``counts ~ Binomial(n, p)``."""
    counts = np.asarray(counts, dtype=float)
    lower = np.where(counts > 0, beta_distribution.ppf(beta, counts, n - counts + 1), 0.0)
    upper = np.where(counts < n, beta_distribution.isf(beta, counts + 1, n - counts), 1.0)
    return lower, upper


def ratio_audit(draw: Sampler, mixtures: np.ndarray, outputs: int, eps: float, draws: int,
                rng: np.random.Generator, level: float = 1e-6) -> RatioAudit:
    """Audit ``P(y|s1) <= e^eps P(y|s2)`` on ``draws`` releases per secret (module docstring).

    Parameters
    ----------
    draw : Sampler
        The release path, input rows to output columns.
    mixtures : ndarray, shape (|S|, |X|)
        Row ``s``: the distribution of the input given secret ``s`` (e.g.
        ``Phat_{U|s}`` on the rows ``(s, u)``). Rows summing to 0 (a secret
        without records) are left out.
    outputs : int
        ``|Y|``.
    rng : numpy.random.Generator
        Draws the inputs from the mixtures (the outputs come from ``draw``).
    """
    mixtures = np.asarray(mixtures, dtype=float)
    present = np.flatnonzero(mixtures.sum(axis=1) > 0)
    counts = np.zeros((present.size, outputs), dtype=np.int64)
    for i, s in enumerate(present):
        weights = mixtures[s] / mixtures[s].sum()
        inputs = rng.choice(weights.size, size=draws, p=weights)
        counts[i] = np.bincount(draw(inputs), minlength=outputs)[:outputs]
    beta = level / (2 * max(present.size, 1) * outputs)
    lower, upper = clopper_pearson(counts, draws, beta)
    with np.errstate(divide="ignore", invalid="ignore"):
        logs = np.log(lower[:, None, :]) - np.log(upper[None, :, :])
    logs[np.arange(present.size), np.arange(present.size), :] = -math.inf
    if present.size < 2:
        return RatioAudit(eps, -math.inf, (0, 0, 0), level, counts)
    s1, s2, y = np.unravel_index(int(np.argmax(logs)), logs.shape)
    return RatioAudit(eps, float(logs[s1, s2, y]), (int(present[s1]), int(present[s2]), int(y)),
                      level, counts)
