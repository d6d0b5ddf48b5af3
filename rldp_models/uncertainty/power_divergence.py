"""Power-divergence (Cressie-Read) balls, and Rényi balls as members of the family.

``I^lambda(p : q) = 1/(lambda (lambda+1)) sum_x p_x ((p_x/q_x)^lambda - 1)``
(Cressie and Read 1984). With ``p = Phat`` and ``q = P`` it is
``D_lambda(P) = sum_x Phat_x phi(P_x / Phat_x)`` with
``phi(t) = (t^(-lambda) - 1) / (lambda (lambda+1))`` (DESIGN.md,
"Power-divergence sets"); ``2 n I^lambda(Phat : P*)`` is asymptotically
chi-square with ``|X| - 1`` degrees of freedom, so the ``(1 - alpha)`` set is

``F_lambda = {P in simplex : D_lambda(P) <= r}``,  ``r = chi2.ppf(1 - alpha, |X| - 1) / (2 n)``.

``lambda = 1`` is the chi-square set of eq. (2) with ``B = 2 r`` (the command
line builds :class:`~rldp_models.uncertainty.chi_square.ChiSquareSet` then,
whose exact pair form, Theorems 3-4, this class does not have);
``lambda = 0`` is the limit ``phi(t) = -log t``: the KL ball
``KL(Phat || P) <= r`` of :mod:`rldp_models.uncertainty.kl_ball`;
``lambda = -1`` uses ``phi(t) = t log t``, so ``D = sum P_x log(P_x/Phat_x)``
(``KL(P || Phat)`` when ``P`` has no mass on cells without records).

Cells without records (``Phat_x = 0``) -- the rule for every lambda
-------------------------------------------------------------------
``D_lambda`` sums over cells with records only; a cell without records is
bounded by the simplex only, as in the chi-square set. What that means:

* ``lambda > -1``: this *is* the power divergence (its terms at
  ``Phat_x = 0`` vanish), so ``F_lambda`` is the exact ball. For
  ``lambda > 0`` a cell with records cannot lose all its mass
  (``phi(0) = inf``), which limits what unseen cells can take; for
  ``-1 < lambda <= 0`` (KL at 0) ``phi(0)`` is finite.
* ``lambda <= -1``: the true divergence is infinite unless ``P_x = 0`` on
  every cell without records, so the exact ball would give a secret without
  records no protection at all. ``F_lambda`` replaces that by the simplex on
  those cells: it contains the exact ball. For ``lambda < -1`` moving mass to
  unseen cells even lowers ``D`` (``phi`` is increasing), so on a table with
  unseen cells the set contains their vertices and worst cases there are
  the simplex's -- conservative, and said in the docs.

Support function (conjugate duality, DESIGN.md). Dualising ``sum P = 1``
(``mu``) and ``D <= r`` (``gamma >= 0``):

``delta*(v | F) = min_{mu, gamma >= 0} mu + gamma r
                 + gamma sum_{Phat_x > 0} Phat_x phi*((v_x - mu)/gamma)``,
with ``mu >= v_x`` on cells without records. ``phi*`` comes from
:func:`rldp_models.symbolic.power_divergence_conjugate` (sympy); with
``u = (lambda+1)(mu - v_x)/gamma`` it is
``1/(lambda (lambda+1)) - u^(lambda/(lambda+1))/lambda`` (``u > 0``), so at
fixed ``mu`` the dual is ``A gamma + B gamma^(1/(lambda+1))`` plus ``mu``,
whose minimiser :func:`rldp_models.symbolic.power_gamma_elimination` gives.
What remains is a convex problem in ``mu`` alone. ``lambda = 0`` and
``lambda = -1`` have their own one-scalar forms (:meth:`PowerDivergenceSet._dual_at`).

Rényi balls. ``D_a(Phat || P) = log(sum Phat^a P^(1-a)) / (a - 1)`` (``Phat``
first) and ``sum Phat^a P^(1-a) = 1 + lambda (lambda+1) I^lambda`` with
``lambda = a - 1``, so ``D_a <= rho`` iff
``I^lambda <= (e^(lambda rho) - 1) / (lambda (lambda+1))``
(:func:`renyi_to_power_radius`). Order 2 is the chi-square set, order 1 the
KL ball. With ``P`` first, ``D_a(P || Phat)`` is the ``lambda = -a`` ball.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, ClassVar, Mapping

import mpmath
import numpy as np

from rldp_models.errors import InputError
from rldp_models.exact import exact_entries, ExactVector, interval, iv
from rldp_models.exact import high_precision, upper_mpf
from rldp_models.uncertainty.base import Capability, scalar
from rldp_models.uncertainty.conic_support import ConicSupport
from rldp_models.uncertainty.derived import (
    ConicDescription,
    conic_description,
    derived_support_at_most,
    direct_worst_case,
)
from rldp_models.uncertainty.kl_ball import kl_radius
from rldp_models.uncertainty.polyhedral import in_simplex, validated_phat, validated_radius
from rldp_models.uncertainty.scalar_search import minimise_convex_on_half_line
from rldp_models.uncertainty.intersectable import Intersectable

if TYPE_CHECKING:
    import cvxpy as cp


def validated_lambda(lam: float) -> float:
    """A finite real ``lambda``, else a one-line :class:`InputError`."""
    try:
        value = float(lam)
    except (TypeError, ValueError):
        raise InputError(f"lambda must be a real number, got {lam!r}") from None
    if not math.isfinite(value):
        raise InputError(f"lambda must be a finite real number, got {lam}")
    return value


def renyi_to_power_radius(order: float, rho: float) -> float:
    """The ``I^(a-1)`` radius of the Rényi ball ``D_a(Phat || P) <= rho`` (module docstring)."""
    lam = order - 1.0
    if lam == 0.0:
        return rho
    return math.expm1(lam * rho) / (lam * (lam + 1.0))


def power_to_renyi_radius(order: float, radius: float) -> float:
    """The Rényi radius ``rho`` whose ball is ``I^(a-1) <= radius`` (inverse of the above)."""
    lam = order - 1.0
    if lam == 0.0:
        return radius
    inside = lam * (lam + 1.0) * radius
    if inside <= -1.0:
        raise InputError(f"a Rényi ball of order {order} has no radius for I^lambda <= {radius}")
    return math.log1p(inside) / lam


def validated_order(order: float) -> float:
    """A Rényi order ``a > 0``, else a one-line :class:`InputError`."""
    try:
        value = float(order)
    except (TypeError, ValueError):
        raise InputError(f"the Rényi order must be a real number, got {order!r}") from None
    if not (math.isfinite(value) and value > 0):
        raise InputError(f"the Rényi order must be a finite number > 0, got {order}")
    return value


@dataclass(frozen=True)
class _DerivedFormulas:
    """The set's formulas as numeric functions of the sympy derivations (module docstring).

    ``conjugate(u, lambda)`` is ``phi*``; ``interval_conjugate(W, lambda)`` is ``phi*`` in
    ``W = u^(lambda/(lambda+1))`` (affine in ``W``) for mpmath intervals; ``gamma(A, B, p)``
    is the scale multiplier minimising ``A g + B g^p``.
    """

    conjugate: Callable[..., Any]
    interval_conjugate: Callable[..., Any]
    gamma: Callable[..., Any]


@functools.lru_cache(maxsize=1)
def _derived() -> _DerivedFormulas:
    """Derive the set's formulas with sympy, once per process."""
    # The one place this set's support function is derived: importing sympy (~0.3 s CPU) here
    # rather than at the top keeps it off every command that never uses a power-divergence set.
    import sympy as sp

    from rldp_models import symbolic

    c = symbolic.power_divergence_conjugate()
    return _DerivedFormulas(
        conjugate=sp.lambdify((c.u, c.lam), c.conjugate, "numpy"),
        interval_conjugate=sp.lambdify((c.power, c.lam), c.affine_conjugate, "mpmath"),
        gamma=symbolic.power_gamma_elimination().c_function)


