"""Both verdicts on a protocol record in ``product`` representation (IR, GRR-CR, UE-CR).

* **guarantee**: from the factors alone
  (:func:`~rldp_models.rldp_protocols.factored_check.check_factored_record`):
  every factor row nonnegative and summing to exactly 1 in rationals, and the
  ``(eps, F)``-RLDP level proven in ball arithmetic (Theorems 15, 17, 19's
  decoupled bound; no solver) at most eps. When the record also carries dense
  rows (small tables, :data:`~rldp_models.results.factored_result.DENSE_ENTRY_BUDGET`),
  they must be exactly the rounded product of the factors and meet eps by the
  dense RLDP checker too.
* **certificate**: the recorded bracket's witness is a member of ``F`` (exact
  rationals) and reaches the recorded lower end at the recorded worst output and
  pair of secrets (``worst_at``), whose column ``P(y | s, u)`` is computed from
  the factors (never the dense matrix, which may have ``16^15`` columns).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from rldp_models.certificates import guarantee
from rldp_models.uncertainty.certifiable import ChiSquareCertifiable
from rldp_models.certificates.verdict import Verdict
from rldp_models.data import Crosstab
from rldp_models.results.factored_result import dense_rows_match, output_of_index
from rldp_models.rldp_protocols.factored_check import check_factored_record, protocol_from_record
from rldp_models.uncertainty.chi_square import chi_square_radius

LEVEL_TOLERANCE = 1e-9
"""Accepted disagreement between a recorded level and the one recomputed (as for dense)."""


def factored_guarantee(fields: dict, crosstab: Crosstab) -> Verdict:
    """The level proven from the factors, and the dense rows' own check when written."""
    product, eps, alpha = fields["product"], float(fields["eps"]), float(fields["alpha"])
    guarantee._check_labels(fields["labels"], crosstab)
    guarantee._check_labels(product, crosstab)
    check = check_factored_record(product, crosstab.counts, eps, alpha)
    details = [f"level proven from the factors (exact rows, ball arithmetic, no solver): "
               f"{check.certified:.9g}", *check.problems]
    holds, data = check.holds, {"product_level": check.certified}
    inconclusive = False  # the dense rows' level could not be proven: nothing shown to fail
    if fields.get("Q") is not None:
        mismatch = dense_rows_match(product, fields["Q"], eps, alpha)
        if mismatch is not None:
            holds = False
            details.append(mismatch)
        else:
            dense = guarantee.protocol_guarantee(fields, crosstab)
            holds = holds and dense.holds
            inconclusive = check.holds and dense.inconclusive
            details += [f"dense rows (the rounded product): {dense.headline}", *dense.details]
            data.update(dense.data)
    return Verdict(holds, f"(eps, F)-RLDP of the {product['kind']} factors over the chi-square "
                   f"set (alpha = {alpha}), eps = {eps:g}", tuple(details), data,
                   inconclusive=inconclusive)


def factored_certificate(fields: dict, crosstab: Crosstab) -> Verdict:
    """The recorded bracket: witness in ``F`` reaching the lower end at the worst output."""
    claim = fields.get("rldp")
    if not isinstance(claim, dict) or claim.get("witness") is None:
        return Verdict(True, "no RLDP bracket recorded: nothing to certify")
    eps, alpha = float(fields["eps"]), float(fields["alpha"])
    protocol = protocol_from_record(fields["product"], eps, alpha)
    where = worst_pair(claim, crosstab.s_labels, protocol.output_count)
    witness = np.asarray(claim["witness"], dtype=float)
    region = ChiSquareCertifiable(crosstab.counts,
                                  chi_square_radius(crosstab.n, crosstab.counts.size, alpha))
    member = witness.shape == crosstab.shape and region.contains_exactly(witness)
    reached = float("nan")
    if member and not isinstance(where, str):
        y, s1, s2 = where
        column = protocol.column(output_of_index(protocol.coordinate_sizes, y))
        reached = pair_level(column, witness, s1, s2)
    attained, certified = float(claim["attained"]), float(claim["certified"])
    problems = []
    if isinstance(where, str):
        problems.append(where)
    elif not member:
        problems.append("the recorded witness is not a distribution in F")
    elif reached < attained - LEVEL_TOLERANCE:
        problems.append(f"the witness reaches eps {reached:.9g}, less than the recorded "
                        f"{attained:.9g}")
    elif certified < reached - LEVEL_TOLERANCE:
        problems.append(f"the recorded certified level {certified:.9g} is below the witness's "
                        f"{reached:.9g}")
    return Verdict(not problems, "recorded RLDP bracket and its witness distribution "
                   "(membership in F decided in exact rationals; the worst output's column "
                   "from the factors)",
                   (f"recorded level in [{attained:.9g}, {certified:.9g}]; the witness reaches "
                    f"{reached:.9g}", *problems))


def worst_pair(claim: dict, s_labels: Sequence[Any], output_count: int
               ) -> tuple[int, int, int] | str:
    """The recorded worst output (a dense column index, any width) and ordered pair of
    secrets ``worst_at = {y, s1, s2}`` as indices, or what is wrong with them."""
    where = claim.get("worst_at")
    if not isinstance(where, dict):
        return "the record states no worst output and pair (details.rldp.worst_at)"
    y = where.get("y")
    if isinstance(y, bool) or not isinstance(y, int) or not 0 <= y < output_count:
        return (f"the recorded worst output {str(y)[:40]} is not a column of the protocol "
                f"(0 .. {output_count - 1})")
    labels = [str(s) for s in s_labels]
    s1, s2 = (str(where.get(key)) for key in ("s1", "s2"))
    if s1 not in labels or s2 not in labels or s1 == s2:
        return f"the recorded worst pair ({s1[:40]}, {s2[:40]}) is not two secrets of the counts"
    return y, labels.index(s1), labels.index(s2)


def pair_level(column: np.ndarray, p: np.ndarray, s1: int, s2: int) -> float:
    """``log P(y|s1) / P(y|s2)`` under ``P`` for one output's column ``P(y | s, u)``
    (NaN when either secret has no mass under ``P``: nothing is attained there)."""
    mass = p.sum(axis=1)
    if mass[s1] <= 0 or mass[s2] <= 0:
        return float("nan")
    released = [float(np.dot(p[s] / mass[s], column[s])) for s in (s1, s2)]
    if released[0] <= 0:
        return -math.inf
    return math.inf if released[1] == 0 else math.log(released[0] / released[1])
