"""The RLDP level of any protocol ``Q: X -> Y`` over a chi-square set (Definition 1).

Built on :func:`rldp_models.privacy.worst_case.worst_case_epsilon`:
``certified`` is a proven upper bound on
``max_{P in F} max_{y, s1 != s2} log P(y|s1) / P(y|s2)`` (Theorem 4 of the
robust-optimization paper in interval arithmetic, bisection on the ratio),
``attained`` the level at an explicit witness distribution in ``F`` (a direct
inner maximisation over Theorem 3's set). ``attained <= true <= certified``.

``certified`` is also capped by Proposition 4's level, computed exactly and
rounded up (:func:`~rldp_models.privacy.matrix_checks.ldp_level_up` with
groups ``s``): ``(eps, P_X)``-RLDP implies ``(eps, F)``-RLDP, and it closes the
bisection's last ulps for protocols such as SRR whose ratio reaches ``e^eps``
on ``F`` (zero cells make degenerate conditionals feasible).

:func:`polytope_level` is a fast exact path for protocols built on polytopes
``D_s`` enclosing the conditionals ``F_{U|s}`` (PolyOpt, Theorem 11): the
level over ``D`` is at least the level over ``F``, and it is computed in
rational arithmetic from the vertices of ``D_s``, so it is a proven upper
bound without any solver.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from numpy.typing import ArrayLike

from rldp_models.data import Crosstab
from rldp_models.errors import InputError
from rldp_models.exact import log_up
from rldp_models.privacy.matrix_checks import ldp_level_up
from rldp_models.privacy.worst_case import worst_case_epsilon
from rldp_models.uncertainty.chi_square import ChiSquareSet
from rldp_models.validation import as_epsilon

STOCHASTIC_TOLERANCE = 1e-9
"""Largest accepted deviation of a row sum of ``Q`` from 1."""


@dataclass(frozen=True)
class RLDPLevel:
    """The ``(eps, F)``-RLDP level of a protocol, bracketed.

    Attributes
    ----------
    certified : float
        Proven upper bound on the level (``inf`` if a ratio is unbounded on ``F``).
    attained : float
        Level reached at ``witness``.
    worst_at : tuple of int
        ``(y, s1, s2)`` of the worst ratio ``P(y|s1) / P(y|s2)``.
    witness : ndarray or None
        ``P[s, u]`` in ``F`` reaching ``attained``.
    inconclusive : str or None
        What could not be proven when ``certified`` is ``inf`` for want of a
        proof (not because a ratio is unbounded): report INCONCLUSIVE, not FAILED.
    """

    certified: float
    attained: float
    worst_at: tuple[int, int, int]
    witness: np.ndarray | None
    inconclusive: str | None = None


def rldp_epsilon(Q: ArrayLike, crosstab: Crosstab, alpha: float) -> RLDPLevel:
    """Bracket the RLDP level of ``Q`` over the ``(1 - alpha)`` chi-square set of ``crosstab``.

    Parameters
    ----------
    Q : array_like, shape (|S||U|, |Y|)
        ``Q[x, y] = P(Y=y | X=x)`` with ``x = (s, u)`` row-major.
    crosstab : Crosstab
        Counts defining ``F`` (eq. 3).
    alpha : float
        Significance level in (0, 1).
    """
    Q = _as_protocol(Q, crosstab)
    result = worst_case_epsilon(Q, crosstab.counts, ChiSquareSet.from_counts(crosstab.counts,
                                                                             alpha))
    certified = min(float(result.certified), proposition4_level(Q, crosstab.shape))
    inconclusive = result.inconclusive if certified == np.inf else None
    y, s1, s2 = (int(i) for i in result.worst_at)
    return RLDPLevel(certified, float(result.attained), (y, s1, s2), result.witness,
                     inconclusive)


def proposition4_level(Q: np.ndarray, shape: tuple[int, int]) -> float:
    """The ``(eps, P_X)``-RLDP level of Proposition 4, exact and rounded up to a double."""
    return ldp_level_up(Q, groups=np.repeat(np.arange(shape[0]), shape[1]))


def polytope_level(Q: np.ndarray, vertices: list[list[list[Fraction]]]) -> float:
    """A proven bound on the RLDP level of ``Q`` when each ``F_{U|s}`` is in ``conv(vertices[s])``.

    ``P(y|s) = R_s.Q_{s,y}`` with ``R_s = P_{U|s}``, so the level is at most
    ``log max_{y, s1 != s2} max_{r1} r1.Q_{s1,y} / min_{r2} r2.Q_{s2,y}`` over the
    vertices ``r1`` of ``D_{s1}`` and ``r2`` of ``D_{s2}`` (a linear ratio is
    extremal at vertices; Theorem 11 of ``rldp-privacy-utility-tradeoff.txt``).
    The ratios are exact rationals of the float entries of ``Q``; the log is
    rounded up in interval arithmetic. ``inf`` when a denominator can vanish
    under a positive numerator.

    Parameters
    ----------
    Q : ndarray, shape (|S||U|, |Y|)
        ``x = (s, u)`` row-major.
    vertices : list
        ``vertices[s]``: the vertices of ``D_s``, exact, each of length ``|U|``.
    """
    n_s, n_u = len(vertices), len(vertices[0][0])
    blocks = np.asarray(Q, dtype=float).reshape(n_s, n_u, -1)
    worst = Fraction(1)
    for y in range(blocks.shape[2]):
        values = [_vertex_values(blocks[s, :, y], vertices[s]) for s in range(n_s)]
        for s1, s2 in itertools.permutations(range(n_s), 2):
            top, bottom = max(values[s1]), min(values[s2])
            if top == 0:
                continue
            if bottom == 0:
                return math.inf
            worst = max(worst, top / bottom)
    return log_up(worst)


def _vertex_values(column: np.ndarray, vertices: list[list[Fraction]]) -> list[Fraction]:
    exact = [Fraction(float(value)) for value in column]
    return [sum((r * q for r, q in zip(vertex, exact)), Fraction(0)) for vertex in vertices]


def is_rldp(Q: ArrayLike, crosstab: Crosstab, alpha: float, eps: float) -> bool:
    """Whether ``Q`` is proven ``(eps, F)``-RLDP: ``rldp_epsilon(...).certified <= eps``."""
    return rldp_epsilon(Q, crosstab, alpha).certified <= as_epsilon(eps)


def _as_protocol(Q: ArrayLike, crosstab: Crosstab) -> np.ndarray:
    Q = np.asarray(Q, dtype=float)
    rows = crosstab.counts.size
    if Q.ndim != 2 or Q.shape[0] != rows:
        raise InputError(f"Q must have {rows} rows (x = (s, u) row-major), got shape {Q.shape}")
    if not np.all(np.isfinite(Q)) or np.any(Q < 0):
        raise InputError("Q must have finite nonnegative entries")
    if np.max(np.abs(Q.sum(axis=1) - 1.0)) > STOCHASTIC_TOLERANCE:
        raise InputError("every row of Q must sum to 1")
    return Q
