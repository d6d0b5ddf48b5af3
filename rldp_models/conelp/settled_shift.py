"""The smallest shift ``t 1`` of a pricing dual at which a finished tree's leaves prove ``h <= 0``.

A pricing proof (:meth:`~rldp_models.conelp.concave_pricing.ConcavePricing.proof`)
bounds ``h(v) = mu(v) - lam.v`` by ``H`` on the slice ``P = {v in C : p.v = 1}``,
and its checker (:mod:`rldp_models.certificates.pricing_proof`) turns a positive
``H`` into the bound ``H max(p)`` on the reduced cost per unit mass
``(mu(v) - lam.v) / (1.v)``, through the crude ``1.v >= 1 / max(p)``. That is
loose by construction: a leaf whose points all have ``1.v`` near ``d`` loses a
factor ``d max(p)`` (3.2 on the HairEyeColor 4x4), and a run stopped before its
boxes close is charged that factor on its whole gap.

The fractional problem has the parametric form of Dinkelbach's method: the
largest reduced cost per unit mass is at most ``t`` exactly when
``max_P (mu(v) - (lam + t 1).v) <= 0``. The tree of a proof does not depend on
the dual: its splits and empty boxes hold for any, and a leaf's weak-duality
bound holds at any dual for any multipliers (the checker recomputes it at the
dual it is given). At ``lam + t 1`` the slice row's multiplier ``y_p`` is
re-chosen per leaf (the bound is concave and piecewise linear in it, so the
best is at a kink ``r_j / p_j``), and ``t`` is bisected to the smallest value at
which every leaf's proven bound is ``<= 0``. The proof re-expressed at
``lam + t 1`` then proves a reduced cost per unit mass ``<= 0`` there, i.e. the
LP bound ``(lam + t 1).1``: a Lagrangian (Farley) bound whose ``t`` is the
tree's own per-leaf bound, never worse than ``H max(p)`` and tight when the
leaves are.
"""

from __future__ import annotations

import numpy as np

from rldp_models.conelp.proof_oracle import ProofOracle

BISECTION_STEPS = 48
"""Halvings of the bracket of ``t``."""

RELATIVE_TOLERANCE = 1e-6
"""The bisection stops once the bracket is below this fraction of its upper end (plus 1e-15)."""

MAX_DOUBLINGS = 64
"""Doublings of the first trial ``t``; it settles at once up to rounding (each leaf's bound
falls by at least ``t / max(p)``: raise the slice multiplier by that)."""

CHUNK = 2048
"""Leaves re-bounded together (each holds a ``(d + 1) x d`` stack of trial multipliers)."""


def settled_shift(oracle: ProofOracle, dual: np.ndarray, lower: np.ndarray,
                  upper: np.ndarray, multipliers: np.ndarray, top: float,
                  earlier: np.ndarray | None = None) -> tuple[float, np.ndarray, np.ndarray]:
    """``t``, the leaves' multipliers at ``dual + t 1`` and their bounds there (all ``<= 0``).

    Parameters
    ----------
    oracle : ProofOracle
        The oracle whose tree the leaves end (its normalised rows and prior).
    dual : ndarray, shape (d,)
        The dual the tree was searched at.
    lower, upper : ndarray, shape (n, d)
        The leaves' boxes.
    multipliers : ndarray, shape (n, m + 1)
        Their row multipliers (normalised rows, the slice row last), dense.
    top : float
        The search's bound on ``h`` at ``dual`` (``max`` of the leaves' bounds).
    earlier : ndarray, shape (n, m + 1), optional
        Other multipliers per leaf (those it had before its LP was solved again
        at ``dual``, :meth:`ConcavePricing.proof`); at each trial shift a leaf
        is bounded on the better of the two, and the better at ``t`` is returned.

    Returns
    -------
    t : float
        ``t <= max(top, 0) max(p)`` up to rounding: the claim never gets worse.
    multipliers : ndarray
        The leaves' multipliers (the better of ``multipliers`` and ``earlier``) with
        the slice row's re-chosen at ``dual + t 1``.
    bounds : ndarray
        Their proven bounds on ``h`` at ``dual + t 1``, each ``<= 0``.
    """
    choices = (multipliers,) if earlier is None else (multipliers, earlier)
    prior_max = float(oracle.prior.max())
    high = max(top, 0.0) * prior_max * (1.0 + 1e-9) + 1e-15
    for _ in range(MAX_DOUBLINGS):
        if _worst(oracle, dual + high, lower, upper, choices) <= 0.0:
            break
        high = 2.0 * high + 1e-12
    else:
        raise RuntimeError("no shift of the dual settles the pricing proof's leaves")
    low = high - 2.0 * (abs(top) * prior_max + 1e-12)
    active = np.arange(lower.shape[0])
    for _ in range(BISECTION_STEPS):
        if high - low <= RELATIVE_TOLERANCE * abs(high) + 1e-15:
            break
        middle = 0.5 * (low + high)
        bounds = _bounds(oracle, dual + middle, lower[active], upper[active],
                         tuple(c[active] for c in choices))[1]
        if np.all(bounds <= 0.0):
            high = middle
        else:
            low = middle
            active = active[bounds > 0.0]
    settled, bounds = _bounds(oracle, dual + high, lower, upper, choices)
    return high, settled, bounds


