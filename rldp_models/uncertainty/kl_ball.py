"""The Kullback-Leibler ball ``{P in simplex : KL(Phat || P) <= r}`` (exponential cone).

``KL(Phat || P) = sum_{Phat_x > 0} Phat_x log(Phat_x / P_x)`` — the empirical
likelihood set. Like the chi-square set (eq. 2 of the robust-optimization
paper) it puts ``P`` in the denominator, so cells without records are bounded
by the simplex only. By Wilks' theorem ``2 n KL(Phat || P*)`` is
asymptotically chi-square with ``|X| - 1`` degrees of freedom, so the
``(1 - alpha)`` radius is ``r = chi2.ppf(1 - alpha, |X| - 1) / (2 n)``
(:meth:`KLBallSet.from_counts`).

Support function. Dualising ``sum P = 1`` (``mu``) and the divergence
(``gamma >= 0``): cells with records give
``sup_{P_x > 0} (v_x - mu) P_x + gamma Phat_x log P_x`` at
``P_x = gamma Phat_x / (mu - v_x)``, cells without records need
``mu >= v_x``; summing (``sum Phat = 1``),

``delta*(v | F) = min_{mu >= max v, gamma >= 0}
mu + gamma (r - 1) + sum_{Phat_x > 0} Phat_x relent(gamma, mu - v_x)``

with ``relent(a, b) = a log(a / b)`` (the exponential cone's relative entropy).
Minimising over ``gamma`` in closed form, ``gamma = e^{-r} prod (mu - v_x)^Phat_x``:

``delta*(v | F) = min_{mu >= max v} mu - e^{-r} prod_x (mu - v_x)^{Phat_x}``,

a convex problem in one scalar (a weighted geometric mean is concave). The
direct worst case solves the primal exponential-cone program
``max v.P s.t. P in F`` with cvxpy, independently of the dual.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, ClassVar, Mapping

import mpmath
import numpy as np
from scipy.optimize import brentq

from rldp_models.errors import InputError
from rldp_models.uncertainty.chi2_quantile import chi2_ppf
from rldp_models.exact import exact_entries, ExactVector, interval, iv
from rldp_models.exact import high_precision, upper_mpf
from rldp_models.uncertainty.base import scalar
from rldp_models.uncertainty.base import Capability
from rldp_models.uncertainty.conic_support import ConicSupport
from rldp_models.uncertainty.polyhedral import in_simplex, validated_phat, validated_radius
from rldp_models.uncertainty.scalar_search import direct_solver_options
from rldp_models.uncertainty.intersectable import Intersectable

if TYPE_CHECKING:
    import cvxpy as cp


def kl_radius(n: int, cells: int, alpha: float) -> float:
    """Wilks' radius ``chi2.ppf(1 - alpha, cells - 1) / (2 n)`` (module docstring)."""
    if not 0.0 < alpha < 1.0:
        raise InputError(f"alpha must lie in (0, 1), got {alpha}")
    if n <= 0 or cells < 2:
        raise InputError("a KL ball needs records and at least two cells")
    return chi2_ppf(1.0 - alpha, cells - 1) / (2 * n)


