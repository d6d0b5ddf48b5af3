"""The worst-case eps of a protocol over a chi-square set, bracketed from both sides.

For each output ``y`` and secrets ``s1 != s2`` the worst ratio is

``tau* = sup_{(R1, R2) in F_{U|s1,s2}} (a.R1) / (b.R2)``,
``a = P(y | s1, .)``, ``b = P(y | s2, .)``,

and the worst-case eps is ``log max tau*``. Two independent computations
bracket it:

* **attained** (lower end): Dinkelbach's method on the ratio, each step a
  direct maximisation of ``a.R1 - tau b.R2`` over the set description of
  Theorem 3 (:meth:`PairProjection.support_direct`'s program, built once
  with parameters) — it does not use the support-function reformulation the
  builders use. The maximiser is realised as a distribution in ``F``
  (:meth:`PairProjection.realise`), which is checked for membership.
* **certified** (upper end): ``tau`` such that Theorem 4's expression at some
  multipliers, evaluated in interval arithmetic, shows
  ``delta*(a, -tau b) <= 0``.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from rldp_models.exact import exact_stochastic_rows, interval, iv, log_up, upper
from rldp_models.privacy.chi_square_bounds import (column_ranges, quotient_up, ratio_rows,
                                                   theorem4_upper_bounds)
from rldp_models.privacy.guarantees import theorem4_upper_bound
from rldp_models.uncertainty.chi_square import ChiSquareSet
from rldp_models.uncertainty.pair_support_batch import pair_support_batch

DINKELBACH_TOLERANCE = 1e-10
MAX_DINKELBACH_STEPS = 50
INNER_SOLVERS = ("CLARABEL", "SCS")
"""Solvers tried in turn by the inner maximisation (both take the power cone; ECOS does not)."""


@dataclass
class WorstCaseEpsilon:
    """The worst-case eps over ``F``: ``attained <= true value <= certified``.

    Attributes
    ----------
    certified : float
        Proven upper bound (``inf`` if some ratio is unbounded over ``F``).
    attained : float
        Reached by the explicit distribution ``witness`` in ``F``.
    worst_at : tuple of int
        ``(y, s1, s2)`` of the worst ratio.
    witness : ndarray or None
        A distribution ``P[s, u]`` in ``F`` at which ``attained`` is reached.
    """

    certified: float
    attained: float
    worst_at: tuple[int, int, int]
    witness: np.ndarray | None
    inconclusive: str | None = None


ESTIMATES_BEFORE_PROOF = 8
"""Dinkelbach estimates (largest decoupled bounds first) before the rest are only proven."""

ROOT_RESOLUTION = 2e-12
"""Relative width to which the float root of the support value is found, and its margin."""

ROOT_STEPS = 30
"""Illinois steps at most for that root."""

MAX_PROVEN_RATIO = 1e300
"""Ratios the bisection tries before reporting a bound as not proven (certified ``inf``)."""


class PairRatioSubproblem:
    """``max a.R1 - tau b.R2`` over Theorem 3's set, compiled once with parameters."""

    def __init__(self, n_u: int) -> None:
        import cvxpy as cp  # only when a worst case is estimated: importing this module is cheap

        self.rows = cp.Parameter((2, n_u), nonneg=True)
        self.powered = cp.Parameter((2, n_u), nonneg=True)
        self.rho = cp.Parameter(nonneg=True)
        self.a = cp.Parameter(n_u)
        self.b = cp.Parameter(n_u)
        self.r = [cp.Variable(n_u, nonneg=True) for _ in range(2)]
        k = [cp.Variable(n_u, nonneg=True) for _ in range(2)]
        g = cp.Variable(2, nonneg=True)
        constraints = [g[0] + g[1] <= self.rho]
        for i in range(2):
            constraints += [cp.sum(self.r[i]) == 1,
                            cp.PowCone3D(k[i], self.r[i], self.powered[i], 2.0 / 3.0),
                            cp.norm(k[i], 2) <= g[i]]
        self.problem = cp.Problem(cp.Maximize(self.a @ self.r[0] - self.b @ self.r[1]),
                                  constraints)

    def set_pair(self, rows: np.ndarray, rho: float) -> None:
        self.rows.value = rows
        self.powered.value = rows ** (2.0 / 3.0)
        self.rho.value = rho

    def maximise(self, a: np.ndarray, scaled_b: np.ndarray
                 ) -> tuple[np.ndarray, np.ndarray] | None:
        """The maximiser, or None if no solver of :data:`INNER_SOLVERS` finds one.

        Never raises on a solver failure: the caller keeps its best point, and
        every point is only a candidate (a witness is checked for membership,
        certificates are proven separately).
        """
        self.a.value, self.b.value = a, scaled_b
        for solver in INNER_SOLVERS:
            found = self._solve_with(solver)
            if found is not None:
                return found
        return None

    def _solve_with(self, solver: str) -> tuple[np.ndarray, np.ndarray] | None:
        import cvxpy as cp

        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # a witness is checked for membership
            try:
                self.problem.solve(solver=solver)
            except (cp.error.SolverError, ArithmeticError, ValueError):
                return None
        first, second = (r.value for r in self.r)
        if first is None or second is None or not (np.all(np.isfinite(first))
                                                    and np.all(np.isfinite(second))):
            return None
        return (np.clip(first, 0, None), np.clip(second, 0, None))


