"""The versioned JSON Schema of result records, shipped as package data, and validation.

``result.schema.json`` (draft 2020-12) describes version
:data:`~rldp_models.results.record.SCHEMA_VERSION` of the record written by
:func:`~rldp_models.results.record.to_record`; ``rldp schema`` prints it.
"""

from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources
from typing import Any

from rldp_models.errors import InputError

SCHEMA_FILE = "result.schema.json"


def schema_text() -> str:
    """The schema as shipped in the package."""
    return resources.files("rldp_models.results").joinpath(SCHEMA_FILE).read_text()


@lru_cache(maxsize=1)
def schema() -> dict[str, Any]:
    return json.loads(schema_text())


@lru_cache(maxsize=1)
def _validator() -> Any:
    from jsonschema import Draft202012Validator

    return Draft202012Validator(schema())


def validate(record: Any) -> None:
    """Check a record against the schema.

    Raises
    ------
    InputError
        One line naming where the record first departs from the schema.
    """
    error = next(iter(sorted(_validator().iter_errors(record), key=lambda e: list(e.path))),
                 None)
    if error is not None:
        where = "/".join(str(p) for p in error.absolute_path) or "(top level)"
        message = " ".join(error.message.split())
        if len(message) > 160:
            message = message[:157] + "..."
        raise InputError(f"the record does not follow the result schema at {where}: {message}")
