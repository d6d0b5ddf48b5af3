"""A :class:`~rldp_models.results.certified.CertifiedResult` as a JSON record and back.

The record (schema version :data:`SCHEMA_VERSION`, JSON Schema in
``result.schema.json``, see :mod:`rldp_models.results.schema`)::

    {"schema_version": 2, "result_type": "solve" | "mechanism" | "protocol",
     "producer": NAME,
     "matrix": {"representation": "dense", "encoding": "dyadic-double",
                "inputs": [...], "outputs": [...], "rows": [[...], ...]},
     "value": {"measure": ..., "value": ..., "sense": "min" | "max"},
     "guarantees": [{"notion", "eps", "holds", "detail", "block", "source"}, ...],
     "certificate": {"kind": ..., "version": 1, ...},
     "repair": {"method", "weight", "cost", "value_before", "value_after",
                "reference" (for "mix": "uniform" | "tightened" | ...),
                "uniform_weight" (a two-stage mix)},   (:mod:`.repair_record`)
     "solver": {"name", "status", "timings"} | null,
     "declaration": {"producer", "name", "blocks", "uncertainty", "parameters"},
     "counts": {"labels": {"S", "U"}, "digest": "sha256:...", "table": [[...]]} | null,
     "details": {...}}

``encoding`` ``dyadic-double``: every entry of ``rows`` is a double that *is*
a dyadic rational ``k / 2^52``, written with Python's shortest round-trip
``repr``, so ``fractions.Fraction(entry)`` reads back the exact rational and
every row sums to exactly 1. A ``product`` representation (IR, GRR-CR,
UE-CR) stores ``kind``, ``S``, ``U``, ``factors`` (each an array of exact rows)
and ``coordinates`` in ``matrix``, with ``outputs`` and ``rows`` only when the
dense matrix is small (:mod:`rldp_models.results.factored_result`; ``docs/records.md``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from rldp_models.results.certified import (
    CertifiedResult,
    Declaration,
    GuaranteeVerdict,
    SolverRecord,
)
from rldp_models.results.counts import counts_record, embedded_crosstab
from rldp_models.results.json_ready import jsonable
from rldp_models.results.migration import guarantee_eps, result_from_fields
from rldp_models.results.repair_record import repair_from_json, repair_to_json
from rldp_models.results.schema import validate

SCHEMA_VERSION = 2
ENCODING = "dyadic-double"
PRODUCT_KEYS = ("kind", "S", "U", "factors", "coordinates")
"""What a ``product`` matrix stores beside its inputs (and its rows when small)."""


def to_record(result: CertifiedResult, embed_counts: bool = True) -> dict[str, Any]:
    """The JSON-ready record of ``result`` (see the module docstring)."""
    return jsonable({
        "schema_version": SCHEMA_VERSION,
        "result_type": result.result_type,
        "producer": result.declaration.name,
        "matrix": _matrix_record(result),
        "value": dict(result.value),
        "guarantees": [{k: v for k, v in vars(g).items() if k != "eps"}
                       for g in result.guarantees],
        "certificate": result.certificate,
        "repair": repair_to_json(result.repair),
        "solver": None if result.solver is None else vars(result.solver),
        "declaration": vars(result.declaration),
        "counts": None if result.crosstab is None else counts_record(result.crosstab,
                                                                     embed_counts),
        "details": result.details,
    })


def _matrix_record(result: CertifiedResult) -> dict[str, Any]:
    """``matrix``: the labels and dense rows, and for a product its factors (rows if small)."""
    matrix: dict[str, Any] = {"representation": result.representation, "encoding": ENCODING,
              "inputs": list(result.inputs)}
    if result.product is not None:
        matrix.update({key: value for key, value in result.product.items()
                       if key != "representation"})
    if result.matrix is not None:
        matrix.update({"outputs": list(result.outputs),
                       "rows": np.asarray(result.matrix, dtype=float)})
    return matrix


def migrate(record: dict[str, Any]) -> dict[str, Any]:
    """A record of the current schema: itself, or a round-1 record converted."""
    if "schema_version" in record:
        return record
    migrated = to_record(result_from_fields(record), embed_counts=True)
    migrated["migrated_from"] = 1
    return migrated


def from_record(record: dict[str, Any]) -> CertifiedResult:
    """A result from a record of any version (round-1 files are migrated first).

    Raises
    ------
    InputError
        If the record does not follow the schema.
    """
    record = migrate(record)
    validate(record)
    matrix = record["matrix"]
    return CertifiedResult(
        result_type=record["result_type"],
        matrix=np.asarray(matrix["rows"], dtype=float) if "rows" in matrix else None,
        inputs=list(matrix["inputs"]), outputs=list(matrix.get("outputs", [])),
        value=dict(record["value"]),
        guarantees=tuple(GuaranteeVerdict(**{**g, "eps": guarantee_eps(record, g)})
                         for g in record["guarantees"]),
        certificate=record["certificate"],
        repair=repair_from_json(record["repair"]),
        declaration=Declaration(**record["declaration"]),
        solver=None if record.get("solver") is None else SolverRecord(**record["solver"]),
        crosstab=embedded_crosstab(record),
        details=dict(record["details"]),
        representation=matrix["representation"],
        product=None if matrix["representation"] != "product" else
        {key: matrix[key] for key in PRODUCT_KEYS if key in matrix})
