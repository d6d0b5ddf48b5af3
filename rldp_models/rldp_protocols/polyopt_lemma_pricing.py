"""A pricing oracle for PolyOpt's Gamma from its block structure: branch and bound on ``(a, b, m)``.

Column generation for PolyOpt (eq. 47 over the rays of Gamma, eq. 44 with the
simplices ``D_s`` of Theorem 11) asks for the largest reduced cost per unit
mass ``(mu(T) - lam.T) / (1.T)`` over Gamma (:mod:`rldp_models.conelp.pricing`).
On the slice ``P = {T in Gamma : p.T = 1}`` (``p`` the prior) it is
``h(T) / (1.T)`` with the separable convex

``h(T) = sum_s phi_s(T_s)``,
``phi_s(T_s) = sum_u (p_{s,u} T_{s,u} log T_{s,u} - lam_{s,u} T_{s,u})``

(:mod:`rldp_models.conelp.concave_pricing`). Write ``g_{s,u} = l_s.T_s + c_s
T_{s,u}`` as in :mod:`.polyopt_block_rays`: ``T`` is in Gamma iff ``b_i <= R
a_j`` for ``i != j`` with ``a_s = min_u g_{s,u}``, ``b_s = max_u g_{s,u}``. So
blocks meet only through ``(a_s, b_s)`` and, on the slice, through their masses
``m_s = p_s.T_s`` (``sum_s m_s = 1``).

**Lemma (decomposition).** For a box ``Z`` of values ``(a, b, m)`` let
``B_s(Z) = {T_s >= 0 : alpha_s <= g_{s,u}(T_s) <= beta_s for all u,
mu_s <= p_s.T_s <= nu_s}`` with ``alpha_s = min a_s``, ``beta_s = max b_s``,
``mu_s, nu_s`` the ends of ``m_s`` over ``Z``. Then

1. every ``T`` of ``P`` whose ``(a, b, m)`` lies in ``Z`` has ``T_s in B_s(Z)``
   for every ``s``, so ``max h`` over those ``T`` is at most
   ``U(Z) = sum_s max_{B_s(Z)} phi_s``, and ``max_{B_s(Z)} phi_s`` is attained at a
   vertex of the polytope ``B_s(Z)`` (``phi_s`` convex; ``B_s`` bounded since
   ``g_{s,u} >= c_s T_{s,u}``, ``c_s > 0``);
2. if ``Z`` is a single point ``(a, b, m)`` of ``K = {b_i <= R a_j, i != j}``
   with ``sum m = 1``, every ``T`` with ``T_s in B_s(Z)`` for all ``s`` lies in
   ``P`` (``max g_{s1} <= b_{s1} <= R a_{s2} <= R min g_{s2}``, ``p.T = sum m = 1``),
   so ``U(Z)`` is attained: the bound is exact on points.

*Proof.* (1) is the definition of ``(a, b, m)``; (2) is eq. (44) in the form above.
A vertex of ``B_s(Z)`` solves ``|U|`` linearly independent active constraints
among ``T_u >= 0``, ``g_u >= alpha``, ``g_u <= beta``, ``p.T >= mu``, ``p.T <= nu``
(never both sides of one ``g_u`` or of the mass: they are parallel), so it is
``N_k (alpha, beta, mu, nu)`` for one of finitely many matrices ``N_k``
(one per independent active set, computed once per block) that is feasible there.
The block lemma of :mod:`.polyopt_block_rays` is the case ``alpha = a``, ``beta = b``
of this description (its shapes are these active sets). []

:class:`LemmaPricing` runs spatial branch and bound over boxes of ``(a, b, m)``
(``3 |S|`` numbers, against ``|S| |U|`` for the boxes of ``T`` in
:class:`~rldp_models.conelp.concave_pricing.ConcavePricing`): a box is first
shrunk by ``b_i <= R a_j``, ``a_s <= b_s`` and ``sum m = 1`` (dropped when that
empties it), bounded by ``U`` from the vertex maps (no LP), and split in half on
its widest coordinate (relative to the root box). By (2) the bounds of nested
boxes shrinking to a point converge to the value there, so the search ends.
Feasible points are the relaxations' maximisers that satisfy Gamma's rows;
they are pushed to vertices of ``P`` as candidates (``ConcavePricing``'s local
search and polishing). The root box comes from the proven coordinate bounds of
``ConcavePricing``'s root box. Bounds are in floats with a rounding allowance,
and vertex feasibility is tested with a slack (a superset of vertices only
raises the bound); they are not an exact-rational proof for ``rldp verify``.

**Status: a measured negative result; not used by** :func:`.polyopt.polyopt_protocol`.
The bound relaxes the coupling ``b_i <= R a_j`` to the box's ends, so its
excess over the true maximum shrinks only linearly with the box, and never
vanishes on a box of positive width around a ray with a tight pair (every
optimal ray has one). ``ConcavePricing``'s secant LP keeps every row of
Gamma and is exact at box corners. Complete searches at random duals (Jeffreys
draw 0; ``/work/notes/i23.md``): 2x3 at eps 0.5/2/8, ``ConcavePricing`` 26-30 boxes in
0.03-0.07 s; this oracle still 0.0001-0.014 above the maximum per unit mass after
400,000 boxes (34-42 s). 3x3 eps 2: 48 boxes (0.14 s) against 200,000 boxes (22 s)
that end 7e-11 above it, not closed. ``benchmarks/bench_polyopt.py`` measures
both at one dual in the same process.
"""

