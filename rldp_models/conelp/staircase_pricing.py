"""Exact pricing of the staircase patterns without listing them (DESIGN.md, "Performance").

The rays of the eps-LDP cone are the patterns ``S_A = 1 + (r - 1) 1_A`` over
nonempty proper subsets ``A`` of the ``k`` inputs (Definition 3, Theorem 2 of
``extremal-mechanisms-ldp.txt``), ``r`` the inner ratio. Write ``z = 1_A``.
At a master dual ``lam`` (``L = sum(lam)``) the reduced cost per unit mass is

    ``R(z) = N(z) / D(z)``,  ``N(z) = mu(S_A) - L - (r - 1) lam.z``,  ``D(z) = k + (r - 1) |z|``.

The fraction is handled by a threshold ``rho`` raised to the best ratio found
(Dinkelbach's parametrisation): ``max R > rho`` iff ``max N - rho D > 0``, and
``N - rho D = mu(S_A) - L - rho k - c.z`` with ``c = (r - 1)(lam + rho)``.
A part of the search is discarded once a bound proves ``N - rho D <= s``
on it (``s``: a rounding allowance of ``ROUNDING`` relative to the terms); when
the search ends, ``max R <= rho + 2 s / k`` over *every* pattern, which is
the proven bound of :class:`~rldp_models.conelp.pricing.PricingResult`. The
threshold starts at ``floor`` (default ``1e-10``, the engine's tolerance),
so near the optimum the search proves ``max R <= floor`` instead of
resolving patterns of reduced cost ``0``.

The empty and the full set are in every relaxation below but are not rays;
that keeps the bounds valid, because their ratio is at most that of ``A`` or
``A^c`` (sublinearity: ``mu(1) (1 + r) <= mu(S_A) + mu(S_{A^c})``, and the
masses add up).

Utilities (``mu`` on a pattern, from :mod:`rldp_models.utility`):

* Mutual information, prior ``p`` (Sec. 4, after eq. (18)):
  ``mu(S_A) = g(p.z)``, ``g(t) = r log(r) t - (1 + (r-1) t) log(1 + (r-1) t)``,
  concave. Branch-and-bound on ``z``; the relaxation over ``[0, 1]^k``
  (:meth:`MutualInformationPricing.relaxation`) maximises
  ``g(t) - phi(t)``, ``phi`` the fractional-knapsack cost of reaching
  ``p.z = t``, convex piecewise linear, so its optimum is found segment by
  segment in closed form and has at most one fractional coordinate, on
  which the search branches. A uniform prior makes ``g(p.z)`` depend on
  ``|A|`` only: the best ``A`` of each size holds the smallest ``lam_x``.
* KL divergence ``D(p0 Q || p1 Q)`` (eq. (12)): ``mu(S_A) = z0 log(z0 / z1)``
  with ``z_i = 1 + (r-1) p_i.z``. It is *convex* in ``(p0.z, p1.z)`` (not
  concave), so a continuous relaxation is as hard as the problem. Instead
  ``z0 log(z0/z1) = max_u u z0 - e^(u-1) z1`` (the conjugate of ``t log t``),
  attained at ``u = 1 + log(z0/z1)`` in ``[1 - log r, 1 + log r]``. For fixed
  ``u`` the term is linear in ``z`` and maximised by positive parts; for ``u``
  in an interval, a tangent of ``e^(u-1)`` gives a bound linear in ``u``,
  largest at an end (:meth:`KLDivergencePricing._bound`), and the search
  bisects ``u``, best bound first.
* Total variation (eq. (12), Theorem 6): ``mu(S_A) = (r-1) |(p0 - p1).z| / 2``,
  the larger of two linear terms: for each sign and each ``|A| = m`` the
  best ``A`` takes the ``m`` largest weights, so pricing is exact by sorting.
"""

from __future__ import annotations

import heapq
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from fractions import Fraction
from math import lcm

import numpy as np
from scipy.special import xlogy

from rldp_models.conelp.pricing import PricingResult
from rldp_models.errors import InputError
from rldp_models.utility import KLDivergence, MutualInformation, TotalVariation

