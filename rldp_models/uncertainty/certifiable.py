"""The protocol an uncertainty set implements so its certificates can be checked.

``CertifiableSet``
------------------
A robust constraint ``sup_{P in F} v.P <= rhs`` is certified by multipliers
of the dual of the support function ``delta*(v | F)``. A set that wants its
certificates checked by :mod:`rldp_models.certificates` implements two
methods:

``certified_support_bound(v, multipliers) -> mpmath.mpf``
    An upper bound on ``delta*(v | F) = sup_{P in F} v.P``, valid for *any*
    multipliers of the right shape (weak duality: each feasible dual point
    bounds the supremum; infeasible parts are projected to feasible ones,
    e.g. ``t`` raised to ``max v``). ``v`` is a vector of doubles or
    :class:`fractions.Fraction` taken as exact rationals; ``multipliers``
    maps the names the set's conic form uses (for the chi-square set ``"t"``
    and ``"c"``) to doubles. The bound is computed in interval arithmetic
    with at least 50 significant digits (:func:`precision.high_precision`)
    and returned as the upper end of the interval, so it is rigorous.
    The method must not call a numerical solver.

``worst_case(v) -> (P, ...)``
    A distribution ``P`` in ``F`` (shape of the set's ``phat``) that
    (nearly) maximises ``v.P``, found independently of the multipliers: it
    is what the verifier uses to show how tight a certified bound is. Only
    the first element of the returned tuple is used.

The chi-square set (eq. 2) implements the protocol through
:class:`ChiSquareCertifiable`, which keeps the counts so that ``Phat`` is
exact; the other sets in :mod:`rldp_models.uncertainty` implement the same
method names directly.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from fractions import Fraction
from typing import Any, Protocol, runtime_checkable

import mpmath
import numpy as np
from numpy.typing import ArrayLike

from rldp_models.exact import ExactVector, exact_entries, interval, iv, upper
from rldp_models.exact import high_precision, upper_mpf
from rldp_models.uncertainty.chi_square import ChiSquareSet


@runtime_checkable
class CertifiableSet(Protocol):
    """An uncertainty set whose robust-constraint certificates can be checked (see module)."""

    def certified_support_bound(self, v: ExactVector,
                                multipliers: Mapping[str, Any]) -> mpmath.mpf:
        """Rigorous upper bound on ``sup_{P in F} v.P`` at the given multipliers."""

    def worst_case(self, v: np.ndarray) -> tuple[np.ndarray, Any]:
        """A distribution in the set (nearly) maximising ``v.P``, found independently."""


class ChiSquareCertifiable:
    """The chi-square set ``{P : sum Phat^2 / P <= B + 1}`` of a count table, certifiable.

    Parameters
    ----------
    counts : ndarray
        Counts; ``Phat = counts / n`` exactly.
    radius : float
        ``B`` as the double it is.
    """

    def __init__(self, counts: ArrayLike, radius: float) -> None:
        self.counts = np.asarray(counts)
        self.radius = float(radius)
        n = int(self.counts.sum())
        self.phat_exact = [Fraction(int(c), n) for c in self.counts.ravel()]
        self.set = ChiSquareSet(self.counts / n, self.radius)

    def certified_support_bound(self, v: ExactVector,
                                multipliers: Mapping[str, Any]) -> mpmath.mpf:
        """Theorem 2 (eq. 21) at ``(t, c)`` with ``w = t`` in every cell.

        ``t + c (B + 1) - 2 sqrt(c) sum_x Phat_x sqrt(t - v_x)`` with ``c``
        clipped at 0 and ``t`` raised to ``max v``: a dual feasible point,
        hence an upper bound on ``delta*(v | F)``.
        """
        values = exact_entries(v)
        with high_precision():
            c = interval(max(float(np.asarray(multipliers["c"]).ravel()[0]), 0.0))
            t_float = float(np.asarray(multipliers["t"]).ravel()[0])
            t = interval(max(t_float, *(upper(interval(x)) for x in values)))
            total = iv.mpf(0)
            for weight, x in zip(self.phat_exact, values):
                if weight:
                    gap = t - interval(x)
                    total += interval(weight) * iv.sqrt(iv.mpf([max(gap.a, 0), gap.b]))
            bound = t + c * (interval(self.radius) + 1) - 2 * iv.sqrt(c) * total
            return upper_mpf(bound)

    def contains_exactly(self, p: np.ndarray) -> bool:
        """``P >= 0``, ``sum P = 1`` and ``sum Phat^2 / P <= B + 1`` (eq. 2), all in exact
        rationals."""
        values = [Fraction(float(x)) for x in np.asarray(p).ravel()]
        if any(x < 0 for x in values) or sum(values, Fraction(0)) != 1:
            return False
        total = Fraction(0)
        for weight, x in zip(self.phat_exact, values):
            if weight:
                if x == 0:
                    return False
                total += weight * weight / x
        return total <= Fraction(self.radius) + 1

    def worst_case(self, v: ArrayLike) -> tuple[np.ndarray, float]:
        """Direct maximisation of ``v.P`` over the set (eq. 2 as a conic program, no multipliers).

        The solver's point is moved towards ``Phat`` (``(1 - theta) P + theta Phat``,
        ``theta`` doubling from ``1e-12``) until it lies in the set, so ``v.P``
        is a value attained in ``F``. Where the solver fails, the closed-form maximiser
        (:meth:`ChiSquareSet.worst_case`, Theorem 2) is the point instead: any member of
        ``F`` gives an attained value.
        """
        from cvxpy.error import SolverError  # cvxpy only where the conic program is solved

        v = np.asarray(v, dtype=float).ravel()
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", UserWarning)  # the point is moved into F below
                _, p = self.set.support_direct(v)
        except SolverError:  # e.g. Clarabel on Adult education x native-country (672 cells)
            p = self.set.worst_case(v)[0]  # Theorem 2's maximiser, pulled into F
        p = np.clip(np.asarray(p, dtype=float).ravel(), 0.0, None)
        p = p / p.sum()
        phat = self.set.phat.ravel()
        theta = 0.0
        while self.set.divergence((1 - theta) * p + theta * phat) > self.radius and theta < 1:
            theta = min(1.0, max(2 * theta, 1e-12))
        point = (1 - theta) * p + theta * phat
        return point.reshape(self.set.phat.shape), float(v @ point)
