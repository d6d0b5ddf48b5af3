"""Polyhedral uncertainty sets ``F = {P in simplex : A P <= b}`` (robust counterpart by LP duality).

Support function (LP duality, as in Lemma 13 of the RLDP paper):

``delta*(v | F) = max {v.P : A P <= b, 1.P = 1, P >= 0}
               = min {b.lam + mu : A^T lam + mu 1 >= v, lam >= 0}``

(strong duality holds when ``F`` is non-empty; it is bounded). The robust
counterpart ``delta*(v | F) <= D`` is therefore the linear system
``lam >= 0, A^T lam + mu 1 >= v, b.lam + mu <= D`` (multipliers ``lam``,
``mu``). Any ``lam >= 0`` gives the upper bound ``b.lam + max_x (v - A^T lam)_x``,
which is what :meth:`PolyhedralSet.certified_support_bound` evaluates.

The direct worst case solves the primal LP with scipy's HiGHS, independently
of the dual. Conditionals and pairs follow from :mod:`rldp_models.uncertainty.base`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, ClassVar, Mapping

import mpmath
import numpy as np
from scipy.optimize import linprog

from rldp_models.errors import InputError
from rldp_models.exact import exact_entries, ExactVector, interval, iv
from rldp_models.exact import high_precision, upper_mpf
from rldp_models.uncertainty.base import Capability
from rldp_models.uncertainty.conic_support import ConicSupport
from rldp_models.uncertainty.intersectable import Intersectable

if TYPE_CHECKING:  # the stubs' name for linprog's HiGHS options (no runtime class); cvxpy's
    import cvxpy as cp
    from scipy.optimize._linprog import _OptionsHighs

HIGHS_OPTIONS: _OptionsHighs = {"primal_feasibility_tolerance": 1e-10,
                                "dual_feasibility_tolerance": 1e-10}
"""Tighter than HiGHS's defaults (1e-7), which show in support values of small vectors."""


def validated_phat(phat: np.ndarray) -> np.ndarray:
    """``phat`` as a float array that is a probability distribution (any shape)."""
    phat = np.asarray(phat, dtype=float)
    if np.any(phat < 0) or not np.isclose(phat.sum(), 1.0, rtol=0, atol=1e-12):
        raise InputError("phat must be a probability distribution")
    return phat


def validated_radius(radius: float) -> float:
    """A radius that is positive and finite, else a one-line :class:`InputError`."""
    if not (np.isfinite(radius) and radius > 0):
        raise InputError(f"the radius must be positive and finite, got {radius}")
    return float(radius)


def in_simplex(p: np.ndarray, size: int, tol: float) -> bool:
    """Whether ``p`` is a probability vector of ``size`` entries (to ``tol``).

    The sum is compared with 1 up to its own rounding error (``size`` ulps) as
    well: a mixture of two exact distributions can sum to ``1 - 2^-53``.
    """
    rounding = size * np.finfo(float).eps
    return bool(p.size == size and np.all(p >= -tol) and abs(p.sum() - 1) <= tol + rounding)


