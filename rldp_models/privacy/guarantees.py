"""Exact checks that a protocol meets the secret-LDP guarantee it was built with.

These checks do not trust the solver. The protocol's entries are taken as
the exact rationals they are; the empirical distribution as ``counts / n``;
``e^eps``, square roots and cube roots are enclosed in intervals
(:mod:`mpmath.iv`, 120 bits). A check *holds* only if the upper end of every
constraint's interval is ``<= 0``.

* Nominal (eq. 6 at ``Phat``): the constraint is evaluated directly.
* Robust (eq. 23 over the chi-square set): Theorem 4 (eq. 29) writes the
  worst case over ``F`` as a minimum over multipliers ``(c, t_1, t_2)``, so
  the expression at *any* multipliers with ``t_i >= max_u v_i(u)`` bounds the
  worst case from above. The multipliers come from the solver (the
  certificate) or, when absent or not good enough, from the closed-form
  minimisation of :meth:`PairProjection.support_certificate`.
"""

from __future__ import annotations

import functools
import itertools
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np

from rldp_models.exact import interval, iv, upper
from rldp_models.privacy.chi_square_bounds import theorem4_rows, theorem4_upper_bounds
from rldp_models.uncertainty.chi_square import ChiSquareSet
from rldp_models.uncertainty.pair_support_batch import pair_support_batch


@dataclass
class GuaranteeCheck:
    """Verdict of an exact guarantee check.

    Attributes
    ----------
    holds : bool
        Every constraint holds exactly.
    kind : str
        ``"nominal"`` or ``"robust"``.
    eps : float
    worst_margin : float
        Upper bound on the largest constraint value (``<= 0`` when it holds), in
        units of probability.
    worst_at : tuple of int
        ``(y, s1, s2)`` of that constraint.
    margins : ndarray
        Upper bounds per ``(s1, s2, y)`` (NaN on the diagonal).
    multipliers : dict
        For robust checks, the ``(c, t)`` used per pair, as arrays.
    """

    holds: bool
    kind: str
    eps: float
    worst_margin: float
    worst_at: tuple[int, int, int]
    margins: np.ndarray
    multipliers: dict[str, dict[str, np.ndarray]] = field(default_factory=dict)

    def summary(self, secrets: Sequence[Any] | None = None,
                outputs: Sequence[Any] | None = None) -> str:
        """One line: the verdict and the worst constraint, its output and secrets named by
        their labels where given (by index otherwise)."""
        verdict = "holds" if self.holds else "FAILS"
        y, s1, s2 = self.worst_at
        return (f"{self.kind} eps={self.eps:g} privacy {verdict}: largest constraint value "
                f"{self.worst_margin:.3e} at output {_named(outputs, y)}, secrets "
                f"{_named(secrets, s1)} against {_named(secrets, s2)}")


def _named(labels: Sequence[Any] | None, index: int) -> str:
    """The label at ``index`` quoted (a non-string label as JSON), else ``#index``."""
    if labels is None or index >= len(labels):
        return f"#{index}"
    label = labels[index]
    return repr(label if isinstance(label, str) else
                json.dumps(label, ensure_ascii=False, separators=(",", ":")))


def _verdict(kind: str, eps: float, margins: np.ndarray,
             multipliers: dict | None = None) -> GuaranteeCheck:
    masked = np.where(np.isnan(margins), -np.inf, margins)
    s1, s2, y = np.unravel_index(int(np.argmax(masked)), masked.shape)
    worst = float(masked[s1, s2, y])
    return GuaranteeCheck(worst <= 0.0, kind, eps, worst, (int(y), int(s1), int(s2)), margins,
                          multipliers or {})


def _conditionals(counts: np.ndarray) -> list[list[Fraction] | None]:
    rows = []
    for row in counts:
        total = int(row.sum())
        rows.append([Fraction(int(c), total) for c in row] if total else None)
    return rows


def check_nominal_privacy(protocol: np.ndarray, counts: np.ndarray, eps: float) -> GuaranteeCheck:
    """Eq. (6) at ``Phat = counts / n`` for every ``y`` and ``s1 != s2``, exactly.

    A secret without records may have any conditional: its side of the
    constraint becomes ``max_u`` (numerator) or ``min_u`` (denominator).
    """
    n_s, n_u = counts.shape
    blocks = protocol.reshape(n_s, n_u, -1)
    conditionals = _conditionals(counts)
    factor = iv.exp(interval(eps))
    high, low = {}, {}
    for s, y in itertools.product(range(n_s), range(blocks.shape[2])):
        column = [Fraction(float(p)) for p in blocks[s, :, y]]
        conditional = conditionals[s]
        if conditional is None:
            high[s, y], low[s, y] = max(column), min(column)
        else:
            value = sum((q * p for q, p in zip(conditional, column)), Fraction(0))
            high[s, y] = low[s, y] = value
    margins = np.full((n_s, n_s, blocks.shape[2]), np.nan)
    for (s1, s2), y in itertools.product(itertools.permutations(range(n_s), 2),
                                         range(blocks.shape[2])):
        margins[s1, s2, y] = upper(interval(high[s1, y]) - factor * interval(low[s2, y]))
    return _verdict("nominal", eps, margins)