@dataclass(frozen=True)
class KLBallSet(Intersectable):
    """``{P in simplex : KL(Phat || P) <= radius}``.

    Parameters
    ----------
    phat : ndarray
        Empirical distribution (a joint ``(|S|, |U|)`` table keeps its shape).
    radius : float
        ``r > 0``.
    alpha : float, optional
        The level the radius was calibrated to (:func:`kl_radius`), if it was.
    """

    phat: np.ndarray
    radius: float
    alpha: float | None = None
    name: str = "kl"
    capabilities: ClassVar[frozenset[Capability]] = frozenset()  # exponential cones: cvxpy
    radius_source: dict[str, Any] | None = field(default=None, compare=False, repr=False)
    """How the radius was chosen when not by the asymptotic default (e.g. a bootstrap)."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "phat", validated_phat(self.phat))
        object.__setattr__(self, "radius", validated_radius(self.radius))

    @classmethod
    def from_counts(cls, counts: np.ndarray, alpha: float) -> "KLBallSet":
        """The ``(1 - alpha)`` empirical-likelihood set of a count table (Wilks)."""
        counts = np.asarray(counts, dtype=float)
        n = int(round(counts.sum()))
        return cls(counts / counts.sum(), kl_radius(n, counts.size, alpha), alpha)

    # ------------------------------------------------------------------ membership
    def divergence(self, p: np.ndarray) -> float:
        """``KL(Phat || P)``; ``inf`` when ``P_x = 0 < Phat_x``."""
        p = np.asarray(p, dtype=float).ravel()
        phat = self.phat.ravel()
        mask = phat > 0
        if np.any(p[mask] <= 0):
            return float("inf")
        return float(np.sum(phat[mask] * np.log(phat[mask] / p[mask])))

    def contains(self, p: np.ndarray, tol: float = 0.0) -> bool:
        p = np.asarray(p, dtype=float).ravel()
        return in_simplex(p, self.phat.size, tol) and self.divergence(p) <= self.radius + tol

    def membership(self, p: cp.Expression) -> list[Any]:
        import cvxpy as cp  # here, not at the top: rldp solve's default path never needs cvxpy

        phat = self.phat.ravel()
        mask = np.flatnonzero(phat > 0)
        entropy = float(np.sum(phat[mask] * np.log(phat[mask])))
        return [p >= 0, cp.sum(p) == 1,
                entropy - phat[mask] @ cp.log(p[mask]) <= self.radius]

    # ------------------------------------------------------------------ support function
    def _value(self, mu: float, v: np.ndarray) -> float:
        phat = self.phat.ravel()
        mask = phat > 0
        gap = np.maximum(mu - v[mask], 0.0)
        with np.errstate(divide="ignore"):
            log_mean = float(np.sum(phat[mask] * np.log(gap)))
        return mu - float(np.exp(log_mean - self.radius))

    def _slope(self, mu: float, v: np.ndarray) -> float:
        """Derivative in ``mu`` of the one-scalar form: ``1 - G(mu) sum Phat_x / (mu - v_x)``."""
        phat = self.phat.ravel()
        mask = phat > 0
        gap = mu - v[mask]
        if np.any(gap <= 0):
            return -np.inf
        with np.errstate(over="ignore", divide="ignore"):
            log_ratio = np.log(np.sum(phat[mask] / gap))
        return 1.0 - float(np.exp(np.sum(phat[mask] * np.log(gap)) - self.radius + log_ratio))

    def support_multipliers(self, v: np.ndarray) -> dict[str, np.ndarray]:
        """``mu`` minimising the one-scalar form (root of its increasing slope), and ``gamma``."""
        v = np.asarray(v, dtype=float).ravel()
        top = float(v.max())
        if self._slope(top, v) >= 0:  # the minimum is at the end of the half-line
            mu = top
        else:
            width = max(float(np.ptp(v)), abs(top), 1e-300)
            while self._slope(top + width, v) < 0:
                width *= 2.0
            mu = brentq(lambda m: self._slope(m, v), top, top + width,
                        xtol=1e-15 * max(abs(top), width), rtol=4 * np.finfo(float).eps)
            mu = min((mu, top + width), key=lambda m: self._value(m, v))
        return {"mu": np.array(mu), "gamma": np.array(mu - self._value(mu, v))}

    def support(self, v: np.ndarray) -> float:
        """The one-scalar closed form of the module docstring (its minimum over ``mu``)."""
        v = np.asarray(v, dtype=float).ravel()
        return self._value(float(self.support_multipliers(v)["mu"]), v)

    def worst_case(self, v: np.ndarray, solver: str = "clarabel") -> tuple[np.ndarray, float]:
        """A maximiser of ``v.P`` over the set by the primal conic program, pulled inside.

        When the conic solver fails (clarabel and ecos both do on some
        Adult-size directions with an empty cell), the stationary point of the
        Lagrangian (:meth:`stationary_point`) stands in. Either point is mixed
        with ``Phat`` (the set is convex and contains ``Phat``) until
        :meth:`contains` holds.
        """
        import cvxpy as cp  # here, not at the top: rldp solve's default path never needs cvxpy

        v = np.asarray(v, dtype=float).ravel()
        p = cp.Variable(v.size)
        problem = cp.Problem(cp.Maximize(v @ p), self.membership(p))
        try:
            problem.solve(solver=solver.upper(), **direct_solver_options(solver))
            solved = problem.status in cp.settings.SOLUTION_PRESENT and p.value is not None
        except cp.error.SolverError:
            solved = False
        point = np.clip(np.asarray(p.value, dtype=float), 0.0, None) if solved \
            else self.stationary_point(v)
        point /= point.sum()
        phat = self.phat.ravel()
        theta = 0.0
        while not self.contains((1 - theta) * point + theta * phat):
            theta = min(1.0, max(2 * theta, 1e-12))
        point = (1 - theta) * point + theta * phat
        return point.reshape(self.phat.shape), float(v @ point)

    def stationary_point(self, v: np.ndarray) -> np.ndarray:
        """The maximiser of ``v.P`` from the one-scalar dual (module docstring), flat.

        Counted cells get ``P_x = gamma Phat_x / (mu - v_x)`` (stationarity in
        ``P_x``); when ``mu = max v`` is reached at a cell without records, the
        mass left, ``1 - sum_x P_x >= 0`` (the slope at ``mu`` is ``>= 0``), goes
        to those cells' maxima. ``KL(Phat || P) = r`` there: on the boundary.
        """
        v = np.asarray(v, dtype=float).ravel()
        multipliers = self.support_multipliers(v)
        mu, gamma = float(multipliers["mu"]), float(multipliers["gamma"])
        phat = self.phat.ravel()
        counted = phat > 0
        point = np.zeros_like(v)
        point[counted] = gamma * phat[counted] / np.maximum(mu - v[counted], 1e-300)
        left = 1.0 - float(point.sum())
        top = ~counted & (v >= v.max())
        if left > 0 and np.any(top):
            point[top] = left / int(np.count_nonzero(top))
        return point

    # ------------------------------------------------------------------ robust counterpart
    def support_at_most(self, v: cp.Expression, rhs: Any,
                        value: Callable[[str], Any] | None = None) -> ConicSupport:
        """The two-multiplier dual of the module docstring, per column (exponential cones).

        Cells where ``v`` is identically zero (the other secrets' rows of a
        conditional, eq. 23 of :mod:`rldp_models.uncertainty.base`) share one
        cone of weight ``sum Phat_x``: ``sum_x Phat_x relent(gamma, mu)`` is
        ``(sum_x Phat_x) relent(gamma, mu)``, the same value with one cone
        instead of one per cell (without it clarabel and ecos fail on Adult
        race x education, :mod:`rldp_models.uncertainty.zero_rows`).
        """
        import cvxpy as cp  # here, not at the top: rldp solve's default path never needs cvxpy
        from rldp_models.uncertainty.cvxpy_rows import as_columns, as_row
        from rldp_models.uncertainty.zero_rows import identically_zero_rows

        v = as_columns(v)
        k = v.shape[1]
        phat = self.phat.ravel()
        zero = identically_zero_rows(v)
        counted = np.flatnonzero((phat > 0) & ~zero)
        unseen = np.flatnonzero((phat == 0) & ~zero)
        lumped = float(phat[zero].sum())
        mu = cp.Variable(k, name="mu")
        gamma = cp.Variable(k, nonneg=True, name="gamma")
        mu_row = cp.reshape(mu, (1, k), order="F")
        gamma_row = cp.reshape(gamma, (1, k), order="F")
        constraints = []
        divergence: Any = 0
        if counted.size:
            gap = np.ones((counted.size, 1)) @ mu_row - v[counted, :]
            entropy = cp.rel_entr(np.ones((counted.size, 1)) @ gamma_row, gap)
            constraints.append(gap >= 0)
            divergence = phat[counted] @ entropy
        if unseen.size:
            constraints.append(np.ones((unseen.size, 1)) @ mu_row >= v[unseen, :])
        if np.any(zero):
            constraints.append(mu >= 0)
        if lumped > 0:
            divergence = divergence + lumped * cp.rel_entr(gamma, mu)
        constraints.append(mu + (self.radius - 1) * gamma + divergence <= as_row(rhs, k))
        return ConicSupport(constraints, {"mu": mu, "gamma": gamma})

    def certified_support_bound(self, v: ExactVector, multipliers: Mapping[str, Any]) -> mpmath.mpf:
        """``mu - e^{-r} prod (mu - v_x)^Phat_x`` at ``mu = max(multipliers["mu"], max v)``.

        Any ``mu >= max v`` gives an upper bound (the optimal ``gamma`` for that
        ``mu`` is one feasible choice); evaluated in interval arithmetic.
        ``gamma`` is not needed. If ``mu`` is not strictly above every counted
        cell's ``v``, the simplex bound ``max v`` is returned. ``v`` may hold
        doubles or fractions, taken as exact rationals.
        """
        values = exact_entries(v)
        mu = max(scalar(multipliers["mu"]), *(float(x) for x in values))
        with high_precision():
            top = max(upper_mpf(interval(x)) for x in values)
            mu_iv = interval(mu)
            log_mean, mass = iv.mpf(0), iv.mpf(0)
            for weight, x in zip(self.phat.ravel(), values):
                if weight > 0:
                    gap = mu_iv - interval(x)
                    if gap.a <= 0:  # mu not above this cell: fall back on the simplex bound
                        return top
                    log_mean += interval(float(weight)) * iv.log(gap)
                    mass += interval(float(weight))
            # the two-multiplier dual at gamma = e^(log_mean - r); it is mu - gamma when the
            # stored Phat sums to exactly 1, and stays a valid bound when it does not
            gamma = iv.exp(log_mean - interval(self.radius))
            radius = interval(self.radius)
            return upper_mpf(mu_iv + gamma * (radius - mass) + gamma * (mass * iv.log(gamma)
                                                                        - log_mean))
