"""Theorem 4 for many constraints at once: support values, multipliers and maximisers.

For ``T`` problems ``sup { v1.R1 + v2.R2 : (R1, R2) in F_{U|s1,s2} }`` with their
own data, this module minimises Theorem 4's expression with ``w_i = t_i``
(see :mod:`rldp_models.uncertainty.pair_projection`) in a vectorised way:
for fixed ``c`` each block's ``t_i`` solves the monotone equation

``h_i(t)^(-1/3) h_i'(t) = 3 / (2 K c^(2/3))``,  ``h_i(t) = sum_u Phat_{s_i,u} sqrt(t - v_i(u))``

(safeguarded Newton steps in ``log(t - max v_i)``), and ``c`` solves the
monotone envelope condition ``rho = (2/3) K c^(-1/3) sum_i h_i(t_i)^(2/3)``
(bisection in ``log c``). Both iterations are vectorised over the rows still
iterating: each row stops on its own convergence test, so a row's answer does
not depend on the rows batched with it, and a few slow rows cost only their own
steps. The maximiser follows from stationarity:
``R_i(u)`` is proportional to ``Phat_{s_i,u} / sqrt(t_i - v_i(u))``, with any
remaining budget on a zero-count cell where ``v_i`` is largest; it is pulled
towards the empirical conditional until it provably lies in the set.

The value at ``(c, t)`` bounds the support function from above; the value at
the maximiser bounds it from below. Their gap measures the accuracy.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections import OrderedDict
from dataclasses import dataclass

import numpy as np

from rldp_models import symbolic_values

OUTER_STEPS = 100
BISECTIONS = 9
INNER_STEPS = 40


@dataclass
class BatchPairSupport:
    """Bounds on ``T`` pair support functions, with certificates and maximisers.

    Attributes
    ----------
    upper : ndarray (T,)
        Theorem 4's expression at ``(c, t)``: an upper bound.
    lower : ndarray (T,)
        ``v1.R1 + v2.R2`` at the returned maximisers, which lie in the set.
    c : ndarray (T,)
    t : ndarray (T, 2)
    r1, r2 : ndarray (T, U)
    """

    upper: np.ndarray
    lower: np.ndarray
    c: np.ndarray
    t: np.ndarray
    r1: np.ndarray
    r2: np.ndarray


def _h_terms(t: np.ndarray, v: np.ndarray, p: np.ndarray):
    """``h``, ``h'`` and ``h''`` at ``t`` (T,) for blocks ``v``, ``p`` (T, U)."""
    gap = np.maximum(t[:, None] - v, 0.0)
    root = np.sqrt(gap)
    with np.errstate(divide="ignore", invalid="ignore"):
        inverse = np.where(p > 0, p / root, 0.0)  # inf where a counted cell sits at t
        h = np.sum(p * root, axis=1)
        h1 = 0.5 * np.sum(inverse, axis=1)
        h2 = -0.25 * np.sum(np.where(p > 0, inverse / gap, 0.0), axis=1)
    return h, h1, h2


def _block_t(c: np.ndarray, v: np.ndarray, p: np.ndarray, k: float,
             start: np.ndarray | None) -> np.ndarray:
    """Minimiser ``t_i(c)`` of ``t - K c^(2/3) h(t)^(2/3)`` over ``t >= max v`` for each row.

    Rows without records, and rows whose largest ``v`` sits on a zero-count
    cell with the equation already satisfied there, stay at ``max v``.
    """
    top = v.max(axis=1)
    mass = p.sum(axis=1)
    target = 3.0 / (2.0 * k * np.maximum(c, 1e-300) ** (2.0 / 3.0))
    h, h1, _ = _h_terms(top, v, p)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        at_top = np.where(h > 0, h1 * h ** (-1.0 / 3.0), np.inf)
    clamped = (mass == 0) | (at_top <= target)
    span = np.maximum(mass * k**1.5 * c / 3**1.5, 1e-300)
    hi = np.log(span) + 1.0  # the root is at most log(span): keep it off the bracket's end
    resolution = np.log(np.maximum(16 * np.spacing(np.abs(top)), 1e-300))  # t - max v >= ulps
    lo = np.minimum(np.maximum(np.log(span) - 80.0, resolution), hi - 1e-9)
    x = np.clip(np.log(np.maximum(start - top, 1e-300)), lo, hi) if start is not None \
        else hi - 1.5
    live = np.flatnonzero(~clamped)  # rows still iterating: each stops on its own test
    for _ in range(INNER_STEPS):
        if live.size == 0:
            break
        at, low, high = x[live], lo[live], hi[live]
        h, h1, h2 = _h_terms(top[live] + np.exp(at), v[live], p[live])
        with np.errstate(divide="ignore", invalid="ignore"):
            psi = np.log(h1) - np.log(h) / 3.0 - np.log(target[live])
            slope = np.exp(at) * (h2 / h1 - h1 / (3.0 * h))
        low, high = np.where(psi > 0, at, low), np.where(psi > 0, high, at)
        step = at - psi / slope
        usable = np.isfinite(step) & (step > low) & (step < high)
        # done when the Newton correction of log(t - max v) is below 1e-8 (t's own rounding
        # limits psi when t - max v is tiny; that last correction is still taken) or the
        # bracket has closed
        small = np.abs(step - at) < 1e-8
        done = ~np.isfinite(psi) | small | (high - low < 1e-8)
        lo[live], hi[live] = low, high
        x[live] = np.where(usable & (small | ~done), step, np.where(done, at, 0.5 * (low + high)))
        live = live[~done]
    return np.where(clamped, top, top + np.exp(x))