def _ratio(a: np.ndarray, b: np.ndarray, r1: np.ndarray, r2: np.ndarray) -> float:
    return float(a @ (r1 / r1.sum())) / float(b @ (r2 / r2.sum()))


def _attained_ratio(sub: PairRatioSubproblem, a: np.ndarray, b: np.ndarray,
                    start: tuple[np.ndarray, np.ndarray]) -> tuple[float, np.ndarray, np.ndarray]:
    """Dinkelbach iterations from ``start``; returns the ratio and its maximiser."""
    best = (_ratio(a, b, *start), *start)
    tau = best[0]
    for _ in range(MAX_DINKELBACH_STEPS):
        found = sub.maximise(a, tau * b)
        if found is None or float(b @ found[1]) <= 0:
            break
        r1, r2 = found
        new = _ratio(a, b, r1, r2)
        if new > best[0]:
            best = (new, r1, r2)
        if new <= tau * (1 + DINKELBACH_TOLERANCE):
            break
        tau = new
    return best


def _proves(pair, a: np.ndarray, b: np.ndarray, tau: float, rows_exact, rho_iv) -> bool:
    """Whether ``delta*(a, -tau b | F_{U|s1,s2}) <= 0`` is proven in interval arithmetic."""
    try:
        fresh = pair.support_certificate(a, -tau * b)
        bound = theorem4_upper_bound(a, interval(tau), b, rows_exact, rho_iv, fresh.c, fresh.t)
    except (ArithmeticError, ValueError):  # no multipliers found: this tau is not proven
        return False
    return upper(bound) <= 0


def _support_value(pair, a: np.ndarray, b: np.ndarray, tau: float) -> float:
    """``delta*(a, -tau b | F_{U|s1,s2})`` in floats (Theorem 4's minimum; ``nan`` if not found)."""
    try:
        return float(pair.support_certificate(a, -tau * b).value)
    except (ArithmeticError, ValueError):
        return np.nan


def batch_bounds(triplets: list["_Triplet"], tau: float, counts: np.ndarray,
                 uncertainty: ChiSquareSet) -> np.ndarray:
    """Proven upper bounds on ``delta*(a, -tau b | F_{U|s1,s2})`` of many ratios at once.

    ``delta*(a, -tau b | F_{U|s1,s2}) <= 0`` by Theorem 4 at the vectorised
    multipliers of :func:`pair_support_batch`, evaluated in outward-rounded
    doubles (:mod:`rldp_models.privacy.chi_square_bounds`). False means only
    "not proven this way"; :func:`_proves` is the precise fallback.
    """
    if not triplets:
        return np.zeros(0)
    a = np.stack([t.a for t in triplets])
    b = np.stack([t.b for t in triplets])
    pairs = [(t.s1, t.s2) for t in triplets]
    first, second = np.array(pairs, dtype=int).T
    phat = uncertainty.phat
    mass = phat.sum(axis=1)
    rho = np.sqrt(uncertainty.radius + 1) - 1 + mass[first] + mass[second]
    with np.errstate(all="ignore"):
        batch = pair_support_batch(a, -tau * b, phat[first], phat[second], rho)
    rows = ratio_rows(a, b, (tau, tau), counts, uncertainty.radius, pairs)
    return theorem4_upper_bounds(rows, batch.c, batch.t.T)