@functools.lru_cache(maxsize=1)
def _theorem4_constant() -> "iv.mpf":
    """``K = 2^(-2/3) + 2^(1/3)`` of :func:`symbolic.theorem4_constant`, enclosed."""
    third = iv.mpf(1) / 3
    return iv.mpf(2) ** (-2 * third) + iv.mpf(2) ** third


@functools.lru_cache(maxsize=1024)
def _weight_intervals(row: tuple[Fraction, ...]) -> tuple["iv.mpf | None", ...]:
    """Enclosures of a row of exact weights (``None`` for zeros), converted once per row."""
    return tuple(interval(weight) if weight else None for weight in row)


def theorem4_upper_bound(v1: np.ndarray, v2_scale: "iv.mpf", p2: np.ndarray,
                         rows: list[list[Fraction]], rho: "iv.mpf", c: float,
                         t: tuple[float, float]) -> "iv.mpf":
    """Theorem 4's expression at ``(c, t_1, t_2)`` in interval arithmetic.

    ``v1`` are the numerator probabilities; the second block is
    ``v2 = -v2_scale * p2``. ``t_i`` are raised to ``max_u v_i(u)`` where needed,
    so the point is always feasible and the result bounds the support function
    from above.
    """
    k = _theorem4_constant()
    blocks = ([interval(float(x)) for x in v1], [-v2_scale * interval(float(x)) for x in p2])
    c_iv = interval(max(c, 0.0))
    total = c_iv * rho
    for row, block, t_i in zip(rows, blocks, t):
        t_i = max(float(t_i), *(upper(v) for v in block))
        t_iv = interval(t_i)
        h = iv.mpf(0)
        for weight, v in zip(_weight_intervals(tuple(row)), block):
            if weight is not None:
                gap = t_iv - v
                gap = iv.mpf([max(gap.a, 0), gap.b])
                h += weight * iv.sqrt(gap)
        total += t_iv - k * (c_iv * c_iv * h * h) ** (iv.mpf(1) / 3) if c > 0 else t_iv
    return total


@dataclass(frozen=True)
class PairRows:
    """The rows of Theorem 4 for every ``(pair, y)``, stacked pair-major (``T = pairs x |Y|``).

    ``v1 = P(y | s1, .)`` and ``v2 = -e^eps P(y | s2, .)`` (shape ``(T, |U|)``),
    the joint empirical rows ``p1``, ``p2`` and ``rho = sqrt(B+1) - 1 + Phat(s1) + Phat(s2)``.
    """

    v1: np.ndarray
    v2: np.ndarray
    p1: np.ndarray
    p2: np.ndarray
    rho: np.ndarray


def pair_rows(protocol: np.ndarray, uncertainty: ChiSquareSet, eps: float,
              pairs: list[tuple[int, int]]) -> PairRows:
    """Theorem 4's inputs for every ``(pair, y)`` (see :class:`PairRows`)."""
    n_s, n_u = uncertainty.phat.shape
    blocks = protocol.reshape(n_s, n_u, -1)
    n_y = blocks.shape[2]
    first = np.repeat([p[0] for p in pairs], n_y)
    second = np.repeat([p[1] for p in pairs], n_y)
    y = np.tile(np.arange(n_y), len(pairs))
    phat = uncertainty.phat
    mass = phat.sum(axis=1)
    rho = np.sqrt(uncertainty.radius + 1) - 1 + mass[first] + mass[second]
    return PairRows(blocks[first, :, y], -np.exp(eps) * blocks[second, :, y], phat[first],
                    phat[second], rho)


