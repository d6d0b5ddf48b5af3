"""LP dual certificates of cone-LP mechanisms, checked in exact rationals.

The cone LP (``rldp_models.conelp.engine``, after Theorem 4 of
``extremal-mechanisms-ldp.txt``) has the dual
``min rhs.lam  s.t.  lam.v_r >= mu(v_r)`` over the extreme rays ``v_r`` of
the privacy cone. A dual ``lam`` with
``delta = max_r (mu(v_r) - lam.v_r) / (1.v_r)`` makes ``lam + delta^+ 1``
dual feasible, so every mechanism whose columns lie in the cone has utility
at most ``rhs.lam + delta^+ 1.rhs`` (weak duality, subadditivity of ``mu``).

Checking it needs every ray, so the cone must be enumerable: the staircase
patterns ``1 + (R - 1) 1_A`` of the LDP cone (closed form, ``2^k - 2`` of
them) and the rays of the LDP-w.r.t.-a-secret, LIP, SRLIP-attribute and
PolyOpt (Gamma) cones by exact double description
(:func:`rldp_models.conelp.exact_dd.exact_extreme_rays`). ``R``
is the least double proven ``>= e^eps`` (:func:`outer_ratio`), so the cone
checked *contains* the stated one and its rays are rational: ``lam.v_r`` is
computed in :class:`fractions.Fraction`; ``mu(v_r)`` (logarithms) in
interval arithmetic at 60 digits, its upper end taken. The mechanism's own
utility is enclosed the same way, its lower end taken, so
``gap = bound - U(Q)`` is an upper bound on how far ``Q`` is from optimal.

:func:`corrected_dual` is the correction the writers
(:mod:`rldp_models.results.lp_certificate`) apply: ``lam + delta 1_A``
(``A`` the inputs of the violated rays) rounded up, dual feasible on the
enumerated rays.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

import mpmath
import numpy as np

from rldp_models.conelp.cones import pairwise_ratio_rows, two_sided_ratio_rows
from rldp_models.conelp.exact_dd import exact_extreme_rays
from rldp_models.conelp.joint import data_given_secret, exact
from rldp_models.conelp.polyopt_gamma import gamma_rows, gamma_vertices
from rldp_models.conelp.srlip import attribute_rows
from rldp_models.errors import InputError, TooManyRays
from rldp_models.exact import interval, iv
from rldp_models.exact import DIGITS, high_precision, upper_mpf
from rldp_models.uncertainty.chi_square import ChiSquareSet

FEASIBILITY_TOLERANCE = 1e-9
"""Largest accepted dual infeasibility per unit ray mass of a stored dual."""

GAP_TOLERANCE = 1e-8
"""Largest accepted ``bound - U(Q)`` relative to ``1 + bound``."""

MAX_RAYS = 1 << 12
"""Cones with more extreme rays than this are not enumerated."""

MAX_INTERMEDIATE_RAYS = 4 * MAX_RAYS
"""Double description gives up once a partial cone has more rays than this
(:func:`~rldp_models.conelp.exact_dd.exact_extreme_rays`). A partial cone may have more
rays than the final one, hence the margin over ``MAX_RAYS``; the cap bounds the work of
the producer's dual correction and of ``rldp verify``, which then both report the cone
as not enumerable."""

MAX_GAMMA_DIMENSION = 8
"""PolyOpt's Gamma is enumerated for count tables of at most this many cells."""

Ray = tuple[Fraction, ...]
Vector = Sequence[float] | np.ndarray
"""A dual or right-hand side: doubles, taken as exact rationals."""
IntervalUtility = Callable[[Sequence[Fraction]], "mpmath.iv.mpf"]


def outer_ratio(eps: float) -> Fraction:
    """The least double ``R`` with ``R >= e^eps`` proven in interval arithmetic."""
    ratio = math.exp(eps)
    with high_precision():
        top = iv.exp(interval(eps)).b
        while interval(ratio).a < top:
            ratio = math.nextafter(ratio, math.inf)
    return Fraction(ratio)


