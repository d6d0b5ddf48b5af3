"""Proven optimality gaps of the protocol programs (NUNP ... RURP): the bounds, their data and
their ball arithmetic, shared by the producer (:mod:`.lagrangian_dual`) and ``rldp verify``
(:mod:`rldp_models.certificates.optimality`).

**Lower bound** (weak Lagrangian duality). Write the program as
``min_P f(P)`` over row-stochastic ``P`` subject to privacy constraints
``g_k(P) <= 0``. For any multipliers ``lambda_k >= 0``,
``OPT >= min_P f(P) + sum_k lambda_k g_k(P)``. Every robust term is a
support function, ``sup_{p in S} p . L(P)`` with ``L`` linear, and a
supremum is at least its value at any member of ``S``; so, with one member
per robust term,

``OPT >= min_{P row-stochastic} sum_{x,y} C[x, y] P[x, y] = sum_x min_y C[x, y]``

where ``C`` collects

* the objective: ``Phat_x d(u_x, y)`` (nominal, eq. 7), or ``p0_x d(u_x, y)``
  with ``p0`` a member of the chi-square set ``F`` (robust, eq. 9; membership
  ``sum Phat^2 / p0 <= B + 1``, eq. 2);
* each robust privacy term ``(s1, s2, y)`` (eq. 30): ``lambda p1(u)`` on
  ``P[(s1, u), y]`` and ``-lambda e^eps p2(u)`` on ``P[(s2, u), y]``, with
  ``(p1, p2)`` a member of the pair projection ``F_{U|s1,s2}`` — Theorem 3
  (eq. 28): ``sum_i sqrt(sum_u Phat_{s_i,u}^2 / p_i(u)) <= sqrt(B+1) - 1 +
  Phat_{s1} + Phat_{s2}``;
* each nominal privacy row (eq. 6): the same with ``p_i`` the empirical
  conditional ``Phat_{U|s_i}`` (or the unit vector of one ``u`` for a secret
  without records).

This is the conic dual with its free part solved exactly: on the columns of
the unbounded multipliers (``t``, ``c``, ``r``, ``q``, ``b`` of Theorems 2
and 4) dual feasibility says precisely that the dual's action on the protocol
is ``lambda`` times a member of the set, so the multipliers' dual components
are replaced by a member whose membership is *proved*, and the only residual
left is on the protocol, which is bounded (each row is a distribution) and
absorbed by ``min_y``. The solver's dual gives the ``lambda`` and the members
(:mod:`.lagrangian_dual`).

Everything is evaluated in ball arithmetic (python-flint ``arb``, :data:`BITS`
bits): ``Phat = counts / n`` and the conditionals as exact rationals,
``e^eps`` and the square roots enclosed, stored numbers as the exact
rationals their doubles are, members normalised to sum to 1 exactly (as
balls). The stored lower bound is rounded down, the upper bound up.

**Upper bound** on the returned protocol's objective: the nominal objective
exactly; the robust objective by Theorem 2 at the certificate's multipliers
(``ChiSquareCertifiable.certified_support_bound``, 60-digit intervals).

**Gap** ``upper - lower`` (rounded up), relative to ``max(1, |upper|)``.

**Other sets** (KL, l1/TV, box, polyhedral, power divergence; ``Instance.uncertainty``).
Robust privacy is then the product of single-secret projections ``C_s1 x C_s2``
((**) of :mod:`rldp_models.uncertainty.base`, a sufficient condition) and the
gap is that model's (the verdict says so). A member of ``C_s`` is the
conditional at ``s`` of a joint member of the set: the dual stores a ``pool`` of
joint members, each proved to lie in the set (:mod:`.set_members`), and per
term its two ``witnesses``. The robust objective's upper bound is the set's own
certified support bound.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import flint
import numpy as np

from rldp_models.distortion import expected_distortion
from rldp_models.optimality.set_members import exact_distribution, proved_member, provable
from rldp_models.uncertainty.certifiable import ChiSquareCertifiable

BITS = 128
"""Precision of the balls."""

VERSION = 1
MODEL = "chi-square set; robust privacy over the exact pair projection (Theorem 3)"
NOMINAL_MODEL = "nominal program (an LP: no uncertainty set)"
PRODUCT_MODEL = ("{name} set; robust privacy over the product of single-secret projections "
                 "C_s1 x C_s2 (a sufficient condition, (**) of uncertainty.base)")
SET_MODEL = "{name} set; robust objective, nominal privacy"
PRODUCT_QUALIFIER = " for the product-of-projections model"
"""Said in the verdict when the proven gap is that of the product model, not the exact one."""
MATCH_TOLERANCE = 1e-12
"""Accepted relative disagreement between a stored bound and the recomputed one (the
stored one is the recomputed ball's endpoint rounded outward to a double)."""
UTILITY_GROUP = "robust_utility"
"""The multiplier group of a robust objective (the certificate's multipliers of Theorem 2's
``(t, c)``, read by :func:`upper_bound`)."""


@dataclass(frozen=True)
class Instance:
    """The data a program's optimal value depends on.

    Attributes
    ----------
    counts : ndarray of int, shape (|S|, |U|)
    radius : float
        ``B`` of the chi-square set (ignored by nominal programs).
    eps : float
    distortion : ndarray, shape (|U|, |Y|)
    robust_utility, robust_privacy : bool
    uncertainty : UncertaintySet, optional
        The set when it is not chi-square (KL, TV, box, polyhedral, power
        divergence): members are then proved to lie in it
        (:mod:`.set_members`) and robust privacy is the product model.
    """

    counts: np.ndarray
    radius: float
    eps: float
    distortion: np.ndarray
    robust_utility: bool
    robust_privacy: bool
    uncertainty: Any = None

    @property
    def product(self) -> bool:
        """Whether the set is not chi-square (robust privacy is then the product model)."""
        return self.uncertainty is not None and (self.robust_utility or self.robust_privacy)

    @property
    def model(self) -> str:
        if not (self.robust_utility or self.robust_privacy):
            return NOMINAL_MODEL
        if not self.product:
            return MODEL if self.robust_privacy else SET_MODEL.format(name="chi-square")
        name = str(getattr(self.uncertainty, "name", type(self.uncertainty).__name__))
        return (PRODUCT_MODEL if self.robust_privacy else SET_MODEL).format(name=name)


@dataclass(frozen=True)
class LagrangianDual:
    """Multipliers and members of the sets (see the module docstring).

    Attributes
    ----------
    terms : ndarray of int, shape (k, 5)
        ``(s1, s2, y, u1, u2)`` per privacy term; ``u_i = -1`` means the side is
        a member (robust) or the empirical conditional (nominal), ``u_i >= 0``
        the unit vector of that ``u`` (nominal privacy of a secret without records).
    weights : ndarray, shape (k,)
        ``lambda >= 0`` per term.
    sides : ndarray, shape (k, 2, |U|) or None
        ``(p1, p2)`` per robust term (normalised when read); None for nominal privacy.
    objective_members : ndarray, shape (m, |S||U|) or None
        Members ``p0_j`` of F for a robust objective (each normalised when read).
    objective_shares : ndarray, shape (m,) or None
        Their weights ``a_j >= 0`` (normalised to sum to 1 when read): the objective
        is at least ``sum_j a_j p0_j . v`` (a mixture of members is a member).
    pool : ndarray, shape (w, |S||U|) or None
        Product model: joint members of the set (each normalised and proved when
        read); a term's side ``i`` is the conditional at ``s_i`` of its witness,
        a member of ``C_{s_i}`` by definition.
    witnesses : ndarray of int, shape (k, 2) or None
        Product model: the pool rows of each term's two sides.
    """

    terms: np.ndarray
    weights: np.ndarray
    sides: np.ndarray | None = None
    objective_members: np.ndarray | None = None
    objective_shares: np.ndarray | None = None
    pool: np.ndarray | None = None
    witnesses: np.ndarray | None = None

    def to_json(self) -> dict[str, Any]:
        def listed(values: np.ndarray | None) -> list | None:
            return None if values is None else values.tolist()

        stored = {"terms": self.terms.tolist(), "weights": self.weights.tolist(),
                  "sides": listed(self.sides),
                  "objective_members": listed(self.objective_members),
                  "objective_shares": listed(self.objective_shares)}
        if self.pool is not None:
            stored.update(pool=listed(self.pool), witnesses=listed(self.witnesses))
        return stored

    @classmethod
    def from_json(cls, value: dict[str, Any]) -> "LagrangianDual":
        """Read a stored dual; shapes are checked by :func:`lower_bound`."""
        def array(key: str) -> np.ndarray | None:
            found = value.get(key)
            return None if found is None else np.asarray(found, dtype=float)

        terms = np.asarray(value.get("terms", []), dtype=np.int64).reshape(-1, 5)
        witnesses = value.get("witnesses")
        return cls(terms, np.asarray(value.get("weights", []), dtype=float).reshape(-1),
                   array("sides"), array("objective_members"), array("objective_shares"),
                   array("pool"),
                   None if witnesses is None else np.asarray(witnesses, dtype=np.int64))


@dataclass
class Bound:
    """A proven bound as a ball and the reasons it could not be proved (empty: proved)."""

    value: Any  # flint.arb
    problems: list[str] = field(default_factory=list)

    @property
    def proved(self) -> bool:
        return not self.problems and self.value.is_finite()


@dataclass(frozen=True)
class OptimalityClaim:
    """Both bounds and the gap, as stored in ``certificate.optimality``."""

    model: str
    lower: float
    upper: float
    dual: LagrangianDual
    seconds: float = 0.0

    @property
    def gap(self) -> float:
        return float_above(flint.arb(self.upper) - flint.arb(self.lower))

    @property
    def relative_gap(self) -> float:
        return relative(self.gap, self.upper)

    def to_json(self) -> dict[str, Any]:
        return {"version": VERSION, "claimed": True, "bound": "lagrangian", "model": self.model,
                "lower": self.lower, "upper": self.upper, "gap": self.gap,
                "relative_gap": self.relative_gap, "seconds": self.seconds,
                "dual": self.dual.to_json()}


def relative(gap: float, upper: float) -> float:
    """``gap / max(1, |upper|)`` rounded up: issue 34's relative gap (the contract).

    Objectives here are often below 1 in size (a distortion of 0.02), where a ratio to
    ``|upper|`` would magnify a gap of rounding size; at ``|upper| <= 1`` the gap is
    stated absolutely, above it relatively.
    """
    return float_above(flint.arb(gap) / max(1.0, abs(float(upper))))


def not_claimed(reason: str) -> dict[str, Any]:
    """The ``certificate.optimality`` of a result that claims no gap, with the reason."""
    return {"version": VERSION, "claimed": False, "reason": reason}


# ---------------------------------------------------------------------- the bounds
def lower_bound(instance: Instance, dual: LagrangianDual) -> Bound:
    """``sum_x min_y C[x, y]`` for the dual (module docstring), as a ball.

    Every member is checked; a term whose member is not proved to lie in its
    set, a negative weight or a malformed entry makes the bound unproved
    (``problems``) — nothing is repaired here.
    """
    with flint.ctx.workprec(BITS):
        data = InstanceBalls(instance)
        problems = _shape_problems(instance, dual)
        if problems:
            return Bound(flint.arb("nan"), problems)
        C = data.objective_coefficients(dual, problems)
        for k, (s1, s2, y, u1, u2) in enumerate(dual.terms.tolist()):
            weight = _ball(dual.weights[k])
            if not weight >= 0:
                problems.append(f"term {k} (s1={s1}, s2={s2}, y={y}) has a negative weight")
                continue
            if weight == 0:
                continue
            sides = data.term_sides(dual, k, (s1, s2, u1, u2), problems)
            if sides is None:
                continue
            for u in range(data.n_u):
                C[s1 * data.n_u + u][y] += weight * sides[0][u]
                C[s2 * data.n_u + u][y] -= weight * data.factor * sides[1][u]
        total = flint.arb(0)
        for row in C:
            total += _smallest_lower_end(row)
        return Bound(total, problems)


def upper_bound(instance: Instance, protocol: np.ndarray, multipliers: dict) -> Bound:
    """The returned protocol's objective: exact (nominal) or Theorem 2's bound (robust)."""
    with flint.ctx.workprec(BITS):
        if not instance.robust_utility:
            data = InstanceBalls(instance)
            total = flint.arb(0)
            weights = np.tile(instance.distortion, (instance.counts.shape[0], 1))
            for x, (row, d) in enumerate(zip(protocol.tolist(), weights.tolist())):
                cell = sum((_ball(p) * _ball(w) for p, w in zip(row, d)), flint.arb(0))
                total += data.phat[x] * cell
            return Bound(total)
        if instance.product:
            return _set_objective_bound(instance, protocol)
        values = multipliers.get(UTILITY_GROUP)
        if values is None:
            return Bound(flint.arb("nan"), ["no multipliers of the robust objective"])
        v = expected_distortion(protocol, instance.distortion, instance.counts.shape[0])
        bound = ChiSquareCertifiable(instance.counts, instance.radius).certified_support_bound(
            v, values)  # Theorem 2 at the stored (t, c), 60-digit intervals
        return Bound(flint.arb(_up_mpf(bound)))


def _set_objective_bound(instance: Instance, protocol: np.ndarray) -> Bound:
    """``sup_{p in F} p . v`` with ``v_x = sum_y Q[x, y] d[u_x, y]`` taken exactly (rationals),
    bounded by the set's own certified dual (``certified_support_bound`` at its multipliers)."""
    uncertainty = instance.uncertainty
    weights = np.tile(instance.distortion, (instance.counts.shape[0], 1))
    exact = np.array([sum((Fraction(float(q)) * Fraction(float(d)) for q, d in zip(row, w)),
                          Fraction(0)) for row, w in zip(protocol.tolist(), weights.tolist())],
                     dtype=object)
    approximate = np.array([float(v) for v in exact])
    try:
        bound = uncertainty.certified_support_bound(
            exact, uncertainty.support_multipliers(approximate))
    except (ValueError, ArithmeticError) as exc:
        return Bound(flint.arb("nan"), [f"the {uncertainty.name} set's support bound failed "
                                        f"({exc})"])
    return Bound(flint.arb(_up_mpf(bound)))


def claim(instance: Instance, dual: LagrangianDual, protocol: np.ndarray,
          multipliers: dict, seconds: float = 0.0) -> OptimalityClaim | dict[str, Any]:
    """Both bounds as a stored claim, or :func:`not_claimed` with what failed."""
    low, high = lower_bound(instance, dual), upper_bound(instance, protocol, multipliers)
    if not low.proved or not high.proved:
        return not_claimed("; ".join(low.problems + high.problems) or "a bound is not finite")
    return OptimalityClaim(instance.model, float_below(low.value), float_above(high.value), dual,
                           seconds)


# ---------------------------------------------------------------------- balls
def _ball(value: float) -> Any:
    """The exact rational a double is, as a ball of radius 0: a double is a dyadic rational,
    which ``arb`` holds exactly at any precision (7x faster than through ``fmpq``)."""
    value = float(value)
    if not math.isfinite(value):
        raise ValueError(f"{value} is not a finite number")
    return flint.arb(value)


def _smallest_lower_end(row: list[Any]) -> Any:
    """``min`` of the balls' lower ends (exact points, so compared exactly)."""
    smallest = row[0].lower()
    for entry in row[1:]:
        end = entry.lower()
        if end < smallest:
            smallest = end
    return smallest


def float_below(ball: Any) -> float:
    """A double at or below every point of ``ball`` (its lower end, one step down)."""
    return float(np.nextafter(float(ball.lower()), -np.inf))


def float_above(ball: Any) -> float:
    """A double at or above every point of ``ball`` (its upper end, one step up)."""
    return float(np.nextafter(float(ball.upper()), np.inf))


def _up_mpf(value: Any) -> float:
    return float(np.nextafter(float(value), np.inf))


def _shape_problems(instance: Instance, dual: LagrangianDual) -> list[str]:
    n_s, n_u = instance.counts.shape
    n_y = instance.distortion.shape[1]
    problems = []
    terms = dual.terms
    if dual.weights.shape != (terms.shape[0],):
        problems.append("the dual has not one weight per term")
    if terms.size and ((terms[:, :2] < 0).any() or (terms[:, :2] >= n_s).any()
                       or (terms[:, 0] == terms[:, 1]).any() or (terms[:, 2] < 0).any()
                       or (terms[:, 2] >= n_y).any() or (terms[:, 3:] < -1).any()
                       or (terms[:, 3:] >= n_u).any()):
        problems.append("a term names a secret, output or value outside this instance")
    elif terms.size and _not_the_programs_rows(instance, terms):
        problems.append("a term is not a constraint of this program (a unit side u is only "
                        "for nominal privacy of a secret without records)")
    if instance.product and not provable(instance.uncertainty):
        problems.append(f"membership in the {type(instance.uncertainty).__name__} cannot be "
                        "proved by this certificate")
    if instance.robust_privacy and instance.product:
        problems += _pool_problems(dual, terms.shape[0], n_s * n_u)
    # with no privacy term left (every weight dropped) there are no members to check
    elif instance.robust_privacy and terms.shape[0] and (
            dual.sides is None or dual.sides.shape != (terms.shape[0], 2, n_u)):
        problems.append(f"the members of the pair projections are not {terms.shape[0]} x 2 x "
                        f"{n_u} (a dual of another instance?)")
    members, shares = dual.objective_members, dual.objective_shares
    if instance.robust_utility and (members is None or shares is None or members.ndim != 2
                                    or members.shape[1] != n_s * n_u
                                    or shares.shape != (members.shape[0],)):
        problems.append(f"the objective's members of F are not vectors of {n_s * n_u} with "
                        "one share each (a dual of another instance?)")
    if not np.all(np.isfinite(dual.weights)) or (dual.sides is not None and not np.all(
            np.isfinite(dual.sides))):
        problems.append("the dual has non-finite entries")
    return problems


def _pool_problems(dual: LagrangianDual, k: int, size: int) -> list[str]:
    """The product model's witnesses: a pool of joint vectors and two valid rows per term."""
    pool, witnesses = dual.pool, dual.witnesses
    if pool is None or witnesses is None or pool.ndim != 2 or pool.shape[1] != size \
            or witnesses.shape != (k, 2):
        return [f"the product model's witnesses are not a pool of vectors of {size} with two "
                "rows per term (a dual of another instance?)"]
    if witnesses.size and ((witnesses < 0).any() or (witnesses >= pool.shape[0]).any()):
        return ["a term names a witness outside the pool"]
    if not np.all(np.isfinite(pool)):
        return ["the dual has non-finite entries"]
    return []


def _not_the_programs_rows(instance: Instance, terms: np.ndarray) -> bool:
    """Whether a term's sides differ from the program's: robust terms have members on both
    sides (``u = -1``); a nominal row has the conditional (``u = -1``) of a secret with
    records and one unit vector (``u >= 0``) of a secret without (eq. 6 at every u)."""
    if instance.robust_privacy:
        return bool((terms[:, 3:] != -1).any())
    without = instance.counts.sum(axis=1) == 0
    unit = terms[:, 3:] >= 0
    return bool((unit != without[terms[:, :2]]).any())


class InstanceBalls:
    """The instance's data as balls: ``Phat``, conditionals, ``e^eps``, ``sqrt(B + 1)``."""

    def __init__(self, instance: Instance) -> None:
        self.instance = instance
        counts = instance.counts.astype(np.int64)
        self.n_s, self.n_u = counts.shape
        self.n_y = instance.distortion.shape[1]
        n = int(counts.sum())
        self.counts = counts.tolist()
        self.phat = [flint.arb(flint.fmpq(int(c), n)) for c in counts.ravel()]
        self.secret_mass = [flint.arb(flint.fmpq(int(sum(row)), n)) for row in self.counts]
        self.factor = _ball(instance.eps).exp()
        self.root = (_ball(instance.radius) + 1).sqrt() if math.isfinite(instance.radius) \
            else flint.arb("nan")  # a polyhedron's radius may be undefined (unused then)
        self._conditionals: dict[int, list[Any] | None] = {}

    def objective_coefficients(self, dual: LagrangianDual,
                               problems: list[str]) -> list[list[Any]]:
        """``C`` of the objective alone: ``Phat_x d`` or ``sum_j a_j p0_j[x] d`` with every
        ``p0_j`` in F."""
        weights = self.phat
        if self.instance.robust_utility:
            weights = self._mixture(dual.objective_members, dual.objective_shares, problems)
        d = np.tile(self.instance.distortion, (self.n_s, 1)).tolist()
        return [[w * _ball(entry) for entry in row] for w, row in zip(weights, d)]

    def _mixture(self, members: np.ndarray | None, shares: np.ndarray | None,
                 problems: list[str]) -> list[Any]:
        mixture = [flint.arb(0)] * len(self.phat)
        share_balls = normalised(shares)
        if members is None or share_balls is None:
            problems.append("the objective members' shares are not >= 0 with a positive sum")
            return mixture
        for j, (member, share) in enumerate(zip(members, share_balls)):
            balls = self.set_member(member) if self.instance.product else normalised(member)
            if balls is None or not (self.instance.product or self.in_chi_square_set(balls)):
                problems.append(f"objective member {j} is not proved to lie in F")
                continue
            mixture = [m + share * b for m, b in zip(mixture, balls)]
        return mixture

    def term_sides(self, dual: LagrangianDual, k: int, term: tuple[int, int, int, int],
                   problems: list[str]) -> list[list[Any]] | None:
        """``(p1, p2)`` of term ``k`` as balls: members (robust) or data (nominal)."""
        s1, s2, u1, u2 = term
        if self.instance.robust_privacy and self.instance.product:
            assert dual.witnesses is not None  # checked by _shape_problems
            first, second = (self.conditional(int(dual.witnesses[k, i]), s, dual)
                             for i, s in ((0, s1), (1, s2)))
            if first is None or second is None:
                problems.append(f"a witness of term {k} (s1={s1}, s2={s2}) is not proved to "
                                "lie in the set, or has no mass on its secret")
                return None
            return [first, second]
        if self.instance.robust_privacy:
            first, second = (None, None) if dual.sides is None else \
                (normalised(dual.sides[k, 0]), normalised(dual.sides[k, 1]))
            if first is None or second is None or \
                    not self.in_pair_projection(s1, s2, [first, second]):
                problems.append(f"the member of term {k} (s1={s1}, s2={s2}) is not proved to "
                                "lie in the pair projection (Theorem 3)")
                return None
            return [first, second]
        return [self._nominal_side(s1, u1), self._nominal_side(s2, u2)]

    def set_member(self, values: np.ndarray) -> list[Any] | None:
        """``values`` normalised exactly, as balls, when proved to lie in the (non chi-square)
        set (:mod:`.set_members`); None otherwise."""
        exact = exact_distribution(values)
        if exact is None or not proved_member(self.instance.uncertainty, exact):
            return None
        return [flint.arb(q) for q in exact]

    def conditional(self, row: int, s: int, dual: LagrangianDual) -> list[Any] | None:
        """``P(. | s)`` of the pool's witness ``row``: a member of ``C_s`` when the witness is
        proved to lie in the set and has mass on ``s`` (exact rationals, then balls)."""
        if row not in self._conditionals:
            assert dual.pool is not None
            exact = exact_distribution(dual.pool[row])
            member = exact is not None and proved_member(self.instance.uncertainty, exact)
            self._conditionals[row] = exact if member else None
        exact = self._conditionals[row]
        if exact is None:
            return None
        block = exact[s * self.n_u:(s + 1) * self.n_u]
        mass = sum(block, flint.fmpq(0))
        if mass == 0:
            return None
        return [flint.arb(q / mass) for q in block]

    def _nominal_side(self, s: int, u: int) -> list[Any]:
        if u >= 0:
            return [flint.arb(int(v == u)) for v in range(self.n_u)]
        total = sum(self.counts[s])
        if total == 0:
            return [flint.arb("nan")] * self.n_u  # only unit vectors describe such a side
        return [flint.arb(flint.fmpq(int(c), total)) for c in self.counts[s]]

    def in_chi_square_set(self, p: list[Any] | None) -> bool:
        """``sum_x Phat_x^2 / p_x <= B + 1`` (eq. 2), proved; cells with no records drop out.
        False for no member (``None``: not a distribution)."""
        if p is None:
            return False
        total = flint.arb(0)
        for weight, value in zip(self.phat, p):
            if weight == 0:
                continue
            if not value > 0:
                return False
            total += weight * weight / value
        return bool(total <= self.root * self.root)

    def in_pair_projection(self, s1: int, s2: int, sides: list[list[Any] | None]) -> bool:
        """Theorem 3 (eq. 28), proved (False when a side is not a distribution, ``None``)."""
        total = flint.arb(0)
        for s, side in ((s1, sides[0]), (s2, sides[1])):
            if side is None:
                return False
            spread = flint.arb(0)
            for u in range(self.n_u):
                weight = self.phat[s * self.n_u + u]
                if weight == 0:
                    continue
                if not side[u] > 0:
                    return False
                spread += weight * weight / side[u]
            total += spread.sqrt() if spread > 0 else flint.arb(0)
        return bool(total <= self.root - 1 + self.secret_mass[s1] + self.secret_mass[s2])


def normalised(values: np.ndarray | None) -> list[Any] | None:
    """``values / sum(values)`` as balls; None unless every entry is >= 0 and the sum > 0."""
    if values is None or not np.all(values >= 0) or not math.fsum(values) > 0:
        return None
    balls = [_ball(v) for v in values]
    total = sum(balls, flint.arb(0))
    return [b / total for b in balls]