PRICING_FLOOR = 1e-10
"""Default starting threshold: a bound ``<= floor`` is reported as ``floor``."""

ROUNDING = 1e-13
"""Relative rounding allowance added to every bound before it prunes."""

WIDTH_LIMIT = 1e-14
"""KL search: intervals of ``u`` narrower than this are not split; their bound is kept."""

MEMORY = 256
"""Patterns the mutual-information oracle keeps as local-search starts."""

MAX_NODES = 200_000
"""Search nodes per pricing call; the open nodes' bounds are reported past it."""

SUBSET_SUM_STATES = 20_000_000
"""Largest ``k^2 N`` for the exact pricing by subset sums of a prior ``n / N``
(:meth:`MutualInformationPricing.subset_sum_pricing`)."""

DENOMINATOR_LIMIT = 10**9
"""Largest denominator sought for each prior entry (:func:`integer_masses`)."""


def mutual_information_pattern(mass: np.ndarray | float, ratio: float) -> np.ndarray:
    """``g(t) = r log(r) t - (1 + (r-1) t) log(1 + (r-1) t)``: ``mu(S_A)`` at ``t = P(A)``."""
    level = 1.0 + (ratio - 1.0) * np.asarray(mass, dtype=float)
    return xlogy(ratio, ratio) * mass - xlogy(level, level)


def patterns(subsets: np.ndarray, ratio: float) -> np.ndarray:
    """The rays ``1 + (r - 1) z`` of the 0/1 columns ``z`` (shape ``(k, m)``)."""
    return 1.0 + (ratio - 1.0) * np.asarray(subsets, dtype=float)


@dataclass
class _Incumbents:
    """Threshold ``rho`` and the best patterns seen, by ratio."""

    rho: float
    best: dict[bytes, tuple[float, np.ndarray]] = field(default_factory=dict)

    def offer(self, z: np.ndarray, ratio: float) -> None:
        """Record a proper subset ``z`` of the given ratio; raise ``rho`` to it."""
        if 0 < z.sum() < z.size and ratio > 0:
            self.best[z.tobytes()] = (ratio, z)
            self.rho = max(self.rho, ratio)

    def top(self, count: int) -> list[np.ndarray]:
        ranked = sorted(self.best.values(), key=lambda item: -item[0])
        return [z for _, z in ranked[:count]]


class StaircasePricing(ABC):
    """What the three oracles share: the patterns, the seed and the result.

    Parameters
    ----------
    size : int
        ``k >= 2``.
    ratio : float
        ``r > 1``, the inner ratio of the cone.
    floor : float
        Starting threshold (see the module docstring).
    """

    def __init__(self, size: int, ratio: float, floor: float = PRICING_FLOOR) -> None:
        if size < 2 or not ratio > 1.0:
            raise InputError(f"staircase pricing needs k >= 2 and ratio > 1, got {size}, {ratio}")
        self.size, self.ratio, self.floor = int(size), float(ratio), float(floor)

    @property
    def dimension(self) -> int:
        return self.size

    def seed(self) -> np.ndarray:
        """The singleton patterns: randomized response, eq. (15), is their mix."""
        return patterns(np.eye(self.size), self.ratio)

    @abstractmethod
    def price(self, dual: np.ndarray, count: int) -> PricingResult:
        """Up to ``count`` rays of largest reduced cost at ``dual`` and a bound over all rays."""

    def pattern_utility(self, subsets: np.ndarray) -> np.ndarray:
        """``mu(S_A)`` of the 0/1 columns ``subsets``, in closed form."""
        raise NotImplementedError

    def ratios(self, subsets: np.ndarray, dual: np.ndarray) -> np.ndarray:
        """``R(z)`` of the 0/1 columns ``subsets`` (exact evaluation)."""
        rays = patterns(subsets, self.ratio)
        return (self.pattern_utility(subsets) - rays.T @ dual) / rays.sum(axis=0)

    def _result(self, found: _Incumbents, count: int, bound: float, nodes: int,
                scale: float) -> PricingResult:
        chosen = found.top(count)
        subsets = (np.column_stack(chosen) if chosen
                   else np.zeros((self.size, 0), dtype=bool))
        slack = 2.0 * ROUNDING * scale / self.size
        return PricingResult(patterns(subsets, self.ratio), self.pattern_utility(subsets),
                             max(bound, found.rho) + slack, nodes)

    def _scale(self, dual: np.ndarray) -> float:
        """Magnitude of the terms of ``N``, for the rounding allowance."""
        return 1.0 + self.ratio * (float(np.abs(dual).sum()) + abs(np.log(self.ratio)) + 1.0)


