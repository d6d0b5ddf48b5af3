"""Crosstab counts of (S, U) with their labels, and the empirical distribution Phat.

A :class:`Crosstab` is what every program reads: the counts ``n[s, u]`` of a
public data set, the labels of S (rows) and U (columns) in the order they were
given, and derived quantities (``n``, ``phat``). Labels are never reordered.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import numpy as np

from rldp_models.errors import InputError


@dataclass(frozen=True, eq=False)
class Crosstab:
    """Counts of a public data set over S x U, with labels.

    Parameters
    ----------
    counts : ndarray of int, shape (|S|, |U|)
        Nonnegative integer counts; at least one positive.
    s_labels, u_labels : sequence of str
        Labels of the rows (S) and columns (U), in order.
    """

    counts: np.ndarray
    s_labels: tuple[str, ...]
    u_labels: tuple[str, ...]

    def __post_init__(self) -> None:
        counts = _validated_counts(self.counts)
        object.__setattr__(self, "counts", counts)
        object.__setattr__(self, "s_labels", tuple(str(s) for s in self.s_labels))
        object.__setattr__(self, "u_labels", tuple(str(u) for u in self.u_labels))
        if len(self.s_labels) != counts.shape[0] or len(self.u_labels) != counts.shape[1]:
            raise InputError(
                f"labels do not match the counts: {len(self.s_labels)} S labels and "
                f"{len(self.u_labels)} U labels for a {counts.shape[0]}x{counts.shape[1]} table"
            )
        for axis, labels in (("S", self.s_labels), ("U", self.u_labels)):
            if len(set(labels)) != len(labels):
                raise InputError(f"duplicate {axis} labels: {list(labels)}")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Crosstab):
            return NotImplemented
        return (self.s_labels == other.s_labels and self.u_labels == other.u_labels
                and np.array_equal(self.counts, other.counts))

    __hash__ = None  # type: ignore[assignment]

    @classmethod
    def from_array(cls, counts: np.ndarray | Sequence[Sequence[float]],
                   s_labels: Sequence[str] | None = None,
                   u_labels: Sequence[str] | None = None) -> "Crosstab":
        """A crosstab from a count matrix; labels default to ``0, 1, ...``."""
        array = np.asarray(counts)
        if array.ndim != 2:
            raise InputError(f"counts must be a 2-D table, got shape {array.shape}")
        s_labels = s_labels if s_labels is not None else [str(i) for i in range(array.shape[0])]
        u_labels = u_labels if u_labels is not None else [str(j) for j in range(array.shape[1])]
        return cls(array, tuple(s_labels), tuple(u_labels))

    @classmethod
    def from_csv(cls, path: str | Path) -> "Crosstab":
        """Read a crosstab CSV as written by ``pandas.crosstab(df.s, df.u).to_csv()``.

        The first row is a corner cell followed by the U labels; every further
        row is an S label followed by one count per U label.
        """
        rows = read_csv_rows(path)
        if len(rows) < 2:
            raise InputError(f"{path}: a crosstab needs a header row and at least one S row")
        header = rows[0]
        if len(header) < 2:
            raise InputError(f"{path}: the header row needs at least one U label")
        width = len(header)
        for line_number, row in enumerate(rows[1:], start=2):
            if len(row) != width:
                raise InputError(
                    f"{path}: ragged CSV, line {line_number} has {len(row)} fields, "
                    f"the header has {width}"
                )
        values = [[_parse_count(cell, path, i + 2) for cell in row[1:]]
                  for i, row in enumerate(rows[1:])]
        return cls(np.array(values), tuple(r[0] for r in rows[1:]), tuple(header[1:]))

    @classmethod
    def from_records(cls, path: str | Path, sensitive: str, public: str) -> "Crosstab":
        """Count raw records (a CSV with a header) over two of their columns.

        Labels appear in sorted order (numerically when every label is a
        number). Surrounding spaces in fields are stripped, as in the UCI Adult
        files.
        """
        import pandas as pd

        try:
            frame = pd.read_csv(path, skipinitialspace=True, dtype=str)
        except (OSError, pd.errors.ParserError, UnicodeDecodeError) as exc:
            raise InputError(f"{path}: cannot read records ({_first_line(exc)})") from None
        for column in (sensitive, public):
            if column not in frame.columns:
                raise InputError(
                    f"{path}: no column {column!r}; columns are {', '.join(frame.columns)}"
                )
        frame = frame[[sensitive, public]].dropna()
        if frame.empty:
            raise InputError(f"{path}: no complete records in columns {sensitive!r}, {public!r}")
        table = pd.crosstab(frame[sensitive], frame[public])
        table = table.loc[_natural_order(table.index), _natural_order(table.columns)]
        return cls(table.to_numpy(), tuple(table.index), tuple(table.columns))

    def to_csv(self, path: str | Path) -> None:
        """Write the crosstab in the format :meth:`from_csv` reads."""
        with open(path, "w", newline="") as handle:
            writer = csv.writer(handle)
            writer.writerow(["s", *self.u_labels])
            for label, row in zip(self.s_labels, self.counts):
                writer.writerow([label, *row.tolist()])

    @property
    def shape(self) -> tuple[int, int]:
        """``(|S|, |U|)``."""
        return self.counts.shape  # type: ignore[return-value]

    @property
    def n(self) -> int:
        """Number of records."""
        return int(self.counts.sum())

    @property
    def phat(self) -> np.ndarray:
        """Empirical joint distribution ``Phat[s, u] = n[s, u] / n``."""
        return self.counts / self.n

    def numeric_u(self) -> np.ndarray:
        """U labels as numbers, for distortions that need them (squared, absolute)."""
        try:
            return np.array([float(u) for u in self.u_labels])
        except ValueError:
            raise InputError(
                f"U labels must be numeric for this distortion, got {list(self.u_labels)}"
            ) from None


def _validated_counts(counts: np.ndarray) -> np.ndarray:
    array = np.asarray(counts, dtype=float)
    if array.ndim != 2 or array.size == 0:
        raise InputError(f"counts must be a non-empty 2-D table, got shape {array.shape}")
    if not np.all(np.isfinite(array)):
        raise InputError("counts must be finite numbers")
    if np.any(array < 0):
        raise InputError("counts must be nonnegative")
    if np.any(array != np.round(array)):
        raise InputError("counts must be integers (use counts, not probabilities)")
    if array.sum() <= 0:
        raise InputError("counts must contain at least one record")
    return array.astype(np.int64)


def read_csv_rows(path: str | Path) -> list[list[str]]:
    """The rows of a CSV file, each cell stripped, blank rows dropped.

    Raises
    ------
    InputError
        If the file cannot be opened, decoded or parsed (one line, naming ``path``).
    """
    try:
        with open(path, newline="") as handle:
            rows = [[cell.strip() for cell in row] for row in csv.reader(handle)]
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise InputError(f"{path}: cannot read ({_first_line(exc)})") from None
    return [row for row in rows if any(row)]


def _parse_count(cell: str, path: str | Path, line_number: int) -> float:
    try:
        return float(cell)
    except ValueError:
        raise InputError(f"{path}: line {line_number}: count {cell!r} is not a number") from None


def _natural_order(labels: Sequence[str]) -> list[str]:
    try:
        return sorted(labels, key=float)
    except ValueError:
        return sorted(labels)


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__