def _batch_sorted(pending: dict[tuple[int, int, int], "_Triplet"], settled: set,
                  level: float, counts: np.ndarray, uncertainty: ChiSquareSet
                  ) -> tuple[set, list[tuple[int, int, int]]]:
    """Keys of ``pending`` outside ``settled`` proven at ``level`` in one batch, and the rest,
    largest bound first (the ratios most likely above ``level``: one of them raising it first
    leaves fewer for the next batch)."""
    if not np.isfinite(level):
        return set(), []
    left = [key for key in pending if key not in settled]
    values = batch_bounds([pending[key] for key in left], level, counts, uncertainty)
    order = np.argsort(-np.where(np.isnan(values), np.inf, values), kind="stable")
    return ({left[i] for i in np.flatnonzero(values <= 0)},
            [left[i] for i in order if not values[i] <= 0])


def _tight_certificate(prove, low: float, high: float, value=None) -> float:
    """Smallest proven ratio found by bisection in ``[low, high]``, growing ``high`` if needed.

    With ``value`` (the support value ``delta*(a, -tau b)`` in floats, decreasing
    in ``tau``) the bracket is first narrowed around its root
    (:func:`_narrowed_bracket`): a few float evaluations replace most of the
    bisection's interval proofs. Every ratio returned is proven either way.
    ``inf`` when nothing up to :data:`MAX_PROVEN_RATIO` is proven.
    """
    while not prove(high):
        if high > MAX_PROVEN_RATIO:
            return np.inf
        low, high = high, high * 2 + 1e-300
    if value is not None:
        low, high = _narrowed_bracket(prove, value, low, high)
    for _ in range(40):
        if high - low <= 1e-12 * high:
            break
        middle = 0.5 * (low + high)
        if prove(middle):
            high = middle
        else:
            low = middle
    return high


def _support_root(value, low: float, high: float) -> float | None:
    """Root of the decreasing ``value`` in ``[low, high]`` by Illinois steps (floats only)."""
    f_low, f_high = value(low), value(high)
    if not (np.isfinite(f_low) and np.isfinite(f_high)) or f_low <= 0 or f_high > 0:
        return None
    side = 0
    for _ in range(ROOT_STEPS):
        if high - low <= ROOT_RESOLUTION * high or f_low == f_high:
            break
        middle = (low * f_high - high * f_low) / (f_high - f_low)
        if not low < middle < high:
            middle = 0.5 * (low + high)
        f = value(middle)
        if not np.isfinite(f):
            return None
        if f == 0:
            return middle
        if f > 0:
            low, f_low = middle, f
            f_high, side = (0.5 * f_high if side > 0 else f_high), 1
        else:
            high, f_high = middle, f
            f_low, side = (0.5 * f_low if side < 0 else f_low), -1
    return 0.5 * (low + high)


def _narrowed_bracket(prove, value, low: float, high: float) -> tuple[float, float]:
    """``[low, high]`` shrunk around the float root of ``value``: ``high`` only to a
    proven ratio, ``low`` only to one not proven (the bisection's invariants)."""
    root = _support_root(value, low, high)
    if root is None:
        return low, high
    above, below = root * (1 + ROOT_RESOLUTION), root * (1 - ROOT_RESOLUTION)
    if low < above < high and prove(above):
        high = above
    if low < below < high and not prove(below):
        low = below
    return low, high


