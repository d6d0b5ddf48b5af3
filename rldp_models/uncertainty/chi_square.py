"""The chi-square confidence set around an empirical distribution.

``F = {P in simplex : sum_x (Phat_x - P_x)^2 / P_x <= B}``
(eq. 2 of the robust-optimization paper), equivalently
``sum_x Phat_x^2 / P_x <= B + 1`` (eq. 4 of the RLDP paper), with radius
``B = chi2.ppf(1 - alpha, |X| - 1) / n`` (eq. 3). Cells with ``Phat_x = 0``
drop out of the sum: such a ``P_x`` is bounded by the simplex only.

The set knows its support function in closed form (Theorem 2) and by direct
maximisation, its conic epigraph (for the builders), its coordinate bounds
(Lemma 9), its l1 radius (Proposition 10), the projection onto one
conditional (Lemma 8) and onto a pair of conditionals (Theorems 3-4).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, ClassVar, Mapping

import numpy as np

from rldp_models import symbolic_values
from rldp_models.errors import InputError
from rldp_models.uncertainty.chi2_quantile import chi2_ppf
from rldp_models.exact import exact_entries, ExactVector, interval, iv, upper
from rldp_models.exact import high_precision, upper_mpf
from rldp_models.uncertainty.base import scalar
from rldp_models.uncertainty.conic_support import ConicSupport
from rldp_models.uncertainty.pair_projection import PairProjection
from rldp_models.uncertainty.base import Capability
from rldp_models.uncertainty.scalar_search import (
    direct_solver_options,
    minimise_convex_on_half_line,
)
from rldp_models.uncertainty.simplex import Simplex
from rldp_models.uncertainty.intersectable import Intersectable


def chi_square_radius(n: int, cells: int, alpha: float) -> float:
    """Radius ``B = F^{-1}_{cells-1}(1 - alpha) / n`` of eq. (3).

    Parameters
    ----------
    n : int
        Number of records.
    cells : int
        ``|X| = |S| |U|``, zero cells included.
    alpha : float
        Significance level in (0, 1).
    """
    if not 0.0 < alpha < 1.0:
        raise InputError(f"alpha must lie in (0, 1), got {alpha}")
    if n <= 0:
        raise InputError(f"the number of records must be positive, got {n}")
    if cells < 2:
        raise InputError("a chi-square set needs at least two cells")
    return chi2_ppf(1.0 - alpha, cells - 1) / n


@dataclass(frozen=True)
class SupportValue:
    """The support function at ``v`` with the multipliers that certify it.

    ``value = -2 sqrt(c) sum_x Phat_x sqrt(t - v_x) + t + c (B + 1)`` with
    ``w = t`` in every cell: the Theorem 2 expression at one feasible point,
    hence an upper bound on the support function, and equal to it at the
    minimiser.
    """

    value: float
    t: float
    c: float


@dataclass(frozen=True)
class ChiSquareSet(Intersectable):
    """The chi-square confidence set ``{P : sum Phat^2 / P <= B + 1}``.

    Parameters
    ----------
    phat : ndarray
        Empirical distribution; any shape (a joint ``(|S|, |U|)`` table keeps
        its shape, which :meth:`conditional` and :meth:`pair` use).
    radius : float
        ``B > 0``.
    alpha : float, optional
        The significance level the radius was calibrated to, when it was.
    """

    phat: np.ndarray
    radius: float
    alpha: float | None = None
    name: ClassVar[str] = "chi2"
    capabilities: ClassVar[frozenset[Capability]] = frozenset(
        {Capability.EXACT_PAIR, Capability.DIRECT_CONIC, Capability.PARAMETRIC})
    radius_source: dict[str, Any] | None = field(default=None, compare=False, repr=False)
    """How the radius was chosen when not by the asymptotic default (e.g. a bootstrap)."""

    def __post_init__(self) -> None:
        phat = np.asarray(self.phat, dtype=float)
        if np.any(phat < 0) or not np.isclose(phat.sum(), 1.0, rtol=0, atol=1e-12):
            raise InputError("phat must be a probability distribution")
        if not self.radius > 0 or not np.isfinite(self.radius):
            raise InputError(f"the radius B must be positive and finite, got {self.radius}")
        object.__setattr__(self, "phat", phat)

    @classmethod
    def from_counts(cls, counts: np.ndarray, alpha: float) -> "ChiSquareSet":
        """The ``(1 - alpha)`` confidence set of a count table (eqs. 2-3)."""
        counts = np.asarray(counts, dtype=float)
        n = int(round(counts.sum()))
        return cls(counts / counts.sum(), chi_square_radius(n, counts.size, alpha), alpha)

    # ------------------------------------------------------------------ membership
    def divergence(self, p: np.ndarray) -> float:
        """``sum_x (Phat_x - P_x)^2 / P_x`` over cells with ``Phat_x > 0``, plus the rest of P.

        Equals ``sum_{Phat_x > 0} Phat_x^2/P_x - 1`` for ``P`` in the simplex;
        ``inf`` when some ``P_x = 0 < Phat_x``.
        """
        p = np.asarray(p, dtype=float).reshape(self.phat.shape)
        mask = self.phat > 0
        if np.any(p[mask] <= 0):
            return float("inf")
        return float(np.sum(self.phat[mask] ** 2 / p[mask]) - 1.0)

    def contains(self, p: np.ndarray, tol: float = 0.0) -> bool:
        """Whether ``p`` lies in the set (to ``tol`` on the simplex and on the divergence)."""
        p = np.asarray(p, dtype=float)
        in_simplex = p.size == self.phat.size and np.all(p >= -tol) and abs(p.sum() - 1) <= tol
        return bool(in_simplex and self.divergence(p) <= self.radius + tol)

    # ------------------------------------------------------------------ support function
    def support(self, v: np.ndarray) -> float:
        """Support function ``sup_{P in F} v.P`` by the closed form of Theorem 2 (eq. 21)."""
        return self.support_certificate(v).value

    def support_certificate(self, v: np.ndarray) -> SupportValue:
        """Theorem 2 with ``w = t`` in every cell and ``c`` eliminated in closed form.

        The elimination is :func:`rldp_models.symbolic_values.theorem2_value` (``c*`` is
        :func:`~rldp_models.symbolic_values.theorem2_c`).

        ``delta*(v|F) = min_{t >= max v} t - (sum_x Phat_x sqrt(t - v_x))^2 / (B+1)``,
        a convex problem in one scalar.
        """
        v = np.asarray(v, dtype=float).ravel()
        phat = self.phat.ravel()
        def objective(t: float) -> float:
            s = float(phat @ np.sqrt(np.maximum(t - v, 0.0)))
            return t + symbolic_values.theorem2_value(s, self.radius)

        top = float(v.max())
        scale = max(float(np.ptp(v)), abs(top), 1.0) / max(self.radius, 1e-12)
        t, value = minimise_convex_on_half_line(objective, top, scale)
        s = float(phat @ np.sqrt(np.maximum(t - v, 0.0)))
        return SupportValue(value=value, t=t, c=symbolic_values.theorem2_c(s, self.radius))

    def worst_case(self, v: np.ndarray) -> tuple[np.ndarray, SupportValue]:
        """A distribution in the set (near-)maximising ``v.P``, and Theorem 2's bound.

        Stationarity of the Lagrangian gives ``P_x`` proportional to
        ``Phat_x / sqrt(t - v_x)`` on counted cells; when ``t`` sits at a
        zero-count cell the unused budget moves mass there. The point is pulled
        towards ``Phat`` until it provably lies in the set, so ``v.P`` bounds
        the support function from below while ``SupportValue.value`` bounds it
        from above.
        """
        v = np.asarray(v, dtype=float).ravel()
        phat = self.phat.ravel()
        bound = self.support_certificate(v)
        gap = bound.t - v
        with np.errstate(divide="ignore", invalid="ignore"):
            weights = np.where((phat > 0) & (gap > 0), phat / np.sqrt(gap), 0.0)
        p = weights / weights.sum() if weights.sum() > 0 else phat.copy()
        zero_cells = np.where(phat > 0, -np.inf, v)
        if np.isfinite(zero_cells.max()) and zero_cells.max() >= bound.t and \
                zero_cells.max() > v @ p:
            # the share of p that spends the budget exactly; above 1 (p itself
            # outside the set, e.g. t at rounding level) keep p and pull it in below
            alpha = min(1.0, np.sum(phat**2 / np.where(p > 0, p, np.inf)) / (self.radius + 1))
            p = alpha * p + (1 - alpha) * np.eye(v.size)[int(np.argmax(zero_cells))]
        theta = 0.0
        while self.divergence((1 - theta) * p + theta * phat) > self.radius * (1 - 1e-13):
            theta = min(1.0, max(2 * theta, 1e-12))
        return ((1 - theta) * p + theta * phat).reshape(self.phat.shape), bound

    def support_direct(self, v: np.ndarray, solver: str = "clarabel") -> tuple[float, np.ndarray]:
        """Support function by maximising ``v.P`` over the set directly (a conic program).

        Returns the value and the maximiser, which lies in the set.
        """
        import cvxpy as cp

        v = np.asarray(v, dtype=float).ravel()
        phat = self.phat.ravel()
        mask = phat > 0
        p = cp.Variable(phat.size, nonneg=True)
        divergence = cp.sum(cp.multiply(phat[mask] ** 2, cp.inv_pos(p[mask])))
        problem = cp.Problem(cp.Maximize(v @ p), [cp.sum(p) == 1, divergence <= self.radius + 1])
        problem.solve(solver=solver.upper(), **direct_solver_options(solver))
        return float(problem.value), np.asarray(p.value).reshape(self.phat.shape)

    # ------------------------------------------------------------------ set protocol
    def membership(self, p: Any) -> list[Any]:
        """cvxpy constraints: the vector ``p`` lies in the set (eq. 4 of the RLDP paper)."""
        import cvxpy as cp

        phat = self.phat.ravel()
        cells = np.flatnonzero(phat > 0)
        # one rotated cone per cell, Phat_x^2 / P_x <= r_x: its epigraph stays near Phat_x
        # (inv_pos's 1 / P_x does not), which keeps the conic data well scaled
        return [p >= 0, cp.sum(p) == 1,
                cp.sum(cp.hstack([cp.quad_over_lin(phat[x], p[x]) for x in cells]))
                <= self.radius + 1]

    def support_at_most(self, v: Any, rhs: Any,
                        value: Callable[[str], Any] | None = None) -> Any:
        """``delta*(v[:, k] | F) <= rhs[k]`` per column by Theorem 2's cones.

        ``value`` (a build context's data accessor) supplies ``phat`` and
        ``b_plus_one`` as parameters in parametric models; else the set's own.
        """
        import cvxpy as cp  # here, not at the top: the default solve path builds no cvxpy model

        from rldp_models.uncertainty.chi_square_conic import support_at_most
        from rldp_models.uncertainty.cvxpy_rows import as_columns, as_row

        phat = cp.vec(value("phat"), order="C") if value else self.phat.ravel()
        b_plus_one = value("b_plus_one") if value else self.radius + 1
        v = as_columns(v)
        rhs = as_row(rhs, v.shape[1])
        cones = [support_at_most(v[:, k], rhs[k], phat, b_plus_one) for k in range(v.shape[1])]
        if len(cones) == 1:
            return cones[0]
        names = cones[0].multipliers
        return ConicSupport([c for cone in cones for c in cone.constraints],
                            {key: cp.hstack([cone.multipliers[key] for cone in cones])
                             for key in names})

    def support_multipliers(self, v: np.ndarray) -> dict[str, np.ndarray]:
        """Theorem 2's ``(t, c)`` at the closed form's minimiser."""
        bound = self.support_certificate(v)
        return {"t": np.array(bound.t), "c": np.array(bound.c)}

    def certified_support_bound(self, v: ExactVector, multipliers: Mapping[str, Any]) -> Any:
        """Theorem 2's expression at ``(t, c)`` in interval arithmetic: an upper bound.

        ``t + c (B+1) - 2 sqrt(c) sum_x Phat_x sqrt(t - v_x)`` with ``c``
        clipped to ``>= 0`` and ``t`` raised to ``max v``, so any multipliers
        give a valid bound (the ``w = t`` choice of Theorem 2, eq. 21).
        """
        values = exact_entries(v)
        c = max(scalar(multipliers["c"]), 0.0)
        with high_precision():
            t = max(scalar(multipliers["t"]), *(upper(interval(x)) for x in values))
            t_iv, c_iv = interval(t), interval(c)
            total = iv.mpf(0)
            for weight, x in zip(self.phat.ravel(), values):
                if weight > 0:
                    gap = t_iv - interval(x)
                    total += interval(float(weight)) * iv.sqrt(iv.mpf([max(gap.a, 0), gap.b]))
            bound = t_iv + c_iv * (interval(self.radius) + 1) - 2 * iv.sqrt(c_iv) * total
            return upper_mpf(bound)

    # ------------------------------------------------------------------ bounds
    def coordinate_bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """``min_{P in F} P_x`` and ``max_{P in F} P_x`` for every cell (Lemma 9, eqs. 36-37)."""
        # Lemma 9's roots are derived by sympy (rldp_models.symbolic); importing it here, where
        # they are needed, keeps sympy (~0.3 s CPU) off the solve/verify path, which never is.
        from rldp_models import symbolic

        lower, upper = symbolic.lemma9_bounds()
        phat = self.phat
        return (np.clip(lower(phat, self.radius), 0.0, 1.0),
                np.clip(upper(phat, self.radius), 0.0, 1.0))

    def l1_radius(self) -> tuple[float, bool]:
        """``max_{P in F} ||P - Phat||_1`` (Proposition 10).

        Returns
        -------
        (float, bool)
            The value and whether it is exact: eq. (43) is exact for ``B >= 1``;
            for ``B < 1`` the proposition gives the upper bound ``sqrt(B)``.
        """
        b = self.radius
        if b >= 1:
            q = float(self.phat.min())
            return (b - 2 * b * q + np.sqrt(b * b + 4 * b * q - 4 * b * q * q)) / (b + 1), True
        return float(np.sqrt(b)), False

    # ------------------------------------------------------------------ projections
    def _require_joint(self) -> None:
        if self.phat.ndim != 2:
            raise InputError("projections onto conditionals need a joint (|S|, |U|) table")

    def conditional(self, s: int) -> "ChiSquareSet | Simplex":
        """Projection onto ``P_{U|s}`` (Lemma 8).

        For ``Phat_s > 0`` it is a chi-square set around ``Phat_{U|s}`` with
        ``B_s = (sqrt(B+1) + Phat_s - 1)^2 / Phat_s^2 - 1``. For ``Phat_s = 0``
        the conditional is unconstrained: the whole simplex.
        """
        self._require_joint()
        row = self.phat[s]
        mass = float(row.sum())
        if mass == 0.0:
            return Simplex(row.size)
        b_s = (np.sqrt(self.radius + 1) + mass - 1) ** 2 / mass**2 - 1
        return ChiSquareSet(row / mass, float(b_s))

    def pair(self, s1: int, s2: int) -> "PairProjection":
        """Projection onto ``(P_{U|s1}, P_{U|s2})`` (Theorem 3)."""
        self._require_joint()
        if s1 == s2:
            raise InputError("a pair projection needs two different secret values")
        return PairProjection(self.phat[[s1, s2]], float(np.sqrt(self.radius + 1)),
                              float(self.phat.sum() - self.phat[[s1, s2]].sum()))
