"""The attained worst case of every robust constraint, by an independent inner solve.

A certified bound says ``sup_{P in F} lhs(P) <= bound``; how tight it is
shows only against a distribution that *attains* a value. For each robust
constraint this module maximises the left side directly over the set's own
description — Theorem 3's pair projection for the privacy constraints
(:class:`~rldp_models.privacy.worst_case.PairRatioSubproblem`) and eq. (2)
for the objective (:meth:`CertifiableSet.worst_case`) — without the support
function or the multipliers, realises the maximiser as a distribution in
``F`` (checked for membership), and reports the value there and the gap
``bound - attained``. A negative gap beyond :data:`GAP_TOLERANCE` means the
certificate claims less than a member of ``F`` reaches: it is wrong.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

from rldp_models.certificates.conic import ConstraintBound
from rldp_models.certificates.sets import CertifiableSet
from rldp_models.privacy.worst_case import PairRatioSubproblem, witness_distribution
from rldp_models.results.certificate_record import PRIVACY_GROUP, UTILITY_GROUP
from rldp_models.uncertainty.chi_square import ChiSquareSet

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
    by_name = {b.name: b for b in bounds}
    sub = PairRatioSubproblem(n_u)
    found = []
    for s1, s2 in itertools.permutations(range(n_s), 2):
        pair = uncertainty.pair(s1, s2)
        sub.set_pair(pair.rows, pair.rho)
        for y in range(blocks.shape[2]):
            bound = by_name.get(f"{PRIVACY_GROUP}[{s1},{s2}] y={y}")
            if bound is None:
                continue
            a, b = blocks[s1, :, y], np.exp(eps) * blocks[s2, :, y]
            maximiser = sub.maximise(a, b)
            p = None if maximiser is None else witness_distribution(uncertainty, s1, s2,
                                                                    *maximiser)
            attained = np.nan if p is None else _pair_value(p, s1, s2, a, b)
            found.append(AttainedWorstCase(bound.name, float(bound.bound), attained, p))
    return found


def _pair_value(p: np.ndarray, s1: int, s2: int, a: np.ndarray, b: np.ndarray) -> float:
    q1, q2 = p[s1] / p[s1].sum(), p[s2] / p[s2].sum()
    return float(a @ q1 - b @ q2)


def objective_worst_case(region: CertifiableSet, v: np.ndarray,
                         bound: ConstraintBound) -> AttainedWorstCase:
    """``max_{P in F} v.P`` by the set's own worst-case search, against the certified bound."""
    p = np.asarray(region.worst_case(v)[0], dtype=float)
    return AttainedWorstCase(UTILITY_GROUP, float(bound.bound), float(np.ravel(p) @ v), p)
