"""The attained worst case of every robust constraint, by an independent inner solve.

A certified bound says ``sup_{P in F} lhs(P) <= bound``; how tight it is
shows only against a distribution that *attains* a value. For each robust
constraint this module finds a maximiser of the left side without the
certificate's multipliers, realises it as a distribution in ``F`` (checked
for membership), and reports the value there and the gap
``bound - attained``. A negative gap beyond :data:`GAP_TOLERANCE` means the
certificate claims less than a member of ``F`` reaches: it is wrong.

Privacy constraints: the maximisers of every ``(pair, y)`` at once from the
stationarity conditions of Theorem 4 at the batch's own multipliers
(:func:`~rldp_models.uncertainty.pair_support_batch.pair_support_batch`,
vectorised: RURP education x occupation has 3600 constraints, which took
3600 cvxpy solves); where that point cannot be realised in ``F``, a direct
maximisation over Theorem 3's pair projection
(:class:`~rldp_models.privacy.worst_case.PairRatioSubproblem`). The objective:
eq. (2) by the set's own search (:meth:`CertifiableSet.worst_case`). Any
member of ``F`` gives a valid attained value, however it was found.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

from rldp_models.certificates.conic import ConstraintBound
from rldp_models.uncertainty.certifiable import CertifiableSet
from rldp_models.privacy.guarantees import pair_rows
from rldp_models.privacy.worst_case import PairRatioSubproblem, witness_distribution
from rldp_models.results.certificate_record import PRIVACY_GROUP, UTILITY_GROUP
from rldp_models.uncertainty.chi_square import ChiSquareSet
from rldp_models.uncertainty.pair_support_batch import pair_support_batch

GAP_TOLERANCE = 1e-7
"""Largest accepted ``attained - bound`` (the inner solve's accuracy, relative to 1 + |bound|)."""


@dataclass(frozen=True)
class AttainedWorstCase:
    """A constraint's certified bound against the value at a distribution in ``F``.

    Attributes
    ----------
    name : str
    certified : float
        The certificate's bound on ``sup_F lhs``.
    attained : float
        ``lhs`` at ``distribution`` (NaN when no member of ``F`` was found).
    distribution : ndarray or None
        ``P[s, u]`` in ``F``.
    """

    name: str
    certified: float
    attained: float
    distribution: np.ndarray | None

    @property
    def gap(self) -> float:
        """``certified - attained``: how much the bound may overstate the worst case."""
        return self.certified - self.attained

    @property
    def consistent(self) -> bool:
        """The bound is not beaten by the attained value (beyond the inner solve's accuracy)."""
        return not self.attained > self.certified + GAP_TOLERANCE * (1 + abs(self.certified))


def privacy_worst_cases(protocol: np.ndarray, uncertainty: ChiSquareSet, eps: float,
                        bounds: list[ConstraintBound]) -> list[AttainedWorstCase]:
    """Maximise ``P(y|s1,.).R1 - e^eps P(y|s2,.).R2`` over ``F_{U|s1,s2}`` for every bound."""
    n_s, n_u = uncertainty.phat.shape
    blocks = protocol.reshape(n_s, n_u, -1)
    n_y = blocks.shape[2]
    by_name = {b.name: b for b in bounds}
    pairs = list(itertools.permutations(range(n_s), 2))
    rows = pair_rows(protocol, uncertainty, eps, pairs)
    batch = pair_support_batch(rows.v1, rows.v2, rows.p1, rows.p2, rows.rho)
    sub = None
    found = []
    for index, ((s1, s2), y) in enumerate(itertools.product(pairs, range(n_y))):
        bound = by_name.get(f"{PRIVACY_GROUP}[{s1},{s2}] y={y}")
        if bound is None:
            continue
        a, b = rows.v1[index], -rows.v2[index]
        p = _realised(uncertainty, s1, s2, batch.r1[index], batch.r2[index])
        if p is None:
            if sub is None:
                sub = PairRatioSubproblem(n_u)
            pair = uncertainty.pair(s1, s2)
            sub.set_pair(pair.rows, pair.rho)
            maximiser = sub.maximise(a, b)
            p = None if maximiser is None else witness_distribution(uncertainty, s1, s2,
                                                                    *maximiser)
        attained = np.nan if p is None else _pair_value(p, s1, s2, a, b)
        found.append(AttainedWorstCase(bound.name, float(bound.bound), attained, p))
    return found


def _realised(uncertainty: ChiSquareSet, s1: int, s2: int, r1: np.ndarray,
              r2: np.ndarray) -> np.ndarray | None:
    """``(r1, r2)`` as a distribution in ``F``, or None (not finite, empty, or not realisable)."""
    if not (np.all(np.isfinite(r1)) and np.all(np.isfinite(r2)) and r1.sum() > 0
            and r2.sum() > 0):
        return None
    return witness_distribution(uncertainty, s1, s2, np.clip(r1, 0, None),
                                np.clip(r2, 0, None))


def _pair_value(p: np.ndarray, s1: int, s2: int, a: np.ndarray, b: np.ndarray) -> float:
    q1, q2 = p[s1] / p[s1].sum(), p[s2] / p[s2].sum()
    return float(a @ q1 - b @ q2)


def objective_worst_case(region: CertifiableSet, v: np.ndarray,
                         bound: ConstraintBound) -> AttainedWorstCase:
    """``max_{P in F} v.P`` by the set's own worst-case search, against the certified bound."""
    p = np.asarray(region.worst_case(v)[0], dtype=float)
    return AttainedWorstCase(UTILITY_GROUP, float(bound.bound), float(np.ravel(p) @ v), p)