def pair_multipliers(protocol: np.ndarray, uncertainty: ChiSquareSet, eps: float,
                     pairs: list[tuple[int, int]]
                     ) -> dict[tuple[int, int], dict[str, np.ndarray]]:
    """Theorem 4 multipliers ``(c, t)`` for every ``(pair, y)``, by the vectorised closed form.

    Only the multipliers are used: the bound is then evaluated exactly, so the
    accuracy of this search affects how tight the bound is, never its validity.
    """
    rows = pair_rows(protocol, uncertainty, eps, pairs)
    n_y = rows.v1.shape[0] // len(pairs)
    batch = pair_support_batch(rows.v1, rows.v2, rows.p1, rows.p2, rows.rho)
    return {pair: {"c": batch.c[i * n_y:(i + 1) * n_y],
                   "t": batch.t[i * n_y:(i + 1) * n_y].T.copy()}
            for i, pair in enumerate(pairs)}


def check_robust_privacy(protocol: np.ndarray, counts: np.ndarray, uncertainty: ChiSquareSet,
                         eps: float,
                         multipliers: dict[tuple[int, int], dict[str, np.ndarray]] | None = None,
                         refine: bool = True,
                         pairs: list[tuple[int, int]] | None = None) -> GuaranteeCheck:
    """Eq. (23) for every ``P`` in the chi-square set, proved by Theorem 4 bounds.

    Parameters
    ----------
    protocol : ndarray, shape (|S||U|, |Y|)
    counts : ndarray, shape (|S|, |U|)
    uncertainty : ChiSquareSet
        Built on ``counts / n``; its radius ``B`` is used as the exact double it is.
    eps : float
    multipliers : dict, optional
        ``{(s1, s2): {"c": (|Y|,), "t": (2, |Y|)}}``, e.g. from the solver.
        Pairs without them get multipliers from the vectorised closed form
        (:func:`pair_multipliers`).
    refine : bool
        Where a bound is positive, try multipliers from the precise closed-form
        minimisation (:meth:`PairProjection.support_certificate`) before
        declaring the constraint violated.
    pairs : list of (s1, s2), optional
        Only these ordered pairs (a guarantee restricted to them); the others'
        margins are NaN. Default: every ordered pair.
    """
    n_s, n_u = counts.shape
    n = int(counts.sum())
    blocks = protocol.reshape(n_s, n_u, -1)
    n_y = blocks.shape[2]
    factor = iv.exp(interval(eps))
    root = iv.sqrt(interval(uncertainty.radius) + 1)
    joint = [[Fraction(int(c), n) for c in row] for row in counts]
    pairs = list(itertools.permutations(range(n_s), 2)) if pairs is None else list(pairs)
    multipliers = dict(multipliers or {})
    missing = [pair for pair in pairs if pair not in multipliers]
    if missing:
        multipliers.update(pair_multipliers(protocol, uncertainty, eps, missing))
    margins = np.full((n_s, n_s, n_y), np.nan)
    used: dict[str, dict[str, np.ndarray]] = {}
    proven = theorem4_upper_bounds(
        theorem4_rows(protocol, counts, uncertainty.radius, eps, pairs),
        np.concatenate([np.ravel(multipliers[pair]["c"]) for pair in pairs]),
        np.concatenate([np.reshape(multipliers[pair]["t"], (2, -1)) for pair in pairs], axis=1),
    ).reshape(len(pairs), n_y)  # outward-rounded doubles; 120-bit only where not <= 0
    for (s1, s2), bounds in zip(pairs, proven):
        rows = [joint[s1], joint[s2]]
        rho = root - 1 + interval(sum(rows[0], Fraction(0)) + sum(rows[1], Fraction(0)))
        cs = np.array(multipliers[s1, s2]["c"], dtype=float)
        ts = np.array(multipliers[s1, s2]["t"], dtype=float)
        margins[s1, s2] = bounds
        for y in np.flatnonzero(~(bounds <= 0)):
            v1, p2 = blocks[s1, :, y], blocks[s2, :, y]
            bound = theorem4_upper_bound(v1, factor, p2, rows, rho, cs[y], tuple(ts[:, y]))
            if upper(bound) > 0:  # c = 0: the bound over the whole simplex, exact when tight
                simplex = theorem4_upper_bound(v1, factor, p2, rows, rho, 0.0, (-np.inf, -np.inf))
                if upper(simplex) < upper(bound):
                    bound, cs[y], ts[:, y] = simplex, 0.0, (v1.max(), -np.exp(eps) * p2.min())
            if refine and upper(bound) > 0:
                fresh = uncertainty.pair(s1, s2).support_certificate(v1, -np.exp(eps) * p2)
                refined = theorem4_upper_bound(v1, factor, p2, rows, rho, fresh.c, fresh.t)
                if upper(refined) < upper(bound):
                    bound, cs[y], ts[:, y] = refined, fresh.c, fresh.t
            margins[s1, s2, y] = upper(bound)
        used[f"{s1},{s2}"] = {"c": cs, "t": ts}
    return _verdict("robust", eps, margins, used)
