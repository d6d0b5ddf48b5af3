"""Robust constraints re-evaluated at a record's stored multipliers: what a block's
``certify_multipliers`` hook returns
(:meth:`rldp_models.programs.contract.Block.certify_multipliers`).

A robust constraint ``sup_{P in F} lhs(P) <= rhs`` is certified by multipliers
of the dual of its support function: by weak duality the dual objective at
*any* multipliers bounds the supremum from above. :class:`ConstraintBound` is
that bound, computed in interval arithmetic at
:data:`~rldp_models.exact.DIGITS` digits; :class:`AttainedWorstCase` is
the value at a member of ``F`` found without the multipliers (how tight the
bound is, and a bound beaten in ``F`` is wrong); :class:`StoredCheck` is one
block's constraints, the groups it found no multipliers for, and the attained
values.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

import mpmath
import numpy as np

from rldp_models.exact import DIGITS

OBJECTIVE_TOLERANCE = 1e-9
"""Accepted excess of a certified objective bound over the recorded objective (relative to
``1 + |D|``)."""

GAP_TOLERANCE = 1e-7
"""Largest accepted ``attained - bound`` (the inner solve's accuracy, relative to 1 + |bound|)."""


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
    objective : bool
        Whether the constraint is an objective's epigraph (reported first).
    """

    name: str
    certified: float
    attained: float
    distribution: np.ndarray | None
    objective: bool = False

    @property
    def gap(self) -> float:
        """``certified - attained``: how much the bound may overstate the worst case."""
        return self.certified - self.attained

    @property
    def consistent(self) -> bool:
        """The bound is not beaten by the attained value (beyond the inner solve's accuracy)."""
        return not self.attained > self.certified + GAP_TOLERANCE * (1 + abs(self.certified))


@dataclass(frozen=True)
class StoredCheck:
    """Every robust constraint of a block at the stored multipliers.

    Attributes
    ----------
    constraints : tuple of ConstraintBound
    missing : tuple of str
        Constraint groups with no usable stored multipliers.
    attained : tuple of AttainedWorstCase
        Values attained in ``F`` by an independent search, where the block has one.
    notes : tuple of str
        What the block's check covered (e.g. ``privacy in product form``).
    """

    constraints: tuple[ConstraintBound, ...] = ()
    missing: tuple[str, ...] = ()
    attained: tuple[AttainedWorstCase, ...] = ()
    notes: tuple[str, ...] = ()

    @property
    def holds(self) -> bool:
        return not self.missing and all(c.holds for c in self.constraints) and \
            all(a.consistent for a in self.attained)

    @property
    def worst(self) -> ConstraintBound | None:
        """The constraint with the largest violation beyond its tolerance."""
        return max(self.constraints, key=lambda c: c.violation - c.tolerance, default=None)

    @classmethod
    def joined(cls, checks: Sequence["StoredCheck"]) -> "StoredCheck":
        """All blocks' checks as one."""
        return cls(tuple(c for check in checks for c in check.constraints),
                   tuple(m for check in checks for m in check.missing),
                   tuple(a for check in checks for a in check.attained),
                   tuple(dict.fromkeys(n for check in checks for n in check.notes)))


def label(labels: Sequence[Any] | None, index: int) -> str:
    """The label of an index (the index itself where no labels are given)."""
    return str(index) if labels is None or index >= len(labels) else str(labels[index])