@dataclass
class _Triplet:
    """One ratio: output ``y``, secrets ``s1, s2``, columns ``a, b`` and its Dinkelbach estimate."""

    y: int
    s1: int
    s2: int
    a: np.ndarray
    b: np.ndarray
    tau: float
    r1: np.ndarray
    r2: np.ndarray


class _PairData:
    """Per-pair pieces built on first use: the projection, its exact rows and ``rho``."""

    def __init__(self, counts: np.ndarray, uncertainty: ChiSquareSet) -> None:
        self.counts, self.uncertainty = counts, uncertainty
        self.n = int(counts.sum())
        self.root = iv.sqrt(interval(uncertainty.radius) + 1)
        self.cache: dict[tuple[int, int], tuple] = {}

    def __call__(self, s1: int, s2: int) -> tuple:
        if (s1, s2) not in self.cache:
            pair = self.uncertainty.pair(s1, s2)
            rows_exact = [[Fraction(int(c), self.n) for c in self.counts[s]] for s in (s1, s2)]
            rho_iv = self.root - 1 + interval(sum(rows_exact[0], Fraction(0))
                                              + sum(rows_exact[1], Fraction(0)))
            self.cache[s1, s2] = (pair, rows_exact, rho_iv)
        return self.cache[s1, s2]


def decoupled_ratio_bounds(blocks: np.ndarray, counts: np.ndarray, radius: float) -> np.ndarray:
    """Proven ``sup_F P(y|s1) / P(y|s2) <= max_{F_{U|s1}} a.R1 / min_{F_{U|s2}} b.R2``.

    Shape ``(s1, s2, y)``; NaN where ``P(y|s1) = 0`` on all of ``F`` and on
    the diagonal. Drops Theorem 3's coupling, so it is never below the
    coupled value; cheap (:mod:`rldp_models.privacy.chi_square_bounds`).
    """
    ranges = column_ranges(counts, radius, blocks)
    bounds = quotient_up(ranges.high[:, None, :], ranges.low[None, :, :])
    index = np.arange(blocks.shape[0])
    bounds[index, index] = np.nan
    return bounds


