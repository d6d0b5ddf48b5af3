"""Former home of the result files; kept as thin aliases of :mod:`rldp_models.results`.

New code uses :class:`rldp_models.results.CertifiedResult` (``to_record``,
``write``) and :func:`rldp_models.results.files.read_record`. The flat
dictionary of a solved program is
:func:`rldp_models.results.program_result.solution_fields`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rldp_models.errors import InputError
from rldp_models.results.files import read_record
from rldp_models.results.files import write_record as write_json
from rldp_models.results.program_result import solution_fields as solution_to_dict
from rldp_models.results.record import jsonable

REQUIRED_KEYS = ("problem", "status", "objective", "eps", "alpha", "n", "radius_B", "solver",
                 "solve_seconds", "labels", "protocol", "certificate")

__all__ = ["jsonable", "read_record", "read_result", "solution_to_dict", "write_json"]


def read_result(path: str | Path) -> dict[str, Any]:
    """The producer fields of a solve record (any version), with the keys of the contract."""
    from rldp_models.results.migration import migrate, producer_fields

    fields = producer_fields(migrate(read_record(path)))
    missing = [key for key in REQUIRED_KEYS if key not in fields]
    if missing:
        raise InputError(f"{path}: not a protocol result, missing {', '.join(missing)}")
    return fields
