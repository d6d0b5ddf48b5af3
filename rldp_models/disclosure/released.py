"""Reading released records back: the counts of each output of a result's channel."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from rldp_models.errors import InputError
from rldp_models.disclosure.provenance import released_header
from rldp_models.disclosure.records import RELEASED_COLUMN


def released_counts(path: str | Path, outputs: list[str],
                    column: str = RELEASED_COLUMN) -> tuple[np.ndarray, bool]:
    """Counts of every output (label texts ``outputs``) in the released CSV ``path``, and
    whether the file is marked not for release (its ``#`` first line). The comment lines
    before the header (:mod:`rldp_models.disclosure.provenance`) are skipped.

    Raises
    ------
    InputError
        Unreadable file, no ``column``, or values that are not outputs of the channel.
    """
    header = released_header(path)
    try:
        frame = pd.read_csv(path, dtype=str, keep_default_na=False, skiprows=header.lines,
                            usecols=lambda name: name == column)
    except (OSError, UnicodeDecodeError, pd.errors.ParserError,
            pd.errors.EmptyDataError) as exc:
        raise InputError(f"{path}: cannot read released records "
                         f"({' '.join(str(exc).split())})") from None
    if column not in frame.columns:
        raise InputError(f"{path}: no column {column!r} (the released values)")
    return output_counts(frame[column], outputs, str(path)), header.not_for_release


def output_counts(values: pd.Series, outputs: list[str], source: str) -> np.ndarray:
    """Counts of every output (label texts ``outputs``) among the released ``values`` (compared
    as text, as released files write them); ``source`` names them in errors.

    Raises
    ------
    InputError
        No values, or values that are not outputs of the channel.
    """
    codes = pd.Index(outputs).get_indexer(pd.Index(values.astype(str)))
    if np.any(codes < 0):
        unknown = values[codes < 0].iloc[0]
        raise InputError(f"{source}: {int(np.sum(codes < 0))} released values are not outputs "
                         f"of the result (first: {unknown!r}); was it released with another "
                         "result?")
    if codes.size == 0:
        raise InputError(f"{source}: no released records")
    return np.bincount(codes, minlength=len(outputs))