def worst_case_epsilon(protocol: np.ndarray, counts: np.ndarray,
                       uncertainty: ChiSquareSet) -> WorstCaseEpsilon:
    """Bracket ``max_{P in F} eps*(protocol, P)``; see the module docstring.

    Every ratio first gets the cheap decoupled bound
    (:func:`decoupled_ratio_bounds`). In decreasing order of that bound,
    ratios get a Dinkelbach estimate until the bound falls below the best
    estimate or :data:`ESTIMATES_BEFORE_PROOF` are done; the largest estimate
    is certified tightly by bisection, and every ratio whose decoupled bound
    exceeds the certified level is proven not to exceed it by Theorem 4. A
    ratio that cannot be is estimated (its witness kept if it reaches more)
    and certified on its own.
    """
    n_s, n_u = counts.shape
    blocks = protocol.reshape(n_s, n_u, -1)
    bounds = decoupled_ratio_bounds(blocks, counts, uncertainty.radius)
    candidates = np.argwhere(~np.isnan(bounds))
    candidates = candidates[np.argsort(-bounds[tuple(candidates.T)], kind="stable")]
    pair_data = _PairData(counts, uncertainty)
    sub = PairRatioSubproblem(n_u)
    triplets: list[_Triplet] = []
    best_tau = 0.0
    for s1, s2, y in candidates:
        if bounds[s1, s2, y] <= best_tau or (len(triplets) >= ESTIMATES_BEFORE_PROOF
                                             and np.isfinite(best_tau)):
            break
        triplets.append(_estimate(sub, pair_data, blocks, int(s1), int(s2), int(y)))
        best_tau = max(best_tau, triplets[-1].tau)
    if not triplets:
        return WorstCaseEpsilon(0.0, 0.0, (0, 0, 1), uncertainty.phat.copy())
    triplets.sort(key=lambda t: t.tau, reverse=True)
    top = triplets[0]
    witness = witness_distribution(uncertainty, top.s1, top.s2, top.r1, top.r2)
    attained = _ratio_under(witness, top) if witness is not None else 1.0
    where = (top.y, top.s1, top.s2)
    if not np.isfinite(top.tau):
        return WorstCaseEpsilon(np.inf, _log_at_least_zero(attained), where, witness)

    def prover(t: _Triplet):
        pair, rows_exact, rho_iv = pair_data(t.s1, t.s2)
        return lambda tau: _proves(pair, t.a, t.b, tau, rows_exact, rho_iv)

    def support(t: _Triplet):
        pair = pair_data(t.s1, t.s2)[0]
        return lambda tau: _support_value(pair, t.a, t.b, tau)

    certified = _tight_certificate(prover(top), max(attained, 1.0), top.tau * (1 + 1e-9),
                                   support(top))
    examined = {(t.s1, t.s2, t.y): t for t in triplets}
    pending = {(int(s1), int(s2), int(y)): examined.get((s1, s2, y))
               or _unestimated(blocks, int(s1), int(s2), int(y), float(bounds[s1, s2, y]))
               for s1, s2, y in candidates
               if bounds[s1, s2, y] > certified and (s1, s2, y) != (top.s1, top.s2, top.y)}
    # proven at once at this level stays proven at every higher one (b >= 0)
    settled, queue = _batch_sorted(pending, set(), certified, counts, uncertainty)
    unproven = None
    while queue and np.isfinite(certified):
        s1, s2, y = key = queue.pop(0)
        settled.add(key)
        other = pending[key]
        if bounds[s1, s2, y] <= certified or prover(other)(certified):
            continue
        if key not in examined:  # it may beat the top: estimate it, keep a better witness
            other = _estimate(sub, pair_data, blocks, s1, s2, y)
            found = witness_distribution(uncertainty, other.s1, other.s2, other.r1, other.r2)
            if found is not None and _ratio_under(found, other) > attained:
                attained, witness = _ratio_under(found, other), found
                where = (other.y, other.s1, other.s2)
            if not np.isfinite(other.tau):
                return WorstCaseEpsilon(np.inf, _log_at_least_zero(attained), where, witness)
        high = max(min(other.tau, float(bounds[s1, s2, y])) * (1 + 1e-9), certified)
        certified = _tight_certificate(prover(other), certified, high, support(other))
        unproven = other
        proven, queue = _batch_sorted(pending, settled, certified, counts, uncertainty)
        settled |= proven
    if not np.isfinite(certified):
        t = unproven or top
        note = (f"no finite bound on P(y={t.y}|s{t.s1}) / P(y={t.y}|s{t.s2}) over F could be "
                "proven (Theorem 4's multipliers were not found)")
        return WorstCaseEpsilon(np.inf, _log_at_least_zero(attained), where, witness, note)
    return WorstCaseEpsilon(log_up(certified), min(_log_at_least_zero(attained), log_up(certified)),
                            where, witness)


def _estimate(sub: PairRatioSubproblem, pair_data: _PairData, blocks: np.ndarray, s1: int,
              s2: int, y: int) -> _Triplet:
    """The Dinkelbach estimate of one ratio (``inf`` when its denominator can vanish on ``F``)."""
    pair = pair_data(s1, s2)[0]
    sub.set_pair(pair.rows, pair.rho)
    a, b = _power_of_two_normalised(blocks[s1, :, y], blocks[s2, :, y])
    start = (_centre(pair.rows[0]), _centre(pair.rows[1]))
    if _denominator_can_vanish(pair.rows[1], b):
        r1, r2 = sub.maximise(a, np.zeros(a.size)) or start
        return _Triplet(y, s1, s2, a, b, np.inf, r1, r2)
    return _Triplet(y, s1, s2, a, b, *_attained_ratio(sub, a, b, start))


def _unestimated(blocks: np.ndarray, s1: int, s2: int, y: int, bound: float) -> _Triplet:
    """A ratio never estimated (its decoupled bound was below the best estimate)."""
    a, b = _power_of_two_normalised(blocks[s1, :, y], blocks[s2, :, y])
    return _Triplet(y, s1, s2, a, b, bound, a, b)