def staircase_rays(k: int, ratio: Fraction) -> list[Ray]:
    """The extreme rays ``1 + (R - 1) 1_A`` of the LDP cone (``R = 1``: the ray ``1``)."""
    if ratio == 1 or k == 1:
        return [tuple(Fraction(1) for _ in range(k))]
    if 2**k - 2 > MAX_RAYS:
        raise TooManyRays(f"the LDP cone on {k} inputs has {2**k - 2} rays, more than "
                          f"{MAX_RAYS} to enumerate")
    return [tuple(ratio if bit else Fraction(1) for bit in pattern)
            for pattern in itertools.product((0, 1), repeat=k) if 0 < sum(pattern) < k]


def joint_cone_rays(cone: str, joint: np.ndarray, ratio: Fraction) -> list[Ray]:
    """Extreme rays of a joint-based privacy cone in mechanism form, exactly (double description).

    ``"ldp-wrt-secret"``: ``{q >= 0 : p_{X|s}.q <= R p_{X|s'}.q}`` (privacy
    funnel eq. 1); ``"lip"``: ``{q >= 0 : p_X.q / R <= p_{X|s}.q <= R p_X.q}``
    (eq. 2, condition (10) in mechanism form; inputs with ``p_x = 0`` are free).
    """
    exact_joint = exact(np.asarray(joint, dtype=float))
    conditionals = data_given_secret(exact_joint)
    if cone == "ldp-wrt-secret":
        rows = pairwise_ratio_rows(conditionals, ratio)
    else:
        # P(y) normalised as certify_lip has it: the doubles of a joint need not sum to 1
        marginal = np.repeat((exact_joint.sum(axis=0) / exact_joint.sum())[None, :],
                             conditionals.shape[0], axis=0)
        rows = two_sided_ratio_rows(conditionals, marginal, ratio)
    return _enumerated(rows, exact_joint.shape[1])


def attribute_cone_rays(joint: np.ndarray, j: int, ratio: Fraction) -> list[Ray]:
    """Rays of the cone ``C_j`` of SRLIP attribute ``j`` (privacy funnel eqs. 15-16), exactly.

    ``joint`` has shape ``(|S|, a_1, ..., a_m)``; the rows are
    :func:`rldp_models.conelp.srlip.attribute_rows` on the exact joint.
    """
    rows = attribute_rows(exact(np.asarray(joint, dtype=float)), j, ratio)
    return _enumerated(rows, joint.shape[1 + j])


def _enumerated(rows: np.ndarray, dimension: int) -> list[Ray]:
    rays = exact_extreme_rays([list(row) for row in rows], dimension, MAX_INTERMEDIATE_RAYS)
    if len(rays) > MAX_RAYS:
        raise TooManyRays(f"the cone has {len(rays)} rays, more than {MAX_RAYS} to check")
    return [tuple(Fraction(x) for x in ray) for ray in rays]


def gamma_cone_rays(counts: np.ndarray, alpha: float, ratio: Fraction,
                    finer: bool = False) -> list[Ray]:
    """Rays of PolyOpt's cone Gamma (eq. 44 of ``rldp-privacy-utility-tradeoff.txt``), exactly.

    Gamma's polytopes ``D_s`` come from the ``(1 - alpha)`` chi-square set of
    ``counts`` (:func:`rldp_models.conelp.polyopt_gamma.gamma_vertices`);
    only tables of at most :data:`MAX_GAMMA_DIMENSION` cells are enumerated.
    """
    counts = np.asarray(counts)
    if counts.size > MAX_GAMMA_DIMENSION:
        raise TooManyRays(f"Gamma on {counts.size} cells is not enumerated (at most "
                          f"{MAX_GAMMA_DIMENSION})")
    return _enumerated(gamma_cone_rows(counts, alpha, ratio, finer), counts.size)


def gamma_cone_rows(counts: np.ndarray, alpha: float, ratio: Fraction,
                    finer: bool = False) -> np.ndarray:
    """Exact rows ``A`` of Gamma (eq. 44): ``{T >= 0 : A T >= 0}``, as :func:`gamma_cone_rays`."""
    vertices = gamma_vertices(ChiSquareSet.from_counts(np.asarray(counts), alpha), finer)
    return gamma_rows(vertices, ratio)


def cone_rays(cone: str, size: int, ratio: Fraction, joint: np.ndarray | None) -> list[Ray]:
    """The rays of a recorded cone (``ldp``, ``ldp-wrt-secret`` or ``lip``) at ``ratio``."""
    if cone == "ldp":
        return staircase_rays(size, ratio)
    if cone in ("ldp-wrt-secret", "lip") and joint is not None:
        return joint_cone_rays(cone, joint, ratio)
    raise InputError(f"the rays of the {cone} cone cannot be enumerated from this result")


