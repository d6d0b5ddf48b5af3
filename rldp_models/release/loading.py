"""A result file as the release commands read it: hardened reading, the design counts' digest."""

from __future__ import annotations

from pathlib import Path

from rldp_models.errors import InputError
from rldp_models.results.certified import CertifiedResult
from rldp_models.results.counts import recorded_digest
from rldp_models.results.files import read_record
from rldp_models.results.record import from_record


def load_result(path: str | Path) -> tuple[CertifiedResult, str | None]:
    """The result at ``path`` (any record version) and its counts digest (None if absent).

    Raises
    ------
    InputError
        An unreadable or malformed record, or one whose guarantee does not hold.
    """
    record = read_record(path)
    result = from_record(record)
    if not result.holds:
        failed = "; ".join(f"{g.notion} at eps = {g.eps:g}" for g in result.failed) or \
            "no guarantee was checked"
        raise InputError(f"{path}: the result's guarantee does not hold ({failed}); "
                         "it cannot be used")
    return result, recorded_digest(record)
