"""Round-1 result files (no ``schema_version``) and the producer fields the verifier reads.

Round 1 wrote three flat layouts, one per command (``rldp solve``, ``rldp
mechanism``, ``rldp protocol``; DESIGN.md "Interfaces"). :func:`result_from_fields`
reads one into a :class:`~rldp_models.results.certified.CertifiedResult`
(:func:`rldp_models.results.record.migrate` calls it; no writer does), and
:func:`producer_fields` gives a mechanism or protocol record's fields back in that layout,
for the checks of :mod:`rldp_models.certificates` that still read it (a solve record is
verified as written).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from rldp_models.data import Crosstab
from rldp_models.errors import InputError
from rldp_models.problem_kinds import PRESETS
from rldp_models.results.certificate_record import CertificateRecord
from rldp_models.results.certified import (
    CertifiedResult,
    Declaration,
    GuaranteeVerdict,
    SolverRecord,
)
from rldp_models.results.repair_record import repair_from_json

MATRIX_FIELDS = {"solve": "protocol", "mechanism": "Q", "protocol": "Q"}
ENVELOPE_FIELDS = ("certificate", "counts", "guarantee", "repair", "result_type")
"""Fields the record keeps in its envelope (mechanisms keep their own ``repair_method``
and ``repair_weight``, per attribute for SRLIP, among the details)."""


def round1_type(record: dict[str, Any]) -> str:
    """The command that wrote a round-1 record: ``result_type``, or what its keys show."""
    stated = record.get("result_type")
    if isinstance(stated, str) and stated in MATRIX_FIELDS:
        return stated
    if stated is not None:
        raise InputError(f"unknown result_type {str(stated)[:40]!r}; known: "
                         f"{', '.join(MATRIX_FIELDS)}")
    if "problem" in record:
        return "solve"
    if "mechanism" in record:
        return "mechanism"
    if "Q" in record and "protocol" in record:
        return "protocol"
    raise InputError("not a result of rldp solve, mechanism or protocol")


def result_from_fields(fields: dict[str, Any]) -> CertifiedResult:
    """The result a round-1 file's flat fields describe.

    Raises
    ------
    InputError
        If the fields lack what their kind needs.
    """
    kind = round1_type(fields)
    try:
        derived = {"solve": _solve, "mechanism": _mechanism, "protocol": _protocol}[kind](fields)
    except KeyError as exc:
        raise InputError(f"the {kind} result lacks the field {exc}") from None
    except (TypeError, ValueError, AttributeError, IndexError) as exc:
        # converting the *input's* fields (round-1 files have no schema); checks never do this
        raise InputError(f"the {kind} result is malformed ({str(exc).splitlines()[0]})") \
            from None
    declaration = derived["declaration"]
    declared = {*declaration.parameters, *(["eps"] if any(
        "eps" in block.get("parameters", {}) for block in declaration.blocks) else [])}
    details = {k: v for k, v in fields.items()  # the declaration states its own, once
               if k not in ENVELOPE_FIELDS and k != MATRIX_FIELDS[kind] and k not in declared}
    certificate = CertificateRecord.from_json(fields.get("certificate")).to_json()
    return CertifiedResult(**{"result_type": kind, "certificate": certificate,
                              "details": details, **derived})


def _matrix(fields: dict[str, Any], key: str) -> np.ndarray:
    matrix = np.asarray(fields[key], dtype=float)
    return matrix.reshape(-1, matrix.shape[-1]) if matrix.ndim == 3 else matrix


def _crosstab(labels: dict[str, Any], table: Any):
    return None if table is None else Crosstab.from_array(table, labels["S"], labels["U"])


def _solve(fields: dict[str, Any]) -> dict[str, Any]:
    labels, problem = fields["labels"], str(fields["problem"]).upper()
    robust = PRESETS.get(problem)
    blocks: list[dict[str, Any]] = [] if robust is None else [
        {"block": "RobustDistortion" if robust[0] else "NominalDistortion", "role": "objective",
         "parameters": {}, "source": "library"},
        {"block": "RobustSecretPrivacy" if robust[1] else "NominalSecretPrivacy",
         "role": "constraint", "parameters": {"eps": fields.get("eps")}, "source": "library"}]
    uncertainty = dict(fields.get("uncertainty") or {"set": "chi2", "radius_from": "alpha"})
    uncertainty.setdefault("radius", fields.get("radius_B"))
    uncertainty.setdefault("alpha", fields.get("alpha"))
    checks = (fields.get("guarantee") or {}).get("checks", [])
    return {
        "matrix": _matrix(fields, "protocol"),
        "inputs": [[s, u] for s in labels["S"] for u in labels["U"]],
        "outputs": list(labels["Y"]),
        "value": {"measure": _distortion_measure(fields, robust), "value": fields["objective"],
                  "sense": "min"},
        "guarantees": tuple(GuaranteeVerdict(str(c["kind"]), float(c["eps"]), bool(c["holds"]),
                                             f"worst margin {c.get('worst_margin')}")
                            for c in checks),
        "repair": repair_from_json(fields.get("repair")),
        "solver": SolverRecord(str(fields["solver"]), str(fields["status"]),
                               {"solve": fields.get("solve_seconds"),
                                "build": fields.get("build_seconds")}),
        "declaration": Declaration("program", problem, blocks,
                                   None if robust is not None and not any(robust) and
                                   fields.get("radius_B") is None else uncertainty,
                                   {"eps": fields.get("eps"), "alpha": fields.get("alpha"),
                                    "distortion": fields.get("distortion", "squared"),
                                    "outputs": list(labels["Y"])}),
        "crosstab": _crosstab(labels, fields.get("counts")),
    }


def _distortion_measure(fields: dict[str, Any], robust: Any) -> str:
    worst = "worst-case " if robust is not None and robust[0] else ""
    return f"{worst}expected {fields.get('distortion', 'squared')} distortion"


def _mechanism(fields: dict[str, Any]) -> dict[str, Any]:
    labels, check = fields["labels"], fields.get("privacy_check") or {}
    method, weight = fields.get("repair_method", "none"), fields.get("repair_weight", 0.0)
    if isinstance(method, list):  # srlip: per attribute; the product's repair is the one
        product = fields.get("product_repair") or {"method": "none", "weight": 0.0}
        method, weight = product["method"], product["weight"]
    name = str(fields["mechanism"])
    return {
        "matrix": _matrix(fields, "Q"),
        "inputs": list(labels["X"]), "outputs": list(labels["Y"]),
        "value": {"measure": str(fields.get("utility_measure", "mi")),
                  "value": fields.get("utility"), "sense": "max"},
        "guarantees": (GuaranteeVerdict(str(check.get("notion", "LDP")), float(fields["eps"]),
                                        bool(check.get("holds", False)),
                                        f"level {check.get('level')}"),),
        "repair": repair_from_json({"method": method, "weight": weight}),
        "declaration": Declaration("mechanism", name, [], None,
                                   {k: fields[k] for k in ("eps", "delta", "split",
                                                           "attribute_sizes", "utility_measure")
                                    if fields.get(k) is not None}),
    }


def _protocol(fields: dict[str, Any]) -> dict[str, Any]:
    labels, claim = fields["labels"], fields.get("rldp") or {}
    eps = float(fields["eps"])
    certified = claim.get("certified")
    return {
        "matrix": _matrix(fields, "Q"),
        "inputs": list(labels["X"]), "outputs": list(labels["Y"]),
        "value": {"measure": "I_Phat(X;Y) in nats", "value": fields.get("utility_hat"),
                  "sense": "max"},
        "guarantees": (GuaranteeVerdict("(eps, F)-RLDP", eps,
                                        certified is not None and float(certified) <= eps,
                                        f"certified level {certified}"),),
        "repair": repair_from_json(None),
        "declaration": Declaration("protocol", str(fields["protocol"]), [],
                                   {"set": "chi2", "radius": fields.get("radius_B"),
                                    "alpha": fields.get("alpha"), "radius_from": "alpha"},
                                   dict(fields.get("parameters") or {})),
    }


def guarantee_eps(record: dict[str, Any], guarantee: dict[str, Any]) -> float:
    """The eps a guarantee states: its block's, else the producer's declaration's (a record
    written before eps lived once states it in the guarantee and the details too)."""
    declaration = record["declaration"]
    levels = {str(b["parameters"].get("name")): b["parameters"]["eps"]
              for b in declaration["blocks"]
              if isinstance(b.get("parameters"), dict) and b["parameters"].get("eps") is not None}
    for stated in (levels.get(str(guarantee.get("block"))), guarantee.get("eps"),
                   declaration["parameters"].get("eps"), record["details"].get("eps"),
                   min(levels.values(), default=None)):
        if stated is not None:
            return float(stated)
    raise InputError("the record states no eps for its guarantee")


def producer_fields(record: dict[str, Any]) -> dict[str, Any]:
    """The flat fields the checks of :mod:`rldp_models.certificates` read, from a record.

    What the declaration states (eps, distortion, ...) is read from it, once; a
    program's eps is its guarantee blocks' (the strictest, as
    :func:`~rldp_models.programs.contract.program_eps` derives it).
    """
    kind, details, declaration = record["result_type"], record["details"], record["declaration"]
    fields = {**declaration["parameters"], **details, "result_type": kind,
              "certificate": record["certificate"]}
    levels = [float(b["parameters"]["eps"]) for b in declaration["blocks"]
              if isinstance(b.get("parameters"), dict) and b["parameters"].get("eps") is not None]
    if fields.get("eps") is None and levels:
        fields["eps"] = min(levels)
    if record.get("migrated_from") is not None:  # round-1 numbers: held to round-1 tolerance
        fields["migrated_from"] = record["migrated_from"]
    matrix = record["matrix"]
    if matrix["representation"] == "product":
        fields["product"] = {key: value for key, value in matrix.items()
                             if key not in ("rows", "outputs", "inputs", "encoding")}
    rows = matrix.get("rows")
    if kind == "solve":
        labels = details["labels"]
        fields["protocol"] = np.asarray(rows, dtype=float).reshape(
            len(labels["S"]), len(labels["U"]), -1).tolist()
        uncertainty = declaration.get("uncertainty")
        if uncertainty is not None:
            fields["uncertainty"] = uncertainty
        fields["guarantee"] = {"holds": all(g["holds"] for g in record["guarantees"]),
                               "checks": [{"kind": g["notion"], "eps": guarantee_eps(record, g),
                                           "holds": g["holds"]} for g in record["guarantees"]]}
        table = (record.get("counts") or {}).get("table")
        if table is not None:
            fields["counts"] = table
    elif rows is not None:
        fields["Q"] = rows
    return fields
