"""JSON-ready values: the one conversion every record and certificate is written through.

A robust record carries about a quarter of a million conic duals, and a record
passes through :func:`jsonable` several times on its way to disk (certificate,
producer fields, record, file). Lists of plain numbers and float arrays are
therefore checked at C speed (:func:`_finite_numbers`, one ``np.isfinite`` per
array); only a list holding something else, or a non-finite float, is walked
entry by entry.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import numpy as np

_NUMBER_TYPES = frozenset((float, int))
"""Entry types of a list that is JSON-ready as it stands (when its floats are finite)."""


def jsonable(value: Any) -> Any:
    """``value`` as JSON-ready data: arrays to lists, numpy scalars to Python numbers,
    non-finite floats to strings (``"inf"``, ``"-inf"``, ``"nan"``), dataclasses to dicts,
    tuples to lists, dictionary keys to strings."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return jsonable(dataclasses.asdict(value))
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        numbers = _finite_numbers(value)
        return numbers if numbers is not None else [jsonable(v) for v in value]
    if isinstance(value, np.ndarray):
        if value.dtype.kind in "biu" or (value.dtype.kind == "f" and np.isfinite(value).all()):
            return value.tolist()  # already Python numbers: no per-entry walk
        return jsonable(value.tolist())
    if isinstance(value, (np.floating, float)):
        number = float(value)
        return number if math.isfinite(number) else str(number)
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.bool_):
        return bool(value)
    return value


def _finite_numbers(values: list[Any] | tuple[Any, ...]) -> list[Any] | None:
    """``values`` as a new list when every entry is a Python ``int`` or a finite ``float``;
    else ``None`` (the caller walks the entries).

    The types are collected by ``set(map(type, ...))`` and finiteness is read off
    the sum: a sum of floats is finite only if every term is (an infinity or a NaN
    among the terms makes it infinite or NaN). A finite list whose sum overflows
    is walked instead, which is slower but gives the same answer.
    """
    kinds = set(map(type, values))
    if not kinds <= _NUMBER_TYPES:
        return None
    if float in kinds:
        try:
            total = sum(values)
        except OverflowError:  # an int too large for a double beside the floats
            return None
        if not math.isfinite(total):
            return None
    return list(values)
