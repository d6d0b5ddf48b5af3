"""Factored RLDP protocols (IR, GRR-CR, UE-CR) as
:class:`~rldp_models.results.certified.CertifiedResult` with ``representation = "product"``.

The factors (:mod:`rldp_models.rldp_protocols.factored_form`) are the result:
their rows are dyadic and sum to exactly one (the builders' own exact rows,
:func:`~rldp_models.rldp_protocols.factored_form.exact_stochastic_rows`, re-checked
here), and the ``(eps, F)``-RLDP level is proven from them alone
(:func:`~rldp_models.rldp_protocols.factored_check.factored_rldp_level`, Theorems
15, 17 and 19's decoupled bound in ball arithmetic, no solver).

**Dense rule.** The dense matrix ``Q`` is written beside the factors only when
it has at most :data:`DENSE_ENTRY_BUDGET` entries (``|X| * |Y| <= 4096``, 32 KiB
of doubles): small tables keep their round-1 ``rows`` (and tests reading them),
and those rows are the rounded product
(:meth:`~rldp_models.rldp_protocols.factored_form.FactoredProtocol.dense`), whose
own level is checked by the dense RLDP checker as a second guarantee. Over the
budget only the factors are written (UE-CR on Adult has up to ``16^15``
outputs).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from rldp_models.exact import is_exactly_stochastic
from rldp_models.finish import Repair
from rldp_models.resources import DENSE_ENTRY_BUDGET
from rldp_models.results.certificate_record import CertificateRecord
from rldp_models.results.certified import CertifiedResult, Declaration, GuaranteeVerdict
from rldp_models.results.json_ready import jsonable
from rldp_models.rldp_protocols import checker
from rldp_models.rldp_protocols.factored_check import (
    factor_rows,
    factored_record,
    factored_rldp_level,
    protocol_from_record,
)
from rldp_models.uncertainty.chi_square import chi_square_radius

if TYPE_CHECKING:
    from rldp_models.data import Crosstab
    from rldp_models.rldp_protocols.checker import RLDPLevel
    from rldp_models.rldp_protocols.factored_form import FactoredProtocol

NOTION = "(eps, F)-RLDP"


def writes_dense(protocol: "FactoredProtocol") -> bool:
    """Whether the dense matrix is small enough to be written too (module docstring)."""
    return math.prod(protocol.shape) * protocol.output_count <= DENSE_ENTRY_BUDGET


def output_of_index(sizes: tuple[int, ...], index: int) -> tuple[int, ...]:
    """The output ``y`` of dense column ``index`` (row-major over ``sizes``; any width)."""
    y = []
    for size in reversed(sizes):
        index, value = divmod(int(index), int(size))
        y.append(value)
    return tuple(reversed(y))


def level_verdict(level: "RLDPLevel", eps: float, what: str) -> GuaranteeVerdict:
    """The exact verdict ``certified <= eps`` on one bracket (``what`` names its check)."""
    detail = f"{what}: level in [{level.attained:.9g}, {level.certified:.9g}]"
    if level.inconclusive:
        detail += f"; inconclusive: {level.inconclusive}"
    return GuaranteeVerdict(NOTION, eps, bool(level.certified <= eps), detail)


def bracket_record(level: "RLDPLevel", crosstab: "Crosstab") -> dict[str, Any]:
    """``details.rldp``: the bracket, where the worst output is and the witness in ``F``."""
    return {"certified": level.certified, "attained": level.attained,
            "worst_at": {"y": int(level.worst_at[0]),
                         "s1": crosstab.s_labels[level.worst_at[1]],
                         "s2": crosstab.s_labels[level.worst_at[2]]},
            "witness": level.witness, "inconclusive": level.inconclusive}


def factored_protocol_result(protocol: "FactoredProtocol", crosstab: "Crosstab") -> CertifiedResult:
    """A factored protocol with its proven level (module docstring).

    The result's guarantees are the level proven from the factors and, when the
    dense matrix is written, the dense checker's level of those rows.
    """
    for name, rows in factor_rows(protocol).items():
        exact, why = is_exactly_stochastic(rows)
        if not exact:  # the builders promise exact rows; a broken promise is a bug
            raise AssertionError(f"factor {name} of {protocol.name} is not exact: {why}")
    eps, alpha = protocol.eps, protocol.alpha
    level = factored_rldp_level(protocol, crosstab.counts, alpha)
    guarantees = [level_verdict(level, eps, "proven from the factors")]
    labels: dict[str, list[Any]] = {"S": list(crosstab.s_labels), "U": list(crosstab.u_labels),
              "X": [[s, u] for s in crosstab.s_labels for u in crosstab.u_labels]}
    dense = protocol.dense() if writes_dense(protocol) else None
    if dense is not None:
        labels["Y"] = [protocol.output_label(output_of_index(protocol.coordinate_sizes, j))
                       for j in range(protocol.output_count)]
        guarantees.append(level_verdict(checker.rldp_epsilon(dense, crosstab, alpha), eps,
                                        "dense rows by the RLDP checker"))
    details = {"protocol": protocol.name, "eps": eps, "alpha": alpha, "n": crosstab.n,
               "radius_B": chi_square_radius(crosstab.n, crosstab.counts.size, alpha),
               "labels": labels, "utility_hat": protocol.utility(crosstab.phat),
               "utility_theorem": protocol.parameters.get("utility_theorem"),
               "parameters": protocol.parameters, "rldp": bracket_record(level, crosstab),
               "output_count": protocol.output_count}
    return CertifiedResult(
        result_type="protocol", matrix=dense, inputs=labels["X"],
        outputs=labels.get("Y", []),
        value={"measure": "I_Phat(X;Y) in nats", "value": details["utility_hat"],
               "sense": "max"},
        guarantees=tuple(guarantees), certificate=_no_certificate(), repair=Repair("none", 0.0),
        declaration=Declaration("protocol", protocol.name, [],
                                {"set": "chi2", "radius": details["radius_B"], "alpha": alpha,
                                 "radius_from": "alpha"}, jsonable(protocol.parameters)),
        crosstab=crosstab, details=jsonable(details), representation="product",
        product=factored_record(protocol))


def dense_rows_match(product: dict, rows: Any, eps: float, alpha: float) -> str | None:
    """``None`` if ``rows`` are exactly the rounded product of the factors, else why not."""
    protocol = protocol_from_record(product, eps, alpha)
    if not writes_dense(protocol):
        return "dense rows are written only for matrices within the dense budget"
    expected = protocol.dense()
    rows = np.asarray(rows, dtype=float)
    if rows.shape != expected.shape:
        return f"the dense rows are {rows.shape}, the product is {expected.shape}"
    if not np.array_equal(rows, expected):
        changed = int(np.sum(rows != expected))
        return f"the dense rows differ from the product of the factors in {changed} entries"
    return None


def _no_certificate() -> dict[str, Any]:
    """The empty certificate record: the bracket in ``details.rldp`` is what is checked."""
    return CertificateRecord.from_json(None).to_json()
