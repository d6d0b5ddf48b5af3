"""A result file as the release commands read it: hardened reading, the design counts' digest,
and (for a release) the guarantee re-checked from the record as ``rldp verify`` does."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rldp_models.errors import InputError
from rldp_models.results.certified import CertifiedResult
from rldp_models.results.counts import embedded_crosstab, recorded_digest
from rldp_models.results.files import read_record
from rldp_models.results.record import from_record


class GuaranteeNotVerified(Exception):
    """Re-checking the record's guarantee failed: nothing may be released with it."""


def load_result(path: str | Path) -> tuple[CertifiedResult, str | None]:
    """The result at ``path`` (any record version) and its counts digest (None if absent).

    Raises
    ------
    InputError
        An unreadable or malformed record, or one whose recorded guarantee does not hold.
    """
    record = read_record(path)
    try:
        result = from_record(record)
    except InputError as exc:  # the record's own complaint, without the file it came from
        raise InputError(f"{path}: {exc}") from None
    if not result.holds:
        failed = "; ".join(f"{g.notion} at eps = {g.eps:g}" for g in result.failed) or \
            "no guarantee was checked"
        raise InputError(f"{path}: the result's guarantee does not hold ({failed}); "
                         "it cannot be used")
    return result, recorded_digest(record)


def verified_result(path: str | Path) -> tuple[CertifiedResult, str | None, str]:
    """:func:`load_result`, then the guarantee re-checked exactly from the record and its
    embedded counts (``rldp verify``'s guarantee verdict); the third value says what was checked.

    A mechanism's guarantee (LDP and its kin) does not depend on counts, so it is
    re-checked even when the record embeds none.

    Raises
    ------
    GuaranteeNotVerified
        If the re-check fails: the file's matrix does not meet its stated guarantee.
    """
    from rldp_models.certificates.verification import verify_guarantee

    result, digest = load_result(path)
    record: dict[str, Any] = read_record(path)
    crosstab = embedded_crosstab(record)
    if crosstab is None and record.get("result_type") != "mechanism":
        return result, digest, ("not re-verified: the record does not embed its counts "
                                "(run rldp verify with them before releasing)")
    verdict = verify_guarantee(record, crosstab)
    if not verdict.holds:
        raise GuaranteeNotVerified(f"{path}: the guarantee does not hold on re-checking "
                                   f"({verdict.headline}); nothing was released")
    return result, digest, f"guarantee re-verified: {verdict.headline}"
