"""Theorem 4's expression (eq. 29) at given multipliers, for many constraints at once, proven.

:func:`rldp_models.privacy.guarantees.theorem4_upper_bound` evaluates one
constraint in 120-bit interval arithmetic (:mod:`mpmath.iv`): ~4 ms each, so
the exact check of RURP on education x occupation (240 pairs x 15 outputs)
spent 15 s there. This module evaluates the same expression for every
``(pair, y)`` row at once in numpy doubles with *outward rounding*:

IEEE 754 rounds ``+``, ``-``, ``*``, ``/`` and ``sqrt`` to the nearest double
(numpy uses the hardware operations), so the exact result of each operation
lies between the two neighbours of the computed one. Stepping every
intermediate one double down (:func:`down`) or up (:func:`up`), in the
direction that makes the final value larger, gives a proven upper bound. The
cube root (not correctly rounded in libm) is bounded from below by
``z = cbrt(w) (1 - 2^-48)``, kept only where ``z^3 <= w`` is proven by
rounding up (else ``z = 0``, still a lower bound).

The result is a valid upper bound on the constraint's value at these
multipliers — a few ulps looser than the 120-bit one. A caller that needs
the tighter value (a bound within rounding of 0) evaluates those few rows
with :func:`~rldp_models.privacy.guarantees.theorem4_upper_bound`.
"""

from __future__ import annotations

from dataclasses import dataclass

import flint
import numpy as np

from rldp_models.privacy.conditional_bounds import float_up

CUBE_ROOT_SHRINK = 1.0 - 2.0**-48
"""Factor that puts ``cbrt``'s double below the true cube root (checked by cubing up)."""


def down(x: np.ndarray) -> np.ndarray:
    """The next double towards ``-inf``: a lower bound of a correctly rounded result."""
    return np.nextafter(x, -np.inf)


def up(x: np.ndarray) -> np.ndarray:
    """The next double towards ``+inf``: an upper bound of a correctly rounded result."""
    return np.nextafter(x, np.inf)


def cube_root_lower(w: np.ndarray) -> np.ndarray:
    """A double ``z <= w^(1/3)`` for ``w >= 0`` (proven: ``z^3 <= w`` rounded up)."""
    z = np.cbrt(w) * CUBE_ROOT_SHRINK
    proven = up(up(z * z) * z) <= w
    return np.where(proven & (z >= 0), z, 0.0)


@dataclass(frozen=True)
class Theorem4Rows:
    """Theorem 4's data for ``T`` constraints (rows), as doubles with proven enclosures.

    Attributes
    ----------
    v1 : ndarray, shape (T, |U|)
        ``P(y | s1, u)``: exact doubles.
    p2 : ndarray, shape (T, |U|)
        ``P(y | s2, u)``: exact doubles; the second block is ``-e^eps p2``.
    factor : (float, float)
        Doubles ``lo <= e^eps <= hi``.
    weights : ndarray, shape (2, T, |U|)
        Doubles ``<= Phat_{s_i, u}`` (0 exactly where the count is 0).
    rho : ndarray, shape (T,)
        Doubles ``>= sqrt(B+1) - 1 + Phat_{s1} + Phat_{s2}``.
    k : float
        A double ``<= 2^(-2/3) + 2^(1/3)`` (Theorem 4's constant).
    """

    v1: np.ndarray
    p2: np.ndarray
    factor: tuple[float, float]
    weights: np.ndarray
    rho: np.ndarray
    k: float

    def second_block(self) -> tuple[np.ndarray, np.ndarray]:
        """``(lo, hi)`` enclosing ``v2 = -e^eps p2`` entrywise."""
        lo, hi = self.factor
        return -up(hi * self.p2), -down(lo * self.p2)