@dataclass(frozen=True)
class PolyhedralSet(Intersectable):
    """``{P in simplex : A vec(P) <= b}`` around an empirical distribution ``phat``.

    Parameters
    ----------
    phat : ndarray
        Empirical distribution (a joint ``(|S|, |U|)`` table keeps its shape).
    a_matrix : ndarray, shape (m, |X|)
    b_vector : ndarray, shape (m,)
    radius : float
        A size parameter, recorded with results (its meaning is the subclass's).
    """

    phat: np.ndarray
    a_matrix: np.ndarray
    b_vector: np.ndarray
    radius: float = float("nan")
    alpha: float | None = None
    name: str = "polyhedral"
    capabilities: ClassVar[frozenset[Capability]] = frozenset({Capability.LINEAR})
    radius_source: dict[str, Any] | None = field(default=None, compare=False, repr=False)
    """How the radius was chosen when not by the asymptotic default (e.g. a bootstrap)."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "phat", validated_phat(self.phat))
        a = np.atleast_2d(np.asarray(self.a_matrix, dtype=float))
        b = np.asarray(self.b_vector, dtype=float).ravel()
        if a.shape != (b.size, self.phat.size):
            raise InputError(f"A must have shape (m, {self.phat.size}) and b shape (m,)")
        object.__setattr__(self, "a_matrix", a)
        object.__setattr__(self, "b_vector", b)

    # ------------------------------------------------------------------ membership
    def contains(self, p: np.ndarray, tol: float = 0.0) -> bool:
        """Whether ``p`` is in the simplex and meets ``A p <= b`` (to ``tol``)."""
        p = np.asarray(p, dtype=float).ravel()
        return in_simplex(p, self.phat.size, tol) and \
            bool(np.all(self.a_matrix @ p <= self.b_vector + tol))

    def membership(self, p: cp.Expression) -> list[Any]:
        """``p >= 0, sum p = 1, A p <= b`` for a cvxpy vector ``p``."""
        import cvxpy as cp  # here, not at the top: rldp solve's default path never needs cvxpy

        return [p >= 0, cp.sum(p) == 1, self.a_matrix @ p <= self.b_vector]

    # ------------------------------------------------------------------ support function
    def support(self, v: np.ndarray) -> float:
        """``delta*(v | F)`` by the dual LP (module docstring), solved with HiGHS.

        The value is recomputed from the solver's ``lam`` with the smallest
        feasible ``mu``, so it is a dual objective value (an upper bound) even
        when the solver stops short.
        """
        v = np.asarray(v, dtype=float).ravel()
        _, lam, _ = self._dual(v)
        lam = np.clip(lam, 0.0, None)
        return float(self.b_vector @ lam + np.max(v - self.a_matrix.T @ lam))

    def support_multipliers(self, v: np.ndarray) -> dict[str, np.ndarray]:
        """Optimal dual multipliers ``lam`` (m,) and ``mu`` of the dual LP."""
        _, lam, mu = self._dual(v)
        return {"lam": lam, "mu": np.array(mu)}

    def _dual(self, v: np.ndarray) -> tuple[float, np.ndarray, float]:
        v = np.asarray(v, dtype=float).ravel()
        m = self.b_vector.size
        # variables (lam, mu): min b.lam + mu  s.t.  -A^T lam - mu 1 <= -v
        cost = np.concatenate([self.b_vector, [1.0]])
        a_ub = -np.hstack([self.a_matrix.T, np.ones((v.size, 1))])
        bounds = [(0, None)] * m + [(None, None)]
        result = linprog(cost, A_ub=a_ub, b_ub=-v, bounds=bounds, method="highs",
                         options=HIGHS_OPTIONS)
        if result.status != 0:
            raise InputError(f"{self.name} set: the dual LP failed ({result.message})")
        assert result.x is not None and result.fun is not None  # status 0: HiGHS found an optimum
        return float(result.fun), result.x[:m], float(result.x[m])

    def worst_case(self, v: np.ndarray) -> tuple[np.ndarray, float]:
        """A maximiser of ``v.P`` over the set by the primal LP (HiGHS), and ``v.P`` there."""
        v = np.asarray(v, dtype=float).ravel()
        result = linprog(-v, A_ub=self.a_matrix, b_ub=self.b_vector,
                         A_eq=np.ones((1, v.size)), b_eq=[1.0], bounds=(0, None),
                         method="highs", options=HIGHS_OPTIONS)
        if result.status != 0:
            raise InputError(f"{self.name} set: the primal LP failed ({result.message})")
        assert result.x is not None  # status 0: HiGHS found an optimum
        p = np.clip(result.x, 0.0, None)
        return p.reshape(self.phat.shape), float(v @ p)

    # ------------------------------------------------------------------ robust counterpart
    def support_at_most(self, v: cp.Expression, rhs: Any,
                        value: Callable[[str], Any] | None = None) -> ConicSupport:
        """``delta*(v[:, k] | F) <= rhs[k]`` for each column: the dual LP's constraints."""
        import cvxpy as cp  # here, not at the top: rldp solve's default path never needs cvxpy
        from rldp_models.uncertainty.cvxpy_rows import as_columns, as_row

        v = as_columns(v)
        k = v.shape[1]
        lam = cp.Variable((self.b_vector.size, k), nonneg=True, name="lam")
        mu = cp.Variable(k, name="mu")
        ones = np.ones((v.shape[0], 1))
        constraints = [self.a_matrix.T @ lam + ones @ cp.reshape(mu, (1, k), order="F") >= v,
                       self.b_vector @ lam + mu <= as_row(rhs, k)]
        return ConicSupport(constraints, {"lam": lam, "mu": mu})

    def certified_support_bound(self, v: ExactVector, multipliers: Mapping[str, Any]) -> mpmath.mpf:
        """``b.lam + max_x (v - A^T lam)_x`` at ``lam = max(multipliers["lam"], 0)``, in intervals.

        Valid for any ``lam >= 0`` (weak duality); ``mu`` is replaced by the
        smallest feasible value, so the given one is not needed. ``v`` may hold
        doubles or fractions, taken as exact rationals.
        """
        values = exact_entries(v)
        lam = np.clip(np.asarray(multipliers["lam"], dtype=float).ravel(), 0.0, None)
        with high_precision():
            lam_iv = [interval(float(x)) for x in lam]
            total = sum((interval(float(b)) * lm for b, lm in zip(self.b_vector, lam_iv)),
                        iv.mpf(0))
            gaps = []
            for x in range(len(values)):
                column = self.a_matrix[:, x]
                dot = sum((interval(float(a)) * lm for a, lm in zip(column, lam_iv) if a != 0),
                          iv.mpf(0))
                gaps.append(upper_mpf(interval(values[x]) - dot))
            return upper_mpf(total + iv.mpf(max(gaps)))
