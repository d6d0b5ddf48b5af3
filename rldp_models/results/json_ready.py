"""JSON-ready values: the one conversion every record and certificate is written through."""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np


def jsonable(value: Any) -> Any:
    """``value`` as JSON-ready data: arrays to lists, numpy scalars to Python numbers,
    non-finite floats to strings (``"inf"``), dataclasses to dicts."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return jsonable(dataclasses.asdict(value))
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, np.ndarray):
        return jsonable(value.tolist())
    if isinstance(value, (np.floating, float)):
        return float(value) if np.isfinite(value) else str(float(value))
    if isinstance(value, (np.integer,)):
        return int(value)
    if isinstance(value, np.bool_):
        return bool(value)
    return value
