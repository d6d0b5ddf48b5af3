"""Certificates of the chi-square programs (NURP, RUNP, RURP), re-checked in high precision.

A solve result keeps, per robust constraint, the multipliers of its conic
form (``certificate.multipliers``):

* ``robust_privacy[s1,s2]``: ``c`` (``|Y|``) and ``t`` (``2 x |Y|``) of
  Theorem 4 (eq. 29) for ``delta*(P(y|s1,.), -e^eps P(y|s2,.) | F_{U|s1,s2}) <= 0``
  (eq. 30), one column per output ``y``;
* ``robust_utility``: ``t`` and ``c`` of Theorem 2 (eq. 21) for
  ``delta*(v | F) <= D``, ``v`` the expected distortion per cell (eq. 22)
  and ``D`` the recorded objective.

Each expression is evaluated at the stored multipliers in interval
arithmetic with :data:`~rldp_models.precision.DIGITS` digits,
the protocol's doubles and ``counts / n`` taken exactly; by weak duality the
value bounds the worst case over ``F`` from above whatever the multipliers.
A privacy constraint is certified when its bound is ``<= 0``; the objective
when its bound is at most the recorded ``D`` up to
:data:`OBJECTIVE_TOLERANCE` (relative to ``1 + |D|``).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from fractions import Fraction

import mpmath
import numpy as np

from rldp_models.certificates.sets import ChiSquareCertifiable
from rldp_models.exact import interval, iv
from rldp_models.precision import DIGITS, high_precision, upper_mpf
from rldp_models.privacy.guarantees import theorem4_upper_bound
from rldp_models.progress import progress
from rldp_models.results.certificate_record import PRIVACY_GROUP, UTILITY_GROUP

OBJECTIVE_TOLERANCE = 1e-9
"""Accepted excess of the certified objective bound over the recorded objective."""



@dataclass(frozen=True)
class ConstraintBound:
    """One robust constraint ``sup_F lhs <= rhs`` and its certified bound on ``sup_F lhs``."""

    name: str
    bound: mpmath.mpf
    rhs: float
    tolerance: float = 0.0

    @property
    def violation(self) -> mpmath.mpf:
        """``bound - rhs`` (at :data:`DIGITS` digits): ``<= tolerance`` when the certificate
        proves the constraint."""
        with mpmath.workdps(DIGITS):
            return self.bound - self.rhs

    @property
    def holds(self) -> bool:
        return bool(self.violation <= self.tolerance)


@dataclass(frozen=True)
class ConicCheck:
    """Every robust constraint's certified bound at the stored multipliers.

    Attributes
    ----------
    constraints : tuple of ConstraintBound
        Privacy constraints (``rhs = 0``) and, for a robust objective, the
        objective (``rhs = D``).
    missing : tuple of str
        Robust constraint groups the certificate has no multipliers for.
    """

    constraints: tuple[ConstraintBound, ...]
    missing: tuple[str, ...]

    @property
    def holds(self) -> bool:
        return not self.missing and all(c.holds for c in self.constraints)

    @property
    def worst(self) -> ConstraintBound | None:
        """The constraint with the largest violation beyond its tolerance."""
        return max(self.constraints, key=lambda c: c.violation - c.tolerance, default=None)


def privacy_bounds(protocol: np.ndarray, counts: np.ndarray, radius: float, eps: float,
                   multipliers: dict) -> tuple[list[ConstraintBound], list[str]]:
    """Theorem 4 bounds of eq. (30) for every ``(s1, s2, y)`` at the stored ``(c, t)``."""
    n_s, n_u = counts.shape
    n = int(counts.sum())
    blocks = protocol.reshape(n_s, n_u, -1)
    joint = [[Fraction(int(c), n) for c in row] for row in counts]
    bounds, missing = [], []
    with high_precision():
        factor = iv.exp(interval(eps))
        root = iv.sqrt(interval(radius) + 1)
        pairs = list(itertools.permutations(range(n_s), 2))
        for s1, s2 in progress(pairs, desc="rldp verify: privacy bounds", unit="pair"):
            group = f"{PRIVACY_GROUP}[{s1},{s2}]"
            values = multipliers.get(group)
            if values is None or not {"c", "t"} <= set(values):
                missing.append(group)
                continue
            c = np.asarray(values["c"], dtype=float).reshape(-1)
            t = np.asarray(values["t"], dtype=float).reshape(2, -1)
            rows = [joint[s1], joint[s2]]
            rho = root - 1 + interval(sum(rows[0], Fraction(0)) + sum(rows[1], Fraction(0)))
            for y in range(blocks.shape[2]):
                bound = theorem4_upper_bound(blocks[s1, :, y], factor, blocks[s2, :, y], rows,
                                             rho, float(c[y]), (float(t[0, y]), float(t[1, y])))
                bounds.append(ConstraintBound(f"{group} y={y}", upper_mpf(bound), 0.0))
    return bounds, missing


def expected_distortion(protocol: np.ndarray, distortion: np.ndarray,
                        n_s: int) -> list[Fraction]:
    """``v_x = sum_y P(y|x) d(u(x), y)`` per cell ``x = (s, u)`` (eq. 22), exactly."""
    d = np.tile(np.asarray(distortion, dtype=float), (n_s, 1))
    return [sum((Fraction(float(p)) * Fraction(float(w)) for p, w in zip(row, weights)),
                Fraction(0)) for row, weights in zip(protocol, d)]


def objective_bound(protocol: np.ndarray, counts: np.ndarray, radius: float,
                    distortion: np.ndarray, objective: float,
                    multipliers: dict) -> ConstraintBound | None:
    """Theorem 2's bound on the worst-case distortion at the stored ``(t, c)``, or None."""
    values = multipliers.get(UTILITY_GROUP)
    if values is None:
        return None
    v = expected_distortion(protocol, distortion, counts.shape[0])
    bound = ChiSquareCertifiable(counts, radius).certified_support_bound(v, values)
    return ConstraintBound(UTILITY_GROUP, bound, float(objective),
                           OBJECTIVE_TOLERANCE * (1 + abs(float(objective))))


def check_conic_certificate(protocol: np.ndarray, counts: np.ndarray, radius: float, eps: float,
                            multipliers: dict, *, robust_privacy: bool,
                            robust_objective: tuple[np.ndarray, float] | None) -> ConicCheck:
    """Re-check a chi-square program's certificate (see the module docstring).

    Parameters
    ----------
    protocol : ndarray, shape (|S||U|, |Y|)
    counts : ndarray, shape (|S|, |U|)
    radius : float
        ``B`` of the set.
    eps : float
    multipliers : dict
        ``certificate.multipliers`` of the result.
    robust_privacy : bool
        Whether the program has the robust privacy constraints (NURP, RURP).
    robust_objective : (distortion matrix, recorded objective) or None
        For RUNP and RURP.
    """
    constraints: list[ConstraintBound] = []
    missing: list[str] = []
    if robust_privacy:
        constraints, missing = privacy_bounds(protocol, counts, radius, eps, multipliers)
    if robust_objective is not None:
        bound = objective_bound(protocol, counts, radius, *robust_objective, multipliers)
        if bound is None:
            missing.append(UTILITY_GROUP)
        else:
            constraints.append(bound)
    return ConicCheck(tuple(constraints), tuple(missing))