class MutualInformationPricing(StaircasePricing):
    """Exact pricing for ``I(X;Y)`` by branch-and-bound (see the module docstring).

    Parameters
    ----------
    prior : ndarray, shape (k,)
    ratio, floor
        As in :class:`StaircasePricing`.
    """

    def __init__(self, prior: np.ndarray, ratio: float, floor: float = PRICING_FLOOR) -> None:
        super().__init__(len(prior), ratio, floor)
        self.prior = np.asarray(prior, dtype=float)
        self._memory = np.zeros((self.size, 0), dtype=bool)
        self._masses = integer_masses(self.prior, SUBSET_SUM_STATES)

    def pattern_utility(self, subsets: np.ndarray) -> np.ndarray:
        return mutual_information_pattern(self.prior @ np.asarray(subsets, dtype=float),
                                          self.ratio)

    def slope_inverse(self, sigma: np.ndarray) -> np.ndarray:
        """The ``t`` with ``g'(t) = r log r - (r - 1)(1 + log(1 + (r - 1) t)) = sigma``
        (any real; clipped by the caller)."""
        r = self.ratio
        exponent = np.minimum((r * np.log(r) - sigma) / (r - 1.0) - 1.0, 700.0)
        return np.expm1(exponent) / (r - 1.0)

    def relaxation(self, fixed: np.ndarray, cost: np.ndarray) -> tuple[float, np.ndarray, int]:
        """``max g(p.z) - cost.z`` over ``z`` in ``[0, 1]^k`` with the ``fixed`` entries set.

        ``fixed`` holds 0, 1, or -1 (free). Returns the maximum, a maximiser
        and the index of its fractional coordinate (-1 if it is 0/1). The
        free items of positive prior enter in increasing ``cost / p``
        (fractional knapsack); on the segment where item ``j`` is partly in,
        the objective is ``g(t) - sigma_j t`` plus a constant, maximised at
        ``g'(t) = sigma_j`` clipped to the segment.
        """
        p = self.prior
        z = (fixed == 1).astype(float)
        free = fixed == -1
        massless = free & (p == 0) & (cost < 0)
        z[massless] = 1.0
        items = np.flatnonzero(free & (p > 0))
        t0 = float(p @ z)
        base = -float(cost @ z)
        if items.size == 0:
            return base + float(mutual_information_pattern(t0, self.ratio)), z, -1
        order = items[np.argsort(cost[items] / p[items], kind="stable")]
        sigma = cost[order] / p[order]
        reach = np.concatenate([[0.0], np.cumsum(p[order])])
        spent = np.concatenate([[0.0], np.cumsum(cost[order])])
        best = np.clip(self.slope_inverse(sigma) - t0, reach[:-1], reach[1:])
        values = (mutual_information_pattern(t0 + best, self.ratio)
                  - spent[:-1] - sigma * (best - reach[:-1]))
        j = int(np.argmax(values))
        z[order[:j]] = 1.0
        fraction = (best[j] - reach[j]) / p[order[j]]
        z[order[j]] = fraction
        fractional = order[j] if 1e-12 < fraction < 1.0 - 1e-12 else -1
        if fractional < 0:
            z[order[j]] = round(fraction)
        return base + float(values[j]), z, int(fractional)

    def price(self, dual: np.ndarray, count: int) -> PricingResult:
        """The local search's patterns when one beats ``floor``, else an exact search: by
        subset sums for a prior ``n / N`` of small ``N`` (:meth:`subset_sum_pricing`),
        otherwise branch-and-bound.

        With patterns from :meth:`local_search` the bound is the root
        relaxation's (:meth:`root_bound`): valid, if loose; column generation
        goes on while rays enter, so only the last rounds, where the local
        search finds nothing, pay for the exact search.
        """
        dual = np.asarray(dual, dtype=float)
        found = _Incumbents(self.floor)
        if np.ptp(self.prior) == 0.0:
            return self._price_uniform(dual, count, found)
        subsets, ratios = self.local_search(dual)
        best = np.argsort(-ratios)[:4 * count]
        for column, ratio in zip(subsets[:, best].T, ratios[best]):
            found.offer(column, float(ratio))
        nodes = 1
        if found.rho <= self.floor and self._masses is not None:
            open_bound, best = self.subset_sum_pricing(dual)
            found.offer(best, open_bound)
        elif found.rho <= self.floor:
            open_bound, nodes = self.branch_and_bound(dual, found)
        if found.rho > self.floor:
            open_bound = self.root_bound(dual)
        result = self._result(found, count, open_bound, nodes, self._scale(dual))
        self._remember(result.rays)
        return result

    def _remember(self, rays: np.ndarray) -> None:
        """Keep the last :data:`MEMORY` proposed patterns as starts of the next local search."""
        subsets = rays > 1.0
        self._memory = np.hstack([subsets, self._memory])[:, :MEMORY]

    def _price_uniform(self, dual: np.ndarray, count: int, found: _Incumbents) -> PricingResult:
        """Exact pricing for a uniform prior: ``p.z = |A| / k``, so for each ``|A| = m``
        the best ``A`` holds the ``m`` smallest ``lam_x`` (branch-and-bound would
        face ``C(k, m)`` tied patterns when ``lam`` is symmetric)."""
        subsets = self._prefixes(dual, 0.0)
        ratios = self.ratios(subsets, dual)
        for m in np.argsort(-ratios)[:count]:
            found.offer(subsets[:, m], float(ratios[m]))
        return self._result(found, count, float(ratios.max()), self.size - 1, self._scale(dual))

    def root_bound(self, dual: np.ndarray) -> float:
        """A bound on ``max R`` from the relaxation with nothing fixed, at ``rho = 0``."""
        k, r = self.size, self.ratio
        value, _, _ = self.relaxation(np.full(k, -1, dtype=np.int8), (r - 1.0) * dual)
        numerator = value - float(dual.sum())
        return numerator / (k if numerator > 0 else k + (r - 1.0) * (k - 1))

    def local_search(self, dual: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Patterns of high ratio, their ratios: heuristic, no proof.

        Starts from the prefixes of the order by ``(lam_x + rho) / p_x`` (the
        maximisers of the tangent bounds of ``g``), at ``rho = 0`` and at the
        best ratio among them, and from the patterns proposed before (the
        oracle's memory), and improves each by single flips while one helps
        (at most ``k`` passes).
        """
        first = self._prefixes(dual, 0.0)
        best = max(0.0, float(self.ratios(first, dual).max()))
        subsets = np.hstack([first, self._prefixes(dual, best), self._memory])
        ratios = self.ratios(subsets, dual)
        pool, pool_ratios = [subsets], [ratios]
        for _ in range(self.size):
            neighbour, neighbour_ratios = self._best_flips(subsets, dual)
            better = neighbour_ratios > ratios + 1e-15
            if not better.any():
                break
            subsets, ratios = neighbour[:, better], neighbour_ratios[better]
            pool.append(subsets)
            pool_ratios.append(ratios)
        return np.hstack(pool), np.concatenate(pool_ratios)

    def _prefixes(self, dual: np.ndarray, rho: float) -> np.ndarray:
        """The ``k - 1`` nonempty proper prefixes of the order by ``(lam_x + rho) / p_x``."""
        k = self.size
        cost = dual + rho
        key = np.divide(cost, self.prior, out=np.where(cost < 0, -np.inf, np.inf),
                        where=self.prior > 0)
        order = np.argsort(key, kind="stable")
        subsets = np.zeros((k, k - 1), dtype=bool)
        subsets[order] = np.tri(k, k - 1, -1, dtype=bool)[:, ::-1][::-1]
        return subsets

    def _best_flips(self, subsets: np.ndarray, dual: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Each column with the single flip of highest ratio applied, and that ratio."""
        k, r = self.size, self.ratio
        sign = 1.0 - 2.0 * subsets
        mass = self.prior @ subsets + self.prior[:, None] * sign
        weight = dual @ subsets + dual[:, None] * sign
        size = subsets.sum(axis=0) + sign
        ratio = ((mutual_information_pattern(np.clip(mass, 0.0, 1.0), r) - dual.sum()
                  - (r - 1.0) * weight) / (k + (r - 1.0) * size))
        ratio[(size < 1) | (size > k - 1)] = -np.inf
        best = np.argmax(ratio, axis=0)
        flipped = subsets.copy()
        columns = np.arange(subsets.shape[1])
        flipped[best, columns] = ~flipped[best, columns]
        return flipped, ratio[best, columns]

    def branch_and_bound(self, dual: np.ndarray, found: _Incumbents) -> tuple[float, int]:
        """Branch-and-bound over ``z``, raising ``found.rho`` to the best ratio found.

        Stops at the first pattern of ratio above ``floor`` (the caller then
        reports the root bound). Otherwise returns the bound over nodes left
        open past :data:`MAX_NODES` (``-inf`` if none) and the nodes used; all
        other nodes are proven ``<= found.rho``.
        """
        k, r = self.size, self.ratio
        total = float(dual.sum())
        slack = ROUNDING * self._scale(dual)
        stack = [np.full(k, -1, dtype=np.int8)]
        open_bound, nodes = -np.inf, 0
        while stack:
            fixed = stack.pop()
            nodes += 1
            rho = found.rho
            value, z, fractional = self.relaxation(fixed, (r - 1.0) * (dual + rho))
            gap = value - total - rho * k
            if gap <= slack:
                continue
            if nodes > MAX_NODES:
                open_bound = max(open_bound, rho + (gap + slack) / k)
                continue
            rounded = np.stack([z >= 1.0, z > 0.0], axis=1)
            for column, ratio in zip(rounded.T, self.ratios(rounded, dual)):
                found.offer(column, float(ratio))
            if found.rho > self.floor:
                break
            if fractional >= 0:
                stack.extend(_children(fixed, fractional, z[fractional]))
            elif found.rho > rho:
                stack.append(fixed)
        return open_bound, nodes


    @property
    def has_integer_masses(self) -> bool:
        """Whether the prior is ``n / N`` with ``k^2 N <= SUBSET_SUM_STATES`` (subset sums)."""
        return self._masses is not None

    def subset_sum_pricing(self, dual: np.ndarray) -> tuple[float, np.ndarray]:
        """``max R`` over every pattern and a pattern attaining it, for a prior ``n / N``.

        ``mu(S_A) = g(p.z)`` depends on ``A`` through ``s = n.z`` only, so
        ``max R = max_{m, s} (g(s / N) - L - (r - 1) c(m, s)) / (k + (r - 1) m)``
        with ``c(m, s)`` the least ``lam.z`` over ``|z| = m``, ``n.z = s``: a
        dynamic programme over the items (``O(k^2 N)``), exact up to the
        rounding of the sums. Where the dual ties many patterns (it is affine in
        ``p`` at the optimum of random priors, ``k >= 26``), branch and bound
        meets every pattern near the best ``p(A)`` and stops at
        :data:`MAX_NODES` (6.5 s) with the root's loose bound; this takes
        milliseconds at ``k = 28``, ``N = 1400``.
        """
        masses, total = self._masses if self._masses is not None else (None, 0)
        if masses is None:
            raise InputError("the prior is not n / N for integers of a small enough N")
        k, r = self.size, self.ratio
        least = np.full((k + 1, total + 1), np.inf)
        least[0, 0] = 0.0
        taken = np.zeros((k, k + 1, total + 1), dtype=bool)
        for item, (mass, price) in enumerate(zip(masses, dual)):
            with_item = np.full_like(least, np.inf)
            with_item[1:, mass:] = least[:-1, :total + 1 - mass] + price
            taken[item] = with_item < least
            least = np.minimum(least, with_item)
        sizes = np.arange(k + 1)[:, None]
        utilities = mutual_information_pattern(np.arange(total + 1) / total, r)[None, :]
        with np.errstate(invalid="ignore"):
            ratios = (utilities - float(dual.sum()) - (r - 1.0) * least) / (k + (r - 1.0) * sizes)
        ratios[~np.isfinite(least)] = -np.inf
        ratios[[0, k], :] = -np.inf  # the empty and the full set are not rays
        size, mass = np.unravel_index(int(np.argmax(ratios)), ratios.shape)
        best = np.zeros(k, dtype=bool)
        for item in range(k - 1, -1, -1):
            if taken[item, size, mass]:
                best[item] = True
                size, mass = size - 1, mass - masses[item]
        return float(ratios.max()), best


def integer_masses(prior: np.ndarray, limit: int) -> tuple[np.ndarray, int] | None:
    """Integers ``n`` and ``N`` with ``prior = n / N`` to rounding, when ``k^2 N <= limit``.

    A prior read from counts is one; ``None`` for others.
    """
    fractions = [Fraction(float(x)).limit_denominator(DENOMINATOR_LIMIT) for x in prior]
    total = lcm(*(f.denominator for f in fractions))
    if prior.size**2 * total > limit:
        return None
    masses = np.array([int(f * total) for f in fractions], dtype=np.int64)
    if np.any(np.abs(masses / total - prior) > 4 * np.spacing(prior)):
        return None
    return masses, int(total)


def _children(fixed: np.ndarray, index: int, fraction: float) -> list[np.ndarray]:
    """The two branches on ``z[index]``, the likelier one last (explored first)."""
    down, up = fixed.copy(), fixed.copy()
    down[index], up[index] = 0, 1
    return [down, up] if fraction >= 0.5 else [up, down]


class _DivergencePricing(StaircasePricing):
    """An oracle for a divergence between the output marginals of ``p0`` and ``p1``.

    Parameters
    ----------
    prior0, prior1 : ndarray, shape (k,)
    ratio, floor
        As in :class:`StaircasePricing`.
    """

    def __init__(self, prior0: np.ndarray, prior1: np.ndarray, ratio: float,
                 floor: float = PRICING_FLOOR) -> None:
        super().__init__(len(prior0), ratio, floor)
        self.prior0 = np.asarray(prior0, dtype=float)
        self.prior1 = np.asarray(prior1, dtype=float)


class KLDivergencePricing(_DivergencePricing):
    """Exact pricing for ``D_kl(p0 Q || p1 Q)`` by bisection on the conjugate variable ``u``."""

    def pattern_utility(self, subsets: np.ndarray) -> np.ndarray:
        """``z0 log(z0 / z1)``, ``z_i = 1 + (r - 1) p_i.z``."""
        z = np.asarray(subsets, dtype=float)
        z0 = 1.0 + (self.ratio - 1.0) * (self.prior0 @ z)
        z1 = 1.0 + (self.ratio - 1.0) * (self.prior1 @ z)
        return z0 * np.log(z0 / z1)

    def _linear(self, u: float, scale: float, dual: np.ndarray,
                rho: float) -> tuple[float, np.ndarray, np.ndarray]:
        """``max_z u z0 - scale z1 - L - rho D(z) - (r-1) lam.z``, its maximiser and the weights."""
        r, k = self.ratio, self.size
        weights = (r - 1.0) * (u * self.prior0 - scale * self.prior1 - dual - rho)
        chosen = weights > 0
        value = u - scale - float(dual.sum()) - rho * k + float(weights[chosen].sum())
        return value, chosen, weights

    def _bound(self, low: float, high: float, dual: np.ndarray, rho: float) -> float:
        """A bound on ``max_z N - rho D`` over the ``u`` in ``[low, high]``.

        ``e^(u-1) >= a (1 + u - m)`` (tangent at the middle ``m``, ``a = e^(m-1)``),
        so ``u z0 - e^(u-1) z1`` is below a function linear in ``u``, largest at
        an end: an error of order ``(high - low)^2``, not ``high - low``.
        """
        middle = 0.5 * (low + high)
        tangent = np.exp(middle - 1.0)
        return max(self._linear(u, tangent * (1.0 + u - middle), dual, rho)[0]
                   for u in (low, high))

    def price(self, dual: np.ndarray, count: int) -> PricingResult:
        """Bisection on ``u`` in ``[1 - log r, 1 + log r]``, best bound first."""
        dual = np.asarray(dual, dtype=float)
        slack = ROUNDING * self._scale(dual)
        found = _Incumbents(self.floor)
        spread = np.log(self.ratio)
        heap = [(-np.inf, 1.0 - spread, 1.0 + spread)]
        open_bound, nodes = -np.inf, 0
        while heap:
            _, low, high = heapq.heappop(heap)
            nodes += 1
            bound = self._bound(low, high, dual, found.rho)
            if bound <= slack:
                continue
            if high - low < WIDTH_LIMIT or nodes > MAX_NODES:
                open_bound = max(open_bound, found.rho + (bound + slack) / self.size)
                continue
            middle = 0.5 * (low + high)
            _, chosen, weights = self._linear(middle, np.exp(middle - 1.0), dual, found.rho)
            z = _proper(chosen, weights)
            found.offer(z, float(self.ratios(z[:, None], dual)[0]))
            heapq.heappush(heap, (-bound, low, middle))
            heapq.heappush(heap, (-bound, middle, high))
        return self._result(found, count, open_bound, nodes, self._scale(dual))


def _proper(chosen: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """``chosen``, or the nearest proper subset (by ``weights``) when it is empty or full."""
    z = chosen.copy()
    if not z.any():
        z[np.argmax(weights)] = True
    elif z.all():
        z[np.argmin(weights)] = False
    return z


class TotalVariationPricing(_DivergencePricing):
    """Exact pricing for ``||p0 Q - p1 Q||_TV`` by sorting (see the module docstring)."""

    @property
    def difference(self) -> np.ndarray:
        """``p0 - p1``."""
        return self.prior0 - self.prior1

    def pattern_utility(self, subsets: np.ndarray) -> np.ndarray:
        """``(r - 1) |(p0 - p1).z| / 2`` (the ones cancel: both priors sum to 1)."""
        return 0.5 * (self.ratio - 1.0) * np.abs(self.difference @ np.asarray(subsets, float))

    def price(self, dual: np.ndarray, count: int) -> PricingResult:
        """For each sign and each ``m = |A|``, the ``m`` largest weights; the exact maximum."""
        dual = np.asarray(dual, dtype=float)
        k, r = self.size, self.ratio
        found = _Incumbents(-np.inf)
        sizes = np.arange(1, k)
        best = -np.inf
        for sign in (1.0, -1.0):
            weights = (r - 1.0) * (0.5 * sign * self.difference - dual)
            order = np.argsort(-weights, kind="stable")
            ratios = (np.cumsum(weights[order])[:-1] - dual.sum()) / (k + (r - 1.0) * sizes)
            best = max(best, float(ratios.max()))
            for m in np.argsort(-ratios)[:count]:
                z = np.zeros(k, dtype=bool)
                z[order[:m + 1]] = True
                found.offer(z, float(self.ratios(z[:, None], dual)[0]))
        found.rho = max(self.floor, best)
        return self._result(found, count, found.rho, 2 * k, self._scale(dual))


ORACLE_UTILITIES = (MutualInformation, KLDivergence, TotalVariation)
"""Utilities (exact types) with a staircase pricing oracle."""


def staircase_oracle(utility: object, ratio: float,
                     floor: float = PRICING_FLOOR) -> StaircasePricing:
    """The pricing oracle for ``utility`` on the staircase cone of ``ratio``.

    Raises
    ------
    InputError
        For utilities other than mutual information, KL divergence and total
        variation (they need the full enumeration).
    """
    if type(utility) is MutualInformation:
        return MutualInformationPricing(utility.prior, ratio, floor)
    if type(utility) is KLDivergence:
        return KLDivergencePricing(utility.prior0, utility.prior1, ratio, floor)
    if type(utility) is TotalVariation:
        return TotalVariationPricing(utility.prior0, utility.prior1, ratio, floor)
    raise InputError(f"no staircase pricing oracle for {type(utility).__name__}; "
                     "use mutual information, KL divergence or total variation")