def _log_at_least_zero(ratio: float) -> float:
    return max(float(np.log(ratio)), 0.0) if ratio > 0 else 0.0


def _ratio_under(witness: np.ndarray, top: _Triplet) -> float:
    """``P(y|s1) / P(y|s2)`` of the normalised columns under the distribution ``witness``."""
    q1 = witness[top.s1] / witness[top.s1].sum()
    q2 = witness[top.s2] / witness[top.s2].sum()
    denominator = float(top.b @ q2)
    return float(top.a @ q1) / denominator if denominator > 0 else np.inf


def _power_of_two_normalised(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Scale ``(a, b)`` by one power of two (exact in floating point) to a maximum in [0.5, 1).

    Every ratio and the sign of every ``delta*(a, -tau b)`` are unchanged, and
    the scalar searches work at a sensible scale.
    """
    top = max(float(a.max()), float(b.max()))
    if top == 0.0:
        return a, b
    exponent = np.frexp(top)[1]
    return np.ldexp(a, -exponent), np.ldexp(b, -exponent)


def _denominator_can_vanish(row: np.ndarray, b: np.ndarray) -> bool:
    """Whether ``b.R2 = 0`` for some ``R2`` in the projection (see module docs)."""
    support = row > 0
    if not np.any(support):
        return bool(np.min(b) == 0)
    return bool(np.all(b[support] == 0))


def witness_distribution(uncertainty: ChiSquareSet, s1: int, s2: int, r1: np.ndarray,
             r2: np.ndarray) -> np.ndarray | None:
    """A distribution in ``F`` with conditionals ``(r1, r2)`` on ``(s1, s2)``, if one is found."""
    pair = uncertainty.pair(s1, s2)
    r1, r2 = r1 / r1.sum(), r2 / r2.sum()
    for shrink in (0.0, 1e-9, 1e-6, 1e-3):
        q1 = (1 - shrink) * r1 + shrink * _centre(pair.rows[0])
        q2 = (1 - shrink) * r2 + shrink * _centre(pair.rows[1])
        try:
            m1, m2, rest = pair.realise(q1, q2)
        except ValueError:
            continue
        p = uncertainty.phat * (rest / pair.rest if pair.rest > 0 else 0.0)
        p[s1], p[s2] = m1 * q1, m2 * q2
        p = exact_stochastic_rows(p.reshape(1, -1)).reshape(p.shape)
        if uncertainty.contains(p):
            return p
    return None


def _centre(row: np.ndarray) -> np.ndarray:
    return row / row.sum() if row.sum() > 0 else np.full(row.size, 1.0 / row.size)


def attained_pair_ratio(uncertainty: ChiSquareSet, s1: int, s2: int, a: np.ndarray,
                        b: np.ndarray) -> tuple[float, np.ndarray | None]:
    """``log`` of a ratio ``(a.P_{U|s1}) / (b.P_{U|s2})`` reached in ``F``, and the distribution.

    One Dinkelbach search over Theorem 3's pair set (the lower end of the
    module's bracket for a single output); ``(0, None)`` when no member of
    ``F`` is found. Never raises on a solver failure.
    """
    pair = uncertainty.pair(s1, s2)
    a, b = _power_of_two_normalised(np.asarray(a, float), np.asarray(b, float))
    if not np.any(a > 0):
        return 0.0, None
    sub = PairRatioSubproblem(a.size)
    sub.set_pair(pair.rows, pair.rho)
    start = (_centre(pair.rows[0]), _centre(pair.rows[1]))
    if _denominator_can_vanish(pair.rows[1], b):
        r1, r2 = sub.maximise(a, np.zeros(a.size)) or start
    else:
        _, r1, r2 = _attained_ratio(sub, a, b, start)
    witness = witness_distribution(uncertainty, s1, s2, r1, r2)
    if witness is None:
        return 0.0, None
    top = _Triplet(0, s1, s2, a, b, 0.0, r1, r2)
    return _log_at_least_zero(_ratio_under(witness, top)), witness