def _envelope_slope(c, v1, v2, p1, p2, rho, k, starts):
    t1 = _block_t(c, v1, p1, k, starts[0])
    t2 = _block_t(c, v2, p2, k, starts[1])
    h1 = _h_terms(t1, v1, p1)[0]
    h2 = _h_terms(t2, v2, p2)[0]
    slope = rho - (2.0 / 3.0) * k * c ** (-1.0 / 3.0) * (h1 ** (2 / 3) + h2 ** (2 / 3))
    return slope, t1, t2


def _envelope_root(slope_at, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """Root in ``c`` of the increasing envelope slope, bracketed in ``log c``.

    The slope is far from linear over the first bracket, so a few bisections
    come first; Illinois (modified regula falsi) steps finish.
    """
    every = np.arange(lo.size)
    f_lo, t1, t2 = slope_at(np.exp(lo), [None, None], every)
    f_hi, t1, t2 = slope_at(np.exp(hi), [t1, t2], every)
    lo, hi, side = lo.copy(), hi.copy(), np.zeros(lo.shape)
    unbracketed = (f_lo >= 0) | (f_hi <= 0)  # root at an end: c -> 0 (simplex bound) or huge
    x = np.where(f_lo >= 0, lo, hi)
    live = np.flatnonzero(~unbracketed)  # rows still iterating: each stops on its own test
    for step in range(OUTER_STEPS):
        if live.size == 0:
            break
        a, b, f_a, f_b = lo[live], hi[live], f_lo[live], f_hi[live]
        with np.errstate(divide="ignore", invalid="ignore"):
            secant = (a * f_b - b * f_a) / (f_b - f_a)
        usable = np.isfinite(secant) & (secant > a) & (secant < b) & (step >= BISECTIONS)
        at = np.where(usable, secant, 0.5 * (a + b))
        f, t1[live], t2[live] = slope_at(np.exp(at), [t1[live], t2[live]], live)
        below, moved = f < 0, side[live]
        # Illinois: halve the stale end's value when the same end moves twice
        f_b = np.where(below & (moved < 0), 0.5 * f_b, f_b)
        f_a = np.where(~below & (moved > 0), 0.5 * f_a, f_a)
        a, f_a = np.where(below, at, a), np.where(below, f, f_a)
        b, f_b = np.where(below, b, at), np.where(below, f_b, f)
        x[live], lo[live], hi[live], f_lo[live], f_hi[live] = at, a, b, f_a, f_b
        side[live] = np.where(below, -1.0, 1.0)
        converged = (b - a < 1e-10) | (np.abs(f) <= 1e-12 * np.abs(f_a - f_b))
        live = live[~converged]
    return np.exp(x)


def theorem4_expression(c, t1, t2, v1, v2, p1, p2, rho, k) -> np.ndarray:
    """The objective of Theorem 4's minimisation (eq. 29) at ``(c, t1, t2)``, batched.

    Any ``c >= 0`` and ``t_i >= max_u v_i(u)`` give an upper bound on the pair
    support; ``k`` is Theorem 4's constant (:data:`rldp_models.symbolic_values.THEOREM4_CONSTANT`).
    """
    h1 = _h_terms(t1, v1, p1)[0]
    h2 = _h_terms(t2, v2, p2)[0]
    return t1 + t2 + c * rho - k * c ** (2 / 3) * (h1 ** (2 / 3) + h2 ** (2 / 3))


CACHED_BATCHES = 8
"""How many recent batches (by a digest of their inputs) are kept: ``rldp verify`` asks for
the same batch twice (the privacy check's multipliers and the certificate's attained worst
cases, 0.1 s each at 10x20), with the worst-case eps's batches (4 at 10x20) in between."""
_RECENT: OrderedDict[bytes, BatchPairSupport] = OrderedDict()


def pair_support_batch(v1: np.ndarray, v2: np.ndarray, p1: np.ndarray, p2: np.ndarray,
                       rho: np.ndarray) -> BatchPairSupport:
    """Vectorised Theorem 4 (eq. 29) with certificates and maximisers.

    Inputs seen in one of the last :data:`CACHED_BATCHES` calls are answered from it, with
    arrays of their own.

    Parameters
    ----------
    v1, v2 : ndarray (T, U)
    p1, p2 : ndarray (T, U)
        Joint empirical rows ``Phat_{s1,u}``, ``Phat_{s2,u}``.
    rho : ndarray (T,)
        ``sqrt(B+1) - 1 + Phat_{s1} + Phat_{s2}``.
    """
    key = _digest(v1, v2, p1, p2, rho)
    if key in _RECENT:
        _RECENT.move_to_end(key)
        return _copied(_RECENT[key])
    # infinities mark counted cells at t (h' = inf) and are masked out on purpose
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        found = _pair_support_batch(v1, v2, p1, p2, rho)
    _RECENT[key] = _copied(found)
    while len(_RECENT) > CACHED_BATCHES:
        _RECENT.popitem(last=False)
    return found



def _digest(*arrays: np.ndarray) -> bytes:
    """A digest of the arrays' shapes, types and values (equal inputs, equal digests)."""
    digest = hashlib.blake2b(digest_size=32)
    for array in arrays:
        array = np.ascontiguousarray(array)
        digest.update(f"{array.dtype.str}{array.shape}".encode())
        digest.update(array.tobytes())
    return digest.digest()


def _copied(batch: BatchPairSupport) -> BatchPairSupport:
    """The batch with its own arrays (a caller may change what it was given)."""
    return BatchPairSupport(*(np.array(getattr(batch, field.name), copy=True)
                              for field in dataclasses.fields(batch)))


def _pair_support_batch(v1, v2, p1, p2, rho) -> BatchPairSupport:
    k = symbolic_values.THEOREM4_CONSTANT
    scale = np.maximum(np.abs(v1).max(1) + np.abs(v2).max(1), 1e-300) / rho
    c = _envelope_root(lambda c, starts, rows: _envelope_slope(c, v1[rows], v2[rows], p1[rows],
                                                               p2[rows], rho[rows], k, starts),
                       np.log(scale) - 60.0, np.log(scale) + 30.0)
    _, t1, t2 = _envelope_slope(c, v1, v2, p1, p2, rho, k, [None, None])
    upper = theorem4_expression(c, t1, t2, v1, v2, p1, p2, rho, k)
    at_zero = v1.max(1) + v2.max(1)  # c = 0: the bound over the whole simplex
    use_zero = at_zero <= upper
    c = np.where(use_zero, 0.0, c)
    t1, t2 = np.where(use_zero, v1.max(1), t1), np.where(use_zero, v2.max(1), t2)
    upper = np.minimum(upper, at_zero)
    r1, r2 = _maximisers(t1, t2, v1, v2, p1, p2, rho)
    lower = np.sum(v1 * r1, axis=1) + np.sum(v2 * r2, axis=1)
    return BatchPairSupport(upper, lower, c, np.stack([t1, t2], axis=1), r1, r2)


def spread(r: np.ndarray, p: np.ndarray) -> np.ndarray:
    """``sqrt(sum_u Phat_u^2 / R_u)`` per row (``inf`` where ``R_u = 0 < Phat_u``)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(p > 0, p**2 / np.where(r > 0, r, 0.0), 0.0)
    return np.sqrt(terms.sum(axis=1))


def _stationary_direction(t: np.ndarray, v: np.ndarray, p: np.ndarray) -> np.ndarray:
    gap = t[:, None] - v
    with np.errstate(divide="ignore", invalid="ignore"):
        weights = np.where((p > 0) & (gap > 0), p / np.sqrt(gap), 0.0)
    total = weights.sum(axis=1, keepdims=True)
    vertex = np.eye(v.shape[1])[np.argmax(v, axis=1)]
    return np.where(total > 0, weights / np.where(total > 0, total, 1.0), vertex)


def _maximisers(t1, t2, v1, v2, p1, p2, rho):
    """Points of the set near the maximiser (module docstring).

    A block whose ``t_i`` sits at a zero-count cell (``v_i`` largest there)
    keeps the stationary direction on its counted cells and moves the rest of
    its mass to that cell: with budget ``b`` for its spread, its value is
    ``top - D (g / b)^2`` (``g`` the direction's spread, ``D = top - v.direction``).
    The budget ``rho`` minus the other blocks' spreads is split to maximise the
    sum: ``b_i`` proportional to ``(D_i g_i^2)^(1/3)``, and never below ``g_i``.
    """
    base = [_stationary_direction(t1, v1, p1), _stationary_direction(t2, v2, p2)]
    g = np.stack([spread(base[0], p1), spread(base[1], p2)], axis=1)
    values = np.stack([np.sum(v1 * base[0], 1), np.sum(v2 * base[1], 1)], axis=1)
    tops = np.stack([_zero_cell_top(v1, p1), _zero_cell_top(v2, p2)], axis=1)
    clamped = (tops >= np.stack([t1, t2], axis=1)) & (tops > values) & (g > 0)
    budget = _split_budget(g, np.where(clamped, tops - values, 0.0), clamped, rho)
    out = []
    for i, (r, v, p) in enumerate(zip(base, (v1, v2), (p1, p2))):
        vertex = np.eye(v.shape[1])[np.argmax(np.where(p > 0, -np.inf, v), axis=1)]
        with np.errstate(invalid="ignore", divide="ignore"):
            alpha = np.where(clamped[:, i], (g[:, i] / budget[:, i]) ** 2, 1.0)
        out.append(alpha[:, None] * r + (1 - alpha[:, None]) * vertex)
    return _pull_inside(out[0], out[1], p1, p2, rho)


def _zero_cell_top(v: np.ndarray, p: np.ndarray) -> np.ndarray:
    """Largest ``v`` over zero-count cells of a counted row (``-inf`` if none)."""
    return np.where((p.sum(axis=1) > 0), np.where(p > 0, -np.inf, v).max(axis=1), -np.inf)


def _split_budget(g: np.ndarray, gain: np.ndarray, clamped: np.ndarray,
                  rho: np.ndarray) -> np.ndarray:
    """Spread budgets ``b`` (T, 2): unclamped blocks keep ``g``, clamped ones share the rest."""
    free = rho - np.where(clamped, 0.0, g).sum(axis=1)
    weight = np.where(clamped, (gain * g**2) ** (1 / 3), 0.0)
    total = np.maximum(weight.sum(axis=1, keepdims=True), 1e-300)
    budget = np.where(clamped, free[:, None] * weight / total, g)
    short = clamped & (budget < g)  # one block would shrink: it keeps g, the other takes the rest
    other = free[:, None] - g[:, ::-1]
    budget = np.where(short, g, np.where(short[:, ::-1] & clamped, other, budget))
    return np.maximum(budget, g)


def _pull_inside(r1, r2, p1, p2, rho):
    """Mix towards the empirical conditionals until ``spread1 + spread2 <= rho`` holds."""
    centre = [np.where(p.sum(1, keepdims=True) > 0, p / np.maximum(p.sum(1, keepdims=True),
                                                                    1e-300), r)
              for p, r in ((p1, r1), (p2, r2))]
    theta = np.zeros(r1.shape[0])
    inside = spread(r1, p1) + spread(r2, p2) <= rho * (1 - 1e-13)
    step = 1e-12
    while not np.all(inside):
        theta = np.where(inside, theta, np.minimum(1.0, step))
        m1 = (1 - theta[:, None]) * r1 + theta[:, None] * centre[0]
        m2 = (1 - theta[:, None]) * r2 + theta[:, None] * centre[1]
        inside = spread(m1, p1) + spread(m2, p2) <= rho * (1 - 1e-13)
        step *= 4
    m1 = (1 - theta[:, None]) * r1 + theta[:, None] * centre[0]
    m2 = (1 - theta[:, None]) * r2 + theta[:, None] * centre[1]
    return m1, m2