from __future__ import annotations

import heapq
import itertools
import math
from fractions import Fraction

import numpy as np
from scipy.special import xlogy

from rldp_models.conelp.concave_pricing import (EARLY_NODES, EARLY_STOP_FACTOR, GAP_TOLERANCE,
                                                GOOD_ENOUGH, ConcavePricing)
from rldp_models.conelp.engine import PRICING_TOLERANCE
from rldp_models.conelp.pricing import PricingResult
from rldp_models.errors import InputError
from rldp_models.conelp.polyopt_gamma import gamma_rows, simplex_vertices

MAX_NODES = 5_000_000
"""Boxes bounded per pricing call; the bound returned is valid whenever it stops."""

BATCH = 256
"""Boxes split together (their children are bounded in one numpy pass)."""

FEASIBILITY_SLACK = 1e-9
"""Relative slack when deciding which vertex maps are feasible at a box (keeps a superset)."""

SIGMA_RANGE = 64.0
"""Bisection range of the mass multiplier ``sigma`` (any value gives a valid bound)."""

SIGMA_STEPS = 30
"""Bisection steps on ``sigma``."""

MASS_SLACK = 1e-12
"""Absolute slack of the mass tightening. A relative ``1e-12`` emptied the point box of an
extreme ray at eps 8 (3x3: block masses down to 9e-5, so that slack is below the rounding of
``1 - sum m``), caught by ``test_point_box_bound_is_exact``."""

ROUNDING_ALLOWANCE = 1e-13
"""Relative allowance added to each box bound for the float evaluation."""


