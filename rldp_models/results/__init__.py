"""One certified result for every protocol and mechanism and its record.

=================================  ===========================================
module                             idea
=================================  ===========================================
:mod:`~.certified`                 the :class:`CertifiedResult` dataclass
:mod:`~.record`                    ``to_record`` / ``from_record`` (JSON)
:mod:`~.schema`                    the versioned JSON Schema and validation
:mod:`~.migration`                 round-1 files and the producers' fields
:mod:`~.producers`                 each producer's result as a CertifiedResult
:mod:`~.product_result`            IR, GRR-CR, UE-CR as exact factors ("product")
:mod:`~.blocks`                    blocks and sets as declarations, plug-ins
:mod:`~.counts`                    embedded counts and their digest
:mod:`~.files`                     hardened reading, guarded writing
=================================  ===========================================

Every producer finishes its matrix on the one repair path below all of them
(:mod:`rldp_models.finish`: dyadic rows, exact re-check, repair).

Names below are imported on first use, keeping ``import rldp_models.results`` light.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

_EXPORTS = {
    "CertifiedResult": "certified", "GuaranteeVerdict": "certified", "Declaration": "certified",
    "SolverRecord": "certified", "read_record": "files", "write_record": "files",
    "GuaranteeFailed": "files", "validate": "schema", "schema": "schema",
    "from_record": "record", "to_record": "record", "SCHEMA_VERSION": "record",
    "migrate": "migration", "product_protocol_result": "product_result",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(f"{__name__}.{_EXPORTS[name]}"), name)