def _worst(oracle: ProofOracle, dual: np.ndarray, lower: np.ndarray, upper: np.ndarray,
           choices: tuple[np.ndarray, ...]) -> float:
    """The largest proven leaf bound at ``dual``."""
    return float(_bounds(oracle, dual, lower, upper, choices)[1].max(initial=-np.inf))


def _bounds(oracle: ProofOracle, dual: np.ndarray, lower: np.ndarray, upper: np.ndarray,
            choices: tuple[np.ndarray, ...]) -> tuple[np.ndarray, np.ndarray]:
    """Per leaf, the multipliers of ``choices`` proving the lower bound at ``dual`` (each
    with its best slice multiplier there), and that bound."""
    found = [_bounds_of(oracle, dual, lower, upper, multipliers) for multipliers in choices]
    settled, bounds = found[0]
    for other, other_bounds in found[1:]:
        better = other_bounds < bounds
        settled[better], bounds = other[better], np.where(better, other_bounds, bounds)
    return settled, bounds


def _bounds_of(oracle: ProofOracle, dual: np.ndarray, lower: np.ndarray, upper: np.ndarray,
               multipliers: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The multipliers with the best slice multiplier at ``dual`` and their proven bounds."""
    settled = multipliers.copy()
    bounds = np.empty(lower.shape[0])
    for start in range(0, lower.shape[0], CHUNK):
        part = slice(start, start + CHUNK)
        slope, constant = oracle.secants(lower[part], upper[part])
        cost = dual - slope
        settled[part, -1] += _best_slice_step(oracle, cost, settled[part], lower[part],
                                              upper[part])
        bounds[part] = constant - oracle.proven_minimum(cost, settled[part], lower[part],
                                                         upper[part])
    return settled, bounds


def _best_slice_step(oracle: ProofOracle, cost: np.ndarray, multipliers: np.ndarray,
                     lower: np.ndarray, upper: np.ndarray) -> np.ndarray:
    """Per box, the ``delta`` maximising ``sum_j min(r_j l_j, r_j u_j) + delta`` for
    ``r = r0 - delta p`` (``r0`` the reduced costs at the kept multipliers): a kink
    ``r0_j / p_j`` or ``0``. Any ``delta`` is valid; this is only the best one, in floats."""
    prior = oracle.prior
    cone = np.maximum(multipliers[:, :-1], 0.0)
    reduced = cost - cone @ oracle.rows - np.multiply.outer(multipliers[:, -1], prior)
    positive = prior > 0
    kinks = np.concatenate([np.zeros((reduced.shape[0], 1)),
                            reduced[:, positive] / prior[positive]], axis=1)
    trial = reduced[:, None, :] - kinks[:, :, None] * prior
    value = np.minimum(trial * lower[:, None, :], trial * upper[:, None, :]).sum(axis=2) + kinks
    return kinks[np.arange(kinks.shape[0]), value.argmax(axis=1)]