class BlockVertices:
    """The vertex maps ``N_k`` of ``B_s = {T >= 0 : alpha <= g_u <= beta, mu <= p.T <= nu}``.

    Constraints read ``G T >= E theta`` with ``theta = (alpha, beta, mu, nu)``.
    """

    def __init__(self, lower: np.ndarray, prior: np.ndarray) -> None:
        size = lower.size
        c = 1.0 - float(lower.sum())
        g = lower[None, :] + c * np.eye(size)
        self.prior = prior
        self.G = np.vstack([np.eye(size), g, -g, prior[None, :], -prior[None, :]])
        E = np.zeros((3 * size + 2, 4))
        E[size:2 * size, 0] = 1.0
        E[2 * size:3 * size, 1] = -1.0
        E[3 * size, 2] = 1.0
        E[3 * size + 1, 3] = -1.0
        self.E = E
        self.maps = self._maps(size)

    def _maps(self, size: int) -> np.ndarray:
        """``(K, |U|, 4)``: ``T = N_k theta`` for each independent active set, distinct."""
        count = self.G.shape[0]
        partner = {size + u: 2 * size + u for u in range(size)}
        partner[3 * size] = 3 * size + 1
        subsets = [s for s in itertools.combinations(range(count), size)
                   if not any(partner.get(i) in s for i in s)]
        index = np.array(subsets)
        systems = self.G[index]
        singular = np.linalg.svd(systems, compute_uv=False)
        regular = singular[:, -1] > 1e-10 * singular[:, 0]
        maps = np.linalg.solve(systems[regular], self.E[index[regular]])
        _, first = np.unique(np.round(maps, 12).reshape(len(maps), -1), axis=0,
                             return_index=True)
        return maps[np.sort(first)]

    def vertices(self, theta: np.ndarray, dual: np.ndarray
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Per box (rows of ``theta``): ``phi`` and mass at each vertex map, and the maps' points.

        ``phi`` is ``-inf`` at maps infeasible there (to the slack): a box whose
        every map is infeasible has an empty ``B_s``.
        """
        T = np.einsum("kun,bn->bku", self.maps, theta)
        scale = np.abs(theta).max(axis=1)[:, None, None]
        slack = np.einsum("cu,bku->bkc", self.G, T) - (theta @ self.E.T)[:, None, :]
        feasible = np.all(slack >= -FEASIBILITY_SLACK * scale, axis=2)
        T = np.maximum(T, 0.0)
        value = np.einsum("bku,u->bk", xlogy(T, T), self.prior) - T @ dual
        return np.where(feasible, value, -np.inf), T @ self.prior, T


class LemmaPricing:
    """Pricing oracle (:class:`~rldp_models.conelp.pricing.PricingOracle`) for PolyOpt's Gamma.

    Parameters
    ----------
    lower : ndarray, shape (|S|, |U|)
        ``P^min_{u|s}`` of the simplices ``D_s`` (each row summing to less than 1).
    ratio : Fraction
        ``R`` of eq. (44) (:func:`~.polyopt_gamma.gamma_rows`).
    prior : ndarray, shape (|S| |U|,)
        ``p >= 0``, not all zero, row-major over ``(s, u)``.
    max_nodes : int
        Boxes per :meth:`price` call.
    entering : float
        Column generation's threshold (see ``ConcavePricing``).
    """

    def __init__(self, lower: np.ndarray, ratio: Fraction, prior: np.ndarray, *,
                 max_nodes: int = MAX_NODES, entering: float = PRICING_TOLERANCE) -> None:
        lower = np.asarray(lower, dtype=float)
        if lower.ndim != 2 or np.any(lower < 0) or np.any(lower.sum(axis=1) >= 1.0):
            raise InputError("each block's lower bounds must be nonnegative and sum to less "
                             "than 1")
        prior = np.asarray(prior, dtype=float)
        if prior.shape != (lower.size,) or np.any(prior < 0):
            raise InputError("the prior must be nonnegative, one entry per cell")
        rows = gamma_rows([simplex_vertices(row) for row in lower], ratio).astype(float)
        self.lp = ConcavePricing(rows, prior, max_nodes=max_nodes, entering=entering)
        self.shape = lower.shape
        self.ratio = float(ratio)
        self.max_nodes = max_nodes
        self._lower = lower
        self.blocks = [BlockVertices(lower[s], prior.reshape(self.shape)[s])
                       for s in range(self.shape[0])]
        self.root = self._root(lower)
        self._frontier: list[tuple[np.ndarray, np.ndarray]] = []

    @property
    def dimension(self) -> int:
        return self.lp.dimension

    def seed(self) -> np.ndarray:
        return self.lp.seed()

    def price(self, dual: np.ndarray, count: int) -> PricingResult:
        """Rays of largest reduced cost at ``dual`` and a bound over all rays (early stop)."""
        return self._search(np.asarray(dual, dtype=float), count, complete=False)

    def bound(self, dual: np.ndarray) -> PricingResult:
        """A complete search: the bound meets the best ray found (to ``GAP_TOLERANCE`` on ``h``)."""
        return self._search(np.asarray(dual, dtype=float), 1, complete=True)

    # -------------------------------------------------------------- boxes
    def _root(self, lower: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """A box of ``(a, b, m)`` holding every ``T`` of ``P``, from proven bounds on ``T``."""
        n = self.shape[0]
        top = self.lp.root_upper.reshape(self.shape)
        c = 1.0 - lower.sum(axis=1)
        g_top = ((lower * top).sum(axis=1)[:, None] + c[:, None] * top).max(axis=1)
        g_top = g_top * (1 + 1e-12)
        low = np.zeros(3 * n)
        high = np.concatenate([g_top, g_top, np.ones(n)])
        return low, high

    def _tightened(self, low: np.ndarray, high: np.ndarray
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Boxes shrunk by ``b_i <= R a_j``, ``a <= b``, ``sum m = 1``; and which are not empty.

        Exact consequences, loosened for rounding: ``(a, b)`` by a relative
        ``1e-12``, the masses (at most 1, some below ``1e-4`` at eps 8) by
        :data:`MASS_SLACK`.
        """
        n = self.shape[0]
        a_lo, b_lo, m_lo = low[:, :n], low[:, n:2 * n], low[:, 2 * n:]
        a_hi, b_hi, m_hi = high[:, :n], high[:, n:2 * n], high[:, 2 * n:]
        loose = 1 + 1e-12
        b_hi = np.minimum(b_hi, self.ratio * _others(a_hi, np.min) * loose)
        a_lo = np.maximum(a_lo, _others(b_lo, np.max) / self.ratio / loose)
        a_hi = np.minimum(a_hi, b_hi * loose)
        b_lo = np.maximum(b_lo, a_lo / loose)
        m_hi = np.minimum(m_hi, 1 - (m_lo.sum(axis=1, keepdims=True) - m_lo) + MASS_SLACK)
        m_lo = np.maximum(m_lo, 1 - (m_hi.sum(axis=1, keepdims=True) - m_hi) - MASS_SLACK)
        low = np.hstack([a_lo, b_lo, m_lo])
        high = np.hstack([a_hi, b_hi, m_hi])
        return low, high, np.all(low <= high, axis=1)

    def _bounded(self, low: np.ndarray, high: np.ndarray, dual: np.ndarray,
                 parent: np.ndarray | None = None
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Nonempty boxes (tightened), their bounds on ``h`` and relaxation maximisers.

        The bound is ``min_sigma sigma + sum_s max_{B_s} (phi_s - sigma m_s)``
        (valid for every ``sigma`` since ``sum m = 1`` on ``P``; ``sigma = 0`` is
        ``U`` of the lemma), minimised by bisection on its subgradient.
        """
        low, high, keep = self._tightened(low, high)
        low, high = low[keep], high[keep]
        parent = np.full(keep.size, np.inf) if parent is None else parent
        parent = parent[keep]
        n, size = self.shape
        values, masses, points = [], [], []
        for s, block in enumerate(self.blocks):
            theta = np.column_stack([low[:, s], high[:, n + s], low[:, 2 * n + s],
                                     high[:, 2 * n + s]])
            value, mass, T = block.vertices(theta, dual[s * size:(s + 1) * size])
            values.append(value)
            masses.append(mass)
            points.append(T)
        alive = np.all([np.isfinite(v).any(axis=1) for v in values], axis=0)
        sigma = self._sigma(values, masses, alive)
        bound, point, magnitude = self._lagrangian(values, masses, points, sigma[0])
        for other in sigma[1:]:
            candidate = self._lagrangian(values, masses, points, other)
            better = candidate[0] < bound
            bound = np.where(better, candidate[0], bound)
            point[better] = candidate[1][better]
            magnitude = np.where(better, candidate[2], magnitude)
        bound = np.minimum(bound + ROUNDING_ALLOWANCE * (1.0 + magnitude), parent)
        return low[alive], high[alive], bound[alive], point[alive]

    def _lagrangian(self, values: list, masses: list, points: list, sigma: np.ndarray
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``sigma + sum_s max_k (phi_sk - sigma m_sk)`` per box, its maximiser and magnitude."""
        n, size = self.shape
        rows = np.arange(sigma.size)
        bound, magnitude = sigma.copy(), np.abs(sigma)
        point = np.zeros((sigma.size, n * size))
        for s in range(n):
            shifted = values[s] - sigma[:, None] * masses[s]
            k = np.argmax(shifted, axis=1)
            bound += shifted[rows, k]
            chosen = values[s][rows, k]
            magnitude += np.abs(np.where(np.isfinite(chosen), chosen, 0.0)) \
                + np.abs(sigma) * masses[s][rows, k]
            point[:, s * size:(s + 1) * size] = points[s][rows, k]
        return bound, point, magnitude

    @staticmethod
    def _sigma(values: list, masses: list, alive: np.ndarray) -> list[np.ndarray]:
        """Trial ``sigma`` per box: the ends of a bisection bracket of the minimiser and its kink.

        The bound is convex and piecewise linear in ``sigma``; bisection on its
        subgradient ``1 - sum_s m_s`` brackets the minimiser, and the crossing
        of the two pieces active at the bracket's ends is the kink itself.
        """
        low = np.full(alive.size, -SIGMA_RANGE)
        high = np.full(alive.size, SIGMA_RANGE)
        for _ in range(SIGMA_STEPS):
            sigma = 0.5 * (low + high)
            slope, _ = _piece(values, masses, sigma)
            low = np.where(slope < 0, sigma, low)
            high = np.where(slope < 0, high, sigma)
        slope_low, constant_low = _piece(values, masses, low)
        slope_high, constant_high = _piece(values, masses, high)
        with np.errstate(divide="ignore", invalid="ignore"):
            kink = (constant_high - constant_low) / (slope_low - slope_high)
        kink = np.where(np.isfinite(kink), np.clip(kink, low, high), low)
        return [np.where(alive, t, 0.0) for t in (0.5 * (low + high), kink)]

    def _split(self, low: np.ndarray, high: np.ndarray, point: np.ndarray
               ) -> tuple[np.ndarray, np.ndarray]:
        """Each box cut in two, its relaxation maximiser outside both: ``left_0, right_0, ...``.

        Where the maximiser ``T*`` breaks ``b_i <= R a_j`` (``(a*, b*)`` its own
        block minima and maxima), ``b_i`` is cut between ``R a*_j`` and ``b*_i``:
        the lower child's ``beta_i`` and the upper child's tightened ``alpha_j``
        both exclude ``T*`` (omega-subdivision). Otherwise the widest coordinate
        relative to the root box is halved.
        """
        n = self.shape[0]
        rows = np.arange(low.shape[0])
        g = self._g(point)
        a, b = g.min(axis=2), g.max(axis=2)
        violation = b[:, :, None] - self.ratio * a[:, None, :]
        violation[:, np.arange(n), np.arange(n)] = -np.inf
        violation /= np.maximum(b[:, :, None], 1e-300)
        flat = violation.reshape(len(rows), -1).argmax(axis=1)
        i, j = np.divmod(flat, n)
        worst = violation.reshape(len(rows), -1)[rows, flat]
        cut_b = 0.5 * (b[rows, i] + self.ratio * a[rows, j])
        width = (high - low) / np.maximum(self.root[1] - self.root[0], 1e-300)
        x = np.argmax(width, axis=1)
        middle = 0.5 * (low[rows, x] + high[rows, x])
        use = (worst > 1e-9) & (cut_b > low[rows, n + i]) & (cut_b < high[rows, n + i])
        x = np.where(use, n + i, x)
        cut = np.where(use, cut_b, middle)
        child_low, child_high = np.repeat(low, 2, axis=0), np.repeat(high, 2, axis=0)
        child_high[2 * rows, x] = cut
        child_low[2 * rows + 1, x] = cut
        return child_low, child_high

    def _g(self, point: np.ndarray) -> np.ndarray:
        """``g_{s,u}`` of each point, shape ``(N, |S|, |U|)``."""
        blocks = point.reshape(-1, *self.shape)
        lower = self._lower
        c = 1.0 - lower.sum(axis=1)
        return (blocks * lower).sum(axis=2, keepdims=True) + c[:, None] * blocks

    # ------------------------------------------------------------- search
    def _search(self, dual: np.ndarray, count: int, complete: bool) -> PricingResult:
        """Best-first branch and bound from the root box (or the kept frontier)."""
        lp = self.lp
        early = GOOD_ENOUGH if not complete else math.inf
        entering_value = EARLY_STOP_FACTOR * lp.entering * lp._mass[1]
        boxes = self._frontier or [self.root]
        low = np.array([b[0] for b in boxes])
        high = np.array([b[1] for b in boxes])
        heap: list = []
        store: list = []
        pool = lp._local_search(dual, list(lp._recent.T))
        best = max(value for value, _ in pool)
        self._push(heap, store, *self._bounded(low, high, dual), dual, pool)
        best = max(best, max((value for value, _ in pool), default=-math.inf))
        nodes = 0
        while heap:
            top = -heap[0][0]
            if top <= max(best, 0.0) + GAP_TOLERANCE or nodes >= self.max_nodes or (
                    not complete and best > entering_value and (
                        best >= early * top or nodes >= EARLY_NODES * self.dimension)):
                break
            popped = [heapq.heappop(heap) for _ in range(min(BATCH, len(heap)))]
            chosen = [i for _, i in popped]
            parent = np.repeat([-priority for priority, _ in popped], 2)
            low = np.array([store[i][0] for i in chosen])
            high = np.array([store[i][1] for i in chosen])
            point = np.array([store[i][2] for i in chosen])
            for i in chosen:
                store[i] = None
            self._push(heap, store, *self._bounded(*self._split(low, high, point), dual, parent),
                       dual, pool)
            best = max(best, max((value for value, _ in pool), default=-math.inf))
            nodes += 2 * len(chosen)
        self._frontier = [store[i][:2] for _, i in heap]
        top = max([best] + [-priority for priority, _ in heap])
        per_mass = top / lp._mass[0] if top > 0 else top / lp._mass[1]
        rays = lp._candidates(pool, dual, count)
        lp._recent = np.hstack([rays, lp.vertices])
        return PricingResult(rays, lp.utility(rays), float(per_mass), nodes)

    def _push(self, heap: list, store: list, low: np.ndarray, high: np.ndarray,
              bound: np.ndarray, point: np.ndarray, dual: np.ndarray, pool: list) -> None:
        """Open boxes onto the heap; relaxation maximisers that lie in ``P`` into the pool."""
        for k in range(low.shape[0]):
            store.append((low[k], high[k], point[k]))
            heapq.heappush(heap, (-float(bound[k]), len(store) - 1))
        mass = point @ self.lp.prior
        ok = mass > 0
        scaled = point[ok] / mass[ok, None]
        inside = np.all(self.lp.rows @ scaled.T >= -1e-12, axis=0)
        for v in scaled[inside]:
            pool.append((self.lp.objective(v, dual), v))
        if len(pool) > 64:
            pool.sort(key=lambda item: item[0], reverse=True)
            del pool[64:]


def _piece(values: list, masses: list, sigma: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Slope and intercept in ``sigma`` of the Lagrangian bound's piece active at ``sigma``."""
    rows = np.arange(sigma.size)
    slope, constant = np.ones(sigma.size), np.zeros(sigma.size)
    for value, mass in zip(values, masses):
        k = np.argmax(np.where(np.isfinite(value), value - sigma[:, None] * mass, -np.inf),
                      axis=1)
        slope -= mass[rows, k]
        constant += np.where(np.isfinite(value[rows, k]), value[rows, k], 0.0)
    return slope, constant


def _others(values: np.ndarray, reduce) -> np.ndarray:
    """Per row and column, ``reduce`` over the row's other columns."""
    n = values.shape[1]
    out = np.empty_like(values)
    for s in range(n):
        out[:, s] = reduce(np.delete(values, s, axis=1), axis=1)
    return out
