"""``certificate.optimality`` of a solved protocol program: the best of the proven claims.

Two bounds can prove a solved program's optimality gap: the Lagrangian model of the
four programs (:mod:`.lagrangian_dual`, :mod:`.lagrangian`) and weak duality on the
compiled program (:mod:`.program_bound`). This module chooses the one a record keeps.
"""

from __future__ import annotations

from typing import Any

from rldp_models.optimality.lagrangian_dual import lagrangian_optimality
from rldp_models.optimality.program_bound import weak_claim
from rldp_models.programs.solution import ProtocolSolution

WEAK_TARGET = 1e-6
"""Relative Lagrangian gap above which weak duality on the compiled program is tried too
(issue 34's target; below it the second bound would cost time for little)."""


def solution_optimality(solution: ProtocolSolution) -> dict[str, Any]:
    """``certificate.optimality`` of a solved program: the best proven claim, or why there
    is none.

    The Lagrangian model of the four programs
    (:func:`~rldp_models.optimality.lagrangian_dual.lagrangian_optimality`) where it covers
    the program; weak duality on the compiled program
    (:func:`~rldp_models.optimality.program_bound.weak_claim`) for every other program and
    where the Lagrangian gap exceeds :data:`WEAK_TARGET`. Of two proved claims the one
    with the higher lower bound is kept; the record's ``bound`` says which.

    Parameters
    ----------
    solution : ProtocolSolution
        Finished (its protocol and multipliers are the returned ones).
    """
    lagrangian = lagrangian_optimality(solution)
    if lagrangian.get("claimed") and lagrangian["relative_gap"] <= WEAK_TARGET:
        return lagrangian
    weak = weak_claim(solution)
    if lagrangian.get("claimed") and (not weak.get("claimed") or
                                      lagrangian["lower"] >= weak["lower"]):
        return lagrangian
    return weak
