"""The counts a result was made from: embedded in its record, or kept only as a digest.

The digest is ``sha256:`` and the hex SHA-256 of the canonical JSON
``{"S": [...], "U": [...], "counts": [[...]]}`` (labels as strings, counts as
integers, keys sorted, no spaces), so anyone can recompute it from their own
copy of the table.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from rldp_models.data import Crosstab
from rldp_models.errors import InputError


def counts_digest(crosstab: Crosstab) -> str:
    """``sha256:<hex>`` over the canonical form of labels and counts."""
    canonical = json.dumps({"S": list(crosstab.s_labels), "U": list(crosstab.u_labels),
                            "counts": [[int(c) for c in row] for row in crosstab.counts]},
                           sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return "sha256:" + hashlib.sha256(canonical.encode("ascii")).hexdigest()


def counts_record(crosstab: Crosstab, embed: bool = True) -> dict[str, Any]:
    """The record's ``counts`` object: labels, digest and (if ``embed``) the table."""
    record: dict[str, Any] = {"labels": {"S": list(crosstab.s_labels),
                                         "U": list(crosstab.u_labels)},
                              "digest": counts_digest(crosstab)}
    if embed:
        record["table"] = [[int(c) for c in row] for row in crosstab.counts]
    return record


def embedded_crosstab(record: dict[str, Any]) -> Crosstab | None:
    """The crosstab embedded in a record's ``counts``, checked against its digest; else None.

    Raises
    ------
    InputError
        If the embedded table does not match the recorded digest.
    """
    counts = record.get("counts")
    if not isinstance(counts, dict) or counts.get("table") is None:
        return None
    labels = counts["labels"]
    crosstab = Crosstab.from_array(counts["table"], labels["S"], labels["U"])
    if counts_digest(crosstab) != counts["digest"]:
        raise InputError("the embedded counts do not match the record's digest "
                         f"({counts['digest']})")
    return crosstab


def recorded_digest(record: dict[str, Any]) -> str | None:
    counts = record.get("counts")
    return counts.get("digest") if isinstance(counts, dict) else None