def interval_power(u: Any, exponent: Any) -> Any:
    """``u^exponent`` over an interval ``u >= 0`` (``u > 0`` when the exponent is negative).

    ``exponent`` is an interval with both ends of one sign; ``0^e = 0`` for ``e > 0``.
    """
    if u.a > 0:
        return u ** exponent
    top = interval(0.0) if u.b == 0 else iv.mpf(u.b) ** exponent
    return iv.mpf([0, top.b])


@dataclass(frozen=True)
class PowerDivergenceSet(Intersectable):
    """``{P in simplex : I^lambda(Phat : P) <= r}`` (module docstring, zero cells included).

    Parameters
    ----------
    phat : ndarray
        Empirical distribution (a joint ``(|S|, |U|)`` table keeps its shape).
    radius : float
        The set's own radius: ``r`` for ``name = "power"``; the Rényi radius
        ``rho`` of ``D_a(Phat || P) <= rho`` for ``name = "renyi"``.
    lam : float
        ``lambda``; for a Rényi ball ``a - 1``.
    alpha : float, optional
        The level the radius was calibrated to, if it was.
    name : {"power", "renyi"}
    """

    phat: np.ndarray
    radius: float
    lam: float
    alpha: float | None = None
    name: str = "power"
    radius_source: dict[str, Any] | None = field(default=None, compare=False, repr=False)
    _description: list[ConicDescription] = field(default_factory=list, compare=False,
                                                  repr=False)
    NAMES: ClassVar[tuple[str, ...]] = ("power", "renyi")
    capabilities: ClassVar[frozenset[Capability]] = frozenset()  # power cones: cvxpy only

    def __post_init__(self) -> None:
        object.__setattr__(self, "phat", validated_phat(self.phat))
        object.__setattr__(self, "radius", validated_radius(self.radius))
        object.__setattr__(self, "lam", validated_lambda(self.lam))
        if self.name not in self.NAMES:
            raise InputError(f"a power-divergence set is named one of {self.NAMES}")
        if not (np.isfinite(self.divergence_radius) and self.divergence_radius > 0):
            raise InputError(f"the Rényi radius {self.radius} gives no power-divergence ball "
                             f"at order {self.order}")

    @classmethod
    def from_counts(cls, counts: np.ndarray, alpha: float, lam: float) -> "PowerDivergenceSet":
        """The ``(1 - alpha)`` set: ``r = chi2.ppf(1 - alpha, |X| - 1) / (2 n)``."""
        counts = np.asarray(counts, dtype=float)
        n = int(round(counts.sum()))
        return cls(counts / counts.sum(), kl_radius(n, counts.size, alpha), lam, alpha)

    @classmethod
    def renyi(cls, phat: np.ndarray, order: float, rho: float,
              alpha: float | None = None) -> "PowerDivergenceSet":
        """The Rényi ball ``D_order(Phat || P) <= rho`` (``Phat`` first)."""
        order = validated_order(order)
        return cls(phat, rho, order - 1.0, alpha, "renyi")

    @classmethod
    def renyi_from_counts(cls, counts: np.ndarray, alpha: float,
                          order: float) -> "PowerDivergenceSet":
        """The Rényi ball equal to the ``(1 - alpha)`` power-divergence set of ``order - 1``."""
        order = validated_order(order)
        counts = np.asarray(counts, dtype=float)
        n = int(round(counts.sum()))
        rho = power_to_renyi_radius(order, kl_radius(n, counts.size, alpha))
        return cls(counts / counts.sum(), rho, order - 1.0, alpha, "renyi")

    @property
    def order(self) -> float:
        """The Rényi order ``a = lambda + 1``."""
        return self.lam + 1.0

    @property
    def divergence_radius(self) -> float:
        """``r``: the bound on ``I^lambda`` (for a Rényi ball, transformed from ``rho``)."""
        if self.name == "renyi":
            return renyi_to_power_radius(self.order, self.radius)
        return self.radius

    # ------------------------------------------------------------------ membership
    def divergence(self, p: np.ndarray) -> float:
        """``D_lambda(P)`` over cells with records (module docstring); ``inf`` off its domain."""
        p = np.asarray(p, dtype=float).ravel()
        phat = self.phat.ravel()
        mask = phat > 0
        q, w = p[mask], phat[mask]
        if self.lam == -1.0:
            return float(np.sum(np.where(q > 0, q * np.log(np.where(q > 0, q, 1.0) / w), 0.0)))
        if np.any(q <= 0) and self.lam >= 0:
            return float("inf")
        if self.lam == 0.0:
            return float(np.sum(w * np.log(w / q)))
        with np.errstate(divide="ignore"):
            return float((np.sum(w ** (1 + self.lam) * q ** (-self.lam)) - w.sum())
                         / (self.lam * (self.lam + 1)))

    def divergence_upper(self, p: np.ndarray) -> mpmath.mpf:
        """An upper bound on ``D_lambda(P)`` in interval arithmetic (``p`` taken as exact)."""
        p = np.asarray(p, dtype=float).ravel()
        phat = self.phat.ravel()
        lam = interval(self.lam)
        total = iv.mpf(0)
        for q, w in zip(p[phat > 0], phat[phat > 0]):
            q_iv, w_iv = interval(float(q)), interval(float(w))
            if self.lam == -1.0:
                total += q_iv * iv.log(q_iv / w_iv) if q > 0 else iv.mpf(0)
            elif q <= 0 and self.lam >= 0:
                return mpmath.inf
            elif self.lam == 0.0:
                total += w_iv * iv.log(w_iv / q_iv)
            else:
                power = iv.mpf(0) if q == 0 else (q_iv / w_iv) ** (-lam)
                total += w_iv * (power - 1) / (lam * (lam + 1))
        return mpmath.mpf(total.b)

    def contains(self, p: np.ndarray, tol: float = 0.0) -> bool:
        """Whether ``p`` is in the set; with ``tol = 0`` the divergence is bounded rigorously."""
        p = np.asarray(p, dtype=float).ravel()
        if not in_simplex(p, self.phat.size, tol):
            return False
        if tol == 0.0:
            return bool(self.divergence_upper(p) <= self.divergence_radius)
        return self.divergence(p) <= self.divergence_radius + tol

    def membership(self, p: cp.Expression) -> list[Any]:
        """cvxpy constraints: ``p`` is in the set (exact power cones, no rational approximation).

        With ``z_x`` standing for ``(P_x / Phat_x)^(-lambda)`` (values near 1,
        which keeps the cones well scaled on tables with tiny cells):
        ``lambda > 0`` and ``lambda < -1``: ``z_x >= (P_x/Phat_x)^(-lambda)``,
        ``sum Phat z <= 1 + lambda(lambda+1) r``; ``-1 < lambda < 0``: ``z_x <=``
        and ``sum Phat z >= 1 + lambda(lambda+1) r``; ``lambda in {0, -1}``:
        exponential cones (as the KL ball).
        """
        import cvxpy as cp  # here, not at the top: rldp solve's default path never needs cvxpy

        phat = self.phat.ravel()
        mask = np.flatnonzero(phat > 0)
        w, q, lam, r = phat[mask], p[mask], self.lam, self.divergence_radius
        constraints = [p >= 0, cp.sum(p) == 1]
        if lam == 0.0:
            return constraints + [float(w @ np.log(w)) - w @ cp.log(q) <= r]
        if lam == -1.0:
            return constraints + [cp.sum(cp.rel_entr(q, w)) <= r]
        z = cp.Variable(mask.size)  # z_x bounds (P_x / Phat_x)^(-lambda): values near 1
        ratio = cp.multiply(1.0 / w, q)
        ones = np.ones(mask.size)
        budget = w.sum() + lam * (lam + 1) * r
        if lam > 0:  # z^(1/kappa) ratio^(lam/kappa) >= 1
            cone = cp.PowCone3D(z, ratio, ones, 1 / (lam + 1))
        elif lam > -1:  # ratio^(-lam) >= |z|
            cone = cp.PowCone3D(ones, ratio, z, lam + 1)
        else:  # z^(1/|lam|) >= ratio
            cone = cp.PowCone3D(z, ones, ratio, -1 / lam)
        total = w @ z
        return constraints + [cone, total >= budget if -1 < lam < 0 else total <= budget]

    # ------------------------------------------------------------------ support function
    def _gamma_at(self, mu: float, v: np.ndarray) -> float:
        """The ``gamma`` minimising the dual at ``mu`` (0 when the penalty is not needed)."""
        phat = self.phat.ravel()
        mask = phat > 0
        lam, r = self.lam, self.divergence_radius
        gap = mu - v[mask]
        if lam == 0.0:
            with np.errstate(divide="ignore"):
                return float(np.exp(np.sum(phat[mask] * np.log(gap)) - r)) if np.all(gap > 0) \
                    else 0.0
        kappa = lam + 1
        u = kappa * gap
        if lam < -1:
            u = np.maximum(u, 0.0)
        elif np.any(u < 0) or (lam < 0 and np.any(u == 0)):
            return 0.0
        with np.errstate(divide="ignore"):
            total = float(np.sum(phat[mask] * u ** (lam / kappa)))
        a_coef, b_coef, p = r + 1 / (lam * kappa), -total / lam, 1 / kappa
        if b_coef == 0 or not np.isfinite(b_coef) or p * (p - 1) * b_coef <= 0 \
                or a_coef * p * b_coef >= 0:
            return 0.0
        return float(_derived().gamma(a_coef, b_coef, p))

    def _dual_value(self, mu: float, gamma: float, v: np.ndarray) -> float:
        """The dual objective at ``(mu, gamma)`` in floating point (``inf`` off its domain)."""
        phat = self.phat.ravel()
        mask = phat > 0
        if np.any(v[~mask] > mu):
            return float("inf")
        if gamma <= 0:
            return mu if np.all(v <= mu) else float("inf")
        lam, r = self.lam, self.divergence_radius
        s = (v[mask] - mu) / gamma
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            if lam == -1.0:
                conjugate = np.exp(s - 1)
            elif lam == 0.0:
                conjugate = np.where(s < 0, -1 - np.log(-s), np.inf)
            else:
                u = -(lam + 1) * s
                if lam < -1:
                    conjugate = _derived().conjugate(np.maximum(u, 0.0), lam)
                else:
                    conjugate = np.where(u >= 0, _derived().conjugate(np.maximum(u, 0.0), lam),
                                         np.inf)
                    if lam < 0:
                        conjugate = np.where(u > 0, conjugate, np.inf)
        return float(mu + gamma * r + gamma * np.sum(phat[mask] * conjugate))

    def _dual_at(self, mu: float, v: np.ndarray) -> float:
        """The dual minimised over ``gamma`` at fixed ``mu`` (``lambda != -1``)."""
        return self._dual_value(mu, self._gamma_at(mu, v), v)

    def support_multipliers(self, v: np.ndarray) -> dict[str, np.ndarray]:
        """``(mu, gamma)`` minimising the dual (module docstring), found in one scalar."""
        v = np.asarray(v, dtype=float).ravel()
        if self.lam == -1.0:
            return self._entropy_multipliers(v)
        phat = self.phat.ravel()
        zero = v[phat == 0]
        scale = max(float(np.ptp(v)), float(np.abs(v).max()), 1e-12)
        if self.lam > -1:
            start = float(v.max())
        elif zero.size:
            start = float(zero.max())
        else:
            start, step = float(v.min()), scale
            while self._dual_at(start - step, v) < self._dual_at(start, v):
                start -= step
                step *= 2
        mu, _ = minimise_convex_on_half_line(lambda m: self._dual_at(m, v), start, scale)
        return {"mu": np.array(mu), "gamma": np.array(self._gamma_at(mu, v))}

    def _entropy_multipliers(self, v: np.ndarray) -> dict[str, np.ndarray]:
        """``lambda = -1`` (``phi*(s) = e^(s-1)``): at fixed ``gamma`` the best ``mu`` is
        ``gamma (log sum Phat e^(v/gamma) - 1)``, raised to the largest ``v`` on unseen
        cells; the rest is convex in ``gamma`` alone."""
        phat = self.phat.ravel()
        mask = phat > 0
        zero = v[~mask]
        floor = float(zero.max()) if zero.size else -np.inf
        top = float(v[mask].max())

        def best_mu(gamma: float) -> float:
            log_sum = np.log(np.sum(phat[mask] * np.exp((v[mask] - top) / gamma)))
            return max(top + gamma * (log_sum - 1.0), floor)

        scale = max(float(np.ptp(v)), float(np.abs(v).max()), 1e-12)
        gamma, value = minimise_convex_on_half_line(
            lambda g: self._dual_value(best_mu(g), g, v), 1e-12 * scale, scale)
        if value >= float(v.max()):  # the simplex bound is as good
            return {"mu": np.array(float(v.max())), "gamma": np.array(0.0)}
        return {"mu": np.array(best_mu(gamma)), "gamma": np.array(gamma)}

    def support(self, v: np.ndarray) -> float:
        """``delta*(v | F)``: the dual at :meth:`support_multipliers` (an upper bound, tight)."""
        v = np.asarray(v, dtype=float).ravel()
        found = self.support_multipliers(v)
        return min(self._dual_value(scalar(found["mu"]), scalar(found["gamma"]), v),
                   float(v.max()))

    def certified_support_bound(self, v: ExactVector, multipliers: Mapping[str, Any]) -> mpmath.mpf:
        """The dual objective at ``(mu, gamma)`` made feasible, in interval arithmetic.

        ``mu`` is raised to the largest ``v`` on cells without records (and, for
        ``lambda >= 0``, on every cell); ``gamma < 0`` is clipped. Off the
        dual's domain (``gamma = 0``, or ``-1 < lambda < 0`` with ``mu`` not
        above every ``v``) the simplex bound ``max v`` is returned. Any such
        point bounds the support function (weak duality). Multipliers of
        another form (the derived counterpart's ``"y"``) are replaced by
        :meth:`support_multipliers`. ``v`` may hold doubles or fractions,
        taken as exact rationals.
        """
        values = exact_entries(v)
        phat = self.phat.ravel()
        lam = self.lam
        if "mu" not in multipliers or "gamma" not in multipliers:  # e.g. a derived form's "y"
            multipliers = self.support_multipliers(np.asarray(v, dtype=float))
        mu = scalar(multipliers["mu"])
        gamma = max(scalar(multipliers["gamma"]), 0.0)
        with high_precision():
            top = max(upper_mpf(interval(x)) for x in values)
            floors = [upper_mpf(interval(x)) for x, w in zip(values, phat)
                      if w == 0 or lam >= 0]
            mu = float(max([mpmath.mpf(mu), *floors]))
            while floors and mu < max(floors):
                mu = float(np.nextafter(mu, np.inf))
            if gamma == 0.0:
                return top
            mu_iv, gamma_iv, lam_iv = interval(mu), interval(gamma), interval(lam)
            total = mu_iv + gamma_iv * interval(self.divergence_radius)
            for x, w in zip(values, phat):
                if w == 0:
                    continue
                s = (interval(x) - mu_iv) / gamma_iv
                if lam == -1.0:
                    conjugate = iv.exp(s - 1)
                elif lam == 0.0:
                    if s.b >= 0:
                        return top
                    conjugate = -1 - iv.log(-s)
                else:
                    u = -(lam_iv + 1) * s
                    if -1 < lam < 0 and u.a <= 0:
                        return top
                    u = iv.mpf([max(u.a, 0), max(u.b, 0)])
                    power = interval_power(u, lam_iv / (lam_iv + 1))
                    conjugate = _derived().interval_conjugate(power, lam_iv)
                total += gamma_iv * interval(float(w)) * conjugate
            return min(upper_mpf(total), top)

    def worst_case(self, v: np.ndarray, solver: str = "clarabel") -> tuple[np.ndarray, float]:
        """A maximiser of ``v.P`` by the primal conic program, pulled inside the set.

        The solver's point is mixed with ``Phat`` (which the set contains) until
        :meth:`contains` proves membership. When ``solver`` gives up (clarabel
        does on Adult race x education conditionals), SCS is tried; if it fails
        too, ``Phat`` itself is returned — a member, so every bound built on it
        stays valid, only less tight.
        """
        v = np.asarray(v, dtype=float).ravel()
        point = self._direct_point(v, solver)
        point = np.clip(point, 0.0, None)
        point /= point.sum()
        phat = self.phat.ravel()
        theta = 0.0
        while not self.contains((1 - theta) * point + theta * phat):
            theta = min(1.0, max(2 * theta, 1e-12))
        point = (1 - theta) * point + theta * phat
        return point.reshape(self.phat.shape), float(v @ point)

    def _direct_point(self, v: np.ndarray, solver: str) -> np.ndarray:
        """The primal maximiser by ``solver``, else by SCS, else ``Phat`` (see worst_case)."""
        import cvxpy as cp  # here, not at the top: rldp solve's default path never needs cvxpy

        for name in dict.fromkeys((solver, "scs")):
            try:
                return direct_worst_case(self, v, name)[0]
            except cp.error.SolverError:
                continue
        return self.phat.ravel().copy()

    # ------------------------------------------------------------------ robust counterpart
    def support_at_most(self, v: cp.Expression, rhs: Any,
                        value: Callable[[str], Any] | None = None) -> ConicSupport:
        """``delta*(v[:, k] | F) <= rhs[k]`` per column: the conjugate dual in perspective cones.

        Per column, ``mu + gamma r + sum_{Phat_x > 0} Phat_x h_x' <= rhs`` with
        ``h_x' >= gamma phi*((v_x - mu)/gamma)`` (sympy's ``phi*``, module
        docstring) written as one cone per cell, and ``mu >= v_x`` on cells
        without records. Multipliers ``mu`` and ``gamma`` (shape (k,)), the
        names :meth:`certified_support_bound` reads. Cells where ``v`` is
        identically zero (the other secrets' rows of a conditional, eq. 23 of
        :mod:`rldp_models.uncertainty.base`) share one term of weight
        ``sum Phat_x``: the same value with one cone instead of one per cell.
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
        lumped = float(phat[zero].sum())  # cells where v = 0: one term of weight sum Phat
        lam, r = self.lam, self.divergence_radius
        mu = cp.Variable(k, name="mu")
        gamma = cp.Variable(k, nonneg=True, name="gamma")
        rows = [v[counted, :]] if counted.size else []
        weights = list(phat[counted])
        if lumped > 0:
            rows.append(cp.Constant(np.zeros((1, k))))
            weights.append(lumped)
        values = cp.vstack(rows) if len(rows) > 1 else rows[0]
        cells = len(weights)
        h = cp.Variable((cells, k), name="h")
        mu_grid = np.ones((cells, 1)) @ cp.reshape(mu, (1, k), order="F")
        gamma_grid = np.ones((cells, 1)) @ cp.reshape(gamma, (1, k), order="F")
        constraints = _perspective_cones(lam, cp.vec(gamma_grid, order="F"),
                                         cp.vec(mu_grid - values, order="F"),
                                         cp.vec(h, order="F"))
        if unseen.size:
            constraints.append(np.ones((unseen.size, 1)) @ cp.reshape(mu, (1, k), order="F")
                               >= v[unseen, :])
        if np.any(zero & (phat == 0)):
            constraints.append(mu >= 0)
        constraints.append(mu + r * gamma + np.asarray(weights) @ h <= as_row(rhs, k))
        return ConicSupport(constraints, {"mu": mu, "gamma": gamma})

    def derived_support_at_most(self, v: cp.Expression, rhs: Any) -> ConicSupport:
        """The counterpart derived from :meth:`membership` by conic duality (for comparison).

        See :mod:`rldp_models.uncertainty.derived`; the multipliers are ``{"y": ...}``.
        """
        if not self._description:
            self._description.append(conic_description(self))
        return derived_support_at_most(self._description[0], v, rhs)


def _perspective_cones(lam: float, gamma: cp.Expression, gap: cp.Expression,
                       h: cp.Expression) -> list[Any]:
    """``h >= gamma phi*(-gap/gamma)`` elementwise, ``gap = mu - v_x`` (module docstring).

    With ``kappa = lambda + 1`` and
    ``phi*(s) = 1/(lambda kappa) - (-kappa s)^(lambda/kappa) / lambda``:
    ``gamma phi*(-gap/gamma) = gamma/(lambda kappa)
    - gamma^(1/kappa) (kappa gap)^(lambda/kappa) / lambda``.
    """
    import cvxpy as cp  # here, not at the top: rldp solve's default path never needs cvxpy

    kappa = lam + 1
    if lam == 0.0:  # gamma (-1 - log(gap/gamma))
        return [h >= -gamma + cp.rel_entr(gamma, gap)]
    if lam == -1.0:  # gamma exp(-gap/gamma - 1)
        extra = cp.Variable(h.shape[0])
        return [cp.ExpCone(-gap - gamma, gamma, extra), h >= extra]
    power = cp.Variable(h.shape[0])
    base = gamma / (lam * kappa)
    if lam > 0:  # power <= gamma^(1/kappa) (kappa gap)^(lam/kappa)
        return [cp.PowCone3D(gamma, kappa * gap, power, 1 / kappa), h >= base - power / lam]
    if lam > -1:  # power >= gamma^(1/kappa) (kappa gap)^(lam/kappa)
        return [cp.PowCone3D(power, kappa * gap, gamma, kappa), h >= base - power / lam]
    q = lam / kappa  # > 1: power >= (|kappa| (v - mu)_+)^q / gamma^(q-1)
    excess = cp.Variable(h.shape[0], nonneg=True)
    return [excess >= -kappa * -gap, cp.PowCone3D(power, gamma, excess, 1 / q),
            h >= base - power / lam]