def interval_utility(measure: str, parameters: Mapping[str, Sequence[float]]) -> IntervalUtility:
    """``mu`` of :mod:`rldp_models.utility` enclosed in interval arithmetic.

    ``mi``: ``sum_x p_x q_x log(q_x / p.q)``; ``kl``, ``tv``, ``chi2``:
    ``t f(z/t)`` with ``z = p_0.q``, ``t = p_1.q`` (closed at ``t = 0`` as there).
    """
    if measure == "mi":
        prior = [Fraction(float(p)) for p in parameters["prior"]]
        logs: dict[Fraction, "mpmath.iv.mpf"] = {}
        return lambda q: _mutual_information(prior, q, logs)
    if measure in ("kl", "tv", "chi2"):
        p0 = [Fraction(float(p)) for p in parameters["prior0"]]
        p1 = [Fraction(float(p)) for p in parameters["prior1"]]
        return lambda q: _divergence(measure, _dot(p0, q), _dot(p1, q))
    raise InputError(f"no exact utility for measure {measure!r}")


def _dot(a: Sequence[Fraction], b: Sequence[Fraction]) -> Fraction:
    return sum((x * y for x, y in zip(a, b)), Fraction(0))


def _mutual_information(prior: list[Fraction], q: Sequence[Fraction],
                        logs: dict[Fraction, "mpmath.iv.mpf"]) -> "mpmath.iv.mpf":
    """``sum_x p_x q_x log q_x - m log m`` with ``m = p.q`` (the same sum as
    ``sum_x p_x q_x log(q_x / m)``); ``log q_x`` is cached in ``logs``, as rays
    repeat few values (two for the staircase patterns)."""
    mass = _dot(prior, q)
    if mass == 0:
        return iv.mpf(0)
    total = -interval(mass) * iv.log(interval(mass))
    for p, x in zip(prior, q):
        if p and x:
            if x not in logs:
                logs[x] = iv.log(interval(x))
            total += interval(p * x) * logs[x]
    return total


def _divergence(measure: str, z: Fraction, t: Fraction) -> "mpmath.iv.mpf":
    if measure == "tv":
        return interval(abs(z - t) / 2)
    if t == 0:
        return iv.mpf(0) if z == 0 else iv.mpf(mpmath.inf)
    if measure == "chi2":
        return interval((z - t) ** 2 / t)
    return iv.mpf(0) if z == 0 else interval(z) * iv.log(interval(z / t))


@dataclass(frozen=True)
class LPCheck:
    """An LP dual re-checked over every ray.

    Attributes
    ----------
    rays : int
        Extreme rays checked.
    violation : mpmath.mpf
        Upper bound on ``max_r (mu(v_r) - lam.v_r) / (1.v_r)``.
    bound : mpmath.mpf
        ``rhs.lam + max(violation, 0) 1.rhs``: a proven upper bound on the
        utility of every mechanism in the stated cone.
    attained : mpmath.mpf
        Lower bound on the utility of the returned mechanism.
    claimed_gap : float or None
        The gap the record claims (anytime PolyOpt: ``certificate.proven_gap``),
        or None when it claims the optimum.
    """

    rays: int
    violation: mpmath.mpf
    bound: mpmath.mpf
    attained: mpmath.mpf
    claimed_gap: float | None = None

    @property
    def gap(self) -> mpmath.mpf:
        """``bound - attained`` at :data:`DIGITS` digits: how far ``Q`` may be from optimal."""
        with mpmath.workdps(DIGITS):
            return self.bound - self.attained

    @property
    def feasible(self) -> bool:
        """Dual feasible to :data:`FEASIBILITY_TOLERANCE` per unit ray mass."""
        return bool(self.violation <= FEASIBILITY_TOLERANCE)

    @property
    def optimal(self) -> bool:
        """The returned mechanism is within :data:`GAP_TOLERANCE` of a finite bound."""
        return bool(mpmath.isfinite(self.bound)
                    and self.gap <= GAP_TOLERANCE * (1 + abs(self.bound)))

    @property
    def within_claim(self) -> bool:
        """The proven gap is at most the claimed one (a finite bound, a finite claim)."""
        claim = self.claimed_gap
        return bool(claim is not None and math.isfinite(claim) and claim >= 0
                    and mpmath.isfinite(self.bound) and self.gap <= claim)

    @property
    def holds(self) -> bool:
        """Optimal (dual feasible, gap closed), or within the claimed gap when one is claimed."""
        if self.claimed_gap is not None:
            return self.within_claim
        return self.feasible and self.optimal