def theorem4_upper_bounds(rows: Theorem4Rows, c: np.ndarray, t: np.ndarray) -> np.ndarray:
    """Proven upper bounds on eq. (29) at ``(c, t_1, t_2)`` for every row.

    ``c < 0`` is taken as 0 and ``t_i`` raised to ``max_u v_i(u)`` (so the
    point is feasible and the value bounds the support function), as in
    :func:`~rldp_models.privacy.guarantees.theorem4_upper_bound`. Rows with
    non-finite multipliers get ``+inf`` (nothing proven).

    Parameters
    ----------
    rows : Theorem4Rows
    c : ndarray, shape (T,)
    t : ndarray, shape (2, T)

    Returns
    -------
    ndarray, shape (T,)
    """
    c = np.maximum(np.asarray(c, dtype=float), 0.0)
    t = np.asarray(t, dtype=float)
    finite = np.isfinite(c) & np.isfinite(t[0]) & np.isfinite(t[1])
    c = np.where(finite, c, 0.0)
    v2_lo, v2_hi = rows.second_block()
    total = up(c * rows.rho)
    for i, v_hi in enumerate((rows.v1, v2_hi)):
        t_i = np.maximum(np.where(finite, t[i], 0.0), v_hi.max(axis=1))
        term = t_i
        if np.any(c > 0):
            roots = down(np.sqrt(np.maximum(down(t_i[:, None] - v_hi), 0.0)))
            h = np.zeros_like(t_i)
            for u in range(v_hi.shape[1]):
                h = down(h + down(rows.weights[i][:, u] * roots[:, u]))
                h = np.maximum(h, 0.0)
            z = cube_root_lower(down(c * h))
            term = np.where(c > 0, up(t_i - down(rows.k * down(z * z))), t_i)
        total = up(total + term)
    return np.where(finite, total, np.inf)


def _enclosure(x: flint.arb) -> tuple[float, float]:
    """Doubles ``lo <= x <= hi`` for every point of the ball ``x``."""
    return -float_up(-x), float_up(x)


def theorem4_rows(protocol: np.ndarray, counts: np.ndarray, radius: float, eps: float,
                  pairs: list[tuple[int, int]]) -> Theorem4Rows:
    """The rows of every ``(pair, y)``, pair-major, from the exact counts.

    ``Phat = counts / n`` and ``rho = sqrt(B+1) - 1 + Phat_{s1} + Phat_{s2}`` are
    enclosed in ball arithmetic (python-flint ``arb``) and rounded outwards;
    ``B`` is the radius as the exact double it is.
    """
    n_s, n_u = counts.shape
    blocks = protocol.reshape(n_s, n_u, -1)
    n_y = blocks.shape[2]
    first = np.repeat([p[0] for p in pairs], n_y)
    second = np.repeat([p[1] for p in pairs], n_y)
    y = np.tile(np.arange(n_y), len(pairs))
    return ratio_rows(blocks[first, :, y], blocks[second, :, y],
                      _enclosure(flint.arb(float(eps)).exp()), counts, radius,
                      list(zip(first.tolist(), second.tolist())))


def ratio_rows(a: np.ndarray, b: np.ndarray, factor: tuple[float, float], counts: np.ndarray,
               radius: float, pairs: list[tuple[int, int]]) -> Theorem4Rows:
    """Rows ``delta*(a, -factor b | F_{U|s1,s2})`` for row-wise pairs ``(s1, s2)`` (shape (T, |U|)).

    ``factor`` is ``(lo, hi)`` enclosing the ratio (``(tau, tau)`` for a double ``tau``).
    """
    n = int(counts.sum())
    weight = np.where(counts > 0, down(counts / n), 0.0)
    root = (flint.arb(float(radius)) + 1).sqrt() - 1
    mass = counts.sum(axis=1)
    rho = {pair: float_up(root + flint.arb(flint.fmpq(int(mass[pair[0]]) + int(mass[pair[1]]),
                                                      n)))
           for pair in set(pairs)}
    constant = flint.arb(2) ** flint.arb(flint.fmpq(-2, 3)) + \
        flint.arb(2) ** flint.arb(flint.fmpq(1, 3))
    first, second = np.array(pairs, dtype=int).reshape(-1, 2).T
    return Theorem4Rows(np.asarray(a, dtype=float), np.asarray(b, dtype=float), factor,
                        np.stack([weight[first], weight[second]]),
                        np.array([rho[pair] for pair in pairs], dtype=float),
                        _enclosure(constant)[0])
