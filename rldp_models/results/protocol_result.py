"""RLDP protocols as :class:`~rldp_models.results.certified.CertifiedResult`: the closed
forms (SRR, IR, GRR-CR, UE-CR, GRR; :class:`~rldp_models.rldp_protocols.components.RLDPProtocol`)
and PolyOpt (:class:`~rldp_models.rldp_protocols.polyopt.PolyOptResult`).

Each protocol goes through the one finish path: dyadic rows, then the
``(eps, F)``-RLDP checker (:func:`rldp_models.rldp_protocols.checker.rldp_epsilon`)
on the rounded matrix — its certified level must not exceed eps — and a repair
by mixing with the uniform protocol if the rounding broke it. The checker's
bracket and witness are recorded (``details.rldp``) for ``rldp verify``.

Python callers::

    result = polyopt_result(polyopt_protocol(crosstab, 2.0, proof=True), crosstab, 2.0)
    write_result(result, "polyopt.json")  # results.files; a pricing proof is written beside it
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from rldp_models.finish import GuaranteeError, Repair, finish
from rldp_models.results.certificate_record import CertificateRecord
from rldp_models.results.certified import CertifiedResult, Declaration, GuaranteeVerdict
from rldp_models.results.json_ready import jsonable
from rldp_models.results.lp_certificate import polyopt_writer_fields
from rldp_models.rldp_protocols import checker
from rldp_models.rldp_protocols.components import chi_square_set
from rldp_models.utility import MutualInformation

if TYPE_CHECKING:
    from rldp_models.data import Crosstab
    from rldp_models.rldp_protocols.components import RLDPProtocol
    from rldp_models.rldp_protocols.polyopt import PolyOptResult

NOTION = "(eps, F)-RLDP"

FIRST_WEIGHT = 2.0**-40
"""First mixing weight when rounding broke a closed form's level (rounding moves ~1e-16)."""


def _protocol_result(fields: dict[str, Any], repair: Repair, crosstab: "Crosstab",
                     attachments: dict[str, Any] | None = None) -> CertifiedResult:
    """The result of an RLDP protocol: its matrix and labels, its declaration (name, the
    chi-square set, its parameters), the recorded RLDP bracket's verdict at eps; the rest of
    ``fields`` (eps for the release, the bracket, PolyOpt's lower bound, ...) as details."""
    fields = jsonable(fields)
    labels, certified, eps = fields["labels"], fields["rldp"]["certified"], float(fields["eps"])
    parameters = dict(fields.get("parameters") or {})
    return CertifiedResult(
        "protocol", np.asarray(fields["Q"], dtype=float), list(labels["X"]), list(labels["Y"]),
        {"measure": "I_Phat(X;Y) in nats", "value": fields.get("utility_hat"), "sense": "max"},
        (GuaranteeVerdict(NOTION, eps, certified is not None and float(certified) <= eps,
                          f"certified level {certified}"),),
        CertificateRecord.from_json(fields.get("certificate")).to_json(), repair,
        Declaration("protocol", str(fields["protocol"]), [],
                    {"set": "chi2", "radius": fields.get("radius_B"),
                     "alpha": fields.get("alpha"), "radius_from": "alpha"}, parameters),
        crosstab=crosstab,
        details={key: value for key, value in fields.items()
                 if key not in (*parameters, "Q", "certificate", "result_type")},
        attachments=attachments or {})


def _finished_with_bracket(Q: np.ndarray, crosstab: "Crosstab", eps: float, alpha: float):
    """Finished ``Q`` with its RLDP level; if nothing passes, the rounded ``Q`` and its level
    (the result then fails its guarantee and is not written)."""
    try:
        return finish(Q, lambda matrix, weight: checker.rldp_epsilon(matrix, crosstab, alpha),
                      lambda level: level.certified <= eps,
                      first_weight=FIRST_WEIGHT if eps > 0 else None)
    except GuaranteeError as failure:
        return failure.unrepaired


def _bracket(level: Any, crosstab: "Crosstab") -> dict[str, Any]:
    return {"certified": level.certified, "attained": level.attained,
            "worst_at": {"y": level.worst_at[0], "s1": crosstab.s_labels[level.worst_at[1]],
                         "s2": crosstab.s_labels[level.worst_at[2]]},
            "witness": level.witness}


def rldp_protocol_result(protocol: "RLDPProtocol", crosstab: "Crosstab") -> CertifiedResult:
    """A closed-form RLDP protocol, finished and checked (module docstring)."""
    finished = _finished_with_bracket(protocol.Q, crosstab, protocol.eps, protocol.alpha)
    Q = finished.matrix
    fields = {"result_type": "protocol", "protocol": protocol.name, "eps": protocol.eps,
              "alpha": protocol.alpha, "n": protocol.n, "radius_B": protocol.radius_B,
              "labels": protocol.labels, "Q": Q,
              "utility_hat": MutualInformation(crosstab.phat.ravel()).total(Q),
              "utility_theorem": protocol.utility_theorem, "parameters": protocol.parameters,
              "rldp": _bracket(finished.verdict, crosstab)}
    return _protocol_result(fields, finished.repair, crosstab)


def polyopt_result(result: "PolyOptResult", crosstab: "Crosstab", eps: float,
                   alpha: float = 0.05, *, finer: bool = False,
                   solver: str = "highspy") -> CertifiedResult:
    """PolyOpt's protocol with its LP dual over Gamma (and pricing proof) as certificate."""
    finished = _finished_with_bracket(result.Q, crosstab, eps, alpha)
    weight = max(result.mixing_weight, finished.repair.weight)
    fields = {"result_type": "protocol", "protocol": "polyopt", "eps": eps, "alpha": alpha,
              "n": crosstab.n, "radius_B": chi_square_set(crosstab, alpha).radius,
              "labels": result.labels, "Q": finished.matrix, "utility_hat": result.utility_hat,
              "parameters": {"finer": finer, "solver": solver, "method": result.method,
                             "rldp_certified_eps": result.rldp_certified_eps},
              "lower_bound": result.lower_bound, "Q2": result.Q2,
              "certificate": {**jsonable(result.certificate),
                              **polyopt_writer_fields(crosstab.counts, alpha, eps, finer,
                                                      result.certificate.dual)},
              "rldp": _bracket(finished.verdict, crosstab)}
    repair = finished.repair if weight == finished.repair.weight else \
        Repair("mix", weight)
    return _protocol_result(fields, repair, crosstab,
                            {"pricing_proof": result.pricing_proof}
                            if result.pricing_proof is not None else {})