def _excesses(dual: Sequence[Fraction], rays: list[Ray],
              mu: IntervalUtility) -> list[mpmath.mpf]:
    """Upper bounds on ``(mu(v_r) - lam.v_r) / (1.v_r)`` for every ray."""
    return [upper_mpf((mu(ray) - interval(_dot(dual, ray))) / interval(sum(ray, Fraction(0))))
            for ray in rays]


def _violation(dual: Sequence[Fraction], rays: list[Ray], mu: IntervalUtility) -> mpmath.mpf:
    return max(_excesses(dual, rays, mu), default=mpmath.mpf("-inf"))


def check_lp_dual(dual: Vector, rays: list[Ray], mu: IntervalUtility,
                  rhs: Vector, Q: np.ndarray, claimed_gap: float | None = None) -> LPCheck:
    """Check a cone LP's dual over ``rays`` and bound the optimality gap of ``Q``."""
    with high_precision():
        violation = _violation([Fraction(float(x)) for x in dual], rays, mu)
    return lp_check_at(dual, violation, len(rays), mu, rhs, Q, claimed_gap)


def lp_check_at(dual: Vector, violation: mpmath.mpf, rays: int, mu: IntervalUtility,
                rhs: Vector, Q: np.ndarray, claimed_gap: float | None = None) -> LPCheck:
    """The :class:`LPCheck` of a dual whose ``violation`` is proven (over ``rays`` rays, or
    by a pricing proof): ``bound = rhs.lam + max(violation, 0) 1.rhs``; ``claimed_gap``
    the record's claim, if any (:attr:`LPCheck.holds`)."""
    lam = [Fraction(float(x)) for x in dual]
    b = [Fraction(float(x)) for x in rhs]
    with high_precision():
        correction = iv.mpf(max(violation, 0)) if mpmath.isfinite(violation) \
            else iv.mpf(mpmath.inf)
        bound = upper_mpf(interval(_dot(lam, b)) + correction * interval(sum(b, Fraction(0))))
    return LPCheck(rays, violation, bound, utility_lower_bound(mu, Q),
                   None if claimed_gap is None else float(claimed_gap))


def utility_lower_bound(mu: IntervalUtility, Q: np.ndarray) -> mpmath.mpf:
    """Lower end of ``sum_y mu(Q[:, y])`` in interval arithmetic, ``Q``'s doubles exact."""
    columns = [[Fraction(float(x)) for x in column] for column in np.asarray(Q, float).T]
    with high_precision():
        return mpmath.mp.make_mpf(sum((mu(c) for c in columns), iv.mpf(0))._mpi_[0])


def corrected_dual(dual: Vector, rays: list[Ray], mu: IntervalUtility) -> np.ndarray:
    """``lam + delta 1_A``, dual feasible on ``rays``, as doubles rounded up.

    ``delta`` bounds every ray's excess ``(mu(v_r) - lam.v_r)^+ / (1.v_r)`` and
    ``A`` is the union of the supports of the rays with an excess: each such
    ray gains ``delta 1_A.v_r = delta 1.v_r``, the others lose nothing, and
    inputs outside every violated ray (e.g. of zero mass) keep their multiplier.
    """
    with high_precision():
        excesses = _excesses([Fraction(float(x)) for x in dual], rays, mu)
    violated = [ray for ray, excess in zip(rays, excesses) if excess > 0]
    if not violated:
        return np.asarray(dual, dtype=float)
    delta = mpmath.libmp.to_float(max(excesses)._mpf_, rnd=mpmath.libmp.round_ceiling)
    support = np.array([any(ray[i] for ray in violated) for i in range(len(dual))])
    shifted = [math.nextafter(math.nextafter(float(x) + delta, math.inf), math.inf) if inside
               else float(x) for x, inside in zip(dual, support)]
    return np.array(shifted)
