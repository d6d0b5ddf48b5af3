"""The total-variation (l1) ball ``{P in simplex : ||P - Phat||_1 <= r}``.

Support function. Dualising ``sum P = 1`` (multiplier ``mu``) and the l1
constraint (``gamma >= 0``), each cell contributes
``sup_{P_x >= 0} (v_x - mu) P_x - gamma |P_x - Phat_x| = Phat_x max(v_x - mu, -gamma)``
when ``v_x - mu <= gamma`` (else ``+inf``), so

``delta*(v | F) = min {mu + gamma r + sum_x Phat_x max(v_x - mu, -gamma) :
gamma >= 0, gamma >= max v - mu}``.

Writing ``tau = mu + gamma`` the optimum has ``tau = max v`` and the rest is
convex piecewise linear in ``gamma`` with breakpoints ``(max v - v_x) / 2``:

``delta*(v | F) = max v + min_{gamma in {0} u {(max v - v_x)/2}}
[gamma r - sum_x Phat_x min(max v - v_x, 2 gamma)]`` (the closed form).

Direct worst case (mass transport, independent of the dual): move
``min(r/2, 1 - Phat_top)`` of mass to a cell where ``v`` is largest, taken
from the cells where ``v`` is smallest first. ``r >= 2`` is the whole simplex.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, ClassVar, Mapping

import mpmath
import numpy as np

from rldp_models.exact import exact_entries, ExactVector, interval, iv
from rldp_models.exact import high_precision, upper_mpf
from rldp_models.uncertainty.base import scalar
from rldp_models.uncertainty.base import Capability
from rldp_models.uncertainty.conic_support import ConicSupport
from rldp_models.uncertainty.polyhedral import in_simplex, validated_phat, validated_radius
from rldp_models.uncertainty.intersectable import Intersectable

if TYPE_CHECKING:
    import cvxpy as cp


@dataclass(frozen=True)
class TotalVariationSet(Intersectable):
    """``{P in simplex : sum_x |P_x - Phat_x| <= radius}``.

    Parameters
    ----------
    phat : ndarray
        Empirical distribution (a joint ``(|S|, |U|)`` table keeps its shape).
    radius : float
        The l1 radius ``r > 0`` (twice the total-variation distance).
    alpha : float, optional
        The level of the chi-square set the radius was taken from, if any.
    """

    phat: np.ndarray
    radius: float
    alpha: float | None = None
    name: str = "tv"
    capabilities: ClassVar[frozenset[Capability]] = frozenset({Capability.LINEAR})
    radius_source: dict[str, Any] | None = field(default=None, compare=False, repr=False)
    """How the radius was chosen when not by the asymptotic default (e.g. a bootstrap)."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "phat", validated_phat(self.phat))
        object.__setattr__(self, "radius", validated_radius(self.radius))

    @classmethod
    def containing(cls, chi_square: Any) -> "TotalVariationSet":
        """A ball containing a chi-square set: its l1 radius (Proposition 10)."""
        radius, _ = chi_square.l1_radius()
        return cls(chi_square.phat, float(radius), chi_square.alpha)

    # ------------------------------------------------------------------ membership
    def contains(self, p: np.ndarray, tol: float = 0.0) -> bool:
        p = np.asarray(p, dtype=float).ravel()
        return in_simplex(p, self.phat.size, tol) and \
            float(np.abs(p - self.phat.ravel()).sum()) <= self.radius + tol

    def membership(self, p: cp.Expression) -> list[Any]:
        import cvxpy as cp  # here, not at the top: rldp solve's default path never needs cvxpy

        return [p >= 0, cp.sum(p) == 1, cp.norm1(p - self.phat.ravel()) <= self.radius]

    # ------------------------------------------------------------------ support function
    def support(self, v: np.ndarray) -> float:
        """The closed form of the module docstring."""
        return self._closed_form(v)[0]

    def _closed_form(self, v: np.ndarray) -> tuple[float, float]:
        v = np.asarray(v, dtype=float).ravel()
        phat = self.phat.ravel()
        gap = v.max() - v
        gammas = np.concatenate([[0.0], gap / 2])
        values = gammas * self.radius - np.sum(phat * np.minimum(gap, 2 * gammas[:, None]),
                                               axis=1)
        best = int(np.argmin(values))
        return float(v.max() + values[best]), float(gammas[best])

    def support_multipliers(self, v: np.ndarray) -> dict[str, np.ndarray]:
        """``mu = max v - gamma`` and ``gamma`` at the closed form's minimiser."""
        _, gamma = self._closed_form(v)
        return {"mu": np.array(float(np.max(v)) - gamma), "gamma": np.array(gamma)}

    def worst_case(self, v: np.ndarray) -> tuple[np.ndarray, float]:
        """The mass-transport maximiser of the module docstring, and ``v.P`` there."""
        v = np.asarray(v, dtype=float).ravel()
        p = self.phat.ravel().copy()
        top = int(np.argmax(v))
        budget = min(self.radius / 2, 1.0 - p[top])
        for x in np.argsort(v, kind="stable"):
            if x == top or budget <= 0:
                continue
            step = min(p[x], budget)
            p[x] -= step
            p[top] += step
            budget -= step
        return p.reshape(self.phat.shape), float(v @ p)

    # ------------------------------------------------------------------ robust counterpart
    def support_at_most(self, v: cp.Expression, rhs: Any,
                        value: Callable[[str], Any] | None = None) -> ConicSupport:
        """The dual of the module docstring as linear constraints per column."""
        import cvxpy as cp  # here, not at the top: rldp solve's default path never needs cvxpy
        from rldp_models.uncertainty.cvxpy_rows import as_columns, as_row

        v = as_columns(v)
        n, k = v.shape
        mu = cp.Variable(k, name="mu")
        gamma = cp.Variable(k, nonneg=True, name="gamma")
        slack = cp.Variable((n, k), name="slack")
        ones = np.ones((n, 1))
        mu_grid = ones @ cp.reshape(mu, (1, k), order="F")
        gamma_grid = ones @ cp.reshape(gamma, (1, k), order="F")
        constraints = [v - mu_grid <= gamma_grid, slack >= v - mu_grid, slack >= -gamma_grid,
                       mu + self.radius * gamma + self.phat.ravel() @ slack <= as_row(rhs, k)]
        return ConicSupport(constraints, {"mu": mu, "gamma": gamma})

    def certified_support_bound(self, v: ExactVector, multipliers: Mapping[str, Any]) -> mpmath.mpf:
        """The dual objective at ``mu``, ``gamma`` made feasible, in interval arithmetic.

        ``gamma`` is raised to ``max(gamma, max v - mu, 0)``; any such pair bounds
        the support function from above (weak duality). ``v`` may hold doubles
        or fractions, taken as exact rationals.
        """
        values = exact_entries(v)
        mu = scalar(multipliers["mu"])
        gamma = max(scalar(multipliers["gamma"]), 0.0)
        with high_precision():
            mu_iv = interval(mu)
            needed = max(upper_mpf(interval(x) - mu_iv) for x in values)
            gamma_iv = iv.mpf(max(mpmath.mpf(gamma), needed))
            total = mu_iv + gamma_iv * interval(self.radius)
            for weight, x in zip(self.phat.ravel(), values):
                if weight > 0:
                    term = interval(x) - mu_iv
                    total += interval(float(weight)) * iv.mpf(max(term.b, -gamma_iv.a))
            return upper_mpf(total)
